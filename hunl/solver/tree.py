"""Betting trees for heads-up no-limit hold'em postflop endgames (flop, turn or river).

An endgame starts at the beginning of a betting round (street) with both players having put the same amount,
half of ``pot``, into the pot, and ``stack`` chips each behind. Player 1 is the out-of-position player (first to
act on every postflop street), player 2 the button. The tree is an action abstraction in the usual solver form
(Libratus endgames, Brown & Sandholm 2019; Bertsimas & Paskov 2022, Section 2.3):

* the first bet of a street is one of the acting player's ``bets`` and a raise one of their ``raises``, in the
  size grammar of :mod:`hunl.solver.sizes` (``"33%, 75%, a"``, ``"2.5x"``, ``"100c"``, ``"2e150%"``; bare numbers
  are pot fractions): a pot-relative bet is a fraction of the pot at that moment, a pot-relative raise a fraction
  of the pot *after the call* (a pot-size raise with a pot ``P`` facing a bet ``b`` raises to
  ``b + 1.0 * (P + b)``); at most ``raise_cap`` raises per street (all-in counts as a raise). Sizes may differ
  per player and street (:class:`StreetSizes`), and OOP's first bet of a turn or river after OOP called the
  previous street's last bet may use *donk* sizes;
* amounts: each size gives the chips put in beyond the call, rounded **half away from zero** to whole chips
  (the solver ecosystem's rule: a 75% bet into 166 is 124.5 -> 125, where Python's ``round`` gives 124), at
  least one chip. A total at or above the stack is all-in. Then the tree thresholds of postflop-solver's
  ``TreeConfig`` apply (:class:`TreeConfig`): ``force_allin_threshold`` (old name ``allin_threshold``) makes
  all-in a bet or raise that leaves the bettor at most that times the pot behind after a call;
  ``add_allin_threshold`` adds all-in when it is at most that many pots; ``merging_threshold`` removes sizes
  close to a larger one (PioSOLVER's rule). Equal amounts are merged;
* a street ends when both players check or a bet is called; before the turn and the river a chance node deals
  the next card (one child per card not on the board, or per class of suit-isomorphic cards, below); when a
  player is all-in and called the remaining cards are dealt and the hand goes to showdown.

Action labels: ``"check"``, ``"bet 250"`` (chips put in), ``"raise to 1500"`` (the player's total bet on this
street after raising), ``"all-in"``, ``"call"``, ``"fold"``, and cards ``"7d"`` at chance nodes.
:meth:`BettingTree.lines` and :func:`describe_tree` print the first street's lines with chip amounts
(``"OOP check / IP bet 40 / OOP raise to 120 / IP call"``) and the tree's size.

Payoffs (chips, to player 1) count everything each player has put into the pot, including the ``pot / 2`` each
put in before the endgame: a fold by player 1 pays ``-c1``, a fold by player 2 pays ``+c2``, and a showdown with
equal contributions ``c`` pays ``+c``, ``0`` or ``-c``. Exploitability does not depend on this constant offset.

Construction
------------
A street's betting tree depends only on the contributions when the street starts and on whether it is a donk
street (the previous street ended with OOP calling and the street has donk sizes), so each distinct pair is built
once (a *template*) and copied under every chance outcome with numpy; no Python object per node is made, and a
flop tree of a million nodes builds in seconds. Nodes are numbered so that a node's children are contiguous and
come after it (chance children first, then each copied street); the numbering is not breadth first.

Suit isomorphism
----------------
With ``suit_symmetries`` (permutations of the suits that map the starting board and both ranges to themselves,
:func:`suit_symmetries`), a chance node deals one representative of every class of cards that a symmetry fixing
the current board maps onto each other (e.g. on ``Td9d6h`` the turn cards ``2s`` and ``2c``); the copies are listed
in :attr:`BettingTree.iso` with the suit permutation that maps the representative's game onto theirs
(postflop-solver's "isomorphic chance nodes"). The solver counts the representative's values once per copy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from games.core.tree import CHANCE, DECISION, TERMINAL, PublicTree
from hunl.solver.limits import check_chips
from hunl.solver.sizes import format_sizes, parse_sizes
from rulelearn.validation import check_int, check_real

__all__ = [
    "LIBRATUS_SIZES",
    "STREETS",
    "BetSizes",
    "BettingTree",
    "StreetSizes",
    "TreeConfig",
    "build_tree",
    "describe_tree",
    "suit_symmetries",
]

#: Names of the players in printed lines (player 1 acts first on every street).
PLAYER_NAMES = ("OOP", "IP")
#: Streets by name and by number of board cards.
STREETS = {"flop": 3, "turn": 4, "river": 5}
_STREET_NAMES = {v: k for k, v in STREETS.items()}


def _has_allin(sizes) -> bool:
    return any(x.kind == "allin" for x in sizes)


@dataclass(frozen=True)
class BetSizes:
    """The bet and raise sizes of one player on one street, in the size grammar of :mod:`hunl.solver.sizes`.

    Parameters
    ----------
    bets : str or sequence of (str or float), default (0.5, 1.0)
        Sizes of the first bet of the street: ``"33%, 75%, a"``, ``["33%", "e"]`` or pot fractions
        ``(0.5, 1.0)`` (0.5 = half the pot). ``x`` sizes are refused (a first bet has no previous bet).
    raises : str or sequence of (str or float), default (1.0,)
        Raise sizes: ``"2.5x, a"``, ``"100%"`` or pot fractions of the pot *after calling* (1.0 = pot-size
        raise).
    all_in : bool or None, default None
        Whether all-in is always an option (as a bet and as a raise). ``None``: true unless an ``a`` token is
        written in ``bets`` or ``raises`` (then all-in is an option exactly where ``a`` is written, as in
        postflop-solver); so ``BetSizes((0.5, 1.0), (1.0,))`` keeps the old default of all-in everywhere.

    Attributes
    ----------
    bets, raises : tuple of hunl.solver.sizes.Size
        The parsed sizes, distinct, in canonical order (:func:`hunl.solver.sizes.parse_sizes`).
    all_in : bool
        Resolved as above.

    Raises
    ------
    ValueError
        A malformed size token (naming ``bets`` or ``raises``, the token and the rule), or ``all_in`` not a
        boolean or None.
    """

    bets: tuple = (0.5, 1.0)
    raises: tuple = (1.0,)
    all_in: bool | None = None

    def __post_init__(self):
        object.__setattr__(self, "bets", parse_sizes(self.bets, "bet", "bets"))
        object.__setattr__(self, "raises", parse_sizes(self.raises, "raise", "raises"))
        if self.all_in is None:
            all_in = not (_has_allin(self.bets) or _has_allin(self.raises))
        elif isinstance(self.all_in, (bool, np.bool_)):
            all_in = bool(self.all_in)
        else:
            raise ValueError(f"all_in must be true, false or None (automatic), got {self.all_in!r}")
        object.__setattr__(self, "all_in", all_in)

    @property
    def bet_all_in(self) -> bool:
        """Whether all-in is a first-bet option (``all_in`` or an ``a`` in ``bets``)."""
        return self.all_in or _has_allin(self.bets)

    @property
    def raise_all_in(self) -> bool:
        """Whether all-in is a raise option (``all_in`` or an ``a`` in ``raises``)."""
        return self.all_in or _has_allin(self.raises)

    def to_text(self) -> dict:
        """The sizes as spot-file text: ``{"bets": "33%, 75%, a", "raises": "2.5x"}``, plus ``"all_in"`` when
        it is not what the default rule (``all_in=None``) gives; ``BetSizes(**sizes.to_text()) == sizes``."""
        out = {"bets": format_sizes(self.bets), "raises": format_sizes(self.raises)}
        if self.all_in != (not (_has_allin(self.bets) or _has_allin(self.raises))):
            out["all_in"] = self.all_in
        return out

    def to_data(self) -> dict:
        """JSON-ready ``{"bets": [...], "raises": [...], "all_in": bool}``: pot fractions as numbers (``0.5``),
        other sizes as their tokens (``"2.5x"``); ``BetSizes(**sizes.to_data()) == sizes``."""
        def items(sizes):
            return [x.value if x.kind == "pot" else x.text for x in sizes]
        return {"bets": items(self.bets), "raises": items(self.raises), "all_in": self.all_in}


@dataclass(frozen=True)
class StreetSizes:
    """The sizes of one street per player, with optional donk-bet sizes.

    Parameters
    ----------
    oop, ip : BetSizes or mapping
        Sizes of the out-of-position player (player 1) and the in-position player (a mapping is passed to
        :class:`BetSizes`).
    donk : str or sequence of (str or float), optional
        Turn and river only: OOP's first-bet sizes on a street whose previous street ended with OOP calling
        (IP made the last bet or raise) -- the *donk bet* of postflop-solver's ``turn_donk_sizes`` /
        ``river_donk_sizes``. On such a node OOP may check or bet exactly these sizes (all-in only as an ``a``
        token or by ``add_allin_threshold``); ``None`` (default): OOP's normal ``bets`` apply. A donk street
        is never the endgame's first street (it has no previous street).

    Raises
    ------
    ValueError
        ``oop``/``ip`` not sizes, or a malformed or ``x`` donk size (naming ``donk``).
    """

    oop: BetSizes = field(default_factory=BetSizes)
    ip: BetSizes = field(default_factory=BetSizes)
    donk: tuple | None = None

    def __post_init__(self):
        for name in ("oop", "ip"):
            v = getattr(self, name)
            if isinstance(v, Mapping):
                try:
                    v = BetSizes(**v)
                except TypeError as exc:
                    raise ValueError(f"{name}: {exc}") from None
                except ValueError as exc:
                    raise ValueError(f"{name}.{exc}") from None
            if not isinstance(v, BetSizes):
                raise ValueError(f"{name} must be a BetSizes, got {v!r}")
            object.__setattr__(self, name, v)
        if self.donk is not None:
            object.__setattr__(self, "donk", parse_sizes(self.donk, "bet", "donk"))

    @classmethod
    def of(cls, sizes) -> StreetSizes:
        """``sizes`` as a :class:`StreetSizes` (a :class:`BetSizes` becomes both players' sizes, no donk)."""
        if isinstance(sizes, StreetSizes):
            return sizes
        if isinstance(sizes, BetSizes):
            return cls(sizes, sizes, None)
        raise ValueError(f"sizes must be a BetSizes or a StreetSizes, got {sizes!r}")

    def player(self, p: int) -> BetSizes:
        """The :class:`BetSizes` of player ``p`` (0 = OOP, 1 = IP)."""
        return self.ip if p else self.oop

    def to_text(self) -> dict:
        """``{"oop": {...}, "ip": {...}, "donk": "50%"}`` (text of :meth:`BetSizes.to_text`; no ``donk`` key
        when there are none); ``StreetSizes(**x.to_text()) == x``."""
        out = {"oop": self.oop.to_text(), "ip": self.ip.to_text()}
        if self.donk is not None:
            out["donk"] = format_sizes(self.donk)
        return out


#: The abstraction of the Libratus endgame benchmarks (Brown & Sandholm 2019; DDCFR repository): the first bet
#: of a round is 0.5 pot, 1 pot or all-in; later bets (raises) are 1 pot or all-in.
LIBRATUS_SIZES = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)

_THRESHOLDS = ("add_allin_threshold", "force_allin_threshold", "merging_threshold")


@dataclass(frozen=True)
class TreeConfig:
    """Parameters of a postflop endgame betting tree.

    Parameters
    ----------
    street : {"flop", "turn", "river"}
        The street the endgame starts on.
    pot : float
        Chips in the pot at the start (each player has put in half).
    stack : float
        Effective stack behind, in chips, at the start of the endgame (what each player can still bet).
    turn, river : BetSizes or StreetSizes
        Sizes on the turn and the river (``turn`` is unused for a river endgame); a :class:`BetSizes` is both
        players' sizes, a :class:`StreetSizes` gives each player's and the donk sizes.
    raise_cap : int, default 3
        Maximum number of raises per street after the first bet (all-in counts as a raise).
    allin_threshold : float, default 0.0
        The old name of ``force_allin_threshold`` (either may be given; if both are, they must agree, and
        both attributes hold the value).
    flop : BetSizes or StreetSizes, default ``BetSizes()``
        Sizes on the flop (flop endgames only; no donk sizes).
    add_allin_threshold : float, default 0.0
        Add an all-in option to a bet or raise whose sizes do not include it when the all-in, as a fraction of
        the pot (a bet: chips put in over the pot; a raise: chips put in beyond the call over the pot after
        calling -- the units of ``33%``), is at most this (postflop-solver's ``add_allin_threshold``, there
        1.5 by default: all-in is added when it is at most a 1.5-pot bet). 0 disables the rule.
    force_allin_threshold : float, optional
        A bet or raise that would leave the bettor at most this times the pot behind after the opponent calls
        (stack-to-pot ratio after the call <= threshold) becomes all-in (postflop-solver's
        ``force_allin_threshold``). Default: ``allin_threshold``, 0 (off).
    merging_threshold : float, default 0.0
        PioSOLVER's merging of close sizes at each node: with the sizes as pot fractions (as for
        ``add_allin_threshold``; all-in included), take the largest ``X``, remove every ``Y`` with
        ``(1 + X) < (1 + Y) (1 + t)``, and repeat from the largest size left. 0 disables it.

    Raises
    ------
    ValueError
        Unknown street, a pot that is not positive, a negative stack, a negative raise cap or threshold,
        ``allin_threshold`` and ``force_allin_threshold`` that disagree, sizes that are not sizes, or donk sizes
        on the flop.
    """

    street: str
    pot: float
    stack: float
    turn: BetSizes = field(default_factory=BetSizes)
    river: BetSizes = field(default_factory=BetSizes)
    raise_cap: int = 3
    allin_threshold: float = 0.0
    flop: BetSizes = field(default_factory=BetSizes)
    add_allin_threshold: float = 0.0
    force_allin_threshold: float | None = None
    merging_threshold: float = 0.0

    def __post_init__(self):
        street = str(self.street).strip().lower()
        if street not in STREETS:
            raise ValueError(f"street must be 'flop', 'turn' or 'river', got {self.street!r}")
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "pot", check_real("pot", self.pot, 0.0, low_open=True))
        object.__setattr__(self, "stack", check_real("stack", self.stack, 0.0))
        check_chips(self.pot, self.stack)
        old = check_real("allin_threshold", self.allin_threshold, 0.0)
        if self.force_allin_threshold is None:
            force = old
        else:
            force = check_real("force_allin_threshold", self.force_allin_threshold, 0.0)
            if old not in (0.0, force):
                raise ValueError(f"allin_threshold = {old!r} and force_allin_threshold = {force!r} disagree "
                                 "(allin_threshold is the old name of force_allin_threshold)")
        object.__setattr__(self, "allin_threshold", force)
        object.__setattr__(self, "force_allin_threshold", force)
        for name in ("add_allin_threshold", "merging_threshold"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), 0.0))
        object.__setattr__(self, "raise_cap", check_int("raise_cap", self.raise_cap, 0))
        for name in ("flop", "turn", "river"):
            if not isinstance(getattr(self, name), (BetSizes, StreetSizes)):
                raise ValueError(f"{name} must be a BetSizes or a StreetSizes, got {getattr(self, name)!r}")
        if isinstance(self.flop, StreetSizes) and self.flop.donk is not None:
            raise ValueError("flop.donk: the flop has no donk bet (there is no previous street)")

    def _street(self, street):
        if isinstance(street, str):
            if street not in STREETS:
                raise ValueError(f"street must be 'flop', 'turn', 'river' or 3, 4, 5, got {street!r}")
            return street
        if int(street) not in _STREET_NAMES:
            raise ValueError(f"street must be 'flop', 'turn', 'river' or 3, 4, 5, got {street!r}")
        return _STREET_NAMES[int(street)]

    def sizes(self, street, player: int = 0) -> BetSizes:
        """The :class:`BetSizes` of ``player`` (0 = OOP, 1 = IP) on a street given by name or number of board
        cards (3 flop, 4 turn, 5 river)."""
        return StreetSizes.of(getattr(self, self._street(street))).player(int(player))

    def donk_sizes(self, street):
        """The donk sizes of a street (tuple of :class:`hunl.solver.sizes.Size`), or None (no donk sizes)."""
        s = getattr(self, self._street(street))
        return s.donk if isinstance(s, StreetSizes) else None


@dataclass(frozen=True, eq=False)
class BettingTree:
    """A flattened endgame betting tree and the betting state at each node.

    Attributes
    ----------
    tree : PublicTree
        The public tree. Board ``b`` (``tree.board``) is the card sequence ``boards[b]``.
    config : TreeConfig
        The parameters it was built from.
    boards : tuple of tuple of int
        The full board (card indices, in dealing order) of every board index; ``boards[0]`` is the starting
        board.
    river_cards : tuple of int
        Turn endgames without isomorphism: the possible river cards in board order (board ``k + 1``); empty
        otherwise (kept for the turn-endgame code that reads it).
    street : numpy.ndarray of int8, shape ``(N,)``
        Number of board cards at each node (3 flop, 4 turn, 5 river).
    contributions : numpy.ndarray of float64, shape ``(N, 2)``
        Chips each player has put into the pot in total (including ``pot / 2`` before the endgame).
    raises : numpy.ndarray of int8, shape ``(N,)``
        Bets and raises so far on the node's street.
    symmetries : numpy.ndarray of int8, shape ``(S, 4)``
        The suit permutations used for isomorphism (row 0 the identity); one row without isomorphism.
    iso : tuple of three numpy.ndarray
        ``(iso_ptr (N + 1,) int64, iso_node_perm (M,) int32, iso_card (M,) int16)``: the copies each chance child
        stands for -- entries ``iso_ptr[c] .. iso_ptr[c + 1] - 1`` give the suit permutation (row of
        ``symmetries``) mapping child ``c``'s game onto the copy's, and the copy's card.
    """

    tree: PublicTree
    config: TreeConfig
    boards: tuple
    river_cards: tuple
    street: np.ndarray
    contributions: np.ndarray
    raises: np.ndarray
    symmetries: np.ndarray
    iso: tuple

    @property
    def pot(self) -> np.ndarray:
        """``(N,)`` float64: the pot at each node in chips (both contributions)."""
        return self.contributions.sum(axis=1)

    @property
    def to_call(self) -> np.ndarray:
        """``(N,)`` float64: chips the acting player must add to call (0 when not facing a bet)."""
        c = self.contributions
        p = np.clip(self.tree.player, 0, 1)
        return np.maximum(c[np.arange(c.shape[0]), 1 - p] - c[np.arange(c.shape[0]), p], 0.0)

    def summary(self) -> str:
        """One line: nodes, decision nodes, terminals, chance nodes."""
        k = self.tree.kind
        return (f"{self.tree.n_nodes} nodes: {int((k == DECISION).sum())} decisions, "
                f"{int((k == TERMINAL).sum())} terminals, {int((k == CHANCE).sum())} chance")

    def lines(self, max_depth: int | None = None) -> tuple:
        """The betting lines of the endgame's first street, with chip amounts.

        Parameters
        ----------
        max_depth : int, optional
            Longest line, in actions; a longer line is cut and ends in ``" / ..."``. None (default): every
            line to its end.

        Returns
        -------
        tuple of str
            One line per way the first street can end (a fold, a call, both players checking), depth first in
            the tree's action order, e.g. ``"OOP check / IP bet 40 / OOP raise to 120 / IP call"``. Amounts are
            the player's chips on this street after the action (``bet 40``, ``raise to 120``); all-in is written
            ``bet 270 (all-in)`` or ``raise to 270 (all-in)``.

        Raises
        ------
        ValueError
            If ``max_depth`` is not an integer >= 1.
        """
        if max_depth is not None:
            max_depth = check_int("max_depth", max_depth, 1)
        t = self.tree
        kind, player = t.kind, t.player
        start, count = t.child_start, t.num_children
        contrib, street0 = self.contributions, int(self.street[0])
        base = contrib[0]
        labels = t.action
        out = []
        stack = [(0, (), False)]  # (node, line to it, line finished)
        while stack:
            node, line, done = stack.pop()
            if done:
                out.append(" / ".join(line))
                continue
            p = int(player[node])
            todo = []
            for child in range(int(start[node]), int(start[node]) + int(count[node])):
                label = labels[child]
                c = contrib[child, p] - base[p]
                if label == "all-in":
                    facing = contrib[node, 1 - p] > contrib[node, p]
                    label = f"{'raise to' if facing else 'bet'} {c:g} (all-in)"
                elif label.startswith("bet "):
                    label = f"bet {c:g}"
                elif label.startswith("raise to "):
                    label = f"raise to {c:g}"
                step = line + (f"{PLAYER_NAMES[p]} {label}",)
                more = kind[child] == DECISION and int(self.street[child]) == street0
                if more and max_depth is not None and len(step) >= max_depth:
                    todo.append((child, step + ("...",), True))
                else:
                    todo.append((child, step, not more))
            stack.extend(reversed(todo))
        return tuple(out)


# ----------------------------------------------------------------------------------------------- suit symmetries
def _permute_cards(cards, perm) -> np.ndarray:
    cards = np.asarray(cards, dtype=np.int64)
    return 4 * (cards // 4) + np.asarray(perm, dtype=np.int64)[cards % 4]


def suit_symmetries(board, weights=None) -> np.ndarray:
    """The suit permutations that map ``board`` (as a set) and every range in ``weights`` to themselves.

    Parameters
    ----------
    board : sequence of int
        Board cards.
    weights : array_like of float, shape ``(P, 1326)``, optional
        Ranges that must be invariant (exactly equal weights on a combo and its image).

    Returns
    -------
    numpy.ndarray of int8, shape ``(S, 4)``
        ``perm[s]`` is the new suit of each suit; row 0 is the identity. A group under composition.
    """
    from hunl.poker.cards import COMBO_CARDS, COMBO_INDEX

    base = set(int(c) for c in board)
    out = []
    w = None if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1, 1326)
    for perm in itertools.permutations(range(4)):
        if set(_permute_cards(list(base), perm).tolist()) != base:
            continue
        if w is not None:
            img = _permute_cards(COMBO_CARDS, perm)
            image = COMBO_INDEX[img[:, 0], img[:, 1]]
            if not np.array_equal(w[:, image], w):
                continue
        out.append(perm)
    return np.array(out, dtype=np.int8)


# ------------------------------------------------------------------------------------------ street templates
_DEC, _FOLD, _END = 0, 1, 2


def _amount(x: float) -> float:
    """Chips of a bet of ``x`` chips: rounded half away from zero (124.5 -> 125), at least one chip."""
    return float(max(1.0, math.floor(x + 0.5)))


class _Template:
    """The betting tree of one street from given contributions, nodes in breadth-first order.

    ``donk``: the street's first OOP bet uses the donk sizes (the previous street ended with OOP calling)."""

    def __init__(self, config: TreeConfig, street: int, contrib: tuple, cap: float, donk: bool = False):
        self.kind: list = []
        self.player: list = []
        self.children: list = []
        self.label: list = []
        self.contrib: list = []
        self.raises: list = []
        self.value: list = []
        self.oop_call: list = []
        sizes = (config.sizes(street, 0), config.sizes(street, 1))
        donk_sizes = config.donk_sizes(street) if donk else None
        queue = [(0, contrib, 0, False, "")]
        # breadth-first: expand in order of creation
        pos = 0
        self._new(_DEC, 0, contrib, 0, "")
        while pos < len(queue):
            p, c, raises, acted, _ = queue[pos]
            node = pos
            pos += 1
            if self.kind[node] != _DEC:
                continue
            o = 1 - p
            to_call = c[o] - c[p]
            kids = []
            if to_call <= 0:
                if acted:
                    kids.append(self._leaf(_END, c, raises, "check", queue))
                else:
                    kids.append(self._decision(o, c, raises, True, "check", queue))
                if p == 0 and not acted and donk_sizes is not None:
                    tokens, all_in = donk_sizes, False
                else:
                    tokens, all_in = sizes[p].bets, sizes[p].bet_all_in
                for total, is_allin in _options(config, street, tokens, all_in, c, p, contrib[0], cap):
                    new = (total, c[1]) if p == 0 else (c[0], total)
                    label = "all-in" if is_allin else f"bet {int(total - c[p])}"
                    kids.append(self._decision(o, new, raises + 1, True, label, queue))
            else:
                value = -c[0] if p == 0 else c[1]
                kids.append(self._leaf(_FOLD, c, raises, "fold", queue, value=float(value)))
                called = (c[o], c[o])
                kids.append(self._leaf(_END, called, raises, "call", queue, oop_call=p == 0))
                if raises - 1 < config.raise_cap and not c[o] >= cap - 1e-9:
                    base = contrib[0]
                    opts = _options(config, street, sizes[p].raises, sizes[p].raise_all_in, c, p, base, cap)
                    for total, is_allin in opts:
                        new = (total, c[1]) if p == 0 else (c[0], total)
                        label = "all-in" if is_allin else f"raise to {int(total - base)}"
                        kids.append(self._decision(o, new, raises + 1, True, label, queue))
            self.children[node] = kids
        self.n = len(self.kind)
        self.kind_a = np.array(self.kind, dtype=np.int8)
        self.player_a = np.array(self.player, dtype=np.int8)
        self.nch = np.array([len(k) for k in self.children], dtype=np.int32)
        self.first = np.array([k[0] if k else 0 for k in self.children], dtype=np.int64)
        self.contrib_a = np.array(self.contrib, dtype=np.float64).reshape(-1, 2)
        self.raises_a = np.array(self.raises, dtype=np.int8)
        self.value_a = np.array(self.value, dtype=np.float64)
        self.ends = np.flatnonzero(self.kind_a == _END)
        for k in self.children:
            if k and k != list(range(k[0], k[0] + len(k))):  # pragma: no cover - breadth-first invariant
                raise AssertionError("template children are not contiguous")

    def _new(self, kind, player, c, raises, label, value=0.0, oop_call=False) -> int:
        self.kind.append(kind)
        self.player.append(player)
        self.children.append([])
        self.label.append(label)
        self.contrib.append(c)
        self.raises.append(raises)
        self.value.append(value)
        self.oop_call.append(bool(oop_call))
        return len(self.kind) - 1

    def _decision(self, p, c, raises, acted, label, queue) -> int:
        k = self._new(_DEC, p, c, raises, label)
        queue.append((p, c, raises, acted, label))
        return k

    def _leaf(self, kind, c, raises, label, queue, value=0.0, oop_call=False) -> int:
        k = self._new(kind, -1, c, raises, label, value, oop_call)
        queue.append((-1, c, raises, True, label))
        return k


def _increment(size, config: TreeConfig, street: int, c: tuple, p: int, base: float, cap: float) -> float:
    """Chips that ``size`` puts in beyond the call (unrounded), for player ``p`` with contributions ``c``."""
    o = 1 - p
    after_call = c[0] + c[1] + (c[o] - c[p])  # the pot after calling (P')
    if size.kind == "pot":
        return size.value * after_call
    if size.kind == "chips":
        return size.value
    if size.kind == "x":  # raise to x times the opponent's total on this street
        return size.value * (c[o] - base) - (c[o] - base)
    # geometric: f with (1 + 2 f) ** n = 1 + 2 S' / P', S' the stack behind after calling
    n = size.streets or (6 - street)
    behind = max(cap - c[o], 0.0)
    f = ((1.0 + 2.0 * behind / after_call) ** (1.0 / n) - 1.0) / 2.0
    return min(f, size.value) * after_call


def _options(config: TreeConfig, street: int, sizes, all_in: bool, c: tuple, p: int, base: float,
             cap: float) -> list:
    """The bet or raise options of player ``p`` facing contributions ``c``: ``[(total, is_all_in), ...]``,
    distinct totals in increasing order, all-in last.

    ``total`` is the player's contribution after betting: the call plus the size's chips rounded half away from
    zero (at least one chip); at or above ``cap`` it is all-in (``cap``), and so is a total leaving the bettor
    at most ``force_allin_threshold`` times the pot behind after a call. All-in is added when ``all_in`` or
    when it is at most ``add_allin_threshold`` pots; then ``merging_threshold`` merges close sizes.
    """
    o = 1 - p
    after_call = c[0] + c[1] + (c[o] - c[p])
    totals = []
    for size in sizes:
        if size.kind == "allin":
            totals.append(cap)
        else:
            totals.append(c[o] + _amount(_increment(size, config, street, c, p, base, cap)))
    if all_in or (cap - c[o]) <= config.add_allin_threshold * after_call:
        totals.append(cap)
    force = config.force_allin_threshold
    out = set()
    for total in totals:
        if total >= cap - 1e-9:
            total = cap
        elif cap - total <= force * 2.0 * total:  # behind after the call <= threshold * the pot after it
            total = cap
        if total > c[o] + 1e-9:
            out.add(total)
    result = sorted(out)
    t = config.merging_threshold
    if t > 0 and len(result) > 1:
        kept = [result[-1]]
        for total in reversed(result[:-1]):
            x = (kept[-1] - c[o]) / after_call
            y = (total - c[o]) / after_call
            if not (1.0 + x) < (1.0 + y) * (1.0 + t) - 1e-9:  # equality (to rounding) keeps ``y``
                kept.append(total)
        result = kept[::-1]
    return [(total, total >= cap - 1e-9) for total in result]


# ------------------------------------------------------------------------------------------------ boards
class _Boards:
    """The board tree: representative next cards of every board, with their isomorphic copies."""

    def __init__(self, start: tuple, symmetries: np.ndarray):
        self.cards = [tuple(start)]
        self.children: list = [None]
        self.sym = symmetries
        self.stab: list = [np.arange(symmetries.shape[0])]

    def next_cards(self, b: int) -> list:
        """``[(card, child board, [(symmetry, copy card), ...]), ...]`` for board ``b`` (built on first use)."""
        if self.children[b] is not None:
            return self.children[b]
        board = self.cards[b]
        used = set(board)
        stab = self.stab[b]
        out = []
        seen = set()
        for c in range(52):
            if c in used or c in seen:
                continue
            copies = []
            kids_stab = []
            for s in stab:
                img = int(_permute_cards([c], self.sym[s])[0])
                if img == c:
                    kids_stab.append(s)
                elif img not in seen and img not in used:
                    seen.add(img)
                    copies.append((int(s), img))
            seen.add(c)
            child = len(self.cards)
            self.cards.append(board + (c,))
            self.children.append(None)
            self.stab.append(np.array(kids_stab, dtype=np.int64))
            out.append((c, child, copies))
        self.children[b] = out
        return out


# ------------------------------------------------------------------------------------------------ assembly
class _Arrays:
    """Growable per-node arrays."""

    FIELDS = (("kind", np.int8), ("player", np.int8), ("parent", np.int32), ("child_start", np.int32),
              ("num_children", np.int32), ("board", np.int32), ("fold_value", np.float64),
              ("stake", np.float64), ("label", np.int32), ("street", np.int8), ("c0", np.float64),
              ("c1", np.float64), ("raises", np.int8))

    def __init__(self, capacity: int):
        self.n = 0
        self.cap = max(16, capacity)
        for name, dt in self.FIELDS:
            setattr(self, name, np.zeros(self.cap, dtype=dt))

    def alloc(self, k: int) -> int:
        start = self.n
        if self.n + k > self.cap:
            new = max(2 * self.cap, self.n + k)
            for name, _ in self.FIELDS:
                arr = getattr(self, name)
                grown = np.zeros(new, dtype=arr.dtype)
                grown[:self.n] = arr[:self.n]
                setattr(self, name, grown)
            self.cap = new
        self.n += k
        return start


class _Assembler:
    def __init__(self, config: TreeConfig, board: tuple, symmetries: np.ndarray):
        self.config = config
        self.cap = config.pot / 2.0 + config.stack
        self.templates: dict = {}
        self.labels: dict = {}
        self.boards = _Boards(board, symmetries)
        self.a = _Arrays(1024)
        self.iso_rows: list = []  # (node, symmetry, card)

    def label_id(self, text: str) -> int:
        k = self.labels.get(text)
        if k is None:
            k = self.labels[text] = len(self.labels)
        return k

    def template(self, street: int, contrib: tuple, donk: bool = False) -> _Template:
        donk = bool(donk) and self.config.donk_sizes(street) is not None
        key = (street, contrib, donk)
        t = self.templates.get(key)
        if t is None:
            t = self.templates[key] = _Template(self.config, street, contrib, self.cap, donk)
            t.label_ids = np.array([self.label_id(x) for x in t.label], dtype=np.int32)
        return t

    def place(self, tpl: _Template, street: int, roots: np.ndarray, boards: np.ndarray, pending: list) -> None:
        """Copies of ``tpl`` rooted at the (already allocated) ``roots``, on ``boards``; chance ends go to
        ``pending``."""
        a = self.a
        k = roots.size
        m = tpl.n
        base = a.alloc(k * (m - 1))
        # global id of template node j in copy i: roots[i] for j = 0, base + i * (m - 1) + j - 1 otherwise
        ids = np.empty((k, m), dtype=np.int64)
        ids[:, 0] = roots
        if m > 1:
            ids[:, 1:] = base + np.arange(k)[:, None] * (m - 1) + np.arange(m - 1)[None, :]
        flat = ids.ravel()
        rows = np.tile(np.arange(m), k)
        copy = np.repeat(np.arange(k), m)
        kind = tpl.kind_a[rows]
        river = street == 5
        node_kind = np.where(kind == _DEC, DECISION, np.where(kind == _FOLD, TERMINAL,
                                                              TERMINAL if river else CHANCE))
        a.kind[flat] = node_kind
        a.player[flat] = np.where(kind == _DEC, tpl.player_a[rows], -1)
        a.board[flat] = boards[copy]
        a.street[flat] = street
        a.c0[flat] = tpl.contrib_a[rows, 0]
        a.c1[flat] = tpl.contrib_a[rows, 1]
        a.raises[flat] = tpl.raises_a[rows]
        a.fold_value[flat] = np.where(kind == _FOLD, tpl.value_a[rows], 0.0)
        a.stake[flat] = np.where((kind == _END) & river, tpl.contrib_a[rows, 0], 0.0)
        a.label[ids[:, 1:].ravel()] = np.tile(tpl.label_ids[1:], k)
        has = tpl.nch[rows] > 0
        first = tpl.first[rows]
        a.num_children[flat] = tpl.nch[rows]
        a.child_start[flat[has]] = ids[copy[has], first[has]]
        # parents: template node j's parent
        par = np.full(m, -1, dtype=np.int64)
        for j, kids in enumerate(tpl.children):
            par[kids] = j
        if m > 1:
            a.parent[ids[:, 1:].ravel()] = ids[np.repeat(np.arange(k), m - 1), np.tile(par[1:], k)]
        if not river:
            for e in tpl.ends:
                c = (float(tpl.contrib_a[e, 0]), float(tpl.contrib_a[e, 1]))
                pending.append((ids[:, e].copy(), boards.copy(), street, c, tpl.oop_call[e]))

    def expand(self, nodes: np.ndarray, boards: np.ndarray, street: int, contrib: tuple, oop_call: bool,
               pending: list) -> None:
        """Deal the next card under the chance nodes ``nodes`` (on ``boards``, all on ``street`` with the same
        contributions, the street ended by OOP calling or not), then place the next street (or the next chance
        node / showdown when all-in)."""
        a = self.a
        all_in = contrib[0] >= self.cap - 1e-9
        nxt = street + 1
        # group the chance nodes by board: they share their children's cards
        for b in np.unique(boards):
            sel = nodes[boards == b]
            cards = self.boards.next_cards(int(b))
            kc = len(cards)
            start = a.alloc(sel.size * kc)
            kid = start + np.arange(sel.size)[:, None] * kc + np.arange(kc)[None, :]  # (nodes, cards)
            a.child_start[sel] = kid[:, 0]
            a.num_children[sel] = kc
            flat = kid.ravel()
            a.parent[flat] = np.repeat(sel, kc)
            child_boards = np.array([cb for _, cb, _ in cards], dtype=np.int64)
            a.label[flat] = np.tile(np.array([self.label_id(_card_label(c)) for c, _, _ in cards]), sel.size)
            for j, (_, _, copies) in enumerate(cards):
                for s, card in copies:
                    for node in kid[:, j]:
                        self.iso_rows.append((int(node), s, card))
            boards_of = np.tile(child_boards, sel.size)
            if all_in:
                a.board[flat] = boards_of
                a.street[flat] = nxt
                a.c0[flat] = contrib[0]
                a.c1[flat] = contrib[1]
                if nxt == 5:
                    a.kind[flat] = TERMINAL
                    a.stake[flat] = contrib[0]
                    a.player[flat] = -1
                else:
                    a.kind[flat] = CHANCE
                    a.player[flat] = -1
                    pending.append((flat.copy(), boards_of, nxt, contrib, False))
            else:
                tpl = self.template(nxt, contrib, oop_call)
                self.place(tpl, nxt, flat.astype(np.int64), boards_of, pending)


def _card_label(card: int) -> str:
    return "23456789TJQKA"[card // 4] + "shdc"[card % 4]


def build_tree(config: TreeConfig, board, symmetries=None) -> BettingTree:
    """Build the betting tree of an endgame.

    Parameters
    ----------
    config : TreeConfig
        Street, pot, stack, sizes and caps.
    board : sequence of int
        The board's card indices (3 on the flop, 4 on the turn, 5 on the river).
    symmetries : array_like of int, shape ``(S, 4)``, optional
        Suit permutations for chance isomorphism (:func:`suit_symmetries`; they must map the board and both
        ranges to themselves). None (default): every card is its own chance child.

    Returns
    -------
    BettingTree

    Raises
    ------
    ValueError
        If the board's size does not match the street, or a symmetry does not fix the board.
    """
    board = tuple(int(c) for c in board)
    street = STREETS[config.street]
    if len(board) != street:
        raise ValueError(f"board must have {street} cards for a {config.street} endgame, got {len(board)}")
    if symmetries is None:
        sym = np.arange(4, dtype=np.int8)[None, :]
    else:
        sym = np.asarray(symmetries, dtype=np.int8).reshape(-1, 4)
        if sym.shape[0] == 0 or not np.array_equal(sym[0], np.arange(4)):
            raise ValueError("symmetries must start with the identity permutation (0, 1, 2, 3)")
        for s in sym:
            if sorted(s.tolist()) != [0, 1, 2, 3] or set(_permute_cards(board, s).tolist()) != set(board):
                raise ValueError(f"symmetry {s.tolist()} does not map the board to itself")
    asm = _Assembler(config, board, sym)
    start = (config.pot / 2.0, config.pot / 2.0)
    root_tpl = asm.template(street, start)
    root = asm.a.alloc(1)
    asm.a.parent[root] = -1
    pending: list = []
    asm.place(root_tpl, street, np.array([root], dtype=np.int64), np.zeros(1, dtype=np.int64), pending)
    while pending:
        nodes, boards, st, contrib, oop_call = pending.pop()
        asm.expand(nodes, boards, st, contrib, oop_call, pending)
    a = asm.a
    n = a.n
    labels = [""] * len(asm.labels)
    for text, k in asm.labels.items():
        labels[k] = text
    a.label[0] = asm.label_id("")
    tree = PublicTree.from_arrays(
        kind=a.kind[:n], player=a.player[:n], parent=a.parent[:n], child_start=a.child_start[:n],
        num_children=a.num_children[:n], board=a.board[:n], fold_value=a.fold_value[:n],
        showdown_stake=a.stake[:n], action_id=a.label[:n], action_labels=tuple(labels))
    iso_rows = asm.iso_rows
    iso_ptr = np.zeros(n + 1, dtype=np.int64)
    if iso_rows:
        rows = np.array(iso_rows, dtype=np.int64)
        order = np.argsort(rows[:, 0], kind="stable")
        rows = rows[order]
        np.add.at(iso_ptr, rows[:, 0] + 1, 1)
        iso_ptr = np.cumsum(iso_ptr)
        iso = (iso_ptr, rows[:, 1].astype(np.int32), rows[:, 2].astype(np.int16))
    else:
        iso = (iso_ptr, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int16))
    boards = tuple(asm.boards.cards)
    river_cards = ()
    if street == 4 and sym.shape[0] == 1:
        river_cards = tuple(b[-1] for b in boards[1:])
    return BettingTree(
        tree=tree, config=config, boards=boards, river_cards=river_cards, street=a.street[:n].copy(),
        contributions=np.stack([a.c0[:n], a.c1[:n]], axis=1), raises=a.raises[:n].copy(), symmetries=sym,
        iso=iso)


def describe_tree(tree: BettingTree, max_depth: int | None = None) -> str:
    """A printout of a betting tree: its size, sizes and the lines of its first street.

    Parameters
    ----------
    tree : BettingTree
    max_depth : int, optional
        Longest line printed, in actions (:meth:`BettingTree.lines`).

    Returns
    -------
    str
        Lines: ``"<street> endgame, pot P, stack S"``, the tree size (:meth:`BettingTree.summary`), the number of
        first-street lines, then one line per betting line, indented.

    Raises
    ------
    ValueError
        A bad ``max_depth``; ``TypeError`` if ``tree`` is not a :class:`BettingTree`.
    """
    if not isinstance(tree, BettingTree):
        raise TypeError(f"tree must be a BettingTree, got {type(tree).__name__}")
    cfg = tree.config
    lines = tree.lines(max_depth)
    head = [f"{cfg.street} endgame, pot {cfg.pot:g}, stack {cfg.stack:g}, raise cap {cfg.raise_cap}",
            tree.summary(), f"{len(lines)} {cfg.street} lines:"]
    return "\n".join(head + ["  " + x for x in lines])

"""Betting trees for heads-up no-limit hold'em postflop endgames (flop, turn or river).

An endgame starts at the beginning of a betting round (street) with both players having put the same amount,
half of ``pot``, into the pot, and ``stack`` chips each behind. Player 1 is the out-of-position player (first to
act on every postflop street), player 2 the button. The tree is an action abstraction in the usual solver form
(Libratus endgames, Brown & Sandholm 2019; Bertsimas & Paskov 2022, Section 2.3):

* the first bet of a street is one of ``bets`` (fractions of the pot at that moment) or all-in;
* a raise is one of ``raises`` (fractions of the pot *after the call*: a pot-size raise with a pot ``P`` facing a
  bet ``b`` raises to ``b + 1.0 * (P + b)``) or all-in; at most ``raise_cap`` raises per street;
* a bet or raise larger than the stack becomes all-in, and one that would leave the bettor less than
  ``allin_threshold`` times the pot (after a call) behind is made all-in (a common solver rule that removes
  near-all-in sizes); equal amounts are merged;
* amounts are rounded to whole chips (at least one chip);
* a street ends when both players check or a bet is called; before the turn and the river a chance node deals
  the next card (one child per card not on the board, or per class of suit-isomorphic cards, below); when a
  player is all-in and called the remaining cards are dealt and the hand goes to showdown.

Action labels: ``"check"``, ``"bet 250"`` (chips put in), ``"raise to 1500"`` (the player's total bet on this
street after raising), ``"all-in"``, ``"call"``, ``"fold"``, and cards ``"7d"`` at chance nodes.

Payoffs (chips, to player 1) count everything each player has put into the pot, including the ``pot / 2`` each
put in before the endgame: a fold by player 1 pays ``-c1``, a fold by player 2 pays ``+c2``, and a showdown with
equal contributions ``c`` pays ``+c``, ``0`` or ``-c``. Exploitability does not depend on this constant offset.

Construction
------------
A street's betting tree depends only on the contributions when the street starts, so each distinct one is built
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
from dataclasses import dataclass, field

import numpy as np

from games.core.tree import CHANCE, DECISION, TERMINAL, PublicTree
from hunl.solver.limits import MAX_POT_FRACTION, check_chips
from rulelearn.validation import check_int, check_real

__all__ = [
    "LIBRATUS_SIZES",
    "STREETS",
    "BetSizes",
    "BettingTree",
    "TreeConfig",
    "build_tree",
    "suit_symmetries",
]

#: Streets by name and by number of board cards.
STREETS = {"flop": 3, "turn": 4, "river": 5}
_STREET_NAMES = {v: k for k, v in STREETS.items()}


def _fractions(name: str, values) -> tuple[float, ...]:
    if isinstance(values, (int, float)):
        values = (values,)
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of pot fractions, got {values!r}") from None
    for v in out:
        if not math.isfinite(v) or v <= 0 or v > MAX_POT_FRACTION:
            raise ValueError(f"{name} must hold positive finite pot fractions of at most 2**20, got {v!r}")
    return tuple(sorted(set(out)))


@dataclass(frozen=True)
class BetSizes:
    """The bet and raise sizes of one street, as fractions of the pot.

    Parameters
    ----------
    bets : sequence of float, default (0.5, 1.0)
        Sizes of the first bet of the street, fractions of the pot when betting (0.5 = half pot).
    raises : sequence of float, default (1.0,)
        Raise sizes, fractions of the pot after calling (1.0 = pot-size raise).
    all_in : bool, default True
        Whether all-in is always an option (as a bet and as a raise).

    Raises
    ------
    ValueError
        If a fraction is not positive and finite.
    """

    bets: tuple = (0.5, 1.0)
    raises: tuple = (1.0,)
    all_in: bool = True

    def __post_init__(self):
        object.__setattr__(self, "bets", _fractions("bets", self.bets))
        object.__setattr__(self, "raises", _fractions("raises", self.raises))
        object.__setattr__(self, "all_in", bool(self.all_in))


#: The abstraction of the Libratus endgame benchmarks (Brown & Sandholm 2019; DDCFR repository): the first bet
#: of a round is 0.5 pot, 1 pot or all-in; later bets (raises) are 1 pot or all-in.
LIBRATUS_SIZES = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)


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
    turn, river : BetSizes
        Sizes on the turn and the river (``turn`` is unused for a river endgame).
    raise_cap : int, default 3
        Maximum number of raises per street after the first bet (all-in counts as a raise).
    allin_threshold : float, default 0.0
        A bet or raise leaving the bettor less than ``allin_threshold`` times the pot (after a call) behind
        becomes all-in. 0 disables the rule.
    flop : BetSizes, default ``BetSizes()``
        Sizes on the flop (flop endgames only).

    Raises
    ------
    ValueError
        Unknown street, a pot that is not positive, a negative stack, a negative raise cap or threshold.
    """

    street: str
    pot: float
    stack: float
    turn: BetSizes = field(default_factory=BetSizes)
    river: BetSizes = field(default_factory=BetSizes)
    raise_cap: int = 3
    allin_threshold: float = 0.0
    flop: BetSizes = field(default_factory=BetSizes)

    def __post_init__(self):
        street = str(self.street).strip().lower()
        if street not in STREETS:
            raise ValueError(f"street must be 'flop', 'turn' or 'river', got {self.street!r}")
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "pot", check_real("pot", self.pot, 0.0, low_open=True))
        object.__setattr__(self, "stack", check_real("stack", self.stack, 0.0))
        check_chips(self.pot, self.stack)
        object.__setattr__(self, "allin_threshold", check_real("allin_threshold", self.allin_threshold, 0.0))
        object.__setattr__(self, "raise_cap", check_int("raise_cap", self.raise_cap, 0))
        for name in ("flop", "turn", "river"):
            if not isinstance(getattr(self, name), BetSizes):
                raise ValueError(f"{name} must be a BetSizes, got {getattr(self, name)!r}")

    def sizes(self, street: int) -> BetSizes:
        """The :class:`BetSizes` of a street given by its number of board cards (3 flop, 4 turn, 5 river)."""
        return {3: self.flop, 4: self.turn, 5: self.river}[int(street)]


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
    return float(max(1, round(x)))


class _Template:
    """The betting tree of one street from given contributions, nodes in breadth-first order."""

    def __init__(self, config: TreeConfig, street: int, contrib: tuple, cap: float):
        self.kind: list = []
        self.player: list = []
        self.children: list = []
        self.label: list = []
        self.contrib: list = []
        self.raises: list = []
        self.value: list = []
        sizes = config.sizes(street)
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
            pot = c[0] + c[1]
            kids = []
            if to_call <= 0:
                if acted:
                    kids.append(self._leaf(_END, c, raises, "check", queue))
                else:
                    kids.append(self._decision(o, c, raises, True, "check", queue))
                targets = [c[p] + _amount(f * pot) for f in sizes.bets]
                for total, is_allin in _targets(targets, c, sizes.all_in, cap, config.allin_threshold):
                    new = (total, c[1]) if p == 0 else (c[0], total)
                    label = "all-in" if is_allin else f"bet {int(total - c[p])}"
                    kids.append(self._decision(o, new, raises + 1, True, label, queue))
            else:
                value = -c[0] if p == 0 else c[1]
                kids.append(self._leaf(_FOLD, c, raises, "fold", queue, value=float(value)))
                called = (c[o], c[o])
                kids.append(self._leaf(_END, called, raises, "call", queue))
                if raises - 1 < config.raise_cap and not c[o] >= cap - 1e-9:
                    base = contrib[0]
                    targets = [c[o] + _amount(f * (pot + to_call)) for f in sizes.raises]
                    for total, is_allin in _targets(targets, c, sizes.all_in, cap, config.allin_threshold):
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

    def _new(self, kind, player, c, raises, label, value=0.0) -> int:
        self.kind.append(kind)
        self.player.append(player)
        self.children.append([])
        self.label.append(label)
        self.contrib.append(c)
        self.raises.append(raises)
        self.value.append(value)
        return len(self.kind) - 1

    def _decision(self, p, c, raises, acted, label, queue) -> int:
        k = self._new(_DEC, p, c, raises, label)
        queue.append((p, c, raises, acted, label))
        return k

    def _leaf(self, kind, c, raises, label, queue, value=0.0) -> int:
        k = self._new(kind, -1, c, raises, label, value)
        queue.append((-1, c, raises, True, label))
        return k


def _targets(targets, contrib, all_in, cap, threshold):
    """Distinct total contributions of the bet/raise options, all-in last, with the caps applied."""
    out = []
    for total in targets:
        if total >= cap - 1e-9:
            total = cap
        else:
            behind = cap - total
            new_pot = 2.0 * total  # the pot after the opponent calls (both contributed ``total``)
            if behind < threshold * new_pot:
                total = cap
        out.append(total)
    if all_in:
        out.append(cap)
    seen, result = set(), []
    for total in sorted(out):
        if total <= max(contrib) + 1e-9 or total in seen:
            continue
        seen.add(total)
        result.append((total, total >= cap - 1e-9))
    return result


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

    def template(self, street: int, contrib: tuple) -> _Template:
        key = (street, contrib)
        t = self.templates.get(key)
        if t is None:
            t = self.templates[key] = _Template(self.config, street, contrib, self.cap)
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
                pending.append((ids[:, e].copy(), boards.copy(), street, c))

    def expand(self, nodes: np.ndarray, boards: np.ndarray, street: int, contrib: tuple, pending: list) -> None:
        """Deal the next card under the chance nodes ``nodes`` (on ``boards``, all on ``street`` with the same
        contributions), then place the next street (or the next chance node / showdown when all-in)."""
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
                    pending.append((flat.copy(), boards_of, nxt, contrib))
            else:
                tpl = self.template(nxt, contrib)
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
        nodes, boards, st, contrib = pending.pop()
        asm.expand(nodes, boards, st, contrib, pending)
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

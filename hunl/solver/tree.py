"""Betting trees for heads-up no-limit hold'em postflop endgames (turn or river).

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
* a street ends when both players check or a bet is called; after the turn a chance node deals the river card
  (one child per card not on the board); when a player is all-in and called the remaining cards are dealt and the
  hand goes to showdown.

Action labels: ``"check"``, ``"bet 250"`` (chips put in), ``"raise to 1500"`` (the player's total bet on this
street after raising), ``"all-in"``, ``"call"``, ``"fold"``, and river cards ``"7d"`` at chance nodes.

Payoffs (chips, to player 1) count everything each player has put into the pot, including the ``pot / 2`` each
put in before the endgame: a fold by player 1 pays ``-c1``, a fold by player 2 pays ``+c2``, and a showdown with
equal contributions ``c`` pays ``+c``, ``0`` or ``-c``. Exploitability does not depend on this constant offset.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from games.core.tree import CHANCE, DECISION, TERMINAL, NodeSpec, PublicTree
from rulelearn.validation import check_int, check_real

__all__ = [
    "LIBRATUS_SIZES",
    "STREETS",
    "BetSizes",
    "BettingTree",
    "TreeConfig",
    "build_tree",
]

#: Streets by name and by number of board cards.
STREETS = {"turn": 4, "river": 5}


def _fractions(name: str, values) -> tuple[float, ...]:
    if isinstance(values, (int, float)):
        values = (values,)
    try:
        out = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of pot fractions, got {values!r}") from None
    for v in out:
        if not math.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must hold positive finite pot fractions, got {v!r}")
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
    street : {"turn", "river"}
        The street the endgame starts on.
    pot : float
        Chips in the pot at the start (each player has put in half).
    stack : float
        Effective stack behind, in chips, at the start of the endgame (what each player can still bet).
    turn, river : BetSizes
        Sizes on each street (``turn`` is unused for a river endgame).
    raise_cap : int, default 3
        Maximum number of raises per street after the first bet (all-in counts as a raise).
    allin_threshold : float, default 0.0
        A bet or raise leaving the bettor less than ``allin_threshold`` times the pot (after a call) behind
        becomes all-in. 0 disables the rule.

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

    def __post_init__(self):
        street = str(self.street).strip().lower()
        if street not in STREETS:
            raise ValueError(f"street must be 'turn' or 'river', got {self.street!r}")
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "pot", check_real("pot", self.pot, 0.0, low_open=True))
        object.__setattr__(self, "stack", check_real("stack", self.stack, 0.0))
        object.__setattr__(self, "allin_threshold", check_real("allin_threshold", self.allin_threshold, 0.0))
        object.__setattr__(self, "raise_cap", check_int("raise_cap", self.raise_cap, 0))
        for name in ("turn", "river"):
            if not isinstance(getattr(self, name), BetSizes):
                raise ValueError(f"{name} must be a BetSizes, got {getattr(self, name)!r}")

    def sizes(self, street: int) -> BetSizes:
        """The :class:`BetSizes` of a street given by its number of board cards (4 turn, 5 river)."""
        return self.turn if street == 4 else self.river


@dataclass(eq=False)
class _Node(NodeSpec):
    """A :class:`NodeSpec` carrying the betting state (kept per node after flattening)."""

    street: int = 5
    contrib: tuple = (0.0, 0.0)
    raises: int = 0


@dataclass(frozen=True, eq=False)
class BettingTree:
    """A flattened endgame betting tree and the betting state at each node.

    Attributes
    ----------
    tree : PublicTree
        The public tree (breadth-first order). Boards: 0 is the starting board; on a turn endgame, river card
        ``river_cards[k]`` is board ``k + 1``.
    config : TreeConfig
        The parameters it was built from.
    river_cards : tuple of int
        Turn endgames: the possible river cards (card indices, increasing) in board order; empty for the river.
    street : numpy.ndarray of int8, shape ``(N,)``
        Number of board cards at each node (4 turn, 5 river).
    contributions : numpy.ndarray of float64, shape ``(N, 2)``
        Chips each player has put into the pot in total (including ``pot / 2`` before the endgame).
    raises : numpy.ndarray of int8, shape ``(N,)``
        Bets and raises so far on the node's street.
    """

    tree: PublicTree
    config: TreeConfig
    river_cards: tuple
    street: np.ndarray
    contributions: np.ndarray
    raises: np.ndarray

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


def _amount(x: float) -> float:
    return float(max(1, round(x)))


class _Builder:
    def __init__(self, config: TreeConfig, dead_cards: tuple):
        self.c = config
        self.cap = config.pot / 2.0 + config.stack  # maximum total contribution of each player
        self.river_cards = tuple(x for x in range(52) if x not in set(dead_cards)) if config.street == "turn" \
            else ()

    def _label(self, card: int) -> str:
        return "23456789TJQKA"[card // 4] + "shdc"[card % 4]

    def terminal_fold(self, folder: int, contrib, street, board, raises) -> _Node:
        value = -contrib[0] if folder == 0 else contrib[1]
        return _Node(kind=TERMINAL, board=board, fold_value=float(value), street=street, contrib=contrib,
                     raises=raises)

    def showdown(self, contrib, street, board, raises) -> _Node:
        return _Node(kind=TERMINAL, board=board, showdown_stake=float(contrib[0]), street=street,
                     contrib=contrib, raises=raises)

    def street_end(self, contrib, street, board, raises) -> _Node:
        """Both players have acted and matched: next street, or showdown."""
        all_in = contrib[0] >= self.cap - 1e-9
        if street == 5:
            return self.showdown(contrib, 5, board, raises)
        # turn -> deal the river
        chance = _Node(kind=CHANCE, board=board, street=4, contrib=contrib, raises=raises)
        for k, card in enumerate(self.river_cards):
            b = k + 1
            child = (self.showdown(contrib, 5, b, 0) if all_in
                     else self.decision(0, contrib, 5, b, 0, False, contrib[0]))
            chance.children.append((self._label(card), child))
        return chance

    def decision(self, p: int, contrib, street: int, board: int, raises: int, acted: bool, base: float) -> _Node:
        """Player ``p`` to act; ``acted``: the opponent has already acted on this street; ``base``: what each
        player had put in when the street began."""
        node = _Node(kind=DECISION, player=p, board=board, street=street, contrib=contrib, raises=raises)
        o = 1 - p
        to_call = contrib[o] - contrib[p]
        pot = contrib[0] + contrib[1]
        sizes = self.c.sizes(street)
        kids = node.children
        if to_call <= 0:
            if acted:
                kids.append(("check", self.street_end(contrib, street, board, raises)))
            else:
                kids.append(("check", self.decision(o, contrib, street, board, raises, True, base)))
            targets = [contrib[p] + _amount(f * pot) for f in sizes.bets]
            for total, is_allin in self._targets(targets, contrib, pot, sizes.all_in):
                new = (total, contrib[1]) if p == 0 else (contrib[0], total)
                label = "all-in" if is_allin else f"bet {int(total - contrib[p])}"
                kids.append((label, self.decision(o, new, street, board, raises + 1, True, base)))
            return node
        kids.append(("fold", self.terminal_fold(p, contrib, street, board, raises)))
        called = (contrib[o], contrib[o])
        opp_all_in = contrib[o] >= self.cap - 1e-9
        kids.append(("call", self.street_end(called, street, board, raises)))
        if raises - 1 < self.c.raise_cap and not opp_all_in:
            targets = [contrib[o] + _amount(f * (pot + to_call)) for f in sizes.raises]
            for total, is_allin in self._targets(targets, contrib, pot + to_call, sizes.all_in):
                new = (total, contrib[1]) if p == 0 else (contrib[0], total)
                label = "all-in" if is_allin else f"raise to {int(total - base)}"
                kids.append((label, self.decision(o, new, street, board, raises + 1, True, base)))
        return node

    def _targets(self, targets, contrib, pot_after_call, all_in):
        """Distinct total contributions of the bet/raise options, all-in last, with the caps applied."""
        out = []
        for total in targets:
            if total >= self.cap - 1e-9:
                total = self.cap
            else:
                behind = self.cap - total
                new_pot = 2.0 * total  # the pot after the opponent calls (both contributed ``total``)
                if behind < self.c.allin_threshold * new_pot:
                    total = self.cap
            out.append(total)
        if all_in:
            out.append(self.cap)
        seen, result = set(), []
        for total in sorted(out):
            if total <= max(contrib) + 1e-9 or total in seen:
                continue
            seen.add(total)
            result.append((total, total >= self.cap - 1e-9))
        return result


def _bfs(root: NodeSpec) -> list:
    order, queue = [], deque([root])
    while queue:
        s = queue.popleft()
        order.append(s)
        queue.extend(child for _, child in s.children)
    return order


def build_tree(config: TreeConfig, board) -> BettingTree:
    """Build the betting tree of an endgame.

    Parameters
    ----------
    config : TreeConfig
        Street, pot, stack, sizes and caps.
    board : sequence of int
        The board's card indices (4 on the turn, 5 on the river); used for the river cards a turn endgame can
        deal (the cards not on the board).

    Returns
    -------
    BettingTree

    Raises
    ------
    ValueError
        If the board's size does not match the street.
    """
    board = tuple(int(c) for c in board)
    if len(board) != STREETS[config.street]:
        raise ValueError(f"board must have {STREETS[config.street]} cards for a {config.street} endgame, "
                         f"got {len(board)}")
    b = _Builder(config, board)
    street = STREETS[config.street]
    start = (config.pot / 2.0, config.pot / 2.0)
    root = b.decision(0, start, street, 0, 0, False, start[0])
    order = _bfs(root)
    tree = PublicTree.build(root)
    return BettingTree(
        tree=tree,
        config=config,
        river_cards=b.river_cards,
        street=np.array([s.street for s in order], dtype=np.int8),
        contributions=np.array([s.contrib for s in order], dtype=np.float64),
        raises=np.array([s.raises for s in order], dtype=np.int8),
    )

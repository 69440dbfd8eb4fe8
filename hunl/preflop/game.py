"""Heads-up push/fold as a game of the solver core (:class:`games.core.Game`).

Rules. Both players start with ``stack`` big blinds (the effective stack, before posting anything). Each posts
an ante of ``ante`` bb, the small blind (player 1, "SB") posts ``small_blind`` bb and the big blind (player 2,
"BB") 1 bb (a post is capped at the stack). The SB moves all-in ("push") or folds; facing a push the BB calls or
folds. After a call the five board cards are dealt and the better hand wins everything: each player has put in
his whole stack, so the winner nets ``+stack`` and a split returns each stack. A fold loses what was posted:
``-(small_blind + ante)`` for the SB, ``-(1 + ante)`` for the BB. Payoffs are in big blinds (the game's chips),
so ``Game.big_blind = 1`` and exploitability is reported in mbb/g by the solver core.

The public tree has five terminals:

==================  ==========================  ===================================================
history             payoff to the SB (bb)       board (deal matrix)
==================  ==========================  ===================================================
``fold``            ``-(small_blind + ante)``    0: the private deal
``push/fold``       ``+(1 + ante)``              0
``push/call/win``   ``+stack``                   1: boards the SB's hand wins
``push/call/tie``   ``0``                        2: boards that split
``push/call/lose``  ``-stack``                   3: boards the BB's hand wins
==================  ==========================  ===================================================

The chance node after a call groups the 1,712,304 boards by their outcome: ``deal[1][i, j]`` is the probability
that the players hold ``i`` and ``j`` *and* the board makes ``i`` win, from the exact equity table
(:mod:`hunl.preflop.equity`). The three outcomes partition ``deal[0]``, as the interface requires, and the
showdown matrices are the constants +1, 0, -1 -- so the game passes :func:`games.core.check_game` and every
solver of the core (sequence-form LP, the CFR family, best response) runs on it unchanged.

Hands: ``"combos"`` (1,326 per player, card removal exact: ``deal[0][i, j] = 1 / (1326 * 1225)`` for disjoint
combos, 0 otherwise) or ``"classes"`` (the 169 cells of the hand grid). The class game is an **exact**
reduction, not an approximation:

* the game is invariant under the 24 permutations of the suits, and the 169 classes are exactly the orbits of
  the combos under them; averaging any equilibrium over the permutations gives an equilibrium (zero-sum games
  have convex, permutation-invariant equilibrium sets) that plays every combo of a class alike. So restricting
  both players to class strategies loses no value, and against a class strategy some best response is a class
  strategy too (all combos of a class face the same opponent range up to a suit renaming);
* the class game's chance must be the *joint* law of the two classes with card removal and the equity averaged
  over the compatible combo pairs: ``deal[0][a, b] = (compatible combo pairs of a and b) / (1326 * 1225)``,
  ``deal[1][a, b] = (boards won summed over those pairs) / (1,712,304 * 1326 * 1225)``. The naive reduction --
  independent class probabilities 6/1326, 4/1326, 12/1326 times a 169 x 169 class equity -- is *not* exact: it
  ignores that AA leaves only 12 of the 24 AA/AKs combo pairs, that a pair blocks its own class, etc.

So values, equilibria and the exploitability of any class strategy are the same in both games (tested: LP
values to 1e-9 bb, class strategies lifted to combos give the same exploitability).
"""

from __future__ import annotations

import math

import numpy as np

from games.core import CHANCE, DECISION, TERMINAL, Game, NodeSpec, Policy, PublicTree
from hunl.poker.cards import COMBO_LABELS, HAND_CLASS, HAND_CLASS_LABELS, NUM_CLASSES, NUM_COMBOS
from hunl.preflop.equity import EquityTable, load_equity_table

__all__ = ["HANDS", "NUM_DEALS", "OUTCOMES", "PushFoldGame", "check_nonnegative", "check_positive"]

#: Hand sets: the 169 classes (an exact reduction) or the 1,326 combos.
HANDS = ("classes", "combos")
#: Chance outcomes after a call, from the SB's side, and their boards 1, 2, 3.
OUTCOMES = ("win", "tie", "lose")
#: Ordered pairs of disjoint combos: 1326 * C(50, 2).
NUM_DEALS = NUM_COMBOS * math.comb(50, 2)


def _real(name: str, value) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def check_positive(name: str, value) -> float:
    """``value`` as a float, or ValueError naming ``name`` if it is not a finite number > 0.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        A real number (anything :class:`float` converts, e.g. ``2``, ``numpy.float64(2.5)`` or ``"2.5"``; not
        a bool), usually an amount in big blinds.

    Returns
    -------
    float
        ``float(value)``.

    Raises
    ------
    ValueError
        If ``value`` is a bool, does not convert to a float, is NaN or infinite, or is not > 0; the message
        names ``name``.
    """
    v = _real(name, value)
    if v <= 0:
        raise ValueError(f"{name} must be > 0 big blinds, got {value!r}")
    return v


def check_nonnegative(name: str, value) -> float:
    """``value`` as a float, or ValueError naming ``name`` if it is not a finite number >= 0.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        A real number (anything :class:`float` converts, e.g. ``2``, ``numpy.float64(2.5)`` or ``"2.5"``; not
        a bool), usually an amount in big blinds.

    Returns
    -------
    float
        ``float(value)``.

    Raises
    ------
    ValueError
        If ``value`` is a bool, does not convert to a float, is NaN or infinite, or is not >= 0; the message
        names ``name``.
    """
    v = _real(name, value)
    if v < 0:
        raise ValueError(f"{name} must be >= 0 big blinds, got {value!r}")
    return v


class PushFoldGame(Game):
    """Heads-up push/fold: the SB pushes or folds, the BB calls or folds (see the module docstring).

    Parameters
    ----------
    stack : float
        Effective stack in big blinds, before posting blinds and antes; > 0.
    ante : float, default 0
        Ante per player in big blinds; >= 0.
    hands : {"classes", "combos"}, default "classes"
        The 169 hand classes (exact reduction) or the 1,326 combos.
    small_blind : float, default 0.5
        The small blind in big blinds, in (0, 1].
    equity : EquityTable, optional
        Default :func:`hunl.preflop.equity.load_equity_table`.

    Attributes
    ----------
    name : str
        ``"pushfold"``.
    stack, ante, small_blind : float
        As given (bb).
    sb_post, bb_post : float
        What each player loses by folding: ``min(small_blind + ante, stack)`` and ``min(1 + ante, stack)`` (bb).
    pot : float
        ``sb_post + bb_post``: the pot when the SB acts (bb).
    big_blind : float
        1.0: payoffs are in big blinds, so mbb/g is ``1000 * payoff``.

    Raises
    ------
    ValueError
        Naming the parameter: ``stack <= 0``, ``ante < 0``, ``small_blind`` outside (0, 1], non-finite numbers,
        or ``hands`` not in :data:`HANDS`.

    Examples
    --------
    >>> g = PushFoldGame(10)
    >>> g.num_hands, g.tree.history
    ((169, 169), ('', 'fold', 'push', 'push/fold', 'push/call', 'push/call/win', 'push/call/tie', 'push/call/lose'))
    """

    name = "pushfold"
    big_blind = 1.0

    def __init__(self, stack, ante=0.0, hands: str = "classes", small_blind=0.5, equity: EquityTable | None = None):
        self.stack = check_positive("stack", stack)
        self.ante = check_nonnegative("ante", ante)
        self.small_blind = check_positive("small_blind", small_blind)
        if self.small_blind > 1.0:
            raise ValueError(f"small_blind must be at most the big blind (1), got {small_blind!r}")
        if hands not in HANDS:
            raise ValueError(f"hands must be one of {HANDS}, got {hands!r}")
        self.hands = hands
        self.sb_post = min(self.small_blind + self.ante, self.stack)
        self.bb_post = min(1.0 + self.ante, self.stack)
        self.pot = self.sb_post + self.bb_post
        eq = load_equity_table() if equity is None else equity
        self.equity = eq

        root = NodeSpec(DECISION, player=0, children=[
            ("fold", NodeSpec(TERMINAL, fold_value=-self.sb_post)),
            ("push", NodeSpec(DECISION, player=1, children=[
                ("fold", NodeSpec(TERMINAL, fold_value=+self.bb_post)),
                ("call", NodeSpec(CHANCE, children=[
                    (o, NodeSpec(TERMINAL, board=b + 1, showdown_stake=self.stack)) for b, o in enumerate(OUTCOMES)
                ])),
            ])),
        ])
        self.tree = PublicTree.build(root)
        n_deals = float(NUM_DEALS)
        boards = float(eq.boards)
        if hands == "classes":
            pairs = eq.class_pairs.astype(np.float64)
            wins = eq.class_wins.astype(np.float64)
            ties = eq.class_ties.astype(np.float64)
            h = NUM_CLASSES
        else:
            wins_i, ties_i = eq.combo_counts
            pairs = eq.combo_compatible.astype(np.float64)
            wins, ties = wins_i.astype(np.float64), ties_i.astype(np.float64)
            h = NUM_COMBOS
        self.num_hands = (h, h)
        deal = np.empty((4, h, h))
        deal[0] = pairs / n_deals
        deal[1] = wins / (boards * n_deals)
        deal[2] = ties / (boards * n_deals)
        deal[3] = (pairs * boards - wins - ties) / (boards * n_deals)   # integers below 2**53: exact
        self.deal = deal
        showdown_sign = np.zeros((4, h, h))
        showdown_sign[1] = 1.0
        showdown_sign[3] = -1.0
        self.showdown = showdown_sign

    # ------------------------------------------------------------------ interface
    def hand_labels(self, player: int) -> list[str]:
        """Class labels (``"AA"``, ``"AKs"``, ...; grid-cell order) or combo labels (``"2s2h"``, ...)."""
        return list(HAND_CLASS_LABELS if self.hands == "classes" else COMBO_LABELS)

    def payoff(self, node, hand1: int, hand2: int) -> float:
        """Payoff to the SB in bb at a terminal node, from the rules (the history names the outcome).

        Raises
        ------
        ValueError
            If ``node`` is not terminal.
        """
        n = self.tree.node(node)
        hist = self.tree.history[n]
        if hist == "fold":
            return -self.sb_post
        if hist == "push/fold":
            return self.bb_post
        outcome = {"push/call/win": 1.0, "push/call/tie": 0.0, "push/call/lose": -1.0}.get(hist)
        if outcome is None:
            raise ValueError(f"node {n} ({hist or 'root'}) is not terminal")
        return outcome * self.stack

    # ------------------------------------------------------------------ strategies
    def policy(self, push, call) -> Policy:
        """The profile in which the SB pushes hand ``i`` with probability ``push[i]`` and the BB calls hand ``j``
        with probability ``call[j]``.

        Parameters
        ----------
        push, call : array_like of float, shape (H,)
            Probabilities in [0, 1] per hand of this game (169 classes or 1,326 combos). A length-169 vector in a
            combo game is lifted to the combos (every combo plays its class).

        Raises
        ------
        ValueError
            On a wrong shape or values outside [0, 1].
        """
        h = self.num_hands[0]
        out = []
        for name, v in (("push", push), ("call", call)):
            a = np.asarray(v, dtype=np.float64)
            if a.shape == (NUM_CLASSES,) and h == NUM_COMBOS:
                a = a[HAND_CLASS]
            if a.shape != (h,):
                raise ValueError(f"{name} must have shape ({h},) (or (169,) to lift classes to combos), got "
                                 f"{a.shape}")
            if not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
                raise ValueError(f"{name} probabilities must be in [0, 1]")
            out.append(a)
        p, c = out
        return Policy.from_dict(self, {"": np.stack([1 - p, p], axis=1), "push": np.stack([1 - c, c], axis=1)})

    def strategies(self, policy: Policy) -> tuple[np.ndarray, np.ndarray]:
        """``(push, call)``: each player's probability of the aggressive action per hand, shape (H,) each."""
        return policy.at("")[:, 1].copy(), policy.at("push")[:, 1].copy()

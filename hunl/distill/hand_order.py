"""Rules played by hand order: a rule's mix handed out to its hands by their strength instead of at random.

A rule of a card plays a mix such as "call 2 in 5, fold 3 in 5". Played at random, every hand the rule covers
calls 2 times in 5. Played *by hand order* it is a plain instruction with no dice: "call with the best 2 in 5 of
these hands, fold the rest". At a decision, the hands of the player's range that the rule covers are ranked by how
much of the opponent's range they beat (the card's ``equity`` quantity), and the mix's actions are given out from
the most aggressive down -- all-in, then a big bet or raise, then a small bet or call, then check or fold -- to
the best hands first (order ``"best"``), or to the weakest first (order ``"worst"``: "bet big with the weakest 4
in 10 of these hands", the way bluffs are picked from the bottom of a range), or both (order ``"polar"``: "bet big
with 3 in 10 of these hands (2 of the best for each of the weakest), check the rest": each bet's value bets from
the top and one bluff for every two of them, :data:`POLAR_BLUFF_SHARE`, from the bottom, the check in between).
Each action is played by the same share of the rule's hands, weighed by their probability in the range, as the mix says; only *which* hands play it
changes.

Hands of equal strength play alike: a run of hands that beat the same share of the opponent's range shares one
place in the order and plays the mix of that place (an action boundary inside the run is split in proportion).

The place of each hand is an interval ``[lo, hi)`` of ``[0, 1]``: the weight of the rule's hands at its node
ranked above it, and above it or level with it, as shares of the rule's weight there. The order's actions fill
``[0, 1]`` from 0 in aggression order, each over its share, and a hand plays each action with the share of its
interval the action covers. This is the rank-based rounding of a mixed strategy into a pure one used for
threshold strategies (a hand plays pure unless it straddles a boundary), the shape of the equilibria of the
one-street poker games solved in closed form (Chen & Ankenman 2006, the [0, 1] games), where the bettor's value
bets are the top of its range and its bluffs the bottom.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hunl.distill.actions import N_CLASSES

__all__ = ["AGGRESSION", "HAND_ORDERS", "POLAR_BLUFF_SHARE", "HAND_ORDER_NOTE", "POLAR_NOTE", "STRENGTH_COLUMN", "hand_positions", "order_codes", "ranked_class_probs", "strength_order"]

#: The orders a rule may play its mix in: at random (every hand the mix), or given out by hand strength.
HAND_ORDERS = ("random", "best", "worst", "polar")
#: Classes from the most aggressive (all-in) to the most passive (check or fold): the order actions are given out.
AGGRESSION = (3, 2, 1, 0)
_CODES = {"random": 0, "best": 1, "worst": -1, "polar": 2}
#: In a rule played ``"polar"``, the share of each bet that goes to the weakest hands (the bluffs): one bluff for
#: every two value bets, the bluff-to-value ratio of a pot-sized bet on the river, ``b / (1 + b)`` with ``b = 1``
#: (Chen & Ankenman 2006, Chapter 11).
POLAR_BLUFF_SHARE = 1.0 / 3.0
#: The note a card with rules played by hand order prints under its title.
HAND_ORDER_NOTE = ("The best k in d of these hands: of the hands of your range that the rule covers at this "
                   "decision, the k in d that beat the most of the opponent's range (the weakest: the least); "
                   "\"the next k in d\" are the ones after them, \"the rest\" all the others.")
#: The note a card with rules played in the polar order prints under its title, beside :data:`HAND_ORDER_NOTE`.
POLAR_NOTE = ("2 of the best for each of the weakest: of the hands a bet takes, two thirds are the hands that beat "
              "the most of the opponent's range (value bets) and a third the ones that beat the least (bluffs); "
              "the rule's other hands check.")
#: The column of a feature row (:func:`hunl.distill.decisions.feature_names`, every street) holding the hand's
#: strength: ``equity``, the share of the opponent's range the hand beats.
STRENGTH_COLUMN = 0
#: Strengths closer than this are level (one place in the order).
_TIE = 1e-9


def order_codes(orders) -> np.ndarray:
    """The integer codes of rule orders: 0 ``"random"``, 1 ``"best"``, -1 ``"worst"``, 2 ``"polar"``.

    Parameters
    ----------
    orders : sequence of str
        One of :data:`HAND_ORDERS` per rule.

    Returns
    -------
    numpy.ndarray of int64, shape ``(len(orders),)``

    Raises
    ------
    ValueError
        If an order is not one of :data:`HAND_ORDERS`.
    """
    out = np.zeros(len(orders), dtype=np.int64)
    for i, o in enumerate(orders):
        if o not in _CODES:
            raise ValueError(f"orders[{i}] must be one of {HAND_ORDERS}, got {o!r}")
        out[i] = _CODES[o]
    return out


def strength_order(node, strength) -> np.ndarray:
    """Rows sorted by node, the strongest first within a node (stable): the order :func:`hand_positions` reads.

    It does not depend on the rules the rows read, so a search that moves a card's thresholds sorts once.

    Parameters
    ----------
    node : array_like of int, shape ``(m,)``
        The decision node (any integer label) of each row.
    strength : array_like of float, shape ``(m,)``
        Each row's strength (the share of the opponent's range the hand beats); NaN ranks last.

    Returns
    -------
    numpy.ndarray of int64, shape ``(m,)``
        A permutation of the rows.
    """
    s = np.asarray(strength, dtype=np.float64)
    s = np.where(np.isnan(s), -np.inf, s)
    return np.lexsort((-s, np.asarray(node))).astype(np.int64)


def hand_positions(rule, node, strength, weight, order=None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's place ``[lo, hi)`` among the hands of its rule at its node, the strongest first, by weight.

    Parameters
    ----------
    rule : array_like of int, shape ``(m,)``
        The rule (0 .. n_rules - 1) each row reads.
    node : array_like of int, shape ``(m,)``
        The decision node of each row: a rule's hands are ranked node by node.
    strength : array_like of float, shape ``(m,)``
        The share of the opponent's range each hand beats; rows within :data:`_TIE` of each other are level.
    weight : array_like of float, shape ``(m,)``
        The hand's probability in the player's range at the node (non-negative; a rule whose hands all weigh 0
        at a node, a node the range never reaches, ranks them with equal weights).
    order : numpy.ndarray of int, shape ``(m,)``, optional
        :func:`strength_order` of ``node`` and ``strength``, when already known.

    Returns
    -------
    lo, hi : numpy.ndarray of float64, shape ``(m,)``
        Shares (0-1) of the rule's weight at the node ranked above the hand, and above it or level with it.

    Raises
    ------
    ValueError
        If the arrays differ in length, or a weight is negative or not finite.
    """
    rule = np.asarray(rule, dtype=np.int64)
    node = np.asarray(node)
    strength = np.asarray(strength, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    m = rule.size
    if not (node.size == strength.size == weight.size == m):
        raise ValueError(f"rule, node, strength and weight must have one entry per row, got sizes {m}, "
                         f"{node.size}, {strength.size} and {weight.size}")
    if m and (not np.all(np.isfinite(weight)) or weight.min() < 0):
        raise ValueError("weight must be finite and non-negative (a hand's probability in the range)")
    if order is None:
        order = strength_order(node, strength)
    lo = np.zeros(m)
    hi = np.zeros(m)
    if m == 0:
        return lo, hi
    s = np.where(np.isnan(strength), -np.inf, strength)
    _positions(np.asarray(order, dtype=np.int64), node.astype(np.int64), rule, s, weight, int(rule.max()) + 1,
               lo, hi)
    return lo, hi


@njit(cache=True)
def _positions(order, node, rule, strength, weight, n_rules, lo, hi):  # pragma: no cover - compiled
    """Fill ``lo``/``hi`` walking the rows in ``order`` (by node, strongest first), one node at a time."""
    m = order.size
    total = np.zeros(n_rules)
    count = np.zeros(n_rules)
    above = np.zeros(n_rules)
    started = np.zeros(n_rules, dtype=np.bool_)
    run_top = np.zeros(n_rules)              # strength of the rule's current run of level hands
    run_lo = np.zeros(n_rules)
    run_cur = np.zeros(n_rules, dtype=np.int64)
    run_of = np.zeros(m, dtype=np.int64)
    run_end = np.zeros(m)
    n_runs = 0
    a = 0
    while a < m:
        b = a
        while b < m and node[order[b]] == node[order[a]]:
            b += 1
        for k in range(a, b):
            r = order[k]
            total[rule[r]] += weight[r]
            count[rule[r]] += 1.0
        for k in range(a, b):
            r = order[k]
            j = rule[r]
            if not started[j] or run_top[j] - strength[r] > 1e-9:
                started[j] = True
                run_top[j] = strength[r]
                run_lo[j] = above[j]
                run_cur[j] = n_runs
                n_runs += 1
            # a rule whose hands all weigh 0 here ranks them with equal weights
            above[j] += weight[r] if total[j] > 0 else 1.0
            run_of[r] = run_cur[j]
            run_end[run_cur[j]] = above[j]
            lo[r] = run_lo[j]
        for k in range(a, b):
            r = order[k]
            j = rule[r]
            tot = total[j] if total[j] > 0 else count[j]
            lo[r] = lo[r] / tot
            hi[r] = run_end[run_of[r]] / tot
        for k in range(a, b):
            j = rule[order[k]]
            total[j] = 0.0
            count[j] = 0.0
            above[j] = 0.0
            started[j] = False
        a = b


def ranked_class_probs(table, codes, rule, lo, hi) -> np.ndarray:
    """The class distribution each row plays: its rule's mix, at random or by its place in the hand order.

    Parameters
    ----------
    table : array_like of float, shape ``(n_rules, 4)``
        Each rule's mix over the classes (check/fold, bet small/call, bet big/raise, all-in); rows sum to 1.
    codes : array_like of int, shape ``(n_rules,)``
        :func:`order_codes` of the rules' orders.
    rule : array_like of int, shape ``(m,)``
        The rule each row reads.
    lo, hi : array_like of float, shape ``(m,)``
        :func:`hand_positions` of the rows.

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, 4)``
        Rows of rules played at random are their rule's mix; a row of a rule played by hand order plays each
        class with the share of ``[lo, hi)`` (``[1 - hi, 1 - lo)`` for ``"worst"``) that the class covers when the
        classes fill ``[0, 1)`` in :data:`AGGRESSION` order, each over its probability (a hand at a single point,
        ``lo == hi``, plays the class there). For ``"polar"`` each class but the passive one is cut in two: its
        value part, ``1 - POLAR_BLUFF_SHARE`` of it, fills ``[0, 1)`` from the top in aggression order, then the
        passive class, then the bluff parts, the most aggressive at the bottom.
    """
    table = np.ascontiguousarray(table, dtype=np.float64)
    out = np.empty((np.asarray(rule).size, N_CLASSES))
    _ranked(table, np.asarray(codes, dtype=np.int64), np.asarray(rule, dtype=np.int64),
            np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64), out)
    return out


@njit(cache=True)
def ranked_mix(table, code, leaf, lo, hi, out):  # pragma: no cover - compiled
    """Write one hand's class distribution into ``out`` (4,): see :func:`ranked_class_probs`."""
    n = table.shape[1]
    if code == 0:
        for c in range(n):
            out[c] = table[leaf, c]
        return
    a, b = (1.0 - hi, 1.0 - lo) if code == -1 else (lo, hi)
    # the segments of [0, 1) from the best hand down; polar: value bets on top, the passive class, bluffs at the
    # bottom (2n - 1 segments); otherwise all-in first, then big, small, check (n segments)
    n_seg = 2 * n - 1 if code == 2 else n
    span = b - a
    start = 0.0
    tot = 0.0
    last = -1                                 # the class of the last segment of positive length
    for c in range(n):
        out[c] = 0.0
    for k in range(n_seg):
        if code != 2:
            c, w = n - 1 - k, table[leaf, n - 1 - k]
        elif k < n - 1:
            c, w = n - 1 - k, (1.0 - POLAR_BLUFF_SHARE) * table[leaf, n - 1 - k]
        elif k == n - 1:
            c, w = 0, table[leaf, 0]
        else:
            c, w = k - n + 1, POLAR_BLUFF_SHARE * table[leaf, k - n + 1]
        end = start + w
        if w > 0:
            last = c
        if span > 1e-12:
            v = min(b, end) - max(a, start)
            if v > 0:
                out[c] += v / span
                tot += v / span
        elif a >= start and a < end:
            out[c] = 1.0
            tot = 1.0
            break
        start = end
    if span <= 1e-12 and tot == 0 and last >= 0:   # a point at the bottom (a hand of no weight): the last class
        out[last] = 1.0
        tot = 1.0
    if tot > 0:
        for c in range(n):
            out[c] /= tot
    else:
        for c in range(n):
            out[c] = table[leaf, c]


@njit(cache=True)
def _ranked(table, codes, rule, lo, hi, out):  # pragma: no cover - compiled
    for i in range(rule.size):
        ranked_mix(table, codes[rule[i]], rule[i], lo[i], hi[i], out[i])

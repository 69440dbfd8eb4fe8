"""Sklansky-Chubukov numbers: how deep the SB can push a hand shown face up to a perfect BB.

Sklansky and Chubukov (*No Limit Hold'em: Theory and Practice*, 2006) ask for the largest stack at which
pushing a hand from the small blind still beats folding if the big blind *sees the hand* and calls exactly when
calling is right. Against the SB's combo ``i`` the BB's combo ``j`` calls iff that beats folding, so the SB
gets, per BB combo, the smaller of ``bb_post`` (a fold) and ``stack * (P(i wins) - P(j wins))`` (a call), and::

    EV_push(S) = mean_j min(bb_post(S), S * d_ij)     against     EV_fold = -sb_post(S)

with the mean over the 1,225 combos ``j`` that share no card with ``i`` (exact card removal, equities from
:mod:`hunl.preflop.equity`). ``EV_push - EV_fold`` is concave in ``S`` and 0 at ``S = 0``, so the set of stacks
at which the push is right is an interval ``(0, SC]``; ``SC`` is infinite when the hand never loses value by
being called (AA). Every combo of a class has the same number (suit symmetry; tested).

Units. The numbers here are effective stacks in **big blinds**, like the rest of this package. The table in
the book is in units of the small blind (blinds of 1 and 2 chips): its KK = 954 is 477 bb here, and the "22
and A3o: 48" quoted by okgioco.com is 24 bb. PokerStrategy.com's "Super-Villain" column (a villain who "only
calls if his call is +EV", in BB) gives 22 = 24.2 bb. The tests check these.

As a *strategy* -- push exactly the hands whose number is at least the stack -- the numbers are far too tight
against a BB who does not see the cards; :mod:`hunl.preflop.rules` measures that cost in mbb/g.
"""

from __future__ import annotations

import numpy as np

from hunl.poker.cards import NUM_CLASSES, class_combos
from hunl.preflop.equity import EquityTable, load_equity_table
from hunl.preflop.game import check_nonnegative, check_positive

__all__ = ["sklansky_chubukov"]


def _gain(stack: float, d: np.ndarray, ante: float, small_blind: float) -> float:
    bb_post = min(1.0 + ante, stack)
    sb_post = min(small_blind + ante, stack)
    return float(np.minimum(bb_post, stack * d).mean() + sb_post)


def sklansky_chubukov(ante=0.0, small_blind=0.5, equity: EquityTable | None = None, tol: float = 1e-9,
                      cap: float = 1e7) -> np.ndarray:
    """The Sklansky-Chubukov number of every hand class, in big blinds (see the module docstring).

    Parameters
    ----------
    ante : float, default 0
        Ante per player (bb).
    small_blind : float, default 0.5
        Small blind (bb).
    equity : EquityTable, optional
        Default :func:`hunl.preflop.equity.load_equity_table`.
    tol : float, default 1e-9
        Bisection tolerance (bb).
    cap : float, default 1e7
        Numbers above this are reported as ``inf``.

    Returns
    -------
    numpy.ndarray of float64, shape (169,)
        The largest stack (bb) at which pushing the class face up is at least as good as folding, per grid
        cell; ``inf`` for hands that can be pushed at any stack (AA).

    Raises
    ------
    ValueError
        On a negative ante or a non-positive small blind.
    """
    ante = check_nonnegative("ante", ante)
    small_blind = check_positive("small_blind", small_blind)
    eq = load_equity_table() if equity is None else equity
    out = np.empty(NUM_CLASSES)
    for h in range(NUM_CLASSES):
        i = int(class_combos(h)[0])
        live = eq.combo_compatible[i]
        d = (eq.combo_win[i] - eq.combo_win[:, i])[live]        # P(i wins) - P(j wins), per BB combo j
        if _gain(cap, d, ante, small_blind) >= 0:
            out[h] = np.inf
            continue
        lo, hi = 0.0, cap
        while hi - lo > tol * max(1.0, lo):
            mid = 0.5 * (lo + hi)
            if _gain(mid, d, ante, small_blind) >= 0:
                lo = mid
            else:
                hi = mid
        out[h] = lo
    return out

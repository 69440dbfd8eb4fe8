"""The cheapest rule card exactly: a mixed-integer program over the candidate clauses (HiGHS).

The cost of a pure strategy ``x`` (1 for the hands played) is convex in ``x`` (:mod:`hunl.preflop.values`): for
the SB, ``v - min_c u(x, c)`` is a constant plus a linear term plus ``sum_j max(-bb_post (D^T x)_j,
-S (W^T x)_j)``; for the BB, ``max_p u(p, x) - v`` is ``sum_i max(-sb_post r_i, bb_post (r - D x)_i +
S (W x)_i)`` minus a constant. Each ``max`` of linear functions becomes an epigraph variable ``t >= ...``, so the
band's mean cost is linear in ``(x, t)``. The card is a choice of clauses ``z_k`` in {0, 1} with
``sum_k z_k <= max_rules``, and ``x`` is their union: ``x_i >= z_k`` for every clause ``k`` holding hand ``i``
and ``x_i <= sum_{k holds i} z_k``. Minimising the mean cost over the band's stacks is then a MILP:

    minimise   c^T x + (1 / S) sum_{s, j} t_{s, j}
    subject to t_{s, j} >= (two linear functions of f = D^T x and g = W^T x, or of D x and W x),
               union constraints, sum z <= max_rules, z binary.

HiGHS solves it to optimality within the candidate clauses (or reports the gap at its time limit), started
from the beam search's card (:func:`hunl.preflop.rules.fit_rule_card`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from games.core.highs import quiet_highs
from hunl.poker.cards import NUM_CLASSES
from hunl.preflop.game import PushFoldGame
from hunl.preflop.solve import StackSweep

__all__ = ["MipResult", "optimal_clauses"]


@dataclass(frozen=True)
class MipResult:
    """Outcome of :func:`optimal_clauses`.

    Attributes
    ----------
    chosen : tuple of int
        Indices of the chosen clauses in the candidate list.
    status : str
        HiGHS's model status (``"Optimal"`` or ``"Time limit reached"``).
    gap_mbb : float
        Upper minus lower bound on the band's mean cost (mbb/g); 0 when proven optimal.
    seconds : float
    """

    chosen: tuple
    status: str
    gap_mbb: float
    seconds: float


def optimal_clauses(sweep: StackSweep, rows, player: int, members: np.ndarray, max_rules: int = 5,
                    start=None, time_limit: float = 60.0) -> MipResult:
    """Choose at most ``max_rules`` clauses minimising the player's mean cost over the sweep rows (see the module
    docstring).

    Parameters
    ----------
    sweep : StackSweep
    rows : array_like of int
        Sweep rows (the band's stacks).
    player : int
        0 (SB) or 1 (BB).
    members : numpy.ndarray of bool, shape (K, 169)
        The candidate clauses' hand sets.
    max_rules : int, default 5
    start : sequence of int, optional
        A feasible choice to start from (e.g. the beam search's).
    time_limit : float, default 60
        Seconds; the best card found so far is returned when it runs out.

    Returns
    -------
    MipResult
    """
    t0 = time.perf_counter()
    rows = np.asarray(rows, dtype=np.intp)
    stacks = sweep.stacks[rows]
    g = PushFoldGame(1.0, sweep.ante, small_blind=sweep.small_blind)
    d, w = g.deal[0], g.deal[1] - g.deal[3]
    r = d.sum(axis=1)
    bb = np.minimum(1.0 + sweep.ante, stacks)
    sb = np.minimum(sweep.small_blind + sweep.ante, stacks)
    a = np.asarray(members, dtype=bool)
    k_n, h, n_s = a.shape[0], NUM_CLASSES, stacks.size
    oz, ox, of, og, ot = 0, k_n, k_n + h, k_n + 2 * h, k_n + 3 * h
    n = ot + n_s * h
    cost = np.zeros(n)
    lower = np.concatenate([np.zeros(k_n + h), np.full(n - k_n - h, -np.inf)])
    upper = np.concatenate([np.ones(k_n + h), np.full(n - k_n - h, np.inf)])
    cost[ot:] = 1.0 / n_s
    if player == 0:
        cost[ox:ox + h] = -sb.mean() * r          # -(1 - x_i) a_i, a_i = -sb_post r_i, without the constant
        fmat, gmat = d.T, w.T
    else:
        fmat, gmat = d, w
    blocks_r, blocks_c, blocks_v, lo, hi = [], [], [], [], []
    row0 = 0

    def add(rr, cc, vv, low, high):
        nonlocal row0
        blocks_r.append(np.asarray(rr) + row0)
        blocks_c.append(np.asarray(cc))
        blocks_v.append(np.asarray(vv, dtype=np.float64))
        lo.append(np.asarray(low, dtype=np.float64))
        hi.append(np.asarray(high, dtype=np.float64))
        row0 += len(lo[-1])

    # x_i - sum_{k holds i} z_k <= 0
    ki, ii = np.nonzero(a)
    add(np.concatenate([np.arange(h), ii]), np.concatenate([ox + np.arange(h), oz + ki]),
        np.concatenate([np.ones(h), -np.ones(ii.size)]), np.full(h, -np.inf), np.zeros(h))
    # x_i - z_k >= 0 for each k holding i
    m = ii.size
    add(np.repeat(np.arange(m), 2), np.column_stack([ox + ii, oz + ki]).ravel(),
        np.tile([1.0, -1.0], m), np.zeros(m), np.full(m, np.inf))
    # sum z <= max_rules
    add(np.zeros(k_n, dtype=np.intp), oz + np.arange(k_n), np.ones(k_n), [-np.inf], [float(max_rules)])
    # f = fmat x, g = gmat x  (-f_j + sum_i fmat[j, i] x_i = 0)
    for off, mat in ((of, fmat), (og, gmat)):
        jj, cols = np.nonzero(np.ones((h, h + 1)))
        vals = np.column_stack([-np.ones(h), mat]).ravel()
        colidx = np.where(cols == 0, off + jj, ox + cols - 1)
        add(jj, colidx, vals, np.zeros(h), np.zeros(h))
    # epigraph rows, one pair per (stack, hand)
    sj = np.arange(n_s * h)
    s_of, j_of = np.divmod(sj, h)
    t_col = ot + sj
    if player == 0:   # t >= -bb f_j  and  t >= -S g_j
        add(np.repeat(sj, 2), np.column_stack([t_col, of + j_of]).ravel(),
            np.column_stack([np.ones(sj.size), bb[s_of]]).ravel(), np.zeros(sj.size), np.full(sj.size, np.inf))
        add(np.repeat(sj, 2), np.column_stack([t_col, og + j_of]).ravel(),
            np.column_stack([np.ones(sj.size), stacks[s_of]]).ravel(), np.zeros(sj.size), np.full(sj.size, np.inf))
    else:             # t >= -sb r_j  and  t >= bb r_j - bb (D x)_j + S (W x)_j
        add(sj, t_col, np.ones(sj.size), -sb[s_of] * r[j_of], np.full(sj.size, np.inf))
        add(np.repeat(sj, 3), np.column_stack([t_col, of + j_of, og + j_of]).ravel(),
            np.column_stack([np.ones(sj.size), bb[s_of], -stacks[s_of]]).ravel(), bb[s_of] * r[j_of],
            np.full(sj.size, np.inf))
    mat = sp.csc_matrix((np.concatenate(blocks_v), (np.concatenate(blocks_r), np.concatenate(blocks_c))),
                        shape=(row0, n))
    hs = quiet_highs()
    hs.setOptionValue("time_limit", float(time_limit))
    hs.setOptionValue("mip_rel_gap", 1e-9)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, row0
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = cost, lower, upper
    lp.row_lower_, lp.row_upper_ = np.concatenate(lo), np.concatenate(hi)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = mat.indptr.astype(np.int32)
    lp.a_matrix_.index_ = mat.indices.astype(np.int32)
    lp.a_matrix_.value_ = mat.data.astype(np.float64)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * k_n + [highspy.HighsVarType.kContinuous] * (n - k_n)
    hs.passModel(lp)
    if start is not None and len(start):
        z = np.zeros(k_n)
        z[list(start)] = 1.0
        x = (a[list(start)].any(axis=0)).astype(np.float64)
        f, gv = fmat @ x, gmat @ x
        if player == 0:
            t = np.maximum(-bb[:, None] * f[None, :], -stacks[:, None] * gv[None, :])
        else:
            t = np.maximum(-sb[:, None] * r[None, :], bb[:, None] * (r - f)[None, :] + stacks[:, None] * gv[None, :])
        sol = highspy.HighsSolution()
        sol.col_value = list(np.concatenate([z, x, f, gv, t.ravel()]))
        sol.value_valid = True
        hs.setSolution(sol)
    hs.run()
    status = hs.modelStatusToString(hs.getModelStatus())
    info = hs.getInfo()
    values = np.asarray(hs.getSolution().col_value)
    chosen = tuple(int(k) for k in np.flatnonzero(values[:k_n] > 0.5))
    gap = max(0.0, float(info.objective_function_value) - float(info.mip_dual_bound))
    if status == "Optimal":
        gap = 0.0 if gap < 1e-9 else gap
    return MipResult(chosen, status, 1000.0 * gap, time.perf_counter() - t0)

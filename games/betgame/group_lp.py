"""One strategy for a group of bet games: the player-1 strategy with the least mean exploitability, by LP.

A rule set plays one full strategy ``x`` (shape ``(n, n_bets)``) in every game of a group (a tree leaf, a
cluster). Player 1's exploitability in game ``g`` is ``v*(g) - min_y u_g(x, y)`` (Ganzfried & Yusuf 2017,
*Games* 8(4), Algorithm 3, corrected in :mod:`games.betgame.best_response`); it is convex in ``x``, and so is the
weighted mean over the group. Player 2's best response separates over his information sets ``(j, b)`` (his card,
the bet he faces), so with ``gain_g[j, b](x)`` his gain from calling instead of folding (linear in ``x``)::

    mean_g w_g expl_g(x) = mean_g w_g v*(g) - ante + mean_g w_g ( sum_j gain_g[j, check](x)
                                                               + sum_{j, b > 0} max(0, gain_g[j, b](x)) )

The primal LP has one auxiliary variable ``t[g, j, b] >= max(0, gain_g[j, b](x))`` per game and information set
(``G n (B - 1)`` rows). Solved as it stands, its basis has that many rows. We pass HiGHS its **dual** instead,
which is player 2 choosing call probabilities ``q[g, j, b]`` in ``[0, 1]`` in every game against the group's
single ``x`` (minimax theorem: the objective is bilinear on a product of polytopes)::

    maximise    sum_i z[i]
    subject to  z[i] - sum_{g, j, b > 0} w_g gain_g[j, b](e_{i,b}) q[g, j, b] <= c[i, b]   for every (i, b)
                0 <= q <= 1,  z free

with ``c[i, check] = sum_g w_g 2 ante sum_{j > i} p_g[i, j]`` (player 2 always "calls" a check; ``w`` scaled
to mean 1) and ``c[i, b] = 0`` for the bets, and ``e_{i,b}`` the unit strategy. It has only ``n * n_bets`` rows (310 for the paper's game) and ``G n (B - 1)``
bounded columns, so the simplex basis stays 310 x 310 however many games the group holds. Player 1's optimal
``x[i, b]`` is the dual value of row ``(i, b)``; ``z[i]`` is card ``i``'s share of the mean payoff.

Speed (one core, paper's game): HiGHS's dual simplex needs about 1,500-2,500 iterations whatever the group size,
each costing time linear in the ``~270 G`` nonzeros: about 1 s for 200 games, 10 s for 1,000, 90 s for 3,000.
Delayed column generation (start with no call columns, add those with positive reduced cost ``w_g gain_g[j, b]
(x)``) was tried and is slower: on 200 games about 41,000 of the 60,000 columns end up in the master (player 2
calls in most information sets of the bets that are used) and the warm-started rounds need six times the
iterations. Callers with large groups subsample them (see :mod:`rulelearn.ruleset`). Primal simplex (37 s on 200
games) and interior point (6.7 s) are slower too.

The returned value is recomputed in closed form from the returned strategy (after clipping the duals to the
simplex), and :attr:`GroupStrategy.lp_gap` reports how far that is from the LP optimum (below 1e-9 at the
default tolerances; it is checked).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np

from games.betgame.best_response import _as_batch, _dummy, _p2_best_response_kernel
from games.betgame.rules import DEFAULT_GAME, BetGame

__all__ = ["GROUP_LP_TOLERANCE", "GroupStrategy", "group_exploitability", "optimal_group_strategy"]

#: Largest accepted difference (chips) between the LP optimum and the closed-form mean exploitability of the
#: returned strategy; a solve above it is repeated with tighter tolerances, then reported as not verified.
GROUP_LP_TOLERANCE = 1e-9


@dataclass(frozen=True)
class GroupStrategy:
    """The least exploitable single strategy for a group of bet games.

    Attributes
    ----------
    strategy : numpy.ndarray of float64, shape ``(n, n_bets)``
        Player 1's strategy; rows on the simplex. Cards no game of the group deals to player 1 check.
    exploitability : numpy.ndarray of float64, shape ``(G,)``
        Player 1's exploitability of ``strategy`` in each game (closed form, chips).
    mean_exploitability : float
        Weighted mean of ``exploitability`` (chips): the LP's objective evaluated at ``strategy``.
    lp_optimum : float
        The LP's optimal mean exploitability (chips), from its objective value (a lower bound on every
        strategy's mean exploitability, up to solver tolerances).
    status : str
        HiGHS's model status (``"Optimal"`` on success).
    iterations : int
        Simplex iterations.
    seconds : float
        Wall time of build + solve.
    """

    strategy: np.ndarray
    exploitability: np.ndarray
    mean_exploitability: float
    lp_optimum: float
    status: str
    iterations: int
    seconds: float

    @property
    def lp_gap(self) -> float:
        """``mean_exploitability - lp_optimum`` in chips (>= 0 up to rounding)."""
        return float(self.mean_exploitability - self.lp_optimum)

    @property
    def verified(self) -> bool:
        """``|lp_gap| <= GROUP_LP_TOLERANCE``: the returned strategy attains the LP optimum."""
        return bool(abs(self.lp_gap) <= GROUP_LP_TOLERANCE)


def _check_weights(weights, n_games: int) -> np.ndarray:
    if weights is None:
        return np.ones(n_games)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (n_games,):
        raise ValueError(f"weights must have one entry per game ({n_games}), got shape {np.shape(weights)}")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    return w


def _check_values(values, n_games: int) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.shape != (n_games,):
        raise ValueError(f"values must have one game value per deal ({n_games}), got shape {np.shape(values)}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values contains NaN or infinite entries")
    return v


def group_exploitability(probs, strategy, values, weights=None, game: BetGame = DEFAULT_GAME) -> float:
    """Weighted mean exploitability (chips) of one strategy played in every game of a group (closed form).

    Parameters
    ----------
    probs : array_like of float, shape ``(G, n, n)``
        The group's deals.
    strategy : array_like of float, shape ``(n, n_bets)``
        Player 1's single strategy.
    values : array_like of float, shape ``(G,)``
        Game values to player 1 (chips).
    weights : array_like of float, shape ``(G,)``, optional
        Non-negative game weights (default equal).
    game : BetGame

    Returns
    -------
    float
        ``sum_g w_g expl_g(strategy) / sum_g w_g``.

    Raises
    ------
    ValueError
        On invalid deals, strategy, values or weights.
    """
    p = game.check_deal(probs)
    if p.ndim != 3:
        raise ValueError(f"probs must be a batch of deals (G, n, n), got shape {p.shape}")
    x = game.check_strategy(strategy, batch=None)
    v = _check_values(values, p.shape[0])
    w = _check_weights(weights, p.shape[0])
    worst = _p2_best_response_kernel(_as_batch(p), np.ascontiguousarray(np.broadcast_to(x, (p.shape[0],) + x.shape)),
                                     game.bet_array, float(game.ante), _dummy(game.n_cards, game.n_bets), False)
    return float(np.dot(w, v - worst) / w.sum())


@dataclass(frozen=True)
class _Columns:
    """Every column of the dual LP: player 2's call variable ``q[g, j, k]`` for each game, card and positive bet.

    ``coef[g, j, k, m]`` is ``-w_g`` times the coefficient of ``x[rows_i[j, m], positive[k]]`` in
    ``gain_g[j, positive[k]]``; the column's entries sit in rows ``row[j, k, m]`` of the LP.
    """

    coef: np.ndarray  # (G, n, K, n-1)
    row: np.ndarray  # (n, K, n-1) int32
    rhs: np.ndarray  # (n, n_bets): upper bounds of the rows (the forced "call" of a check)


def _columns(probs: np.ndarray, w: np.ndarray, game: BetGame) -> _Columns:
    """All columns of the dual LP (see the module docstring); ``w`` normalised to mean 1."""
    n = probs.shape[1]
    n_bets = game.n_bets
    bets = game.bet_array
    positive = np.flatnonzero(bets > 0)
    passive = np.flatnonzero(bets == 0)
    ante = float(game.ante)
    rows_i = np.array([[i for i in range(n) if i != j] for j in range(n)], dtype=np.intp)  # (n, n-1)
    lower = rows_i < np.arange(n)[:, None]  # (n, n-1): player 1 holds the worse card
    pw = probs[:, rows_i, np.arange(n)[:, None]] * w[:, None, None]  # (G, n, n-1): w_g p[g, i, j]
    s = bets[positive]
    # gain_g[j, b] = sum_{i<j} p[i, j] x[i, b] (2 ante + s_b) - sum_{i>j} p[i, j] x[i, b] s_b; the row holds -gain
    factor = np.where(lower[:, None, :], (2 * ante + s)[None, :, None], -s[None, :, None])  # (n, K, n-1)
    coef = -(pw[:, :, None, :] * factor[None])  # (G, n, K, n-1)
    row = (rows_i[:, None, :] * n_bets + positive[None, :, None]).astype(np.int32)  # (n, K, n-1)
    rhs = np.zeros((n, n_bets))
    if passive.size:
        upper_mass = np.triu(probs, 1).sum(axis=2)  # (G, n): sum_{j > i} p[i, j]
        rhs[:, passive] = (2 * ante * (w[:, None] * upper_mass).sum(axis=0))[:, None]
    return _Columns(coef, row, rhs)


def _solve_lp(cols: _Columns, tolerance: float):
    """Pass the whole dual LP to HiGHS (column-wise) and run the dual simplex.

    Returns (status string, optimal?, objective, x = row duals (n, n_bets), simplex iterations).
    """
    g_count, n, k_pos, m = cols.coef.shape
    n_bets = cols.rhs.shape[1]
    num_q = g_count * n * k_pos
    z_index = (np.arange(n)[:, None] * n_bets + np.arange(n_bets)[None, :]).astype(np.int32).reshape(-1)
    a_index = np.concatenate([np.broadcast_to(cols.row, cols.coef.shape).reshape(-1), z_index])
    a_value = np.concatenate([cols.coef.reshape(-1), np.ones(n * n_bets)])
    a_start = np.concatenate([np.arange(num_q, dtype=np.int64) * m,
                              num_q * m + np.arange(n, dtype=np.int64) * n_bets]).astype(np.int32)
    num_col = num_q + n
    inf = highspy.kHighsInf
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("small_matrix_value", 1e-14)
    h.setOptionValue("simplex_strategy", 1)  # dual simplex (fastest here: see the module docstring)
    h.setOptionValue("primal_feasibility_tolerance", tolerance)
    h.setOptionValue("dual_feasibility_tolerance", tolerance)
    h.passModel(num_col, n * n_bets, a_value.size, 1, -1, 0.0,
                np.concatenate([np.zeros(num_q), np.ones(n)]),
                np.concatenate([np.zeros(num_q), np.full(n, -inf)]),
                np.concatenate([np.ones(num_q), np.full(n, inf)]),
                np.full(n * n_bets, -inf), cols.rhs.reshape(-1), a_start, a_index, a_value,
                np.zeros(num_col, dtype=np.int32))
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    ok = status == highspy.HighsModelStatus.kOptimal
    # a maximisation with <= rows: HiGHS reports non-negative row duals, player 1's bet probabilities
    x = np.asarray(h.getSolution().row_dual).reshape(n, n_bets) if ok else None
    return h.modelStatusToString(status), ok, info.objective_function_value, x, int(info.simplex_iteration_count)


def _normalise(x: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """Clip the duals to the simplex (they sum to 1 per card up to solver tolerances); dead cards check."""
    x = np.clip(x, 0.0, None)
    x[dead] = 0.0
    x[dead, 0] = 1.0
    return x / x.sum(axis=1, keepdims=True)


def optimal_group_strategy(probs, values, weights=None, game: BetGame = DEFAULT_GAME) -> GroupStrategy:
    """The single player-1 strategy that minimises the group's mean exploitability, exactly (LP, HiGHS).

    Parameters
    ----------
    probs : array_like of float, shape ``(G, n, n)`` or ``(n, n)``
        The group's deals (``probs[g, i, j]``: player 1 holds card ``i``, player 2 card ``j``).
    values : array_like of float, shape ``(G,)``
        Game values to player 1 (chips), e.g. the ``value`` column of a solution database. They shift the
        objective only (the optimal strategy does not depend on them).
    weights : array_like of float, shape ``(G,)``, optional
        Non-negative weights of the games (default equal); the objective is the weighted mean.
    game : BetGame
        Game parameters (the paper's game by default).

    Returns
    -------
    GroupStrategy

    Raises
    ------
    ValueError
        On invalid deals, values or weights (wrong shape, NaN, negative, all-zero weights).

    Notes
    -----
    The LP is the dual form described in the module docstring (``n * n_bets`` rows, ``G * n * (n_bets - 1)``
    bounded columns). For a group of one game its optimum is 0 (the game's equilibrium strategy is feasible).

    Examples
    --------
    >>> import numpy as np
    >>> from games import betgame
    >>> from games.betgame.group_lp import optimal_group_strategy
    >>> from rulelearn.distributions import uniform_deal
    >>> p = uniform_deal(10)[None]
    >>> res = optimal_group_strategy(p, [betgame.solve(p[0]).value])
    >>> abs(res.mean_exploitability) < 1e-9
    True
    """
    t0 = time.perf_counter()
    p = game.check_deal(probs)
    if p.ndim == 2:
        p = p[None]
    p = np.ascontiguousarray(p)
    g_count = p.shape[0]
    v = _check_values(values, g_count)
    w = _check_weights(weights, g_count)
    return _optimal(p, v, w, game, t0)


def _optimal(p: np.ndarray, v: np.ndarray, w: np.ndarray, game: BetGame, t0: float) -> GroupStrategy:
    g_count = p.shape[0]
    n, n_bets = game.n_cards, game.n_bets
    ante = float(game.ante)
    wn = w * (g_count / w.sum())  # mean 1: coefficients stay the size of the deal's probabilities
    cols = _columns(p, wn, game)
    dead = (wn[:, None] * p.sum(axis=2)).sum(axis=0) <= 0  # cards no weighted game deals to player 1
    mean_value = float(np.dot(w, v) / w.sum())
    iterations = 0
    for tol in (1e-10, 1e-12):
        status, ok, objective, x, its = _solve_lp(cols, tol)
        iterations += its
        if not ok:  # pragma: no cover - the LP is always feasible and bounded
            continue
        x = _normalise(x, dead)
        lp_opt = mean_value - (ante - objective / g_count)
        worst = _p2_best_response_kernel(p, np.ascontiguousarray(np.broadcast_to(x, (g_count, n, n_bets))),
                                         game.bet_array, ante, _dummy(n, n_bets), False)
        expl = v - worst
        mean_expl = float(np.dot(w, expl) / w.sum())
        if abs(mean_expl - lp_opt) <= GROUP_LP_TOLERANCE:
            break
    if x is None:  # pragma: no cover
        raise RuntimeError(f"HiGHS failed on the group LP: {status}")
    return GroupStrategy(x, expl, mean_expl, float(lp_opt), status, iterations, time.perf_counter() - t0)

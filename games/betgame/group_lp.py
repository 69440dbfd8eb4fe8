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
to mean 1) and ``c[i, b] = 0`` for the bets, and ``e_{i,b}`` the unit strategy. It has only ``n * n_bets`` rows
(310 for the paper's game) and ``G n (B - 1)`` bounded columns, so the simplex basis stays 310 x 310 however many
games the group holds. Player 1's optimal ``x[i, b]`` is the dual value of row ``(i, b)``; ``z[i]`` is card
``i``'s share of the mean payoff.

Solving it (``method="pricing"``, the default). Whatever the group, the optimum uses few of the 31 bets (check,
the minimum bet and one or two sizes for value bets and bluffs), and every unused bet's block of rows ``(., b)``
with its ``G n`` call columns only costs simplex time. So player 1 is first restricted to a few bets (those of
``start``, or of the whole LP's optimum on ``COLD_START_GAMES`` of the games); this *master* LP has ``n`` rows
and ``G n`` columns per allowed bet. Each other bet ``b`` is then *priced*: the largest ``t`` such that some
calls ``q[., ., b]`` keep ``z[i] + t - sum w_g gain_g[j, b](e_{i,b}) q <= c[i, b]`` for every card ``i``
(an ``n``-row LP). ``t >= 0`` proves that allowing bet ``b`` cannot help player 1; ``t < 0`` adds it to the master,
which HiGHS re-solves from its last basis (rows and columns are appended). Most pricing LPs are never solved:
player 2's best response to a card mixture that priced a neighbouring bet gives a lower bound on ``t``
(``>= 0``: proved), that mixture's own value an upper bound (``< 0``: the bet is added), and calls that priced the
bet in an earlier round are tried again; only a bet close to the chosen ones needs its LP, first with the calls
far from indifference fixed. When every bet is priced out, ``z`` (lowered by the smallest pricing value) and
the calls form a feasible point of the whole dual, so the master's optimum is the whole LP's optimum. The
returned lower bound :attr:`GroupStrategy.lp_optimum` is recomputed from those calls alone (clipped to
``[0, 1]``, each ``z[i]`` the largest the rows then allow), so it holds up to floating-point rounding whatever
HiGHS's tolerances. ``method="full"`` passes
the whole LP to HiGHS (the reference the tests compare with).

Columns whose sign of ``gain`` does not depend on ``x`` are fixed before either method runs: player 2 never calls
with his lowest card (``gain <= 0``) and always calls with his highest (``gain >= 0``, moved into ``c``).

Speed (one core, the paper's game, CPU time; the 20,000-game database): the whole LP needs 1,000-2,500 dual
simplex iterations whatever the group size, each costing time linear in the ``~220 G`` free nonzeros, about
0.6 s for 300 games; pricing needs 0.1-0.15 s for 300 games from a cold start, 0.09 s from the bets of a related
group's optimum, and scales the same way (0.06 s for 100 games). ``docs/RULES.md`` shows the held-out effect of
the group size. Earlier attempts, kept out: delayed column generation over the call columns (most of the
``G n (B - 1)`` columns of the used bets enter the master, six times the iterations), primal simplex (37 s on 200
games), interior point (6.7 s), HiGHS presolve (removes only the fixed columns above, and costs more than it
saves on these LPs).

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
from games.core.highs import quiet_highs
from rulelearn.validation import check_game_weights

__all__ = ["GROUP_LP_TOLERANCE", "METHODS", "GroupStrategy", "group_player1_exploitability", "optimal_group_strategy"]

#: Largest accepted difference (chips) between the LP optimum and the closed-form mean exploitability of the
#: returned strategy; a solve above it is repeated with tighter tolerances, then reported as not verified.
GROUP_LP_TOLERANCE = 1e-9

#: Ways to solve the group LP: ``"pricing"`` restricts player 1 to a few bets and adds the others only when
#: pricing shows they help (the default, exact); ``"full"`` passes the whole LP to HiGHS at once.
METHODS = ("pricing", "full")

#: Without a start strategy, the pricing method of a larger group starts from the bets of the whole LP's optimum
#: on this many of its games (spread evenly).
COLD_START_GAMES = 20

#: A pricing LP first frees only the calls whose gain against a guessed card mixture is within this share of the
#: gain's terms (the others are fixed at the best response to the guess).
NEAR_INDIFFERENCE = 0.1


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
        The LP's optimal mean exploitability (chips), from a dual solution made exactly feasible (the master's
        calls and the pricing certificates, :func:`_dual_bound`): a lower bound on every strategy's mean
        exploitability up to floating-point rounding, with no solver tolerance in it.
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


def _check_values(values, n_games: int) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if v.shape != (n_games,):
        raise ValueError(f"values must have one game value per deal ({n_games}), got shape {np.shape(values)}")
    if not np.all(np.isfinite(v)):
        raise ValueError("values contains NaN or infinite entries")
    return v


def group_player1_exploitability(probs, strategy, values, weights=None, game: BetGame = DEFAULT_GAME) -> float:
    """Weighted mean of player 1's exploitability (chips) of one strategy played in every game of a group
    (closed form, :func:`games.betgame.best_response.player1_exploitability`).

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
    w = check_game_weights(weights, p.shape[0])
    worst = _p2_best_response_kernel(_as_batch(p), np.ascontiguousarray(np.broadcast_to(x, (p.shape[0],) + x.shape)),
                                     game.bet_array, float(game.ante), _dummy(game.n_cards, game.n_bets), False)
    return float(np.dot(w, v - worst) / w.sum())


@dataclass(frozen=True)
class _Columns:
    """The call columns of the dual LP: player 2's call variable ``q[g, j, k]`` for each game, card and positive bet.

    ``coef[g, j, k, m]`` is ``-w_g`` times the coefficient of ``x[rows_i[j, m], positive[k]]`` in
    ``gain_g[j, positive[k]]``. Columns whose sign of ``gain`` is the same for every ``x`` are fixed by dominance
    and are not ``free``: player 2 folds when no card of player 1 loses to his (``coef >= 0``), and calls when
    none beats it (``coef <= 0``; the column then sits in ``rhs`` at ``q = 1``).
    """

    coef: np.ndarray  # (G, n, K, n-1)
    rows_i: np.ndarray  # (n, n-1) intp: player 1's card of entry m of a column of player 2's card j
    positive: np.ndarray  # (K,) intp: grid index of each positive bet
    free: np.ndarray  # (G, n, K) bool
    rhs: np.ndarray  # (n, n_bets): upper bounds of the rows (the forced "call" of a check, the fixed calls)


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
    never = np.all(coef >= 0.0, axis=3)  # gain <= 0 whatever player 1 does: folding is a best response
    always = np.all(coef <= 0.0, axis=3) & ~never  # gain >= 0 whatever he does: calling is
    rhs = np.zeros((n, n_bets))
    if passive.size:
        upper_mass = np.triu(probs, 1).sum(axis=2)  # (G, n): sum_{j > i} p[i, j]
        rhs[:, passive] = (2 * ante * (w[:, None] * upper_mass).sum(axis=0))[:, None]
    if always.any():
        fixed = np.einsum("gjkm,gjk->jkm", coef, always.astype(np.float64))  # (n, K, n-1), q = 1
        shape = fixed.shape
        np.add.at(rhs, (np.broadcast_to(rows_i[:, None, :], shape), np.broadcast_to(positive[None, :, None], shape)),
                  -fixed)
    return _Columns(coef, rows_i, positive, ~(never | always), rhs)


@dataclass
class _LPResult:
    status: str
    ok: bool
    objective: float
    row_dual: np.ndarray | None
    col_value: np.ndarray | None
    iterations: int


def _new_highs(tolerance: float) -> highspy.Highs:
    h = quiet_highs()
    h.setOptionValue("small_matrix_value", 1e-14)
    h.setOptionValue("simplex_strategy", 1)  # dual simplex (fastest here: see the module docstring)
    h.setOptionValue("presolve", "off")  # the column fixing of _columns is all it would find; it costs more
    h.setOptionValue("primal_feasibility_tolerance", tolerance)
    h.setOptionValue("dual_feasibility_tolerance", tolerance)
    return h


def _maximise(h: highspy.Highs, n_row: int, row_upper: np.ndarray, value: np.ndarray, index: np.ndarray,
              extra: int) -> _LPResult:
    """Maximise the sum of the ``extra`` free last columns s.t. ``A [q; z] <= row_upper``, ``0 <= q <= 1``.

    ``value`` and ``index`` (shape ``(n_q, m)``) hold the ``m`` entries of each ``q`` column; each of the
    ``extra`` columns has a 1 in ``n_row // extra`` consecutive rows of its own (``z[i]`` in rows
    ``i * (n_row // extra) ...``).
    """
    n_q, m = value.shape
    per = n_row // extra
    a_index = np.concatenate([index.reshape(-1), np.arange(n_row)]).astype(np.int32)
    a_value = np.concatenate([value.reshape(-1), np.ones(n_row)])
    a_start = np.concatenate([np.arange(n_q, dtype=np.int64) * m, n_q * m + np.arange(extra, dtype=np.int64) * per])
    inf = highspy.kHighsInf
    h.clearModel()
    h.passModel(n_q + extra, n_row, a_value.size, 1, -1, 0.0,
                np.concatenate([np.zeros(n_q), np.ones(extra)]),
                np.concatenate([np.zeros(n_q), np.full(extra, -inf)]),
                np.concatenate([np.ones(n_q), np.full(extra, inf)]),
                np.full(n_row, -inf), np.ascontiguousarray(row_upper, dtype=np.float64),
                a_start.astype(np.int32), a_index, a_value, np.zeros(n_q + extra, dtype=np.int32))
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    ok = status == highspy.HighsModelStatus.kOptimal
    sol = h.getSolution() if ok else None
    return _LPResult(h.modelStatusToString(status), ok, float(info.objective_function_value),
                     np.asarray(sol.row_dual) if ok else None, np.asarray(sol.col_value) if ok else None,
                     int(info.simplex_iteration_count))


class _Master:
    """The dual LP with player 1 restricted to some bets of the grid, kept in one HiGHS model.

    Rows come in blocks of ``n``, one block per allowed bet (row ``block * n + i`` is player 1's card ``i``);
    columns are ``z`` (``n`` free columns, first) and then the call columns of the allowed positive bets. Adding
    bets appends rows and columns, so HiGHS re-solves from the previous optimal basis (still dual feasible: the
    new columns' reduced costs are the new rows' duals, zero while their slacks are basic).
    """

    def __init__(self, cols: _Columns, tolerance: float):
        self.cols = cols
        self.n = cols.rhs.shape[0]
        self.bets: list[int] = []
        self.q_where: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (g, j, k) of the call columns
        self.h = _new_highs(tolerance)
        inf = highspy.kHighsInf
        n = self.n
        self.h.addCols(n, np.ones(n), np.full(n, -inf), np.full(n, inf), 0, np.zeros(n, dtype=np.int32),
                       np.zeros(0, dtype=np.int32), np.zeros(0))
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)

    def add(self, bets) -> None:
        """Allow the grid bets ``bets`` (indices not yet allowed)."""
        new = [int(b) for b in bets if int(b) not in self.bets]
        if not new:
            return
        cols, n = self.cols, self.n
        first_block = len(self.bets)
        blocks = first_block + np.arange(len(new))
        # rows: each holds z[i] (coefficient 1) and is bounded by c[i, b]
        n_rows = n * len(new)
        self.h.addRows(n_rows, np.full(n_rows, -highspy.kHighsInf), cols.rhs[:, new].T.reshape(-1).copy(), n_rows,
                       np.arange(n_rows, dtype=np.int32), np.tile(np.arange(n, dtype=np.int32), len(new)),
                       np.ones(n_rows))
        self.bets += new
        loc = {b: blk for b, blk in zip(new, blocks)}
        ks = [k for k, b in enumerate(cols.positive) if int(b) in loc]
        if not ks:
            return
        free = cols.free[:, :, ks]  # (G, n, nk)
        block_of = np.array([loc[int(cols.positive[k])] for k in ks], dtype=np.intp)
        row_of = block_of[None, :, None] * n + cols.rows_i[:, None, :]  # (n, nk, n-1)
        value = cols.coef[:, :, ks, :][free]
        index = np.broadcast_to(row_of, free.shape + row_of.shape[-1:])[free]
        n_q, m = value.shape
        g_of, j_of, kk_of = np.nonzero(free)  # the order of the columns appended below
        self.q_where.append((g_of, j_of, np.asarray(ks, dtype=np.intp)[kk_of]))
        if n_q:
            self.h.addCols(n_q, np.zeros(n_q), np.zeros(n_q), np.ones(n_q), value.size,
                           (np.arange(n_q, dtype=np.int64) * m).astype(np.int32), index.reshape(-1).astype(np.int32),
                           value.reshape(-1).copy())

    def solve(self):
        """Run HiGHS; return ``(result, x, z)`` with ``x`` player 1's strategy on ``self.bets`` (shape
        ``(n, len(self.bets))``, row duals) and ``z`` (shape ``(n,)``)."""
        h = self.h
        h.run()
        status = h.getModelStatus()
        info = h.getInfo()
        ok = status == highspy.HighsModelStatus.kOptimal
        res = _LPResult(h.modelStatusToString(status), ok, float(info.objective_function_value), None, None,
                        int(info.simplex_iteration_count))
        if not ok:
            return res, None, None
        sol = h.getSolution()
        x = np.asarray(sol.row_dual).reshape(len(self.bets), self.n).T
        return res, x, np.asarray(sol.col_value)[: self.n]

    def calls(self) -> np.ndarray:
        """The call columns of the last solution, clipped to ``[0, 1]``, as ``q[g, j, k]`` (zero elsewhere)."""
        cols = self.cols
        q = np.zeros(cols.free.shape)
        values = np.clip(np.asarray(self.h.getSolution().col_value)[self.n:], 0.0, 1.0)
        start = 0
        for g_of, j_of, k_of in self.q_where:
            q[g_of, j_of, k_of] = values[start:start + g_of.size]
            start += g_of.size
        return q


def _dual_bound(cols: _Columns, bets, q: np.ndarray, certificates: dict) -> float:
    """The objective ``sum_i z[i]`` of a point that satisfies every row of the whole dual LP exactly.

    ``q`` (shape ``(G, n, K)``) holds the calls of the master's bets ``bets``; ``certificates`` maps the index
    ``k`` of each other positive bet to calls ``(G, n)`` of that bet (any calls in ``[0, 1]`` are feasible). Each
    ``z[i]`` is the largest value the master's rows allow, then all are lowered by the most negative slack of the
    other bets' rows. No solver tolerance enters, so the result is a lower bound on every strategy's objective up
    to floating-point rounding (weak duality).
    """
    k_of = {int(b): k for k, b in enumerate(cols.positive)}
    z = np.min([cols.rhs[:, b] - (_call_terms(cols, k_of[b], q[:, :, k_of[b]]) if b in k_of else 0.0)
                for b in bets], axis=0)
    shift = 0.0
    for k in range(cols.positive.size):
        if int(cols.positive[k]) in bets:
            continue
        calls = np.clip(certificates.get(k, np.zeros(cols.free.shape[:2])), 0.0, 1.0) * cols.free[:, :, k]
        shift = min(shift, float(np.min(cols.rhs[:, cols.positive[k]] - z - _call_terms(cols, k, calls))))
    return float(z.sum() + z.size * shift)


def _call_terms(cols: _Columns, k: int, q: np.ndarray) -> np.ndarray:
    """``sum_{g, j} coef[g, j, k, :] q[g, j]`` gathered by player 1's card: shape ``(n,)``."""
    w = np.einsum("gjm,gj->jm", cols.coef[:, :, k, :], q)
    return np.bincount(cols.rows_i.reshape(-1), weights=w.reshape(-1), minlength=cols.rhs.shape[0])


def _bounds(cols: _Columns, k: int, upper: np.ndarray, x: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Lower and upper bounds on the pricing value of positive bet ``k`` from one card mixture ``x``.

    ``x`` (shape ``(n,)``, non-negative, summing to 1) says with which cards player 1 would make the bet. Player
    2's best response to it (calling in the free columns where that gains) is one choice of calls, so its value
    ``min_i (upper - calls)_i`` is a lower bound (the pricing value is a maximum over calls): ``>= 0`` proves the
    bet unprofitable without an LP. By duality the pricing value is also a minimum over mixtures, so the
    mixture's own value ``x . upper + sum max(0, gain(x))`` is an upper bound: ``< 0`` proves the bet profitable.
    Returns ``(lower, upper, calls)`` with the calls (shape ``(G, n)``) that attain the lower bound.
    """
    gain = -np.einsum("gjm,jm->gj", cols.coef[:, :, k, :], x[cols.rows_i])
    call = cols.free[:, :, k] & (gain > 0.0)
    q = call.astype(np.float64)
    lower = float(np.min(upper - _call_terms(cols, k, q)))
    return lower, float(np.dot(x, upper) + gain[call].sum()), q


def _price(h: highspy.Highs, cols: _Columns, k: int, z: np.ndarray, near: np.ndarray | None = None):
    """How much player 1 gains by adding positive bet ``k`` to his grid: ``max_q min_i (c[i, b] - z[i] - ...)``.

    The largest ``t`` with ``z[i] + t + sum_{g, j} coef q <= rhs[i, b]`` for every card ``i``, over player 2's
    calls ``q`` of that bet: ``t >= 0`` iff some calls make the bet unprofitable with every card, i.e. the
    restricted solution stays optimal with the bet allowed. By LP duality ``t`` is also the minimum over card
    mixtures ``x`` (the row duals, on the simplex) of ``sum_i x[i] (c[i, b] - z[i]) + sum max(0, gain(x))``.

    With ``near`` (a card mixture, shape ``(n,)``) only the calls that are close to indifferent against it stay
    free; the others are fixed at player 2's best response to it. That is a restriction of the maximum, so the
    value returned is still a lower bound on ``t`` (equal to it when the fixed calls are optimal).
    Returns ``(t, x, q, simplex iterations)`` with ``q`` the calls (shape ``(G, n)``, zero outside the free
    columns) that attain ``t``.
    """
    b = int(cols.positive[k])
    n = cols.rhs.shape[0]
    upper = cols.rhs[:, b] - z
    free = cols.free[:, :, k]
    coef = cols.coef[:, :, k, :]
    if near is not None:
        terms = coef * near[cols.rows_i]  # (G, n, n-1)
        gain = -terms.sum(axis=2)
        clear = np.abs(gain) > NEAR_INDIFFERENCE * np.abs(terms).sum(axis=2)
        calls = free & clear & (gain > 0.0)
        upper = upper - _call_terms(cols, k, calls.astype(np.float64))
        free = free & ~clear
    q = calls.astype(np.float64) if near is not None else np.zeros(free.shape)
    if not free.any():
        x = np.zeros(n)
        x[int(np.argmin(upper))] = 1.0
        return float(upper.min()), x, q, 0
    value = coef[free]
    index = np.broadcast_to(cols.rows_i, free.shape + cols.rows_i.shape[-1:])[free]
    res = _maximise(h, n, upper, value, index, 1)
    if not res.ok:  # pragma: no cover - always feasible (q = 0, t small) and bounded
        raise RuntimeError(f"HiGHS failed on a pricing LP: {res.status}")
    q[free] = res.col_value[:-1]
    return res.objective, np.clip(res.row_dual, 0.0, None), q, res.iterations


def _price_all(h: highspy.Highs, cols: _Columns, chosen: np.ndarray, x: np.ndarray, z: np.ndarray, eps: float,
               memory: dict, max_add: int = 1):
    """Price every positive bet outside ``chosen``; return ``(violated bets, smallest bound, LPs, iterations)``.

    Bets are visited outwards from the chosen ones. A bet is first tried with calls that certified it before and
    with player 2's best response to card mixtures that priced it or its neighbour towards the chosen bets before
    (``memory``, updated in place), or to the neighbour's own column of ``x``: any calls give a lower bound on
    the pricing value. Only when none reaches ``-eps`` is a pricing LP solved, first with the calls far from
    indifference fixed, then whole. The smallest value (a lower bound on every bet's pricing value) bounds how far
    the restricted optimum can be from the whole LP's. At most ``max_add`` of the most violated bets are returned.
    """
    mixtures = memory.setdefault("x", {})
    calls = memory.setdefault("q", {})
    certificates = memory.setdefault("certificates", {})
    in_k = np.flatnonzero(np.isin(cols.positive, chosen))
    out_k = np.flatnonzero(~np.isin(cols.positive, chosen))
    for k in in_k:
        col = x[:, cols.positive[k]]
        if col.sum() > 1e-12:
            mixtures[int(k)] = col / col.sum()
    if in_k.size:
        dist = np.abs(out_k[:, None] - in_k[None, :])
        nearest = in_k[dist.argmin(axis=1)]
        order = np.argsort(dist.min(axis=1), kind="stable")
    else:
        nearest = np.full(out_k.size, -1)
        order = np.arange(out_k.size)
    t_min, violated, n_lp, iterations = 0.0, [], 0, 0
    for pos in order:
        k = int(out_k[pos])
        neighbour = k - int(np.sign(k - nearest[pos])) if nearest[pos] >= 0 else k - 1
        upper = cols.rhs[:, cols.positive[k]] - z
        low, high = -np.inf, np.inf  # bounds on the pricing value
        tried = []  # calls of this bet seen below; the best is kept as the bet's certificate
        if k in calls:
            low = float(np.min(upper - _call_terms(cols, k, calls[k])))
            tried.append(calls[k])
        for cand in (k, neighbour):
            if low >= -eps or high < -eps:
                break
            if cand in mixtures:
                lo, hi, q_br = _bounds(cols, k, upper, mixtures[cand])
                tried.append(q_br)
                if lo >= -eps:
                    mixtures[k] = mixtures[cand]
                low, high = max(low, lo), min(high, hi)
        near = mixtures.get(k, mixtures.get(neighbour))
        if low < -eps <= high and near is not None:
            t, x_k, q_k, its = _price(h, cols, k, z, near)
            tried.append(q_k)
            n_lp += 1
            iterations += its
            low = max(low, t)
            if t >= -eps:
                mixtures[k], calls[k] = x_k, q_k
            else:
                high = min(high, _bounds(cols, k, upper, x_k / max(x_k.sum(), 1e-300))[1])
        if low < -eps <= high:
            t, mixtures[k], calls[k], its = _price(h, cols, k, z)
            tried.append(calls[k])
            n_lp += 1
            iterations += its
            low = high = t
        if tried:
            certificates[k] = max(tried, key=lambda q: float(np.min(upper - _call_terms(cols, k, q))))
        t_min = min(t_min, low)
        if high < -eps:
            violated.append((high, int(cols.positive[k])))
    return [b for _, b in sorted(violated)[:max_add]], t_min, n_lp, iterations


def _normalise(x: np.ndarray, dead: np.ndarray) -> np.ndarray:
    """Clip the duals to the simplex (they sum to 1 per card up to solver tolerances); dead cards check."""
    x = np.clip(x, 0.0, None)
    x[dead] = 0.0
    x[dead, 0] = 1.0
    return x / x.sum(axis=1, keepdims=True)


def optimal_group_strategy(probs, values, weights=None, game: BetGame = DEFAULT_GAME, start=None,
                           method: str = "pricing") -> GroupStrategy:
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
    start : array_like of float, shape ``(n, n_bets)``, optional
        A guess of the optimum, e.g. a related group's (``"pricing"`` only): the master LP starts with the bets it
        uses. It changes the work, not the optimal value.
    method : {"pricing", "full"}, default "pricing"
        ``"pricing"``: player 1 restricted to a few bets, the others priced and added when they help;
        ``"full"``: the whole LP at once (see the module docstring). Both are exact.

    Returns
    -------
    GroupStrategy

    Raises
    ------
    ValueError
        On invalid deals, values or weights (wrong shape, NaN, negative, all-zero weights), an invalid ``start``
        (wrong shape, not a strategy) or an unknown ``method``.

    Notes
    -----
    The LP is the dual form described in the module docstring (``n * n_bets`` rows, ``G * n * (n_bets - 1)``
    bounded columns). For a group of one game its optimum is 0 (the game's equilibrium strategy is feasible).
    Both methods certify the result: the closed-form mean exploitability of the returned strategy (an upper
    bound on the optimum) is within :data:`GROUP_LP_TOLERANCE` of a lower bound from a feasible dual solution.

    Examples
    --------
    >>> import numpy as np
    >>> from games import betgame
    >>> from games.betgame.group_lp import optimal_group_strategy
    >>> from rulelearn.data.distributions import uniform_deal
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
    w = check_game_weights(weights, g_count)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if start is not None:
        start = game.check_strategy(start, "start", batch=None)
    return _optimal(p, v, w, game, t0, start, method)


def _optimal(p: np.ndarray, v: np.ndarray, w: np.ndarray, game: BetGame, t0: float, start=None,
             method: str = "pricing") -> GroupStrategy:
    g_count = p.shape[0]
    n, n_bets = game.n_cards, game.n_bets
    ante = float(game.ante)
    wn = w * (g_count / w.sum())  # mean 1: coefficients stay the size of the deal's probabilities
    cols = _columns(p, wn, game)
    dead = (wn[:, None] * p.sum(axis=2)).sum(axis=0) <= 0  # cards no weighted game deals to player 1
    mean_value = float(np.dot(w, v) / w.sum())
    passive = np.flatnonzero(game.bet_array == 0)
    if method == "full":
        chosen = np.arange(n_bets)
    else:
        if start is None and np.count_nonzero(w) > COLD_START_GAMES:
            # the bets of a small subsample's optimum are a good first guess for the whole group's
            some = np.flatnonzero(w > 0)
            some = some[np.unique(np.linspace(0, some.size - 1, COLD_START_GAMES).round().astype(np.intp))]
            start = _optimal(p[some], v[some], w[some], game, t0, None, "full").strategy
        first = cols.positive[:1] if start is None else np.flatnonzero(start.max(axis=0) > 1e-9)
        chosen = np.union1d(passive, first)
    # a bet whose pricing value is below -eps could lower the optimum by more than n eps / G chips
    eps = 1e-11 * g_count / n
    iterations, x = 0, None
    for tol in (1e-10, 1e-12):
        master, pricer = _Master(cols, tol), _new_highs(tol)
        master.add(chosen)
        memory: dict = {}
        while True:
            res, x_sel, z = master.solve()
            iterations += res.iterations
            if not res.ok:  # pragma: no cover - the LP is always feasible and bounded
                break
            x = np.zeros((n, n_bets))
            x[:, master.bets] = np.clip(x_sel, 0.0, None)
            violated, _, _, its = _price_all(pricer, cols, np.asarray(master.bets), x, z, eps, memory)
            iterations += its
            if not violated:
                break
            master.add(violated)
        chosen = np.sort(np.asarray(master.bets))  # a second pass with tighter tolerances starts from these
        if not res.ok:  # pragma: no cover
            continue
        x = _normalise(x, dead)
        lp_opt = mean_value - ante + _dual_bound(cols, master.bets, master.calls(), memory.get("certificates", {})
                                                 ) / g_count
        worst = _p2_best_response_kernel(p, np.ascontiguousarray(np.broadcast_to(x, (g_count, n, n_bets))),
                                         game.bet_array, ante, _dummy(n, n_bets), False)
        expl = v - worst
        mean_expl = float(np.dot(w, expl) / w.sum())
        if abs(mean_expl - lp_opt) <= GROUP_LP_TOLERANCE:
            break
    if x is None:  # pragma: no cover
        raise RuntimeError(f"HiGHS failed on the group LP: {res.status}")
    return GroupStrategy(x, expl, mean_expl, float(lp_opt), res.status, iterations, time.perf_counter() - t0)

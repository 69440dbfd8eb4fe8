"""Exact equilibria of the bet game by linear programming with HiGHS.

Player 1 maximises his worst-case payoff. Player 2's best response decomposes over his information sets ``(j, b)``
(see :mod:`games.betgame.best_response`), so with ``t[j, b] >= max(0, gain[j, b](x))`` the maxmin problem is the
LP (Koller & Megiddo 1992; the sequence form of this one-decision game is the behaviour strategy)::

    maximise    ante - sum_j gain[j, check](x) - sum_{j, b > 0} t[j, b]
    subject to  t[j, b] - gain[j, b](x) >= 0          for every card j and positive bet b   (dual: call prob.)
                sum_b x[i, b] = 1                      for every card i
                x >= 0, t >= 0

with ``gain`` linear in ``x``. The dual values of the first block are player 2's equilibrium call probabilities
(their bounds ``0 <= y <= 1`` come from ``t >= 0`` and the objective coefficient ``-1``), so one solve yields both
strategies and the value.

Speed: the constraint matrix has a fixed sparsity pattern for a given :class:`BetGame`, so the index arrays are
built once and only the values change per deal. Each solve runs HiGHS's primal simplex without scaling, warm
started from the optimal basis of the uniform deal (about 1.5 ms for the paper's game); a solution that does not
pass verification is re-solved cold with HiGHS's defaults.

Conventions for cards a player is never dealt (zero marginal probability): player 1 plays the first action of
the grid (the check when the grid contains 0); player 2 folds to every positive bet (call probability 0).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import highspy
import numpy as np

from games.betgame.best_response import _nash_conv_unchecked
from games.betgame.rules import DEFAULT_GAME, BetGame
from rulelearn.data.distributions import uniform_deal

__all__ = ["BetGameSolution", "solve", "solve_many", "VERIFY_TOLERANCE"]

#: A solution is *verified* when its NashConv is at most this many chips.
VERIFY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class BetGameSolution:
    """An equilibrium of one deal of the bet game.

    Attributes
    ----------
    strategy : numpy.ndarray of float64, shape ``(n, n_bets)``
        Player 1's equilibrium strategy: ``strategy[i, b]`` is the probability of betting ``bets[b]`` with card i.
    call_probability : numpy.ndarray of float64, shape ``(n, n_bets)``
        Player 2's equilibrium call probabilities (1 in the check column).
    value : float
        The game value to player 1, in chips (the LP optimum).
    status : str
        HiGHS's model status of the final solve (``"Optimal"`` on success).
    nash_conv : float
        NashConv of the returned pair, in chips (``nan`` when not verified).
    iterations : int
        Simplex iterations over all attempts.
    """

    strategy: np.ndarray
    call_probability: np.ndarray
    value: float
    status: str
    nash_conv: float
    iterations: int

    @property
    def verified(self) -> bool:
        """True when the pair is an equilibrium to within :data:`VERIFY_TOLERANCE` chips of NashConv."""
        return bool(self.nash_conv <= VERIFY_TOLERANCE)


@dataclass(frozen=True)
class _Structure:
    """Sparsity pattern and fixed coefficients of the LP of a :class:`BetGame` (row-wise matrix)."""

    n: int
    n_bets: int
    positive: np.ndarray  # indices of the positive bets, shape (K,)
    check: int | None
    num_col: int
    num_row: int
    a_start: np.ndarray  # int32, (num_row,)
    a_index: np.ndarray  # int32, (nnz,)
    a_value: np.ndarray  # float64, (nnz,) template: 1 for t and convexity entries, 0 for x entries
    x_entry: np.ndarray  # positions in a_value of the x entries, (E,)
    x_i: np.ndarray  # player 1's card of each x entry, (E,)
    x_j: np.ndarray  # player 2's card (row) of each x entry, (E,)
    x_w: np.ndarray  # coefficient multiplying -probs[i, j], (E,)
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    integrality: np.ndarray


@lru_cache(maxsize=16)
def _structure(game: BetGame) -> _Structure:
    n, n_bets = game.n_cards, game.n_bets
    bets = game.bet_array
    positive = np.flatnonzero(bets > 0)
    k_pos = positive.size
    nx, nt = n * n_bets, n * k_pos
    index, value, starts = [], [], []
    x_entry, x_i, x_j, x_w = [], [], [], []
    pos = 0
    for j in range(n):  # rows (j, k): t[j, k] - gain[j, positive[k]](x) >= 0
        for k, b in enumerate(positive):
            starts.append(pos)
            for i in range(n):
                if i == j:
                    continue
                index.append(i * n_bets + b)
                value.append(0.0)
                x_entry.append(pos)
                x_i.append(i)
                x_j.append(j)
                x_w.append((2.0 * game.ante + bets[b]) if i < j else -bets[b])
                pos += 1
            index.append(nx + j * k_pos + k)
            value.append(1.0)
            pos += 1
    for i in range(n):  # convexity rows: sum_b x[i, b] = 1
        starts.append(pos)
        for b in range(n_bets):
            index.append(i * n_bets + b)
            value.append(1.0)
            pos += 1
    num_row = nt + n
    return _Structure(
        n=n, n_bets=n_bets, positive=positive, check=game.check_index,
        num_col=nx + nt, num_row=num_row,
        a_start=np.asarray(starts, dtype=np.int32), a_index=np.asarray(index, dtype=np.int32),
        a_value=np.asarray(value, dtype=np.float64),
        x_entry=np.asarray(x_entry, dtype=np.intp), x_i=np.asarray(x_i, dtype=np.intp),
        x_j=np.asarray(x_j, dtype=np.intp), x_w=np.asarray(x_w, dtype=np.float64),
        col_lower=np.zeros(nx + nt), col_upper=np.full(nx + nt, highspy.kHighsInf),
        row_lower=np.concatenate([np.zeros(nt), np.ones(n)]),
        row_upper=np.concatenate([np.full(nt, highspy.kHighsInf), np.ones(n)]),
        integrality=np.zeros(nx + nt, dtype=np.int32),
    )


class _Solver:
    """One HiGHS instance and the warm-start basis for one game; not shared between threads."""

    FAST = {"presolve": "off", "simplex_strategy": 4, "simplex_scale_strategy": 0}
    SAFE = {"presolve": "choose", "simplex_strategy": 1, "simplex_scale_strategy": 1}

    def __init__(self, game: BetGame):
        self.game = game
        self.st = _structure(game)
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", False)
        self.highs.setOptionValue("threads", 1)
        self.highs.setOptionValue("small_matrix_value", 1e-12)
        self.basis = None
        self.basis = self._run(uniform_deal(game.n_cards), warm=False, options=self.FAST)[3]

    def _set_options(self, options: dict) -> None:
        for key, val in options.items():
            self.highs.setOptionValue(key, val)

    def _run(self, probs: np.ndarray, warm: bool, options: dict):
        st, game = self.st, self.game
        a_value = st.a_value.copy()
        a_value[st.x_entry] = -probs[st.x_i, st.x_j] * st.x_w
        cost = np.zeros(st.num_col)
        cost[st.n * st.n_bets:] = -1.0
        if st.check is not None:  # a check is always "called": gain[j, check] enters the objective directly
            cost[np.arange(st.n) * st.n_bets + st.check] = -2.0 * game.ante * np.triu(probs, 1).sum(axis=1)
        h = self.highs
        self._set_options(options)
        h.passModel(st.num_col, st.num_row, a_value.size, 2, -1, float(game.ante), cost,
                    st.col_lower, st.col_upper, st.row_lower, st.row_upper,
                    st.a_start, st.a_index, a_value, st.integrality)
        if warm and self.basis is not None:
            h.setBasis(self.basis)
        h.run()
        status = h.getModelStatus()
        info = h.getInfo()
        sol = h.getSolution()
        return status, info, sol, (h.getBasis() if status == highspy.HighsModelStatus.kOptimal else None)

    def _extract(self, probs: np.ndarray, sol):
        st = self.st
        n, n_bets, k_pos = st.n, st.n_bets, st.positive.size
        x = np.clip(np.asarray(sol.col_value)[: n * n_bets].reshape(n, n_bets), 0.0, None)
        pmf1, pmf2 = probs.sum(axis=1), probs.sum(axis=0)
        x[pmf1 == 0] = 0.0
        x[pmf1 == 0, 0] = 1.0
        x /= x.sum(axis=1, keepdims=True)
        call = np.ones((n, n_bets))
        duals = np.asarray(sol.row_dual)[: n * k_pos].reshape(n, k_pos)
        call[:, st.positive] = np.clip(-duals, 0.0, 1.0)
        call[np.ix_(pmf2 == 0, st.positive)] = 0.0
        return x, call

    def solve(self, probs: np.ndarray, verify: bool) -> BetGameSolution:
        iterations = 0
        result = None
        for warm, options in ((True, self.FAST), (False, self.SAFE)):
            status, info, sol, _ = self._run(probs, warm, options)
            iterations += int(info.simplex_iteration_count)
            if status != highspy.HighsModelStatus.kOptimal:
                result = (self.highs.modelStatusToString(status), np.nan, None, None, np.inf)
                continue
            x, call = self._extract(probs, sol)
            # probs was validated by solve(); x and call are valid by construction (clipped, renormalised)
            conv = float(_nash_conv_unchecked(probs[None], x[None], call[None], self.game)[0]) if verify else np.nan
            result = ("Optimal", info.objective_function_value, x, call, conv)
            if not verify or conv <= VERIFY_TOLERANCE:
                break
        if result[2] is None:  # no optimal solve at all (should not happen: the LP is always feasible)
            n, b = self.st.n, self.st.n_bets
            return BetGameSolution(np.full((n, b), np.nan), np.full((n, b), np.nan), np.nan, result[0],
                                   np.inf, iterations)
        status, value, x, call, conv = result
        return BetGameSolution(x, call, float(value), status, conv, iterations)


_local = threading.local()


def _solver(game: BetGame) -> _Solver:
    cache = getattr(_local, "solvers", None)
    if cache is None:
        cache = _local.solvers = {}
    if game not in cache:
        cache[game] = _Solver(game)
    return cache[game]


def solve(probs, game: BetGame = DEFAULT_GAME, verify: bool = True) -> BetGameSolution:
    """Solve one deal of the bet game exactly by LP (HiGHS).

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)``
        The joint deal: ``probs[i, j]`` is the probability that player 1 holds card ``i`` and player 2 card ``j``.
    game : BetGame, default :data:`DEFAULT_GAME`
        Deck size, ante, stack and bet grid (the paper's game by default).
    verify : bool, default True
        Compute the NashConv of the returned pair (closed form, microseconds) and re-solve cold if it exceeds
        :data:`VERIFY_TOLERANCE`.

    Returns
    -------
    BetGameSolution
        ``strategy`` and ``call_probability`` of shape ``(n, n_bets)``, ``value`` to player 1 in chips.

    Raises
    ------
    ValueError
        If ``probs`` is not a valid deal: wrong shape, NaN, a negative entry, not summing to 1, or positive
        probability on the diagonal.

    Examples
    --------
    >>> from games import betgame
    >>> from rulelearn.data.distributions import uniform_deal
    >>> round(betgame.solve(uniform_deal(10)).value, 12)
    0.065736485736
    """
    p = game.check_deal(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must be a single deal of shape (n, n) (use solve_many for a batch), got {p.shape}")
    return _solver(game).solve(np.ascontiguousarray(p), verify)


def solve_many(probs, game: BetGame = DEFAULT_GAME, verify: bool = True) -> list[BetGameSolution]:
    """Solve a batch of deals ``(G, n, n)`` one after another in this process (see :func:`solve`).

    Returns
    -------
    list of BetGameSolution, length ``G``

    Raises
    ------
    ValueError
        If any deal is invalid.
    """
    p = game.check_deal(probs)
    if p.ndim == 2:
        p = p[None]
    solver = _solver(game)
    return [solver.solve(np.ascontiguousarray(p[g]), verify) for g in range(p.shape[0])]

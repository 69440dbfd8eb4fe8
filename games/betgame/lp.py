"""Exact equilibria of the bet game by linear programming with HiGHS, each one verified before it is returned.

Player 1 maximises his worst-case payoff. Player 2's best response decomposes over his information sets ``(j, b)``
(see :mod:`games.betgame.best_response`), so with ``t[j, b] >= max(0, gain[j, b](x))`` the maxmin problem is the
LP (Koller & Megiddo 1992; the sequence form of this one-decision game is the behaviour strategy)::

    maximise    ante - sum_j gain[j, check](x) - sum_{j, b > 0} t[j, b]
    subject to  t[j, b] - gain[j, b](x) >= 0          for every card j and positive bet b   (dual: call prob.)
                sum_b x[i, b] = 1                      for every card i
                x >= 0, t >= 0

with ``gain`` linear in ``x``. The dual values of the first block are player 2's equilibrium call probabilities
(their bounds ``0 <= y <= 1`` come from ``t >= 0`` and the objective coefficient ``-1``), so one solve yields both
strategies.

Formulation passed to HiGHS. The coefficients of ``gain[j, b]`` are ``probs[i, j]`` times chip amounts, and the
deals of a database spread their probabilities over many orders of magnitude (down to 1e-24 when the hand
distributions have entries of 1e-12). HiGHS's tolerances are absolute, so the LP above is solved in rescaled
variables: ``z[i, b] = F m1[i] x[i, b]`` (player 1's realisation weights), ``t'[j, b] = F t[j, b] / m2[j]`` and
row ``(j, b)`` divided by ``m2[j]`` (``m1``, ``m2`` the marginals; 1 for a card never dealt). The matrix entries
become ``probs[i, j] / (m1[i] m2[j])``, about 1 for deals of independent hands, and ``F = 2**10`` (exact in
binary) multiplies the objective and the right-hand sides, so that HiGHS's smallest tolerances (1e-10) stand for
1e-13 of the original problem's chips and probabilities. Player 1's strategy is each row of ``z`` normalised;
the calls are the duals divided by ``F m2[j]``.

Verification. Every solution is checked in closed form before it is returned: ``u1(x, BR2) <= v* <= u1(BR1, y)``
bracket the game value, their difference is the pair's NashConv, and the solution is *verified* when NashConv is
at most :data:`VERIFY_TOLERANCE` (1e-9 chips). The returned ``value`` is the lower end, the payoff that the
returned strategy guarantees, so it is within ``nash_conv`` of the game value and player 1's exploitability of
the returned strategy is exactly 0. A solve whose pair is not verified is repeated with the next attempt of
:data:`ATTEMPTS`; if none verifies, :func:`solve` raises :class:`UnverifiedSolutionError` (or, with
``strict=False``, returns the best pair with status ``"Unverified"`` and ``verified`` false).

Speed: the constraint matrix has a fixed sparsity pattern for a given :class:`BetGame`, so the index arrays are
built once and only the values change per deal. The first attempt runs HiGHS's primal simplex without scaling,
warm started from the optimal basis of the uniform deal (a few ms for the paper's game).
``benchmarks/bench_betgame_verification.py`` measures how often each attempt is needed (docs/BENCHMARKS.md).

Conventions for cards a player is never dealt (zero marginal probability): player 1 plays the first action of
the grid (the check when the grid contains 0); player 2 folds to every positive bet (call probability 0).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import highspy
import numpy as np

from games.betgame.best_response import _payoff_bounds
from games.betgame.rules import DEFAULT_GAME, BetGame
from games.core.highs import quiet_highs, silence
from rulelearn.data.distributions import uniform_deal

__all__ = ["ATTEMPTS", "BetGameSolution", "SolveAttempt", "UnverifiedSolutionError", "VERIFY_TOLERANCE", "solve",
           "solve_many"]

#: A solution is *verified* when its NashConv is at most this many chips.
VERIFY_TOLERANCE = 1e-9

#: Factor of the objective and of the right-hand sides in the LP given to HiGHS (a power of 2: exact).
MAGNIFY = 2.0 ** 10


@dataclass(frozen=True)
class SolveAttempt:
    """One way of running HiGHS on a deal's LP.

    Attributes
    ----------
    name : str
        Reported in :attr:`BetGameSolution.method`.
    warm : bool
        Start from the optimal basis of the uniform deal.
    options : tuple of (str, object)
        HiGHS options.
    """

    name: str
    warm: bool
    options: tuple


_TIGHT = (("primal_feasibility_tolerance", 1e-10), ("dual_feasibility_tolerance", 1e-10))

#: The attempts of :func:`solve`, in order; the next runs only when the previous one's pair is not verified.
ATTEMPTS = (
    SolveAttempt("warm primal simplex", True,
                 (("presolve", "off"), ("simplex_strategy", 4), ("simplex_scale_strategy", 0)) + _TIGHT),
    SolveAttempt("dual simplex with HiGHS scaling", False,
                 (("presolve", "choose"), ("simplex_strategy", 1), ("simplex_scale_strategy", 1)) + _TIGHT),
    SolveAttempt("interior point and crossover", False,
                 (("presolve", "choose"), ("solver", "ipm"), ("run_crossover", "on"),
                  ("simplex_strategy", 4), ("simplex_scale_strategy", 1)) + _TIGHT),
)

#: HiGHS options of every attempt (before its own): one thread, and no matrix entry dropped that HiGHS accepts.
_BASE = (("threads", 1), ("small_matrix_value", 1e-12))


class UnverifiedSolutionError(RuntimeError):
    """No attempt of :func:`solve` produced a verified equilibrium.

    Attributes
    ----------
    solution : BetGameSolution
        The best pair found (``verified`` false).
    """

    def __init__(self, solution: BetGameSolution, deal: int | None = None):
        self.solution = solution
        where = "" if deal is None else f" (deal {deal} of the batch)"
        super().__init__(
            f"the bet-game LP solution{where} is not verified: NashConv {solution.nash_conv:.3g} chips > "
            f"{VERIFY_TOLERANCE:g} after {len(ATTEMPTS)} attempts (last status {solution.status!r}); pass "
            "strict=False to get it flagged instead")


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
        The game value to player 1, in chips: the payoff ``strategy`` guarantees against every response. The
        exact value lies in ``[value, value + nash_conv]``.
    status : str
        ``"Optimal"`` when verified; ``"Unverified"`` when HiGHS reported optimality but the pair's NashConv
        exceeds :data:`VERIFY_TOLERANCE`; otherwise HiGHS's model status of the last attempt (then the arrays
        and ``value`` are NaN).
    nash_conv : float
        NashConv of the returned pair, in chips (``inf`` when no attempt reached optimality).
    iterations : int
        Simplex iterations over all attempts.
    method : str
        The :data:`ATTEMPTS` entry that produced the pair.
    """

    strategy: np.ndarray
    call_probability: np.ndarray
    value: float
    status: str
    nash_conv: float
    iterations: int
    method: str = ""

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
    for i in range(n):  # convexity rows: sum_b z[i, b] = F m1[i]
        starts.append(pos)
        for b in range(n_bets):
            index.append(i * n_bets + b)
            value.append(1.0)
            pos += 1
    return _Structure(
        n=n, n_bets=n_bets, positive=positive, check=game.check_index,
        num_col=nx + nt, num_row=nt + n,
        a_start=np.asarray(starts, dtype=np.int32), a_index=np.asarray(index, dtype=np.int32),
        a_value=np.asarray(value, dtype=np.float64),
        x_entry=np.asarray(x_entry, dtype=np.intp), x_i=np.asarray(x_i, dtype=np.intp),
        x_j=np.asarray(x_j, dtype=np.intp), x_w=np.asarray(x_w, dtype=np.float64),
        col_lower=np.zeros(nx + nt), col_upper=np.full(nx + nt, highspy.kHighsInf),
        row_upper=np.concatenate([np.full(nt, highspy.kHighsInf), np.ones(n)]),
        integrality=np.zeros(nx + nt, dtype=np.int32),
    )


@dataclass(frozen=True)
class _Pair:
    """A candidate equilibrium and its closed-form check."""

    strategy: np.ndarray
    call: np.ndarray
    value: float
    nash_conv: float


class _Solver:
    """One HiGHS instance and the warm-start basis for one game; not shared between threads."""

    def __init__(self, game: BetGame):
        self.game = game
        self.st = _structure(game)
        self.highs = quiet_highs()
        self.basis = None
        # the warm start of every deal: the optimal basis of the uniform deal under the first attempt's options
        self.basis = self._run(uniform_deal(game.n_cards), SolveAttempt("cold", False, ATTEMPTS[0].options))[2]

    def _run(self, probs: np.ndarray, attempt: SolveAttempt):
        """Pass the rescaled LP of ``probs`` and run HiGHS; return ``(status, info, basis or None)``."""
        st, game = self.st, self.game
        m1, m2 = probs.sum(axis=1), probs.sum(axis=0)
        s = np.where(m1 > 0, m1, 1.0)
        r = np.where(m2 > 0, m2, 1.0)
        a_value = st.a_value.copy()
        a_value[st.x_entry] = -probs[st.x_i, st.x_j] * st.x_w / (s[st.x_i] * r[st.x_j])
        cost = np.zeros(st.num_col)
        cost[st.n * st.n_bets:] = -MAGNIFY * np.repeat(r, st.positive.size)
        if st.check is not None:  # a check is always "called": gain[j, check] enters the objective directly
            upper_mass = np.triu(probs, 1).sum(axis=1)  # player 1 holds the worse card
            cost[np.arange(st.n) * st.n_bets + st.check] = -MAGNIFY * 2.0 * game.ante * upper_mass / s
        row_lower = np.zeros(st.num_row)
        row_upper = st.row_upper.copy()
        row_lower[-st.n:] = row_upper[-st.n:] = MAGNIFY * s
        h = self.highs
        h.resetOptions()  # an attempt inherits no option of another
        silence(h)
        for key, val in _BASE + attempt.options:
            h.setOptionValue(key, val)
        h.passModel(st.num_col, st.num_row, a_value.size, 2, -1, 0.0, cost,
                    st.col_lower, st.col_upper, row_lower, row_upper,
                    st.a_start, st.a_index, a_value, st.integrality)
        if attempt.warm and self.basis is not None:
            h.setBasis(self.basis)
        h.run()
        status = h.getModelStatus()
        optimal = status == highspy.HighsModelStatus.kOptimal
        return status, h.getInfo(), (h.getBasis() if optimal else None)

    def _pair(self, probs: np.ndarray) -> _Pair:
        """The strategy pair of HiGHS's current solution, on the simplex, with its value bounds."""
        st = self.st
        n, n_bets, k_pos = st.n, st.n_bets, st.positive.size
        sol = self.highs.getSolution()
        z = np.asarray(sol.col_value)[: n * n_bets].reshape(n, n_bets)
        m1, m2 = probs.sum(axis=1), probs.sum(axis=0)
        x = np.clip(z, 0.0, None)  # a row of z is F m1[i] times the strategy: normalising recovers it
        empty = x.sum(axis=1) <= 0.0
        x[empty] = np.eye(n_bets)[np.argmax(z[empty], axis=1)]
        x[m1 == 0] = 0.0
        x[m1 == 0, 0] = 1.0
        x /= x.sum(axis=1, keepdims=True)
        call = np.ones((n, n_bets))
        r = np.where(m2 > 0, m2, 1.0)
        duals = np.asarray(sol.row_dual)[: n * k_pos].reshape(n, k_pos)
        call[:, st.positive] = np.clip(-duals / (MAGNIFY * r[:, None]), 0.0, 1.0)
        call[np.ix_(m2 == 0, st.positive)] = 0.0
        worst, best = _payoff_bounds(probs[None], x[None], call[None], self.game)
        return _Pair(x, call, float(worst[0]), float(best[0] - worst[0]))

    def solve(self, probs: np.ndarray) -> BetGameSolution:
        iterations, best, best_method, status_text = 0, None, "", ""
        for attempt in ATTEMPTS:
            status, info, _ = self._run(probs, attempt)
            iterations += max(int(info.simplex_iteration_count), 0) + max(int(info.ipm_iteration_count), 0)
            status_text = self.highs.modelStatusToString(status)
            if status != highspy.HighsModelStatus.kOptimal:
                continue
            pair = self._pair(probs)
            if best is None or pair.nash_conv < best.nash_conv:
                best, best_method = pair, attempt.name
            if pair.nash_conv <= VERIFY_TOLERANCE:
                break
        if best is None:  # no attempt reached optimality (not seen: the LP is always feasible and bounded)
            nan = np.full((self.st.n, self.st.n_bets), np.nan)
            return BetGameSolution(nan, nan.copy(), np.nan, status_text, np.inf, iterations, "")
        status = "Optimal" if best.nash_conv <= VERIFY_TOLERANCE else "Unverified"
        return BetGameSolution(best.strategy, best.call, best.value, status, best.nash_conv, iterations,
                               best_method)


_local = threading.local()


def _solver(game: BetGame) -> _Solver:
    cache = getattr(_local, "solvers", None)
    if cache is None:
        cache = _local.solvers = {}
    if game not in cache:
        cache[game] = _Solver(game)
    return cache[game]


def solve(probs, game: BetGame = DEFAULT_GAME, strict: bool = True) -> BetGameSolution:
    """Solve one deal of the bet game exactly by LP (HiGHS) and verify the result.

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)``
        The joint deal: ``probs[i, j]`` is the probability that player 1 holds card ``i`` and player 2 card ``j``.
    game : BetGame, default :data:`DEFAULT_GAME`
        Deck size, ante, stack and bet grid (the paper's game by default).
    strict : bool, default True
        Raise :class:`UnverifiedSolutionError` when no attempt of :data:`ATTEMPTS` gives a pair with NashConv
        at most :data:`VERIFY_TOLERANCE`. With ``strict=False`` such a solution is returned flagged (status
        ``"Unverified"`` or HiGHS's failure status, ``verified`` false).

    Returns
    -------
    BetGameSolution
        ``strategy`` and ``call_probability`` of shape ``(n, n_bets)``, ``value`` to player 1 in chips.

    Raises
    ------
    ValueError
        If ``probs`` is not a valid deal: wrong shape, NaN, a negative entry, not summing to 1, or positive
        probability on the diagonal.
    UnverifiedSolutionError
        With ``strict=True``, if the solution cannot be verified.

    Examples
    --------
    >>> from games import betgame
    >>> from rulelearn.data.distributions import uniform_deal
    >>> sol = betgame.solve(uniform_deal(10))
    >>> round(sol.value, 12), sol.status, sol.verified
    (0.065736485736, 'Optimal', True)
    """
    p = game.check_deal(probs)
    if p.ndim != 2:
        raise ValueError(f"probs must be a single deal of shape (n, n) (use solve_many for a batch), got {p.shape}")
    sol = _solver(game).solve(np.ascontiguousarray(p))
    if strict and not sol.verified:
        raise UnverifiedSolutionError(sol)
    return sol


def solve_many(probs, game: BetGame = DEFAULT_GAME, strict: bool = True) -> list[BetGameSolution]:
    """Solve a batch of deals ``(G, n, n)`` one after another in this process (see :func:`solve`).

    Parameters
    ----------
    probs : array_like of float, shape ``(G, n, n)`` or ``(n, n)``
        The joint deals: ``probs[g, i, j]`` is the probability that player 1 holds card ``i`` and player 2
        card ``j`` in deal ``g``. A single deal ``(n, n)`` is a batch of one.
    game : BetGame, default :data:`DEFAULT_GAME`
        Deck size (``n = game.n_cards``), ante, stack and bet grid (the paper's game by default).
    strict : bool, default True
        Raise :class:`UnverifiedSolutionError` at the first deal whose solution no attempt of
        :data:`ATTEMPTS` verifies (NashConv at most :data:`VERIFY_TOLERANCE`). With ``strict=False`` such
        solutions are returned flagged (``verified`` false).

    Returns
    -------
    list of BetGameSolution, length ``G``
        In the order of the deals: ``strategy`` and ``call_probability`` of shape ``(n, n_bets)``, ``value``
        to player 1 in chips.

    Raises
    ------
    ValueError
        If any deal is invalid: wrong shape, NaN, a negative entry, not summing to 1, or positive probability
        on the diagonal.
    UnverifiedSolutionError
        With ``strict=True``, at the first deal whose solution cannot be verified.
    """
    p = game.check_deal(probs)
    if p.ndim == 2:
        p = p[None]
    solver = _solver(game)
    out = []
    for g in range(p.shape[0]):
        sol = solver.solve(np.ascontiguousarray(p[g]))
        if strict and not sol.verified:
            raise UnverifiedSolutionError(sol, g)
        out.append(sol)
    return out

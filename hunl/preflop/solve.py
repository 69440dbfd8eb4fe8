"""Solve push/fold exactly: one stack (sequence-form LP or DCFR), or a sweep over stack sizes.

Both solvers are the solver core's (:func:`games.core.solve_lp` with HiGHS, :func:`games.core.solve_cfr` with
Discounted CFR) on :class:`~hunl.preflop.game.PushFoldGame`. Every solution is certified by best responses
(:func:`games.core.exploitability`): the value is the expected payoff of the returned profile, and the interval
``[-BR_BB, BR_SB]`` of the two best-response values contains the game value; its width is NashConv. (The LP's
own objective is only as exact as HiGHS's feasibility tolerance -- on the combo game about 2e-8 bb off --
while the best-response bounds of its strategies are tight to 1e-14 bb.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from games.core import exploitability, solve_cfr, solve_lp
from games.core.compilation import compiling
from hunl.poker.cards import NUM_CLASSES, grid_average
from hunl.preflop.game import PushFoldGame, check_nonnegative, check_positive
from rulelearn.validation import check_real

__all__ = ["CHART_STACKS", "METHODS", "PushFoldSolution", "StackSweep", "solve_pushfold", "solve_stacks"]

#: Solvers of :func:`solve_pushfold`.
METHODS = ("lp", "dcfr")
#: The stacks of the charts: 1.0, 1.1, ..., 25.0 big blinds.
CHART_STACKS = np.round(np.arange(10, 251) / 10.0, 1)
_SWEEPS: dict = {}


@dataclass(frozen=True, eq=False)
class PushFoldSolution:
    """An equilibrium of push/fold at one stack.

    Attributes
    ----------
    stack, ante, small_blind : float
        The game (bb).
    hands : str
        ``"classes"`` or ``"combos"``.
    method : str
        ``"lp"`` or ``"dcfr"``.
    push : numpy.ndarray of float64, shape (H,)
        The SB's probability of pushing each hand (169 classes in grid-cell order, or 1,326 combos).
    call : numpy.ndarray of float64, shape (H,)
        The BB's probability of calling each hand.
    value : float
        The SB's expected payoff under the profile (bb per hand).
    value_bounds : tuple of (float, float)
        ``(-BR_BB, BR_SB)``: the game value lies in this interval (bb).
    exploitability : float
        NashConv / 2 of the profile (bb).
    iterations : int
        Simplex iterations (LP) or DCFR iterations.
    seconds : float
        Wall time of solving and certifying, numba's one-off compilation excluded.
    compile_seconds : float
        Wall time spent compiling numba kernels on the way (the first run on a machine; 0 once they are cached).
    """

    stack: float
    ante: float
    small_blind: float
    hands: str
    method: str
    push: np.ndarray
    call: np.ndarray
    value: float
    value_bounds: tuple
    exploitability: float
    iterations: int
    seconds: float
    compile_seconds: float = 0.0

    @property
    def exploitability_mbb(self) -> float:
        """Exploitability in milli-big-blinds per game."""
        return 1000.0 * self.exploitability

    def grid(self, player: int = 0) -> np.ndarray:
        """The push (``player=0``) or call (``player=1``) probabilities on the 13x13 hand grid, shape (13, 13)
        (rows/columns A..2, suited above the diagonal; :mod:`hunl.poker.cards`)."""
        v = self.push if player == 0 else self.call
        if v.shape == (NUM_CLASSES,):
            return v.reshape(13, 13).copy()
        return grid_average(v)


def solve_pushfold(stack, ante=0.0, method: str = "lp", hands: str = "classes", small_blind=0.5,
                   target_mbb: float = 0.01, max_iterations: int = 100_000, check_every: int = 10,
                   game: PushFoldGame | None = None) -> PushFoldSolution:
    """Solve heads-up push/fold at one stack.

    Parameters
    ----------
    stack : float
        Effective stack in big blinds (> 0).
    ante : float, default 0
        Ante per player (bb, >= 0).
    method : {"lp", "dcfr"}, default "lp"
        Sequence-form LP (exact) or Discounted CFR run until ``target_mbb``.
    hands : {"classes", "combos"}, default "classes"
        The exact 169-class reduction or the full 1,326-combo game (see :mod:`hunl.preflop.game`).
    small_blind : float, default 0.5
    target_mbb : float, default 0.01
        DCFR only: stop when the exploitability is at most this (mbb/g).
    max_iterations : int, default 100000
        DCFR only.
    check_every : int, default 10
        DCFR only: iterations between exploitability checks.
    game : PushFoldGame, optional
        A game already built with these parameters (skips the construction).

    Returns
    -------
    PushFoldSolution

    Raises
    ------
    ValueError
        Naming the parameter: ``stack <= 0``, ``ante < 0``, an unknown ``method`` or ``hands``, ...

    Examples
    --------
    >>> sol = solve_pushfold(10)
    >>> round(sol.value, 4), sol.exploitability_mbb < 1e-9
    (-0.0454, True)
    """
    stack = check_positive("stack", stack)
    ante = check_nonnegative("ante", ante)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    start = time.perf_counter()
    with compiling() as compiled:
        g = PushFoldGame(stack, ante, hands=hands, small_blind=small_blind) if game is None else game
        if method == "lp":
            sol = solve_lp(g)
            policy, iterations = sol.policy, sol.simplex_iterations
        else:
            target = check_real("target_mbb", target_mbb, 0.0, low_open=True) / 1000.0  # mbb/g -> big blinds
            res = solve_cfr(g, "dcfr", iterations=max_iterations, target=target, check_every=check_every)
            policy, iterations = res.policy, res.iterations
        ex = exploitability(g, policy)
    push, call = g.strategies(policy)
    br_sb, br_bb = ex.best_response_values
    return PushFoldSolution(g.stack, g.ante, g.small_blind, g.hands, method, push, call, float(ex.policy_values[0]),
                            (float(-br_bb), float(br_sb)), float(ex.exploitability), int(iterations),
                            time.perf_counter() - start - compiled.seconds, compiled.seconds)


@dataclass(frozen=True, eq=False)
class StackSweep:
    """Exact class-game equilibria over a grid of stacks (the charts' data).

    Attributes
    ----------
    stacks : numpy.ndarray of float64, shape (S,)
        Increasing stacks (bb).
    ante, small_blind : float
    push, call : numpy.ndarray of float64, shape (S, 169)
        Push and call probabilities per stack and hand class (grid-cell order).
    value : numpy.ndarray of float64, shape (S,)
        The SB's equilibrium value per stack (bb).
    exploitability : numpy.ndarray of float64, shape (S,)
        Certified exploitability of each LP solution (bb; below 1e-12).
    seconds : float
    """

    stacks: np.ndarray
    ante: float
    small_blind: float
    push: np.ndarray
    call: np.ndarray
    value: np.ndarray
    exploitability: np.ndarray
    seconds: float

    def index(self, stack) -> int:
        """Row of ``stack`` (to 1e-9).

        Raises
        ------
        ValueError
            If the stack is not in the sweep.
        """
        k = np.flatnonzero(np.abs(self.stacks - float(stack)) < 1e-9)
        if k.size == 0:
            raise ValueError(f"stack {stack!r} is not in this sweep ({self.stacks[0]:g}..{self.stacks[-1]:g})")
        return int(k[0])

    def band(self, lo: float, hi: float) -> np.ndarray:
        """Rows with ``lo <= stack <= hi`` (to 1e-9)."""
        return np.flatnonzero((self.stacks >= lo - 1e-9) & (self.stacks <= hi + 1e-9))


def solve_stacks(stacks=None, ante=0.0, small_blind=0.5, progress: bool = False) -> StackSweep:
    """Solve the class game by LP at every stack of a grid (cached per process).

    Parameters
    ----------
    stacks : array_like of float, optional
        Stacks in bb, > 0; default :data:`CHART_STACKS` (1.0 to 25.0 in steps of 0.1). Sorted and deduplicated.
    ante, small_blind : float
    progress : bool, default False
        A tqdm bar on stderr.

    Returns
    -------
    StackSweep

    Raises
    ------
    ValueError
        On an empty grid, a stack <= 0 or a negative ante.
    """
    s = CHART_STACKS if stacks is None else np.unique(np.round(np.asarray(stacks, dtype=np.float64), 9))
    if s.ndim != 1 or s.size == 0:
        raise ValueError("stacks must be a non-empty 1-D sequence of stack sizes")
    for x in s:
        check_positive("stack", x)
    ante = check_nonnegative("ante", ante)
    key = (s.tobytes(), ante, float(small_blind))
    if key in _SWEEPS:
        return _SWEEPS[key]
    start = time.perf_counter()
    push = np.empty((s.size, NUM_CLASSES))
    call = np.empty((s.size, NUM_CLASSES))
    value = np.empty(s.size)
    expl = np.empty(s.size)
    it = range(s.size)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc="push/fold LPs", unit="stack", dynamic_ncols=True)
    for k in it:
        sol = solve_pushfold(s[k], ante, small_blind=small_blind)
        push[k], call[k], value[k], expl[k] = sol.push, sol.call, sol.value, sol.exploitability
    for arr in (s, push, call, value, expl):
        arr.setflags(write=False)
    out = StackSweep(s, ante, float(small_blind), push, call, value, expl, time.perf_counter() - start)
    _SWEEPS[key] = out
    return out

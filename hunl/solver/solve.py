"""Solve a HUNL endgame with the CFR family of the solver core and report it in poker units.

:func:`solve_endgame` runs Discounted CFR (Brown & Sandholm 2019; Bertsimas & Paskov 2022, Section 2.3) or CFR+
(Tammelin 2014; Bowling et al. 2015) -- :func:`games.core.solve_cfr` on a :class:`hunl.solver.game.HoldemEndgame` -- and
returns an :class:`EndgameSolution` with the exploitability in chips, percent of the pot, big blinds per hand and
milli-big-blinds per game (mbb/g; Bowling et al. 2015), after checking the memory estimate first.

Exploitability here is NashConv / 2: the mean over the two players of what a best response gains against the
strategy (OpenSpiel's and the Libratus-endgame literature's convention).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass

import numpy as np

from games.core.cfr import CFRResult, solve_cfr
from hunl.solver.game import HoldemEndgame
from hunl.solver.settings import SolverSettings

__all__ = ["EndgameSolution", "available_memory_mb", "endgame_solution", "peak_memory_mb", "solve_endgame"]


def peak_memory_mb() -> float:
    """Peak resident memory of this process so far, in MiB (``getrusage``; Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def available_memory_mb() -> float:
    """Physical memory of the machine in MiB (``sysconf``), or ``inf`` where unknown."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return float("inf")


@dataclass(frozen=True)
class EndgameSolution:
    """A solved endgame.

    Attributes
    ----------
    game : HoldemEndgame
        The endgame.
    result : CFRResult
        The solver's output (average policy, logs).
    algorithm : str
        ``"dcfr"`` or ``"cfr+"`` (or a custom config's name).
    exploitability_chips : float
        NashConv / 2 of the average policy, chips.
    exploitability_pct_pot : float
        The same in percent of the pot at the start of the endgame.
    exploitability_bb : float
        The same in big blinds per hand.
    exploitability_mbb : float
        The same in milli-big-blinds per game (mbb/g).
    value_chips : float
        Player 1's (out of position) expected payoff under the policy, chips, counting the chips both players
        put in before the endgame (see :mod:`hunl.solver.tree`).
    iterations : int
    seconds : float
        Wall time of the solve (exploitability checks included, numba's one-off compilation excluded), seconds.
    compile_seconds : float
        Wall time spent compiling the solver's kernels (the first run on a machine) or loading them from numba's
        cache before the solve, seconds.
    peak_memory_mb : float
        Peak resident memory of the process after the solve, MiB.
    memory_estimate_mb : float
        The estimate made before solving, MiB.
    spot : hunl.solver.spot.Spot or None
        The spot the endgame was built from, when known (a solution loaded from an archive,
        :func:`hunl.solver.archive.load_solution`).
    """

    game: HoldemEndgame
    result: CFRResult
    algorithm: str
    exploitability_chips: float
    exploitability_pct_pot: float
    exploitability_bb: float
    exploitability_mbb: float
    value_chips: float
    iterations: int
    seconds: float
    compile_seconds: float
    peak_memory_mb: float
    memory_estimate_mb: float
    spot: object = None

    def summary(self) -> dict:
        """JSON-ready figures: exploitability (chips, % of pot, bb/hand, mbb/g), pot, rake (``{"rate", "cap"}``,
        cap ``None`` without a cap), iterations, seconds, memory and the convergence log."""
        g = self.game
        return {
            "street": g.config.street,
            "board": _board_text(g),
            "pot": g.pot,
            "stack": g.config.stack,
            "hands": list(g.num_hands),
            "nodes": int(g.tree.n_nodes),
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
            "compile_seconds": round(self.compile_seconds, 3),
            "exploitability_chips": self.exploitability_chips,
            "exploitability_pct_pot": self.exploitability_pct_pot,
            "exploitability_bb_per_hand": self.exploitability_bb,
            "exploitability_mbb_per_game": self.exploitability_mbb,
            "value_chips": self.value_chips,
            "rake": {"rate": g.rake_rate, "cap": None if np.isinf(g.rake_cap) else g.rake_cap},
            "peak_memory_mb": round(self.peak_memory_mb, 1),
            "memory_estimate_mb": round(self.memory_estimate_mb, 1),
            "log": {
                "iterations": self.result.log_iterations.tolist(),
                "exploitability_pct_pot": (100.0 * self.result.log_exploitability / g.pot).tolist(),
                "seconds": self.result.log_seconds.round(3).tolist(),
            },
        }

    def node_strategy(self, node) -> np.ndarray:
        """``(1326, n_actions)`` action probabilities of every combo at a decision node (NaN rows for combos
        outside the acting player's range)."""
        return self.game.combo_policy(self.result.policy, node)

    def node_report(self, node, equity: bool = True):
        """Per hand of the acting player at a decision node: strategy, EV of each action, EV and equity, with the
        range-wide EV and equity (:func:`hunl.solver.report.node_report`; definitions in :mod:`hunl.solver.report`).

        Returns
        -------
        hunl.solver.report.NodeReport

        Raises
        ------
        ValueError
            If ``node`` is not a decision node.
        """
        from hunl.solver.report import node_report

        return node_report(self, node, equity=equity)


def _board_text(game: HoldemEndgame) -> str:
    from hunl.poker.cards import format_card

    return "".join(format_card(c) for c in game.board)


def solve_endgame(game: HoldemEndgame, algorithm: str | SolverSettings = "dcfr", iterations: int = 1000,
                  target_pct_pot: float | None = None, check_every: int | None = None, progress: bool = False,
                  max_memory_mb: float | None = None, locks=None, resume=None) -> EndgameSolution:
    """Solve an endgame with DCFR or CFR+ until ``iterations`` or an exploitability target.

    Parameters
    ----------
    game : HoldemEndgame
    algorithm : {"dcfr", "dcfr-reset", "pcfr+", "cfr+", "cfr"} or SolverSettings, default "dcfr"
        The algorithm, or all the settings at once (then ``iterations``, ``target_pct_pot`` and ``check_every``
        are ignored; threads and 16-bit compression come from the settings); see
        :class:`~hunl.solver.settings.SolverSettings`. The solution's ``seconds`` excludes numba's one-off
        compilation, reported as ``compile_seconds``.
    iterations : int, default 1000
        Maximum number of iterations.
    target_pct_pot : float, optional
        Stop once the exploitability is at most this percentage of the pot (e.g. 0.1).
    check_every : int, optional
        Measure exploitability every this many iterations (default: about 20 checks over the run, at least every
        10 iterations; each check costs about one and a half iterations).
    progress : bool, default False
        Show a progress bar (rate, ETA, exploitability).
    max_memory_mb : float, optional
        Refuse to start when :meth:`HoldemEndgame.memory_estimate` exceeds this (default: 90% of the machine's
        physical memory).
    locks : mapping or NodeLocks, optional
        Node locks (:mod:`games.core.locks`): ``{node id or action history: probs}``, ``probs`` of shape
        ``(n_actions, hands of the acting player)`` with NaN columns for free hands, or ``(probs, hands)``;
        :func:`hunl.solver.archive.combo_locks` builds them from combos and hand classes. The exploitability is
        then the restricted game's.
    resume : SolverState, optional
        Continue a saved solve (:func:`hunl.solver.archive.load_archive`) up to the settings' ``max_iterations``
        or target (:func:`games.core.solve_cfr`); the algorithm must be the saved one.

    Returns
    -------
    EndgameSolution

    Raises
    ------
    ValueError
        Unknown algorithm, ``iterations < 1``, a negative target, a memory estimate above the limit, invalid
        locks, or a ``resume`` state of another game or algorithm.
    """
    if isinstance(algorithm, SolverSettings):
        settings = algorithm
    else:
        settings = SolverSettings(algorithm, iterations, target_pct_pot, check_every)
    estimate = game.memory_estimate(compressed=settings.compressed, threads=settings.threads) / 2**20
    limit = 0.9 * available_memory_mb() if max_memory_mb is None else float(max_memory_mb)
    if estimate > limit:
        raise ValueError(f"solving needs about {estimate:,.0f} MiB, above the limit of {limit:,.0f} MiB; use a "
                         "smaller bet abstraction, a lower raise_cap or fewer hands")
    target_pct_pot = settings.target_pct_pot
    target = None if target_pct_pot is None else target_pct_pot / 100.0 * game.pot
    result = solve_cfr(game, settings.algorithm, iterations=settings.max_iterations, target=target,
                       check_every=settings.check_every_for_run(), progress=progress, threads=settings.threads,
                       compressed=settings.compressed, locks=locks, resume=resume)
    return endgame_solution(game, result, estimate)


def endgame_solution(game: HoldemEndgame, result: CFRResult, memory_estimate_mb: float = float("nan"),
                     spot=None) -> EndgameSolution:
    """The :class:`EndgameSolution` of a :class:`~games.core.cfr.CFRResult` on ``game`` (the poker units of its
    exploitability; peak memory read now).

    Parameters
    ----------
    game : HoldemEndgame
        The endgame solved (its pot and big blind convert the exploitability, chips, to the other units).
    result : games.core.cfr.CFRResult
        The solver's output on ``game``.
    memory_estimate_mb : float, default nan
        The memory estimate made before solving, MiB (NaN when none was made).
    spot : hunl.solver.spot.Spot, optional
        The spot the endgame was built from, stored as the solution's ``spot``.

    Returns
    -------
    EndgameSolution
        Exploitability (NashConv / 2) in chips, % of the pot, big blinds per hand and mbb/g; ``algorithm``
        the config's name; ``peak_memory_mb`` the process's peak resident memory so far (MiB).
    """
    ex = result.exploitability.exploitability
    return EndgameSolution(
        game=game,
        result=result,
        algorithm=result.config.name,
        exploitability_chips=float(ex),
        exploitability_pct_pot=float(100.0 * ex / game.pot),
        exploitability_bb=float(ex / game.big_blind),
        exploitability_mbb=float(1000.0 * ex / game.big_blind),
        value_chips=float(result.value),
        iterations=int(result.iterations),
        seconds=float(result.seconds),
        peak_memory_mb=peak_memory_mb(),
        memory_estimate_mb=float(memory_estimate_mb),
        compile_seconds=float(result.compile_seconds),
        spot=spot,
    )

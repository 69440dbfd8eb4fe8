"""Solve a named game of the core with the sequence-form LP or a CFR variant, and report it in one record
(``scripts/solve_game.py``)."""

from __future__ import annotations

import math
import time

import numpy as np

from games.core import load_game
from games.core.best_response import exploitability
from games.core.cfr import solve_cfr
from games.core.sequence_lp import solve_lp
from rulelearn.validation import check_output_file

__all__ = ["METHODS", "finite", "format_run", "solve_game"]

#: Methods of :func:`solve_game`.
METHODS = ("lp", "cfr", "cfr+", "dcfr")


def solve_game(name: str, method: str, iterations: int = 100_000, target: float | None = None,
               check_every: int = 1, progress: bool = False, plot: str | None = None, **overrides) -> dict:
    """Solve the game ``name`` (:data:`games.core.GAMES`) with ``method`` (:data:`METHODS`).

    Parameters
    ----------
    name, method : str
    iterations, target, check_every, progress
        Of :func:`games.core.solve_cfr` (CFR methods only; ``target`` is an exploitability, NashConv / 2, in
        chips).
    plot : str, optional
        PNG file for exploitability against iterations and seconds (CFR methods only).
    **overrides
        ``alpha``, ``beta``, ``gamma`` of the CFR variant (``None`` values are ignored).

    Returns
    -------
    dict
        ``game``, ``method``, ``value`` (to player 1), ``exploitability`` (NashConv / 2), ``nash_conv``,
        ``best_response_values``, ``exploitability_fraction_of_pot``, ``units`` (``"chips"``), ``iterations``,
        ``seconds`` (the solve, numba's one-off compilation excluded), ``compile_seconds`` (compiling or loading the
        CFR kernels before the run; 0 for the LP, which compiles nothing) and the method's extras (simplex
        iterations and sequences; convergence and the variant's parameters).

    Raises
    ------
    ValueError
        On an unknown game or method, ``plot`` with the LP, or a ``plot`` file that cannot be written (its
        directory missing or read-only; checked before solving).
    """
    method = str(method).strip().lower()
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if plot and method == "lp":
        raise ValueError("--plot needs an iterative method (cfr, cfr+, dcfr)")
    if plot:
        check_output_file("--plot", plot)
    game = load_game(name)
    if method == "lp":
        start = time.perf_counter()
        sol = solve_lp(game)
        seconds = time.perf_counter() - start
        expl = exploitability(game, sol.policy)
        value, iters, compile_seconds = sol.value, sol.simplex_iterations, 0.0
        extra = {"simplex_iterations": sol.simplex_iterations, "num_sequences": list(sol.num_sequences)}
    else:
        params = {k: v for k, v in overrides.items() if v is not None}
        res = solve_cfr(game, method, iterations=iterations, target=target, check_every=check_every,
                        progress=progress, **params)
        expl, value, iters, seconds = res.exploitability, res.value, res.iterations, res.seconds
        compile_seconds = res.compile_seconds
        extra = {"converged": res.converged, "target": res.target,
                 "alpha": res.config.alpha, "beta": res.config.beta, "gamma": res.config.gamma}
        if plot:
            from rulelearn.report.plots import plot_convergence

            plot_convergence(res.log_iterations, res.log_seconds, res.log_exploitability, plot,
                             title=f"{res.config.name} on {game.name}")
    return {"game": game.name, "method": method, "value": value, "exploitability": expl.exploitability,
            "nash_conv": expl.nash_conv, "best_response_values": list(expl.best_response_values),
            "exploitability_fraction_of_pot": expl.exploitability_fraction_of_pot, "units": "chips",
            "iterations": int(iters), "seconds": seconds, "compile_seconds": compile_seconds, **extra}


def format_run(run: dict, plot: str | None = None) -> str:
    """The record of :func:`solve_game` as a few aligned lines.

    Parameters
    ----------
    run : dict
        A record of :func:`solve_game`; read are ``game``, ``method``, ``value``, ``exploitability``,
        ``exploitability_fraction_of_pot``, ``nash_conv``, ``iterations``, ``seconds`` and, for a CFR method,
        ``compile_seconds``.
    plot : str, optional
        The convergence plot's file, printed on a last line when given.

    Returns
    -------
    str
        Lines without a final newline: the game and method, the value to player 1 (chips), the exploitability
        (NashConv / 2, chips, and as a fraction of the pot), NashConv (chips), the iterations (simplex
        iterations for the LP), the solve's seconds, the kernels' compile seconds (CFR methods only) and the
        plot.

    Raises
    ------
    KeyError
        If ``run`` lacks one of the keys read.
    """
    label = "simplex iterations" if run["method"] == "lp" else "iterations"
    lines = [f"{run['game']} / {run['method']}",
             f"  value (player 1)     {run['value']:+.12f} chips",
             f"  exploitability       {run['exploitability']:.6g} chips (NashConv/2; "
             f"{run['exploitability_fraction_of_pot']:.3g} of the pot)",
             f"  NashConv             {run['nash_conv']:.6g} chips",
             f"  {label:<20} {run['iterations']}",
             f"  seconds              {run['seconds']:.4f}"]
    if run["method"] != "lp":
        lines.append(f"  compile seconds      {run['compile_seconds']:.4f} (numba kernels, compiled once and cached; "
                     "not in seconds)")
    if plot:
        lines.append(f"  plot                 {plot}")
    return "\n".join(lines)


def finite(obj):
    """``obj`` as JSON can hold it: non-finite floats replaced by ``None`` (JSON has no NaN or infinity), NumPy
    scalars and arrays as Python numbers and lists, tuples as lists, recursively.

    Parameters
    ----------
    obj : object
        A JSON-like record: dicts, lists, tuples, NumPy arrays and scalars, numbers, strings, ``None``.

    Returns
    -------
    object
        ``None`` for a non-finite float (Python or NumPy); a Python ``float``/``int``/``bool`` for a NumPy
        scalar; a new ``dict`` (values converted) or ``list`` (items converted) for a dict, list, tuple or
        array; otherwise ``obj`` itself.
    """
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [finite(v) for v in obj]
    return obj

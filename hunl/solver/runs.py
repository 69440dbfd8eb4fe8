"""Solve a spot file and write its outputs (``scripts/solve_spot.py``): load, override, solve, write, summarise."""

from __future__ import annotations

import sys
from pathlib import Path

from hunl.solver.output import write_outputs
from hunl.solver.solve import solve_endgame
from hunl.solver.spot_files import load_spot
from rulelearn.validation import check_output_dir

__all__ = ["OPTION_OF_FIELD", "format_solution", "solve_spot_file", "solution_record"]

#: The command-line option that overrides each spot field (error messages name the option).
OPTION_OF_FIELD = {"solver.max_iterations": "--iterations", "solver.target_pct_pot": "--target-pct-pot",
                   "solver.check_every": "--check-every", "bet_sizes.raise_cap": "--raise-cap"}


def solve_spot_file(spot, overrides: dict | None = None, out=None, dtype: str = "float32", full_json: bool = False,
                    plot: bool = True, quiet: bool = False):
    """Load a spot, apply ``overrides``, solve it and write its outputs.

    Parameters
    ----------
    spot : str or os.PathLike
        A spot file (TOML, JSON), a Libratus endgame file or ``subgame1`` .. ``subgame4``
        (:func:`hunl.solver.spot_files.load_spot`).
    overrides : dict, optional
        Spot fields or solver settings (``max_iterations``, ``raise_cap``, ...); ``None`` values are ignored.
    out : str or os.PathLike, optional
        Output directory (default ``data/spots/<spot name>/``).
    dtype : {"float32", "float64"}
    full_json, plot : bool
        See :func:`hunl.solver.output.write_outputs`.
    quiet : bool
        No progress bar and no messages on stderr.

    Returns
    -------
    spot : Spot
    solution : EndgameSolution
    files : OutputFiles

    Raises
    ------
    ValueError, TypeError, FileNotFoundError
        On a bad spot or override; an override's error names its command-line option (:data:`OPTION_OF_FIELD`);
        an output directory that cannot be written (``--out``: a file, or read-only), checked before solving.
    """
    def say(msg: str) -> None:
        if not quiet:
            print(msg, file=sys.stderr, flush=True)

    spot = load_spot(spot)
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        spot = spot.replace(**changes)
    except ValueError as exc:  # name the option, not the spot field it overrides
        msg = str(exc)
        for field, option in OPTION_OF_FIELD.items():
            msg = msg.replace(field, option)
        raise ValueError(msg) from None
    out_dir = check_output_dir("--out", out if out else Path("data") / "spots" / spot.name)
    say(f"spot {spot.describe()}")
    for key, removed, text in zip(("oop", "ip"), spot.board_removed, spot.range_text):
        if removed:
            say(f"  ranges.{key}: {removed} combo(s) of {text!r} hold a board card and are not dealt")
    game = spot.game(dtype=dtype)
    say(f"game {game.describe()}")
    solution = solve_endgame(game, spot.solver, progress=not quiet)
    files = write_outputs(solution, out_dir, spot=spot, full_json=full_json, plot=plot)
    return spot, solution, files


def solution_record(spot, solution, files) -> dict:
    """One JSON-ready record of a solved spot: its name and source, the solution's summary, the files."""
    return {"spot": spot.name, "source": spot.source, **solution.summary(),
            "converged": bool(solution.result.converged), "files": files.as_dict()}


def format_solution(spot, solution, files) -> str:
    """A solved spot in a few lines: the spot, the run, the exploitability in three units, the files."""
    s = solution.summary()
    lines = [f"{spot.name}: {s['street']} {s['board']}, pot {s['pot']:g}, stack {s['stack']:g}, "
             f"hands {s['hands'][0]} x {s['hands'][1]}, {s['nodes']} nodes",
             f"  {s['algorithm']}: {s['iterations']} iterations in {s['seconds']:.2f} s (kernels compiled or loaded "
             f"in {s['compile_seconds']:.2f} s before), "
             f"peak memory {s['peak_memory_mb']:.0f} MiB",
             f"  exploitability {s['exploitability_chips']:.4g} chips = {s['exploitability_pct_pot']:.4g}% of the "
             f"pot = {s['exploitability_mbb_per_game']:.4g} mbb/g",
             f"  value to oop {s['value_chips']:+.2f} chips"]
    lines += [f"  wrote {path}" for key, path in files.as_dict().items() if key != "directory" and path is not None]
    return "\n".join(lines)

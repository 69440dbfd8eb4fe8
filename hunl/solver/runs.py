"""Solve a spot file and write its outputs (``scripts/solve_spot.py``): load, override, solve, write, summarise."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from hunl.solver.archive import load_solution, read_locks_file, resume_solution, save_solution
from hunl.solver.output import write_outputs
from hunl.solver.solve import solve_endgame
from hunl.solver.spot_files import load_spot
from rulelearn.validation import check_output_dir

__all__ = ["OPTION_OF_FIELD", "format_solution", "open_archive", "resume_archive", "solve_spot_file",
           "solution_record"]

#: The command-line option that overrides each spot field (error messages name the option).
OPTION_OF_FIELD = {"solver.max_iterations": "--iterations", "solver.target_pct_pot": "--target-pct-pot",
                   "solver.check_every": "--check-every", "bet_sizes.raise_cap": "--raise-cap"}


def _say(quiet: bool):
    def say(msg: str) -> None:
        if not quiet:
            print(msg, file=sys.stderr, flush=True)
    return say


def _option_error(exc: ValueError) -> ValueError:
    """The error of an override with the spot field replaced by its command-line option."""
    msg = str(exc)
    for field, option in OPTION_OF_FIELD.items():
        msg = msg.replace(field, option)
    return ValueError(msg)


def _check_archive_path(save) -> Path:
    path = Path(save)
    if path.is_dir():
        raise ValueError(f"--save: {path} is a directory; give the archive's file name (e.g. spot.npz)")
    return path


def solve_spot_file(spot, overrides: dict | None = None, out=None, dtype: str = "float32", full_json: bool = False,
                    plot: bool = True, quiet: bool = False, save=None, locks=None):
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
    save : str or os.PathLike, optional
        Also write the solver state and the spot to this archive (:func:`hunl.solver.archive.save_solution`).
    locks : str or os.PathLike, optional
        A node-locks file (:func:`hunl.solver.archive.read_locks_file`); the locks are saved with ``save``.

    Returns
    -------
    spot : Spot
    solution : EndgameSolution
        With ``spot`` set.
    files : OutputFiles

    Raises
    ------
    ValueError, TypeError, FileNotFoundError
        On a bad spot or override; an override's error names its command-line option (:data:`OPTION_OF_FIELD`);
        an output directory that cannot be written (``--out``: a file, or read-only), checked before solving.
    """
    say = _say(quiet)
    spot = load_spot(spot)
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        spot = spot.replace(**changes)
    except ValueError as exc:  # name the option, not the spot field it overrides
        raise _option_error(exc) from None
    save = None if save is None else _check_archive_path(save)
    out_dir = _out_dir(out, spot)
    say(f"spot {spot.describe()}")
    for key, removed, text in zip(("oop", "ip"), spot.board_removed, spot.range_text):
        if removed:
            say(f"  ranges.{key}: {removed} combo(s) of {text!r} hold a board card and are not dealt")
    game = spot.game(dtype=dtype)
    say(f"game {game.describe()}")
    node_locks = None if locks is None else read_locks_file(game, locks)
    if node_locks:
        say(f"locks: {len(node_locks)} node(s) from {locks}")
    solution = dataclasses.replace(solve_endgame(game, spot.solver, progress=not quiet, locks=node_locks),
                                   spot=spot)
    files = write_outputs(solution, out_dir, spot=spot, full_json=full_json, plot=plot)
    if save is not None:
        say(f"saved {save_solution(solution, save, spot=spot)}")
    return spot, solution, files


def resume_archive(archive, overrides: dict | None = None, out=None, full_json: bool = False, plot: bool = True,
                   quiet: bool = False, save=None):
    """Continue a saved solve (:func:`hunl.solver.archive.resume_solution`), write its outputs and save it again.

    Parameters
    ----------
    archive : str or os.PathLike
        An archive written by ``--save`` (:func:`hunl.solver.archive.save_solution`).
    overrides : dict, optional
        ``max_iterations`` (the total, saved iterations included), ``target_pct_pot``, ``check_every``,
        ``threads``; ``None`` values are ignored. The algorithm, bet abstraction and dtype are the saved ones.
    out, full_json, plot, quiet
        As :func:`solve_spot_file`.
    save : str or os.PathLike, optional
        Where to save the continued solve (default: over ``archive``).

    Returns
    -------
    spot, solution, files
        As :func:`solve_spot_file`.

    Raises
    ------
    ValueError, FileNotFoundError
        An unreadable or mismatched archive (naming it), an override that would change the saved game or
        algorithm, a bad output directory.
    """
    say = _say(quiet)
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    fixed = sorted(set(changes) - {"max_iterations", "target_pct_pot", "check_every", "threads"})
    if fixed:
        raise ValueError(f"--resume continues the saved game and algorithm; {', '.join(fixed)} cannot change")
    save = _check_archive_path(archive if save is None else save)
    try:
        solution = resume_solution(archive, progress=not quiet, **changes)
    except ValueError as exc:
        raise _option_error(exc) from None
    spot = solution.spot
    out_dir = _out_dir(out, spot)
    files = write_outputs(solution, out_dir, spot=spot, full_json=full_json, plot=plot)
    say(f"saved {save_solution(solution, save, spot=spot)}")
    return spot, solution, files


def _out_dir(out, spot) -> Path:
    """``--out``, or ``data/spots/<spot name>/``, checked writable."""
    return check_output_dir("--out", out if out else Path("data") / "spots" / spot.name)


def open_archive(archive, out=None, full_json: bool = False, plot: bool = True, quiet: bool = False):
    """Re-open a saved solve without solving (:func:`hunl.solver.archive.load_solution`) and write its outputs.

    Parameters
    ----------
    archive : str or os.PathLike
        An archive written by ``--save`` (:func:`hunl.solver.archive.save_solution`).
    out : str or os.PathLike, optional
        Output directory (default ``data/spots/<spot name>/``), checked writable before anything is written.
    full_json, plot : bool
        See :func:`hunl.solver.output.write_outputs`.
    quiet : bool, default False
        No message on stderr.

    Returns
    -------
    spot : hunl.solver.spot.Spot
        The saved spot.
    solution : hunl.solver.solve.EndgameSolution
        The restored solution (exploitability recomputed), with ``spot`` set.
    files : hunl.solver.output.SpotOutputs
        The files written.

    Raises
    ------
    ValueError, FileNotFoundError
        An unreadable or mismatched archive (naming it), a bad output directory.
    """
    solution = load_solution(archive)
    spot = solution.spot
    _say(quiet)(f"loaded {archive}: {spot.describe()}")
    out_dir = _out_dir(out, spot)
    files = write_outputs(solution, out_dir, spot=spot, full_json=full_json, plot=plot)
    return spot, solution, files


def solution_record(spot, solution, files) -> dict:
    """One JSON-ready record of a solved spot: its name and source, the solution's summary, the files.

    Parameters
    ----------
    spot : hunl.solver.spot.Spot
        The spot solved.
    solution : hunl.solver.solve.EndgameSolution
        Its solution.
    files : hunl.solver.output.SpotOutputs
        The files written for it (:func:`hunl.solver.output.write_outputs`).

    Returns
    -------
    dict
        ``spot`` (the spot's name) and ``source`` (the file or Libratus endgame it was read from, or
        ``None``), every entry of :meth:`hunl.solver.solve.EndgameSolution.summary` (exploitability in chips,
        % of the pot, bb/hand and mbb/g, value in chips, iterations, seconds, memory in MiB, the convergence
        log, ...), ``converged`` (bool: the solve reached its target) and ``files`` (path strings by kind,
        ``None`` for a file not written). Floats may be NaN or infinite (``scripts/solve_spot.py`` passes the
        record through :func:`games.core.runs.finite` before :func:`json.dumps`).
    """
    return {"spot": spot.name, "source": spot.source, **solution.summary(),
            "converged": bool(solution.result.converged), "files": files.as_dict()}


def format_solution(spot, solution, files) -> str:
    """A solved spot in a few lines: the spot, the run, the exploitability in three units, the files.

    Parameters
    ----------
    spot : hunl.solver.spot.Spot
        The spot solved.
    solution : hunl.solver.solve.EndgameSolution
        Its solution.
    files : hunl.solver.output.SpotOutputs
        The files written for it (:func:`hunl.solver.output.write_outputs`).

    Returns
    -------
    str
        Lines without a trailing newline: the spot (name, street, board, pot and stack in chips, range sizes,
        tree nodes); the algorithm, iterations, seconds (solve, and the kernels' compilation before it) and
        peak memory (MiB); the exploitability in chips, % of the pot and mbb/g; the value to the
        out-of-position player in chips; then one ``wrote <path>`` line per file written.
    """
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

#!/usr/bin/env python
"""Solve a HUNL turn or river endgame from a spot file and write its strategy, summary and hand-grid heatmap.

Usage::

    python scripts/solve_spot.py SPOT [--algorithm {dcfr,cfr+}] [--iterations N] [--target-pct-pot X]
                                 [--check-every K] [--raise-cap R] [--dtype {float32,float64}] [--out DIR]
                                 [--full-json] [--no-plot] [--json] [--quiet]

SPOT is a ``.toml`` or ``.json`` spot file (schema: :mod:`hunl.solver.spot_files`, ``examples/spots/README.md``), a
Libratus endgame file, or one of ``subgame1`` .. ``subgame4``. Options override the spot's ``[solver]``
section. Writes ``strategy.parquet``, ``strategy.json`` (turn endgames: turn-street nodes only unless
``--full-json``), ``summary.json`` and ``first_decision.png`` to ``--out`` (default
``data/spots/<spot name>/``); see :mod:`hunl.solver.output`. Progress goes to stderr; ``--json`` prints exactly one
JSON object on stdout.

Examples::

    python scripts/solve_spot.py examples/spots/river_small.toml
    python scripts/solve_spot.py subgame3 --target-pct-pot 0.1 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

_OPTION_OF_FIELD = {"solver.max_iterations": "--iterations", "solver.target_pct_pot": "--target-pct-pot",
                    "solver.check_every": "--check-every", "bet_sizes.raise_cap": "--raise-cap"}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="solve_spot.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("spot", help="spot file (.toml, .json), Libratus endgame file, or subgame1..subgame4")
    ap.add_argument("--algorithm", choices=("dcfr", "cfr+"), default=None,
                    help="solver (default: the spot's solver.algorithm, else dcfr)")
    ap.add_argument("--iterations", type=int, default=None,
                    help="maximum iterations (default: the spot's solver.max_iterations, else 1000)")
    ap.add_argument("--target-pct-pot", type=float, default=None,
                    help="stop at this exploitability, percent of the pot (default: the spot's)")
    ap.add_argument("--check-every", type=int, default=None,
                    help="measure exploitability every K iterations (default: the spot's, else automatic)")
    ap.add_argument("--raise-cap", type=int, default=None, help="raises per street after the first bet")
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                    help="precision of the solver's arrays (default float32)")
    ap.add_argument("--out", default=None, help="output directory (default data/spots/<spot name>/)")
    ap.add_argument("--full-json", action="store_true",
                    help="turn endgames: write every node to strategy.json, not only the turn-street ones")
    ap.add_argument("--no-plot", action="store_true", help="do not draw first_decision.png")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    ap.add_argument("--quiet", action="store_true", help="no progress bar or messages on stderr")
    return ap


def _finite(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    from hunl.solver.output import write_outputs
    from hunl.solver.solve import solve_endgame
    from hunl.solver.spot_files import load_spot

    def say(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr, flush=True)

    try:
        spot = load_spot(args.spot)
        options = {"algorithm": args.algorithm, "max_iterations": args.iterations,
                   "target_pct_pot": args.target_pct_pot, "check_every": args.check_every,
                   "raise_cap": args.raise_cap}
        changes = {k: v for k, v in options.items() if v is not None}
        try:
            spot = spot.replace(**changes)
        except ValueError as exc:                 # name the option, not the spot field it overrides
            msg = str(exc)
            for field, option in _OPTION_OF_FIELD.items():
                msg = msg.replace(field, option)
            raise ValueError(msg) from None
        say(f"spot {spot.describe()}")
        for key, removed, text in zip(("oop", "ip"), spot.board_removed, spot.range_text):
            if removed:
                say(f"  ranges.{key}: {removed} combo(s) of {text!r} hold a board card and are not dealt")
        game = spot.game(dtype=args.dtype)
        say(f"game {game.describe()}")
        solution = solve_endgame(game, spot.solver, progress=not args.quiet)
        out_dir = Path(args.out) if args.out else Path("data") / "spots" / spot.name
        files = write_outputs(solution, out_dir, spot=spot, full_json=args.full_json, plot=not args.no_plot)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    summary = solution.summary()
    if args.json:
        out = {"spot": spot.name, "source": spot.source, **summary,
               "converged": bool(solution.result.converged), "files": files.as_dict()}
        print(json.dumps(_finite(out)))
    else:
        print(f"{spot.name}: {summary['street']} {summary['board']}, pot {summary['pot']:g}, "
              f"stack {summary['stack']:g}, hands {summary['hands'][0]} x {summary['hands'][1]}, "
              f"{summary['nodes']} nodes")
        print(f"  {summary['algorithm']}: {summary['iterations']} iterations in {summary['seconds']:.2f} s, "
              f"peak memory {summary['peak_memory_mb']:.0f} MiB")
        print(f"  exploitability {summary['exploitability_chips']:.4g} chips = "
              f"{summary['exploitability_pct_pot']:.4g}% of the pot = "
              f"{summary['exploitability_mbb_per_game']:.4g} mbb/g")
        print(f"  value to oop {summary['value_chips']:+.2f} chips")
        for key, path in files.as_dict().items():
            if key != "directory" and path is not None:
                print(f"  wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

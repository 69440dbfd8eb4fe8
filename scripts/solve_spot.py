#!/usr/bin/env python
"""Solve a HUNL turn or river endgame from a spot file and write its strategy, summary and hand-grid heatmap.

Usage::

    python scripts/solve_spot.py SPOT [--algorithm {dcfr,cfr+}] [--iterations N] [--target-pct-pot X]
                                 [--check-every K] [--raise-cap R] [--dtype {float32,float64}] [--out DIR]
                                 [--save FILE] [--locks FILE] [--full-json] [--no-plot] [--json] [--quiet]
    python scripts/solve_spot.py --resume FILE [--iterations N] [--target-pct-pot X] [--check-every K]
                                 [--save FILE2] [--out DIR] ...
    python scripts/solve_spot.py --load FILE [--out DIR] ...
    python scripts/solve_spot.py SPOT --print-tree [--max-depth D] [--raise-cap R]

SPOT is a ``.toml`` or ``.json`` spot file (schema: :mod:`hunl.solver.spot_files`, ``examples/spots/README.md``), a
Libratus endgame file, or one of ``subgame1`` .. ``subgame4``. Options override the spot's ``[solver]``
section. Writes ``strategy.parquet``, ``strategy.json`` (flop and turn endgames: the starting street's nodes only unless
``--full-json``), ``summary.json`` and ``first_decision.png`` to ``--out`` (default
``data/spots/<spot name>/``); see :mod:`hunl.solver.output`. Progress goes to stderr; ``--json`` prints exactly one
JSON object on stdout. ``--print-tree`` prints the betting tree instead of solving: its size (nodes, decisions,
terminals, chance nodes) and the betting lines of the first street with chip amounts
(:func:`hunl.solver.tree.describe_tree`).

``--save FILE`` also writes the solver state and the spot to one ``.npz`` archive (:mod:`hunl.solver.archive`);
``--resume FILE`` continues that solve with the saved algorithm and schedule up to ``--iterations`` (the total,
saved iterations included) or ``--target-pct-pot``, writes the outputs and saves the archive again (over FILE
unless ``--save`` names another); ``--load FILE`` writes the outputs of a saved solve without solving.
``--locks FILE`` (JSON or TOML: one table per node's action history, hands -> one probability per action;
:func:`hunl.solver.archive.read_locks_file`) fixes those hands' strategies and solves the rest (node locking).

Examples::

    python scripts/solve_spot.py examples/spots/river_small.toml
    python scripts/solve_spot.py subgame3 --target-pct-pot 0.1 --json
    python scripts/solve_spot.py examples/spots/turn_syntax.toml --print-tree --max-depth 4
    python scripts/solve_spot.py examples/spots/river_small.toml --iterations 200 --save river.npz
    python scripts/solve_spot.py --resume river.npz --iterations 1000
    python scripts/solve_spot.py --load river.npz --out data/spots/river_again

The work is :func:`hunl.solver.runs.solve_spot_file`.
"""

from __future__ import annotations

import argparse
import json
import sys

from games.core.runs import finite
from hunl.solver.runs import format_solution, open_archive, resume_archive, solution_record, solve_spot_file


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="solve_spot.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("spot", nargs="?", default=None,
                    help="spot file (.toml, .json), Libratus endgame file, or subgame1..subgame4 (not with --resume "
                         "or --load)")
    ap.add_argument("--algorithm", choices=("dcfr", "cfr+"), default=None,
                    help="solver (default: the spot's solver.algorithm, else dcfr)")
    ap.add_argument("--iterations", type=int, default=None,
                    help="maximum iterations (default: the spot's solver.max_iterations, else 1000)")
    ap.add_argument("--target-pct-pot", type=float, default=None,
                    help="stop at this exploitability, percent of the pot (default: the spot's)")
    ap.add_argument("--check-every", type=int, default=None,
                    help="measure exploitability every K iterations (default: the spot's, else automatic)")
    ap.add_argument("--raise-cap", type=int, default=None, help="raises per street after the first bet")
    ap.add_argument("--dtype", choices=("float32", "float64"), default=None,
                    help="precision of the solver's arrays (default float32; an archive keeps its own)")
    ap.add_argument("--out", default=None, help="output directory (default data/spots/<spot name>/)")
    ap.add_argument("--save", default=None, metavar="FILE",
                    help="also save the solver state and the spot to this .npz archive (to resume or re-open)")
    ap.add_argument("--resume", default=None, metavar="FILE",
                    help="continue the solve saved in FILE (same algorithm and schedule) up to --iterations (total) "
                         "or --target-pct-pot; saved again over FILE unless --save is given")
    ap.add_argument("--locks", default=None, metavar="FILE",
                    help="node locks (JSON/TOML: {history: {hands: [p per action]}}); solve the rest")
    ap.add_argument("--load", default=None, metavar="FILE",
                    help="write the outputs of the solve saved in FILE without solving")
    ap.add_argument("--full-json", action="store_true",
                    help="flop and turn endgames: write every node to strategy.json, not only the starting street's")
    ap.add_argument("--no-plot", action="store_true", help="do not draw first_decision.png")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    ap.add_argument("--quiet", action="store_true", help="no progress bar or messages on stderr")
    ap.add_argument("--print-tree", action="store_true",
                    help="print the betting tree (size and first-street lines) and exit without solving")
    ap.add_argument("--max-depth", type=int, default=None,
                    help="with --print-tree: longest line printed, in actions (default: all)")
    return ap


def _print_tree(args) -> None:
    from hunl.solver.spot_files import load_spot
    from hunl.solver.tree import describe_tree

    spot = load_spot(args.spot)
    print(spot.describe())
    print(describe_tree(spot.betting_tree(args.raise_cap), max_depth=args.max_depth))


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.print_tree:
        if args.spot is None:
            ap.error("--print-tree needs SPOT")
        try:
            _print_tree(args)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            ap.exit(2, f"{ap.prog}: error: {exc}\n")
        return 0
    overrides = {"algorithm": args.algorithm, "max_iterations": args.iterations,
                 "target_pct_pot": args.target_pct_pot, "check_every": args.check_every, "raise_cap": args.raise_cap}
    sources = [x for x in (args.spot, args.resume, args.load) if x is not None]
    if len(sources) != 1:
        ap.error("give exactly one of SPOT, --resume FILE and --load FILE")
    try:
        if args.resume is not None or args.load is not None:
            if args.dtype is not None:
                raise ValueError("--dtype: an archive keeps the dtype it was solved in")
            if args.locks is not None:
                raise ValueError("--locks: an archive keeps the locks it was solved with")
        if args.resume is not None:
            spot, solution, files = resume_archive(args.resume, overrides, args.out, args.full_json,
                                                   not args.no_plot, args.quiet, save=args.save)
        elif args.load is not None:
            changed = [k for k, v in overrides.items() if v is not None]
            if changed or args.save is not None:
                raise ValueError("--load writes a saved solve as it is; solver options and --save do not apply "
                                 "(use --resume to continue it)")
            spot, solution, files = open_archive(args.load, args.out, args.full_json, not args.no_plot,
                                                 args.quiet)
        else:
            spot, solution, files = solve_spot_file(args.spot, overrides, args.out, args.dtype or "float32",
                                                    args.full_json, not args.no_plot, args.quiet, save=args.save,
                                                    locks=args.locks)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    if args.json:
        print(json.dumps(finite(solution_record(spot, solution, files))))
    else:
        print(format_solution(spot, solution, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())

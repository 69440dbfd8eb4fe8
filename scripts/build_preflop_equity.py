#!/usr/bin/env python
"""Build the exact preflop all-in equity table (47,008 matchups x 1,712,304 boards) into the package.

Usage::

    python scripts/build_preflop_equity.py [--out PATH] [--threads N] [--chunk-size K]
                                           [--method fast|exhaustive] [--no-progress]

Writes ``hunl/preflop/data/equity.npz`` by default. Resumable: kill it at any time and run the same command
again; finished chunks (``<out>.parts/``) are kept and only the rest is computed. Prints the seconds taken.
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    from hunl.preflop.equity import DEFAULT_PATH

    ap = argparse.ArgumentParser(prog="build_preflop_equity.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(DEFAULT_PATH), help=f"output .npz (default {DEFAULT_PATH})")
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all cores)")
    ap.add_argument("--chunk-size", type=int, default=500, help="matchups per saved chunk (default 500)")
    ap.add_argument("--method", default="fast", choices=("fast", "exhaustive"),
                    help="board-enumeration kernel (default fast; both give identical counts)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)

    from hunl.preflop.equity_build import build_equity_table

    try:
        rep = build_equity_table(args.out, chunk_size=args.chunk_size, threads=args.threads,
                                 method=args.method, progress=not args.no_progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{rep.path}: {rep.matchups} matchups ({rep.computed} computed now, {rep.reused} from an earlier run) "
          f"in {rep.seconds:.1f} s on {rep.threads} threads ({rep.method} kernel)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

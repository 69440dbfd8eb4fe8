#!/usr/bin/env python
"""Regenerate docs/PREFLOP.md, its figures (docs/figures/preflop_*.png) and the shipped rule cards.

Usage::

    python scripts/preflop_report.py [--time-limit SECONDS] [--no-progress]

Solves push/fold at every stack from 1 to 25 bb, compares the charts with the published ones, fits the rule
cards (one MILP per band and player, at most --time-limit seconds each; about 8 minutes in all) and writes
everything. The speed section is kept; refresh it with ``python benchmarks/bench_preflop.py``.
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="preflop_report.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per rule-card MILP (default 60)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.time_limit <= 0:
        print("error: --time-limit must be > 0 seconds", file=sys.stderr)
        return 2
    from hunl.preflop.report import write_report

    path = write_report(time_limit=args.time_limit, progress=not args.no_progress)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

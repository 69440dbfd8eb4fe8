#!/usr/bin/env python
"""Solve Kuhn poker, Leduc hold'em or the ten-card bet game with the sequence-form LP or a CFR variant.

Usage::

    python scripts/solve_game.py GAME METHOD [--iterations N] [--target X] [--check-every K]
                                 [--alpha A --beta B --gamma G] [--json] [--plot FILE] [--no-progress]

GAME is ``kuhn``, ``leduc`` or ``betgame`` (the paper's game on the uniform 10-card deal); METHOD is ``lp``,
``cfr``, ``cfr+`` or ``dcfr``. Prints the value to player 1, the exploitability (NashConv / 2, chips), the
iterations and the seconds; ``--json`` prints one JSON object instead; ``--plot FILE`` saves exploitability
against iterations and against seconds (log scales) as a PNG (CFR methods only).

Example: ``python scripts/solve_game.py leduc dcfr --target 1e-3 --json``. The work is
:func:`games.core.runs.solve_game`.
"""

from __future__ import annotations

import argparse
import json
import sys

from games.core.runs import METHODS, finite, format_run, solve_game


def _parser() -> argparse.ArgumentParser:
    from games.core import GAMES

    ap = argparse.ArgumentParser(prog="solve_game.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help=f"one of {', '.join(GAMES)}")
    ap.add_argument("method", help=f"one of {', '.join(METHODS)}")
    ap.add_argument("--iterations", type=int, default=100_000,
                    help="maximum CFR iterations (default 100000)")
    ap.add_argument("--target", type=float, default=None,
                    help="stop when the exploitability (NashConv/2, chips) is at most this")
    ap.add_argument("--check-every", type=int, default=1,
                    help="measure the exploitability every K iterations (default 1: a per-iteration log)")
    ap.add_argument("--alpha", type=float, default=None, help="DCFR positive-regret discount exponent")
    ap.add_argument("--beta", type=float, default=None, help="DCFR negative-regret discount exponent")
    ap.add_argument("--gamma", type=float, default=None, help="average-strategy weight exponent")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--plot", metavar="FILE", default=None,
                    help="save exploitability vs iterations and vs seconds (log scale) as PNG")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    return ap


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    try:
        run = solve_game(args.game, args.method, iterations=args.iterations, target=args.target,
                         check_every=args.check_every, progress=not (args.no_progress or args.json), plot=args.plot,
                         alpha=args.alpha, beta=args.beta, gamma=args.gamma)
    except ValueError as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    print(json.dumps(finite(run)) if args.json else format_run(run, args.plot))
    return 0


if __name__ == "__main__":
    sys.exit(main())

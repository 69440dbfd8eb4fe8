#!/usr/bin/env python
"""Solve Kuhn poker, Leduc hold'em or the ten-card bet game with the sequence-form LP or a CFR variant.

Usage::

    python scripts/solve_game.py GAME METHOD [--iterations N] [--target X] [--check-every K]
                                 [--alpha A --beta B --gamma G] [--json] [--plot FILE] [--no-progress]

GAME is ``kuhn``, ``leduc`` or ``betgame`` (the paper's game on the uniform 10-card deal); METHOD is ``lp``,
``cfr``, ``cfr+`` or ``dcfr``. Prints the value to player 1, the exploitability (NashConv / 2, chips), the
iterations and the seconds; ``--json`` prints one JSON object instead; ``--plot FILE`` saves exploitability
against iterations and against seconds (log scales) as a PNG (CFR methods only).

Example: ``python scripts/solve_game.py leduc dcfr --target 1e-3 --json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

METHODS = ("lp", "cfr", "cfr+", "dcfr")


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


def _plot(result, game_name: str, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].loglog(result.log_iterations, result.log_exploitability)
    axes[0].set_xlabel("iterations")
    axes[1].loglog(result.log_seconds, result.log_exploitability)
    axes[1].set_xlabel("seconds")
    from matplotlib.ticker import LogLocator

    for ax in axes:
        ax.set_ylabel("exploitability (NashConv / 2, chips)")
        ax.grid(True, which="both", alpha=0.3)
        ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # a few labelled minor ticks that do not collide
    fig.suptitle(f"{result.config.name} on {game_name}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    from games.core import exploitability, load_game, solve_cfr, solve_lp

    method = args.method.strip().lower()
    try:
        if method not in METHODS:
            raise ValueError(f"unknown method {args.method!r}; choose one of {', '.join(METHODS)}")
        game = load_game(args.game)
        if method == "lp":
            if args.plot:
                raise ValueError("--plot needs an iterative method (cfr, cfr+, dcfr)")
            start = time.perf_counter()
            sol = solve_lp(game)
            seconds = time.perf_counter() - start
            expl = exploitability(game, sol.policy)
            value, iterations = sol.value, sol.simplex_iterations
            extra = {"simplex_iterations": sol.simplex_iterations, "num_sequences": list(sol.num_sequences)}
        else:
            overrides = {k: getattr(args, k) for k in ("alpha", "beta", "gamma") if getattr(args, k) is not None}
            res = solve_cfr(game, method, iterations=args.iterations, target=args.target,
                            check_every=args.check_every, progress=not (args.no_progress or args.json),
                            **overrides)
            expl, value, iterations, seconds = res.exploitability, res.value, res.iterations, res.seconds
            extra = {"converged": res.converged, "target": res.target,
                     "alpha": res.config.alpha, "beta": res.config.beta, "gamma": res.config.gamma}
            if args.plot:
                _plot(res, game.name, args.plot)
    except ValueError as exc:
        ap.exit(2, f"{ap.prog}: error: {exc}\n")
    out = {
        "game": game.name,
        "method": method,
        "value": value,
        "exploitability": expl.exploitability,
        "nash_conv": expl.nash_conv,
        "best_response_values": list(expl.best_response_values),
        "exploitability_fraction_of_pot": expl.exploitability_fraction_of_pot,
        "units": "chips",
        "iterations": int(iterations),
        "seconds": seconds,
        **extra,
    }
    if args.json:
        print(json.dumps({k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                          for k, v in out.items()}))
    else:
        label = "simplex iterations" if method == "lp" else "iterations"
        print(f"{game.name} / {method}")
        print(f"  value (player 1)     {value:+.12f} chips")
        print(f"  exploitability       {expl.exploitability:.6g} chips (NashConv/2; "
              f"{expl.exploitability_fraction_of_pot:.3g} of the pot)")
        print(f"  NashConv             {expl.nash_conv:.6g} chips")
        print(f"  {label:<20} {iterations}")
        print(f"  seconds              {seconds:.4f}")
        if args.plot:
            print(f"  plot                 {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

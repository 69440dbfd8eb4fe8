"""Bet-game benchmarks: LP solve time, database throughput, closed-form exploitability throughput.

Run from the repository root::

    python benchmarks/bench_betgame.py            # writes its section of docs/BENCHMARKS.md

Targets (issue 2): at most 2 ms per game per core; exploitability of 100,000 games in under 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _report import cpu_model, write_section  # benchmarks/_report.py (sys.path[0] is this folder)

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- bench_betgame:start -->", "<!-- bench_betgame:end -->"


def machine() -> str:
    model = cpu_model()
    import numba
    from importlib.metadata import version as _version

    return (f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, "
            f"highspy {_version('highspy')}, numba {numba.__version__}")


def bench_solve(n_games: int) -> dict:
    from games import betgame
    from rulelearn.distributions import random_deal

    _, _, probs = random_deal(10, np.random.default_rng(123), n_games)
    betgame.solve(probs[0])  # builds the LP structure and the warm-start basis, compiles numba
    times, iters, worst = np.empty(n_games), np.empty(n_games), 0.0
    for k in range(n_games):
        t = time.perf_counter()
        sol = betgame.solve(probs[k])
        times[k] = time.perf_counter() - t
        iters[k] = sol.iterations
        worst = max(worst, sol.nash_conv)
    return {"median_ms": 1e3 * np.median(times), "mean_ms": 1e3 * times.mean(),
            "p90_ms": 1e3 * np.quantile(times, 0.9), "iterations": float(np.median(iters)), "worst_nash_conv": worst}


def bench_database(n_games: int, workers: int) -> dict:
    from games.betgame.family import BetGameFamily
    from rulelearn.database import SolutionDatabase

    with tempfile.TemporaryDirectory() as tmp:
        report = SolutionDatabase(tmp).generate(BetGameFamily(), n_games, seed=0, workers=workers, progress=False)
    return {"games": n_games, "workers": report.workers, "seconds": report.seconds,
            "games_per_second": report.games_per_second}


def bench_exploitability(n_games: int, repeats: int = 5) -> dict:
    import numba

    from games import betgame
    from rulelearn.distributions import random_deal

    rng = np.random.default_rng(7)
    _, _, probs = random_deal(10, rng, n_games)
    strategies = rng.dirichlet(np.ones(31), size=(n_games, 10))
    values = np.zeros(n_games)  # the value is subtracted at the end; timing does not depend on it
    betgame.exploitability(probs[:10], strategies[:10], values[:10])  # compile
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        betgame.exploitability(probs, strategies, values)
        best = min(best, time.perf_counter() - t)
    return {"games": n_games, "seconds": best, "games_per_second": n_games / best,
            "threads": numba.get_num_threads()}


def render(solve: dict, db1: dict, db2: dict, expl: dict, command: str) -> str:
    return f"""{START}
## Bet game (issue 2)

Command: `{command}` · Machine: {machine()} · Date: {time.strftime('%Y-%m-%d')}

| measurement | figure | target |
|---|---|---|
| LP solve time per game, one core (median over {solve['n']} random deals, verification included) | **{solve['median_ms']:.2f} ms** (mean {solve['mean_ms']:.2f}, p90 {solve['p90_ms']:.2f}; median {solve['iterations']:.0f} simplex iterations; worst NashConv {solve['worst_nash_conv']:.1e}) | <= 2 ms |
| database generation, 1 worker ({db1['games']} games, Parquet shards, process start included) | {db1['games_per_second']:.0f} games/s ({db1['seconds']:.1f} s) | |
| database generation, {db2['workers']} workers ({db2['games']} games) | **{db2['games_per_second']:.0f} games/s** ({db2['seconds']:.1f} s) | |
| closed-form exploitability, batch of {expl['games']:,} games ({expl['threads']} numba threads, best of 5) | **{expl['seconds']:.3f} s** ({expl['games_per_second']:,.0f} games/s) | < 0.5 s |

How the LP is fast: the constraint matrix's sparsity pattern is fixed per game configuration, so only its values
change per deal; HiGHS runs primal simplex without scaling, warm-started from the optimal basis of the uniform
deal (see `games/betgame/lp.py`).
{END}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solve-games", type=int, default=2000)
    parser.add_argument("--db-games", type=int, default=4000)
    parser.add_argument("--expl-games", type=int, default=100_000)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    solve = bench_solve(args.solve_games) | {"n": args.solve_games}
    print("solve", solve, flush=True)
    db1 = bench_database(args.db_games // 4, 1)
    print("db 1 worker", db1, flush=True)
    db2 = bench_database(args.db_games, os.cpu_count() or 1)
    print("db all workers", db2, flush=True)
    expl = bench_exploitability(args.expl_games)
    print("exploitability", expl, flush=True)
    cmd = "python benchmarks/bench_betgame.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    text = render(solve, db1, db2, expl, cmd.strip())
    print(text)
    if not args.no_write:
        write_section(text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Verified share of bet-game solutions: a database of the paper's law and one of a hard law, every game checked.

Run from the repository root::

    python benchmarks/bench_betgame_verification.py     # 100,000 games per law on all cores; writes docs/BENCHMARKS.md

Target (issue 12): every stored solution verified (NashConv <= 1e-9 chips), on 100,000 games of the default law
(hand distributions uniform on the simplex) and on 100,000 of a hard law (entries log-uniform on [1e-12, 1]).
The database figures come from ``SolutionDatabase.generate`` itself; which of the solver's attempts
(``games.betgame.lp.ATTEMPTS``) each game needed is measured on the first ``--sample`` games of each law.
``--fixtures PATH`` saves the sampled deals that needed a fallback attempt (the tests' hard cases).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rulelearn.report.docblocks import cpu_model, write_section

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"
START, END = "<!-- bench_betgame_verification:start -->", "<!-- bench_betgame_verification:end -->"
LAW_NAMES = {"simplex": "default law (uniform on the simplex)",
             "log-uniform": "hard law (entries log-uniform on [1e-12, 1])"}


def bench_database(law: str, n_games: int, workers: int) -> dict:
    """Generate ``n_games`` of ``law`` into a fresh database; its verified share and NashConv distribution."""
    from games.betgame.family import BetGameFamily
    from rulelearn.data.database import SolutionDatabase

    with tempfile.TemporaryDirectory() as tmp:
        db = SolutionDatabase(tmp)
        report = db.generate(BetGameFamily(hand_law=law), n_games, seed=0, workers=workers, progress=True)
        check = db.verify()
        cols = db.load(columns=["nash_conv", "status"], verified_only=False)
    conv = cols["nash_conv"]
    return {"games": n_games, "seconds": report.seconds, "workers": report.workers,
            "unverified": report.n_unverified, "stored": check.n_games, "stored_unverified": check.n_unverified,
            "max": float(conv.max()), "q999": float(np.quantile(conv, 0.999)), "median": float(np.median(conv)),
            "statuses": dict(collections.Counter(cols["status"].tolist()))}


def bench_attempts(law: str, n_games: int) -> tuple[dict, list]:
    """Solve the first ``n_games`` of ``law`` (seed 0) one by one; count the attempt each needed."""
    from games.betgame import solve
    from games.betgame.family import sample_game

    methods, hard, times = collections.Counter(), [], np.empty(n_games)
    solve(sample_game(0, 0, hand_law=law)[2])  # LP structure, warm basis, numba
    for k in range(n_games):
        probs = sample_game(0, k, hand_law=law)[2]
        t = time.perf_counter()
        sol = solve(probs, strict=False)
        times[k] = time.perf_counter() - t
        methods[sol.method if sol.verified else "not verified"] += 1
        if sol.method != "warm primal simplex" or not sol.verified:
            hard.append((k, probs, sol.method, sol.nash_conv))
    return {"games": n_games, "methods": dict(methods), "median_ms": 1e3 * float(np.median(times)),
            "mean_ms": 1e3 * float(times.mean()), "max_ms": 1e3 * float(times.max())}, hard


def render(rows: list[tuple[str, dict, dict]], command: str) -> str:
    lines = []
    for law, db, att in rows:
        share = 100.0 * (db["stored"] - db["stored_unverified"]) / db["games"]
        methods = ", ".join(f"{name}: {count}" for name, count in sorted(att["methods"].items(), key=lambda m: -m[1]))
        lines.append(
            f"| {LAW_NAMES[law]} | {db['games']:,} | **{share:.3f}%** ({db['stored_unverified']} unverified, "
            f"{db['games'] - db['stored']} missing) | {db['median']:.1e} / {db['q999']:.1e} / **{db['max']:.1e}** "
            f"| {db['seconds']:.0f} s on {db['workers']} workers | {methods} (of the first {att['games']:,}; "
            f"median {att['median_ms']:.1f} ms, max {att['max_ms']:.0f} ms a game) |")
    return f"""{START}
## Verified bet-game solutions (issue 12)

Command: `{command}` · Machine: {cpu_model()}, {os.cpu_count()} cores · Date: {time.strftime('%Y-%m-%d')}

Every solution the bet-game LP returns is checked in closed form (NashConv of the returned pair <= 1e-9 chips);
the database stores the check per game. The LP is solved in rescaled variables (realisation weights, rows per
card of player 2, objective and right-hand sides times 2^10; `games/betgame/lp.py`); a pair that does not verify
is solved again by the next attempt (HiGHS's dual simplex with its own scaling, then interior point with
crossover).

| law | games | verified share of the database | NashConv median / 99.9% / max (chips) | generation | attempts needed |
|---|---|---|---|---|---|
{chr(10).join(lines)}
{END}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="games per law in the database (default 100000)")
    parser.add_argument("--sample", type=int, default=10_000, help="games per law solved one by one to count the "
                                                                   "attempts they need (default 10000)")
    parser.add_argument("--laws", default="simplex,log-uniform", help="comma-separated hand laws")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--fixtures", default=None, metavar="PATH",
                        help="save the sampled deals that needed a fallback attempt to this .npz file")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    rows, hard = [], []
    for law in args.laws.split(","):
        att, found = bench_attempts(law, args.sample)
        print(law, "attempts", att, flush=True)
        hard += [(law,) + h for h in found]
        db = bench_database(law, args.games, args.workers or os.cpu_count() or 1)
        print(law, "database", db, flush=True)
        rows.append((law, db, att))
    if args.fixtures and hard:
        np.savez_compressed(args.fixtures, probs=np.array([h[2] for h in hard]),
                            law=np.array([h[0] for h in hard]), game_id=np.array([h[1] for h in hard]),
                            method=np.array([h[3] for h in hard]), nash_conv=np.array([h[4] for h in hard]))
        print(f"saved {len(hard)} deals to {args.fixtures}")
    cmd = "python benchmarks/bench_betgame_verification.py" + (
        " " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    text = render(rows, cmd.strip())
    print(text)
    if not args.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

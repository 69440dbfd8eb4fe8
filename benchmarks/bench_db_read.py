#!/usr/bin/env python
"""Memory and time of reading chosen games from a solution database (``SolutionDatabase.load(ids=...)``).

The held-out endgames of a card run are spread over every shard of the database, and a turn endgame's stored
strategy is about 22 MB, so reading them shard by shard must keep only the chosen rows of each shard: the peak is
then one shard plus the chosen games, not the database. Each read runs in a fresh Python process; the figure is
the growth of its peak resident memory (``ru_maxrss``) over the process before the read (imports included there),
beside the size of the columns returned. Writes the section ``bench_db_read`` of docs/BENCHMARKS.md unless
``--no-write``.

    python benchmarks/bench_db_read.py                         # data/hunl_turn_1000 (as solved in docs/HUNL.md)
    python benchmarks/bench_db_read.py --db data/hunl_turn_100 --games 100 --no-write   # solves it first if absent
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_db_read:start -->", "<!-- bench_db_read:end -->"
BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"

_CHILD = r"""
import json, resource, sys, time
import numpy as np
from rulelearn.data.database import SolutionDatabase
from hunl.distill.card_experiment import split_endgames
db = SolutionDatabase(sys.argv[1]); n_test = int(sys.argv[2]); mode = sys.argv[3]
ids = db.load(None, columns=["game_id"])["game_id"]
_, test = split_endgames(len(ids), 0, 0.2, n_test)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
cols = db.load(None, columns=db.column_names(), ids=ids[test] if mode == "ids" else None)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"games": int(len(cols["game_id"])), "seconds": seconds, "growth_mib": (peak - before) / 1024,
                  "returned_mib": sum(v.nbytes for v in cols.values()) / 2**20}))
"""


def measure(db: str, n_test: int, mode: str) -> dict:
    """One read in a fresh process: ``mode`` ``"ids"`` (the ``n_test`` held-out games) or ``"all"``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, db, str(n_test), mode], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def ensure_db(db: str, games: int) -> None:
    """Solve ``games`` turn endgames into ``db`` as docs/HUNL.md does, if it holds none (resumable)."""
    from hunl.distill.family import HoldemRiverFamily
    from hunl.distill.sampler import EndgameSampler
    from rulelearn.data.database import SolutionDatabase

    SolutionDatabase(db).generate(HoldemRiverFamily(EndgameSampler.turn(max_combos=150), iterations=1000,
                                                    target_pct_pot=0.3), games, seed=0, shard_size=50, workers=2)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="data/hunl_turn_1000", help="solution database read (default: the turn one)")
    p.add_argument("--games", type=int, default=1000, help="turn endgames solved into --db if it is missing")
    p.add_argument("--test", type=int, default=100, help="held-out games read (the card runs' --max-test)")
    p.add_argument("--all", action="store_true", help="also read the whole database (needs its size in memory)")
    p.add_argument("--no-write", action="store_true")
    a = p.parse_args(argv)
    if not Path(a.db).exists():
        ensure_db(a.db, a.games)
    t0 = time.perf_counter()
    rows = {"held-out games (ids=...)": measure(a.db, a.test, "ids")}
    if a.all:
        rows["the whole database"] = measure(a.db, a.test, "all")
    from rulelearn.data.database import SolutionDatabase

    shards = SolutionDatabase(a.db).shards()
    disk = sum(f.stat().st_size for _, _, f in shards) / 2**20
    lines = [START, "## Reading chosen games from a solution database", "",
             f"`python benchmarks/bench_db_read.py --db {a.db} --test {a.test}{' --all' if a.all else ''}` on "
             f"{cpu_model()}: {len(shards)} shards, {disk:,.0f} MiB on disk; each read in a fresh process, "
             f"its peak resident memory growth over the process before the read (imports done).", "",
             "| read | games | seconds | peak memory growth (MiB) | columns returned (MiB) |",
             "|---|---:|---:|---:|---:|"]
    for name, r in rows.items():
        lines.append(f"| {name} | {r['games']} | {r['seconds']:.1f} | {r['growth_mib']:,.0f} | "
                     f"{r['returned_mib']:,.0f} |")
    lines += ["", f"Run time {time.perf_counter() - t0:.0f} s.", END]
    text = "\n".join(lines)
    print(text)
    if not a.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

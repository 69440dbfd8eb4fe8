"""Benchmark: DCFR and CFR+ on the four Libratus HUNL endgames (issue 4 acceptance table).

Each (endgame, algorithm) runs in a fresh process (so the peak memory is its own) with the Libratus abstraction
({0.5 pot, 1 pot, all-in} for a round's first bet, {1 pot, all-in} afterwards, no raise cap), each reach vector
normalised to sum 1, stacks 20,000 chips and blinds 50/100. Exploitability (NashConv / 2) is measured every
``--check-every`` iterations; the table gives it after 100 and after the last iteration (1,000 by default) in big
blinds per hand and percent of the pot, the wall time to those points (checks included), and the first measured
time at which the target is reached (0.1% of the pot on the river, 0.5% on the turn).

Run::

    python benchmarks/bench_hunl.py                 # all four endgames, both algorithms, 1,000 iterations
    python benchmarks/bench_hunl.py --games subgame3 subgame4 --iterations 300

The figures are written to ``docs/BENCHMARKS.md`` (section ``bench_hunl``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import numpy as np

from rulelearn.report.docblocks import cpu_model, write_section

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"

TARGET_PCT = {"river": 0.1, "turn": 0.5}
START, END = "<!-- bench_hunl:start -->", "<!-- bench_hunl:end -->"


def _run(name: str, algorithm: str, iterations: int, check_every: int, queue,
         until_target: int = 0) -> None:  # pragma: no cover
    from hunl.solver.game import HoldemEndgame
    from hunl.solver.libratus import load_endgame
    from hunl.solver.solve import solve_endgame
    from hunl.solver.tree import LIBRATUS_SIZES

    e = load_endgame(name)
    t0 = time.perf_counter()
    game = HoldemEndgame(e.board, e.normalised_reach(), pot=e.pot, stack=e.stack_remaining,
                         bet_sizes=LIBRATUS_SIZES, raise_cap=1000, big_blind=e.big_blind)
    setup = time.perf_counter() - t0
    cpu0 = time.process_time()
    sol = solve_endgame(game, algorithm, iterations=iterations, check_every=check_every)
    cpu = time.process_time() - cpu0
    r = sol.result
    target = TARGET_PCT[e.street]
    extra = None
    if until_target > iterations and not np.any(100 * r.log_exploitability / e.pot <= target):
        # a separate run that stops at the target (the first run's figures stay those of exactly `iterations`)
        t = solve_endgame(game, algorithm, iterations=until_target, target_pct_pot=target, check_every=check_every)
        extra = {"iterations": int(t.iterations), "seconds": float(t.seconds),
                 "pct_pot": float(t.exploitability_pct_pot), "reached": bool(t.exploitability_pct_pot <= target)}
    queue.put({
        "game": name, "street": e.street, "algorithm": algorithm, "pot": e.pot, "nodes": int(game.tree.n_nodes),
        "hands": list(game.num_hands), "setup_s": setup, "iterations": r.log_iterations.tolist(),
        "exploitability": r.log_exploitability.tolist(), "seconds": r.log_seconds.tolist(),
        "peak_memory_mb": sol.peak_memory_mb, "memory_estimate_mb": sol.memory_estimate_mb,
        "cpu_s": cpu, "target_run": extra,
    })


def run_one(name: str, algorithm: str, iterations: int, check_every: int, until_target: int = 0) -> dict:
    """Solve one endgame in a fresh (spawned) process and return its log."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_run, args=(name, algorithm, iterations, check_every, queue, until_target))
    proc.start()
    out = queue.get()
    proc.join()
    return out


def _at(log: dict, it: int):
    its = log["iterations"]
    k = max(i for i, v in enumerate(its) if v <= it)
    return log["exploitability"][k], log["seconds"][k], its[k]


def _time_to(log: dict, pct: float):
    for it, ex, s in zip(log["iterations"], log["exploitability"], log["seconds"]):
        if 100 * ex / log["pot"] <= pct:
            return s, it
    return None, None


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["subgame1", "subgame2", "subgame3", "subgame4"])
    ap.add_argument("--algorithms", nargs="+", default=["cfr+", "dcfr"])
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--check-every", type=int, default=20)
    ap.add_argument("--until-target", type=int, default=5000,
                    help="if the target is not reached in --iterations, a second run up to this many iterations "
                         "stops at it (default 5000)")
    ap.add_argument("--json", type=Path, help="also write the raw logs here")
    ap.add_argument("--no-write", action="store_true", help="print only; do not touch docs/BENCHMARKS.md")
    ap.add_argument("--from-json", type=Path, nargs="+",
                    help="build the table from logs saved with --json (runs nothing)")
    args = ap.parse_args(argv)

    logs = []
    load0 = os.getloadavg()[0]
    if args.from_json:
        for path in args.from_json:
            logs.extend(json.loads(path.read_text()))
        args.games = []
    for name in args.games:
        for alg in args.algorithms:
            log = run_one(name, alg, args.iterations, args.check_every, args.until_target)
            logs.append(log)
            ex, s, it = _at(log, args.iterations)
            print(f"{name} {alg}: {it} it, {100 * ex / log['pot']:.4f}% pot, {s:.1f} s, "
                  f"peak {log['peak_memory_mb']:.0f} MiB", flush=True)
    load1 = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(logs))

    rows = ["| endgame | street | nodes | hands | algorithm | expl. @100 (bb/hand, % pot) | time @100 | "
            "expl. @1000 (bb/hand, % pot) | time @1000 | target | time to target | CPU time, whole run | peak memory |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for log in logs:
        e1, s1, _ = _at(log, 100)
        e2, s2, _ = _at(log, 1000)
        pct = TARGET_PCT[log["street"]]
        tt, ti = _time_to(log, pct)
        extra = log.get("target_run")
        if tt is not None:
            reach = f"{tt:.1f} s ({ti} it)"
        elif extra and extra["reached"]:
            reach = f"{extra['seconds']:.1f} s ({extra['iterations']} it, separate run)"
        else:
            reach = f"not reached in {max(log['iterations']) if not extra else extra['iterations']} it"
        rows.append(
            f"| {log['game']} | {log['street']} | {log['nodes']:,} | {log['hands'][0]} x {log['hands'][1]} | "
            f"{log['algorithm']} | {e1 / 100:.4f}, {100 * e1 / log['pot']:.3f}% | {s1:.1f} s | "
            f"{e2 / 100:.4f}, {100 * e2 / log['pot']:.4f}% | {s2:.1f} s | {pct}% | {reach} | "
            + (f"{log['cpu_s']:.1f} s / {log['seconds'][-1]:.1f} s wall |" if "cpu_s" in log else "n/a |")
            + f" {log['peak_memory_mb']:,.0f} MiB |")
    body = "\n".join([
        START,
        "## HUNL endgame solver (Libratus endgames)",
        "",
        "Command: `python benchmarks/bench_hunl.py" + ("" if argv is None and len(sys.argv) == 1 else
                                                       " " + " ".join(sys.argv[1:] if argv is None else argv)) + "`",
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores; load average {load0:.1f} at the start, {load1:.1f} at "
        "the end (other jobs running raise wall times).",
        "",
        "Libratus abstraction, reach vectors normalised, stacks 20,000, blinds 50/100; exploitability = NashConv/2 "
        f"of the average strategy, measured every {args.check_every} iterations (times include the checks and, "
        "on a fresh install, numba's one-off compilation is excluded by the cache). Each run is a fresh process.",
        "",
        *rows,
        END,
    ])
    print(body)
    if not args.no_write:
        write_section(BENCHMARKS_MD, body, START, END)


if __name__ == "__main__":
    main()

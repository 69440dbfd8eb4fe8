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

``--spots`` runs instead the solver-speed benchmark of issue 13 on the spot files ``examples/spots/``
(Libratus subgames 3, 4 and 2, the turn spot QsJh2h8d and the flop spot Td9d6h): for each spot, thread count
and schedule, in a fresh process, the wall time and iterations to 1, 0.5, 0.3 and 0.1% of the pot (exploitability
checked every ``--check-every`` iterations, checks included, compilation excluded and reported apart), the
solver state, the memory estimate before solving and the process's resident-memory growth during the solve,
and its peak RSS; medians over ``--repeat`` runs (one run for the flop). Section ``bench_hunl_spots``::

    python benchmarks/bench_hunl.py --spots                         # dcfr, 1 and 2 threads, every spot
    python benchmarks/bench_hunl.py --spots --schedules dcfr dcfr-reset pcfr+ --only subgame3 turn
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


def _run(name: str, algorithm: str, iterations: int, check_every: int, until_target: int,
         queue) -> None:  # pragma: no cover
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


def _in_fresh_process(target, *args) -> dict:
    """Run ``target(*args, queue)`` in a fresh (spawned) process, so that its peak memory is its own, and return
    what it put on the queue; raise if the process dies first."""
    import queue as queue_module

    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    while True:
        try:
            out = queue.get(timeout=5)
            break
        except queue_module.Empty:
            if not proc.is_alive():
                raise RuntimeError(f"the benchmark process for {args[0]} exited with code {proc.exitcode}")
    proc.join()
    return out


def run_one(name: str, algorithm: str, iterations: int, check_every: int, until_target: int = 0) -> dict:
    """Solve one endgame in a fresh (spawned) process and return its log."""
    return _in_fresh_process(_run, name, algorithm, iterations, check_every, until_target)


def _at(log: dict, it: int):
    its = log["iterations"]
    k = max(i for i, v in enumerate(its) if v <= it)
    return log["exploitability"][k], log["seconds"][k], its[k]


def _time_to(log: dict, pct: float):
    for it, ex, s in zip(log["iterations"], log["exploitability"], log["seconds"]):
        if 100 * ex / log["pot"] <= pct:
            return s, it
    return None, None


SPOTS_DIR = Path(__file__).resolve().parents[1] / "examples" / "spots"
#: Issue 13's spots: (key, spot file, stop at this % of the pot, iteration cap).
SPOTS = (("subgame3", "libratus_subgame3.toml", 0.1, 4000), ("subgame4", "libratus_subgame4.toml", 0.1, 4000),
         ("subgame2", "libratus_subgame2.toml", 0.1, 4000), ("turn", "turn_QsJh2h8d.toml", 0.1, 4000),
         ("flop", "flop_Td9d6h.toml", 0.1, 2000))
PCTS = (1.0, 0.5, 0.3, 0.1)
#: postflop-solver on this machine (issue 13's table): time to 0.3% and 0.1% (s) on the given threads, RSS (MiB).
PEER = {("subgame3", 1): (0.26, 0.54, 4.3), ("subgame4", 1): (0.028, 0.051, 3.7),
        ("subgame2", 2): (2.28, 4.45, 43.0), ("turn", 2): (1.23, 2.15, 25.0), ("flop", 2): (112.0, 205.0, 1167.0)}
S_START, S_END = "<!-- bench_hunl_spots:start -->", "<!-- bench_hunl_spots:end -->"


def _rss_mib(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _spot_run(path: str, threads: int, schedule: str, compressed: bool, pct: float, iterations: int,
              check_every: int, queue) -> None:  # pragma: no cover
    from games.core import solve_cfr
    from hunl.solver.spot_files import load_spot

    # load (or compile) the kernels on a tiny spot first, so the RSS of the solve below excludes numba's compiler
    tiny = load_spot(SPOTS_DIR / "river_small.toml").game()
    solve_cfr(tiny, schedule, iterations=2, check_every=2, compressed=compressed, threads=threads).strategy
    spot = load_spot(path)
    t0 = time.perf_counter()
    game = spot.game()
    build = time.perf_counter() - t0
    estimate = game.memory_estimate(compressed=compressed, threads=threads) / 2**20
    rss0 = _rss_mib()
    try:
        Path("/proc/self/clear_refs").write_text("5")   # reset the peak RSS (VmHWM) to the current RSS
    except OSError:
        pass
    r = solve_cfr(game, schedule, iterations=iterations, target=pct / 100.0 * game.pot, check_every=check_every,
                  threads=threads, compressed=compressed)
    peak_solve = _rss_mib("VmHWM")
    r.strategy  # the returned average strategy, built on first read: part of the growth the estimate covers
    queue.put({
        "nodes": int(game.tree.n_nodes), "hands": list(game.num_hands), "pot": float(game.pot), "build_s": build,
        "compile_s": float(r.compile_seconds), "iterations": r.log_iterations.tolist(),
        "exploitability": r.log_exploitability.tolist(), "seconds": r.log_seconds.tolist(),
        "state_mib": r.engine.memory_bytes() / 2**20, "estimate_mib": estimate, "rss_before_mib": rss0,
        "growth_mib": _rss_mib("VmHWM") - rss0, "peak_rss_mib": _rss_mib("VmHWM"), "peak_solve_mib": peak_solve,
        "threads": r.engine.n_threads,
    })


def _median_reach(logs: list, pct: float) -> str:
    got = [_time_to(log, pct) for log in logs]
    if any(s is None for s, _ in got):
        return "not reached"
    secs = sorted(s for s, _ in got)
    its = sorted(i for _, i in got)
    return f"{secs[len(secs) // 2]:.3g} s ({its[len(its) // 2]})"


def _spot_row(r: dict) -> str:
    logs, key, threads = r["logs"], r["spot"], r["threads"]
    g = logs[0]
    peer = PEER.get((key, threads))
    peer_t = f"{peer[0]:g} / {peer[1]:g} s" if peer else "-"
    peer_m = f" ({peer[2]:g} MiB)" if peer else ""
    return (f"| {key} | {g['nodes']:,} | {g['hands'][0]} x {g['hands'][1]} | {g['threads']} | {len(logs)} | "
            f"{r['schedule']}{' 16-bit' if r.get('compressed') else ''} | "
            + " | ".join(_median_reach(logs, p) for p in PCTS)
            + f" | {peer_t} | {g['compile_s']:.1f} s | {g['state_mib']:,.1f} MiB | "
            f"{g['estimate_mib']:,.1f} / {g['growth_mib']:,.1f} MiB | {_peak(g)}{peer_m} |")


def _peak(g: dict) -> str:
    """Peak RSS of the solve, and with the returned strategy read (logs before that split: one figure)."""
    if "peak_solve_mib" not in g:
        return f"{g['peak_rss_mib']:,.0f} MiB"
    return f"{g['peak_solve_mib']:,.0f} MiB; {g['peak_rss_mib']:,.0f} with the strategy"


def spots_main(args, argv) -> None:
    load0 = os.getloadavg()[0]
    rows = ["| spot | nodes | hands | threads | runs | schedule | " + " | ".join(f"to {p}% (it)" for p in PCTS)
            + " | peer to 0.3% / 0.1% | compile | state | estimate / growth | peak RSS (peer) |",
            "|---|---|---|---|---|---|" + "---|" * len(PCTS) + "---|---|---|---|---|"]
    raw = []
    for path in args.from_json or ():
        raw.extend(json.loads(Path(path).read_text()))
    for key, fname, pct, cap in SPOTS if not args.from_json else ():
        if args.only and key not in args.only:
            continue
        for threads in args.threads:
            for schedule in args.schedules:
                reps = 1 if key == "flop" else args.repeat
                logs = [_in_fresh_process(_spot_run, str(SPOTS_DIR / fname), threads, schedule, args.compressed,
                                          pct, cap, args.check_every) for _ in range(reps)]
                raw.append({"spot": key, "threads": threads, "schedule": schedule, "compressed": args.compressed,
                            "logs": logs, "command": "python benchmarks/bench_hunl.py "
                            + " ".join(sys.argv[1:] if argv is None else argv)})
                print(_spot_row(raw[-1]), flush=True)
    # a river spot has no chance node to split: the engine runs it on one thread whatever was asked (one row)
    rows += [_spot_row(r) for r in raw if r["logs"][0]["threads"] == r["threads"]]
    load1 = os.getloadavg()[0]
    if args.json:
        args.json.write_text(json.dumps(raw))
    body = "\n".join([
        S_START,
        "## HUNL solver against postflop-solver (issue 13 spots)",
        "",
        "Commands (rows in this order; `--json FILE` saves a run's logs and `--spots --from-json FILE ...` "
        "rebuilds this table from them):",
        "",
        *[f"* `{c}`" for c in dict.fromkeys(r.get("command", "python benchmarks/bench_hunl.py --spots") for r in raw)],
        "",
        f"Machine: {cpu_model()}, {os.cpu_count()} cores"
        + (f"; load average {load0:.1f} at the start, {load1:.1f} at the end" if not args.from_json else
           "; the rows were run with no other job on the machine") + ". Spot files in `examples/spots/`; suit isomorphism on, float32 state. Times are wall seconds of "
        f"the solve with the exploitability (NashConv/2) checked every {args.check_every} iterations, checks "
        f"included, numba's compilation excluded (its column; 0 with a warm cache); medians over *runs* fresh "
        "processes. *state*: the solver's arrays; *estimate*: "
        "`HoldemEndgame.memory_estimate()` before solving; *growth*: the process's peak resident memory during "
        "the solve and the first read of the returned average strategy (built on that read) minus its resident "
        "memory before the solve; *peak RSS*: the whole Python process (interpreter, numpy, numba and the tree "
        "included) at the end of the solve, then after that read. Peer figures: postflop-solver on this machine, from issue 13 (the "
        "turn spot's ranges and raise cap are not stated there: ours are postflop-solver's README ranges and 3 "
        "raises a street, so that row may not be the same tree). River spots have no chance node to split and "
        "run on one thread.",
        "",
        *rows,
        S_END,
    ])
    print(body)
    if not args.no_write:
        write_section(BENCHMARKS_MD, body, S_START, S_END)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spots", action="store_true", help="run the spot benchmark (issue 13) instead")
    ap.add_argument("--only", nargs="+", help="with --spots: only these spots (subgame3 subgame4 subgame2 turn flop)")
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2], help="with --spots: thread counts")
    ap.add_argument("--schedules", nargs="+", default=["dcfr"], help="with --spots: dcfr, dcfr-reset, pcfr+ ...")
    ap.add_argument("--compressed", action="store_true", help="with --spots: 16-bit storage")
    ap.add_argument("--repeat", type=int, default=3, help="with --spots: runs per row (median)")
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
    if args.spots:
        if "--check-every" not in (sys.argv if argv is None else argv):
            args.check_every = 10
        spots_main(args, argv)
        return

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

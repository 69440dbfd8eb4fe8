#!/usr/bin/env python
"""Seconds numba takes to compile the HUNL solver's kernels from an empty cache, and to load them from a warm one.

A fresh clone (CI, a new machine) has no numba cache: the first DCFR solve in each process compiles
``games.core.traversal.run_iterations`` and the kernels it calls, once per argument signature (state dtype and
layout). This measures that cost, which dominates a cold test run: a tiny turn spot (two streets, a few combos,
isomorphism on, the default solver settings) solved for 5 iterations in a child process with ``NUMBA_CACHE_DIR``
set to an empty directory, then again in a second child process reading the cache the first one wrote. Each
child records numba's ``numba:compile`` events (:mod:`numba.core.event`); a kernel's seconds include the kernels
it compiles inside it. Writes the section ``bench_compile`` of docs/BENCHMARKS.md unless ``--no-write``.

    python benchmarks/bench_compile.py
    python benchmarks/bench_compile.py --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_compile:start -->", "<!-- bench_compile:end -->"
ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_MD = ROOT / "docs" / "BENCHMARKS.md"
SPOT = {
    "name": "tiny_turn", "board": "Ks7d2d4d", "pot": 600, "stack": 900,
    "ranges": {"oop": "AA,77,QJs,T9s,A5s", "ip": "KK,AK,T9s,87s,QQ"},
    "bet_sizes": {"raise_cap": 0, "turn": {"bets": [0.75], "raises": [], "all_in": False},
                  "river": {"bets": [1.0], "raises": [], "all_in": True}},
    "solver": {"max_iterations": 5},
}


def child() -> None:
    """Solve :data:`SPOT` here and print the wall time and numba's compile seconds per kernel as JSON."""
    from numba.core import event

    seconds: dict[str, float] = {}
    started: dict[tuple, float] = {}

    class Listener(event.Listener):
        def on_start(self, ev):
            started[id(ev.data["dispatcher"]), str(ev.data["args"])] = time.perf_counter()

        def on_end(self, ev):
            d = ev.data["dispatcher"]
            t0 = started.pop((id(d), str(ev.data["args"])), None)
            if t0 is not None:
                name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - t0

    event.register("numba:compile", Listener())
    t0 = time.perf_counter()
    from hunl.solver.solve import solve_endgame
    from hunl.solver.spot_files import parse_spot

    spot = parse_spot(SPOT).replace(isomorphism=True)
    solve_endgame(spot.game(), spot.solver)
    print(json.dumps({"wall": time.perf_counter() - t0, "compile": seconds}))


def measure(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])


def render(cold: dict, warm: dict, load: tuple) -> str:
    top = sorted(cold["compile"].items(), key=lambda kv: -kv[1])[:8]
    rows = ["| kernel (seconds include the kernels compiled inside it) | cold cache, s | warm cache, s |",
            "|---|---:|---:|"]
    for name, s in top:
        rows.append(f"| `{name}` | {s:.1f} | {warm['compile'].get(name, 0.0):.1f} |")
    rows.append(f"| **the whole child process: imports, game, 5 iterations** | **{cold['wall']:.1f}** | "
                f"**{warm['wall']:.1f}** |")
    return "\n".join([
        START, "## Compiling the solver's kernels (a cold numba cache)", "",
        "`python benchmarks/bench_compile.py`: a tiny turn spot solved for 5 iterations in a child process with "
        "an empty `NUMBA_CACHE_DIR` (cold: what a fresh clone, CI or a new machine pays once per process and "
        "argument signature), then in a second child reading that cache (warm). Compile seconds from numba's "
        f"`numba:compile` events. CPU: {cpu_model()}; load average {load[0]:.1f} at the start, {load[1]:.1f} at "
        "the end (the machine is shared).", "", *rows, "", END])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child()
        return 0
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache:
        cold = measure(cache)
        warm = measure(cache)
    text = render(cold, warm, (load0, os.getloadavg()[0]))
    print(text)
    if not a.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

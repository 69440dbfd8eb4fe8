#!/usr/bin/env python
"""Seconds per random HUNL river endgame of the ``hunl_river`` family (one process, one numba thread).

Solves endgames ``0 .. games-1`` of one stream exactly as ``rulelearn generate --family hunl_river`` does
(:meth:`hunl.distill.family.HoldemRiverFamily.solve_one`: sampling, set-up, DCFR to the target, the float16 policy's
exploitability check) and reports the wall and CPU time per endgame, the iterations, the exploitability reached
and the share of verified endgames, overall and per range model. Writes the section ``bench_hunl_family`` of
docs/BENCHMARKS.md unless ``--no-write``.

    python benchmarks/bench_hunl_family.py                      # 50 endgames, the family's defaults
    python benchmarks/bench_hunl_family.py --games 20 --target 0.5 --iterations 500 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_hunl_family:start -->", "<!-- bench_hunl_family:end -->"


BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"

def run(games: int, seed: int, **params) -> dict:
    import numba

    from hunl.distill.family import HoldemRiverFamily

    numba.set_num_threads(1)  # as in the database's worker processes
    family = HoldemRiverFamily(**params)
    family.solve_one(seed + 1, 0)  # load the compiled kernels (not timed)
    rows = []
    load0 = os.getloadavg()[0]
    for k in range(games):
        c0 = time.process_time()
        row = family.solve_one(seed, k)
        row["cpu_seconds"] = time.process_time() - c0
        e = family.sampler.sample(seed, k)
        row["hands"] = int(np.count_nonzero(e.weights, axis=1).sum())
        rows.append({key: (v.item() if isinstance(v, np.generic) else v) for key, v in row.items()
                     if key not in ("policy", "weights", "board")})
    return {"params": family.config(), "games": games, "seed": seed, "rows": rows,
            "load_average": [load0, os.getloadavg()[0]], "cpu": cpu_model()}


def _stats(rows) -> dict:
    s = np.array([r["seconds"] for r in rows])
    return {"n": len(rows), "mean_s": s.mean(), "median_s": float(np.median(s)), "p90_s": float(np.quantile(s, 0.9)),
            "cpu_s": float(np.mean([r["cpu_seconds"] for r in rows])),
            "iterations": float(np.mean([r["iterations"] for r in rows])),
            "hands": float(np.mean([r["hands"] for r in rows])),
            "expl_pct": float(np.mean([r["exploitability_pct_pot"] for r in rows])),
            "expl_max": float(np.max([r["exploitability_pct_pot"] for r in rows])),
            "mbb": float(np.mean([r["exploitability_mbb"] for r in rows])),
            "verified": float(np.mean([r["verified"] for r in rows]))}


def render(result: dict) -> str:
    rows = result["rows"]
    groups = {"all": rows,
              "no bayes range": [r for r in rows if "bayes" not in r["range_model_1"] + r["range_model_2"]],
              "a bayes range": [r for r in rows if "bayes" in r["range_model_1"] + r["range_model_2"]]}
    p = result["params"]
    lines = [START, "## Random HUNL river endgames (`hunl_river` family)", "",
             (f"`python benchmarks/bench_hunl_family.py`: endgames 0..{result['games'] - 1} of seed "
              f"{result['seed']}, one process, one numba thread, {p['algorithm']} up to {p['iterations']} "
              f"iterations or {p['target_pct_pot']}% of the pot (exploitability of the stored float16 strategy). "
              f"CPU: {result['cpu']}; load average {result['load_average'][0]:.1f} at the start, "
              f"{result['load_average'][1]:.1f} at the end (the machine is shared)."), "",
             ("| endgames | n | s / endgame (mean) | median | p90 | CPU s (mean) | hands (both) | iterations | "
              "exploitability % pot (mean / max) | mbb/g | verified |"),
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, g in groups.items():
        if not g:
            continue
        s = _stats(g)
        lines.append(f"| {name} | {s['n']} | {s['mean_s']:.3f} | {s['median_s']:.3f} | {s['p90_s']:.3f} | "
                     f"{s['cpu_s']:.3f} | {s['hands']:.0f} | {s['iterations']:.0f} | {s['expl_pct']:.3f} / "
                     f"{s['expl_max']:.3f} | {s['mbb']:.0f} | {100 * s['verified']:.0f}% |")
    lines.append(END)
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--iterations", type=int, default=None, help="default: the family's")
    ap.add_argument("--target", type=float, default=None, help="target_pct_pot (default: the family's)")
    ap.add_argument("--json", type=Path, help="also write the per-endgame rows here")
    ap.add_argument("--no-write", action="store_true", help="print only; do not touch docs/BENCHMARKS.md")
    args = ap.parse_args(argv)
    params = {}
    if args.iterations is not None:
        params["iterations"] = args.iterations
    if args.target is not None:
        params["target_pct_pot"] = args.target
    result = run(args.games, args.seed, **params)
    text = render(result)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    if not args.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

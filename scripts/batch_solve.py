#!/usr/bin/env python
"""Solve one spot template over many boards and write the aggregate report (frequencies and EV by board).

Usage::

    python scripts/batch_solve.py TEMPLATE --boards SPEC [--seed S] [--out DIR] [--workers N]
                                  [--scheduler ADDRESS] [--iterations N] [--target-pct-pot X]
                                  [--algorithm A] [--dtype {float32,float64}] [--no-plot] [--json] [--quiet]

TEMPLATE is a ``.toml`` or ``.json`` spot file (:mod:`hunl.solver.spot_files`); its board only says the street.
SPEC is ``random:N``, ``iso``, ``iso:N``, ``turns:FLOP``, a comma-separated list of boards, or ``@FILE``
(:func:`hunl.solver.batch.parse_boards`). Writes ``manifest.json``, ``boards/<board>.json`` (one per solved board),
``report.csv``, ``report.parquet``, ``report.md`` and ``report.png`` to ``--out`` (default
``data/batches/<template>_<spec>/``). A killed run resumes where it stopped when run again with the same
command: boards already on disk are not solved again.

Examples::

    python scripts/batch_solve.py examples/spots/turn_QsJh2h8d.toml --boards random:50 --target-pct-pot 0.3
    python scripts/batch_solve.py examples/spots/turn_QsJh2h8d.toml --boards turns:Td9d6h
    python scripts/batch_solve.py my_flop.toml --boards iso:100 --scheduler tcp://10.0.0.5:8786

The work is :func:`hunl.solver.batch.run_batch`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from hunl.solver.batch import run_batch


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="batch_solve.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("template", help="spot file (.toml or .json) whose board is replaced by each board")
    ap.add_argument("--boards", required=True,
                    help="random:N, iso, iso:N, turns:FLOP, a comma-separated board list, or @FILE")
    ap.add_argument("--seed", type=int, default=0, help="seed of random:N and iso:N (default 0)")
    ap.add_argument("--out", default=None, help="batch directory (default data/batches/<template>_<spec>/)")
    ap.add_argument("--workers", type=int, default=None, help="local processes (default: every core)")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address instead of local processes")
    ap.add_argument("--iterations", type=int, default=None, help="maximum iterations per board")
    ap.add_argument("--target-pct-pot", type=float, default=None,
                    help="stop each board at this exploitability, percent of the pot")
    ap.add_argument("--algorithm", default=None, help="dcfr, dcfr-reset, pcfr+, cfr+ or cfr")
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    ap.add_argument("--no-plot", action="store_true", help="do not draw report.png")
    ap.add_argument("--json", action="store_true", help="print one JSON object (the weighted means) on stdout")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    out = args.out
    if out is None:
        slug = re.sub(r"[^A-Za-z0-9_.-]", "_", args.boards.lstrip("@"))[:40]
        out = Path("data") / "batches" / f"{Path(args.template).stem}_{slug}"
    overrides = {"max_iterations": args.iterations, "target_pct_pot": args.target_pct_pot,
                 "algorithm": args.algorithm}
    try:
        report = run_batch(args.template, args.boards, out, seed=args.seed, workers=args.workers,
                           scheduler=args.scheduler, overrides=overrides, dtype=args.dtype, plot=not args.no_plot,
                           progress=not args.quiet)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"batch_solve.py: error: {exc}", file=sys.stderr)
        return 2
    mean = report.table.iloc[-1].to_dict()
    if args.json:
        print(json.dumps({"directory": str(report.directory), "boards": report.boards, "solved": report.solved,
                          "seconds": round(report.seconds, 2),
                          "compile_seconds": round(float(report.table["compile_seconds"].iloc[:-1].sum()), 3),
                          "mean": mean,
                          "files": {k: str(v) for k, v in report.files.items()}}))
        return 0
    print(f"{report.boards} boards ({report.solved} solved now, {report.boards - report.solved} on disk) in "
          f"{report.seconds:.1f} s")
    print(f"weighted means: OOP EV {mean['ev_oop_pct_pot']:.1f}% of the pot, exploitability "
          f"{mean['exploitability_pct_pot']:.3f}% of the pot")
    freq = [k for k in mean if k.startswith("oop ")]
    print("OOP first action: " + ", ".join(f"{k.removeprefix('oop ')} {100 * mean[k]:.0f}%" for k in freq))
    for key, path in report.files.items():
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Reproduce the learning experiments of Ganzfried & Yusuf (2017) and regenerate docs/REPRODUCTION.md.

One command: generate (or reuse) the solution database, run every experiment, save the figures
``docs/figures/repro_*.png``, the tables (CSV under ``--out``), the numbers
(``docs/reproduction_results.json``),
and rewrite the marked numbers and tables of ``docs/REPRODUCTION.md``::

    python scripts/reproduce.py                          # the paper's 100,000 games (about 15-25 min on 2
    cores) python scripts/reproduce.py --games 20000 --db data/db20k --no-doc   # a quicker run that leaves
    the doc alone

The doc is a template: ``<!--v:key-->...<!--/v-->`` holds one number and ``<!--block:key-->`` ...
``<!--/block:key-->`` one table; a run replaces their contents and fails if the doc names a key it did not
produce (:mod:`rulelearn.report.docblocks`). Stages and their wall times are printed and recorded in the doc. The
experiments are :func:`rulelearn.experiments.reproduction.reproduce`; the rule studies that write docs/RULES.md
(:func:`games.betgame.fundamental.run_fundamental_study`, :func:`rulelearn.experiments.frontier.run_frontier`)
run as its last stages.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from games.betgame.fundamental import FundamentalJob, run_fundamental_study
from rulelearn.experiments.frontier import FrontierJob, run_frontier
from rulelearn.experiments.reproduction import ReproductionJob, render_only, reproduce
from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--games", type=int, default=100_000, help="games in the database (default 100000, the paper's)"
    )
    p.add_argument(
        "--db", default="data/betgame100k", help="solution database directory (default data/betgame100k)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the game stream, splits and learners (default 0)"
    )
    p.add_argument("--workers", type=int, default=None, help="solver processes (default: all cores)")
    p.add_argument("--jobs", type=int, default=2, help="threads for the tree fits (default 2)")
    p.add_argument(
        "--tree-games",
        type=int,
        default=80_000,
        help="games of the depth sweep, split 80/20 (default 80000: the paper's 64000/16000)",
    )
    p.add_argument(
        "--table-games",
        type=int,
        default=20_000,
        help="games of Table 1, split 80/20 (default 20000, AAAI-W Section 4.2)",
    )
    p.add_argument("--table-depth", type=int, default=12, help="tree depth of Table 1 (default 12)")
    p.add_argument("--min-depth", type=int, default=3)
    p.add_argument("--max-depth", type=int, default=20)
    p.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="1,000-game subsets for the paper-scale k-NN and k-medoids runs (default 10)",
    )
    p.add_argument("--out", default="data/repro", help="CSV tables (default data/repro)")
    p.add_argument("--figures", default="docs/figures", help="figure directory (default docs/figures)")
    p.add_argument("--results", default="docs/reproduction_results.json", help="numbers of the run (JSON)")
    p.add_argument("--doc", default="docs/REPRODUCTION.md", help="the doc whose marked numbers are rewritten")
    p.add_argument("--no-doc", action="store_true", help="do not rewrite the doc or the results JSON")
    p.add_argument("--no-external", action="store_true", help="skip the fundamental-rules scripts")
    p.add_argument(
        "--render-only",
        action="store_true",
        help="only rewrite the doc from the last run's <out>/results.pkl (no experiments)",
    )
    args = p.parse_args(argv)
    if args.render_only and args.no_doc:
        p.error("--render-only rewrites the doc; it cannot be combined with --no-doc")
    return args


def main(argv=None) -> int:
    a = parse_args(argv)
    os.chdir(ROOT)
    job = ReproductionJob(games=a.games, db=a.db, seed=a.seed, workers=a.workers, jobs=a.jobs,
                          tree_games=a.tree_games, table_games=a.table_games, table_depth=a.table_depth,
                          min_depth=a.min_depth, max_depth=a.max_depth, repeats=a.repeats, out=a.out,
                          figures=a.figures, results=a.results, doc=None if a.no_doc else a.doc)
    if a.render_only:
        return render_only(job)
    rules = {} if a.no_external else {
        "rules: fundamental_rules.py": lambda: run_fundamental_study(FundamentalJob(db=a.db)),
        "rules: rule_frontier.py": lambda: run_frontier(FrontierJob(db=a.db, jobs=a.workers or os.cpu_count() or 1)),
    }
    return reproduce(job, rules)


if __name__ == "__main__":
    sys.exit(main())

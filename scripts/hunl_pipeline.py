#!/usr/bin/env python
"""The HUNL distillation pipeline: random river endgames -> DCFR solutions -> per-street trees -> exploitability.

One command (issue 6)::

    python scripts/hunl_pipeline.py                                 # 300 river endgames, a few minutes
    python scripts/hunl_pipeline.py --endgames 2500 --libratus --leaf-endgames 400 --leaf-iterations 600 \
        --doc docs/HUNL.md                                          # the run docs/HUNL.md shows
    python scripts/hunl_pipeline.py --endgames 1000000 --scheduler tcp://scheduler:8786   # a cluster

The pipeline is :func:`hunl.distill.experiment.run_pipeline`. Stages (each prints its wall time; the database stage
resumes after a kill):

1. solve ``--endgames`` random river endgames (:class:`hunl.distill.family.HoldemRiverFamily`: random boards, ranges from
   the preflop-class, strength-shaped and Bayes models, random pot and stack) with DCFR into the solution database
   ``--db`` (checksummed Parquet shards; local processes or a Dask cluster);
2. split them into training and held-out endgames (``--test-fraction``);
3. turn every decision of the training endgames into a row of interpretable features and equilibrium action-class
   frequencies (:mod:`hunl.distill.decisions`);
4. fit one EMD tree per street and decision type (:class:`hunl.distill.policy.DistilledPolicy`), cut at every depth of
   ``--depths``;
5. play each policy and the baselines (uniform random, always check/call, equity threshold) in every held-out
   endgame and measure exploitability and EV against the DCFR solution (:mod:`hunl.distill.cost`);
6. measure the 80-20 and all-in rules and the rules of a shallow tree (:mod:`hunl.distill.fundamental`);
7. with ``--libratus``: solve the four Libratus endgames with DCFR and score the distilled policy in them.

Outputs: ``<out>/results.json`` and ``<out>/hunl_frontier.png``; with ``--doc docs/HUNL.md`` also the marked numbers
and tables of that doc (``<!--v:key-->`` / ``<!--block:key-->`` markers, as ``scripts/reproduce.py``), its figure
``<figures>/hunl_frontier.png`` and ``docs/hunl_results.json``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hunl.distill.experiment import PipelineJob, run_pipeline
from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--endgames", type=int, default=300, help="random river endgames to solve (default 300)")
    p.add_argument("--db", default=None, help="solution database (default data/hunl_river_<endgames>)")
    p.add_argument("--seed", type=int, default=0, help="seed of the endgame stream and the split (default 0)")
    p.add_argument("--iterations", type=int, default=1000, help="maximum DCFR iterations per endgame")
    p.add_argument("--target-pct-pot", type=float, default=0.1,
                   help="DCFR stops at this exploitability (default 0.1%% of the pot)")
    p.add_argument("--test-fraction", type=float, default=0.2, help="held-out share of the endgames (default 0.2)")
    p.add_argument("--max-test", type=int, default=400, help="held-out endgames scored at most (default 400)")
    p.add_argument("--depth", type=int, default=6, help="depth of the headline policy (default 6)")
    p.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 8, 10],
                   help="depths of the frontier (default 1 2 3 4 5 6 8 10)")
    p.add_argument("--optimal-depths", type=int, nargs="*", default=[2, 4, 6],
                   help="depths whose leaf strategies are also optimised for exploitability (CFR-BR; default 2 4 6)")
    p.add_argument("--leaf-endgames", type=int, default=200,
                   help="training endgames the leaf optimisation runs on (default 200)")
    p.add_argument("--leaf-iterations", type=int, default=200, help="CFR-BR iterations (default 200)")
    p.add_argument("--rule-depth", type=int, default=3, help="depth of the tree whose rules are printed")
    p.add_argument("--rule-endgames", type=int, default=100, help="held-out endgames for rule costs")
    p.add_argument("--samples", type=int, default=300_000, help="decisions drawn per tree (default 300000)")
    p.add_argument("--min-samples-leaf", type=int, default=200)
    p.add_argument("--ranges", choices=["start", "node"], default="start",
                   help="range features against the endgame's starting ranges (default) or the ranges at the node")
    p.add_argument("--criterion", choices=["squared_error", "emd"], default="squared_error",
                   help="tree split criterion on cumulative class distributions (default squared_error: CART, "
                        "mean leaf strategies; emd: exact EMD splits, median leaf strategies)")
    p.add_argument("--workers", type=int, default=None, help="local processes (default: all cores)")
    p.add_argument("--scheduler", default=None, help="Dask scheduler address for the solves")
    p.add_argument("--libratus", action="store_true", help="also score the policy in the four Libratus endgames")
    p.add_argument("--out", default="data/hunl", help="results directory (default data/hunl)")
    p.add_argument("--doc", default=None,
                   help="rewrite the marked numbers of this doc (docs/HUNL.md for the documented run) and put the "
                        "frontier figure and the results JSON beside it; by default only <out> is written")
    p.add_argument("--figures", default="docs/figures", help="figure directory used with --doc (default docs/figures)")
    p.add_argument("--no-doc", action="store_true", help="do not rewrite a doc even if --doc is given")
    a = p.parse_args(argv)
    if a.endgames < 10:
        p.error("--endgames must be at least 10")
    if not 0 < a.test_fraction < 1:
        p.error("--test-fraction must be in (0, 1)")
    if a.depth not in a.depths:
        a.depths = sorted(set(a.depths) | {a.depth})
    stray = sorted(set(a.optimal_depths) - set(a.depths) - {a.rule_depth})
    if stray:
        p.error(f"--optimal-depths {stray} must be among --depths or --rule-depth")
    if a.db is None:
        a.db = f"data/hunl_river_{a.endgames}"
    return a


def main(argv=None) -> int:
    a = parse_args(argv)
    os.chdir(ROOT)
    command = "python scripts/hunl_pipeline.py " + " ".join(sys.argv[1:] if argv is None else argv)
    return run_pipeline(PipelineJob(
        endgames=a.endgames, db=a.db, seed=a.seed, iterations=a.iterations, target_pct_pot=a.target_pct_pot,
        test_fraction=a.test_fraction, max_test=a.max_test, depth=a.depth, depths=tuple(a.depths),
        optimal_depths=tuple(a.optimal_depths), leaf_endgames=a.leaf_endgames, leaf_iterations=a.leaf_iterations,
        rule_depth=a.rule_depth, rule_endgames=a.rule_endgames, samples=a.samples,
        min_samples_leaf=a.min_samples_leaf, ranges=a.ranges, criterion=a.criterion, workers=a.workers,
        scheduler=a.scheduler, libratus=a.libratus, out=a.out, doc=None if a.no_doc else a.doc,
        figures=a.figures, command=command))


if __name__ == "__main__":
    sys.exit(main())

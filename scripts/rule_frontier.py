#!/usr/bin/env python
"""Exploitability-optimal rule sets: number of leaves (1-15) against held-out mean exploitability.

For several train/test splits of a solution database, grows a CART tree and a tree with exploitability in the
loop over the games' cdf features, fits medoid / mean / LP-optimal strategies in their leaves, fits k-medoids rule
sets (k = 1..15, test games assigned to the EMD-nearest medoid) with the same three kinds per cluster, and writes

* ``docs/figures/rule_frontier.png``: the frontier, one panel per leaf kind (mean over splits, min-max band);
* ``<out>/frontier.csv`` (one row per split, method, kind and size) and ``<out>/frontier_summary.csv``;
* the blocks ``frontier-table``, ``frontier-acceptance`` and ``frontier-rules`` of ``docs/RULES.md``.

::

    python scripts/rule_frontier.py --db data/db20k                 # 20,000 games, 5 splits (minutes on 2 cores)
    python scripts/rule_frontier.py --db data/db20k --games 3000 --seeds 0 --max-leaves 5 --no-doc   # a quick look
    python scripts/rule_frontier.py --db data/db20k --lp-games-study   # also: held-out exploitability vs LP size

The (split, method) tasks run in ``--jobs`` worker processes (default: all cores). ``--lp-games-study`` measures
how the held-out exploitability of an optimal group strategy depends on the number of games its LP sees (block
``frontier-lp-games`` of ``docs/RULES.md``; a few extra minutes, not part of the default run). The work is
:func:`rulelearn.experiments.frontier.run_frontier`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rulelearn.experiments.frontier import FrontierJob, run_frontier
from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default="data/db20k", help="solution database (default data/db20k)")
    p.add_argument("--games", type=int, default=20_000, help="use the first N games (default 20000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one split per seed")
    p.add_argument("--max-leaves", type=int, default=15)
    p.add_argument("--max-fit-games", type=int, default=300, help="games per optimal-leaf LP (subsample)")
    p.add_argument("--acceptance-leaves", type=int, default=5)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes, one (split, method) task each (default: all cores)")
    p.add_argument("--out", default="data/rules", help="CSV directory (default data/rules)")
    p.add_argument("--figure", default="docs/figures/rule_frontier.png")
    p.add_argument("--doc", default="docs/RULES.md")
    p.add_argument("--no-doc", action="store_true", help="leave docs/RULES.md alone")
    p.add_argument("--lp-games-study", action="store_true",
                   help="also measure held-out exploitability against the games per LP (block frontier-lp-games)")
    p.add_argument("--lp-repeats", type=int, default=4, help="subsamples per cell of the LP-games study")
    return p.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(argv)
    doc = None if a.no_doc else (Path(a.doc) if Path(a.doc).is_absolute() else ROOT / a.doc)
    return run_frontier(FrontierJob(db=a.db, games=a.games, seeds=tuple(a.seeds), max_leaves=a.max_leaves,
                                    max_fit_games=a.max_fit_games, acceptance_leaves=a.acceptance_leaves,
                                    jobs=a.jobs, out=a.out, figure=a.figure, doc=doc,
                                    lp_games_study=a.lp_games_study, lp_repeats=a.lp_repeats))


if __name__ == "__main__":
    sys.exit(main())

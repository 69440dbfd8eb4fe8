#!/usr/bin/env python
"""Fundamental rules of the bet game: the paper's 80-20 and all-in rules tested, and rules found automatically.

Splits the database 80/20 (seed 0). Trees and searches are fitted on the training games' decisions; every
number (coverage, agreement, exploitability; see :mod:`rulelearn.rules.statistics`) is measured on the test games.
The study is :func:`games.betgame.fundamental.run_fundamental_study`.
Writes

* ``docs/figures/rules_by_share_beaten.png``: what the equilibrium does against the share of the opponent's
  range the hand beats, with the paper's 80-20 band and the rules found;
* ``<out>/paper_rules.csv``, ``<out>/found_rules.csv``, ``<out>/by_share_beaten.csv``;
* the blocks ``fundamental-setup``, ``paper-rules`` and ``found-rules`` of ``docs/RULES.md``.

::

    python scripts/fundamental_rules.py --db data/db20k            # about a minute
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from games.betgame.fundamental import FundamentalJob, run_fundamental_study
from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default="data/db20k", help="solution database (default data/db20k)")
    p.add_argument("--games", type=int, default=20_000, help="use the first N games (default 20000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the 80/20 split")
    p.add_argument("--min-leaf", type=float, default=0.01,
                   help="fewest training decisions in a tree leaf, as a share (default 0.01)")
    p.add_argument("--min-agreement", type=float, default=0.8, help="agreement of the searched rules")
    p.add_argument("--out", default="data/rules")
    p.add_argument("--figure", default="docs/figures/rules_by_share_beaten.png")
    p.add_argument("--doc", default="docs/RULES.md")
    p.add_argument("--no-doc", action="store_true")
    return p.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(argv)
    doc = None if a.no_doc else (Path(a.doc) if Path(a.doc).is_absolute() else ROOT / a.doc)
    return run_fundamental_study(FundamentalJob(db=a.db, games=a.games, seed=a.seed, min_leaf=a.min_leaf,
                                                min_agreement=a.min_agreement, out=a.out, figure=a.figure, doc=doc))


if __name__ == "__main__":
    sys.exit(main())

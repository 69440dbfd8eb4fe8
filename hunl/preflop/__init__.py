"""Heads-up preflop push/fold: exact equities, the game solved exactly, charts, and rule cards with their cost.

The small blind moves all-in or folds; the big blind calls or folds (docs/PREFLOP.md).

Equities
    * :mod:`hunl.preflop.ranktable` -- the evaluator's non-flush strengths by hole ranks and board rank multiset;
    * :mod:`hunl.preflop.boards` -- exact win/tie counts of a matchup over all 1,712,304 boards (two kernels);
    * :mod:`hunl.preflop.matchups` -- the 47,008 matchups distinct up to suits and order;
    * :mod:`hunl.preflop.equity_build` -- the resumable build of the table; :mod:`hunl.preflop.equity` -- the
      shipped table (per combo pair and per class pair).
The game
    * :mod:`hunl.preflop.game` -- :class:`PushFoldGame` on the solver core's interface (169 classes, an exact
      reduction, or 1,326 combos); :mod:`hunl.preflop.solve` -- LP / DCFR solves and stack sweeps;
      :mod:`hunl.preflop.values` -- closed-form values and best responses.
Charts and rules
    * :mod:`hunl.preflop.charts` -- 13x13 charts, thresholds, gaps, mixed hands, plots;
    * :mod:`hunl.preflop.clauses`, :mod:`hunl.preflop.rules`, :mod:`hunl.preflop.rule_mip` -- rule cards of at
      most five clauses per stack band, their exact cost in mbb/g, the optimal card by MILP;
      :mod:`hunl.preflop.tree_rules` -- the decision-tree baseline; :mod:`hunl.preflop.sklansky` --
      Sklansky-Chubukov numbers; :mod:`hunl.preflop.cardfile` -- the shipped cards;
    * :mod:`hunl.preflop.published` -- the published figures checked against;
    * :mod:`hunl.preflop.report` -- docs/PREFLOP.md; :mod:`hunl.preflop.cli` -- the ``pushfold`` command.

>>> sol = solve_pushfold(10)
>>> round(sol.value, 4), int((sol.push > 0.5).sum()), int((sol.call > 0.5).sum())
(-0.0454, 113, 69)
"""

from hunl.preflop.boards import NUM_BOARDS, matchup_counts
from hunl.preflop.charts import format_chart, format_threshold_chart, hand_thresholds
from hunl.preflop.clauses import HandSet, candidate_clauses
from hunl.preflop.equity import EquityTable, load_equity_table
from hunl.preflop.game import PushFoldGame
from hunl.preflop.matchups import NUM_MATCHUPS, canonical_matchups
from hunl.preflop.rules import DEFAULT_BANDS, RuleCard, band_reports, fit_rule_card, strategy_cost
from hunl.preflop.sklansky import sklansky_chubukov
from hunl.preflop.solve import PushFoldSolution, StackSweep, solve_pushfold, solve_stacks

__all__ = [
    "DEFAULT_BANDS",
    "NUM_BOARDS",
    "NUM_MATCHUPS",
    "EquityTable",
    "HandSet",
    "PushFoldGame",
    "PushFoldSolution",
    "RuleCard",
    "StackSweep",
    "band_reports",
    "candidate_clauses",
    "canonical_matchups",
    "fit_rule_card",
    "format_chart",
    "format_threshold_chart",
    "hand_thresholds",
    "load_equity_table",
    "matchup_counts",
    "sklansky_chubukov",
    "solve_pushfold",
    "solve_stacks",
    "strategy_cost",
]

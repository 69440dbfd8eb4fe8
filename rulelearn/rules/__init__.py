"""Rules a person can remember, and what they cost.

* :mod:`rulelearn.rules.conditions` -- conditions and one rule per tree leaf;
* :mod:`rulelearn.rules.formatting` -- rules and strategies in words;
* :mod:`rulelearn.rules.growth` -- rule-set trees grown best-first (CART, exploitability in the loop);
* :mod:`rulelearn.rules.leaves` -- the strategy each leaf memorises (medoid, mean, exploitability-optimal);
* :mod:`rulelearn.rules.fundamental` -- plain one-decision rules (the 80-20 and all-in rules), from trees and
  searches;
* :mod:`rulelearn.rules.statistics` -- :class:`~rulelearn.rules.statistics.RuleStatistics`: coverage,
  agreement, mass and cost of a rule, its weighting of decisions a parameter.
"""

"""Experiments on solution databases, each a function of :class:`~rulelearn.data.splits.SolvedGames`.

* :mod:`rulelearn.experiments.demo` -- the main job (``rulelearn demo``);
* :mod:`rulelearn.experiments.scoring` -- held-out scores (EMD, player 1's exploitability, R^2);
* :mod:`rulelearn.experiments.trees`, :mod:`rulelearn.experiments.neighbours` -- the papers' experiments;
  :mod:`rulelearn.experiments.reproduction` runs them all (``scripts/reproduce.py``) and
  :mod:`rulelearn.experiments.reproduction_report` writes docs/REPRODUCTION.md;
* :mod:`rulelearn.experiments.frontier` -- exploitability-optimal rule sets against their size (docs/RULES.md).
"""

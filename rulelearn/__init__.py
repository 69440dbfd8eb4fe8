"""rulelearn: distil game-theoretic solutions into human-readable rules and measure what they cost.

The game-agnostic layer (it imports no game; a game family plugs in through :mod:`rulelearn.family`):

* :mod:`rulelearn.data` -- random private-information distributions, the solution database, executors, splits;
* :mod:`rulelearn.features` -- the papers' data representations and earth mover's distances;
* :mod:`rulelearn.learners` -- EMD-aware learners and :class:`~rulelearn.learners.model.StrategyModel`;
* :mod:`rulelearn.rules` -- rules from trees, rule sets, fundamental rules and their statistics;
* :mod:`rulelearn.experiments` -- the demo, the papers' reproduction, the rule frontier;
* :mod:`rulelearn.report` -- plots, docs written by code, stage timing;
* :mod:`rulelearn.validation`, :mod:`rulelearn.numeric` -- input checks and numerics shared by every package;
* :mod:`rulelearn.cli` -- ``rulelearn demo | generate | rules``.
"""

__version__ = "0.1.0"

"""Distilling solved HUNL endgames into rules (``scripts/hunl_pipeline.py``, docs/HUNL.md).

* :mod:`hunl.distill.sampler` -- random river/turn endgames (boards, ranges from three models, pot and stack);
  :mod:`hunl.distill.family` -- the ``"hunl_river"`` game family built on it, solved into a solution database;
* :mod:`hunl.distill.features` -- equity against a range, range percentile, equity deciles, E[HS], E[HS^2];
  :mod:`hunl.distill.abstraction` -- card-abstraction encoders, on the clustering of
  :mod:`hunl.distill.clustering`, with the encoding error of :mod:`hunl.distill.encoding`;
* :mod:`hunl.distill.actions` -- ordered action classes shared by all trees; :mod:`hunl.distill.decisions` --
  decisions as feature rows;
* :mod:`hunl.distill.policy` -- per-street trees and self-play; :mod:`hunl.distill.optimal_leaves` -- leaf
  strategies of least exploitability (CFR-BR);
* :mod:`hunl.distill.cost` -- what a policy costs inside a solved endgame (exploitability and EV against the
  solution);
* :mod:`hunl.distill.fundamental` -- plain rules with coverage, agreement and cost;
* :mod:`hunl.distill.pipeline` -- the parallel steps; :mod:`hunl.distill.experiment` -- the whole pipeline and
  its report.
"""

"""What learners see: the papers' data representations of solved games, and earth mover's distances.

* :mod:`rulelearn.features.representations` -- the ten representations (cdf/pdf features, per game or per hand,
  strategies or sampled actions);
* :mod:`rulelearn.features.distance` -- Algorithms 1 and 2 as scaled L1 distances, the EMD medoid.
"""

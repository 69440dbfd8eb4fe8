"""Solved games as data: random private-information distributions, the solution database, where work runs, and
splits.

* :mod:`rulelearn.data.distributions` -- random deals (Algorithms 4 and 5), marginals, cdfs;
* :mod:`rulelearn.data.database` -- :class:`~rulelearn.data.database.SolutionDatabase`: generation (resumable,
  parallel) and checked reading; :mod:`rulelearn.data.shards` -- its on-disk format (checksummed Parquet shards);
* :mod:`rulelearn.data.executors` -- the project's one place for parallel work (process pools, Dask, persistent
  workers);
* :mod:`rulelearn.data.splits` -- :class:`~rulelearn.data.splits.SolvedGames` (columns with their ranges and
  strategies computed once) and seeded train/test splits.
"""

"""Strategy learners with scikit-learn's conventions: ``fit(X, Y)`` with strategies ``Y`` of shape
``(m, ..., n_actions)``, ``predict(X)`` returning strategies of the same trailing shape, ``model_size`` saying how
much a person must memorise; and :class:`StrategyModel`, a representation and a learner fitted from ranges to
whole strategies.

* :mod:`rulelearn.learners.tree` -- :class:`StrategyTree` (CART or the exact EMD tree of
  :mod:`rulelearn.learners.emd_tree`);
* :mod:`rulelearn.learners.knn`, :mod:`rulelearn.learners.kmedoids`, :mod:`rulelearn.learners.cluster_tree` --
  EMD nearest neighbours, k-medoids, cluster-then-tree, on the compiled exact L1 kernels of
  :mod:`rulelearn.learners.l1`;
* :mod:`rulelearn.learners.model` -- :class:`StrategyModel`.
"""

from rulelearn.learners.cluster_tree import ClusterThenTree
from rulelearn.learners.emd_tree import EMDTreeRegressor
from rulelearn.learners.kmedoids import EMDKMedoids
from rulelearn.learners.knn import EMDNearestNeighbors
from rulelearn.learners.l1 import L1NeighborIndex
from rulelearn.learners.model import StrategyModel
from rulelearn.learners.tree import StrategyTree

__all__ = ["ClusterThenTree", "EMDKMedoids", "EMDNearestNeighbors", "EMDTreeRegressor", "L1NeighborIndex",
           "StrategyModel", "StrategyTree"]

"""Strategy learners with scikit-learn's conventions: ``fit(X, Y)`` with strategies ``Y`` of shape
``(m, ..., n_actions)``, ``predict(X)`` returning strategies of the same trailing shape, ``model_size`` saying how
much a person must memorise."""

from rulelearn.learners.cluster_tree import ClusterThenTree
from rulelearn.learners.emd_tree import EMDTreeRegressor
from rulelearn.learners.kmedoids import EMDKMedoids
from rulelearn.learners.knn import EMDNearestNeighbors
from rulelearn.learners.tree import StrategyTree

__all__ = ["ClusterThenTree", "EMDKMedoids", "EMDNearestNeighbors", "EMDTreeRegressor", "StrategyTree"]

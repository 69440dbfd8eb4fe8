"""Cluster, then explain the clusters with a small tree (Ganzfried & Yusuf 2017, AAAI-W Section 4.4)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from rulelearn.learners._common import check_features, check_targets
from rulelearn.learners.kmedoids import EMDKMedoids

__all__ = ["ClusterThenTree"]


class ClusterThenTree(BaseEstimator):
    """k-medoids by input EMD, then a decision tree that says which medoid's strategy to play.

    The paper (Section 4.4) fits the tree on the ``n_clusters`` medoids alone (``tree_on="medoids"``): a
    tree with at most ``n_clusters`` leaves that separates the canonical games, so a person memorises a few
    if-then rules and ``n_clusters`` strategies instead of computing distances. ``tree_on="members"`` fits it on
    every training game labelled with its nearest medoid, which imitates the nearest-medoid assignment on the
    whole input distribution rather than on ``n_clusters`` points.

    Parameters
    ----------
    n_clusters : int, default 5
    max_depth : int or None, default None
    tree_on : {"medoids", "members"}, default "medoids"
    n_players : int, default 2
    input_kind : {"cdf", "pdf"}, default "cdf"
    backend : {"kmedoids", "sklearn_extra"}, default "kmedoids"
    random_state : int or None, default 0

    Attributes
    ----------
    kmedoids_ : EMDKMedoids
    tree_ : sklearn.tree.DecisionTreeClassifier
        Predicts the medoid index from the features.
    """

    #: Distances are input EMDs between whole games, so rows must be whole games (``per_hand=None``).
    whole_game_inputs = True

    def __init__(self, n_clusters: int = 5, max_depth=None, tree_on: str = "medoids", n_players: int = 2,
                 input_kind: str = "cdf", backend: str = "kmedoids", random_state=0):
        self.n_clusters = n_clusters
        self.max_depth = max_depth
        self.tree_on = tree_on
        self.n_players = n_players
        self.input_kind = input_kind
        self.backend = backend
        self.random_state = random_state

    def fit(self, X, Y):
        """Cluster the training games and fit the tree.

        Parameters
        ----------
        X : array_like of float, shape ``(m, n_players * d)``
        Y : array_like of float, shape ``(m, ..., n_actions)``

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On malformed inputs or an unknown ``tree_on``.
        """
        if self.tree_on not in ("medoids", "members"):
            raise ValueError(f"tree_on must be 'medoids' or 'members', got {self.tree_on!r}")
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        km = EMDKMedoids(n_clusters=self.n_clusters, n_players=self.n_players, input_kind=self.input_kind,
                         backend=self.backend, random_state=self.random_state).fit(X, Y)
        if self.tree_on == "medoids":
            tx, ty = km.cluster_centers_, np.arange(len(km.medoid_indices_))
        else:
            tx, ty = X, km.labels_
        self.tree_ = DecisionTreeClassifier(max_depth=self.max_depth, random_state=self.random_state).fit(tx, ty)
        self.kmedoids_ = km
        self.n_features_in_ = X.shape[1]
        return self

    def predict_cluster(self, X) -> np.ndarray:
        """The medoid the tree picks for each game, shape ``(k,)`` int64."""
        check_is_fitted(self, "tree_")
        return self.tree_.predict(check_features(X)).astype(np.int64)

    def predict(self, X) -> np.ndarray:
        """Strategies, shape ``(k,) + Y.shape[1:]``."""
        return self.kmedoids_.medoid_targets_[self.predict_cluster(X)]

    def leaf_strategies(self) -> np.ndarray:
        """Strategy of every tree node: the medoid with the largest share of the node's training weight."""
        check_is_fitted(self, "tree_")
        classes = self.tree_.classes_[self.tree_.tree_.value[:, 0, :].argmax(axis=1)]
        return self.kmedoids_.medoid_targets_[classes]

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_leaves, "rules")``; the rules point to ``n_clusters`` memorised strategies."""
        check_is_fitted(self, "tree_")
        return int(self.tree_.get_n_leaves()), "rules"

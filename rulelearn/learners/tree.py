"""Decision trees that predict whole strategies (Ganzfried & Yusuf 2017, *Games* Section 4; AAAI-W Section 4.2).

The tree regresses the *cumulative* action probabilities (``strategy_cumulative``). Two reasons:

* the L1 distance between cumulative vectors is exactly the strategy EMD of Algorithm 2 (times a constant), so
  ``criterion="absolute_error"`` grows the tree that greedily minimises the EMD itself, and the default
  ``"squared_error"`` minimises the squared L2 between cdfs (the Cramér distance), a fast proxy;
* a leaf predicts the mean (or coordinate-wise median) of cumulative vectors, which is again non-decreasing and
  ends at 1: every leaf is a valid strategy, with no renormalisation.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.validation import check_is_fitted

from rulelearn.distance import strategy_cumulative
from rulelearn.learners._common import check_features, check_targets, cumulative_to_strategy

__all__ = ["StrategyTree"]


class StrategyTree(BaseEstimator):
    """A CART regression tree from game features to strategies.

    Parameters
    ----------
    max_depth : int or None, default None
        Depth limit (the paper studies 3 to 20).
    min_samples_leaf : int, default 1
    criterion : {"squared_error", "absolute_error"}, default "squared_error"
        Split criterion on the cumulative strategies (see the module docstring): ``"absolute_error"`` is the
        EMD itself and much slower.
    random_state : int or None, default 0
        Tie-breaking between equally good splits (scikit-learn permutes features).

    Attributes
    ----------
    tree_ : sklearn.tree.DecisionTreeRegressor
        The fitted scikit-learn tree on cumulative targets.
    target_shape_ : tuple of int
        ``Y.shape[1:]``, e.g. ``(d, n_bets)`` or ``(n_bets,)``.
    n_features_in_ : int
    """

    def __init__(self, max_depth=None, min_samples_leaf: int = 1, criterion: str = "squared_error",
                 random_state=0):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        self.random_state = random_state

    def fit(self, X, Y):
        """Grow the tree.

        Parameters
        ----------
        X : array_like of float, shape ``(m, n_features)``
        Y : array_like of float, shape ``(m, ..., n_actions)``
            Strategies; rows on the last axis sum to 1.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On malformed inputs or an unknown criterion.
        """
        if self.criterion not in ("squared_error", "absolute_error"):
            raise ValueError(f"criterion must be 'squared_error' or 'absolute_error', got {self.criterion!r}")
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        self.target_shape_ = Y.shape[1:]
        cum = strategy_cumulative(Y).reshape(X.shape[0], -1)
        self.tree_ = DecisionTreeRegressor(
            max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf, criterion=self.criterion,
            random_state=self.random_state,
        ).fit(X, cum)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        """Strategies, shape ``(k,) + target_shape_``."""
        check_is_fitted(self, "tree_")
        X = check_features(X)
        cum = self.tree_.predict(X).reshape((X.shape[0],) + self.target_shape_[:-1] + (-1,))
        return cumulative_to_strategy(cum)

    def leaf_strategies(self) -> np.ndarray:
        """The strategy of every node of the fitted tree, shape ``(n_nodes,) + target_shape_``."""
        check_is_fitted(self, "tree_")
        values = self.tree_.tree_.value.reshape((self.tree_.tree_.node_count,) + self.target_shape_[:-1] + (-1,))
        return cumulative_to_strategy(values)

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_leaves, "rules")``: one if-then rule per leaf."""
        check_is_fitted(self, "tree_")
        return int(self.tree_.get_n_leaves()), "rules"

"""Decision trees that predict whole strategies (Ganzfried & Yusuf 2017, *Games* Section 4; AAAI-W Section 4.2).

The tree regresses the *cumulative* action probabilities (``strategy_cumulative``). Two reasons:

* the L1 distance between cumulative vectors is exactly the strategy EMD of Algorithm 2 (times a constant,
  :func:`rulelearn.features.distance.output_embedding`), so an absolute-error tree on them grows the tree that greedily
  minimises the EMD itself: ``criterion="emd"`` (our compiled tree, :class:`~rulelearn.learners.EMDTreeRegressor`)
  or ``"absolute_error"`` (scikit-learn's, the same criterion but about 100 times slower); its node impurities
  are mean EMDs, and ``training_loss_`` is the mean training EMD. The default ``"squared_error"`` minimises the
  squared L2 between cdfs (the Cramér distance), a fast proxy;
* a leaf predicts the mean (squared error) or coordinate-wise median (EMD) of cumulative vectors, which is again
  non-decreasing and ends at 1: every leaf is a valid strategy, with no renormalisation.

For sampled outputs (representations 7-10, one-hot targets) the EMD tree's leaves are the median sampled bet and
the squared-error tree's leaves the frequencies of the sampled bets; see :mod:`rulelearn.features.representations`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.validation import check_is_fitted

from rulelearn.features.distance import action_gap_weights, strategy_cumulative
from rulelearn.learners._common import check_features, check_targets, cumulative_to_strategy
from rulelearn.learners.emd_tree import EMDTreeRegressor

__all__ = ["StrategyTree"]

_CRITERIA = ("squared_error", "absolute_error", "emd")


class StrategyTree(BaseEstimator):
    """A CART regression tree from game features to strategies.

    Parameters
    ----------
    max_depth : int or None, default None
        Depth limit (the paper studies 3 to 20).
    min_samples_leaf : int, default 1
    criterion : {"squared_error", "absolute_error", "emd"}, default "squared_error"
        Split criterion on the cumulative strategies (see the module docstring): ``"emd"`` and
        ``"absolute_error"`` are the output EMD itself (ours compiled, scikit-learn's slow); ``"squared_error"``
        the Cramér distance.
    random_state : int or None, default 0
        Tie-breaking between equally good splits for the scikit-learn criteria (scikit-learn permutes features);
        the ``"emd"`` tree breaks ties by the lowest feature index and threshold.
    positions : array_like of float, shape ``(n_bets,)``, optional
        Positions of the actions on the line (e.g. bet sizes in chips), strictly increasing: the output EMD then
        weighs the cdf difference at each action by the gap to the next one (:func:`rulelearn.features.distance.output_emd`).
        Default: unit spacing, as in Algorithm 2 (the same for the paper's uniform grid).

    Attributes
    ----------
    tree_ : sklearn.tree.DecisionTreeRegressor or EMDTreeRegressor
        The fitted tree on (weighted) cumulative targets; ``tree_.tree_`` holds the nodes.
    target_shape_ : tuple of int
        ``Y.shape[1:]``, e.g. ``(d, n_bets)`` or ``(n_bets,)``.
    n_features_in_ : int
    """

    def __init__(self, max_depth=None, min_samples_leaf: int = 1, criterion: str = "squared_error",
                 random_state=0, positions=None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.criterion = criterion
        self.random_state = random_state
        self.positions = positions

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
            On malformed inputs, an unknown criterion, or ``positions`` that are not strictly increasing with one
            entry per action.
        """
        if self.criterion not in _CRITERIA:
            raise ValueError(f"criterion must be one of {_CRITERIA}, got {self.criterion!r}")
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        self.target_shape_ = Y.shape[1:]
        cum = np.clip(strategy_cumulative(Y), 0.0, 1.0).reshape(X.shape[0], -1)
        n_hands = int(np.prod(Y.shape[1:-1]))
        # per-output weights of the EMD: gap to the next position / (span * number of hands)
        w = np.tile(action_gap_weights(self.positions, Y.shape[-1]), n_hands) / n_hands
        if self.criterion == "emd":
            self._scale = None
            self.tree_ = EMDTreeRegressor(max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                                          output_weights=w).fit(X, cum)
        else:
            # scikit-learn weighs outputs equally: scale each output by its EMD weight (medians and means commute
            # with the scaling); unit spacing needs no scaling
            self._scale = None if self.positions is None else w * w.size
            target = cum if self._scale is None else cum * self._scale
            self.tree_ = DecisionTreeRegressor(
                max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf, criterion=self.criterion,
                random_state=self.random_state,
            ).fit(X, target)
        self.n_features_in_ = X.shape[1]
        return self

    def _unscale(self, values: np.ndarray) -> np.ndarray:
        return values if self._scale is None else values / self._scale

    def predict(self, X) -> np.ndarray:
        """Strategies, shape ``(k,) + target_shape_``."""
        check_is_fitted(self, "tree_")
        X = check_features(X)
        cum = self._unscale(self.tree_.predict(X).reshape(X.shape[0], -1))
        return cumulative_to_strategy(cum.reshape((X.shape[0],) + self.target_shape_[:-1] + (-1,)))

    def leaf_strategies(self) -> np.ndarray:
        """The strategy of every node of the fitted tree, shape ``(n_nodes,) + target_shape_``."""
        check_is_fitted(self, "tree_")
        nodes = self.tree_.tree_.node_count
        values = self._unscale(np.asarray(self.tree_.tree_.value).reshape(nodes, -1))
        return cumulative_to_strategy(values.reshape((nodes,) + self.target_shape_[:-1] + (-1,)))

    @property
    def training_loss_(self) -> float:
        """Mean output EMD of the training strategies to the tree's predictions (``criterion="emd"`` only).

        Raises
        ------
        AttributeError
            For the scikit-learn criteria (their node impurities are not EMDs, or not on the same scale).
        """
        check_is_fitted(self, "tree_")
        if self.criterion != "emd":
            raise AttributeError("training_loss_ is the mean training EMD of criterion='emd' trees only")
        return self.tree_.training_loss_

    def at_depth(self, max_depth: int) -> StrategyTree:
        """This fitted ``criterion="emd"`` tree cut at ``max_depth``: the tree refitting with that depth limit
        would grow (see :meth:`EMDTreeRegressor.truncated`), so one deep fit gives the paper's whole depth sweep.

        Raises
        ------
        ValueError
            For the scikit-learn criteria (their random tie-breaking makes a cut tree differ from a refit), or a
            ``max_depth`` that is not a non-negative integer.
        """
        check_is_fitted(self, "tree_")
        if self.criterion != "emd":
            raise ValueError("at_depth needs criterion='emd'")
        out = StrategyTree(max_depth=max_depth, min_samples_leaf=self.min_samples_leaf, criterion=self.criterion,
                           random_state=self.random_state, positions=self.positions)
        out.tree_ = self.tree_.truncated(max_depth)
        out.target_shape_ = self.target_shape_
        out.n_features_in_ = self.n_features_in_
        out._scale = None
        return out

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_leaves, "rules")``: one if-then rule per leaf."""
        check_is_fitted(self, "tree_")
        return int(self.tree_.get_n_leaves()), "rules"

"""k-nearest neighbours under the generalised input EMD (Ganzfried & Yusuf 2017, AAAI-W Section 4.1).

The input EMD of Algorithm 1 is a scaled L1 distance between the players' cdf vectors
(:func:`rulelearn.features.distance.input_embedding`), so the exact EMD nearest neighbours are the exact L1 nearest
neighbours of the cdf vectors. :class:`EMDNearestNeighbors` finds them over the whole database with the compiled
filter-and-refine index of :mod:`rulelearn.learners._l1` (lower bounds from group sums; 80,000 training and
20,000 test games in seconds, see ``benchmarks/bench_learners.py``), or by compiled brute force. Both are exact
and return the same neighbours as a brute-force ``argmin`` over :func:`~rulelearn.features.distance.pairwise_input_emd`,
ties going to the lower training index.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from rulelearn.learners._common import check_features, check_targets, to_cdf_features
from rulelearn.learners.l1 import L1NeighborIndex, l1_nearest
from rulelearn.validation import check_int

__all__ = ["EMDNearestNeighbors"]

_ALGORITHMS = ("pruned", "brute")


class EMDNearestNeighbors(BaseEstimator):
    """Play the strategy of the nearest solved game(s), nearest by the input EMD (Algorithm 1).

    The input EMD is the cityblock distance between per-player cdf vectors divided by ``n_players * (d - 1)``;
    reported distances are that EMD, in ``[0, 1]``. With pdf inputs the features are cumulated first: under the
    EMD the cdf and pdf representations give the same neighbours.

    Parameters
    ----------
    n_neighbors : int, default 1
        The paper uses 1 (a human recalls the one closest game). With more, strategies are averaged.
    n_players : int, default 2
        Number of per-player blocks in ``X``.
    input_kind : {"cdf", "pdf"}, default "cdf"
        What the feature blocks hold.
    algorithm : {"pruned", "brute"}, default "pruned"
        ``"pruned"``: exact filter-and-refine search with group-sum lower bounds (:class:`L1NeighborIndex`);
        ``"brute"``: every distance, compiled. Both exact with the same tie rule (lower training index first).

    Attributes
    ----------
    index_ : L1NeighborIndex or None
        The search index (``"pruned"``).
    n_features_in_ : int
    n_games_ : int
        Number of memorised games (the model's size).
    """

    #: Distances are input EMDs between whole games, so rows must be whole games (``per_hand=None``).
    whole_game_inputs = True

    def __init__(self, n_neighbors: int = 1, n_players: int = 2, input_kind: str = "cdf",
                 algorithm: str = "pruned"):
        self.n_neighbors = n_neighbors
        self.n_players = n_players
        self.input_kind = input_kind
        self.algorithm = algorithm

    def fit(self, X, Y):
        """Memorise solved games.

        Parameters
        ----------
        X : array_like of float, shape ``(m, n_players * d)``
        Y : array_like of float, shape ``(m, ..., n_actions)``
            Their strategies (e.g. ``(m, d, n_bets)``).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On malformed inputs, ``n_neighbors`` outside ``1 .. m`` or an unknown ``algorithm``.
        """
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        if self.algorithm not in _ALGORITHMS:
            raise ValueError(f"algorithm must be one of {_ALGORITHMS}, got {self.algorithm!r}")
        k = self.n_neighbors
        check_int("n_neighbors", k, 1, X.shape[0], strict_type=True)
        cdf = to_cdf_features(X, self.n_players, self.input_kind)
        self._scale = 1.0 / (self.n_players * (cdf.shape[1] // self.n_players - 1))
        self._train = np.ascontiguousarray(cdf)
        self.index_ = L1NeighborIndex(self._train, min(8, cdf.shape[1])) if self.algorithm == "pruned" else None
        self.Y_ = Y
        self.n_features_in_ = X.shape[1]
        self.n_games_ = X.shape[0]
        return self

    def kneighbors(self, X):
        """Input EMD to, and indices of, the nearest memorised games.

        Parameters
        ----------
        X : array_like of float, shape ``(k, n_players * d)``

        Returns
        -------
        dist : numpy.ndarray of float64, shape ``(k, n_neighbors)``
            Input EMDs, increasing.
        idx : numpy.ndarray of int64, shape ``(k, n_neighbors)``
            Training rows; among equal distances the lower index first.

        Raises
        ------
        ValueError
            If ``X`` has a different number of features than the training data.
        """
        check_is_fitted(self, "Y_")
        X = check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        q = np.ascontiguousarray(to_cdf_features(X, self.n_players, self.input_kind))
        k = int(self.n_neighbors)
        if self.index_ is not None:
            dist, idx = self.index_.query(q, k)
        else:
            dist, idx = l1_nearest(self._train, q, k)
        return dist * self._scale, idx

    def predict(self, X) -> np.ndarray:
        """Strategies for new games: shape ``(k,) + Y.shape[1:]``."""
        _, idx = self.kneighbors(X)
        return self.Y_[idx].mean(axis=1)

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_games_, "games")``: what a person would have to memorise."""
        check_is_fitted(self, "Y_")
        return self.n_games_, "games"

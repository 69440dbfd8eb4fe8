"""k-nearest neighbours under the generalised input EMD (Ganzfried & Yusuf 2017, AAAI-W Section 4.1)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted

from rulelearn.learners._common import check_features, check_targets, to_cdf_features

__all__ = ["EMDNearestNeighbors"]


class EMDNearestNeighbors(BaseEstimator):
    """Play the strategy of the nearest solved game(s), nearest by the input EMD (Algorithm 1).

    The input EMD is the cityblock distance between per-player cdf vectors divided by ``n_players * (d - 1)``,
    so neighbours are found by scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors` with the Manhattan
    metric; reported distances are rescaled to the EMD in ``[0, 1]``. With pdf inputs the features are
    cumulated first: under the EMD the cdf and pdf representations give the same neighbours.

    Parameters
    ----------
    n_neighbors : int, default 1
        The paper uses 1 (a human recalls the one closest game). With more, strategies are averaged.
    n_players : int, default 2
        Number of per-player blocks in ``X``.
    input_kind : {"cdf", "pdf"}, default "cdf"
        What the feature blocks hold.

    Attributes
    ----------
    n_features_in_ : int
    n_games_ : int
        Number of memorised games (the model's size).
    """

    #: Distances are input EMDs between whole games, so rows must be whole games (``per_hand=None``).
    whole_game_inputs = True

    def __init__(self, n_neighbors: int = 1, n_players: int = 2, input_kind: str = "cdf"):
        self.n_neighbors = n_neighbors
        self.n_players = n_players
        self.input_kind = input_kind

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
            On malformed inputs or ``n_neighbors`` outside ``1 .. m``.
        """
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        if not (1 <= int(self.n_neighbors) <= X.shape[0]):
            raise ValueError(f"n_neighbors must be in 1..{X.shape[0]}, got {self.n_neighbors!r}")
        cdf = to_cdf_features(X, self.n_players, self.input_kind)
        self._scale = 1.0 / (self.n_players * (cdf.shape[1] // self.n_players - 1))
        self.nn_ = NearestNeighbors(n_neighbors=int(self.n_neighbors), metric="manhattan").fit(cdf)
        self.Y_ = Y
        self.n_features_in_ = X.shape[1]
        self.n_games_ = X.shape[0]
        return self

    def kneighbors(self, X):
        """Input EMD to, and indices of, the nearest memorised games: two arrays of shape ``(k, n_neighbors)``."""
        check_is_fitted(self, "nn_")
        X = check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        dist, idx = self.nn_.kneighbors(to_cdf_features(X, self.n_players, self.input_kind))
        return dist * self._scale, idx

    def predict(self, X) -> np.ndarray:
        """Strategies for new games: shape ``(k,) + Y.shape[1:]``."""
        _, idx = self.kneighbors(X)
        return self.Y_[idx].mean(axis=1)

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_games_, "games")``: what a person would have to memorise."""
        check_is_fitted(self, "nn_")
        return self.n_games_, "games"

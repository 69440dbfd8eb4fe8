"""k-medoids under the generalised input EMD (Ganzfried & Yusuf 2017, AAAI-W Section 4.3).

Backends: the maintained ``kmedoids`` package (FasterPAM; Schubert & Rousseeuw 2021) is the default: it installs
on numpy 2 and is much faster than PAM. ``scikit-learn-extra``'s ``KMedoids`` (PAM / alternate) is kept as an
optional backend (``pip install rulelearn[sklearn-extra]``): its last release, 0.3.0, fails to import on numpy 2
unless built from source without build isolation, so it cannot be a default; supporting it costs a few lines.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rulelearn.distance import pairwise_input_emd
from rulelearn.learners._common import check_features, check_targets, to_cdf_features

__all__ = ["EMDKMedoids"]

_BACKENDS = ("kmedoids", "sklearn_extra")


def _fit_medoids(D: np.ndarray, k: int, backend: str, max_iter: int, seed: int) -> np.ndarray:
    if backend == "kmedoids":
        import kmedoids

        result = kmedoids.fasterpam(D, k, max_iter=max_iter, init="build", random_state=seed, n_cpu=1)
        return np.sort(np.asarray(result.medoids, dtype=np.int64))
    try:
        from sklearn_extra.cluster import KMedoids
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise ImportError(
            "backend='sklearn_extra' needs scikit-learn-extra (pip install 'rulelearn[sklearn-extra]'; "
            "on numpy 2 build it from source with --no-build-isolation)"
        ) from exc
    km = KMedoids(n_clusters=k, metric="precomputed", method="pam", init="k-medoids++",
                  max_iter=max_iter, random_state=seed).fit(D)
    return np.sort(np.asarray(km.medoid_indices_, dtype=np.int64))


class EMDKMedoids(BaseEstimator):
    """Cluster solved games by input EMD; play the strategy of the nearest medoid game.

    A person memorises ``n_clusters`` canonical games and their solutions and, at the table, plays the solution
    of the canonical game closest to the one at hand (the paper's Section 4.3). Medoids are chosen to minimise
    the total input EMD (Algorithm 1) of the training games to their medoid.

    Parameters
    ----------
    n_clusters : int, default 5
        Number of medoids (the paper uses 5, 10, 15).
    n_players : int, default 2
    input_kind : {"cdf", "pdf"}, default "cdf"
    backend : {"kmedoids", "sklearn_extra"}, default "kmedoids"
        See the module docstring.
    max_samples : int, default 10_000
        The pairwise-distance matrix needs ``8 m^2`` bytes; larger training sets are subsampled to this size.
    max_iter : int, default 300
    random_state : int, RandomState or None
        Seeds the initial medoids and the subsample.

    Attributes
    ----------
    medoid_indices_ : numpy.ndarray of int64, shape ``(n_clusters,)``
        Rows of the training data that are medoids.
    cluster_centers_ : numpy.ndarray of float64, shape ``(n_clusters, n_features)``
        The medoids' features.
    medoid_targets_ : numpy.ndarray, shape ``(n_clusters, ...)``
        The medoids' strategies.
    labels_ : numpy.ndarray of int64, shape ``(m,)``
        Nearest medoid of each training game.
    inertia_ : float
        Mean input EMD of the training games to their medoid.
    """

    #: Distances are input EMDs between whole games, so rows must be whole games (``per_hand=None``).
    whole_game_inputs = True

    def __init__(self, n_clusters: int = 5, n_players: int = 2, input_kind: str = "cdf",
                 backend: str = "kmedoids", max_samples: int = 10_000, max_iter: int = 300, random_state=None):
        self.n_clusters = n_clusters
        self.n_players = n_players
        self.input_kind = input_kind
        self.backend = backend
        self.max_samples = max_samples
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, Y):
        """Choose medoids among the training games.

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
            On malformed inputs, an unknown backend, or ``n_clusters`` outside ``1 .. m``.
        """
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        if self.backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, got {self.backend!r}")
        m = X.shape[0]
        k = int(self.n_clusters)
        if not (1 <= k <= m):
            raise ValueError(f"n_clusters must be in 1..{m}, got {self.n_clusters!r}")
        rng = check_random_state(self.random_state)
        rows = np.arange(m)
        if m > self.max_samples:
            rows = np.sort(rng.choice(m, size=int(self.max_samples), replace=False))
        cdf = to_cdf_features(X, self.n_players, self.input_kind)
        D = pairwise_input_emd(cdf[rows], n_players=self.n_players)
        medoids = rows[_fit_medoids(D, k, self.backend, int(self.max_iter), int(rng.randint(2**31 - 1)))]
        self.medoid_indices_ = medoids
        self.cluster_centers_ = X[medoids]
        self._center_cdf = cdf[medoids]
        self.medoid_targets_ = Y[medoids]
        self.n_features_in_ = X.shape[1]
        dist = pairwise_input_emd(cdf, self._center_cdf, n_players=self.n_players)
        self.labels_ = dist.argmin(axis=1)
        self.inertia_ = float(dist.min(axis=1).mean())
        return self

    def predict_cluster(self, X) -> np.ndarray:
        """Index of the nearest medoid by input EMD, shape ``(k,)`` int64."""
        check_is_fitted(self, "medoid_indices_")
        X = check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model was fitted with {self.n_features_in_}")
        cdf = to_cdf_features(X, self.n_players, self.input_kind)
        return pairwise_input_emd(cdf, self._center_cdf, n_players=self.n_players).argmin(axis=1)

    def predict(self, X) -> np.ndarray:
        """The nearest medoid's strategy for each game: shape ``(k,) + Y.shape[1:]``."""
        return self.medoid_targets_[self.predict_cluster(X)]

    @property
    def model_size(self) -> tuple[int, str]:
        """``(n_clusters, "medoids")``."""
        check_is_fitted(self, "medoid_indices_")
        return len(self.medoid_indices_), "medoids"

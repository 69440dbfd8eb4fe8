"""k-medoids under the generalised input EMD (Ganzfried & Yusuf 2017, AAAI-W Section 4.3).

The input EMD of Algorithm 1 is a scaled L1 distance between cdf vectors (:func:`rulelearn.features.distance.input_embedding`),
so the dissimilarity matrix is a compiled, blocked L1 matrix (:func:`rulelearn.learners._l1.l1_pairwise`), stored
in float32 by default: 1.6 GB for 20,000 games, the paper's k = 15 in well under a minute (see
``benchmarks/bench_learners.py``). The float32 matrix only guides the search; the medoids' assignment, ``inertia_``
and ``objective_`` are recomputed exactly in float64.

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

from rulelearn.features.distance import pairwise_input_emd
from rulelearn.learners._common import check_features, check_targets, to_cdf_features
from rulelearn.learners.l1 import l1_pairwise

__all__ = ["EMDKMedoids"]

_BACKENDS = ("kmedoids", "sklearn_extra")
_INITS = ("auto", "build", "random")
#: ``init="auto"`` uses BUILD up to this many games (its cost is O(k m^2)), random medoids above.
AUTO_BUILD_MAX = 5_000


def _fit_medoids(D: np.ndarray, k: int, backend: str, max_iter: int, seed: int, init: str) -> np.ndarray:
    if backend == "kmedoids":
        import kmedoids

        # D is symmetric: its transpose is the same matrix in column-major order, which kmedoids walks along
        # memory (it reads the dissimilarities of all points to one candidate): about 6 times faster than D
        result = kmedoids.fasterpam(D.T, k, max_iter=max_iter, init=init, random_state=seed, n_cpu=1)
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
    max_samples : int, default 20_000
        The pairwise-distance matrix needs ``4 m^2`` bytes in float32 (1.6 GB at 20,000); larger training sets
        are subsampled to this size (the medoids are chosen among the subsample, every game is assigned).
    max_iter : int, default 300
    random_state : int, RandomState or None
        Seeds the initial medoids and the subsample.
    init : {"auto", "build", "random"}, default "auto"
        FasterPAM's start (``kmedoids`` backend): the greedy BUILD, ``O(k m^2)``, or random medoids followed by
        eager swaps (as good in Schubert & Rousseeuw's experiments and ours, far cheaper for large ``m``).
        ``"auto"``: BUILD up to ``AUTO_BUILD_MAX = 5,000`` games, random above.
    dtype : {"float32", "float64"}, default "float32"
        Storage of the dissimilarity matrix.

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
    objective_ : float
        Total input EMD of the training games to their medoid (the k-medoids objective), float64.
    """

    #: Distances are input EMDs between whole games, so rows must be whole games (``per_hand=None``).
    whole_game_inputs = True

    def __init__(self, n_clusters: int = 5, n_players: int = 2, input_kind: str = "cdf",
                 backend: str = "kmedoids", max_samples: int = 20_000, max_iter: int = 300, random_state=None,
                 init: str = "auto", dtype: str = "float32"):
        self.n_clusters = n_clusters
        self.n_players = n_players
        self.input_kind = input_kind
        self.backend = backend
        self.max_samples = max_samples
        self.max_iter = max_iter
        self.random_state = random_state
        self.init = init
        self.dtype = dtype

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
            On malformed inputs, an unknown backend, init or dtype, or ``n_clusters`` outside ``1 .. m``.
        """
        X = check_features(X)
        Y = check_targets(Y, X.shape[0])
        if self.backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, got {self.backend!r}")
        if self.init not in _INITS:
            raise ValueError(f"init must be one of {_INITS}, got {self.init!r}")
        if str(self.dtype) not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        m = X.shape[0]
        k = int(self.n_clusters)
        if not (1 <= k <= m):
            raise ValueError(f"n_clusters must be in 1..{m}, got {self.n_clusters!r}")
        rng = check_random_state(self.random_state)
        rows = np.arange(m)
        if m > self.max_samples:
            rows = np.sort(rng.choice(m, size=int(self.max_samples), replace=False))
        cdf = to_cdf_features(X, self.n_players, self.input_kind)
        D = l1_pairwise(cdf[rows], dtype=str(self.dtype))  # L1 of cdfs: the input EMD times P * (d - 1)
        init = self.init if self.init != "auto" else ("build" if rows.size <= AUTO_BUILD_MAX else "random")
        medoids = rows[_fit_medoids(D, k, self.backend, int(self.max_iter), int(rng.randint(2**31 - 1)), init)]
        del D
        self.medoid_indices_ = medoids
        self.cluster_centers_ = X[medoids]
        self._center_cdf = cdf[medoids]
        self.medoid_targets_ = Y[medoids]
        self.n_features_in_ = X.shape[1]
        dist = pairwise_input_emd(cdf, self._center_cdf, n_players=self.n_players)
        self.labels_ = dist.argmin(axis=1)
        nearest = dist[np.arange(m), self.labels_]
        self.inertia_ = float(nearest.mean())
        self.objective_ = float(nearest.sum())
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

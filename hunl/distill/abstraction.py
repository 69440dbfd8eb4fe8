"""Card abstractions of one board: buckets of combos by E[HS], E[HS^2] or potential (EMD clustering), and
the encoding error of replacing each combo's value by its bucket's mean (:mod:`hunl.distill.encoding`; the
clustering is :mod:`hunl.distill.clustering`).

Source: Hopner & Loza Mencia, "Analysis and Optimization of Deep Counterfactual Value Networks", Section 3
(E[HS] / E[HS^2] abstraction, Section 3.2; potential-aware abstraction clustered by k-means under the earth
mover's distance, Section 3.4, after Ganzfried & Sandholm 2014) and Section 4 (the *encoding error*: the
counterfactual values of the hands are aggregated to a value per bucket, and the bucket's value is compared
with each hand's value by the mean squared error and the Huber loss with delta = 1, averaged over all private
hands and examples).

Methods of :class:`CardAbstraction`:

* ``"ehs"`` / ``"ehs2"``: the 1-D values :func:`hunl.distill.features.ehs` / :func:`hunl.distill.features.ehs2` are split into
  ``n_buckets`` intervals by *exact* (globally optimal) 1-D k-means -- dynamic programming over the sorted
  distinct values (Wang & Song 2011, "Ckmeans.1d.dp"), with the divide-and-conquer speed-up that the monotone
  split points of 1-D k-means allow (Gronlund et al. 2017). Each combo counts once. Buckets are intervals
  numbered from the weakest, so bucket indices are monotone in the value. ``binning="uniform"`` instead uses
  the paper's equal-width regions of [0, 1] (Section 4.1: "divided into 1326 regions").
* ``"potential"`` (turn boards only): each combo's distribution of HS over the 46 river cards (uniform) is
  represented by its quantile function -- its 46 river HS values sorted, each of probability 1/46 -- or, with
  ``n_bins``, by the cumulative histogram over ``n_bins`` equal-width bins of [0, 1] (the paper's
  discretisation). The 1-D earth mover's distance is the L1 distance between cumulative distribution
  functions, which equals the L1 distance between quantile functions; in both representations it is therefore
  ``|x - y|_1`` times a constant (1/46, resp. the bin width 1/n_bins). We cluster by **k-medians** on these
  vectors: the assignment step is then the exact nearest centre under EMD, and the update step -- the
  coordinate-wise (weighted) median -- is the exact minimiser of the summed EMD to the cluster's members (the
  median of non-decreasing vectors is non-decreasing, so the centre is itself a valid distribution). Every
  Lloyd step thus lowers the k-means objective *under EMD* (sum of distances, what "k-means with EMD" optimises;
  the arithmetic mean would minimise squared L2, a different objective). Seeding: k-means++ with D^1 sampling,
  ``n_init`` restarts, the lowest total EMD kept. Buckets are numbered by the mean HS of their centre. On a
  river board there is no next card and ``"potential"`` raises ValueError (use ``"ehs"``).

>>> abst = CardAbstraction("ehs", n_buckets=8).fit("Ks7d2c4h9s")
>>> labels = abst.predict()
>>> labels.shape, int(labels.max()), int((labels < 0).sum())     # 245 combos hold a board card
((1326,), 7, 245)
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from hunl.distill.clustering import kmeans_1d, kmedians_l1, nearest_1d, nearest_l1
from hunl.distill.encoding import EncodingError, bucket_means, encoding_error
from hunl.distill.features import ehs, ehs2, river_hand_strengths
from hunl.poker.cards import NUM_COMBOS, check_board
from rulelearn.validation import check_int

__all__ = ["CardAbstraction"]

_METHODS = ("ehs", "ehs2", "potential")


# ------------------------------------------------------------------------------------------- the estimator
class CardAbstraction(BaseEstimator):
    """Bucket the combos of one board by E[HS], E[HS^2] or potential (EMD clustering of river-HS distributions).

    Hopner & Loza Mencia, Section 3 (see the module docstring for the clustering algorithms). ``fit`` takes
    one board: an endgame's abstraction is per board. The fitted centres also bucket the combos of another
    board of the same street (:meth:`predict` with ``board``): each combo goes to its nearest centre.

    Parameters
    ----------
    method : {"ehs", "ehs2", "potential"}, default "ehs"
        The per-combo value clustered: :func:`hunl.distill.features.ehs`, :func:`hunl.distill.features.ehs2`, or the
        distribution of HS over the river cards (turn boards only).
    n_buckets : int, default 10
        Number of buckets (fewer if the board has fewer distinct values).
    binning : {"kmeans", "uniform"}, default "kmeans"
        For ``"ehs"``/``"ehs2"``: exact 1-D k-means, or the paper's equal-width regions of [0, 1] (then bucket
        ``b`` holds values in ``[b, b + 1) / n_buckets`` and may be empty). Must be ``"kmeans"`` for
        ``"potential"``.
    n_bins : int or None, default None
        For ``"potential"``: None represents each distribution exactly (its 46 sorted river HS values); an
        integer discretises it into that many equal-width bins of [0, 1] as in the paper.
    n_init : int, default 4
        k-medians restarts for ``"potential"``.
    max_iter : int, default 100
        Lloyd iterations per restart for ``"potential"``.
    random_state : int, numpy.random.Generator or None, default None
        Seed of the k-medians seeding.

    Attributes
    ----------
    board_ : tuple of int
        The fitted board's cards (sorted).
    values_ : numpy.ndarray, float64, shape (1326,) or (1326, d)
        The clustered representation of each combo (E[HS], E[HS^2], the sorted river HS values, or the
        cumulative histogram); NaN rows for combos holding a board card.
    labels_ : numpy.ndarray, int64, shape (1326,)
        Bucket of each combo, ``0 .. n_buckets_ - 1`` from the weakest (by centre value or centre mean HS),
        -1 for combos holding a board card.
    centers_ : numpy.ndarray, float64, shape (n_buckets_,) or (n_buckets_, d)
        Bucket centres in the representation of ``values_``.
    n_buckets_ : int
        Number of buckets.
    inertia_ : float
        Objective at the solution: sum of squared distances to the centres (``"ehs"``/``"ehs2"``), or sum of
        earth mover's distances (in HS units) of the combos' distributions to their centres (``"potential"``).
    n_iter_ : int
        Lloyd iterations of the kept k-medians run (0 for the 1-D methods).
    """

    def __init__(self, method="ehs", n_buckets=10, binning="kmeans", n_bins=None, n_init=4, max_iter=100,
                 random_state=None):
        self.method = method
        self.n_buckets = n_buckets
        self.binning = binning
        self.n_bins = n_bins
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    # ----------------------------------------------------------------------------------- helpers
    @staticmethod
    def _positive_int(value, name: str, minimum: int = 1) -> int:
        return check_int(name, value, minimum, strict_type=True)

    def _check_params(self) -> None:
        if self.method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}, got {self.method!r}")
        self._positive_int(self.n_buckets, "n_buckets")
        if self.binning not in ("kmeans", "uniform"):
            raise ValueError(f"binning must be 'kmeans' or 'uniform', got {self.binning!r}")
        if self.method == "potential" and self.binning != "kmeans":
            raise ValueError("binning must be 'kmeans' for method='potential' (EMD k-medians)")
        if self.n_bins is not None:
            self._positive_int(self.n_bins, "n_bins", 2)
        self._positive_int(self.n_init, "n_init")
        self._positive_int(self.max_iter, "max_iter")

    def _board(self, board) -> tuple:
        max_cards = 4 if self.method == "potential" else 5
        try:
            cards = check_board(board, 4, max_cards, name="board")
        except ValueError as exc:
            if self.method == "potential":
                raise ValueError(f"{exc}; method='potential' needs a turn board (4 cards): a river board has no "
                                 "next card, use method='ehs' there") from exc
            raise
        return tuple(sorted(cards))

    def _represent(self, cards: tuple) -> np.ndarray:
        if self.method == "ehs":
            return ehs(cards)
        if self.method == "ehs2":
            return ehs2(cards)
        hs = river_hand_strengths(cards)                       # (48, 1326), NaN where undefined
        ok = ~np.isnan(hs)
        live = ok.any(axis=0)
        if self.n_bins is None:
            vals = np.sort(np.where(ok, hs, np.inf), axis=0)[:46]   # 46 rivers per combo, sorted
            out = np.full((NUM_COMBOS, 46), np.nan)
            out[live] = vals[:, live].T
            return out
        nb = int(self.n_bins)
        bins = np.minimum((np.nan_to_num(hs) * nb).astype(np.int64), nb - 1)
        hist = np.zeros((NUM_COMBOS, nb))
        cols = np.broadcast_to(np.arange(NUM_COMBOS), hs.shape)
        np.add.at(hist, (cols[ok], bins[ok]), 1.0)
        cdf = np.cumsum(hist, axis=1)[:, :-1] / np.maximum(hist.sum(axis=1, keepdims=True), 1.0)
        cdf[~live] = np.nan
        return cdf

    def _emd_scale(self) -> float:
        """EMD (HS units) per unit of L1 distance between two representation vectors."""
        return 1.0 / 46 if self.n_bins is None else 1.0 / int(self.n_bins)

    # ----------------------------------------------------------------------------------- public API
    def fit(self, board, y=None):
        """Compute the buckets of the combos on ``board``.

        Parameters
        ----------
        board : str or sequence of str/int
            A turn or river board (turn only for ``"potential"``), as :func:`hunl.poker.cards.check_board` accepts.
        y : ignored

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On an invalid parameter, an invalid board, or a river board with ``method="potential"``.
        TypeError
            On a parameter of the wrong type.
        """
        self._check_params()
        cards = self._board(board)
        values = self._represent(cards)
        live = ~np.isnan(values if values.ndim == 1 else values[:, 0])
        labels = np.full(NUM_COMBOS, -1, dtype=np.int64)
        k = int(self.n_buckets)
        n_iter = 0
        if values.ndim == 1 and self.binning == "uniform":
            lab = np.minimum((values[live] * k).astype(np.int64), k - 1)
            centers = (np.arange(k) + 0.5) / k
            inertia = float(np.sum((values[live] - centers[lab]) ** 2))
        elif values.ndim == 1:
            _, centers, _ = kmeans_1d(values[live], k)
            lab = nearest_1d(centers, values[live])     # = the optimal intervals, ties as in predict
            inertia = float(np.sum((values[live] - centers[lab]) ** 2))
        else:
            x = np.ascontiguousarray(values[live])
            uniq, counts = np.unique(x, axis=0, return_counts=True)
            if k >= uniq.shape[0]:
                lab_u, centers = np.arange(uniq.shape[0]), uniq.copy()
            else:
                rng = np.random.default_rng(self.random_state)
                lab_u, centers, _, n_iter = kmedians_l1(uniq, counts.astype(np.float64), k, rng,
                                                            int(self.n_init), int(self.max_iter))
            centers = centers[np.unique(lab_u)]                 # drop buckets left empty, number by strength
            centers = np.ascontiguousarray(centers[np.argsort(centers.mean(axis=1), kind="stable")])
            lab = nearest_l1(centers, x)                 # same assignment (ties to the lower bucket) as predict
            inertia = float(np.abs(x - centers[lab]).sum()) * self._emd_scale()
        labels[live] = lab
        self.board_ = cards
        self.values_ = values
        self.labels_ = labels
        self.centers_ = np.asarray(centers, dtype=np.float64)
        self.n_buckets_ = int(self.centers_.shape[0])
        self.inertia_ = float(inertia)
        self.n_iter_ = int(n_iter)
        return self

    def predict(self, board=None) -> np.ndarray:
        """Bucket of every combo.

        Parameters
        ----------
        board : str or sequence of str/int, optional
            None (default): the fitted board's buckets, ``labels_``. Another board of the same street: each
            of its combos goes to the nearest fitted centre (1-D distance; L1 = EMD for ``"potential"``; for
            ``binning="uniform"`` its region).

        Returns
        -------
        numpy.ndarray, int64, shape (1326,)
            Bucket per combo, -1 for combos holding a board card.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If called before :meth:`fit`.
        ValueError
            If ``board`` is invalid or of another street than the fitted board.
        """
        check_is_fitted(self, "labels_")
        if board is None:
            return self.labels_.copy()
        cards = self._board(board)
        if len(cards) != len(self.board_):
            raise ValueError(f"board has {len(cards)} cards but the abstraction was fitted on a "
                             f"{len(self.board_)}-card board")
        values = self._represent(cards)
        live = ~np.isnan(values if values.ndim == 1 else values[:, 0])
        labels = np.full(NUM_COMBOS, -1, dtype=np.int64)
        if values.ndim == 1 and self.binning == "uniform":
            labels[live] = np.minimum((values[live] * self.n_buckets).astype(np.int64), self.n_buckets - 1)
        elif values.ndim == 1:
            labels[live] = nearest_1d(self.centers_, values[live])
        else:
            labels[live] = nearest_l1(self.centers_, values[live])
        return labels

    def transform(self, board=None) -> np.ndarray:
        """Same as :meth:`predict` (a discretiser's transform, as scikit-learn's ``KBinsDiscretizer``)."""
        return self.predict(board)

    def fit_predict(self, board, y=None) -> np.ndarray:
        """``fit(board).predict()``."""
        return self.fit(board).predict()

    def bucket_means(self, values, weights=None) -> np.ndarray:
        """:func:`bucket_means` with the fitted ``labels_`` (values of the fitted board's combos)."""
        check_is_fitted(self, "labels_")
        return bucket_means(self.labels_, values, weights)

    def encoding_error(self, values, weights=None, delta: float = 1.0) -> EncodingError:
        """Encoding error of the fitted buckets (Hopner & Loza Mencia, Section 4): :func:`encoding_error`
        with ``labels_``.

        Parameters
        ----------
        values : array_like, float, shape (1326,) or (K, 1326)
            Values of the fitted board's combos (e.g. counterfactual values in chips), one row per example;
            NaN allowed on combos holding a board card.
        weights : array_like, float, shape (1326,) or (K, 1326), optional
            Weights of the bucket means (e.g. the range); equal if omitted.
        delta : float, default 1.0
            Huber loss parameter.

        Returns
        -------
        EncodingError

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If called before :meth:`fit`.
        ValueError, TypeError
            As :func:`encoding_error`.
        """
        check_is_fitted(self, "labels_")
        return encoding_error(self.labels_, values, weights, delta)

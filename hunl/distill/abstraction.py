"""Card abstractions of one board: buckets of combos by E[HS], E[HS^2] or potential (EMD clustering), and
the encoding error of replacing each combo's value by its bucket's mean.

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

from dataclasses import dataclass

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from hunl.distill.features import ehs, ehs2, river_hand_strengths
from hunl.poker.cards import NUM_COMBOS, check_board
from rulelearn.numeric import weighted_quantile_position
from rulelearn.validation import check_int

__all__ = ["CardAbstraction", "EncodingError", "bucket_means", "encoding_error", "kmeans_1d"]

_METHODS = ("ehs", "ehs2", "potential")


# ------------------------------------------------------------------------------------------- encoding error
@dataclass(frozen=True)
class EncodingError:
    """The error of replacing each combo's value by its bucket's mean (Hopner & Loza Mencia, Section 4).

    Attributes
    ----------
    mse : float
        Mean squared error (value units squared, e.g. chips^2), averaged over every (example, combo) entry.
    huber : float
        Mean Huber loss with the given ``delta``: ``e^2 / 2`` for ``|e| <= delta``, else
        ``delta * (|e| - delta / 2)``.
    mean_abs : float
        Mean absolute error (value units).
    max_abs : float
        Largest absolute error (value units).
    n_values : int
        Number of entries averaged: examples x combos with a bucket (combos holding a board card excluded).
    n_buckets : int
        Number of distinct buckets among those combos.
    delta : float
        The Huber loss parameter (1 in the paper).
    """

    mse: float
    huber: float
    mean_abs: float
    max_abs: float
    n_values: int
    n_buckets: int
    delta: float


def _labels(labels) -> np.ndarray:
    lab = np.asarray(labels)
    if lab.shape != (NUM_COMBOS,):
        raise ValueError(f"labels must have shape (1326,), got {lab.shape}")
    if lab.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers (bucket per combo, -1 for none), got dtype {lab.dtype}")
    if lab.size and lab.min() < -1:
        raise ValueError("labels must be >= -1 (-1 marks combos without a bucket)")
    if not np.any(lab >= 0):
        raise ValueError("labels assign no combo to a bucket")
    return lab.astype(np.int64)


def _values_weights(values, weights, live: np.ndarray):
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("values must be a numeric array of shape (1326,) or (K, 1326)") from exc
    if v.ndim not in (1, 2) or v.shape[-1] != NUM_COMBOS or v.size == 0:
        raise ValueError(f"values must have shape (1326,) or (K, 1326) with K >= 1, got {v.shape}")
    v2 = v.reshape(-1, NUM_COMBOS)
    if not np.all(np.isfinite(v2[:, live])):
        raise ValueError("values must be finite on every combo with a bucket (NaN is allowed elsewhere)")
    if weights is None:
        return v2, np.ones_like(v2), v.ndim == 1
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("weights must be a numeric array of shape (1326,) or (K, 1326)") from exc
    if w.shape not in ((NUM_COMBOS,), v2.shape, v.shape):
        raise ValueError(f"weights must have shape (1326,) or the shape of values {v.shape}, got {w.shape}")
    w2 = np.broadcast_to(w.reshape(-1, NUM_COMBOS), v2.shape)
    if not np.all(np.isfinite(w2[:, live])) or np.any(w2[:, live] < 0):
        raise ValueError("weights must be finite and nonnegative on every combo with a bucket")
    return v2, w2, v.ndim == 1


def bucket_means(labels, values, weights=None) -> np.ndarray:
    """Each combo's value replaced by the (weighted) mean value of its bucket: the encode-decode of the
    counterfactual values through a card abstraction (Hopner & Loza Mencia, Section 3.1, Figure 1).

    Parameters
    ----------
    labels : array_like, int, shape (1326,)
        Bucket of each combo, -1 for combos without one (holding a board card).
    values : array_like, float, shape (1326,) or (K, 1326)
        A value per combo (e.g. counterfactual values in chips), one row per example; must be finite where
        ``labels >= 0``.
    weights : array_like, float, shape (1326,) or (K, 1326), optional
        Nonnegative weights of the bucket means (e.g. the range or reach of each combo). A bucket whose weight
        is zero in a row gets its unweighted mean. Equal weights if omitted.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``values``
        The bucket mean of each combo; NaN where ``labels == -1``.

    Raises
    ------
    ValueError
        On wrong shapes, labels below -1 or no labelled combo, non-finite values on labelled combos, or
        negative / non-finite weights.
    TypeError
        If ``labels`` is not an integer array or ``values``/``weights`` are not numeric.
    """
    lab = _labels(labels)
    live = lab >= 0
    v2, w2, single = _values_weights(values, weights, live)
    out = _bucket_means(lab, v2, w2)
    return out[0] if single else out


def _bucket_means(lab: np.ndarray, v2: np.ndarray, w2: np.ndarray) -> np.ndarray:
    live = lab >= 0
    n_b = int(lab.max()) + 1
    idx = lab[live]
    k = v2.shape[0]
    flat = (np.arange(k)[:, None] * n_b + idx[None, :]).ravel()
    vl, wl = v2[:, live], w2[:, live]
    size = k * n_b
    sw = np.bincount(flat, wl.ravel(), minlength=size).reshape(k, n_b)
    swv = np.bincount(flat, (wl * vl).ravel(), minlength=size).reshape(k, n_b)
    cnt = np.bincount(idx, minlength=n_b).astype(np.float64)
    sv = np.bincount(flat, vl.ravel(), minlength=size).reshape(k, n_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(sw > 0, swv / np.where(sw > 0, sw, 1.0), sv / np.maximum(cnt, 1.0))
    out = np.full(v2.shape, np.nan)
    out[:, live] = means[:, idx]
    return out


def encoding_error(labels, values, weights=None, delta: float = 1.0) -> EncodingError:
    """Encoding error of a card abstraction (Hopner & Loza Mencia, Section 4, Table 1).

    Each combo's value is replaced by its bucket's (weighted) mean (:func:`bucket_means`) and compared with
    the original by the mean squared error and the Huber loss, averaged over all combos with a bucket and all
    examples (rows), as in the paper.

    Parameters
    ----------
    labels : array_like, int, shape (1326,)
        Bucket of each combo, -1 for combos without one.
    values : array_like, float, shape (1326,) or (K, 1326)
        Values per combo (e.g. counterfactual values, chips), one row per example.
    weights : array_like, float, shape (1326,) or (K, 1326), optional
        Weights of the bucket means (see :func:`bucket_means`); the errors themselves are averaged with equal
        weight per combo and example.
    delta : float, default 1.0
        Huber loss parameter (the paper uses 1).

    Returns
    -------
    EncodingError

    Raises
    ------
    ValueError, TypeError
        As :func:`bucket_means`; ValueError if ``delta`` is not positive and finite.
    """
    if not isinstance(delta, (int, float, np.integer, np.floating)) or not np.isfinite(delta) or delta <= 0:
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    lab = _labels(labels)
    live = lab >= 0
    v2, w2, _ = _values_weights(values, weights, live)
    err = (_bucket_means(lab, v2, w2) - v2)[:, live]
    a = np.abs(err)
    d = float(delta)
    huber = np.where(a <= d, 0.5 * err ** 2, d * (a - 0.5 * d))
    return EncodingError(mse=float(np.mean(err ** 2)), huber=float(np.mean(huber)), mean_abs=float(a.mean()),
                         max_abs=float(a.max()), n_values=int(err.size), n_buckets=int(np.unique(lab[live]).size),
                         delta=d)


# ------------------------------------------------------------------------------------------- 1-D k-means
@njit(cache=True)
def _seg_cost(p0, p1, p2, i, j):  # pragma: no cover - compiled
    """Weighted within-segment sum of squares of the sorted points i..j (inclusive) from prefix sums."""
    c = p0[j + 1] - p0[i]
    s = p1[j + 1] - p1[i]
    return max(p2[j + 1] - p2[i] - s * s / c, 0.0)


@njit(cache=True)
def _kmeans_1d(x, c, k):  # pragma: no cover - compiled
    """Optimal k-means of sorted distinct points ``x`` with weights ``c`` (``k <= x.size``) by dynamic
    programming with divide-and-conquer over the monotone split points. Returns (cluster of each point, cost)."""
    n = x.size
    p0 = np.zeros(n + 1)
    p1 = np.zeros(n + 1)
    p2 = np.zeros(n + 1)
    for i in range(n):
        p0[i + 1] = p0[i] + c[i]
        p1[i + 1] = p1[i] + c[i] * x[i]
        p2[i + 1] = p2[i] + c[i] * x[i] * x[i]
    prev = np.empty(n)
    cur = np.empty(n)
    start = np.zeros((k, n), dtype=np.int64)      # first point of the last cluster of the best split
    for j in range(n):
        prev[j] = _seg_cost(p0, p1, p2, 0, j)
    stack = np.empty((4 * n + 8, 4), dtype=np.int64)
    for q in range(1, k):
        for j in range(n):
            cur[j] = np.inf
        # cur[j] = min over i in [q, j] of prev[i - 1] + cost(i, j), for j >= q
        top = 0
        stack[0, 0] = q
        stack[0, 1] = n - 1
        stack[0, 2] = q
        stack[0, 3] = n - 1
        top = 1
        while top > 0:
            top -= 1
            lo, hi, olo, ohi = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            best = np.inf
            arg = olo
            for i in range(olo, min(ohi, mid) + 1):
                v = prev[i - 1] + _seg_cost(p0, p1, p2, i, mid)
                if v < best:
                    best = v
                    arg = i
            cur[mid] = best
            start[q, mid] = arg
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = lo, mid - 1, olo, arg
            top += 1
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = mid + 1, hi, arg, ohi
            top += 1
        for j in range(n):
            prev[j] = cur[j]
    labels = np.empty(n, dtype=np.int64)
    j = n - 1
    for q in range(k - 1, -1, -1):
        i = start[q, j] if q > 0 else 0
        for t in range(i, j + 1):
            labels[t] = q
        j = i - 1
    return labels, prev[n - 1]


def kmeans_1d(values, n_clusters: int, sample_weight=None):
    """Exact weighted 1-D k-means: clusters are intervals of the sorted values (used by :class:`CardAbstraction`).

    Parameters
    ----------
    values : array_like, float, shape (n,)
        Finite values.
    n_clusters : int
        Number of clusters; if it is at least the number of distinct values every distinct value gets its own.
    sample_weight : array_like, float, shape (n,), optional
        Positive weights (all 1 if omitted).

    Returns
    -------
    labels : numpy.ndarray, int64, shape (n,)
        Cluster of each value, 0 for the lowest interval, monotone in the value.
    centers : numpy.ndarray, float64, shape (m,)
        Weighted mean of each cluster, increasing; ``m = min(n_clusters, distinct values)``.
    inertia : float
        Weighted sum of squared distances to the centres (the minimum over all partitions).

    Raises
    ------
    ValueError
        If ``values`` is empty, not one-dimensional or not finite, ``n_clusters < 1``, or ``sample_weight``
        has another shape or a non-positive or non-finite entry.
    TypeError
        If ``n_clusters`` is not an integer.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"values must be a non-empty finite 1-D array, got shape {x.shape}")
    check_int("n_clusters", n_clusters, 1, strict_type=True)
    c = np.ones_like(x) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if c.shape != x.shape or not np.all(np.isfinite(c)) or np.any(c <= 0):
        raise ValueError("sample_weight must be positive and finite, one per value")
    uniq, inv = np.unique(x, return_inverse=True)
    cw = np.bincount(inv, c, minlength=uniq.size)
    k = min(int(n_clusters), uniq.size)
    if k == uniq.size:
        lab_u = np.arange(uniq.size, dtype=np.int64)
    else:
        lab_u, _ = _kmeans_1d(uniq, cw, k)
    labels = lab_u[inv]
    sw = np.bincount(labels, c, minlength=k)
    centers = np.bincount(labels, c * x, minlength=k) / sw
    inertia = float(np.sum(c * (x - centers[labels]) ** 2))
    return labels, centers, inertia


# ------------------------------------------------------------------------------------------- k-medians (EMD)
@njit(cache=True)
def _assign_l1(x, centers, labels, dist):  # pragma: no cover - compiled
    """Nearest centre by L1 (first on ties) for each row; returns whether any label changed."""
    changed = False
    for i in range(x.shape[0]):
        best = np.inf
        arg = 0
        for c in range(centers.shape[0]):
            d = 0.0
            for t in range(x.shape[1]):
                d += abs(x[i, t] - centers[c, t])
            if d < best:
                best = d
                arg = c
        if labels[i] != arg:
            changed = True
            labels[i] = arg
        dist[i] = best
    return changed


@njit(cache=True)
def _weighted_median_update(x, w, labels, centers):  # pragma: no cover - compiled
    """Coordinate-wise lower weighted median of each cluster's rows into ``centers`` (empty clusters kept)."""
    n, d = x.shape
    k = centers.shape[0]
    counts = np.zeros(k, dtype=np.int64)
    for i in range(n):
        counts[labels[i]] += 1
    for c in range(k):
        if counts[c] == 0:
            continue
        members = np.empty(counts[c], dtype=np.int64)
        m = 0
        total = 0.0
        for i in range(n):
            if labels[i] == c:
                members[m] = i
                m += 1
                total += w[i]
        col = np.empty(m)
        sorted_w = np.empty(m)
        for t in range(d):
            for j in range(m):
                col[j] = x[members[j], t]
            perm = np.argsort(col, kind="mergesort")
            for j in range(m):
                sorted_w[j] = w[members[perm[j]]]
            centers[c, t] = col[perm[weighted_quantile_position(sorted_w, m, 0.5, total)]]


def _kmedians_l1(x: np.ndarray, w: np.ndarray, k: int, rng: np.random.Generator, n_init: int, max_iter: int):
    """Weighted k-medians under L1 (k-means++ D^1 seeding, Lloyd iterations); best of ``n_init``. Returns
    (labels, centers, total weighted L1 distance, iterations of the best run)."""
    n = x.shape[0]
    best = None
    p = w / w.sum()
    for _ in range(n_init):
        chosen = [int(rng.choice(n, p=p))]
        dmin = np.abs(x - x[chosen[0]]).sum(axis=1)
        for _ in range(1, k):
            prob = w * dmin
            if prob.sum() <= 0:
                break
            nxt = int(rng.choice(n, p=prob / prob.sum()))
            chosen.append(nxt)
            dmin = np.minimum(dmin, np.abs(x - x[nxt]).sum(axis=1))
        centers = x[chosen].copy()
        labels = np.full(n, -1, dtype=np.int64)
        dist = np.empty(n)
        n_iter = 0
        for n_iter in range(1, max_iter + 1):
            changed = _assign_l1(x, centers, labels, dist)
            if not changed and n_iter > 1:
                break
            counts = np.bincount(labels, minlength=centers.shape[0])
            for c in np.flatnonzero(counts == 0):        # an empty cluster takes the worst-served point
                far = int(np.argmax(dist * w))
                centers[c] = x[far]
                labels[far] = c
                dist[far] = 0.0
            _weighted_median_update(x, w, labels, centers)
        _assign_l1(x, centers, labels, dist)
        cost = float(np.sum(w * dist))
        if best is None or cost < best[2]:
            best = (labels.copy(), centers.copy(), cost, n_iter)
    return best


def _nearest_1d(centers: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Nearest of the increasing ``centers`` for each value, the lower one on a tie."""
    mids = 0.5 * (centers[1:] + centers[:-1])
    return np.searchsorted(mids, values, side="left").astype(np.int64)


def _nearest_l1(centers: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Nearest centre by L1 distance (EMD up to a constant) for each row, the lowest index on a tie."""
    lab = np.full(x.shape[0], -1, dtype=np.int64)
    _assign_l1(np.ascontiguousarray(x), np.ascontiguousarray(centers), lab, np.empty(x.shape[0]))
    return lab


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
            lab = _nearest_1d(centers, values[live])     # = the optimal intervals, ties as in predict
            inertia = float(np.sum((values[live] - centers[lab]) ** 2))
        else:
            x = np.ascontiguousarray(values[live])
            uniq, counts = np.unique(x, axis=0, return_counts=True)
            if k >= uniq.shape[0]:
                lab_u, centers = np.arange(uniq.shape[0]), uniq.copy()
            else:
                rng = np.random.default_rng(self.random_state)
                lab_u, centers, _, n_iter = _kmedians_l1(uniq, counts.astype(np.float64), k, rng,
                                                            int(self.n_init), int(self.max_iter))
            centers = centers[np.unique(lab_u)]                 # drop buckets left empty, number by strength
            centers = np.ascontiguousarray(centers[np.argsort(centers.mean(axis=1), kind="stable")])
            lab = _nearest_l1(centers, x)                 # same assignment (ties to the lower bucket) as predict
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
            labels[live] = _nearest_1d(self.centers_, values[live])
        else:
            labels[live] = _nearest_l1(self.centers_, values[live])
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

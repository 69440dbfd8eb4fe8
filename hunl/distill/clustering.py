"""Clustering for card abstractions: exact 1-D k-means and weighted k-medians under L1 (the EMD of cumulative
distributions).

* :func:`kmeans_1d`: *exact* (globally optimal) 1-D k-means -- dynamic programming over the sorted distinct values
  (Wang & Song 2011, "Ckmeans.1d.dp"), with the divide-and-conquer speed-up that the monotone split points of 1-D
  k-means allow (Gronlund et al. 2017);
* :func:`kmedians_l1`: k-medians under L1 (k-means++ D^1 seeding, Lloyd iterations, ``n_init`` restarts), whose
  update step, the coordinate-wise weighted median (:func:`rulelearn.numeric.weighted_quantile_position`), is the
  exact minimiser of the summed L1 distance;
* :func:`nearest_1d`, :func:`nearest_l1`: the assignment of new values to the centres (ties to the lower one).

Used by :class:`hunl.distill.abstraction.CardAbstraction`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rulelearn.numeric import weighted_quantile_position
from rulelearn.validation import check_int

__all__ = ["kmeans_1d", "kmedians_l1", "nearest_1d", "nearest_l1"]


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


def kmedians_l1(x: np.ndarray, w: np.ndarray, k: int, rng: np.random.Generator, n_init: int, max_iter: int):
    """Weighted k-medians under L1 (k-means++ D^1 seeding, Lloyd iterations); best of ``n_init``. Returns
    (labels, centers, total weighted L1 distance, iterations of the best run).

    Each run seeds ``k`` centres among the rows (the first drawn in proportion to ``w``, each next one in
    proportion to ``w`` times the L1 distance to the nearest centre so far; seeding stops early when every row
    lies on a centre), then alternates the nearest-centre assignment (the first centre on a tie) and the
    coordinate-wise lower weighted median, for at most ``max_iter`` iterations or until no label changes. An
    empty cluster takes the row of largest weighted distance. The caller
    (:class:`hunl.distill.abstraction.CardAbstraction`) passes distinct rows and their positive counts; the
    counts (``k``, ``n_init``, ``max_iter``) and the shapes are checked here.

    Parameters
    ----------
    x : numpy.ndarray of float64, shape ``(n, d)``
        The rows (e.g. cumulative distributions, whose L1 distance is their EMD); C-contiguous for the
        compiled steps.
    w : numpy.ndarray of float64, shape ``(n,)``
        Non-negative row weights, not all zero.
    k : int
        Number of clusters, at least 1 (at most ``n`` are seeded).
    rng : numpy.random.Generator
        Source of the seeding draws.
    n_init : int
        Runs from different seedings, at least 1; the one of least cost is returned.
    max_iter : int
        Most assignment/update iterations of a run, at least 0.

    Returns
    -------
    labels : numpy.ndarray of int64, shape ``(n,)``
        Cluster of each row (0 to ``centers.shape[0] - 1``), its nearest centre.
    centers : numpy.ndarray of float64, shape ``(k', d)``
        The centres; ``k' = k`` unless the seeding stopped early (fewer distinct rows of positive weight
        than ``k``).
    cost : float
        Total weighted L1 distance of the rows to their centres.
    n_iter : int
        Iterations of the returned run (0 if ``max_iter < 1``).

    Raises
    ------
    ValueError
        If ``k`` or ``n_init`` is below 1, ``max_iter`` below 0, ``x`` is not a non-empty 2-D array or ``w``
        does not have one weight per row, or ``w`` has a negative or NaN entry or sums to 0 (from
        :meth:`numpy.random.Generator.choice`).
    """
    k, n_init = check_int("k", k, 1), check_int("n_init", n_init, 1)
    max_iter = check_int("max_iter", max_iter, 0)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"x must be a non-empty 2-D array of rows, got shape {x.shape}")
    if w.shape != (x.shape[0],):
        raise ValueError(f"w must have one weight per row of x ({x.shape[0]}), got shape {w.shape}")
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


def nearest_1d(centers: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Nearest of the increasing ``centers`` for each value, the lower one on a tie.

    The assignment of new values to the intervals of :func:`kmeans_1d`: value ``v`` goes to centre ``i`` where
    ``mid[i - 1] < v <= mid[i]``, ``mid`` the midpoints between consecutive centres.

    Parameters
    ----------
    centers : numpy.ndarray, float64, shape (k,)
        Cluster centres, increasing (e.g. the ``centers`` of :func:`kmeans_1d`); ``k >= 1``.
    values : numpy.ndarray, float, shape (n,)
        Values to assign.

    Returns
    -------
    numpy.ndarray, int64, shape (n,)
        Index (0 to ``k - 1``) of the nearest centre of each value.
    """
    mids = 0.5 * (centers[1:] + centers[:-1])
    return np.searchsorted(mids, values, side="left").astype(np.int64)


def nearest_l1(centers: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Nearest centre by L1 distance (EMD up to a constant) for each row, the lowest index on a tie.

    The assignment step of :func:`kmedians_l1`, for new rows (for rows of cumulative distributions, the L1
    distance is the EMD of the distributions divided by the bin spacing).

    Parameters
    ----------
    centers : numpy.ndarray, float64, shape (k, d)
        Cluster centres (e.g. the ``centers`` of :func:`kmedians_l1`); ``k >= 1``.
    x : numpy.ndarray, float64, shape (n, d)
        Rows to assign, with the centres' number of columns (not checked).

    Returns
    -------
    numpy.ndarray, int64, shape (n,)
        Index (0 to ``k - 1``) of the nearest centre of each row.
    """
    lab = np.full(x.shape[0], -1, dtype=np.int64)
    _assign_l1(np.ascontiguousarray(x), np.ascontiguousarray(centers), lab, np.empty(x.shape[0]))
    return lab

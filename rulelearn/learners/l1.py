"""Compiled cityblock (L1) kernels behind the EMD learners.

Both generalised EMDs of Ganzfried & Yusuf (2017, *Games* 8(4), Algorithms 1-2) are scaled L1 distances between
cumulative vectors (:func:`rulelearn.features.distance.input_embedding`), so exact EMD nearest neighbours and EMD
k-medoids reduce to the kernels here. Every distance is the sequential sum ``sum_j |a_j - b_j|`` over the
features in order, bit for bit what :func:`scipy.spatial.distance.cdist` (``"cityblock"``) computes, and ties
are broken by the lower training index, so nearest neighbours equal ``cdist(...).argsort(kind="stable")[:, :k]``.

* :class:`L1NeighborIndex` -- exact ``k`` nearest neighbours by *filter and refine*. The features are cut into
  ``n_groups`` contiguous groups; the L1 distance between the vectors of group sums is a lower bound of the L1
  distance (``|sum_g (a - b)| <= sum_g |a - b|``). For each query the bound to every training row is computed
  with a few vectorised operations, the rows with the smallest bounds seed the ``k`` best exact distances, and
  only rows whose bound does not exceed the current ``k``-th best distance are refined. On the bet game's
  20-dimensional cdf vectors (intrinsic dimension 18, where KD- and ball trees prune almost nothing) 8 groups
  leave about 0.2% of the training rows to refine; see ``benchmarks/bench_learners.py``.
* :func:`l1_nearest` -- brute force, blocked for the cache and parallel over query blocks (the reference).
* :func:`l1_pairwise` -- the full ``(m, m)`` distance matrix in float32 or float64, block by block.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from rulelearn.validation import check_int

__all__ = ["L1NeighborIndex", "l1_nearest", "l1_pairwise"]

_TRAIN_BLOCK = 2048  # training rows per block: 2048 x 20 float64 = 320 KiB, stays in L2
_QUERY_BLOCK = 64


@njit(cache=True, parallel=True)
def _nearest_kernel(train_t, queries, k, out_dist, out_idx):
    n_feat, n_train = train_t.shape
    n_query = queries.shape[0]
    n_qblocks = (n_query + _QUERY_BLOCK - 1) // _QUERY_BLOCK
    for qb in prange(n_qblocks):
        q0 = qb * _QUERY_BLOCK
        q1 = min(q0 + _QUERY_BLOCK, n_query)
        best_d = np.full((q1 - q0, k), np.inf)
        best_i = np.full((q1 - q0, k), -1, dtype=np.int64)
        dist = np.empty(_TRAIN_BLOCK)
        for t0 in range(0, n_train, _TRAIN_BLOCK):
            t1 = min(t0 + _TRAIN_BLOCK, n_train)
            width = t1 - t0
            for q in range(q0, q1):
                # sequential sum over the features, vectorised across training rows
                for j in range(width):
                    dist[j] = 0.0
                for f in range(n_feat):
                    qf = queries[q, f]
                    row = train_t[f]
                    for j in range(width):
                        dist[j] += abs(row[t0 + j] - qf)
                bd = best_d[q - q0]
                bi = best_i[q - q0]
                worst = bd[k - 1]
                for j in range(width):
                    dj = dist[j]
                    if dj < worst:  # strict: an equal distance keeps the earlier (lower) index
                        pos = k - 1
                        while pos > 0 and bd[pos - 1] > dj:
                            bd[pos] = bd[pos - 1]
                            bi[pos] = bi[pos - 1]
                            pos -= 1
                        bd[pos] = dj
                        bi[pos] = t0 + j
                        worst = bd[k - 1]
        out_dist[q0:q1] = best_d
        out_idx[q0:q1] = best_i


def l1_nearest(train, queries, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``k`` nearest training rows of every query under the cityblock distance.

    Parameters
    ----------
    train : numpy.ndarray of float64, shape ``(n, D)``
    queries : numpy.ndarray of float64, shape ``(q, D)``
    k : int, default 1
        ``1 <= k <= n``.

    Returns
    -------
    dist : numpy.ndarray of float64, shape ``(q, k)``
        Sorted increasing; each is the sequential sum ``sum_j |train_ij - query_j|``.
    idx : numpy.ndarray of int64, shape ``(q, k)``
        Training rows; among equal distances the lower index comes first.

    Raises
    ------
    ValueError
        If the feature counts differ or ``k`` is outside ``1 .. n``.
    """
    train = np.ascontiguousarray(train, dtype=np.float64)
    queries = np.ascontiguousarray(queries, dtype=np.float64)
    if train.ndim != 2 or queries.ndim != 2 or train.shape[1] != queries.shape[1]:
        raise ValueError(f"train and queries must be 2-D with equal feature counts, got {train.shape} and "
                         f"{queries.shape}")
    if not 1 <= int(k) <= train.shape[0]:
        raise ValueError(f"k must be in 1..{train.shape[0]}, got {k!r}")
    out_dist = np.empty((queries.shape[0], int(k)))
    out_idx = np.empty((queries.shape[0], int(k)), dtype=np.int64)
    _nearest_kernel(np.ascontiguousarray(train.T), queries, int(k), out_dist, out_idx)
    return out_dist, out_idx


@njit(cache=True)
def _pairwise_rows(x_t, x, out, b):
    """Rows ``b * _QUERY_BLOCK ...`` of the matrix from their diagonal on, mirrored below the diagonal by tiles."""
    n_feat, m = x_t.shape
    r0 = b * _QUERY_BLOCK
    r1 = min(r0 + _QUERY_BLOCK, m)
    dist = np.empty(_TRAIN_BLOCK)
    tile = np.empty((_QUERY_BLOCK, _TRAIN_BLOCK), dtype=out.dtype)
    for c0 in range(r0, m, _TRAIN_BLOCK):
        width = min(c0 + _TRAIN_BLOCK, m) - c0
        for r in range(r0, r1):
            for j in range(width):
                dist[j] = 0.0
            for f in range(n_feat):
                xf = x[r, f]
                row = x_t[f]
                for j in range(width):
                    dist[j] += abs(row[c0 + j] - xf)
            for j in range(width):
                tile[r - r0, j] = dist[j]
                out[r, c0 + j] = dist[j]
        # the mirror image, row by row of the lower triangle (|a - b| = |b - a| term by term: exactly symmetric)
        for j in range(width):
            for r in range(r0, r1):
                out[c0 + j, r] = tile[r - r0, j]


@njit(cache=True, parallel=True)
def _pairwise_kernel(x_t, x, out):
    m = x_t.shape[1]
    n_blocks = (m + _QUERY_BLOCK - 1) // _QUERY_BLOCK
    # block b has about m - 64 b columns of work: pair the first with the last for an even split over threads
    for p in prange((n_blocks + 1) // 2):
        _pairwise_rows(x_t, x, out, p)
        if n_blocks - 1 - p != p:
            _pairwise_rows(x_t, x, out, n_blocks - 1 - p)


def l1_pairwise(x, dtype=np.float32) -> np.ndarray:
    """All pairwise cityblock distances between the rows of ``x``, stored as ``dtype``.

    Sums are accumulated in float64 and rounded once to ``dtype``, so the float32 matrix holds the correctly
    rounded float64 distances (relative error <= 2**-24). Only the upper triangle is computed; the matrix is
    exactly symmetric.

    Parameters
    ----------
    x : numpy.ndarray of float, shape ``(m, D)``
    dtype : {numpy.float32, numpy.float64}, default numpy.float32
        ``m**2 * 4`` bytes in float32 (1.6 GB for m = 20,000).

    Returns
    -------
    numpy.ndarray of ``dtype``, shape ``(m, m)``
        Symmetric with a zero diagonal.

    Raises
    ------
    ValueError
        If ``dtype`` is not float32 or float64, or ``x`` is not 2-D.
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got shape {x.shape}")
    out = np.empty((x.shape[0], x.shape[0]), dtype=dtype)
    _pairwise_kernel(np.ascontiguousarray(x.T), x, out)
    return out


@njit(cache=True, inline="always")
def _insert(bd, bi, d, j):
    """Insert (d, j) into the sorted top-k arrays, ordered by distance then index; the caller checked it fits."""
    k = bd.shape[0]
    pos = k - 1
    while pos > 0 and (bd[pos - 1] > d or (bd[pos - 1] == d and bi[pos - 1] > j)):
        bd[pos] = bd[pos - 1]
        bi[pos] = bi[pos - 1]
        pos -= 1
    bd[pos] = d
    bi[pos] = j


@njit(cache=True, inline="always")
def _exact(train, queries, j, q):
    n_feat = train.shape[1]
    d = 0.0
    for f in range(n_feat):
        d += abs(train[j, f] - queries[q, f])
    return d


@njit(cache=True, parallel=True)
def _pruned_kernel(train, sums_t, queries, qsums, k, rel_tol, out_dist, out_idx, n_refined):
    n_train = train.shape[0]
    n_groups = sums_t.shape[0]
    n_query = queries.shape[0]
    n_qblocks = (n_query + _QUERY_BLOCK - 1) // _QUERY_BLOCK
    for qb in prange(n_qblocks):
        lb = np.empty(n_train)
        seed_lb = np.empty(k)
        seed_i = np.empty(k, dtype=np.int64)
        bd = np.empty(k)
        bi = np.empty(k, dtype=np.int64)
        for q in range(qb * _QUERY_BLOCK, min(n_query, (qb + 1) * _QUERY_BLOCK)):
            # lower bounds from the group sums, vectorised across training rows
            for j in range(n_train):
                lb[j] = 0.0
            for g in range(n_groups):
                qg = qsums[q, g]
                row = sums_t[g]
                for j in range(n_train):
                    lb[j] += abs(row[j] - qg)
            # the k smallest bounds seed the search
            seed_lb[:] = np.inf
            seed_i[:] = -1
            for j in range(n_train):
                if lb[j] < seed_lb[k - 1]:
                    _insert(seed_lb, seed_i, lb[j], j)
            bd[:] = np.inf
            bi[:] = n_train
            for s in range(k):
                j = seed_i[s]
                _insert(bd, bi, _exact(train, queries, j, q), j)
            limit = bd[k - 1] * (1.0 + rel_tol) + rel_tol
            refined = k
            for j in range(n_train):
                if lb[j] <= limit:
                    seeded = False
                    for s in range(k):
                        if seed_i[s] == j:
                            seeded = True
                    if seeded:
                        continue
                    d = _exact(train, queries, j, q)
                    refined += 1
                    if d < bd[k - 1] or (d == bd[k - 1] and j < bi[k - 1]):
                        _insert(bd, bi, d, j)
                        limit = bd[k - 1] * (1.0 + rel_tol) + rel_tol
            out_dist[q] = bd
            out_idx[q] = bi
            n_refined[q] = refined


class L1NeighborIndex:
    """Exact L1 (cityblock) nearest neighbours by group-sum lower bounds (see the module docstring).

    Parameters
    ----------
    train : array_like of float, shape ``(n, D)``
    n_groups : int, default 8
        Number of contiguous feature groups whose sums give the lower bound (``1 <= n_groups <= D``).

    Raises
    ------
    ValueError
        If ``train`` is not a non-empty 2-D array or ``n_groups`` is outside ``1 .. D``.
    """

    #: Relative slack on the pruning bound, far above the rounding error of sums of ~20 terms of size <= 1.
    REL_TOL = 1e-9

    def __init__(self, train, n_groups: int = 8):
        x = np.ascontiguousarray(train, dtype=np.float64)
        if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
            raise ValueError(f"train must be a non-empty 2-D array, got shape {x.shape}")
        check_int("n_groups", n_groups, 1, x.shape[1], strict_type=True)
        self.train = x
        self.groups = np.array_split(np.arange(x.shape[1]), int(n_groups))
        self._sums_t = np.ascontiguousarray(self._group_sums(x).T)
        self.n_refined_ = None

    def _group_sums(self, x: np.ndarray) -> np.ndarray:
        return np.stack([x[:, g].sum(axis=1) for g in self.groups], axis=1)

    def query(self, queries, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Exact ``k`` nearest training rows of every query (as :func:`l1_nearest`).

        Parameters
        ----------
        queries : array_like of float, shape ``(q, D)``
        k : int, default 1

        Returns
        -------
        dist : numpy.ndarray of float64, shape ``(q, k)``
        idx : numpy.ndarray of int64, shape ``(q, k)``
            Sorted by distance, then index. ``n_refined_`` (shape ``(q,)``) records how many exact distances each
            query needed.

        Raises
        ------
        ValueError
            If the feature counts differ or ``k`` is outside ``1 .. n``.
        """
        qx = np.ascontiguousarray(queries, dtype=np.float64)
        if qx.ndim != 2 or qx.shape[1] != self.train.shape[1]:
            raise ValueError(f"queries must have shape (q, {self.train.shape[1]}), got {qx.shape}")
        check_int("k", k, 1, self.train.shape[0], strict_type=True)
        out_dist = np.empty((qx.shape[0], int(k)))
        out_idx = np.empty((qx.shape[0], int(k)), dtype=np.int64)
        refined = np.empty(qx.shape[0], dtype=np.int64)
        _pruned_kernel(self.train, self._sums_t, qx, np.ascontiguousarray(self._group_sums(qx)), int(k),
                       self.REL_TOL, out_dist, out_idx, refined)
        self.n_refined_ = refined
        return out_dist, out_idx

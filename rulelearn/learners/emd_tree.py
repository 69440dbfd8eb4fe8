"""A regression tree whose split criterion is exactly the strategy EMD (Ganzfried & Yusuf 2017, Algorithm 2).

The output EMD between two strategies is a weighted L1 distance between their cumulative strategies
(:func:`rulelearn.features.distance.output_embedding`). A tree that minimises the EMD of its training rows to their leaf's
prediction is therefore a multi-output *absolute-error* (L1) regression tree on cumulative strategies: each node
predicts the coordinate-wise median, and the best split minimises ``sum_o w_o sum_i |y_io - median_o|`` over the
two children. scikit-learn's ``criterion="absolute_error"`` is that tree with equal weights, but it is about 100
times slower than its squared error (over an hour for 64,000 games with 300 outputs at depth 6). This module grows
the same tree exactly (all thresholds, the same midpoint thresholds, the same medians; ``tests/test_learners.py``
compares it with scikit-learn on small data) in compiled code:

* level by level, with each node's samples kept sorted by every feature (stable partitioning, no re-sorting);
* for each (node, feature) the samples are swept in feature order, moving one row at a time from the right child
  to the left. For every output the L1 deviation of a set from its median is ``s`` (the set's sum) if the median
  is 0, ``n - s`` if it is 1, and ``s - 2 * below + m * (2k - n)`` for a median ``m`` of rank ``k`` with ``below``
  the sum of the ``k`` smaller values. Targets equal to exactly 0 or 1 -- 90% of the entries of cumulative
  equilibrium strategies, all of them for sampled (one-hot) targets -- are only counted, and the first two cases
  are evaluated for all outputs in one vectorised pass. For the rest, each child keeps a pointer to its median
  among the node's sorted fractional values, with the count and sum below it; a moved row shifts the median by
  about one member, so the pointers move a few ranks per step instead of being searched for;
* ties between equally good splits go to the lowest feature index, then the lowest threshold (deterministic,
  unlike scikit-learn's random feature order), which makes a deep tree cut at depth ``d`` equal to the tree
  grown with ``max_depth=d`` (:meth:`EMDTreeRegressor.truncated`);
* parallel over (node, feature) pairs.

Targets must lie in ``[0, 1]`` (cumulative probabilities).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from rulelearn.validation import as_float_array, check_int

__all__ = ["EMDTree", "EMDTreeRegressor"]

_EPS = np.finfo(np.float64).eps
_FRAC, _ZERO, _ONE = 0, 1, 2  # class of a target entry: strictly between 0 and 1, exactly 0, exactly 1


@dataclass(frozen=True)
class EMDTree:
    """The fitted tree's nodes, with scikit-learn's ``Tree`` attribute names (what :mod:`rulelearn.rules` reads).

    Nodes are numbered breadth first; node 0 is the root. Leaves have ``children_left == children_right == -1``.

    Attributes
    ----------
    children_left, children_right : numpy.ndarray of int64, shape ``(node_count,)``
    feature : numpy.ndarray of int64, shape ``(node_count,)``
        Split feature (-2 at leaves, as scikit-learn).
    threshold : numpy.ndarray of float64, shape ``(node_count,)``
        Rows with ``x[feature] <= threshold`` go left (-2 at leaves).
    value : numpy.ndarray of float64, shape ``(node_count, n_outputs)``
        The node's coordinate-wise median of the targets (midpoint of the two middle values for even counts).
    impurity : numpy.ndarray of float64, shape ``(node_count,)``
        Weighted mean absolute deviation of the node's targets from ``value``:
        ``sum_o w_o sum_i |y_io - value_o| / n_node``; for cumulative strategies, the mean EMD.
    n_node_samples : numpy.ndarray of int64, shape ``(node_count,)``
    weighted_n_node_samples : numpy.ndarray of float64, shape ``(node_count,)``
    node_count : int
    max_depth : int
    node_depth : numpy.ndarray of int64, shape ``(node_count,)``
        Depth of every node (the root is at depth 0).
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    node_count: int
    max_depth: int
    node_depth: np.ndarray


# ----------------------------------------------------------------------------------------------------- kernels


@njit(cache=True, inline="always")
def _deviation(n, k, m, below, s):
    """Sum of |y - m| over n values with sum s whose k-th smallest (0-based) is m and k smallest sum to below."""
    return s - 2.0 * below + m * (2.0 * k - n)


@njit(cache=True, inline="always")
def _move_to(t, member, ptr, below_n, below_s, o, base, yval, y0, inside):
    """Move output o's pointer to the t-th smallest (0-based) fractional member of a set; return its value.

    The set's fractional members are the node's ranks ``r`` with ``member[base + r] == inside``. The pointer
    state (``ptr[o]``, and ``below_n[o]``/``below_s[o]``, the count and sum of members with a lower rank) is kept
    between calls: the median moves by about one member per inserted row, so each call scans a few ranks.
    """
    r = ptr[o]
    cn = below_n[o]
    cs = below_s[o]
    while cn > t:
        r -= 1
        if member[base + r] == inside:
            cn -= 1
            cs -= yval[y0 + r]
    while cn < t or member[base + r] != inside:
        if member[base + r] == inside:
            cn += 1
            cs += yval[y0 + r]
        r += 1
    ptr[o] = r
    below_n[o] = cn
    below_s[o] = cs
    return yval[y0 + r]


@njit(cache=True, inline="always")
def _order_statistic(k, z, cf, yval, y0):
    """The k-th smallest (0-based) of z zeros, cf fractional values (sorted in yval[y0:]) and ones."""
    if k < z:
        return 0.0
    if k < z + cf:
        return yval[y0 + k - z]
    return 1.0


@njit(cache=True, parallel=True)
def _node_stats(xs0, noff, cls, y, yval, yoff, incl, weights):
    """Per node: counts of exact zeros / ones and sums per output, the median and the weighted L1 impurity.

    Also fills ``incl``, the inclusive prefix sums of every (output, node) segment of sorted fractional values.
    """
    n_nodes = noff.shape[0] - 1
    n_out = cls.shape[1]
    c0 = np.zeros((n_nodes, n_out), dtype=np.int32)
    c1 = np.zeros((n_nodes, n_out), dtype=np.int32)
    total_sum = np.zeros((n_nodes, n_out))
    value = np.empty((n_nodes, n_out))
    impurity = np.empty(n_nodes)
    for a in prange(n_nodes):
        s0 = noff[a]
        s1 = noff[a + 1]
        n = s1 - s0
        z = c0[a]
        one = c1[a]
        tot = total_sum[a]
        for p in range(s0, s1):
            i = xs0[p]
            for o in range(n_out):
                c = cls[i, o]
                z[o] += c & 1
                one[o] += c >> 1
                tot[o] += y[i, o]
        loss = 0.0
        k = (n - 1) // 2
        for o in range(n_out):
            y0 = yoff[o, a]
            cf = yoff[o, a + 1] - y0
            acc = 0.0
            for r in range(cf):
                acc += yval[y0 + r]
                incl[y0 + r] = acc
            lower = _order_statistic(k, z[o], cf, yval, y0)
            value[a, o] = 0.5 * (lower + _order_statistic(n // 2, z[o], cf, yval, y0))
            if k < z[o]:
                below = 0.0
            elif k < z[o] + cf:
                below = incl[y0 + k - z[o] - 1] if k > z[o] else 0.0
            else:
                below = acc + (k - z[o] - cf)
            loss += weights[o] * _deviation(n, k, lower, below, tot[o])
        impurity[a] = loss / n
    return c0, c1, total_sum, value, impurity


@njit(cache=True)
def _search_item(a, f, xval, xs, noff, cls, frac_ptr, frac_out, frac_val, frac_rank, yval, yoff, c0n, c1n, sum_n,
                 weights, min_leaf, valid, member, base, lptr, lbn, lbs, rptr, rbn, rbs, lc0, lc1, lsf, part, flag,
                 odd_list):
    """Best threshold of feature f in node a by the weighted L1 of the two children: (loss, position, threshold).

    The remaining arguments are scratch arrays, reused across items.
    """
    n_out = cls.shape[1]
    s0 = noff[a]
    n = noff[a + 1] - s0
    seg = xs[f, s0:s0 + n]
    xf = xval[f, s0:s0 + n]
    n_valid = 0
    for p in range(n - 1):
        ok = p + 1 >= min_leaf and n - p - 1 >= min_leaf and xf[p + 1] > xf[p]
        valid[p] = ok
        n_valid += ok
    if n_valid == 0:
        return np.inf, -1, np.nan
    # left-set membership of the node's fractional ranks, output by output, back to back
    base[0] = 0
    for o in range(n_out):
        base[o + 1] = base[o] + yoff[o, a + 1] - yoff[o, a]
    member[:base[n_out]] = 0
    # median pointers of the left and right sets (rank, members below it, their sum); left counts and sums
    for o in range(n_out):
        lptr[o] = 0
        lbn[o] = 0
        lbs[o] = 0.0
        rptr[o] = 0
        rbn[o] = 0
        rbs[o] = 0.0
        lc0[o] = 0
        lc1[o] = 0
        lsf[o] = 0.0  # sum of the left set's fractional values; the set's total is lc1 + lsf
    big_c0 = c0n[a]
    big_c1 = c1n[a]
    big_s = sum_n[a]
    w = weights
    best = np.inf
    best_p = -1
    for p in range(n - 1):
        i = seg[p]
        crow = cls[i]
        for o in range(n_out):
            c = crow[o]
            lc0[o] += c & 1
            lc1[o] += c >> 1
        for q in range(frac_ptr[i], frac_ptr[i + 1]):
            o = frac_out[q]
            r = frac_rank[q]
            v = frac_val[q]
            lsf[o] += v
            member[base[o] + r] = 1
            if r < lptr[o]:
                lbn[o] += 1
                lbs[o] += v
            if r < rptr[o]:
                rbn[o] -= 1
                rbs[o] -= v
        if valid[p]:
            nl = p + 1
            nr = n - nl
            k = np.int32((nl - 1) // 2)
            kr = np.int32((nr - 1) // 2)
            top_l = np.int32(nl - k)  # the median is 1 when k >= nl - c1, i.e. c1 >= nl - k
            top_r = np.int32(nr - kr)
            fnl = float(nl)
            fnr = float(nr)
            n_odd = 0
            # fast path, vectorised: a median of 0 gives sum(y), a median of 1 gives n - sum(y)
            for o in range(n_out):
                l0 = lc0[o]
                l1 = lc1[o]
                s = l1 + lsf[o]
                r0 = big_c0[o] - l0
                r1 = big_c1[o] - l1
                rs = big_s[o] - s
                left = s if k < l0 else fnl - s
                right = rs if kr < r0 else fnr - rs
                odd = (k >= l0 and l1 < top_l) or (kr >= r0 and r1 < top_r)
                part[o] = 0.0 if odd else w[o] * (left + right)
                flag[o] = odd
                n_odd += np.int32(odd)
            # four running sums (a fixed order: deterministic, and no serial dependency chain)
            t0 = t1 = t2 = t3 = 0.0
            for o in range(0, n_out - 3, 4):
                t0 += part[o]
                t1 += part[o + 1]
                t2 += part[o + 2]
                t3 += part[o + 3]
            total = (t0 + t1) + (t2 + t3)
            for o in range(n_out - n_out % 4, n_out):
                total += part[o]
            if n_odd:
                n_odd = 0
                for o in range(n_out):  # branch-free compaction of the outputs with a fractional median
                    odd_list[n_odd] = o
                    n_odd += np.int32(flag[o])
            for q in range(n_odd):  # outputs with a fractional median on either side
                o = odd_list[q]
                l0 = lc0[o]
                l1 = lc1[o]
                r0 = big_c0[o] - l0
                r1 = big_c1[o] - l1
                s = l1 + lsf[o]
                rs = big_s[o] - s
                y0 = yoff[o, a]
                if k < l0:
                    left = s
                elif l1 >= top_l:
                    left = fnl - s
                else:
                    m = _move_to(k - l0, member, lptr, lbn, lbs, o, base[o], yval, y0, 1)
                    left = _deviation(nl, k, m, lbs[o], s)
                if kr < r0:
                    right = rs
                elif r1 >= top_r:
                    right = fnr - rs
                else:
                    m = _move_to(kr - r0, member, rptr, rbn, rbs, o, base[o], yval, y0, 0)
                    right = _deviation(nr, kr, m, rbs[o], rs)
                total += w[o] * (left + right)
            if total < best:
                best = total
                best_p = p
    lo = xf[best_p]
    hi = xf[best_p + 1]
    thr = 0.5 * (lo + hi)
    if thr == hi or not np.isfinite(thr):
        thr = lo
    return best, best_p, thr


@njit(cache=True, parallel=True)
def _split_search(xval, xs, noff, item_node, item_feat, cls, frac_ptr, frac_out, frac_val, frac_rank, yval, yoff,
                  c0n, c1n, sum_n, weights, min_leaf, out_loss, out_pos, out_thr):
    """Best threshold of every (node, feature) item (loss inf if none); chunks of items share scratch arrays."""
    n_out = cls.shape[1]
    n_items = item_node.shape[0]
    n_chunks = min(n_items, 512)
    for ch in prange(n_chunks):
        lo = ch * n_items // n_chunks
        hi = (ch + 1) * n_items // n_chunks
        max_n = 2
        max_frac = 0
        for it in range(lo, hi):
            a = item_node[it]
            max_n = max(max_n, noff[a + 1] - noff[a])
            tot = 0
            for o in range(n_out):
                tot += yoff[o, a + 1] - yoff[o, a]
            max_frac = max(max_frac, tot)
        valid = np.empty(max_n - 1, dtype=np.bool_)
        member = np.empty(max_frac, dtype=np.uint8)
        base = np.empty(n_out + 1, dtype=np.int64)
        lptr = np.empty(n_out, dtype=np.int64)
        lbn = np.empty(n_out, dtype=np.int64)
        lbs = np.empty(n_out)
        rptr = np.empty(n_out, dtype=np.int64)
        rbn = np.empty(n_out, dtype=np.int64)
        rbs = np.empty(n_out)
        lc0 = np.empty(n_out, dtype=np.int32)
        lc1 = np.empty(n_out, dtype=np.int32)
        lsf = np.empty(n_out)
        part = np.empty(n_out)
        flag = np.empty(n_out, dtype=np.bool_)
        odd_list = np.empty(n_out, dtype=np.int64)
        for it in range(lo, hi):
            loss, pos, thr = _search_item(item_node[it], item_feat[it], xval, xs, noff, cls, frac_ptr, frac_out,
                                          frac_val, frac_rank, yval, yoff, c0n, c1n, sum_n, weights, min_leaf,
                                          valid, member, base, lptr, lbn, lbs, rptr, rbn, rbs, lc0, lc1, lsf,
                                          part, flag, odd_list)
            out_loss[it] = loss
            out_pos[it] = pos
            out_thr[it] = thr


@njit(cache=True)
def _assign_children(x, xs0, noff, feat, thr, child_base, new_node):
    """New node of every active sample: ``child_base[a]`` (left) or ``+1`` (right); -1 if its node is a leaf."""
    n_nodes = noff.shape[0] - 1
    for a in range(n_nodes):
        for p in range(noff[a], noff[a + 1]):
            i = xs0[p]
            if child_base[a] < 0:
                new_node[i] = -1
            elif x[i, feat[a]] <= thr[a]:
                new_node[i] = child_base[a]
            else:
                new_node[i] = child_base[a] + 1


@njit(cache=True, parallel=True)
def _partition_features(xs, xval, new_node, new_noff):
    """Stable bucketing of every feature's order (and values) by new node: children stay sorted by each feature."""
    n_feat = xs.shape[0]
    n_new = new_noff.shape[0] - 1
    out = np.empty((n_feat, new_noff[n_new]), dtype=xs.dtype)
    out_val = np.empty((n_feat, new_noff[n_new]))
    for f in prange(n_feat):
        ptr = new_noff[:-1].copy()
        for p in range(xs.shape[1]):
            i = xs[f, p]
            c = new_node[i]
            if c >= 0:
                out[f, ptr[c]] = i
                out_val[f, ptr[c]] = xval[f, p]
                ptr[c] += 1
    return out, out_val


@njit(cache=True, parallel=True)
def _count_fractional(yflat, ystart, new_node, n_new):
    n_out = ystart.shape[0] - 1
    counts = np.zeros((n_out, n_new), dtype=np.int64)
    for o in prange(n_out):
        for p in range(ystart[o], ystart[o + 1]):
            c = new_node[yflat[p]]
            if c >= 0:
                counts[o, c] += 1
    return counts


@njit(cache=True, parallel=True)
def _partition_outputs(yflat, yval, yq, ystart, new_node, new_yoff, frac_rank):
    """Stable bucketing of every output's value order by new node; re-rank the fractional entries."""
    n_out = ystart.shape[0] - 1
    n_new = new_yoff.shape[1] - 1
    out = np.empty(new_yoff[n_out - 1, n_new], dtype=yflat.dtype)
    out_val = np.empty(new_yoff[n_out - 1, n_new])
    out_q = np.empty(new_yoff[n_out - 1, n_new], dtype=yq.dtype)
    for o in prange(n_out):
        ptr = new_yoff[o, :-1].copy()
        for p in range(ystart[o], ystart[o + 1]):
            i = yflat[p]
            c = new_node[i]
            if c >= 0:
                out[ptr[c]] = i
                out_val[ptr[c]] = yval[p]
                out_q[ptr[c]] = yq[p]
                frac_rank[yq[p]] = ptr[c] - new_yoff[o, c]
                ptr[c] += 1
    return out, out_val, out_q


@njit(cache=True)
def _paths(x, feature, threshold, left, right):
    """CSR of the nodes on every row's root-to-leaf path (increasing node ids)."""
    m = x.shape[0]
    indptr = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        node = 0
        length = 1
        while left[node] >= 0:
            node = left[node] if x[i, feature[node]] <= threshold[node] else right[node]
            length += 1
        indptr[i + 1] = indptr[i] + length
    indices = np.empty(indptr[m], dtype=np.int64)
    for i in range(m):
        node = 0
        pos = indptr[i]
        indices[pos] = 0
        while left[node] >= 0:
            node = left[node] if x[i, feature[node]] <= threshold[node] else right[node]
            pos += 1
            indices[pos] = node
    return indptr, indices


@njit(cache=True, parallel=True)
def _apply(x, feature, threshold, left, right):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in prange(x.shape[0]):
        node = 0
        while left[node] >= 0:
            node = left[node] if x[i, feature[node]] <= threshold[node] else right[node]
        out[i] = node
    return out


# ------------------------------------------------------------------------------------------------------ driver


def _grow(x: np.ndarray, y: np.ndarray, weights: np.ndarray, max_depth: int | None, min_samples_leaf: int
          ) -> EMDTree:
    n, n_feat = x.shape
    n_out = y.shape[1]
    cls = np.full((n, n_out), _FRAC, dtype=np.uint8)
    cls[y == 0.0] = _ZERO
    cls[y == 1.0] = _ONE
    frac = cls == _FRAC
    # each row's outputs with a fractional target (static) and their rank in the node (per level), as CSR
    frac_ptr = np.concatenate([[0], np.cumsum(frac.sum(axis=1))]).astype(np.int64)
    frac_rows, frac_out = np.nonzero(frac)
    frac_rows = frac_rows.astype(np.int32)
    frac_out = frac_out.astype(np.int32)
    frac_val = y[frac_rows, frac_out]
    # root: every output's fractional entries sorted by value (ties by row), as positions in the CSR
    yq = np.lexsort((frac_val, frac_out)).astype(np.int64)
    counts = np.bincount(frac_out, minlength=n_out).astype(np.int64)
    ystart = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    yflat = frac_rows[yq]
    yval = frac_val[yq]
    frac_rank = np.empty(frac_out.size, dtype=np.int32)
    frac_rank[yq] = (np.arange(yq.size) - np.repeat(ystart[:-1], counts)).astype(np.int32)
    yoff = np.stack([ystart[:-1], ystart[1:]], axis=1)
    xs = np.ascontiguousarray(np.argsort(x, axis=0, kind="stable").T.astype(np.int32))
    xval = np.ascontiguousarray(np.take_along_axis(x.T, xs, axis=1))
    noff = np.array([0, n], dtype=np.int64)

    nodes = {k: [] for k in ("feature", "threshold", "value", "impurity", "n", "left", "right", "depth")}
    base = 0
    depth = 0
    new_node = np.empty(n, dtype=np.int64)
    while True:
        n_nodes = noff.size - 1
        incl = np.empty(yval.size)
        c0, c1, sums, value, impurity = _node_stats(xs[0], noff, cls, y, yval, yoff, incl, weights)
        sizes = np.diff(noff)
        feat = np.full(n_nodes, -2, dtype=np.int64)
        thr = np.full(n_nodes, -2.0)
        can = (sizes >= max(2, 2 * min_samples_leaf)) & (impurity > _EPS)
        if max_depth is not None and depth >= max_depth:
            can[:] = False
        cand = np.flatnonzero(can)
        if cand.size:
            item_node = np.repeat(cand, n_feat)
            item_feat = np.tile(np.arange(n_feat), cand.size)
            loss = np.empty(item_node.size)
            pos = np.empty(item_node.size, dtype=np.int64)
            thr_items = np.empty(item_node.size)
            _split_search(xval, xs, noff, item_node, item_feat, cls, frac_ptr, frac_out, frac_val, frac_rank,
                          yval, yoff, c0, c1, sums, weights, int(min_samples_leaf), loss, pos, thr_items)
            loss = loss.reshape(cand.size, n_feat)
            best = np.argmin(loss, axis=1)  # lowest feature index among equal losses
            ok = np.isfinite(loss[np.arange(cand.size), best])
            chosen = cand[ok]
            feat[chosen] = best[ok]
            thr[chosen] = thr_items.reshape(cand.size, n_feat)[np.flatnonzero(ok), best[ok]]
        split = feat >= 0
        child_base = np.full(n_nodes, -1, dtype=np.int64)
        child_base[split] = 2 * np.arange(int(split.sum()))
        left = np.where(split, base + n_nodes + child_base, -1)
        right = np.where(split, left + 1, -1)
        for key, val in (("feature", feat), ("threshold", thr), ("value", value), ("impurity", impurity),
                         ("n", sizes), ("left", left), ("right", right),
                         ("depth", np.full(n_nodes, depth, dtype=np.int64))):
            nodes[key].append(val)
        if not split.any():
            break
        _assign_children(x, xs[0], noff, feat, thr, child_base, new_node)
        n_new = 2 * int(split.sum())
        active = new_node[xs[0]]
        child_sizes = np.bincount(active[active >= 0], minlength=n_new)
        new_noff = np.concatenate([[0], np.cumsum(child_sizes)]).astype(np.int64)
        xs, xval = _partition_features(xs, xval, new_node, new_noff)
        fcounts = _count_fractional(yflat, ystart, new_node, n_new)
        new_yoff = np.concatenate([np.zeros((n_out, 1), dtype=np.int64), np.cumsum(fcounts, axis=1)], axis=1)
        new_ystart = np.concatenate([[0], np.cumsum(new_yoff[:, -1])]).astype(np.int64)
        new_yoff += new_ystart[:-1, None]
        yflat, yval, yq = _partition_outputs(yflat, yval, yq, ystart, new_node, new_yoff, frac_rank)
        ystart = new_ystart
        yoff = new_yoff
        noff = new_noff
        base += n_nodes
        depth += 1
    cat = {k: np.concatenate(v) for k, v in nodes.items()}
    return EMDTree(
        children_left=cat["left"].astype(np.int64),
        children_right=cat["right"].astype(np.int64),
        feature=cat["feature"].astype(np.int64),
        threshold=cat["threshold"].astype(np.float64),
        value=cat["value"],
        impurity=cat["impurity"],
        n_node_samples=cat["n"].astype(np.int64),
        weighted_n_node_samples=cat["n"].astype(np.float64),
        node_count=int(cat["n"].size),
        max_depth=depth,
        node_depth=cat["depth"],
    )


# --------------------------------------------------------------------------------------------------- estimator


def _training_loss(tree: EMDTree) -> float:
    leaves = tree.children_left < 0
    return float((tree.impurity[leaves] * tree.n_node_samples[leaves]).sum() / tree.n_node_samples[0])



class EMDTreeRegressor(RegressorMixin, BaseEstimator):
    """Multi-output regression tree minimising the weighted absolute error, for targets in ``[0, 1]``.

    On cumulative strategies (:func:`rulelearn.features.distance.output_embedding` without the scaling, i.e.
    :func:`~rulelearn.features.distance.strategy_cumulative`) with ``output_weights`` the embedding's weights, the split
    criterion and the reported losses are exactly the output EMD of Algorithm 2: a node's ``impurity`` is the mean
    EMD of its training strategies to the node's strategy. See the module docstring for the algorithm; with equal
    weights it grows the tree of scikit-learn's ``DecisionTreeRegressor(criterion="absolute_error")`` (up to
    tie-breaking between equally good splits: we take the lowest feature index, then the lowest threshold).

    Parameters
    ----------
    max_depth : int or None, default None
        None grows until every leaf is pure or has fewer than ``2 * min_samples_leaf`` rows.
    min_samples_leaf : int, default 1
    output_weights : array_like of float, shape ``(n_outputs,)``, optional
        Non-negative weights ``w_o`` of the per-output absolute errors; default ``1 / n_outputs`` each.

    Attributes
    ----------
    tree_ : EMDTree
        The nodes (scikit-learn's attribute names).
    n_features_in_ : int
    n_outputs_ : int
    training_loss_ : float
        ``sum_o w_o |y_io - prediction_io|`` averaged over the training rows (the mean training EMD).
    """

    def __init__(self, max_depth=None, min_samples_leaf: int = 1, output_weights=None):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.output_weights = output_weights

    def fit(self, X, y):
        """Grow the tree.

        Parameters
        ----------
        X : array_like of float, shape ``(m, n_features)``
        y : array_like of float, shape ``(m, n_outputs)`` or ``(m,)``
            Targets in ``[0, 1]``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            On NaN, mismatched rows, targets outside ``[0, 1]``, negative or misshapen ``output_weights``, or a
            ``max_depth`` / ``min_samples_leaf`` that is not a positive integer.
        """
        x = np.ascontiguousarray(as_float_array(X, "X", ndim=2))
        t = as_float_array(y, "y", ndim=(1, 2))
        t = np.ascontiguousarray(t.reshape(t.shape[0], -1))
        if t.shape[0] != x.shape[0]:
            raise ValueError(f"y has {t.shape[0]} rows but X has {x.shape[0]}")
        if x.shape[0] == 0:
            raise ValueError("X needs at least one row")
        if np.any(t < 0) or np.any(t > 1):
            raise ValueError("y must lie in [0, 1] (cumulative probabilities)")
        check_int("max_depth", self.max_depth, 0, allow_none=True, strict_type=True)
        msl = check_int("min_samples_leaf", self.min_samples_leaf, 1, strict_type=True)
        n_out = t.shape[1]
        if self.output_weights is None:
            w = np.full(n_out, 1.0 / n_out)
        else:
            w = as_float_array(self.output_weights, "output_weights", ndim=1)
            if w.shape != (n_out,) or np.any(w < 0):
                raise ValueError(f"output_weights must be {n_out} non-negative numbers, got shape {w.shape}")
        self.tree_ = _grow(x, t, np.ascontiguousarray(w), None if self.max_depth is None else int(self.max_depth),
                           int(msl))
        self.training_loss_ = _training_loss(self.tree_)
        self.n_features_in_ = x.shape[1]
        self.n_outputs_ = n_out
        return self

    def _check_x(self, X) -> np.ndarray:
        check_is_fitted(self, "tree_")
        x = np.ascontiguousarray(as_float_array(X, "X", ndim=2))
        if x.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {x.shape[1]} features, the tree was fitted with {self.n_features_in_}")
        return x

    def apply(self, X) -> np.ndarray:
        """The leaf (node id) of every row, shape ``(k,)`` int64."""
        x = self._check_x(X)
        t = self.tree_
        return _apply(x, t.feature, t.threshold, t.children_left, t.children_right)

    def decision_path(self, X) -> sp.csr_matrix:
        """The nodes every row passes, as scikit-learn's ``decision_path``: CSR of shape ``(k, node_count)``.

        Each row lists its nodes root first; node ids increase along a path (breadth-first numbering).
        """
        x = self._check_x(X)
        t = self.tree_
        indptr, indices = _paths(x, t.feature, t.threshold, t.children_left, t.children_right)
        data = np.ones(indices.size, dtype=np.int64)
        return sp.csr_matrix((data, indices, indptr), shape=(x.shape[0], t.node_count))

    def truncated(self, max_depth: int) -> EMDTreeRegressor:
        """The fitted tree cut at ``max_depth``.

        Equal to refitting with depth limit ``min(max_depth, self.max_depth)`` (growth is level-wise and greedy,
        and ties are broken by index, not at random), at no cost. Nodes are numbered breadth first, so the nodes
        at depth ``<= max_depth`` are a prefix.

        Raises
        ------
        ValueError
            If ``max_depth`` is not a non-negative integer.
        """
        check_is_fitted(self, "tree_")
        check_int("max_depth", max_depth, 0, strict_type=True)
        t = self.tree_
        depth = t.node_depth
        keep = int(np.count_nonzero(depth <= max_depth))
        cut = depth[:keep] == max_depth
        left = np.where(cut, -1, t.children_left[:keep])
        right = np.where(cut, -1, t.children_right[:keep])
        tree = replace(
            t, children_left=left, children_right=right,
            feature=np.where(cut, -2, t.feature[:keep]), threshold=np.where(cut, -2.0, t.threshold[:keep]),
            value=t.value[:keep], impurity=t.impurity[:keep], n_node_samples=t.n_node_samples[:keep],
            node_depth=t.node_depth[:keep],
            weighted_n_node_samples=t.weighted_n_node_samples[:keep], node_count=keep,
            max_depth=int(min(t.max_depth, max_depth)),
        )
        limit = int(max_depth) if self.max_depth is None else min(int(self.max_depth), int(max_depth))
        out = EMDTreeRegressor(max_depth=limit, min_samples_leaf=self.min_samples_leaf,
                               output_weights=self.output_weights)
        out.tree_ = tree
        out.n_features_in_ = self.n_features_in_
        out.n_outputs_ = self.n_outputs_
        out.training_loss_ = _training_loss(tree)
        return out

    def predict(self, X) -> np.ndarray:
        """The leaf medians, shape ``(k, n_outputs)`` float64."""
        return self.tree_.value[self.apply(X)]

    def get_n_leaves(self) -> int:
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return int((self.tree_.children_left < 0).sum())

    def get_depth(self) -> int:
        """Depth of the deepest leaf."""
        check_is_fitted(self, "tree_")
        return int(self.tree_.max_depth)

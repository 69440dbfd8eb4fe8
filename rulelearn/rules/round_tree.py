"""Trees whose thresholds are round numbers and whose rules have few conditions, grown best-first.

:func:`grow_round_tree` is a CART-style regression tree over per-decision rows with three constraints a rule card
needs (:mod:`rulelearn.rules.plain`):

* every threshold is taken from a grid of round values given per feature (``x <= 0.7``, never ``x <= 0.694``), so
  no snapping is needed after fitting and the printed rule is exactly the fitted one;
* every leaf has at most ``max_conditions`` *conditions*: bounds on a feature, counted once per feature and side
  (``0.2 < x <= 0.7`` is two), except on ``free`` features (the card's sections: street, position, facing a bet),
  which name the section a rule is printed in instead;
* a leaf may split on an ordinary feature only once it is *pure* in the ``pure`` features (a rule about the bet
  faced must not also cover decisions that face no bet).

Growth is best-first by the decrease of the criterion, so the trees with 1, 2, ..., ``max_leaves`` leaves are
nested (:class:`rulelearn.rules.growth.GrownTree`). Criteria: ``"squared_error"`` on targets ``Y`` (cumulative
strategies: the Cramér distance, as :class:`rulelearn.learners.StrategyTree`), or ``"cost"``, where ``Y[i, j]``
is the cost of action ``j`` at row ``i`` and a group pays the least total cost of one action (a cost-sensitive
classification tree, as policy trees).

Each candidate split is evaluated from per-bin sums (one ``bincount`` per feature and target column per leaf), so
a leaf of ``m`` rows costs ``O(m F k)`` whatever the grid sizes.
"""

from __future__ import annotations

import heapq

import numpy as np

from rulelearn.rules.growth import GrownTree
from rulelearn.validation import as_float_array, check_int

__all__ = ["CRITERIA", "grow_round_tree", "leaf_means", "n_conditions"]

_LOW = -1e300  # NaN features go left at every threshold

#: Split criteria of :func:`grow_round_tree`.
CRITERIA = ("squared_error", "cost")


def _impurity(sums: np.ndarray, weight: np.ndarray, criterion: str) -> np.ndarray:
    """Negative "fit" of groups with target sums ``sums`` (..., k) and weights ``weight`` (...): the part of the
    criterion that depends on the grouping (lower is better)."""
    if criterion == "squared_error":
        w = np.where(weight > 0, weight, 1.0)
        return -np.where(weight > 0, (sums ** 2).sum(axis=-1) / w, 0.0)
    return sums.min(axis=-1)


def n_conditions(tree: GrownTree, node: int, free=()) -> int:
    """Conditions of the rule of ``node``: bounds on non-free features, one per feature and side.

    The rule is the merged bounds on the path from the root (:meth:`GrownTree.conditions`): ``0.2 < x <= 0.7``
    is two conditions, however often the path splits on ``x``.

    Parameters
    ----------
    tree : GrownTree
    node : int
        A node id of ``tree``. Not checked: an id that is not a node of the tree has an empty path (0
        conditions).
    free : iterable of int, default ()
        Feature indices whose bounds are not counted (a card's section features).

    Returns
    -------
    int
        The number of conditions, ``0 .. 2 * n_features``.

    Raises
    ------
    TypeError, ValueError
        If ``node`` or an entry of ``free`` cannot be converted by ``int``.
    """
    free = set(int(f) for f in free)
    return int(sum((c.lower is not None) + (c.upper is not None) for c in tree.conditions(int(node))
                   if c.feature not in free))


def grow_round_tree(X, Y, grids, weight=None, max_leaves: int = 20, max_conditions: int = 3, free=(), pure=(),
                    min_leaf_weight: float = 0.0, min_leaf_rows: int = 1, criterion: str = "squared_error",
                    feature_names=None, start: GrownTree | None = None, start_leaves: int | None = None
                    ) -> GrownTree:
    """Grow a tree best-first with thresholds on round grids and few conditions per leaf.

    Parameters
    ----------
    X : array_like of float, shape ``(m, F)``
        Features (NaN goes left at every threshold).
    Y : array_like of float, shape ``(m, k)``
        Targets (``"squared_error"``) or action costs (``"cost"``).
    grids : sequence of array_like or None, length ``F``
        Candidate thresholds of each feature (``None`` or empty: never split on it); rows with ``x <= t`` go left.
    weight : array_like of float, shape ``(m,)``, optional
        Non-negative row weights (default 1).
    max_leaves : int, default 20
    max_conditions : int, default 3
        Most conditions (bounds on non-free features, one per feature and side) of a leaf.
    free : sequence of int
        Features whose bounds are not counted (a card's section features).
    pure : sequence of int
        A leaf splits on a feature outside ``free`` only if all its rows share one value of each of these.
    min_leaf_weight : float, default 0
        Least share of the total weight in a child.
    min_leaf_rows : int, default 1
        Fewest rows in a child.
    criterion : {"squared_error", "cost"}
    feature_names : sequence of str, optional
    start : GrownTree, optional
        Continue growing this tree (grown on the same features): its first ``start_leaves - 1`` splits are kept
        as they are, in their order and with their gains, and growth goes on best-first from its leaves with
        the targets ``Y`` (which may differ from those it was grown on: e.g. regrets measured under the rules it
        already has). Its splits need not respect ``max_conditions`` or ``min_leaf_weight``; new splits do.
    start_leaves : int, optional
        Leaves of ``start`` to continue from (default all of them).

    Returns
    -------
    GrownTree
        ``gains``: each split's decrease of the criterion, over the total weight (for the splits of ``start``:
        its own gains). Grown from the root, the trees with 1, 2, ... leaves are nested; grown from ``start``,
        the tree with ``L <= start_leaves`` leaves is ``start``'s.

    Raises
    ------
    ValueError
        On mismatched shapes, an unknown criterion, negative weights or invalid sizes, or a ``start`` tree
        over other features.
    """
    x = np.nan_to_num(np.asarray(X, dtype=np.float64), nan=_LOW)
    if x.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {x.shape}")
    y = as_float_array(Y, "Y", ndim=2)
    m, n_feat = x.shape
    if y.shape[0] != m:
        raise ValueError(f"Y has {y.shape[0]} rows but X has {m}")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    if len(grids) != n_feat:
        raise ValueError(f"grids must have one entry per feature ({n_feat}), got {len(grids)}")
    w = np.ones(m) if weight is None else as_float_array(weight, "weight", ndim=1)
    if w.shape != (m,) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weight must be non-negative, one per row, and not all zero")
    max_leaves = check_int("max_leaves", max_leaves, 1)
    max_conditions = check_int("max_conditions", max_conditions, 0)
    min_leaf_rows = check_int("min_leaf_rows", min_leaf_rows, 1)
    names = tuple(feature_names) if feature_names is not None else tuple(f"x[{k}]" for k in range(n_feat))
    free, pure = {int(f) for f in free}, [int(f) for f in pure]
    grid = [np.unique(np.asarray(g, dtype=np.float64)) if g is not None else np.zeros(0) for g in grids]
    # bin codes: x <= grid[t]  <=>  code <= t
    codes = [np.searchsorted(g, x[:, f], side="left").astype(np.int32)
             if g.size else None for f, g in enumerate(grid)]
    wy = w[:, None] * y
    total_w = float(w.sum())
    min_w = float(min_leaf_weight) * total_w

    def node_cost(rows) -> float:
        return float(_impurity(wy[rows].sum(axis=0), np.asarray(w[rows].sum()), criterion))

    def best_split(rows: np.ndarray, bounds: frozenset):
        wr = w[rows]
        if any(np.unique(x[rows, f]).size > 1 for f in pure):
            allowed = [f for f in range(n_feat) if f in free]
        else:
            allowed = list(range(n_feat))
        parent = node_cost(rows)
        best = None
        for f in allowed:
            g = grid[f]
            if codes[f] is None:
                continue
            if f not in free:
                extra = (f, "hi") not in bounds, (f, "lo") not in bounds
                if len(bounds) + max(extra) > max_conditions:
                    # a split adds (f, hi) on the left and (f, lo) on the right
                    if len(bounds) + extra[0] > max_conditions or len(bounds) + extra[1] > max_conditions:
                        continue
            c = codes[f][rows]
            nb = g.size + 1
            cw = np.cumsum(np.bincount(c, weights=wr, minlength=nb))[:g.size]
            cn = np.cumsum(np.bincount(c, minlength=nb))[:g.size]
            cs = np.stack([np.cumsum(np.bincount(c, weights=wy[rows, j], minlength=nb))[:g.size]
                           for j in range(y.shape[1])], axis=1)
            tw, tn, ts = float(wr.sum()), rows.size, wy[rows].sum(axis=0)
            ok = (cn >= min_leaf_rows) & (tn - cn >= min_leaf_rows) & (cw >= min_w) & (tw - cw >= min_w) \
                & (cw > 0) & (tw - cw > 0)
            if not ok.any():
                continue
            cost = _impurity(cs, cw, criterion) + _impurity(ts[None, :] - cs, tw - cw, criterion)
            cost = np.where(ok, cost, np.inf)
            t = int(np.argmin(cost))
            gain = parent - float(cost[t])
            if gain > 1e-12 * max(1.0, abs(parent)) and (best is None or gain > best[0]):
                best = (gain, f, float(g[t]))
        return best

    if start is None:
        nodes = [{"feature": -1, "threshold": np.nan, "left": -1, "right": -1}]
        state = {0: (np.arange(m), frozenset())}
        order, gains = [], []
    else:
        if len(start.feature_names) != n_feat:
            raise ValueError(f"start was grown on {len(start.feature_names)} features, X has {n_feat}")
        n0 = start.max_leaves if start_leaves is None else check_int("start_leaves", start_leaves, 1,
                                                                      start.max_leaves)
        nodes, state, order, gains = _restart(start, n0, x, free)
        if len(order) >= max_leaves - 1:
                raise ValueError(f"max_leaves ({max_leaves}) must exceed the leaves of start ({len(order) + 1})")
    heap = []

    def push(node: int) -> None:
        rows, bounds = state[node]
        cand = best_split(rows, bounds)
        if cand is not None:
            heapq.heappush(heap, (-cand[0], node, cand[1], cand[2]))

    for node in sorted(state):
        push(node)
    while heap and len(order) < max_leaves - 1:
        neg_gain, node, f, t = heapq.heappop(heap)
        rows, bounds = state.pop(node)
        go_left = x[rows, f] <= t
        left_id, right_id = len(nodes), len(nodes) + 1
        nodes[node].update(feature=int(f), threshold=float(t), left=left_id, right=right_id)
        nodes.extend([{"feature": -1, "threshold": np.nan, "left": -1, "right": -1} for _ in range(2)])
        extra_l = bounds if f in free else bounds | {(f, "hi")}
        extra_r = bounds if f in free else bounds | {(f, "lo")}
        state[left_id], state[right_id] = (rows[go_left], extra_l), (rows[~go_left], extra_r)
        order.append(node)
        gains.append(-neg_gain / total_w)
        push(left_id)
        push(right_id)
    return GrownTree(
        feature=np.array([nd["feature"] for nd in nodes], dtype=np.int64),
        threshold=np.array([nd["threshold"] for nd in nodes], dtype=np.float64),
        left=np.array([nd["left"] for nd in nodes], dtype=np.int64),
        right=np.array([nd["right"] for nd in nodes], dtype=np.int64),
        split_order=np.asarray(order, dtype=np.int64), gains=np.asarray(gains, dtype=np.float64),
        feature_names=names)


def _restart(tree: GrownTree, n_leaves: int, x: np.ndarray, free: set) -> tuple:
    """The nodes, leaf states (rows, bounds), split order and gains of ``tree`` cut at ``n_leaves`` leaves,
    renumbered breadth-first so that parents keep smaller ids than their children."""
    split = [int(s) for s in tree.split_order[: n_leaves - 1]]
    inner = set(split)
    new_id, queue = {0: 0}, [0]
    for old in queue:                                   # breadth-first: a parent is numbered before its children
        if old in inner:
            for child in (int(tree.left[old]), int(tree.right[old])):
                new_id[child] = len(new_id)
                queue.append(child)
    nodes = [{"feature": -1, "threshold": np.nan, "left": -1, "right": -1} for _ in queue]
    for old in inner:
        nodes[new_id[old]].update(feature=int(tree.feature[old]), threshold=float(tree.threshold[old]),
                                  left=new_id[int(tree.left[old])], right=new_id[int(tree.right[old])])
    state = {0: (np.arange(x.shape[0]), frozenset())}
    for old in queue:                                   # route the rows down, collecting each leaf's bounds
        if old not in inner:
            continue
        rows, bounds = state.pop(new_id[old])
        f, t = int(tree.feature[old]), float(tree.threshold[old])
        go_left = x[rows, f] <= t
        state[new_id[int(tree.left[old])]] = (rows[go_left], bounds if f in free else bounds | {(f, "hi")})
        state[new_id[int(tree.right[old])]] = (rows[~go_left], bounds if f in free else bounds | {(f, "lo")})
    return nodes, state, [new_id[s] for s in split], [float(g) for g in tree.gains[: n_leaves - 1]]


def leaf_means(tree: GrownTree, n_leaves: int, X, Y, weight=None) -> tuple[np.ndarray, np.ndarray]:
    """The leaves of the tree with ``n_leaves`` leaves and the weighted mean target of each.

    Parameters
    ----------
    tree : GrownTree
        A grown tree (e.g. :func:`grow_round_tree`).
    n_leaves : int
        Leaves of the cut tree, in ``1 .. tree.max_leaves``.
    X : array_like of float, shape ``(m, n_features)``
        The rows' features, the tree's columns; NaN reads below every threshold (goes left), as in growth.
    Y : array_like of float, shape ``(m, k)``
        The rows' targets (two-dimensional: a 1-D ``Y`` broadcasts to a wrong shape).
    weight : array_like of float, shape ``(m,)``, optional
        Non-negative row weights (default 1 each).

    Returns
    -------
    leaves : numpy.ndarray of int64, shape ``(L,)``
        Node ids.
    means : numpy.ndarray of float64, shape ``(L, k)``
        Weighted mean of ``Y`` over the rows reaching each leaf (NaN for a leaf no row reaches).
        (Also NaN for a leaf whose rows all weigh 0.)

    Raises
    ------
    ValueError
        If ``n_leaves`` is not in ``1 .. tree.max_leaves``, ``X`` is not two-dimensional or has another number
        of features than the tree, or the shapes of ``X``, ``Y`` and ``weight`` do not match.
    """
    x = np.asarray(X, dtype=np.float64)
    y = np.asarray(Y, dtype=np.float64)
    w = np.ones(x.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    leaves = tree.leaves(n_leaves)
    masks = tree.node_masks(np.nan_to_num(x, nan=_LOW))[leaves]
    tot = masks @ w
    means = (masks * w) @ y / np.where(tot > 0, tot, np.nan)[:, None]
    return leaves, means

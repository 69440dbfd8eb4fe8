"""Rule-set trees over game features, grown best-first so that one growth gives every size.

A *rule set* partitions the space of games by a few if-then conditions on game features (the cdf features of
the players' ranges) and memorises one full strategy per part (:mod:`rulelearn.rules.leaves`). Two ways to grow
the tree, both best-first (the leaf whose split helps most is split next, so the trees with 1, 2, ...,
``max_leaves`` leaves are nested):

* :func:`grow_cart_tree`: scikit-learn's CART with ``max_leaf_nodes`` on cumulative strategies (squared error, the
  criterion of :class:`~rulelearn.learners.StrategyTree`), the split order read off the child node ids;
* :func:`grow_exploitability_tree`: *exploitability in the loop*. A candidate split of a leaf is scored by the
  held-out mean exploitability of the LP-optimal strategies of its two children. Approximations, to keep it
  fast: candidate thresholds are ``n_thresholds`` within-leaf quantiles per feature; all candidates are screened
  by the same score with mean-strategy children (closed form, microseconds) and only the ``n_screen`` best are
  scored with LP-optimal children; the children's LPs are fitted on a subsample ``A`` of at most ``n_fit`` of
  the leaf's training games and scored on a disjoint subsample ``B`` of at most ``n_score`` of them (an honest
  estimate: in-sample LP optima are optimistic, more so for small children).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from rulelearn.features.distance import strategy_cumulative
from rulelearn.rules.conditions import Condition
from rulelearn.validation import as_float_array, check_int

__all__ = ["GrownTree", "grow_cart_tree", "grow_exploitability_tree"]


@dataclass(frozen=True)
class GrownTree:
    """A binary tree over game features grown best-first, with the order of its splits.

    Attributes
    ----------
    feature : numpy.ndarray of int64, shape ``(n_nodes,)``
        Split feature of each node; -1 for a node never split.
    threshold : numpy.ndarray of float64, shape ``(n_nodes,)``
        Split threshold: rows with ``X[:, feature] <= threshold`` go left.
    left, right : numpy.ndarray of int64, shape ``(n_nodes,)``
        Children (-1 for a node never split). Node 0 is the root.
    split_order : numpy.ndarray of int64, shape ``(n_nodes - 1) // 2``
        Internal nodes in the order they were split; the tree with ``L`` leaves is the root split by the first
        ``L - 1`` of them.
    gains : numpy.ndarray of float64, shape like ``split_order``
        The grower's estimate of each split's improvement (squared-error decrease for CART; decrease of the
        held-out mean exploitability over the training games, chips, for the exploitability tree).
    feature_names : tuple of str
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    split_order: np.ndarray
    gains: np.ndarray
    feature_names: tuple[str, ...]

    @property
    def max_leaves(self) -> int:
        """Leaves of the fully grown tree."""
        return len(self.split_order) + 1

    def leaves(self, n_leaves: int) -> np.ndarray:
        """Node ids of the leaves of the tree with ``n_leaves`` leaves, left to right, shape ``(n_leaves,)``.

        Raises
        ------
        ValueError
            If ``n_leaves`` is not in ``1 .. max_leaves``.
        """
        n_leaves = check_int("n_leaves", n_leaves, 1, self.max_leaves)
        split = {int(s) for s in self.split_order[: n_leaves - 1]}
        out, stack = [], [0]
        while stack:
            node = stack.pop()
            if node in split:
                stack.extend([int(self.right[node]), int(self.left[node])])
            else:
                out.append(node)
        return np.asarray(out, dtype=np.int64)

    def node_masks(self, X) -> np.ndarray:
        """Which rows of ``X`` (shape ``(m, n_features)``) reach each node: bool, shape ``(n_nodes, m)``."""
        x = as_float_array(X, "X", ndim=2)
        if x.shape[1] != len(self.feature_names):
            raise ValueError(f"X has {x.shape[1]} features, the tree was grown on {len(self.feature_names)}")
        masks = np.zeros((len(self.feature), x.shape[0]), dtype=bool)
        masks[0] = True
        for node in range(len(self.feature)):  # parents have smaller ids than their children
            f = int(self.feature[node])
            if f >= 0:
                go_left = x[:, f] <= self.threshold[node]
                masks[self.left[node]] = masks[node] & go_left
                masks[self.right[node]] = masks[node] & ~go_left
        return masks

    def _path(self, node: int) -> list[tuple[int, bool]]:
        """(parent, went left) pairs from the root down to ``node``."""
        parent = {}
        for p in range(len(self.feature)):
            if self.left[p] >= 0:
                parent[int(self.left[p])] = (p, True)
                parent[int(self.right[p])] = (p, False)
        path, n = [], int(node)
        while n in parent:
            p, went_left = parent[n]
            path.append((p, went_left))
            n = p
        return path[::-1]

    def conditions(self, node: int) -> tuple[Condition, ...]:
        """The merged bounds on the path from the root to ``node`` (see :class:`rulelearn.rules.conditions.Condition`)."""
        bounds: dict[int, list] = {}
        for p, went_left in self._path(node):
            f, t = int(self.feature[p]), float(self.threshold[p])
            lo, hi = bounds.get(f, [None, None])
            if went_left:
                hi = t if hi is None else min(hi, t)
            else:
                lo = t if lo is None else max(lo, t)
            bounds[f] = [lo, hi]
        return tuple(Condition(f, self.feature_names[f], lo, hi) for f, (lo, hi) in sorted(bounds.items()))

    def depth(self, node: int) -> int:
        """Number of splits on the path from the root to ``node``."""
        return len(self._path(node))


def _tree_from_parts(nodes: list[dict], order: list[int], gains: list[float], names) -> GrownTree:
    return GrownTree(
        feature=np.array([nd["feature"] for nd in nodes], dtype=np.int64),
        threshold=np.array([nd["threshold"] for nd in nodes], dtype=np.float64),
        left=np.array([nd["left"] for nd in nodes], dtype=np.int64),
        right=np.array([nd["right"] for nd in nodes], dtype=np.int64),
        split_order=np.asarray(order, dtype=np.int64),
        gains=np.asarray(gains, dtype=np.float64),
        feature_names=tuple(names),
    )


def grow_cart_tree(X, strategies, max_leaves: int = 15, feature_names=None, min_samples_leaf: int = 1,
                   random_state=0) -> GrownTree:
    """CART on cumulative strategies (squared error), best-first to ``max_leaves`` leaves.

    scikit-learn's best-first builder creates a node's two children when it splits it, so the order of the
    splits is the order of the internal nodes' left-child ids; the tree with ``L`` leaves is the one scikit-learn
    grows with ``max_leaf_nodes=L``.

    Parameters
    ----------
    X : array_like of float, shape ``(m, n_features)``
        Game features.
    strategies : array_like of float, shape ``(m, d, B)``
        Equilibrium strategies.
    max_leaves : int, default 15
    feature_names : sequence of str, optional
    min_samples_leaf : int, default 1
    random_state : int, default 0

    Returns
    -------
    GrownTree
        ``gains`` holds each split's weighted squared-error decrease.

    Raises
    ------
    ValueError
        On ``max_leaves < 1`` or mismatched shapes.
    """
    x = as_float_array(X, "X", ndim=2)
    y = as_float_array(strategies, "strategies")
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"strategies has {y.shape[0]} rows but X has {x.shape[0]}")
    max_leaves = check_int("max_leaves", max_leaves, 1)
    names = tuple(feature_names) if feature_names is not None else tuple(f"x[{k}]" for k in range(x.shape[1]))
    if int(max_leaves) == 1:
        return _tree_from_parts([{"feature": -1, "threshold": np.nan, "left": -1, "right": -1}], [], [], names)
    cum = strategy_cumulative(y).reshape(x.shape[0], -1)
    tree = DecisionTreeRegressor(max_leaf_nodes=int(max_leaves), min_samples_leaf=min_samples_leaf,
                                 random_state=random_state).fit(x, cum).tree_
    internal = np.flatnonzero(tree.children_left >= 0)
    order = internal[np.argsort(tree.children_left[internal])]
    w = tree.weighted_n_node_samples
    imp = tree.impurity
    gains = [w[s] * imp[s] - w[tree.children_left[s]] * imp[tree.children_left[s]]
             - w[tree.children_right[s]] * imp[tree.children_right[s]] for s in order]
    nodes = [{"feature": int(tree.feature[k]) if tree.children_left[k] >= 0 else -1,
              "threshold": float(tree.threshold[k]) if tree.children_left[k] >= 0 else np.nan,
              "left": int(tree.children_left[k]), "right": int(tree.children_right[k])}
             for k in range(tree.node_count)]
    return _tree_from_parts(nodes, list(order), gains, names)


@dataclass(frozen=True)
class _Candidate:
    gain: float
    feature: int
    threshold: float


def _quantile_thresholds(values: np.ndarray, n_thresholds: int, grid=None) -> np.ndarray:
    q = np.quantile(values, np.arange(1, n_thresholds + 1) / (n_thresholds + 1), method="lower")
    if grid is not None:  # snap each quantile to the nearest round value
        g = np.asarray(grid, dtype=np.float64)
        if g.size == 0:
            return g
        q = g[np.abs(g[None, :] - q[:, None]).argmin(axis=1)]
    t = np.unique(q)
    return t[(t < values.max()) & (t >= values.min())]  # a threshold at the maximum sends every row left


def grow_exploitability_tree(X, fit, screen, score, max_leaves: int = 15, feature_names=None,
                             n_thresholds: int = 5, n_fit: int = 200, n_score: int = 400, n_screen: int = 4,
                             min_leaf: int = 30, random_state=0, grids=None,
                             max_conditions: int | None = None) -> GrownTree:
    """Grow a tree best-first, scoring each candidate split by the held-out exploitability of optimal children.

    Game-agnostic: the three callbacks see only row indices into ``X``.

    Parameters
    ----------
    X : array_like of float, shape ``(m, n_features)``
        Features of the training games.
    fit : callable ``rows -> strategy``
        The leaf strategy of a group of training games (e.g. the LP-optimal one), shape ``(d, B)``.
    screen : callable ``rows -> strategy``
        A cheap stand-in for ``fit`` used to screen all candidates (e.g. the mean strategy).
    score : callable ``(rows, strategy) -> exploitability``
        Exploitability of one strategy in each of the games ``rows``, shape ``(len(rows),)``, chips.
    max_leaves : int, default 15
    feature_names : sequence of str, optional
    n_thresholds : int, default 5
        Candidate thresholds per feature: within-leaf quantiles ``1/(T+1) .. T/(T+1)``.
    n_fit, n_score : int, default 200 and 400
        Sizes of the fitting subsample ``A`` and the disjoint scoring subsample ``B`` of a leaf (a leaf with fewer
        than ``n_fit + n_score`` games is split in proportion).
    n_screen : int, default 4
        Candidates per leaf scored with ``fit`` after screening with ``screen``.
    min_leaf : int, default 30
        Fewest training games in a child, and fewest in its part of ``A`` and of ``B`` is ``min_leaf // 4``.
    random_state : int, default 0
    grids : sequence of array_like, optional
        Round thresholds of each feature (:mod:`rulelearn.rules.plain`): each within-leaf quantile is replaced by
        the nearest of them, so every threshold of the tree is a round number.
    max_conditions : int, optional
        Most conditions of a leaf's rule (bounds, one per feature and side: ``0.2 < x <= 0.7`` is two).

    Returns
    -------
    GrownTree
        ``gains``: each split's estimated decrease of the mean exploitability over all training games (chips).

    Raises
    ------
    ValueError
        On invalid sizes.
    """
    x = as_float_array(X, "X", ndim=2)
    m = x.shape[0]
    for name, val in (("max_leaves", max_leaves), ("n_thresholds", n_thresholds), ("n_fit", n_fit),
                      ("n_score", n_score), ("n_screen", n_screen), ("min_leaf", min_leaf)):
        check_int(name, val, 1)
    names = tuple(feature_names) if feature_names is not None else tuple(f"x[{k}]" for k in range(x.shape[1]))
    rng = np.random.default_rng(random_state)
    min_sub = max(1, int(min_leaf) // 4)

    def honest(rows_a, rows_b, strategy_fn):
        strat = strategy_fn(rows_a)
        return float(np.mean(score(rows_b, strat)))

    def best_split(rows: np.ndarray, bounds: frozenset = frozenset()) -> _Candidate | None:
        perm = rng.permutation(rows)
        if rows.size >= n_fit + n_score:
            a, b = perm[:n_fit], perm[n_fit:n_fit + n_score]
        else:
            cut = round(rows.size * n_fit / (n_fit + n_score))
            a, b = perm[:cut], perm[cut:]
        if a.size < 2 * min_sub or b.size < 2 * min_sub:
            return None
        parent = rows.size * honest(a, b, fit)
        cands = []
        for f in range(x.shape[1]):
            if max_conditions is not None and len(bounds | {(f, "hi")}) > max_conditions or \
                    max_conditions is not None and len(bounds | {(f, "lo")}) > max_conditions:
                continue
            for t in _quantile_thresholds(x[rows, f], int(n_thresholds), None if grids is None else grids[f]):
                left = x[rows, f] <= t
                nl = int(left.sum())
                if nl < min_leaf or rows.size - nl < min_leaf:
                    continue
                al, bl = x[a, f] <= t, x[b, f] <= t
                if min(al.sum(), (~al).sum(), bl.sum(), (~bl).sum()) < min_sub:
                    continue
                cost = (nl * honest(a[al], b[bl], screen) + (rows.size - nl) * honest(a[~al], b[~bl], screen))
                cands.append((cost, f, float(t)))
        if not cands:
            return None
        cands.sort()
        best = None
        for _, f, t in cands[: int(n_screen)]:
            left = x[rows, f] <= t
            nl = int(left.sum())
            al, bl = x[a, f] <= t, x[b, f] <= t
            cost = nl * honest(a[al], b[bl], fit) + (rows.size - nl) * honest(a[~al], b[~bl], fit)
            if best is None or cost < best[0]:
                best = (cost, f, t)
        return _Candidate((parent - best[0]) / m, best[1], best[2])

    nodes = [{"feature": -1, "threshold": np.nan, "left": -1, "right": -1}]
    node_rows = {0: np.arange(m)}
    node_bounds = {0: frozenset()}
    order, gains, heap = [], [], []

    def push(node: int) -> None:
        cand = best_split(node_rows[node], node_bounds[node])
        if cand is not None:
            heapq.heappush(heap, (-cand.gain, node, cand.feature, cand.threshold))

    push(0)
    while heap and len(order) < int(max_leaves) - 1:
        neg_gain, node, f, t = heapq.heappop(heap)
        rows = node_rows.pop(node)
        go_left = x[rows, f] <= t
        left_id, right_id = len(nodes), len(nodes) + 1
        nodes[node].update(feature=int(f), threshold=float(t), left=left_id, right=right_id)
        nodes.extend([{"feature": -1, "threshold": np.nan, "left": -1, "right": -1} for _ in range(2)])
        node_rows[left_id], node_rows[right_id] = rows[go_left], rows[~go_left]
        b = node_bounds.pop(node)
        node_bounds[left_id], node_bounds[right_id] = b | {(int(f), "hi")}, b | {(int(f), "lo")}
        order.append(node)
        gains.append(-neg_gain)
        push(left_id)
        push(right_id)
    return _tree_from_parts(nodes, order, gains, names)

"""Rule sets: a small tree over game features whose leaves each hold one full strategy, and their frontier.

A *rule set* partitions the space of games by a few if-then conditions on game features (the cdf features of
the players' ranges) and memorises one full strategy per part: "if P(P2 holds <= 6) <= 0.91 and ...: play
strategy 3". The paper's cluster-then-tree (Ganzfried & Yusuf 2017, AAAI-W Section 4.4) is one: its leaves hold
the strategies of k-medoids' medoid games. Here a leaf can hold

* ``"medoid"``: the equilibrium strategy of the leaf's *EMD medoid*, the training game with the least total input
  EMD (Algorithm 1) to the leaf's other training games (exact, by sorting: the input EMD is a scaled L1 distance
  between cdf vectors, see :func:`emd_medoid`);
* ``"mean"``: the mean of the leaf's training games' equilibrium strategies (what a CART regression tree on
  strategies predicts);
* ``"optimal"``: the strategy that minimises the leaf's mean exploitability, from the family's
  :meth:`~rulelearn.family.GroupOptimizingFamily.optimal_group_strategy` (an LP for the bet game). Exploitability
  is convex in player 1's strategy, so this is a global optimum, fitted on at most ``max_fit_games`` training
  games of the leaf (a random subsample; see :class:`RuleSetConfig`).

Two ways to grow the tree, both best-first (the leaf whose split helps most is split next, so the trees with
1, 2, ..., ``max_leaves`` leaves are nested and one growth gives the whole frontier):

* :func:`grow_cart_tree`: scikit-learn's CART with ``max_leaf_nodes`` on cumulative strategies (squared error, the
  criterion of :class:`~rulelearn.learners.StrategyTree`), the split order read off the child node ids;
* :func:`grow_exploitability_tree`: *exploitability in the loop*. A candidate split of a leaf is scored by the
  held-out mean exploitability of the LP-optimal strategies of its two children. Approximations, to keep it
  fast: candidate thresholds are ``n_thresholds`` within-leaf quantiles per feature; all candidates are screened
  by the same score with mean-strategy children (closed form, microseconds) and only the ``n_screen`` best are
  scored with LP-optimal children; the children's LPs are fitted on a subsample ``A`` of at most ``n_fit`` of
  the leaf's training games and scored on a disjoint subsample ``B`` of at most ``n_score`` of them (an honest
  estimate: in-sample LP optima are optimistic, more so for small children).

:func:`rule_frontier` evaluates both trees with all three leaf kinds, and k-medoids rule sets (each test game
assigned to its EMD-nearest medoid, the paper's Section 4.3) with the same three kinds per cluster, for
1 .. ``max_leaves`` leaves on several train/test splits. Game-agnostic: the family supplies ranges, strategies,
exploitability and the group optimum.

Speed. Each (split, method) pair is one task, and tasks run in worker processes (``n_jobs``); every random choice
is seeded by the split and the group, so the results do not depend on the order or the process of the work. The
nested trees are scored node by node (a node's strategy is scored on its games once, not once per tree size),
and each optimal group strategy warm-starts the family's solver from the previous one (the bet game's LP starts
from the bets that optimum uses, see :mod:`games.betgame.group_lp`).
"""

from __future__ import annotations

import heapq
import inspect
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor

from rulelearn.distance import strategy_cumulative
from rulelearn.experiment import split_games
from rulelearn.family import GameFamily, supports_group_optimum
from rulelearn.learners import EMDKMedoids
from rulelearn.representations import Representation
from rulelearn.rules import Condition, Rule
from rulelearn.validation import as_float_array

__all__ = [
    "LEAF_KINDS",
    "METHODS",
    "GrownTree",
    "LeafFitter",
    "RuleSet",
    "RuleSetConfig",
    "emd_medoid",
    "grow_cart_tree",
    "grow_exploitability_tree",
    "rule_frontier",
    "summarise_frontier",
]

#: What a leaf (or cluster) memorises: a medoid game's strategy, the mean strategy, or the LP-optimal strategy.
LEAF_KINDS = ("medoid", "mean", "optimal")


# ---------------------------------------------------------------------------------------------- the EMD medoid
def emd_medoid(cdf_features, weights=None) -> int:
    """The 1-medoid under the input EMD: the row with the least total EMD to all rows.

    The input EMD (Ganzfried & Yusuf 2017, Algorithm 1) is the L1 distance between concatenated per-player cdf
    vectors divided by a constant, so the total distance of row ``a`` to all rows is a sum over coordinates of
    ``sum_b |x_a - x_b|``, computed for every ``a`` at once from sorted values and prefix sums in
    ``O(m log m)`` per coordinate (no ``m x m`` matrix).

    Parameters
    ----------
    cdf_features : array_like of float, shape ``(m, n_features)``
        Concatenated cdf features of each game (any scaling common to all coordinates gives the same medoid).
    weights : array_like of float, shape ``(m,)``, optional
        Non-negative row weights (default equal): the weighted total distance is minimised.

    Returns
    -------
    int
        Row index of the medoid (the first on ties).

    Raises
    ------
    ValueError
        On an empty or non-2-D input, NaN, or invalid weights.
    """
    x = as_float_array(cdf_features, "cdf_features", ndim=2)
    m = x.shape[0]
    if m == 0:
        raise ValueError("cdf_features must have at least one row")
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (m,) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be {m} finite non-negative numbers")
    order = np.argsort(x, axis=0, kind="stable")  # (m, F)
    xs = np.take_along_axis(x, order, axis=0)
    ws = w[order]
    cw = np.cumsum(ws, axis=0)  # weight at or below each sorted position
    cwx = np.cumsum(ws * xs, axis=0)
    tw, twx = cw[-1], cwx[-1]
    # sum_b w_b |x_a - x_b| = x_a W_le - S_le + (S_tot - S_le) - x_a (W_tot - W_le) for sorted position of a
    total_sorted = xs * cw - cwx + (twx - cwx) - xs * (tw - cw)
    total = np.empty_like(total_sorted)
    np.put_along_axis(total, order, total_sorted, axis=0)
    return int(np.argmin(total.sum(axis=1)))


# ---------------------------------------------------------------------------------------------- tree structure
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
        if not 1 <= int(n_leaves) <= self.max_leaves:
            raise ValueError(f"n_leaves must be in 1..{self.max_leaves}, got {n_leaves!r}")
        split = {int(s) for s in self.split_order[: int(n_leaves) - 1]}
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
        """The merged bounds on the path from the root to ``node`` (see :class:`rulelearn.rules.Condition`)."""
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
    if int(max_leaves) < 1:
        raise ValueError(f"max_leaves must be >= 1, got {max_leaves!r}")
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


def _quantile_thresholds(values: np.ndarray, n_thresholds: int) -> np.ndarray:
    q = np.quantile(values, np.arange(1, n_thresholds + 1) / (n_thresholds + 1), method="lower")
    t = np.unique(q)
    return t[t < values.max()]  # a threshold at the maximum sends every row left


def grow_exploitability_tree(X, fit, screen, score, max_leaves: int = 15, feature_names=None,
                             n_thresholds: int = 5, n_fit: int = 200, n_score: int = 400, n_screen: int = 4,
                             min_leaf: int = 30, random_state=0) -> GrownTree:
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
        if int(val) < 1:
            raise ValueError(f"{name} must be a positive integer, got {val!r}")
    names = tuple(feature_names) if feature_names is not None else tuple(f"x[{k}]" for k in range(x.shape[1]))
    rng = np.random.default_rng(random_state)
    min_sub = max(1, int(min_leaf) // 4)

    def honest(rows_a, rows_b, strategy_fn):
        strat = strategy_fn(rows_a)
        return float(np.mean(score(rows_b, strat)))

    def best_split(rows: np.ndarray) -> _Candidate | None:
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
            for t in _quantile_thresholds(x[rows, f], int(n_thresholds)):
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
    order, gains, heap = [], [], []

    def push(node: int) -> None:
        cand = best_split(node_rows[node])
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
        order.append(node)
        gains.append(-neg_gain)
        push(left_id)
        push(right_id)
    return _tree_from_parts(nodes, order, gains, names)


# ---------------------------------------------------------------------------------------------- leaf strategies
@dataclass
class LeafFitter:
    """The strategy a group of training games memorises, by leaf kind, with a cache keyed by the group.

    Parameters
    ----------
    family : GameFamily
        For ``"optimal"`` it must provide ``optimal_group_strategy`` (see
        :class:`~rulelearn.family.GroupOptimizingFamily`).
    columns : dict of numpy.ndarray
        Loaded database columns of *all* games; groups are row positions into them.
    max_fit_games : int, default 300
        The optimal strategy of a larger group is fitted on a random subsample of this size (on the bet game its
        held-out exploitability is 1e-4 to 6e-4 chips above that of a fit on 2,400 games; see ``docs/RULES.md``).
    random_state : int, default 0

    Notes
    -----
    If the family's ``optimal_group_strategy`` takes a ``start`` argument, each optimal fit passes the previous
    one's strategy (a warm start: it changes the work, not the optimal value).
    """

    family: GameFamily
    columns: dict
    max_fit_games: int = 300
    random_state: int = 0
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        ranges = self.family.ranges(self.columns)
        self._cdf = np.cumsum(ranges, axis=-1).reshape(ranges.shape[0], -1)
        self._strategies = self.family.strategies(self.columns)
        self._last_optimal = None  # the previous group optimum: a warm start for the next (related) group
        method = getattr(self.family, "optimal_group_strategy", None)
        self._takes_start = method is not None and "start" in inspect.signature(method).parameters

    def strategies(self) -> np.ndarray:
        """Equilibrium strategies of all games, shape ``(G, d, B)``."""
        return self._strategies

    def __call__(self, kind: str, rows) -> np.ndarray:
        """The ``kind`` strategy (one of :data:`LEAF_KINDS`) of the games ``rows``, shape ``(d, B)``.

        Raises
        ------
        ValueError
            On an unknown kind, an empty group, or ``"optimal"`` for a family without a group optimum.
        """
        if kind not in LEAF_KINDS:
            raise ValueError(f"kind must be one of {LEAF_KINDS}, got {kind!r}")
        r = np.sort(np.asarray(rows, dtype=np.intp).reshape(-1))
        if r.size == 0:
            raise ValueError("rows must select at least one game")
        key = (kind, r.tobytes())
        if key not in self._cache:
            self._cache[key] = self._fit(kind, r)
        return self._cache[key]

    def _fit(self, kind: str, r: np.ndarray) -> np.ndarray:
        if kind == "mean":
            return self._strategies[r].mean(axis=0)
        if kind == "medoid":
            return self._strategies[r[emd_medoid(self._cdf[r])]]
        if not supports_group_optimum(self.family):
            raise ValueError(f"family {getattr(self.family, 'name', self.family)!r} has no optimal_group_strategy")
        if r.size > self.max_fit_games:
            seed = np.random.default_rng([self.random_state, r.size, int(r[0]), int(r[-1])])
            r = np.sort(seed.choice(r, size=int(self.max_fit_games), replace=False))
        if self._takes_start:
            out = self.family.optimal_group_strategy(self.columns, r, start=self._last_optimal)
        else:
            out = self.family.optimal_group_strategy(self.columns, r)
        self._last_optimal = out
        return out


@dataclass(frozen=True)
class RuleSet:
    """A fitted rule set: the leaves of a :class:`GrownTree` and one full strategy per leaf.

    Attributes
    ----------
    tree : GrownTree
    leaves : numpy.ndarray of int64, shape ``(L,)``
        Node ids of the leaves.
    strategies : numpy.ndarray of float64, shape ``(L, d, B)``
    leaf_kind : str
        One of :data:`LEAF_KINDS`.
    coverage : numpy.ndarray of float64, shape ``(L,)``
        Share of the training games in each leaf.
    """

    tree: GrownTree
    leaves: np.ndarray
    strategies: np.ndarray
    leaf_kind: str
    coverage: np.ndarray

    @classmethod
    def fit(cls, tree: GrownTree, n_leaves: int, X_train, train_rows, kind: str, fitter: LeafFitter) -> RuleSet:
        """Fit the leaf strategies of the tree with ``n_leaves`` leaves on the training games.

        Parameters
        ----------
        tree : GrownTree
        n_leaves : int
        X_train : array_like of float, shape ``(m, n_features)``
            Features of the training games.
        train_rows : array_like of int, shape ``(m,)``
            Their positions in the fitter's columns.
        kind : str
            Leaf kind.
        fitter : LeafFitter

        Returns
        -------
        RuleSet

        Raises
        ------
        ValueError
            If a leaf holds no training game.
        """
        leaves = tree.leaves(n_leaves)
        masks = tree.node_masks(X_train)[leaves]
        rows = np.asarray(train_rows, dtype=np.intp)
        if np.any(masks.sum(axis=1) == 0):
            raise ValueError("a leaf holds no training game")
        strategies = np.stack([fitter(kind, rows[mk]) for mk in masks])
        return cls(tree, leaves, strategies, kind, masks.mean(axis=1))

    def leaf_index(self, X) -> np.ndarray:
        """Position in :attr:`leaves` of the leaf each row of ``X`` reaches, shape ``(m,)`` int64."""
        masks = self.tree.node_masks(X)[self.leaves]
        return masks.argmax(axis=0).astype(np.int64)

    def predict(self, X) -> np.ndarray:
        """The strategy each game plays, shape ``(m, d, B)``."""
        return self.strategies[self.leaf_index(X)]

    def rules(self) -> list[Rule]:
        """One :class:`~rulelearn.rules.Rule` per leaf (print with :func:`rulelearn.rules.format_rule`)."""
        return [Rule(self.tree.conditions(int(node)), self.strategies[k], 0, float(self.coverage[k]),
                     self.tree.depth(int(node)), int(node)) for k, node in enumerate(self.leaves)]


# ---------------------------------------------------------------------------------------------- the frontier
@dataclass(frozen=True)
class RuleSetConfig:
    """Settings of :func:`rule_frontier` (see the module docstring for the approximations).

    Attributes
    ----------
    max_leaves : int
        Frontier from 1 to this many leaves (and k-medoids from k = 1 to it).
    seeds : tuple of int
        One train/test split (and subsample stream) per seed.
    test_fraction : float
    max_fit_games : int
        Subsample size of an optimal leaf's LP (:class:`LeafFitter`).
    n_thresholds, n_fit, n_score, n_screen, min_leaf : int
        Of :func:`grow_exploitability_tree`.
    kmedoids_max_samples : int
        k-medoids fits its medoids on at most this many training games (``8 m^2`` bytes of distances).
    n_games : int or None
        Use only the first ``n_games`` loaded games (None: all).
    """

    max_leaves: int = 15
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    test_fraction: float = 0.2
    max_fit_games: int = 300
    n_thresholds: int = 5
    n_fit: int = 200
    n_score: int = 400
    n_screen: int = 4
    min_leaf: int = 30
    kmedoids_max_samples: int = 3000
    n_games: int | None = None


def _whole_game_features(family: GameFamily, columns: dict):
    data = Representation("cdf", None).transform(family.ranges(columns), None, list(family.hand_labels),
                                                 list(family.player_names))
    return data.X, data.feature_names


#: The three ways of forming groups, in the order of the frontier's rows.
METHODS = ("k-medoids", "CART tree", "exploitability tree")
_TASK_ORDER = ("exploitability tree", "k-medoids", "CART tree")  # the most expensive parts first


def rule_frontier(family: GameFamily, columns: dict, config: RuleSetConfig = RuleSetConfig(), progress=None,
                  n_jobs: int = 1) -> tuple[pd.DataFrame, dict]:
    """Held-out mean exploitability of rule sets with 1 .. ``max_leaves`` leaves, on several splits.

    Methods: ``"CART tree"`` and ``"exploitability tree"`` (each with ``medoid``, ``mean`` and ``optimal``
    leaves), and ``"k-medoids"`` (k clusters by input EMD, test games assigned to the nearest medoid; each cluster
    plays its medoid's strategy -- the paper's rule set --, its mean strategy, or its optimal strategy).

    Parameters
    ----------
    family : GameFamily
        Must provide ``optimal_group_strategy``.
    columns : dict of numpy.ndarray
        A loaded solution database.
    config : RuleSetConfig
    progress : callable, optional
        Called with a short message after each step (e.g. ``print``).
    n_jobs : int, default 1
        Worker processes. Each (split, method) pair is one task; results do not depend on ``n_jobs`` (every
        random choice is seeded by the split and the group, not by the order of the work).

    Returns
    -------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves): ``seed``, ``method``, ``leaf_kind``, ``n_leaves``,
        ``test_exploitability`` (mean over the test games, chips), ``train_exploitability`` (over the training
        games), ``n_train``, ``n_test``, ``seconds`` (wall time of the (seed, method) task).
    fitted : dict
        ``(seed, method) -> (GrownTree or EMDKMedoids, train rows)``, to print the rules of a fitted rule set.

    Raises
    ------
    ValueError
        If the family has no group optimum, or ``n_jobs < 1``.
    """
    if not supports_group_optimum(family):
        raise ValueError("rule_frontier needs a family with optimal_group_strategy (GroupOptimizingFamily)")
    if int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    say = progress or (lambda msg: None)
    if config.n_games is not None:
        columns = {k: v[: config.n_games] for k, v in columns.items()}
    X, names = _whole_game_features(family, columns)
    tasks = [(seed, method) for method in _TASK_ORDER for seed in config.seeds]
    results = {}
    if int(n_jobs) == 1 or len(tasks) == 1:
        for seed, method in tasks:
            results[(seed, method)] = _frontier_task(family, columns, X, names, config, seed, method)
            say(f"seed {seed}: {method} ({results[(seed, method)][2]:.0f} s)")
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn, not fork: the parent may hold numba/OpenMP threads; the data go to each worker once
        with ProcessPoolExecutor(int(n_jobs), mp_context=mp.get_context("spawn"), initializer=_init_worker,
                                 initargs=(family, columns, X, names, config)) as pool:
            futures = {pool.submit(_worker_task, seed, method): (seed, method) for seed, method in tasks}
            for fut in as_completed(futures):
                seed, method = futures[fut]
                results[(seed, method)] = fut.result()
                say(f"seed {seed}: {method} ({results[(seed, method)][2]:.0f} s)")
    rows_out, fitted = [], {}
    for seed in config.seeds:
        for method in METHODS:
            rows, fits, _ = results[(seed, method)]
            rows_out += rows
            fitted.update(fits)
    return pd.DataFrame(rows_out), fitted


_WORKER: dict = {}


def _init_worker(family, columns, X, names, config) -> None:
    import numba

    numba.set_num_threads(1)  # one thread per worker process: the workers already use the cores
    _WORKER.update(family=family, columns=columns, X=X, names=names, config=config)


def _worker_task(seed: int, method: str):
    w = _WORKER
    return _frontier_task(w["family"], w["columns"], w["X"], w["names"], w["config"], seed, method)


def _frontier_task(family: GameFamily, columns: dict, X: np.ndarray, names, config: RuleSetConfig, seed: int,
                   method: str) -> tuple[list[dict], dict, float]:
    """The frontier rows and fitted models of one method on one train/test split (see :func:`rule_frontier`)."""
    t0 = time.perf_counter()
    split = split_games(X.shape[0], config.test_fraction, seed)
    train, test = split.train, split.test
    fitter = LeafFitter(family, columns, config.max_fit_games, seed)
    strategies = fitter.strategies()
    test_cols = {k: v[test] for k, v in columns.items()}
    train_cols = {k: v[train] for k, v in columns.items()}
    rows_out, fitted = [], {}

    def record(kind, k, test_pred, train_pred):
        rows_out.append({"seed": seed, "method": method, "leaf_kind": kind, "n_leaves": k,
                         "test_exploitability": float(family.exploitability(test_cols, test_pred).mean()),
                         "train_exploitability": float(family.exploitability(train_cols, train_pred).mean()),
                         "n_train": train.size, "n_test": test.size})

    if method == "k-medoids":
        for k in range(1, config.max_leaves + 1):
            km = EMDKMedoids(k, max_samples=config.kmedoids_max_samples, random_state=seed).fit(
                X[train], strategies[train])
            fitted[(seed, f"k-medoids k={k}")] = (km, train)
            lab_train, lab_test = km.labels_, km.predict_cluster(X[test])
            for kind in LEAF_KINDS:
                if kind == "medoid":
                    per = km.medoid_targets_
                else:
                    per = np.stack([fitter(kind, train[lab_train == c]) if np.any(lab_train == c)
                                    else km.medoid_targets_[c] for c in range(k)])
                record(kind, k, per[lab_test], per[lab_train])
    else:
        if method == "CART tree":
            tree = grow_cart_tree(X[train], strategies[train], config.max_leaves, names, random_state=seed)
        else:
            def score(rows, strat):
                cols = {k: v[rows] for k, v in train_cols.items()}
                return family.exploitability(cols, np.broadcast_to(strat, (rows.size, *strat.shape)))

            tree = grow_exploitability_tree(
                X[train], lambda r: fitter("optimal", train[r]), lambda r: fitter("mean", train[r]), score,
                config.max_leaves, names, config.n_thresholds, config.n_fit, config.n_score, config.n_screen,
                config.min_leaf, random_state=seed)
        fitted[(seed, method)] = (tree, train)
        # the trees with 1 .. max_leaves leaves are nested: score each node's strategy on its games once
        masks = {"train": tree.node_masks(X[train]), "test": tree.node_masks(X[test])}
        for kind in LEAF_KINDS:
            sums: dict = {}
            for k in range(1, tree.max_leaves + 1):
                leaves = [int(node) for node in tree.leaves(k)]
                for node in leaves:
                    if node not in sums:
                        strat = fitter(kind, train[masks["train"][node]])
                        sums[node] = {part: _exploitability_sum(family, cols, masks[part][node], strat)
                                      for part, cols in (("train", train_cols), ("test", test_cols))}
                rows_out.append({"seed": seed, "method": method, "leaf_kind": kind, "n_leaves": k,
                                 "test_exploitability": sum(sums[nd]["test"] for nd in leaves) / test.size,
                                 "train_exploitability": sum(sums[nd]["train"] for nd in leaves) / train.size,
                                 "n_train": train.size, "n_test": test.size})
    seconds = time.perf_counter() - t0
    for r in rows_out:
        r["seconds"] = seconds
    return rows_out, fitted, seconds


def _exploitability_sum(family: GameFamily, columns: dict, mask: np.ndarray, strategy: np.ndarray) -> float:
    """Total exploitability (chips) of one strategy over the games ``mask`` selects from ``columns``."""
    if not mask.any():
        return 0.0
    cols = {k: v[mask] for k, v in columns.items()}
    return float(family.exploitability(cols, np.broadcast_to(strategy, (int(mask.sum()), *strategy.shape))).sum())


def summarise_frontier(frontier: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation, min and max over seeds of the held-out exploitability (chips).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``leaf_kind``, ``n_leaves``, ``mean``, ``std``, ``min``, ``max``, ``n_seeds``.
    """
    g = frontier.groupby(["method", "leaf_kind", "n_leaves"])["test_exploitability"]
    out = g.agg(["mean", "std", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "n_seeds"})

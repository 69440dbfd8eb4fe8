"""Rules from decision trees: one rule per leaf, with the bounds on each feature merged along its path.

A rule reads ``if 0.2 < share of P2's range beaten <= 0.8 and P(P2 holds <= 8) <= 0.699: check``; the conditions
are the path from the root with the bounds on each feature merged, the strategy is the leaf's prediction (printed
by :mod:`rulelearn.rules.formatting`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Condition", "Rule", "extract_rules"]


def _num(x: float) -> str:
    return f"{x:.3g}"


@dataclass(frozen=True)
class Condition:
    """``lower < feature <= upper`` (either bound may be absent).

    Attributes
    ----------
    feature : int
        Column of the design matrix.
    name : str
        The feature's human-readable name.
    lower, upper : float or None
        Exclusive lower and inclusive upper bound (scikit-learn's splits are ``x <= t``).
    integer : bool
        The feature takes integer values (a hand number): printed as ``hand >= 7`` for ``hand > 6.5``.
    """

    feature: int
    name: str
    lower: float | None
    upper: float | None
    integer: bool = False

    def holds(self, x: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of ``X`` (shape ``(m, n_features)``) that satisfy the condition."""
        v = x[:, self.feature]
        ok = np.ones(v.shape, dtype=bool)
        if self.lower is not None:
            ok &= v > self.lower
        if self.upper is not None:
            ok &= v <= self.upper
        return ok

    def __str__(self) -> str:
        if self.integer:
            lo = None if self.lower is None else int(np.floor(self.lower)) + 1
            hi = None if self.upper is None else int(np.floor(self.upper))
            if lo is not None and hi is not None:
                return f"{self.name} = {lo}" if lo == hi else f"{lo} <= {self.name} <= {hi}"
            return f"{self.name} >= {lo}" if lo is not None else f"{self.name} <= {hi}"
        if self.lower is not None and self.upper is not None:
            return f"{_num(self.lower)} < {self.name} <= {_num(self.upper)}"
        if self.lower is not None:
            return f"{self.name} > {_num(self.lower)}"
        return f"{self.name} <= {_num(self.upper)}"


@dataclass(frozen=True)
class Rule:
    """One leaf of a tree as an if-then rule.

    Attributes
    ----------
    conditions : tuple of Condition
        Merged bounds along the path from the root (empty for a one-leaf tree).
    strategy : numpy.ndarray of float64
        The leaf's strategy, shape ``(n_actions,)`` per hand or ``(d, n_actions)`` per game.
    n_samples : int
        Training rows reaching the leaf.
    coverage : float
        ``n_samples`` over all training rows.
    depth : int
        Number of splits on the path.
    node : int
        The leaf's node id in the scikit-learn tree.
    """

    conditions: tuple[Condition, ...]
    strategy: np.ndarray
    n_samples: int
    coverage: float
    depth: int
    node: int

    def holds(self, x: np.ndarray) -> np.ndarray:
        """Boolean mask of the rows of ``X`` that reach this leaf."""
        ok = np.ones(x.shape[0], dtype=bool)
        for c in self.conditions:
            ok &= c.holds(x)
        return ok


def extract_rules(tree, node_strategies: np.ndarray, feature_names, integer_features=None) -> list[Rule]:
    """All leaves of a fitted scikit-learn tree as rules, in depth-first (left to right) order.

    Parameters
    ----------
    tree : sklearn.tree.DecisionTreeRegressor or DecisionTreeClassifier
        Fitted.
    node_strategies : numpy.ndarray, shape ``(n_nodes, ...)``
        The strategy predicted at every node.
    feature_names : sequence of str
    integer_features : sequence of bool, optional

    Returns
    -------
    list of Rule
    """
    t = tree.tree_
    names = list(feature_names)
    integer = [False] * len(names) if integer_features is None else list(integer_features)
    total = float(t.weighted_n_node_samples[0])
    rules: list[Rule] = []
    stack = [(0, {}, 0)]
    while stack:
        node, bounds, depth = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == right:  # leaf
            conds = tuple(
                Condition(f, names[f], lo, hi, bool(integer[f])) for f, (lo, hi) in sorted(bounds.items())
            )
            n = int(t.n_node_samples[node])
            rules.append(Rule(conds, node_strategies[node], n, float(t.weighted_n_node_samples[node]) / total,
                              depth, int(node)))
            continue
        f, thr = int(t.feature[node]), float(t.threshold[node])
        lo, hi = bounds.get(f, (None, None))
        go_left = dict(bounds)
        go_left[f] = (lo, thr if hi is None else min(hi, thr))
        go_right = dict(bounds)
        go_right[f] = (thr if lo is None else max(lo, thr), hi)
        stack.append((int(right), go_right, depth + 1))
        stack.append((int(left), go_left, depth + 1))
    return rules

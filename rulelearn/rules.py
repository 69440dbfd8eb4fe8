"""Plain-language rules from decision trees: one rule per leaf, with merged conditions and the leaf's strategy.

A rule reads ``if 0.2 < share of P2's range beaten <= 0.8 and P(P2 holds <= 8) <= 0.699: check``; the conditions
are the path from the root with the bounds on each feature merged, the strategy is the leaf's prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Condition", "Rule", "extract_rules", "describe_action_mix", "describe_strategy", "format_rule"]


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
        The feature takes integer values (a card number): printed as ``card >= 7`` for ``card > 6.5``.
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


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cum = np.cumsum(weights[order]) / weights.sum()
    return float(values[order][min(np.searchsorted(cum, q - 1e-12), len(cum) - 1)])


def describe_action_mix(probs, action_labels, action_values=None, min_prob: float = 0.1) -> str:
    """One hand's action mix in words.

    Parameters
    ----------
    probs : array_like of float, shape ``(n_actions,)``
    action_labels : sequence of str
        e.g. ``"check"``, ``"bet 0.1"``, ...
    action_values : array_like of float, shape ``(n_actions,)``, optional
        Numeric sizes (0 for a check). When given, a spread of bets is summarised by its central 80% and median:
        ``"check 21%, bet 0.1-1.7 (median 0.5) 79%"``.
    min_prob : float, default 0.1
        Without ``action_values``: actions below this probability are pooled as "other".

    Returns
    -------
    str
        e.g. ``"check"``, ``"bet 0.1 9%, bet 0.6 27%, bet 1.8 64%"``.
    """
    p = np.asarray(probs, dtype=np.float64)
    top = int(p.argmax())
    if p[top] >= 0.995:
        return action_labels[top]
    keep = np.flatnonzero(p >= min_prob)
    if action_values is not None and p[keep].sum() < 0.8:
        v = np.asarray(action_values, dtype=np.float64)
        parts = []
        passive = v == 0
        if p[passive].sum() >= 0.005:
            parts.append(f"{action_labels[int(np.flatnonzero(passive)[0])]} {p[passive].sum():.0%}")
        bets, w = v[~passive], p[~passive]
        if w.sum() >= 0.005:
            lo, med, hi = (_weighted_quantile(bets, w, q) for q in (0.1, 0.5, 0.9))
            what = f"bet {lo:g}" if lo == hi else f"bet {lo:g}-{hi:g} (median {med:g})"
            parts.append(f"{what} {w.sum():.0%}")
        return ", ".join(parts)
    parts = [f"{action_labels[k]} {p[k]:.0%}" for k in keep]
    rest = 1.0 - p[keep].sum()
    if rest >= 0.005:
        parts.append(f"other {rest:.0%}")
    return ", ".join(parts)


def describe_strategy(strategy, action_labels, hand_labels=None, noun: str = "card", action_values=None,
                      min_prob: float = 0.1) -> str:
    """A strategy in words: one action mix, or per hand with equal neighbouring hands grouped.

    Parameters
    ----------
    strategy : array_like of float, shape ``(n_actions,)`` or ``(d, n_actions)``
    action_labels : sequence of str
    hand_labels : sequence of str, optional
        Default ``"1" .. "d"``.
    noun : str, default "card"
    action_values : array_like of float, optional
        See :func:`describe_action_mix`.
    min_prob : float, default 0.1

    Returns
    -------
    str
        e.g. ``"cards 3-6: check; card 7: bet 0.1; ..."``.
    """
    s = np.asarray(strategy, dtype=np.float64)
    if s.ndim == 1:
        return describe_action_mix(s, action_labels, action_values, min_prob)
    labels = [str(k + 1) for k in range(s.shape[0])] if hand_labels is None else list(hand_labels)
    words = [describe_action_mix(row, action_labels, action_values, min_prob) for row in s]
    parts, start = [], 0
    for k in range(1, len(words) + 1):
        if k == len(words) or words[k] != words[start]:
            who = f"{noun} {labels[start]}" if k - 1 == start else f"{noun}s {labels[start]}-{labels[k - 1]}"
            parts.append(f"{who}: {words[start]}")
            start = k
    return "; ".join(parts)


def format_rule(rule: Rule, action_labels, hand_labels=None, noun: str = "card", action_values=None) -> str:
    """``"if <conditions>: <strategy>   [12% of training rows, depth 3]"`` (see :func:`describe_strategy`)."""
    cond = " and ".join(str(c) for c in rule.conditions) or "always"
    what = describe_strategy(rule.strategy, action_labels, hand_labels, noun, action_values)
    return f"if {cond}: {what}   [{rule.coverage:.0%} of training rows, depth {rule.depth}]"

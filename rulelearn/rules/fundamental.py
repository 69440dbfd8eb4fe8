"""Fundamental rules: short plain-language rules for one decision, and what each costs.

Ganzfried & Yusuf (2017, *Games* 8(4), Section 4) read two "fundamental rules of poker strategy" off a depth-4
tree: the **80-20 rule** ("if your hand beats between 20% and 80% of the opponent's hand distribution, then you
should always check (or make an extremely small bet)") and the **all-in rule** ("if your hand beats 95% of the
opponent's distribution of hands, and furthermore the opponent's distribution contains a weak or mediocre hand no
more than 90% of the time (i.e., it contains at least 10% strong hands), then you should go all-in"). This module
states such rules as data (:class:`FundamentalRule`), extracts them from fitted trees and searches, and
:func:`rulelearn.rules.statistics.family_rule_statistics` measures each one on a solution database (coverage,
agreement, mass and exploitability; see :mod:`rulelearn.rules.statistics`).

A rule's conditions are :class:`rulelearn.rules.conditions.Condition` bounds on per-hand features
(:func:`hand_decisions`): the players' range cdfs, the share of player 2's range that the hand beats, and player
1's own cdf at the hand. Game-agnostic: the game enters through its :class:`~rulelearn.family.GameFamily`
(ranges, strategies, exploitability, action values and labels, hand noun).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulelearn.features.representations import Representation
from rulelearn.learners import StrategyTree
from rulelearn.numeric import weighted_quantile_index
from rulelearn.rules.conditions import Condition, extract_rules
from rulelearn.rules.formatting import sized_action_verb
from rulelearn.validation import as_float_array, check_real

__all__ = [
    "BEATS",
    "FundamentalRule",
    "HandDecisions",
    "RuleAction",
    "best_interval_rule",
    "format_conditions",
    "hand_decisions",
    "merge_interval_rules",
    "summarise_action",
    "tree_rules",
]

#: Name of the feature "share of player 2's range below the hand" (as in :mod:`rulelearn.features.representations`).
BEATS = "share of P2's range beaten"


@dataclass(frozen=True)
class HandDecisions:
    """Player 1's decisions, one row per (game, hand), with per-hand features.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape ``(G * d, n_features)``
        Features in game-major order: the ``P * d`` range cdfs, :data:`BEATS`, and player 1's own cdf at the hand
        (:attr:`own_cdf`, e.g. ``"P(P1 holds <= card)"``, the variable x[20] of the paper's Figure 5 tree).
    feature_names : tuple of str
    game_index, hand_index : numpy.ndarray of int64, shape ``(G * d,)``
    strategies : numpy.ndarray of float64, shape ``(G, d, B)``
        Equilibrium strategies.
    """

    X: np.ndarray
    feature_names: tuple[str, ...]
    game_index: np.ndarray
    hand_index: np.ndarray
    strategies: np.ndarray

    @property
    def n_games(self) -> int:
        return int(self.strategies.shape[0])

    @property
    def own_cdf(self) -> str:
        """Name of the last feature, player 1's own cdf at his hand."""
        return self.feature_names[-1]

    @property
    def equilibrium_rows(self) -> np.ndarray:
        """The equilibrium's action probabilities of each decision, shape ``(G * d, B)``."""
        return self.strategies.reshape(-1, self.strategies.shape[-1])

    def feature(self, name: str) -> int:
        """Column of the feature called ``name``.

        Raises
        ------
        ValueError
            If there is no such feature.
        """
        try:
            return self.feature_names.index(name)
        except ValueError:
            raise ValueError(f"no feature named {name!r}; features: {self.feature_names}") from None


def hand_decisions(ranges, strategies, hand_labels=None, player_names=None, hand_noun: str = "hand"
                   ) -> HandDecisions:
    """Per-hand decisions and features of solved games.

    Parameters
    ----------
    ranges : array_like of float, shape ``(G, P, d)``
    strategies : array_like of float, shape ``(G, d, B)``
    hand_labels, player_names : sequence of str, optional
    hand_noun : str, default "hand"
        What a hand is called in the own-cdf feature's name (a family's :func:`~rulelearn.family.hand_noun`).

    Returns
    -------
    HandDecisions
        Features: the cdf-beats representation's (:class:`~rulelearn.features.representations.Representation`
        ``("cdf", "beats")``) plus player 1's own cdf at the hand (:attr:`HandDecisions.own_cdf`).

    Raises
    ------
    ValueError
        On malformed ranges or strategies.
    """
    data = Representation("cdf", "beats").transform(ranges, strategies, hand_labels, player_names)
    r = as_float_array(ranges, "ranges", ndim=3)
    own = np.cumsum(r[:, 0, :], axis=-1)[data.game_index, data.hand_index]
    X = np.column_stack([data.X, own])
    player1 = "P1" if player_names is None else str(list(player_names)[0])
    names = tuple(data.feature_names) + (f"P({player1} holds <= {hand_noun})",)
    return HandDecisions(X, names, data.game_index.astype(np.int64), data.hand_index.astype(np.int64),
                         np.asarray(strategies, dtype=np.float64))


@dataclass(frozen=True)
class RuleAction:
    """What a rule tells player 1 to do.

    Attributes
    ----------
    play : int
        The action played wherever the rule applies (a pure action; index into the action grid).
    agree : tuple of int
        The actions that count as following the rule when checking the equilibrium (contains ``play``).
    text : str
        E.g. ``"check"``, ``"check (or bet 0.1)"``, ``"bet 3 (all-in)"``, ``"bet 0.4-0.8 (0.6)"``.
    """

    play: int
    agree: tuple[int, ...]
    text: str

    def __post_init__(self):
        if self.play not in self.agree:
            raise ValueError(f"agree must contain the played action {self.play}, got {self.agree}")


@dataclass(frozen=True)
class FundamentalRule:
    """``if <conditions>: <action>`` for one decision of player 1.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"80-20 rule"``.
    conditions : tuple of Condition
        Bounds on columns of :attr:`HandDecisions.X` (all must hold).
    action : RuleAction
    source : str
        Where it comes from (``"Ganzfried & Yusuf 2017, Section 4"``, ``"tree depth 3, leaf 4"``, ...).
    """

    name: str
    conditions: tuple[Condition, ...]
    action: RuleAction
    source: str = ""

    def applies(self, X) -> np.ndarray:
        """Boolean mask of the rows of ``X`` (shape ``(m, n_features)``) the rule applies to."""
        x = np.asarray(X, dtype=np.float64)
        ok = np.ones(x.shape[0], dtype=bool)
        for c in self.conditions:
            ok &= c.holds(x)
        return ok

    def text(self) -> str:
        """The rule in words: ``"if your hand beats more than 20% and at most 80% of P2's range: check"``."""
        return f"if {format_conditions(self.conditions)}: {self.action.text}"


def _pct(x: float) -> str:
    v = 100 * float(x)
    if v != 0 and abs(v) < 1:
        return f"{v:.2g}%"
    return f"{v:.0f}%" if abs(v - round(v)) < 0.05 else f"{v:.1f}%"


def _beaten_phrase(c: Condition) -> str | None:
    """``"your hand beats between 20% and 80% of P2's range"`` for a "share of X beaten" feature, else None."""
    if not (c.name.startswith("share of ") and c.name.endswith(" beaten")):
        return None
    what = c.name[len("share of "):-len(" beaten")]
    if c.lower is not None and c.upper is not None:
        return f"your hand beats more than {_pct(c.lower)} and at most {_pct(c.upper)} of {what}"
    if c.lower is not None:
        return f"your hand beats more than {_pct(c.lower)} of {what}"
    return f"your hand beats at most {_pct(c.upper)} of {what}"


def format_conditions(conditions) -> str:
    """Conditions in words; bounds on probabilities (all features here) as percentages.

    A "share of X beaten" feature reads ``your hand beats more than 20% and at most 80% of X``; others read
    ``P(P2 holds <= 6) <= 90%``.

    Parameters
    ----------
    conditions : iterable of rulelearn.rules.conditions.Condition
        ``lower < feature <= upper`` each, a bound a probability (a fraction in ``[0, 1]``, printed as a
        percentage: ``0.2`` is ``20%``, below 1% with two significant digits). A condition without bounds is
        left out.

    Returns
    -------
    str
        E.g. ``"your hand beats more than 95% of P2's range and P(P2 holds <= 6) <= 90%"`` (``"always"`` if
        empty).

    Raises
    ------
    TypeError
        If a "share of X beaten" condition has neither bound.
    """
    parts = []
    for c in conditions:
        phrase = _beaten_phrase(c)
        if phrase is not None:
            parts.append(phrase)
        elif c.lower is not None and c.upper is not None:
            parts.append(f"{_pct(c.lower)} < {c.name} <= {_pct(c.upper)}")
        elif c.lower is not None:
            parts.append(f"{c.name} > {_pct(c.lower)}")
        elif c.upper is not None:
            parts.append(f"{c.name} <= {_pct(c.upper)}")
    return " and ".join(parts) or "always"


def summarise_action(strategy, action_values, action_labels) -> RuleAction:
    """A leaf's action mix as one plain action: what a person would remember.

    If passive actions (value 0, e.g. the check) hold at least half the probability, the rule says so: play and
    agree are the passive action. Otherwise it plays the weighted median size of the sized part (the pure action
    nearest to the mix in earth mover's distance) and agrees with the sizes between the sized part's quartiles;
    the text names them with the labels' verb (:func:`~rulelearn.rules.formatting.sized_action_verb`), e.g.
    ``"bet 0.4-0.8, e.g. bet 0.6"``.

    Parameters
    ----------
    strategy : array_like of float, shape ``(B,)``
    action_values : array_like of float, shape ``(B,)``
        Sizes (0 for passive actions), increasing.
    action_labels : sequence of str

    Returns
    -------
    RuleAction

    Raises
    ------
    ValueError
        On shapes that do not match or a strategy without mass.
    """
    p = np.asarray(strategy, dtype=np.float64).reshape(-1)
    v = np.asarray(action_values, dtype=np.float64).reshape(-1)
    if p.shape != v.shape or len(action_labels) != p.size:
        raise ValueError("strategy, action_values and action_labels must have one entry per action")
    if not p.sum() > 0:
        raise ValueError("strategy has no probability mass")
    passive = v == 0
    if p[passive].sum() >= 0.5:
        k = int(np.flatnonzero(passive)[np.argmax(p[passive])])
        return RuleAction(k, (k,), action_labels[k])
    w = np.where(passive, 0.0, p)
    med = weighted_quantile_index(v, w, 0.5)
    lo = v[weighted_quantile_index(v, w, 0.25)]
    hi = v[weighted_quantile_index(v, w, 0.75)]
    agree = tuple(int(a) for a in np.flatnonzero(~passive & (v >= lo) & (v <= hi)))
    label = action_labels[med] + (" (all-in)" if med == len(v) - 1 else "")
    if lo == hi:
        return RuleAction(med, agree, label)
    return RuleAction(med, agree, f"{sized_action_verb(action_labels, ~passive)} {lo:g}-{hi:g}, e.g. {label}")


def tree_rules(decisions: HandDecisions, rows, features, max_depth: int, action_values, action_labels,
               min_samples_leaf: int = 1, random_state: int = 0) -> list[FundamentalRule]:
    """Fit a per-hand strategy tree on the decisions ``rows`` and turn each leaf into a plain rule.

    Parameters
    ----------
    decisions : HandDecisions
    rows : array_like of int
        Decision rows to fit on (e.g. the training games' rows).
    features : sequence of str
        Feature names to split on.
    max_depth : int
    action_values, action_labels
        The family's action sizes and names (see :func:`summarise_action`).
    min_samples_leaf : int, default 1
    random_state : int, default 0

    Returns
    -------
    list of FundamentalRule
        One per leaf, left to right; conditions refer to columns of ``decisions.X``.
    """
    cols = [decisions.feature(f) for f in features]
    r = np.asarray(rows, dtype=np.intp)
    tree = StrategyTree(max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=random_state)
    tree.fit(decisions.X[np.ix_(r, cols)], decisions.equilibrium_rows[r])
    leaves = extract_rules(tree.tree_, tree.leaf_strategies(), [decisions.feature_names[c] for c in cols])
    out = []
    for k, leaf in enumerate(leaves):
        conds = tuple(Condition(cols[c.feature], c.name, c.lower, c.upper) for c in leaf.conditions)
        action = summarise_action(leaf.strategy, action_values, action_labels)
        on = features[0] if len(features) == 1 else f"{len(features)} features"
        out.append(FundamentalRule(f"tree depth {max_depth} leaf {k + 1}", conds, action,
                                   f"tree depth {max_depth} on {on}, {leaf.coverage:.0%} of training decisions"))
    return out


def merge_interval_rules(rules: list[FundamentalRule]) -> list[FundamentalRule]:
    """Merge rules on one and the same single feature whose intervals touch and whose actions are equal.

    A one-feature tree cuts the feature's range into intervals; neighbouring leaves that say the same thing
    ("check") become one rule ("if 3% < share beaten <= 62%: check").

    Parameters
    ----------
    rules : list of FundamentalRule
        Each with exactly one condition, all on the same feature.

    Returns
    -------
    list of FundamentalRule
        Sorted by the interval's lower end.

    Raises
    ------
    ValueError
        If a rule has not exactly one condition or the rules use different features.
    """
    if not rules:
        return []
    if any(len(r.conditions) != 1 for r in rules) or len({r.conditions[0].feature for r in rules}) != 1:
        raise ValueError("merge_interval_rules needs rules with one condition each, all on the same feature")

    def lo(r):
        return -np.inf if r.conditions[0].lower is None else r.conditions[0].lower

    ordered = sorted(rules, key=lo)
    merged = [ordered[0]]
    for r in ordered[1:]:
        last = merged[-1]
        c0, c1 = last.conditions[0], r.conditions[0]
        if last.action == r.action and c0.upper is not None and c1.lower is not None and c0.upper == c1.lower:
            cond = Condition(c0.feature, c0.name, c0.lower, c1.upper, c0.integer)
            merged[-1] = FundamentalRule(last.name, (cond,), last.action, last.source + " + " + r.name)
        else:
            merged.append(r)
    return merged


def best_interval_rule(decisions: HandDecisions, rows, feature: str, action: RuleAction, min_agreement: float,
                       grid=None, upper_open: bool = False, name: str = "") -> FundamentalRule | None:
    """The interval rule ``lo < feature <= hi: action`` with the largest coverage among those whose agreement on
    the decisions ``rows`` is at least ``min_agreement`` (an exhaustive search over a grid of bounds).

    Parameters
    ----------
    decisions : HandDecisions
    rows : array_like of int
        Decision rows searched (e.g. the training games' rows).
    feature : str
        Feature name (e.g. :data:`BEATS`).
    action : RuleAction
        What the rule says; agreement as in :mod:`rulelearn.rules.statistics`.
    min_agreement : float
        In ``[0, 1]``.
    grid : array_like of float, optional
        Candidate bounds, increasing (default ``0, 0.01, ..., 1``); the lowest candidate lower bound is "none".
    upper_open : bool, default False
        Search only ``lo < feature`` (no upper bound), e.g. for the all-in rule.
    name : str, optional

    Returns
    -------
    FundamentalRule or None
        None if no interval reaches ``min_agreement``.

    Raises
    ------
    ValueError
        If ``min_agreement`` is outside ``[0, 1]`` or the grid is not increasing.
    """
    check_real("min_agreement", min_agreement, 0.0, 1.0)
    g = np.linspace(0.0, 1.0, 101) if grid is None else np.asarray(grid, dtype=np.float64).reshape(-1)
    if g.size < 2 or np.any(np.diff(g) <= 0):
        raise ValueError("grid must hold at least two increasing bounds")
    col = decisions.feature(feature)
    r = np.asarray(rows, dtype=np.intp)
    x = decisions.X[r, col]
    agree = decisions.equilibrium_rows[r][:, list(action.agree)].sum(axis=1) >= 0.5 - 1e-12
    # cell k holds g[k-1] < x <= g[k] (cell 0: x <= g[0]; last cell: x > g[-1])
    cell = np.searchsorted(g, x, side="left")
    counts = np.bincount(cell, minlength=g.size + 1)
    hits = np.bincount(cell, weights=agree.astype(float), minlength=g.size + 1)
    cn = np.concatenate([[0], np.cumsum(counts)])
    ch = np.concatenate([[0], np.cumsum(hits)])
    # interval (lo, hi]: lower index a (cells a.. ; a = 0 means no lower bound), upper index b (cells ..b)
    n_cells = g.size + 1
    a = np.arange(n_cells)[:, None]
    b = np.arange(n_cells)[None, :]
    if upper_open:
        b = np.full_like(b, n_cells - 1)
    cov = cn[b + 1] - cn[a]
    agr = np.where(cov > 0, (ch[b + 1] - ch[a]) / np.maximum(cov, 1), -1.0)
    ok = (b >= a) & (agr >= min_agreement) & (cov > 0)
    if not ok.any():
        return None
    best = np.unravel_index(np.argmax(np.where(ok, cov, -1)), ok.shape)
    lo = None if best[0] == 0 else float(g[best[0] - 1])
    hi = None if upper_open or best[1] >= g.size else float(g[best[1]])
    cond = Condition(col, decisions.feature_names[col], lo, hi)
    return FundamentalRule(name or f"best interval for {action.text}", (cond,), action,
                           f"search: largest coverage with agreement >= {min_agreement:.0%}")

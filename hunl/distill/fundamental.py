"""Plain-language rules for HUNL endgames, with coverage, agreement and cost measured in solved endgames.

A :class:`HoldemRule` says what to do (a distribution over the ordered action classes of :mod:`hunl.distill.actions`)
for one decision type (street, facing a bet or not) when its feature conditions hold, e.g. Ganzfried & Yusuf's
(2017, Section 5) fundamental rules restated for hold'em:

* **80-20 rule** (:data:`RULE_80_20`): not facing a bet on the river, with a hand that beats between 20% and 80%
  of the opponent's range: check.
* **All-in rule** (:data:`RULE_ALL_IN`): not facing a bet on the river, with a hand that beats at least 95% of the
  opponent's range, while at least 10% of that range is strong (``opp_strong >= 0.1``: hands with an equity of
  at least 0.8 against a uniform range): go all-in.

:func:`rule_statistics` measures a rule on solved endgames with the bet game's
:class:`rulelearn.rules.statistics.RuleStatistics`, decisions weighted by their probability rather than counted
once: its *coverage* (share of the decision type's probability mass where it applies), its *mass* (how much of the
equilibrium's play it matches: the overlap ``sum_c min(eq_c, rule_c)``, the probability of the rule's action for
a pure rule), its *agreement* (the share of that mass where the overlap is at least 50%) and its *cost*: the
exploitability of playing the rule wherever it applies and the equilibrium elsewhere, minus the equilibrium's
own, in percent of the pot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.best_response import exploitability
from hunl.distill.actions import CLASS_LABELS, N_CLASSES, classes_to_actions
from hunl.distill.decisions import TURN_FEATURES, DecisionContext, decision_rows
from rulelearn.rules.conditions import Condition
from rulelearn.rules.statistics import RuleStatistics, summarise_rule

__all__ = ["HoldemRule", "RULE_80_20", "RULE_ALL_IN", "rule_statistics", "rules_from_tree", "SolvedEndgame"]


def _cond(name: str, lower=None, upper=None) -> Condition:
    return Condition(TURN_FEATURES.index(name), name, lower, upper)


@dataclass(frozen=True)
class HoldemRule:
    """``if <conditions> (on decisions of one street and type): play <strategy>``.

    Attributes
    ----------
    name : str
    street : int
        4 (turn) or 5 (river).
    facing : bool
        Whether the rule is about facing a bet.
    conditions : tuple of rulelearn.rules.conditions.Condition
        On the columns of :data:`hunl.distill.decisions.TURN_FEATURES` (``lower < x <= upper``).
    strategy : numpy.ndarray of float64, shape ``(4,)``
        The class distribution the rule plays.
    player : int or None, default None
        0 (player 1, out of position) or 1 (player 2) for a rule of one player; ``None`` for both.
    """

    name: str
    street: int
    facing: bool
    conditions: tuple
    strategy: np.ndarray
    player: int | None = None

    def applies(self, street: np.ndarray, facing: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Boolean mask of the decision rows (``X`` of shape ``(m, F)``) the rule covers."""
        X = np.asarray(X)
        ok = (np.asarray(street) == self.street) & (np.asarray(facing) == self.facing)
        if self.player is not None:
            ok &= X[:, TURN_FEATURES.index("in_position")] == self.player
        for c in self.conditions:
            ok &= c.holds(np.asarray(X))
        return ok

    def text(self) -> str:
        """The rule in plain language."""
        parts = []
        for c in self.conditions:
            if c.name == "equity":
                lo = "" if c.lower is None else f"more than {c.lower:.0%}"
                hi = "" if c.upper is None else f"at most {c.upper:.0%}"
                parts.append(f"your hand beats {' and '.join(p for p in (lo, hi) if p)} of the opponent's range")
            elif c.name == "opp_strong":
                parts.append(f"at least {c.lower:.0%} of the opponent's range is strong" if c.upper is None
                             else str(c))
            else:
                parts.append(str(c))
        labels = CLASS_LABELS[int(self.facing)]
        mix = ", ".join(f"{labels[k]} {self.strategy[k]:.0%}" for k in np.argsort(-self.strategy)
                        if self.strategy[k] >= 0.05)
        who = "" if self.player is None else ("player 1 (out of position), " if self.player == 0
                                             else "player 2 (in position), ")
        where = (f"on the {'river' if self.street == 5 else 'turn'}, {who}"
                 f"{'facing a bet' if self.facing else 'not facing a bet'}")
        return f"{where}, if {' and '.join(parts) or 'always'}: {mix}"


def _pure(k: int) -> np.ndarray:
    s = np.zeros(N_CLASSES)
    s[k] = 1.0
    return s


#: The 80-20 rule (Ganzfried & Yusuf 2017, Fundamental Rule 1) for river decisions not facing a bet.
RULE_80_20 = HoldemRule("80-20 rule", 5, False, (_cond("equity", 0.2, 0.8),), _pure(0))
#: The all-in rule (Ganzfried & Yusuf 2017, Fundamental Rule 2) for river decisions not facing a bet.
RULE_ALL_IN = HoldemRule("all-in rule", 5, False, (_cond("equity", 0.95, None), _cond("opp_strong", 0.1, None)),
                         _pure(3))


@dataclass(frozen=True)
class SolvedEndgame:
    """A solved endgame with its decision rows (computed once, reused for every rule).

    Attributes
    ----------
    game : HoldemEndgame
    probs : numpy.ndarray of float64, shape ``(N, Hm)``
        The equilibrium (e.g. DCFR average) policy, edge layout.
    rows : hunl.distill.decisions.DecisionRows
    exploitability_chips : float
        The equilibrium policy's own exploitability (NashConv / 2), chips.
    """

    game: object
    probs: np.ndarray
    rows: object
    exploitability_chips: float

    @classmethod
    def from_policy(cls, game, probs, ranges: str = "start") -> SolvedEndgame:
        """Rows (range features against ``ranges``, see :func:`hunl.distill.decisions.decision_rows`) and the
        exploitability of an edge-layout policy ``probs`` of shape ``(N, Hm)``."""
        probs = np.asarray(probs, dtype=np.float64)
        return cls(game, probs, decision_rows(game, probs, ranges=ranges),
                   float(exploitability(game, probs).exploitability))


def rule_statistics(rule: HoldemRule, endgames) -> RuleStatistics:
    """Coverage, agreement, mass and cost of ``rule`` over solved endgames, decisions weighted by probability.

    The scope is the rule's decision type (street, facing a bet or not); a decision weighs its probability
    (:attr:`hunl.distill.decisions.DecisionRows.weight`), pooled over the endgames. The rule's play at a decision
    is a class distribution, so its *mass* there is the overlap ``sum_c min(eq_c, rule_c)`` with the
    equilibrium's (the probability of the rule's class for a pure rule) and *agreement* counts the decisions
    where that overlap is at least 50%. The cost of an endgame is the exploitability (NashConv / 2) added by
    playing the rule wherever it applies and the equilibrium elsewhere, in percent of the pot.

    Parameters
    ----------
    rule : HoldemRule
    endgames : sequence of SolvedEndgame

    Returns
    -------
    rulelearn.rules.statistics.RuleStatistics
        ``weighting="probability"``; ``cost``, ``cost_spread`` in percent of the pot.

    Raises
    ------
    ValueError
        If ``endgames`` is empty.
    """
    endgames = list(endgames)
    if not endgames:
        raise ValueError("endgames must hold at least one SolvedEndgame")
    covered, scope, weights, mass, costs = [], [], [], [], []
    for e in endgames:
        r = e.rows
        on = rule.applies(r.street, r.facing, r.X)
        covered.append(on)
        scope.append((r.street == rule.street) & (r.facing == rule.facing))
        weights.append(r.weight)
        mass.append(np.minimum(r.Y, rule.strategy[None]).sum(axis=1))
        costs.append(_cost_pct_pot(rule, e, on) if on.any() else 0.0)
    costs = np.asarray(costs)
    touched = np.array([c.any() for c in covered])
    return summarise_rule(rule, np.concatenate(covered), np.concatenate(mass), costs, touched,
                          weights=np.concatenate(weights), in_scope=np.concatenate(scope))


def _cost_pct_pot(rule: HoldemRule, e: SolvedEndgame, on: np.ndarray) -> float:
    """Exploitability added by playing ``rule`` at the decisions ``on`` of one endgame, percent of the pot."""
    r = e.rows
    probs = e.probs.copy()
    ctx = DecisionContext(e.game)
    t = e.game.tree
    for n in np.unique(r.node[on]):
        sel = on & (r.node == n)
        hands = r.hand[sel]
        kids = t.children(int(n))
        member = ctx.node_classes(int(n))
        act = classes_to_actions(np.tile(rule.strategy, (hands.size, 1)), member)
        probs[kids.start:kids.stop, hands] = act.T
    ex = exploitability(e.game, probs).exploitability
    return 100.0 * (ex - e.exploitability_chips) / e.game.pot


def rules_from_tree(model, key, min_coverage: float = 0.02) -> list[HoldemRule]:
    """The leaves of one tree of a :class:`hunl.distill.policy.DistilledPolicy` as :class:`HoldemRule` objects.

    Parameters
    ----------
    model : DistilledPolicy
        Fitted.
    key : tuple
        ``(street, facing, player)`` of the tree.
    min_coverage : float, default 0.02
        Leaves covering less of the tree's (weight-sampled) training decisions are left out.

    Returns
    -------
    list of HoldemRule
        Most covered first; conditions refer to :data:`hunl.distill.decisions.TURN_FEATURES` columns.
    """
    from rulelearn.rules.conditions import extract_rules

    tree = model.trees_[key]
    names = model.feature_names_[key]
    leaves = extract_rules(tree.tree_, model.leaf_table(key), names)
    leaves.sort(key=lambda r: -r.coverage)
    out = []
    for i, leaf in enumerate(leaves):
        if leaf.coverage < min_coverage:
            continue
        conds = tuple(_cond(c.name, c.lower, c.upper) for c in leaf.conditions)
        out.append(HoldemRule(f"leaf {i + 1} ({leaf.coverage:.0%})", int(key[0]), bool(key[1]), conds,
                              np.asarray(leaf.strategy, dtype=np.float64), int(key[2])))
    return out

"""How a plain rule fares on solved games: one :class:`RuleStatistics` for every game, its weighting a parameter.

A rule applies to some *decisions* (a hand at a decision point of one game) and prescribes what to play there. On
a set of solved games, with decisions weighted either equally (``weighting="decisions"``: the bet game counts
every (game, hand) once, whatever its probability) or by their probability (``weighting="probability"``: a HUNL
decision by the reach probability of its information set):

* **coverage**: the weighted share of the decisions in the rule's scope (all decisions, or one decision type)
  that it applies to;
* **mass**: the weighted mean, over the covered decisions, of the equilibrium's probability of what the rule plays
  (the actions it allows; for a rule that plays a mix, the overlap ``sum_a min(eq_a, rule_a)``);
* **agreement**: the weighted share of the covered decisions where that probability is at least 50%;
* **cost**: per game, what playing the rule wherever it applies (the equilibrium elsewhere) costs, in the
  caller's unit: player 1's exploitability in chips for a :class:`~rulelearn.family.GameFamily`
  (:func:`family_rule_statistics`), the exploitability (NashConv / 2) added in percent of the pot for a HUNL
  endgame (:mod:`hunl.distill.fundamental`); summarised by its mean over all games (a game the rule never touches
  costs 0), its mean over the games it touches, and its standard deviation over all games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulelearn.family import GameFamily

__all__ = ["WEIGHTINGS", "RuleStatistics", "family_rule_statistics", "summarise_rule"]

#: How decisions are weighted: each once, or by its probability.
WEIGHTINGS = ("decisions", "probability")


@dataclass(frozen=True)
class RuleStatistics:
    """A rule measured on solved games (see the module docstring for the definitions).

    Attributes
    ----------
    rule : object
        The rule (a :class:`~rulelearn.rules.fundamental.FundamentalRule`, a HUNL rule, ...).
    weighting : str
        One of :data:`WEIGHTINGS`.
    n_decisions : int
        Decisions the rule applies to.
    coverage : float
        Weighted share of the decisions in scope that the rule applies to (0 if the scope has no weight).
    agreement : float
        Weighted share of the covered decisions where the equilibrium gives the rule's play at least 50% (NaN if
        the rule covers nothing).
    mass : float
        Weighted mean equilibrium probability of the rule's play over the covered decisions (NaN if none).
    cost : float
        Mean over all games of the cost of playing the rule (the caller's unit).
    cost_touched : float
        The same mean over the games with at least one covered decision (NaN if none).
    cost_spread : float
        Standard deviation of the cost over all games.
    games_touched : float
        Share of the games with at least one covered decision.
    n_games : int
    """

    rule: object
    weighting: str
    n_decisions: int
    coverage: float
    agreement: float
    mass: float
    cost: float
    cost_touched: float
    cost_spread: float
    games_touched: float
    n_games: int

    def as_row(self) -> dict:
        """A flat table row: the rule's name, text and source (when it has them) and the numbers."""
        rule = self.rule
        out = {"rule": getattr(rule, "name", str(rule)), "text": rule.text() if hasattr(rule, "text") else "",
               "source": getattr(rule, "source", "")}
        out.update({k: getattr(self, k) for k in ("coverage", "agreement", "mass", "cost", "cost_touched",
                                                  "cost_spread", "games_touched", "n_decisions", "n_games")})
        return out


def summarise_rule(rule, covered, mass, costs, touched, weights=None, in_scope=None) -> RuleStatistics:
    """:class:`RuleStatistics` from per-decision and per-game arrays.

    Parameters
    ----------
    rule : object
    covered : array_like of bool, shape ``(m,)``
        Decisions the rule applies to (all games pooled).
    mass : array_like of float, shape ``(m,)``
        The equilibrium's probability of the rule's play at each decision (read where covered).
    costs : array_like of float, shape ``(G,)``
        Cost of playing the rule in each game (0 where it touches nothing).
    touched : array_like of bool, shape ``(G,)``
        Games with at least one covered decision.
    weights : array_like of float, shape ``(m,)``, optional
        Decision probabilities (``weighting="probability"``); default every decision counts once
        (``weighting="decisions"``).
    in_scope : array_like of bool, shape ``(m,)``, optional
        Decisions the rule could apply to (default all): the denominator of the coverage.

    Returns
    -------
    RuleStatistics

    Raises
    ------
    ValueError
        If the arrays disagree in length or no game is given.
    """
    on = np.asarray(covered, dtype=bool).reshape(-1)
    scope = np.ones_like(on) if in_scope is None else np.asarray(in_scope, dtype=bool).reshape(-1)
    m = np.asarray(mass, dtype=np.float64).reshape(-1)
    c = np.asarray(costs, dtype=np.float64).reshape(-1)
    hit = np.asarray(touched, dtype=bool).reshape(-1)
    if not (on.shape == scope.shape == m.shape) or c.shape != hit.shape:
        raise ValueError("covered, mass and in_scope need one entry per decision; costs and touched one per game")
    if c.size == 0:
        raise ValueError("at least one game is needed")
    n = int(on.sum())
    agree = m[on] >= 0.5 - 1e-12
    if weights is None:
        weighting = "decisions"
        total = int(scope.sum())
        coverage = n / total if total else 0.0
        agreement = float(np.mean(agree)) if n else float("nan")
        mean_mass = float(m[on].mean()) if n else float("nan")
    else:
        weighting = "probability"
        w = np.asarray(weights, dtype=np.float64).reshape(-1)
        if w.shape != on.shape:
            raise ValueError("weights need one entry per decision")
        total, w_on = float(w[scope].sum()), float(w[on].sum())
        coverage = w_on / total if total > 0 else 0.0
        agreement = float((w[on] * agree).sum()) / w_on if w_on > 0 else float("nan")
        mean_mass = float((w[on] * m[on]).sum()) / w_on if w_on > 0 else float("nan")
    return RuleStatistics(
        rule=rule, weighting=weighting, n_decisions=n, coverage=coverage, agreement=agreement, mass=mean_mass,
        cost=float(c.mean()), cost_touched=float(c[hit].mean()) if hit.any() else float("nan"),
        cost_spread=float(c.std()), games_touched=int(hit.sum()) / c.size, n_games=int(c.size))


def family_rule_statistics(rule, decisions, family: GameFamily, columns: dict) -> RuleStatistics:
    """Coverage, agreement, mass and cost of a :class:`~rulelearn.rules.fundamental.FundamentalRule` on solved
    games of a family, every (game, hand) decision of player 1 counting once.

    The cost is player 1's exploitability (chips, :meth:`GameFamily.player1_exploitability`) when he plays the
    rule's action (:attr:`RuleAction.play`, a pure action) wherever it applies and the equilibrium elsewhere.

    Parameters
    ----------
    rule : FundamentalRule
    decisions : HandDecisions
        Of the games in ``columns`` (same order), from :func:`rulelearn.rules.fundamental.hand_decisions`.
    family : GameFamily
    columns : dict of numpy.ndarray
        The games' database columns.

    Returns
    -------
    RuleStatistics

    Raises
    ------
    ValueError
        If an action index is outside the action grid or ``columns`` and ``decisions`` disagree in size.
    """
    n_actions = decisions.strategies.shape[-1]
    if not all(0 <= a < n_actions for a in rule.action.agree):
        raise ValueError(f"rule {rule.name!r} names an action outside 0..{n_actions - 1}")
    g_count = decisions.n_games
    if len(next(iter(columns.values()))) != g_count:
        raise ValueError("columns and decisions hold different numbers of games")
    on = rule.applies(decisions.X)
    mass = decisions.equilibrium_rows[:, list(rule.action.agree)].sum(axis=1)
    touched = np.unique(decisions.game_index[on])
    costs = np.zeros(g_count)
    if touched.size:
        strat = decisions.strategies[touched].copy()
        pos = np.searchsorted(touched, decisions.game_index[on])
        hands = decisions.hand_index[on]
        strat[pos, hands] = 0.0
        strat[pos, hands, rule.action.play] = 1.0
        costs[touched] = family.player1_exploitability({k: v[touched] for k, v in columns.items()}, strat)
    hit = np.zeros(g_count, dtype=bool)
    hit[touched] = True
    return summarise_rule(rule, on, mass, costs, hit)

"""Fundamental rules: features, rule statistics against a slow direct computation, tree rules, searches."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import betgame
from games.betgame.family import BetGameFamily
from rulelearn.rules import fundamental as F
from rulelearn.rules.conditions import Condition
from rulelearn.rules.statistics import family_rule_statistics, summarise_rule

FAMILY = BetGameFamily(n_cards=5, stack=2.0, bets=(0.0, 0.5, 1.0, 2.0))


@pytest.fixture(scope="module")
def solved():
    cols = FAMILY.solve_range(3, 0, 40)
    dec = F.hand_decisions(FAMILY.ranges(cols), FAMILY.strategies(cols), FAMILY.hand_labels, FAMILY.player_names,
                           FAMILY.hand_noun)
    return cols, dec


def test_hand_features(solved):
    cols, dec = solved
    ranges = FAMILY.ranges(cols)
    g, d = ranges.shape[0], ranges.shape[2]
    assert dec.X.shape[0] == g * d and dec.n_games == g
    beats = dec.X[:, dec.feature(F.BEATS)]
    own = dec.X[:, dec.feature(dec.own_cdf)]
    for row in (0, 7, 3 * d + 4):
        gi, h = dec.game_index[row], dec.hand_index[row]
        assert beats[row] == pytest.approx(ranges[gi, 1, :h].sum(), abs=1e-12)
        assert own[row] == pytest.approx(ranges[gi, 0, :h + 1].sum(), abs=1e-12)
    assert np.allclose(dec.equilibrium_rows[row], cols["strategy"][gi, h])
    with pytest.raises(ValueError, match="no feature"):
        dec.feature("nope")


def slow_statistics(rule, cols, dec):
    """Loops over games and cards, independent of family_rule_statistics' vectorised bookkeeping."""
    n_games, d, _ = dec.strategies.shape
    covered, agree, expl = 0, 0, []
    for g in range(n_games):
        strat = cols["strategy"][g].copy()
        for h in range(d):
            x = dec.X[g * d + h]
            if all((c.lower is None or x[c.feature] > c.lower) and (c.upper is None or x[c.feature] <= c.upper)
                   for c in rule.conditions):
                covered += 1
                agree += cols["strategy"][g, h, list(rule.action.agree)].sum() >= 0.5
                strat[h] = 0.0
                strat[h, rule.action.play] = 1.0
        expl.append(betgame.player1_exploitability(cols["probs"][g], strat, cols["value"][g], FAMILY.game))
    return covered / (n_games * d), (agree / covered if covered else np.nan), float(np.mean(expl))


@settings(max_examples=25, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 3), st.booleans())
def test_rule_statistics_match_a_direct_computation(solved, a, b, play, second):
    cols, dec = solved
    lo, hi = min(a, b), max(a, b)
    conds = [Condition(dec.feature(F.BEATS), F.BEATS, lo, hi)]
    if second:
        conds.append(Condition(dec.feature("P(P2 holds <= 3)"), "P(P2 holds <= 3)", None, 0.7))
    rule = F.FundamentalRule("r", tuple(conds), F.RuleAction(play, (play, 0) if play else (0,), "x"))
    s = family_rule_statistics(rule, dec, FAMILY, cols)
    cov, agr, expl = slow_statistics(rule, cols, dec)
    assert s.coverage == pytest.approx(cov)
    assert (np.isnan(s.agreement) and np.isnan(agr)) or s.agreement == pytest.approx(agr)
    assert s.cost == pytest.approx(expl, abs=1e-9)
    assert s.cost >= -1e-9


def test_always_check_and_never_apply(solved):
    cols, dec = solved
    always = F.FundamentalRule("check", (), F.RuleAction(0, (0,), "check"))
    s = family_rule_statistics(always, dec, FAMILY, cols)
    check = np.zeros_like(cols["strategy"])
    check[..., 0] = 1.0
    assert s.coverage == 1.0 and s.games_touched == 1.0
    assert s.cost == pytest.approx(FAMILY.player1_exploitability(cols, check).mean(), abs=1e-12)
    assert s.cost > 0.01  # always checking is exploitable
    never = F.FundamentalRule("never", (Condition(dec.feature(F.BEATS), F.BEATS, 2.0, None),),
                              F.RuleAction(0, (0,), "check"))
    s = family_rule_statistics(never, dec, FAMILY, cols)
    assert s.coverage == 0 and np.isnan(s.agreement) and s.cost == 0 and np.isnan(s.cost_touched)
    bad = F.FundamentalRule("bad", (), F.RuleAction(9, (9,), "x"))
    with pytest.raises(ValueError, match="action outside"):
        family_rule_statistics(bad, dec, FAMILY, cols)
    assert always.text() == "if always: check"
    assert dec.own_cdf == "P(P1 holds <= card)"


def test_summarise_rule_weighting():
    """Each decision once, or by its probability: coverage, agreement (majority) and mass (mean) change."""
    covered = np.array([True, True, False, True])
    mass = np.array([0.9, 0.2, 0.7, 0.6])
    costs, touched = np.array([0.0, 2.0]), np.array([False, True])
    once = summarise_rule("r", covered, mass, costs, touched)
    assert once.weighting == "decisions" and once.n_decisions == 3
    assert once.coverage == pytest.approx(0.75) and once.agreement == pytest.approx(2 / 3)
    assert once.mass == pytest.approx((0.9 + 0.2 + 0.6) / 3)
    assert once.cost == 1.0 and once.cost_touched == 2.0 and once.cost_spread == 1.0 and once.games_touched == 0.5
    w = np.array([1.0, 3.0, 4.0, 0.0])
    scope = np.array([True, True, True, False])
    prob = summarise_rule("r", covered, mass, costs, touched, weights=w, in_scope=scope)
    assert prob.weighting == "probability"
    assert prob.coverage == pytest.approx(4 / 8) and prob.agreement == pytest.approx(1 / 4)
    assert prob.mass == pytest.approx((0.9 + 3 * 0.2) / 4)
    none = summarise_rule("r", ~covered & False, mass, costs, np.zeros(2, bool), weights=w)
    assert none.coverage == 0 and np.isnan(none.agreement) and np.isnan(none.mass) and np.isnan(none.cost_touched)
    with pytest.raises(ValueError, match="one entry per decision"):
        summarise_rule("r", covered, mass[:2], costs, touched)


def test_summarise_action():
    labels = ["check", "bet 0.5", "bet 1", "bet 2"]
    values = [0.0, 0.5, 1.0, 2.0]
    a = F.summarise_action([0.6, 0.4, 0, 0], values, labels)
    assert (a.play, a.agree, a.text) == (0, (0,), "check")
    a = F.summarise_action([0.2, 0.1, 0.5, 0.2], values, labels)  # bet part 1/8, 5/8, 2/8: quartiles at bet 1
    assert (a.play, a.agree, a.text) == (2, (2,), "bet 1")
    a = F.summarise_action([0.2, 0.3, 0.2, 0.3], values, labels)  # bet part 3/8, 2/8, 3/8
    assert (a.play, a.agree, a.text) == (2, (1, 2, 3), "bet 0.5-2, e.g. bet 1")
    a = F.summarise_action([0.0, 0.0, 0.1, 0.9], values, labels)
    assert a.play == 3 and a.text == "bet 2 (all-in)" and a.agree == (3,)
    with pytest.raises(ValueError, match="one entry per action"):
        F.summarise_action([1.0, 0.0], values, labels)
    with pytest.raises(ValueError, match="must contain the played action"):
        F.RuleAction(1, (0,), "x")


def synthetic(n=3000, seed=0):
    """Decisions whose equilibrium checks iff 0.3 < beats <= 0.7, bets the maximum above, 0.5 below."""
    rng = np.random.default_rng(seed)
    beats = rng.random(n)
    other = rng.random(n)
    strat = np.zeros((n, 1, 4))
    strat[(beats > 0.3) & (beats <= 0.7), 0, 0] = 1.0
    strat[beats > 0.7, 0, 3] = 1.0
    strat[beats <= 0.3, 0, 1] = 1.0
    X = np.column_stack([other, beats])
    return F.HandDecisions(X, ("other", F.BEATS), np.arange(n), np.zeros(n, dtype=np.int64), strat)


def test_tree_rules_recover_a_planted_check_band():
    dec = synthetic()
    labels, values = ["check", "bet 0.5", "bet 1", "bet 2"], [0.0, 0.5, 1.0, 2.0]
    rules = F.merge_interval_rules(F.tree_rules(dec, np.arange(3000), [F.BEATS], 3, values, labels))
    by_action = {r.action.text: r.conditions[0] for r in rules}
    assert set(by_action) == {"check", "bet 0.5", "bet 2 (all-in)"}
    assert by_action["check"].lower == pytest.approx(0.3, abs=0.01)
    assert by_action["check"].upper == pytest.approx(0.7, abs=0.01)
    # planted rules agree perfectly
    for r in rules:
        mask = r.applies(dec.X)
        assert np.all(dec.equilibrium_rows[mask][:, list(r.action.agree)].sum(axis=1) >= 0.5)
    with pytest.raises(ValueError, match="one condition each"):
        F.merge_interval_rules([F.FundamentalRule("a", (), F.RuleAction(0, (0,), "check"))])


def test_best_interval_rule_finds_the_planted_band_and_matches_brute_force():
    dec = synthetic(seed=1)
    rows = np.arange(3000)
    check = F.RuleAction(0, (0,), "check")
    r = F.best_interval_rule(dec, rows, F.BEATS, check, 1.0)
    c = r.conditions[0]
    assert c.lower == pytest.approx(0.3) and c.upper == pytest.approx(0.7)
    allin = F.best_interval_rule(dec, rows, F.BEATS, F.RuleAction(3, (3,), "bet 2"), 1.0, upper_open=True)
    assert allin.conditions[0].lower == pytest.approx(0.7) and allin.conditions[0].upper is None
    # brute force on a coarse grid with an imperfect threshold
    grid = np.linspace(0, 1, 11)
    x = dec.X[:, 1]
    ok = dec.equilibrium_rows[:, 0] >= 0.5
    best = (-1, None)
    bounds = [None] + list(grid)
    for lo in bounds:
        for hi in list(grid) + [None]:
            m = np.ones(x.size, bool)
            if lo is not None:
                m &= x > lo
            if hi is not None:
                m &= x <= hi
            if m.sum() and ok[m].mean() >= 0.8 and m.sum() > best[0]:
                best = (m.sum(), (lo, hi))
    r = F.best_interval_rule(dec, rows, F.BEATS, check, 0.8, grid=grid)
    assert r.applies(dec.X).sum() == best[0]
    assert F.best_interval_rule(synthetic(seed=2), rows, F.BEATS, F.RuleAction(2, (2,), "bet 1"), 0.5) is None
    with pytest.raises(ValueError, match="min_agreement"):
        F.best_interval_rule(dec, rows, F.BEATS, check, 1.5)


def test_format_conditions():
    conds = (Condition(0, "share", 0.2, 0.8), Condition(1, "P(P2 holds <= 6)", None, 0.9),
             Condition(2, "x", 0.00024, None))
    assert F.format_conditions(conds) == "20% < share <= 80% and P(P2 holds <= 6) <= 90% and x > 0.024%"
    beaten = [Condition(0, F.BEATS, lo, hi) for lo, hi in ((0.2, 0.8), (0.966, None), (None, 0.5))]
    assert [F.format_conditions([c]) for c in beaten] == [
        "your hand beats more than 20% and at most 80% of P2's range",
        "your hand beats more than 96.6% of P2's range", "your hand beats at most 50% of P2's range"]
    assert F.format_conditions(()) == "always"

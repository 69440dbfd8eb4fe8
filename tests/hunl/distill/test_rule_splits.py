"""A finished card's rules cut in two by their cost (hunl.distill.rule_splits): a cut plays as the card until its
sides' mixes move, the scores are the criteria computed by brute force, the class values are the information-set
values of the leaf optimiser, and the search never ends worse than it started."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.cards import CARD_FEATURES, CardPolicy
from hunl.distill.cost import evaluate_policy
from hunl.distill.policy import play
from hunl.distill.rule_splits import (
    RuleSplit,
    side_mixes,
    side_tries,
    split_gains,
    split_quantities,
    split_rule,
    splits_by_exploitability,
)
from hunl.distill.threshold_search import SplitWorkers
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import RuleCard
from rulelearn.rules.plain import plain_mixes_near
from tests.hunl.distill.card_rows import design_rows as _rows

ROOT = Path(__file__).resolve().parents[3]
SIZES = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)


def _card(name: str) -> RuleCard:
    return RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f"{name}.json").read_text()))


@pytest.fixture(scope="module")
def games():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000))
    return [HoldemEndgame(b, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
            for b, r1, r2, pot, stack in specs]


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(["river", "river-ordered-all", "turn-own-pruned-plain"]), pick=st.integers(0, 10 ** 6),
       q=st.sampled_from(["equity", "percentile", "spr", "opp_strong", "decile_5"]), t=st.integers(0, 30),
       seed=st.integers(0, 10 ** 6))
def test_a_cut_rule_gives_each_decision_to_one_of_its_sides(name, pick, q, t, seed):
    """Every decision of the cut rule reads one of its two sides (at or below the threshold: the first), every
    other decision the rule it read, one place on after the cut; the sides play the rule's strategy."""
    from hunl.distill.quantities import feature_grid

    card = _card(name)
    if q not in {x.name for x in card.quantities}:
        return
    k = pick % card.n_rules
    grid = feature_grid(q)
    thr = float(grid[t % len(grid)])
    cut = split_rule(card, k, q, thr)
    X = _rows(400, seed)
    before, after = card.rule_index(X, CARD_FEATURES), cut.rule_index(X, CARD_FEATURES)
    assert cut.n_rules == card.n_rules + 1
    assert np.array_equal(after[before < k], before[before < k])
    assert np.array_equal(after[before > k], before[before > k] + 1)
    assert np.array_equal(after[before < 0], before[before < 0])
    mine = before == k
    z = np.where(np.isnan(X[:, CARD_FEATURES.index(q)]), -np.inf, X[:, CARD_FEATURES.index(q)])
    assert np.array_equal(after[mine], np.where(z[mine] <= thr, k, k + 1))
    for r in cut.rules()[k:k + 2]:
        assert r.strategy == card.rules()[k].strategy and r.order == card.rules()[k].order
        assert len(r.conditions) == len(card.rules()[k].conditions) + 1


def test_a_cut_on_a_quantity_the_card_cannot_name_is_a_value_error():
    card = _card("river")
    with pytest.raises(ValueError, match="plain-language"):
        split_rule(card, 0, "not_a_quantity", 0.5)
    with pytest.raises(IndexError, match="rule"):
        split_rule(card, card.n_rules, "equity", 0.5)
    with pytest.raises(ValueError, match="round"):
        split_rule(card, 0, "equity", 0.4321)


def _brute(card, names, Z, rule, weight, values, criterion, max_conditions=3, min_share=0.002):
    """Every cut scored one by one, by its definition."""
    from hunl.distill.quantities import feature_grid

    out = {}
    phrased = {q.name for q in card.quantities} - {"street", "facing", "in_position"}
    sums = values if criterion == "cost" else values * weight[:, None]
    for k, r in enumerate(card.rules()):
        if len(r.conditions) >= max_conditions:
            continue
        rows = rule == k
        for j, f in enumerate(names):
            if f not in phrased:
                continue
            for t in feature_grid(f):
                z = Z[:, j]
                left = rows & ((z <= t) | np.isnan(z))
                right = rows & ~left
                wl, wr = weight[left].sum(), weight[right].sum()
                if wl < min_share * weight.sum() or wr < min_share * weight.sum() or wl <= 0 or wr <= 0:
                    continue
                L, R = sums[left].sum(axis=0), sums[right].sum(axis=0)
                if criterion == "cost":
                    g = L.max() + R.max() - (L + R).max()
                else:
                    g = (L @ L) / wl + (R @ R) / wr - (L + R) @ (L + R) / (wl + wr)
                if g > 1e-15:
                    out[(k, f, float(t))] = g
    return out


@pytest.mark.parametrize("criterion", ["cost", "imitation"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_gains_are_the_criteria_computed_cut_by_cut(criterion, seed):
    card = _card("river-ordered-all")
    names = CARD_FEATURES
    rng = np.random.default_rng(seed)
    Z = _rows(3000, seed)
    Z[:, CARD_FEATURES.index("street")] = 5.0
    rule = card.rule_index(Z, names)
    keep = rule >= 0
    Z, rule = Z[keep], rule[keep]
    weight = rng.random(rule.size)
    values = rng.normal(size=(rule.size, 4)) if criterion == "cost" else rng.dirichlet(np.ones(4), rule.size)
    got = split_gains(card, names, Z, rule, weight, values, criterion)
    want = _brute(card, names, Z, rule, weight, values, criterion)
    # gains within rounding of 0 may be left out by either (the sums are taken in different orders)
    want = {k: pytest.approx(v, rel=1e-9, abs=1e-12) for k, v in want.items() if v > 1e-9}
    assert {(c.rule, c.feature, c.threshold): c.gain for c in got if c.gain > 1e-9} == want
    assert [c.gain for c in got] == sorted((c.gain for c in got), reverse=True) and len(got) > 10
    for c in got:
        assert len(card.rules()[c.rule].conditions) < 3
        for t in c.targets:
            assert len(t) == 4 and (criterion == "imitation" or sorted(t) == [0.0, 0.0, 0.0, 1.0])
            if criterion == "imitation":
                assert sum(t) == pytest.approx(1.0)


def test_bad_gain_inputs_are_value_errors():
    card = _card("river")
    with pytest.raises(ValueError, match="criterion"):
        split_gains(card, CARD_FEATURES, np.zeros((2, len(CARD_FEATURES))), [0, 0], [1, 1], np.zeros((2, 4)), "gini")
    with pytest.raises(ValueError, match="same 2 rows"):
        split_gains(card, CARD_FEATURES, np.zeros((2, 3)), [0, 0], [1, 1], np.zeros((2, 4)))


def test_side_mixes_are_plain_distinct_and_a_pure_mix_is_tried_once():
    from rulelearn.rules.plain import plain_fractions

    got = side_mixes([[0.0, 0.0, 1.0, 0.0], [0.52, 0.48, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]])
    assert [c for m, c in got if m[2] == 1.0] == [0]
    assert sorted(c for m, c in got if m[0] == 0.5) == [-1, 0, 1]
    assert len(got) == 4
    for m, _ in got:
        counts, d = plain_fractions(m, 1e-9)
        assert d <= 10 and np.allclose(counts / d, m)


def test_the_class_values_are_the_information_set_values(games):
    """Summed over each rule, the class values the workers give are the leaf optimiser's information-set values
    (an independent pass over the endgame's nodes), and so each rule's summed regret matching input."""
    from hunl.distill.optimal_leaves import information_set_values

    card = _card("river")
    policy = CardPolicy(card)
    want = np.zeros((card.n_rules, 4))
    for g in games:
        iv = information_set_values(policy, g)
        for facing in (False, True):
            rows = iv.facing == facing
            ids = policy.leaf_ids(5, facing, 0, iv.X[rows])[1]
            np.add.at(want, ids, iv.values[rows])
    with SplitWorkers(card, games, quantities=split_quantities(card)) as pool:
        got = pool.rule_values(card) * len(games)          # the mean over the endgames
        Z, rule, reach, values = pool.class_values(card)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    assert np.abs(want).max() > 1e-3
    assert Z.shape == (rule.size, len(pool.names)) and values.shape == (rule.size, 4) and reach.shape == rule.shape
    assert set(split_quantities(card)) <= set(pool.names) and np.all(reach >= 0) and reach.max() > 0


def test_two_workers_give_the_class_values_of_one(games):
    card = _card("river-ordered-all")
    with SplitWorkers(card, games, workers=1, ranked=True) as one, SplitWorkers(card, games, workers=2) as two:
        np.testing.assert_allclose(one.rule_values(card), two.rule_values(card), rtol=1e-9, atol=1e-12)


def test_side_tries_add_every_plain_mix_within_the_radius_once():
    rule, targets = [0.9, 0.1, 0.0, 0.0], [[0.5, 0.5, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    first = side_mixes(targets)
    assert [(m.tolist(), c) for m, c in side_tries(rule, targets)] == [(m.tolist(), c) for m, c in first]
    got = side_tries(rule, targets, 0.15)
    assert [(m.tolist(), c) for m, c in got[:len(first)]] == [(m.tolist(), c) for m, c in first]
    keys = [(tuple(np.round(m, 9)), c) for m, c in got]
    assert len(set(keys)) == len(keys)
    near = plain_mixes_near(rule, 0.15)
    assert near.shape[0] > 3
    for m in near:
        codes = {c for m2, c in got if np.allclose(m, m2)}
        assert codes == ({0} if np.count_nonzero(m > 1e-12) == 1 else {0, 1, -1})
    # nothing beyond the targets' mixes and the radius
    for m, _ in got:
        assert np.abs(m - np.asarray(rule)).max() <= 0.15 + 1e-9 or any(np.allclose(m, m2) for m2, _ in first)
    with pytest.raises(ValueError, match="radius"):
        side_tries(rule, targets, -0.1)


@pytest.mark.parametrize(("by_rows", "radius", "iterations"), [(False, 0.0, 0), (True, 0.0, 0), (False, 0.2, 0),
                                                              (False, 0.0, 3)])
def test_the_search_never_ends_worse_and_reports_the_cut_card_exactly(games, by_rows, radius, iterations):
    """The search's figures are the exact exploitability of the cards (played by :func:`play`); it keeps a cut
    only if it is cheaper, so the card it returns is never worse than the card it starts from."""
    card = _card("river")
    rows = None
    if by_rows:
        rng = np.random.default_rng(0)
        Z = _rows(2000, 3)
        Z[:, CARD_FEATURES.index("street")] = 5.0
        rows = (CARD_FEATURES, Z, rng.dirichlet(np.ones(4), Z.shape[0]), rng.random(Z.shape[0]))
    out, log = splits_by_exploitability(card, games, n_splits=2, candidates=3, rows=rows, radius=radius,
                                        iterations=iterations)
    start = np.mean([evaluate_policy(g, play(g, CardPolicy(card))).exploitability_pct_pot for g in games])
    assert log[0]["train_pct_pot"] == pytest.approx(start, rel=1e-9)
    final = np.mean([evaluate_policy(g, play(g, CardPolicy(out))).exploitability_pct_pot for g in games])
    kept = [e["kept"] for e in log if e["kept"] is not None]
    assert out.n_rules == card.n_rules + len(kept)
    assert final == pytest.approx(kept[-1]["pct_pot"] if kept else start, rel=1e-9)
    assert final <= start + 1e-9
    for e in log:
        assert 1 <= len(e["tried"]) <= 3
        assert all(t["pct_pot"] <= e["train_pct_pot"] + 1e-9 for t in e["tried"])   # a side keeps its mix
    assert all(len(r.conditions) <= 3 for r in out.rules())


def test_a_resumed_split_search_ends_as_the_uninterrupted_one(games):
    card = _card("river")
    states: list = []
    whole, log = splits_by_exploitability(card, games, n_splits=2, candidates=2,
                                          save=lambda s: states.append(json.loads(json.dumps(s))))  # as on disk
    assert len(states) >= 2
    for s in (states[0], states[len(states) // 2]):
        again, log2 = splits_by_exploitability(card, games, n_splits=2, candidates=2, resume=s)
        assert again == whole and log2 == log


def test_rule_split_round_trips_through_its_dict():
    s = RuleSplit(3, "equity", 0.7, 0.25, ((1.0, 0.0, 0.0, 0.0), (0.5, 0.5, 0.0, 0.0)))
    assert RuleSplit.from_dict(json.loads(json.dumps(s.to_dict()))) == s


def test_bad_search_settings_are_value_errors(games):
    with pytest.raises(ValueError, match="n_splits"):
        splits_by_exploitability(_card("river"), games, n_splits=0)
    with pytest.raises(ValueError, match="candidates"):
        splits_by_exploitability(_card("river"), games, candidates=0)
    with pytest.raises(ValueError, match="radius"):
        splits_by_exploitability(_card("river"), games, radius=float("nan"))


def test_the_threshold_job_cuts_rules_writes_the_card_and_its_block(tmp_path, small_river_db):
    """``rule_cards.py thresholds --split-rules 1 --sweeps 0``: the cut stage runs on the training endgames of the
    database, the thresholds are kept, the card written is the search's, and the doc block lists the cuts tried."""
    from hunl.distill.threshold_search import ThresholdJob, run_threshold_search

    path, _ = small_river_db
    doc = tmp_path / "HUNL.md"
    doc.write_text("# HUNL\n")
    out = tmp_path / "cut.json"
    job = ThresholdJob(card=str(ROOT / "docs" / "cards" / "river.json"), db=str(path), train=4, sweeps=0,
                       split_rules=1, split_candidates=2, split_radius=0.1, workers=1, out=str(out), doc=str(doc),
                       name="c", max_test=0)
    res = run_threshold_search(job)
    card = RuleCard.from_dict(json.loads(out.read_text()))
    start = _card("river")
    assert res["log"] == [] and len(res["split_log"]) == 1 and len(res["split_log"][0]["tried"]) == 2
    kept = res["split_log"][0]["kept"]
    assert card.n_rules <= start.n_rules + (kept is not None)
    assert card.meta["threshold_search"]["splits"] == res["split_log"]
    assert card.meta["threshold_search"]["split_radius"] == 0.1
    text = doc.read_text()
    assert "<!--block:card-c-thresholds-->" in text and "| round | rule | cut at |" in text
    assert "rules cut in two by their cost" in card.title         # the default title says what was done
    assert not out.with_name(out.name + ".state.json").exists()

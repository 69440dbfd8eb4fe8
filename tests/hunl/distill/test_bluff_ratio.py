"""The derived card quantities: ``bluff_ratio`` (the own-range share a hand beats over the own range's strong share)
and ``beaten_ratio`` (the opponent's share beating the hand over the opponent's strong share)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.cards import DEFAULT_CARD_FEATURES, CardConfig, CardPolicy, fit_card, grow_card_tree
from hunl.distill.decisions import STRONG_EQUITY, TURN_FEATURES, DecisionContext, decision_rows, node_features
from hunl.distill.policy import concat_rows
from hunl.distill.quantities import (
    CARD_FEATURES,
    FLOP_QUANTITIES,
    QUANTITIES,
    RATIO_CAP,
    derive_features,
    design_matrix,
    feature_grid,
)
from hunl.poker.cards import COMBO_CARDS
from hunl.poker.evaluator import combo_strengths
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.plain import is_round
from tests.hunl.distill.brute_force import range_percentile

BLUFF, BEATEN = CARD_FEATURES.index("bluff_ratio"), CARD_FEATURES.index("beaten_ratio")
DEFEND, BET = CARD_FEATURES.index("defend_ratio"), TURN_FEATURES.index("facing_bet")
PCT, STRONG = TURN_FEATURES.index("percentile"), TURN_FEATURES.index("own_strong")
EQ, OPP_STRONG = TURN_FEATURES.index("equity"), TURN_FEATURES.index("opp_strong")
SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.just(np.nan), st.floats(0, 1)), st.one_of(st.just(np.nan), st.just(0.0),
                                                                                  st.floats(0, 1))),
                min_size=1, max_size=30))
def test_the_ratios_are_a_share_over_a_strong_share(pairs):
    pct, strong = np.array(pairs, dtype=np.float64).T
    X = np.full((pct.size, len(TURN_FEATURES)), 0.3)
    X[:, PCT], X[:, STRONG] = pct, strong
    X[:, EQ], X[:, OPP_STRONG] = 1.0 - pct[::-1], strong[::-1]
    Z = design_matrix(X, 5, False)
    for (p, s), g in zip(list(zip(pct, strong)) + list(zip(1.0 - X[:, EQ], X[:, OPP_STRONG])),
                         np.concatenate([Z[:, BLUFF], Z[:, BEATEN]])):
        if np.isnan(p) or np.isnan(s):
            assert np.isnan(g)
        elif s == 0:
            assert g == RATIO_CAP
        else:
            with np.errstate(over="ignore"):
                assert g == pytest.approx(min(p / s, RATIO_CAP), rel=1e-12)
    # defend_ratio: the own-range share beating the hand over 1/(1+b), facing a bet of b pots only
    X[:, BET] = np.arange(pct.size) % 3 * 0.75
    Z = design_matrix(X, 5, True)
    want = np.where(X[:, BET] > 0, (1.0 - pct) * (1.0 + X[:, BET]), np.nan)
    assert np.allclose(Z[:, DEFEND], want, rtol=1e-12, equal_nan=True)
    assert np.all(np.isnan(Z[X[:, BET] == 0, DEFEND]))
    # the design of card growth computes the same columns
    from hunl.distill.cards import _design_of

    again = derive_features(design_matrix(X.astype(np.float32), 5, False))
    grown = _design_of(X.astype(np.float32), np.zeros(pct.size, bool), np.full(pct.size, 5))
    assert np.allclose(grown[:, [BLUFF, BEATEN, DEFEND]], again[:, [BLUFF, BEATEN, DEFEND]], equal_nan=True)


def test_the_ratios_of_river_ranges_by_pairwise_showdowns():
    """Against an independent count: each hand's share of its range beaten (pair by pair) over the share of the
    range whose hands beat at least 80% of all hands (pair by pair against every combo); and the share of the
    opponent's range that beats it over the opponent's strong share."""
    board = "Ks7d2c9hTs"
    g = HoldemEndgame(board, ["TT+,A9s+,KJo+,QTs+,98s,76s,54s", "77+,A5s+,KTo+,QJs,JTs,T8s+"], pot=800,
                      stack=2400, bet_sizes=SIZES, raise_cap=1)
    ctx = DecisionContext(g)
    reach = np.ones((2, g.tree.n_nodes, g.max_hands))
    X = node_features(g, ctx, np.array([0]), reach)[0]            # the root: player 1's starting range
    Z = design_matrix(X, 5, False)
    got = Z[:, BLUFF]
    p = int(ctx.player[0])
    hp = g.num_hands[p]
    w = g.prior[p, :hp]
    pct = range_percentile(g, p, w)
    strength = combo_strengths(g.boards[0]).astype(np.int64)
    live = np.array([not (set(c.tolist()) & set(int(x) for x in g.boards[0])) for c in COMBO_CARDS])

    def uniform_strength(player):
        out = np.empty(g.num_hands[player])
        for i, c in enumerate(g.combos[player][:g.num_hands[player]]):
            other = live & ~np.isin(COMBO_CARDS, COMBO_CARDS[c]).any(axis=1)
            s = strength[c]
            out[i] = ((strength[other] < s).sum() + 0.5 * (strength[other] == s).sum()) / other.sum()
        return out

    share = w[uniform_strength(p) >= STRONG_EQUITY].sum() / w.sum()
    assert 0 < share < 1
    assert np.allclose(got, pct / share, atol=1e-9)
    # the opponent's side: pairwise showdowns against its starting range
    o, ho = 1 - p, g.num_hands[1 - p]
    wo = g.prior[o, :ho]
    opp_share = wo[uniform_strength(o) >= STRONG_EQUITY].sum() / wo.sum()
    cards_o = [set(COMBO_CARDS[c].tolist()) for c in g.combos[o][:ho]]
    for i, c in enumerate(g.combos[p][:hp]):
        mine = set(COMBO_CARDS[c].tolist())
        ok = np.array([not (mine & co) for co in cards_o])
        so = strength[g.combos[o][:ho]]
        beaten = (wo * ok * ((so > strength[c]) + 0.5 * (so == strength[c]))).sum() / (wo * ok).sum()
        assert Z[i, BEATEN] == pytest.approx(beaten / opp_share, abs=1e-9)


def test_the_quantities_have_phrases_and_round_thresholds_on_every_street():
    for qs in (QUANTITIES, FLOP_QUANTITIES):
        for name, words in (("bluff_ratio", "weakest"), ("beaten_ratio", "beat yours"),
                            ("defend_ratio", "minimum-defence")):
            q = next(q for q in qs if q.name == name)
            assert "{t}" in q.above and "{t}" in q.at_most
            assert words in q.at_most and ("strong" in q.at_most or "1/(1+b)" in q.at_most)
    for name in ("bluff_ratio", "beaten_ratio", "defend_ratio"):
        grid = feature_grid(name)
        assert 0.5 in grid and 1.0 in grid and all(is_round(t, "scale") for t in grid)
        assert name not in DEFAULT_CARD_FEATURES       # options: the shipped cards' run keys are unchanged


def test_a_card_that_tests_the_bluff_ratio_plays_the_rules_it_prints():
    games, sols = [], []
    for board, r1, r2, pot, stack in (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
                                      ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000)):
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
        games.append(g)
        sols.append(solve_endgame(g, "dcfr", iterations=150).result.policy.probs)
    rows = concat_rows(decision_rows(g, p, ranges="own") for g, p in zip(games, sols))
    config = CardConfig(max_leaves=10, n_samples=20_000, min_leaf_share=0.01, features=("bluff_ratio", "equity"))
    tree, Z, Y = grow_card_tree(rows, config)
    assert BLUFF in set(tree.feature[tree.feature >= 0].tolist())      # the tree splits on it
    card, policy, _ = fit_card(tree, 8, Z, Y, games, config, iterations=20, ranges="own")
    text = card.to_markdown()
    assert "for each strong hand in your range" in text
    # each decision reads the rule its bluff ratio (computed from its features) selects
    assert isinstance(policy, CardPolicy)
    Zr = design_matrix(rows.X[:500], 5, False)
    idx = card.rule_index(Zr, CARD_FEATURES)
    key, ids = policy.leaf_ids(5, False, 0, rows.X[:500])
    assert np.array_equal(ids, idx)


def _rule_cards_module():
    path = Path(__file__).resolve().parents[3] / "scripts" / "rule_cards.py"
    spec = importlib.util.spec_from_file_location("rule_cards_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_features_option_adds_to_the_default_or_names_them_all():
    f = _rule_cards_module()._features
    assert f(None) is None and f([]) is None
    assert f(["+bluff_ratio"]) == DEFAULT_CARD_FEATURES + ("bluff_ratio",)
    assert f(["equity", "bluff_ratio"]) == ("equity", "bluff_ratio")
    with pytest.raises(ValueError, match="plain-language phrase"):
        grow_card_tree(None, CardConfig(features=("nonsense",)))


def test_a_card_run_refuses_unknown_features_before_any_work(tmp_path):
    from hunl.distill.card_experiment import CardJob, run_cards

    for bad in (("bluff_ratio", "nonsense"), ()):
        with pytest.raises(ValueError, match="features must name quantities"):
            run_cards(CardJob(dbs=(str(tmp_path / "missing"),), features=bad, out=str(tmp_path / "out")))
    assert not (tmp_path / "out").exists()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.just(np.nan), st.floats(0, 1)), st.one_of(st.just(np.nan), st.just(0.0),
                                                                                  st.floats(0, 1))),
                min_size=1, max_size=30))
def test_the_value_bluff_ratio_is_the_share_beaten_over_the_value_share(pairs):
    pct, value = np.array(pairs, dtype=np.float64).T
    X = np.full((pct.size, len(TURN_FEATURES)), 0.3)
    X[:, PCT], X[:, TURN_FEATURES.index("own_value")] = pct, value
    got = design_matrix(X, 5, False)[:, CARD_FEATURES.index("value_bluff_ratio")]
    for p, v, g in zip(pct, value, got):
        if np.isnan(p) or np.isnan(v):
            assert np.isnan(g)
        elif v == 0:
            assert g == RATIO_CAP
        else:
            with np.errstate(over="ignore"):
                assert g == pytest.approx(min(p / v, RATIO_CAP), rel=1e-12)


def test_rows_stored_before_own_value_are_read_with_a_nan_column():
    from hunl.distill.decisions import RIVER_FEATURES, upgrade_rows

    k = TURN_FEATURES.index("own_value")
    X = np.arange(3 * len(TURN_FEATURES), dtype=np.float32).reshape(3, -1)
    old = np.delete(X, k, axis=1)
    new = upgrade_rows(old)
    assert new.dtype == np.float32 and new.shape == X.shape
    assert np.all(np.isnan(new[:, k]))
    np.testing.assert_array_equal(np.delete(new, k, axis=1), old)
    assert upgrade_rows(X) is X
    assert k == len(RIVER_FEATURES) - 1      # the deciles keep their places after the river's columns
    for bad in (X[0], X[:, :-2]):
        with pytest.raises(ValueError, match="X must be feature rows"):
            upgrade_rows(bad)


def test_the_value_quantities_name_the_value_line():
    from hunl.distill.decisions import VALUE_EQUITY

    q = {x.name: x for x in QUANTITIES}
    line = f"{VALUE_EQUITY:.0%} of the opponent's range"
    for name in ("own_value", "value_bluff_ratio"):
        assert line in q[name].above and line in q[name].at_most and line in q[name].between
    assert feature_grid("value_bluff_ratio") is not None and np.all(
        [is_round(t, "scale") for t in feature_grid("value_bluff_ratio")])


def test_rows_cached_before_own_value_are_made_again_for_a_card_that_reads_it(tmp_path, small_river_db):
    """A card run's cached training rows from before ``own_value`` (one column fewer) serve a card that does not
    read it (``own_value`` NaN), and are made again for one that does (``--features +value_bluff_ratio``)."""
    from dataclasses import replace

    from hunl.distill.card_experiment import CardJob, _Data
    from rulelearn.data.executors import SerialExecutor

    path, _ = small_river_db
    job = CardJob(dbs=(str(path),), out=str(tmp_path), max_test=2, test_fraction=0.25)
    k = TURN_FEATURES.index("own_value")
    fresh = _Data(job, SerialExecutor()).rows
    assert np.isfinite(fresh.X[:, k]).any()
    (cache,) = tmp_path.glob("rows_*.npz")
    with np.load(cache) as z:
        old = {f: z[f] for f in z.files}
    old["X"] = np.delete(old["X"], k, axis=1)
    np.savez(cache, **old)
    stale = _Data(job, SerialExecutor()).rows
    assert np.all(np.isnan(stale.X[:, k]))
    np.testing.assert_array_equal(np.delete(stale.X, k, axis=1), np.delete(fresh.X, k, axis=1))
    reads = _Data(replace(job, features=DEFAULT_CARD_FEATURES + ("value_bluff_ratio",)), SerialExecutor()).rows
    np.testing.assert_array_equal(reads.X, fresh.X)
    with np.load(cache) as z:
        assert z["X"].shape[1] == len(TURN_FEATURES)          # written again with today's columns

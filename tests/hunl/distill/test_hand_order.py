"""Rules played by hand order (hunl.distill.hand_order): each action keeps its share of the rule's hands, the
stronger hands take the more aggressive actions, level hands play alike, and every path that plays a card (the
policy, the leaf workers, the threshold search) plays the same strategy."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.cards import CARD_KEY, CardPolicy, action_text
from hunl.distill.cost import evaluate_policy
from hunl.distill.hand_order import (
    AGGRESSION,
    HAND_ORDER_NOTE,
    POLAR_BLUFF_SHARE,
    POLAR_NOTE,
    hand_positions,
    order_codes,
    ranked_class_probs,
    strength_order,
)
from hunl.distill.optimal_leaves import LeafWorkers
from hunl.distill.plain_search import orders_by_exploitability, plain_by_exploitability
from hunl.distill.policy import play
from hunl.distill.threshold_search import SplitWorkers, with_orders
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import CardRule, CardSection, RuleCard

ROOT = Path(__file__).resolve().parents[3]
SIZES = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)
_POS = {c: k for k, c in enumerate(AGGRESSION)}   # place of each class in the order actions are given out


def _card(name: str) -> RuleCard:
    return RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f"{name}.json").read_text()))


def _slow_positions(rule, node, strength, weight):
    """hand_positions the long way: for each row, sum the weights of its group's stronger and level hands."""
    lo, hi = np.zeros(rule.size), np.zeros(rule.size)
    for i in range(rule.size):
        g = (rule == rule[i]) & (node == node[i])
        w = weight[g] if weight[g].sum() > 0 else np.ones(int(g.sum()))
        s = strength[g]
        tot = w.sum()
        lo[i] = w[s > strength[i] + 1e-9].sum() / tot
        hi[i] = w[s >= strength[i] - 1e-9].sum() / tot
    return lo, hi


rows = st.integers(1, 40).flatmap(lambda m: st.tuples(
    st.lists(st.integers(0, 2), min_size=m, max_size=m),                        # rule
    st.lists(st.integers(0, 2), min_size=m, max_size=m),                        # node
    st.lists(st.sampled_from([0.1, 0.25, 0.5, 0.6, 0.9]), min_size=m, max_size=m),   # strength (ties likely)
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=m, max_size=m)))   # weight


@settings(max_examples=150, deadline=None)
@given(rows)
def test_positions_match_the_long_way(data):
    rule, node, strength, weight = (np.asarray(x) for x in data)
    lo, hi = hand_positions(rule, node, strength.astype(float), weight.astype(float))
    want_lo, want_hi = _slow_positions(rule, node, strength, weight)
    np.testing.assert_allclose(lo, want_lo, atol=1e-12)
    np.testing.assert_allclose(hi, want_hi, atol=1e-12)


mixes = st.lists(st.integers(0, 10), min_size=4, max_size=4).filter(lambda c: sum(c) > 0).map(
    lambda c: np.asarray(c, dtype=float) / sum(c))


@settings(max_examples=150, deadline=None)
@given(rows, st.lists(mixes, min_size=3, max_size=3), st.lists(st.sampled_from([0, 1, -1, 2]), min_size=3, max_size=3))
def test_each_action_keeps_its_share_and_goes_to_the_right_hands(data, table, codes):
    rule, node, strength, weight = (np.asarray(x) for x in data)
    strength, weight = strength.astype(float), weight.astype(float)
    table, codes = np.asarray(table), np.asarray(codes)
    lo, hi = hand_positions(rule, node, strength, weight)
    p = ranked_class_probs(table, codes, rule, lo, hi)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    for r in range(3):
        for n in range(3):
            g = (rule == r) & (node == n)
            if not g.any():
                continue
            w = weight[g] if weight[g].sum() > 0 else np.ones(int(g.sum()))
            # the weighted share of the rule's hands that play each class is the mix
            np.testing.assert_allclose((p[g] * w[:, None]).sum(axis=0) / w.sum(), table[r], atol=1e-9)
            if codes[r] == 0:
                np.testing.assert_allclose(p[g], np.broadcast_to(table[r], p[g].shape))
                continue
            pg = p[g]
            if codes[r] == 2:                      # polar: the value part of every bet is played by the hands on top
                _check_polar(strength[g], w, pg, table[r])
            s = strength[g] * codes[r]             # larger: earlier in the order
            for a in range(pg.shape[0]):
                for b in range(pg.shape[0]):
                    if codes[r] != 2 and s[a] > s[b] + 1e-9 and w[a] > 0 and w[b] > 0:
                        # an earlier hand's most passive action is no later than a later hand's most aggressive
                        last_a = max(_POS[c] for c in range(4) if pg[a, c] > 1e-9)
                        first_b = min(_POS[c] for c in range(4) if pg[b, c] > 1e-9)
                        assert last_a <= first_b
                    if abs(s[a] - s[b]) <= 1e-9:   # level hands play alike
                        np.testing.assert_allclose(pg[a], pg[b], atol=1e-12)


def _check_polar(strength, w, p, mix):
    """The hands of a polar rule's top ``1 - POLAR_BLUFF_SHARE`` of its bets play only bets, the strongest the most
    aggressive, and the passive class sits between the value bets and the bluffs (each run of level hands is
    checked as a block: it plays one mix)."""
    levels = np.unique(strength)[::-1]
    mass = np.array([w[strength == v].sum() for v in levels]) / w.sum()
    top = np.concatenate(([0.0], np.cumsum(mass)))[:-1]                 # share of the rule's hands above each level
    value = (1 - POLAR_BLUFF_SHARE) * mix[1:].sum()
    for v, lo, m in zip(levels, top, mass):
        if m <= 0:
            continue
        row = p[strength == v][0]
        if lo + m <= value - 1e-9:                                       # wholly inside the value bets
            assert row[0] <= 1e-9
        if lo >= value + mix[0] + 1e-9:                                  # wholly inside the bluffs
            assert row[0] <= 1e-9
        if lo >= value - 1e-12 and lo + m <= value + mix[0] + 1e-9:      # wholly inside the checks
            np.testing.assert_allclose(row, [1, 0, 0, 0], atol=1e-9)


def test_the_polar_order_bets_the_top_and_the_bottom_and_checks_between():
    n = 12
    lo, hi = hand_positions(np.zeros(n, int), np.zeros(n, int), np.linspace(1, 0, n), np.ones(n))
    p = ranked_class_probs([[0.5, 0.25, 0.25, 0.0]], [2], np.zeros(n, int), lo, hi)
    # bet big 1/4: 1/6 of the hands from the top, 1/12 from the bottom; bet small 1/4: the next 1/6 and 1/12
    want = np.zeros((n, 4))
    want[[0, 1], 2] = 1
    want[[2, 3], 1] = 1
    want[4:10, 0] = 1
    want[10, 1] = 1
    want[11, 2] = 1
    np.testing.assert_allclose(p, want, atol=1e-12)
    assert POLAR_BLUFF_SHARE == pytest.approx(1 / 3)


def test_a_rule_of_weightless_hands_ranks_them_equally_and_a_weightless_hand_plays_pure():
    lo, hi = hand_positions([0, 0, 0], [5, 5, 5], [0.9, 0.5, 0.1], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(lo, [0, 1 / 3, 2 / 3])
    np.testing.assert_allclose(hi, [1 / 3, 2 / 3, 1])
    lo, hi = hand_positions([0, 0], [1, 1], [0.9, 0.1], [1.0, 0.0])   # the second has no weight: at 1
    p = ranked_class_probs([[0.5, 0.5, 0, 0]], [1], [0, 0], lo, hi)
    np.testing.assert_allclose(p, [[0.5, 0.5, 0, 0], [1, 0, 0, 0]])
    # polar: the bottom is a bluff, and a hand of no weight there plays the bottom's class, never an absent one
    p = ranked_class_probs([[0.4, 0.0, 0.6, 0]], [2], [0, 0], lo, hi)
    np.testing.assert_allclose(p, [[0.4, 0, 0.6, 0], [0, 0, 1, 0]])
    p = ranked_class_probs([[1.0, 0, 0, 0]], [2], [0, 0], lo, hi)
    np.testing.assert_allclose(p, [[1, 0, 0, 0], [1, 0, 0, 0]])


def test_strength_order_sorts_by_node_then_strongest_first_and_nan_last():
    order = strength_order([1, 0, 0, 1], [0.2, np.nan, 0.7, 0.9])
    assert order.tolist() == [2, 1, 3, 0]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="orders\\[1\\]"):
        order_codes(["best", "bluff"])
    with pytest.raises(ValueError, match="weight"):
        hand_positions([0, 0], [0, 0], [0.5, 0.4], [1.0, -1.0])
    with pytest.raises(ValueError, match="one entry per row"):
        hand_positions([0, 0], [0], [0.5, 0.4], [1.0, 1.0])
    with pytest.raises(ValueError, match="order must be one of"):
        CardRule((), "check", (1.0, 0.0, 0.0, 0.0), order="top")
    with pytest.raises(ValueError, match="order must be one of"):
        action_text([0.5, 0.5, 0, 0], True, "top")


def test_the_words_say_which_hands_play_what():
    assert action_text([0.6, 0.4, 0, 0], True, "best") == "call with the best 2 in 5 of these hands, fold the rest"
    assert action_text([0.1, 0.2, 0.4, 0.3], False, "worst") == (
        "all-in with the weakest 3 in 10 of these hands, bet big with the next 4 in 10, bet small with the next 2 "
        "in 10, check the rest")
    assert action_text([0, 1, 0, 0], True, "best") == "call"           # a pure action is the same in any order
    assert action_text([0.6, 0.4, 0, 0], True) == "fold 3 in 5, call 2 in 5"
    assert action_text([0.7, 0, 0.3, 0], False, "polar") == (
        "bet big with 3 in 10 of these hands (2 of the best for each of the weakest), check the rest")
    assert action_text([0, 0.5, 0.5, 0], False, "polar") == (
        "bet big with 1 in 2, bet small with 1 in 2 of these hands (2 of the best for each of the weakest)")


def _ranked(card: RuleCard, codes) -> RuleCard:
    return with_orders(card, codes)


def test_cards_keep_their_orders_through_json_and_the_exact_simplifications():
    card = _card("river-value-all")
    codes = np.zeros(card.n_rules, dtype=int)
    codes[[2, 5, 6]] = [-1, 1, 1]
    ranked = _ranked(card, codes)
    back = RuleCard.from_dict(json.loads(json.dumps(ranked.to_dict())))
    assert back == ranked and [r.order for r in back.rules()].count("random") == card.n_rules - 3
    assert HAND_ORDER_NOTE in ranked.notes and HAND_ORDER_NOTE not in _ranked(ranked, 0 * codes).notes
    assert POLAR_NOTE not in ranked.notes
    codes[12] = 2
    polar = _ranked(ranked, codes)
    assert POLAR_NOTE in polar.notes and polar.notes.count(HAND_ORDER_NOTE) == 1
    assert RuleCard.from_dict(json.loads(json.dumps(polar.to_dict()))).rules()[12].order == "polar"
    assert POLAR_NOTE not in _ranked(polar, 0 * codes).notes
    with pytest.raises(ValueError, match="0, 1, -1 or 2"):
        _ranked(card, codes + 5)
    assert all("order" not in r for s in card.to_dict()["sections"] for r in s["rules"])   # written as before
    # two rules of one mix and adjacent boxes merge at random, never by hand order (they rank their own hands)
    rules = (CardRule((_cond("equity", "<=", 0.5),), "fold", (1.0, 0, 0, 0), 0.5),
             CardRule((_cond("equity", ">", 0.5),), "fold", (1.0, 0, 0, 0), 0.5))
    sec = CardSection("River, either position, facing a bet", rules)
    plain = dataclasses.replace(card, sections=(sec,))
    assert plain.merge_equal_rules().n_rules == 1
    mixed = tuple(dataclasses.replace(r, strategy=(0.5, 0.5, 0, 0), order="best") for r in rules)
    assert dataclasses.replace(card, sections=(CardSection(sec.title, mixed),)).merge_equal_rules().n_rules == 2


def _cond(f, op, t):
    from rulelearn.rules.cards import CardCondition

    return CardCondition(f, op, t)


def test_a_ranked_card_needs_the_nodes_and_weights_of_its_rows():
    card = _ranked(_card("river-value-all"), [1] + [0] * 18)
    pol = CardPolicy(card)
    assert pol.reads_hand_order and not CardPolicy(_card("river-value-all")).reads_hand_order
    X = np.zeros((3, 14))
    with pytest.raises(ValueError, match="nodes and weights"):
        pol.class_probs(5, False, X)


@pytest.fixture(scope="module")
def games():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("AhKd7c7s3h", "88+,AQo+,KQs,JTs,65s", "22+,A2s+,KTo+,QTs+", 600, 6000))
    return [HoldemEndgame(b, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
            for b, r1, r2, pot, stack in specs]


def _exact(card, games):
    return float(np.mean([evaluate_policy(g, play(g, CardPolicy(card))).exploitability_pct_pot for g in games]))


def test_every_path_plays_a_ranked_card_alike(games):
    card = _card("river-value-all")                        # own ranges: the ranks read the card's own play
    codes = np.zeros(card.n_rules, dtype=int)
    codes[[2, 5, 6, 10, 13]] = [-1, 1, 1, 1, -1]
    ranked = _ranked(card, codes)
    exact = _exact(ranked, games)
    assert exact != pytest.approx(_exact(card, games), abs=1e-6)     # the orders change the play
    pol = CardPolicy(ranked)
    with LeafWorkers(pol, games, 1) as pool:
        assert pool.exploitability({CARD_KEY: pol.table}) == pytest.approx(exact, rel=1e-9)
        # the same leaves with every rule at random
        assert pool.exploitability({CARD_KEY: pol.table}, {CARD_KEY: 0 * codes}) == pytest.approx(
            _exact(card, games), abs=0.05)
    with SplitWorkers(ranked, games, workers=1) as pool:
        assert pool.exploitabilities([ranked])[0] == pytest.approx(exact, rel=1e-9)
    codes[[1, 12, 17]] = 2                                  # betting rules in the polar order too
    polar = _ranked(card, codes)
    exact_polar = _exact(polar, games)
    assert exact_polar != pytest.approx(exact, abs=1e-6)
    pol = CardPolicy(polar)
    with LeafWorkers(pol, games, 1) as pool:
        assert pool.exploitability({CARD_KEY: pol.table}) == pytest.approx(exact_polar, rel=1e-9)
    with SplitWorkers(polar, games, workers=1) as pool:
        assert pool.exploitabilities([polar])[0] == pytest.approx(exact_polar, rel=1e-9)


def test_the_order_search_never_ends_worse_and_keeps_the_mixes_plain(games):
    card = _card("river-value-all")
    pol = CardPolicy(card)
    table = pol.table
    used = np.ones(table.shape, dtype=bool)
    with LeafWorkers(pol, games, 1) as pool:
        plain, plog = plain_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1,
                                              order=np.arange(6))
        got, codes, log = orders_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1,
                                                   order=np.arange(6))
        assert log[-1] <= log[0] and log[0] == pytest.approx(plog[0])
        assert log[-1] <= plog[-1] + 1e-9                 # every try of the plain search is a try of this one
        assert pool.exploitability({CARD_KEY: got}, {CARD_KEY: codes}) == pytest.approx(log[-1], rel=1e-9)
    assert set(np.unique(codes)) <= {-1, 0, 1} and np.all(codes[(got > 0).sum(axis=1) <= 1] == 0)
    assert np.max(np.abs(got - table)) <= 0.1 + 1e-9


def test_the_order_search_tries_the_polar_order_only_where_asked(games):
    card = _card("river-value-all")
    pol = CardPolicy(card)
    table = pol.table
    used = np.ones(table.shape, dtype=bool)
    allowed = np.zeros(card.n_rules, dtype=bool)
    allowed[11:15] = True                                  # the rules of the out-of-position betting section
    with LeafWorkers(pol, games, 1) as pool:
        # one rule: every try without polar is a try with it (over several rules the descent may part ways)
        _, _, log = orders_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1, order=[12])
        _, _, plog = orders_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1, order=[12],
                                              polar=allowed)
        assert plog[-1] <= log[-1] + 1e-9
        got, codes, plog = orders_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1,
                                                    order=np.arange(11, 15), polar=allowed)
        assert plog[-1] <= plog[0]
        assert pool.exploitability({CARD_KEY: got}, {CARD_KEY: codes}) == pytest.approx(plog[-1], rel=1e-9)
    assert set(np.unique(codes[~allowed])) <= {-1, 0, 1}
    with pytest.raises(ValueError, match="polar must have one entry per row"):
        with LeafWorkers(pol, games, 1) as pool:
            orders_by_exploitability(pool, {CARD_KEY: table}, CARD_KEY, table, used, 0.1, polar=[True])


def test_cfr_br_refuses_leaves_played_by_hand_order(games):
    from hunl.distill.optimal_leaves import optimise_leaves

    ranked = _ranked(_card("river-value-all"), [1] + [0] * 18)
    with pytest.raises(ValueError, match="hand order"):
        optimise_leaves(CardPolicy(ranked), games[:1], iterations=2)


def test_a_pool_of_a_card_at_random_measures_its_rules_in_hand_order_exactly(games):
    # starting ranges: the places of the hands do not depend on the play, so trying orders in a pool built on the
    # card at random is exact (the orders search starts from such a pool)
    card = _card("river")
    codes = np.zeros(card.n_rules, dtype=int)
    codes[[1, 4, 7, 9]] = [1, -1, 1, 1]
    pol = CardPolicy(card)
    with LeafWorkers(pol, games, 1) as pool:
        got = pool.exploitability({CARD_KEY: pol.table}, {CARD_KEY: codes})
    assert got == pytest.approx(_exact(_ranked(card, codes), games), rel=1e-9)
    assert got != pytest.approx(_exact(card, games), abs=1e-6)      # mixed rules: the orders change the play


def test_a_turn_card_moved_beside_a_river_card_in_hand_order_is_measured_exactly():
    from hunl.distill.cards import StreetCards
    from hunl.distill.threshold_search import card_splits, move_split, split_moves

    game = HoldemEndgame("Ks7d2c9h", ["TT+,AKs,AQo,KQs,98s", "99+,AQs+,KJs+,QJs,T9s"], pot=600, stack=1800,
                         bet_sizes=BetSizes(bets=(0.5,), raises=(), all_in=True), raise_cap=1)
    turn, river = _card("turn"), _card("river")             # starting ranges: every move's figure is exact
    codes = np.zeros(turn.n_rules, dtype=int)
    codes[[0, 3, 5]] = [1, 1, -1]
    turn = _ranked(turn, codes)                              # the moving card in hand order too
    river = _ranked(river, [(-1) ** k for k in range(river.n_rules)])
    tries = [turn] + [move_split(turn, sp, v) for sp in card_splits(turn)[:3] for v in split_moves(turn, sp)]
    with SplitWorkers(turn, [game], fixed={5: river}) as pool:
        got = pool.exploitabilities(tries)
    for c, v in zip(tries, got):
        exact = evaluate_policy(game, play(game, StreetCards({4: c, 5: river}))).exploitability_pct_pot
        assert v == pytest.approx(exact, rel=1e-9)
    assert np.ptp(got) > 0.01


def test_a_threshold_job_offers_the_polar_order_to_the_betting_rules_only(tmp_path, small_river_db):
    from hunl.distill.threshold_search import ThresholdJob, _facing, run_threshold_search

    path, _ = small_river_db
    out = tmp_path / "polar.json"
    kw = dict(card=str(ROOT / "docs" / "cards" / "river-value-all.json"), db=str(path), train=4, sweeps=0,
              mixes=0.1, workers=1, out=str(out), max_test=0)
    with pytest.raises(ValueError, match="polar needs orders"):
        run_threshold_search(ThresholdJob(**kw, polar=True))
    res = run_threshold_search(ThresholdJob(**kw, orders=True, polar=True))
    card = RuleCard.from_dict(json.loads(out.read_text()))
    assert card.meta["threshold_search"]["polar"] is True
    assert res["mixes_log"][-1] <= res["mixes_log"][0]
    for sec in card.sections:
        for r in sec.rules:
            assert r.order != "polar" or _facing(sec) is False      # never offered facing a bet
    assert (POLAR_NOTE in card.notes) == any(r.order == "polar" for r in card.rules())

"""Rule cards whose quantities read the player's own range at the decision (``ranges="own"``): the features, the
play, the CFR-BR leaves and the card's JSON, checked against brute force and against the starting-range mode."""

from __future__ import annotations

import json

import numpy as np
import pytest

from games.core.tree import DECISION
from hunl.distill.cards import CardConfig, CardPolicy, StreetCards, card_ranges, fit_card, grow_card_tree
from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import (
    RIVER_FEATURES,
    DecisionContext,
    decision_rows,
    features_in,
    reach_probabilities,
)
from hunl.distill.optimal_leaves import endgame_leaves
from hunl.distill.policy import concat_rows, play, play_all
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import RuleCard
from tests.hunl.distill.brute_force import range_percentile

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)
OWN = ("percentile", "defend_margin", "own_strong")     # read the player's own range only
OPP = ("equity", "equity_uniform", "opp_strong", "equity_margin")       # read the opponent's range


@pytest.fixture(scope="module")
def games():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000))
    out = []
    for board, r1, r2, pot, stack in specs:
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
        out.append((g, solve_endgame(g, "dcfr", iterations=150).result.policy.probs))
    return out


def test_own_features_read_the_own_range_at_the_node_and_the_opponents_at_the_start(games):
    g, sol = games[0]
    ctx = DecisionContext(g)
    reach = reach_probabilities(g, sol)
    which = np.arange(ctx.nodes.size)
    own = features_in(g, ctx, which, reach, "own")
    node = features_in(g, ctx, which, reach, "node")
    start = features_in(g, ctx, which, reach, "start")
    col = {f: RIVER_FEATURES.index(f) for f in OWN + OPP}
    differs = 0
    for k in range(which.size):
        for f in OWN:
            np.testing.assert_array_equal(own[k][:, col[f]], node[k][:, col[f]])
        for f in OPP:
            np.testing.assert_array_equal(own[k][:, col[f]], start[k][:, col[f]])
        differs += not np.array_equal(own[k][:, col["percentile"]], start[k][:, col["percentile"]], equal_nan=True)
        # the range advantage: the own range at the node against the opponent's starting range
        p, n = int(ctx.player[k]), int(ctx.nodes[k])
        hp = g.num_hands[p]
        w = g.prior[p][:hp] * reach[p, n, :hp]
        eq = start[k][:, col["equity"]]
        ok = ~np.isnan(eq)
        if w[ok].sum() > 0:
            want = (eq[ok] * w[ok]).sum() / w[ok].sum()
            np.testing.assert_allclose(own[k][ok, RIVER_FEATURES.index("range_equity")], want, atol=1e-12)
    assert differs > 0
    # a street -> mode callable gives each node its street's mode
    mixed = features_in(g, ctx, which, reach, lambda street: "own")
    for a, b in zip(mixed, own):
        np.testing.assert_array_equal(a, b)


@pytest.fixture(scope="module")
def own_card(games):
    rows = concat_rows(decision_rows(g, p, ranges="own") for g, p in games)
    config = CardConfig(max_leaves=10, n_samples=20_000, min_leaf_share=0.01)
    tree, Z, Y = grow_card_tree(rows, config)
    card, policy, log = fit_card(tree, 8, Z, Y, [g for g, _ in games], config, iterations=20, ranges="own")
    return card, policy, log


def test_an_own_range_card_plays_on_its_own_range(games, own_card):
    """At a decision facing a bet after the player's own check, the card reads the hand's share of the hands the
    card itself checks (a brute-force walk of the path and pairwise showdowns), and plays the rule of it."""
    card, policy, _ = own_card
    assert card.meta["ranges"] == "own" and card_ranges(card) == "own" and policy.ranges == "own"
    g, _ = games[0]
    probs = play(g, policy).probs
    t = g.tree
    ctx = DecisionContext(g)
    checked = 0
    for k, n in enumerate(ctx.nodes):
        p = int(ctx.player[k])
        path, m = [], int(n)
        while m != 0:
            path.append(m)
            m = int(t.parent[m])
        own_moves = [m for m in path if t.kind[t.parent[m]] == DECISION and t.player[t.parent[m]] == p]
        if not ctx.facing[k] or not own_moves:
            continue
        hp = g.num_hands[p]
        w = np.array(g.prior[p][:hp], dtype=np.float64)
        for m in own_moves:
            w *= probs[m, :hp]
        want = range_percentile(g, p, w)
        X = features_in(g, ctx, np.array([k]), reach_probabilities(g, probs), "own")[0]
        ok = ~np.isnan(X[:, 0])
        np.testing.assert_allclose(X[ok, RIVER_FEATURES.index("percentile")], want[ok], atol=1e-12)
        # and the card plays the rules of those features
        kids = t.children(int(n))
        from hunl.distill.actions import classes_to_actions

        cp = policy.class_probs(5, True, X[ok])
        np.testing.assert_allclose(probs[kids.start:kids.stop, :hp][:, ok],
                                   classes_to_actions(cp, ctx.edge_class[kids.start:kids.stop].astype(np.int64)).T,
                                   atol=1e-12)
        checked += 1
    assert checked >= 2


def test_own_range_card_round_trips_and_its_leaves_match_its_play(games, own_card):
    card, policy, log = own_card
    again = RuleCard.from_dict(json.loads(json.dumps(card.to_dict())))
    assert card_ranges(again) == "own"
    g, sol = games[1]
    a, b = play(g, policy), play(g, CardPolicy(again))
    np.testing.assert_array_equal(a.probs, b.probs)
    # the leaves CFR-BR optimises are those the card plays (its own ranges under its own strategies)
    for nl in endgame_leaves(policy, g):
        s = policy.table[nl.leaves] @ nl.route
        np.testing.assert_allclose(a.probs[nl.kids.start:nl.kids.stop, :nl.leaves.size], s.T, atol=1e-12)
    # the same rules read against the starting ranges are another policy
    meta = {k: v for k, v in card.meta.items() if k != "ranges"}
    start = RuleCard(card.title, card.sections, card.quantities, card.cost, card.notes, meta)
    assert CardPolicy(start).ranges == "start"
    assert not np.array_equal(play(g, CardPolicy(start)).probs, a.probs)
    assert np.isfinite(evaluate_policy(g, a).exploitability_pct_pot)
    assert log["exact_train_pct_pot"][-1] < log["exact_train_pct_pot"][0]


def test_own_range_play_does_not_depend_on_the_feature_chunk(games, own_card):
    """Own-range play reads a depth's nodes a chunk at a time (memory) and batches the card's rules over them
    (speed): the policy is the same whatever the chunk, down to one node a chunk."""
    _, policy, _ = own_card
    for g, _ in games:
        want = play(g, policy).probs
        for chunk in (1, 3):
            np.testing.assert_array_equal(play_all(g, {"card": policy}, chunk=chunk)["card"].probs, want)


def test_cards_of_both_modes_play_together(games, own_card):
    """A starting-range card on the turn and an own-range card on the river: each street reads its card's ranges."""
    card, policy, _ = own_card
    g, _ = games[0]
    both = StreetCards({4: card, 5: card})
    assert both.ranges == "own" and both.ranges_of(5) == "own"
    np.testing.assert_array_equal(play(g, both).probs, play(g, policy).probs)
    meta = {k: v for k, v in card.meta.items() if k != "ranges"}
    start = RuleCard(card.title, card.sections, card.quantities, card.cost, card.notes, meta)
    mixed = StreetCards({4: start, 5: card})
    assert mixed.ranges == "own" and mixed.ranges_of(4) == "start" and mixed.ranges_of(5) == "own"
    # river endgame: every decision is the river card's
    np.testing.assert_array_equal(play(g, mixed).probs, play(g, policy).probs)
    assert StreetCards({4: card, 5: start}).ranges_of(5) == "start"


@pytest.mark.parametrize("own_street", [4, 5])
def test_mixed_modes_on_a_turn_endgame_are_a_fixed_point_of_their_own_play(own_street):
    """Turn and river cards of different modes in a turn endgame (the starting-range street is played first, the
    own-range street depth by depth): every starting-range decision plays as the card does alone, and every
    own-range decision plays the rules of the features read on the final policy's own reach."""
    turn, river = (RuleCard.from_dict(json.load(open(f"docs/cards/{n}.json")))
                   for n in (("turn-own", "river") if own_street == 4 else ("turn", "river-own")))
    g = HoldemEndgame("Ks7d2c9h", ["TT+,AJs+,KQs,98s", "88+,ATs+,KJs+,T9s"], pot=600, stack=1800,
                      bet_sizes=BetSizes(bets=(0.5,), raises=(), all_in=True), raise_cap=1)
    cards = StreetCards({4: turn, 5: river})
    probs = play(g, cards).probs
    ctx = DecisionContext(g)
    t = g.tree
    reach = reach_probabilities(g, probs)
    start_alone = play(g, CardPolicy(river if own_street == 4 else turn)).probs
    from hunl.distill.actions import classes_to_actions

    checked = {4: 0, 5: 0}
    for k, n in enumerate(ctx.nodes):
        street = int(ctx.street[k])
        kids = t.children(int(n))
        hp = g.num_hands[int(ctx.player[k])]
        if street != own_street:
            np.testing.assert_array_equal(probs[kids.start:kids.stop, :hp], start_alone[kids.start:kids.stop, :hp])
        else:
            X = features_in(g, ctx, np.array([k]), reach, "own")[0]
            ok = ~np.isnan(X[:, 0])
            cp = cards.class_probs(street, bool(ctx.facing[k]), X[ok])
            want = classes_to_actions(cp, ctx.edge_class[kids.start:kids.stop].astype(np.int64)).T
            np.testing.assert_allclose(probs[kids.start:kids.stop, :hp][:, ok], want, atol=1e-12)
        checked[street] += 1
    assert checked[4] > 0 and checked[5] > 100


def test_bad_range_modes_are_refused(own_card, games):
    card, *_ = own_card
    bad = RuleCard(card.title, card.sections, card.quantities, card.cost, card.notes, {**card.meta, "ranges": "node"})
    with pytest.raises(ValueError, match="ranges"):
        CardPolicy(bad)
    g, sol = games[0]
    with pytest.raises(ValueError, match="ranges"):
        decision_rows(g, sol, ranges="mine")


def test_run_cards_learns_and_measures_an_own_range_card(tmp_path):
    from hunl.distill.card_experiment import CardJob, run_cards, split_endgames
    from hunl.distill.family import HoldemRiverFamily
    from rulelearn.data.database import SolutionDatabase

    family = HoldemRiverFamily(max_combos=40, iterations=100, target_pct_pot=1.0)
    db = SolutionDatabase(tmp_path / "db")
    db.generate(family, 12, seed=0, workers=1, progress=False, family_params=family.params())
    doc = tmp_path / "HUNL.md"
    job = CardJob(dbs=(str(tmp_path / "db"),), max_test=3, sizes=(3,), card_rules=3, leaf_endgames=3,
                  leaf_iterations=4, samples=5_000, min_leaf_share=0.01, depths=(1,), workers=1, ranges="own",
                  out=str(tmp_path / "out"), doc=str(doc), figures=str(tmp_path / "fig"),
                  cards=str(tmp_path / "cards"), name="own")
    assert run_cards(job) == 0
    card = RuleCard.from_dict(json.loads((tmp_path / "cards" / "own.json").read_text()))
    assert card_ranges(card) == "own" and "hands you would have played" in card.notes[0]
    assert json.loads((tmp_path / "out" / "key.json").read_text())["ranges"] == "own"
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert front["trees"] == []                    # the comparison trees read the starting ranges: left out
    # the printed cost is the card played with its own ranges in the held-out endgames
    cols = db.load(None)
    _, test = split_endgames(len(cols["game_id"]), 0, 0.2, 3)
    x = []
    for i in test:
        g = family.game(cols, int(i))
        x.append(evaluate_policy(g, play(g, CardPolicy(card))).exploitability_pct_pot)
    assert card.cost.mean == pytest.approx(np.mean(x), abs=1e-9)
    with pytest.raises(ValueError, match="ranges"):
        run_cards(__import__("dataclasses").replace(job, ranges="node", out=str(tmp_path / "out2")))


def test_own_value_is_the_share_of_the_own_range_beating_the_value_line(games):
    """``own_value``: the own range at the node (Bayes' rule on the solution) weighted by the hands whose
    equity against the opponent's starting range is above ``VALUE_EQUITY`` -- counted hand by hand against the
    ``equity`` column, in the own mode and the start mode."""
    from hunl.distill.decisions import VALUE_EQUITY

    g, sol = games[1]
    ctx = DecisionContext(g)
    reach = reach_probabilities(g, sol)
    which = np.arange(ctx.nodes.size)
    own = features_in(g, ctx, which, reach, "own")
    start = features_in(g, ctx, which, reach, "start")
    col, eqc = RIVER_FEATURES.index("own_value"), RIVER_FEATURES.index("equity")
    seen = set()
    for k in range(which.size):
        p, n = int(ctx.player[k]), int(ctx.nodes[k])
        hp = g.num_hands[p]
        for feats, w in ((own[k], g.prior[p][:hp] * reach[p, n, :hp]), (start[k], g.prior[p][:hp].copy())):
            eq = feats[:, eqc]
            ok = ~np.isnan(eq)
            got = feats[ok, col]
            if w[ok].sum() == 0:
                assert np.all(np.isnan(got))
                continue
            want = sum(w[h] for h in np.flatnonzero(ok) if eq[h] > VALUE_EQUITY) / w[ok].sum()
            np.testing.assert_allclose(got, want, atol=1e-12)
            seen.add(round(float(want), 6))
    assert len(seen) > 3          # the share moves with the node's own range, not a constant

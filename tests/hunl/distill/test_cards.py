"""HUNL rule cards: round thresholds, phrases, CFR-BR leaves in plain mixes, and the printed cost re-measured."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from hunl.distill.cards import (
    DEFAULT_CARD_FEATURES,
    CardConfig,
    CardPolicy,
    fit_card,
    grow_card_by_regret,
    grow_card_tree,
)
from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import decision_rows
from hunl.distill.optimal_leaves import endgame_leaves
from hunl.distill.policy import concat_rows, play
from hunl.distill.quantities import CARD_FEATURES, QUANTITIES, SECTION_FEATURES, feature_grid
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from rulelearn.cli import CARD_FILES
from rulelearn.rules.cards import CardCost, RuleCard
from rulelearn.rules.plain import is_round

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@pytest.fixture(scope="module")
def setup():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000),
             ("AhKd7c7s3d", "A2s+,KQo,77+", "TT+,AJo+,65s", 1000, 1800))
    games, sols = [], []
    for board, r1, r2, pot, stack in specs:
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
        games.append(g)
        sols.append(solve_endgame(g, "dcfr", iterations=200).result.policy.probs)
    rows = concat_rows(decision_rows(g, p) for g, p in zip(games, sols))
    config = CardConfig(max_leaves=12, n_samples=20_000, min_leaf_share=0.01)
    tree, Z, Y = grow_card_tree(rows, config)
    card, policy, log = fit_card(tree, 10, Z, Y, games, config, iterations=30)
    return games, sols, tree, Z, Y, card, policy, log


def test_every_card_feature_has_a_phrase_and_a_round_grid():
    names = {q.name for q in QUANTITIES}
    for f in DEFAULT_CARD_FEATURES:
        assert f in names
        grid = feature_grid(f)
        kind = next(q.kind for q in QUANTITIES if q.name == f)
        assert grid is not None and all(is_round(t, kind) for t in grid)
    for q in QUANTITIES:
        assert "{t}" in q.above and "{t}" in q.at_most
    assert set(SECTION_FEATURES) <= set(CARD_FEATURES)


def test_card_is_round_short_and_plain(setup):
    *_, card, policy, log = setup
    assert card.n_rules == 10
    for s in card.sections:
        assert s.title.startswith("River")
        for r in s.rules:
            assert len(r.conditions) <= 3
            for c in r.conditions:
                kind = card.quantity(c.feature).kind
                assert is_round(c.threshold, kind)
            p = np.asarray(r.strategy)
            assert p.sum() == pytest.approx(1.0)
            # plain mixes: k in d with d <= 10
            assert any(np.allclose(p * d, np.round(p * d)) for d in (1, 2, 3, 4, 5, 6, 8, 10))
            assert r.action and " in " in r.action or r.action in ("check", "bet small", "bet big", "all-in", "fold",
                                                                  "call", "raise")
    assert log["exact_train_pct_pot"][-1] < log["exact_train_pct_pot"][0]


def test_rules_reproduce_the_tree_and_the_played_policy(setup):
    games, _, tree, Z, _, card, policy, _ = setup
    # the card's rules partition the decisions exactly as the tree's leaves
    leaf_nodes = np.asarray(card.meta["leaf_nodes"])
    from hunl.distill.quantities import design_matrix  # noqa: F401 - the design the policy reads
    idx = card.rule_index(Z, CARD_FEATURES)
    masks = tree.node_masks(np.nan_to_num(Z, nan=-1e300))[leaf_nodes]
    assert np.array_equal(masks.argmax(axis=0), idx)
    # play() uses the same rules as the leaf optimisation
    g = games[0]
    pol = play(g, policy)
    for nl in endgame_leaves(policy, g):
        s = policy.table[nl.leaves] @ nl.route
        assert np.allclose(pol.probs[nl.kids.start:nl.kids.stop, :nl.leaves.size], s.T, atol=1e-12)


def test_printed_cost_equals_a_re_measurement_from_json(setup):
    games, sols, *_, card, policy, _ = setup
    ex = [evaluate_policy(g, play(g, policy), p) for g, p in zip(games, sols)]
    x = np.array([e.exploitability_pct_pot for e in ex])
    priced = RuleCard(card.title, card.sections, card.quantities,
                      CardCost(float(x.mean()), float(x.std(ddof=1)), "% of the pot", len(x)), card.notes, card.meta)
    again = RuleCard.from_dict(json.loads(json.dumps(priced.to_dict())))
    replay = CardPolicy(again)
    y = np.array([evaluate_policy(g, play(g, replay), p).exploitability_pct_pot for g, p in zip(games, sols)])
    assert again.cost.mean == pytest.approx(y.mean(), abs=1e-9)
    assert f"{again.cost.mean:.2f}% of the pot" in again.to_text()


def test_no_rule_names_the_bet_faced_where_none_is_faced(setup):
    """The pot-odds and defence-line features are left out of the card's search where no bet is faced."""
    *_, tree, Z, Y, card, policy, log = setup
    for s in card.sections:
        if "not facing" in s.title:
            assert not any(c.feature in ("equity_margin", "defend_margin", "facing_bet")
                           for r in s.rules for c in r.conditions)
    facing = Z[:, -2] > 0.5
    for f in ("equity_margin", "defend_margin", "facing_bet"):
        j = CARD_FEATURES.index(f)
        assert np.isnan(Z[~facing, j]).all() and not np.isnan(Z[facing, j]).any()


def test_regret_growth_continues_the_card_tree(setup):
    """Growth by regret keeps the imitation tree's first splits, respects the card's limits, and its rules are
    fitted and played like any card's."""
    games, sols, tree, Z, Y, *_ = setup
    config = CardConfig(max_leaves=12, n_samples=20_000, min_leaf_share=0.01)
    start = 6
    grown, log = grow_card_by_regret(tree, start, 9, Z, Y, games, config, iterations=10, step=2)
    assert grown.max_leaves == 9 and [r["rules"] for r in log] == [6, 8]
    assert all(r["train_pct_pot"] > 0 for r in log)
    kept = [(int(tree.feature[s]), float(tree.threshold[s])) for s in tree.split_order[:start - 1]]
    assert [(int(grown.feature[s]), float(grown.threshold[s])) for s in grown.split_order[:start - 1]] == kept
    card, policy, _ = fit_card(grown, 9, Z, Y, games, config, iterations=10)
    assert card.n_rules == 9 and all(len(r.conditions) <= 3 for r in card.rules())
    e = evaluate_policy(games[0], play(games[0], policy)).exploitability_pct_pot
    assert 0 < e < 200
    with pytest.raises(ValueError, match="max_rules"):
        grow_card_by_regret(tree, start, start, Z, Y, games, config)
    with pytest.raises(ValueError, match="start_rules"):
        grow_card_by_regret(tree, tree.max_leaves + 1, tree.max_leaves + 2, Z, Y, games, config)


def test_a_river_card_plays_turn_decisions_with_its_river_rules(setup):
    *_, card, policy, _ = setup
    X = np.full((3, 23), 0.5)
    X[:, 7] = [0, 1, 0]
    assert np.allclose(policy.class_probs(4, False, X), policy.class_probs(5, False, X))


def test_card_figure_writes_a_page(setup, tmp_path):
    from hunl.distill.card_figure import card_figure

    *_, card, _, _ = setup
    path = tmp_path / "card.png"
    card_figure(card, path)
    assert path.stat().st_size > 10_000


def test_a_grid_cell_read_by_another_section_is_not_coloured_as_this_sections_rule():
    """rule_cells: a cell gets the section rule most of its combos read (weighted by the range), ``n_rules`` where
    most read a rule of another section (before the fix these showed as the section's first rule), NaN outside the
    range."""
    from hunl.distill.card_figure import rule_cells
    from hunl.poker.cards import HAND_CLASS, NUM_RANKS

    cells = {c: np.flatnonzero(HAND_CLASS == c) for c in (0, 14, 30)}     # AA, KK and another cell
    combos = np.concatenate(list(cells.values()))
    idx = np.concatenate([np.full(cells[0].size, 7),                     # AA: rule 7, this section's second
                          np.full(cells[14].size, 2),                    # KK: rule 2, another section's
                          np.r_[6, np.full(cells[30].size - 1, 1)]])       # mixed, mostly another's
    prior = np.ones(combos.size)
    cell = rule_cells(idx, 6, 3, combos, prior)
    flat = cell.ravel()
    assert flat[0] == 1 and flat[14] == 3 and flat[30] == 3
    assert np.isnan(np.delete(flat, [0, 14, 30])).all() and cell.shape == (NUM_RANKS, NUM_RANKS)
    heavy = prior.copy()
    heavy[np.flatnonzero(idx == 6)] = 100.0                              # the range weighs that combo more
    assert rule_cells(idx, 6, 3, combos, heavy).ravel()[30] == 0


@pytest.mark.slow
def test_run_cards_end_to_end(tmp_path):
    from hunl.distill.card_experiment import CardJob, run_cards
    from hunl.distill.family import HoldemRiverFamily
    from rulelearn.data.database import SolutionDatabase

    family = HoldemRiverFamily(max_combos=60, iterations=150, target_pct_pot=0.5)
    db = SolutionDatabase(tmp_path / "db")
    db.generate(family, 15, seed=0, workers=1, progress=False, family_params=family.params())
    doc = tmp_path / "HUNL.md"
    doc.write_text("# HUNL\n")
    job = CardJob(dbs=(str(tmp_path / "db"),), max_test=3, sizes=(1, 3), card_rules=3, leaf_endgames=4,
                  leaf_iterations=5, samples=5_000, min_leaf_share=0.01, depths=(1,), workers=1,
                  out=str(tmp_path / "out"), doc=str(doc), figures=str(tmp_path / "fig"), cards=str(tmp_path / "cards"))
    assert run_cards(job) == 0
    card = RuleCard.from_dict(json.loads((tmp_path / "cards" / "river.json").read_text()))
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    row = next(r for r in front["frontier"] if r["n_rules"] == card.n_rules)
    assert card.cost.mean == pytest.approx(row["exploitability_pct_pot"])
    # one database: its own mean is the card's
    assert [d["n"] for d in row["by_db"]] == [card.cost.n_games]
    assert row["by_db"][0]["exploitability_pct_pot"] == pytest.approx(row["exploitability_pct_pot"])
    text = doc.read_text()
    assert "<!--block:card-river-->" in text and "held-out" in text
    assert (tmp_path / "fig" / "river_card.png").exists()
    # a second run resumes from the cached sizes and gives the same card
    assert run_cards(job) == 0
    again = RuleCard.from_dict(json.loads((tmp_path / "cards" / "river.json").read_text()))
    assert again == card
    # a cached card of older phrases is printed in the current words (phrases are not results)
    rec = json.loads((tmp_path / "out" / "size_3.json").read_text())
    for q in rec["card"]["quantities"]:
        q["above"] = q["at_most"] = "OLD {t}"
    (tmp_path / "out" / "size_3.json").write_text(json.dumps(rec))
    assert run_cards(job) == 0
    assert RuleCard.from_dict(json.loads((tmp_path / "cards" / "river.json").read_text())) == card
    assert "OLD" not in doc.read_text()
    # more sizes: the cached ones are kept (the trees are nested), only the new size is fitted
    stamp = (tmp_path / "out" / "size_3.json").stat().st_mtime_ns
    assert run_cards(replace(job, sizes=(1, 2, 3))) == 0
    assert (tmp_path / "out" / "size_3.json").stat().st_mtime_ns == stamp
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert [r["n_rules"] for r in front["frontier"]] == [1, 2, 3] and front["cached"]["sizes"] == 2
    # other comparison depths: the cards are kept, the comparison trees are fitted again
    assert run_cards(replace(job, sizes=(1, 2, 3), depths=())) == 0
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert front["cached"] == {"sizes": 3, "of": 3, "others": False} and front["trees"] == []
    assert (tmp_path / "out" / "size_3.json").stat().st_mtime_ns == stamp
    # other settings: no cached result of the old ones is reused (card sizes, trees and baselines)
    (tmp_path / "out" / "others.json").write_text(json.dumps({"stale": True}))
    assert run_cards(replace(job, max_test=2)) == 0
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert "stale" not in front and front["n_test"] == 2 and front["baselines"]
    # pruned from a larger card: the pruned tree is cached, its log recorded, and a second run reuses it
    grown = tmp_path / "grown_frontier.json"
    grown.write_text((tmp_path / "out" / "frontier.json").read_text())
    pruned = replace(job, max_test=2, prune_from=5, prune_endgames=3, prune_iterations=3, prune_every=2,
                     prune_reoptimise=2, compare=(("grown by imitation", str(grown)),))
    assert run_cards(pruned) == 0
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert front["cached"]["sizes"] == 0 and front["prune_from"] == 5
    # the other run's frontier is drawn beside this one (and kept with it)
    old = json.loads(grown.read_text())["frontier"]
    assert front["compare"] == {"grown by imitation": [[r["n_conditions"] for r in old],
                                                       [r["exploitability_pct_pot"] for r in old]]}
    with pytest.raises(FileNotFoundError, match="compare"):
        run_cards(replace(pruned, compare=(("missing", str(tmp_path / "nothing.json")),)))
    assert [r["rules"] for r in front["prune_log"]][-1] == 1 and (tmp_path / "out" / "pruned_tree.npz").exists()
    assert not (tmp_path / "out" / "pruning.json").exists()       # the checkpoint of the pruning, superseded
    assert run_cards(pruned) == 0
    assert json.loads((tmp_path / "out" / "frontier.json").read_text())["cached"]["sizes"] == 2
    stamp = (tmp_path / "out" / "pruned_tree.npz").stat().st_mtime_ns
    assert run_cards(replace(pruned, prune_endgames=2)) == 0          # other settings: pruned again
    assert (tmp_path / "out" / "pruned_tree.npz").stat().st_mtime_ns != stamp
    # plain mixes chosen by exploitability: the same pruned tree, the sizes fitted again, the search logged
    stamp = (tmp_path / "out" / "pruned_tree.npz").stat().st_mtime_ns
    searched = replace(pruned, prune_endgames=2, plain_search=0.2)
    assert run_cards(searched) == 0
    assert (tmp_path / "out" / "pruned_tree.npz").stat().st_mtime_ns == stamp
    front = json.loads((tmp_path / "out" / "frontier.json").read_text())
    assert front["cached"]["sizes"] == 0 and front["cached"]["others"]      # the baselines are kept
    rec = json.loads((tmp_path / "out" / "size_3.json").read_text())
    assert rec["plain_train_pct_pot"][-1] <= rec["plain_train_pct_pot"][0]
    with pytest.raises(ValueError, match="prune_from"):
        run_cards(replace(pruned, regret_from=2))
    with pytest.raises(ValueError, match="prune_from"):
        run_cards(replace(pruned, prune_from=1))


def test_a_pooled_card_prints_its_cost_in_each_database():
    from hunl.distill.card_experiment import _by_db_measure

    one = [{"db": "data/a", "n": 3, "exploitability_pct_pot": 10.0}]
    assert _by_db_measure("NashConv / 2", one) == "NashConv / 2"
    two = one + [{"db": "data/b", "n": 5, "exploitability_pct_pot": 19.321}]
    assert _by_db_measure("NashConv / 2", two) == ("NashConv / 2; by database: data/a 10.00% (3 endgames), "
                                                  "data/b 19.32% (5 endgames)")


# ---------------------------------------------------------------------------------------------- cards by street
def test_street_cards_play_each_street_with_its_card(setup):
    from hunl.distill.cards import StreetCards

    games, _, tree, Z, Y, card, policy, _ = setup
    config = CardConfig(max_leaves=12, n_samples=20_000, min_leaf_share=0.01)
    other, other_policy, _ = fit_card(tree, 4, Z, Y, games, config, iterations=5, title="HUNL turn rule card")
    both = StreetCards({5: card, 4: other})
    assert both.name == "turn card on the turn, river card on the river"
    X = np.full((4, 23), 0.5)
    X[:, 7] = [0, 1, 0, 1]
    for facing in (False, True):
        assert np.array_equal(both.class_probs(5, facing, X), policy.class_probs(5, facing, X))
        assert np.array_equal(both.class_probs(4, facing, X), other_policy.class_probs(4, facing, X))
    # the cards differ, so the street decides: a river endgame is played by the river card alone
    assert not np.array_equal(policy.class_probs(5, False, X), other_policy.class_probs(5, False, X))
    np.testing.assert_array_equal(play(games[0], both).probs, play(games[0], policy).probs)
    # a street without a card: the nearest one's (the later on a tie)
    assert StreetCards({5: card}).policy_for(3).card is card
    assert StreetCards({3: other, 5: card}).policy_for(4).card is card


@pytest.mark.parametrize("cards, match", [({}, "at least one"), ({6: None}, "street must be 3"),
                                          ({True: None}, "street must be 3"), ({4: "turn.json"}, "RuleCard")])
def test_street_cards_reject_bad_input(cards, match):
    from hunl.distill.cards import StreetCards

    with pytest.raises(ValueError, match=match):
        StreetCards(cards)


def test_load_cards_rejects_bad_streets(setup, tmp_path):
    from hunl.distill.street_cards import choosers_of, load_cards

    *_, card, _, _ = setup
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card.to_dict()))
    with pytest.raises(ValueError, match="flop, turn or river"):
        load_cards([("preflop", str(path))])
    with pytest.raises(ValueError, match="given twice"):
        load_cards([("river", str(path)), ("river", str(path))])
    cards = load_cards([("turn", str(path)), ("river", str(path))])
    assert cards[4] == card and cards[5] == card
    assert list(choosers_of(cards)) == ["turn card alone", "river card alone",
                                        "turn card on the turn, river card on the river"]


def test_run_street_cards_end_to_end(setup, tmp_path):
    # on river endgames the river card decides every decision: together equals the river card alone, exactly
    from hunl.distill.family import HoldemRiverFamily
    from hunl.distill.street_cards import StreetCardsJob, run_street_cards
    from rulelearn.data.database import SolutionDatabase

    games, _, tree, Z, Y, card, _, _ = setup
    config = CardConfig(max_leaves=12, n_samples=20_000, min_leaf_share=0.01)
    other, _, _ = fit_card(tree, 4, Z, Y, games, config, iterations=5, title="HUNL turn rule card")
    for name, c in (("turn", other), ("river", card)):
        (tmp_path / f"{name}.json").write_text(json.dumps(c.to_dict()))
    family = HoldemRiverFamily(max_combos=40, iterations=60, target_pct_pot=1.0)
    db = SolutionDatabase(tmp_path / "db")
    db.generate(family, 10, seed=0, workers=1, progress=False, family_params=family.params())
    doc = tmp_path / "HUNL.md"
    job = StreetCardsJob(cards=(("turn", str(tmp_path / "turn.json")), ("river", str(tmp_path / "river.json"))),
                         db=str(tmp_path / "db"), max_test=4, workers=1, doc=str(doc), name="t")
    res = run_street_cards(job)
    held = res["held_out"]
    assert res["n_test"] == 2 and list(held) == ["turn card alone", "river card alone",
                                                 "turn card on the turn, river card on the river"]
    together = held["turn card on the turn, river card on the river"]
    assert together["exploitability_pct_pot"] == held["river card alone"]["exploitability_pct_pot"]
    assert held["river card alone"]["better_share"] == 0.0
    assert "<!--block:card-t-->" in doc.read_text()

    # splits: on river endgames the river card on the river is the whole card, the turn card on the turn is
    # the stored DCFR solution alone (no turn decision)
    from hunl.distill.card_experiment import split_endgames

    split = run_street_cards(replace(job, splits=True, doc=None))["held_out"]
    assert list(split)[:3] == list(held)
    assert split["river card on the river, DCFR solution elsewhere"]["exploitability_pct_pot"] == pytest.approx(
        held["river card alone"]["exploitability_pct_pot"], abs=1e-9)
    cols = db.load(None)
    _, test = split_endgames(len(cols["game_id"]), 0, 0.2, 4)
    want = np.mean([evaluate_policy(family.game(cols, int(i)), family.policy_array(cols, int(i),
                    family.game(cols, int(i)))).exploitability_pct_pot for i in test])
    got = split["turn card on the turn, DCFR solution elsewhere"]["exploitability_pct_pot"]
    assert got == pytest.approx(want, abs=1e-9) and got < held["river card alone"]["exploitability_pct_pot"]

    # sections: no turn decision in river endgames, so the turn's lines are the DCFR solution alone; the river's
    # two decision types and the minimum-defence rule are measured beside them
    from hunl.distill.cards import StreetCards
    from hunl.distill.defence import minimum_defence

    sec = run_street_cards(replace(job, sections=True, doc=None))["held_out"]
    for name in ("turn card on the turn facing a bet only, DCFR solution elsewhere",
                 "turn card on the turn not facing a bet only, DCFR solution elsewhere",
                 "minimum defence (the range at the decision) facing a bet on the turn, DCFR solution elsewhere",
                 "minimum defence (the starting range) facing a bet on the turn, DCFR solution elsewhere"):
        assert sec[name]["exploitability_pct_pot"] == pytest.approx(want, abs=1e-9)
    assert sec["the cards, with minimum defence (the range at the decision) facing a bet on the turn"][
        "exploitability_pct_pot"] == pytest.approx(held["river card alone"]["exploitability_pct_pot"], abs=1e-9)
    river_names = [n for n in sec if "on the river" in n and "only" in n]
    assert len(river_names) == 2
    mdf = []
    for i in test:
        g = family.game(cols, int(i))
        played = play(g, StreetCards({4: other, 5: card})).probs
        mdf.append(evaluate_policy(g, minimum_defence(g, played)).exploitability_pct_pot)
    got = sec["the cards, with minimum defence (the range at the decision) facing a bet on the river"]
    assert got["exploitability_pct_pot"] == pytest.approx(np.mean(mdf), abs=1e-9)


@pytest.fixture(scope="module")
def turn_setup(setup):
    """Two small solved turn endgames, a turn-only card tree on their turn decisions and the river card of
    ``setup``."""
    *_, river_card, _, _ = setup
    specs = (("Ks7d2c9h", "TT+,A9s+,KJo+,QTs+,98s", "77+,A5s+,KTo+,QJs,JTs", 600, 2400),
             ("2h5d8cJs", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 2500))
    games, sols = [], []
    for board, r1, r2, pot, stack in specs:
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=BetSizes(bets=(1.0,), raises=(),
                                                                                     all_in=True), raise_cap=1)
        games.append(g)
        sols.append(solve_endgame(g, "dcfr", iterations=100).result.policy.probs)
    rows = concat_rows(decision_rows(g, p, streets=[4]) for g, p in zip(games, sols))
    config = CardConfig(max_leaves=8, n_samples=20_000, min_leaf_share=0.01)
    tree, Z, Y = grow_card_tree(rows, config)
    return games, tree, Z, Y, config, river_card


def test_on_streets_plays_the_chooser_on_its_streets_and_the_solution_elsewhere(turn_setup):
    """OnStreets: the card's rows on its street's decisions, the stored solution's everywhere else; both streets
    is the card itself, and scoring it needs the stored solution."""
    from games.core.tree import DECISION
    from hunl.distill.cards import StreetCards
    from hunl.distill.pipeline import evaluate_task
    from hunl.distill.policy import OnStreets, on_streets

    games, tree, Z, Y, config, river_card = turn_setup
    g = games[0]
    sol = solve_endgame(g, "dcfr", iterations=50).result.policy.probs
    card = play(g, CardPolicy(river_card)).probs
    t = g.tree
    mixed = on_streets(g, card, sol, (5,))
    kids = np.flatnonzero(t.parent >= 0)
    kids = kids[t.kind[t.parent[kids]] == DECISION]
    river = g.betting.street[t.parent[kids]] == 5
    assert river.any() and (~river).any()
    np.testing.assert_array_equal(mixed[kids[river]], card[kids[river]])
    np.testing.assert_array_equal(mixed[kids[~river]], sol[kids[~river]])
    np.testing.assert_array_equal(on_streets(g, card, sol, (4, 5))[kids], card[kids])
    with pytest.raises(ValueError, match="streets"):
        OnStreets(CardPolicy(river_card), (6,), "x")
    with pytest.raises(ValueError, match="same shape"):
        on_streets(g, card[:, :1], sol, (5,))

    class _Family:   # the two games and their solutions as a database family would give them
        def game(self, cols, i):
            return g

        def policy_array(self, cols, i, game):
            return sol

    both = StreetCards({5: river_card})
    choosers = {"card": both, "card, both streets": OnStreets(both, (4, 5), "b"),
                "card on the river": OnStreets(both, (5,), "r")}
    s = evaluate_task(_Family(), {"game_id": np.array([0])}, choosers)
    assert s.exploitability_pct_pot[0, 1] == pytest.approx(s.exploitability_pct_pot[0, 0], abs=1e-12)
    assert s.exploitability_pct_pot[0, 2] != pytest.approx(s.exploitability_pct_pot[0, 0], abs=1e-6)
    with pytest.raises(ValueError, match="reference"):
        evaluate_task(_Family(), {"game_id": np.array([0])}, choosers, reference=False)


def test_a_card_beside_the_solution_reads_the_ranges_the_solution_leaves(turn_setup):
    """A card played on the river with the stored solution on the turn reads the ranges the solution's turn leaves:
    what is played on the turn by the card's own turn rules (not played here) changes nothing. Splicing after
    playing the cards on both streets (the river card then reads the ranges of its own turn play) does differ."""
    from games.core.tree import DECISION
    from hunl.distill.cards import StreetCards
    from hunl.distill.policy import OnStreets, on_streets, play_beside_solution

    games, tree, Z, Y, config, river_card = turn_setup
    river_card = replace(river_card, meta={**river_card.meta, "ranges": "own"})   # reads your range at the decision
    g = games[0]
    sol = solve_endgame(g, "dcfr", iterations=50).result.policy.probs
    river = CardPolicy(river_card)
    assert river.ranges == "own"

    class CheckOnTheTurn:   # the river card on the river, check/call on the turn
        ranges = river.ranges

        def class_probs(self, street, facing, X):
            if street == 5:
                return river.class_probs(street, facing, X)
            out = np.zeros((X.shape[0], 4))
            out[:, 0] = 1.0
            return out

    both = StreetCards({5: river_card})
    got = {name: play_beside_solution(g, {"r": OnStreets(c, (5,), "r")}, sol)["r"]
           for name, c in (("card", both), ("check", CheckOnTheTurn()))}
    t = g.tree
    kids = np.flatnonzero(t.parent >= 0)
    kids = kids[t.kind[t.parent[kids]] == DECISION]
    on_river = g.betting.street[t.parent[kids]] == 5
    assert on_river.any() and (~on_river).any()
    np.testing.assert_array_equal(got["card"], got["check"])
    np.testing.assert_array_equal(got["card"][kids[~on_river]], sol[kids[~on_river]])
    spliced = on_streets(g, play(g, both).probs, sol, (5,))
    assert not np.allclose(spliced[kids[on_river]], got["card"][kids[on_river]])
    # where the card plays everything, the solution is not read
    np.testing.assert_allclose(play_beside_solution(g, {"b": OnStreets(both, (4, 5), "b")}, sol)["b"][kids],
                               play(g, both).probs[kids], atol=1e-12)


def test_a_card_after_minimum_defence_reads_the_ranges_the_rule_leaves(turn_setup):
    """MinimumDefence of a card on the turn: the river card reads the ranges the rule's turn folds and calls
    leave, so what the card's own turn rules do facing a bet changes nothing; the river is the card played with
    the rule's turn in place. Applying the rule after the card's own play (the river card then reads the ranges
    of its own turn play) does differ."""
    from games.core.tree import DECISION
    from hunl.distill.defence import MinimumDefence, minimum_defence
    from hunl.distill.policy import _play_node, play_beside_solution

    games, tree, Z, Y, config, river_card = turn_setup
    river = CardPolicy(replace(river_card, meta={**river_card.meta, "ranges": "own"}))
    g = games[0]

    def on_the_turn(facing_class):
        class Chooser:   # the river card on the river; on the turn check, and facing a bet fold or call
            ranges = river.ranges

            def class_probs(self, street, facing, X):
                if street == 5:
                    return river.class_probs(street, facing, X)
                out = np.zeros((X.shape[0], 4))
                out[:, facing_class if facing else 0] = 1.0
                return out
        return Chooser()

    got = {c: play_beside_solution(g, {"m": MinimumDefence(on_the_turn(c), "m", (4,))})["m"] for c in (0, 1)}
    np.testing.assert_array_equal(got[0], got[1])
    t = g.tree
    kids = np.flatnonzero(t.parent >= 0)
    kids = kids[t.kind[t.parent[kids]] == DECISION]
    on_river = g.betting.street[t.parent[kids]] == 5
    turn = minimum_defence(g, play(g, on_the_turn(1)).probs, (4,))
    np.testing.assert_array_equal(got[1][kids[~on_river]], turn[kids[~on_river]])
    want = _play_node(g, on_the_turn(1), solution=turn, streets=(5,)).probs
    np.testing.assert_array_equal(got[1][kids], want[kids])
    spliced = minimum_defence(g, play(g, on_the_turn(0)).probs, (4,))
    assert not np.allclose(spliced[kids[on_river]], got[0][kids[on_river]])
    # on the river alone nothing is played after the rule: the same as the rule over the card's play
    river_only = play_beside_solution(g, {"m": MinimumDefence(on_the_turn(1), "m", (5,))})["m"]
    np.testing.assert_array_equal(river_only, minimum_defence(g, play(g, on_the_turn(1)).probs, (5,)))


def test_a_turn_card_is_optimised_beside_the_fixed_river_card(turn_setup):
    """The composite plays the turn by the turn card's rules and the river by the fixed river card; optimising the
    turn rules leaves the river card as it is, and the optimiser's own training figure is what the turn card
    and the river card played together (StreetCards) cost."""
    from hunl.distill.cards import FIXED_KEY, CompositeCard, StreetCards
    from hunl.distill.optimal_leaves import optimise_leaves

    games, tree, Z, Y, config, river_card = turn_setup
    turn, turn_policy, log = fit_card(tree, 6, Z, Y, games, config, iterations=20, fixed={5: river_card})
    assert turn.meta["streets"] == [4] and all(s.title.startswith("Turn") for s in turn.sections)
    both = StreetCards({4: turn, 5: river_card})
    comp = CompositeCard(turn_policy, {5: river_card})
    g = games[0]
    t = g.tree
    street = g.betting.street
    got, want_turn, want_river = (play(g, c).probs for c in (comp, turn_policy, CardPolicy(river_card)))
    from games.core.tree import DECISION

    kids = np.flatnonzero(t.kind[np.maximum(t.parent, 0)] == DECISION)   # the actions of decision nodes
    kids = kids[kids > 0]
    on_river = street[t.parent[kids]] == 5
    assert on_river.any() and (~on_river).any()
    assert not np.array_equal(want_turn[kids[on_river]], want_river[kids[on_river]])
    np.testing.assert_array_equal(got[kids[on_river]], want_river[kids[on_river]])
    np.testing.assert_array_equal(got[kids[~on_river]], want_turn[kids[~on_river]])
    np.testing.assert_array_equal(play(g, both).probs, got)
    # the frozen table is returned unchanged and the logged figure is the pair's exploitability
    res = optimise_leaves(comp, games, iterations=8, log_every=4, frozen=(FIXED_KEY,))
    np.testing.assert_array_equal(res.tables[FIXED_KEY], comp.leaf_table(FIXED_KEY))
    tuned = comp.with_leaf_tables(res.tables)
    direct = np.mean([evaluate_policy(h, play(h, tuned)).exploitability_pct_pot for h in games])
    assert res.log_exploitability_pct_pot[-1] == pytest.approx(direct, rel=1e-4)
    assert log["exact_train_pct_pot"][-1] < log["exact_train_pct_pot"][0]


def test_composite_card_rejects_bad_input(turn_setup):
    from hunl.distill.cards import CompositeCard
    from hunl.distill.optimal_leaves import optimise_leaves

    games, tree, Z, Y, config, river_card = turn_setup
    _, turn_policy, _ = fit_card(tree, 4, Z, Y, games, config, iterations=0)
    with pytest.raises(ValueError, match="at least one"):
        CompositeCard(turn_policy, {})
    with pytest.raises(ValueError, match="streets \\[4\\]"):
        CompositeCard(turn_policy, {4: river_card})
    with pytest.raises(ValueError, match="frozen"):
        optimise_leaves(turn_policy, games, iterations=2, frozen=("nothing",))


def test_card_floor_is_at_most_the_printed_cost_and_matches_a_re_measurement(setup):
    """The floor is the card's rules playing strategies optimised for that endgame alone: never above the card
    as printed, and what those strategies really cost when played."""
    from hunl.distill.card_floor import card_floor
    from hunl.distill.optimal_leaves import optimise_leaves

    games, _, _, _, _, card, policy, _ = setup
    g = games[1]
    printed, floor = card_floor(card, g, iterations=40)
    assert printed == pytest.approx(evaluate_policy(g, play(g, policy)).exploitability_pct_pot, rel=1e-12)
    assert floor <= printed
    res = optimise_leaves(policy, [g], iterations=40, log_every=8)
    best = int(np.argmin(res.log_exploitability_pct_pot))
    assert floor == pytest.approx(res.log_exploitability_pct_pot[best], rel=1e-12)
    tuned = policy.with_leaf_tables(res.tables)           # the final average is one of the logged points
    assert evaluate_policy(g, play(g, tuned)).exploitability_pct_pot == pytest.approx(
        res.log_exploitability_pct_pot[-1], rel=1e-4)
    with pytest.raises(ValueError, match="iterations"):
        card_floor(card, g, iterations=0)


def test_shared_fit_is_the_least_logged_mean_and_never_above_the_printed_card(setup):
    """One strategy per rule fitted on the endgames where it is measured: the least logged mean of CFR-BR over
    those endgames, at most the printed card's mean, and in one endgame at most its floor (a finer log of the same
    run)."""
    from hunl.distill.card_floor import card_floor, shared_fit
    from hunl.distill.optimal_leaves import optimise_leaves

    games, _, _, _, _, card, policy, _ = setup
    pair = games[:2]
    shared = shared_fit(card, pair, iterations=30)
    res = optimise_leaves(policy, pair, iterations=30, log_every=3)
    assert shared == pytest.approx(res.log_exploitability_pct_pot.min(), rel=1e-12)
    printed = np.mean([evaluate_policy(g, play(g, policy)).exploitability_pct_pot for g in pair])
    assert shared <= printed + 1e-12
    assert res.log_exploitability_pct_pot[0] == pytest.approx(printed, rel=1e-9)
    _, floor = card_floor(card, games[1], iterations=30)
    assert shared_fit(card, games[1:2], iterations=30) <= floor + 1e-12
    with pytest.raises(ValueError, match="iterations"):
        shared_fit(card, pair, iterations=0)
    with pytest.raises(ValueError, match="at least one"):
        shared_fit(card, [], iterations=5)


def test_section_costs_swap_one_section_of_the_endgames_own_strategies(setup):
    """Each section's figure is the endgame's own strategies (the fit's final average) with that section's rows
    put back to the printed strategies, measured exactly; printed and floor are card_floor's."""
    from hunl.distill.card_floor import card_floor, section_costs, section_rules
    from hunl.distill.cards import CARD_KEY
    from hunl.distill.optimal_leaves import optimise_leaves

    games, _, _, _, _, card, policy, _ = setup
    g = games[0]
    parts = section_rules(card)
    assert np.array_equal(np.concatenate(parts), np.arange(card.n_rules))
    assert [p.size for p in parts] == [len(sec.rules) for sec in card.sections]
    printed, floor, own, printed_in = section_costs(card, g, iterations=25)
    assert (printed, floor) == pytest.approx(card_floor(card, g, iterations=25), rel=1e-12)
    assert len(printed_in) == len(card.sections)
    res = optimise_leaves(policy, [g], iterations=25, log_every=5)
    tuned = res.tables[CARD_KEY]
    assert own == pytest.approx(evaluate_policy(g, play(g, policy.with_leaf_tables(res.tables)))
                                .exploitability_pct_pot, rel=1e-12)
    for idx, v in zip(parts, printed_in):
        t = tuned.copy()
        t[idx] = policy.table[idx]
        assert v == pytest.approx(evaluate_policy(g, play(g, policy.with_leaf_tables({CARD_KEY: t})))
                                  .exploitability_pct_pot, rel=1e-12)
    with pytest.raises(ValueError, match="iterations"):
        section_costs(card, g, iterations=0)


def test_floor_block_splits_the_cost_of_sharing_when_the_shared_fit_ran(tmp_path):
    from hunl.distill.card_floor import FloorJob, write_floor_docs

    doc = tmp_path / "HUNL.md"
    job = FloorJob(name="x", doc=str(doc), command="cmd")
    result = {"printed_pct_pot": [8.0, 6.0], "floor_pct_pot": [4.0, 3.0], "iterations": 10, "seconds": 60.0,
              "card": "c.json", "n_rules": 20, "n_test": 2, "db": "db", "fixed_cards": [], "shared_mean": 6.5,
              "shared_iterations": 50}
    write_floor_docs(job, result)
    text = doc.read_text()
    for row in ("| 7.00 ± 1.41 |", "| 3.50 ± 0.71 |", "(CFR-BR, 50 iterations) | 6.50 |",
                "| the cost of sharing one strategy per rule | 3.50 |", "(shared fit - own) | 3.00 |",
                "(printed - shared fit) | 0.50 |"):
        assert row in text
    write_floor_docs(job, dict(result, shared_mean=None))
    assert "shared fit" not in doc.read_text()
    sections = {"titles": ["A", "B"], "n_rules": [3, 17], "own_pct_pot": [4.0, 5.0],
                "printed_in_pct_pot": [[6.0, 4.5], [8.0, 5.5]]}
    write_floor_docs(job, dict(result, sections=sections))
    text = doc.read_text()
    for row in ("(the fit's final average) | 4.50 |", "*A* (3 rules), each endgame's own elsewhere | 7.00 | +2.50 |",
                "*B* (17 rules), each endgame's own elsewhere | 5.00 | +0.50 |"):
        assert row in text


@pytest.mark.parametrize("name", sorted(set(CARD_FILES) - {"betgame"}))
def test_shipped_hunl_cards_are_short_round_and_plain(name):
    """The cards in docs/cards (rulelearn rules --card NAME): at most 20 rules of at most 3 conditions, every
    threshold on its quantity's round grid, every feature a named quantity with a phrase (no raw feature name
    in the text), plain mixes, and a measured cost."""
    card = RuleCard.from_dict(json.loads(open(CARD_FILES[name]).read()))
    assert 1 <= card.n_rules <= 20 and card.cost is not None and card.cost.n_games >= 30
    text = card.to_text()
    for s in card.sections:
        for r in s.rules:
            assert len(r.conditions) <= 3
            for c in r.conditions:
                q = card.quantity(c.feature)
                assert is_round(c.threshold, q.kind), (name, c)
                assert c.feature not in text, (name, c.feature)
            p = np.asarray(r.strategy)
            assert any(np.allclose(p * d, np.round(p * d)) for d in (1, 2, 3, 4, 5, 6, 8, 10))

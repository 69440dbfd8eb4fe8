"""A card's thresholds moved by their cost (hunl.distill.threshold_search): the moves keep the card's rules whole,
the search's figures are the exact exploitability, and it never ends worse than it started."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.cards import CARD_FEATURES, CardPolicy
from hunl.distill.cost import evaluate_policy
from hunl.distill.policy import play
from hunl.distill.quantities import feature_grid
from hunl.distill.threshold_search import (
    SplitWorkers,
    ThresholdJob,
    card_splits,
    move_split,
    printed_card,
    rule_coverage,
    run_threshold_search,
    split_moves,
    threshold_changes,
    thresholds_by_exploitability,
    with_coverage,
)
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import RuleCard
from tests.hunl.distill.card_rows import design_rows as _rows

ROOT = Path(__file__).resolve().parents[3]
SIZES = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)
CARDS = ("river", "river-all-own-bluff-pruned-plain", "turn-own-pruned-plain", "river-deep")


def _card(name: str) -> RuleCard:
    return RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f"{name}.json").read_text()))


@pytest.fixture(scope="module")
def games():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000),
             ("AhKd7c7s3h", "88+,AQo+,KQs,JTs,65s", "22+,A2s+,KTo+,QTs+", 600, 6000))
    return [HoldemEndgame(b, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
            for b, r1, r2, pot, stack in specs]


def test_sections_that_share_decisions_form_one_group():
    card = _card("river-all-own-bluff-pruned-plain")
    titles = [s.title for s in card.sections]
    groups = [[titles[i] for i in g] for g in card.section_groups()]
    assert sorted(groups, key=len) == [["River, either position, facing a bet"],
                                       ["River, either position, not facing a bet",
                                        "River, out of position (acting first), not facing a bet",
                                        "River, in position (acting last), not facing a bet"]]


@pytest.mark.parametrize("name", CARDS)
def test_moves_stay_on_the_grid_between_the_neighbouring_thresholds(name):
    card = _card(name)
    splits = card_splits(card)
    assert splits and len(set(splits)) == len(splits)
    for i, q, t in splits:
        grid = feature_grid(q)
        others = {c.threshold for j in next(g for g in card.section_groups() if i in g)
                  for r in card.sections[j].rules for c in r.conditions if c.feature == q and c.threshold != t}
        for v in split_moves(card, (i, q, t), steps=3):
            assert np.isclose(grid, v).any() and v != t
            assert not any(min(t, v) <= o <= max(t, v) for o in others)       # no threshold crossed
        assert len(split_moves(card, (i, q, t), steps=1)) <= 2


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(CARDS), pick=st.integers(0, 10_000), step=st.integers(0, 10_000),
       seed=st.integers(0, 2 ** 31 - 1))
def test_a_moved_threshold_leaves_no_decision_without_a_rule(name, pick, step, seed):
    card = _card(name)
    splits = card_splits(card)
    split = splits[pick % len(splits)]
    values = split_moves(card, split, steps=3)
    if not values:
        return
    new = values[step % len(values)]
    moved = move_split(card, split, new)
    X = _rows(20_000, seed)
    before, after = card.rule_index(X, CARD_FEATURES), moved.rule_index(X, CARD_FEATURES)
    assert np.array_equal(before < 0, after < 0)            # the same decisions are covered
    assert moved.n_rules == card.n_rules and moved.n_conditions == card.n_conditions
    assert [r.strategy for r in moved.rules()] == [r.strategy for r in card.rules()]
    # only decisions whose quantity lies between the old and the new threshold can change rule
    x = X[:, CARD_FEATURES.index(split[1])]
    lo, hi = min(split[2], new), max(split[2], new)
    changed = before != after
    assert np.all((x[changed] > lo) & (x[changed] <= hi))
    # each moved condition is the old one with the new threshold
    moved_conds = {(c.feature, c.threshold) for r in moved.rules() for c in r.conditions}
    assert (split[1], new) in moved_conds


def test_the_search_measures_the_exact_exploitability(games):
    card = _card("river")                                   # starting ranges: a move's figure is exact too
    split = card_splits(card)[0]
    moved = move_split(card, split, split_moves(card, split)[0])
    with SplitWorkers(card, games, workers=1) as pool:
        got = pool.exploitabilities([card, moved])
    for c, v in zip((card, moved), got):
        exact = np.mean([evaluate_policy(g, play(g, CardPolicy(c))).exploitability_pct_pot for g in games])
        assert v == pytest.approx(exact, rel=1e-9, abs=1e-9)


def test_two_workers_give_the_same_figures_as_one(games):
    card = _card("river-all-own-bluff-pruned-plain")        # own ranges: features of the starting card
    tries = [card] + [move_split(card, s, v) for s in card_splits(card)[:2] for v in split_moves(card, s)]
    with SplitWorkers(card, games, workers=1) as one, SplitWorkers(card, games, workers=2) as two:
        assert np.allclose(one.exploitabilities(tries), two.exploitabilities(tries), rtol=1e-12)
    exact = np.mean([evaluate_policy(g, play(g, CardPolicy(card))).exploitability_pct_pot for g in games])
    with SplitWorkers(card, games, workers=1) as one:     # exact for the card the features were read under
        assert one.exploitabilities([card])[0] == pytest.approx(exact, rel=1e-9)


def test_the_search_never_ends_worse_and_reports_the_moved_card_exactly(games):
    card = _card("river")
    moved, log = thresholds_by_exploitability(card, games, steps=2, sweeps=2)
    assert len(log) >= 2 and all(b <= a + 1e-9 for a, b in zip(log, log[1:]))
    exact = np.mean([evaluate_policy(g, play(g, CardPolicy(moved))).exploitability_pct_pot for g in games])
    assert exact == pytest.approx(log[-1], rel=1e-9)
    assert moved.n_rules == card.n_rules and moved.n_conditions == card.n_conditions
    if log[-1] < log[0] - 1e-9:                              # something moved, and only thresholds
        assert moved != card
        assert [r.strategy for r in moved.rules()] == [r.strategy for r in card.rules()]


def test_with_own_ranges_the_card_returned_is_the_least_exploitable_measured(games):
    card = _card("river-all-own-bluff-pruned-plain")        # a move changes the ranges the card reads
    moved, log = thresholds_by_exploitability(card, games, steps=1, sweeps=1)
    exact = np.mean([evaluate_policy(g, play(g, CardPolicy(moved))).exploitability_pct_pot for g in games])
    assert exact == pytest.approx(min(log), rel=1e-9) and min(log) <= log[0]


def test_coverage_is_each_rule_s_share_of_its_section():
    card = _card("river")
    X = _rows(50_000, 1)
    X[:, CARD_FEATURES.index("street")] = 5.0
    w = np.random.default_rng(2).random(X.shape[0])
    cov = rule_coverage(card, X, w)
    idx = card.rule_index(X, CARD_FEATURES)
    a = 0
    for sec in card.sections:
        b = a + len(sec.rules)
        taken = np.isin(idx, np.arange(a, b))
        if taken.any():
            assert cov[a:b].sum() == pytest.approx(1.0)
            k = a + int(np.argmax(cov[a:b]))
            assert cov[k] == pytest.approx(w[idx == k].sum() / w[taken].sum())
        a = b
    again = with_coverage(card, cov)
    assert [r.coverage for r in again.rules()] == pytest.approx(cov.tolist())
    assert [r.conditions for r in again.rules()] == [r.conditions for r in card.rules()]
    for wrong in (cov[:-1], np.r_[cov, 0.5]):
        with pytest.raises(ValueError, match="coverage must have one value per rule"):
            with_coverage(card, wrong)


def test_a_turn_card_beside_a_fixed_river_card_is_measured_exactly():
    from hunl.distill.cards import StreetCards

    game = HoldemEndgame("Ks7d2c9h", ["TT+,AKs,AQo,KQs,98s", "99+,AQs+,KJs+,QJs,T9s"], pot=600, stack=1800,
                         bet_sizes=BetSizes(bets=(0.5,), raises=(), all_in=True), raise_cap=1)
    turn, river = _card("turn"), _card("river")             # starting ranges: every move's figure is exact
    tries = [turn] + [move_split(turn, sp, v) for sp in card_splits(turn)[:4] for v in split_moves(turn, sp)]
    with SplitWorkers(turn, [game], fixed={5: river}) as pool:
        got = pool.exploitabilities(tries)
    for c, v in zip(tries, got):
        exact = evaluate_policy(game, play(game, StreetCards({4: c, 5: river}))).exploitability_pct_pot
        assert v == pytest.approx(exact, rel=1e-9)
    assert np.ptp(got) > 0.01                                # some moves changed which rules the turn plays


def test_threshold_changes_name_the_moved_conditions_only():
    card = _card("river-moved")
    assert threshold_changes(card, card) == []
    split = card_splits(card)[1]
    new = split_moves(card, split)[0]
    moved = move_split(card, split, new)
    got = threshold_changes(card, moved)
    assert got and set(got) == {(split[1], min(split[2], new), max(split[2], new))}
    assert threshold_changes(card, _card("river")) is None            # other rules: not a moved card
    fewer = RuleCard.from_dict({**card.to_dict(), "sections": [
        s.to_dict() if hasattr(s, "to_dict") else s for s in card.to_dict()["sections"][:-1]]})
    assert threshold_changes(card, fewer) is None


def test_only_decisions_between_old_and_new_thresholds_read_the_rules_again(games):
    """The shard reads the rules again only where a moved condition can change: the same rules as reading them all."""
    from hunl.distill.threshold_search import _SplitShard

    card = _card("river-all-own-bluff-pruned-plain")
    shard = _SplitShard(card, None, games, np.ones(len(games)))
    assert shard.rows.size > 1000 and shard.Z.shape == (shard.rows.size, len(shard.names))
    for split in card_splits(card):
        for v in split_moves(card, split, steps=3):
            moved = move_split(card, split, v)
            full = shard.ids.copy()
            full[shard.rows] = moved.rule_index(shard.Z, shard.names)
            assert np.array_equal(shard._leaves(moved), full)


def test_weights_give_the_weighted_mean(games):
    from hunl.distill.optimal_leaves import LeafWorkers

    card = _card("river")
    w = np.array([0.5, 2.0, 1.0])
    each = np.array([evaluate_policy(g, play(g, CardPolicy(card))).exploitability_pct_pot for g in games])
    with SplitWorkers(card, games, workers=2, weights=w) as pool:
        assert pool.exploitabilities([card])[0] == pytest.approx(np.average(each, weights=w), rel=1e-9)
    model = CardPolicy(card)
    with LeafWorkers(model, games, 1, w) as pool:
        assert pool.exploitability({k: model.leaf_table(k) for k in model.leaf_keys()}) == pytest.approx(
            np.average(each, weights=w), rel=1e-9)
    for bad in ([1.0, 2.0], [1.0, -1.0, 1.0], [0.0, 0.0, 0.0], [1.0, np.nan, 1.0]):
        with pytest.raises(ValueError, match="weights"):
            SplitWorkers(card, games, weights=bad)


def test_run_threshold_search_end_to_end(tmp_path, small_river_db):
    from hunl.distill.threshold_search import ThresholdJob, run_threshold_search, with_strategies
    from rulelearn.data.database import SolutionDatabase

    path, family = small_river_db
    doc = tmp_path / "HUNL.md"
    doc.write_text("# HUNL\n")
    out = tmp_path / "moved.json"
    card = _card("river")
    job = ThresholdJob(card=str(ROOT / "docs" / "cards" / "river.json"), db=str(path), train=5, steps=1,
                       sweeps=1, mixes=0.1, workers=1, out=str(out), doc=str(doc), name="t")
    res = run_threshold_search(job)
    moved = RuleCard.from_dict(json.loads(out.read_text()))
    assert res["n_train"] == 5 and "<!--block:card-t-thresholds-->" in doc.read_text()
    assert moved.n_rules == card.n_rules and moved.n_conditions <= card.n_conditions
    # its cost: the card played in the held-out endgames of the split, exactly
    from hunl.distill.card_experiment import split_endgames

    cols = SolutionDatabase(path).load(None)
    _, test = split_endgames(len(cols["game_id"]), 0, 0.2, 400)
    held = [family.game(cols, int(i)) for i in test]
    want = [evaluate_policy(g, play(g, CardPolicy(moved))).exploitability_pct_pot for g in held]
    assert moved.cost.n_games == len(test) == 2 and moved.cost.mean == pytest.approx(np.mean(want), rel=1e-9)
    assert res["cost"] == moved.cost.mean and "thresholds moved by their cost" in moved.title
    assert "<details><summary>The card</summary>" in doc.read_text()
    assert moved.meta["threshold_search"]["train_pct_pot"] == res["log"]
    # the mixes were chosen again from the best card of the search, never worse on the training endgames
    assert res["mixes_log"][0] == pytest.approx(min(res["log"])) and res["mixes_log"][-1] <= res["mixes_log"][0]
    # every mix is plain and within the radius of the card's, its words written again
    for a, b in zip(card.rules(), moved.rules()):
        assert np.max(np.abs(np.subtract(a.strategy, b.strategy))) <= 0.1 + 1e-9
        assert b.action == with_strategies(moved, [r.strategy for r in moved.rules()]).rules()[
            moved.rules().index(b)].action
    # the moves the result lists are the thresholds that differ
    for title, q, old, new in res["moves"]:
        sec = next(s for s in moved.sections if s.title == title)
        assert any(c.feature == q and c.threshold == new for r in sec.rules for c in r.conditions)
    # coverage: each section's rules share its decisions
    for sec in moved.sections:
        total = sum(r.coverage for r in sec.rules)
        assert total == pytest.approx(1.0) or total == 0.0


def test_a_search_over_two_databases_weighs_each_the_same(tmp_path):
    """River and turn endgames for a river card: the training figure is the mean of the databases' means, and the
    card's cost is measured in each database's held-out endgames."""
    from hunl.distill.card_experiment import split_endgames
    from hunl.distill.cards import StreetCards
    from hunl.distill.family import HoldemRiverFamily
    from hunl.distill.sampler import EndgameSampler
    from rulelearn.data.database import SolutionDatabase

    fams = (HoldemRiverFamily(max_combos=30, iterations=40, target_pct_pot=2.0),
            HoldemRiverFamily(EndgameSampler.turn(max_combos=12), iterations=30, target_pct_pot=5.0))
    paths = []
    for k, fam in enumerate(fams):
        db = SolutionDatabase(tmp_path / f"db{k}")
        db.generate(fam, 6 - k, seed=k, workers=1, progress=False, family_params=fam.params())
        paths.append(str(tmp_path / f"db{k}"))
    # through the command line: one figure per database
    spec = importlib.util.spec_from_file_location("rule_cards_script", ROOT / "scripts" / "rule_cards.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["thresholds", "--card", str(ROOT / "docs" / "cards" / "river.json"), "--fixed-card", "turn",
                        str(ROOT / "docs" / "cards" / "turn.json"), "--db", *paths, "--train", "3", "2",
                        "--max-test", "1", "1", "--steps", "1", "--sweeps", "1", "--workers", "1",
                        "--out", str(tmp_path / "m.json"), "--title", "A river card for every river"]) == 0
    moved = RuleCard.from_dict(json.loads((tmp_path / "m.json").read_text()))
    meta = moved.meta["threshold_search"]
    assert moved.title == "A river card for every river"
    assert meta["train"] == [3, 2] and meta["db"] == paths and [h["db"] for h in meta["held_out"]] == paths
    res = {"log": meta["train_pct_pot"], "held_out": meta["held_out"]}
    river, turn_card = _card("river"), _card("turn")
    policy = lambda c: StreetCards({5: c, 4: turn_card})               # noqa: E731
    means, held = [], []
    for path, fam, n in zip(paths, fams, (3, 2)):
        cols = SolutionDatabase(path).load(None)
        train, test = split_endgames(len(cols["game_id"]), 0, 0.2, 1)
        means.append(np.mean([evaluate_policy(g, play(g, policy(river))).exploitability_pct_pot
                              for g in (fam.game(cols, int(i)) for i in train[:n])]))
        held.append(np.mean([evaluate_policy(g, play(g, policy(moved))).exploitability_pct_pot
                             for g in (fam.game(cols, int(i)) for i in test)]))
    assert res["log"][0] == pytest.approx(np.mean(means), rel=1e-9)
    assert [h["pct_pot"] for h in res["held_out"]] == pytest.approx(held, rel=1e-9)
    assert moved.cost.mean == pytest.approx(held[0], rel=1e-9)
    # --db-weights 1 3: the second database's mean counts three times the first's
    assert script.main(["thresholds", "--card", str(ROOT / "docs" / "cards" / "river.json"), "--fixed-card", "turn",
                        str(ROOT / "docs" / "cards" / "turn.json"), "--db", *paths, "--train", "3", "2",
                        "--db-weights", "1", "3", "--max-test", "0", "--steps", "1", "--sweeps", "1",
                        "--workers", "1", "--out", str(tmp_path / "w.json")]) == 0
    meta = json.loads((tmp_path / "w.json").read_text())["meta"]["threshold_search"]
    assert meta["db_weights"] == pytest.approx([0.25, 0.75])
    assert meta["train_pct_pot"][0] == pytest.approx(0.25 * means[0] + 0.75 * means[1], rel=1e-9)
    assert meta["train_pct_pot"][-1] <= meta["train_pct_pot"][0] + 1e-9


@pytest.mark.parametrize("weights", [(1.0,), (1.0, 0.0), (1.0, -2.0), (1.0, float("nan")), (1.0, 2.0, 3.0)])
def test_db_weights_must_be_one_positive_number_per_database(weights):
    with pytest.raises(ValueError, match="db_weights"):
        run_threshold_search(ThresholdJob(card=str(ROOT / "docs" / "cards" / "river.json"), db=("a", "b"),
                                          db_weights=weights, out="unused.json"))


def _states(run):
    """Every state a search passes to ``save``, as read back from JSON."""
    saved = []
    out = run(lambda s: saved.append(json.loads(json.dumps(s))))
    return out, saved


def test_a_resumed_threshold_search_ends_as_the_uninterrupted_one(games):
    card = _card("river")
    (whole, log), saved = _states(lambda save: thresholds_by_exploitability(card, games, steps=1, sweeps=2,
                                                                            save=save))
    assert len(saved) >= 2
    for k in (0, len(saved) // 2, len(saved) - 1):
        (again, log_again), rest = _states(lambda save: thresholds_by_exploitability(
            card, games, steps=1, sweeps=2, resume=saved[k], save=save))
        assert again == whole and log_again == log
        assert rest == saved[k + 1:]                       # it went on from there: nothing tried twice


def test_a_resumed_plain_search_ends_as_the_uninterrupted_one(games):
    from hunl.distill.cards import CARD_KEY, card_model
    from hunl.distill.optimal_leaves import LeafWorkers
    from hunl.distill.plain_search import plain_by_exploitability

    card = _card("river")
    model = card_model(card, None)
    table = np.array([r.strategy for r in card.rules()], dtype=np.float64)
    tables = {k: model.leaf_table(k) for k in model.leaf_keys()}
    with LeafWorkers(model, games, 1) as pool:
        def run(save=None, resume=None):
            return plain_by_exploitability(pool, tables, CARD_KEY, table, np.ones(table.shape, dtype=bool), 0.1,
                                           order=np.arange(6), sweeps=2, save=save, resume=resume)

        (whole, log), saved = _states(run)
        assert len(saved) >= 6
        for k in (0, len(saved) // 2, len(saved) - 1):
            (again, log_again), rest = _states(lambda save: run(save=save, resume=saved[k]))
            assert np.array_equal(again, whole) and log_again == log
            assert rest == saved[k + 1:]                   # it went on from there: nothing tried twice


def test_a_killed_threshold_run_resumes_from_its_state_file(tmp_path, small_river_db, monkeypatch):
    """The search is killed (an exception) after a few splits and mixes; run again, it goes on from the state
    file and writes the card of an uninterrupted run; the state file is then removed."""
    from hunl.distill import threshold_search as ts

    path, _ = small_river_db
    kw = dict(card=str(ROOT / "docs" / "cards" / "river.json"), db=str(path), train=4, steps=1, sweeps=1,
              mixes=0.1, workers=1, max_test=0)
    real = ts.SearchState.saver
    calls: list = []
    kill: dict = {}

    def saver(self, name):                  # counts the states saved; raises where ``kill`` says
        save = real(self, name)

        def counting(state):
            save(state)
            calls.append(name)
            if kill.get(name) == calls.count(name):
                raise KeyboardInterrupt("killed")
        return counting

    monkeypatch.setattr(ts.SearchState, "saver", saver)
    ts.run_threshold_search(ts.ThresholdJob(**kw, out=str(tmp_path / "whole.json")))
    whole, total = json.loads((tmp_path / "whole.json").read_text()), list(calls)
    assert total.count("thresholds") > 3 and total.count("mixes") > 2

    out = tmp_path / "killed.json"
    job = ts.ThresholdJob(**kw, out=str(out))
    state_file = out.with_name(out.name + ".state.json")
    calls.clear()
    for stage, after in (("thresholds", 3), ("mixes", 2)):
        kill.clear()
        kill[stage] = after
        with pytest.raises(KeyboardInterrupt):
            ts.run_threshold_search(job)
        assert state_file.exists() and not out.exists()
    kill.clear()
    ts.run_threshold_search(job)
    assert json.loads(out.read_text()) == whole and not state_file.exists()
    # every split and mix was tried once over the three runs: each went on where the last one stopped
    assert sorted(calls) == sorted(total)
    # another job does not read the state of this one
    other = ts.SearchState(ts.ThresholdJob(**{**kw, "steps": 2}, out=str(out)))
    assert other.stages == {}


def test_a_split_of_a_section_the_card_lacks_is_a_value_error():
    card = _card("river")
    split = card_splits(card)[0]
    bad = (len(card.sections) + 3, split[1], split[2])
    with pytest.raises(ValueError, match="is not a section of the card"):
        split_moves(card, bad)
    with pytest.raises(ValueError, match="is not a section of the card"):
        move_split(card, bad, split[2])


def test_the_written_card_merges_the_rules_whose_mixes_moved_onto_one():
    """river-value as first written, before searches merged equal rules (a fixture): its rules "more than 1%
    of the opponent's range strong ...: check" and "at most 1% ...: check" (the second's mix moved onto
    "check" by the mixes search) print as one; every decision reads the same strategy."""
    fixture = Path(__file__).parent / "fixtures" / "river-value-unmerged.json"
    card = RuleCard.from_dict(json.loads(fixture.read_text()))
    out = printed_card(card)
    assert (out.n_rules, out.n_conditions) == (card.n_rules - 1, card.n_conditions - 4)
    names = list(CARD_FEATURES)
    for seed in range(3):
        Z = _rows(20_000, seed)
        Z[:, CARD_FEATURES.index("street")] = 5.0
        a, b = card.rule_index(Z, names), out.rule_index(Z, names)
        assert np.all(a >= 0) and np.all(b >= 0)
        sa = np.array([r.strategy for r in card.rules()])[a]
        sb = np.array([r.strategy for r in out.rules()])[b]
        np.testing.assert_array_equal(sa, sb)
    assert printed_card(out) == out          # nothing left to merge

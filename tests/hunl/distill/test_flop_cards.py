"""hunl.distill.flop_cards: a small flop run end to end, its scores against a direct evaluation, and resuming."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hunl.distill.cards import StreetCards
from hunl.distill.cost import evaluate_policy
from hunl.distill.flop_cards import PAIR, PAIR_SPLIT, FlopJob, flop_card_name, flop_split_name, run_flop_cards
from hunl.distill.policy import on_streets, play
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import RuleCard

pytestmark = pytest.mark.xdist_group("flop-cards")  # the module's flop run (about 50 s) is made once, on one worker

SMALL = (("bet_sizes", BetSizes(bets=(0.5,), raises=(), all_in=False)), ("raise_cap", 0), ("spr", (4.0, 5.0)))


def _job(tmp_path, **kw):
    params = dict(out=str(tmp_path / "flop"), n_train=1, n_test=1, max_combos=12, iterations=40,
                  target_pct_pot=1.0, sizes=(1, 3), card_rules=3, samples=5000, sampler_params=SMALL)
    params.update(kw)
    return FlopJob(**params)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("flop")
    job = _job(tmp)
    return job, run_flop_cards(job)


def test_flop_run_scores_every_policy_and_learns_a_flop_card(run):
    job, res = run
    names = {"uniform random", "always check/call", "equity threshold", PAIR, flop_card_name(1), flop_card_name(3)}
    assert set(res["policies"]) == names
    for v in res["policies"].values():
        assert v["exploitability_pct_pot"] > 0
    tmp = Path(job.out)
    card = RuleCard.from_dict(json.loads((tmp / "card.json").read_text()))
    assert card.meta["streets"] == [3]
    assert all(s.title.startswith("Flop") for s in card.sections)
    assert card.n_rules <= 3 and card.cost is not None and card.cost.n_games == 1
    assert "turn cards" in " ".join(q.phrase(">", 0.5) for q in card.quantities if q.name == "decile_3")
    assert (tmp / "train" / "0.npz").exists() and (tmp / "test" / "1.json").exists()


def test_stored_scores_equal_a_direct_evaluation(run):
    """The held-out score of the turn and river cards equals playing them again in the rebuilt endgame."""
    job, _ = run
    sampler = job.sampler()
    rec = json.loads((Path(job.out) / "test" / "1.json").read_text())
    game = sampler.game(sampler.sample(job.seed, 1))
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    e = evaluate_policy(game, play(game, StreetCards({4: turn, 5: river})))
    assert rec["policies"][PAIR]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot, rel=1e-12)
    assert rec["k"] == 1 and rec["dcfr_pct_pot"] > 0


def test_a_killed_run_resumes_without_redoing_finished_work(run, tmp_path):
    job, res = run
    out = tmp_path / "copy"
    shutil.copytree(job.out, out)
    path = out / "test" / "1.json"
    rec = json.loads(path.read_text())
    dropped = rec["policies"].pop("uniform random")
    path.write_text(json.dumps(rec))
    train_mtime = (out / "train" / "0.npz").stat().st_mtime_ns
    again = run_flop_cards(_job(tmp_path, out=str(out)))
    back = json.loads(path.read_text())["policies"]
    assert back["uniform random"]["exploitability_pct_pot"] == pytest.approx(dropped["exploitability_pct_pot"],
                                                                          rel=1e-12)
    assert back[PAIR] == rec["policies"][PAIR]                      # not re-scored
    assert (out / "train" / "0.npz").stat().st_mtime_ns == train_mtime   # training endgame not re-solved
    assert again["policies"][PAIR] == res["policies"][PAIR]


def test_pair_only_measures_the_turn_and_river_cards_alone(run, tmp_path):
    """pair_only solves no training endgame, plays only the turn and river cards (and, with splits, them under the
    DCFR flop) and scores them as the full run did in the same held-out endgame; a full run can then share the
    directory and reads those scores instead of playing them again."""
    job, res = run
    out = tmp_path / "pair"
    doc = tmp_path / "HUNL.md"
    pair = run_flop_cards(_job(tmp_path, out=str(out), pair_only=True, splits=True, doc=str(doc), name="pair"))
    assert set(pair["policies"]) == {PAIR, PAIR_SPLIT} and pair["cards"] == {} and pair["pair_only"]
    assert not any((out / "train").iterdir())                      # no training endgame solved
    assert not (out / "card.json").exists() and (out / "pair.json").exists()
    assert pair["policies"][PAIR]["exploitability_pct_pot"] == pytest.approx(
        res["policies"][PAIR]["exploitability_pct_pot"], rel=1e-9)
    text = doc.read_text()
    assert "<!--block:card-pair-->" in text and PAIR_SPLIT in text and "uniform random" not in text
    scored = json.loads((out / "test" / "1.json").read_text())["policies"]
    full = run_flop_cards(_job(tmp_path, out=str(out)))
    after = json.loads((out / "test" / "1.json").read_text())["policies"]
    assert after[PAIR] == scored[PAIR]                              # read, not played again
    assert set(full["policies"]) == set(res["policies"])


def _with_meta(card: RuleCard, **meta) -> RuleCard:
    return RuleCard.from_dict(dict(card.to_dict(), meta=dict(card.meta, **meta)))


def test_a_policy_digest_reads_what_the_cards_play_not_how_they_were_made(run):
    """Provenance in a card's meta (``threshold_search``, ``leaf_order``) leaves the digest alone; the streets, the
    ranges and the rules change it; the legacy digest (all of the meta) differs once provenance is added."""
    from hunl.distill.flop_cards import PLAY_META, policy_digest

    job, _ = run
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    base = policy_digest(StreetCards({4: turn, 5: river}))
    moved = _with_meta(turn, threshold_search={"from": "/abs/elsewhere.json"}, leaf_order=[0])
    assert policy_digest(StreetCards({4: moved, 5: river})) == base
    assert policy_digest(StreetCards({4: moved, 5: river}), legacy=True) != \
        policy_digest(StreetCards({4: turn, 5: river}), legacy=True)
    assert set(PLAY_META) == {"streets", "ranges"}
    other = "own" if turn.meta.get("ranges", "start") == "start" else "start"
    assert policy_digest(StreetCards({4: _with_meta(turn, ranges=other), 5: river})) != base
    assert policy_digest(StreetCards({4: turn, 5: turn})) != base
    rules = turn.to_dict()
    rules["sections"][0]["rules"] = rules["sections"][0]["rules"][::-1]
    if rules != turn.to_dict():
        assert policy_digest(StreetCards({4: RuleCard.from_dict(rules), 5: river})) != base


@pytest.mark.xdist_group("flop-provenance")  # needs no module run: its own group, beside the module's on another worker
def test_a_card_rewritten_with_other_provenance_is_not_measured_again(tmp_path):
    """The same rules under another ``meta.threshold_search``: the scores are read, not played again; a score
    stored under the legacy digest (all of the meta) is kept and stamped with the current digest."""
    from hunl.distill.flop_cards import policy_digest

    job = _job(tmp_path)
    out = tmp_path / "pair"
    first = run_flop_cards(_job(tmp_path, out=str(out), pair_only=True))
    path = out / "test" / "1.json"
    rec = json.loads(path.read_text())
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    moved = _with_meta(turn, threshold_search={"from": str(tmp_path / "somewhere.json"), "train": 3})
    moved_path = tmp_path / "turn-moved.json"
    moved_path.write_text(json.dumps(moved.to_dict()))
    again = run_flop_cards(_job(tmp_path, out=str(out), pair_only=True, turn_card=str(moved_path)))
    assert json.loads(path.read_text()) == rec                      # nothing played again
    assert again["policies"] == first["policies"]
    legacy = policy_digest(StreetCards({4: moved, 5: river}), legacy=True)
    assert legacy != rec["policies"][PAIR]["cards"]
    rec["policies"][PAIR]["cards"] = legacy                        # as a run before the fix stamped it
    path.write_text(json.dumps(rec))
    run_flop_cards(_job(tmp_path, out=str(out), pair_only=True, turn_card=str(moved_path)))
    back = json.loads(path.read_text())
    assert back["seconds"] == rec["seconds"]                        # read, not solved again
    assert back["policies"][PAIR]["cards"] == policy_digest(StreetCards({4: turn, 5: river}))
    rec["policies"][PAIR]["cards"] = "0" * 16                      # measured with other cards
    path.write_text(json.dumps(rec))
    run_flop_cards(_job(tmp_path, out=str(out), pair_only=True, turn_card=str(moved_path)))
    assert json.loads(path.read_text())["seconds"] != rec["seconds"]


@pytest.mark.slow
def test_splits_add_the_cards_with_the_solution_on_the_other_streets(run, tmp_path):
    """--splits plays only the two new policies (the others are read), and the turn and river cards with the
    DCFR solution on the flop score as that mix played directly in the re-solved endgame."""
    from hunl.distill.flop_cards import _solve

    job, res = run
    out = tmp_path / "copy"
    shutil.copytree(job.out, out)
    before = json.loads((out / "test" / "1.json").read_text())["policies"]
    again = run_flop_cards(_job(tmp_path, out=str(out), splits=True, doc=str(tmp_path / "HUNL.md"),
                                cards_dir=str(tmp_path / "cards"), figures=str(tmp_path / "figures")))
    doc = (tmp_path / "HUNL.md").read_text()
    assert "<!--block:card-flop-frontier-->" in doc and PAIR_SPLIT in doc and "<!--block:card-flop-->" in doc
    assert RuleCard.from_dict(json.loads((tmp_path / "cards" / "flop.json").read_text())).n_rules <= 3
    assert all((tmp_path / "figures" / f).stat().st_size > 0 for f in ("flop_card.png", "flop_card_frontier.png"))
    after = json.loads((out / "test" / "1.json").read_text())["policies"]
    assert set(after) == set(before) | {PAIR_SPLIT, flop_split_name(3)}
    assert all(after[n] == before[n] for n in before)
    sampler = job.sampler()
    game, sol = _solve(sampler, job.seed, 1, job.target_pct_pot, job.iterations)
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    mixed = on_streets(game, play(game, StreetCards({4: turn, 5: river})).probs, sol.result.policy.probs, (4, 5))
    e = evaluate_policy(game, mixed)
    assert again["policies"][PAIR_SPLIT]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot,
                                                                                    rel=1e-9)
    assert e.exploitability_pct_pot < res["policies"][PAIR]["exploitability_pct_pot"]
    # a named card writes its own JSON, figures and blocks, and leaves the default ones alone
    run_flop_cards(_job(tmp_path, out=str(out), splits=True, doc=str(tmp_path / "HUNL.md"), name="flop-b",
                        cards_dir=str(tmp_path / "cards"), figures=str(tmp_path / "figures")))
    both = (tmp_path / "HUNL.md").read_text()
    assert "<!--block:card-flop-b-frontier-->" in both and "<!--block:card-flop-b-->" in both
    assert both.count("<!--block:card-flop-->") == 1 and both.count("<!--block:card-flop-frontier-->") == 1
    assert (tmp_path / "cards" / "flop-b.json").read_text() == (tmp_path / "cards" / "flop.json").read_text()
    assert all((tmp_path / "figures" / f).stat().st_size > 0 for f in ("flop-b_card.png", "flop-b_card_frontier.png"))


@pytest.mark.slow
def test_other_turn_and_river_cards_replay_only_the_policies_that_play_them(run, tmp_path):
    """With another river card in the same directory, the scores measured with the old one are not reused: the
    policies playing the river card are measured again (equal to a direct evaluation), the baselines kept."""
    job, res = run
    out = tmp_path / "copy"
    shutil.copytree(job.out, out)
    before = json.loads((out / "test" / "1.json").read_text())
    other = tmp_path / "river-deep.json"                       # another shipped river card
    other.write_text((Path(job.river_card).parent / "river-deep.json").read_text())
    again = run_flop_cards(_job(tmp_path, out=str(out), river_card=str(other)))
    after = json.loads((out / "test" / "1.json").read_text())
    assert after["policies"][PAIR]["cards"] != before["policies"][PAIR]["cards"]
    for name in ("uniform random", "always check/call", "equity threshold"):
        assert after["policies"][name] == before["policies"][name]
        assert "cards" not in after["policies"][name]
    sampler = job.sampler()
    game = sampler.game(sampler.sample(job.seed, 1))
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(other.read_text()))
    e = evaluate_policy(game, play(game, StreetCards({4: turn, 5: river})))
    assert again["policies"][PAIR]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot, rel=1e-12)
    assert again["policies"][PAIR] != res["policies"][PAIR]
    # the same cards again: nothing is played, the record is read as it is
    stamp = (out / "test" / "1.json").stat().st_mtime_ns
    assert run_flop_cards(_job(tmp_path, out=str(out), river_card=str(other)))["policies"] == again["policies"]
    assert (out / "test" / "1.json").stat().st_mtime_ns == stamp


@pytest.mark.slow
def test_training_grows_around_the_same_held_out_endgames(run, tmp_path):
    """With test_start fixed, more training endgames skip the held-out block: the solved training endgame and the
    held-out scores that play no flop card are read, the flop cards learned from the larger set are measured
    again (each score names its cards), and the new scores equal a direct evaluation."""
    job, res = run
    out = tmp_path / "grow"
    (out / "train").mkdir(parents=True)
    (out / "test").mkdir()
    shutil.copy(Path(job.out) / "train" / "0.npz", out / "train" / "0.npz")
    shutil.copy(Path(job.out) / "test" / "1.json", out / "test" / "1.json")
    before = json.loads((out / "test" / "1.json").read_text())["policies"]
    grown = _job(tmp_path, out=str(out), n_train=2, test_start=1)
    assert grown.train_ids() == [0, 2] and list(grown.test_ids()) == [1]
    again = run_flop_cards(grown)
    assert (out / "train" / "2.npz").exists() and not (out / "train" / "1.npz").exists()
    assert again["test_ids"] == [1, 1]
    after = json.loads((out / "test" / "1.json").read_text())["policies"]
    for name in ("uniform random", "always check/call", "equity threshold", PAIR):
        assert after[name] == before[name]
    card = RuleCard.from_dict(json.loads((out / "card.json").read_text()))
    from hunl.distill.flop_cards import policy_digest

    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    three = StreetCards({3: card, 4: turn, 5: river})
    assert after[flop_card_name(3)]["cards"] == policy_digest(three)
    sampler = job.sampler()
    game = sampler.game(sampler.sample(job.seed, 1))
    e = evaluate_policy(game, play(game, three))
    assert after[flop_card_name(3)]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot, rel=1e-12)
    with pytest.raises(ValueError, match="test_start"):
        _job(tmp_path, test_start=-1)


@pytest.mark.slow
def test_records_of_earlier_runs_are_carried_over(run, tmp_path):
    """A record written before scores named their cards (one record-level digest of the turn and river cards) is
    read as that run trusted it: with the same cards nothing is measured again; with other cards only the
    policies that play them."""
    from hunl.distill.flop_cards import cards_digest

    job, res = run
    out = tmp_path / "old"
    shutil.copytree(job.out, out)
    path = out / "test" / "1.json"
    rec = json.loads(path.read_text())
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    for score in rec["policies"].values():
        score.pop("cards", None)
    rec["cards"] = cards_digest(turn, river)
    path.write_text(json.dumps(rec))
    again = run_flop_cards(_job(tmp_path, out=str(out)))
    assert again["policies"] == res["policies"]
    back = json.loads(path.read_text())
    assert "cards" not in back and back["policies"][PAIR]["cards"] and back["seconds"] == rec["seconds"]
    rec["cards"] = "0" * 16                                        # measured with other turn and river cards
    path.write_text(json.dumps(rec))
    run_flop_cards(_job(tmp_path, out=str(out)))
    back = json.loads(path.read_text())
    assert back["seconds"] != rec["seconds"]                       # solved again
    assert back["policies"][flop_card_name(1)] != rec["policies"][flop_card_name(1)]
    assert back["policies"]["uniform random"] == rec["policies"]["uniform random"]


@pytest.mark.slow
def test_a_flop_card_with_optimised_strategies(run, tmp_path):
    """leaf_sizes: the card's rules are optimised by CFR-BR with the turn and river cards below; it is kept under
    out/cards and read on a second run, printed (card_rules), scored beside the mean-strategy cards, and its
    score equals a direct evaluation."""
    job, res = run
    out = tmp_path / "opt"
    shutil.copytree(job.out, out)
    kw = dict(out=str(out), leaf_sizes=(3,), leaf_endgames=1, leaf_iterations=4, splits=True,
              doc=str(tmp_path / "HUNL.md"), cards_dir=str(tmp_path / "cards"), figures=str(tmp_path / "figures"))
    again = run_flop_cards(_job(tmp_path, **kw))
    opt = flop_card_name(3, optimised=True)
    assert opt != flop_card_name(3)
    assert {opt, flop_card_name(3), flop_split_name(3, True), flop_split_name(3)} <= set(again["policies"])
    assert again["policies"][flop_card_name(3)] == res["policies"][flop_card_name(3)]   # read, not re-measured
    assert again["cards"][opt]["optimised"] and len(again["cards"][opt]["log"]["iterations"]) > 1
    (cached,) = (out / "cards").glob("flop-3-optimised-*.json")
    card = RuleCard.from_dict(json.loads(cached.read_text())["card"])
    printed = RuleCard.from_dict(json.loads((out / "card.json").read_text()))
    assert printed.sections == card.sections and "CFR-BR over 1 training endgames" in printed.cost.measure
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    sampler = job.sampler()
    game = sampler.game(sampler.sample(job.seed, 1))
    e = evaluate_policy(game, play(game, StreetCards({3: card, 4: turn, 5: river})))
    assert again["policies"][opt]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot, rel=1e-12)
    assert "optimised strategies" in (tmp_path / "HUNL.md").read_text()
    stamp = cached.stat().st_mtime_ns
    assert run_flop_cards(_job(tmp_path, **kw))["policies"] == again["policies"]
    assert cached.stat().st_mtime_ns == stamp
    # the card with equilibrium means printed instead: nothing is measured again, the optimised card is read
    mean = run_flop_cards(_job(tmp_path, **dict(kw, card_leaves="mean")))
    assert cached.stat().st_mtime_ns == stamp and mean["policies"] == again["policies"]
    printed = RuleCard.from_dict(json.loads((out / "card.json").read_text()))
    assert "mean strategy" in printed.cost.measure
    # a card fitted by a run before the digest left out provenance is kept under the legacy tag: read, not refitted
    from hunl.distill.flop_cards import _optimised_paths

    moved = _with_meta(turn, threshold_search={"from": "elsewhere.json"})
    moved_path = tmp_path / "turn-moved.json"
    moved_path.write_text(json.dumps(moved.to_dict()))
    new_path, legacy = _optimised_paths(_job(tmp_path, **kw), 3, _job(tmp_path, **kw).train_ids(), moved, river)
    assert new_path == cached and legacy != cached
    cached.rename(legacy)
    stamp = legacy.stat().st_mtime_ns
    old = run_flop_cards(_job(tmp_path, **dict(kw, turn_card=str(moved_path))))
    assert old["policies"] == again["policies"]
    assert legacy.stat().st_mtime_ns == stamp and not cached.exists()


@pytest.mark.slow
def test_a_flop_card_on_the_players_own_range(run, tmp_path):
    """ranges="own": the training rows read the acting player's own range at the decision (kept beside the
    starting-range rows, which stay), the flop card reads it too (its meta and notes say so), its optimised
    strategies are cached under another tag, and its held-out score equals a direct evaluation; the policies
    that play no flop card are read, not measured again."""
    from hunl.distill.cards import card_ranges
    from hunl.distill.decisions import decision_rows
    from hunl.distill.flop_cards import _solve

    job, res = run
    out = tmp_path / "own"
    shutil.copytree(job.out, out)
    start_rows = (out / "train" / "0.npz").read_bytes()
    kw = dict(out=str(out), sizes=(3,), leaf_sizes=(3,), leaf_endgames=1, leaf_iterations=4, ranges="own")
    again = run_flop_cards(_job(tmp_path, **kw))
    assert (out / "train" / "0.npz").read_bytes() == start_rows
    sampler = job.sampler()
    game, sol = _solve(sampler, job.seed, 0, job.target_pct_pot, job.iterations)
    want = decision_rows(game, sol.result.policy.probs, streets=[3], ranges="own")
    with np.load(out / "train" / "0_own.npz") as z:
        np.testing.assert_allclose(z["X"], want.X, equal_nan=True, atol=1e-9)
        with np.load(out / "train" / "0.npz") as z0:
            assert not np.allclose(z["X"], z0["X"], equal_nan=True)
    printed = RuleCard.from_dict(json.loads((out / "card.json").read_text()))
    assert card_ranges(printed) == "own" and "Your range is the hands" in printed.notes[0]
    for name in ("uniform random", PAIR):
        assert again["policies"][name] == res["policies"][name]
    (cached,) = (out / "cards").glob("flop-3-optimised-*.json")
    card = RuleCard.from_dict(json.loads(cached.read_text())["card"])
    assert card_ranges(card) == "own"
    turn = RuleCard.from_dict(json.loads(open(job.turn_card).read()))
    river = RuleCard.from_dict(json.loads(open(job.river_card).read()))
    test_game = sampler.game(sampler.sample(job.seed, 1))
    e = evaluate_policy(test_game, play(test_game, StreetCards({3: card, 4: turn, 5: river})))
    opt = flop_card_name(3, optimised=True)
    assert again["policies"][opt]["exploitability_pct_pot"] == pytest.approx(e.exploitability_pct_pot, rel=1e-12)


def test_other_settings_in_the_same_directory_are_refused(run):
    job, _ = run
    with pytest.raises(ValueError, match="other settings"):
        run_flop_cards(_job(Path(job.out).parent, seed=5))


@pytest.mark.parametrize("bad, match", [({"n_train": 0}, "n_train"), ({"sizes": ()}, "sizes"),
                                        ({"pair_only": True, "leaf_sizes": (3,), "leaf_endgames": 1,
                                          "leaf_iterations": 1}, "leaf_sizes must be empty with pair_only"),
                                        ({"card_rules": 7}, "card_rules"), ({"target_pct_pot": 0}, "target"),
                                        ({"leaf_sizes": (3,), "leaf_endgames": 1}, "leaf_iterations"),
                                        ({"leaf_sizes": (3,), "leaf_iterations": 2}, "leaf_endgames"),
                                        ({"leaf_sizes": (0,)}, "leaf_sizes"),
                                        ({"card_leaves": "optimised"}, "card_rules"),
                                        ({"card_leaves": "best"}, "card_leaves"), ({"name": ""}, "name"),
                                        ({"name": "a/b"}, "name"), ({"ranges": "node"}, "ranges")])
def test_bad_job_is_refused(tmp_path, bad, match):
    with pytest.raises(ValueError, match=match):
        _job(tmp_path, **bad)

"""hunl.preflop rules: clauses, the cost of a strategy against the solver core's best response, the MILP against
brute force, the beam search, the tree baseline, Sklansky-Chubukov numbers against published ones, the shipped
rule cards and the pushfold command."""

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import exploitability
from hunl.poker.cards import HAND_CLASS, HAND_CLASS_LABELS, parse_hand_class
from hunl.poker.ranges import parse_range
from hunl.preflop.cardfile import card_for_stack, load_rule_cards, save_rule_cards
from hunl.preflop.clauses import HAND_FEATURES, HandSet, candidate_clauses
from hunl.preflop.cli import main as pushfold_main
from hunl.preflop.game import PushFoldGame
from hunl.preflop.rule_mip import optimal_clauses
from hunl.preflop.rules import (
    DEFAULT_BANDS,
    band_reports,
    band_rows,
    fit_rule_card,
    strategy_cost,
)
from hunl.preflop.sklansky import sklansky_chubukov
from hunl.preflop.solve import solve_stacks
from hunl.preflop.tree_rules import fit_tree_card
from hunl.preflop.values import StackValues


@pytest.fixture(scope="module")
def small():
    """Exact solutions at a few stacks (fast)."""
    return solve_stacks([4.0, 4.5, 9.5, 9.6, 9.7, 9.8, 9.9, 10.0, 10.1])


def classes_of(text: str) -> np.ndarray:
    return np.bincount(HAND_CLASS, parse_range(text), minlength=169) > 0


# ----------------------------------------------------------------------------------------- clauses
def test_clauses_name_the_hands_they_hold():
    cases = [
        (HandSet("pair"), "22+", "any pair"),
        (HandSet("pair", high_min=3), "55+", "pairs 55+"),
        (HandSet("suited", high_min=11, high_max=11, low_min=5), "K7s+", "K7s+"),
        (HandSet("unpaired", high_min=12, high_max=12), "A2+", "any ace (A2+)"),
        (HandSet("offsuit", high_min=10, high_max=10), "Q2o+", "any offsuit queen (Q2o+)"),
        (HandSet("suited", gap_max=0, low_min=2), "54s,65s,76s,87s,98s,T9s,JTs,QJs,KQs,AKs",
         "suited connectors 54s+"),
        (HandSet("unpaired", sum_min=25), "AK,AQ,AJ,KQ", None),
    ]
    for clause, rng, text in cases:
        assert np.array_equal(clause.members(), classes_of(rng)), clause
        if text is not None:
            assert str(clause) == text
    assert str(HandSet("unpaired", high_min=1)) == "any unpaired hand"
    with pytest.raises(ValueError, match="kind"):
        HandSet("connected")
    with pytest.raises(ValueError, match="rank bounds"):
        HandSet("suited", high_min=5, high_max=3)


def test_candidates_are_distinct_nonempty_sets_and_features_match_labels():
    cands = candidate_clauses()
    sets = {c.members().tobytes() for c in cands}
    assert len(sets) == len(cands) > 500 and all(c.members().any() for c in cands)
    for h, label in enumerate(HAND_CLASS_LABELS):
        pair, suited, high, low, gap, total = HAND_FEATURES[h]
        ranks = "23456789TJQKA"
        assert label[:2] == ranks[high] + ranks[low]
        assert pair == (len(label) == 2) and suited == label.endswith("s")
        assert gap == (-1 if pair else high - low - 1) and total == high + low + 4


# ----------------------------------------------------------------------------------------- costs
def test_equilibrium_costs_nothing_and_folding_everything_costs_the_blind(small):
    rows = np.arange(small.stacks.size)
    for p in (0, 1):
        eq = small.push if p == 0 else small.call
        assert strategy_cost(small, p, eq, rows).loss.max() < 1e-12
    fold = strategy_cost(small, 0, np.zeros(169), rows)
    assert np.allclose(fold.loss, small.value + 0.5, atol=1e-12)     # the SB gets -0.5 instead of v
    with pytest.raises(ValueError, match="player"):
        strategy_cost(small, 2, np.zeros(169), rows)
    with pytest.raises(ValueError, match="shape"):
        strategy_cost(small, 0, np.zeros(168), rows)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([4.0, 9.5, 10.1]), st.integers(0, 2**31 - 1))
def test_cost_is_the_loss_against_the_solver_cores_best_response(small, stack, seed):
    rng = np.random.default_rng(seed)
    k = small.index(stack)
    x = (rng.random(169) < rng.random()).astype(float)
    g = PushFoldGame(stack)
    sb = exploitability(g, g.policy(x, small.call[k]))      # the BB best-responds to the SB's card
    bb = exploitability(g, g.policy(small.push[k], x))      # the SB best-responds to the BB's card
    assert strategy_cost(small, 0, x, [k]).loss[0] == pytest.approx(small.value[k] + sb.best_response_values[1],
                                                                    abs=1e-12)
    assert strategy_cost(small, 1, x, [k]).loss[0] == pytest.approx(bb.best_response_values[0] - small.value[k],
                                                                    abs=1e-12)


def test_band_rows(small):
    assert small.stacks[band_rows(small, (9.5, 10.0))].tolist() == [9.5, 9.6, 9.7, 9.8, 9.9]
    assert small.stacks[band_rows(small, (10.0, 10.1))].tolist() == [10.0, 10.1]      # top band includes its top
    with pytest.raises(ValueError, match="no stack"):
        band_rows(small, (5.0, 9.0))


# ----------------------------------------------------------------------------------------- fitting
def test_mip_finds_the_brute_force_optimum(small):
    cands = candidate_clauses()[:10] + candidate_clauses()[200:206]
    members = np.array([c.members() for c in cands])
    rows = band_rows(small, (9.5, 9.7))
    subsets = [c for r in range(3) for c in itertools.combinations(range(len(cands)), r)]
    sets = np.array([members[list(c)].any(axis=0) if c else np.zeros(169, dtype=bool) for c in subsets])
    sv = StackValues(small.stacks[rows])
    v = small.value[rows].mean()
    for player in (0, 1):
        costs = v - sv.mean_sb_guaranteed(sets) if player == 0 else sv.mean_bb_conceded(sets) - v
        res = optimal_clauses(small, rows, player, members, max_rules=2, time_limit=60)
        assert res.status == "Optimal" and len(res.chosen) <= 2
        got = strategy_cost(small, player, members[list(res.chosen)].any(axis=0).astype(float), rows)
        assert got.mean_mbb == pytest.approx(1000 * costs.min(), abs=1e-9)


def test_fit_rule_card(small):
    cands = candidate_clauses()[::8]                          # an eighth of the grammar keeps the MILP quick
    beam = fit_rule_card(small, 0, (9.5, 10.0), candidates=cands, method="beam")
    mip = fit_rule_card(small, 0, (9.5, 10.0), candidates=cands, method="mip", time_limit=60)
    one = fit_rule_card(small, 0, (9.5, 10.0), candidates=cands, max_rules=1, method="mip", time_limit=60)
    assert len(mip.card.clauses) <= 5 and len(one.card.clauses) <= 1
    assert mip.cost.mean_mbb <= beam.cost.mean_mbb + 1e-9 and mip.cost.mean_mbb <= one.cost.mean_mbb + 1e-9
    assert mip.status == "Optimal" and mip.gap_mbb == 0.0 and beam.status == "heuristic"
    rows = band_rows(small, (9.5, 10.0))
    assert mip.cost.mean_mbb == pytest.approx(strategy_cost(small, 0, mip.card.strategy(), rows).mean_mbb)
    assert mip.cost.mean_mbb < 10.0                     # five clauses get within 10 mbb/g at 9.5-9.9 bb
    assert mip.card.lines()[-1] == "fold the rest" and mip.card.range_text().startswith("22+")
    with pytest.raises(ValueError, match="max_rules"):
        fit_rule_card(small, 0, (9.5, 10.0), max_rules=0)
    with pytest.raises(ValueError, match="method"):
        fit_rule_card(small, 0, (9.5, 10.0), method="anneal")


@pytest.mark.slow
def test_full_grammar_card_is_optimal_and_beats_the_beam(small):
    beam = fit_rule_card(small, 1, (9.5, 10.0), method="beam")
    mip = fit_rule_card(small, 1, (9.5, 10.0), method="mip", time_limit=300)
    assert mip.status == "Optimal" and mip.cost.mean_mbb <= beam.cost.mean_mbb + 1e-9 and mip.cost.mean_mbb < 5


def test_tree_baseline(small):
    for p in (0, 1):
        tree = fit_tree_card(small, p, (9.5, 10.0))
        assert 1 <= len(tree.rules) <= 5 and tree.lines()[-1] == "fold the rest"
        pred = tree.predict(small.stacks[:3])
        assert pred.shape == (3, 169) and set(np.unique(pred)) <= {0.0, 1.0}
    with pytest.raises(ValueError, match="player"):
        fit_tree_card(small, 3, (9.5, 10.0))


# ----------------------------------------------------------------------------------------- Sklansky-Chubukov
def test_sklansky_chubukov_numbers():
    sc = dict(zip(HAND_CLASS_LABELS, sklansky_chubukov()))
    assert sc["AA"] == np.inf and all(np.isfinite(v) for h, v in sc.items() if h != "AA")
    # poker-red.com "Rankings de Sklansky-Chubukov": KK 953 blinds with blinds of 1-2, i.e. small blinds: 476.5 bb
    assert sc["KK"] == pytest.approx(953 / 2, rel=0.005)
    # okgioco.com "I numeri di Sklansky-Chubukov": 22 and A3o both 48 (small blinds, so 24 bb). Ours are 24.5 and
    # 24.7 bb (+2% and +3%): of the size of the half small blind by which conventions differ (whether the posted
    # small blind counts in the stack: 24.5 - 0.5 = 24.0) and of the rounding to a shared 48
    assert sc["22"] == pytest.approx(24.0, rel=0.035) and sc["A3o"] == pytest.approx(24.0, rel=0.035)
    # PokerStrategy.com "Push or Fold in Heads-up" (kick3r.free.fr copy), "Super-Villain" column, in bb
    for hand, published in (("22", 24.2), ("33", 33.1), ("44", 41.3), ("55", 50.0), ("66", 58.1)):
        assert sc[hand] == pytest.approx(published, rel=0.015)
    assert sc["AKs"] > sc["AKo"] > sc["72o"] and sc["72o"] < 2


def test_every_combo_of_a_class_has_the_class_number():
    from hunl.poker.cards import class_combos
    from hunl.preflop.equity import load_equity_table

    def gain(stack, d):
        """EV(push face up) - EV(fold) for the SB, with d the equity edges against each BB combo."""
        return np.minimum(min(1.0, stack), stack * d).mean() + min(0.5, stack)

    eq = load_equity_table()
    sc = sklansky_chubukov()
    for label in ("KQs", "T9o", "55"):
        h = parse_hand_class(label)
        for i in class_combos(h)[1:]:
            live = eq.combo_compatible[i]
            d = (eq.combo_win[i] - eq.combo_win[:, i])[live]
            assert gain(sc[h] * (1 - 1e-7), d) >= 0 > gain(sc[h] * (1 + 1e-6), d)


# ----------------------------------------------------------------------------------------- stored cards and CLI
def test_card_file_round_trip(small, tmp_path):
    reps = band_reports(small, bands=((9.5, 10.0), (10.0, 10.1)), trees=False, method="beam")
    path = tmp_path / "cards.json"
    save_rule_cards(reps, 0.0, 0.5, path)
    cards = load_rule_cards(path)
    assert [c.card for c in cards] == [c for r in reps for c in r.cards]
    assert card_for_stack(9.7, 1, path=path).card == reps[0].cards[1]
    assert card_for_stack(10.1, 0, path=path).card == reps[1].cards[0]          # top of the last band
    assert card_for_stack(12.0, 0, path=path) is None and card_for_stack(9.7, 0, ante=0.1, path=path) is None
    with pytest.raises(FileNotFoundError, match="preflop_report"):
        load_rule_cards(tmp_path / "none.json")


def test_shipped_cards_cover_1_to_25_bb_with_at_most_five_rules():
    cards = load_rule_cards()
    assert [c.card.band for c in cards[::2]] == [tuple(b) for b in DEFAULT_BANDS]
    assert all(len(c.card.clauses) <= 5 and c.mean_mbb <= c.max_mbb for c in cards)
    assert all(c.mean_mbb < 10.0 for c in cards)


def test_shipped_card_cost_is_reproduced(small):
    stored = card_for_stack(10.0, 0)
    rows = band_rows(small, (10.0, 10.1))
    cost = strategy_cost(small, 0, stored.card.strategy(), rows)
    full = solve_stacks()
    band = band_rows(full, stored.card.band)
    assert strategy_cost(full, 0, stored.card.strategy(), band).mean_mbb == pytest.approx(stored.mean_mbb, abs=1e-5)
    assert cost.loss.shape == (2,)


def test_pushfold_command(capsys):
    assert pushfold_main(["--stack", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stack"] == 10.0 and out["exploitability_mbb"] < 1e-6
    assert out["push_range"].startswith("22+,A2+,K2+") and out["mixed"]["SB"] == {"43s": pytest.approx(0.7107, abs=1e-4)}
    assert out["push_share"] == pytest.approx(0.583, abs=0.001)
    assert len(out["rule_cards"]) == 2 and all(c["cost_mbb"] >= 0 for c in out["rule_cards"])
    assert pushfold_main(["--stack", "10"]) == 0
    text = capsys.readouterr().out
    assert "Rule card, SB" in text and "SB pushes 58.3% of hands" in text and "Sklansky-Chubukov" in text
    assert pushfold_main(["--stack", "0"]) == 2
    assert "stack must be > 0" in capsys.readouterr().err
    assert pushfold_main(["--stack", "10", "--ante", "-1"]) == 2
    assert "ante" in capsys.readouterr().err


def test_pushfold_script_prints_clean_json():
    """HiGHS prints a banner on file descriptor 1 on first use; the command keeps stdout for its own output."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[3] / "scripts" / "pushfold.py"
    out = subprocess.run([sys.executable, str(script), "--stack", "4.5", "--json"], capture_output=True, text=True,
                         check=True)
    data = json.loads(out.stdout)
    assert data["stack"] == 4.5 and data["rule_cards"][0]["source"].startswith("shipped card for 4-5 bb")

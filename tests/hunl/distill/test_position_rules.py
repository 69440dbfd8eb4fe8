"""hunl.distill.position_rules.by_position: either-position rules moved into each position's section, same play;
``rule_cards.py thresholds --by-position`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.cards import CARD_FEATURES
from hunl.distill.position_rules import by_position
from hunl.distill.quantities import QUANTITIES
from rulelearn.rules.cards import CardCondition, CardRule, CardSection, RuleCard
from tests.hunl.distill.card_rows import design_rows as _rows

ROOT = Path(__file__).resolve().parents[3]


def _card(name: str) -> RuleCard:
    return RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f"{name}.json").read_text()))


def _plays(card: RuleCard, X: np.ndarray) -> np.ndarray:
    idx = card.rule_index(X, CARD_FEATURES)
    table = np.array([r.strategy for r in card.rules()] + [(np.nan,) * 4])
    return table[np.where(idx >= 0, idx, -1)]


def test_the_summary_river_card_split_by_position_plays_as_before():
    card = _card("river-moved-all").without_default_copies()
    moved, rows = by_position(card, [1, 2])
    assert moved.n_rules == card.n_rules + 2 and moved.n_conditions == card.n_conditions + 6
    assert [len(s.rules) for s in moved.sections] == [4, 8, 4, 4]
    # the copies lead each position's section, out of position first, with the rules' conditions and mixes
    rules = moved.rules()
    for k, src in zip(rows, [1, 2, 1, 2]):
        assert rules[k].conditions == card.sections[0].rules[src].conditions
        assert rules[k].strategy == card.sections[0].rules[src].strategy
    assert list(rows) == [12, 13, 16, 17]
    X = _rows(50_000, 0)
    np.testing.assert_array_equal(_plays(moved, X), _plays(card, X))


@settings(max_examples=30, deadline=None)
@given(pick=st.sets(st.integers(0, 5), min_size=1, max_size=3), seed=st.integers(0, 2**16))
def test_moving_any_disjoint_rules_changes_no_decision(pick, seed):
    card = _card("river-moved-all")            # its six either-position betting rules are pairwise disjoint
    moved, rows = by_position(card, sorted(pick))
    assert rows.size == 2 * len(pick) and moved.n_rules == card.n_rules + len(pick)
    X = _rows(20_000, seed)
    np.testing.assert_array_equal(_plays(moved, X), _plays(card, X))


def test_positional_sections_are_made_where_the_card_has_none():
    sec = (CardCondition("street", ">", 4.5), CardCondition("facing", "<=", 0.5))
    bet = CardRule((CardCondition("equity", ">", 0.8),), "bet small", (0.0, 1.0, 0.0, 0.0), 0.4)
    check = CardRule((CardCondition("equity", "<=", 0.8),), "check", (1.0, 0.0, 0.0, 0.0), 0.6)
    card = RuleCard("t", (CardSection("River, either position, not facing a bet", (bet, check), sec),), QUANTITIES)
    moved, rows = by_position(card, [0])
    assert [s.title for s in moved.sections] == ["River, either position, not facing a bet",
                                                 "River, out of position (acting first), not facing a bet",
                                                 "River, in position (acting last), not facing a bet"]
    assert list(rows) == [1, 2] and moved.rules()[1].coverage == pytest.approx(0.2)
    X = _rows(20_000, 1)
    np.testing.assert_array_equal(_plays(moved, X), _plays(card, X))


def test_a_move_that_would_change_the_play_is_refused():
    card = _card("river-moved-all")
    with pytest.raises(ValueError, match="rules"):
        by_position(card, [])
    with pytest.raises(ValueError, match="rules"):
        by_position(card, [9])
    with pytest.raises(ValueError, match="already for one position"):
        by_position(card, [0], section=2)
    sec = (CardCondition("street", ">", 4.5), CardCondition("facing", "<=", 0.5))
    wide = CardRule((CardCondition("equity", ">", 0.5),), "bet small", (0.0, 1.0, 0.0, 0.0), 0.5)
    narrow = CardRule((CardCondition("equity", ">", 0.8),), "bet big", (0.0, 0.0, 1.0, 0.0), 0.5)
    overlapping = RuleCard("t", (CardSection("River, either position, not facing a bet", (wide, narrow), sec),),
                           QUANTITIES)
    with pytest.raises(ValueError, match="rule 1"):           # "equity > 0.8" would take some of its decisions
        by_position(overlapping, [0])
    assert by_position(overlapping, [1])[0].n_rules == 3    # the last rule can go: nothing after it
    otherwise = RuleCard("t", (CardSection("River, either position, not facing a bet",
                                           (narrow, CardRule((), "check", (1.0, 0.0, 0.0, 0.0), 0.5)), sec),),
                         QUANTITIES)
    with pytest.raises(ValueError, match="rule 1"):           # "otherwise" would take its decisions
        by_position(otherwise, [0])


def test_thresholds_by_position_end_to_end(tmp_path, small_river_db):
    from hunl.distill.threshold_search import ThresholdJob, run_threshold_search

    doc = tmp_path / "HUNL.md"
    doc.write_text("# HUNL\n")
    out = tmp_path / "pos.json"
    job = ThresholdJob(card=str(ROOT / "docs" / "cards" / "river-moved-all.json"), db=str(small_river_db[0]), train=5,
                       steps=1, sweeps=1, by_position=(1, 2), position_radius=0.3, workers=1, out=str(out),
                       doc=str(doc), name="p")
    res = run_threshold_search(job)
    card = RuleCard.from_dict(json.loads(out.read_text()))
    # 20 rules: the two 'otherwise' copies gone, two betting rules one copy more each
    assert card.n_rules == 20 and [len(s.rules) for s in card.sections] == [4, 8, 4, 4]
    log = res["position_log"]
    assert len(log) >= 2 and log[-1] <= log[0] and card.meta["threshold_search"]["position_train_pct_pot"] == log
    start = _card("river-moved-all").sections[0].rules
    for k, src in zip((0, 1), (1, 2)):                        # each copy's mix within the radius of the rule's
        for sec in card.sections[2:]:
            assert np.max(np.abs(np.subtract(sec.rules[k].strategy, start[src].strategy))) <= 0.3 + 1e-9
    text = doc.read_text()
    assert "copied into each position's section" in text and "chosen for each position within 0.3" in text


def test_thresholds_by_position_rejects_a_radius_that_is_not_positive(tmp_path):
    from hunl.distill.threshold_search import ThresholdJob, run_threshold_search

    job = ThresholdJob(card=str(ROOT / "docs" / "cards" / "river-moved-all.json"), db=str(tmp_path / "none"),
                       by_position=(1,), position_radius=0.0, out=str(tmp_path / "x.json"))
    with pytest.raises(ValueError, match="position_radius"):
        run_threshold_search(job)

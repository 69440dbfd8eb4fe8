"""RuleCard.merge_equal_rules, RuleCard.with_otherwise and RuleCard.without_default_copies: fewer rules and
conditions, the same play
(rulelearn.rules.cards)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.rules.cards import CardCondition, CardRule, CardSection, Quantity, RuleCard
from rulelearn.rules.plain import share_grid

QS = (Quantity("x", "share", "x above {t}", "x at most {t}"), Quantity("y", "share", "y above {t}", "y at most {t}"))
FOLD, CALL = ("fold", (1.0, 0.0)), ("call", (0.0, 1.0))
DOCS = Path(__file__).resolve().parents[3] / "docs" / "cards"


def _rule(conds, play, coverage=0.1):
    return CardRule(tuple(CardCondition(*c) for c in conds), play[0], play[1], coverage)


def _card(*sections):
    return RuleCard("test", tuple(CardSection(f"s{k}", tuple(rules)) for k, rules in enumerate(sections)), QS)


def _plays(card, X, names=("x", "y")):
    """The strategy each row plays (NaN rows where no rule holds)."""
    idx = card.rule_index(X, names)
    table = np.array([r.strategy for r in card.rules()] + [(np.nan, np.nan)])
    return table[np.where(idx >= 0, idx, -1)]


def _rows(card, n=4000, seed=0):
    """Rows on, just above and just below every threshold of ``card``, and NaN."""
    th = sorted({c.threshold for r in card.rules() for c in r.conditions} | {0.5})
    vals = np.array(th + [t + 1e-9 for t in th] + [t - 1e-9 for t in th] + [-1.0, 2.0, np.nan])
    return np.random.default_rng(seed).choice(vals, size=(n, 2))


def test_adjacent_intervals_with_one_mix_become_one_rule():
    card = _card([_rule([("x", "<=", 0.2)], FOLD, 0.3), _rule([("x", ">", 0.2), ("x", "<=", 0.5)], FOLD, 0.2),
                  _rule([("x", ">", 0.5)], CALL, 0.5)])
    m = card.merge_equal_rules()
    assert m.n_rules == 2 and m.n_conditions == 2
    assert [r.action for r in m.rules()] == ["fold", "call"]
    assert m.rules()[0].conditions == (CardCondition("x", "<=", 0.5),)
    assert np.isclose(m.rules()[0].coverage, 0.5)
    X = _rows(card)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))


def test_a_split_that_prints_one_mix_on_both_sides_loses_its_condition():
    # the two sides of "y <= 0.3" both fold inside "x <= 0.6": one rule on x alone
    card = _card([_rule([("x", "<=", 0.6), ("y", "<=", 0.3)], FOLD), _rule([("x", "<=", 0.6), ("y", ">", 0.3)], FOLD),
                  _rule([("x", ">", 0.6)], CALL)])
    m = card.merge_equal_rules()
    assert m.n_rules == 2 and m.rules()[0].conditions == (CardCondition("x", "<=", 0.6),)
    X = _rows(card)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))


def test_nothing_merges_across_mixes_features_gaps_or_sections():
    card = _card([_rule([("x", "<=", 0.2)], FOLD), _rule([("x", ">", 0.2)], CALL)],           # other mixes
                 [_rule([("x", "<=", 0.2), ("y", "<=", 0.5)], FOLD),                           # two features differ
                  _rule([("x", ">", 0.2), ("y", ">", 0.5)], FOLD)],
                 [_rule([("x", "<=", 0.2)], FOLD), _rule([("x", ">", 0.3)], FOLD)],            # a gap between them
                 [_rule([("x", ">", 0.9)], CALL)])
    assert card.merge_equal_rules() is card


def test_no_merge_takes_a_decision_from_a_rule_in_between():
    # decisions read the first rule that holds: rows with 0.2 < x <= 0.5 and y <= 0.5 call (the middle rule)
    card = _card([_rule([("x", "<=", 0.2)], FOLD), _rule([("y", "<=", 0.5)], CALL),
                  _rule([("x", ">", 0.2), ("x", "<=", 0.5)], FOLD)])
    m = card.merge_equal_rules()
    assert m.n_rules == 3
    X = _rows(card)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))


@st.composite
def tree_cards(draw):
    """A card of the leaves of a random tree on x and y with round thresholds, each leaf folding or calling."""
    grid = [float(t) for t in share_grid()]

    def grow(box, depth):
        if depth == 0 or draw(st.booleans()):
            return [box]
        f = draw(st.sampled_from(["x", "y"]))
        lo, hi = box[f]
        inside = [t for t in grid if (lo is None or t > lo) and (hi is None or t < hi)]
        if not inside:
            return [box]
        t = draw(st.sampled_from(inside))
        return grow({**box, f: (lo, t)}, depth - 1) + grow({**box, f: (t, hi)}, depth - 1)

    rules = []
    for box in grow({"x": (None, None), "y": (None, None)}, draw(st.integers(1, 4))):
        conds = [(f, op, v) for f, (lo, hi) in box.items() for op, v in ((">", lo), ("<=", hi)) if v is not None]
        rules.append(_rule(conds, draw(st.sampled_from([FOLD, CALL])), draw(st.floats(0.01, 1.0))))
    order = draw(st.permutations(range(len(rules))))
    return _card([rules[k] for k in order])


@settings(max_examples=80, deadline=None)
@given(card=tree_cards(), seed=st.integers(0, 2**16))
def test_merging_a_tree_card_changes_no_decision(card, seed):
    m = card.merge_equal_rules()
    X = _rows(card, seed=seed)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))
    assert m.n_rules <= card.n_rules
    assert max(len(r.conditions) for r in m.rules()) <= max(len(r.conditions) for r in card.rules())
    assert np.isclose(sum(r.coverage for r in m.rules()), sum(r.coverage for r in card.rules()))
    # no two rules left that merge, and the rules are ordered by coverage
    assert m.merge_equal_rules().n_rules == m.n_rules
    cov = [r.coverage for r in m.rules()]
    assert cov == sorted(cov, reverse=True) or m is card


def test_shipped_cards_merged_play_as_printed():
    from hunl.distill.quantities import CARD_FEATURES

    rng = np.random.default_rng(1)
    merged = dropped = 0
    for path in sorted(DOCS.glob("*.json")):
        if path.stem == "betgame":
            continue
        card = RuleCard.from_dict(json.loads(path.read_text()))
        o = card.merge_equal_rules().with_otherwise()
        m = o.without_default_copies()
        merged += card.n_rules - o.n_rules
        dropped += o.n_rules - m.n_rules
        conds = [c for r in card.rules() for c in r.conditions] + [c for s in card.sections for c in s.conditions]
        th = sorted({c.threshold for c in conds})
        vals = np.array(th + [t + 1e-9 for t in th] + [t - 1e-9 for t in th] + [-5.0, 5.0, np.nan])
        X = rng.choice(vals, size=(50_000, len(CARD_FEATURES)))
        a, b = card.rule_index(X, CARD_FEATURES), m.rule_index(X, CARD_FEATURES)
        np.testing.assert_array_equal(a >= 0, b >= 0)
        sa = np.array([r.strategy for r in card.rules()])[a[a >= 0]]
        sb = np.array([r.strategy for r in m.rules()])[b[b >= 0]]
        np.testing.assert_array_equal(sa, sb)
    assert merged > 0          # some shipped card has sides of a split that print one mix
    assert dropped >= 2        # the summary river card's two rules that fold 9 in 10 before 'otherwise'


def test_the_rule_with_most_conditions_becomes_otherwise():
    card = _card([_rule([("x", "<=", 0.2)], FOLD, 0.5), _rule([("x", ">", 0.2), ("y", "<=", 0.4)], CALL, 0.3),
                  _rule([("x", ">", 0.2), ("y", ">", 0.4)], FOLD, 0.2)])
    m = card.with_otherwise()
    assert m.n_rules == 3 and m.n_conditions == card.n_conditions - 2
    assert m.rules()[-1].conditions == () and m.rules()[-1].coverage == 0.3
    assert "  - otherwise: call   [30%]" in m.to_text() and "* otherwise: call" in m.to_markdown()
    X = _rows(card)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))


def test_no_otherwise_where_the_rules_leave_a_gap_or_overlap():
    gap = _card([_rule([("x", "<=", 0.2)], FOLD), _rule([("x", ">", 0.3)], CALL)])
    overlap = _card([_rule([("x", "<=", 0.5)], FOLD), _rule([("x", ">", 0.3)], CALL)])
    top = _card([_rule([("x", "<=", 0.2)], FOLD), _rule([("x", ">", 0.2), ("x", "<=", 0.5)], CALL)])  # x > 0.5
    single = _card([_rule([("x", "<=", 0.5)], FOLD)], [_rule([("x", ">", 0.5)], CALL)])   # a gap in each section
    for card in (gap, overlap, top, single):
        assert card.with_otherwise() is card
    assert _card([_rule([], FOLD)]).with_otherwise().rules()[0].conditions == ()
    assert "always: fold" in _card([_rule([], FOLD)]).to_text()


@settings(max_examples=80, deadline=None)
@given(card=tree_cards(), seed=st.integers(0, 2**16))
def test_otherwise_on_a_tree_card_changes_no_decision(card, seed):
    m = card.merge_equal_rules().with_otherwise()
    X = _rows(card, seed=seed)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))
    if card.n_rules > 1 and m.n_rules > 1:       # a tree's leaves partition the space: the last rule is otherwise
        assert m.rules()[-1].conditions == ()
        assert m.n_conditions < card.n_conditions


def test_a_rule_that_plays_the_default_is_dropped_unless_a_rule_in_between_can_take_its_decisions():
    card = _card([_rule([("x", "<=", 0.2)], FOLD, 0.2), _rule([("y", "<=", 0.4)], CALL, 0.3),
                  _rule([("x", ">", 0.5)], FOLD, 0.1), _rule([], FOLD, 0.4)])
    m = card.without_default_copies()
    # "x > 0.5" falls to the default at once; "x <= 0.2" stays: "y <= 0.4" would take some of its decisions
    assert m.n_rules == 3 and [r.conditions for r in m.rules()][:2] == [card.rules()[0].conditions,
                                                                      card.rules()[1].conditions]
    assert m.rules()[-1].conditions == () and np.isclose(m.rules()[-1].coverage, 0.5)
    X = _rows(card)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))
    # no default, another mix, or one rule: nothing to drop
    assert _card(card.rules()[:3]).without_default_copies().n_rules == 3
    assert _card([_rule([("x", ">", 0.5)], CALL), _rule([], FOLD)]).without_default_copies().n_rules == 2
    assert _card([_rule([], FOLD)]).without_default_copies().n_rules == 1


@st.composite
def rule_lists(draw):
    """A section of 1-5 rules on random boxes of x and y (round thresholds), each folding or calling, then a
    default rule."""
    grid = [float(t) for t in share_grid()]
    rules = []
    for _ in range(draw(st.integers(1, 5))):
        conds = []
        for f in draw(st.lists(st.sampled_from(["x", "y"]), min_size=1, max_size=2, unique=True)):
            lo, hi = sorted(draw(st.lists(st.sampled_from(grid), min_size=2, max_size=2, unique=True)))
            side = draw(st.sampled_from(["lo", "hi", "both"]))
            conds += [(f, ">", lo)] * (side != "hi") + [(f, "<=", hi)] * (side != "lo")
        rules.append(_rule(conds, draw(st.sampled_from([FOLD, CALL])), draw(st.floats(0.01, 1.0))))
    rules.append(_rule([], draw(st.sampled_from([FOLD, CALL])), draw(st.floats(0.01, 1.0))))
    return _card(rules)


@settings(max_examples=100, deadline=None)
@given(card=rule_lists(), seed=st.integers(0, 2**16))
def test_dropping_copies_of_the_default_changes_no_decision(card, seed):
    m = card.without_default_copies()
    X = _rows(card, seed=seed)
    np.testing.assert_array_equal(_plays(m, X), _plays(card, X))
    assert np.isclose(sum(r.coverage for r in m.rules()), sum(r.coverage for r in card.rules()))
    assert m.without_default_copies().n_rules == m.n_rules


def test_conditions_overlap_reads_each_conjunction_as_a_box():
    from rulelearn.rules.cards import conditions_overlap

    c = CardCondition
    assert not conditions_overlap([c("x", "<=", 0.2)], [c("x", ">", 0.2)])          # adjacent intervals
    assert conditions_overlap([c("x", "<=", 0.5)], [c("x", ">", 0.2), c("y", "<=", 0.1)])
    assert conditions_overlap([], [c("x", ">", 0.9)])                              # no condition: everywhere
    assert not conditions_overlap([c("x", ">", 0.2), c("x", "<=", 0.4)], [c("x", ">", 0.4)])

"""Round numbers, plain mixes, round-threshold trees and rule cards (rulelearn.rules.plain / round_tree / cards)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.rules.cards import CardCondition, CardCost, CardRule, CardSection, Quantity, RuleCard
from rulelearn.rules.plain import (
    describe_plain_mix,
    grid_for,
    is_round,
    plain_fractions,
    plain_mixes_near,
    scale_grid,
    share_grid,
)
from rulelearn.rules.round_tree import grow_round_tree, leaf_means, n_conditions


def test_grids_are_round():
    assert 0.7 in share_grid() and 0.694 not in share_grid()
    assert {0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 10.0} <= set(scale_grid(0.1, 50))
    assert is_round(0.7, "share") and not is_round(0.694, "share")
    assert is_round(-0.05, "signed") and not is_round(0.013, "signed")
    assert is_round(40.0, "scale") and not is_round(3.7, "scale")
    assert list(grid_for("count")) == [0.5, 1.5, 2.5, 3.5]
    with pytest.raises(ValueError, match="kind"):
        grid_for("odd")


@pytest.mark.parametrize("p", [[0.66, 0.34, 0, 0], [0.13, 0.87], [0.5, 0.3, 0.2], [0.98, 0.02], [0.25] * 4,
                               [0.07, 0.11, 0.35, 0.47]])
def test_plain_fractions_sum_to_one_and_stay_close(p):
    counts, d = plain_fractions(p)
    assert counts.sum() == d and np.all(counts >= 0)
    assert np.abs(counts / d - np.asarray(p) / np.sum(p)).max() <= 0.1 + 1e-12
    assert np.gcd.reduce(np.append(counts[counts > 0], d)) == 1


def test_plain_fractions_prefer_small_denominators():
    assert plain_fractions([0.66, 0.34])[1] == 3
    assert tuple(plain_fractions([0.98, 0.02])[0]) == (1, 0)
    assert describe_plain_mix(["check", "bet"], *plain_fractions([0.36, 0.64])) == "bet 2 in 3, check 1 in 3"
    assert describe_plain_mix(["check", "bet"], np.array([1, 0]), 1) == "check"
    with pytest.raises(ValueError):
        plain_fractions([0, 0])


def _brute_near(p, radius, allowed, denominators=(1, 2, 3, 4, 5, 6, 8, 10)):
    """Every plain mix near ``p``, by enumerating all count vectors (itertools, not stars and bars)."""
    import itertools
    from fractions import Fraction

    found = set()
    for d in denominators:
        for counts in itertools.product(range(d + 1), repeat=len(p)):
            if sum(counts) != d or any(c > 0 and not a for c, a in zip(counts, allowed)):
                continue
            if max(abs(c / d - q) for c, q in zip(counts, p)) <= radius + 1e-12:
                found.add(tuple(Fraction(c, d) for c in counts))
    return found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=4).filter(lambda v: sum(v) > 0.05),
       st.floats(0.0, 0.3), st.data())
def test_plain_mixes_near_are_exactly_the_plain_mixes_within_the_radius(v, radius, data):
    p = np.asarray(v) / np.sum(v)
    allowed = np.asarray(data.draw(st.lists(st.booleans(), min_size=p.size, max_size=p.size)
                                   .filter(lambda a: any(a))))
    got = plain_mixes_near(p, radius, allowed)
    assert got.shape[1] == p.size
    assert np.allclose(got.sum(axis=1), 1.0) and np.all(got >= 0)
    assert np.all(np.abs(got - p).max(axis=1) <= radius + 1e-12) and not np.any(got[:, ~allowed] > 0)
    from fractions import Fraction

    as_fractions = {tuple(Fraction(x).limit_denominator(10) for x in row) for row in got}
    assert len(as_fractions) == got.shape[0]               # distinct
    assert as_fractions == _brute_near(p, radius, allowed)
    counts, d = plain_fractions(p)
    if allowed.all() and np.abs(counts / d - p).max() <= radius:
        assert np.any(np.all(np.isclose(got, counts / d), axis=1))   # the nearest mix is a candidate


def test_plain_mixes_near_rejects_bad_input():
    with pytest.raises(ValueError, match="radius"):
        plain_mixes_near([0.5, 0.5], -0.1)
    with pytest.raises(ValueError, match="allowed"):
        plain_mixes_near([0.5, 0.5], 0.1, [False, False])
    with pytest.raises(ValueError, match="probs"):
        plain_mixes_near([-0.5, 1.5], 0.1)
    assert plain_mixes_near([0.43, 0.57], 0.0).shape == (0, 2)


def _brute_best(x, y, grid):
    best = None
    for f in range(x.shape[1]):
        for t in grid:
            left = x[:, f] <= t
            if left.all() or not left.any():
                continue
            sse = sum(((y[m] - y[m].mean(axis=0)) ** 2).sum() for m in (left, ~left))
            if best is None or sse < best[0] - 1e-12:
                best = (sse, f, t)
    return best


def test_round_tree_finds_the_best_grid_split():
    rng = np.random.default_rng(3)
    x = rng.random((400, 3))
    y = np.stack([(x[:, 1] > 0.62) + 0.1 * rng.random(400), rng.random(400)], axis=1)
    grid = share_grid()
    tree = grow_round_tree(x, y, [grid] * 3, max_leaves=2)
    _, f, t = _brute_best(x, y, grid)
    assert (tree.feature[0], tree.threshold[0]) == (f, t)
    assert tree.threshold[0] in grid


def test_round_tree_constraints():
    rng = np.random.default_rng(0)
    m = 3000
    x = rng.random((m, 4))
    x[:, 3] = rng.integers(0, 2, m)  # a section feature
    target = (x[:, 0] > 0.3) * 0.5 + (x[:, 1] > 0.6) * 0.3 + (x[:, 2] > 0.45) * 0.2 + 0.4 * x[:, 3]
    y = np.stack([target, 1 - target], axis=1)
    grids = [share_grid()] * 3 + [[0.5]]
    tree = grow_round_tree(x, y, grids, max_leaves=30, max_conditions=2, free=[3], pure=[3])
    assert tree.feature[0] == 3  # ordinary splits wait until the leaf is pure in the section feature
    for k in range(1, tree.max_leaves + 1):
        for node in tree.leaves(k):
            assert n_conditions(tree, node, free=[3]) <= 2
    split = tree.feature >= 0
    assert all(is_round(t, "share") for t in tree.threshold[split & (tree.feature < 3)])
    leaves, means = leaf_means(tree, tree.max_leaves, x, y)
    assert means.shape == (tree.max_leaves, 2) and np.allclose(means.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="criterion"):
        grow_round_tree(x, y, grids, criterion="gini")


def _same_tree_shape(a, b, n_leaves):
    """The trees with ``n_leaves`` leaves of ``a`` and ``b`` have the same splits, in the same order."""
    def splits(t):
        return [(int(t.feature[s]), float(t.threshold[s]), tuple(str(c) for c in t.conditions(int(s))))
                for s in t.split_order[:n_leaves - 1]]
    return splits(a) == splits(b)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), cut=st.integers(1, 12), conditions=st.integers(1, 3))
def test_continued_growth_equals_growth_at_once(seed, cut, conditions):
    """Growing a tree to ``cut`` leaves, then on from there with the same targets, gives the tree grown at once
    (best-first growth is nested), renumbered but with the same splits in the same order and the same gains."""
    rng = np.random.default_rng(seed)
    m = 600
    x = rng.random((m, 4))
    x[:, 3] = rng.integers(0, 2, m)
    y = np.stack([(x[:, 0] > 0.3) * 0.6 + 0.3 * x[:, 1] + 0.2 * x[:, 3] + 0.05 * rng.random(m),
                  rng.random(m)], axis=1)
    grids = [share_grid()] * 3 + [[0.5]]
    kw = dict(max_conditions=conditions, free=[3], pure=[3], min_leaf_rows=5)
    whole = grow_round_tree(x, y, grids, max_leaves=13, **kw)
    if cut >= whole.max_leaves:
        return
    part = grow_round_tree(x, y, grids, max_leaves=cut, **kw)
    again = grow_round_tree(x, y, grids, max_leaves=13, start=part, **kw)
    assert again.max_leaves == whole.max_leaves
    assert _same_tree_shape(again, whole, whole.max_leaves)
    assert np.allclose(again.gains, whole.gains)
    for k in range(1, again.max_leaves + 1):    # parents before children: the masks are those of the whole tree
        a = again.node_masks(x)[again.leaves(k)]
        b = whole.node_masks(x)[whole.leaves(k)]
        assert sorted(map(bytes, np.packbits(a, axis=1))) == sorted(map(bytes, np.packbits(b, axis=1)))


def test_continued_growth_keeps_the_start_and_follows_new_targets():
    rng = np.random.default_rng(1)
    x = rng.random((2000, 2))
    first = grow_round_tree(x, np.stack([x[:, 0] > 0.5, x[:, 0] <= 0.5], axis=1).astype(float), [share_grid()] * 2,
                            max_leaves=2)
    assert (first.feature[0], first.threshold[0]) == (0, 0.5)
    cost = np.stack([(x[:, 1] > 0.3), (x[:, 1] <= 0.3)], axis=1).astype(float)    # now only x1 matters
    tree = grow_round_tree(x, cost, [share_grid()] * 2, max_leaves=4, criterion="cost", start=first)
    assert _same_tree_shape(tree, first, 2)
    assert [int(tree.feature[s]) for s in tree.split_order[1:]] == [1, 1]
    assert {float(tree.threshold[s]) for s in tree.split_order[1:]} == {0.3}
    with pytest.raises(ValueError, match="max_leaves"):
        grow_round_tree(x, cost, [share_grid()] * 2, max_leaves=2, criterion="cost", start=first)
    with pytest.raises(ValueError, match="features"):
        grow_round_tree(x[:, :1], cost, [share_grid()], max_leaves=4, criterion="cost", start=first)


def test_cost_criterion_picks_the_cheaper_action_by_group():
    x = np.linspace(0, 1, 200)[:, None]
    cost = np.stack([(x[:, 0] > 0.4).astype(float), (x[:, 0] <= 0.4).astype(float)], axis=1)
    tree = grow_round_tree(x, cost, [share_grid()], max_leaves=2, criterion="cost")
    assert tree.threshold[0] == pytest.approx(0.4)


Q = (Quantity("equity", "share", "your hand beats more than {t} of the range", "your hand beats at most {t} of the range",
              between="your hand beats between {lo} and {hi} of the range"),
     Quantity("bet", "scale", "the bet is more than {t} pots", "the bet is at most {t} pots"),
     Quantity("margin", "signed", "your share is more than the odds{t}", "your share is at most the odds{t}"))


def _card():
    rules = (CardRule((CardCondition("equity", ">", 0.2), CardCondition("equity", "<=", 0.7)), "check",
                      (1.0, 0.0), 0.6),
             CardRule((CardCondition("equity", ">", 0.7), CardCondition("bet", "<=", 1.0)), "bet 2 in 3, check 1 in 3",
                      (1 / 3, 2 / 3), 0.3),
             CardRule((), "bet", (0.0, 1.0), 0.1))
    return RuleCard("test card", (CardSection("first", rules),), Q, CardCost(1.5, 0.5, "% of the pot", 10, 200.0))


def test_card_text_json_and_rule_index():
    card = _card()
    assert (card.n_rules, card.n_conditions) == (3, 4)
    text = card.to_text()
    assert "your hand beats between 20% and 70% of the range: check" in text
    assert "the bet is at most 1 pots" in text and "1.50% of the pot" in text and "200 mbb/g" in text
    again = RuleCard.from_dict(json.loads(json.dumps(card.to_dict())))
    assert again == card
    X = np.array([[0.5, 2.0], [0.8, 0.5], [0.8, 3.0], [0.1, 0.5]])
    assert card.rule_index(X, ["equity", "bet"]).tolist() == [0, 1, 2, 2]
    assert Q[2].phrase(">", 0.05) == "your share is more than the odds plus 5 points"
    assert Q[2].phrase("<=", 0.0) == "your share is at most the odds"
    assert "### first" in card.to_markdown()


def test_card_rejects_unround_thresholds_and_unnamed_quantities():
    bad = CardRule((CardCondition("equity", ">", 0.694),), "check", (1.0, 0.0))
    with pytest.raises(ValueError, match="round"):
        RuleCard("t", (CardSection("s", (bad,)),), Q)
    unnamed = CardRule((CardCondition("opp_strong", ">", 0.1),), "check", (1.0, 0.0))
    with pytest.raises(ValueError, match="phrase"):
        RuleCard("t", (CardSection("s", (unnamed,)),), Q)

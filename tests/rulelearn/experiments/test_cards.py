"""Group rule cards (the bet game): round thresholds, plain LP leaves, and the printed cost re-measured."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.experiments.cards import (
    GroupCardConfig,
    card_exploitability,
    card_frontier,
    group_card,
    plain_strategy,
)
from rulelearn.rules.cards import RuleCard
from rulelearn.rules.plain import is_round
from tests.rulelearn.conftest import SMALL_FAMILY


@pytest.fixture(scope="module")
def small_games():
    return SolvedGames(SMALL_FAMILY, SMALL_FAMILY.solve_range(5, 0, 200))


CONFIG = GroupCardConfig(max_leaves=4, seeds=(0,), n_fit=60, n_score=60, min_leaf=12, papers=False)


def test_plain_strategy_rows_are_plain_and_close():
    s = np.array([[0.13, 0.87, 0.0], [0.5, 0.3, 0.2], [0.0, 0.0, 0.0]])
    p = plain_strategy(s)
    assert np.allclose(p[:2].sum(axis=1), 1.0) and np.all(p[2] == 0)
    assert np.abs(p - s).max() <= 0.05 + 1e-12


def test_card_frontier_and_card(small_games):
    frontier, fitted = card_frontier(small_games, CONFIG)
    kinds = set(frontier.leaf_kind)
    assert kinds == {"optimal, exact", "optimal, plain"}
    one = frontier[frontier.n_leaves == 1]
    assert (one.n_conditions == 0).all()
    assert frontier.groupby("leaf_kind").n_conditions.apply(lambda c: c.is_monotonic_increasing).all()
    tree, train = fitted[0]
    split = split_games(len(small_games), CONFIG.test_fraction, 0)
    n = min(3, tree.max_leaves)
    card = group_card(small_games, tree, n, train, CONFIG, 0, test=split.test)
    assert card.n_rules == n
    for r in card.rules():
        assert len(r.conditions) <= CONFIG.max_conditions
        for c in r.conditions:
            assert is_round(c.threshold, "share")
            assert card.quantity(c.feature).phrase(c.op, c.threshold).endswith(("lower", "a 1"))
    # the card's printed cost is the plain frontier's figure and a direct re-measurement from its JSON
    row = frontier[(frontier.leaf_kind == "optimal, plain") & (frontier.n_leaves == n)]
    assert card.cost.mean == pytest.approx(float(row.test_exploitability.iloc[0]), abs=1e-12)
    again = RuleCard.from_dict(json.loads(json.dumps(card.to_dict())))
    e = card_exploitability(again, small_games.subset(split.test))
    assert again.cost.mean == pytest.approx(float(e.mean()), abs=1e-12)
    assert "chips" in again.to_text()

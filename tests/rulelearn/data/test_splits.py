"""rulelearn.data.splits: seeded splits, disjoint subsets, and SolvedGames' cached ranges and subsets."""

from __future__ import annotations

import numpy as np
import pytest

from rulelearn.data.splits import SolvedGames, disjoint_subsets, split_games
from rulelearn.features.representations import Representation


def test_split_games_partitions_and_rejects_bad_fractions():
    sp = split_games(100, 0.2, seed=3)
    assert len(sp.test) == 20 and len(sp.train) == 80
    assert np.array_equal(np.sort(np.concatenate([sp.train, sp.test])), np.arange(100))
    with pytest.raises(ValueError, match="test_fraction"):
        split_games(100, 1.0)
    with pytest.raises(ValueError, match="cannot be split"):
        split_games(2, 0.01)


def test_disjoint_subsets_are_disjoint_when_the_pool_allows():
    parts = disjoint_subsets(100, 20, 5, np.random.default_rng(0))
    assert len(np.unique(np.concatenate(parts))) == 100
    assert all(np.all(np.diff(p) > 0) for p in parts)
    overlapping = disjoint_subsets(30, 20, 3, np.random.default_rng(0))
    assert all(len(np.unique(p)) == 20 for p in overlapping)
    with pytest.raises(ValueError, match="n_games"):
        disjoint_subsets(10, 11, 1, np.random.default_rng(0))


def test_solved_games_compute_once_and_share_with_subsets(games):
    fresh = SolvedGames(games.family, games.columns)
    assert fresh.ranges is fresh.ranges
    np.testing.assert_array_equal(fresh.ranges, games.family.ranges(games.columns))
    np.testing.assert_array_equal(fresh.strategies, games.family.strategies(games.columns))
    rows = np.array([5, 1, 30])
    sub = fresh.subset(rows)
    assert len(sub) == 3 and "ranges" in sub.__dict__  # sliced from the parent, not recomputed
    np.testing.assert_array_equal(sub.ranges, sub.family.ranges(sub.columns))
    np.testing.assert_allclose(sub.player1_exploitability(sub.strategies), np.zeros(3), atol=1e-8)
    first = fresh.first(10)
    assert first.columns["game_id"].tolist() == list(range(10))
    data = fresh.represent(Representation("cdf", "index"))
    assert data.feature_names[-1] == "card"  # the bet game's hand noun


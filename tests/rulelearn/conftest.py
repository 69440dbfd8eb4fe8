"""A tiny bet-game database shared by the rulelearn tests (solved once per test session)."""

from __future__ import annotations

import numpy as np
import pytest

from games.betgame.family import BetGameFamily
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.family import load_family

N_GAMES = 240
#: A small bet game (4 cards, 4 bets) whose group LPs solve in milliseconds: the rule-set tests' family.
SMALL_FAMILY = BetGameFamily(n_cards=4, stack=2.0, bets=(0.0, 0.5, 1.0, 2.0))


@pytest.fixture(scope="session")
def family():
    return load_family("betgame")


@pytest.fixture(scope="session")
def games(family):
    return SolvedGames(family, family.solve_range(7, 0, N_GAMES))


@pytest.fixture(scope="session")
def split():
    return split_games(N_GAMES, 0.25, seed=1)


@pytest.fixture(scope="session")
def small_db():
    """120 games of :data:`SMALL_FAMILY` and their whole-game cdf features ``(columns, X)``."""
    cols = SMALL_FAMILY.solve_range(5, 0, 120)
    ranges = SMALL_FAMILY.ranges(cols)
    return cols, np.cumsum(ranges, axis=-1).reshape(len(ranges), -1)

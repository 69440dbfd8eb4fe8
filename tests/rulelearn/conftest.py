"""A tiny bet-game database shared by the rulelearn tests (solved once per test session)."""

from __future__ import annotations

import pytest

from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.family import load_family

N_GAMES = 240


@pytest.fixture(scope="session")
def family():
    return load_family("betgame")


@pytest.fixture(scope="session")
def games(family):
    return SolvedGames(family, family.solve_range(7, 0, N_GAMES))


@pytest.fixture(scope="session")
def split():
    return split_games(N_GAMES, 0.25, seed=1)

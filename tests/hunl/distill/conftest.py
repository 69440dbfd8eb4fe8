"""Fixtures shared by the card tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def small_river_db(tmp_path_factory):
    """``(path, family)``: a solution database of 8 small river endgames (ranges of at most 40 combos, 60 DCFR
    iterations, seed 0), solved once per session, and its family; the tests only read it."""
    from hunl.distill.family import HoldemRiverFamily
    from rulelearn.data.database import SolutionDatabase

    path = tmp_path_factory.mktemp("small_river") / "db"
    family = HoldemRiverFamily(max_combos=40, iterations=60, target_pct_pot=1.0)
    SolutionDatabase(path).generate(family, 8, seed=0, workers=1, progress=False, family_params=family.params())
    return path, family

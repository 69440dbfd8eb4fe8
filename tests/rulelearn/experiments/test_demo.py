"""rulelearn.experiments.demo: the main job's pieces (the whole job runs in tests/rulelearn/test_cli.py)."""

from __future__ import annotations

import pytest

from rulelearn.experiments import demo as ex
from rulelearn.features.representations import Representation


def test_depth_curve_keeps_its_columns(games, split):
    curve = ex.depth_curve(games, split, depths=[1, 2], representations=[Representation()])
    assert list(curve.columns) == ["representation", "depth", "rules", "emd", "exploitability"]
    assert curve["rules"].tolist() == [2, 4]


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.2, float("nan")])
def test_minimum_games_refuses_a_fraction_that_would_never_end(fraction):
    with pytest.raises(ValueError, match="test_fraction must be in"):
        ex.minimum_games(test_fraction=fraction)


def test_minimum_games_of_the_default_learners():
    assert ex.minimum_games() == 19

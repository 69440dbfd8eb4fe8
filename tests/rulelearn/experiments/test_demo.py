"""rulelearn.experiments.demo: the main job's pieces (the whole job runs in tests/rulelearn/test_cli.py)."""

from __future__ import annotations

from rulelearn.experiments import demo as ex
from rulelearn.features.representations import Representation


def test_depth_curve_keeps_its_columns(games, split):
    curve = ex.depth_curve(games, split, depths=[1, 2], representations=[Representation()])
    assert list(curve.columns) == ["representation", "depth", "rules", "emd", "exploitability"]
    assert curve["rules"].tolist() == [2, 4]

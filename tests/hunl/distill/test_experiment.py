"""hunl.distill.experiment.PipelineJob and scripts/hunl_pipeline.py: depths are checked before any work."""

import importlib.util
from pathlib import Path

import pytest

from hunl.distill.experiment import PipelineJob

ROOT = Path(__file__).resolve().parents[3]


def _script():
    spec = importlib.util.spec_from_file_location("hunl_pipeline_cli", ROOT / "scripts" / "hunl_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_defaults_are_consistent():
    job = PipelineJob()
    assert job.depth in job.depths and set(job.optimal_depths) <= set(job.depths) | {job.rule_depth}


@pytest.mark.parametrize("kw, match", [
    (dict(depth=7), r"depth \(7\) must be one of depths"),
    (dict(optimal_depths=(2, 9)), r"optimal_depths \[9\] must be among depths"),
])
def test_inconsistent_depths_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        PipelineJob(**kw)


def test_optimal_depth_may_be_the_rule_depth():
    assert PipelineJob(depths=(2, 6), depth=6, optimal_depths=(3,), rule_depth=3).optimal_depths == (3,)


def test_the_script_adds_the_depth_and_refuses_stray_optimal_depths(capsys):
    cli = _script()
    assert 7 in cli.parse_args(["--depth", "7"]).depths
    with pytest.raises(SystemExit) as exc:
        cli.parse_args(["--optimal-depths", "9"])
    assert exc.value.code == 2 and "--optimal-depths [9] must be among" in capsys.readouterr().err

"""The reproduction end to end on 1,000 games: every key docs/REPRODUCTION.md marks is produced, the extra stages
run and are recorded, and --render-only rewrites the doc from the pickled results."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rulelearn.experiments.reproduction import ReproductionJob, render_only, reproduce

ROOT = Path(__file__).resolve().parents[3]


def test_reproduction_renders_the_real_doc(tmp_path):
    doc = tmp_path / "REPRODUCTION.md"
    shutil.copy(ROOT / "docs" / "REPRODUCTION.md", doc)
    job = ReproductionJob(games=1000, db=str(tmp_path / "db"), workers=1, jobs=1, tree_games=1000, table_games=1000,
                          table_depth=4, min_depth=3, max_depth=5, repeats=1, out=str(tmp_path / "out"),
                          figures=str(tmp_path / "figures"), results=str(tmp_path / "results.json"), doc=str(doc))
    calls = []
    assert reproduce(job, {"rules: a study": lambda: calls.append(1) or 0}) == 0
    text = doc.read_text()
    assert calls == [1] and "- `scripts/a study`: exit code 0" in text
    values = json.loads((tmp_path / "results.json").read_text())["values"]
    assert values["n_games"].replace(",", "").isdigit() and values["table_depth"] == "4"
    assert len(list((tmp_path / "figures").glob("repro_*.png"))) == 8
    marked = f"<!--v:n_games-->{values['n_games']}<!--/v-->"
    doc.write_text(doc.read_text().replace(marked, "<!--v:n_games-->stale<!--/v-->"))
    assert render_only(job) == 0 and doc.read_text() == text


def test_render_only_refuses_no_doc(capsys):
    import importlib.util

    import pytest

    script = Path(__file__).resolve().parents[3] / "scripts" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce_cli", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(SystemExit) as exc:
        module.parse_args(["--render-only", "--no-doc"])
    assert exc.value.code == 2 and "cannot be combined with --no-doc" in capsys.readouterr().err
    assert module.parse_args(["--render-only"]).render_only

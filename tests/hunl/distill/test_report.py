"""hunl.distill.report.frontier_figure: the pipeline's frontier figure from saved results."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_baseline_gets_its_line(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from hunl.distill.report import frontier_figure

    results = json.loads((ROOT / "docs" / "hunl_results.json").read_text())
    results["baselines"] = {**results["baselines"], "a fourth baseline": {"exploitability_pct_pot": 50.0}}
    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (figures.append(fig), close(fig)))
    frontier_figure(tmp_path / "f" / "frontier.png", results)
    assert (tmp_path / "f" / "frontier.png").stat().st_size > 10_000
    labels = [t.get_text() for t in figures[0].axes[0].get_legend().get_texts()]
    assert set(results["baselines"]) <= set(labels) and "DCFR solution" in labels

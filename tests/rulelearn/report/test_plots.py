"""rulelearn.report.plots: every figure of the reproduction is written from the experiments' tables."""

from __future__ import annotations

from rulelearn.experiments import neighbours as nb
from rulelearn.experiments import trees
from rulelearn.features.representations import Representation


def test_plots_write_pngs(games, split, tmp_path):
    from rulelearn.report import plots

    sweep = trees.tree_sweep(games, split,
        representations={1: Representation(), 3: Representation("cdf", "index")},
        depths=[2, 3],
    )
    knn = nb.knn_fraction_curve(games, fractions=(0.5,), n_games=40, repeats=2, variants=("cdf",))
    big = nb.knn_learning_curve(games, split, [10, 20])
    km = nb.kmedoids_paper_scale(games, ks=(2, 3), n_games=40, repeats=2)
    res = nb.medoid_tree(games, split, n_clusters=3)
    calls = [
        (plots.plot_tree_sweep, sweep),
        (plots.plot_tree_nodes, sweep),
        (plots.plot_exploitability_depth, sweep),
        (plots.plot_knn_fraction, knn),
        (plots.plot_knn_learning_curve, big),
        (plots.plot_medoid_tree, res),
    ]
    for k, (fn, data) in enumerate(calls):
        fn(data, tmp_path / f"{k}.png", title="t")
    plots.plot_kmedoids(km, nb.kmedoids_errors(games, split, ks=(2,)), tmp_path / "km.png")
    for f in list(tmp_path.glob("*.png")):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
    assert len(list(tmp_path.glob("*.png"))) == len(calls) + 1

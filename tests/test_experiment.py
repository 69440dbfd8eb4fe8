"""rulelearn.experiment on a tiny database: shapes, known values, invariants."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from rulelearn import experiment as ex
from rulelearn.distance import output_emd, strategy_cumulative
from rulelearn.family import load_family
from rulelearn.learners import StrategyTree
from rulelearn.representations import Representation

N_GAMES = 240


@pytest.fixture(scope="module")
def family():
    return load_family("betgame")


@pytest.fixture(scope="module")
def columns(family):
    return family.solve_range(7, 0, N_GAMES)


@pytest.fixture(scope="module")
def split():
    return ex.split_games(N_GAMES, 0.25, seed=1)


def _reproduce_module():
    path = Path(__file__).resolve().parents[1] / "scripts" / "reproduce.py"
    spec = importlib.util.spec_from_file_location("reproduce_script", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is created
    spec.loader.exec_module(mod)
    return mod


# ------------------------------------------------------------------------------------------ splits, registry


def test_split_games_partitions_and_rejects_bad_fractions():
    sp = ex.split_games(100, 0.2, seed=3)
    assert len(sp.test) == 20 and len(sp.train) == 80
    assert np.array_equal(np.sort(np.concatenate([sp.train, sp.test])), np.arange(100))
    with pytest.raises(ValueError, match="test_fraction"):
        ex.split_games(100, 1.0)
    with pytest.raises(ValueError, match="cannot be split"):
        ex.split_games(2, 0.01)


def test_numbered_representations_follow_the_paper():
    reps = ex.numbered_representations()
    names = {n: r.name for n, r in reps.items()}
    assert names == {
        1: "cdf",
        2: "pdf",
        3: "cdf-card",
        4: "pdf-card",
        5: "cdf-card-cdf",
        6: "pdf-card-cdf",
        7: "cdf-card-sampled",
        8: "pdf-card-sampled",
        9: "cdf-card-cdf-sampled",
        10: "pdf-card-cdf-sampled",
    }


# ------------------------------------------------------------------------------------------- tree truncation


@pytest.mark.parametrize(
    "rep",
    [Representation("cdf", None), Representation("pdf", "index"), Representation("cdf", "cdf")],
    ids=lambda r: r.name,
)
def test_truncation_equals_refitting_at_shallow_depths(family, columns, split, rep):
    """A depth-D tree cut at depth d is the tree grown with max_depth=d (no tied splits near the root)."""
    R, S = family.ranges(columns), family.strategies(columns)
    tr, te = rep.transform(R[split.train], S[split.train]), rep.transform(R[split.test])
    deep = StrategyTree(10).fit(tr.X, tr.Y)
    slices = ex.predict_by_depth(deep, te.X, [1, 2, 3, 4, 50])
    for sl in slices[:-1]:
        small = StrategyTree(sl.depth).fit(tr.X, tr.Y)
        np.testing.assert_allclose(sl.rows, small.predict(te.X), atol=1e-12)
        assert sl.nodes == small.tree_.tree_.node_count
        assert sl.leaves == small.model_size[0]
    # a depth limit beyond the tree's depth gives the tree itself
    np.testing.assert_allclose(slices[-1].rows, deep.predict(te.X), atol=1e-12)
    assert slices[-1].leaves == deep.model_size[0]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(20, 120), depth=st.integers(0, 8))
def test_truncated_prediction_is_the_training_mean_of_its_node(seed, n, depth):
    """Property: every cut node predicts the mean cumulative strategy of the training rows that reach it."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    Y = rng.dirichlet(np.ones(4), size=(n, 2))
    tree = StrategyTree(8).fit(X, Y)
    (sl,) = ex.predict_by_depth(tree, X, [depth])
    cum_pred = strategy_cumulative(sl.rows)
    cum_true = strategy_cumulative(Y)
    # rows with the same prediction share a node; a node's prediction is their mean
    keys = np.unique(np.round(cum_pred.reshape(n, -1), 12), axis=0, return_inverse=True)[1].ravel()
    for k in np.unique(keys):
        rows = keys == k
        np.testing.assert_allclose(cum_pred[rows][0], cum_true[rows].mean(0), atol=1e-9)
    assert len(np.unique(keys)) <= sl.leaves <= 2**depth
    assert sl.nodes == 2 * sl.leaves - 1


def test_predict_by_depth_rejects_bad_depths(family, columns):
    R, S = family.ranges(columns), family.strategies(columns)
    tree = StrategyTree(3).fit(Representation().transform(R, S).X, S)
    for bad in ([], [-1], [2.5], [True]):
        with pytest.raises(ValueError, match="depths"):
            ex.predict_by_depth(tree, Representation().transform(R).X, bad)


# ----------------------------------------------------------------------------------------- sweeps and tables


def test_tree_sweep_shapes_and_ranges(family, columns, split):
    sweep = ex.tree_sweep(family, columns, split, depths=range(2, 7), n_jobs=2)
    reps = ex.numbered_representations()
    assert len(sweep) == 5 * len(reps)
    assert set(sweep["number"]) == set(reps)
    assert sweep["emd"].between(0, 1).all()
    assert (sweep["exploitability"] >= -1e-9).all() and (sweep["exploitability_max"] <= 3.5).all()
    assert (sweep["nodes"] == 2 * sweep["leaves"] - 1).all()
    for _, df in sweep.groupby("number"):
        assert np.all(np.diff(df.sort_values("depth")["nodes"].to_numpy()) >= 0)
        assert df["leaves"].max() <= 2**6
    # at depth 2 the tree is grown the same way whatever the depth limit: the sweep equals a depth-2 fit
    rep = reps[1]
    R, S = family.ranges(columns), family.strategies(columns)
    tree = StrategyTree(2).fit(rep.transform(R[split.train]).X, S[split.train])
    pred = tree.predict(rep.transform(R[split.test]).X)
    row = sweep[(sweep["number"] == 1) & (sweep["depth"] == 2)].iloc[0]
    assert row["emd"] == pytest.approx(float(np.mean(output_emd(pred, S[split.test]))), abs=1e-12)


def test_sampled_representations_are_scored_by_their_most_frequent_bet(family, columns, split):
    reps = {n: r for n, r in ex.numbered_representations().items() if r.output == "sampled"}
    assert sorted(reps) == [7, 8, 9, 10]
    sweep = ex.tree_sweep(family, columns, split, representations=reps, depths=[3, 12])
    assert sweep[["emd_mixed", "exploitability_mixed"]].notna().all().all()
    assert sweep[["emd", "emd_mixed"]].apply(lambda c: c.between(0, 1)).all().all()
    # the primary score is that of the one-hot mode of the leaf's mix: recompute it for one representation
    number, rep = next(iter(reps.items()))
    R, S = family.ranges(columns), family.strategies(columns)
    tree = StrategyTree(3).fit(
        rep.transform(R[split.train], S[split.train]).X, rep.transform(R[split.train], S[split.train]).Y
    )
    mixed = rep.assemble(tree.predict(rep.transform(R[split.test]).X), len(split.test))
    row = sweep[(sweep["number"] == number) & (sweep["depth"] == 3)].iloc[0]
    assert row["emd"] == pytest.approx(
        float(np.mean(output_emd(ex.single_bet(mixed), S[split.test]))), abs=1e-12
    )
    assert row["emd_mixed"] == pytest.approx(float(np.mean(output_emd(mixed, S[split.test]))), abs=1e-12)


def test_single_bet_is_the_one_hot_mode():
    s = np.array([[[0.2, 0.5, 0.3], [0.5, 0.5, 0.0]]])
    out = ex.single_bet(s)
    np.testing.assert_array_equal(out, [[[0, 1, 0], [1, 0, 0]]])
    assert out.dtype == np.float64


def test_depth_curve_keeps_its_columns(family, columns, split):
    curve = ex.depth_curve(family, columns, split, depths=[1, 2], representations=[Representation()])
    assert list(curve.columns) == ["representation", "depth", "rules", "emd", "exploitability"]
    assert curve["rules"].tolist() == [2, 4]


def test_tree_table_invariants(family, columns, split):
    table = ex.tree_table(family, columns, split, depth=30, n_jobs=2)
    assert table["number"].tolist() == [1, 2, 3, 4, 5, 6]
    # the EMD is a norm of cumulative differences, so the EMD of the means is at most the mean EMD
    assert (table["emd_of_means"] <= table["emd"] + 1e-12).all()
    assert table[["emd", "emd_paper_tree", "train_emd"]].apply(lambda c: c.between(0, 1)).all().all()
    # a whole-game tree deeper than log2(n_train) memorises its (distinct) training games exactly
    whole = table[table["number"] <= 2]
    assert (whole["train_emd"] < 1e-12).all()
    assert (table["r2"] <= 1).all() and (table["r2_paper_tree"] <= 1).all()
    with pytest.raises(ValueError, match="depth"):
        ex.tree_table(family, columns, split, depth=0)


# ------------------------------------------------------------------------------------------------------ k-NN


def test_knn_on_its_own_training_set_has_zero_error(family, columns):
    """1-NN finds each training game itself: EMD 0 and the exploitability of an equilibrium (0)."""
    idx = np.arange(60)
    curve = ex.knn_learning_curve(
        family, columns, ex.Split(idx, idx), [60], variants=("cdf", "pdf", "cdf-card")
    )
    assert np.allclose(curve["emd"], 0.0)
    assert np.all(np.abs(curve["exploitability_max"]) < 1e-7)
    assert curve["same_card"].tolist() == [1.0, 1.0, 1.0]


def test_knn_pdf_distance_is_l1_between_pdfs(family, columns, split):
    """The "pdf" metric is Algorithm 1 applied to pdf features: the L1 distance between the pdfs."""
    R, S = family.ranges(columns), family.strategies(columns)
    curve = ex.knn_learning_curve(family, columns, split, [len(split.train)], variants=("pdf",))
    pdf = R.reshape(len(R), -1)
    nearest = cdist(pdf[split.test], pdf[split.train], "cityblock").argmin(1)
    pred = S[split.train][nearest]
    assert curve["emd"].iloc[0] == pytest.approx(float(np.mean(output_emd(pred, S[split.test]))), abs=1e-12)


def test_knn_fraction_curve_shapes(family, columns):
    fr = (0.2, 0.5, 0.8)
    curve = ex.knn_fraction_curve(family, columns, fractions=fr, n_games=50, repeats=2, seed=3)
    assert len(curve) == 2 * len(fr) * 5
    assert (curve["n_train"] + curve["n_test"] == 50).all()
    assert curve.groupby("train_fraction")["n_train"].first().tolist() == [10, 25, 40]
    assert curve["emd"].between(0, 1).all() and curve["same_card"].between(0, 1).all()
    # the card number dominates the Manhattan distance: per-card rows pick the same card of the nearest game
    pair = curve.pivot_table(index=["repeat", "train_fraction"], columns="variant", values="emd")
    np.testing.assert_allclose(pair["cdf-card"], pair["cdf"], atol=1e-12)
    with pytest.raises(ValueError, match="variants"):
        ex.knn_fraction_curve(family, columns, fractions=fr, n_games=50, repeats=1, variants=("cdf-beats",))
    with pytest.raises(ValueError, match="n_games"):
        ex.knn_fraction_curve(family, columns, n_games=N_GAMES + 1, repeats=1)


def test_knn_learning_curve_rejects_bad_sizes(family, columns, split):
    with pytest.raises(ValueError, match="train_sizes"):
        ex.knn_learning_curve(family, columns, split, [0])


# ------------------------------------------------------------------------------------------------- k-medoids


def test_kmedoids_with_every_game_a_medoid_is_exact(family, columns):
    idx = np.arange(40)
    df = ex.kmedoids_errors(family, columns, ex.Split(idx, idx), ks=(40,), metrics=("cdf",))
    assert df["emd"].iloc[0] == pytest.approx(0.0, abs=1e-12)
    assert df["inertia"].iloc[0] == pytest.approx(0.0, abs=1e-12)


def test_kmedoids_tables(family, columns, split):
    df = ex.kmedoids_errors(family, columns, split, ks=(1, 3))
    assert len(df) == 4 and set(df["features"]) == {"cdf", "pdf"}
    assert (df["inertia"] >= 0).all() and df["emd"].between(0, 1).all()
    small = ex.kmedoids_paper_scale(family, columns, ks=(2, 3), n_games=60, repeats=3)
    assert len(small) == 2 * 2 * 3 and set(small["repeat"]) == {0, 1, 2}
    assert (small["n_train"] == 48).all() and (small["n_test"] == 12).all()
    with pytest.raises(ValueError, match="metric"):
        ex.kmedoids_errors(family, columns, split, metrics=("l2",))


def test_medoid_tree_separates_the_medoids(family, columns, split):
    res = ex.medoid_tree(family, columns, split, n_clusters=4, n_first=20)
    km = res.model.learner_.kmedoids_
    assert res.leaves == 4 and 1 <= res.depth <= 3
    # the tree is fitted on the medoids alone, so it plays each medoid's own strategy in that medoid's game
    R = family.ranges(columns)[split.train][km.medoid_indices_]
    np.testing.assert_allclose(res.model.predict(R), km.medoid_targets_)
    assert 0 <= res.agreement <= 1 and res.n_first == 20 and res.n_test == len(split.test)
    assert 0 < res.emd < 1 and res.exploitability >= 0 and 1 <= len(res.split_features) <= 3


def test_bet_size_tree_predicts_bet_sizes(family, columns, split):
    res = ex.bet_size_tree(family, columns, split, number=9, depth=3)
    sizes = np.array([float(r.strategy) for r in res.rules])
    assert 1 <= len(res.rules) <= 8 and np.all((sizes >= 0) & (sizes <= 3))
    assert sum(r.n_samples for r in res.rules) == res.n_rows == 10 * len(split.train)
    assert res.root_feature in [c.name for r in res.rules for c in r.conditions]
    assert 0 < res.emd < 1 and res.exploitability >= 0
    with pytest.raises(ValueError, match="sampled"):
        ex.bet_size_tree(family, columns, split, number=1)


# ------------------------------------------------------------------------------------------ script and plots


def test_render_replaces_markers_and_refuses_stale_keys():
    mod = _reproduce_module()
    doc = "a <!--v:x-->old<!--/v--> b\n<!--block:t-->\nold table\n<!--/block:t-->\nend\n"
    new = mod.render(doc, {"x": "0.123"}, {"t": "| a |\n"})
    assert new == "a <!--v:x-->0.123<!--/v--> b\n<!--block:t-->\n| a |\n<!--/block:t-->\nend\n"
    assert mod.render(new, {"x": "0.123"}, {"t": "| a |\n"}) == new
    with pytest.raises(KeyError, match="x"):
        mod.render(doc, {}, {"t": ""})
    table = mod.markdown_table(pd.DataFrame({"rep": ["cdf"], "emd": [0.12345]}), {"emd": ".3f"})
    assert table == "| rep | emd |\n|---|---:|\n| cdf | 0.123 |\n"


def test_plots_write_pngs(family, columns, split, tmp_path):
    from rulelearn import plots

    sweep = ex.tree_sweep(
        family,
        columns,
        split,
        representations={1: Representation(), 3: Representation("cdf", "index")},
        depths=[2, 3],
    )
    knn = ex.knn_fraction_curve(family, columns, fractions=(0.5,), n_games=40, repeats=2, variants=("cdf",))
    big = ex.knn_learning_curve(family, columns, split, [10, 20])
    km = ex.kmedoids_paper_scale(family, columns, ks=(2, 3), n_games=40, repeats=2)
    res = ex.medoid_tree(family, columns, split, n_clusters=3)
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
    plots.plot_kmedoids(km, ex.kmedoids_errors(family, columns, split, ks=(2,)), tmp_path / "km.png")
    for f in list(tmp_path.glob("*.png")):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
    assert len(list(tmp_path.glob("*.png"))) == len(calls) + 1

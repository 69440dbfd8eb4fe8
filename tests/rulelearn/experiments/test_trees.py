"""rulelearn.experiments.trees on a tiny database: shapes, known values, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.experiments import trees as ex
from rulelearn.features.distance import output_emd, strategy_cumulative
from rulelearn.features.representations import Representation
from rulelearn.learners import StrategyTree


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


@pytest.mark.parametrize(
    "rep",
    [Representation("cdf", None), Representation("pdf", "index"), Representation("cdf", "cdf")],
    ids=lambda r: r.name,
)
def test_truncation_equals_refitting_at_shallow_depths(games, split, rep):
    """A depth-D tree cut at depth d is the tree grown with max_depth=d (no tied splits near the root)."""
    R, S = games.ranges, games.strategies
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


def test_predict_by_depth_rejects_bad_depths(games):
    R, S = games.ranges, games.strategies
    tree = StrategyTree(3).fit(Representation().transform(R, S).X, S)
    for bad in ([], [-1], [2.5], [True]):
        with pytest.raises(ValueError, match="depths"):
            ex.predict_by_depth(tree, Representation().transform(R).X, bad)


def test_tree_sweep_shapes_and_ranges(games, split):
    sweep = ex.tree_sweep(games, split, depths=range(2, 7), n_jobs=2)
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
    R, S = games.ranges, games.strategies
    tree = StrategyTree(2).fit(rep.transform(R[split.train]).X, S[split.train])
    pred = tree.predict(rep.transform(R[split.test]).X)
    row = sweep[(sweep["number"] == 1) & (sweep["depth"] == 2)].iloc[0]
    assert row["emd"] == pytest.approx(float(np.mean(output_emd(pred, S[split.test]))), abs=1e-12)


def test_sampled_representations_are_scored_by_their_most_frequent_bet(games, split):
    reps = {n: r for n, r in ex.numbered_representations().items() if r.output == "sampled"}
    assert sorted(reps) == [7, 8, 9, 10]
    sweep = ex.tree_sweep(games, split, representations=reps, depths=[3, 12])
    assert sweep[["emd_mixed", "exploitability_mixed"]].notna().all().all()
    assert sweep[["emd", "emd_mixed"]].apply(lambda c: c.between(0, 1)).all().all()
    # the primary score is that of the one-hot mode of the leaf's mix: recompute it for one representation
    number, rep = next(iter(reps.items()))
    R, S = games.ranges, games.strategies
    tree = StrategyTree(3).fit(
        rep.transform(R[split.train], S[split.train]).X, rep.transform(R[split.train], S[split.train]).Y
    )
    mixed = rep.assemble(tree.predict(rep.transform(R[split.test]).X), len(split.test))
    row = sweep[(sweep["number"] == number) & (sweep["depth"] == 3)].iloc[0]
    assert row["emd"] == pytest.approx(
        float(np.mean(output_emd(ex.most_probable_action(mixed), S[split.test]))), abs=1e-12
    )
    assert row["emd_mixed"] == pytest.approx(float(np.mean(output_emd(mixed, S[split.test]))), abs=1e-12)


def test_most_probable_action_is_the_one_hot_mode():
    s = np.array([[[0.2, 0.5, 0.3], [0.5, 0.5, 0.0]]])
    out = ex.most_probable_action(s)
    np.testing.assert_array_equal(out, [[[0, 1, 0], [1, 0, 0]]])
    assert out.dtype == np.float64


def test_tree_table_invariants(games, split):
    table = ex.tree_table(games, split, depth=30, n_jobs=2)
    assert table["number"].tolist() == [1, 2, 3, 4, 5, 6]
    # the EMD is a norm of cumulative differences, so the EMD of the means is at most the mean EMD
    assert (table["emd_of_means"] <= table["emd"] + 1e-12).all()
    assert table[["emd", "emd_paper_tree", "train_emd"]].apply(lambda c: c.between(0, 1)).all().all()
    # a whole-game tree deeper than log2(n_train) memorises its (distinct) training games exactly
    whole = table[table["number"] <= 2]
    assert (whole["train_emd"] < 1e-12).all()
    assert (table["r2"] <= 1).all() and (table["r2_paper_tree"] <= 1).all()
    with pytest.raises(ValueError, match="depth"):
        ex.tree_table(games, split, depth=0)


def test_action_value_tree_predicts_bet_sizes(games, split):
    res = ex.action_value_tree(games, split, number=9, depth=3)
    sizes = np.array([float(r.strategy) for r in res.rules])
    assert 1 <= len(res.rules) <= 8 and np.all((sizes >= 0) & (sizes <= 3))
    assert sum(r.n_samples for r in res.rules) == res.n_rows == 10 * len(split.train)
    assert res.root_feature in [c.name for r in res.rules for c in r.conditions]
    assert 0 < res.emd < 1 and res.exploitability >= 0
    with pytest.raises(ValueError, match="sampled"):
        ex.action_value_tree(games, split, number=1)

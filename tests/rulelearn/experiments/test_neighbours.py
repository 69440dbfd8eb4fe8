"""rulelearn.experiments.neighbours on a tiny database: k-NN curves, k-medoids, the medoid tree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from rulelearn.data.splits import Split
from rulelearn.experiments import neighbours as ex
from rulelearn.features.distance import output_emd

N_GAMES = 240


def test_knn_on_its_own_training_set_has_zero_error(games):
    """1-NN finds each training game itself: EMD 0 and the exploitability of an equilibrium (0)."""
    idx = np.arange(60)
    curve = ex.knn_learning_curve(games, Split(idx, idx), [60], variants=("cdf", "pdf", "cdf-card")
    )
    assert np.allclose(curve["emd"], 0.0)
    assert np.all(np.abs(curve["exploitability_max"]) < 1e-7)
    assert curve["same_hand"].tolist() == [1.0, 1.0, 1.0]


def test_knn_pdf_distance_is_l1_between_pdfs(games, split):
    """The "pdf" metric is Algorithm 1 applied to pdf features: the L1 distance between the pdfs."""
    R, S = games.ranges, games.strategies
    curve = ex.knn_learning_curve(games, split, [len(split.train)], variants=("pdf",))
    pdf = R.reshape(len(R), -1)
    nearest = cdist(pdf[split.test], pdf[split.train], "cityblock").argmin(1)
    pred = S[split.train][nearest]
    assert curve["emd"].iloc[0] == pytest.approx(float(np.mean(output_emd(pred, S[split.test]))), abs=1e-12)


def test_knn_fraction_curve_shapes(games):
    fr = (0.2, 0.5, 0.8)
    curve = ex.knn_fraction_curve(games, fractions=fr, n_games=50, repeats=2, seed=3)
    assert len(curve) == 2 * len(fr) * 5
    assert (curve["n_train"] + curve["n_test"] == 50).all()
    assert curve.groupby("train_fraction")["n_train"].first().tolist() == [10, 25, 40]
    assert curve["emd"].between(0, 1).all() and curve["same_hand"].between(0, 1).all()
    # the card number dominates the Manhattan distance: per-card rows pick the same card of the nearest game
    pair = curve.pivot_table(index=["repeat", "train_fraction"], columns="variant", values="emd")
    np.testing.assert_allclose(pair["cdf-card"], pair["cdf"], atol=1e-12)
    with pytest.raises(ValueError, match="variants"):
        ex.knn_fraction_curve(games, fractions=fr, n_games=50, repeats=1, variants=("cdf-beats",))
    with pytest.raises(ValueError, match="n_games"):
        ex.knn_fraction_curve(games, n_games=N_GAMES + 1, repeats=1)


def test_knn_learning_curve_rejects_bad_sizes(games, split):
    with pytest.raises(ValueError, match="train_sizes"):
        ex.knn_learning_curve(games, split, [0])


def test_kmedoids_with_every_game_a_medoid_is_exact(games):
    idx = np.arange(40)
    df = ex.kmedoids_errors(games, Split(idx, idx), ks=(40,), metrics=("cdf",))
    assert df["emd"].iloc[0] == pytest.approx(0.0, abs=1e-12)
    assert df["inertia"].iloc[0] == pytest.approx(0.0, abs=1e-12)


def test_kmedoids_tables(games, split):
    df = ex.kmedoids_errors(games, split, ks=(1, 3))
    assert len(df) == 4 and set(df["features"]) == {"cdf", "pdf"}
    assert (df["inertia"] >= 0).all() and df["emd"].between(0, 1).all()
    small = ex.kmedoids_paper_scale(games, ks=(2, 3), n_games=60, repeats=3)
    assert len(small) == 2 * 2 * 3 and set(small["repeat"]) == {0, 1, 2}
    assert (small["n_train"] == 48).all() and (small["n_test"] == 12).all()
    with pytest.raises(ValueError, match="metric"):
        ex.kmedoids_errors(games, split, metrics=("l2",))


def test_medoid_tree_separates_the_medoids(games, split):
    res = ex.medoid_tree(games, split, n_clusters=4, n_first=20)
    km = res.model.learner_.kmedoids_
    assert res.leaves == 4 and 1 <= res.depth <= 3
    # the tree is fitted on the medoids alone, so it plays each medoid's own strategy in that medoid's game
    R = games.ranges[split.train][km.medoid_indices_]
    np.testing.assert_allclose(res.model.predict(R), km.medoid_targets_)
    assert 0 <= res.agreement <= 1 and res.n_first == 20 and res.n_test == len(split.test)
    assert 0 < res.emd < 1 and res.exploitability >= 0 and 1 <= len(res.split_features) <= 3

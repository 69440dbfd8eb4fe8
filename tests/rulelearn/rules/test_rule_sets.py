"""Rule sets: EMD medoid, nested trees, exploitability-in-the-loop growth, optimal leaves."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor

from rulelearn.data.splits import SolvedGames
from rulelearn.family import supports_group_optimum
from rulelearn.features.distance import emd_medoid, pairwise_input_emd, strategy_cumulative
from rulelearn.rules.growth import grow_cart_tree, grow_exploitability_tree
from rulelearn.rules.leaves import LEAF_KINDS, LeafFitter, RuleSet
from tests.rulelearn.conftest import SMALL_FAMILY as FAMILY


# ------------------------------------------------------------------------------------------ EMD medoid
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25), st.booleans())
def test_emd_medoid_matches_pairwise_distances(seed, m, weighted):
    rng = np.random.default_rng(seed)
    pmf = rng.dirichlet(np.ones(5), size=(m, 2))
    cdf = np.cumsum(pmf, axis=-1).reshape(m, -1)
    w = rng.uniform(0.1, 3.0, m) if weighted else np.ones(m)
    total = pairwise_input_emd(cdf) @ w
    k = emd_medoid(cdf, w if weighted else None)
    assert total[k] <= total.min() + 1e-9


def test_emd_medoid_bad_input():
    with pytest.raises(ValueError, match="at least one row"):
        emd_medoid(np.zeros((0, 4)))
    with pytest.raises(ValueError, match="weights"):
        emd_medoid(np.zeros((3, 4)), [1, -1, 1])


# ------------------------------------------------------------------------------------------ trees
def test_cart_tree_prefixes_are_sklearns_smaller_trees(small_db):
    cols, X = small_db
    y = FAMILY.strategies(cols)
    tree = grow_cart_tree(X, y, max_leaves=7)
    assert tree.max_leaves == 7
    masks = tree.node_masks(X)
    cum = strategy_cumulative(y).reshape(len(y), -1)
    for k in range(1, 8):
        leaves = tree.leaves(k)
        assert len(leaves) == k
        # the leaves partition the games
        assert np.all(masks[leaves].sum(axis=0) == 1)
        # ... exactly as scikit-learn's tree with max_leaf_nodes=k does
        if k > 1:
            ref = DecisionTreeRegressor(max_leaf_nodes=k, random_state=0).fit(X, cum).apply(X)
            ours = masks[leaves].argmax(axis=0)
            pairs = set(zip(ref.tolist(), ours.tolist()))
            assert len(pairs) == k
        # conditions describe the masks
        for node in leaves:
            conds = tree.conditions(node)
            ok = np.ones(len(X), bool)
            for c in conds:
                ok &= c.holds(X)
            assert np.array_equal(ok, masks[node])
    assert np.all(np.diff(tree.gains) <= 1e-12)  # best-first: gains do not increase
    with pytest.raises(ValueError, match="n_leaves"):
        tree.leaves(8)


def test_exploitability_tree_finds_a_planted_split():
    """Games of two kinds (x0 <= 0.4 or not); a strategy is 'exploitable' (1) in a game of the other kind."""
    rng = np.random.default_rng(0)
    m = 2000
    X = rng.random((m, 3))
    kind = (X[:, 0] > 0.4).astype(int)
    strategies = np.eye(2)[:, None, :]  # kind k plays strategy k, shape (2, 1, 2)

    def fit(rows):
        return strategies[int(np.round(kind[rows].mean()))]

    def screen(rows):
        return strategies[int(kind[rows].mean() > 0.5)]

    def score(rows, strat):
        return (kind[rows] != int(strat[0, 1] > 0.5)).astype(float)

    tree = grow_exploitability_tree(X, fit, screen, score, max_leaves=3, n_thresholds=9, n_fit=300, n_score=1200,
                                    min_leaf=20, random_state=1)
    first = tree.split_order[0]
    assert tree.feature[first] == 0
    assert abs(tree.threshold[first] - 0.4) < 0.05
    # the minority kind was all exploitable before the split (a held-out estimate on 1,200 games: sd ~0.015)
    assert tree.gains[0] == pytest.approx(np.mean(kind == 0) - np.mean((X[:, 0] > 0.4) != (X[:, 0] > tree.threshold[
        first])), abs=0.05)
    assert tree.gains[1] < 0.02  # nothing left to gain
    assert tree.max_leaves == 3


def test_exploitability_tree_bad_input():
    with pytest.raises(ValueError, match="n_fit"):
        grow_exploitability_tree(np.zeros((5, 2)), None, None, None, n_fit=0)


# ------------------------------------------------------------------------------------------ leaves
def test_optimal_leaves_are_never_worse_on_their_training_games(small_db):
    cols, X = small_db
    assert supports_group_optimum(FAMILY)
    fitter = LeafFitter(SolvedGames(FAMILY, cols), max_fit_games=1000)
    tree = grow_cart_tree(X, FAMILY.strategies(cols), max_leaves=4)
    rows = np.arange(len(X))
    for k in (1, 2, 4):
        scores = {}
        for kind in LEAF_KINDS:
            rs = RuleSet.fit(tree, k, X, rows, kind, fitter)
            assert rs.strategies.shape == (k, 4, 4)
            assert np.allclose(rs.strategies.sum(axis=-1), 1.0)
            assert rs.coverage.sum() == pytest.approx(1.0)
            scores[kind] = FAMILY.player1_exploitability(cols, rs.predict(X)).mean()
            assert len(rs.rules()) == k
        assert scores["optimal"] <= scores["medoid"] + 1e-9
        assert scores["optimal"] <= scores["mean"] + 1e-9
    # the medoid leaf of the root is the EMD medoid's equilibrium
    root = fitter("medoid", rows)
    assert np.array_equal(root, cols["strategy"][emd_medoid(X)])
    with pytest.raises(ValueError, match="kind"):
        fitter("median", rows)
    with pytest.raises(ValueError, match="at least one game"):
        fitter("mean", [])

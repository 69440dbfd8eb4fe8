"""Strategy learners: nearest neighbours, k-medoids, trees, cluster-then-tree, and the rules they print."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.distance import output_emd, pairwise_input_emd
from rulelearn.distributions import marginals, pmf_to_cdf, random_deal
from rulelearn.learners import ClusterThenTree, EMDKMedoids, EMDNearestNeighbors, StrategyTree
from rulelearn.pipeline import StrategyModel
from rulelearn.representations import Representation
from rulelearn.rules import Condition, describe_action_mix, describe_strategy, extract_rules


def toy_data(n=120, seed=0, d=6, nb=7):
    rng = np.random.default_rng(seed)
    _, _, probs = random_deal(d, rng, n)
    ranges = np.stack(marginals(probs), axis=1)
    X = pmf_to_cdf(ranges).reshape(n, 2 * d)
    Y = rng.dirichlet(np.ones(nb) * 0.3, size=(n, d))
    return ranges, X, Y


def test_nearest_neighbour_is_the_emd_argmin():
    _, X, Y = toy_data()
    knn = EMDNearestNeighbors().fit(X[:100], Y[:100])
    dist, idx = knn.kneighbors(X[100:])
    D = pairwise_input_emd(X[100:], X[:100])
    assert np.array_equal(idx[:, 0], D.argmin(axis=1))
    assert np.allclose(dist[:, 0], D.min(axis=1))
    assert np.allclose(knn.predict(X[100:]), Y[:100][D.argmin(axis=1)])
    assert np.allclose(knn.predict(X[:100]), Y[:100])  # memorised games are recalled exactly
    assert knn.model_size == (100, "games")
    # pdf inputs: the same neighbours (the EMD is defined on distributions)
    pdf = np.diff(X.reshape(-1, 2, 6), axis=-1, prepend=0).reshape(-1, 12)
    knn_pdf = EMDNearestNeighbors(input_kind="pdf").fit(pdf[:100], Y[:100])
    assert np.array_equal(knn_pdf.kneighbors(pdf[100:])[1], idx)


def test_kmedoids():
    _, X, Y = toy_data()
    km = EMDKMedoids(4, random_state=0).fit(X, Y)
    D = pairwise_input_emd(X)
    assert len(set(km.medoid_indices_)) == 4
    assert np.array_equal(km.labels_, D[:, km.medoid_indices_].argmin(axis=1))
    assert km.inertia_ == pytest.approx(D[:, km.medoid_indices_].min(axis=1).mean())
    # FasterPAM is a local optimum: no single swap of a medoid with a non-medoid lowers the cost
    cost = D[:, km.medoid_indices_].min(axis=1).sum()
    rng = np.random.default_rng(0)
    for _ in range(200):
        trial = km.medoid_indices_.copy()
        trial[rng.integers(4)] = rng.integers(len(X))
        assert D[:, trial].min(axis=1).sum() >= cost - 1e-12
    assert np.allclose(km.predict(X), Y[km.medoid_indices_][km.labels_])
    assert km.model_size == (4, "medoids")
    every = EMDKMedoids(len(X)).fit(X, Y)
    assert every.inertia_ == 0.0
    with pytest.raises(ValueError, match="backend"):
        EMDKMedoids(2, backend="magic").fit(X, Y)
    with pytest.raises(ValueError, match="n_clusters"):
        EMDKMedoids(0).fit(X, Y)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["squared_error", "absolute_error"]), st.integers(1, 5))
def test_tree_predicts_valid_strategies_and_rules_partition_the_data(seed, criterion, depth):
    _, X, Y = toy_data(60, seed)
    tree = StrategyTree(depth, criterion=criterion).fit(X, Y)
    pred = tree.predict(X)
    assert pred.shape == Y.shape
    assert np.all(pred >= 0) and np.allclose(pred.sum(-1), 1)
    names = [f"x{k}" for k in range(X.shape[1])]
    rules = extract_rules(tree.tree_, tree.leaf_strategies(), names)
    assert len(rules) == tree.model_size[0]
    masks = np.array([r.holds(X) for r in rules])
    assert np.all(masks.sum(axis=0) == 1)  # every game obeys exactly one rule
    for r, m in zip(rules, masks):
        assert m.sum() == r.n_samples and r.depth <= depth
        assert np.allclose(pred[m], r.strategy)
    assert sum(r.coverage for r in rules) == pytest.approx(1.0)


def test_deep_tree_fits_training_data_and_minimises_emd():
    _, X, Y = toy_data(80)
    full = StrategyTree().fit(X, Y)
    assert output_emd(full.predict(X), Y).max() < 1e-12
    # one leaf: the absolute-error tree predicts the coordinate-wise median cdf, which minimises the mean EMD
    stump_l1 = StrategyTree(1, min_samples_leaf=80, criterion="absolute_error").fit(X, Y)
    stump_l2 = StrategyTree(1, min_samples_leaf=80).fit(X, Y)
    assert output_emd(stump_l1.predict(X), Y).mean() <= output_emd(stump_l2.predict(X), Y).mean() + 1e-12


def test_cluster_then_tree():
    _, X, Y = toy_data()
    c2t = ClusterThenTree(5, random_state=0).fit(X, Y)
    km = c2t.kmedoids_
    # on the medoids themselves, the tree picks their own cluster
    assert np.array_equal(c2t.predict_cluster(km.cluster_centers_), np.arange(5))
    assert c2t.model_size[0] <= 5
    pred = c2t.predict(X)
    assert all(any(np.allclose(p, m) for m in km.medoid_targets_) for p in pred)
    members = ClusterThenTree(5, max_depth=2, tree_on="members", random_state=0).fit(X, Y)
    assert members.model_size[0] <= 4
    with pytest.raises(ValueError, match="tree_on"):
        ClusterThenTree(tree_on="leaves").fit(X, Y)


def test_strategy_model_per_hand_and_errors():
    ranges, X, Y = toy_data()
    model = StrategyModel(StrategyTree(3), Representation("cdf", "index")).fit(ranges, Y)
    pred = model.predict(ranges)
    assert pred.shape == Y.shape and np.allclose(pred.sum(-1), 1)
    rules = model.rules()
    assert any(c.name == "card" for r in rules for c in r.conditions) or len(rules) == 1
    with pytest.raises(ValueError, match="whole-game"):
        StrategyModel(EMDNearestNeighbors(), Representation("cdf", "index")).fit(ranges, Y)
    with pytest.raises(ValueError, match="not a tree"):
        StrategyModel(EMDNearestNeighbors()).fit(ranges, Y).rules()
    with pytest.raises(ValueError, match="sum to 1"):
        StrategyTree().fit(X, Y * 2)
    with pytest.raises(ValueError, match="rows"):
        EMDNearestNeighbors().fit(X, Y[:5])


def test_rule_text():
    assert str(Condition(20, "card", 6.5, None, True)) == "card >= 7"
    assert str(Condition(20, "card", 2.5, 6.5, True)) == "3 <= card <= 6"
    assert str(Condition(17, "P(P2 holds <= 8)", None, 0.699, False)) == "P(P2 holds <= 8) <= 0.699"
    assert str(Condition(20, "x", 0.2, 0.8, False)) == "0.2 < x <= 0.8"
    labels = ["check", "bet 1", "bet 2", "bet 3"]
    assert describe_action_mix([0, 0, 1, 0], labels) == "bet 2"
    assert describe_action_mix([0.25, 0, 0, 0.75], labels) == "check 25%, bet 3 75%"
    assert describe_action_mix([0.1, 0.3, 0.3, 0.3], labels, action_values=[0, 1, 2, 3]) == (
        "check 10%, bet 1 30%, bet 2 30%, bet 3 30%")
    many = ["check"] + [f"bet {k}" for k in range(1, 11)]
    spread = [0.1] + [0.09] * 10  # no action reaches 10%: the bets are summarised
    assert describe_action_mix(spread, many, action_values=range(11)) == "check 10%, bet 1-9 (median 5) 90%"
    s = np.zeros((4, 4))
    s[:2, 0] = 1
    s[2:, 3] = 1
    assert describe_strategy(s, labels) == "cards 1-2: check; cards 3-4: bet 3"

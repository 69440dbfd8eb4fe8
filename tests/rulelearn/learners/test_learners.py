"""Strategy learners: nearest neighbours, k-medoids, trees, cluster-then-tree, and the rules they print."""

import numpy as np
import ot
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor

from rulelearn.data.distributions import marginals, pmf_to_cdf, random_deal
from rulelearn.features.distance import output_emd, pairwise_input_emd
from rulelearn.features.representations import Representation
from rulelearn.learners import (
    ClusterThenTree,
    EMDKMedoids,
    EMDNearestNeighbors,
    EMDTreeRegressor,
    StrategyTree,
)
from rulelearn.learners.model import StrategyModel
from rulelearn.rules.conditions import Condition, extract_rules
from rulelearn.rules.formatting import describe_action_mix, describe_strategy


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
    model = StrategyModel(StrategyTree(3), Representation("cdf", "index"), hand_noun="card").fit(ranges, Y)
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
    assert describe_strategy(s, labels) == "hands 1-2: check; hands 3-4: bet 3"
    assert describe_strategy(s, labels, noun="card") == "cards 1-2: check; cards 3-4: bet 3"


# ------------------------------------------------------------------------ EMD-exact learners at scale (issue 5)

def _grid_cdfs(rng, n, d=5, levels=4):
    """Random cdf vectors on a dyadic grid: exact arithmetic, so many distinct games are at equal distances."""
    pmf = rng.multinomial(levels, np.ones(d) / d, size=(n, 2)) / levels
    return np.cumsum(pmf, axis=-1).reshape(n, 2 * d)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.booleans(), st.sampled_from(["pruned", "brute"]))
def test_nearest_neighbours_equal_brute_force_argmin_with_ties(seed, k, grid, algorithm):
    """Exact under the input EMD, ties to the lower training index: a stable argsort of the EMD matrix."""
    rng = np.random.default_rng(seed)
    if grid:
        X = _grid_cdfs(rng, 260)
    else:
        _, _, probs = random_deal(6, rng, 260)
        X = pmf_to_cdf(np.stack(marginals(probs), axis=1)).reshape(260, 12)
    Y = rng.dirichlet(np.ones(4), size=(260, 6))
    knn = EMDNearestNeighbors(k, algorithm=algorithm).fit(X[:200], Y[:200])
    dist, idx = knn.kneighbors(X[200:])
    D = pairwise_input_emd(X[200:], X[:200])
    expected = np.argsort(D, axis=1, kind="stable")[:, :k]
    assert np.array_equal(idx, expected)
    np.testing.assert_allclose(dist, np.take_along_axis(D, expected, axis=1), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(knn.predict(X[200:]), Y[:200][expected].mean(axis=1))


def test_nearest_neighbour_index_prunes():
    rng = np.random.default_rng(5)
    _, _, probs = random_deal(10, rng, 3000)
    X = pmf_to_cdf(np.stack(marginals(probs), axis=1)).reshape(3000, 20)
    knn = EMDNearestNeighbors().fit(X[:2500], np.full((2500, 2), 0.5))
    _, idx = knn.kneighbors(X[2500:])
    assert np.array_equal(idx[:, 0], pairwise_input_emd(X[2500:], X[:2500]).argmin(axis=1))
    assert knn.index_.n_refined_.mean() < 0.2 * 2500  # the lower bounds discard most training games
    with pytest.raises(ValueError, match="algorithm"):
        EMDNearestNeighbors(algorithm="kd_tree").fit(X, np.full((3000, 2), 0.5))


def _pot_input_emd_matrix(pmf_a, pmf_b):
    """Algorithm 1 by POT's transport LP (ot.emd2), one pair of games at a time."""
    d = pmf_a.shape[-1]
    pos = np.arange(d, dtype=float)
    M = np.abs(pos[:, None] - pos[None, :]) / (d - 1)
    return np.array([[np.mean([ot.emd2(a[p], b[p], M) for p in range(a.shape[0])]) for b in pmf_b] for a in pmf_a])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kmedoids_objective_equals_pot(dtype):
    """The medoids' total input EMD, recomputed game by game with POT's exact transport LP."""
    ranges, X, Y = toy_data(60, seed=4)
    km = EMDKMedoids(4, random_state=0, dtype=dtype).fit(X, Y)
    emd = _pot_input_emd_matrix(ranges, ranges[km.medoid_indices_])
    assert km.objective_ == pytest.approx(emd.min(axis=1).sum(), abs=1e-9)
    assert km.inertia_ == pytest.approx(emd.min(axis=1).mean(), abs=1e-11)
    assert np.array_equal(km.labels_, emd.argmin(axis=1))
    for init in ("build", "random"):
        other = EMDKMedoids(4, random_state=0, dtype=dtype, init=init).fit(X, Y)
        assert other.objective_ >= km.objective_ * 0.9  # both are local optima of the same objective
    with pytest.raises(ValueError, match="init"):
        EMDKMedoids(2, init="k-means++").fit(X, Y)
    with pytest.raises(ValueError, match="dtype"):
        EMDKMedoids(2, dtype="float16").fit(X, Y)


# ------------------------------------------------------------------------------------ trees with the EMD criterion

def _cum_data(seed, n, n_feat=4, d=2, nb=6, pure_share=0.4):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2**12, size=(n, n_feat)) / 2**12  # exact in float32, which scikit-learn's trees use
    S = rng.dirichlet(np.ones(nb) * 0.4, size=(n, d))
    pure = rng.random(n) < pure_share  # rows of pure strategies: cdf entries exactly 0 and 1
    S[pure] = np.eye(nb)[rng.integers(nb, size=(int(pure.sum()), d))]
    return X, S


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 4))
@example(129662835, 1, 1)  # the root's two best splits tie exactly: ours and scikit-learn's differ, equally good
def test_emd_tree_is_scikit_learns_absolute_error_tree(seed, depth, min_leaf):
    """Same splits, thresholds, medians and impurities as DecisionTreeRegressor(criterion='absolute_error')."""
    X, S = _cum_data(seed, 150)
    cum = np.clip(np.cumsum(S, -1)[..., :-1], 0, 1).reshape(150, -1)
    ours = EMDTreeRegressor(depth, min_samples_leaf=min_leaf).fit(X, cum).tree_
    sk = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf, criterion="absolute_error",
                               random_state=0).fit(X, cum).tree_
    # scikit-learn numbers nodes depth first, we breadth first: compare the trees by walking both
    def children_loss(t, node):
        kids = (t.children_left[node], t.children_right[node])
        return sum(t.impurity[c] * t.n_node_samples[c] for c in kids)

    stack, matched = [(0, 0)], 0
    while stack:
        a, b = stack.pop()
        assert (ours.children_left[a] < 0) == (sk.children_left[b] < 0)
        assert ours.n_node_samples[a] == sk.n_node_samples[b]
        np.testing.assert_allclose(ours.value[a], sk.value[b][:, 0], atol=1e-12)
        assert ours.impurity[a] == pytest.approx(sk.impurity[b], abs=1e-12)
        if ours.children_left[a] < 0:
            continue
        # the chosen splits are equally good; they are the same split unless two splits tie exactly
        assert children_loss(ours, a) == pytest.approx(children_loss(sk, b), abs=1e-9)
        if ours.feature[a] == sk.feature[b] and ours.threshold[a] == sk.threshold[b]:
            matched += 1
            stack += [(ours.children_left[a], sk.children_left[b]), (ours.children_right[a], sk.children_right[b])]
    # no check that some split matched: two splits of exactly equal loss may differ even at the root (seed
    # 129662835, depth 1), and the loss of every compared split is asserted equal above


def _emd_by_pot(P, S):
    """Mean output EMD (Algorithm 2) of predictions P to strategies S, hand by hand with POT."""
    nb = S.shape[-1]
    pos = np.arange(nb, dtype=float)
    return np.mean([ot.wasserstein_1d(pos, pos, p, s, p=1) / (nb - 1)
                    for p, s in zip(P.reshape(-1, nb), S.reshape(-1, nb))])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_emd_tree_training_loss_is_the_mean_emd(seed, depth):
    X, S = _cum_data(seed, 120, d=3, nb=7)
    tree = StrategyTree(depth, criterion="emd").fit(X, S)
    pred = tree.predict(X)
    assert np.all(pred >= 0) and np.allclose(pred.sum(-1), 1)
    assert tree.training_loss_ == pytest.approx(output_emd(pred, S).mean(), abs=1e-12)
    assert tree.training_loss_ == pytest.approx(_emd_by_pot(pred, S), abs=1e-9)
    # every node's impurity is the mean EMD of the training games that reach it to the node's strategy
    t = tree.tree_.tree_
    nodes = tree.leaf_strategies()
    path = tree.tree_.decision_path(X).toarray().astype(bool)
    for node in range(t.node_count):
        rows = path[:, node]
        assert rows.sum() == t.n_node_samples[node]
        assert t.impurity[node] == pytest.approx(output_emd(nodes[node][None], S[rows]).mean(), abs=1e-12)
    # and no other split of the root does better than the one chosen (exhaustive search, numpy medians)
    if t.children_left[0] >= 0:
        cum = np.cumsum(S, -1)[..., :-1].reshape(len(X), -1)

        def l1_to_median(rows):
            return np.abs(cum[rows] - np.median(cum[rows], axis=0)).sum()

        best = min(l1_to_median(X[:, f] <= thr) + l1_to_median(X[:, f] > thr)
                   for f in range(X.shape[1]) for thr in np.unique(X[:, f])[:-1])
        left, right = t.children_left[0], t.children_right[0]
        chosen = (t.impurity[left] * t.n_node_samples[left] + t.impurity[right] * t.n_node_samples[right])
        assert chosen == pytest.approx(best / cum.shape[1], abs=1e-10)


def test_emd_tree_truncation_equals_refitting():
    X, S = _cum_data(11, 300)
    deep = StrategyTree(7, criterion="emd").fit(X, S)
    for depth in (0, 2, 4, 7):
        cut, refit = deep.at_depth(depth), StrategyTree(depth, criterion="emd").fit(X, S)
        assert cut.model_size == refit.model_size and cut.training_loss_ == refit.training_loss_
        assert np.array_equal(cut.predict(X), refit.predict(X))
        assert np.array_equal(cut.tree_.tree_.threshold, refit.tree_.tree_.threshold)
    assert np.array_equal(deep.at_depth(50).predict(X), deep.predict(X))
    with pytest.raises(ValueError, match="criterion='emd'"):
        StrategyTree(3).fit(X, S).at_depth(2)
    with pytest.raises(AttributeError, match="criterion='emd'"):
        _ = StrategyTree(3).fit(X, S).training_loss_


def test_emd_tree_with_bet_sizes_as_positions():
    X, S = _cum_data(2, 200, nb=5)
    bets = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    tree = StrategyTree(3, criterion="emd", positions=bets).fit(X, S)
    assert tree.training_loss_ == pytest.approx(output_emd(tree.predict(X), S, positions=bets).mean(), abs=1e-12)
    # scikit-learn's criteria see the same weighting through scaled targets
    sk = StrategyTree(1, min_samples_leaf=200, criterion="absolute_error", positions=bets).fit(X, S)
    np.testing.assert_allclose(sk.predict(X), StrategyTree(0, criterion="emd", positions=bets).fit(X, S).predict(X),
                               atol=1e-12)
    assert np.allclose(StrategyTree(2, positions=bets).fit(X, S).predict(X).sum(-1), 1)


def test_sampled_outputs_give_median_or_frequency_leaves():
    """Representations 7-10: the EMD tree's leaf is the median sampled bet, the squared-error tree's the frequencies."""
    rng = np.random.default_rng(8)
    ranges, _, _ = toy_data(150, seed=8)
    S = rng.dirichlet(np.ones(7) * 0.5, size=(150, 6))
    rep = Representation("cdf", "index", output="sampled", seed=5)
    data = rep.transform(ranges, S)
    a = data.sampled_action
    stump_emd = StrategyTree(0, criterion="emd").fit(data.X, data.Y)
    stump_mse = StrategyTree(1, min_samples_leaf=len(data.X)).fit(data.X, data.Y)
    np.testing.assert_allclose(stump_mse.predict(data.X[:1])[0], np.bincount(a, minlength=7) / a.size, atol=1e-12)
    lo, hi = np.sort(a)[(a.size - 1) // 2], np.sort(a)[a.size // 2]
    expected = (np.eye(7)[lo] + np.eye(7)[hi]) / 2
    np.testing.assert_allclose(stump_emd.predict(data.X[:1])[0], expected, atol=1e-12)
    model = StrategyModel(StrategyTree(4, criterion="emd"), rep).fit(ranges, S)
    pred = model.predict(ranges)
    assert pred.shape == S.shape and np.allclose(pred.sum(-1), 1) and np.all(pred >= 0)
    assert model.rules()


def test_emd_tree_rejects_bad_input():
    X, S = _cum_data(0, 20)
    cum = np.cumsum(S, -1)[..., :-1].reshape(20, -1)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        EMDTreeRegressor().fit(X, cum + 1)
    with pytest.raises(ValueError, match="max_depth"):
        EMDTreeRegressor(max_depth=-1).fit(X, cum)
    with pytest.raises(ValueError, match="min_samples_leaf"):
        EMDTreeRegressor(min_samples_leaf=0).fit(X, cum)
    with pytest.raises(ValueError, match="output_weights"):
        EMDTreeRegressor(output_weights=[1.0]).fit(X, cum)
    with pytest.raises(ValueError, match="features"):
        EMDTreeRegressor(2).fit(X, cum).predict(X[:, :2])
    with pytest.raises(ValueError, match="criterion"):
        StrategyTree(criterion="gini").fit(X, S)

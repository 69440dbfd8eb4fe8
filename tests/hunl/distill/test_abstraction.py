"""hunl.distill.abstraction: exact 1-D k-means against enumeration of all partitions, E[HS] buckets monotone, EMD
k-medians checked with POT's wasserstein_1d, encoding error against a loop, estimator conventions, bad input."""

import doctest
import itertools

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from hunl.distill import abstraction
from hunl.distill.abstraction import CardAbstraction
from hunl.distill.clustering import kmeans_1d
from hunl.distill.encoding import EncodingError, bucket_means, encoding_error
from hunl.distill.features import ehs, ehs2, river_hand_strengths
from hunl.poker.cards import COMBO_CARDS, COMBO_INDEX, NUM_COMBOS, board_conflicts, parse_cards

TURN = "Ks7d2c4h"
FLUSHY_TURN = "9h8h2h4c"


def test_docstring_examples():
    result = doctest.testmod(abstraction, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------------------------------- 1-D k-means
def _best_partition_cost(x, w, k):
    """Minimum weighted within-cluster sum of squares over every assignment of the points to <= k clusters."""
    best = np.inf
    for assign in itertools.product(range(k), repeat=x.size):
        a = np.array(assign)
        cost = 0.0
        for c in range(k):
            m = a == c
            if m.any():
                mu = np.average(x[m], weights=w[m])
                cost += float(np.sum(w[m] * (x[m] - mu) ** 2))
        best = min(best, cost)
    return best


@settings(max_examples=20, deadline=None)
@given(x=st.lists(st.integers(0, 20), min_size=1, max_size=6),
       w=st.lists(st.integers(1, 5), min_size=6, max_size=6), k=st.integers(1, 4))
def test_kmeans_1d_is_optimal(x, w, k):
    x = np.array(x, dtype=float) / 20
    w = np.array(w[: x.size], dtype=float)
    labels, centers, inertia = kmeans_1d(x, k, sample_weight=w)
    assert np.isclose(inertia, _best_partition_cost(x, w, k), atol=1e-12)
    assert centers.size == min(k, np.unique(x).size) and np.all(np.diff(centers) > 0)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(labels[order]) >= 0)                     # intervals, numbered from the lowest
    for c in range(centers.size):
        assert np.isclose(centers[c], np.average(x[labels == c], weights=w[labels == c]))


def test_kmeans_1d_on_many_values_agrees_with_a_plain_dynamic_program():
    rng = np.random.default_rng(0)
    x = np.round(rng.beta(2, 3, size=300), 2)
    uniq = np.unique(x)
    cnt = np.array([np.sum(x == u) for u in uniq], dtype=float)
    k = 7
    n = uniq.size

    def cost(i, j):
        seg, ww = uniq[i:j + 1], cnt[i:j + 1]
        return float(np.sum(ww * (seg - np.average(seg, weights=ww)) ** 2))

    d = np.array([cost(0, j) for j in range(n)])
    for q in range(1, k):                                          # O(k n^2) reference without the speed-up
        d = np.array([min(d[i - 1] + cost(i, j) for i in range(q, j + 1)) if j >= q else np.inf
                      for j in range(n)])
    _, _, inertia = kmeans_1d(x, k)
    assert np.isclose(inertia, d[-1], rtol=1e-9)


# ------------------------------------------------------------------------------------------- E[HS] buckets
@pytest.mark.parametrize("board", [TURN, FLUSHY_TURN, "Ks7d2c4h9s"])
@pytest.mark.parametrize("method", ["ehs", "ehs2"])
def test_ehs_buckets_are_monotone_intervals(board, method):
    abst = CardAbstraction(method, n_buckets=12).fit(board)
    value = ehs(board) if method == "ehs" else ehs2(board)
    live = ~board_conflicts(board)
    np.testing.assert_array_equal(abst.labels_ < 0, ~live)
    order = np.argsort(value[live], kind="stable")
    lab = abst.labels_[live][order]
    v = value[live][order]
    assert np.all(np.diff(lab) >= 0)                               # monotone in the value
    assert np.all(lab[1:][np.diff(v) == 0] == lab[:-1][np.diff(v) == 0])   # equal values share a bucket
    assert abst.n_buckets_ == 12 and set(lab.tolist()) == set(range(12))
    assert np.all(np.diff(abst.centers_) > 0)
    np.testing.assert_allclose(abst.inertia_, np.sum((v - abst.centers_[lab]) ** 2), rtol=1e-9)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(["ehs", "ehs2", "potential"]),
       extra=st.integers(0, 50))
def test_encoding_error_is_zero_with_a_bucket_per_distinct_value(seed, method, extra):
    rng = np.random.default_rng(seed)
    board = tuple(int(c) for c in rng.choice(52, 4, replace=False))
    if method == "potential":
        rep = CardAbstraction("potential", n_buckets=1).fit(board).values_
        live = ~np.isnan(rep[:, 0])
        _, key = np.unique(rep[live], axis=0, return_inverse=True)
    else:
        value = ehs(board) if method == "ehs" else ehs2(board)
        live = ~np.isnan(value)
        _, key = np.unique(value[live], return_inverse=True)
    n_distinct = int(key.max()) + 1
    abst = CardAbstraction(method, n_buckets=n_distinct + extra, random_state=0).fit(board)
    assert abst.n_buckets_ == n_distinct and abst.inertia_ < 1e-24
    values = np.full((3, NUM_COMBOS), np.nan)
    values[:, live] = rng.normal(size=(3, n_distinct))[:, key.ravel()]   # any function of the clustered value
    err = abst.encoding_error(values, weights=rng.random((3, NUM_COMBOS)))
    assert err.mse < 1e-28 and err.max_abs < 1e-14 and err.n_buckets == n_distinct     # 0 up to rounding
    coarse = CardAbstraction(method, n_buckets=max(n_distinct // 3, 1), random_state=0).fit(board)
    assert coarse.encoding_error(values).mse > 0.0


def test_uniform_binning_is_the_papers_equal_width_regions():
    abst = CardAbstraction("ehs2", n_buckets=20, binning="uniform").fit(TURN)
    v = ehs2(TURN)
    live = ~np.isnan(v)
    np.testing.assert_array_equal(abst.labels_[live], np.minimum(np.floor(v[live] * 20), 19).astype(int))
    np.testing.assert_array_equal(abst.predict(TURN), abst.labels_)


# ------------------------------------------------------------------------------------------- potential (EMD)
def _pot_emd_to_centers(hs_sorted, centers):
    """EMD of every combo's 46-atom distribution to every centre, by POT (columns are distributions)."""
    n, k = hs_sorted.shape[0], centers.shape[0]
    u = np.repeat(hs_sorted, k, axis=0).T                            # (46, n * k)
    v = np.tile(centers, (n, 1)).T
    return ot.wasserstein_1d(u, v, p=1).reshape(n, k)


@pytest.mark.parametrize("board", [TURN, FLUSHY_TURN])
def test_potential_clusters_are_nearest_centres_under_pot_emd(board):
    abst = CardAbstraction("potential", n_buckets=8, random_state=3).fit(board)
    hs = river_hand_strengths(board)
    live = ~board_conflicts(board)
    combos = np.flatnonzero(live)
    atoms = np.sort(hs[:, combos].T, axis=1)[:, :46]                 # NaN sort last: the 46 rivers
    assert not np.isnan(atoms).any()
    np.testing.assert_array_equal(abst.values_[combos], atoms)
    emd = _pot_emd_to_centers(atoms, abst.centers_)
    lab = abst.labels_[combos]
    assert np.all(emd[np.arange(combos.size), lab] <= emd.min(axis=1) + 1e-12)   # nearest centre under EMD
    np.testing.assert_allclose(abst.inertia_, emd.min(axis=1).sum(), rtol=1e-9)
    assert np.all(np.diff(abst.centers_, axis=1) >= 0)              # each centre is a sorted set of 46 atoms
    means = abst.centers_.mean(axis=1)
    assert np.all(np.diff(means) >= 0) and abst.n_buckets_ == 8
    # the centre minimises the summed EMD of its cluster: no member (medoid) and not the mean distribution does
    # better
    for c in range(abst.n_buckets_):
        members = atoms[lab == c]
        to_center = emd[lab == c, c].sum()
        to_mean = _pot_emd_to_centers(members, members.mean(axis=0, keepdims=True)).sum()
        candidates = members[:: max(1, members.shape[0] // 25)]     # a sample of members as medoids
        medoid_cost = _pot_emd_to_centers(members, candidates).sum(axis=0).min()
        assert to_center <= to_mean + 1e-9 and to_center <= medoid_cost + 1e-9


def test_potential_with_histogram_bins_uses_the_bin_emd():
    nb = 20
    abst = CardAbstraction("potential", n_buckets=6, n_bins=nb, random_state=0).fit(TURN)
    hs = river_hand_strengths(TURN)
    combos = np.flatnonzero(~board_conflicts(TURN))
    mids = (np.arange(nb) + 0.5) / nb
    hist = np.zeros((combos.size, nb))
    for i, h in enumerate(combos):
        vals = hs[~np.isnan(hs[:, h]), h]
        np.add.at(hist[i], np.minimum((vals * nb).astype(int), nb - 1), 1.0 / vals.size)
    center_hist = np.diff(np.concatenate([np.zeros((6, 1)), abst.centers_, np.ones((6, 1))], axis=1), axis=1)
    assert np.all(center_hist >= -1e-12)
    emd = np.array([[ot.wasserstein_1d(mids, mids, hist[i], np.clip(center_hist[c], 0, None), p=1)
                     for c in range(6)] for i in range(0, combos.size, 7)])
    lab = abst.labels_[combos[::7]]
    assert np.all(emd[np.arange(lab.size), lab] <= emd.min(axis=1) + 1e-9)


def test_potential_separates_hands_of_equal_ehs_with_different_river_distributions():
    """Hands of (almost) the same E[HS] -- e.g. a flush draw and a weak made hand on a two-flush turn -- are
    one E[HS] bucket but different potential-aware buckets when their river-HS distributions are far apart."""
    pot = CardAbstraction("potential", n_buckets=10, random_state=0).fit(FLUSHY_TURN)
    e = ehs(FLUSHY_TURN)
    combos = np.flatnonzero(~np.isnan(e))
    atoms = pot.values_[combos]
    ii, jj = np.nonzero(np.abs(e[combos][:, None] - e[combos][None, :]) < 0.002)
    emd = np.abs(atoms[ii] - atoms[jj]).mean(axis=1)                      # exact EMD of 46-atom distributions
    i, j = ii[np.argmax(emd)], jj[np.argmax(emd)]
    assert emd.max() > 0.2
    assert pot.labels_[combos[i]] != pot.labels_[combos[j]]


def test_random_state_reproducible_and_predict_follows_suit_permutation():
    a = CardAbstraction("potential", n_buckets=7, random_state=11).fit(TURN)
    b = CardAbstraction("potential", n_buckets=7, random_state=11).fit(TURN)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    perm = [2, 0, 3, 1]
    card_map = np.array([4 * (c // 4) + perm[c % 4] for c in range(52)])
    combo_map = COMBO_INDEX[card_map[COMBO_CARDS[:, 0]], card_map[COMBO_CARDS[:, 1]]].astype(np.intp)
    pboard = [int(card_map[c]) for c in parse_cards(TURN)]
    for est in (a, CardAbstraction("ehs", n_buckets=9).fit(TURN), CardAbstraction("ehs2", n_buckets=9).fit(TURN)):
        np.testing.assert_array_equal(est.predict(pboard)[combo_map], est.labels_)
        np.testing.assert_array_equal(est.predict(TURN), est.labels_)
        np.testing.assert_array_equal(est.transform(pboard), est.predict(pboard))


def test_predict_on_another_board_uses_the_nearest_centre():
    est = CardAbstraction("ehs", n_buckets=5).fit(TURN)
    other = "Qc8s3d3h"
    lab = est.predict(other)
    v = ehs(other)
    live = ~np.isnan(v)
    nearest = np.argmin(np.abs(v[live, None] - est.centers_[None, :]), axis=1)
    np.testing.assert_array_equal(lab[live], nearest)
    assert np.all(lab[~live] == -1)
    with pytest.raises(ValueError, match="4-card board"):
        est.predict("Qc8s3d3h2s")


# ------------------------------------------------------------------------------------------- encoding error
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), weighted=st.booleans(), n_labels=st.integers(1, 30))
def test_encoding_error_matches_a_loop_over_buckets(seed, k, weighted, n_labels):
    rng = np.random.default_rng(seed)
    labels = rng.integers(-1, n_labels, size=NUM_COMBOS)
    labels[0] = 0
    values = rng.normal(scale=2.0, size=(k, NUM_COMBOS))
    values[:, labels < 0] = np.nan
    weights = rng.random((k, NUM_COMBOS)) * (rng.random((k, NUM_COMBOS)) < 0.7) if weighted else None
    err = encoding_error(labels, values, weights)
    decoded = np.full_like(values, np.nan)
    for row in range(k):
        for b in np.unique(labels[labels >= 0]):
            m = labels == b
            w = np.ones(m.sum()) if weights is None else weights[row, m]
            decoded[row, m] = np.average(values[row, m], weights=w) if w.sum() > 0 else values[row, m].mean()
    e = (decoded - values)[:, labels >= 0].ravel()
    huber = np.mean([0.5 * x * x if abs(x) <= 1 else abs(x) - 0.5 for x in e])
    assert isinstance(err, EncodingError)
    # Tolerances from the arithmetic (u = 2**-53): a weighted mean sum(w v) / sum(w) of m values is computed to
    # within 2 m u max|v| (the sum of m products errs by at most m u sum|w v| <= m u max|v| sum(w), the sum of
    # the weights and the division by at most m u |mean|; Higham 2002, eq. 3.5), so two summation orders differ
    # by at most 4 m u max|v|, and a bucket has at most NUM_COMBOS members. Some bucket means are near 0, so the
    # bound is absolute: a relative one holds only by luck.
    u = np.finfo(np.float64).eps / 2
    mean_tol = 4 * NUM_COMBOS * u * np.nanmax(np.abs(values))
    np.testing.assert_allclose(bucket_means(labels, values, weights), decoded, rtol=0, atol=mean_tol,
                               equal_nan=True)
    # each error e moves by at most mean_tol; max|e| and mean|e| are 1-Lipschitz in it, mean(e^2) and the Huber
    # loss 2 max(|e|, 1)-Lipschitz, and each summary's own sum of e.size terms errs by at most e.size u (relative)
    lipschitz = 2 * max(float(np.abs(e).max()), 1.0)
    np.testing.assert_allclose([err.mse, err.huber, err.mean_abs, err.max_abs],
                               [np.mean(e ** 2), huber, np.mean(np.abs(e)), np.max(np.abs(e))],
                               rtol=2 * e.size * u, atol=lipschitz * mean_tol + mean_tol ** 2)
    assert err.n_values == e.size and err.n_buckets == np.unique(labels[labels >= 0]).size and err.delta == 1.0
    single = encoding_error(labels, values[0], None if weights is None else weights[0])
    assert single.n_values == int((labels >= 0).sum())


def test_encoding_error_is_frozen_and_validates_input():
    labels = np.zeros(NUM_COMBOS, dtype=int)
    err = encoding_error(labels, np.arange(NUM_COMBOS, dtype=float))
    with pytest.raises(AttributeError):
        err.mse = 0.0
    for kwargs, exc, match in [
        ({"labels": np.zeros(5, int), "values": np.ones(NUM_COMBOS)}, ValueError, "labels"),
        ({"labels": np.zeros(NUM_COMBOS), "values": np.ones(NUM_COMBOS)}, TypeError, "labels"),
        ({"labels": np.full(NUM_COMBOS, -1), "values": np.ones(NUM_COMBOS)}, ValueError, "labels"),
        ({"labels": np.full(NUM_COMBOS, -2), "values": np.ones(NUM_COMBOS)}, ValueError, "labels"),
        ({"labels": labels, "values": np.ones(3)}, ValueError, "values"),
        ({"labels": labels, "values": np.full(NUM_COMBOS, np.nan)}, ValueError, "values"),
        ({"labels": labels, "values": np.ones(NUM_COMBOS), "weights": -np.ones(NUM_COMBOS)}, ValueError, "weights"),
        ({"labels": labels, "values": np.ones(NUM_COMBOS), "weights": np.ones(4)}, ValueError, "weights"),
        ({"labels": labels, "values": np.ones(NUM_COMBOS), "delta": 0.0}, ValueError, "delta"),
    ]:
        with pytest.raises(exc, match=match):
            encoding_error(**kwargs)


# ------------------------------------------------------------------------------------------- estimator
def test_estimator_conventions_and_bad_parameters():
    est = CardAbstraction("potential", n_buckets=4, random_state=1)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        est.predict()
    with pytest.raises(NotFittedError):
        est.encoding_error(np.zeros(NUM_COMBOS))
    assert est.fit(TURN) is est and not hasattr(CardAbstraction(), "labels_")
    np.testing.assert_array_equal(CardAbstraction("ehs", n_buckets=3).fit_predict(TURN),
                                  CardAbstraction("ehs", n_buckets=3).fit(TURN).labels_)
    with pytest.raises(ValueError, match="potential.*turn board"):
        CardAbstraction("potential").fit("Ks7d2c4h9s")
    for params, exc, match in [({"method": "emd"}, ValueError, "method"),
                               ({"n_buckets": 0}, ValueError, "n_buckets"),
                               ({"n_buckets": 2.0}, TypeError, "n_buckets"),
                               ({"binning": "quantile"}, ValueError, "binning"),
                               ({"method": "potential", "binning": "uniform"}, ValueError, "binning"),
                               ({"method": "potential", "n_bins": 1}, ValueError, "n_bins"),
                               ({"n_init": 0}, ValueError, "n_init")]:
        with pytest.raises(exc, match=match):
            CardAbstraction(**params).fit(TURN)
    with pytest.raises(ValueError, match="board"):
        CardAbstraction().fit("Ks7d")


def test_kmeans_1d_rejects_bad_input():
    for args, exc in [((np.array([]), 2), ValueError), ((np.array([0.1, np.nan]), 2), ValueError),
                      ((np.ones((2, 2)), 2), ValueError), ((np.ones(3), 0), ValueError),
                      ((np.ones(3), 1.5), TypeError)]:
        with pytest.raises(exc):
            kmeans_1d(*args)
    with pytest.raises(ValueError, match="sample_weight"):
        kmeans_1d(np.ones(3), 2, sample_weight=np.array([1.0, 0.0, 1.0]))


@pytest.mark.parametrize("kw, match", [
    (dict(k=0), "k must be"), (dict(n_init=0), "n_init must be"), (dict(max_iter=-1), "max_iter must be"),
    (dict(x=np.zeros((0, 3))), "non-empty 2-D"), (dict(w=np.ones(4)), "one weight per row"),
])
def test_kmedians_l1_checks_its_counts_and_shapes(kw, match):
    from hunl.distill.clustering import kmedians_l1

    args = dict(x=np.arange(15.0).reshape(5, 3), w=np.ones(5), k=2, rng=np.random.default_rng(0), n_init=2,
                max_iter=10)
    with pytest.raises(ValueError, match=match):
        kmedians_l1(**{**args, **kw})
    labels, centers, cost, _ = kmedians_l1(**args)
    assert centers.shape == (2, 3) and labels.shape == (5,) and cost >= 0

"""Generalised EMDs (Algorithms 1-2) against POT's wasserstein_1d and a literal transcription of the paper."""

import numpy as np
import ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.data.distributions import pmf_to_cdf, random_simplex
from rulelearn.features.distance import (
    input_embedding,
    input_emd,
    output_embedding,
    output_emd,
    pairwise_input_emd,
    pairwise_output_emd,
)


def algorithm1_literal(X, Xh, n, d):
    """Algorithm 1 as printed: cdf-to-pdf, running delta per player, / (d-1), averaged over players."""
    Xp = np.diff(np.concatenate([[0.0], X[:d]])).tolist() + np.diff(np.concatenate([[0.0], X[d:]])).tolist()
    Xhp = np.diff(np.concatenate([[0.0], Xh[:d]])).tolist() + np.diff(np.concatenate([[0.0], Xh[d:]])).tolist()
    total = 0.0
    for i in range(n):
        result, delta = 0.0, 0.0
        for j in range(i * d, i * d + d):
            delta += Xp[j] - Xhp[j]
            result += abs(delta)
        total += result / (d - 1)
    return total / n


def algorithm2_literal(Y, Yh, d, b):
    total = 0.0
    for i in range(d):
        result, delta = 0.0, 0.0
        for j in range(i * b, i * b + b):
            delta += Y[j] - Yh[j]
            result += abs(delta)
        total += result / (b - 1)
    return total / d


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12))
def test_input_emd_equals_pot_and_algorithm1(seed, d):
    rng = np.random.default_rng(seed)
    pa, pb = random_simplex(d, rng, size=2), random_simplex(d, rng, size=2)
    a, b = pmf_to_cdf(pa).reshape(-1), pmf_to_cdf(pb).reshape(-1)
    pos = np.arange(d, dtype=float)
    pot = np.mean([ot.wasserstein_1d(pos, pos, pa[k], pb[k], p=1) for k in range(2)]) / (d - 1)
    ours = input_emd(a, b)
    assert ours == pytest.approx(pot, abs=1e-12)
    assert ours == pytest.approx(algorithm1_literal(a, b, 2, d), abs=1e-12)
    assert 0 <= ours <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 8), st.integers(2, 40))
def test_output_emd_equals_pot_and_algorithm2(seed, d, nb):
    rng = np.random.default_rng(seed)
    y, yh = random_simplex(nb, rng, size=d), random_simplex(nb, rng, size=d)
    if rng.random() < 0.5:  # sparse, pure strategies
        y = np.eye(nb)[rng.integers(nb, size=d)]
    pos = np.arange(nb, dtype=float)
    pot = np.mean([ot.wasserstein_1d(pos, pos, y[k], yh[k], p=1) for k in range(d)]) / (nb - 1)
    ours = output_emd(y, yh)
    assert ours == pytest.approx(pot, abs=1e-12)
    assert ours == pytest.approx(algorithm2_literal(y.ravel(), yh.ravel(), d, nb), abs=1e-12)


def test_extremes_and_broadcasting():
    d = 10
    worst, best = np.zeros(d), np.zeros(d)
    worst[0], best[-1] = 1, 1
    a = np.concatenate([pmf_to_cdf(worst), pmf_to_cdf(worst)])
    b = np.concatenate([pmf_to_cdf(best), pmf_to_cdf(best)])
    assert input_emd(a, b) == pytest.approx(1.0)
    assert input_emd(a, a) == 0.0
    check, allin = np.zeros((10, 31)), np.zeros((10, 31))
    check[:, 0], allin[:, -1] = 1, 1
    assert output_emd(check, allin) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    A = pmf_to_cdf(random_simplex(10, rng, size=(5, 2))).reshape(5, 20)
    B = pmf_to_cdf(random_simplex(10, rng, size=(3, 2))).reshape(3, 20)
    D = input_emd(A[:, None, :], B[None, :, :])
    assert D.shape == (5, 3)
    assert np.allclose(D, pairwise_input_emd(A, B))
    S = random_simplex(31, rng, size=(4, 10))
    T = random_simplex(31, rng, size=(6, 10))
    assert np.allclose(output_emd(S[:, None], T[None]), pairwise_output_emd(S, T))
    assert np.allclose(np.diag(pairwise_output_emd(S)), 0)


def test_uniform_input_example_from_the_paper():
    uniform = np.tile(np.linspace(0.1, 1.0, 10), 2)
    strong_weak_vs_medium = np.array([0.5] * 9 + [1] + [0, 0, 0, 0, 1, 1, 1, 1, 1, 1])
    # P1: EMD between uniform and {1, 10} is sum |F - G| / 9; P2: between uniform and a point mass on 5
    expected = (np.abs(uniform[:10] - strong_weak_vs_medium[:10]).sum()
                + np.abs(uniform[10:] - strong_weak_vs_medium[10:]).sum()) / 2 / 9
    assert input_emd(uniform, strong_weak_vs_medium) == pytest.approx(expected)


def test_bad_input():
    with pytest.raises(ValueError, match="multiple of n_players"):
        input_emd(np.ones(21), np.ones(21))
    with pytest.raises(ValueError, match="NaN"):
        output_emd(np.full((2, 3), np.nan), np.ones((2, 3)))
    with pytest.raises(ValueError, match="n_hands, n_bets"):
        output_emd(np.ones(3), np.ones(3))


# ------------------------------------------------------------------------------------- the L1 embeddings (issue 5)

def _pot_input_emd(pa, pb):
    """Algorithm 1 by POT: exact transport LP (ot.emd2) per player on the card positions, / (d - 1), averaged."""
    d = pa.shape[-1]
    pos = np.arange(d, dtype=float)
    M = np.abs(pos[:, None] - pos[None, :]) / (d - 1)
    return np.mean([ot.emd2(pa[k], pb[k], M) for k in range(pa.shape[0])])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(1, 3), st.booleans())
def test_input_emd_is_l1_between_embeddings_pot_emd2(seed, d, n_players, sparse):
    rng = np.random.default_rng(seed)
    pa, pb = random_simplex(d, rng, size=n_players), random_simplex(d, rng, size=n_players)
    if sparse:  # point masses and ties: the extreme cases of a transport plan
        pa = np.eye(d)[rng.integers(d, size=n_players)]
    a, b = pmf_to_cdf(pa).reshape(-1), pmf_to_cdf(pb).reshape(-1)
    l1 = np.abs(input_embedding(a, n_players) - input_embedding(b, n_players)).sum()
    assert l1 == pytest.approx(_pot_input_emd(pa, pb), abs=1e-9)
    assert l1 == pytest.approx(input_emd(a, b, n_players), abs=1e-12)
    # pdf inputs embed to the same vector
    np.testing.assert_allclose(input_embedding(pa.reshape(-1), n_players, "pdf"), input_embedding(a, n_players),
                               atol=1e-15)


def _pot_output_emd(s, t, positions):
    x = np.asarray(positions, dtype=float)
    M = np.abs(x[:, None] - x[None, :]) / (x[-1] - x[0])
    return np.mean([ot.emd2(s[h], t[h], M) for h in range(s.shape[0])])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(2, 32), st.booleans())
def test_output_emd_is_l1_between_cumulative_strategies(seed, n_hands, n_bets, uneven):
    """Unit positions (Algorithm 2) and arbitrary increasing bet sizes, against POT's emd2 and wasserstein_1d."""
    rng = np.random.default_rng(seed)
    s, t = random_simplex(n_bets, rng, size=n_hands), random_simplex(n_bets, rng, size=n_hands)
    s[: n_hands // 2] = np.eye(n_bets)[rng.integers(n_bets, size=n_hands // 2)]  # some pure strategies
    positions = np.cumsum(rng.random(n_bets) + 0.01) if uneven else np.arange(n_bets, dtype=float)
    pos_arg = positions if uneven else None
    l1 = np.abs(output_embedding(s, pos_arg) - output_embedding(t, pos_arg)).sum()
    assert l1 == pytest.approx(_pot_output_emd(s, t, positions), abs=1e-9)
    w1 = np.mean([ot.wasserstein_1d(positions, positions, s[h], t[h], p=1) for h in range(n_hands)])
    assert l1 == pytest.approx(w1 / (positions[-1] - positions[0]), abs=1e-9)
    assert l1 == pytest.approx(output_emd(s, t, pos_arg), abs=1e-12)
    assert output_embedding(s, pos_arg).shape == (n_hands * (n_bets - 1),)


def test_paper_grid_positions_equal_unit_spacing():
    rng = np.random.default_rng(1)
    S, T = random_simplex(31, rng, size=(4, 10)), random_simplex(31, rng, size=(5, 10))
    bets = np.round(np.arange(31) * 0.1, 10)
    np.testing.assert_allclose(pairwise_output_emd(S, T, positions=bets), pairwise_output_emd(S, T), atol=1e-12)
    np.testing.assert_allclose(output_emd(S[:, None], T[None], positions=bets), pairwise_output_emd(S, T),
                               atol=1e-12)


def test_embedding_bad_input():
    with pytest.raises(ValueError, match="strictly increasing"):
        output_emd(np.ones((2, 3)) / 3, np.ones((2, 3)) / 3, positions=[0, 2, 1])
    with pytest.raises(ValueError, match="one position per action"):
        output_embedding(np.ones((2, 3)) / 3, positions=[0, 1])
    with pytest.raises(ValueError, match="n_players"):
        input_embedding(np.ones(20), n_players=0)
    with pytest.raises(ValueError, match="input_kind"):
        input_embedding(np.ones(20), input_kind="logit")

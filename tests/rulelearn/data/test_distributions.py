"""Random private-information distributions (Algorithms 4-5) and pmf/cdf conversions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.data.distributions import (
    cdf_to_pmf,
    joint_deal,
    marginals,
    pmf_to_cdf,
    random_deal,
    random_simplex,
    uniform_deal,
)


def test_random_simplex_is_seeded_and_on_the_simplex():
    a = random_simplex(10, np.random.default_rng(5), size=1000)
    b = random_simplex(10, np.random.default_rng(5), size=1000)
    assert np.array_equal(a, b)
    assert a.shape == (1000, 10) and np.all(a > 0) and np.allclose(a.sum(-1), 1)
    # uniform on the simplex = Dirichlet(1): each coordinate is Beta(1, n-1) with mean 1/n, var (n-1)/(n^2 (n+1))
    big = random_simplex(10, np.random.default_rng(0), size=200_000)
    assert np.allclose(big.mean(0), 0.1, atol=2e-3)
    assert np.allclose(big.var(0), 9 / (100 * 11), rtol=0.03)


def test_joint_deal_algorithm5():
    x1 = np.array([0.2, 0.3, 0.5])
    x2 = np.array([0.6, 0.2, 0.2])
    p = joint_deal(x1, x2)
    expected = np.outer(x1, x2)
    np.fill_diagonal(expected, 0)
    assert np.allclose(p, expected / expected.sum())
    assert np.all(np.diag(p) == 0)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12))
def test_random_deal_properties(seed, n):
    x1, x2, p = random_deal(n, np.random.default_rng(seed), size=4)
    assert p.shape == (4, n, n)
    assert np.allclose(p.sum((-2, -1)), 1)
    assert np.all(np.diagonal(p, axis1=-2, axis2=-1) == 0)
    m1, m2 = marginals(p)
    assert np.allclose(m1.sum(-1), 1) and np.allclose(m2.sum(-1), 1)
    c = pmf_to_cdf(m1)
    assert np.all(np.diff(c, axis=-1) >= 0) and np.all(c[..., -1] == 1.0)
    assert np.allclose(cdf_to_pmf(c), m1)


def test_uniform_deal():
    p = uniform_deal(10)
    assert p[0, 1] == pytest.approx(1 / 90) and p.sum() == pytest.approx(1)
    m1, m2 = marginals(p)
    assert np.allclose(m1, 0.1) and np.allclose(m2, 0.1)

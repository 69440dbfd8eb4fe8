"""Random private-information distributions (Ganzfried & Yusuf 2017, *Games* 8(4), Algorithms 4 and 5).

A *deal* over a deck of ``n`` ordered hands (cards) is a joint probability matrix ``probs`` of shape ``(n, n)``:
``probs[i, j]`` is the probability that player 1 holds hand ``i`` and player 2 holds hand ``j`` (hands indexed
from 0 = worst). Both players draw from one deck, so the diagonal is zero.
"""

from __future__ import annotations

import numpy as np

from rulelearn.validation import as_float_array, check_int, check_probability_rows

__all__ = [
    "random_simplex",
    "log_uniform_simplex",
    "joint_deal",
    "random_deal",
    "marginals",
    "pmf_to_cdf",
    "cdf_to_pmf",
    "uniform_deal",
]


def random_simplex(n: int, rng: np.random.Generator, size: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Draw points uniformly at random from the ``(n-1)``-simplex (Algorithm 4).

    Algorithm 4 normalises ``-log(U)`` for ``U ~ Uniform(0, 1)``: independent standard exponentials, which is a
    Dirichlet(1, ..., 1) draw. We draw the exponentials directly (``Generator.standard_exponential``), which has
    the same law and never evaluates ``log(0)``.

    Parameters
    ----------
    n : int
        Number of outcomes (deck size), ``n >= 1``.
    rng : numpy.random.Generator
        Source of randomness; the result is a deterministic function of its state.
    size : int or tuple of int, optional
        Leading batch shape.

    Returns
    -------
    numpy.ndarray of float64, shape ``size + (n,)``
        Non-negative rows summing to 1.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    n = check_int("n", n, 1)
    shape = (() if size is None else ((size,) if np.isscalar(size) else tuple(size))) + (int(n),)
    e = rng.standard_exponential(shape)
    return e / e.sum(axis=-1, keepdims=True)


def log_uniform_simplex(n: int, rng: np.random.Generator, low: float = 1e-12,
                        size: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Draw pmfs whose entries, before normalisation, are log-uniform on ``[low, 1]``.

    A hard law for exact solvers: probabilities spread over ``-log10(low)`` orders of magnitude (about half the
    entries below ``sqrt(low)``), so that the deals' entries span twice as many.

    Parameters
    ----------
    n : int
        Number of outcomes, ``n >= 1``.
    rng : numpy.random.Generator
        Source of randomness.
    low : float, default 1e-12
        Smallest entry before normalisation, in ``(0, 1)``.
    size : int or tuple of int, optional
        Leading batch shape.

    Returns
    -------
    numpy.ndarray of float64, shape ``size + (n,)``
        Positive rows summing to 1.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``low`` is not in ``(0, 1)``.
    """
    n = check_int("n", n, 1)
    if not (isinstance(low, (int, float, np.floating)) and 0.0 < float(low) < 1.0):
        raise ValueError(f"low must be a number in (0, 1), got {low!r}")
    shape = (() if size is None else ((size,) if np.isscalar(size) else tuple(size))) + (int(n),)
    e = np.exp(rng.uniform(np.log(float(low)), 0.0, shape))
    return e / e.sum(axis=-1, keepdims=True)


def joint_deal(x1, x2) -> np.ndarray:
    """Joint deal of two independent hand distributions without shared cards (Algorithm 5).

    ``probs[i, j]`` is proportional to ``x1[i] * x2[j]`` for ``i != j`` and zero on the diagonal (one deck: both
    players cannot hold the same card). The marginals of the result differ from ``x1`` and ``x2`` (card removal).

    Parameters
    ----------
    x1, x2 : array_like of float, shape ``(..., n)``
        Player 1's and player 2's generating distributions (pmfs); leading axes broadcast.

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., n, n)``
        The joint deal; each ``(n, n)`` block sums to 1.

    Raises
    ------
    ValueError
        If an input is not a pmf (negative, NaN, not summing to 1), the last axes differ, or the two
        distributions put all their mass on one common card (no deal without a shared card exists).
    """
    a = as_float_array(x1, "x1")
    b = as_float_array(x2, "x2")
    if a.ndim < 1 or b.ndim < 1 or a.shape[-1] != b.shape[-1]:
        raise ValueError(f"x1 and x2 must have the same last axis (deck size), got {a.shape} and {b.shape}")
    check_probability_rows(a, "x1")
    check_probability_rows(b, "x2")
    probs = a[..., :, None] * b[..., None, :]
    n = a.shape[-1]
    probs[..., np.arange(n), np.arange(n)] = 0.0
    total = probs.sum(axis=(-2, -1), keepdims=True)
    if np.any(total <= 0):
        raise ValueError("x1 and x2 put all their mass on one common card: no deal without a shared card exists")
    return probs / total


def random_deal(n: int, rng: np.random.Generator, size: int | tuple[int, ...] | None = None):
    """Draw a random game instance: two uniform simplex points (Algorithm 4) joined by Algorithm 5.

    Parameters
    ----------
    n : int
        Deck size.
    rng : numpy.random.Generator
        Source of randomness.
    size : int or tuple of int, optional
        Leading batch shape.

    Returns
    -------
    x1, x2 : numpy.ndarray of float64, shape ``size + (n,)``
        Generating distributions of player 1 and player 2.
    probs : numpy.ndarray of float64, shape ``size + (n, n)``
        The joint deal.
    """
    x1 = random_simplex(n, rng, size)
    x2 = random_simplex(n, rng, size)
    return x1, x2, joint_deal(x1, x2)


def uniform_deal(n: int) -> np.ndarray:
    """The deal in which each ordered pair of distinct cards is equally likely, shape ``(n, n)``.

    Parameters
    ----------
    n : int
        Deck size, ``n >= 2`` (an integral float such as ``3.0`` is accepted).

    Returns
    -------
    numpy.ndarray of float64, shape ``(n, n)``
        The joint deal: ``1 / (n * (n - 1))`` off the diagonal, zero on it; sums to 1.

    Raises
    ------
    ValueError
        If ``n`` is not an integer (booleans included) or ``n < 2``.
    """
    n = check_int("n", n, 2)
    probs = np.full((n, n), 1.0 / (n * (n - 1)))
    np.fill_diagonal(probs, 0.0)
    return probs


def marginals(probs) -> tuple[np.ndarray, np.ndarray]:
    """Each player's hand distribution (range) under a joint deal.

    Parameters
    ----------
    probs : array_like of float, shape ``(..., n, n)``
        Joint deals.

    Returns
    -------
    pmf1, pmf2 : numpy.ndarray of float64, shape ``(..., n)``
        Player 1's marginal (row sums) and player 2's marginal (column sums).
    """
    p = np.asarray(probs, dtype=np.float64)
    return p.sum(axis=-1), p.sum(axis=-2)


def pmf_to_cdf(pmf) -> np.ndarray:
    """Cumulative distribution over ordered hands: ``cdf[..., k] = P(hand <= k)``, shape unchanged.

    The last entry is set to exactly 1 when the input sums to 1 within rounding (``1e-12``), so that cdf
    features of equal distributions compare equal. The input is not checked to be a pmf.

    Parameters
    ----------
    pmf : array_like of float, shape ``(..., n)``
        Probability mass functions over ordered hands (index 0 = worst) along the last axis.

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., n)``
        The cdfs, ``cdf[..., k] = pmf[..., 0] + ... + pmf[..., k]``. (A scalar input gives shape ``(1,)``.)

    Raises
    ------
    ValueError
        If ``pmf`` cannot be converted to float.
    """
    p = np.asarray(pmf, dtype=np.float64)
    c = np.cumsum(p, axis=-1)
    last = c[..., -1:]
    c[..., -1:] = np.where(np.abs(last - 1.0) <= 1e-12, 1.0, last)
    return c


def cdf_to_pmf(cdf) -> np.ndarray:
    """Inverse of :func:`pmf_to_cdf`: first differences along the last axis, shape unchanged.

    ``pmf[..., 0] = cdf[..., 0]`` and ``pmf[..., k] = cdf[..., k] - cdf[..., k - 1]``. The input is not
    checked: a decreasing cdf gives negative entries.

    Parameters
    ----------
    cdf : array_like of float, shape ``(..., n)``
        Cumulative distributions over ordered hands, ``cdf[..., k] = P(hand <= k)``; at least one axis.

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., n)``
        The pmfs.

    Raises
    ------
    ValueError
        If ``cdf`` is a scalar (no axis to difference along) or cannot be converted to float.
    """
    c = np.asarray(cdf, dtype=np.float64)
    return np.diff(c, axis=-1, prepend=0.0)

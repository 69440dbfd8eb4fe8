"""Numerical helpers shared by every package: the one weighted quantile.

The ``q``-quantile of a distribution with atoms ``x_1 <= ... <= x_n`` of weights ``w_1 .. w_n`` is the first atom
at which the cumulative weight reaches ``q`` times the total (``inf {x : F(x) >= q}``, the *lower* quantile: the
lower weighted median for ``q = 1/2``), with a relative tolerance of ``1e-12`` so that a cumulative weight that
rounding leaves just short of an exact split still counts. :func:`weighted_quantile_position` is compiled
(``numba``) so that compiled kernels (``hunl.distill.features``, ``hunl.distill.abstraction``) call the same
definition as Python code (:func:`weighted_quantile_index`, :func:`weighted_quantile`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["weighted_quantile", "weighted_quantile_index", "weighted_quantile_position"]

#: Relative tolerance of the cumulative weight against ``q * total``.
QUANTILE_RTOL = 1e-12


@njit(cache=True)
def weighted_quantile_position(sorted_weights, n, q, total):  # pragma: no cover - compiled
    """Position in ``0 .. n-1`` of the ``q``-quantile of atoms sorted ascending with weights
    ``sorted_weights[:n]`` that sum to ``total``: the first position where the cumulative weight reaches
    ``q * total * (1 - 1e-12)``; the last position if rounding leaves the sum short."""
    threshold = q * total * (1.0 - QUANTILE_RTOL)
    cum = 0.0
    for j in range(n):
        cum += sorted_weights[j]
        if cum >= threshold:
            return j
    return n - 1


def weighted_quantile_index(values, weights, q: float) -> int:
    """Index into ``values`` of the weighted ``q``-quantile (equal values: the first in a stable sort).

    Parameters
    ----------
    values : array_like of float, shape ``(n,)``
        Any shape is flattened; ``n >= 1``, finite.
    weights : array_like of float, shape ``(n,)``
        Finite, non-negative, with a positive sum (any shape with ``n`` entries is flattened).
    q : float
        In ``[0, 1]`` (``0.5``: the lower weighted median; ``0``: the smallest value, whatever its weight).

    Returns
    -------
    int
        A position in ``0 .. n-1``.

    Raises
    ------
    ValueError
        If ``values`` is empty or not finite, ``weights`` has another number of entries, a negative or
        non-finite entry or no positive one, or ``q`` is outside ``[0, 1]``.
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if v.size == 0:
        raise ValueError("values must hold at least one value")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite")
    if w.size != v.size:
        raise ValueError(f"weights must have one entry per value ({v.size}), got {w.size}")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative")
    total = float(w.sum())
    if not total > 0:
        raise ValueError("weights must have a positive sum")
    q = float(q)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q!r}")
    order = np.argsort(v, kind="stable")
    pos = weighted_quantile_position(np.ascontiguousarray(w[order]), v.size, q, total)
    return int(order[pos])


def weighted_quantile(values, weights, q: float) -> float:
    """The weighted ``q``-quantile of ``values`` (see :func:`weighted_quantile_index`).

    The lower quantile of the module docstring: the smallest value at which the cumulative weight of the
    values sorted ascending reaches ``q`` times the total weight (relative tolerance :data:`QUANTILE_RTOL`).

    Parameters
    ----------
    values : array_like of float, shape ``(n,)``
        Any shape is flattened; ``n >= 1``, finite.
    weights : array_like of float, shape ``(n,)``
        Finite, non-negative, with a positive sum.
    q : float
        In ``[0, 1]`` (``0.5``: the lower weighted median).

    Returns
    -------
    float
        One of ``values``, in the units of ``values``.

    Raises
    ------
    ValueError
        As :func:`weighted_quantile_index`.
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    return float(v[weighted_quantile_index(v, weights, q)])

"""Generalised earth mover's distances between game inputs and between strategies.

Ganzfried & Yusuf (2017, *Games* 8(4), Section 3) define

* **Algorithm 1**, the distance between two inputs (one hand distribution per player): the 1-D EMD between each
  player's distributions over the ``d`` ordered hands, divided by its maximum ``d - 1`` (a point mass on the
  worst hand against one on the best), averaged over the players;
* **Algorithm 2**, the distance between two strategies: the 1-D EMD between the bet distributions of each hand,
  over the ``n_bets`` bet positions, divided by ``n_bets - 1``, averaged over the hands.

Both lie in ``[0, 1]``. In one dimension the EMD with unit spacing is the L1 distance between the cdfs
(``sum_k |F_a(k) - F_b(k)|``, which is what the algorithms' running ``delta`` computes), so both distances are
scaled cityblock distances between cumulative vectors; the pairwise forms use :func:`scipy.spatial.distance.cdist`.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from rulelearn.validation import as_float_array

__all__ = [
    "input_emd",
    "output_emd",
    "pairwise_input_emd",
    "pairwise_output_emd",
    "strategy_cumulative",
]


def _split_players(x: np.ndarray, n_players: int, name: str) -> np.ndarray:
    if x.shape[-1] % n_players:
        raise ValueError(f"{name} has {x.shape[-1]} features, not a multiple of n_players={n_players}")
    d = x.shape[-1] // n_players
    if d < 2:
        raise ValueError(f"{name} needs at least 2 hands per player, got {d}")
    return x.reshape(x.shape[:-1] + (n_players, d))


def input_emd(a, b, n_players: int = 2) -> np.ndarray | float:
    """Distance between inputs given as cdf feature vectors (Algorithm 1), broadcasting over leading axes.

    Parameters
    ----------
    a, b : array_like of float, shape ``(..., n_players * d)``
        Concatenated per-player cdfs over ``d`` ordered hands (player 1's ``d`` values, then player 2's, ...),
        e.g. ``(0.1, 0.2, ..., 1, 0.1, ..., 1)`` for the paper's uniform deal. Leading axes broadcast.
    n_players : int, default 2
        Number of per-player blocks.

    Returns
    -------
    float or numpy.ndarray of float64, shape ``broadcast(a, b).shape[:-1]``
        Mean over players of ``EMD / (d - 1)``; in ``[0, 1]`` for valid cdfs.

    Raises
    ------
    ValueError
        If the inputs contain NaN, the feature count is not a multiple of ``n_players``, or ``d < 2``.
    """
    x = _split_players(as_float_array(a, "a"), n_players, "a")
    y = _split_players(as_float_array(b, "b"), n_players, "b")
    d = x.shape[-1]
    dist = np.abs(x - y).sum(axis=-1).mean(axis=-1) / (d - 1)
    return float(dist) if np.ndim(dist) == 0 else dist


def output_emd(a, b) -> np.ndarray | float:
    """Distance between strategies (Algorithm 2), broadcasting over leading axes.

    Parameters
    ----------
    a, b : array_like of float, shape ``(..., n_hands, n_bets)``
        Action probabilities per hand over ordered actions (bet sizes); rows sum to 1.

    Returns
    -------
    float or numpy.ndarray of float64, shape ``broadcast(a, b).shape[:-2]``
        Mean over hands of ``EMD / (n_bets - 1)`` with bets at unit-spaced positions (the bet index, as in
        Algorithm 2; for the paper's uniform grid this is the EMD in chips divided by the stack); in ``[0, 1]``.

    Raises
    ------
    ValueError
        If the inputs contain NaN, have fewer than 2 dimensions, or fewer than 2 actions.
    """
    x = as_float_array(a, "a")
    y = as_float_array(b, "b")
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(f"strategies must have shape (..., n_hands, n_bets), got {x.shape} and {y.shape}")
    nb = x.shape[-1]
    if nb < 2:
        raise ValueError("output_emd needs at least 2 actions per hand")
    diff = np.cumsum(x - y, axis=-1)
    dist = np.abs(diff).sum(axis=-1).mean(axis=-1) / (nb - 1)
    return float(dist) if np.ndim(dist) == 0 else dist


def pairwise_input_emd(a, b=None, n_players: int = 2) -> np.ndarray:
    """All pairwise input distances (Algorithm 1) between two sets of cdf feature vectors.

    Parameters
    ----------
    a : array_like of float, shape ``(m, n_players * d)``
    b : array_like of float, shape ``(k, n_players * d)``, optional
        Defaults to ``a``.
    n_players : int, default 2

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, k)``
    """
    x = as_float_array(a, "a", ndim=2)
    y = x if b is None else as_float_array(b, "b", ndim=2)
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"a and b must have the same number of features, got {x.shape[1]} and {y.shape[1]}")
    d = _split_players(x[:1], n_players, "a").shape[-1]
    return cdist(x, y, metric="cityblock") / (n_players * (d - 1))


def strategy_cumulative(strategies) -> np.ndarray:
    """Cumulative action probabilities along the last axis, without the last (always 1) entry.

    ``output_emd(a, b) == abs(cum(a) - cum(b)).sum((-2, -1)) / (n_hands * (n_bets - 1))`` with ``cum`` this map,
    which turns the strategy EMD into an L1 distance (and squared L2 into the Cramér distance).

    Parameters
    ----------
    strategies : array_like of float, shape ``(..., n_bets)``

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., n_bets - 1)``
    """
    s = np.asarray(strategies, dtype=np.float64)
    return np.cumsum(s, axis=-1)[..., :-1]


def pairwise_output_emd(a, b=None) -> np.ndarray:
    """All pairwise strategy distances (Algorithm 2) between two sets of strategies.

    Parameters
    ----------
    a : array_like of float, shape ``(m, n_hands, n_bets)``
    b : array_like of float, shape ``(k, n_hands, n_bets)``, optional
        Defaults to ``a``.

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, k)``
    """
    x = as_float_array(a, "a", ndim=3)
    y = x if b is None else as_float_array(b, "b", ndim=3)
    if x.shape[1:] != y.shape[1:]:
        raise ValueError(f"a and b must have the same (n_hands, n_bets), got {x.shape[1:]} and {y.shape[1:]}")
    n, nb = x.shape[1:]
    cx = strategy_cumulative(x).reshape(x.shape[0], -1)
    cy = cx if b is None else strategy_cumulative(y).reshape(y.shape[0], -1)
    return cdist(cx, cy, metric="cityblock") / (n * (nb - 1))

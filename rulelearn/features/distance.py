"""Generalised earth mover's distances between game inputs and between strategies.

Ganzfried & Yusuf (2017, *Games* 8(4), Section 3) define

* **Algorithm 1**, the distance between two inputs (one hand distribution per player): the 1-D EMD between each
  player's distributions over the ``d`` ordered hands, divided by its maximum ``d - 1`` (a point mass on the
  worst hand against one on the best), averaged over the players;
* **Algorithm 2**, the distance between two strategies: the 1-D EMD between the bet distributions of each hand,
  over the ``n_bets`` bet positions, divided by ``n_bets - 1``, averaged over the hands.

Both lie in ``[0, 1]``. In one dimension the EMD between two distributions on ordered positions
``x_0 < ... < x_{n-1}`` is ``sum_k (x_{k+1} - x_k) |F_a(k) - F_b(k)|`` with ``F`` the cdfs; with unit spacing this is
``sum_k |F_a(k) - F_b(k)|``, what the algorithms' running ``delta`` computes. So both distances are *scaled L1
(cityblock) distances between cumulative vectors*:

* ``input_emd(a, b) == || input_embedding(a) - input_embedding(b) ||_1``, with the embedding the concatenated
  per-player cdfs divided by ``P * (d - 1)``;
* ``output_emd(s, t) == || output_embedding(s) - output_embedding(t) ||_1``, with the embedding the cumulative
  strategies (without the final 1) divided by ``n_hands * (n_bets - 1)`` -- or, with bet sizes as ``positions``,
  weighted by the gaps between consecutive sizes and divided by ``n_hands * (x_max - x_min)``.

This is what makes the EMD learners exact at scale: nearest neighbours, medoids and trees work on L1 distances
between embeddings (``tests/test_distance.py`` checks both identities against POT's ``wasserstein_1d`` and its
exact transport LP ``ot.emd2`` on random inputs). The pairwise forms use :func:`scipy.spatial.distance.cdist`.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from rulelearn.validation import as_float_array, check_int

__all__ = [
    "action_gap_weights",
    "emd_medoid",
    "input_embedding",
    "input_emd",
    "output_embedding",
    "output_emd",
    "pairwise_input_emd",
    "pairwise_output_emd",
    "strategy_cumulative",
]


def _split_players(x: np.ndarray, n_players: int, name: str) -> np.ndarray:
    check_int("n_players", n_players, 1)
    if x.ndim < 1 or x.shape[-1] % n_players:
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


def action_gap_weights(positions, n_bets: int) -> np.ndarray:
    """Weights ``w`` of shape ``(n_bets - 1,)`` with ``EMD / span = sum_k w_k |F_a(k) - F_b(k)|``: the gaps
    between consecutive action positions over their span (equal weights ``1 / (n_bets - 1)`` without
    ``positions``).

    Parameters
    ----------
    positions : array_like of float, shape ``(n_bets,)``, or None
        Where the actions sit on the line, strictly increasing (e.g. the bet sizes in chips, 0 for a check),
        as in :func:`output_emd`; ``None`` for unit spacing (Algorithm 2).
    n_bets : int
        Number of actions, at least 2 (not checked here: ``n_bets = 1`` without ``positions`` divides by
        zero; the callers check it).

    Returns
    -------
    numpy.ndarray of float64, shape ``(n_bets - 1,)``
        Positive weights summing to 1: ``w_k = (x_{k+1} - x_k) / (x_max - x_min)``.

    Raises
    ------
    ValueError
        If ``positions`` is not one-dimensional, contains NaN or infinity, or does not hold ``n_bets``
        strictly increasing numbers.
    ZeroDivisionError
        If ``positions`` is ``None`` and ``n_bets == 1``.
    """
    if positions is None:
        return np.full(n_bets - 1, 1.0 / (n_bets - 1))
    x = as_float_array(positions, "positions", ndim=1)
    if x.shape[0] != n_bets:
        raise ValueError(f"positions must hold one position per action ({n_bets}), got {x.shape[0]}")
    gaps = np.diff(x)
    if np.any(gaps <= 0):
        raise ValueError("positions must be strictly increasing (actions ordered on the bet grid)")
    return gaps / (x[-1] - x[0])


def output_emd(a, b, positions=None) -> np.ndarray | float:
    """Distance between strategies (Algorithm 2), broadcasting over leading axes.

    Parameters
    ----------
    a, b : array_like of float, shape ``(..., n_hands, n_bets)``
        Action probabilities per hand over ordered actions (bet sizes); rows sum to 1.
    positions : array_like of float, shape ``(n_bets,)``, optional
        Where the actions sit on the line, strictly increasing (e.g. the bet sizes in chips, 0 for a check).
        Default: unit-spaced positions ``0, 1, ..., n_bets - 1``, as in Algorithm 2; for the paper's uniform
        grid ``0, 0.1, ..., 3`` both give the same distance.

    Returns
    -------
    float or numpy.ndarray of float64, shape ``broadcast(a, b).shape[:-2]``
        Mean over hands of ``EMD / (x_max - x_min)``, in ``[0, 1]`` (with unit positions ``EMD / (n_bets - 1)``;
        for the paper's grid this is the EMD in chips divided by the stack).

    Raises
    ------
    ValueError
        If the inputs contain NaN, have fewer than 2 dimensions or fewer than 2 actions, or ``positions`` is not
        strictly increasing with one entry per action.
    """
    x = as_float_array(a, "a")
    y = as_float_array(b, "b")
    if x.ndim < 2 or y.ndim < 2:
        raise ValueError(f"strategies must have shape (..., n_hands, n_bets), got {x.shape} and {y.shape}")
    nb = x.shape[-1]
    if nb < 2:
        raise ValueError("output_emd needs at least 2 actions per hand")
    w = action_gap_weights(positions, nb)
    diff = np.cumsum(x - y, axis=-1)[..., :-1]
    dist = (np.abs(diff) @ w).mean(axis=-1)
    return float(dist) if np.ndim(dist) == 0 else dist


def input_embedding(x, n_players: int = 2, input_kind: str = "cdf") -> np.ndarray:
    """Map inputs to vectors whose L1 (cityblock) distance is the input EMD of Algorithm 1.

    ``input_emd(a, b, n_players) == abs(input_embedding(a) - input_embedding(b)).sum(-1)``: the embedding is the
    concatenated per-player cdfs divided by ``n_players * (d - 1)``.

    Parameters
    ----------
    x : array_like of float, shape ``(..., n_players * d)``
        Per-player cdfs (``input_kind="cdf"``) or pmfs (``"pdf"``) over ``d`` ordered hands, player by player.
    n_players : int, default 2
    input_kind : {"cdf", "pdf"}, default "cdf"

    Returns
    -------
    numpy.ndarray of float64, shape ``x.shape``

    Raises
    ------
    ValueError
        On NaN, a feature count that is not a multiple of ``n_players``, ``d < 2`` or an unknown ``input_kind``.
    """
    if input_kind not in ("cdf", "pdf"):
        raise ValueError(f"input_kind must be 'cdf' or 'pdf', got {input_kind!r}")
    arr = as_float_array(x, "x")
    blocks = _split_players(arr, n_players, "x")
    if input_kind == "pdf":
        blocks = np.cumsum(blocks, axis=-1)
    d = blocks.shape[-1]
    return blocks.reshape(arr.shape) / (n_players * (d - 1))


def output_embedding(strategies, positions=None) -> np.ndarray:
    """Map strategies to vectors whose L1 (cityblock) distance is the output EMD of Algorithm 2.

    ``output_emd(s, t, positions) == abs(output_embedding(s, positions) - output_embedding(t, positions)).sum(-1)``:
    the embedding is the cumulative strategy of every hand (without its final 1), weighted by the gap to the next
    position and divided by ``n_hands * (x_max - x_min)``, flattened over hands.

    Parameters
    ----------
    strategies : array_like of float, shape ``(..., n_hands, n_bets)``
    positions : array_like of float, shape ``(n_bets,)``, optional
        As in :func:`output_emd`.

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., n_hands * (n_bets - 1))``

    Raises
    ------
    ValueError
        As :func:`output_emd`.
    """
    s = as_float_array(strategies, "strategies")
    if s.ndim < 2 or s.shape[-1] < 2:
        raise ValueError(f"strategies must have shape (..., n_hands, n_bets) with n_bets >= 2, got {s.shape}")
    w = action_gap_weights(positions, s.shape[-1])
    emb = strategy_cumulative(s) * (w / s.shape[-2])
    return emb.reshape(s.shape[:-2] + (-1,))


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


def pairwise_output_emd(a, b=None, positions=None) -> np.ndarray:
    """All pairwise strategy distances (Algorithm 2) between two sets of strategies.

    Parameters
    ----------
    a : array_like of float, shape ``(m, n_hands, n_bets)``
    b : array_like of float, shape ``(k, n_hands, n_bets)``, optional
        Defaults to ``a``.
    positions : array_like of float, shape ``(n_bets,)``, optional
        As in :func:`output_emd`.

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, k)``
    """
    x = as_float_array(a, "a", ndim=3)
    y = x if b is None else as_float_array(b, "b", ndim=3)
    if x.shape[1:] != y.shape[1:]:
        raise ValueError(f"a and b must have the same (n_hands, n_bets), got {x.shape[1:]} and {y.shape[1:]}")
    ex = output_embedding(x, positions)
    ey = ex if b is None else output_embedding(y, positions)
    return cdist(ex, ey, metric="cityblock")


def emd_medoid(cdf_features, weights=None) -> int:
    """The 1-medoid under the input EMD: the row with the least total EMD to all rows.

    The input EMD (Ganzfried & Yusuf 2017, Algorithm 1) is the L1 distance between concatenated per-player cdf
    vectors divided by a constant, so the total distance of row ``a`` to all rows is a sum over coordinates of
    ``sum_b |x_a - x_b|``, computed for every ``a`` at once from sorted values and prefix sums in
    ``O(m log m)`` per coordinate (no ``m x m`` matrix). Rule sets use it for a leaf's medoid game
    (:mod:`rulelearn.rules.leaves`).

    Parameters
    ----------
    cdf_features : array_like of float, shape ``(m, n_features)``
        Concatenated cdf features of each game (any scaling common to all coordinates gives the same medoid).
    weights : array_like of float, shape ``(m,)``, optional
        Non-negative row weights (default equal): the weighted total distance is minimised.

    Returns
    -------
    int
        Row index of the medoid (the first on ties).

    Raises
    ------
    ValueError
        On an empty or non-2-D input, NaN, or invalid weights.
    """
    x = as_float_array(cdf_features, "cdf_features", ndim=2)
    m = x.shape[0]
    if m == 0:
        raise ValueError("cdf_features must have at least one row")
    w = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (m,) or np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be {m} finite non-negative numbers")
    order = np.argsort(x, axis=0, kind="stable")  # (m, F)
    xs = np.take_along_axis(x, order, axis=0)
    ws = w[order]
    cw = np.cumsum(ws, axis=0)  # weight at or below each sorted position
    cwx = np.cumsum(ws * xs, axis=0)
    tw, twx = cw[-1], cwx[-1]
    # sum_b w_b |x_a - x_b| = x_a W_le - S_le + (S_tot - S_le) - x_a (W_tot - W_le) for sorted position of a
    total_sorted = xs * cw - cwx + (twx - cwx) - xs * (tw - cw)
    total = np.empty_like(total_sorted)
    np.put_along_axis(total, order, total_sorted, axis=0)
    return int(np.argmin(total.sum(axis=1)))

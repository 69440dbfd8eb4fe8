"""Input checks shared by every module: each raises ``ValueError`` naming the parameter and the rule it broke."""

from __future__ import annotations

import numpy as np

#: Absolute tolerance for "sums to 1" checks on probability vectors that define a game (a deal).
PMF_ATOL = 1e-9
#: Absolute tolerance for "sums to 1" checks on strategies (learned strategies are renormalised floats).
STRATEGY_ATOL = 1e-6


def as_float_array(value, name: str, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Convert ``value`` to a float64 array, rejecting NaN/inf and wrong dimensionality.

    Parameters
    ----------
    value : array_like
        The input.
    name : str
        The parameter name used in error messages.
    ndim : int or tuple of int, optional
        Allowed numbers of dimensions.

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    ValueError
        If the input is not numeric, contains NaN or infinity, or has a disallowed number of dimensions.
    """
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimensions, got shape {arr.shape}"
            )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return arr


def check_probability_rows(arr: np.ndarray, name: str, axes: int | tuple[int, ...] = -1,
                           atol: float = PMF_ATOL) -> None:
    """Check that ``arr`` is non-negative and sums to 1 over ``axes``.

    Raises
    ------
    ValueError
        If an entry is negative or a sum over ``axes`` differs from 1 by more than ``atol``.
    """
    if np.any(arr < 0):
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} has a negative probability {arr[idx]!r} at index {idx}")
    sums = arr.sum(axis=axes)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        where = np.argwhere(np.atleast_1d(bad))[0]
        worst = np.atleast_1d(sums)[tuple(where)]
        raise ValueError(
            f"{name} must sum to 1 over axis {axes} (tolerance {atol:g}); "
            f"found a sum of {worst!r} at index {tuple(int(i) for i in where)}"
        )


def check_shape(arr: np.ndarray, name: str, shape: tuple, what: str = "") -> None:
    """Check that ``arr.shape`` matches ``shape`` (``None`` entries match anything)."""
    ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
    if not ok:
        pretty = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {pretty}{' ' + what if what else ''}, got {arr.shape}")

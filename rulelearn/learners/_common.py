"""Shared input handling for the strategy learners."""

from __future__ import annotations

import numpy as np

from rulelearn.validation import STRATEGY_ATOL, as_float_array, check_probability_rows


def check_features(X, name: str = "X") -> np.ndarray:
    """2-D float features without NaN."""
    return as_float_array(X, name, ndim=2)


def check_targets(Y, n_rows: int, name: str = "Y") -> np.ndarray:
    """Strategies of shape ``(m, ..., n_actions)`` with rows on the simplex and ``m == n_rows``."""
    y = as_float_array(Y, name)
    if y.ndim < 2:
        raise ValueError(f"{name} must have shape (n_samples, ..., n_actions), got {y.shape}")
    if y.shape[0] != n_rows:
        raise ValueError(f"{name} has {y.shape[0]} rows but X has {n_rows}")
    if y.shape[-1] < 2:
        raise ValueError(f"{name} needs at least 2 actions on its last axis, got {y.shape[-1]}")
    check_probability_rows(y, name, axes=-1, atol=STRATEGY_ATOL)
    return y


def to_cdf_features(X: np.ndarray, n_players: int, input_kind: str) -> np.ndarray:
    """Per-player cdf features ``(m, P * d)`` from cdf or pdf features; the EMD is defined on cdfs."""
    if input_kind not in ("cdf", "pdf"):
        raise ValueError(f"input_kind must be 'cdf' or 'pdf', got {input_kind!r}")
    if X.shape[1] % n_players:
        raise ValueError(
            f"X has {X.shape[1]} features, not n_players={n_players} blocks of hand probabilities; "
            "EMD learners take whole-game rows (per_hand=None)"
        )
    if input_kind == "cdf":
        return X
    m = X.shape[0]
    return np.cumsum(X.reshape(m, n_players, -1), axis=-1).reshape(m, -1)


def cumulative_to_strategy(cum: np.ndarray) -> np.ndarray:
    """Invert :func:`rulelearn.features.distance.strategy_cumulative`: append the final 1, difference, clean rounding."""
    full = np.concatenate([cum, np.ones(cum.shape[:-1] + (1,))], axis=-1)
    full = np.maximum.accumulate(np.clip(full, 0.0, 1.0), axis=-1)
    strat = np.diff(full, axis=-1, prepend=0.0)
    return strat / strat.sum(axis=-1, keepdims=True)

"""The encoding error of a card abstraction: replace each combo's value by its bucket's mean and measure the loss.

Hopner & Loza Mencia, "Analysis and Optimization of Deep Counterfactual Value Networks", Section 4: the
counterfactual values of the hands are aggregated to a value per bucket, and the bucket's value is compared with
each hand's value by the mean squared error and the Huber loss with delta = 1, averaged over all private hands and
examples. :class:`hunl.distill.abstraction.CardAbstraction` measures its buckets with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.poker.cards import NUM_COMBOS

__all__ = ["EncodingError", "bucket_means", "encoding_error"]


# ------------------------------------------------------------------------------------------- encoding error
@dataclass(frozen=True)
class EncodingError:
    """The error of replacing each combo's value by its bucket's mean (Hopner & Loza Mencia, Section 4).

    Attributes
    ----------
    mse : float
        Mean squared error (value units squared, e.g. chips^2), averaged over every (example, combo) entry.
    huber : float
        Mean Huber loss with the given ``delta``: ``e^2 / 2`` for ``|e| <= delta``, else
        ``delta * (|e| - delta / 2)``.
    mean_abs : float
        Mean absolute error (value units).
    max_abs : float
        Largest absolute error (value units).
    n_values : int
        Number of entries averaged: examples x combos with a bucket (combos holding a board card excluded).
    n_buckets : int
        Number of distinct buckets among those combos.
    delta : float
        The Huber loss parameter (1 in the paper).
    """

    mse: float
    huber: float
    mean_abs: float
    max_abs: float
    n_values: int
    n_buckets: int
    delta: float


def _labels(labels) -> np.ndarray:
    lab = np.asarray(labels)
    if lab.shape != (NUM_COMBOS,):
        raise ValueError(f"labels must have shape (1326,), got {lab.shape}")
    if lab.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers (bucket per combo, -1 for none), got dtype {lab.dtype}")
    if lab.size and lab.min() < -1:
        raise ValueError("labels must be >= -1 (-1 marks combos without a bucket)")
    if not np.any(lab >= 0):
        raise ValueError("labels assign no combo to a bucket")
    return lab.astype(np.int64)


def _values_weights(values, weights, live: np.ndarray):
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("values must be a numeric array of shape (1326,) or (K, 1326)") from exc
    if v.ndim not in (1, 2) or v.shape[-1] != NUM_COMBOS or v.size == 0:
        raise ValueError(f"values must have shape (1326,) or (K, 1326) with K >= 1, got {v.shape}")
    v2 = v.reshape(-1, NUM_COMBOS)
    if not np.all(np.isfinite(v2[:, live])):
        raise ValueError("values must be finite on every combo with a bucket (NaN is allowed elsewhere)")
    if weights is None:
        return v2, np.ones_like(v2), v.ndim == 1
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("weights must be a numeric array of shape (1326,) or (K, 1326)") from exc
    if w.shape not in ((NUM_COMBOS,), v2.shape, v.shape):
        raise ValueError(f"weights must have shape (1326,) or the shape of values {v.shape}, got {w.shape}")
    w2 = np.broadcast_to(w.reshape(-1, NUM_COMBOS), v2.shape)
    if not np.all(np.isfinite(w2[:, live])) or np.any(w2[:, live] < 0):
        raise ValueError("weights must be finite and nonnegative on every combo with a bucket")
    return v2, w2, v.ndim == 1


def bucket_means(labels, values, weights=None) -> np.ndarray:
    """Each combo's value replaced by the (weighted) mean value of its bucket: the encode-decode of the
    counterfactual values through a card abstraction (Hopner & Loza Mencia, Section 3.1, Figure 1).

    Parameters
    ----------
    labels : array_like, int, shape (1326,)
        Bucket of each combo, -1 for combos without one (holding a board card).
    values : array_like, float, shape (1326,) or (K, 1326)
        A value per combo (e.g. counterfactual values in chips), one row per example; must be finite where
        ``labels >= 0``.
    weights : array_like, float, shape (1326,) or (K, 1326), optional
        Nonnegative weights of the bucket means (e.g. the range or reach of each combo). A bucket whose weight
        is zero in a row gets its unweighted mean. Equal weights if omitted.

    Returns
    -------
    numpy.ndarray, float64, same shape as ``values``
        The bucket mean of each combo; NaN where ``labels == -1``.

    Raises
    ------
    ValueError
        On wrong shapes, labels below -1 or no labelled combo, non-finite values on labelled combos, or
        negative / non-finite weights.
    TypeError
        If ``labels`` is not an integer array or ``values``/``weights`` are not numeric.
    """
    lab = _labels(labels)
    live = lab >= 0
    v2, w2, single = _values_weights(values, weights, live)
    out = _bucket_means(lab, v2, w2)
    return out[0] if single else out


def _bucket_means(lab: np.ndarray, v2: np.ndarray, w2: np.ndarray) -> np.ndarray:
    live = lab >= 0
    n_b = int(lab.max()) + 1
    idx = lab[live]
    k = v2.shape[0]
    flat = (np.arange(k)[:, None] * n_b + idx[None, :]).ravel()
    vl, wl = v2[:, live], w2[:, live]
    size = k * n_b
    sw = np.bincount(flat, wl.ravel(), minlength=size).reshape(k, n_b)
    swv = np.bincount(flat, (wl * vl).ravel(), minlength=size).reshape(k, n_b)
    cnt = np.bincount(idx, minlength=n_b).astype(np.float64)
    sv = np.bincount(flat, vl.ravel(), minlength=size).reshape(k, n_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(sw > 0, swv / np.where(sw > 0, sw, 1.0), sv / np.maximum(cnt, 1.0))
    out = np.full(v2.shape, np.nan)
    out[:, live] = means[:, idx]
    return out


def encoding_error(labels, values, weights=None, delta: float = 1.0) -> EncodingError:
    """Encoding error of a card abstraction (Hopner & Loza Mencia, Section 4, Table 1).

    Each combo's value is replaced by its bucket's (weighted) mean (:func:`bucket_means`) and compared with
    the original by the mean squared error and the Huber loss, averaged over all combos with a bucket and all
    examples (rows), as in the paper.

    Parameters
    ----------
    labels : array_like, int, shape (1326,)
        Bucket of each combo, -1 for combos without one.
    values : array_like, float, shape (1326,) or (K, 1326)
        Values per combo (e.g. counterfactual values, chips), one row per example.
    weights : array_like, float, shape (1326,) or (K, 1326), optional
        Weights of the bucket means (see :func:`bucket_means`); the errors themselves are averaged with equal
        weight per combo and example.
    delta : float, default 1.0
        Huber loss parameter (the paper uses 1).

    Returns
    -------
    EncodingError

    Raises
    ------
    ValueError, TypeError
        As :func:`bucket_means`; ValueError if ``delta`` is not positive and finite.
    """
    if not isinstance(delta, (int, float, np.integer, np.floating)) or not np.isfinite(delta) or delta <= 0:
        raise ValueError(f"delta must be a positive finite number, got {delta!r}")
    lab = _labels(labels)
    live = lab >= 0
    v2, w2, _ = _values_weights(values, weights, live)
    err = (_bucket_means(lab, v2, w2) - v2)[:, live]
    a = np.abs(err)
    d = float(delta)
    huber = np.where(a <= d, 0.5 * err ** 2, d * (a - 0.5 * d))
    return EncodingError(mse=float(np.mean(err ** 2)), huber=float(np.mean(huber)), mean_abs=float(a.mean()),
                         max_abs=float(a.max()), n_values=int(err.size), n_buckets=int(np.unique(lab[live]).size),
                         delta=d)

"""Round numbers and plain mixes: what a rule card may print.

A card a person can carry names thresholds a person can remember ("more than 70%", "at least pot-sized", "below
2") and action mixes a person can play ("bet big 2 in 3, check 1 in 3"). This module supplies both, for any game:

* :func:`share_grid`, :func:`signed_grid`, :func:`scale_grid` and :func:`count_grid` -- the round thresholds of a
  quantity by its kind (a share of a range, a signed margin, a positive ratio, a count);
  :func:`is_round` says whether a number is one of them;
* :func:`plain_fractions` -- a distribution rounded to ``k in d`` with a small denominator ``d``, summing exactly
  to 1 (the card plays exactly what it prints); :func:`plain_mixes_near` lists every plain mix near a
  distribution (for choosing among them by the card's cost); :func:`describe_plain_mix` puts it in words.

The learners search thresholds *on* these grids (:mod:`rulelearn.rules.round_tree`), so a card's thresholds need
no snapping after the fact: the printed card is the measured policy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PLAIN_DENOMINATORS", "QUANTITY_KINDS", "count_grid", "describe_plain_mix", "grid_for", "is_round",
           "plain_fractions", "plain_mixes_near", "scale_grid", "share_grid", "signed_grid"]

#: Denominators of a plain mix, simplest first ("1 in 2", "2 in 3", "1 in 4", ..., "3 in 10").
PLAIN_DENOMINATORS = (1, 2, 3, 4, 5, 6, 8, 10)
#: Kinds of quantity a card can name, each with its grid of round thresholds.
QUANTITY_KINDS = ("share", "signed", "scale", "count", "flag")

#: Mantissas of a round positive number (times a power of ten): 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 7.5, 8.
_MANTISSAS = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 7.5, 8.0)


def share_grid() -> np.ndarray:
    """Round shares in (0, 1): 1%, 2%, 3%, then every 5% from 5% to 95%, then 97%, 98%, 99%."""
    mid = np.round(np.arange(1, 20) * 0.05, 2)
    return np.concatenate([[0.01, 0.02, 0.03], mid, [0.97, 0.98, 0.99]])


def signed_grid() -> np.ndarray:
    """Round signed margins: every 5 points from -50% to +50% (a margin is a difference of two shares)."""
    return np.round(np.arange(-10, 11) * 0.05, 2)


def scale_grid(low: float = 0.1, high: float = 100.0) -> np.ndarray:
    """Round positive numbers ``m * 10**k`` with ``m`` in 1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 7.5, 8, within
    ``[low, high]`` (ratios: a bet in pots, a stack-to-pot ratio).

    Parameters
    ----------
    low : float, default 0.1
        Smallest value, ``> 0`` (bounds are inclusive, to ``1e-12``).
    high : float, default 100.0
        Largest value, finite; ``high < low`` gives an empty grid.

    Returns
    -------
    numpy.ndarray of float64, shape ``(k,)``
        The round values in ``[low, high]``, ascending and distinct (34 values by default: ``0.1, 0.15, ...,
        80, 100``).

    Raises
    ------
    ValueError
        If ``low`` is negative or NaN (with a ``RuntimeWarning`` from ``log10``).
    OverflowError
        If ``low`` is 0 or ``high`` is infinite.
    """
    out = []
    for k in range(int(np.floor(np.log10(low))) - 1, int(np.ceil(np.log10(high))) + 1):
        out += [round(m * 10.0 ** k, 10) for m in _MANTISSAS]
    out = np.unique(np.asarray(out))
    return out[(out >= low - 1e-12) & (out <= high + 1e-12)]


def count_grid(high: int = 4) -> np.ndarray:
    """Thresholds of a count between whole numbers: 0.5, 1.5, ... (``x > 0.5`` reads "at least 1").

    Parameters
    ----------
    high : int, default 4
        Number of thresholds: the largest is ``high - 0.5`` ("at least ``high``"). Not checked: ``high <= 0``
        gives an empty grid.

    Returns
    -------
    numpy.ndarray of float64, shape ``(high,)``
        ``0.5, 1.5, ..., high - 0.5``, ascending.

    Raises
    ------
    TypeError
        If ``high`` is not a number.
    """
    return np.arange(high) + 0.5


def grid_for(kind: str) -> np.ndarray:
    """The default round thresholds of a quantity kind (one of :data:`QUANTITY_KINDS`; ``"flag"`` is a 0/1
    feature, split at 0.5).

    Parameters
    ----------
    kind : str
        ``"share"`` (:func:`share_grid`), ``"signed"`` (:func:`signed_grid`), ``"scale"`` (:func:`scale_grid`
        with its defaults), ``"count"`` (:func:`count_grid` with its default) or ``"flag"``.

    Returns
    -------
    numpy.ndarray of float64
        The thresholds, ascending: shares and margins as fractions (``0.01 .. 0.99``; ``-0.5 .. 0.5`` in steps
        of ``0.05``), ratios ``0.1 .. 100``, counts ``0.5, 1.5, 2.5, 3.5``, or ``[0.5]`` for a flag.

    Raises
    ------
    ValueError
        On an unknown kind.
    """
    if kind == "share":
        return share_grid()
    if kind == "signed":
        return signed_grid()
    if kind == "scale":
        return scale_grid()
    if kind == "count":
        return count_grid()
    if kind == "flag":
        return np.array([0.5])
    raise ValueError(f"kind must be one of {QUANTITY_KINDS}, got {kind!r}")


def is_round(x: float, kind: str) -> bool:
    """Whether ``x`` is on the grid of round thresholds of ``kind`` (to 1e-9).

    The grid is the kind's default (:func:`grid_for`), except for ``"scale"``, which allows :func:`scale_grid`
    over ``[1e-3, 1e4]``. A count is round only up to ``3.5`` (:func:`count_grid`'s default).

    Parameters
    ----------
    x : float
        A threshold, in the units of the quantity (a share or margin as a fraction, a ratio, a count).
    kind : str
        One of :data:`QUANTITY_KINDS`.

    Returns
    -------
    bool
        Whether ``x`` is within ``1e-9`` of a point of the grid.

    Raises
    ------
    ValueError
        On an unknown ``kind``, or if ``x`` is a string that ``float`` cannot read.
    TypeError
        If ``x`` is not a number (e.g. ``None``).
    """
    g = grid_for(kind) if kind != "scale" else scale_grid(1e-3, 1e4)
    return bool(np.any(np.abs(g - float(x)) <= 1e-9))


def _distribution(probs) -> np.ndarray:
    """``probs`` as a flat float64 distribution (clipped at 0, renormalised); ValueError if it is empty,
    negative, not finite or sums to 0."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1)
    if p.size == 0 or np.any(p < -1e-12) or not np.isfinite(p).all() or p.sum() <= 0:
        raise ValueError("probs must be a non-empty, non-negative distribution")
    return np.clip(p, 0.0, None) / p.sum()


def plain_fractions(probs, tolerance: float = 0.05, denominators=PLAIN_DENOMINATORS) -> tuple[np.ndarray, int]:
    """A distribution rounded to counts ``k / d`` with the smallest denominator ``d`` that keeps every entry within
    ``tolerance``, or the denominator with the least largest error if none does.

    Each candidate rounding is the largest-remainder rounding of ``d * probs`` (the counts sum to ``d``).

    Parameters
    ----------
    probs : array_like of float, shape ``(k,)``
        Non-negative, summing to 1 (renormalised).
    tolerance : float, default 0.05
    denominators : sequence of int, default :data:`PLAIN_DENOMINATORS`
        Tried in order.

    Returns
    -------
    counts : numpy.ndarray of int64, shape ``(k,)``
        Summing to ``d``, reduced to lowest terms (a pure action is ``1 in 1``).
    d : int

    Raises
    ------
    ValueError
        If ``probs`` is empty, negative or sums to 0.
    """
    p = _distribution(probs)
    best = None
    for d in denominators:
        raw = p * d
        counts = np.floor(raw).astype(np.int64)
        rest = int(d - counts.sum())
        if rest > 0:
            order = np.lexsort((np.arange(p.size), -(raw - counts)))
            counts[order[:rest]] += 1
        err = float(np.abs(counts / d - p).max())
        if best is None or err < best[0] - 1e-12:
            best = (err, counts, int(d))
        if err <= tolerance + 1e-12:
            best = (err, counts, int(d))
            break
    _, counts, d = best
    g = int(np.gcd.reduce(np.append(counts[counts > 0], d)))
    return counts // g, d // g


def plain_mixes_near(probs, radius: float, allowed=None, denominators=PLAIN_DENOMINATORS) -> np.ndarray:
    """Every plain mix ``k / d`` (``d`` in ``denominators``) within ``radius`` of ``probs`` in every entry.

    The candidates among which a learner may choose a rule's printed mix by what it costs, rather than taking the
    nearest one (:func:`plain_fractions`).

    Parameters
    ----------
    probs : array_like of float, shape ``(k,)``
        Non-negative, summing to 1 (renormalised).
    radius : float
        Largest change of any entry (the L-infinity distance), >= 0.
    allowed : array_like of bool, shape ``(k,)``, optional
        Entries a mix may give positive probability (default all), e.g. the actions a rule's decisions offer.
    denominators : sequence of int, default :data:`PLAIN_DENOMINATORS`

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, k)``
        Distinct mixes, each summing to 1, in the order of the first denominator that gives them, then of their
        counts (lexicographically); empty (``m = 0``) when none is within ``radius``.

    Raises
    ------
    ValueError
        If ``probs`` is empty, negative or sums to 0, ``radius`` is negative or not finite, or ``allowed`` has
        another length than ``probs`` or allows no entry.
    """
    p = _distribution(probs)
    if not np.isfinite(radius) or radius < 0:
        raise ValueError(f"radius must be a finite number >= 0, got {radius!r}")
    ok = np.ones(p.size, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool).reshape(-1)
    if ok.size != p.size or not ok.any():
        raise ValueError(f"allowed must hold {p.size} flags, at least one True")
    out, seen = [], set()
    idx = np.flatnonzero(ok)
    for d in denominators:
        d = int(d)
        # compositions of d into the allowed entries: stars and bars
        for bars in _compositions(d, idx.size):
            m = np.zeros(p.size)
            m[idx] = bars / d
            if np.abs(m - p).max() <= radius + 1e-12:
                key = tuple(np.round(m, 9))
                if key not in seen:
                    seen.add(key)
                    out.append(m)
    return np.asarray(out, dtype=np.float64).reshape(-1, p.size)


def _compositions(total: int, parts: int) -> np.ndarray:
    """All ways to write ``total`` as an ordered sum of ``parts`` non-negative integers, shape ``(n, parts)``,
    in lexicographic order."""
    if parts == 1:
        return np.array([[total]], dtype=np.int64)
    rows = []
    for first in range(total + 1):
        rest = _compositions(total - first, parts - 1)
        rows.append(np.column_stack([np.full(rest.shape[0], first, dtype=np.int64), rest]))
    return np.concatenate(rows)


def describe_plain_mix(labels, counts, d: int) -> str:
    """``"bet big 2 in 3, check 1 in 3"``: the actions of a plain mix, most frequent first; a pure action is named
    alone (``"check"``).

    Parameters
    ----------
    labels : sequence of str
        Action names.
    counts : array_like of int
        From :func:`plain_fractions`.
    d : int
    """
    c = np.asarray(counts, dtype=np.int64)
    if int(d) == 1 or c.max() == d:
        return str(labels[int(c.argmax())])
    order = sorted(np.flatnonzero(c > 0), key=lambda k: (-c[k], k))
    return ", ".join(f"{labels[k]} {c[k]} in {d}" for k in order)


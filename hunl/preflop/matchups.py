"""Preflop matchups up to suit isomorphism: the 47,008 distinct all-in showdowns of two hands.

Two matchups have the same equity when one is the other with the suits renamed (a permutation of the four
suits maps boards one-to-one onto boards and preserves every hand's value), and the equity of ``(v, h)`` follows
from that of ``(h, v)`` (``win_v = boards - win_h - tie``). So of the ``1326 * 1225 = 1,624,350`` ordered pairs
of disjoint combos only the orbits under the 24 suit permutations and the swap of the two hands need computing:
**47,008** of them (counted by :func:`canonical_matchups`; tested).

A matchup is written as four cards ``(h0, h1, v0, v1)`` with ``h0 < h1`` and ``v0 < v1``; its *key* is
``combo(h0, h1) * 1326 + combo(v0, v1)`` (:data:`hunl.poker.cards.COMBO_INDEX`). The canonical representative of an
orbit is the member with the smallest key.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
from numba import njit

from hunl.poker.cards import COMBO_CARDS, COMBO_INDEX, NUM_COMBOS

__all__ = ["NUM_MATCHUPS", "canonical_matchups", "combo_matchups"]

#: Distinct preflop matchups up to suit permutations and the order of the two hands.
NUM_MATCHUPS = 47_008

_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)


@njit(cache=True)
def _canonical_keys(combo_cards, combo_index, perms):  # pragma: no cover - compiled
    """For each ordered pair of disjoint combos, the smallest key in its orbit and whether that member has the
    two hands swapped; -1 for pairs that share a card."""
    n = combo_cards.shape[0]
    keys = np.full((n, n), -1, dtype=np.int64)
    swapped = np.zeros((n, n), dtype=np.bool_)
    for i in range(n):
        a0, a1 = combo_cards[i, 0], combo_cards[i, 1]
        for j in range(n):
            b0, b1 = combo_cards[j, 0], combo_cards[j, 1]
            if a0 == b0 or a0 == b1 or a1 == b0 or a1 == b1:
                continue
            best = np.int64(1) << 62
            best_swap = False
            for p in range(perms.shape[0]):
                x = combo_index[(a0 & ~3) | perms[p, a0 & 3], (a1 & ~3) | perms[p, a1 & 3]]
                y = combo_index[(b0 & ~3) | perms[p, b0 & 3], (b1 & ~3) | perms[p, b1 & 3]]
                k1 = np.int64(x) * n + y
                k2 = np.int64(y) * n + x
                if k1 < best:
                    best = k1
                    best_swap = False
                if k2 < best:
                    best = k2
                    best_swap = True
            keys[i, j] = best
            swapped[i, j] = best_swap
    return keys, swapped


@functools.cache
def _orbits():
    keys, swapped = _canonical_keys(COMBO_CARDS.astype(np.int64), COMBO_INDEX.astype(np.int64), _PERMUTATIONS)
    unique = np.unique(keys[keys >= 0])
    index = np.full(keys.shape, -1, dtype=np.int32)
    live = keys >= 0
    index[live] = np.searchsorted(unique, keys[live]).astype(np.int32)
    first, second = np.divmod(unique, NUM_COMBOS)
    cards = np.concatenate([COMBO_CARDS[first], COMBO_CARDS[second]], axis=1).astype(np.int8)
    for arr in (cards, index, swapped):
        arr.setflags(write=False)
    return cards, index, swapped


def canonical_matchups() -> np.ndarray:
    """The canonical representative of every distinct preflop matchup, in increasing key order.

    Returns
    -------
    numpy.ndarray of int8, shape (47008, 4)
        Rows ``(h0, h1, v0, v1)``: the first hand's cards (``h0 < h1``), then the second's (``v0 < v1``), card
        indices of :mod:`hunl.poker.cards`. Read-only. Computed in about a second (24 permutations x 2 orders of
        each of the 1,624,350 ordered pairs of disjoint combos), then cached.
    """
    return _orbits()[0]


def combo_matchups() -> tuple[np.ndarray, np.ndarray]:
    """Which canonical matchup each ordered pair of combos is, and in which order.

    Returns
    -------
    index : numpy.ndarray of int32, shape (1326, 1326)
        ``index[i, j]``: the row of :func:`canonical_matchups` whose orbit holds combo ``i`` against combo
        ``j``; -1 when the combos share a card.
    swapped : numpy.ndarray of bool, shape (1326, 1326)
        True when combo ``i`` plays the *second* hand of that canonical row (so its wins are the row's
        ``boards - wins - ties``). For a matchup that is its own swap up to suits the two orders have equal
        wins and either reading is right.
    """
    _, index, swapped = _orbits()
    return index, swapped

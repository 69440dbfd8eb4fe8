"""A compact rank table for preflop enumeration: non-flush strength by hole ranks and board rank multiset.

The project's 7-card evaluator (:mod:`hunl.poker.evaluator`) ranks a non-flush hand by a lookup in a 15.6 MB table
indexed by the sum of the seven cards' rank keys. Enumerating the 1,712,304 boards of a preflop matchup touches
that table at scattered addresses, so most lookups miss the CPU caches. Here the same strengths are re-indexed
for the enumeration: ``table[r1, r2, m]`` is the strength (1..7462, :data:`hunl.poker.evaluator.NUM_STRENGTHS`) of the
best non-flush five-card hand made of hole ranks ``r1, r2`` and the five board ranks of multiset ``m``. One
matchup reads two rows of 6,188 int16 (24 KB, resident in the L1/L2 cache).

Board rank multisets are numbered by the combinatorial number system for multisets: the sorted ranks
``r_1 <= ... <= r_5`` (0 = Two .. 12 = Ace) have index ``sum_i C(r_i + i - 1, i)`` (``i = 1..5``), a bijection
onto ``0 .. C(17, 5) - 1 = 6187`` that is *additive per board card* (:data:`MULTISET_TERMS`), so nested board
loops update it with one addition per card. The 13 indices of five equal ranks are impossible boards; their
entries are 0. Entries whose seven ranks hold some rank more than four times are 0 too.

The strengths are read from :func:`hunl.poker.evaluator.tables` (the rank-key table), so they are the evaluator's
strengths exactly; the tests compare them with :func:`hunl.poker.evaluator.evaluate7` on random hands.
"""

from __future__ import annotations

import functools
from math import comb

import numpy as np
from numba import njit

from hunl.poker.evaluator import RANK_KEYS, tables

__all__ = [
    "BOARD_CARDS",
    "BOARD_RANK_KEYS",
    "MULTISET_TERMS",
    "NUM_BOARD_MULTISETS",
    "board_key_index",
    "board_multiset_counts",
    "multiset_index",
    "rank_pair_table",
]

#: Cards on a hold'em board.
BOARD_CARDS = 5
#: Number of multisets of five ranks (13 of them impossible: five of a rank): C(17, 5).
NUM_BOARD_MULTISETS = comb(13 + BOARD_CARDS - 1, BOARD_CARDS)


def _terms() -> np.ndarray:
    out = np.zeros((13, BOARD_CARDS + 1), dtype=np.int64)
    for r in range(13):
        for i in range(1, BOARD_CARDS + 1):
            out[r, i] = comb(r + i - 1, i)
    out.setflags(write=False)
    return out


#: Rank keys for five-card boards: the greedy smallest non-negative integers whose sums over the 6,175 possible
#: multisets of five ranks (at most four of a rank) are distinct, so the sum of a board's keys, accumulated card
#: by card in any order, identifies its multiset (:func:`board_key_index` maps it to the multiset index). The
#: largest sum is ``4 * 79415 + 43258 = 360918``. Checked when the tables are built, and in the tests.
BOARD_RANK_KEYS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
_BOARD_KEY_SIZE = 4 * BOARD_RANK_KEYS[12] + BOARD_RANK_KEYS[11] + 1

#: ``MULTISET_TERMS[r, i] = C(r + i - 1, i)``, int64 (13, 6): the term of rank ``r`` at sorted position ``i``
#: (1-based) in the multiset index (column 0 is unused).
MULTISET_TERMS = _terms()


def multiset_index(ranks) -> int:
    """Index (0..6187) of a multiset of five ranks.

    Parameters
    ----------
    ranks : sequence of int, length 5
        Ranks 0..12 (0 = Two, 12 = Ace) in any order.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``ranks`` does not hold five integers in 0..12.
    """
    r = sorted(int(x) for x in ranks)
    if len(r) != BOARD_CARDS or r[0] < 0 or r[-1] > 12:
        raise ValueError(f"ranks must be five integers in 0..12, got {ranks!r}")
    return int(sum(MULTISET_TERMS[x, i + 1] for i, x in enumerate(r)))


@njit(cache=True)
def _build(rank_keys, rank_table, terms, n_multisets, board_keys, key_size):  # pragma: no cover - compiled
    out = np.zeros((13, 13, n_multisets), dtype=np.int16)
    counts = np.zeros((n_multisets, 13), dtype=np.int8)
    key_index = np.full(key_size, -1, dtype=np.int16)
    collisions = 0
    cnt = np.zeros(13, dtype=np.int64)
    for a in range(13):
        for b in range(a, 13):
            for c in range(b, 13):
                for d in range(c, 13):
                    for e in range(d, 13):
                        m = terms[a, 1] + terms[b, 2] + terms[c, 3] + terms[d, 4] + terms[e, 5]
                        counts[m, a] += 1
                        counts[m, b] += 1
                        counts[m, c] += 1
                        counts[m, d] += 1
                        counts[m, e] += 1
                        if not (a == b == c == d == e):
                            bk = board_keys[a] + board_keys[b] + board_keys[c] + board_keys[d] + board_keys[e]
                            if key_index[bk] >= 0:
                                collisions += 1
                            key_index[bk] = m
                        board_key = rank_keys[a] + rank_keys[b] + rank_keys[c] + rank_keys[d] + rank_keys[e]
                        for p in range(13):
                            for q in range(p, 13):
                                cnt[:] = 0
                                cnt[a] += 1
                                cnt[b] += 1
                                cnt[c] += 1
                                cnt[d] += 1
                                cnt[e] += 1
                                cnt[p] += 1
                                cnt[q] += 1
                                if cnt.max() > 4:
                                    continue
                                s = rank_table[board_key + rank_keys[p] + rank_keys[q]]
                                out[p, q, m] = s
                                out[q, p, m] = s
    return out, counts, key_index, collisions


@functools.cache
def _tables():
    t = tables()
    keys = np.asarray(RANK_KEYS, dtype=np.int64)
    board_keys = np.asarray(BOARD_RANK_KEYS, dtype=np.int64)
    table, counts, key_index, collisions = _build(keys, t.rank_table, MULTISET_TERMS, NUM_BOARD_MULTISETS,
                                                  board_keys, _BOARD_KEY_SIZE)
    if collisions:
        raise RuntimeError(f"BOARD_RANK_KEYS: {collisions} collisions among the five-rank multisets")
    for arr in (table, counts, key_index):
        arr.setflags(write=False)
    return table, counts, key_index


def rank_pair_table() -> np.ndarray:
    """Non-flush strength by hole ranks and board rank multiset (built on first use, about 1 s, then shared).

    Returns
    -------
    numpy.ndarray of int16, shape (13, 13, 6188)
        ``out[r1, r2, m]``: strength 1..7462 of hole ranks ``r1, r2`` (symmetric) with board multiset ``m``
        ignoring suits; 0 where the seven ranks are impossible (a rank more than four times). Read-only.
    """
    return _tables()[0]


def board_multiset_counts() -> np.ndarray:
    """Rank counts of each board multiset.

    Returns
    -------
    numpy.ndarray of int8, shape (6188, 13)
        ``out[m, r]``: how many of the five board ranks of multiset ``m`` equal ``r``. Read-only.
    """
    return _tables()[1]


def board_key_index() -> np.ndarray:
    """Multiset index of each sum of five :data:`BOARD_RANK_KEYS`.

    Returns
    -------
    numpy.ndarray of int16, shape (360919,)
        ``out[sum of the five board ranks' keys]`` is the board's multiset index (0..6187); -1 for sums that
        are no possible board. Read-only.
    """
    return _tables()[2]

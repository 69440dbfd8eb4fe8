"""Hand ranking for hold'em: a numba 7-card evaluator, the strengths of all combos on a board, showdown order.

A *strength* is an integer in 1..7462, larger is better, equal for hands of equal value: the rank of the best
five-card hand among the 7,462 distinct five-card hand values (the equivalence classes of K. Suffecool's
"Cactus Kev's Poker Hand Evaluator"). 1 is 7-5-4-3-2 high and 7462 a royal flush; the categories occupy
consecutive blocks (:data:`HAND_CATEGORIES`, :func:`hand_category`). The strength is exactly ``7463 - r`` for
the rank ``r`` of ``phevaluator`` (which counts 1 = best); the tests check this on random hands.

How it works (compiled with ``numba.njit(cache=True)``; the tables are built on the first use in about 0.05 s
and never stored on disk):

* Every card has a 64-bit key ``(RANK_KEYS[rank] << 16) | (1 << 4 * suit)``. The sum of the keys of seven
  cards holds, in its low 16 bits, the number of cards of each suit (one nibble per suit) and, above them, the
  sum of the rank keys. The 13 rank keys are the greedy smallest integers whose sums over the 49,205 multisets
  of seven ranks (at most four of a rank) are all distinct -- the idea of "rank key" evaluators such as
  K. Shackleton's SKPokerEval. We recomputed the greedy sequence (0, 1, 5, 22, 98, 453, 2031, 8698, 22854,
  83661, 262349, 636345, 1479181); the tests check that the sums are distinct.
* No flush (no suit nibble >= 5, tested for all four suits at once by ``(key + 0x3333) & 0x8888``): the
  strength is ``rank_table[key >> 16]``, a 7,825,760-entry int16 table over rank-key sums (15.6 MB; 49,205
  entries used).
* A flush (rare): the 13-bit rank mask of the flush suit indexes an 8,192-entry table of the best flush or
  straight flush among those ranks. Seven cards with a flush hold no quads or full house, so that is the hand.
* Five- and six-card hands (not on the hot path) are ranked from their rank counts by branches and mapped to
  1..7462 by a binary search.

Why our own numba evaluator (``benchmarks/bench_evaluator.py``, section *Hand evaluator* of
``docs/BENCHMARKS.md``): the hold'em solver needs hand ranks inside compiled kernels, and the strengths of all
1,326 combos on each of the 48 river boards of a turn endgame at set-up, without a Python call per hand.
``phevaluator`` (C, perfect hash) and ``eval7`` (Cython) are fast in C, but they are reached through one
Python call per hand: under 2 M hands/s and about 1 ms per board, and they cannot be
called from numba. ``treys`` is pure Python (tens of thousands of hands/s). This evaluator ranks on the order
of 100 M random 7-card hands/s in a batch (:func:`evaluate_many`) and all combos of a board in a few
microseconds (:func:`combo_strengths`); other numba code calls it per hand through :func:`evaluate7_nb` (seven
scalars) or :func:`evaluate_nb` (an array of 5..7 cards) with the arrays of :func:`tables`. Computing the best
hand from rank counts by branches, without the big table, is about ten times slower.

>>> evaluate7("AsKsQsJsTs2h3d"), hand_category(evaluate7("AsKsQsJsTs2h3d"))
(7462, 'straight flush')
>>> hand_category(evaluate7("Ah2s3d4c5h9d9c")), evaluate7("Ah2s3d4c5h") < evaluate7("2s3d4c5h6h")
('straight', True)
>>> s = combo_strengths("Ah2s3d4c5h")
>>> s.shape, int((s < 0).sum())          # 5 * 51 - 10 combos hold a board card
((1326,), 245)
>>> res = showdown_order("Ah2s3d4c5h")
>>> res.order.size, bool((res.strength[:-1] <= res.strength[1:]).all())
(1081, True)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from hunl.poker.cards import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, check_board
from rulelearn.validation import check_int

__all__ = [
    "HAND_CATEGORIES",
    "NO_HAND",
    "NUM_STRENGTHS",
    "RANK_KEYS",
    "EvaluatorTables",
    "ShowdownOrder",
    "category_index",
    "combo_strengths",
    "combo_strengths_nb",
    "evaluate7",
    "evaluate7_nb",
    "evaluate_many",
    "evaluate_nb",
    "hand_category",
    "showdown_order",
    "tables",
]

#: Number of distinct five-card hand values; strengths are 1..NUM_STRENGTHS.
NUM_STRENGTHS = 7462
#: Strength given to combos that share a card with the board (:func:`combo_strengths`).
NO_HAND = -1
#: Hand categories from weakest to strongest; category ``c`` holds the strengths
#: ``EvaluatorTables.category_starts[c] .. category_starts[c + 1] - 1``.
HAND_CATEGORIES = ("high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
                   "four of a kind", "straight flush")
#: Rank keys of ranks 2..A: the greedy smallest non-negative integers whose sums over all multisets of seven
#: ranks with at most four of each rank are distinct (tested in tests/test_hunl_evaluator.py).
RANK_KEYS = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
_RANK_TABLE_SIZE = 4 * RANK_KEYS[12] + 3 * RANK_KEYS[11] + 1   # the largest sum of seven rank keys, plus one
_SUIT_BITS = 0xFFFF
_FLUSH_ADD = 0x3333     # a suit nibble >= 5 overflows into the nibble's high bit after adding 3
_FLUSH_BITS = 0x8888
_BASE = 13              # raw values: category, then up to five tie-break ranks in base 13


# ------------------------------------------------------------------------------------------------ raw values
@njit(cache=True)
def _raw(cat, head, n_head, kickers, n_kickers):  # pragma: no cover - compiled
    """``cat * 13**5`` plus the tie-break ranks: ``n_head`` digits ``head`` then ``n_kickers`` digits
    ``kickers`` (base 13, most significant first), padded with zeros to five digits."""
    return (cat * _BASE ** 5 + head * _BASE ** (5 - n_head)
            + kickers * _BASE ** (5 - n_head - n_kickers))


@njit(cache=True)
def _straight_top(mask):  # pragma: no cover - compiled
    """Top rank of the highest straight in a 13-bit rank mask (3 for the wheel A-2-3-4-5), or -1."""
    for top in range(12, 3, -1):
        run = 0x1F << (top - 4)
        if mask & run == run:
            return top
    wheel = (1 << 12) | 0xF
    if mask & wheel == wheel:
        return 3
    return -1


@njit(cache=True)
def _top_ranks(mask, skip1, skip2, n):  # pragma: no cover - compiled
    """The ``n`` highest ranks of ``mask`` other than ``skip1``/``skip2`` as ``n`` base-13 digits."""
    out = 0
    k = 0
    for r in range(12, -1, -1):
        if k == n:
            break
        if (mask >> r) & 1 and r != skip1 and r != skip2:
            out = out * _BASE + r
            k += 1
    return out


@njit(cache=True)
def _raw_counts(counts):  # pragma: no cover - compiled
    """Raw value (category * 13**5 + tie-break ranks) of the best non-flush five-card hand of 5..7 cards
    given as rank counts ``(13,)``."""
    present = 0
    quad = -1
    trip1 = -1
    trip2 = -1
    pair1 = -1
    pair2 = -1
    for r in range(12, -1, -1):
        c = counts[r]
        if c > 0:
            present |= 1 << r
        if c == 4 and quad < 0:
            quad = r
        elif c == 3:
            if trip1 < 0:
                trip1 = r
            elif trip2 < 0:
                trip2 = r
        elif c == 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r
    if quad >= 0:
        return _raw(7, quad, 1, _top_ranks(present, quad, -1, 1), 1)
    if trip1 >= 0 and (trip2 >= 0 or pair1 >= 0):
        return _raw(6, trip1 * _BASE + max(trip2, pair1), 2, 0, 0)
    top = _straight_top(present)
    if top >= 0:
        return _raw(4, top, 1, 0, 0)
    if trip1 >= 0:
        return _raw(3, trip1, 1, _top_ranks(present, trip1, -1, 2), 2)
    if pair2 >= 0:
        return _raw(2, pair1 * _BASE + pair2, 2, _top_ranks(present, pair1, pair2, 1), 1)
    if pair1 >= 0:
        return _raw(1, pair1, 1, _top_ranks(present, pair1, -1, 3), 3)
    return _raw(0, 0, 0, _top_ranks(present, -1, -1, 5), 5)


@njit(cache=True)
def _raw_flush(mask):  # pragma: no cover - compiled
    """Raw value of the best straight flush or flush among the ranks of ``mask`` (at least five bits)."""
    top = _straight_top(mask)
    if top >= 0:
        return _raw(8, top, 1, 0, 0)
    return _raw(5, 0, 0, _top_ranks(mask, -1, -1, 5), 5)


@njit(cache=True)
def _next_multiset(idx):  # pragma: no cover - compiled
    """Advance a non-decreasing rank tuple to the next (combinations with replacement); False at the end."""
    n = idx.size
    i = n - 1
    while i >= 0 and idx[i] == 12:
        i -= 1
    if i < 0:
        return False
    v = idx[i] + 1
    for j in range(i, n):
        idx[j] = v
    return True


@njit(cache=True)
def _rank_multisets(n):  # pragma: no cover - compiled
    """Rank counts ``(m, 13)`` of every multiset of ``n`` ranks with at most four of each rank."""
    total = 1
    for i in range(n):                  # C(13 + n - 1, n) tuples with replacement, before the four-limit
        total = total * (13 + i) // (i + 1)
    out = np.zeros((total, 13), dtype=np.int64)
    idx = np.zeros(n, dtype=np.int64)
    m = 0
    while True:
        counts = np.zeros(13, dtype=np.int64)
        ok = True
        for r in idx:
            counts[r] += 1
            if counts[r] > 4:
                ok = False
        if ok:
            out[m] = counts
            m += 1
        if not _next_multiset(idx):
            break
    return out[:m]


@njit(cache=True)
def _build(rank_keys, table_size):  # pragma: no cover - compiled
    # the 7,462 five-card values: non-flush rank multisets and flush rank sets
    five = _rank_multisets(5)
    raws = np.empty(five.shape[0] + 1287, dtype=np.int64)
    for i in range(five.shape[0]):
        raws[i] = _raw_counts(five[i])
    k = five.shape[0]
    for mask in range(1 << 13):
        if _popcount(mask) == 5:
            raws[k] = _raw_flush(mask)
            k += 1
    classes = np.unique(raws)
    # seven-card rank multisets -> strength, indexed by the sum of rank keys
    rank_table = np.zeros(table_size, dtype=np.int16)
    seven = _rank_multisets(7)
    collisions = 0
    for i in range(seven.shape[0]):
        key = 0
        for r in range(13):
            key += seven[i, r] * rank_keys[r]
        if rank_table[key] != 0:
            collisions += 1
        rank_table[key] = np.searchsorted(classes, _raw_counts(seven[i])) + 1
    flush_table = np.zeros(1 << 13, dtype=np.int16)
    for mask in range(1 << 13):
        if _popcount(mask) >= 5:
            flush_table[mask] = np.searchsorted(classes, _raw_flush(mask)) + 1
    return classes, rank_table, flush_table, seven.shape[0], collisions


@njit(cache=True)
def _popcount(x):  # pragma: no cover - compiled
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


# ------------------------------------------------------------------------------------------------ tables
@dataclass(frozen=True, eq=False)
class EvaluatorTables:
    """The arrays the compiled evaluator reads (built once per process by :func:`tables`).

    Attributes
    ----------
    card_keys : ndarray, int64 (52,)
        ``(RANK_KEYS[rank] << 16) | (1 << 4 * suit)`` for each card.
    rank_table : ndarray, int16 (7825760,)
        Strength of the best non-flush hand of seven cards, indexed by the sum of their rank keys.
    flush_table : ndarray, int16 (8192,)
        Strength of the best flush or straight flush among the ranks of a 13-bit mask (0 below five bits).
    class_raw : ndarray, int64 (7462,)
        The raw value (``category * 13**5`` + tie-break ranks in base 13) of each strength 1..7462, ascending.
    category_starts : ndarray, int32 (10,)
        First strength of each of the 9 categories of :data:`HAND_CATEGORIES`, then 7463.
    """

    card_keys: np.ndarray
    rank_table: np.ndarray
    flush_table: np.ndarray
    class_raw: np.ndarray
    category_starts: np.ndarray

    def arrays(self) -> tuple:
        """``(card_keys, rank_table, flush_table, class_raw)``: the arguments that follow ``cards`` in
        :func:`evaluate_nb` and ``board`` in :func:`combo_strengths_nb`."""
        return self.card_keys, self.rank_table, self.flush_table, self.class_raw


@functools.cache
def tables() -> EvaluatorTables:
    """The evaluator's tables, built on the first call (about 0.1 s once numba's cache is warm) and shared.

    Returns
    -------
    EvaluatorTables
        Read-only arrays.

    Raises
    ------
    RuntimeError
        If the rank keys collide or the table does not hold 7,462 values (a broken build; never expected).
    """
    keys = np.asarray(RANK_KEYS, dtype=np.int64)
    classes, rank_table, flush_table, n_seven, collisions = _build(keys, _RANK_TABLE_SIZE)
    if classes.size != NUM_STRENGTHS or collisions or n_seven != 49205:
        raise RuntimeError(f"evaluator tables: {classes.size} hand values (expected {NUM_STRENGTHS}), "
                           f"{collisions} rank-key collisions among {n_seven} rank multisets")
    cards = np.arange(NUM_CARDS)
    card_keys = (keys[cards // 4] << 16) | (np.int64(1) << (4 * (cards % 4)))
    cats = classes // _BASE ** 5
    starts = np.searchsorted(cats, np.arange(len(HAND_CATEGORIES) + 1)).astype(np.int32) + 1
    out = EvaluatorTables(card_keys.astype(np.int64), rank_table, flush_table, classes, starts)
    for arr in (out.card_keys, out.rank_table, out.flush_table, out.class_raw, out.category_starts):
        arr.setflags(write=False)
    return out


# ------------------------------------------------------------------------------------------------ kernels
@njit(cache=True)
def evaluate_nb(cards, card_keys, rank_table, flush_table, class_raw):  # pragma: no cover - compiled
    """Strength (1..7462) of the best five-card hand of 5..7 distinct cards; numba-callable.

    Parameters
    ----------
    cards : 1-D integer array (5..7,)
        Distinct card indices 0..51 (not checked: validate outside hot loops).
    card_keys, rank_table, flush_table, class_raw : ndarray
        ``tables().arrays()``.

    Returns
    -------
    int
        The strength; equal for hands of equal value, larger is better.
    """
    n = cards.size
    key = 0
    for i in range(n):
        key += card_keys[cards[i]]
    flush = ((key & _SUIT_BITS) + _FLUSH_ADD) & _FLUSH_BITS
    if flush != 0:
        suit = 0
        while (flush >> (4 * suit + 3)) & 1 == 0:
            suit += 1
        mask = 0
        for i in range(n):
            if cards[i] & 3 == suit:
                mask |= 1 << (cards[i] >> 2)
        return np.int64(flush_table[mask])
    if n == 7:
        return np.int64(rank_table[key >> 16])
    counts = np.zeros(13, dtype=np.int64)
    for i in range(n):
        counts[cards[i] >> 2] += 1
    return np.int64(np.searchsorted(class_raw, _raw_counts(counts)) + 1)


@njit(cache=True)
def evaluate7_nb(c0, c1, c2, c3, c4, c5, c6, card_keys, rank_table, flush_table):  # pragma: no cover
    """Strength (1..7462) of seven distinct cards given as scalars; numba-callable, no allocation.

    Parameters
    ----------
    c0, ..., c6 : int
        Distinct card indices 0..51 (not checked).
    card_keys, rank_table, flush_table : ndarray
        The first three of ``tables().arrays()``.

    Returns
    -------
    int
        As :func:`evaluate_nb`.
    """
    key = (card_keys[c0] + card_keys[c1] + card_keys[c2] + card_keys[c3] + card_keys[c4] + card_keys[c5]
           + card_keys[c6])
    flush = ((key & _SUIT_BITS) + _FLUSH_ADD) & _FLUSH_BITS
    if flush == 0:
        return np.int64(rank_table[key >> 16])
    suit = 0
    while (flush >> (4 * suit + 3)) & 1 == 0:
        suit += 1
    mask = (_suit_bit(c0, suit) | _suit_bit(c1, suit) | _suit_bit(c2, suit) | _suit_bit(c3, suit)
            | _suit_bit(c4, suit) | _suit_bit(c5, suit) | _suit_bit(c6, suit))
    return np.int64(flush_table[mask])


@njit(cache=True)
def _suit_bit(card, suit):  # pragma: no cover - compiled
    """The rank bit of ``card`` if it has suit ``suit``, else 0."""
    c = np.int64(card)
    return np.int64(1) << (c >> 2) if c & 3 == suit else np.int64(0)


@njit(cache=True)
def _evaluate_rows(cards, card_keys, rank_table, flush_table, class_raw, out):  # pragma: no cover - compiled
    """Validate and rank each row of ``cards`` (n, k); returns the first invalid row or -1.

    The 7-card case is written out in the loop: calling a function with array arguments per hand costs numba
    reference counting that doubles the time."""
    n, k = cards.shape
    for r in range(n):
        used = np.int64(0)
        key = np.int64(0)
        for i in range(k):
            c = np.int64(cards[r, i])
            if c < 0 or c >= 52 or (used >> c) & 1:
                return r
            used |= np.int64(1) << c
            key += card_keys[c]
        if k != 7:
            out[r] = evaluate_nb(cards[r], card_keys, rank_table, flush_table, class_raw)
            continue
        flush = ((key & _SUIT_BITS) + _FLUSH_ADD) & _FLUSH_BITS
        if flush == 0:
            out[r] = rank_table[key >> 16]
        else:
            suit = 0
            while (flush >> (4 * suit + 3)) & 1 == 0:
                suit += 1
            mask = 0
            for i in range(7):
                c = np.int64(cards[r, i])
                if c & 3 == suit:
                    mask |= 1 << (c >> 2)
            out[r] = flush_table[mask]
    return -1


@njit(cache=True)
def combo_strengths_nb(board, card_keys, rank_table, flush_table, class_raw, combo_cards,
                       out):  # pragma: no cover - compiled
    """Strength of every combo on a five-card board into ``out`` (1326,), :data:`NO_HAND` for combos holding a
    board card; numba-callable.

    Parameters
    ----------
    board : 1-D integer array (5,)
        Distinct card indices (not checked).
    card_keys, rank_table, flush_table, class_raw : ndarray
        ``tables().arrays()``.
    combo_cards : integer array (1326, 2)
        :data:`hunl.poker.cards.COMBO_CARDS`.
    out : integer array (1326,)
        Written in place.
    """
    bkey = 0
    used = np.int64(0)
    suit_ranks = np.zeros(4, dtype=np.int64)
    for i in range(board.size):
        c = np.int64(board[i])
        bkey += card_keys[c]
        used |= np.int64(1) << c
        suit_ranks[c & 3] |= np.int64(1) << (c >> 2)
    for k in range(combo_cards.shape[0]):
        a = np.int64(combo_cards[k, 0])
        b = np.int64(combo_cards[k, 1])
        if (used >> a) & 1 or (used >> b) & 1:
            out[k] = NO_HAND
            continue
        key = bkey + card_keys[a] + card_keys[b]
        flush = ((key & _SUIT_BITS) + _FLUSH_ADD) & _FLUSH_BITS
        if flush == 0:
            out[k] = rank_table[key >> 16]
        else:
            suit = 0
            while (flush >> (4 * suit + 3)) & 1 == 0:
                suit += 1
            mask = suit_ranks[suit]
            if a & 3 == suit:
                mask |= np.int64(1) << (a >> 2)
            if b & 3 == suit:
                mask |= np.int64(1) << (b >> 2)
            out[k] = flush_table[mask]


@njit(cache=True)
def _showdown_order(strength):  # pragma: no cover - compiled
    """Stable counting sort of the entries ``>= 0`` of ``strength`` (values 0..7462): O(n + 7463)."""
    start = np.zeros(NUM_STRENGTHS + 2, dtype=np.int64)
    m = 0
    for k in range(strength.size):
        if strength[k] >= 0:
            start[strength[k] + 1] += 1
            m += 1
    for v in range(1, NUM_STRENGTHS + 2):
        start[v] += start[v - 1]
    order = np.empty(m, dtype=np.int32)
    sorted_strength = np.empty(m, dtype=np.int32)
    for k in range(strength.size):
        v = strength[k]
        if v >= 0:
            pos = start[v]
            order[pos] = k
            sorted_strength[pos] = v
            start[v] = pos + 1
    return order, sorted_strength


# ------------------------------------------------------------------------------------------------ public API
def evaluate7(cards) -> int:
    """Strength of the best five-card hand among 5..7 cards.

    Parameters
    ----------
    cards : str or sequence of str/int
        5, 6 or 7 distinct cards in any form :func:`hunl.poker.cards.parse_cards` accepts (``"AsKs7h7d2c"``,
        ``(51, 47, 21, 22, 3)``, ...).

    Returns
    -------
    int
        Strength in 1..7462: larger is better, equal for hands of equal value (a Cactus Kev equivalence class;
        ``7463 - phevaluator.evaluate_cards(...)``).

    Raises
    ------
    ValueError
        If ``cards`` holds an unknown card, an index outside 0..51, a repeated card, or fewer than 5 or more
        than 7 cards.
    TypeError
        If ``cards`` is not a string or a sequence of cards.
    """
    parsed = np.array(check_board(cards, 5, 7, name="cards"), dtype=np.int64)
    return int(evaluate_nb(parsed, *tables().arrays()))


def evaluate_many(cards) -> np.ndarray:
    """Strengths of many hands at once (compiled loop).

    Parameters
    ----------
    cards : integer array_like (n, k), 5 <= k <= 7
        Each row holds ``k`` distinct card indices 0..51. 7-card rows use the rank-key table (about 100 M
        hands/s); 5- and 6-card rows are ranked from their rank counts.

    Returns
    -------
    ndarray, int32 (n,)
        The strength (1..7462) of each row, as :func:`evaluate7`.

    Raises
    ------
    TypeError
        If ``cards`` is not an integer array.
    ValueError
        If ``cards`` is not two-dimensional with 5..7 columns, or a row holds an index outside 0..51 or a
        repeated card (the message names the first such row).
    """
    arr = np.asarray(cards)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"cards must be an integer array of card indices, got dtype {arr.dtype}")
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= 7:
        raise ValueError(f"cards must have shape (n, k) with 5 <= k <= 7 cards per row, "
                         f"got shape {arr.shape}")
    arr = np.ascontiguousarray(arr)
    out = np.empty(arr.shape[0], dtype=np.int32)
    bad = _evaluate_rows(arr, *tables().arrays(), out)
    if bad >= 0:
        raise ValueError(f"cards: row {bad} ({arr[bad].tolist()}) has a card index outside 0..51 or a "
                         "repeated card")
    return out


def combo_strengths(board) -> np.ndarray:
    """Strength of each of the 1,326 combos on a five-card board.

    Parameters
    ----------
    board : str or sequence of str/int
        Five distinct cards (a river board).

    Returns
    -------
    ndarray, int32 (1326,)
        ``out[k]`` is the strength (1..7462) of combo ``k`` (:data:`hunl.poker.cards.COMBO_CARDS` order) with the
        board, or :data:`NO_HAND` (-1) if the combo holds a board card.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not five distinct valid cards (see :func:`hunl.poker.cards.check_board`).
    """
    b = np.array(check_board(board, 5, 5), dtype=np.int64)
    out = np.empty(NUM_COMBOS, dtype=np.int32)
    combo_strengths_nb(b, *tables().arrays(), COMBO_CARDS, out)
    return out


@dataclass(frozen=True, eq=False)
class ShowdownOrder:
    """The combos that can be dealt on a board, weakest first (input of the sorted O(n) showdown).

    Attributes
    ----------
    order : ndarray, int32 (m,)
        Combo indices (:data:`hunl.poker.cards.COMBO_CARDS` order) of the ``m = 1081`` combos without a board card,
        by ascending strength; equal strengths are adjacent, in increasing combo index.
    strength : ndarray, int32 (m,)
        Their strengths (1..7462), non-decreasing.

    ``order, strength = showdown_order(board)`` unpacks the two arrays.
    """

    order: np.ndarray
    strength: np.ndarray

    def __iter__(self):
        return iter((self.order, self.strength))


def showdown_order(board) -> ShowdownOrder:
    """Combos that share no card with a river board, sorted by strength ascending, with their strengths.

    Parameters
    ----------
    board : str or sequence of str/int
        Five distinct cards.

    Returns
    -------
    ShowdownOrder
        ``order`` int32 (1081,) and ``strength`` int32 (1081,) (stable sort of :func:`combo_strengths`).

    Raises
    ------
    ValueError, TypeError
        As :func:`combo_strengths`.
    """
    order, strength = _showdown_order(combo_strengths(board))
    return ShowdownOrder(order, strength)


def category_index(strength):
    """Category (0 = high card .. 8 = straight flush, :data:`HAND_CATEGORIES`) of strengths.

    Parameters
    ----------
    strength : int or integer array_like
        Strengths in 1..7462.

    Returns
    -------
    int or ndarray of int64
        The category of each strength (same shape as the input).

    Raises
    ------
    ValueError
        If a strength is outside 1..7462.
    TypeError
        If ``strength`` is not an integer or an integer array.
    """
    s = np.asarray(strength)
    if s.dtype.kind not in "iu":
        raise TypeError(f"strength must be an integer or an integer array, got {s.dtype}")
    if s.size and (s.min() < 1 or s.max() > NUM_STRENGTHS):
        raise ValueError(f"strength must be in 1..{NUM_STRENGTHS}, got values in {s.min()}..{s.max()}")
    cat = np.searchsorted(tables().category_starts, s, side="right") - 1
    return int(cat) if cat.ndim == 0 else cat.astype(np.int64)


def hand_category(strength) -> str:
    """Name of the hand category of a strength: ``"high card"``, ``"pair"``, ..., ``"straight flush"``.

    Parameters
    ----------
    strength : int
        A strength in 1..7462.

    Returns
    -------
    str
        One of :data:`HAND_CATEGORIES`.

    Raises
    ------
    ValueError
        If ``strength`` is outside 1..7462.
    TypeError
        If ``strength`` is not an integer.
    """
    return HAND_CATEGORIES[category_index(check_int("strength", strength, strict_type=True))]

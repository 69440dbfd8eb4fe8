"""Interpretable per-hand features of a hold'em turn or river spot: equity, range percentile, equity deciles,
E[HS] and E[HS^2].

Every function returns one float64 number (or row of numbers) per combo, over all 1,326 combos in the order of
:mod:`hunl.poker.cards`, with NaN for combos that hold a board card (and, for the range features, for combos that no
opponent combo with positive weight can face). Weight arguments are a range or reach probabilities over the
1,326 combos, shape ``(1326,)``, or a batch of them, shape ``(K, 1326)`` (then the result has a leading
``K`` axis); weights of combos that hold a board card are ignored.

Definitions (``B`` the board, ``h`` our combo, ``o`` an opponent combo, ``w`` the opponent's weights; two combos
are *compatible* when they share no card with each other or with the board):

* **equity** (Bertsimas & Paskov 2022, Section 2.2.1; the cdf feature "share of the opponent's distribution the
  hand beats" of Ganzfried & Yusuf 2017, Section 4): ``sum_o w(o) * score(h, o) / sum_o w(o)`` over compatible
  ``o``, with ``score`` = 1 for a win, 1/2 for a tie, 0 for a loss. On the river the showdown is exact. On the
  turn the river card is uniform over the 44 cards that are neither on the board nor in either hand -- the
  chance model of a turn endgame -- so ``score(h, o)`` is the mean showdown score over those 44 rivers;
* **HS** (hand strength, Hopner & Loza Mencia, Section 3.2): the river equity against the uniform range;
  **E[HS]** and **E[HS^2]** average HS and HS^2 over the 46 river cards that are neither on the turn board nor
  in the hand (each equally likely, the opponent drawn afterwards: the "card roll-outs" of the paper).

How (the technique of :mod:`games.core.terminals`): the combos of each river board are sorted by strength once
per board (cached). For each weight vector one ascending sweep over the sorted combos accumulates the weight
of the strictly weaker and of the weaker-or-equal opponent combos together with their per-card sums, and card
removal subtracts the per-card sums of our two cards (inclusion-exclusion: only the combo ``h`` itself holds
both). That is O(n) per weight vector and river board, O(48 n) on the turn -- no 1,326 x 1,326 matrix. A batch
of K weight vectors is swept together, the innermost loops running over the K vectors (independent, contiguous
lanes), which is several times faster than K separate sweeps. Whether a combo has compatible opponent weight at
all is decided on integer counts (exact), not on float sums. Speed: ``benchmarks/bench_hunl_features.py``
(section *HUNL interpretable features* of ``docs/BENCHMARKS.md``).

>>> import numpy as np
>>> from hunl.poker.cards import combo_index
>>> eq = equity_vs_uniform("AsKsQsJs2h")
>>> float(eq[combo_index("Ts", "3c")]), bool(np.isnan(eq[combo_index("As", "3c")]))   # royal flush; blocked
(1.0, True)
>>> w = np.zeros(1326); w[combo_index("Ah", "Ad")] = 1.0                              # the opponent holds AhAd
>>> float(equity("AsKsQsJs2h", w)[combo_index("Kh", "Kd")])
0.0
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from hunl.poker.cards import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, board_conflicts, check_board, unblocked_sums
from hunl.poker.evaluator import showdown_order
from rulelearn.numeric import weighted_quantile_position
from rulelearn.validation import check_int

__all__ = [
    "ehs",
    "ehs2",
    "equity",
    "equity_histogram",
    "equity_vs_uniform",
    "range_percentile",
    "river_hand_strengths",
]

_CACHE_BOARDS = 16
_CACHE_FLOPS = 2      # a flop's 2,352 sorted runouts take about 70 MB
_HISTOGRAM_CHUNK = 16


# ------------------------------------------------------------------------------------------- compiled kernels
@njit(cache=True)
def _sweep(o, ky, a0, a1, wt, counts, ws, num, den, cnt, card_w, card_n, total, total_n,
           below):  # pragma: no cover - compiled
    """K weight vectors against the combos of one river board (or one sort key), sorted by key ascending.

    ``o``, ``ky``, ``a0``, ``a1`` (m,): the sorted combos, their keys and their two cards; ``wt`` (1326, K) the
    weights by combo, one column per vector. For the combo at sorted position ``i`` and column ``q`` writes
    ``num[i, q]`` = weight of the compatible combos with a smaller key plus half the weight of those with an
    equal key (win + tie / 2) and ``den[i, q]`` = weight of all compatible combos; with ``counts`` also
    ``cnt[i, q]`` = the number of compatible combos of positive weight (integers, exact in float64). The inner
    loops run over the K columns: independent lanes, contiguous in memory. The rest is scratch:
    ``ws`` (m, K), ``card_w``/``card_n`` (52, K), ``total``/``total_n``/``below`` (K,).
    """
    m = o.size
    k = wt.shape[1]
    card_w[:] = 0.0
    total[:] = 0.0
    if counts:
        card_n[:] = 0.0
        total_n[:] = 0.0
    for i in range(m):
        h = o[i]
        for q in range(k):
            x = wt[h, q]
            ws[i, q] = x
            total[q] += x
            card_w[a0[i], q] += x
            card_w[a1[i], q] += x
        if counts:
            for q in range(k):
                p = 1.0 if ws[i, q] > 0.0 else 0.0
                total_n[q] += p
                card_n[a0[i], q] += p
                card_n[a1[i], q] += p
    for i in range(m):                            # inclusion-exclusion: only the combo itself holds both cards
        for q in range(k):
            den[i, q] = total[q] - card_w[a0[i], q] - card_w[a1[i], q] + ws[i, q]
        if counts:
            for q in range(k):
                p = 1.0 if ws[i, q] > 0.0 else 0.0
                cnt[i, q] = total_n[q] - card_n[a0[i], q] - card_n[a1[i], q] + p
    card_w[:] = 0.0
    below[:] = 0.0
    i = 0
    while i < m:
        j = i + 1
        while j < m and ky[j] == ky[i]:
            j += 1
        for t in range(i, j):                     # compatible weight strictly below
            for q in range(k):
                num[t, q] = below[q] - card_w[a0[t], q] - card_w[a1[t], q]
        for t in range(i, j):
            for q in range(k):
                x = ws[t, q]
                below[q] += x
                card_w[a0[t], q] += x
                card_w[a1[t], q] += x
        for t in range(i, j):                     # ... and below or equal (the combo itself removed by +ws)
            for q in range(k):
                num[t, q] = 0.5 * (num[t, q] + below[q] - card_w[a0[t], q] - card_w[a1[t], q] + ws[t, q])
        i = j


@njit(cache=True)
def _scratch(m, k):  # pragma: no cover - compiled
    return (np.empty((m, k)), np.empty((m, k)), np.empty((m, k)), np.empty((m, k)), np.empty((52, k)),
            np.empty((52, k)), np.empty(k), np.empty(k), np.empty(k))


@njit(cache=True)
def _equity_batch(order, key, c0, c1, wt, out):  # pragma: no cover - compiled
    """Equity of every combo against each column of ``wt`` (1326, K), summed over the R river boards of
    ``order``, ``key``, ``c0``, ``c1`` (R, m) as sum of numerators / sum of denominators, into ``out``
    (1326, K); 0 for combos without compatible weight (the caller masks them with NaN)."""
    n_boards, m = order.shape
    k = wt.shape[1]
    ws, num, den, cnt, card_w, card_n, total, total_n, below = _scratch(m, k)
    s_num = np.zeros((1326, k))
    s_den = np.zeros((1326, k))
    for r in range(n_boards):
        o = order[r]
        _sweep(o, key[r], c0[r], c1[r], wt, False, ws, num, den, cnt, card_w, card_n, total, total_n, below)
        for i in range(m):
            h = o[i]
            for q in range(k):
                s_num[h, q] += num[i, q]
                s_den[h, q] += den[i, q]
    for h in range(1326):
        for q in range(k):
            d = s_den[h, q]
            out[h, q] = min(max(s_num[h, q] / d, 0.0), 1.0) if d > 0.0 else 0.0


@njit(cache=True)
def _grouped_equities(order, key, c0, c1, group, wt, uniform, eq, prob):  # pragma: no cover - compiled
    """Equity of every combo on each group of river boards against each column of ``wt`` (1326, K), ``eq``
    (K, 1326, G): board ``r`` of ``order``, ``key``, ``c0``, ``c1`` (R, m) belongs to group ``group[r]`` (a river
    card of a turn, or a turn card of a flop), and a group's equity is the sum of its boards' numerators over the
    sum of their denominators (opponent combos holding a board's cards drop out). ``prob`` (K, 1326, G): the
    group's probability weight, the summed compatible opponent weight (the endgame's chance model) or 1
    (``uniform``); NaN / 0 where no compatible opponent combo has positive weight on the group's boards. (Groups
    last: each combo's distribution is contiguous.)"""
    n_boards, m = order.shape
    k = wt.shape[1]
    n_groups = eq.shape[2]
    ws, num, den, cnt, card_w, card_n, total, total_n, below = _scratch(m, k)
    s_num = np.zeros((k, 1326, n_groups))
    s_den = np.zeros((k, 1326, n_groups))
    s_cnt = np.zeros((k, 1326, n_groups))
    for r in range(n_boards):
        o = order[r]
        g = group[r]
        _sweep(o, key[r], c0[r], c1[r], wt, True, ws, num, den, cnt, card_w, card_n, total, total_n, below)
        for i in range(m):
            h = o[i]
            for q in range(k):
                s_num[q, h, g] += num[i, q]
                s_den[q, h, g] += den[i, q]
                s_cnt[q, h, g] += cnt[i, q]
    eq[:] = np.nan
    prob[:] = 0.0
    for q in range(k):
        for h in range(1326):
            for g in range(n_groups):
                if s_cnt[q, h, g] > 0.5:
                    eq[q, h, g] = min(max(s_num[q, h, g] / s_den[q, h, g], 0.0), 1.0)
                    prob[q, h, g] = 1.0 if uniform else max(s_den[q, h, g], 0.0)


@njit(cache=True)
def _weighted_quantiles(eq, prob, levels, out):  # pragma: no cover - compiled
    """For each column q and combo h of ``eq``/``prob`` (K, 1326, R): the quantiles ``inf{x : F(x) >= p}`` at
    each ``p`` in ``levels`` of the distribution with atoms ``eq[q, h, :]`` of probability proportional to
    ``prob[q, h, :]`` (atoms of probability 0 ignored; :func:`rulelearn.numeric.weighted_quantile_position`), into
    ``out`` (K, 1326, len(levels)); NaN if no atom has positive probability."""
    k, n_combos, n_boards = eq.shape
    n_levels = levels.size
    vals = np.empty(n_boards)
    ps = np.empty(n_boards)
    for q in range(k):
        for h in range(n_combos):
            n = 0
            total = 0.0
            for r in range(n_boards):
                p = prob[q, h, r]
                if p > 0.0:
                    v = eq[q, h, r]
                    j = n                              # insertion sort by value (n <= 49)
                    while j > 0 and vals[j - 1] > v:
                        vals[j] = vals[j - 1]
                        ps[j] = ps[j - 1]
                        j -= 1
                    vals[j] = v
                    ps[j] = p
                    n += 1
                    total += p
            if n == 0:
                for t in range(n_levels):
                    out[q, h, t] = np.nan
                continue
            for t in range(n_levels):
                out[q, h, t] = vals[weighted_quantile_position(ps, n, levels[t], total)]


# ------------------------------------------------------------------------------------------- board set-up
@dataclass(frozen=True, eq=False)
class _Sorted:
    """Combos of R boards (or R sort keys) sorted ascending: ``order`` int64 (R, m), ``key`` int32 (R, m), the
    sorted combos' two cards ``c0``, ``c1`` int64 (R, m); ``live`` bool (1326,): the combos that miss the
    board (whose features are defined)."""

    order: np.ndarray
    key: np.ndarray
    c0: np.ndarray
    c1: np.ndarray
    live: np.ndarray

    def arrays(self) -> tuple:
        return self.order, self.key, self.c0, self.c1


def _readonly(*arrays):
    for a in arrays:
        a.setflags(write=False)


def _make_sorted(order: np.ndarray, key: np.ndarray, live: np.ndarray) -> _Sorted:
    order = np.ascontiguousarray(order, dtype=np.int64)
    key = np.ascontiguousarray(key, dtype=np.int32)
    c0 = np.ascontiguousarray(COMBO_CARDS[order, 0], dtype=np.int64)
    c1 = np.ascontiguousarray(COMBO_CARDS[order, 1], dtype=np.int64)
    _readonly(order, key, c0, c1, live)
    return _Sorted(order, key, c0, c1, live)


def _showdowns(cards: tuple) -> _Sorted:
    """The river boards of a sorted board tuple, each with its combos sorted by strength: the board itself on the
    river, the 48 rivers of a turn (river ``r`` is ``_rivers(cards)[r]``), the 2,352 ordered runouts of a flop
    (turn-major: runout ``48 t + j`` is the turn ``_rivers(cards)[t]`` and the ``j``-th remaining card)."""
    return _flop_showdowns(cards) if len(cards) == 3 else _board_showdowns(cards)


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _board_showdowns(cards: tuple) -> _Sorted:
    boards = [cards] if len(cards) == 5 else [cards + (r,) for r in _rivers(cards)]
    sorted_boards = [showdown_order(b) for b in boards]
    return _make_sorted(np.stack([s.order for s in sorted_boards]), np.stack([s.strength for s in sorted_boards]),
                        ~board_conflicts(cards))


@functools.lru_cache(maxsize=_CACHE_FLOPS)
def _flop_showdowns(cards: tuple) -> _Sorted:
    """Each unordered runout is sorted once and appears twice (as turn t, river r and as turn r, river t)."""
    rest = _rivers(cards)
    sorted_pairs = {}
    order, key = [], []
    for t in rest:
        for r in rest:
            if r == t:
                continue
            pair = (min(t, r), max(t, r))
            if pair not in sorted_pairs:
                sorted_pairs[pair] = showdown_order(cards + (int(pair[0]), int(pair[1])))
            order.append(sorted_pairs[pair].order)
            key.append(sorted_pairs[pair].strength)
    return _make_sorted(np.stack(order), np.stack(key), ~board_conflicts(cards))


def _runout_groups(cards: tuple) -> np.ndarray:
    """``(R,)`` int64: the next public card's position of each board of ``_showdowns(cards)`` (a turn board's
    river, a flop board's turn)."""
    if len(cards) == 4:
        return np.arange(NUM_CARDS - 4, dtype=np.int64)
    return np.repeat(np.arange(NUM_CARDS - 3, dtype=np.int64), NUM_CARDS - 4)


def _rivers(cards: tuple) -> np.ndarray:
    return np.setdiff1d(np.arange(NUM_CARDS), np.asarray(cards))


def _equity(sd: _Sorted, w2: np.ndarray, chunk: int = 128) -> np.ndarray:
    """Equity (K, 1326) of every combo against each row of ``w2`` (K, 1326) on the boards of ``sd``; NaN where
    the combo misses the board but no compatible opponent combo has positive weight (decided on integer counts:
    positive-weight combos sharing no card with the hand, by inclusion-exclusion over cards), or holds a board
    card."""
    live = sd.live
    out = np.empty(w2.shape)
    for start in range(0, w2.shape[0], chunk):                 # bounded scratch memory for big batches
        block = w2[start:start + chunk]
        res = np.empty((NUM_COMBOS, block.shape[0]))
        _equity_batch(*sd.arrays(), np.ascontiguousarray(block.T), res)
        out[start:start + chunk] = res.T
    positive = ((w2 > 0) & live).astype(np.float64)            # counts: integers, exact in float64
    compatible = unblocked_sums(positive.T).T
    out[(compatible < 0.5) | ~live] = np.nan
    return out


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _uniform_equity(cards: tuple) -> np.ndarray:
    out = _equity(_showdowns(cards), np.ones((1, NUM_COMBOS)))[0]
    _readonly(out)
    return out


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _river_hs(cards: tuple) -> np.ndarray:
    """HS of every combo on each of the 48 river boards of a turn board, float64 (48, 1326), NaN where the
    combo holds the river card (or a board card)."""
    sd = _showdowns(cards)
    eq = np.empty((1, NUM_COMBOS, sd.order.shape[0]))
    prob = np.empty_like(eq)
    _grouped_equities(*sd.arrays(), _runout_groups(cards), np.ones((NUM_COMBOS, 1)), True, eq, prob)
    eq = np.ascontiguousarray(eq[0].T)
    _readonly(eq)
    return eq


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _uniform_equity_order(cards: tuple) -> _Sorted:
    """The combos of a turn board sorted by their equity against the uniform range (key = rank of the value)."""
    ev = _uniform_equity(cards)
    live = ~np.isnan(ev)
    combos = np.flatnonzero(live)
    _, rank = np.unique(ev[combos], return_inverse=True)   # equal values are exactly equal (see range_percentile)
    perm = np.lexsort((combos, rank))
    return _make_sorted(combos[perm][None, :], rank[perm][None, :], live)


# ------------------------------------------------------------------------------------------- validation
def _board(board, min_cards: int = 4, max_cards: int = 5) -> tuple:
    return tuple(sorted(check_board(board, min_cards, max_cards, name="board")))


def _weights(weights, name: str, cards: tuple) -> tuple[np.ndarray, bool]:
    """``weights`` as a C-contiguous float64 (K, 1326) array and whether it was one vector; checks shape, sign,
    finiteness and that every row has positive weight on a combo that misses the board."""
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array of shape (1326,) or (K, 1326)") from exc
    if w.ndim not in (1, 2) or w.shape[-1] != NUM_COMBOS or w.size == 0:
        raise ValueError(f"{name} must have shape (1326,) or (K, 1326) with K >= 1, got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    if np.any(w < 0):
        raise ValueError(f"{name} must be nonnegative")
    single = w.ndim == 1
    w2 = np.ascontiguousarray(w.reshape(-1, NUM_COMBOS))
    live = np.any(w2[:, ~board_conflicts(cards)] > 0, axis=1)
    if not live.all():
        row = int(np.flatnonzero(~live)[0])
        where = "" if single else f" row {row}"
        raise ValueError(f"{name}{where} has no positive weight on a combo that misses the board (all zero)")
    return w2, single


# ------------------------------------------------------------------------------------------- public API
def equity(board, opp_weights) -> np.ndarray:
    """Equity of every combo against an opponent range: P(win) + P(tie) / 2, with card removal.

    Source: the equity feature of Bertsimas & Paskov (2022), Section 2.2.1, against the opponent's range
    instead of a uniform one; on the river it is "the share of the opponent's range the hand beats" (the cdf
    feature of Ganzfried & Yusuf 2017, Section 4, ties counted half).

    Parameters
    ----------
    board : str or sequence of str/int
        A flop (3 cards), turn (4 cards) or river (5 cards) board, as :func:`hunl.poker.cards.check_board`
        accepts.
    opp_weights : array_like, float, shape (1326,) or (K, 1326)
        Nonnegative opponent weights per combo (a range or reach probabilities; they need not sum to 1).
        Combos holding a board card are ignored.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,) or (K, 1326)
        ``sum_o w(o) * score(h, o) / sum_o w(o)`` over opponent combos ``o`` sharing no card with ``h`` or the
        board (the weights renormalised after card removal). River: ``score`` is the showdown (1, 1/2, 0).
        Turn: the river card is uniform over the 44 cards on neither the board nor either hand (the endgame's
        chance model) and ``score`` is the mean showdown over them; flop: the same over the 990 (turn, river)
        runouts of the 45 cards left. NaN for combos holding a board card and for combos that no opponent combo with
        positive weight can face.

    Raises
    ------
    ValueError
        If ``board`` is not 3 to 5 distinct valid cards; if ``opp_weights`` has the wrong shape, a negative,
        NaN or infinite entry, or a row without positive weight on combos that miss the board.
    TypeError
        If ``board`` or ``opp_weights`` has the wrong type.
    """
    cards = _board(board, 3)
    w, single = _weights(opp_weights, "opp_weights", cards)
    out = _equity(_showdowns(cards), w)
    return out[0] if single else out


def equity_vs_uniform(board) -> np.ndarray:
    """Equity of every combo against the uniform range over the combos that miss the board.

    ``equity(board, np.ones(1326))``, cached per board (the last 16 boards). On the river this is the hand
    strength HS of Hopner & Loza Mencia, Section 3.2; on the turn the opponent's combo is drawn before the river
    card (compare :func:`ehs`).

    Parameters
    ----------
    board : str or sequence of str/int
        A flop, turn or river board.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,)
        Equity in [0, 1]; NaN for combos holding a board card. A fresh (writable) copy.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not 3 to 5 distinct valid cards.
    """
    return _uniform_equity(_board(board, 3)).copy()


def range_percentile(board, own_weights) -> np.ndarray:
    """Share of the player's own range that each hand beats (by weight, ties counted half).

    Where a hand ranks inside its own range: 0 for the bottom of the range, 1 for the top. Combos of the range
    that share a card with the hand (or the board) are left out and the rest renormalised. The ranking is
    the showdown strength on the river and :func:`equity_vs_uniform` on the turn and flop (hands with equal
    equity against the uniform range tie). Those equities are ratios of sums of half-integers, exact in float64,
    so equal values are found exactly.

    Parameters
    ----------
    board : str or sequence of str/int
        A flop, turn or river board.
    own_weights : array_like, float, shape (1326,) or (K, 1326)
        Nonnegative weights of the player's own range (need not sum to 1); combos holding a board card are
        ignored.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,) or (K, 1326)
        ``sum_g w(g) * [rank(h) > rank(g)] + w(g) * [rank(h) == rank(g)] / 2`` over range combos ``g``
        compatible with ``h``, divided by their total weight. NaN for combos holding a board card and for
        combos with no compatible range combo of positive weight. On the river it equals
        ``equity(board, own_weights)``.

    Raises
    ------
    ValueError
        As :func:`equity` (for ``own_weights``).
    TypeError
        If ``board`` or ``own_weights`` has the wrong type.
    """
    cards = _board(board, 3)
    w, single = _weights(own_weights, "own_weights", cards)
    out = _percentile(cards, w)
    return out[0] if single else out


def _percentile(cards: tuple, w2: np.ndarray) -> np.ndarray:
    """:func:`range_percentile` (K, 1326) of checked rows ``w2`` (K, 1326) on a sorted board tuple."""
    return _equity(_showdowns(cards) if len(cards) == 5 else _uniform_equity_order(cards), w2)


def equity_histogram(board, opp_weights, quantiles: int = 10, river_probabilities: str = "range") -> np.ndarray:
    """Quantiles (deciles by default) of each hand's equity on the next card, against an opponent range.

    Bertsimas & Paskov (2022), Section 2.2.1: the equity one round into the future is a histogram over the
    possible public cards, summarised by its deciles. For a turn board and every combo ``h``, each river card
    ``r`` that is neither on the board nor in ``h`` gives the river equity ``e_r(h)`` against the opponent
    range restricted to combos not holding ``r`` (and compatible with ``h``). On a flop board the next card is
    the turn ``t`` and ``e_t(h)`` is the turn equity on ``board + t`` (:func:`equity`, averaged over the
    rivers).

    Parameters
    ----------
    board : str or sequence of str/int
        A flop (3 cards) or turn (4 cards) board.
    opp_weights : array_like, float, shape (1326,) or (K, 1326)
        Nonnegative opponent weights, as :func:`equity`.
    quantiles : int, default 10
        Number ``q`` of quantiles (10 = deciles).
    river_probabilities : {"range", "uniform"}, default "range"
        Probability of each river card given the hand. ``"range"``: the endgame's chance model,
        ``P(r | h)`` proportional to the opponent weight compatible with ``h`` that does not hold ``r``, so
        that the mean of the distribution is exactly ``equity(board, opp_weights)``. ``"uniform"``: every
        river card with some compatible opponent weight equally likely (the enumeration of the paper).

    Returns
    -------
    numpy.ndarray, float64, shape (1326, q) or (K, 1326, q)
        Column ``i`` is the quantile at probability ``(i + 0.5) / q`` of the distribution of ``e_r(h)``:
        ``inf{x : P(e_r(h) <= x) >= (i + 0.5) / q}`` (the "inverted cdf" quantile, always one of the river
        equities; non-decreasing along the last axis). River cards whose restricted opponent range is empty
        are left out. NaN rows for combos holding a board card or facing no opponent weight.

    Raises
    ------
    ValueError
        If ``board`` is not a valid flop or turn board (a river board has no next card); if ``quantiles`` is not a
        positive integer; if ``river_probabilities`` is unknown; ``opp_weights`` as :func:`equity`.
    TypeError
        If an argument has the wrong type.
    """
    cards = _board(board, 3, 4)
    check_int("quantiles", quantiles, 1, strict_type=True)
    if river_probabilities not in ("range", "uniform"):
        raise ValueError(f"river_probabilities must be 'range' or 'uniform', got {river_probabilities!r}")
    w, single = _weights(opp_weights, "opp_weights", cards)
    out = _histogram(cards, w, int(quantiles), river_probabilities == "uniform")
    return out[0] if single else out


def _histogram(cards: tuple, w2: np.ndarray, quantiles: int = 10, uniform: bool = False) -> np.ndarray:
    """:func:`equity_histogram` (K, 1326, quantiles) of checked rows ``w2`` (K, 1326) on a sorted flop or turn
    board tuple (``uniform``: ``river_probabilities="uniform"``)."""
    sd = _showdowns(cards)
    group = _runout_groups(cards)
    levels = (np.arange(quantiles) + 0.5) / quantiles
    out = np.empty((w2.shape[0], NUM_COMBOS, quantiles))
    eq = np.empty((_HISTOGRAM_CHUNK, NUM_COMBOS, NUM_CARDS - len(cards)))
    prob = np.empty_like(eq)
    for start in range(0, w2.shape[0], _HISTOGRAM_CHUNK):           # bounded scratch memory (about 16 MB)
        block = np.ascontiguousarray(w2[start:start + _HISTOGRAM_CHUNK].T)
        e, p = eq[:block.shape[1]], prob[:block.shape[1]]
        _grouped_equities(*sd.arrays(), group, block, uniform, e, p)
        _weighted_quantiles(e, p, levels, out[start:start + block.shape[1]])
    return out


def river_hand_strengths(board) -> np.ndarray:
    """HS of every combo on each river card of a turn board (the roll-outs behind :func:`ehs` and the
    potential-aware abstraction).

    Parameters
    ----------
    board : str or sequence of str/int
        A turn board (4 cards).

    Returns
    -------
    numpy.ndarray, float64, shape (48, 1326)
        Row ``r`` is :func:`equity_vs_uniform` on the river board ``board + river`` with ``river`` the ``r``-th
        card not on the board in increasing card index; NaN where the combo holds a board card or the river.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not 4 distinct valid cards.
    """
    return _river_hs(_board(board, 4, 4)).copy()


# On a river board every combo faces C(45, 2) = 990 opponent combos, so HS = n / (2 * 990) with an integer n
# (wins count 2, ties 1). E[HS] and E[HS^2] are summed on those integers, so hands with the same HS values on
# the same multiset of rivers (e.g. suit-isomorphic hands) get bit-identical results whatever the river order.
_HS_DENOMINATOR = 2 * 990


def _hs_moment(board, power: int) -> np.ndarray:
    cards = _board(board)
    hs = _uniform_equity(cards)[None, :] if len(cards) == 5 else _river_hs(cards)
    ok = ~np.isnan(hs)
    n = np.rint(np.where(ok, hs, 0.0) * _HS_DENOMINATOR) ** power      # exact integers
    count = ok.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, n.sum(axis=0) / (count * float(_HS_DENOMINATOR) ** power), np.nan)


def ehs(board) -> np.ndarray:
    """Expected hand strength E[HS] of every combo (Hopner & Loza Mencia, Section 3.2).

    HS is the river equity against the uniform range (:func:`equity_vs_uniform` on a river board). On a turn
    board E[HS] is its mean over the 46 river cards that are neither on the board nor in the hand, each equally
    likely; on a river board E[HS] = HS.

    Parameters
    ----------
    board : str or sequence of str/int
        A turn or river board.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,)
        Values in [0, 1]; NaN for combos holding a board card.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not 4 or 5 distinct valid cards.
    """
    return _hs_moment(board, 1)


def ehs2(board) -> np.ndarray:
    """Expected squared hand strength E[HS^2] of every combo (Hopner & Loza Mencia, Section 3.2).

    The mean of HS^2 over the river cards, as :func:`ehs`; on a river board HS^2. It rewards hands whose
    strength varies across rivers (draws) over hands of the same E[HS] that are mediocre on most rivers.

    Parameters
    ----------
    board : str or sequence of str/int
        A turn or river board.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,)
        Values in [0, 1]; NaN for combos holding a board card.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not 4 or 5 distinct valid cards.
    """
    return _hs_moment(board, 2)


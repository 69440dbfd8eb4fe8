"""Interpretable per-hand features of a hold'em turn or river spot: equity, range percentile, equity deciles,
E[HS] and E[HS^2].

Every function returns one float64 number (or row of numbers) per combo, over all 1,326 combos in the order of
:mod:`hunl.cards`, with NaN for combos that hold a board card (and, for the range features, for combos that no
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

How (the technique of :mod:`games.core.showdown`): the combos of each river board are sorted by strength once
per board (cached). For each weight vector one ascending sweep over the sorted combos accumulates the weight
of the strictly weaker and of the weaker-or-equal opponent combos together with their per-card sums, and card
removal subtracts the per-card sums of our two cards (inclusion-exclusion: only the combo ``h`` itself holds
both). That is O(n) per weight vector and river board, O(44 n) on the turn -- no 1,326 x 1,326 matrix. Whether
a combo has compatible opponent weight at all is decided on integer counts (exact), not on float sums.

>>> import numpy as np
>>> from hunl.cards import combo_index
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

from hunl.cards import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, board_conflicts, check_board
from hunl.evaluator import showdown_order

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


# ------------------------------------------------------------------------------------------- compiled kernels
@njit(cache=True)
def _sweep(order, key, scards, w, num, den, cnt):  # pragma: no cover - compiled
    """One weight vector against the combos of one river board (or one sort key), sorted by ``key`` ascending.

    For every combo ``h = order[i]`` writes ``num[h]`` = weight of the compatible combos with a smaller key
    plus half the weight of those with an equal key (win + tie / 2), ``den[h]`` = weight of all compatible
    combos and ``cnt[h]`` = their number among those with positive weight. Entries of combos not in ``order``
    are left untouched. ``w`` is indexed by combo; only combos in ``order`` count.
    """
    m = order.size
    card_w = np.zeros(52)
    card_n = np.zeros(52, dtype=np.int64)
    total = 0.0
    total_n = 0
    for i in range(m):
        x = w[order[i]]
        a = scards[i, 0]
        b = scards[i, 1]
        total += x
        card_w[a] += x
        card_w[b] += x
        if x > 0.0:
            total_n += 1
            card_n[a] += 1
            card_n[b] += 1
    for i in range(m):
        h = order[i]
        a = scards[i, 0]
        b = scards[i, 1]
        x = w[h]
        den[h] = total - card_w[a] - card_w[b] + x
        cnt[h] = total_n - card_n[a] - card_n[b] + (1 if x > 0.0 else 0)
    for c in range(52):
        card_w[c] = 0.0
    below = 0.0
    i = 0
    while i < m:
        j = i
        while j < m and key[j] == key[i]:
            j += 1
        for t in range(i, j):                     # compatible weight strictly below
            num[order[t]] = below - card_w[scards[t, 0]] - card_w[scards[t, 1]]
        for t in range(i, j):
            x = w[order[t]]
            below += x
            card_w[scards[t, 0]] += x
            card_w[scards[t, 1]] += x
        for t in range(i, j):                     # ... and below or equal: h itself is removed by +w[h]
            h = order[t]
            upto = below - card_w[scards[t, 0]] - card_w[scards[t, 1]] + w[h]
            num[h] = 0.5 * (num[h] + upto)
        i = j


@njit(cache=True)
def _equity_rows(order, key, scards, weights, out):  # pragma: no cover - compiled
    """Equity of every combo against each row of ``weights`` (K, 1326), averaged over the R river boards of
    ``order``/``key``/``scards`` (R, m) as sum of numerators / sum of denominators; NaN without compatible
    positive weight. ``out`` (K, 1326)."""
    n_rows = weights.shape[0]
    n_boards, m = order.shape
    num = np.zeros(1326)
    den = np.zeros(1326)
    cnt = np.zeros(1326, dtype=np.int64)
    s_num = np.zeros(1326)
    s_den = np.zeros(1326)
    s_cnt = np.zeros(1326, dtype=np.int64)
    for k in range(n_rows):
        s_num[:] = 0.0
        s_den[:] = 0.0
        s_cnt[:] = 0
        for r in range(n_boards):
            _sweep(order[r], key[r], scards[r], weights[k], num, den, cnt)
            for i in range(m):
                h = order[r, i]
                s_num[h] += num[h]
                s_den[h] += den[h]
                s_cnt[h] += cnt[h]
        for h in range(1326):
            if s_cnt[h] == 0:
                out[k, h] = np.nan
            else:
                e = s_num[h] / s_den[h]
                out[k, h] = min(max(e, 0.0), 1.0)


@njit(cache=True)
def _river_equities(order, key, scards, w, eq, prob, uniform):  # pragma: no cover - compiled
    """Equity of every combo on each of the R river boards against ``w`` (opponent combos holding the river
    card removed), ``eq`` (R, 1326), and the river's probability weight ``prob`` (R, 1326): the compatible
    opponent weight (chance model of the endgame) or 1 (``uniform``); both 0 / NaN where undefined."""
    n_boards, m = order.shape
    num = np.zeros(1326)
    den = np.zeros(1326)
    cnt = np.zeros(1326, dtype=np.int64)
    for r in range(n_boards):
        for h in range(1326):
            eq[r, h] = np.nan
            prob[r, h] = 0.0
        _sweep(order[r], key[r], scards[r], w, num, den, cnt)
        for i in range(m):
            h = order[r, i]
            if cnt[h] > 0:
                eq[r, h] = min(max(num[h] / den[h], 0.0), 1.0)
                prob[r, h] = 1.0 if uniform else max(den[h], 0.0)


@njit(cache=True)
def _weighted_quantiles(values, probs, levels, out):  # pragma: no cover - compiled
    """For each column h of ``values``/``probs`` (R, 1326): the quantiles ``inf{x : F(x) >= p}`` of the
    distribution with atoms ``values[:, h]`` of probability proportional to ``probs[:, h]`` (atoms with
    probability 0 ignored) at each ``p`` in ``levels``; NaN if no atom has positive probability."""
    n_boards = values.shape[0]
    q = levels.size
    vals = np.empty(n_boards)
    ps = np.empty(n_boards)
    for h in range(values.shape[1]):
        n = 0
        total = 0.0
        for r in range(n_boards):
            p = probs[r, h]
            if p > 0.0:
                v = values[r, h]
                j = n                              # insertion sort by value (n <= 48)
                while j > 0 and vals[j - 1] > v:
                    vals[j] = vals[j - 1]
                    ps[j] = ps[j - 1]
                    j -= 1
                vals[j] = v
                ps[j] = p
                n += 1
                total += p
        if n == 0:
            for t in range(q):
                out[h, t] = np.nan
            continue
        t = 0
        cum = 0.0
        for j in range(n):
            cum += ps[j]
            while t < q and (cum >= levels[t] * total * (1.0 - 1e-12) or j == n - 1):
                out[h, t] = vals[j]
                t += 1


@njit(cache=True)
def _histogram_rows(order, key, scards, weights, levels, uniform, out):  # pragma: no cover - compiled
    """Quantiles of the river-equity distribution of every combo for each row of ``weights``; out (K, 1326, q)."""
    n_boards = order.shape[0]
    eq = np.empty((n_boards, 1326))
    prob = np.empty((n_boards, 1326))
    for k in range(weights.shape[0]):
        _river_equities(order, key, scards, weights[k], eq, prob, uniform)
        _weighted_quantiles(eq, prob, levels, out[k])


# ------------------------------------------------------------------------------------------- board set-up
@dataclass(frozen=True, eq=False)
class _Sorted:
    """Combos of R boards (or R sort keys) sorted ascending: order int32 (R, m), key int32 (R, m), the sorted
    combos' cards int8 (R, m, 2), and ``valid`` bool (R, 1326) (the combo is in ``order[r]``)."""

    order: np.ndarray
    key: np.ndarray
    cards: np.ndarray
    valid: np.ndarray


def _readonly(*arrays):
    for a in arrays:
        a.setflags(write=False)


def _sorted_boards(boards) -> _Sorted:
    orders, keys = [], []
    for b in boards:
        o, s = showdown_order(b)
        orders.append(o)
        keys.append(s)
    order = np.ascontiguousarray(np.stack(orders).astype(np.int32))
    key = np.ascontiguousarray(np.stack(keys).astype(np.int32))
    cards = np.ascontiguousarray(COMBO_CARDS[order].astype(np.int8))
    valid = np.zeros((order.shape[0], NUM_COMBOS), dtype=bool)
    np.put_along_axis(valid, order.astype(np.intp), True, axis=1)
    _readonly(order, key, cards, valid)
    return _Sorted(order, key, cards, valid)


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _showdowns(cards: tuple) -> _Sorted:
    """The river boards of a sorted board tuple (itself on the river, the 48 rivers of a turn), sorted by
    strength; river ``r`` of a turn is ``rivers(cards)[r]``."""
    if len(cards) == 5:
        return _sorted_boards([cards])
    return _sorted_boards([cards + (r,) for r in _rivers(cards)])


def _rivers(cards: tuple) -> np.ndarray:
    return np.setdiff1d(np.arange(NUM_CARDS), np.asarray(cards))


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _uniform_equity(cards: tuple) -> np.ndarray:
    sd = _showdowns(cards)
    out = np.empty((1, NUM_COMBOS))
    _equity_rows(sd.order, sd.key, sd.cards, np.ones((1, NUM_COMBOS)), out)
    out = out[0]
    _readonly(out)
    return out


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _river_hs(cards: tuple) -> np.ndarray:
    """HS of every combo on each of the 48 river boards of a turn board, float64 (48, 1326), NaN where the
    combo holds the river card (or a board card)."""
    sd = _showdowns(cards)
    eq = np.empty((sd.order.shape[0], NUM_COMBOS))
    prob = np.empty_like(eq)
    _river_equities(sd.order, sd.key, sd.cards, np.ones(NUM_COMBOS), eq, prob, True)
    _readonly(eq)
    return eq


@functools.lru_cache(maxsize=_CACHE_BOARDS)
def _uniform_equity_order(cards: tuple) -> _Sorted:
    """The combos of a turn board sorted by their equity against the uniform range (key = rank of the value)."""
    ev = _uniform_equity(cards)
    valid = ~np.isnan(ev)
    combos = np.flatnonzero(valid)
    _, rank = np.unique(ev[combos], return_inverse=True)   # equal values are exactly equal (see range_percentile)
    perm = np.lexsort((combos, rank))
    order = combos[perm].astype(np.int32)[None, :]
    key = rank[perm].astype(np.int32)[None, :]
    sorted_cards = np.ascontiguousarray(COMBO_CARDS[order].astype(np.int8))
    _readonly(order, key, sorted_cards, valid)
    return _Sorted(order, key, sorted_cards, valid[None, :])


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
        A turn (4 cards) or river (5 cards) board, as :func:`hunl.cards.check_board` accepts.
    opp_weights : array_like, float, shape (1326,) or (K, 1326)
        Nonnegative opponent weights per combo (a range or reach probabilities; they need not sum to 1).
        Combos holding a board card are ignored.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,) or (K, 1326)
        ``sum_o w(o) * score(h, o) / sum_o w(o)`` over opponent combos ``o`` sharing no card with ``h`` or the
        board (the weights renormalised after card removal). River: ``score`` is the showdown (1, 1/2, 0).
        Turn: the river card is uniform over the 44 cards on neither the board nor either hand (the endgame's
        chance model) and ``score`` is the mean showdown over them. NaN for combos holding a board card and for
        combos that no opponent combo with positive weight can face.

    Raises
    ------
    ValueError
        If ``board`` is not 4 or 5 distinct valid cards; if ``opp_weights`` has the wrong shape, a negative,
        NaN or infinite entry, or a row without positive weight on combos that miss the board.
    TypeError
        If ``board`` or ``opp_weights`` has the wrong type.
    """
    cards = _board(board)
    w, single = _weights(opp_weights, "opp_weights", cards)
    sd = _showdowns(cards)
    out = np.empty_like(w)
    _equity_rows(sd.order, sd.key, sd.cards, w, out)
    return out[0] if single else out


def equity_vs_uniform(board) -> np.ndarray:
    """Equity of every combo against the uniform range over the combos that miss the board.

    ``equity(board, np.ones(1326))``, cached per board (the last 16 boards). On the river this is the hand
    strength HS of Hopner & Loza Mencia, Section 3.2; on the turn the opponent's combo is drawn before the river
    card (compare :func:`ehs`).

    Parameters
    ----------
    board : str or sequence of str/int
        A turn or river board.

    Returns
    -------
    numpy.ndarray, float64, shape (1326,)
        Equity in [0, 1]; NaN for combos holding a board card. A fresh (writable) copy.

    Raises
    ------
    ValueError, TypeError
        If ``board`` is not 4 or 5 distinct valid cards.
    """
    return _uniform_equity(_board(board)).copy()


def range_percentile(board, own_weights) -> np.ndarray:
    """Share of the player's own range that each hand beats (by weight, ties counted half).

    Where a hand ranks inside its own range: 0 for the bottom of the range, 1 for the top. Combos of the range
    that share a card with the hand (or the board) are left out and the rest renormalised. The ranking is
    the showdown strength on the river and :func:`equity_vs_uniform` on the turn (hands with equal equity
    against the uniform range tie). Those equities are ratios of integers over one common denominator
    (44 * 1035 on a turn), so equal values are found exactly.

    Parameters
    ----------
    board : str or sequence of str/int
        A turn or river board.
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
    cards = _board(board)
    w, single = _weights(own_weights, "own_weights", cards)
    sd = _showdowns(cards) if len(cards) == 5 else _uniform_equity_order(cards)
    out = np.empty_like(w)
    _equity_rows(sd.order, sd.key, sd.cards, w, out)
    return out[0] if single else out


def equity_histogram(board, opp_weights, quantiles: int = 10, river_probabilities: str = "range") -> np.ndarray:
    """Quantiles (deciles by default) of each hand's equity on the next card, against an opponent range.

    Bertsimas & Paskov (2022), Section 2.2.1: the equity one round into the future is a histogram over the
    possible public cards, summarised by its deciles. For a turn board and every combo ``h``, each river card
    ``r`` that is neither on the board nor in ``h`` gives the river equity ``e_r(h)`` against the opponent
    range restricted to combos not holding ``r`` (and compatible with ``h``).

    Parameters
    ----------
    board : str or sequence of str/int
        A turn board (4 cards).
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
        If ``board`` is not a valid turn board (a river board has no next card); if ``quantiles`` is not a
        positive integer; if ``river_probabilities`` is unknown; ``opp_weights`` as :func:`equity`.
    TypeError
        If an argument has the wrong type.
    """
    cards = _board(board, 4, 4)
    if isinstance(quantiles, (bool, np.bool_)) or not isinstance(quantiles, (int, np.integer)):
        raise TypeError(f"quantiles must be an integer, got {type(quantiles).__name__}")
    if quantiles < 1:
        raise ValueError(f"quantiles must be a positive integer, got {quantiles}")
    if river_probabilities not in ("range", "uniform"):
        raise ValueError(f"river_probabilities must be 'range' or 'uniform', got {river_probabilities!r}")
    w, single = _weights(opp_weights, "opp_weights", cards)
    sd = _showdowns(cards)
    levels = (np.arange(int(quantiles)) + 0.5) / int(quantiles)
    out = np.empty((w.shape[0], NUM_COMBOS, int(quantiles)))
    _histogram_rows(sd.order, sd.key, sd.cards, w, levels, river_probabilities == "uniform", out)
    return out[0] if single else out


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


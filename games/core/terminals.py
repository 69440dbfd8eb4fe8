"""Terminal evaluators of the solver core: the counterfactual values of one player's hands at the terminal nodes of
one chance block, all at once.

A *chance block* (:mod:`games.core.layout`) is a maximal part of the public tree that no chance event splits, so
all its terminals share one board. The traversal (:mod:`games.core.traversal`) fills the opponent's reach at
every node of a block, then asks the game's evaluator for the values of all the block's terminals in one call --
the seam of postflop-solver's ``Game::evaluate``, batched. Two evaluators exist, and a game picks one and builds
its data (:meth:`games.core.tree.Game.terminal_evaluator`):

:func:`dense_evaluator`
    Any joint deal: the chance-weighted payoff matrix ``payoff[t] = deal[b] * u1(t, i, j)`` of every terminal
    (Kuhn, Leduc, the bet game). ``O(H1 * H2)`` per terminal.
:func:`card_showdown_evaluator`
    Hands that are sets of cards from one deck, dealt from two independent ranges up to card removal, with a
    showdown decided by a rank per board (hold'em). No ``H1 x H2`` matrix: per block, one pass over the
    opponent's hands gathers the reach of every terminal (its total and its 52 per-card sums give every fold by
    inclusion-exclusion), and one sorted sweep over both players' hands in order of strength gives every showdown
    -- ``O(K * (H1 + H2))`` for ``K`` terminals, with the ``K`` terminals processed side by side (vectorised).
    The sweep counts an opponent's hand once: ties are handled as groups of equal strength (win and tie weights
    from two snapshots of the running sums), and the loss weight is the compatible total minus both. Open-source
    postflop solvers and DeepStack's terminal equity use the same card-removal algebra with two sweeps per
    terminal.

The value of player ``p``'s hand ``i`` at terminal ``t`` on board ``b``, given the opponent's reach ``r`` (his own
action probabilities), is in chips::

    v(i) = chance[b] * scale_p[i] * sum_{j compatible with i and b} prior_o[j] * r[j] * u_p(t, i, j)

plus, at a terminal with a common payoff ``c(t)`` (both players receive it whatever the hands: minus half the
rake, :func:`games.core.engine.terminal_arrays`; 0 in zero-sum games, where that term is skipped)::

    chance[b] * scale_p[i] * c(t) * sum_{j compatible with i and b} prior_o[j] * r[j]

with ``scale_p[i] = prior_p[i] / Z`` (``Z`` normalises the joint deal) and ``chance[b]`` the probability of the
board's public cards given both hands. The card evaluator returns ``v(i) / scale_p[i]``: the factor is the same at
every node for hand ``i``, so the traversal applies it once, to the root values (:func:`own_weights`).
Arithmetic is in the storage dtype.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "EVALUATOR_CARDS",
    "EVALUATOR_DENSE",
    "card_showdown_evaluator",
    "dense_evaluator",
    "empty_card_data",
    "empty_dense_data",
]

#: Evaluator kinds (first field of an evaluator spec ``(kind, dense_data, card_data)``).
EVALUATOR_DENSE, EVALUATOR_CARDS = 0, 1


def empty_dense_data() -> tuple:
    """The unused dense half of a card-showdown evaluator spec."""
    return (np.zeros(1, np.int64), np.zeros((1, 1, 1)))


def empty_card_data() -> tuple:
    """The unused card half of a dense evaluator spec (zero-sized arrays of the right dtypes)."""
    return card_showdown_data(
        board_hands=(np.zeros(0, np.int32), np.zeros(0, np.int32)),
        board_strength=(np.zeros(0, np.int32), np.zeros(0, np.int32)),
        board_start=np.zeros((2, 1), np.int64),
        board_count=np.zeros((2, 1), np.int64),
        chance=np.ones(1),
        cards=np.zeros((2, 1, 2), np.int64),
        same=np.full((2, 1), -1, np.int64),
        prior=np.zeros((2, 1)),
        scale=np.zeros((2, 1)),
        has_showdown=np.zeros(1, np.uint8),
    )


def dense_evaluator(term_index: np.ndarray, payoff: np.ndarray) -> tuple:
    """Evaluator spec of the dense evaluator.

    Parameters
    ----------
    term_index : numpy.ndarray of int64, shape ``(N,)``
        Row of each terminal node in ``payoff`` (-1 for other nodes).
    payoff : numpy.ndarray of float64, shape ``(T, H1, H2)``
        ``deal[board[t]] * u1(t, i, j)``: the chance-weighted payoff to player 1 in chips.

    Returns
    -------
    tuple
        ``(EVALUATOR_DENSE, (term_index, payoff), empty card data)``, the form the compiled traversal takes.
    """
    return (EVALUATOR_DENSE, (np.ascontiguousarray(term_index, dtype=np.int64),
                              np.ascontiguousarray(payoff, dtype=np.float64)), empty_card_data())


def card_showdown_data(board_hands, board_strength, board_start, board_count, chance, cards, same, prior, scale,
                       has_showdown) -> tuple:
    """Pack the arrays of :func:`card_showdown_evaluator` with the dtypes the compiled kernels take."""
    return (np.ascontiguousarray(board_hands[0], np.int32), np.ascontiguousarray(board_hands[1], np.int32),
            np.ascontiguousarray(board_strength[0], np.int32), np.ascontiguousarray(board_strength[1], np.int32),
            np.ascontiguousarray(board_start, np.int64), np.ascontiguousarray(board_count, np.int64),
            np.ascontiguousarray(chance, np.float64),
            np.ascontiguousarray(cards, np.int64), np.ascontiguousarray(same, np.int64),
            np.ascontiguousarray(prior, np.float64), np.ascontiguousarray(scale, np.float64),
            np.ascontiguousarray(has_showdown, np.uint8))


def card_showdown_evaluator(board_hands, board_strength, board_start, board_count, chance, cards, same, prior,
                            scale, has_showdown) -> tuple:
    """Evaluator spec of the card-showdown evaluator (see the module docstring).

    Parameters
    ----------
    board_hands : tuple of two numpy.ndarray of int32
        Per player, the hands possible on each board (sharing no card with it), board after board, in
        increasing order of showdown strength on boards that have a showdown (any order on others).
    board_strength : tuple of two numpy.ndarray of int32
        Per player, the showdown strength (larger wins) of each entry of ``board_hands`` (0 where the board has
        no showdown).
    board_start, board_count : numpy.ndarray of int64, shape ``(2, B)``
        Player ``q``'s entries for board ``b`` are ``board_start[q, b] .. board_start[q, b] + board_count[q, b]
        - 1``; boards with the same cards (a turn and a river card dealt in either order) may share entries.
    chance : numpy.ndarray of float64, shape ``(B,)``
        Probability of the board's public cards given both hands (1 on the starting board).
    cards : numpy.ndarray of int64, shape ``(2, Hm, 2)``
        The two cards (0..51) of each hand.
    same : numpy.ndarray of int64, shape ``(2, Hm)``
        The opponent's hand with the same cards, or -1.
    prior : numpy.ndarray of float64, shape ``(2, Hm)``
        Range weight of each hand.
    scale : numpy.ndarray of float64, shape ``(2, Hm)``
        ``prior / Z``.
    has_showdown : numpy.ndarray of uint8, shape ``(B,)``
        Whether the board is complete (its terminals may be showdowns).

    Returns
    -------
    tuple
        ``(EVALUATOR_CARDS, empty dense data, card data)``.
    """
    data = card_showdown_data(board_hands, board_strength, board_start, board_count, chance, cards, same, prior,
                              scale, has_showdown)
    return (EVALUATOR_CARDS, empty_dense_data(), data)


# ---------------------------------------------------------------------------------------------- compiled kernels
@njit(cache=True)
def own_weights(E, p, out):  # pragma: no cover - compiled
    """Multiply player ``p``'s root values ``out`` by the factor the evaluator leaves out of every value of a
    hand (``scale_p`` for the card evaluator; nothing for the dense one, whose payoffs include the deal)."""
    if E[0] != EVALUATOR_DENSE:
        scale = E[2][10]
        for h in range(out.shape[0]):
            out[h] *= scale[p, h]


@njit(cache=True)
def dense_block(p, hands, terms, n_terms, rows, opp_row, ro, v, term_index, payoff):  # pragma: no cover
    """Dense evaluator over the terminals ``terms[:n_terms]`` (global ids) of a block; ``rows[k]`` is the local
    row of terminal ``k`` in ``v``; ``opp_row[k]`` the row of its opponent reach in ``ro``."""
    h1 = hands[0]
    h2 = hands[1]
    for k in range(n_terms):
        ti = term_index[terms[k]]
        r = opp_row[k]
        out = rows[k]
        if p == 0:
            for i in range(h1):
                acc = 0.0
                for j in range(h2):
                    acc += payoff[ti, i, j] * ro[r, j]
                v[out, i] = acc
        else:
            for j in range(h2):
                v[out, j] = 0.0
            for i in range(h1):
                x = ro[r, i]
                if x != 0.0:
                    for j in range(h2):
                        v[out, j] -= payoff[ti, i, j] * x


#: Own hands per block of the final write-out (a cache-blocked transpose of the values).
_WRITE_BLOCK = 32
#: The showdown and the fold columns of :func:`cards_block` each start at a multiple of this and are padded to one
#: (float32 vectors have 8 or 16 lanes): a loop over whole vectors has no scalar remainder, which on the river
#: spots of ``benchmarks/bench_hunl.py`` cost more than the padding (61 terminals in 64 columns: 16% less time).
LANES = 8


@njit(cache=True, inline="always")
def padded(n):  # pragma: no cover - compiled
    """``n`` rounded up to a multiple of :data:`LANES`."""
    return (n + LANES - 1) // LANES * LANES


def terminal_columns(n_terms: int) -> int:
    """Columns of the card evaluator's work space that :func:`cards_block` needs for up to ``n_terms`` terminals
    in one call, whatever their split into showdowns and folds (each group padded to :data:`LANES`)."""
    return int(padded(n_terms)) + LANES


#: Unsigned index type: indexing with it skips numba's negative-index wraparound.
U = np.uint64


@njit(cache=True, inline="always")
def _add_opponent(j, o, cards, gathered, run, cs_run, n_show):  # pragma: no cover - compiled
    """Add opponent hand ``j``'s gathered reach in every showdown column to the running sums, total and per card
    it holds (for card removal)."""
    c0 = U(cards[o, j, 0])
    c1 = U(cards[o, j, 1])
    for k in range(n_show):
        x = gathered[j, k]
        run[k] += x
        cs_run[c0, k] += x
        cs_run[c1, k] += x


@njit(cache=True)
def cards_block(p, b, hands, n_show, n_terms, rows, opp_row, coef, raked, ro, v, data, gathered, tot, cs_full, run,
                cs_run, win):  # pragma: no cover - compiled
    """Card-showdown evaluator over ``n_terms`` terminals on board ``b``: ``n_show`` showdowns and ``n_terms -
    n_show`` folds.

    Columns: the showdowns are columns ``0 .. n_show - 1``, the folds start at column ``padded(n_show)``, and each
    group is padded to a multiple of :data:`LANES` (:func:`terminal_columns`); a padding column needs valid rows
    (``rows``, ``opp_row``) and ``coef`` 0, and its values are computed but never written to ``v``.

    ``coef[0, k]`` is column ``k``'s zero-sum payoff factor to player ``p`` (the chips won at a showdown, or the
    fold transfer to ``p``), ``coef[1, k]`` the payoff both players receive whatever the hands (minus half the rake;
    read only when ``raked``, else taken as 0): the value adds ``coef[1, k]`` times the opponent's compatible reach
    mass. ``rows[k]`` is the terminal's row in ``v`` and ``opp_row[k]`` the row of its opponent reach in ``ro``.
    Work space, in the dtype of ``ro`` (the storage dtype), at least the sizes used: ``gathered (Ho, K)``,
    ``tot (K,)``, ``cs_full (52, K)``, ``run (K,)``, ``cs_run (52, K)``, ``win (Hp, K)``. The inner loops run over
    the ``K`` terminals, contiguous in memory, so they vectorise. Row indices are unsigned (``U``): numba then
    emits no negative-index wraparound, which would turn the contiguous loads into gathers, and no array views
    are made inside loops (each would cost reference-count updates).
    """
    (hands0, hands1, strength0, strength1, start, count, chance, cards, same, prior, scale, _) = data
    t = gathered.dtype.type
    zero = t(0.0)
    o = 1 - p
    a_own = start[p, b]
    n_own = count[p, b]
    a_opp = start[o, b]
    n_opp = count[o, b]
    own_hands = hands0 if p == 0 else hands1
    opp_hands = hands0 if o == 0 else hands1
    own_str = strength0 if p == 0 else strength1
    opp_str = strength0 if o == 0 else strength1
    n_fold = n_terms - n_show
    fold0 = padded(n_show)            # first fold column; showdown loops run over 0 .. fold0 - 1
    nk = fold0 + padded(n_fold)       # columns, padding included
    width = ro.shape[1]
    flat = ro.reshape(-1)
    # each terminal's opponent reach times the prior, by opponent hand (gathered[j, k]); then the totals and the
    # per-card sums of every terminal
    for k in range(nk):
        tot[k] = zero
    for c in range(52):
        for k in range(nk):
            cs_full[U(c), k] = zero
    for idx in range(n_opp):
        j = U(opp_hands[U(a_opp + idx)])
        pj = t(prior[o, j])
        for k in range(nk):
            gathered[j, k] = flat[U(opp_row[k] * width + j)] * pj
        c0 = U(cards[o, j, 0])
        c1 = U(cards[o, j, 1])
        for k in range(nk):
            x = gathered[j, k]
            tot[k] += x
            cs_full[c0, k] += x
            cs_full[c1, k] += x
    # folds: the compatible total by inclusion-exclusion (the identical combo was subtracted twice). The loops run
    # over every terminal from the first (the showdowns' columns are overwritten below): a loop starting at the
    # first fold does not vectorise, and this costs a fifth of a river iteration less
    if n_fold > 0:
        for idx in range(n_own):
            i = U(own_hands[U(a_own + idx)])
            c0 = U(cards[p, i, 0])
            c1 = U(cards[p, i, 1])
            jj = same[p, i]
            ui = U(idx)
            if jj >= 0:
                uj = U(jj)
                for k in range(nk):
                    win[ui, k] = tot[k] - cs_full[c0, k] - cs_full[c1, k] + gathered[uj, k]
            else:
                for k in range(nk):
                    win[ui, k] = tot[k] - cs_full[c0, k] - cs_full[c1, k]
    # showdowns: one ascending sweep over both players' hands by strength, ties as groups. For own hand i:
    # win + tie = (weight strictly below) + (weight up to and including i's strength), each net of i's cards;
    # win - lose = win + (win + tie) - total. The identical combo cancels between the last two terms.
    if n_show > 0:
        for k in range(fold0):
            run[k] = zero
        for c in range(52):
            for k in range(fold0):
                cs_run[U(c), k] = zero
        kk = 0
        g = 0
        while g < n_own:
            s_val = own_str[U(a_own + g)]
            e = g
            while e < n_own and own_str[U(a_own + e)] == s_val:
                e += 1
            while kk < n_opp and opp_str[U(a_opp + kk)] < s_val:
                _add_opponent(U(opp_hands[U(a_opp + kk)]), o, cards, gathered, run, cs_run, fold0)
                kk += 1
            for idx in range(g, e):
                i = U(own_hands[U(a_own + idx)])
                c0 = U(cards[p, i, 0])
                c1 = U(cards[p, i, 1])
                ui = U(idx)
                for k in range(fold0):
                    win[ui, k] = ((run[k] - cs_run[c0, k] - cs_run[c1, k])
                                  - (tot[k] - cs_full[c0, k] - cs_full[c1, k]))
            while kk < n_opp and opp_str[U(a_opp + kk)] == s_val:
                _add_opponent(U(opp_hands[U(a_opp + kk)]), o, cards, gathered, run, cs_run, fold0)
                kk += 1
            for idx in range(g, e):
                i = U(own_hands[U(a_own + idx)])
                c0 = U(cards[p, i, 0])
                c1 = U(cards[p, i, 1])
                ui = U(idx)
                for k in range(fold0):
                    win[ui, k] += run[k] - cs_run[c0, k] - cs_run[c1, k]
            g = e
    # values: times the terminal's payoff factor (vectorised), then written terminal by terminal in blocks of own
    # hands. The own hand's weight ``scale[p, i]`` is left out: it multiplies every value of hand i alike, so the
    # traversal applies it once at the root (regrets then need no per-hand range of magnitudes, which is what
    # lets 16-bit storage keep the small ones)
    w = chance[b]
    if raked:
        # the zero-sum part plus the common payoff times the compatible mass (for folds ``win`` is that mass)
        for k in range(nk):
            run[k] = t(coef[0, k] * w)
            tot_c = t(coef[1, k] * w)
            cs_run[0, k] = tot_c
            if k >= fold0:
                run[k] += tot_c
        for idx in range(n_own):
            ui = U(idx)
            i = U(own_hands[U(a_own + idx)])
            c0 = U(cards[p, i, 0])
            c1 = U(cards[p, i, 1])
            jj = same[p, i]
            if jj >= 0:
                uj = U(jj)
                for k in range(fold0):
                    win[ui, k] = (win[ui, k] * run[k] + cs_run[0, k]
                                  * (tot[k] - cs_full[c0, k] - cs_full[c1, k] + gathered[uj, k]))
            else:
                for k in range(fold0):
                    win[ui, k] = win[ui, k] * run[k] + cs_run[0, k] * (tot[k] - cs_full[c0, k] - cs_full[c1, k])
            for k in range(fold0, nk):
                win[ui, k] = win[ui, k] * run[k]
    else:
        for k in range(nk):
            run[k] = t(coef[0, k] * w)
        for idx in range(n_own):
            ui = U(idx)
            for k in range(nk):
                win[ui, k] = win[ui, k] * run[k]
    hp = hands[p]
    for kk in range(n_terms):  # the real columns only
        r = U(rows[kk if kk < n_show else kk - n_show + fold0])
        for h in range(hp):
            v[r, h] = zero
    for lo in range(0, n_own, _WRITE_BLOCK):
        hi = min(lo + _WRITE_BLOCK, n_own)
        for kk in range(n_terms):
            k = U(kk if kk < n_show else kk - n_show + fold0)
            r = U(rows[k])
            for idx in range(lo, hi):
                v[r, U(own_hands[U(a_own + idx)])] = win[U(idx), k]

"""The ranked-showdown terminal evaluator: fold and showdown values in O(n) with card removal (hold'em).

For games whose private hands are two cards drawn from one deck, dealt independently from two ranges (priors)
up to card removal, with showdowns decided by a hand rank per board -- hold'em endgames
(:class:`hunl.solver.game.HoldemEndgame`). It replaces the dense ``H1 x H2`` payoff matrices of
:func:`games.core._kernels.dense_terminal`.

At a terminal node on board ``b`` the counterfactual value of player ``p``'s hand ``i`` given the opponent's
reach ``r`` is (chips; ``w_j = prior_opp[j] * r[j]``)::

    v(i) = chance[b] * scale_p[i] * sum_{j compatible with i and b} w_j * u_p(i, j)

with ``scale_p[i] = prior_p[i] / Z`` (``Z`` normalises the joint deal of the two ranges with card removal) and
``chance[b]`` the probability of the river card of board ``b`` given both hands (1 / 44 on a turn endgame, 1 on
the starting board). Two hands are compatible when they share no card.

*Fold*: ``u_p`` is constant, so the sum is the opponent's total weight minus the weight of the hands holding
either of ``i``'s cards, plus the weight of the identical combo (subtracted twice): inclusion-exclusion over
the 52 per-card sums, O(n).

*Showdown*: with both players' hands sorted by strength once per board, one ascending sweep accumulates the
weight of the opponent's strictly weaker hands (and its per-card sums, to remove the hands sharing a card with
``i``), one descending sweep the strictly stronger ones; ``u_p = stake * (win - lose)``. O(n) per terminal after
an O(n log n) sort per board at set-up -- no ``n x n`` matrix anywhere (the technique of open-source postflop
solvers and DeepStack's terminal equity).

All loops accumulate in float64 whatever the storage dtype of ``reach`` and ``cfv``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["empty_ranked_data", "ranked_terminal", "terminal_row"]


@njit(cache=True)
def terminal_row(p, b, fold_value, stake, opp_reach, out, data):  # pragma: no cover - compiled
    """Values of player ``p``'s hands at one terminal on board ``b`` into ``out`` (see the module docstring).

    ``fold_value`` is the payoff to player 1 of a fold (0 for a showdown); ``stake`` the chips won at a showdown
    (0 for a fold). ``data`` is the tuple described in :func:`empty_ranked_data`.
    """
    (board_of, fold_v, stakes, chance, valid, order, count, strength, cards, same, scale, prior, sorted_cards,
     sorted_prior, sorted_scale) = data
    card_sum = np.zeros(52)  # local work space: the solvers call this from several threads at once
    o = 1 - p
    w = chance[b]
    if stake == 0.0:
        sign = 1.0 if p == 0 else -1.0
        v = sign * fold_value * w
        total = 0.0
        for j in range(opp_reach.shape[0]):
            if valid[o, b, j]:
                x = opp_reach[j] * prior[o, j]
                total += x
                card_sum[cards[o, j, 0]] += x
                card_sum[cards[o, j, 1]] += x
        for i in range(out.shape[0]):
            if valid[p, b, i]:
                m = total - card_sum[cards[p, i, 0]] - card_sum[cards[p, i, 1]]
                k = same[p, i]
                if k >= 0 and valid[o, b, k]:
                    m += opp_reach[k] * prior[o, k]
                out[i] = v * scale[p, i] * m
            else:
                out[i] = 0.0
        return
    for i in range(out.shape[0]):
        out[i] = 0.0
    own = order[p, b]
    opp = order[o, b]
    n_p = count[p, b]
    n_o = count[o, b]
    s_own = strength[p, b]
    s_opp = strength[o, b]
    c_own = sorted_cards[p, b]
    c_opp = sorted_cards[o, b]
    w_opp = sorted_prior[o, b]
    scale_own = sorted_scale[p, b]
    # Everything is read in sorted order except the opponent's reach (one gather) and the output (one scatter).
    win = np.empty(n_p)
    # ascending sweep: weight of the opponent's strictly weaker compatible hands
    total = 0.0
    k = 0
    for idx in range(n_p):
        s = s_own[idx]
        while k < n_o and s_opp[k] < s:
            x = opp_reach[opp[k]] * w_opp[k]
            total += x
            card_sum[c_opp[k, 0]] += x
            card_sum[c_opp[k, 1]] += x
            k += 1
        win[idx] = total - card_sum[c_own[idx, 0]] - card_sum[c_own[idx, 1]]
    # descending sweep: weight of the strictly stronger ones
    for c in range(52):
        card_sum[c] = 0.0
    total = 0.0
    k = n_o - 1
    v = stake * w
    for idx in range(n_p - 1, -1, -1):
        s = s_own[idx]
        while k >= 0 and s_opp[k] > s:
            x = opp_reach[opp[k]] * w_opp[k]
            total += x
            card_sum[c_opp[k, 0]] += x
            card_sum[c_opp[k, 1]] += x
            k -= 1
        lose = total - card_sum[c_own[idx, 0]] - card_sum[c_own[idx, 1]]
        out[own[idx]] = v * scale_own[idx] * (win[idx] - lose)


@njit(cache=True)
def ranked_terminal(n, p, hands, reach, cfv, data):  # pragma: no cover - compiled
    """Values of player ``p``'s hands at terminal node ``n`` (the solver core's terminal-evaluator call)."""
    terminal_row(p, data[0][n], data[1][n], data[2][n], reach[1 - p, n, :hands[1 - p]], cfv[n, :hands[p]], data)


def empty_ranked_data(n_nodes: int = 1, n_boards: int = 1, max_hands: int = 1) -> tuple:
    """A zero-filled ranked-showdown data tuple with the dtypes the compiled kernels expect.

    Fields, in order (``N`` nodes, ``B`` boards, ``Hm`` hands; ``p`` the player)::

        board_of   int64   (N,)          board of each node
        fold_value float64 (N,)          payoff to player 1 of each fold terminal (chips)
        stake      float64 (N,)          chips won at each showdown terminal (0 for folds)
        chance     float64 (B,)          probability of the board's public cards given both hands
        valid      uint8   (2, B, Hm)    hand shares no card with the board
        order      int32   (2, B, Hm)    valid hands by increasing rank (first ``count`` entries)
        count      int32   (2, B)        number of valid hands
        rank       int32   (2, B, Hm)    rank (larger wins) of the hand ``order[p, b, k]``, in sorted order
        cards      int64   (2, Hm, 2)    the hand's two cards (0..51)
        same       int64   (2, Hm)       the opponent's hand with the same cards, or -1
        scale      float64 (2, Hm)       own prior / Z (Z normalises the joint deal)
        prior      float64 (2, Hm)       prior weight of each hand
        s_cards    int8    (2, B, Hm, 2) ``cards`` in sorted order (per board)
        s_prior    float64 (2, B, Hm)    ``prior`` in sorted order
        s_scale    float64 (2, B, Hm)    ``scale`` in sorted order

    The sorted copies make the showdown sweeps read memory in order (one gather of the opponent's reach).

    Games fill it (:meth:`hunl.solver.game.HoldemEndgame.compiled_terminal`); the dense evaluator's games pass this
    empty one as the unused half of the terminal spec.
    """
    n, b, h = int(n_nodes), int(n_boards), int(max_hands)
    return (np.zeros(n, np.int64), np.zeros(n), np.zeros(n), np.ones(b), np.zeros((2, b, h), np.uint8),
            np.zeros((2, b, h), np.int32), np.zeros((2, b), np.int32), np.zeros((2, b, h), np.int32),
            np.zeros((2, h, 2), np.int64), np.full((2, h), -1, np.int64), np.zeros((2, h)), np.zeros((2, h)),
            np.zeros((2, b, h, 2), np.int8), np.zeros((2, b, h)), np.zeros((2, b, h)))

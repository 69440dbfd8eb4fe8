"""Closed-form best responses, exploitability and NashConv for the bet game.

Player 2's best response decomposes over his information sets ``(j, b)`` (his card, the bet he faces): calling
instead of folding changes his payoff by::

    gain[j, b] = sum_{i < j} probs[i, j] strategy[i, b] (2 ante + s_b)  -  sum_{i > j} probs[i, j] strategy[i, b] s_b

(he wins the pot plus the bet against worse cards and loses the bet against better ones), so he calls iff
``gain >= 0`` and player 1 earns ``ante - sum max(0, gain)`` against him. This is Algorithm 3 of Ganzfried &
Yusuf (2017, *Games* 8(4)), corrected:

* the paper's loops index ``probs[j][i]`` with player 2's card as the outer loop and run ``j`` up to
  ``numCards + 1`` (past the deck); here ``i`` is player 1's card and the sums stop at the deck;
* the paper counts a tie (``j = i``) as "better"; a deal has no ties (zero diagonal), so ties are excluded;
* the accumulator is initialised, an information set reached with probability 0 contributes 0 instead of
  dividing by zero (``probWorse / sum``), and the paper's ante of 0.5 and pot of 1 are the parameters
  ``ante`` and ``2 * ante``;
* ``ante`` is not assumed to be the whole "other" payoff: the baseline ``sum probs * strategy * ante`` is
  evaluated, so a strategy whose rows sum to 1 only within rounding is scored consistently.

Player 1's best response is a maximum over bets, card by card. Both are O(n^2 B) per deal and compiled with numba;
batches of at least ``PARALLEL_MIN_BATCH`` deals run in parallel over deals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from games.betgame.rules import DEFAULT_GAME, BetGame

__all__ = [
    "Player1BestResponse",
    "Player2BestResponse",
    "player1_best_response",
    "player2_best_response",
    "player1_exploitability",
    "nash_conv",
    "expected_payoff",
]


@njit(cache=True)
def _p2_one(probs, strategy, bets, ante, call_out, store_call):  # pragma: no cover - numba
    """Player 1's payoff against player 2's best response in one deal; optionally write the calls."""
    n = probs.shape[0]
    n_bets = bets.shape[0]
    gain = np.zeros((n, n_bets))
    base = 0.0
    for i in range(n):
        row_mass = 0.0
        for j in range(n):
            w = probs[i, j]
            if w == 0.0 or i == j:
                continue
            row_mass += w
            if i < j:  # player 1 holds the worse card: a call wins pot + bet
                for b in range(n_bets):
                    gain[j, b] += w * strategy[i, b] * (2.0 * ante + bets[b])
            else:  # player 1 holds the better card: a call loses the bet
                for b in range(n_bets):
                    gain[j, b] -= w * strategy[i, b] * bets[b]
        played = 0.0
        for b in range(n_bets):
            played += strategy[i, b]
        base += row_mass * played * ante
    total = 0.0
    for j in range(n):
        for b in range(n_bets):
            call = bets[b] == 0.0 or gain[j, b] >= 0.0
            if call:
                total += gain[j, b]
            if store_call:
                call_out[j, b] = 1.0 if call else 0.0
    return base - total


@njit(cache=True)
def _p1_one(probs, call, bets, ante, strategy_out, store_strategy):  # pragma: no cover - numba
    """Player 1's best-response payoff against call probabilities in one deal; optionally write the bets."""
    n = probs.shape[0]
    n_bets = bets.shape[0]
    total = 0.0
    for i in range(n):
        best = -np.inf
        best_b = 0
        for b in range(n_bets):
            s = bets[b]
            ev = 0.0
            for j in range(n):
                w = probs[i, j]
                if w == 0.0 or i == j:
                    continue
                c = 1.0 if s == 0.0 else call[j, b]
                showdown = ante + s if i > j else -(ante + s)
                ev += w * ((1.0 - c) * ante + c * showdown)
            if ev > best:
                best = ev
                best_b = b
        total += best
        if store_strategy:
            for b in range(n_bets):
                strategy_out[i, b] = 0.0
            strategy_out[i, best_b] = 1.0
    return total


# Two drivers over a batch of deals: a serial loop for small batches (a parallel region costs more than a deal)
# and a prange loop for large ones. ``player`` picks the best response (1: player 1's, to ``policy`` = player 2's
# call probabilities; 2: player 2's, to ``policy`` = player 1's strategy). ``out`` is (G, n, B) when storing, else
# a (1, n, B) dummy.
@njit(cache=True)
def _batch_serial(player, probs, policy, bets, ante, out, store):  # pragma: no cover - numba
    value = np.empty(probs.shape[0])
    stride = 1 if store else 0  # an int index (a conditional inside a parfor is typed as float)
    for g in range(probs.shape[0]):
        if player == 1:
            value[g] = _p1_one(probs[g], policy[g], bets, ante, out[g * stride], store)
        else:
            value[g] = _p2_one(probs[g], policy[g], bets, ante, out[g * stride], store)
    return value


@njit(cache=True, parallel=True)
def _batch_parallel(player, probs, policy, bets, ante, out, store):  # pragma: no cover - numba
    value = np.empty(probs.shape[0])
    stride = 1 if store else 0
    for g in prange(probs.shape[0]):
        if player == 1:
            value[g] = _p1_one(probs[g], policy[g], bets, ante, out[g * stride], store)
        else:
            value[g] = _p2_one(probs[g], policy[g], bets, ante, out[g * stride], store)
    return value


#: Batches of at least this many deals use the parallel driver.
PARALLEL_MIN_BATCH = 256


def _best_response_kernel(player: int, probs, policy, bets, ante, out, store):
    run = _batch_parallel if probs.shape[0] >= PARALLEL_MIN_BATCH else _batch_serial
    return run(player, probs, policy, bets, ante, out, store)


def _p2_best_response_kernel(probs, strategy, bets, ante, out, store):
    return _best_response_kernel(2, probs, strategy, bets, ante, out, store)


def _p1_best_response_kernel(probs, call, bets, ante, out, store):
    return _best_response_kernel(1, probs, call, bets, ante, out, store)


def _dummy(n: int, n_bets: int) -> np.ndarray:
    return np.empty((1, n, n_bets))


def _as_batch(arr: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(arr[None] if arr.ndim == 2 else arr, dtype=np.float64)


def _unbatch(values: np.ndarray, single: bool):
    return float(values[0]) if single else values


@dataclass(frozen=True)
class Player2BestResponse:
    """Player 2's best response to a player-1 strategy.

    Attributes
    ----------
    call_probability : numpy.ndarray of float64, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        1 where he calls (also on ties, as in the paper's ``>=``, and on information sets never reached), else 0.
    value : float or numpy.ndarray of float64, shape ``(G,)``
        Player 1's expected payoff against it, in chips: the worst case of his strategy.
    """

    call_probability: np.ndarray
    value: float | np.ndarray


@dataclass(frozen=True)
class Player1BestResponse:
    """Player 1's (pure) best response to a player-2 call strategy.

    Attributes
    ----------
    strategy : numpy.ndarray of float64, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        One-hot rows; ties go to the smallest bet, cards never dealt check.
    value : float or numpy.ndarray of float64, shape ``(G,)``
        Player 1's expected payoff, in chips.
    """

    strategy: np.ndarray
    value: float | np.ndarray


def player2_best_response(probs, strategy, game: BetGame = DEFAULT_GAME) -> Player2BestResponse:
    """Player 2's best response to player 1's strategy, in closed form (corrected Algorithm 3).

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)`` or ``(G, n, n)``
        Joint deal(s).
    strategy : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        Player 1's bet probabilities per card.
    game : BetGame
        Game parameters.

    Returns
    -------
    Player2BestResponse

    Raises
    ------
    ValueError
        On an invalid deal or strategy (see :meth:`BetGame.check_deal`, :meth:`BetGame.check_strategy`).
    """
    p = game.check_deal(probs)
    x = game.check_strategy(strategy, batch=game.batch_size(p))
    pb, xb = _as_batch(p), _as_batch(x)
    call = np.empty_like(xb)
    value = _p2_best_response_kernel(pb, xb, game.bet_array, float(game.ante), call, True)
    single = p.ndim == 2
    return Player2BestResponse(call[0] if single else call, _unbatch(value, single))


def player1_best_response(probs, call_probability, game: BetGame = DEFAULT_GAME) -> Player1BestResponse:
    """Player 1's best response to player 2's call probabilities: the best bet card by card.

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)`` or ``(G, n, n)``
        Joint deal(s).
    call_probability : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        Player 2's call probabilities; the check column is ignored.
    game : BetGame
        Game parameters.

    Returns
    -------
    Player1BestResponse

    Raises
    ------
    ValueError
        On an invalid deal or call probabilities.
    """
    p = game.check_deal(probs)
    c = game.check_call_probability(call_probability, batch=game.batch_size(p))
    pb, cb = _as_batch(p), _as_batch(c)
    strat = np.empty_like(cb)
    value = _p1_best_response_kernel(pb, cb, game.bet_array, float(game.ante), strat, True)
    single = p.ndim == 2
    return Player1BestResponse(strat[0] if single else strat, _unbatch(value, single))


def player1_exploitability(probs, strategy, value=None, game: BetGame = DEFAULT_GAME):
    """Exploitability of player 1's strategy: game value minus its payoff against a best response, in chips.

    This is the paper's measure (Ganzfried & Yusuf 2017, Algorithm 3 and Section 4): one player's
    exploitability, not NashConv (:func:`nash_conv`) and not :func:`games.core.exploitability` (NashConv / 2 of a
    strategy pair). It is 0 for an equilibrium strategy and at most ``ante + stack``.

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)`` or ``(G, n, n)``
        Joint deal(s).
    strategy : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        Player 1's strategy per deal.
    value : float or array_like of float, shape ``(G,)``, optional
        The game value(s) to player 1, in chips (e.g. from the solution database). When omitted, each deal is
        solved by LP first (:func:`games.betgame.solve`, a few ms a deal) and its verified value is used, so the
        result equals the call given ``solve(probs).value``.
    game : BetGame
        Game parameters.

    Returns
    -------
    float or numpy.ndarray of float64, shape ``(G,)``
        Exploitability in chips.

    Raises
    ------
    ValueError
        On an invalid deal or strategy, or a ``value`` whose shape does not match the batch.
    games.betgame.UnverifiedSolutionError
        When ``value`` is omitted and a deal's LP solution cannot be verified (NashConv above
        :data:`games.betgame.VERIFY_TOLERANCE`).
    """
    p = game.check_deal(probs)
    x = game.check_strategy(strategy, batch=game.batch_size(p))
    pb, xb = _as_batch(p), _as_batch(x)
    dummy = _dummy(pb.shape[1], game.n_bets)
    worst = _p2_best_response_kernel(pb, xb, game.bet_array, float(game.ante), dummy, False)
    if value is None:
        from games.betgame.lp import solve_many

        v = np.array([s.value for s in solve_many(pb, game=game, strict=True)])
    else:
        v = np.asarray(value, dtype=np.float64).reshape(-1)
        if v.shape[0] != pb.shape[0]:
            raise ValueError(f"value must have one entry per deal ({pb.shape[0]}), got shape {np.shape(value)}")
        if not np.all(np.isfinite(v)):
            raise ValueError("value contains NaN or infinite entries")
    return _unbatch(v - worst, p.ndim == 2)


def nash_conv(probs, strategy, call_probability, game: BetGame = DEFAULT_GAME):
    """NashConv of a strategy pair: the sum of both players' best-response gains, in chips.

    ``NashConv = u1(BR1, call) - u1(strategy, BR2)``; it needs no game value, is >= 0, and is 0 exactly at an
    equilibrium. Each player's exploitability is at most NashConv.

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)`` or ``(G, n, n)``
    strategy : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
    call_probability : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
    game : BetGame

    Returns
    -------
    float or numpy.ndarray of float64, shape ``(G,)``

    Raises
    ------
    ValueError
        On invalid inputs.
    """
    p = game.check_deal(probs)
    batch = game.batch_size(p)
    x = game.check_strategy(strategy, batch=batch)
    c = game.check_call_probability(call_probability, batch=batch)
    return _unbatch(_nash_conv_unchecked(_as_batch(p), _as_batch(x), _as_batch(c), game), p.ndim == 2)


def _payoff_bounds(probs: np.ndarray, strategy: np.ndarray, call: np.ndarray, game: BetGame
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the game value from a strategy pair: ``(u1(strategy, BR2), u1(BR1, call))``, each ``(G,)``.

    The game value lies between them (player 1 guarantees the first with ``strategy``, player 2 holds him to the
    second with ``call``); their difference is the pair's NashConv. Inputs are validated, contiguous float64
    batches ``(G, n, n)``, ``(G, n, B)``, ``(G, n, B)``.
    """
    dummy = _dummy(probs.shape[1], game.n_bets)
    bets, ante = game.bet_array, float(game.ante)
    worst1 = _p2_best_response_kernel(probs, strategy, bets, ante, dummy, False)
    best1 = _p1_best_response_kernel(probs, call, bets, ante, dummy, False)
    return worst1, best1


def _nash_conv_unchecked(probs: np.ndarray, strategy: np.ndarray, call: np.ndarray, game: BetGame) -> np.ndarray:
    """NashConv of validated, contiguous float64 batches ``(G, n, n)``, ``(G, n, B)``, ``(G, n, B)``; ``(G,)``."""
    worst1, best1 = _payoff_bounds(probs, strategy, call, game)
    return best1 - worst1


def expected_payoff(probs, strategy, call_probability, game: BetGame = DEFAULT_GAME):
    """Player 1's expected payoff of a strategy pair, in chips (direct evaluation, numpy).

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)`` or ``(G, n, n)``
    strategy : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
    call_probability : array_like of float, shape ``(n, n_bets)`` or ``(G, n, n_bets)``
        The check column is ignored (a check always goes to showdown).
    game : BetGame

    Returns
    -------
    float or numpy.ndarray of float64, shape ``(G,)``
    """
    p = game.check_deal(probs)
    batch = game.batch_size(p)
    x = _as_batch(game.check_strategy(strategy, batch=batch))
    c = _as_batch(game.check_call_probability(call_probability, batch=batch)).copy()
    pb = _as_batch(p)
    s = game.bet_array
    c[:, :, s == 0.0] = 1.0
    n = game.n_cards
    sign = np.sign(np.arange(n)[:, None] - np.arange(n)[None, :])  # (i, j): +1 if player 1 holds the better card
    showdown = sign[:, :, None] * (game.ante + s)[None, None, :]  # (i, j, b)
    payoff = (1.0 - c[:, None, :, :]) * game.ante + c[:, None, :, :] * showdown[None]  # (G, i, j, b)
    value = np.einsum("gij,gib,gijb->g", pb, x, payoff)
    return _unbatch(value, p.ndim == 2)

"""Compiled (numba) passes over a flattened public tree, shared by the CFR family and best response.

Layout (see :mod:`games.core.tree`): nodes in breadth-first order; per-hand arrays have shape ``(N, Hm)`` with
``Hm = max(H1, H2)`` and row ``c`` of a strategy/regret array holding the action leading to node ``c``.
``reach`` has shape ``(2, N, Hm)``: each player's own-action reach probability per hand. ``cfv`` has shape
``(N, Hm)``: the counterfactual values of the traversing player's hands (chance and the opponent's reach
included through the game's ``deal`` matrices).

Terminal values come from one of the core's compiled *terminal evaluators*, chosen by the game
(:meth:`games.core.tree.Game.compiled_terminal`) through a spec ``term = (kind, dense_data, ranked_data)``:
:data:`TERMINAL_DENSE` reads the chance-weighted payoff matrix ``payoff[term_index[n]]`` of small games
(:func:`dense_terminal`); :data:`TERMINAL_RANKED` is the O(n) sorted showdown with card removal of hold'em
(:mod:`games.core.showdown`). Each writes into ``cfv[n, :hands[p]]`` the counterfactual values of player ``p``'s
hands at terminal ``n`` given the opponent's reach ``reach[1 - p, n]``. (A spec of fixed types rather than a
function argument keeps numba's on-disk cache valid across processes: first-class function arguments are
recompiled in every process.) Per-hand arrays may be float64 or float32 (numba compiles one version per dtype).

Only loops over nodes, children and hands; no Python objects. ``cache=True`` keeps compiled code between runs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.core.showdown import empty_ranked_data, ranked_terminal
from games.core.tree import CHANCE, DECISION, TERMINAL  # noqa: F401  (CHANCE documents the third kind)

#: Modes of :func:`backward`.
MODE_CFR, MODE_BEST_RESPONSE, MODE_EXPECTED = 0, 1, 2

#: Terminal evaluators (first field of a terminal spec).
TERMINAL_DENSE, TERMINAL_RANKED = 0, 1


def dense_spec(term_index: np.ndarray, payoff: np.ndarray) -> tuple:
    """Terminal spec of the dense evaluator (``term_index`` int64 ``(N,)``, ``payoff`` float64 ``(T, H1, H2)``)."""
    return (TERMINAL_DENSE, (np.ascontiguousarray(term_index, dtype=np.int64),
                             np.ascontiguousarray(payoff, dtype=np.float64)), empty_ranked_data())


def ranked_spec(data: tuple) -> tuple:
    """Terminal spec of the ranked showdown (``data`` as described in
    :func:`games.core.showdown.empty_ranked_data`)."""
    return (TERMINAL_RANKED, (np.zeros(1, np.int64), np.zeros((1, 1, 1))), data)


@njit(cache=True)
def terminal(n, p, hands, reach, cfv, term):  # pragma: no cover - compiled
    """Dispatch to the spec's evaluator."""
    if term[0] == TERMINAL_DENSE:
        dense_terminal(n, p, hands, reach, cfv, term[1])
    else:
        ranked_terminal(n, p, hands, reach, cfv, term[2])


@njit(cache=True)
def forward(kind, player, parent, hands, strat, reach):  # pragma: no cover - compiled
    """Fill ``reach[q, n, h]``: product of player ``q``'s probabilities on the path to ``n`` holding ``h``."""
    n_nodes = kind.shape[0]
    for q in range(2):
        for h in range(hands[q]):
            reach[q, 0, h] = 1.0
    for n in range(1, n_nodes):
        par = parent[n]
        if kind[par] == DECISION:
            q = player[par]
            o = 1 - q
            for h in range(hands[q]):
                reach[q, n, h] = reach[q, par, h] * strat[n, h]
            for h in range(hands[o]):
                reach[o, n, h] = reach[o, par, h]
        else:
            for q in range(2):
                for h in range(hands[q]):
                    reach[q, n, h] = reach[q, par, h]


@njit(cache=True)
def dense_terminal(n, p, hands, reach, cfv, data):  # pragma: no cover - compiled
    """Terminal evaluator of games with dense payoffs: ``data = (term_index, payoff)`` as returned by
    :meth:`games.core.tree.Game.terminal_payoffs`; ``cfv[n, i] = sum_j payoff[t, i, j] * reach[1, n, j]`` for
    player 1 and ``-sum_i payoff[t, i, j] * reach[0, n, i]`` for player 2."""
    term_index, payoff = data
    ti = term_index[n]
    h1 = hands[0]
    h2 = hands[1]
    if p == 0:
        for i in range(h1):
            acc = 0.0
            for j in range(h2):
                acc += payoff[ti, i, j] * reach[1, n, j]
            cfv[n, i] = acc
    else:
        for j in range(h2):
            cfv[n, j] = 0.0
        for i in range(h1):
            r = reach[0, n, i]
            if r != 0.0:
                for j in range(h2):
                    cfv[n, j] -= payoff[ti, i, j] * r


@njit(cache=True)
def backward(p, mode, kind, player, child_start, num_children, term, hands,
             strat, reach, cfv, regret, avg, avg_decay, best_action):  # pragma: no cover - compiled
    """Counterfactual values of player ``p``'s hands at every node, bottom-up.

    ``mode``: :data:`MODE_CFR` (values under ``strat``; add the instantaneous regrets ``cfv(child) - cfv(node)``
    to ``regret`` and ``reach_p * strat`` to ``avg`` after multiplying ``avg`` by ``avg_decay``, at ``p``'s
    nodes), :data:`MODE_BEST_RESPONSE` (max over ``p``'s actions; the argmax child goes to ``best_action``) or
    :data:`MODE_EXPECTED` (values under ``strat``, nothing updated).
    """
    n_nodes = kind.shape[0]
    hp = hands[p]
    for n in range(n_nodes - 1, -1, -1):
        k = kind[n]
        if k == TERMINAL:
            terminal(n, p, hands, reach, cfv, term)
            continue
        s = child_start[n]
        e = s + num_children[n]
        if k == DECISION and player[n] == p:
            if mode == MODE_BEST_RESPONSE:
                for h in range(hp):
                    best = cfv[s, h]
                    arg = s
                    for c in range(s + 1, e):
                        if cfv[c, h] > best:
                            best = cfv[c, h]
                            arg = c
                    cfv[n, h] = best
                    best_action[n, h] = arg
            else:
                for h in range(hp):
                    v = 0.0
                    for c in range(s, e):
                        v += strat[c, h] * cfv[c, h]
                    cfv[n, h] = v
                if mode == MODE_CFR:
                    for c in range(s, e):
                        for h in range(hp):
                            regret[c, h] += cfv[c, h] - cfv[n, h]
                            avg[c, h] = avg[c, h] * avg_decay + reach[p, n, h] * strat[c, h]
        else:
            for h in range(hp):
                v = 0.0
                for c in range(s, e):
                    v += cfv[c, h]
                cfv[n, h] = v


@njit(cache=True)
def regret_matching(nodes, child_start, num_children, hp, regret, strat):  # pragma: no cover - compiled
    """Regret matching (Hart & Mas-Colell 2000) at the given decision nodes: ``strat`` proportional to the
    positive part of ``regret``, uniform when no regret is positive."""
    for idx in range(nodes.shape[0]):
        n = nodes[idx]
        s = child_start[n]
        e = s + num_children[n]
        for h in range(hp):
            tot = 0.0
            for c in range(s, e):
                if regret[c, h] > 0.0:
                    tot += regret[c, h]
            if tot > 0.0:
                for c in range(s, e):
                    strat[c, h] = regret[c, h] / tot if regret[c, h] > 0.0 else 0.0
            else:
                u = 1.0 / (e - s)
                for c in range(s, e):
                    strat[c, h] = u


@njit(cache=True)
def discount(nodes, child_start, num_children, hp, regret, pos_factor, neg_factor):  # pragma: no cover
    """Multiply positive regrets by ``pos_factor`` and negative ones by ``neg_factor`` (DCFR; RM+ is 0)."""
    for idx in range(nodes.shape[0]):
        n = nodes[idx]
        s = child_start[n]
        e = s + num_children[n]
        for c in range(s, e):
            for h in range(hp):
                r = regret[c, h]
                if r > 0.0:
                    regret[c, h] = r * pos_factor
                elif r < 0.0:
                    regret[c, h] = r * neg_factor


@njit(cache=True)
def normalise(nodes, child_start, num_children, hp, weights, out):  # pragma: no cover - compiled
    """``out`` = ``weights`` normalised over each node's children (uniform where they sum to 0)."""
    for idx in range(nodes.shape[0]):
        n = nodes[idx]
        s = child_start[n]
        e = s + num_children[n]
        for h in range(hp):
            tot = 0.0
            for c in range(s, e):
                tot += weights[c, h]
            if tot > 0.0:
                for c in range(s, e):
                    out[c, h] = weights[c, h] / tot
            else:
                u = 1.0 / (e - s)
                for c in range(s, e):
                    out[c, h] = u


@njit(cache=True)
def _factor(t, exponent, kind):  # pragma: no cover - compiled
    """``t^e / (t^e + 1)``; ``kind`` 0: finite exponent, 1: +inf (factor 1), 2: -inf (factor 0)."""
    if kind == 1:
        return 1.0
    if kind == 2:
        return 0.0
    x = float(t) ** exponent
    return x / (x + 1.0)


@njit(cache=True)
def cfr_iterations(t0, n_iter, kind, player, parent, child_start, num_children, term,
                   hands, nodes0, nodes1, strat, regret, avg, reach, cfv,
                   alpha, alpha_kind, beta, beta_kind, gamma, delay, alternating):  # pragma: no cover
    """Run iterations ``t0 + 1 .. t0 + n_iter`` of the CFR family (see :mod:`games.core.cfr`)."""
    dummy = np.empty((1, 1), dtype=np.int32)
    for t in range(t0 + 1, t0 + n_iter + 1):
        # Average weights proportional to (t - delay)^gamma for t > delay, 0 before: multiply the running sum
        # by w_{t-1} / w_t and add this iteration's contribution with weight 1.
        m = t - delay
        if m <= 1:
            decay = 0.0
        elif gamma == 0.0:
            decay = 1.0
        else:
            decay = ((m - 1.0) / m) ** gamma
        pos = _factor(t, alpha, alpha_kind)
        neg = _factor(t, beta, beta_kind)
        if alternating:
            for p in range(2):
                nodes = nodes0 if p == 0 else nodes1
                forward(kind, player, parent, hands, strat, reach)
                backward(p, MODE_CFR, kind, player, child_start, num_children, term, hands,
                         strat, reach, cfv, regret, avg, decay, dummy)
                if pos != 1.0 or neg != 1.0:
                    discount(nodes, child_start, num_children, hands[p], regret, pos, neg)
                regret_matching(nodes, child_start, num_children, hands[p], regret, strat)
        else:
            forward(kind, player, parent, hands, strat, reach)
            for p in range(2):
                backward(p, MODE_CFR, kind, player, child_start, num_children, term, hands,
                         strat, reach, cfv, regret, avg, decay, dummy)
            for p in range(2):
                nodes = nodes0 if p == 0 else nodes1
                if pos != 1.0 or neg != 1.0:
                    discount(nodes, child_start, num_children, hands[p], regret, pos, neg)
                regret_matching(nodes, child_start, num_children, hands[p], regret, strat)


@njit(cache=True)
def evaluate(kind, player, parent, child_start, num_children, term, hands, nodes0, nodes1,
             weights, normalise_first, probs, reach, cfv, best_action, out):  # pragma: no cover - compiled
    """Best-response values of both players and player 1's expected value, in one call.

    If ``normalise_first``, ``probs`` is first filled from ``weights`` normalised per information set (the
    average strategy of CFR); otherwise ``probs`` is used as given. ``out`` receives ``(br_1, br_2, value_1)``.
    """
    dummy = np.empty((1, 1))
    if normalise_first:
        normalise(nodes0, child_start, num_children, hands[0], weights, probs)
        normalise(nodes1, child_start, num_children, hands[1], weights, probs)
    forward(kind, player, parent, hands, probs, reach)
    for p in range(2):
        backward(p, MODE_BEST_RESPONSE, kind, player, child_start, num_children, term, hands,
                 probs, reach, cfv, dummy, dummy, 0.0, best_action)
        tot = 0.0
        for h in range(hands[p]):
            tot += cfv[0, h]
        out[p] = tot
    backward(0, MODE_EXPECTED, kind, player, child_start, num_children, term, hands,
             probs, reach, cfv, dummy, dummy, 0.0, best_action)
    tot = 0.0
    for h in range(hands[0]):
        tot += cfv[0, h]
    out[2] = tot

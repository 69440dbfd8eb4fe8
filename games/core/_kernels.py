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
from numba import njit, prange

from games.core.showdown import empty_ranked_data, ranked_terminal
from games.core.tree import DECISION, TERMINAL

#: Modes of :func:`backward`.
MODE_CFR, MODE_BEST_RESPONSE, MODE_EXPECTED = 0, 1, 2

#: Node sets smaller than this run serially even when the game asks for threads.
PARALLEL_MIN_NODES = 16
#: Chunks a level is split into for the threads (a few per thread, to balance uneven subtrees).
PARALLEL_CHUNKS = 16

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
def _forward_range(lo, hi, which, kind, player, parent, hands, strat, reach):  # pragma: no cover - compiled
    """Reach of nodes ``lo .. hi - 1`` from their parents', for player ``which`` (-1: both)."""
    q0 = 0 if which < 0 else which
    q1 = 2 if which < 0 else which + 1
    for n in range(lo, hi):
        par = parent[n]
        actor = player[par] if kind[par] == DECISION else -1
        for q in range(q0, q1):
            if q == actor:
                for h in range(hands[q]):
                    reach[q, n, h] = reach[q, par, h] * strat[n, h]
            else:
                for h in range(hands[q]):
                    reach[q, n, h] = reach[q, par, h]


@njit(cache=True)
def _chunk(lo, hi, c, chunks):  # pragma: no cover - compiled
    """Bounds of chunk ``c`` of ``chunks`` equal parts of ``lo .. hi - 1``."""
    return lo + (hi - lo) * c // chunks, lo + (hi - lo) * (c + 1) // chunks


@njit(cache=True, parallel=True)
def _forward_parallel(which, kind, player, parent, levels, hands, strat, reach):  # pragma: no cover - compiled
    for lv in range(1, levels.shape[0] - 1):
        lo = levels[lv]
        hi = levels[lv + 1]
        chunks = min(hi - lo, PARALLEL_CHUNKS)
        for c in prange(chunks):
            a, b = _chunk(lo, hi, c, chunks)
            _forward_range(a, b, which, kind, player, parent, hands, strat, reach)


@njit(cache=True)
def forward(kind, player, parent, levels, parallel, hands, strat, reach, which=-1):  # pragma: no cover
    """Fill ``reach[q, n, h]``: product of player ``q``'s probabilities on the path to ``n`` holding ``h``, for
    ``q = which`` only (0 or 1), or for both players (``which = -1``).

    With ``parallel`` the nodes are processed depth by depth (``levels``: the breadth-first order's depth
    boundaries), each level split into chunks spread over threads (nodes write disjoint rows); otherwise in one
    serial sweep (no thread start-up per call, which matters for small games and many iterations).
    """
    for q in range(2):
        for h in range(hands[q]):
            reach[q, 0, h] = 1.0
    if parallel:
        _forward_parallel(which, kind, player, parent, levels, hands, strat, reach)
    else:
        _forward_range(1, kind.shape[0], which, kind, player, parent, hands, strat, reach)


@njit(cache=True, inline='always')
def dense_terminal(n, p, hands, reach, cfv, term_index, payoff):  # pragma: no cover - compiled
    """Terminal evaluator of games with dense payoffs (``term_index``, ``payoff`` as returned by
    :meth:`games.core.tree.Game.terminal_payoffs`): ``cfv[n, i] = sum_j payoff[t, i, j] * reach[1, n, j]`` for
    player 1 and ``-sum_i payoff[t, i, j] * reach[0, n, i]`` for player 2."""
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
def _backward_range(lo, hi, p, mode, kind, player, child_start, num_children, dense, term_index, payoff, ranked,
                    hands, strat, reach, cfv, regret, avg, avg_decay, best_action):  # pragma: no cover - compiled
    """Counterfactual values of nodes ``hi - 1`` down to ``lo`` (children first) and the CFR updates."""
    hp = hands[p]
    for n in range(hi - 1, lo - 1, -1):
        k = kind[n]
        if k == TERMINAL:
            if dense:
                dense_terminal(n, p, hands, reach, cfv, term_index, payoff)
            else:
                ranked_terminal(n, p, hands, reach, cfv, ranked)
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


@njit(cache=True, parallel=True)
def _backward_parallel(p, mode, kind, player, child_start, num_children, levels, term, hands,
                       strat, reach, cfv, regret, avg, avg_decay, best_action):  # pragma: no cover - compiled
    # numba's parallel loops cannot take a tuple of arrays as a free variable: unpack the terminal spec here and
    # rebuild the ranked data inside the loop body (no copies; a tuple of array views).
    dense = term[0] == TERMINAL_DENSE
    term_index, payoff = term[1]
    r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14 = term[2]
    for lv in range(levels.shape[0] - 2, -1, -1):
        lo = levels[lv]
        hi = levels[lv + 1]
        chunks = min(hi - lo, PARALLEL_CHUNKS)
        for c in prange(chunks):
            a, b = _chunk(lo, hi, c, chunks)
            _backward_range(a, b, p, mode, kind, player, child_start, num_children, dense, term_index, payoff,
                            (r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14), hands, strat, reach,
                            cfv, regret,
                            avg, avg_decay, best_action)


@njit(cache=True)
def backward(p, mode, kind, player, child_start, num_children, levels, parallel, term, hands,
             strat, reach, cfv, regret, avg, avg_decay, best_action):  # pragma: no cover - compiled
    """Counterfactual values of player ``p``'s hands at every node, bottom-up (with ``parallel``, deepest level
    first, each level split into chunks spread over threads -- a node writes only its own rows).

    ``mode``: :data:`MODE_CFR` (values under ``strat``; add the instantaneous regrets ``cfv(child) - cfv(node)``
    to ``regret`` and ``reach_p * strat`` to ``avg`` after multiplying ``avg`` by ``avg_decay``, at ``p``'s
    nodes), :data:`MODE_BEST_RESPONSE` (max over ``p``'s actions; the argmax child goes to ``best_action``) or
    :data:`MODE_EXPECTED` (values under ``strat``, nothing updated).
    """
    if parallel:
        _backward_parallel(p, mode, kind, player, child_start, num_children, levels, term, hands, strat, reach,
                           cfv, regret, avg, avg_decay, best_action)
    else:
        term_index, payoff = term[1]
        _backward_range(0, kind.shape[0], p, mode, kind, player, child_start, num_children,
                        term[0] == TERMINAL_DENSE, term_index, payoff, term[2], hands, strat, reach, cfv, regret,
                        avg, avg_decay, best_action)


@njit(cache=True)
def _regret_matching_range(lo, hi, nodes, child_start, num_children, hp, regret, strat):  # pragma: no cover - compiled
    for idx in range(lo, hi):
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


@njit(cache=True, parallel=True)
def _regret_matching_parallel(nodes, child_start, num_children, hp, regret, strat):  # pragma: no cover - compiled
    chunks = min(nodes.shape[0], PARALLEL_CHUNKS)
    for c in prange(chunks):
        a, b = _chunk(0, nodes.shape[0], c, chunks)
        _regret_matching_range(a, b, nodes, child_start, num_children, hp, regret, strat)


@njit(cache=True)
def regret_matching(nodes, parallel, child_start, num_children, hp, regret, strat):  # pragma: no cover - compiled
    """Regret matching (Hart & Mas-Colell 2000) at the given decision nodes: ``strat`` proportional to the
    positive part of ``regret``, uniform when no regret is positive."""
    if parallel and nodes.shape[0] >= PARALLEL_MIN_NODES:
        _regret_matching_parallel(nodes, child_start, num_children, hp, regret, strat)
    else:
        _regret_matching_range(0, nodes.shape[0], nodes, child_start, num_children, hp, regret, strat)


@njit(cache=True)
def _discount_range(lo, hi, nodes, child_start, num_children, hp, regret, pos_factor, neg_factor):  # pragma: no cover - compiled
    for idx in range(lo, hi):
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


@njit(cache=True, parallel=True)
def _discount_parallel(nodes, child_start, num_children, hp, regret, pos_factor, neg_factor):  # pragma: no cover
    chunks = min(nodes.shape[0], PARALLEL_CHUNKS)
    for c in prange(chunks):
        a, b = _chunk(0, nodes.shape[0], c, chunks)
        _discount_range(a, b, nodes, child_start, num_children, hp, regret, pos_factor, neg_factor)


@njit(cache=True)
def discount(nodes, parallel, child_start, num_children, hp, regret, pos_factor, neg_factor):  # pragma: no cover
    """Multiply positive regrets by ``pos_factor`` and negative ones by ``neg_factor`` (DCFR; RM+ is 0)."""
    if parallel and nodes.shape[0] >= PARALLEL_MIN_NODES:
        _discount_parallel(nodes, child_start, num_children, hp, regret, pos_factor, neg_factor)
    else:
        _discount_range(0, nodes.shape[0], nodes, child_start, num_children, hp, regret, pos_factor, neg_factor)


@njit(cache=True)
def _normalise_range(lo, hi, nodes, child_start, num_children, hp, weights, out):  # pragma: no cover - compiled
    for idx in range(lo, hi):
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


@njit(cache=True, parallel=True)
def _normalise_parallel(nodes, child_start, num_children, hp, weights, out):  # pragma: no cover - compiled
    chunks = min(nodes.shape[0], PARALLEL_CHUNKS)
    for c in prange(chunks):
        a, b = _chunk(0, nodes.shape[0], c, chunks)
        _normalise_range(a, b, nodes, child_start, num_children, hp, weights, out)


@njit(cache=True)
def normalise(nodes, parallel, child_start, num_children, hp, weights, out):  # pragma: no cover - compiled
    """``out`` = ``weights`` normalised over each node's children (uniform where they sum to 0)."""
    if parallel and nodes.shape[0] >= PARALLEL_MIN_NODES:
        _normalise_parallel(nodes, child_start, num_children, hp, weights, out)
    else:
        _normalise_range(0, nodes.shape[0], nodes, child_start, num_children, hp, weights, out)


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
def cfr_iterations(t0, n_iter, kind, player, parent, child_start, num_children, levels, parallel, term,
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
                # Only the opponent's strategy changed since ``reach`` was last filled (player p's reach was
                # recomputed before the opponent's update, and p has not moved since): refresh his reach only.
                forward(kind, player, parent, levels, parallel, hands, strat, reach, -1 if t == 1 else 1 - p)
                backward(p, MODE_CFR, kind, player, child_start, num_children, levels, parallel, term, hands,
                         strat, reach, cfv, regret, avg, decay, dummy)
                if pos != 1.0 or neg != 1.0:
                    discount(nodes, parallel, child_start, num_children, hands[p], regret, pos, neg)
                regret_matching(nodes, parallel, child_start, num_children, hands[p], regret, strat)
        else:
            forward(kind, player, parent, levels, parallel, hands, strat, reach)
            for p in range(2):
                backward(p, MODE_CFR, kind, player, child_start, num_children, levels, parallel, term, hands,
                         strat, reach, cfv, regret, avg, decay, dummy)
            for p in range(2):
                nodes = nodes0 if p == 0 else nodes1
                if pos != 1.0 or neg != 1.0:
                    discount(nodes, parallel, child_start, num_children, hands[p], regret, pos, neg)
                regret_matching(nodes, parallel, child_start, num_children, hands[p], regret, strat)


@njit(cache=True)
def evaluate(kind, player, parent, child_start, num_children, levels, parallel, term, hands, nodes0, nodes1,
             weights, normalise_first, probs, reach, cfv, best_action, out):  # pragma: no cover - compiled
    """Best-response values of both players and player 1's expected value, in one call.

    If ``normalise_first``, ``probs`` is first filled from ``weights`` normalised per information set (the
    average strategy of CFR); otherwise ``probs`` is used as given. ``out`` receives ``(br_1, br_2, value_1)``.
    """
    dummy = np.empty((1, 1))
    if normalise_first:
        normalise(nodes0, parallel, child_start, num_children, hands[0], weights, probs)
        normalise(nodes1, parallel, child_start, num_children, hands[1], weights, probs)
    forward(kind, player, parent, levels, parallel, hands, probs, reach)
    for p in range(2):
        backward(p, MODE_BEST_RESPONSE, kind, player, child_start, num_children, levels, parallel, term, hands,
                 probs, reach, cfv, dummy, dummy, 0.0, best_action)
        tot = 0.0
        for h in range(hands[p]):
            tot += cfv[0, h]
        out[p] = tot
    backward(0, MODE_EXPECTED, kind, player, child_start, num_children, levels, parallel, term, hands,
             probs, reach, cfv, dummy, dummy, 0.0, best_action)
    tot = 0.0
    for h in range(hands[0]):
        tot += cfv[0, h]
    out[2] = tot

"""The compiled traversal of the solver core: one pass over the public tree for one player, unit by unit.

One function, :func:`traverse`, serves every algorithm of the core through its ``mode``:

:data:`MODE_CFR`
    Counterfactual values of player ``p`` under the current strategies (regret matching on the stored regrets,
    computed on the fly), then at ``p``'s decision nodes the regret update ``R += v(child) - v(node)`` followed
    by the discount of the CFR family (:mod:`games.core.cfr`), and the average-strategy update
    ``avg = avg * decay + reach_p * strategy``.
:data:`MODE_BEST_RESPONSE`
    ``p`` maximises over his actions; the opponent plays the normalised average strategy (``source`` average)
    or a given strategy table (``source`` table). With node locks, ``p``'s locked hands keep their locked
    strategy (the best response of the restricted game).
:data:`MODE_EXPECTED`
    Expected values of ``p``'s hands when both play the chosen strategies.

Depth first over units (:mod:`games.core.layout`): a unit's reaches are pushed down its nodes (only rows that
change are written; other nodes point at their parent's row), the units below its chance nodes are traversed in
turn (an explicit stack: numba cannot cache recursive functions), its terminals are evaluated together by the
game's evaluator (:mod:`games.core.terminals`), and values go back up with the regret updates. The units below
the root unit are independent; with several threads they are spread over the threads (largest first, each
thread with its own work space) and their values added in a fixed order, so results do not depend on the number
of threads.

Strategies are never stored: the regret-matched (or normalised average) strategy of a node is computed when the
node is reached. Storage is per decision node and acting hand (:class:`games.core.layout.TreeLayout`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from games.core.terminals import EVALUATOR_DENSE, LANES, cards_block, dense_block, own_weights, padded

#: Traversal modes.
MODE_CFR, MODE_BEST_RESPONSE, MODE_EXPECTED = 0, 1, 2
#: Unsigned index type: indexing with it skips numba's negative-index wraparound (so loops vectorise).
U = np.uint64
#: Where the strategies of the traversal come from.
SOURCE_REGRET, SOURCE_AVERAGE, SOURCE_TABLE = 0, 1, 2


@njit(cache=True)
def _strategy(dn, q, source, predictive, child_start, num_children, offset, hands, regret, avg, pred, table,
              st, lc0, tmp):  # pragma: no cover - compiled
    """Write the strategy of decision node ``dn`` (actor ``q``) into rows ``lc0 .. lc0 + A - 1`` of ``st``
    (node locks are applied by the callers, :func:`_locked`).

    Indices are unsigned (``U``) so that numba emits no negative-index wraparound and the loops vectorise.
    """
    n_act = num_children[dn]
    hq = hands[q]
    base = U(offset[dn])
    t = st.dtype.type
    zero = t(0.0)
    if source == SOURCE_TABLE:
        for a in range(n_act):
            row = U(lc0 + a)
            lo = base + U(a * hq)
            for h in range(hq):
                st[row, h] = table[lo + U(h)]
        return
    for h in range(hq):
        tmp[h] = zero
    for a in range(n_act):
        row = U(lc0 + a)
        lo = base + U(a * hq)
        if source == SOURCE_REGRET:
            if predictive:
                for h in range(hq):
                    x = t(regret[lo + U(h)] + pred[lo + U(h)])
                    x = x if x > zero else zero
                    st[row, h] = x
                    tmp[h] += x
            else:
                for h in range(hq):
                    x = t(regret[lo + U(h)])
                    x = x if x > zero else zero
                    st[row, h] = x
                    tmp[h] += x
        else:
            for h in range(hq):
                x = t(avg[lo + U(h)])
                st[row, h] = x
                tmp[h] += x
    u = t(1.0) / t(n_act)
    for a in range(n_act):
        row = U(lc0 + a)
        for h in range(hq):
            tot = tmp[h]
            st[row, h] = st[row, h] / tot if tot > zero else u


@njit(cache=True)
def _locked(dn, source, n_act, hq, lock_of, lock_probs, st, lc0):  # pragma: no cover - compiled
    """Node locks (:mod:`games.core.locks`): when ``lock_of[dn] >= 0`` (``lock_of`` empty: no locks) and the
    strategy is the current or the average one (a strategy table is used as given), overwrite rows ``lc0 ..`` of
    ``st`` with the locked strategy of the hands whose lock entries (``lock_probs[lock_of[dn]:]``, ``n_act * hq``
    entries, action-major like the storage) are not NaN."""
    if source == SOURCE_TABLE or lock_of.shape[0] == 0 or lock_of[dn] < 0:
        return
    start = lock_of[dn]
    t = st.dtype.type
    for h in range(hq):
        if lock_probs[start + h] == lock_probs[start + h]:
            for a in range(n_act):
                st[lc0 + a, h] = t(lock_probs[start + a * hq + h])


@njit(cache=True)
def _forward(p, mode, source, predictive, u, d, T, L, S, hands, ro, rs, st, orow, srow, pro, prs, porow, psrow,
             v, tmp):  # pragma: no cover - compiled
    """Reaches of the nodes of unit ``u`` (depth ``d``) and the strategies of its edges. The roots' reaches come
    from their parent chance nodes' rows in the parent's work space ``pro``/``prs`` (``porow``/``psrow``); at depth
    0 the caller has set row 0."""
    kind, player, parent, child_start, num_children, fold_value, stake, common = T
    (unit_of, local, unit_ptr, unit_nodes, root_ptr, root_nodes, dec_ptr, dec_nodes, term_ptr, term_nodes,
     n_showdown, chance_ptr, chance_nodes, child_ptr, child_units, unit_board, offset, iso_ptr, iso_index,
     iso_perm) = L
    need_own = mode == MODE_CFR
    ho = hands[1 - p]
    hp = hands[p]
    if d == 0:
        orow[0] = 0
        srow[0] = 0
    else:
        for k in range(root_ptr[u], root_ptr[u + 1]):
            n = root_nodes[k]
            lr = local[n]
            lp = local[parent[n]]
            r = porow[lp]
            for h in range(ho):
                ro[lr, h] = pro[r, h]
            orow[lr] = lr
            srow[lr] = lr
            if need_own:
                r = psrow[lp]
                for h in range(hp):
                    rs[lr, h] = prs[r, h]
    for k in range(dec_ptr[u], dec_ptr[u + 1]):
        dn = dec_nodes[k]
        q = player[dn]
        ld = local[dn]
        c0 = child_start[dn]
        lc0 = local[c0]
        n_act = num_children[dn]
        if q == p and not need_own:
            # the opponent's reach passes unchanged; own strategies matter only at the backward step
            if mode == MODE_EXPECTED:
                _strategy(dn, q, source, predictive, child_start, num_children, offset, hands, S[0], S[1],
                          S[2], S[3], st, lc0, tmp)
                if S[6].shape[0] > 0:
                    _locked(dn, source, n_act, hands[q], S[6], S[7], st, lc0)
            for a in range(n_act):
                orow[lc0 + a] = orow[ld]
                srow[lc0 + a] = srow[ld]
            continue
        _strategy(dn, q, source, predictive, child_start, num_children, offset, hands, S[0], S[1], S[2], S[3],
                  st, lc0, tmp)
        if S[6].shape[0] > 0:
            _locked(dn, source, n_act, hands[q], S[6], S[7], st, lc0)
        if q == p:
            src = U(srow[ld])
            for a in range(n_act):
                lc = lc0 + a
                orow[lc] = orow[ld]
                srow[lc] = lc
                r = U(lc)
                for h in range(hp):
                    rs[r, h] = rs[src, h] * st[r, h]
        else:
            src = U(orow[ld])
            for a in range(n_act):
                lc = lc0 + a
                srow[lc] = srow[ld]
                orow[lc] = lc
                r = U(lc)
                for h in range(ho):
                    ro[r, h] = ro[src, h] * st[r, h]
    for k in range(chance_ptr[u], chance_ptr[u + 1]):
        lcn = local[chance_nodes[k]]
        for h in range(hp):
            v[lcn, h] = 0.0


@njit(cache=True)
def _terminals(p, u, T, L, E, hands, ro, v, orow, scratch):  # pragma: no cover - compiled
    """Values of ``p``'s hands at every terminal of unit ``u`` (rows of ``v``), in chunks of the scratch width."""
    kind, player, parent, child_start, num_children, fold_value, stake, common = T
    local = L[1]
    unit_board = L[15]
    term_ptr = L[8]
    term_nodes = L[9]
    n_showdown = L[10]
    gathered, tot, cs_full, run, cs_run, win, rows, opp_row, coef = scratch
    t0 = term_ptr[u]
    nt = term_ptr[u + 1] - t0
    if nt == 0:
        return
    ns = n_showdown[u]
    dense = E[0] == EVALUATOR_DENSE
    # the card evaluator pads its showdown and fold columns (``terminal_columns``): this many real terminals a call
    cap = coef.shape[1] if dense else coef.shape[1] - LANES
    start = 0
    while start < nt:
        m = min(cap, nt - start)
        n_show = min(max(ns - start, 0), m)
        fold0 = n_show if dense else padded(n_show)
        if not dense:  # padding columns: valid rows, no payoff (computed, never written out)
            t = term_nodes[t0 + start]
            for c in range(fold0 + padded(m - n_show)):
                rows[c] = local[t]
                opp_row[c] = orow[local[t]]
                coef[0, c] = 0.0
                coef[1, c] = 0.0
        # typed, not a literal: numba may type a bare ``False`` passed on as ``Literal[bool](False)`` and compile
        # ``cards_block`` once more for it
        raked = np.bool_(False)
        for k in range(m):
            t = term_nodes[t0 + start + k]
            c = k if k < n_show else fold0 + k - n_show
            rows[c] = local[t]
            opp_row[c] = orow[local[t]]
            if k < n_show:
                coef[0, c] = stake[t]
            else:
                coef[0, c] = fold_value[t] if p == 0 else -fold_value[t]
            coef[1, c] = common[t]
            if common[t] != 0.0:
                raked = True
        if dense:
            term_index, payoff = E[1]
            dense_block(p, hands, term_nodes[t0 + start:t0 + start + m], m, rows, opp_row, ro, v, term_index,
                        payoff)
        else:
            cards_block(p, unit_board[u], hands, n_show, m, rows, opp_row, coef, raked, ro, v, E[2], gathered,
                        tot, cs_full, run, cs_run, win)
        start += m


@njit(cache=True)
def _update_compressed(dn, base, lc0, n_act, hp, ld, own, regret, avg, rscale, ascale, rs, st, v, pos, neg, decay,
                       work, stamp):  # pragma: no cover - compiled
    """The CFR update of one decision node with 16-bit storage: regrets are int16 times ``rscale[dn]``, average
    weights uint16 times ``ascale[dn]``. The node's new values are computed in floats (regrets in ``work``, average
    weights over the strategy rows ``st``, no longer needed), then stored again with the node's new scale -- its
    largest magnitude maps to the largest code (postflop-solver's compression; round to nearest)."""
    t = v.dtype.type
    zero = t(0.0)
    rs_old = t(rscale[dn])
    as_old = t(ascale[dn])
    mr = zero
    ma = zero
    for a in range(n_act):
        lo = base + U(a * hp)
        c = U(lc0 + a)
        for h in range(hp):
            r = t(regret[lo + U(h)]) * rs_old + (v[c, h] - v[ld, h])
            if r > zero:
                r = r * pos
            elif r < zero:
                r = r * neg
            work[a, h] = r
            mr = max(mr, abs(r))
            g = t(avg[lo + U(h)]) * as_old * decay + rs[own, h] * st[c, h]
            st[c, h] = g
            ma = max(ma, g)
    sr = mr / t(32767.0) if mr > zero else t(1.0)
    sa = ma / t(65535.0) if ma > zero else t(1.0)
    rscale[dn] = sr
    ascale[dn] = sa
    ir = t(1.0) / sr
    ia = t(1.0) / sa
    for a in range(n_act):
        lo = base + U(a * hp)
        c = U(lc0 + a)
        for h in range(hp):
            regret[lo + U(h)] = np.int16(np.rint(work[a, h] * ir))
            avg[lo + U(h)] = np.uint16(np.floor(st[c, h] * ia + _dither(lo + U(h), stamp)))


@njit(cache=True, inline="always")
def _dither(index, stamp):  # pragma: no cover - compiled
    """A uniform number in [0, 1) from a 64-bit hash of a storage index and the iteration (splitmix64's finaliser):
    rounding ``x + u`` down is stochastic rounding, unbiased, so average weights far below the node's scale still
    add up over iterations -- and deterministic, the same on every run and thread count."""
    z = (index + stamp * U(0x9E3779B97F4A7C15)) ^ U(0xD1B54A32D192ED03)
    z = (z ^ (z >> U(30))) * U(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> U(27))) * U(0x94D049BB133111EB)
    z = z ^ (z >> U(31))
    return np.float32(z >> U(40)) * np.float32(1.0 / 16777216.0)


@njit(cache=True)
def _backward(p, mode, predictive, u, T, L, S, hands, rs, st, v, srow, factors, best, work):  # pragma: no cover
    """Values of the unit's decision nodes from their children's, deepest first, with the CFR updates."""
    kind, player, parent, child_start, num_children, fold_value, stake, common = T
    local = L[1]
    dec_ptr = L[6]
    dec_nodes = L[7]
    offset = L[16]
    regret, avg, pred, rscale, ascale = S[0], S[1], S[2], S[4], S[5]
    lock_of, lock_probs = S[6], S[7]
    t = v.dtype.type
    zero = t(0.0)
    pos = t(factors[0])
    neg = t(factors[1])
    decay = t(factors[2])
    hp = hands[p]
    record = best.shape[0] > 1
    for k in range(dec_ptr[u + 1] - 1, dec_ptr[u] - 1, -1):
        dn = dec_nodes[k]
        ld = U(local[dn])
        lc0 = local[child_start[dn]]
        n_act = num_children[dn]
        if player[dn] != p:
            c = U(lc0)
            for h in range(hp):
                v[ld, h] = v[c, h]
            for a in range(1, n_act):
                c = U(lc0 + a)
                for h in range(hp):
                    v[ld, h] += v[c, h]
            continue
        base = U(offset[dn])
        if mode == MODE_BEST_RESPONSE:
            c = U(lc0)
            for h in range(hp):
                v[ld, h] = v[c, h]
            if record:
                for h in range(hp):
                    best[base + U(h)] = 1.0
                for a in range(1, n_act):
                    for h in range(hp):
                        best[base + U(a * hp + h)] = 0.0
            for a in range(1, n_act):
                c = U(lc0 + a)
                for h in range(hp):
                    x = v[c, h]
                    if x > v[ld, h]:
                        v[ld, h] = x
                        if record:
                            for a2 in range(a):
                                best[base + U(a2 * hp + h)] = 0.0
                            best[base + U(a * hp + h)] = 1.0
            if lock_of.shape[0] > 0 and lock_of[dn] >= 0:
                # a locked hand keeps its locked strategy: the best response of the restricted game
                start = lock_of[dn]
                for h in range(hp):
                    if lock_probs[start + h] == lock_probs[start + h]:
                        x = zero
                        for a in range(n_act):
                            x += t(lock_probs[start + a * hp + h]) * v[U(lc0 + a), h]
                            if record:
                                best[base + U(a * hp + h)] = lock_probs[start + a * hp + h]
                        v[ld, h] = x
            continue
        c = U(lc0)
        for h in range(hp):
            v[ld, h] = st[c, h] * v[c, h]
        for a in range(1, n_act):
            c = U(lc0 + a)
            for h in range(hp):
                v[ld, h] += st[c, h] * v[c, h]
        if mode != MODE_CFR:
            if record:
                for a in range(n_act):
                    c = U(lc0 + a)
                    lo = base + U(a * hp)
                    for h in range(hp):
                        best[lo + U(h)] = v[c, h]
            continue
        own = U(srow[ld])
        if rscale.shape[0] > 1:
            _update_compressed(dn, base, lc0, n_act, hp, ld, own, regret, avg, rscale, ascale, rs, st, v, pos, neg,
                               decay, work, np.uint64(factors[3]))
            continue
        for a in range(n_act):
            lo = base + U(a * hp)
            c = U(lc0 + a)
            for h in range(hp):
                r = regret[lo + U(h)] + (v[c, h] - v[ld, h])
                if r > zero:
                    r = r * pos
                elif r < zero:
                    r = r * neg
                regret[lo + U(h)] = r
                avg[lo + U(h)] = avg[lo + U(h)] * decay + rs[own, h] * st[c, h]
            if predictive:
                for h in range(hp):
                    pred[lo + U(h)] = v[c, h] - v[ld, h]


@njit(cache=True)
def _add_roots(p, cu, T, L, hp, vc, vp):  # pragma: no cover - compiled
    """Add the root values of child unit ``cu`` (rows of ``vc``) into their parent chance nodes' rows of ``vp``,
    once per isomorphic copy."""
    parent = T[2]
    local = L[1]
    root_ptr = L[4]
    root_nodes = L[5]
    iso_ptr = L[17]
    iso_index = L[18]
    iso_perm = L[19]
    for k in range(root_ptr[cu], root_ptr[cu + 1]):
        n = root_nodes[k]
        src = vc[local[n]]
        dst = vp[local[parent[n]]]
        for h in range(hp):
            dst[h] += src[h]
        for m in range(iso_ptr[n], iso_ptr[n + 1]):
            perm = iso_perm[iso_index[m], p]
            for h in range(hp):
                dst[h] += src[perm[h]]


@njit(cache=True)
def _subtree(p, mode, source, predictive, u0, d0, T, L, S, E, hands, factors, ro, rs, st, v, orow, srow, pro,
             prs, porow, psrow, tmp, scratch, frames, best, work):  # pragma: no cover - compiled
    """Traverse unit ``u0`` (depth ``d0``; its roots' reaches from the parent work space ``pro``... at depth
    ``d0 - 1``) and every unit below it, depth first. Values end in rows of ``v[d0]``."""
    child_ptr = L[13]
    child_units = L[14]
    hp = hands[p]
    fu = frames[0]
    fc = frames[1]
    d = d0
    fu[d] = u0
    fc[d] = child_ptr[u0]
    _forward(p, mode, source, predictive, u0, d, T, L, S, hands, ro[d], rs[d], st[d], orow[d], srow[d], pro, prs,
             porow, psrow, v[d], tmp)
    while True:
        u = fu[d]
        if fc[d] < child_ptr[u + 1]:
            cu = child_units[fc[d]]
            fu[d + 1] = cu
            fc[d + 1] = child_ptr[cu]
            _forward(p, mode, source, predictive, cu, d + 1, T, L, S, hands, ro[d + 1], rs[d + 1], st[d + 1],
                     orow[d + 1], srow[d + 1], ro[d], rs[d], orow[d], srow[d], v[d + 1], tmp)
            d += 1
            continue
        _terminals(p, u, T, L, E, hands, ro[d], v[d], orow[d], scratch)
        _backward(p, mode, predictive, u, T, L, S, hands, rs[d], st[d], v[d], srow[d], factors, best, work)
        if d == d0:
            return
        _add_roots(p, u, T, L, hp, v[d], v[d - 1])
        fc[d - 1] += 1
        d -= 1


@njit(cache=True)
def _run_items(t, p, mode, source, predictive, T, L, S, E, hands, factors, ro, rs, st, v, orow, srow, tmp,
               scratch, frames, assign_ptr, assign, slots, slot_of, best, work):  # pragma: no cover - compiled
    """Thread ``t``'s share of the root unit's child units; their root values go to ``slots``."""
    local = L[1]
    root_ptr = L[4]
    root_nodes = L[5]
    child_units = L[14]
    hp = hands[p]
    sc = (scratch[0][t], scratch[1][t], scratch[2][t], scratch[3][t], scratch[4][t], scratch[5][t],
          scratch[6][t], scratch[7][t], scratch[8][t])
    for m in range(assign_ptr[t], assign_ptr[t + 1]):
        cu = child_units[assign[m]]
        _subtree(p, mode, source, predictive, cu, np.int64(1), T, L, S, E, hands, factors, ro[t], rs[t], st[t], v[t],
                 orow[t], srow[t], ro[0, 0], rs[0, 0], orow[0, 0], srow[0, 0], tmp[t], sc, frames[t], best, work[t])
        for k in range(root_ptr[cu], root_ptr[cu + 1]):
            n = root_nodes[k]
            s = slot_of[k]
            for h in range(hp):
                slots[s, h] = v[t, 1, local[n], h]


@njit(cache=True, parallel=True)
def _items_parallel(p, mode, source, predictive, T, L, S, E, hands, factors, W, assign_ptr, assign, slots,
                    slot_of, best):  # pragma: no cover - compiled
    # numba's parallel loops cannot capture tuples of arrays: unpack everything here and rebuild the tuples
    # inside the loop body (views, no copies)
    t0_, t1_, t2_, t3_, t4_, t5_, t6_, t7_ = T
    (l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15, l16, l17, l18, l19) = L
    s0, s1, s2, s3, s4, s5, s6, s7 = S
    ekind = E[0]
    e_ti, e_pay = E[1]
    c0_, c1_, c2_, c3_, c4_, c5_, c6_, c7_, c8_, c9_, c10_, c11_ = E[2]
    ro, rs, st, v, orow, srow, tmp, scratch, frames, work = W
    g0, g1, g2, g3, g4, g5, g6, g7, g8 = scratch
    n_threads = assign_ptr.shape[0] - 1
    for t in prange(n_threads):
        _run_items(t, p, mode, source, predictive, (t0_, t1_, t2_, t3_, t4_, t5_, t6_, t7_),
                   (l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15, l16, l17, l18, l19),
                   (s0, s1, s2, s3, s4, s5, s6, s7),
                   (ekind, (e_ti, e_pay), (c0_, c1_, c2_, c3_, c4_, c5_, c6_, c7_, c8_, c9_, c10_, c11_)),
                   hands,
                   factors, ro, rs, st, v, orow, srow, tmp, (g0, g1, g2, g3, g4, g5, g6, g7, g8), frames,
                   assign_ptr, assign, slots, slot_of, best, work)


@njit(cache=True)
def traverse(p, mode, source, predictive, parallel, T, L, S, E, hands, factors, W, assign_ptr, assign, slots,
             slot_of, out, best):  # pragma: no cover - compiled
    """One traversal for player ``p``; his root values (chips, deal included) go to ``out[:H_p]``.

    ``T``: tree arrays ``(kind, player, parent, child_start, num_children, fold_value, showdown_stake, common)``
    (``common``: the payoff every player receives at a terminal on top of the zero-sum transfer, e.g. minus half
    the rake; zeros for zero-sum games -- see :meth:`games.core.engine.Engine`); ``L``:
    :meth:`games.core.layout.TreeLayout.arrays`; ``S``: storage ``(regret, avg, pred, table, rscale, ascale,
    lock_of, lock_probs)``; ``E``: the
    evaluator spec; ``factors``: ``(pos, neg, decay)`` of the CFR update; ``W``: per-thread work space;
    ``assign_ptr``/``assign``: each thread's child units of the root unit; ``slots``: ``(R, Hm)`` values of those
    units' roots (``slot_of``: slot of each root-list entry); ``best``: a storage-sized record, or a 1-element
    dummy: in :data:`MODE_BEST_RESPONSE` it receives ``p``'s best response (1 on the chosen action, 0 on the
    others), in :data:`MODE_EXPECTED` the counterfactual value of each of ``p``'s actions (chips).
    """
    ro, rs, st, v, orow, srow, tmp, scratch, frames, work = W
    local = L[1]
    root_ptr = L[4]
    root_nodes = L[5]
    child_ptr = L[13]
    child_units = L[14]
    parent = T[2]
    hp = hands[p]
    ho = hands[1 - p]
    for h in range(ho):
        ro[0, 0, 0, h] = 1.0
    for h in range(hp):
        rs[0, 0, 0, h] = 1.0
    sc0 = (scratch[0][0], scratch[1][0], scratch[2][0], scratch[3][0], scratch[4][0], scratch[5][0],
           scratch[6][0], scratch[7][0], scratch[8][0])
    # unit 0 at depth 0, typed as at the other call sites: a literal 0 would compile every kernel below again
    u0 = np.int32(0)  # a unit as read from ``child_units``
    d0 = np.int64(0)  # a depth, and a unit as read from ``frames``
    # ``parallel`` is None for one thread: numba prunes the branch below before typing it, so a serial run never
    # compiles ``_items_parallel`` (about half the traversal's cold compilation)
    if parallel is None:
        _subtree(p, mode, source, predictive, u0, d0, T, L, S, E, hands, factors, ro[0], rs[0], st[0], v[0],
                 orow[0], srow[0], ro[0, 0], rs[0, 0], orow[0, 0], srow[0, 0], tmp[0], sc0, frames[0], best,
                 work[0])
    else:
        _forward(p, mode, source, predictive, u0, d0, T, L, S, hands, ro[0, 0], rs[0, 0], st[0, 0], orow[0, 0],
                 srow[0, 0], ro[0, 0], rs[0, 0], orow[0, 0], srow[0, 0], v[0, 0], tmp[0])
        _items_parallel(p, mode, source, predictive, T, L, S, E, hands, factors, W, assign_ptr, assign, slots,
                        slot_of, best)
        for c in range(child_ptr[0], child_ptr[1]):
            cu = child_units[c]
            for k in range(root_ptr[cu], root_ptr[cu + 1]):
                n = root_nodes[k]
                src = slots[slot_of[k]]
                dst = v[0, 0, local[parent[n]]]
                for h in range(hp):
                    dst[h] += src[h]
                iso_ptr = L[17]
                for m in range(iso_ptr[n], iso_ptr[n + 1]):
                    perm = L[19][L[18][m], p]
                    for h in range(hp):
                        dst[h] += src[perm[h]]
        _terminals(p, d0, T, L, E, hands, ro[0, 0], v[0, 0], orow[0, 0], sc0)
        _backward(p, mode, predictive, d0, T, L, S, hands, rs[0, 0], st[0, 0], v[0, 0], srow[0, 0], factors, best,
                  work[0])
    for h in range(hp):
        out[h] = v[0, 0, 0, h]
    own_weights(E, p, out[:hp])


@njit(cache=True)
def fill_strategies(source, predictive, T, L, S, hands, out, tmp):  # pragma: no cover - compiled
    """Write the current (``source`` = regret) or normalised average (``source`` = average) strategy of every
    decision node into the storage-layout array ``out``."""
    kind, player, parent, child_start, num_children, fold_value, stake, common = T
    dec_nodes = L[7]
    offset = L[16]
    regret, avg, pred = S[0], S[1], S[2]
    one = np.empty(1, dtype=out.dtype)
    for k in range(dec_nodes.shape[0]):
        dn = dec_nodes[k]
        q = player[dn]
        hq = hands[q]
        n_act = num_children[dn]
        base = offset[dn]
        st = out[base:base + n_act * hq].reshape((np.int64(n_act), np.int64(hq)))
        _strategy(dn, q, source, predictive, child_start, num_children, offset, hands, regret, avg, pred, one,
                  st, np.int32(0), tmp)
        _locked(dn, source, n_act, hq, S[6], S[7], st, np.int32(0))


@njit(cache=True)
def average_decay(t, delay, gamma, reset_base):  # pragma: no cover - compiled
    """Factor applied to the average-strategy weights before iteration ``t`` adds its own with weight 1, so that
    iteration ``m`` of the current averaging window counts ``m^gamma``. The window starts after ``delay``
    iterations, or (``reset_base > 1``) anew at every power of ``reset_base``."""
    if reset_base > 1:
        start = 1
        while start * reset_base <= t:
            start *= reset_base
        m = t - start + 1
    else:
        m = t - delay
    if m <= 1:
        return 0.0
    if gamma == 0.0:
        return 1.0
    return ((m - 1.0) / m) ** gamma


@njit(cache=True)
def discount_factor(t, exponent, kind):  # pragma: no cover - compiled
    """``t^e / (t^e + 1)``; ``kind`` 0: finite exponent, 1: +inf (factor 1), 2: -inf (factor 0)."""
    if kind == 1:
        return 1.0
    if kind == 2:
        return 0.0
    x = float(t) ** exponent
    return x / (x + 1.0)


@njit(cache=True)
def run_iterations(t0, n_iter, alpha, alpha_kind, beta, beta_kind, gamma, delay, reset_base, alternating,
                   predictive, parallel, T, L, S, E, hands, W, assign_ptr, assign, slots, slot_of, out,
                   best):  # pragma: no cover - compiled
    """Iterations ``t0 + 1 .. t0 + n_iter`` of the CFR family (see :mod:`games.core.cfr`). Simultaneous updates
    (``alternating`` false) play the current strategies of the iteration's start from the table ``S[3]``."""
    factors = np.zeros(4)
    tmp = W[6][0]
    # typed like the arguments of a call from Python: a literal constant would compile every kernel again
    cfr = np.int64(MODE_CFR)
    from_regret = np.int64(SOURCE_REGRET)
    from_table = np.int64(SOURCE_TABLE)
    for t in range(t0 + 1, t0 + n_iter + 1):
        factors[0] = discount_factor(t, alpha, alpha_kind)
        factors[1] = discount_factor(t, beta, beta_kind)
        factors[2] = average_decay(t, delay, gamma, reset_base)
        factors[3] = t
        if alternating:
            for p in range(2):
                traverse(p, cfr, from_regret, predictive, parallel, T, L, S, E, hands, factors, W,
                         assign_ptr, assign, slots, slot_of, out, best)
        else:
            fill_strategies(from_regret, predictive, T, L, S, hands, S[3], tmp)
            for p in range(2):
                traverse(p, cfr, from_table, predictive, parallel, T, L, S, E, hands, factors, W,
                         assign_ptr, assign, slots, slot_of, out, best)

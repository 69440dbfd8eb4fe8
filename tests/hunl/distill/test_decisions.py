"""Decision features against a brute-force computation from their definitions (7-card evaluation, loops)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill.decisions import (
    RIVER_FEATURES,
    STRONG_EQUITY,
    DecisionContext,
    node_features,
    reach_probabilities,
)
from hunl.distill.policy import CheckCall, UniformRandom, play
from hunl.poker.cards import COMBO_CARDS
from hunl.poker.evaluator import evaluate7
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


def _score(board, a, b):
    sa = evaluate7(list(board) + list(COMBO_CARDS[a]))
    sb = evaluate7(list(board) + list(COMBO_CARDS[b]))
    return 1.0 if sa > sb else 0.5 if sa == sb else 0.0


def _disjoint(*combos):
    cards = [c for k in combos for c in COMBO_CARDS[k]]
    return len(set(cards)) == len(cards)


def _equity(board, combo, weights):
    """Brute force: sum_o w(o) score / sum_o w(o) over opponent combos sharing no card with ``combo``."""
    num = den = 0.0
    for o in np.flatnonzero(weights > 0):
        if not _disjoint(combo, o):
            continue
        num += weights[o] * _score(board, combo, o)
        den += weights[o]
    return num / den if den > 0 else np.nan


@pytest.fixture(scope="module")
def game():
    return HoldemEndgame("Ks7d2c9hTs", ["KK,99,AQs,QJs,A7o", "AA,77,KQs,T8s,JTo"], pot=600, stack=1800,
                         bet_sizes=SIZES, raise_cap=1)


@pytest.mark.parametrize("chooser", [CheckCall(), UniformRandom()])
def test_features_equal_a_brute_force_computation(game, chooser):
    g = game
    probs = play(g, chooser).probs
    ctx = DecisionContext(g)
    reach = reach_probabilities(g, probs)
    feats = node_features(g, ctx, np.arange(ctx.nodes.size), reach)
    board = g.board
    uniform_w = np.array([1.0 if _disjoint(k) and not set(COMBO_CARDS[k]) & set(board) else 0.0
                          for k in range(1326)])
    uni = {}
    rng = np.random.default_rng(0)
    checked = 0
    for k in rng.permutation(ctx.nodes.size):
        n = ctx.nodes[k]
        p = int(ctx.player[k])
        o = 1 - p
        opp_w = np.zeros(1326)
        opp_w[g.combos[o]] = g.weights[o, g.combos[o]] * reach[o, n, :g.num_hands[o]]
        own_w = np.zeros(1326)
        own_w[g.combos[p]] = g.weights[p, g.combos[p]] * reach[p, n, :g.num_hands[p]]
        if opp_w.sum() == 0 or own_w.sum() == 0:  # a node the policy never reaches: features are NaN
            assert np.all(np.isnan(feats[k][:, 0])) or np.all(np.isnan(feats[k][:, 2]))
            continue
        if checked == 4:
            break
        checked += 1
        for c in list(g.combos[o]) + list(g.combos[p]):
            if c not in uni:
                uni[c] = _equity(board, c, uniform_w)
        strong_opp = sum(opp_w[c] for c in g.combos[o] if uni[c] >= STRONG_EQUITY) / opp_w.sum()
        strong_own = sum(own_w[c] for c in g.combos[p] if uni[c] >= STRONG_EQUITY) / own_w.sum()
        eqs = {c: _equity(board, c, opp_w) for c in g.combos[p]}
        range_eq = sum(own_w[c] * eqs[c] for c in g.combos[p]) / sum(own_w[c] for c in g.combos[p])
        b = ctx.public[k, 0]
        for h in rng.choice(g.num_hands[p], size=5, replace=False):
            c = g.combos[p][h]
            row = dict(zip(RIVER_FEATURES, feats[k][h]))
            assert row["equity"] == pytest.approx(eqs[c], abs=1e-9)
            assert row["equity_uniform"] == pytest.approx(uni[c], abs=1e-9)
            assert row["percentile"] == pytest.approx(_equity(board, c, own_w), abs=1e-9)
            assert row["opp_strong"] == pytest.approx(strong_opp, abs=1e-9)
            assert row["own_strong"] == pytest.approx(strong_own, abs=1e-9)
            assert row["range_equity"] == pytest.approx(range_eq, abs=1e-9)
            assert row["equity_margin"] == pytest.approx(eqs[c] - b / (1 + 2 * b), abs=1e-9)
            assert row["in_position"] == p
    assert checked >= 2  # always check/call reaches only the root and the check


def test_public_features_from_the_betting(game):
    """facing_bet, spr and opponent bets along every path, recomputed from the action labels."""
    g = game
    t = g.tree
    ctx = DecisionContext(g)
    cap = g.pot / 2 + g.config.stack
    for k, n in enumerate(ctx.nodes):
        p = int(ctx.player[k])
        c = g.betting.contributions[n]
        to_call = c[1 - p] - c[p]
        pot = c.sum()
        facing_bet, spr, opp_bets, opp_prev, pos = ctx.public[k]
        assert facing_bet == pytest.approx(to_call / (pot - to_call) if to_call > 0 else 0.0)
        assert spr == pytest.approx((cap - max(c)) / (pot + to_call))
        path, m = [], n
        while m > 0:
            par = t.parent[m]
            path.append((int(t.player[par]), t.action[m]))
            m = par
        aggressive = sum(1 for who, a in path if who == 1 - p and a.split(" ")[0] in ("bet", "raise", "all-in"))
        assert opp_bets == aggressive and opp_prev == 0 and pos == p


@pytest.mark.parametrize("opponent_start", [False, True])
def test_nodes_read_together_equal_nodes_read_alone(monkeypatch, opponent_start):
    """Turn and river nodes of both players on many boards, read in one call in chunks of 7 (a board's nodes
    cut between chunks) under random reach, are the nodes read one at a time with a fresh context: the range
    features of the equity kernels bit for bit, the shares of strong hands to rounding (numpy sums a batch's rows
    in another order than one row)."""
    import hunl.distill.decisions as D

    g = HoldemEndgame("Ks7d2c9h", ["KK,99,AQs,QJs", "AA,77,KQs,T8s"], pot=600, stack=900, bet_sizes=SIZES,
                      raise_cap=1)
    ctx = DecisionContext(g)
    rng = np.random.default_rng(3)
    reach = rng.random((2, g.tree.n_nodes, g.max_hands))
    reach[:, rng.random(g.tree.n_nodes) < 0.2] = 1.0          # some nodes share ranges, on a board and across
    which = rng.permutation(ctx.nodes.size)[:120]
    assert len(np.unique(ctx.boards[which])) > 20 and set(ctx.street[which]) == {4, 5}
    monkeypatch.setattr(D, "FEATURE_CHUNK", 7)
    together = node_features(g, ctx, which, reach, opponent_start)
    for k, X in zip(which, together):
        alone = node_features(g, DecisionContext(g), np.array([k]), reach, opponent_start)[0]
        shares = [RIVER_FEATURES.index("opp_strong"), RIVER_FEATURES.index("own_strong")]
        exact = [i for i in range(X.shape[1]) if i not in shares]          # the deciles too on the turn
        np.testing.assert_array_equal(X[:, exact], alone[:, exact])
        np.testing.assert_allclose(X, alone, rtol=0, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2 ** 31))
def test_distinct_rows_within_groups_on_some_columns(n_rows, n_distinct, n_groups, seed):
    """Rows are the same when their group and their chosen columns are; the index rebuilds those columns."""
    from hunl.distill.decisions import _distinct_rows

    rng = np.random.default_rng(seed)
    cols = np.array([0, 2, 5])
    w = np.zeros((n_rows, 7))
    w[:, cols] = rng.random((n_distinct, 3))[rng.integers(0, n_distinct, size=n_rows)]
    group = rng.integers(0, n_groups, size=n_rows)
    uniq, inv = _distinct_rows(w, group, cols)
    np.testing.assert_array_equal(uniq[inv], w)
    keys = {(int(g), r.tobytes()) for g, r in zip(group, w)}
    assert uniq.shape[0] == len(keys)
    assert all(group[i] == group[j] for i in range(n_rows) for j in range(n_rows) if inv[i] == inv[j])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.integers(0, 2 ** 31))
def test_distinct_rows_rebuild_the_input(n_rows, n_distinct, seed):
    """``_distinct_rows``: each distinct row once, in order of first appearance, and an index that rebuilds
    the input exactly (the range features are then computed once per distinct range)."""
    from hunl.distill.decisions import _distinct_rows

    rng = np.random.default_rng(seed)
    pool = rng.random((n_distinct, 7))
    w = pool[rng.integers(0, n_distinct, size=n_rows)]
    uniq, inv = _distinct_rows(w)
    np.testing.assert_array_equal(uniq[inv], w)
    assert len({r.tobytes() for r in uniq}) == uniq.shape[0] == len({r.tobytes() for r in w})
    firsts = [int(np.flatnonzero((w == r).all(axis=1))[0]) for r in uniq]
    assert firsts == sorted(firsts)


@pytest.mark.parametrize("opponent_start", [True, False])
def test_features_read_from_the_context_memo_equal_a_fresh_computation(opponent_start):
    """A context keeps the range features of every range it has seen (the opponent's starting range, read again at
    every depth of an own-range card's play): features computed through a context that already holds them equal,
    bit for bit, those of a fresh context, on a turn endgame (equity over the river cards and the decile
    histograms) for two different policies in turn."""
    g = HoldemEndgame("Ks7d2c9h", ["KK,99,AQs,QJs", "AA,77,KQs,T8s"], pot=600, stack=1200,
                      bet_sizes=SIZES, raise_cap=1)
    shared = DecisionContext(g)
    which = np.arange(shared.nodes.size)
    sizes = []
    for chooser in (CheckCall(), UniformRandom(), CheckCall()):
        reach = reach_probabilities(g, play(g, chooser).probs)
        fresh = node_features(g, DecisionContext(g), which, reach, opponent_start=opponent_start)
        memo = node_features(g, shared, which, reach, opponent_start=opponent_start)
        assert len(fresh) == len(memo) == which.size
        for a, b in zip(fresh, memo):
            np.testing.assert_array_equal(a, b)
        sizes.append(len(shared.memo))
    assert {k[0] for k in shared.memo} == {"equity", "deciles", "uniform"}
    # the third policy repeats the first: nothing new to compute; the second adds ranges only when the opponent's
    # range is read at the node (with his starting range, one range per board and seat, all seen at once)
    assert sizes[2] == sizes[1]
    assert sizes[1] == sizes[0] if opponent_start else sizes[1] > sizes[0]
    boards = len({int(b) for b in shared.boards})
    assert sum(k[0] == "uniform" for k in shared.memo) == boards


def test_a_full_memo_keeps_no_more_and_changes_no_feature(game, monkeypatch):
    import hunl.distill.decisions as decisions

    reach = reach_probabilities(game, play(game, UniformRandom()).probs)
    full = DecisionContext(game)
    which = np.arange(full.nodes.size)
    expected = node_features(game, full, which, reach)
    monkeypatch.setattr(decisions, "MEMO_BYTES", 3 * 1326 * 8)  # three equity rows
    small = DecisionContext(game)
    got = node_features(game, small, which, reach)
    assert len(small.memo) == 3 and small.memo_bytes == 3 * 1326 * 8 < full.memo_bytes
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)

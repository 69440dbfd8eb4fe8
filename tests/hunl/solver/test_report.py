"""Per-hand EV and equity at decision nodes (:mod:`hunl.solver.report`) against an independent recursion over the
public tree with the rule-level payoffs (:meth:`HoldemEndgame.payoff`), and equity against a direct enumeration
with the 7-card evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.tree import CHANCE, DECISION, TERMINAL
from hunl.poker.cards import COMBO_CARDS
from hunl.poker.evaluator import evaluate7
from hunl.solver.game import HoldemEndgame
from hunl.solver.report import action_ev, hand_equity
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

RIVER = "Ks7d2c4h9s"


def river_game(**kw):
    return HoldemEndgame(RIVER, ["AA,77,QJs,65s,K9s", "KK,QQ,AK,T9s,98s"], pot=100, stack=150,
                         bet_sizes=BetSizes(bets=(0.5,), raises=(1.0,), all_in=True), raise_cap=1,
                         dtype="float64", **kw)


def turn_game(**kw):
    return HoldemEndgame("Ks7d2c4h", ["AhAd,7s7h,QhJh,6s5s", "KhKd,AsKc,Th9h,9s8s"], pot=100, stack=100,
                         bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0, dtype="float64",
                         **kw)


_SOLVED: dict = {}


def solved(make, **kw):
    key = (make.__name__, tuple(sorted(kw.items())))
    if key not in _SOLVED:
        _SOLVED[key] = solve_endgame(make(**kw), "dcfr", iterations=60)
    return _SOLVED[key]


def _brute_force_pair_values(g, probs, p):
    """``V[n]`` for every node: ``(H_p, H_o)`` expected payoff to ``p`` of each pair of hands given the node is
    reached, both following ``probs`` below it; chance averages over the cards left given the pair (no use of
    ``game.chance`` or the evaluator)."""
    t = g.tree
    o = 1 - p
    cp = COMBO_CARDS[g.combos[p]]
    co = COMBO_CARDS[g.combos[o]]
    hp, ho = g.num_hands[p], g.num_hands[o]
    memo = {}

    def rec(n):
        if t.kind[n] == TERMINAL:
            board = g.boards[t.board[n]]
            m = np.zeros((hp, ho))
            for i in range(hp):
                if np.isin(cp[i], board).any():
                    continue
                for j in range(ho):
                    if np.isin(co[j], board).any() or np.isin(cp[i], co[j]).any():
                        continue
                    a, b = (i, j) if p == 0 else (j, i)
                    m[i, j] = g.payoff(n, a, b, player=p)
            memo[n] = m
            return m
        kids = list(t.children(n))
        vals = [rec(c) for c in kids]
        if t.kind[n] == DECISION:
            if t.player[n] == p:
                m = sum(probs[c, :hp][:, None] * v for c, v in zip(kids, vals))
            else:
                m = sum(probs[c, :ho][None, :] * v for c, v in zip(kids, vals))
        else:
            assert t.kind[n] == CHANCE
            num = np.zeros((hp, ho))
            cnt = np.zeros((hp, ho))
            for c, v in zip(kids, vals):
                card = g.boards[t.board[c]][-1]
                ok = (cp != card).all(axis=1)[:, None] & (co != card).all(axis=1)[None, :]
                num += ok * v
                cnt += ok
            m = np.where(cnt > 0, num / np.maximum(cnt, 1), 0.0)
        memo[n] = m
        return m

    rec(0)
    return memo


def _opp_reach(g, probs, n, o):
    t = g.tree
    r = np.ones(g.num_hands[o])
    c = n
    while c != 0:
        pa = int(t.parent[c])
        if t.kind[pa] == DECISION and t.player[pa] == o:
            r = r * probs[c, :g.num_hands[o]]
        c = pa
    return r


@pytest.mark.parametrize("make", [river_game, turn_game])
def test_action_and_hand_ev_match_brute_force(make):
    sol = solved(make)
    g = sol.game
    t = g.tree
    probs = sol.result.policy.probs
    ev_edges = action_ev(sol)
    checked = other_checked = 0
    VV = [_brute_force_pair_values(g, probs, q) for q in (0, 1)]
    for p in (0, 1):
        o = 1 - p
        V = VV[p]
        nodes = t.decision_nodes(p)
        for n in nodes[:: max(1, nodes.size // 25)]:
            n = int(n)
            board = g.boards[t.board[n]]
            cp = COMBO_CARDS[g.combos[p]]
            co = COMBO_CARDS[g.combos[o]]
            compat = (~(cp[:, None, :, None] == co[None, :, None, :]).any(axis=(2, 3))
                      & ~np.isin(cp, board).any(axis=1)[:, None] & ~np.isin(co, board).any(axis=1)[None, :])
            x = g.weights[o, g.combos[o]] * _opp_reach(g, probs, n, o)
            den = compat @ x
            rep = sol.node_report(n, equity=False)
            frame = rep.frame.set_index("combo")
            kids = list(t.children(n))
            for i in range(g.num_hands[p]):
                if den[i] <= 1e-12:
                    continue
                label = g.hand_labels(p)[i]
                expect_a = [(compat[i] * x) @ V[c][i] / den[i] for c in kids]
                np.testing.assert_allclose(ev_edges[kids, i], expect_a, rtol=0, atol=1e-6)
                np.testing.assert_allclose([frame.loc[label, f"ev:{t.action[c]}"] for c in kids], expect_a,
                                           rtol=0, atol=1e-6)
                assert frame.loc[label, "ev"] == pytest.approx((compat[i] * x) @ V[n][i] / den[i], abs=1e-6)
                checked += 1
            # the player who does not act: his EV from his own recursion, weighted by the actor's reach
            y = g.weights[p, g.combos[p]] * _opp_reach(g, probs, n, p)
            den_o = compat.T @ y
            other = rep.other.set_index("combo")
            for j, label in enumerate(g.hand_labels(o)):
                if den_o[j] <= 1e-12:
                    continue
                assert other.loc[label, "ev"] == pytest.approx((compat.T[j] * y) @ VV[o][n][j] / den_o[j],
                                                               abs=1e-6)
                other_checked += 1
    assert checked > 50 and other_checked > 50


def test_range_ev_at_the_root_is_the_game_value_and_fold_ev_is_minus_the_contribution():
    for kw in ({}, {"rake_rate": 0.05, "rake_cap": 4}):
        sol = solved(river_game, **kw)
        g = sol.game
        t = g.tree
        rep = sol.node_report(0, equity=False)
        assert rep.range_ev == pytest.approx(sol.value_chips, abs=1e-9)
        # player 2's range EV at the root is his value (minus player 1's without rake)
        assert rep.other_range_ev == pytest.approx(sol.result.exploitability.policy_values[1], abs=1e-9)
        # at every node the two ranges' EVs sum to minus the rake, which the cap fixes at 4 chips here (every
        # pot is at least 100 and 5% of it at least 5)
        rake = g.terminal_rake()
        common = 0.0 if rake is None else 4.0
        assert rake is None or np.all(rake[t.terminal_nodes] == 4.0)
        for n in np.flatnonzero(t.kind == DECISION):
            r = sol.node_report(int(n), equity=False)
            if r.reach_probability > 1e-9:
                assert r.range_ev + r.other_range_ev == pytest.approx(-common, abs=1e-7)
        assert rep.reach_probability == pytest.approx(1.0, abs=1e-12)
        for n in t.terminal_nodes:
            if t.action[n] != "fold":
                continue
            pa = int(t.parent[n])
            q = int(t.player[pa])
            folder_in = g.betting.contributions[pa, q]
            ev = action_ev(sol)[n, :g.num_hands[q]]
            ev = ev[np.isfinite(ev)]
            assert ev.size and np.allclose(ev, -folder_in, atol=1e-9)


def test_float32_storage_gives_the_same_evs():
    g32 = HoldemEndgame(RIVER, ["AA,77,QJs,65s,K9s", "KK,QQ,AK,T9s,98s"], pot=100, stack=150,
                        bet_sizes=BetSizes(bets=(0.5,), raises=(1.0,), all_in=True), raise_cap=1)
    sol32 = solve_endgame(g32, "dcfr", iterations=60)
    ev32 = action_ev(sol32)
    assert ev32.dtype == np.float32
    rep = sol32.node_report(0, equity=False)
    assert rep.range_ev == pytest.approx(sol32.value_chips, rel=1e-5, abs=1e-4)
    t = g32.tree
    for n in t.terminal_nodes:
        if t.action[n] == "fold":
            pa = int(t.parent[n])
            q = int(t.player[pa])
            ev = ev32[n, :g32.num_hands[q]]
            ev = ev[np.isfinite(ev)]
            np.testing.assert_allclose(ev, -g32.betting.contributions[pa, q], rtol=1e-5)


def _direct_equity(g, board, p, x):
    """Equity by enumeration with :func:`hunl.poker.evaluator.evaluate7` pair by pair (and river card)."""
    o = 1 - p
    cp = COMBO_CARDS[g.combos[p]]
    co = COMBO_CARDS[g.combos[o]]
    out = np.full(g.num_hands[p], np.nan)
    for i in range(g.num_hands[p]):
        if np.isin(cp[i], board).any():
            continue
        num = den = 0.0
        for j in range(g.num_hands[o]):
            if np.isin(co[j], board).any() or np.isin(cp[i], co[j]).any() or x[j] == 0:
                continue
            rivers = [c for c in range(52) if c not in board and c not in cp[i] and c not in co[j]]
            if len(board) == 5:
                rivers = [None]
            s = 0.0
            for c in rivers:
                full = tuple(board) + (() if c is None else (c,))
                a = evaluate7(full + tuple(int(k) for k in cp[i]))
                b = evaluate7(full + tuple(int(k) for k in co[j]))
                s += 1.0 if a > b else 0.5 if a == b else 0.0
            num += x[j] * s / len(rivers)
            den += x[j]
        if den > 0:
            out[i] = num / den
    return out


@pytest.mark.parametrize("make, history", [(river_game, "bet 50"), (turn_game, "check")])
def test_equity_matches_direct_enumeration(make, history):
    sol = solved(make)
    g = sol.game
    n = g.tree.node(history)
    p = int(g.tree.player[n])
    rep = sol.node_report(n)
    probs = sol.result.policy.probs
    x = g.weights[1 - p, g.combos[1 - p]] * _opp_reach(g, probs, n, 1 - p)
    direct = _direct_equity(g, g.boards[g.tree.board[n]], p, x)
    frame = rep.frame.set_index("combo")
    labels = g.hand_labels(p)
    for i, lab in enumerate(labels):
        if np.isfinite(direct[i]):
            assert frame.loc[lab, "equity"] == pytest.approx(direct[i], abs=1e-12)
    # the range's equity and the opponent's at the root sum to 1 (win + loss + ties, both sides)
    root = sol.node_report(0)
    opp = hand_equity(g, 0, 1, g.prior[0, :g.num_hands[0]])
    w1 = g.prior[1, :g.num_hands[1]]
    assert np.isfinite(root.range_equity)
    mass0 = root.frame["weight"].to_numpy()
    assert mass0.shape[0] == g.num_hands[0]
    # the pair-weighted equities of both players sum to 1
    cp = COMBO_CARDS[g.combos[0]]
    co = COMBO_CARDS[g.combos[1]]
    compat = ~(cp[:, None, :, None] == co[None, :, None, :]).any(axis=(2, 3))
    joint0 = g.prior[0, :g.num_hands[0]] * (compat @ w1)
    joint1 = w1 * (g.prior[0, :g.num_hands[0]] @ compat)
    e0 = hand_equity(g, 0, 0, w1)
    assert joint0 @ e0 / joint0.sum() + joint1 @ opp / joint1.sum() == pytest.approx(1.0, abs=1e-12)
    assert joint0 @ e0 / joint0.sum() == pytest.approx(root.range_equity, abs=1e-12)


def test_bad_nodes_and_inputs():
    sol = solved(river_game)
    t = sol.game.tree
    with pytest.raises(ValueError, match="not a decision node"):
        sol.node_report(int(t.terminal_nodes[0]))
    with pytest.raises(ValueError, match="opp_weight must have shape"):
        hand_equity(sol.game, 0, 0, np.ones(3))
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        hand_equity(sol.game, 0, 2, np.ones(3))


# ---------------------------------------------------------------------------------------------- files
@pytest.mark.parametrize("make", [river_game, turn_game])
def test_files_hold_the_node_reports(tmp_path, make):
    import json

    import pandas as pd

    from hunl.solver.output import write_outputs

    sol = solved(make)
    g = sol.game
    files = write_outputs(sol, tmp_path, plot=make is river_game, full_json=True)
    table = pd.read_parquet(files.parquet)
    for col in ("ev", "hand_ev", "equity"):
        assert table[col].dtype == np.float32
    data = json.loads(files.json.read_text())
    by_node = {d["node"]: d for d in data["nodes"]}
    start = len(g.board)
    for node, rows in table.groupby("node", sort=True):
        rep = sol.node_report(int(node)).frame.set_index("combo")
        combos = rows["combo"].astype(str).to_numpy()
        actions = rows["action"].astype(str).to_numpy()
        expect = np.array([rep.loc[c, f"ev:{a}"] for c, a in zip(combos, actions)])
        np.testing.assert_allclose(rows["ev"].to_numpy(), expect, rtol=1e-6, atol=1e-4)
        on_start = g.betting.street[node] == start
        hand_ev = np.array([rep.loc[c, "ev"] for c in combos])
        np.testing.assert_allclose(rows["hand_ev"].to_numpy(), hand_ev, rtol=1e-6, atol=1e-4)
        eq = rows["equity"].to_numpy()
        if on_start:
            np.testing.assert_allclose(eq, [rep.loc[c, "equity"] for c in combos], rtol=1e-6, atol=1e-6)
        else:
            assert np.isnan(eq).all()
        js = by_node[int(node)]
        for c in set(combos):
            got = [np.nan if x is None else x for x in js["ev"][c]]
            want = [rep.loc[c, f"ev:{a}"] for a in js["actions"]]
            np.testing.assert_allclose(got, want, atol=1e-3 * 0.5 + 1e-9)
            assert ("equity" in js) == bool(on_start)
            assert js["hand_ev"][c] == pytest.approx(rep.loc[c, "ev"], abs=5e-4)
            if on_start:
                assert js["equity"][c] == pytest.approx(rep.loc[c, "equity"], abs=5e-5)
    if make is river_game:
        assert (tmp_path / "first_decision_ev.png").stat().st_size > 1000

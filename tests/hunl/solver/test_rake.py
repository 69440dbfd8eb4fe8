"""Rake (rate and cap) in the terminal payoffs of a HUNL endgame: the compiled card-showdown evaluator against the
rules (:meth:`HoldemEndgame.payoff`, pair by pair), hand-worked amounts, the unraked path unchanged, and the
NashConv of a non-zero-sum game against a brute-force recursion over the tree."""

from __future__ import annotations

import numpy as np
import pytest

from games.core import Policy, exploitability, solve_cfr
from games.core.best_response import engine_for
from games.core.traversal import MODE_EXPECTED
from games.core.tree import DECISION, TERMINAL
from hunl.poker.cards import COMBO_CARDS
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

SMALL = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)
RIVER = "Ks7d2c4h9s"
R1 = "AA,KK,77,AK,KQs,QJs,T8s,65s,A5s"
R2 = "KK,QQ,JJ,AK,KQ,QJs,T9s,87s,J8s"


def river_spot(**kw):
    args = dict(pot=100, stack=200, bet_sizes=SMALL, raise_cap=1, dtype="float64", rake_rate=0.05, rake_cap=12)
    args.update(kw)
    return HoldemEndgame(RIVER, [R1, R2], **args)


def turn_spot(**kw):
    args = dict(pot=100, stack=100, bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0,
                dtype="float64", rake_rate=0.05, rake_cap=7)
    args.update(kw)
    return HoldemEndgame("Ks7d2c4h", ["AA,77,QJs", "KK,AK,T9s"], **args)


def _pairs(g):
    c0, c1 = (COMBO_CARDS[g.combos[p]] for p in (0, 1))
    compat = ~(c0[:, None, :, None] == c1[None, :, None, :]).any(axis=(2, 3))
    w = [g.weights[p, g.combos[p]] for p in (0, 1)]
    return compat, w


_MATRICES: dict = {}


def _reference_matrix(g, n, p, compat, w):
    """``(H_p, H_opp)``: deal probability times the rule-level payoff to ``p`` (:meth:`HoldemEndgame.payoff`) of
    every pair of hands at terminal ``n``, with explicit card removal (cached per game, node and player)."""
    key = (id(g), n, p)
    if key not in _MATRICES:
        board = g.boards[g.tree.board[n]]
        cards = [COMBO_CARDS[g.combos[q]] for q in (0, 1)]
        m = np.zeros((g.num_hands[p], g.num_hands[1 - p]))
        for i in range(g.num_hands[p]):
            if np.isin(cards[p][i], board).any():
                continue
            for j in range(g.num_hands[1 - p]):
                a, b = (i, j) if p == 0 else (j, i)
                if not compat[a, b] or np.isin(cards[1 - p][j], board).any():
                    continue
                m[i, j] = (w[p][i] * w[1 - p][j] / g.normaliser * g.chance[g.tree.board[n]]
                           * g.payoff(n, a, b, player=p))
        _MATRICES[key] = (g, m)
    return _MATRICES[key][1]


def _reference_values(g, n, p, r, compat, w):
    """Counterfactual values at terminal ``n`` from the rules, pair by pair."""
    return _reference_matrix(g, n, p, compat, w) @ r


# ---------------------------------------------------------------------------------------------- terminal values
@pytest.mark.parametrize("make", [river_spot, turn_spot])
def test_raked_evaluator_equals_the_rules_pair_by_pair(make):
    g = make()
    rake = g.terminal_rake()
    terms = g.tree.terminal_nodes
    # the cap binds at some terminals and not at others
    assert np.any(rake[terms] < g.rake_cap) and np.any(rake[terms] == g.rake_cap)
    compat, w = _pairs(g)
    rng = np.random.default_rng(1)
    for n in terms[:: max(1, terms.size // 40)]:
        for p in (0, 1):
            r = rng.random(g.num_hands[1 - p])
            ref = _reference_values(g, n, p, r, compat, w)
            np.testing.assert_allclose(g.values(n, p, r), ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())


def test_hand_worked_amounts():
    # pot 100 (50 each), rate 5%, cap 3 chips; player 1 bets 30 (contributions 80 / 50), player 2 raises, player 1
    # folds: the pot after the uncalled raise is returned is 160, the rake min(8, 3) = 3
    g = HoldemEndgame(RIVER, ["AhAd", "QhQd"], pot=100, stack=300, bet_sizes=BetSizes(bets=(0.3,), raises=(1.0,),
                      all_in=False), raise_cap=1, dtype="float64", rake_rate=0.05, rake_cap=3)
    t = g.tree
    fold = t.node("bet 30/raise to 190/fold")
    assert tuple(g.betting.contributions[fold]) == (80.0, 240.0)
    assert g.terminal_rake()[fold] == 3.0
    assert g.payoff(fold, 0, 0, player=0) == -80.0
    assert g.payoff(fold, 0, 0, player=1) == 80.0 - 3.0
    # check-check: pot 100, rake min(5, 3) = 3: the winner (AA) gets 50 - 3, the loser -50
    show = t.node("check/check")
    assert g.payoff(show, 0, 0, player=0) == 47.0 and g.payoff(show, 0, 0, player=1) == -50.0
    # a split (both play the royal flush on the board): each pays half the rake, 1.5
    g2 = HoldemEndgame("AsKsQsJsTs", ["2c2d", "3c3d"], pot=100, stack=300, bet_sizes=BetSizes(bets=(0.3,),
                       raises=(), all_in=False), raise_cap=0, dtype="float64", rake_rate=0.05, rake_cap=3)
    show2 = g2.tree.node("check/check")
    assert g2.payoff(show2, 0, 0, player=0) == -1.5 and g2.payoff(show2, 0, 0, player=1) == -1.5
    np.testing.assert_allclose(g2.values(show2, 0, np.ones(1)), [-1.5])
    np.testing.assert_allclose(g2.values(show2, 1, np.ones(1)), [-1.5])
    # one hand each: the compiled values are the payoffs
    for n in t.terminal_nodes:
        for p in (0, 1):
            assert g.values(n, p, np.ones(1))[0] == pytest.approx(g.payoff(n, 0, 0, player=p), abs=1e-12)
    # without a cap: rake 5% of 160 = 8
    g3 = HoldemEndgame(RIVER, ["AhAd", "QhQd"], pot=100, stack=300, bet_sizes=BetSizes(bets=(0.3,), raises=(1.0,),
                       all_in=False), raise_cap=1, dtype="float64", rake_rate=0.05)
    assert g3.payoff(fold, 0, 0, player=1) == 80.0 - 8.0


def test_no_rake_leaves_the_solver_bitwise_unchanged():
    base = solve_cfr(river_spot(rake_rate=0.0), "dcfr", iterations=30)
    for kw in (dict(rake_rate=0.0, rake_cap=5.0), dict(rake_rate=0.05, rake_cap=0.0)):
        g = river_spot(**kw)
        assert g.terminal_rake() is None
        res = solve_cfr(g, "dcfr", iterations=30)
        assert np.array_equal(res.strategy, base.strategy)
        assert res.exploitability == base.exploitability
    assert base.exploitability.policy_values[1] == -base.exploitability.policy_values[0]


# ---------------------------------------------------------------------------------------------- exploitability
def _brute_force(g, probs, player, best):
    """Best-response (``best``) or expected value of ``player`` by recursion over the public tree, with the
    rule-level payoffs (:meth:`HoldemEndgame.payoff`) pair by pair -- no kernels, no sorting."""
    t = g.tree
    compat, w = _pairs(g)
    h_me, h_opp = g.num_hands[player], g.num_hands[1 - player]

    def rec(n, own, opp):
        if t.kind[n] == TERMINAL:
            v = _reference_values(g, n, player, opp, compat, w)
            return v
        kids = t.children(n)
        if t.kind[n] == DECISION and t.player[n] == 1 - player:
            return sum(rec(c, own, opp * probs[c, :h_opp]) for c in kids)
        if t.kind[n] == DECISION:
            vals = [rec(c, own, opp) for c in kids]
            if best:
                return np.max(vals, axis=0)
            return sum(probs[c, :h_me] * v for c, v in zip(kids, vals))
        return sum(rec(c, own, opp) for c in kids)

    return float(rec(0, np.ones(h_me), np.ones(h_opp)).sum())


def test_raked_nashconv_agrees_with_brute_force():
    g = HoldemEndgame(RIVER, ["AA,77,QJs,65s", "KK,QQ,AK,T9s"], pot=100, stack=100,
                      bet_sizes=BetSizes(bets=(1.0,), raises=(1.0,), all_in=False), raise_cap=1, dtype="float64",
                      rake_rate=0.05, rake_cap=6)
    policy = Policy.random(g, rng=3)
    res = exploitability(g, policy)
    br = [_brute_force(g, policy.probs, p, True) for p in (0, 1)]
    u = [_brute_force(g, policy.probs, p, False) for p in (0, 1)]
    np.testing.assert_allclose(res.best_response_values, br, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.policy_values, u, rtol=0, atol=1e-9)
    # the rake leaves the table: the values sum to minus the expected rake, < 0
    assert u[0] + u[1] < -0.1
    assert res.nash_conv == pytest.approx(br[0] - u[0] + br[1] - u[1], abs=1e-9)
    assert res.exploitability == pytest.approx(res.nash_conv / 2, abs=1e-12)
    assert all(d >= -1e-9 for d in res.deviation_gains)


def test_solved_raked_game_exploitability_goes_to_zero():
    g = river_spot()
    short = solve_endgame(g, "dcfr", iterations=10)
    long = solve_endgame(g, "dcfr", iterations=400)
    assert long.exploitability_chips < short.exploitability_chips
    assert 0 <= long.exploitability_pct_pot < 0.1
    ex = long.result.exploitability
    # the log's last entry is the same NashConv / 2
    assert long.result.log_exploitability[-1] == pytest.approx(ex.exploitability, rel=1e-12)
    assert ex.policy_values[0] + ex.policy_values[1] < 0
    # the raked equilibrium differs from the unraked one
    free = solve_endgame(river_spot(rake_rate=0.0), "dcfr", iterations=400)
    assert abs(free.value_chips - long.value_chips) > 1e-3


def test_expected_values_of_both_players_sum_to_minus_the_rake():
    g = turn_spot()
    policy = Policy.random(g, rng=5)
    eng = engine_for(g)
    table = eng.from_edges(policy.probs)
    total = [eng.hand_values(p, MODE_EXPECTED, table).sum() for p in (0, 1)]
    assert total[0] + total[1] < 0
    assert total == pytest.approx([_brute_force(g, policy.probs, p, False) for p in (0, 1)], abs=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(rake_rate=1.0), "rake_rate must be in"),
    (dict(rake_rate=-0.01), "rake_rate must be in"),
    (dict(rake_rate=float("nan")), "rake_rate must be a number"),
    (dict(rake_rate="x"), "rake_rate must be a number"),
    (dict(rake_cap=-1.0), "rake_cap must be >= 0"),
    (dict(rake_cap=float("nan")), "rake_cap must be a number"),
])
def test_bad_rake_raises(kwargs, match):
    with pytest.raises(ValueError, match=match):
        river_spot(**kwargs)


# ---------------------------------------------------------------------------------------------- spots
def test_spot_file_rake_table():
    from hunl.solver.spot_files import parse_spot

    data = {"board": RIVER, "pot": 100, "stack": 200, "ranges": {"oop": R1, "ip": R2},
            "rake": {"rate": 0.05, "cap": 3}}
    spot = parse_spot(data)
    assert (spot.rake_rate, spot.rake_cap) == (0.05, 3.0)
    g = spot.game(dtype="float64")
    assert (g.rake_rate, g.rake_cap) == (0.05, 3.0) and g.terminal_rake().max() == 3.0
    assert spot.to_dict()["rake"] == {"rate": 0.05, "cap": 3.0}
    plain = parse_spot({k: v for k, v in data.items() if k != "rake"})
    assert plain.game().terminal_rake() is None and "rake" not in plain.to_dict()
    assert plain.info()["rake"] == {"rate": 0.0, "cap": None} and spot.info()["rake"] == {"rate": 0.05, "cap": 3.0}
    assert parse_spot(spot.to_dict()).rake_cap == 3.0
    assert parse_spot({**data, "rake": {"rate": 0.1}}).rake_cap == float("inf")
    with pytest.raises(ValueError, match="rake.rate must be in"):
        parse_spot({**data, "rake": {"rate": 1.5}})
    with pytest.raises(ValueError, match="rake.cap must be >= 0"):
        parse_spot({**data, "rake": {"rate": 0.05, "cap": -2}})
    with pytest.raises(ValueError, match="rake.cap"):
        parse_spot({**data, "rake": {"rate": 0.05, "caps": 3}})


def test_the_zero_sum_lp_refuses_a_raked_game():
    from games.core import solve_lp

    with pytest.raises(ValueError, match="zero-sum"):
        solve_lp(river_spot())


def test_raked_values_and_reports_agree_with_suit_isomorphism():
    kw = dict(pot=100, stack=100, bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0,
              dtype="float64", rake_rate=0.05, rake_cap=7)
    full = HoldemEndgame("Ks7s2c4c", ["AA,77,QJs,T9s", "KK,AK,JTs,98s"], **kw)
    iso = HoldemEndgame("Ks7s2c4c", ["AA,77,QJs,T9s", "KK,AK,JTs,98s"], isomorphism=True, **kw)
    assert iso.tree.n_nodes < full.tree.n_nodes
    a = solve_endgame(full, "dcfr", iterations=40)
    b = solve_endgame(iso, "dcfr", iterations=40)
    ea, eb = a.result.exploitability, b.result.exploitability
    np.testing.assert_allclose(eb.policy_values, ea.policy_values, rtol=1e-9)
    np.testing.assert_allclose(eb.best_response_values, ea.best_response_values, rtol=1e-9)
    ra, rb = a.node_report(0), b.node_report(0)
    np.testing.assert_allclose(rb.frame["ev"], ra.frame["ev"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(rb.frame["equity"], ra.frame["equity"], rtol=1e-12)
    assert rb.range_ev == pytest.approx(b.value_chips, abs=1e-9)

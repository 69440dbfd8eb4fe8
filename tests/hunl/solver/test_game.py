"""The HUNL endgame as a game of the solver core: sorted showdown vs dense payoffs vs the rules, DCFR vs the
sequence-form LP, best response vs a brute-force recursion, zero sum, suit symmetry, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import Policy, check_game, exploitability, solve_cfr, solve_lp
from games.core.best_response import engine_for
from games.core.traversal import MODE_EXPECTED
from games.core.tree import CHANCE, DECISION, TERMINAL, Game
from hunl.poker.cards import COMBO_CARDS, COMBO_INDEX, parse_cards
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

SMALL = BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True)
RIVER = "Ks7d2c4h9s"
R1 = "AA,KK,77,AK,KQs,QJs,T8s,65s,A5s"
R2 = "KK,QQ,JJ,AK,KQ,QJs,T9s,87s,J8s"


def river_spot(**kw):
    args = dict(pot=100, stack=200, bet_sizes=SMALL, raise_cap=1, dtype="float64")
    args.update(kw)
    return HoldemEndgame(RIVER, [R1, R2], **args)


def turn_spot(**kw):
    args = dict(pot=100, stack=100, bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0,
                dtype="float64")
    args.update(kw)
    return HoldemEndgame("Ks7d2c4h", ["AA,77,QJs", "KK,AK,T9s"], **args)


class DenseCopy(Game):
    """The same endgame through the generic dense evaluator (``H1 x H2`` matrices)."""

    def __init__(self, g: HoldemEndgame):
        self.name, self.tree, self.num_hands, self.pot = "dense", g.tree, g.num_hands, g.pot
        self.deal, self.showdown, self.big_blind = g.deal, g.showdown, g.big_blind
        self._g = g

    def payoff(self, node, i, j):
        return self._g.payoff(node, i, j)

    def hand_labels(self, p):
        return self._g.hand_labels(p)


# ---------------------------------------------------------------------------------------------- terminal values
@pytest.mark.parametrize("make", [river_spot, turn_spot])
def test_sorted_showdown_equals_dense_matrices(make):
    g = make()
    dense = DenseCopy(g)
    rng = np.random.default_rng(0)
    for n in g.tree.terminal_nodes:
        for p in (0, 1):
            r = rng.random(g.num_hands[1 - p])
            np.testing.assert_allclose(g.values(n, p, r), Game.values(dense, n, p, r), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("n_show, n_fold", [(3, 5), (0, 9), (9, 0), (8, 8), (1, 17), (31, 30)])
def test_card_evaluator_block_equals_one_terminal_at_a_time(n_show, n_fold):
    # one call over a block of showdowns and folds in the padded column layout (folds from column padded(n_show),
    # padding columns without payoff) gives each terminal's values of a call on that terminal alone, and writes
    # nothing to the padding columns' rows
    from games.core.engine import terminal_arrays
    from games.core.terminals import cards_block, padded, terminal_columns

    g = river_spot()
    t = g.tree
    shows = [n for n in t.terminal_nodes if t.showdown_stake[n] != 0]
    folds = [n for n in t.terminal_nodes if t.showdown_stake[n] == 0]
    terms = [shows[k % len(shows)] for k in range(n_show)] + [folds[k % len(folds)] for k in range(n_fold)]
    m = len(terms)
    k = terminal_columns(m)
    arrays = terminal_arrays(g)
    hm = g.max_hands
    rng = np.random.default_rng(n_show * 100 + n_fold)
    for p in (0, 1):
        ro = np.zeros((m + 1, hm))
        ro[:m, :g.num_hands[1 - p]] = rng.random((m, g.num_hands[1 - p]))
        v = np.full((m + 1, hm), 7.0)  # row m: the padding columns' row, never written
        rows = np.full(k, m, dtype=np.int64)
        coef = np.zeros((2, k))
        fold0 = padded(n_show)
        for i, n in enumerate(terms):
            c = i if i < n_show else fold0 + i - n_show
            rows[c] = i
            fv = arrays[5][n]
            coef[0, c] = arrays[6][n] if i < n_show else (fv if p == 0 else -fv)
        opp_row = np.where(rows == m, 0, rows)
        cards_block(p, int(t.board[terms[0]]), np.asarray(g.num_hands, dtype=np.int64), n_show, m, rows, opp_row,
                    coef, False, ro, v, g.terminal_evaluator()[2], np.zeros((hm, k)), np.zeros(k),
                    np.zeros((52, k)), np.zeros(k), np.zeros((52, k)), np.zeros((hm, k)))
        hp = g.num_hands[p]
        for i, n in enumerate(terms):
            one = g.values(n, p, ro[i, :g.num_hands[1 - p]])
            np.testing.assert_allclose(v[i, :hp] * g._scale[p, :hp], one, rtol=1e-12, atol=1e-14)
        assert np.all(v[m] == 7.0)


@settings(max_examples=60, deadline=None)
@given(n_show=st.integers(0, 200), n_fold=st.integers(0, 200))
def test_terminal_columns_hold_both_padded_groups(n_show, n_fold):
    from games.core.terminals import LANES, padded, terminal_columns

    need = padded(n_show) + padded(n_fold)
    assert need <= terminal_columns(n_show + n_fold) and need % LANES == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n_board=st.sampled_from([4, 5]))
def test_sorted_showdown_on_random_boards_and_ranges(seed, n_board):
    rng = np.random.default_rng(seed)
    cards = rng.permutation(52)
    board = tuple(int(c) for c in cards[:n_board])
    weights = rng.random((2, 1326)) * (rng.random((2, 1326)) < 0.03)
    conflict = np.isin(COMBO_CARDS, board).any(axis=1)
    weights[:, conflict] = 0.0
    weights[:, 0 if not conflict[0] else np.flatnonzero(~conflict)[0]] = 1.0  # never empty
    g = HoldemEndgame(board, weights, pot=10, stack=10, bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False),
                      raise_cap=0, dtype="float64")
    dense = DenseCopy(g)
    for n in g.tree.terminal_nodes[:: max(1, g.tree.terminal_nodes.size // 12)]:
        for p in (0, 1):
            r = rng.random(g.num_hands[1 - p])
            np.testing.assert_allclose(g.values(n, p, r), Game.values(dense, n, p, r), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", [river_spot, turn_spot])
def test_game_passes_the_interface_check(make):
    """Rule-level payoffs (7-card evaluation) agree with the arrays, chance partitions the deal."""
    report = check_game(make(), n_games=4000, seed=1)
    assert report.n_terminals > 0


def test_turn_chance_is_uniform_over_the_44_remaining_cards():
    g = turn_spot()
    chance = np.flatnonzero(g.tree.kind == CHANCE)
    assert chance.size > 0
    assert len(g.betting.river_cards) == 48
    np.testing.assert_allclose(g.chance[1:], 1 / 44)
    deal = g.deal
    for c in chance:
        kids = g.tree.children(c)
        np.testing.assert_allclose(deal[g.tree.board[kids.start:kids.stop]].sum(axis=0), deal[0], atol=1e-15)


# ---------------------------------------------------------------------------------------------- solving
def test_dcfr_value_equals_sequence_form_lp():
    g = river_spot()
    lp = solve_lp(g)
    res = solve_cfr(g, "dcfr", iterations=4000, target=1e-7 * g.pot, check_every=100)
    assert abs(res.value - lp.value) <= 1e-6 * g.pot
    assert exploitability(g, lp.policy).exploitability <= 1e-7 * g.pot


def test_dcfr_on_a_turn_spot_matches_the_lp():
    g = turn_spot()
    lp = solve_lp(g)
    res = solve_cfr(g, "dcfr", iterations=3000, target=1e-7 * g.pot, check_every=100)
    assert abs(res.value - lp.value) <= 1e-6 * g.pot


def test_float32_storage_converges_too():
    g32 = river_spot(dtype="float32")
    g64 = river_spot()
    lp = solve_lp(g64)
    res = solve_cfr(g32, "dcfr", iterations=1500, check_every=1500)
    assert res.policy.probs.dtype == np.float64
    assert abs(res.value - lp.value) <= 1e-3 * g32.pot
    assert res.exploitability.exploitability <= 1e-3 * g32.pot


def _brute_force_best_response(g: HoldemEndgame, probs: np.ndarray, player: int) -> float:
    """Best-response value of ``player`` by recursion over the public tree with the rule-level payoff
    (:meth:`HoldemEndgame.payoff`, 7-card evaluation) and explicit card removal -- no kernels, no sorting."""
    t = g.tree
    h_me, h_opp = g.num_hands[player], g.num_hands[1 - player]
    c_me = COMBO_CARDS[g.combos[player]]
    c_opp = COMBO_CARDS[g.combos[1 - player]]
    w_me = g.weights[player, g.combos[player]]
    w_opp = g.weights[1 - player, g.combos[1 - player]]
    compat = ~(c_me[:, None, :, None] == c_opp[None, :, None, :]).any(axis=(2, 3))
    z = float(w_me @ compat @ w_opp)
    sign = 1.0 if player == 0 else -1.0

    def rec(n, opp_reach):
        if t.kind[n] == TERMINAL:
            board = g.boards[t.board[n]]
            v = np.zeros(h_me)
            for i in range(h_me):
                if np.isin(c_me[i], board).any():
                    continue
                for j in range(h_opp):
                    if not compat[i, j] or np.isin(c_opp[j], board).any() or opp_reach[j] == 0:
                        continue
                    pay = g.payoff(n, i, j) if player == 0 else g.payoff(n, j, i)
                    v[i] += w_me[i] * w_opp[j] / z * g.chance[t.board[n]] * opp_reach[j] * sign * pay
            return v
        kids = t.children(n)
        if t.kind[n] == DECISION and t.player[n] == 1 - player:
            return sum(rec(c, opp_reach * probs[c, :h_opp]) for c in kids)
        vals = [rec(c, opp_reach) for c in kids]
        if t.kind[n] == DECISION:
            return np.max(vals, axis=0)
        return np.sum(vals, axis=0)

    return float(rec(0, np.ones(h_opp)).sum())


def test_best_response_agrees_with_brute_force():
    g = HoldemEndgame("Ks7d2c4h9s", ["AA,77,QJs,65s", "KK,QQ,AK,T9s"], pot=100, stack=100,
                      bet_sizes=BetSizes(bets=(1.0,), raises=(1.0,), all_in=False), raise_cap=1, dtype="float64")
    policy = Policy.random(g, rng=3)
    res = exploitability(g, policy)
    for p in (0, 1):
        assert res.best_response_values[p] == pytest.approx(_brute_force_best_response(g, policy.probs, p),
                                                            abs=1e-9)


def test_values_are_zero_sum():
    g = turn_spot()
    policy = Policy.random(g, rng=5)
    eng = engine_for(g)
    table = eng.from_edges(policy.probs)
    total = [eng.hand_values(p, MODE_EXPECTED, table).sum() for p in (0, 1)]
    assert total[0] + total[1] == pytest.approx(0.0, abs=1e-9)


def _permute_suits(cards, perm):
    return tuple(4 * (c // 4) + perm[c % 4] for c in cards)


def test_swapping_suits_gives_the_same_values():
    g = river_spot()
    perm = (2, 0, 3, 1)
    board = _permute_suits(parse_cards(RIVER), perm)
    w = np.zeros_like(g.weights)
    for k in range(1326):
        a, b = _permute_suits(COMBO_CARDS[k], perm)
        w[:, COMBO_INDEX[a, b]] = g.weights[:, k]
    h = HoldemEndgame(board, w, pot=100, stack=200, bet_sizes=SMALL, raise_cap=1, dtype="float64")
    assert solve_lp(h).value == pytest.approx(solve_lp(g).value, abs=1e-9)
    # A strategy and its suit-permuted image: the same value and exploitability in the two games.
    a = solve_cfr(g, "dcfr", iterations=50, check_every=50)
    t = g.tree
    probs = np.ones((t.n_nodes, h.max_hands))
    for p in (0, 1):
        position = {c: i for i, c in enumerate(h.combos[p])}
        image = np.array([position[COMBO_INDEX[_permute_suits(COMBO_CARDS[c], perm)]] for c in g.combos[p]])
        edges, _, _ = t.action_edges(p)
        probs[edges, :h.num_hands[p]] = 0.0
        probs[np.ix_(edges, image)] = a.policy.probs[edges, :g.num_hands[p]]
    mapped = exploitability(h, Policy(h, probs))
    assert mapped.policy_values[0] == pytest.approx(a.value, abs=1e-9 * g.pot)
    assert mapped.nash_conv == pytest.approx(a.exploitability.nash_conv, abs=1e-9 * g.pot)
    # DCFR's first iterate is the same up to the order of floating-point sums; later iterates are not compared:
    # regrets that are exactly 0 come out as +-1e-18 in either game, and regret matching amplifies their sign.
    b1, a1 = solve_cfr(h, "dcfr", iterations=1), solve_cfr(g, "dcfr", iterations=1)
    assert a1.value == pytest.approx(b1.value, abs=1e-12 * g.pot)


@pytest.mark.xdist_group("threaded-solver")  # the threaded traversal compiles on one worker only
def test_threads_give_the_same_iterates_as_one_thread():
    # the root's subtrees are spread over threads and their values added in a fixed order: bit-identical results
    g = turn_spot(dtype="float32")
    serial = solve_cfr(g, "dcfr", iterations=30, check_every=30, threads=1)
    threaded = solve_cfr(g, "dcfr", iterations=30, check_every=30, threads=2)
    assert threaded.engine.n_threads == 2 and serial.engine.n_threads == 1
    np.testing.assert_array_equal(threaded.strategy, serial.strategy)
    assert threaded.value == serial.value


_ENGINE_LAUNCHES = """
import numba.np.ufunc.parallel as par
from games.core.engine import Engine
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
g = HoldemEndgame("Ks7d2c4h", ["AA,77,QJs", "KK,AK,T9s"], pot=100, stack=100,
                  bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0, dtype="float32")
before = par._is_initialized
print(before, Engine(g, n_threads=2).n_threads, par._is_initialized)
"""


def test_a_threaded_engine_launches_numba_s_threading_layer():
    # in a fresh interpreter (numba's private flag of a launched threading layer: no public one exists)
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _ENGINE_LAUNCHES], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "2", "True"]


_THREADED_FROM_CACHE = """
from games.core import solve_cfr
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
g = HoldemEndgame("Ks7d2c4h", ["AA,77,QJs", "KK,AK,T9s"], pot=100, stack=100,
                  bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0, dtype="float32")
print(repr(float(solve_cfr(g, "dcfr", iterations=3, check_every=3, threads=2).value)))
"""


@pytest.mark.xdist_group("threaded-solver")  # the threaded traversal is compiled (and cached) once, on this worker
def test_a_threaded_solve_runs_from_numba_s_disk_cache():
    # A fresh process that loads the threaded kernels from numba's on-disk cache must launch numba's threading
    # layer itself: the cached run_iterations reaches its parfor through non-parallel callers, which do not launch
    # it (numba issue #8578); before Engine did, this process died of a segmentation fault.
    import subprocess
    import sys

    g = turn_spot(dtype="float32")
    here = solve_cfr(g, "dcfr", iterations=3, check_every=3, threads=2)       # compiled here, written to the cache
    out = subprocess.run([sys.executable, "-c", _THREADED_FROM_CACHE], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert float(out.stdout.strip().splitlines()[-1]) == float(here.value)


def test_solve_endgame_reports_poker_units():
    g = river_spot(dtype="float32")
    sol = solve_endgame(g, "cfr+", iterations=300, target_pct_pot=0.5)
    assert sol.exploitability_pct_pot == pytest.approx(100 * sol.exploitability_chips / g.pot)
    assert sol.exploitability_mbb == pytest.approx(1000 * sol.exploitability_chips / 100)
    assert sol.exploitability_bb == pytest.approx(sol.exploitability_chips / 100)
    assert sol.exploitability_pct_pot <= 0.5 or sol.iterations == 300
    assert sol.peak_memory_mb > 0 and sol.memory_estimate_mb > 0
    summary = sol.summary()
    for key in ("exploitability_chips", "exploitability_pct_pot", "pot", "iterations", "seconds", "compile_seconds",
                "peak_memory_mb"):
        assert key in summary
    with pytest.raises(ValueError, match="MiB"):
        solve_endgame(g, iterations=10, max_memory_mb=1e-6)


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(board="Ks7d2c4hKs"), "board"),
    (dict(board="Ks7d"), "board"),
    (dict(board="Ks7d2c4h9s3c"), "board"),
    (dict(board="Ks7d2c4hXx"), "board"),
    (dict(pot=-5), "pot"),
    (dict(pot=0), "pot"),
    (dict(stack=-1), "stack"),
    (dict(ranges=["AA,KK", "QQ:1.5"]), "QQ:1.5"),
    (dict(ranges=["AA,KK", "AKx"]), "AKx"),
    (dict(ranges=["AA", "KK"], board="AsAhAdKs7c"), "empty|no combo"),
    (dict(ranges=[np.zeros(1326), "KK"]), "empty"),
    (dict(dtype="int32"), "dtype"),
    (dict(big_blind=0), "big_blind"),
])
def test_bad_input_raises_clear_errors(kwargs, match):
    args = dict(board=RIVER, ranges=[R1, R2], pot=100, stack=200)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        HoldemEndgame(args.pop("board"), args.pop("ranges"), **args)


def test_weights_on_board_cards_raise_unless_dropped():
    w = np.zeros(1326)
    w[COMBO_INDEX[parse_cards("Ks")[0], parse_cards("Kh")[0]]] = 1.0
    w[COMBO_INDEX[parse_cards("Qs")[0], parse_cards("Qh")[0]]] = 1.0
    with pytest.raises(ValueError, match="conflict"):
        HoldemEndgame(RIVER, [w, "AA"], pot=100, stack=100)
    g = HoldemEndgame(RIVER, [w, "AA"], pot=100, stack=100, drop_board_conflicts=True)
    assert g.num_hands[0] == 1


def test_ranges_with_no_compatible_pair_raise():
    with pytest.raises(ValueError, match="shares a card"):
        HoldemEndgame(RIVER, ["AsAh", "AsAh"], pot=100, stack=100)


def test_memory_estimate_grows_with_the_tree():
    small = river_spot(raise_cap=0)
    big = river_spot(raise_cap=3, stack=2000)
    assert 0 < small.memory_estimate() < big.memory_estimate()
    assert "MiB" in big.describe()

"""Node locking: the lock is played exactly, locked CFR agrees with the locked sequence-form LP (an independent
method: linear equalities on the realization plans), the restricted best response agrees with the LP, and a player
locked everywhere is best-responded to (games.core.best_response)."""

import numpy as np
import pytest

from games.core import best_response, solve_cfr, solve_lp
from games.core.locks import check_locks
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem


def random_locks(game, rng, n_nodes, player=None, fraction=0.6):
    """Locks on ``n_nodes`` random decision nodes (of ``player`` if given), a random subset of hands each."""
    t = game.tree
    nodes = np.flatnonzero(np.isin(t.player, (0, 1) if player is None else (player,)))
    out = {}
    for n in rng.choice(nodes, size=n_nodes, replace=False):
        q = int(t.player[n])
        h, a = game.num_hands[q], int(t.num_children[n])
        probs = rng.dirichlet(np.ones(a), size=h).T
        free = rng.random(h) > fraction
        free[rng.integers(h)] = False                       # at least one hand locked
        probs[:, free] = np.nan
        out[int(n)] = probs
    return check_locks(game, out).as_dict()      # renormalised in float64 as the solver stores them


def locked_entries(result, locks):
    """(strategy at the locked entries, the locks there), storage layout."""
    lay = result.engine.layout
    got, want = [], []
    for n, probs in check_locks(result.game, locks).as_dict().items():
        a, h = probs.shape
        block = result.strategy[lay.offset[n]:lay.offset[n] + a * h].reshape(a, h)
        m = ~np.isnan(probs[0])
        got.append(block[:, m].ravel())
        want.append(probs[:, m].ravel())
    return np.concatenate(got), np.concatenate(want)


@pytest.fixture(scope="module")
def leduc():
    return LeducHoldem()


@pytest.mark.parametrize("method", ["dcfr", "cfr+", "pcfr+", "cfr"])
def test_lock_is_played_exactly_in_average_and_current_strategy(leduc, method):
    locks = random_locks(leduc, np.random.default_rng(1), 6)
    res = solve_cfr(leduc, method, iterations=30, check_every=30, locks=locks)
    got, want = locked_entries(res, locks)
    np.testing.assert_array_equal(got, want)
    cur = res.current_strategy
    lay = res.engine.layout
    for n, probs in locks.items():
        m = ~np.isnan(probs[0])
        a, h = probs.shape
        np.testing.assert_array_equal(cur[lay.offset[n]:lay.offset[n] + a * h].reshape(a, h)[:, m], probs[:, m])
    # the iterates played the lock: the raw average weights, normalised, are the lock up to rounding
    for n, probs in locks.items():
        a, h = probs.shape
        w = res.engine.avg[lay.offset[n]:lay.offset[n] + a * h].reshape(a, h)
        m = ~np.isnan(probs[0]) & (w.sum(axis=0) > 0)
        np.testing.assert_allclose((w / w.sum(axis=0))[:, m], probs[:, m], atol=1e-12)


def test_compressed_storage_plays_the_lock_exactly(leduc):
    locks = random_locks(leduc, np.random.default_rng(2), 5)
    res = solve_cfr(leduc, "dcfr", iterations=20, check_every=20, locks=locks, compressed=True)
    got, want = locked_entries(res, locks)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("game_name,seed", [("kuhn", 0), ("kuhn", 1), ("leduc", 3), ("leduc", 4)])
def test_locked_cfr_matches_the_locked_lp(leduc, game_name, seed):
    game = KuhnPoker() if game_name == "kuhn" else leduc
    rng = np.random.default_rng(seed)
    locks = random_locks(game, rng, 2 if game_name == "kuhn" else 8)
    lp = solve_lp(game, locks=locks)
    res = solve_cfr(game, "dcfr", iterations=4000, target=5e-5, locks=locks, check_every=10)
    ex = res.exploitability
    assert res.converged and ex.nash_conv <= 1e-4
    # the restricted game's value is bracketed by the restricted best responses
    assert -ex.best_response_values[1] - 1e-9 <= lp.value <= ex.best_response_values[0] + 1e-9
    assert res.value == pytest.approx(lp.value, abs=ex.nash_conv + 1e-9)
    # the LP's behaviour strategy plays the lock too, and without locks the value differs (the test has teeth)
    lp_locked = np.concatenate([lp.policy.probs[game.tree.children(n).start:game.tree.children(n).stop,
                                                np.flatnonzero(~np.isnan(p[0]))].ravel()
                                for n, p in sorted(locks.items())])
    _, want = locked_entries(res, locks)
    np.testing.assert_allclose(lp_locked, want, atol=1e-12)
    assert abs(solve_lp(game).value - lp.value) > 1e-4


def test_restricted_best_response_equals_the_lp_against_the_solved_opponent(leduc):
    # player 1 (index 0) locked on some nodes; the engine's restricted best-response value of player 1 against
    # player 2's CFR strategy equals the LP value of the game where player 2 is locked everywhere at that strategy
    rng = np.random.default_rng(7)
    locks = random_locks(leduc, rng, 6, player=0)
    res = solve_cfr(leduc, "dcfr", iterations=60, check_every=60, locks=locks)
    t = leduc.tree
    both = dict(locks)
    h2 = leduc.num_hands[1]
    for n in t.decision_nodes(1):
        kids = t.children(int(n))
        both[int(n)] = res.policy.probs[kids.start:kids.stop, :h2]
    lp = solve_lp(leduc, locks=both)
    assert res.exploitability.best_response_values[0] == pytest.approx(lp.value, abs=1e-9)
    # player 2 has no locks: his restricted best response is the ordinary one (games.core.best_response)
    br2 = best_response(leduc, res.policy, 1).value
    assert res.exploitability.best_response_values[1] == pytest.approx(br2, abs=1e-9)
    assert res.exploitability.nash_conv > 1e-3          # 60 iterations: far from converged


def test_locking_every_node_of_a_player_gives_the_best_response_value(leduc):
    rng = np.random.default_rng(11)
    t = leduc.tree
    h1 = leduc.num_hands[0]
    locks = {int(n): rng.dirichlet(np.ones(int(t.num_children[n])), size=h1).T for n in t.decision_nodes(0)}
    res = solve_cfr(leduc, "dcfr", iterations=3000, target=1e-6, check_every=10, locks=locks)
    fixed = res.policy                                  # player 1 plays the lock everywhere
    br = best_response(leduc, fixed, 1)
    assert res.converged
    assert -res.value == pytest.approx(br.value, abs=2e-6)
    assert solve_lp(leduc, locks=locks).value == pytest.approx(-br.value, abs=1e-9)


def test_no_locks_is_the_unlocked_solve(leduc):
    a = solve_cfr(leduc, "dcfr", iterations=15, check_every=15)
    b = solve_cfr(leduc, "dcfr", iterations=15, check_every=15, locks={})
    np.testing.assert_array_equal(a.strategy, b.strategy)
    assert b.locks is None


def test_locks_by_history_and_hand_subset():
    g = KuhnPoker()
    n = g.tree.node("p")                                # player 2 after a check
    a = check_locks(g, {"p": ([0.25, 0.75], [0, 2])})
    b = check_locks(g, {n: ([0.25, 0.75], np.array([True, False, True]))})
    c = check_locks(g, {n: [[0.25, np.nan, 0.25], [0.75, np.nan, 0.75]]})
    assert a.same_as(b) and a.same_as(c)
    np.testing.assert_array_equal(a.locked_hands(0), [True, False, True])


@pytest.mark.parametrize("locks,match", [
    ({3: [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]}, "not a decision node"),
    ({99: [[1.0], [0.0]]}, "outside the tree"),
    ({"x/y": [[1.0], [0.0]]}, "no node with history"),
    ({0: [[1.0, 1.0], [0.0, 0.0]]}, r"shape \(2, 3\)"),
    ({0: [[0.5, 0.5, 0.5], [0.6, 0.5, 0.5]]}, "sum to 1"),
    ({0: [[1.5, 0.5, 0.5], [-0.5, 0.5, 0.5]]}, r"in \[0, 1\]"),
    ({0: [[np.nan, 0.5, 0.5], [1.0, 0.5, 0.5]]}, "all NaN"),
    ({0: np.full((2, 3), np.nan)}, "no hand is locked"),
    ({0: ([0.5, 0.5], [0, 0])}, "listed twice"),
    ({0: ([0.5, 0.5], [5])}, "hand indices"),
    ({0: [[1, 1, 1], [0, 0, 0]], "": [[1, 1, 1], [0, 0, 0]]}, "listed twice"),
    ([1, 2], "mapping"),
])
def test_bad_locks_raise(locks, match):
    with pytest.raises(ValueError, match=match):
        check_locks(KuhnPoker(), locks)

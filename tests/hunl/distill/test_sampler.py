"""Random HUNL endgames: determinism per (seed, k), valid ranges, a fixed tree shape, the range models against
independent computations (brute-force percentiles, Bayes' rule walked by public histories), bad parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import Policy
from hunl.distill.sampler import (
    BAYES_SIZES,
    RIVER_SIZES,
    EndgameSampler,
    RandomEndgame,
    _posterior,
    action_pattern,
    min_spr,
    strength_percentile,
)
from hunl.poker.cards import COMBO_CARDS, HAND_CLASS, board_conflicts
from hunl.poker.evaluator import evaluate7
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes, TreeConfig, build_tree

#: No "bayes" (no turn solve): cheap samples for property tests.
FAST = EndgameSampler(range_models=("preflop", "strength"))
#: With "bayes" often, on small priors.
BAYES = EndgameSampler(range_models=(("preflop", 0.2), ("strength", 0.2), ("bayes", 0.6)), bayes_combos=40,
                       bayes_iterations=20)


def check_valid(sampler: EndgameSampler, e: RandomEndgame) -> None:
    n_board = 5 if sampler.street == "river" else 4
    assert e.board.shape == (n_board,) and len(set(e.board.tolist())) == n_board
    assert np.all((0 <= e.board) & (e.board < 52))
    assert e.weights.shape == (2, 1326) and e.weights.dtype == np.float64
    assert np.all(e.weights >= 0) and np.allclose(e.weights.sum(axis=1), 1.0, atol=1e-12)
    assert not np.any(e.weights[:, board_conflicts(e.board.tolist())])
    assert e.pot % 2 == 0 and sampler.pot[0] <= e.pot <= sampler.pot[1]
    assert sampler.spr[0] <= e.spr <= sampler.spr[1] + 1.0 / e.pot
    assert e.stack == math.ceil(e.stack)
    if sampler.max_combos is not None:
        assert np.all(np.count_nonzero(e.weights, axis=1) <= sampler.max_combos)
    for p, label in enumerate(e.range_models):
        assert label.split(":")[0] in dict(sampler.range_models)


# ---------------------------------------------------------------------------------------------- determinism
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(0, 10**6))
def test_samples_are_valid_and_depend_only_on_seed_and_k(seed, k):
    a, b = FAST.sample(seed, k), FAST.sample(seed, k)
    check_valid(FAST, a)
    assert np.array_equal(a.board, b.board) and np.array_equal(a.weights, b.weights)
    assert (a.pot, a.stack, a.range_models) == (b.pot, b.stack, b.range_models)
    other = FAST.sample(seed, k + 1)
    assert not np.array_equal(other.weights, a.weights)


def test_bayes_samples_are_deterministic_and_valid():
    seen = set()
    for k in range(6):
        a = BAYES.sample(7, k)
        check_valid(BAYES, a)
        b = BAYES.sample(7, k)
        assert np.array_equal(a.weights, b.weights) and a.range_models == b.range_models
        for p, label in enumerate(a.range_models):
            seen.add(label.split(":")[0])
            if label.startswith("bayes"):
                assert np.count_nonzero(a.weights[p]) <= BAYES.bayes_combos
    assert "bayes" in seen


def test_a_sample_does_not_depend_on_the_order_of_sampling():
    forward = [FAST.sample(3, k) for k in range(5)]
    backward = [FAST.sample(3, k) for k in reversed(range(5))][::-1]
    for x, y in zip(forward, backward):
        assert np.array_equal(x.weights, y.weights) and np.array_equal(x.board, y.board)


# ---------------------------------------------------------------------------------------------- tree shape
def test_min_spr_matches_the_bet_arithmetic():
    # river: a pot-size bet puts the bettor at 1/2 + 1 pots; the all-in raise is all-in anyway
    assert min_spr("river", RIVER_SIZES, 1) == pytest.approx(1.0)
    # turn: pot bet (1/2 + 1), call (pot 3), river pot bet (3/2 + 3): 4.5 pots, minus the 1/2 put in before
    assert min_spr("turn", RIVER_SIZES, 1) == pytest.approx(4.0)
    # pot-size raises: bet pot (to 1/2 + 1), raise = call 1 + the pot after the call (3): 1/2 + 4 pots
    assert min_spr("river", LIBRATUS_SIZES, 1) == pytest.approx(4.0)
    # two half-pot bets and no raise on the turn and the river: 1/2 + 1/2, then pot 2, river bet 1: 1/2 + 3/2
    assert min_spr("turn", BetSizes(bets=(0.5,), raises=(), all_in=False), 0) == pytest.approx(1.5)


def test_every_sample_has_the_same_tree_shape_and_labels():
    ref = FAST.pattern
    counts = set()
    for k in range(40):
        e = FAST.sample(11, k)
        g = FAST.game(e)
        assert action_pattern(g.betting) == ref
        counts.add(g.tree.n_nodes)
        assert tuple(g.tree.action[c] for c in g.tree.children(0))[1:3] == (
            f"bet {round(0.5 * e.pot)}", f"bet {round(e.pot)}")
    assert counts == {FAST.n_nodes}
    assert FAST.root_actions == ("check", "bet 0.5 pot", "bet 1 pot", "all-in")


@pytest.mark.parametrize("pot", [200, 202, 1000, 3998, 4000])
def test_the_smallest_stack_keeps_the_shape_and_a_smaller_one_breaks_it(pot):
    sampler = EndgameSampler(range_models=("preflop",))
    for spr, same in ((sampler.spr[0], True), (1.0, False)):
        cfg = TreeConfig(street="river", pot=pot, stack=math.ceil(spr * pot), turn=RIVER_SIZES, river=RIVER_SIZES,
                         raise_cap=1)
        assert (action_pattern(build_tree(cfg, (0, 1, 2, 3, 4))) == sampler.pattern) is same


def test_turn_samples_share_one_tree_and_cap_the_ranges():
    sampler = EndgameSampler.turn(max_combos=30)
    nodes = set()
    for k in range(3):
        e = sampler.sample(5, k)
        check_valid(sampler, e)
        g = sampler.game(e)
        nodes.add(g.tree.n_nodes)
        assert action_pattern(g.betting) == sampler.pattern
    assert nodes == {sampler.n_nodes}


# ---------------------------------------------------------------------------------------------- range models
def _brute_percentile(board, combos):
    live = [k for k in range(1326) if not set(COMBO_CARDS[k].tolist()) & set(board)]
    s = {k: evaluate7(tuple(board) + tuple(int(c) for c in COMBO_CARDS[k])) for k in live}
    return np.array([(sum(s[j] < s[k] for j in live) + 0.5 * sum(s[j] == s[k] for j in live)) / len(live)
                     for k in combos])


def test_river_percentile_equals_brute_force():
    rng = np.random.default_rng(1)
    board = [int(c) for c in rng.choice(52, 5, replace=False)]
    combos = [k for k in rng.choice(1326, 60, replace=False) if not board_conflicts(board)[k]]
    assert np.allclose(strength_percentile(board)[combos], _brute_percentile(board, combos))
    assert np.all(strength_percentile(board)[board_conflicts(board)] == 0)


def test_turn_percentile_is_the_mean_over_river_cards():
    rng = np.random.default_rng(2)
    board = [int(c) for c in rng.choice(52, 4, replace=False)]
    q = strength_percentile(board)
    for k in [int(k) for k in rng.choice(1326, 200) if not board_conflicts(board)[k]][:3]:
        rivers = [r for r in range(52) if r not in board and r not in COMBO_CARDS[k]]
        want = np.mean([_brute_percentile(board + [r], [k])[0] for r in rivers])
        assert q[k] == pytest.approx(want, abs=1e-12)


def test_preflop_ranges_are_constant_within_hand_classes():
    for k in range(30):
        e = FAST.sample(4, k)
        for p in (0, 1):
            if e.range_models[p] != "preflop":
                continue
            live = ~board_conflicts(e.board.tolist()) & (e.weights[p] > 0)
            w, cls = e.weights[p][live], HAND_CLASS[live]
            for c in np.unique(cls)[:20]:
                assert np.ptp(w[cls == c]) <= 1e-15


def test_value_ranges_rise_with_strength():
    sampler = EndgameSampler(range_models=("strength",), noise=(0.1, 0.1))
    found = 0
    for k in range(40):
        e = sampler.sample(9, k)
        q = strength_percentile(e.board.tolist())
        for p in (0, 1):
            if e.range_models[p] == "strength:value":
                live = e.weights[p] > 0
                found += 1
                # mean weight per fifth of the percentile scale rises (ties in q leave only the noise)
                bins = np.minimum((q[live] * 5).astype(int), 4)
                means = [e.weights[p][live][bins == b].mean() for b in range(5) if np.any(bins == b)]
                assert np.all(np.diff(means) > 0)
            if e.range_models[p] == "strength:capped":
                top = q > 0.97
                assert e.weights[p][top].sum() < 0.05
    assert found > 0


def test_bayes_posterior_is_prior_times_own_action_probabilities():
    rng = np.random.default_rng(3)
    turn = [int(c) for c in rng.choice(52, 5, replace=False)]
    board4, river = turn[:4], turn[4]
    priors = np.zeros((2, 1326))
    for p in (0, 1):
        ks = rng.choice(np.flatnonzero(~board_conflicts(board4)), 40, replace=False)
        priors[p, ks] = rng.uniform(0.1, 1.0, 40)
    g = HoldemEndgame(board4, priors, pot=100, stack=400, bet_sizes=BAYES_SIZES, raise_cap=0, dtype="float64")
    pol = Policy.random(g, rng=4)
    bet = g.tree.action[g.tree.child_start[0] + 1]
    for line, path in (((0, 0), ("check", "check")), ((1, 1), (bet, "call")), ((0, 1, 1), ("check", bet, "call"))):
        post = _posterior(g, pol.probs, line, priors, river)
        want = priors.copy()
        history = ""
        for action in path:
            node = g.tree.node(history) if history else 0
            p = int(g.tree.player[node])
            idx = [g.tree.action[c] for c in g.tree.children(node)].index(action)
            mult = np.zeros(1326)
            mult[g.combos[p]] = pol.at(node)[:, idx]
            want[p] *= mult
            history = f"{history}/{action}" if history else action
        want[:, board_conflicts([river])] = 0.0
        want[want < 1e-5 * want.max(axis=1, keepdims=True)] = 0.0
        assert np.allclose(post, want, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, name", [
    (dict(street="flop"), "street"),
    (dict(pot=(500, 100)), "pot"),
    (dict(pot=(3, 3)), "pot"),
    (dict(spr=(0.8, 4.0)), "spr"),
    (dict(spr=(1.5,)), "spr"),
    (dict(range_models=("preflop", "uniform")), "range_models"),
    (dict(range_models=(("preflop", -1.0),)), "range_models"),
    (dict(range_models=("bayes",)), "range_models"),
    (dict(street="turn", spr=(5, 9)), "range_models"),
    (dict(street="turn", range_models=("preflop",)), "spr"),
    (dict(sharpness=(2.0, 1.0)), "sharpness"),
    (dict(noise=(-0.1, 0.5)), "noise"),
    (dict(raise_cap=-1), "raise_cap"),
    (dict(big_blind=0), "big_blind"),
    (dict(max_combos=0), "max_combos"),
    (dict(bayes_iterations=1.5), "bayes_iterations"),
])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(ValueError, match=name):
        EndgameSampler(**kwargs)


def test_bet_sizes_of_the_wrong_type():
    with pytest.raises(TypeError, match="bet_sizes"):
        EndgameSampler(bet_sizes=(0.5, 1.0))


def test_bad_sample_arguments():
    with pytest.raises(ValueError, match="seed"):
        FAST.sample(-1, 0)
    with pytest.raises(ValueError, match="k"):
        FAST.sample(0, 1.5)
    with pytest.raises(ValueError, match="endgame"):
        EndgameSampler.turn().game(FAST.sample(0, 0))


def test_bet_sizes_that_never_collapse_pass():
    s = EndgameSampler(bet_sizes=BetSizes(bets=(0.33, 0.75), raises=(), all_in=True), spr=(1.3, 3.0),
                       range_models=("preflop",))
    assert s.root_actions == ("check", "bet 0.33 pot", "bet 0.75 pot", "all-in")


def test_docstring_examples():
    import doctest

    import hunl.distill.sampler as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0

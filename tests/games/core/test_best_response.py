"""Generic best response / exploitability: closed form of the bet game, brute force on Kuhn, bad policies."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import betgame
from games.betgame import BetGameTree
from games.core import (
    ExploitabilityResult,
    Policy,
    best_response,
    expected_value,
    exploitability,
    solve_lp,
)
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem
from rulelearn.data.distributions import random_deal


@pytest.fixture(scope="module")
def kuhn():
    return KuhnPoker()


def _random_betgame_strategies(rng, n, n_bets):
    x = rng.dirichlet(np.ones(n_bets), size=n)
    x[rng.random(n) < 0.3] = np.eye(n_bets)[rng.integers(n_bets)]  # some pure rows
    call = rng.random((n, n_bets))
    call[rng.random((n, n_bets)) < 0.3] = 1.0
    return x, call


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_generic_best_response_equals_betgame_closed_form(seed):
    rng = np.random.default_rng(seed)
    probs = random_deal(10, rng)[2]
    game = BetGameTree(probs)
    x, call = _random_betgame_strategies(rng, 10, game.rules.n_bets)
    pol = game.policy_from_strategies(x, call)
    res = exploitability(game, pol)
    assert res.nash_conv == pytest.approx(betgame.nash_conv(probs, x, call), abs=1e-12)
    assert res.policy_values[0] == pytest.approx(betgame.expected_payoff(probs, x, call), abs=1e-12)
    # player 1's exploitability (the paper's measure) = value - u1(x, BR2) = value + BR value of player 2
    value = betgame.solve(probs).value
    assert value + res.best_response_values[1] == pytest.approx(betgame.player1_exploitability(probs, x, value), abs=1e-9)
    assert res.best_response_values[0] == pytest.approx(betgame.player1_best_response(probs, call).value, abs=1e-12)


def _brute_force_kuhn_br(game, pol, player):
    """Best response by enumerating the responder's pure strategies (2^6 in Kuhn)."""
    t = game.tree
    nodes = t.decision_nodes(player)
    best = -np.inf
    for choice in itertools.product(range(2), repeat=len(nodes) * 3):
        probs = np.array(pol.probs)
        for k, n in enumerate(nodes):
            kids = t.children(n)
            for h in range(3):
                probs[kids.start:kids.stop, h] = 0.0
                probs[kids.start + choice[3 * k + h], h] = 1.0
        v = expected_value(game, Policy(game, probs))
        best = max(best, v if player == 0 else -v)
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kuhn_best_response_equals_brute_force(kuhn, seed):
    pol = Policy.random(kuhn, seed)
    res = exploitability(kuhn, pol)
    for p in (0, 1):
        assert res.best_response_values[p] == pytest.approx(_brute_force_kuhn_br(kuhn, pol, p), abs=1e-14)
        br = best_response(kuhn, pol, p)
        assert br.value == pytest.approx(res.best_response_values[p], abs=1e-14)
        v = expected_value(kuhn, br.policy)
        assert (v if p == 0 else -v) == pytest.approx(br.value, abs=1e-14)


def test_uniform_kuhn_exploitability_known_value(kuhn):
    res = exploitability(kuhn, Policy.uniform(kuhn))
    assert isinstance(res, ExploitabilityResult)
    assert res.best_response_values == pytest.approx((0.5, 5.0 / 12.0), abs=1e-15)
    assert res.nash_conv == pytest.approx(11.0 / 12.0, abs=1e-15)
    assert res.exploitability == pytest.approx(11.0 / 24.0, abs=1e-15)
    assert res.exploitability_fraction_of_pot == pytest.approx(11.0 / 48.0)
    assert res.exploitability_mbb is None  # antes only: no big blind, no mbb/g
    assert sum(res.deviation_gains) == pytest.approx(res.nash_conv)


def test_mbb_per_game_when_a_big_blind_exists():
    res = ExploitabilityResult((0.01, 0.01), (0.0, 0.0), 0.02, 0.01, pot=3.0, big_blind=2.0)
    assert res.exploitability_mbb == pytest.approx(5.0)


def test_equilibrium_has_zero_exploitability_and_deviations_do_not_pay():
    game = LeducHoldem()
    sol = solve_lp(game)
    res = exploitability(game, sol.policy)
    assert abs(res.nash_conv) < 1e-9
    assert res.best_response_values[0] == pytest.approx(sol.value, abs=1e-9)
    assert res.best_response_values[1] == pytest.approx(-sol.value, abs=1e-9)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_best_response_bounds_on_random_policies(seed):
    game = KuhnPoker()
    pol = Policy.random(game, seed)
    res = exploitability(game, pol)
    assert res.best_response_values[0] >= res.policy_values[0] - 1e-12
    assert res.best_response_values[1] >= res.policy_values[1] - 1e-12
    # the value of the game lies between the two guarantees
    assert -res.best_response_values[1] - 1e-12 <= -1 / 18 <= res.best_response_values[0] + 1e-12


# ---------------------------------------------------------------------------------------------- bad input
def test_policy_with_negative_probability_is_rejected(kuhn):
    d = Policy.uniform(kuhn).to_dict()
    d["p"] = np.array([[1.5, -0.5], [0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="negative probability -0.5 at node .*'p'.*player 2, hand 'J'"):
        exploitability(kuhn, d)


def test_policy_with_non_normalised_row_is_rejected(kuhn):
    d = Policy.uniform(kuhn).to_dict()
    d[""] = np.array([[0.5, 0.5], [0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(ValueError, match="not normalised at node 0 \\(root\\), player 1, hand 'Q'.*1.1"):
        Policy.from_dict(kuhn, d)


def test_policy_missing_an_information_set_is_rejected(kuhn):
    d = Policy.uniform(kuhn).to_dict()
    del d["p/b"]
    with pytest.raises(ValueError, match="no strategy for 1 decision node.*'p/b'"):
        Policy.from_dict(kuhn, d)
    infosets = {(n, h): np.array([0.5, 0.5]) for n in ("", "p", "b", "p/b") for h in range(3)}
    del infosets[("b", 2)]
    with pytest.raises(ValueError, match="missing the information set of player 2 at .*'b'.* holding 'K'"):
        Policy.from_infosets(kuhn, infosets)


def test_leduc_from_infosets_does_not_need_impossible_hands():
    game = LeducHoldem()
    mask0, mask1 = game.infoset_mask(0), game.infoset_mask(1)
    infosets = {}
    for p, mask in ((0, mask0), (1, mask1)):
        for n, h in zip(*np.nonzero(mask)):
            k = len(game.tree.children(n))
            infosets[(int(n), int(h))] = np.full(k, 1.0 / k)
    assert len(infosets) == 936
    pol = Policy.from_infosets(game, infosets)
    assert exploitability(game, pol).exploitability == pytest.approx(
        exploitability(game, Policy.uniform(game)).exploitability, abs=1e-15)


def test_policy_shape_and_nan_rejected(kuhn):
    with pytest.raises(ValueError, match="shape"):
        Policy(kuhn, np.ones((3, 3)))
    arr = np.array(Policy.uniform(kuhn).probs)
    arr[1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        exploitability(kuhn, arr)
    with pytest.raises(ValueError, match="shape \\(hands, actions\\)"):
        Policy.from_dict(kuhn, {**Policy.uniform(kuhn).to_dict(), "b": np.ones((3, 3)) / 3})
    with pytest.raises(ValueError, match="not a decision node"):
        Policy.from_dict(kuhn, {**Policy.uniform(kuhn).to_dict(), "b/b": np.ones((3, 2)) / 2})
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        best_response(kuhn, Policy.uniform(kuhn), 3)


def test_policy_of_another_game_object_is_rejected(kuhn):
    with pytest.raises(ValueError, match="different game"):
        exploitability(kuhn, Policy.uniform(KuhnPoker()))


def test_policy_round_trip(kuhn):
    pol = Policy.random(kuhn, 5)
    again = Policy.from_dict(kuhn, pol.to_dict())
    np.testing.assert_array_equal(again.probs, pol.probs)
    assert pol.at("p").shape == (3, 2)

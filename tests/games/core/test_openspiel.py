"""Independent checks against OpenSpiel (a test dependency): the same policies have the same exploitability,
and our CFR loop retraces OpenSpiel's CFR, CFR+ and DCFR iterates."""

import numpy as np
import pyspiel
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr
from open_spiel.python.algorithms import exploitability as os_expl

from games.core import CFRConfig, Policy, exploitability, solve_cfr, solve_lp
from games.core.openspiel import from_tabular_policy, infoset_map, openspiel_game, to_tabular_policy
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem


@pytest.fixture(scope="module", params=["kuhn", "leduc"])
def pair(request):
    game = KuhnPoker() if request.param == "kuhn" else LeducHoldem()
    og = openspiel_game(game)
    return game, og, infoset_map(game, og)


def _same_exploitability(game, og, mapping, policy):
    tab = to_tabular_policy(policy, og, mapping)
    ours = exploitability(game, policy)
    # OpenSpiel's exploitability() is NashConv / num_players; nash_conv() is the sum of the improvements
    assert ours.exploitability == pytest.approx(os_expl.exploitability(og, tab), abs=1e-9)
    assert ours.nash_conv == pytest.approx(os_expl.nash_conv(og, tab), abs=1e-9)
    assert ours.exploitability == pytest.approx(pyspiel.exploitability(og, tab.to_dict()), abs=1e-9)  # C++
    return ours


def test_information_states_map_one_to_one(pair):
    game, _og, mapping = pair
    assert len(mapping) == {"kuhn": 12, "leduc": 936}[game.name]
    # Kuhn's strings are "<card><history>": check a few by hand
    if game.name == "kuhn":
        t = game.tree
        assert mapping["1pb"] == (0, t.node("p/b"), 1)
        assert mapping["2b"] == (1, t.node("b"), 2)


def test_round_trip_through_tabular_policy(pair):
    game, og, mapping = pair
    pol = Policy.random(game, 11)
    back = from_tabular_policy(game, to_tabular_policy(pol, og, mapping), mapping)
    for p in (0, 1):
        mask = game.infoset_mask(p)
        t = game.tree
        for n in t.decision_nodes(p):
            kids = t.children(n)
            h = mask[n]
            np.testing.assert_array_equal(back.probs[kids.start:kids.stop][:, :6][:, h[:game.num_hands[p]]],
                                          pol.probs[kids.start:kids.stop][:, :6][:, h[:game.num_hands[p]]])


def test_uniform_and_equilibrium_policies(pair):
    game, og, mapping = pair
    _same_exploitability(game, og, mapping, Policy.uniform(game))
    res = _same_exploitability(game, og, mapping, solve_lp(game).policy)
    assert res.exploitability < 1e-9


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), concentration=st.sampled_from([0.2, 1.0, 5.0]))
def test_random_policies_kuhn(seed, concentration):
    game = KuhnPoker()
    og = openspiel_game(game)
    _same_exploitability(game, og, infoset_map(game, og), Policy.random(game, seed, concentration))


@pytest.mark.parametrize("seed", [3, 4])
def test_random_policies_leduc(seed):
    game = LeducHoldem()
    og = openspiel_game(game)
    _same_exploitability(game, og, infoset_map(game, og), Policy.random(game, seed, 0.5))


@pytest.mark.parametrize("method", ["cfr", "cfr+", "dcfr"])
def test_cfr_outputs_have_the_same_exploitability(pair, method):
    game, og, mapping = pair
    res = solve_cfr(game, method, iterations=200, check_every=200)
    ours = _same_exploitability(game, og, mapping, res.policy)
    assert ours.exploitability == pytest.approx(res.exploitability.exploitability, abs=1e-14)


def _openspiel_solver(method, og):
    if method == "cfr":  # vanilla: simultaneous updates, uniform averaging
        return os_cfr._CFRSolver(og, alternating_updates=False, linear_averaging=False, regret_matching_plus=False)
    if method == "cfr-alternating":
        return os_cfr.CFRSolver(og)
    if method == "cfr+":
        return os_cfr.CFRPlusSolver(og)
    return os_dcfr.DCFRSolver(og)  # alpha 1.5, beta 0, gamma 2, alternating


@pytest.mark.parametrize("method", ["cfr", "cfr-alternating", "cfr+", "dcfr"])
def test_iterates_match_openspiel_python_solvers(pair, method):
    game, og, mapping = pair
    n = 25 if game.name == "kuhn" else 3
    solver = _openspiel_solver(method, og)
    for _ in range(n):
        solver.evaluate_and_update_policy()
    config = CFRConfig(alternating=True) if method == "cfr-alternating" else method
    ours = solve_cfr(game, config, iterations=n, check_every=n)
    theirs = from_tabular_policy(game, solver.average_policy(), mapping)
    for p in (0, 1):
        mask = game.infoset_mask(p)
        t = game.tree
        for node in t.decision_nodes(p):
            kids = t.children(node)
            hands = np.flatnonzero(mask[node])
            np.testing.assert_allclose(ours.policy.probs[kids.start:kids.stop][:, hands],
                                       theirs.probs[kids.start:kids.stop][:, hands], rtol=0, atol=1e-9)


def test_cfr_plus_matches_openspiel_cpp_solver_on_leduc():
    game = LeducHoldem()
    og = openspiel_game(game)
    solver = pyspiel.CFRPlusSolver(og)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    ours = solve_cfr(game, "cfr+", iterations=30, check_every=30)
    assert ours.exploitability.exploitability == pytest.approx(
        pyspiel.exploitability(og, solver.average_policy()), abs=1e-9)


def test_no_openspiel_equivalent_for_the_betgame():
    from games.core import load_game

    with pytest.raises(ValueError, match="no OpenSpiel equivalent"):
        openspiel_game(load_game("betgame"))

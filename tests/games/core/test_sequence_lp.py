"""Sequence-form LP: pinned values, realization-plan constraints, equality with the bet game's dedicated LP."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import betgame
from games.betgame import BetGame, BetGameTree
from games.core import exploitability, solve_lp
from games.core.sequence_lp import build_sequence_form
from games.kuhn import KUHN_VALUE, KuhnPoker
from games.leduc import LEDUC_VALUE, LeducHoldem
from rulelearn.data.distributions import random_deal, uniform_deal


@pytest.fixture(scope="module")
def leduc_solution():
    return solve_lp(LeducHoldem())


def test_kuhn_value_is_minus_one_eighteenth():
    sol = solve_lp(KuhnPoker())
    assert sol.value == pytest.approx(-1.0 / 18.0, abs=1e-9)
    assert KUHN_VALUE == -1.0 / 18.0
    assert exploitability(sol.policy.game, sol.policy).nash_conv < 1e-9


def test_leduc_value_pinned(leduc_solution):
    assert leduc_solution.value == pytest.approx(-0.085606424078, abs=1e-9)
    assert LEDUC_VALUE == -0.085606424078
    res = exploitability(leduc_solution.policy.game, leduc_solution.policy)
    assert res.nash_conv < 1e-9
    # the policy's own value is the game value
    assert res.policy_values[0] == pytest.approx(leduc_solution.value, abs=1e-9)


def test_realization_plans_satisfy_the_sequence_form(leduc_solution):
    game = leduc_solution.policy.game
    sf = build_sequence_form(game)
    x, y = leduc_solution.realization_plans
    np.testing.assert_allclose(sf.E @ x, sf.e, atol=1e-9)
    np.testing.assert_allclose(sf.F @ y, sf.f, atol=1e-9)
    assert x.min() >= 0 and y.min() >= 0
    assert x @ (sf.A @ y) == pytest.approx(leduc_solution.value, abs=1e-9)


def test_sequence_form_payoff_matches_expected_value_of_random_policies():
    from games.core import Policy, expected_value

    game = KuhnPoker()
    sf = build_sequence_form(game)
    pol = Policy.random(game, 3)
    # realization plans of a behaviour policy: products along the player's own sequences
    plans = []
    for p in (0, 1):
        idx = sf.seq_index[p]
        z = np.zeros(sf.A.shape[p])
        z[0] = 1.0
        t = game.tree
        last = t.last_own_edge[p]
        for c in range(1, t.n_nodes):
            if idx[c, 0] >= 0:
                parent_seq = last[t.parent[c]]
                base = z[idx[parent_seq]] if parent_seq >= 0 else np.ones(3)
                z[idx[c]] = base * pol.probs[c, :3]
        plans.append(z)
    assert plans[0] @ sf.A @ plans[1] == pytest.approx(expected_value(game, pol), abs=1e-14)


def test_generic_lp_equals_betgame_lp_on_uniform_deal():
    probs = uniform_deal(10)
    sol = solve_lp(BetGameTree(probs))
    assert sol.value == pytest.approx(betgame.solve(probs).value, abs=1e-9)
    assert sol.value == pytest.approx(0.065736485736, abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_generic_lp_equals_betgame_lp_on_random_deals(seed):
    probs = random_deal(10, np.random.default_rng(seed))[2]
    game = BetGameTree(probs)
    sol = solve_lp(game)
    ref = betgame.solve(probs)
    assert sol.value == pytest.approx(ref.value, abs=1e-9)
    x, call = game.strategies(sol.policy)
    assert betgame.nash_conv(probs, x, call) < 1e-8


def test_generic_lp_on_a_small_grid():
    rules = BetGame(n_cards=4, bets=(0.0, 1.0, 2.0), stack=2.0)
    probs = random_deal(4, np.random.default_rng(7))[2]
    assert solve_lp(BetGameTree(probs, rules)).value == pytest.approx(betgame.solve(probs, rules).value, abs=1e-9)


def test_suit_isomorphic_leduc_is_exact():
    """Leduc with the suits identified has the same value, and its equilibrium, played by each card according to
    its rank, is an exact equilibrium of the card-level game (generic best response, NashConv <= 1e-9)."""
    from games.core import exploitability, solve_lp
    from games.core.check import check_game
    from games.core.policy import Policy
    from games.leduc import LEDUC_VALUE, LeducHoldem

    cards, ranks = LeducHoldem(), LeducHoldem(suit_isomorphic=True)
    check_game(ranks)
    assert ranks.num_hands == (3, 3) and ranks.tree.n_nodes < cards.tree.n_nodes
    sol = solve_lp(ranks)
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-9)
    assert exploitability(ranks, sol.policy).nash_conv <= 1e-9
    # lift: the card tree's public card c is the rank tree's public rank c // 2; card h plays rank h // 2
    rank_node = {h: n for n, h in enumerate(ranks.tree.history)}
    lifted = np.ones((cards.tree.n_nodes, cards.max_hands))
    for n, hist in enumerate(cards.tree.history):
        parts = [str(int(a) // 2) if a.isdigit() else a for a in hist.split("/")] if hist else []
        lifted[n] = sol.policy.probs[rank_node["/".join(parts)]][np.arange(6) // 2]
    result = exploitability(cards, Policy(cards, lifted))
    assert result.nash_conv <= 1e-9

"""Every bet-game solution returned or stored is verified, or flagged loudly (issue 12, items 3 and 4)."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from games import betgame
from games.betgame import lp
from games.betgame.family import BetGameFamily, sample_game

HARD_DEALS = Path(__file__).parent / "data" / "hard_deals.npz"
ATTEMPTS = lp.ATTEMPTS


@pytest.fixture
def attempts(monkeypatch):
    """Replace the solver's attempts for one test (the per-thread solvers are rebuilt around it)."""

    def use(new):
        monkeypatch.setattr(lp, "ATTEMPTS", tuple(new))
        monkeypatch.setattr(lp._local, "solvers", {}, raising=False)

    yield use
    lp._local.solvers = {}


def hard_law_deals(count: int, seed: int = 3) -> np.ndarray:
    return np.array([sample_game(seed, k, hand_law="log-uniform")[2] for k in range(count)])


def test_exploitability_without_a_value_uses_the_verified_value():
    """The LP value behind ``player1_exploitability(probs, strategy)`` is the verified one: equal to the call given
    ``solve(probs).value``, and an equilibrium strategy's exploitability is exactly zero, never negative."""
    probs = np.concatenate([np.array([sample_game(11, k)[2] for k in range(40)]), hard_law_deals(40)])
    sols = betgame.solve_many(probs)
    values = np.array([s.value for s in sols])
    rng = np.random.default_rng(0)
    others = rng.dirichlet(np.ones(31), size=(len(probs), 10))
    for strategies in (others, np.array([s.strategy for s in sols])):
        implicit = betgame.player1_exploitability(probs, strategies)
        explicit = betgame.player1_exploitability(probs, strategies, values)
        np.testing.assert_allclose(implicit, explicit, rtol=0, atol=1e-12)
    own = betgame.player1_exploitability(probs, np.array([s.strategy for s in sols]))
    assert np.all(own == 0.0)
    single = betgame.player1_exploitability(probs[0], others[0])
    assert single == pytest.approx(betgame.player1_exploitability(probs[0], others[0], values[0]), abs=1e-12)


def test_every_solution_of_the_hard_law_is_verified_and_brackets_the_value():
    for p in hard_law_deals(60, seed=5):
        sol = betgame.solve(p)
        assert sol.verified and sol.status == "Optimal" and sol.nash_conv <= betgame.VERIFY_TOLERANCE
        assert np.all(np.isfinite(sol.strategy)) and np.all(np.isfinite(sol.call_probability))
        np.testing.assert_allclose(sol.strategy.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        # value is what the strategy guarantees; the call probabilities hold player 1 to value + nash_conv
        assert betgame.player2_best_response(p, sol.strategy).value == sol.value
        assert betgame.player1_best_response(p, sol.call_probability).value == pytest.approx(
            sol.value + sol.nash_conv, abs=1e-15)


def test_the_hard_cases_are_solved_by_each_fallback(attempts):
    """Deals of the log-uniform law whose first attempt failed (found by benchmarks/bench_betgame_verification.py,
    saved in tests/games/betgame/data/hard_deals.npz): each fallback attempt alone verifies them."""
    data = np.load(HARD_DEALS)
    assert data["probs"].shape[0] >= 3
    for fallback in ATTEMPTS[1:]:
        attempts([fallback])
        for p in data["probs"]:
            sol = betgame.solve(p)
            assert sol.verified and sol.method == fallback.name


def test_a_failed_first_attempt_falls_back(attempts):
    broken = lp.SolveAttempt("no iterations allowed", False, (("simplex_iteration_limit", 0),))
    attempts([broken, *ATTEMPTS])
    p = sample_game(0, 1)[2]
    sol = betgame.solve(p)
    assert sol.verified and sol.method == ATTEMPTS[0].name


def test_an_unverifiable_solution_raises_or_is_flagged(attempts, monkeypatch):
    p = sample_game(0, 2)[2]
    # no attempt reaches optimality: no NaN strategy is ever labelled optimal
    attempts([lp.SolveAttempt("no iterations allowed", False, (("simplex_iteration_limit", 0),))])
    with pytest.raises(betgame.UnverifiedSolutionError, match="not verified"):
        betgame.solve(p)
    sol = betgame.solve(p, strict=False)
    assert not sol.verified and sol.status != "Optimal" and np.isnan(sol.strategy).all()
    with pytest.raises(betgame.UnverifiedSolutionError, match="deal 0 of the batch"):
        betgame.solve_many(p[None])
    with pytest.raises(betgame.UnverifiedSolutionError):
        betgame.player1_exploitability(p, np.full((10, 31), 1 / 31))
    # optimal by HiGHS's account, but its pair fails the closed-form check: status "Unverified"
    attempts(ATTEMPTS)
    monkeypatch.setattr(lp, "VERIFY_TOLERANCE", -1.0)
    with pytest.raises(betgame.UnverifiedSolutionError) as info:
        betgame.solve(p)
    assert info.value.solution.status == "Unverified" and np.isfinite(info.value.solution.strategy).all()


def test_the_family_stores_an_unverified_game_flagged(attempts):
    attempts([lp.SolveAttempt("no iterations allowed", False, (("simplex_iteration_limit", 0),))])
    cols = BetGameFamily().solve_range(0, 0, 2)
    assert not cols["verified"].any() and all(s != "Optimal" for s in cols["status"])


def test_the_hand_law_is_recorded_only_when_not_the_papers():
    assert "hand_law" not in BetGameFamily().config()
    hard = BetGameFamily(hand_law="log-uniform")
    assert hard.config()["hand_law"] == "log-uniform"
    cols = hard.solve_range(0, 0, 3)
    assert cols["verified"].all() and cols["probs"][cols["probs"] > 0].min() < 1e-12
    with pytest.raises(ValueError, match="hand_law"):
        BetGameFamily(hand_law="normal")
    with pytest.raises(ValueError, match="hand_law"):
        sample_game(0, 0, hand_law="normal")


def test_a_solution_records_its_attempt():
    sol = betgame.solve(sample_game(0, 3)[2])
    assert sol.method == lp.ATTEMPTS[0].name
    assert replace(sol, nash_conv=1.0).verified is False

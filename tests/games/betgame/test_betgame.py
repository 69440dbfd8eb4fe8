"""The bet game: published equilibria (Ganzfried & Yusuf 2017), LP optimality, closed form vs brute force."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import betgame
from games.betgame import BetGame
from rulelearn.data.distributions import joint_deal, random_deal, uniform_deal

GAME = betgame.DEFAULT_GAME


def bet_index(size: float) -> int:
    return int(round(size * 10))


def published_uniform_strategy() -> np.ndarray:
    """Section 1 of both papers: the equilibrium for the uniform deal, rounded to 3 decimals."""
    s = np.zeros((10, 31))
    s[0, [bet_index(0.1), bet_index(0.6), bet_index(1.8)]] = [0.091, 0.266, 0.643]
    s[1, [bet_index(0.0), bet_index(0.3), bet_index(0.6)]] = [0.660, 0.231, 0.109]
    s[2:6, 0] = 1.0
    s[6, bet_index(0.1)] = 1.0
    s[7, bet_index(0.3)] = 1.0
    s[8, bet_index(0.6)] = 1.0
    s[9, bet_index(1.8)] = 1.0
    return s


# ------------------------------------------------------------------------------------------ the paper's examples
def test_default_game_is_the_papers():
    assert GAME.n_cards == 10 and GAME.ante == 0.5 and GAME.stack == 3.0
    assert GAME.n_bets == 31 and GAME.bets[0] == 0.0 and GAME.bets[-1] == 3.0
    assert np.allclose(np.diff(GAME.bet_array), 0.1)


def test_uniform_deal_value_and_published_strategy():
    probs = uniform_deal(10)
    sol = betgame.solve(probs)
    assert sol.value == pytest.approx(0.065736485736, abs=1e-9)
    assert sol.nash_conv <= 1e-9
    # the published strategy is an equilibrium up to its 3-decimal rounding
    expl = betgame.player1_exploitability(probs, published_uniform_strategy(), sol.value)
    assert 0 <= expl < 1e-4
    # ... and is genuinely non-trivial: always checking is exploitable
    check = np.zeros((10, 31))
    check[:, 0] = 1
    assert betgame.player1_exploitability(probs, check, sol.value) > 0.05


def test_strong_or_weak_against_medium():
    """P1 holds 1 or 10 (1/2 each) against P2's 5: value 0.375; check .25 / bet 3 .75 with 1, bet 3 with 10."""
    probs = np.zeros((10, 10))
    probs[0, 4] = probs[9, 4] = 0.5
    sol = betgame.solve(probs)
    assert sol.value == pytest.approx(0.375, abs=1e-12)
    published = np.zeros((10, 31))
    published[:, 0] = 1.0  # cards never dealt: any row; the convention is a check
    published[0, 0], published[0, 30] = 0.25, 0.75
    published[9, 0], published[9, 30] = 0.0, 1.0
    assert betgame.player1_exploitability(probs, published, sol.value) == pytest.approx(0.0, abs=1e-12)
    # never-dealt convention: player 1 checks, player 2 folds to bets
    assert np.all(sol.strategy[1:9, 0] == 1.0)
    assert np.all(sol.call_probability[np.arange(10) != 4][:, 1:] == 0.0)


def test_medium_against_strong_or_weak():
    """P1 holds 5 against P2's 1 or 10: value 0 and checking always is optimal."""
    probs = np.zeros((10, 10))
    probs[4, 0] = probs[4, 9] = 0.5
    sol = betgame.solve(probs)
    assert sol.value == pytest.approx(0.0, abs=1e-12)
    check = np.zeros((10, 31))
    check[:, 0] = 1.0
    assert betgame.player1_exploitability(probs, check, sol.value) == pytest.approx(0.0, abs=1e-12)
    # betting anything is worse: P2 calls with 10 and folds with 1
    bet = np.zeros((10, 31))
    bet[:, 5] = 1.0
    assert betgame.player1_exploitability(probs, bet, sol.value) > 0.1


# ------------------------------------------------------------------------------------------ LP optimality
deal_strategy = st.tuples(
    st.integers(0, 2**32 - 1),
    st.sampled_from([
        BetGame(),
        BetGame(n_cards=3, bets=(0.0, 1.0)),
        BetGame(n_cards=5, stack=2.0, bets=(0.5, 1.0, 2.0)),  # no check in the grid
        BetGame(n_cards=6, ante=1.0, stack=4.0, bet_step=0.5),
    ]),
)


@settings(max_examples=60, deadline=None)
@given(deal_strategy)
def test_lp_solution_is_an_equilibrium(args):
    seed, game = args
    rng = np.random.default_rng(seed)
    _, _, probs = random_deal(game.n_cards, rng)
    if rng.random() < 0.3:  # sparse deals: some cards never dealt to one player
        probs[rng.random(probs.shape) < 0.5] = 0.0
        if probs.sum() == 0:
            return
        probs /= probs.sum()
    sol = betgame.solve(probs, game=game)
    assert sol.status == "Optimal"
    assert sol.nash_conv <= 1e-9
    # independent re-computation of NashConv from the two best responses
    br1 = betgame.player1_best_response(probs, sol.call_probability, game)
    br2 = betgame.player2_best_response(probs, sol.strategy, game)
    assert br1.value - br2.value <= 1e-9
    assert br2.value <= sol.value + 1e-9 <= br1.value + 2e-9
    # the value is the payoff of the pair
    assert betgame.expected_payoff(probs, sol.strategy, sol.call_probability, game) == pytest.approx(
        sol.value, abs=1e-9)
    assert np.allclose(sol.strategy.sum(axis=1), 1.0)
    assert np.all((sol.call_probability >= 0) & (sol.call_probability <= 1))


def test_solve_many_matches_solve():
    _, _, probs = random_deal(10, np.random.default_rng(7), 5)
    many = betgame.solve_many(probs)
    for p, s in zip(probs, many):
        assert betgame.solve(p).value == pytest.approx(s.value, abs=1e-12)


# ------------------------------------------------------------------------------------------ closed form vs brute force
def brute_force_p2_value(probs, strategy, game):
    """Minimum over *all* pure player-2 strategies of the directly evaluated payoff (independent of Algorithm 3)."""
    n, nb = game.n_cards, game.n_bets
    decisions = [(j, b) for j in range(n) for b in range(nb) if game.bets[b] > 0]
    best = np.inf
    for bits in itertools.product((0.0, 1.0), repeat=len(decisions)):
        call = np.ones((n, nb))
        for (j, b), c in zip(decisions, bits):
            call[j, b] = c
        best = min(best, betgame.expected_payoff(probs, strategy, call, game))
    return best


def brute_force_p1_value(probs, call, game):
    n, nb = game.n_cards, game.n_bets
    best = -np.inf
    for bets in itertools.product(range(nb), repeat=n):
        strat = np.zeros((n, nb))
        strat[np.arange(n), bets] = 1.0
        best = max(best, betgame.expected_payoff(probs, strat, call, game))
    return best


SMALL = BetGame(n_cards=4, ante=0.5, stack=2.0, bets=(0.0, 0.5, 2.0))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_closed_form_best_responses_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    game = SMALL
    _, _, probs = random_deal(game.n_cards, rng)
    strategy = rng.dirichlet(np.ones(game.n_bets) * 0.5, size=game.n_cards)
    call = rng.random((game.n_cards, game.n_bets))
    br2 = betgame.player2_best_response(probs, strategy, game)
    assert br2.value == pytest.approx(brute_force_p2_value(probs, strategy, game), abs=1e-12)
    assert betgame.expected_payoff(probs, strategy, br2.call_probability, game) == pytest.approx(br2.value, abs=1e-12)
    br1 = betgame.player1_best_response(probs, call, game)
    assert br1.value == pytest.approx(brute_force_p1_value(probs, call, game), abs=1e-12)
    assert betgame.expected_payoff(probs, br1.strategy, call, game) == pytest.approx(br1.value, abs=1e-12)
    # exploitability = value - worst case, against the LP value
    value = betgame.solve(probs, game=game).value
    expl = betgame.player1_exploitability(probs, strategy, value, game)
    assert expl == pytest.approx(value - brute_force_p2_value(probs, strategy, game), abs=1e-12)
    assert expl >= -1e-12


def test_exploitability_batch_matches_single_and_solves_when_value_missing():
    rng = np.random.default_rng(3)
    _, _, probs = random_deal(10, rng, 6)
    strategies = rng.dirichlet(np.ones(31), size=(6, 10))
    values = np.array([s.value for s in betgame.solve_many(probs)])
    batch = betgame.player1_exploitability(probs, strategies, values)
    assert isinstance(batch, np.ndarray) and batch.shape == (6,)
    singles = [betgame.player1_exploitability(p, s, v) for p, s, v in zip(probs, strategies, values)]
    assert all(isinstance(x, float) for x in singles)
    assert np.allclose(batch, singles, atol=1e-14)
    assert np.allclose(betgame.player1_exploitability(probs, strategies), batch, atol=1e-12)
    assert np.all(batch > 0)


def test_parallel_and_serial_drivers_agree():
    """Large batches run the prange driver, small ones the serial loop: both give the same numbers."""
    from games.betgame import best_response as br

    rng = np.random.default_rng(11)
    n = br.PARALLEL_MIN_BATCH + 5
    _, _, probs = random_deal(10, rng, n)
    strategies = rng.dirichlet(np.ones(31), size=(n, 10))
    calls = rng.random((n, 10, 31))
    big = betgame.player2_best_response(probs, strategies)
    big1 = betgame.player1_best_response(probs, calls)
    conv = betgame.nash_conv(probs, strategies, calls)
    expl = betgame.player1_exploitability(probs, strategies, np.zeros(n))
    for g in (0, 7, n - 1):
        small = betgame.player2_best_response(probs[g], strategies[g])
        small1 = betgame.player1_best_response(probs[g], calls[g])
        assert big.value[g] == pytest.approx(small.value, abs=1e-14)
        assert np.array_equal(big.call_probability[g], small.call_probability)
        assert big1.value[g] == pytest.approx(small1.value, abs=1e-14)
        assert np.array_equal(big1.strategy[g], small1.strategy)
        assert conv[g] == pytest.approx(betgame.nash_conv(probs[g], strategies[g], calls[g]), abs=1e-14)
        assert expl[g] == pytest.approx(-small.value, abs=1e-14)


# ------------------------------------------------------------------------------------------ bad input
def good_deal():
    return uniform_deal(10)


def good_strategy():
    s = np.zeros((10, 31))
    s[:, 0] = 1
    return s


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p * 2, "sum to 1"),
    (lambda p: np.where(np.eye(10, k=1) > 0, -0.01, p) * (1 / np.where(np.eye(10, k=1) > 0, -0.01, p).sum()),
     "negative"),
    (lambda p: p[:9, :9] / p[:9, :9].sum(), "shape"),
    (lambda p: np.where(np.eye(10, k=1) > 0, np.nan, p), "NaN"),
    (lambda p: (p + np.eye(10) * 0.01) / (p + np.eye(10) * 0.01).sum(), "same card"),
    (lambda p: p[None, None], "dimensions"),
])
def test_bad_deal_raises(mutate, message):
    with pytest.raises(ValueError, match=message):
        betgame.solve(mutate(good_deal()))
    with pytest.raises(ValueError, match=message):
        betgame.player1_exploitability(mutate(good_deal()), good_strategy(), 0.0)


@pytest.mark.parametrize("mutate, message", [
    (lambda s: s * 0.5, "sum to 1"),
    (lambda s: s[:, :30], "shape"),
    (lambda s: np.where(s == 1, np.nan, s), "NaN"),
    (lambda s: np.hstack([s[:, :1] + 0.5, np.full((10, 1), -0.5), s[:, 2:]]), "negative"),
])
def test_bad_strategy_raises(mutate, message):
    with pytest.raises(ValueError, match=message):
        betgame.player1_exploitability(good_deal(), mutate(good_strategy()), 0.0)


def test_bad_game_and_batch_shapes():
    with pytest.raises(ValueError, match="bet grid"):
        BetGame(bets=())
    with pytest.raises(ValueError, match="increasing"):
        BetGame(bets=(0.0, 1.0, 0.5))
    with pytest.raises(ValueError, match="stack"):
        BetGame(bets=(0.0, 5.0))
    with pytest.raises(ValueError, match="ante"):
        BetGame(ante=0)
    with pytest.raises(ValueError, match="value"):
        betgame.player1_exploitability(np.stack([good_deal()] * 2), np.stack([good_strategy()] * 2), [0.0])
    with pytest.raises(ValueError, match="batch"):
        betgame.player1_exploitability(np.stack([good_deal()] * 2), good_strategy(), [0.0, 0.0])
    with pytest.raises(ValueError, match="call_probability"):
        betgame.nash_conv(good_deal(), good_strategy(), np.full((10, 31), 1.5))


def test_joint_deal_rejects_bad_pmfs():
    with pytest.raises(ValueError, match="x1 must sum to 1"):
        joint_deal([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="x2 has a negative"):
        joint_deal([0.5, 0.5], [1.5, -0.5])
    with pytest.raises(ValueError, match="common card"):
        joint_deal([1.0, 0.0], [1.0, 0.0])

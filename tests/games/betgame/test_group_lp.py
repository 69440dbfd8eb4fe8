"""The group LP: the single strategy with the least mean exploitability over a group of bet games."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from games import betgame
from games.betgame import BetGame
from games.betgame.group_lp import group_player1_exploitability, optimal_group_strategy
from rulelearn.data.distributions import random_deal

GAMES = [
    BetGame(n_cards=4, bets=(0.0, 0.5, 1.0, 2.0), stack=2.0),
    BetGame(n_cards=3, bets=(0.0, 1.0)),
    BetGame(n_cards=5, stack=2.0, bets=(0.5, 1.0, 2.0)),  # no check in the grid
    BetGame(n_cards=6, ante=1.0, stack=4.0, bet_step=1.0),
]


def random_group(game: BetGame, n_games: int, seed: int, sparse: bool = False):
    rng = np.random.default_rng(seed)
    _, _, probs = random_deal(game.n_cards, rng, n_games)
    if sparse:  # some cards never dealt in some games
        probs[rng.random(probs.shape) < 0.4] = 0.0
        empty = probs.sum(axis=(1, 2)) == 0
        probs[empty, 0, -1] = 1.0  # P1 holds the worst card, P2 the best
        probs /= probs.sum(axis=(1, 2), keepdims=True)
    sols = betgame.solve_many(probs, game=game)
    return probs, np.array([s.value for s in sols]), np.array([s.strategy for s in sols])


def dense_primal_optimum(probs, values, weights, game: BetGame) -> float:
    """Independent check: the *primal* LP (x and one t per game and information set), dense, by linprog.

    minimise  sum_g w_g (sum_j gain_g[j, check](x) + sum_{j, b>0} t[g, j, b])  s.t.  t >= gain(x), t >= 0,
    sum_b x[i, b] = 1, x >= 0; the mean exploitability is mean(v) - ante + optimum / sum(w).
    """
    n, nb = game.n_cards, game.n_bets
    bets = game.bet_array
    g_count = probs.shape[0]
    pos = [b for b in range(nb) if bets[b] > 0]
    nx, nt = n * nb, g_count * n * len(pos)
    c = np.zeros(nx + nt)
    a_ub, b_ub = [], []
    col = nx
    for g in range(g_count):
        for j in range(n):
            for b in range(nb):
                coef = np.zeros(nx + nt)
                for i in range(n):
                    if i < j:
                        coef[i * nb + b] = probs[g, i, j] * (2 * game.ante + bets[b])
                    elif i > j:
                        coef[i * nb + b] = -probs[g, i, j] * bets[b]
                if bets[b] == 0:
                    c += weights[g] * coef
                else:
                    coef[col] = -1.0  # gain - t <= 0
                    a_ub.append(coef)
                    b_ub.append(0.0)
                    c[col] = weights[g]
                    col += 1
    a_eq = np.zeros((n, nx + nt))
    for i in range(n):
        a_eq[i, i * nb:(i + 1) * nb] = 1.0
    res = linprog(c, A_ub=np.array(a_ub), b_ub=np.array(b_ub), A_eq=a_eq, b_eq=np.ones(n),
                  bounds=[(0, None)] * (nx + nt), method="highs-ipm")
    assert res.status == 0
    w = np.asarray(weights, dtype=float)
    return float(np.dot(w, values) / w.sum() - game.ante + res.fun / w.sum())


# ------------------------------------------------------------------------------------------ exactness
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(GAMES), st.integers(1, 4), st.booleans())
def test_optimum_is_attained_and_no_member_or_mean_strategy_beats_it(seed, game, n_games, sparse):
    probs, values, strategies = random_group(game, n_games, seed, sparse)
    res = optimal_group_strategy(probs, values, game=game)
    assert res.status == "Optimal" and res.verified
    assert res.strategy.shape == (game.n_cards, game.n_bets)
    assert np.all(res.strategy >= 0) and np.allclose(res.strategy.sum(axis=1), 1.0)
    closed = betgame.player1_exploitability(probs, np.broadcast_to(res.strategy, strategies.shape).copy(), values, game)
    assert np.allclose(res.exploitability, closed, atol=1e-12)
    assert res.mean_exploitability == pytest.approx(closed.mean(), abs=1e-12)
    assert abs(res.mean_exploitability - res.lp_optimum) <= 1e-9
    # the medoid-style choices (any member's equilibrium) and the mean strategy are never better
    for s in list(strategies) + [strategies.mean(axis=0)]:
        assert group_player1_exploitability(probs, s, values, game=game) >= res.mean_exploitability - 1e-9
    # nor is any random strategy (convexity: the LP optimum is the global minimum)
    rng = np.random.default_rng(seed)
    for _ in range(5):
        x = rng.dirichlet(np.full(game.n_bets, 0.3), size=game.n_cards)
        assert group_player1_exploitability(probs, x, values, game=game) >= res.mean_exploitability - 1e-9


@pytest.mark.parametrize("game", GAMES + [betgame.DEFAULT_GAME])
def test_group_of_one_game_has_optimum_zero(game):
    probs, values, _ = random_group(game, 1, 11)
    res = optimal_group_strategy(probs, values, game=game)
    assert abs(res.mean_exploitability) <= 1e-9
    # the returned strategy is an equilibrium strategy of that game
    assert betgame.player1_exploitability(probs[0], res.strategy, values[0], game) <= 1e-9


@pytest.mark.parametrize("game,n_games,seed", [(GAMES[0], 3, 1), (GAMES[2], 2, 2), (GAMES[3], 3, 3),
                                               (betgame.DEFAULT_GAME, 2, 4)])
def test_matches_independent_dense_primal_lp(game, n_games, seed):
    probs, values, _ = random_group(game, n_games, seed)
    weights = np.random.default_rng(seed).uniform(0.2, 2.0, n_games)
    res = optimal_group_strategy(probs, values, weights, game=game)
    slow = dense_primal_optimum(probs, values, weights, game)
    assert res.mean_exploitability == pytest.approx(slow, abs=1e-7)


def test_integer_weights_equal_repeated_games():
    game = GAMES[0]
    probs, values, _ = random_group(game, 3, 5)
    weighted = optimal_group_strategy(probs, values, [2, 1, 3], game=game)
    repeated = optimal_group_strategy(probs[[0, 0, 1, 2, 2, 2]], values[[0, 0, 1, 2, 2, 2]], game=game)
    assert weighted.mean_exploitability == pytest.approx(repeated.mean_exploitability, abs=1e-10)
    # a zero weight drops a game
    dropped = optimal_group_strategy(probs, values, [1, 0, 1], game=game)
    kept = optimal_group_strategy(probs[[0, 2]], values[[0, 2]], game=game)
    assert dropped.mean_exploitability == pytest.approx(kept.mean_exploitability, abs=1e-10)


def test_a_larger_group_of_the_papers_game():
    probs, values, strategies = random_group(betgame.DEFAULT_GAME, 30, 9)
    res = optimal_group_strategy(probs, values)
    assert res.verified
    assert 0 < res.mean_exploitability < group_player1_exploitability(probs, strategies.mean(axis=0), values)


# ------------------------------------------------------------------------------------------ bet pricing
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(GAMES + [betgame.DEFAULT_GAME]), st.integers(1, 12),
       st.booleans(), st.booleans())
def test_pricing_over_bets_matches_the_whole_lp(seed, game, n_games, sparse, weighted):
    """The default method (player 1 restricted to a few bets, more added by pricing) against the whole LP."""
    probs, values, _ = random_group(game, n_games, seed, sparse)
    weights = np.random.default_rng(seed).uniform(0.1, 3.0, n_games) if weighted else None
    full = optimal_group_strategy(probs, values, weights, game=game, method="full")
    priced = optimal_group_strategy(probs, values, weights, game=game)
    assert full.verified and priced.verified
    assert priced.mean_exploitability == pytest.approx(full.mean_exploitability, abs=1e-9)
    assert priced.lp_optimum == pytest.approx(full.lp_optimum, abs=1e-9)
    # a start strategy only changes where the search begins
    rng = np.random.default_rng(seed + 1)
    start = rng.dirichlet(np.full(game.n_bets, 0.2), size=game.n_cards)
    for guess in (start, full.strategy):
        warm = optimal_group_strategy(probs, values, weights, game=game, start=guess)
        assert warm.verified
        assert warm.mean_exploitability == pytest.approx(full.mean_exploitability, abs=1e-9)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(21, 45))
def test_pricing_from_a_subsample_start_matches_the_whole_lp(seed, n_games):
    """Above COLD_START_GAMES games the first bets come from a subsample's optimum; the result must not change."""
    probs, values, _ = random_group(betgame.DEFAULT_GAME, n_games, seed)
    full = optimal_group_strategy(probs, values, method="full")
    priced = optimal_group_strategy(probs, values)
    assert priced.verified
    assert priced.mean_exploitability == pytest.approx(full.mean_exploitability, abs=1e-9)
    # lp_optimum comes from an exactly feasible dual point, so it lies below every strategy's mean
    # exploitability up to rounding alone: its sum over the n cards of G (n - 1) call terms, and each game's
    # closed-form best response (n^2 B terms), both with absolute terms adding up to at most 2 ante + max bet
    # chips per game (unit probability mass, weights of mean 1); a float64 sum of m terms errs by at most
    # m u times their absolute sum (u = 2**-53; Higham 2002, eq. 4.4)
    game = betgame.DEFAULT_GAME
    n, n_bets = game.n_cards, game.n_bets
    u = np.finfo(np.float64).eps / 2
    rounding = 2 * u * (2 * game.ante + game.stack) * (n_games * n * (n - 1) + n * n * n_bets)
    assert priced.lp_optimum <= priced.mean_exploitability + rounding
    assert full.lp_optimum <= full.mean_exploitability + rounding


def test_pricing_on_database_sized_groups():
    """Groups of the paper's game as large as the rule sets' leaves use: both methods agree."""
    probs, values, strategies = random_group(betgame.DEFAULT_GAME, 60, 21)
    full = optimal_group_strategy(probs, values, method="full")
    priced = optimal_group_strategy(probs, values)
    assert priced.verified
    assert priced.mean_exploitability == pytest.approx(full.mean_exploitability, abs=1e-9)
    assert priced.mean_exploitability < group_player1_exploitability(probs, strategies.mean(axis=0), values)


# ------------------------------------------------------------------------------------------ bad input
def test_bad_input_is_rejected():
    probs, values, _ = random_group(GAMES[0], 2, 0)
    game = GAMES[0]
    with pytest.raises(ValueError, match="weights"):
        optimal_group_strategy(probs, values, [1.0, -1.0], game=game)
    with pytest.raises(ValueError, match="weights"):
        optimal_group_strategy(probs, values, [0.0, 0.0], game=game)
    with pytest.raises(ValueError, match="weights"):
        optimal_group_strategy(probs, values, [1.0], game=game)
    with pytest.raises(ValueError, match="values"):
        optimal_group_strategy(probs, values[:1], game=game)
    with pytest.raises(ValueError, match="values"):
        optimal_group_strategy(probs, [np.nan, 0.0], game=game)
    with pytest.raises(ValueError, match="probs"):
        optimal_group_strategy(probs[:, :3, :3], values, game=game)
    with pytest.raises(ValueError, match="strategy"):
        group_player1_exploitability(probs, np.ones((4, 3)), values, game=game)
    with pytest.raises(ValueError, match="method"):
        optimal_group_strategy(probs, values, game=game, method="simplex")
    with pytest.raises(ValueError, match="start"):
        optimal_group_strategy(probs, values, game=game, start=np.ones((3, 3)))


def test_docstring_examples():
    import doctest

    from games.betgame import group_lp

    result = doctest.testmod(group_lp)
    assert result.attempted > 0 and result.failed == 0

"""The CFR family: convergence on Kuhn, Leduc and the bet game, the variants as parameters, bad parameters."""

import math

import numpy as np
import pytest

from games import betgame
from games.betgame import BetGameTree
from games.core import VARIANTS, CFRConfig, exploitability, load_game, solve_cfr
from games.core.cfr import variant
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem
from rulelearn.data.distributions import uniform_deal

GAMES = {"kuhn": KuhnPoker, "leduc": LeducHoldem, "betgame": lambda: BetGameTree(uniform_deal(10))}
VALUES = {"kuhn": -1 / 18, "leduc": -0.085606424078, "betgame": 0.065736485736}
# generous caps; the iterations actually needed are far fewer for cfr+ and dcfr
MAX_ITER = {"cfr": 300_000, "cfr+": 5_000, "dcfr": 5_000}


@pytest.fixture(scope="module")
def games():
    return {k: f() for k, f in GAMES.items()}


# vanilla CFR on Leduc needs tens of thousands of iterations (about 40 s): a slow test; vanilla CFR stays in the
# default run on Kuhn and the bet game, and against DCFR and CFR+ on Leduc below
CASES = [pytest.param(name, method, marks=pytest.mark.slow) if (name, method) == ("leduc", "cfr") else (name, method)
         for name in ("kuhn", "leduc", "betgame") for method in ("cfr", "cfr+", "dcfr")]


@pytest.mark.parametrize("name, method", CASES)
def test_converges_below_a_thousandth_of_the_pot(games, name, method):
    game = games[name]
    target = 1e-3 * game.pot
    check = 500 if method == "cfr" else 1
    res = solve_cfr(game, method, iterations=MAX_ITER[method], target=target, check_every=check)
    assert res.converged, (name, method, res.iterations, res.exploitability.exploitability)
    assert res.exploitability.exploitability <= target
    # independent recomputation of the exploitability of the returned average policy
    again = exploitability(game, res.policy)
    assert again.exploitability == pytest.approx(res.exploitability.exploitability, abs=1e-14)
    assert res.log_exploitability[-1] == pytest.approx(again.exploitability, abs=1e-14)
    # an epsilon-equilibrium's value is within NashConv of the game value
    assert abs(res.value - VALUES[name]) <= again.nash_conv + 1e-9


def test_dcfr_and_cfr_plus_are_much_faster_than_vanilla_on_leduc(games):
    game = games["leduc"]
    iters = {m: solve_cfr(game, m, iterations=5000, target=2e-3).iterations for m in ("cfr+", "dcfr")}
    assert iters["dcfr"] < 1000 and iters["cfr+"] < 1000
    vanilla = solve_cfr(game, "cfr", iterations=1000, check_every=1000)
    assert vanilla.exploitability.exploitability > 2e-3


def test_log_is_per_iteration_and_monotone_in_time(games):
    res = solve_cfr(games["kuhn"], "dcfr", iterations=50)
    np.testing.assert_array_equal(res.log_iterations, np.arange(1, 51))
    assert res.log_exploitability.shape == (50,) and np.all(res.log_exploitability >= 0)
    assert np.all(np.diff(res.log_seconds) >= 0)
    assert res.iterations == 50 and not res.converged and res.target is None
    sparse = solve_cfr(games["kuhn"], "dcfr", iterations=55, check_every=10)
    np.testing.assert_array_equal(sparse.log_iterations, [10, 20, 30, 40, 50, 55])
    # the trajectory does not depend on how often it is measured
    assert sparse.log_exploitability[4] == pytest.approx(res.log_exploitability[49], abs=1e-15)


def test_target_stops_early(games):
    res = solve_cfr(games["kuhn"], "cfr+", iterations=100_000, target=1e-2)
    assert res.converged and res.iterations < 1000
    assert res.log_exploitability[-1] <= 1e-2 < res.log_exploitability[-2]


def test_progress_bar_runs(games, capsys):
    res = solve_cfr(games["kuhn"], "dcfr", iterations=20, progress=True)
    assert res.iterations == 20
    assert "dcfr kuhn" in capsys.readouterr().err


def test_variants_are_parameters_of_one_loop(games):
    game = games["leduc"]
    # regret matching+ is beta = -inf: bit-for-bit the same run
    a = solve_cfr(game, "cfr+", iterations=40, check_every=40)
    b = solve_cfr(game, CFRConfig(beta=-math.inf, alternating=True, gamma=1.0), iterations=40, check_every=40)
    np.testing.assert_array_equal(a.policy.probs, b.policy.probs)
    # alpha = beta = inf is no discount: DCFR with infinite exponents is vanilla alternating CFR with gamma 2
    c = solve_cfr(game, "dcfr", alpha=math.inf, beta=math.inf, iterations=40, check_every=40)
    d = solve_cfr(game, CFRConfig(alternating=True, gamma=2.0), iterations=40, check_every=40)
    np.testing.assert_array_equal(c.policy.probs, d.policy.probs)
    # the knobs matter: simultaneous vs alternating, discounting, averaging weights
    e = solve_cfr(game, "cfr", iterations=40, check_every=40)
    f = solve_cfr(game, CFRConfig(alternating=True), iterations=40, check_every=40)
    assert not np.allclose(e.policy.probs, f.policy.probs)
    assert not np.allclose(c.policy.probs, solve_cfr(game, "dcfr", iterations=40).policy.probs)


def test_averaging_delay_drops_early_iterations(games):
    game = games["kuhn"]
    late = solve_cfr(game, CFRConfig(regret_matching_plus=True, alternating=True, gamma=0.0, averaging_delay=30),
                     iterations=31, check_every=31)
    # with a delay of 30, only iteration 31 enters the average: the average equals the 31st iterate...
    cur30 = solve_cfr(game, "cfr+", iterations=30, check_every=30).current_policy
    # ... which is the strategy regret matching produced after 30 iterations
    mask = np.zeros_like(late.policy.probs, dtype=bool)
    t = game.tree
    for p in (0, 1):
        for n in t.decision_nodes(p):
            kids = t.children(n)
            mask[kids.start:kids.stop, :3] = True
    np.testing.assert_allclose(late.policy.probs[mask], cur30.probs[mask], atol=1e-12)


def test_named_variants():
    assert VARIANTS["cfr"] == CFRConfig(name="cfr")
    v = VARIANTS["cfr+"]
    assert v.regret_matching_plus and v.alternating and v.gamma == 1.0 and v.alpha is None and v.beta is None
    d = VARIANTS["dcfr"]
    assert (d.alpha, d.beta, d.gamma, d.alternating, d.regret_matching_plus) == (1.5, 0.0, 2.0, True, False)
    assert variant("DCFR", gamma=3.0).gamma == 3.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(alpha=-0.5), "alpha must be >= 0"),
    (dict(alpha=float("nan")), "alpha must not be NaN"),
    (dict(beta=float("nan")), "beta must not be NaN"),
    (dict(beta="x"), "beta must be a number"),
    (dict(gamma=-1.0), "gamma must be finite and >= 0"),
    (dict(gamma=math.inf), "gamma must be finite and >= 0"),
    (dict(averaging_delay=-1), "averaging_delay must be an integer >= 0"),
    (dict(regret_matching_plus=True, beta=0.0), "regret_matching_plus=True already sets negative regrets"),
])
def test_bad_parameters_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        CFRConfig(**kwargs)


def test_bad_solver_arguments_raise(games):
    game = games["kuhn"]
    with pytest.raises(ValueError, match="unknown CFR variant 'cfr-'"):
        solve_cfr(game, "cfr-")
    with pytest.raises(ValueError, match="unknown CFR parameter"):
        solve_cfr(game, "dcfr", delta=1.0)
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        solve_cfr(game, "dcfr", alpha=-1.0)
    with pytest.raises(ValueError, match="iterations must be an integer >= 1"):
        solve_cfr(game, "dcfr", iterations=0)
    with pytest.raises(ValueError, match="check_every"):
        solve_cfr(game, "dcfr", check_every=0)
    with pytest.raises(ValueError, match="target exploitability must be >= 0"):
        solve_cfr(game, "dcfr", target=-1.0)


def test_cfr_result_policy_is_valid_and_converted_for_the_betgame():
    probs = uniform_deal(10)
    game = load_game("betgame")
    res = solve_cfr(game, "dcfr", iterations=3000, target=1e-4)
    x, call = game.strategies(res.policy)
    assert betgame.nash_conv(probs, x, call) == pytest.approx(res.exploitability.nash_conv, abs=1e-12)

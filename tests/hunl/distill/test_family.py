"""The hunl_river game family: split-independent solve_range, exact columns, the stored float16 policy against the
solver's, protocol methods against the core best response, a tiny database end to end, bad parameters."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core import Policy, best_response
from games.core import exploitability as core_exploitability
from hunl.distill.family import HoldemRiverFamily, combo_policy, edge_policy
from hunl.poker.cards import board_conflicts
from hunl.solver.solve import solve_endgame
from rulelearn.cli import build_parser
from rulelearn.data.database import SolutionDatabase
from rulelearn.family import FAMILIES, GameFamily, load_family

SMALL = dict(max_combos=60, bayes_combos=30, bayes_iterations=20, iterations=300, target_pct_pot=0.5,
             range_models=(("preflop", 0.4), ("strength", 0.4), ("bayes", 0.2)))
TIMING = ("seconds", "solve_seconds")
SEED = 6  # endgames 1 and 3 of this stream have ranges of the "bayes" model
TINY = HoldemRiverFamily(max_combos=25, range_models=("preflop", "strength"))


@pytest.fixture(scope="module")
def family():
    return HoldemRiverFamily(**SMALL)


@pytest.fixture(scope="module")
def columns(family):
    return family.solve_range(SEED, 0, 4)


def test_registered_and_protocol(family):
    assert FAMILIES["hunl_river"] == "hunl.distill.family:HoldemRiverFamily"
    assert isinstance(family, GameFamily) and family.name == "hunl_river"
    assert load_family("hunl_river", **family.params()) == family
    assert family.action_labels == ["check", "bet 0.5 pot", "bet 1 pot", "all-in"]
    assert family.action_values[:3] == [0.0, 0.5, 1.0] and family.action_values[3] > 1.5
    assert len(family.hand_labels) == 1326


def test_columns_have_fixed_shapes_and_dtypes(family, columns):
    n = family.n_nodes
    assert columns["game_id"].dtype == np.int64 and np.array_equal(columns["game_id"], np.arange(4))
    assert columns["verified"].dtype == bool
    assert columns["board"].shape == (4, 5) and columns["board"].dtype == np.int8
    assert columns["weights"].shape == (4, 2, 1326) and columns["weights"].dtype == np.float32
    assert columns["policy"].shape == (4, n, 1326) and columns["policy"].dtype == np.float16
    for name in ("pot", "stack", "exploitability_pct_pot", "exploitability_mbb", "value_chips", "seconds"):
        assert columns[name].dtype == np.float64 and np.all(np.isfinite(columns[name]))
    assert columns["iterations"].dtype == np.int64
    assert all(isinstance(x, str) for x in columns["range_model_1"])
    assert any(m.startswith("bayes") for m in columns["range_model_1"])
    # the policy is 0 outside the acting player's range and on the root row
    assert not np.any(columns["policy"][:, 0])
    for i in range(4):
        w = columns["weights"][i]
        assert not np.any(w[:, board_conflicts(columns["board"][i].tolist())])
        p1_rows = columns["policy"][i, 1:5]
        assert not np.any(p1_rows[:, w[0] == 0])
        assert np.allclose(p1_rows[:, w[0] > 0].astype(np.float64).sum(axis=0), 1.0, atol=3e-3)


def test_solve_range_is_independent_of_the_split(family, columns):
    parts = [family.solve_range(SEED, 0, 2), family.solve_range(SEED, 2, 4)]
    for name, col in columns.items():
        if name in TIMING:
            continue
        joined = np.concatenate([p[name] for p in parts])
        assert np.array_equal(joined, col), name


def test_game_rebuilds_the_sampled_endgame(family, columns):
    for i in range(4):
        e = family.sampler.sample(SEED, i)
        g = family.game(columns, i)
        assert np.array_equal(columns["board"][i], e.board) and g.pot == e.pot and g.config.stack == e.stack
        assert np.array_equal(columns["weights"][i], e.weights.astype(np.float32))
        assert (columns["range_model_1"][i], columns["range_model_2"][i]) == e.range_models
        assert g.tree.n_nodes == family.n_nodes


def test_stored_policy_reproduces_the_stored_figures(family, columns):
    for i in range(4):
        g = family.game(columns, i)
        pol = Policy(g, family.policy_array(columns, i, g))          # valid: rows sum to 1
        res = core_exploitability(g, pol)
        assert res.exploitability == pytest.approx(columns["exploitability_chips"][i], rel=1e-9, abs=1e-9)
        assert 100 * res.exploitability / g.pot == pytest.approx(columns["exploitability_pct_pot"][i], rel=1e-9)
        assert res.policy_values[0] == pytest.approx(columns["value_chips"][i], rel=1e-9, abs=1e-9)
        assert columns["verified"][i] == (columns["exploitability_pct_pot"][i] <= family.target_pct_pot)


def test_float16_storage_moves_exploitability_by_little(family, columns):
    """Solve again in full precision: the stored (float16) policy's exploitability is the solver's within the
    effect of rounding each probability by at most 2**-11 relative: bounded by the largest payoff times the
    largest rounding error, summed over the (at most 3) own actions on a path, for both players."""
    for i in range(4):
        g = family.game(columns, i)
        sol = solve_endgame(g, family.algorithm, iterations=family.iterations, target_pct_pot=family.target_pct_pot)
        assert sol.iterations == columns["iterations"][i]
        assert sol.exploitability_pct_pot == pytest.approx(columns["solver_exploitability_pct_pot"][i], rel=1e-12)
        bound = 2 * 3 * 2.0**-10 * (g.pot / 2 + g.config.stack)
        assert abs(sol.exploitability_chips - columns["exploitability_chips"][i]) <= bound
        # and the layout round trip is exact before rounding
        back = edge_policy(g, combo_policy(g, sol.result.policy.probs))
        assert np.allclose(Policy(g, back).probs, sol.result.policy.probs, atol=1e-12)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.floats(0.05, 5.0))
def test_layouts_round_trip(k, concentration):
    g = TINY.sampler.game(TINY.sampler.sample(1, k))
    pol = Policy.random(g, rng=k, concentration=concentration)
    combo = combo_policy(g, pol.probs)
    assert np.allclose(edge_policy(g, combo), pol.probs, rtol=1e-14, atol=0)  # rows summed to 1 already
    for p in (0, 1):                                                    # each combo's actions in the combo layout
        for n in g.tree.decision_nodes(p):
            kids = list(g.tree.children(n))
            assert np.array_equal(combo[np.ix_(kids, g.combos[p])], pol.at(n).T)
            outside = np.setdiff1d(np.arange(1326), g.combos[p])
            assert not np.any(combo[np.ix_(kids, outside)])
    half = edge_policy(g, combo.astype(np.float16))
    Policy(g, half)                                                     # valid after rounding
    assert np.allclose(half, pol.probs, rtol=2.0**-9, atol=2.0**-24)


def test_protocol_ranges_strategies_and_exploitability(family, columns):
    r = family.ranges(columns)
    assert r.shape == (4, 2, 1326) and np.allclose(r.sum(axis=-1), 1.0)
    s = family.strategies(columns)
    assert s.shape == (4, 1326, 4) and np.allclose(s.sum(axis=-1), 1.0)
    outside = columns["weights"][:, 0] == 0
    assert np.all(s[outside] == np.array([1.0, 0, 0, 0]))
    e = family.player1_exploitability(columns, s)
    scale = columns["pot"] / 2 + columns["stack"]                               # the largest payoffs, chips
    # the stored strategies score their stored exploitability (NashConv / 2)
    assert np.allclose(e, columns["exploitability_chips"], rtol=0, atol=1e-5 * scale.max())
    for i in range(4):
        g = family.game(columns, i)
        pol = Policy(g, family.policy_array(columns, i, g))
        assert best_response(g, pol, 0).value == pytest.approx(columns["best_response_value_1"][i], abs=1e-5 * scale[i])
        assert best_response(g, pol, 1).value == pytest.approx(columns["best_response_value_2"][i], abs=1e-5 * scale[i])
    # no root strategy beats the bracket of the game value: the score is >= -stored exploitability
    rng = np.random.default_rng(0)
    trials = [rng.dirichlet(np.full(4, 0.3), size=(4, 1326)) for _ in range(3)]
    for a in range(4):
        pure = np.zeros_like(s)
        pure[..., a] = 1.0
        trials.append(pure)
    for t in trials:
        et = family.player1_exploitability(columns, t)
        assert np.all(et >= -columns["exploitability_chips"] - 1e-5 * scale)
        assert et.mean() > e.mean()   # a strong range may shove almost for free, but not on average


def test_tiny_database_end_to_end(family, tmp_path):
    db = SolutionDatabase(tmp_path / "hunl")
    report = db.generate("hunl_river", 3, seed=5, shard_size=2, workers=1, progress=False,
                         family_params=family.params())
    assert report.n_solved == 3
    cols = db.load(verified_only=False)
    assert db.family() == family
    direct = family.solve_range(5, 0, 3)
    for name, col in direct.items():
        if name not in TIMING:
            assert np.array_equal(cols[name], col), name
    g = family.game(cols, 2)
    assert core_exploitability(g, family.policy_array(cols, 2, g)).exploitability == pytest.approx(
        cols["exploitability_chips"][2], rel=1e-9)


def test_a_family_object_records_its_parameters(tmp_path):
    # given as an object without family_params, the family's own params() are recorded, so that the database can
    # rebuild it (scripts load databases by their record); a resumed database keeps the record it has
    db = SolutionDatabase(tmp_path / "hunl")
    db.generate(TINY, 1, seed=5, workers=1, progress=False)
    assert db.manifest["family_params"] == json.loads(json.dumps(TINY.params()))
    assert db.family() == TINY
    db.generate(TINY, 2, seed=5, workers=1, progress=False)            # resumed: the same record
    assert len(db) == 2 and db.family() == TINY
    old = SolutionDatabase(tmp_path / "explicit")                     # an explicit record is kept as given
    old.generate(TINY, 1, seed=5, workers=1, progress=False, family_params=TINY.params())
    old.generate(TINY, 2, seed=5, workers=1, progress=False)
    assert len(old) == 2


def test_cli_accepts_the_family_name():
    args = build_parser().parse_args(["generate", "--family", "hunl_river", "--db", "x", "--games", "3"])
    assert args.game == "hunl_river"


@pytest.mark.parametrize("kwargs, name", [
    (dict(iterations=0), "iterations"),
    (dict(target_pct_pot=-0.1), "target_pct_pot"),
    (dict(target_pct_pot=float("nan")), "target_pct_pot"),
    (dict(algorithm="lp"), "algorithm"),
    (dict(bet_sizes={"bets": [0.5], "sizes": [1]}), "bet_sizes"),
    (dict(spr=(0.5, 2.0)), "spr"),
])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(ValueError, match=name):
        HoldemRiverFamily(**kwargs)


def test_bet_sizes_of_the_wrong_type():
    with pytest.raises(TypeError, match="bet_sizes"):
        HoldemRiverFamily(bet_sizes=[0.5, 1.0])


def test_bad_calls(family, columns):
    with pytest.raises(ValueError, match="stop"):
        family.solve_range(0, 3, 3)
    with pytest.raises(ValueError, match="strategies"):
        family.player1_exploitability(columns, np.zeros((4, 1326, 3)))
    with pytest.raises(ValueError, match="strategies"):
        family.player1_exploitability(columns, np.zeros((4, 1326, 4)))
    with pytest.raises(ValueError, match="columns"):
        family.game({"pot": columns["pot"]}, 0)
    with pytest.raises(TypeError, match="columns"):
        family.ranges([columns["weights"]])
    with pytest.raises(ValueError, match="i must"):
        family.game(columns, 4)

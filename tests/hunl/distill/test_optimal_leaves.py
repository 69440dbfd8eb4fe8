"""Exploitability-optimal leaf strategies (CFR-BR over the leaves of a distilled policy)."""

from __future__ import annotations

import numpy as np
import pytest

from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import decision_rows
from hunl.distill.optimal_leaves import endgame_leaves, optimise_leaves
from hunl.distill.policy import DistilledPolicy, concat_rows, play
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@pytest.fixture(scope="module")
def setup():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000),
             ("AhKd7c7s3d", "A2s+,KQo,77+", "TT+,AJo+,65s", 1000, 1800))
    games, sols = [], []
    for board, r1, r2, pot, stack in specs:
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
        games.append(g)
        sols.append(solve_endgame(g, "dcfr", iterations=200).result.policy.probs)
    rows = concat_rows(decision_rows(g, p) for g, p in zip(games, sols))
    model = DistilledPolicy(max_depth=2, n_samples=3000, min_samples_leaf=10).fit(rows)
    return games, sols, model


def _mean_exploitability(model, games, sols):
    return float(np.mean([evaluate_policy(g, play(g, model), p).exploitability_pct_pot
                          for g, p in zip(games, sols)]))


def test_leaves_agree_with_the_model(setup):
    games, _, model = setup
    g = games[0]
    nodes = endgame_leaves(model, g)
    pol = play(g, model)
    for nl in nodes:
        s = model.leaf_table(nl.key)[nl.leaves] @ nl.route
        assert np.allclose(pol.probs[nl.kids.start:nl.kids.stop, :nl.leaves.size], s.T, atol=1e-12)


def test_cfr_br_lowers_the_training_exploitability(setup):
    games, sols, model = setup
    res = optimise_leaves(model, games, iterations=60, log_every=20)
    before = _mean_exploitability(model, games, sols)
    tuned = model.with_leaf_tables(res.tables)
    after = _mean_exploitability(tuned, games, sols)
    # the log is the same quantity, computed by the optimiser's own passes
    assert res.log_exploitability_pct_pot[0] == pytest.approx(before, rel=1e-4)
    assert res.log_exploitability_pct_pot[-1] == pytest.approx(after, rel=1e-4)
    assert after < 0.9 * before
    for k, tab in res.tables.items():
        assert tab.shape == model.trees_[k].leaf_strategies().shape
        assert np.all(tab >= -1e-12) and np.allclose(tab.sum(axis=1), 1.0)
    # rules of the tuned policy print the tuned strategies
    assert tuned.rules() != model.rules()


def test_optimise_leaves_errors(setup):
    games, _, model = setup
    with pytest.raises(ValueError, match="iterations"):
        optimise_leaves(model, games, iterations=0)
    node_model = DistilledPolicy(max_depth=1, ranges="node")
    node_model.trees_, node_model.feature_names_ = model.trees_, model.feature_names_
    with pytest.raises(ValueError, match="ranges='start'"):
        endgame_leaves(node_model, games[0])


def test_worker_processes_give_the_same_leaves(setup):
    games, _, model = setup
    one = optimise_leaves(model, games, iterations=12, log_every=6, workers=1)
    two = optimise_leaves(model, games, iterations=12, log_every=6, workers=2)
    for k in one.tables:
        assert np.allclose(one.tables[k], two.tables[k], atol=1e-9)
    assert np.allclose(one.log_exploitability_pct_pot, two.log_exploitability_pct_pot)
    with pytest.raises(ValueError, match="workers"):
        optimise_leaves(model, games, iterations=2, workers=0)


def test_flat_regrets_equal_a_per_node_sum(setup):
    """The compiled passes over flat node arrays give the regrets of the definition: for each decision node and
    leaf, the class values (action values routed back to the classes, summed over the leaf's hands) minus the
    leaf strategy's value; against the opponent's best response to the leaf strategies."""
    from games.core.evaluation import MODE_BEST_RESPONSE, MODE_EXPECTED, engine_for
    from hunl.distill.optimal_leaves import _Shard

    games, _, model = setup
    rng = np.random.default_rng(3)
    tables = {k: rng.dirichlet(np.ones(4), size=model.leaf_table(k).shape[0]) for k in model.leaf_keys()}
    shard = _Shard(model, games)
    got = shard.regrets(tables)
    want = {k: np.zeros_like(v) for k, v in tables.items()}
    for g in games:
        nodes = endgame_leaves(model, g)
        pol = play(g, model.with_leaf_tables(tables))
        eng = engine_for(g)
        for p in (0, 1):
            profile = eng.from_edges(pol.probs)
            eng.hand_values(1 - p, MODE_BEST_RESPONSE, eng.from_edges(pol.probs), best=profile)
            av = np.zeros_like(profile)
            eng.hand_values(p, MODE_EXPECTED, profile, best=av)
            for nl in nodes:
                if nl.player != p:
                    continue
                h, tab = nl.leaves.size, tables[nl.key]
                off = int(eng.layout.offset[nl.node])
                va = av[off:off + len(nl.kids) * h].reshape(len(nl.kids), h)
                for leaf in np.unique(nl.leaves):
                    V = nl.route @ va[:, nl.leaves == leaf].astype(np.float64).sum(axis=1)  # (4,) class values
                    want[nl.key][leaf] += (V - tab[leaf] @ V) / g.pot
    for k in tables:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-9, atol=1e-12)
    assert any(np.abs(v).max() > 1e-6 for v in got.values())

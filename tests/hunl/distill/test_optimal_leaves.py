"""Exploitability-optimal leaf strategies (CFR-BR over the leaves of a distilled policy)."""

from __future__ import annotations

import numpy as np
import pytest

from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import RIVER_FEATURES, decision_rows
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
    with pytest.raises(ValueError, match="ranges 'start' or 'own'"):
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


def test_information_set_values_add_up_to_the_payoffs_against_best_responses(setup):
    """Played by the leaf strategies, the class values of player 1's root information sets add up to his payoff
    against player 2's best response, and those of player 2's first decisions (every line passes through exactly
    one) to hers against his; an independent pass of the engine (best-response values) gives both."""
    from games.core.evaluation import engine_for
    from hunl.distill.optimal_leaves import information_set_values

    games, _, model = setup
    rng = np.random.default_rng(5)
    tables = {k: rng.dirichlet(np.ones(4), size=model.leaf_table(k).shape[0]) for k in model.leaf_keys()}
    tuned = model.with_leaf_tables(tables)
    for g in games:
        iv = information_set_values(model, g, tables)
        assert iv.X.shape == (iv.values.shape[0], len(RIVER_FEATURES)) and iv.values.shape[1] == 4
        assert not np.isnan(iv.X[:, 0]).any() and np.all(iv.street == 5)
        pol = play(g, tuned)
        eng = engine_for(g)
        br = eng.best_response_values(eng.from_edges(pol.probs))
        strat = np.zeros_like(iv.values)
        for nl in endgame_leaves(model, g):
            rows = np.flatnonzero(iv.node == nl.node)
            assert rows.size == nl.leaves.size           # river endgames: every hand holds on the board
            strat[rows] = tables[nl.key][nl.leaves]
        payoff = (strat * iv.values).sum(axis=1)
        t = g.tree
        root = iv.node == 0
        first = np.isin(iv.node, np.asarray(t.children(0)))
        assert np.all(iv.facing[root] == False)  # noqa: E712
        assert payoff[root].sum() == pytest.approx(-br[1] / g.pot, rel=1e-5, abs=1e-9)
        assert payoff[first].sum() == pytest.approx(-br[0] / g.pot, rel=1e-5, abs=1e-9)


def test_information_set_values_count_only_the_hands_a_player_brings(setup):
    """Values are weighted by the player's own reach: when player 1 never checks, his information sets after a
    check are worth nothing; when he checks a quarter of the time, they are not."""
    from hunl.distill.optimal_leaves import information_set_values

    games, _, model = setup
    g = games[0]
    tables = {k: np.tile([0.0, 0.0, 0.0, 1.0], (model.leaf_table(k).shape[0], 1)) if k == (5, False, 0)
              else np.full((model.leaf_table(k).shape[0], 4), 0.25) for k in model.leaf_keys()}
    iv = information_set_values(model, g, tables)
    t = g.tree
    check = next(int(c) for c in t.children(0) if t.action[c] == "check")
    after_check = np.zeros(t.n_nodes, dtype=bool)
    after_check[check] = True
    for n in range(1, t.n_nodes):                    # parents have smaller ids
        after_check[n] |= after_check[t.parent[n]]
    p1_rows = np.isin(iv.node, np.flatnonzero(t.player == 0)) & (iv.node != 0)
    assert p1_rows[after_check[iv.node]].any()
    assert np.all(iv.values[p1_rows & after_check[iv.node]] == 0.0)
    uniform = information_set_values(model, g, {k: np.full_like(v, 0.25) for k, v in tables.items()})
    assert np.abs(uniform.values[p1_rows & after_check[uniform.node]]).max() > 0

"""Exploitability in the loop of a card: pruning its tree (hunl.distill.card_pruning) and choosing its plain mixes
(hunl.distill.plain_search)."""

import dataclasses
import json

import numpy as np
import pytest

from hunl.distill.card_pruning import prune_card_tree
from hunl.distill.cards import CARD_KEY, CardConfig, CardPolicy, fit_card, grow_card_tree, provisional_card
from hunl.distill.decisions import decision_rows
from hunl.distill.optimal_leaves import LeafWorkers
from hunl.distill.policy import concat_rows
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@pytest.fixture(scope="module")
def setup():
    specs = (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+", 800, 2400),
             ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo", 500, 3000))
    games, sols = [], []
    for board, r1, r2, pot, stack in specs:
        g = HoldemEndgame(board, [r1, r2], pot=pot, stack=stack, bet_sizes=SIZES, raise_cap=1)
        games.append(g)
        sols.append(solve_endgame(g, "dcfr", iterations=150).result.policy.probs)
    rows = concat_rows(decision_rows(g, p) for g, p in zip(games, sols))
    config = CardConfig(max_leaves=10, n_samples=20_000, min_leaf_share=0.01)
    tree, Z, Y = grow_card_tree(rows, config)
    return games, tree, Z, Y, config


def _is_tree_order(tree) -> bool:
    """Every split comes after the split of its parent."""
    parent = {}
    for p in range(len(tree.feature)):
        if tree.left[p] >= 0:
            parent[int(tree.left[p])] = parent[int(tree.right[p])] = p
    seen = set()
    for s in tree.split_order:
        if int(s) in parent and parent[int(s)] not in seen:
            return False
        seen.add(int(s))
    return True


def test_pruning_removes_the_cheapest_split_and_reorders_the_tree(setup):
    games, tree, Z, Y, config = setup
    n = tree.max_leaves
    pruned, log = prune_card_tree(tree, n, 4, Z, Y, games, iterations=20, reoptimise_every=2,
                                  reoptimise_iterations=5)
    assert [r["rules"] for r in log] == list(range(n, 3, -1))
    assert log[0]["removed"] is None and all(r["removed"] is not None for r in log[1:])
    # the same nodes, the same splits, in a new order that keeps parents first
    assert sorted(pruned.split_order.tolist()) == sorted(tree.split_order.tolist())
    assert _is_tree_order(pruned)
    assert np.array_equal(pruned.feature, tree.feature) and np.array_equal(pruned.threshold, tree.threshold,
                                                                                 equal_nan=True)
    # the pruned card of k rules is the full card with the first n - k removals merged
    current = set(tree.leaves(n).tolist())
    for k, r in zip(range(n - 1, 3, -1), log[1:]):
        p = r["removed"]
        current -= {int(tree.left[p]), int(tree.right[p])}
        current.add(p)
        assert set(pruned.leaves(k).tolist()) == current
    assert set(pruned.leaves(n).tolist()) == set(tree.leaves(n).tolist())


def test_the_first_removal_is_the_cheapest_merge(setup):
    """Without re-optimisation, the first removal's training figure is the least over all candidate merges,
    each measured directly by best responses."""
    games, tree, Z, Y, config = setup
    n = tree.max_leaves
    _, log = prune_card_tree(tree, n, n - 1, Z, Y, games, iterations=15, reoptimise_every=0)
    card, _, masks, _, _ = provisional_card(tree, n, Z, Y)
    policy = CardPolicy(card)
    # the strategies the pruning starts from: the same CFR-BR over the card's rules
    from hunl.distill.optimal_leaves import optimise_leaves

    res = optimise_leaves(policy, games, iterations=15, delay=3)
    table = res.tables[CARD_KEY]
    leaves = tree.leaves(n)
    order = np.asarray(card.meta["leaf_order"])
    row = {int(leaves[j]): int(r) for r, j in enumerate(order)}
    mass = {int(leaves[j]): masks[j].sum() for j in range(n)}
    figures = {}
    with LeafWorkers(policy, games) as pool:
        assert pool.exploitability({CARD_KEY: table}) == pytest.approx(log[0]["train_pct_pot"], rel=1e-9)
        for p in tree.split_order[: n - 1]:
            a, b = int(tree.left[p]), int(tree.right[p])
            if a not in row or b not in row:
                continue
            t = table.copy()
            t[[row[a], row[b]]] = (mass[a] * table[row[a]] + mass[b] * table[row[b]]) / (mass[a] + mass[b])
            figures[int(p)] = pool.exploitability({CARD_KEY: t})
    best = min(figures, key=figures.get)
    assert log[1]["removed"] == best
    assert log[1]["train_pct_pot"] == pytest.approx(figures[best], rel=1e-9)


def test_a_pruned_tree_fits_cards_within_the_limits(setup):
    games, tree, Z, Y, config = setup
    pruned, _ = prune_card_tree(tree, tree.max_leaves, 5, Z, Y, games, iterations=10, reoptimise_every=0)
    card, policy, _ = fit_card(pruned, 6, Z, Y, games, config, iterations=10)
    assert card.n_rules == 6 and all(len(r.conditions) <= 3 for r in card.rules())


@pytest.mark.parametrize("kw, match", [({"from_rules": 1}, "from_rules"), ({"to_rules": 0}, "to_rules"),
                                       ({"to_rules": 99}, "to_rules"), ({"iterations": 0}, "iterations"),
                                       ({"reoptimise_every": -1}, "reoptimise_every")])
def test_pruning_refuses_bad_sizes(setup, kw, match):
    games, tree, Z, Y, _ = setup
    args = {"from_rules": tree.max_leaves, "to_rules": 3, **kw}
    with pytest.raises(ValueError, match=match):
        prune_card_tree(tree, args.pop("from_rules"), args.pop("to_rules"), Z, Y, games, **args)


def test_group_cfr_with_one_rule_a_group_is_optimise_leaves(setup):
    """The pruning's CFR-BR over groups of rules, each rule its own group, is the card's leaf optimisation."""
    from hunl.distill.card_pruning import _group_cfr
    from hunl.distill.optimal_leaves import optimise_leaves

    games, tree, Z, Y, _ = setup
    card, *_ = provisional_card(tree, 8, Z, Y)
    policy = CardPolicy(card)
    res = optimise_leaves(policy, games, iterations=12)
    table = policy.leaf_table(CARD_KEY)
    with LeafWorkers(policy, games) as pool:
        got = _group_cfr(pool, {CARD_KEY: table}, {r: np.array([r]) for r in range(table.shape[0])},
                         {r: table[r] for r in range(table.shape[0])}, 12)
    assert np.allclose(np.array([got[r] for r in range(table.shape[0])]), res.tables[CARD_KEY], atol=1e-12)


def test_leaf_workers_measure_many_tables_as_one_by_one(setup):
    games, tree, Z, Y, _ = setup
    card, *_ = provisional_card(tree, 6, Z, Y)
    policy = CardPolicy(card)
    rng = np.random.default_rng(0)
    tables = [{CARD_KEY: rng.dirichlet(np.ones(4), size=6)} for _ in range(3)]
    with LeafWorkers(policy, games, workers=2) as pool:
        many = pool.exploitabilities(tables)
        assert many.shape == (3,)
        assert np.allclose(many, [pool.exploitability(t) for t in tables], rtol=1e-12)
        assert pool.seen({}) == {}
    with pytest.raises(ValueError, match="games"):
        LeafWorkers(policy, [])


def test_a_killed_pruning_resumes_from_its_checkpoint(setup, tmp_path):
    """A run stopped after some removals (here: one run to fewer removals) is continued from its checkpoint and
    gives exactly the result of an uninterrupted run; a run to more rules than saved stops where it is asked;
    other settings start afresh."""
    games, tree, Z, Y, _ = setup
    n = tree.max_leaves
    kw = {"iterations": 8, "reoptimise_every": 2, "reoptimise_iterations": 3}
    whole, whole_log = prune_card_tree(tree, n, n - 5, Z, Y, games, **kw)
    ck = tmp_path / "pruning.json"
    prune_card_tree(tree, n, n - 3, Z, Y, games, checkpoint=ck, **kw)
    assert len(json.loads(ck.read_text())["removed"]) == 3
    resumed, resumed_log = prune_card_tree(tree, n, n - 5, Z, Y, games, checkpoint=ck, **kw)
    assert np.array_equal(resumed.split_order, whole.split_order)
    assert np.allclose(resumed.gains, whole.gains, equal_nan=True)
    assert resumed_log == whole_log
    short, short_log = prune_card_tree(tree, n, n - 2, Z, Y, games, checkpoint=ck, **kw)
    assert [r["rules"] for r in short_log] == [n, n - 1, n - 2]
    assert set(short.leaves(n - 2).tolist()) == set(whole.leaves(n - 2).tolist())
    assert len(json.loads(ck.read_text())["removed"]) == 5          # the saved work is kept
    other, _ = prune_card_tree(tree, n, n - 1, Z, Y, games, checkpoint=ck, **{**kw, "iterations": 9})
    assert len(json.loads(ck.read_text())["removed"]) == 1          # other settings: started afresh


def test_plain_mixes_chosen_by_exploitability_cost_no_more_than_the_nearest(setup):
    games, tree, Z, Y, config = setup
    n = 6
    near, near_policy, near_log = fit_card(tree, n, Z, Y, games, config, iterations=30)
    radius = 0.15
    card, policy, log = fit_card(tree, n, Z, Y, games, dataclasses.replace(config, plain_search=radius),
                                 iterations=30)
    assert "plain_train_pct_pot" not in near_log
    assert [r.conditions for r in card.rules()] == [r.conditions for r in near.rules()]   # the same rules
    for row in policy.table:                                  # plain mixes, printed exactly as played
        assert np.isclose(row.sum(), 1.0) and any(np.allclose(row * d, np.round(row * d))
                                                  for d in (1, 2, 3, 4, 5, 6, 8, 10))
    # each rule moved at most the radius from the optimised strategy the nearest mix rounds (tolerance 0.05)
    assert np.abs(policy.table - near_policy.table).max() <= radius + config.plain_tolerance + 1e-9
    # measured as the search measures: the information sets read the rules of the equilibrium-mean card
    provisional = provisional_card(tree, n, Z, Y)[0]
    with LeafWorkers(CardPolicy(provisional), games) as pool:
        e_near = pool.exploitability({CARD_KEY: near_policy.table})
        e_searched = pool.exploitability({CARD_KEY: policy.table})
    assert log["plain_train_pct_pot"][0] == pytest.approx(e_near)
    assert log["plain_train_pct_pot"][-1] == pytest.approx(e_searched)
    assert e_searched < e_near - 1.0      # here the nearest mixes cost 13.4% of the pot, the chosen ones 9.5%


def test_plain_search_refuses_bad_input(setup):
    from hunl.distill.plain_search import plain_by_exploitability

    with pytest.raises(ValueError, match="plain_search"):
        CardConfig(plain_search=-0.1)

    games, tree, Z, Y, config = setup
    provisional = provisional_card(tree, 4, Z, Y)[0]
    t = CardPolicy(provisional).table
    with LeafWorkers(CardPolicy(provisional), games[:1]) as pool:
        with pytest.raises(ValueError, match="radius"):
            plain_by_exploitability(pool, {CARD_KEY: t}, CARD_KEY, t, t > 0, 0.0)
        with pytest.raises(ValueError, match="shape"):
            plain_by_exploitability(pool, {CARD_KEY: t}, CARD_KEY, t[:2], t > 0, 0.1)

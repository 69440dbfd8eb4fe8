"""The minimum-defence rule checked against a brute-force walk of the tree, and the decision-type split of a
policy (OnStreets(facing=...))."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.tree import DECISION
from hunl.distill.cost import evaluate_policy
from hunl.distill.defence import MinimumDefence, minimum_defence
from hunl.distill.pipeline import evaluate_task
from hunl.distill.policy import CheckCall, OnStreets, on_streets, play
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from tests.hunl.distill.brute_force import range_percentile


@pytest.fixture(scope="module")
def river():
    # a bet, an all-in raise over it (raise_cap 1): nodes facing a bet at depths 1, 2 and 3
    g = HoldemEndgame("Ks7d2c9hTs", ["TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+,54s"], pot=800,
                      stack=2400, bet_sizes=BetSizes(bets=(0.5, 1.0), raises=(), all_in=True), raise_cap=1)
    sol = solve_endgame(g, "dcfr", iterations=100).result.policy.probs
    return g, sol


def _brute_force(g, probs, ranges):
    """For every decision node facing a bet: which hands the rule continues with, by walking each node's path
    for the player's reach and comparing showdown strengths pair by pair."""
    t = g.tree
    want = {}
    for n in np.flatnonzero(t.kind == DECISION):
        to_call = g.betting.to_call[n]
        if to_call <= 0:
            continue
        p = int(t.player[n])
        hp = g.num_hands[p]
        w = np.array(g.prior[p][:hp], dtype=np.float64)
        if ranges == "node":
            k = int(n)
            while k != 0:
                par = int(t.parent[k])
                if t.kind[par] == DECISION and t.player[par] == p:
                    w = w * probs[k, :hp]
                k = par
            if w.sum() <= 0:
                w = np.array(g.prior[p][:hp], dtype=np.float64)
        b = to_call / (g.betting.pot[n] - to_call)
        pct = range_percentile(g, p, w)
        cont = ~np.isnan(pct) & (np.nan_to_num(pct) > b / (1 + b))
        want[int(n)] = cont
    return want


@pytest.mark.parametrize("ranges", ["node", "start"])
def test_minimum_defence_matches_a_brute_force_walk(river, ranges):
    g, sol = river
    out = minimum_defence(g, sol, ranges=ranges)
    t = g.tree
    want = _brute_force(g, out, ranges)
    assert len(want) >= 3
    depths = {int(t.depth[n]) for n in want}
    assert len(depths) >= 2          # nodes below other decisions of the rule: the node ranges follow it
    for n, cont in want.items():
        kids = t.children(n)
        labels = [t.action[k] for k in range(kids.start, kids.stop)]
        hp = cont.size
        for k, label in zip(range(kids.start, kids.stop), labels):
            if label == "fold":
                np.testing.assert_array_equal(out[k, :hp], ~cont)
            elif label == "call":
                np.testing.assert_array_equal(out[k, :hp], cont)
            else:                       # raises: never
                np.testing.assert_array_equal(out[k, :hp], 0.0)
        assert 0 < cont.mean() < 1
    # every decision not facing a bet plays the policy given
    parent = t.parent[1:]
    other = (t.kind[parent] != DECISION) | (g.betting.to_call[parent] <= 0)
    np.testing.assert_array_equal(out[1:][other], sol[1:][other])


def test_node_and_start_ranges_differ_after_a_check(river):
    g, sol = river
    node, start = minimum_defence(g, sol, ranges="node"), minimum_defence(g, sol, ranges="start")
    assert not np.array_equal(node, start)
    # the first decision facing a bet (player 2 after player 1's bet) has the starting range either way
    t = g.tree
    first = next(n for n in np.flatnonzero(t.kind == DECISION)
                 if g.betting.to_call[n] > 0 and t.player[n] == 1 and t.depth[n] == 1)
    kids = t.children(int(first))
    np.testing.assert_array_equal(node[kids], start[kids])


def test_minimum_defence_margin_and_bad_input(river):
    g, sol = river
    loose = minimum_defence(g, sol, margin=-0.2)
    tight = minimum_defence(g, sol, margin=0.2)
    t = g.tree
    calls = np.array([t.action[k] == "call" for k in range(t.n_nodes)])
    assert loose[calls].sum() > minimum_defence(g, sol)[calls].sum() > tight[calls].sum()
    np.testing.assert_array_equal(minimum_defence(g, sol, streets=(4,)), sol)   # no turn decision
    with pytest.raises(ValueError, match="ranges"):
        minimum_defence(g, sol, ranges="end")
    with pytest.raises(ValueError, match="margin"):
        minimum_defence(g, sol, margin=1.5)
    with pytest.raises(ValueError, match="streets"):
        minimum_defence(g, sol, streets=(6,))
    with pytest.raises(ValueError, match="probs"):
        minimum_defence(g, sol[:, :2])
    with pytest.raises(ValueError, match="margin"):
        MinimumDefence(None, "x", margin=-3)


def test_minimum_defence_policy_is_scored_as_its_probabilities(river):
    g, sol = river

    class _Family:
        def game(self, cols, i):
            return g

        def policy_array(self, cols, i, game):
            return sol

    choosers = {"dcfr": MinimumDefence(None, "a"), "check/call": MinimumDefence(CheckCall(), "b", ranges="start"),
                "facing": OnStreets(CheckCall(), (5,), "c", facing=True),
                "not facing": OnStreets(CheckCall(), (5,), "d", facing=False)}
    s = evaluate_task(_Family(), {"game_id": np.array([0])}, choosers)
    cc = play(g, CheckCall()).probs
    want = [minimum_defence(g, sol), minimum_defence(g, cc, ranges="start"), on_streets(g, cc, sol, (5,), True),
            on_streets(g, cc, sol, (5,), False)]
    for j, probs in enumerate(want):
        assert s.exploitability_pct_pot[0, j] == pytest.approx(evaluate_policy(g, probs).exploitability_pct_pot,
                                                               abs=1e-12)
    with pytest.raises(ValueError, match="reference"):
        evaluate_task(_Family(), {"game_id": np.array([0])}, {"dcfr": choosers["dcfr"]}, reference=False)
    with pytest.raises(ValueError, match="solution"):
        MinimumDefence(None, "a").probs(g)


def test_on_streets_splits_by_decision_type(river):
    g, sol = river
    cc = play(g, CheckCall()).probs
    t = g.tree
    parent = t.parent[1:]
    dec = t.kind[parent] == DECISION
    faces = g.betting.to_call[parent] > 0
    facing, not_facing = on_streets(g, cc, sol, (5,), True)[1:], on_streets(g, cc, sol, (5,), False)[1:]
    np.testing.assert_array_equal(facing[dec & faces], cc[1:][dec & faces])
    np.testing.assert_array_equal(facing[dec & ~faces], sol[1:][dec & ~faces])
    np.testing.assert_array_equal(not_facing[dec & ~faces], cc[1:][dec & ~faces])
    np.testing.assert_array_equal(not_facing[dec & faces], sol[1:][dec & faces])
    with pytest.raises(ValueError, match="facing"):
        OnStreets(CheckCall(), (5,), "x", facing="yes")

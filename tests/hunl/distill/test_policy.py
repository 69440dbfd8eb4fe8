"""Distilled HUNL policies: action classes, decision rows, self-play policies and their evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core.best_response import expected_value, exploitability
from games.core.policy import Policy
from games.core.tree import DECISION
from hunl.distill.actions import (
    N_CLASSES,
    actions_to_classes,
    class_routing,
    classes_to_actions,
    edge_classes,
)
from hunl.distill.cost import evaluate_policy, seat_mix
from hunl.distill.decisions import (
    RIVER_FEATURES,
    TURN_FEATURES,
    DecisionContext,
    decision_rows,
    node_features,
    reach_probabilities,
)
from hunl.distill.policy import (
    CheckCall,
    DistilledPolicy,
    EquityThreshold,
    UniformRandom,
    _play_node,
    play,
    play_all,
)
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@pytest.fixture(scope="module")
def river():
    g = HoldemEndgame("Ks7d2c9hTs", ["TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+"], pot=1000,
                      stack=3000, bet_sizes=SIZES, raise_cap=1)
    sol = solve_endgame(g, "dcfr", iterations=300)
    return g, sol


@pytest.fixture(scope="module")
def turn():
    g = HoldemEndgame("Ks7d2c9h", ["KK,99,AQs,QJs", "AA,77,KQs,T8s"], pot=600, stack=900,
                      bet_sizes={"turn": BetSizes(bets=(1.0,), raises=(), all_in=True), "river": SIZES},
                      raise_cap=1)
    sol = solve_endgame(g, "dcfr", iterations=100)
    return g, sol


# ----------------------------------------------------------------------------------------------- action classes
def test_edge_classes_follow_the_labels(river):
    g, _ = river
    cls = edge_classes(g.betting)
    t = g.tree
    pot = g.betting.pot
    for n in range(1, t.n_nodes):
        par = t.parent[n]
        if t.kind[par] != DECISION:
            assert cls[n] == -1
            continue
        label = t.action[n]
        expect = {"check": 0, "fold": 0, "call": 1, "all-in": 3}.get(label)
        if expect is None:
            expect = 1 if float(label.split()[-1]) <= 0.75 * pot[par] else 2
        assert cls[n] == expect, (n, label)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5),
       st.lists(st.floats(0, 1), min_size=4, max_size=4).filter(lambda v: sum(v) > 0.01))
def test_classes_to_actions_conserves_probability(member, raw):
    p = np.asarray(raw) / np.sum(raw)
    a = classes_to_actions(p[None], member)
    assert a.shape == (1, len(member))
    assert np.all(a >= 0) and a.sum() == pytest.approx(1.0)
    # mass of a present class stays in that class
    back = actions_to_classes(a, member)[0]
    for c in set(member):
        assert back[c] >= p[c] - 1e-12


def test_classes_to_actions_round_trip_and_nearest():
    member = np.array([0, 1, 2, 3])
    p = np.array([[0.1, 0.2, 0.3, 0.4]])
    assert np.allclose(actions_to_classes(classes_to_actions(p, member), member), p)
    # missing "raise" (2) goes to the more passive neighbour (call) on a tie; "all-in" stays
    a = classes_to_actions(np.array([[0.0, 0.0, 1.0, 0.0]]), [0, 1, 3])
    assert np.allclose(a, [[0, 1, 0]])
    # two actions in one class split it
    a = classes_to_actions(np.array([[0.0, 1.0, 0.0, 0.0]]), [0, 1, 1, 3])
    assert np.allclose(a, [[0, 0.5, 0.5, 0]])
    with pytest.raises(ValueError, match="member"):
        classes_to_actions(p, [0, 4])
    with pytest.raises(ValueError, match="class_probs"):
        classes_to_actions(np.ones((1, 3)), [0, 1])


@pytest.mark.parametrize("member", [[], [0, 4], [-1, 1], [0, 1, 7]])
def test_class_routing_names_a_bad_class(member):
    # a class outside 0-3 (or none) is refused by name, not as an IndexError / ZeroDivisionError inside
    with pytest.raises(ValueError, match="member"):
        class_routing(member)


def test_class_routing_is_shared_and_read_only():
    r = class_routing(np.array([0, 1, 1, 3]))
    assert r is class_routing([0, 1, 1, 3]) and not r.flags.writeable
    assert np.allclose(r.sum(axis=1), 1.0) and np.allclose(r[2], [0, 0.5, 0.5, 0])


# ----------------------------------------------------------------------------------------------- decisions
def _brute_reach(g, probs):
    t = g.tree
    out = np.ones((2, t.n_nodes, g.max_hands))
    for n in range(1, t.n_nodes):
        k = n
        while k > 0:
            par = t.parent[k]
            if t.kind[par] == DECISION:
                out[t.player[par], n] *= probs[k]
            k = par
    return out


def test_reach_probabilities_equal_the_path_products(river, turn):
    for g, sol in (river, turn):
        probs = sol.result.policy.probs
        assert np.allclose(reach_probabilities(g, probs), _brute_reach(g, probs))


def test_decision_rows_hold_the_strategy_and_the_features(river):
    g, sol = river
    probs = sol.result.policy.probs
    rows = decision_rows(g, probs)
    ctx = DecisionContext(g)
    root = rows.node == 0
    h = rows.hand[root]
    kids = g.tree.children(0)
    member = ctx.node_classes(0)
    expect = actions_to_classes(probs[kids.start:kids.stop, h].T, member)
    assert np.allclose(rows.Y[root], expect, atol=1e-6)
    # features at the root: equity against player 2's full range
    from hunl.distill import features as F

    w2 = np.zeros(1326)
    w2[g.combos[1]] = g.weights[1, g.combos[1]]
    eq = F.equity(g.board, w2)[g.combos[0][h]]
    assert np.allclose(rows.X[root, 0], eq, atol=1e-6)
    assert np.all(rows.X[root, RIVER_FEATURES.index("facing_bet")] == 0)
    assert np.all(np.isnan(rows.X[:, len(RIVER_FEATURES):]))
    # weights at the root: prior times the opponent's mass (card removal ignored) over the normaliser
    w = g.weights[0, g.combos[0][h]] * g.weights[1].sum() / g.normaliser
    assert np.allclose(rows.weight[root], w)
    assert np.all(rows.weight > 0) and np.all((rows.Y >= -1e-6) & (rows.Y <= 1 + 1e-6))


def test_decision_rows_of_some_streets_are_those_rows_of_all(turn):
    g, sol = turn
    full = decision_rows(g, sol.result.policy.probs)
    for street in (4, 5):
        part = decision_rows(g, sol.result.policy.probs, streets=[street])
        keep = full.street == street
        assert part.street.size == int(keep.sum()) > 0
        for f in ("X", "Y", "weight", "node", "hand", "stake"):
            np.testing.assert_array_equal(getattr(part, f), getattr(full, f)[keep])


def test_public_features_of_a_facing_node(river):
    g, _ = river
    ctx = DecisionContext(g)
    t = g.tree
    n = t.node("bet 500")  # player 2 faces a half-pot bet
    k = int(np.flatnonzero(ctx.nodes == n)[0])
    facing_bet, spr, opp_bets, opp_prev, pos = ctx.public[k]
    assert ctx.facing[k] and facing_bet == pytest.approx(0.5)
    # player 2 has 3000 behind, 2500 after calling 500; the pot after calling is 2000
    assert spr == pytest.approx(2500 / 2000)
    assert opp_bets == 1 and opp_prev == 0 and pos == 1


# ----------------------------------------------------------------------------------------------- self-play
class _Recorder:
    """A chooser that plays the class mix (0.5, 0.2, 0.2, 0.1) and records the features it was shown."""

    def __init__(self):
        self.seen = []

    def class_probs(self, street, facing, X):
        self.seen.append(np.array(X))
        return np.tile([0.5, 0.2, 0.2, 0.1], (X.shape[0], 1))


def test_play_uses_the_ranges_its_own_policy_induces(river):
    g, _ = river
    rec = _Recorder()
    pol = play(g, rec)
    ctx = DecisionContext(g)
    reach = reach_probabilities(g, pol.probs)
    feats = node_features(g, ctx, np.arange(ctx.nodes.size), reach)
    seen = np.concatenate(rec.seen)
    want = np.concatenate([f[~np.isnan(f[:, 0])] for f in feats])
    assert seen.shape == want.shape
    assert np.allclose(np.sort(seen, axis=0), np.sort(want, axis=0), equal_nan=True)


class _StartChooser:
    """A chooser of starting ranges whose classes depend on every feature (so a misplaced row shows)."""

    ranges = "start"

    def class_probs(self, street, facing, X):
        z = np.nan_to_num(np.asarray(X, dtype=np.float64))
        a = np.abs(np.sin((z * np.arange(1, z.shape[1] + 1)).sum(axis=1) + street + 3 * facing))
        p = np.column_stack([a, 1 - a, 0.5 * a * (1 - a), np.full(a.shape, 0.1)])
        return p / p.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("chunk", [7, 4096])
def test_play_all_shares_features_and_equals_depth_by_depth_play(turn, chunk):
    """The shared-feature pass over chunks of nodes (grouped by board) plays exactly what the depth-by-depth
    pass plays, for starting-range choosers, uniform ones and node-range ones alike."""
    g, _ = turn
    choosers = {"start": _StartChooser(), "uniform": UniformRandom(), "check/call": CheckCall()}
    got = play_all(g, choosers, chunk=chunk)
    assert list(got) == list(choosers)
    for name, c in choosers.items():
        want = play(g, c) if name == "uniform" else _play_node(g, c)
        np.testing.assert_array_equal(got[name].probs, want.probs)
    np.testing.assert_array_equal(play(g, choosers["start"]).probs, got["start"].probs)


def test_flop_endgame_decisions_have_three_streets():
    """A flop endgame: flop decisions read the turn's features (deciles over the turn card) and count the
    opponent's bets on the previous street of the endgame."""
    g = HoldemEndgame("Ks7d2c", ["KK,99,AQs", "AA,77,T8s"], pot=100, stack=150,
                      bet_sizes=BetSizes(bets=(1.0,), raises=(), all_in=False), raise_cap=0)
    ctx = DecisionContext(g)
    assert set(ctx.street.tolist()) == {3, 4, 5}
    assert np.all(ctx.public[ctx.street == 3, 3] == 0)            # no street before the flop
    t = g.tree
    for k in np.flatnonzero(ctx.street == 4)[:50]:                  # the turn counts the flop's bets
        n, opp = int(ctx.nodes[k]), 1 - int(ctx.player[k])
        path, m = [], n
        while m > 0:
            path.append(m)
            m = int(t.parent[m])
        flop_bets = sum(1 for m in path if t.kind[t.parent[m]] == DECISION and int(t.player[t.parent[m]]) == opp
                        and g.betting.street[t.parent[m]] == 3 and t.action[m].startswith(("bet", "raise", "all-in")))
        assert ctx.public[k, 3] == flop_bets
    pol = play(g, _StartChooser())
    Policy(g, pol.probs)                                            # a valid behaviour policy
    flop = np.flatnonzero(ctx.street == 3)
    feats = node_features(g, ctx, flop, np.ones((2, t.n_nodes, g.max_hands)))
    assert feats[0].shape[1] == len(TURN_FEATURES)
    assert np.isfinite(feats[0][~np.isnan(feats[0][:, 0])]).all()   # deciles defined on the flop


def test_baselines_play_what_they_say(river):
    g, sol = river
    t = g.tree
    cc = play(g, CheckCall())
    kids = t.children(0)
    assert np.allclose(cc.probs[kids.start, :g.num_hands[0]], 1.0)  # player 1 checks
    # every node facing a bet calls, also the nodes after bets check/call never makes (a best response reaches
    # them by betting)
    ctx = DecisionContext(g)
    ones = np.ones((2, t.n_nodes, g.max_hands))
    facing = ctx.nodes[ctx.facing]
    assert facing.size > 0
    for n in facing:
        kids_n = t.children(int(n))
        call = [j for j in range(kids_n.start, kids_n.stop) if t.action[j] == "call"]
        hp = g.num_hands[int(t.player[n])]
        live = ~np.isnan(node_features(g, ctx, np.flatnonzero(ctx.nodes == n), ones)[0][:, 0])
        assert np.allclose(cc.probs[call[0], :hp][live], 1.0)
    uni = play(g, UniformRandom())
    assert np.allclose(uni.probs[kids.start:kids.stop, :g.num_hands[0]], 1.0 / len(kids))
    eqt = play(g, EquityThreshold())
    Policy(g, eqt.probs)  # valid
    for n in ctx.nodes:                               # pure everywhere, also where its own play never goes
        kids_n = t.children(int(n))
        hp = g.num_hands[int(t.player[n])]
        block = eqt.probs[kids_n.start:kids_n.stop, :hp]
        live = ~np.isnan(node_features(g, ctx, np.flatnonzero(ctx.nodes == n), ones)[0][:, 0])
        assert np.allclose(block[:, live].max(axis=0), 1.0)


def test_evaluation_matches_the_core_functions(river):
    g, sol = river
    ref = sol.result.policy
    ev = evaluate_policy(g, ref, ref)
    assert ev.ev_chips == pytest.approx(0.0, abs=1e-6)
    # the solver measures its float32 average strategy in float32, this in float64 from the normalised policy:
    # each strategy entry differs by at most eps32, a line has at most 4 actions (raise cap 1: check, bet, raise,
    # call) and a payoff is at most pot + 2 * stack
    tol = 4 * float(np.finfo(np.float32).eps) * (g.pot + 2 * g.config.stack)
    assert ev.exploitability_chips == pytest.approx(sol.exploitability_chips, abs=tol)
    cc = play(g, CheckCall())
    e = evaluate_policy(g, cc, ref)
    assert e.exploitability_chips == pytest.approx(exploitability(g, cc).exploitability)
    a = expected_value(g, Policy(g, seat_mix(g, cc, ref)))
    b = -expected_value(g, Policy(g, seat_mix(g, ref, cc)))
    assert e.ev_chips == pytest.approx(0.5 * (a + b))
    assert e.ev_chips <= sol.exploitability_chips + 1e-6  # nobody beats the equilibrium by more than its slack
    assert e.exploitability_pct_pot == pytest.approx(100 * e.exploitability_chips / g.pot)
    assert e.exploitability_mbb == pytest.approx(1000 * e.exploitability_chips / g.big_blind)


def test_seat_mix_takes_each_players_edges():
    g = HoldemEndgame("Ks7d2c9hTs", ["AA,KK", "QQ,JJ"], pot=100, stack=200, bet_sizes=SIZES, raise_cap=1)
    a = play(g, CheckCall()).probs
    b = play(g, UniformRandom()).probs
    m = seat_mix(g, a, b)
    t = g.tree
    for n in range(1, t.n_nodes):
        par = t.parent[n]
        if t.kind[par] == DECISION:
            assert np.array_equal(m[n], a[n] if t.player[par] == 0 else b[n])


# ----------------------------------------------------------------------------------------------- distillation
def test_distilled_policy_fits_rules_and_plays(river, turn):
    g, sol = river
    rows = decision_rows(g, sol.result.policy.probs)
    model = DistilledPolicy(max_depth=3, n_samples=5000, min_samples_leaf=20).fit(rows)
    assert set(model.trees_) == {(5, False, 0), (5, False, 1), (5, True, 0), (5, True, 1)}
    assert 4 <= model.n_rules() <= 4 * 2 ** 3
    p = model.class_probs(5, True, rows.X[:10])
    assert p.shape == (10, N_CLASSES) and np.allclose(p.sum(axis=1), 1.0)
    rules = model.rules()
    assert len(rules) == 4 and all(k.startswith("river, player") for k in rules)
    assert all(line.startswith("if ") for lines in rules.values() for line in lines)
    # the distilled policy is much closer to the equilibrium than always check/call on its own training game
    e = evaluate_policy(g, play(g, model), sol.result.policy)
    base = evaluate_policy(g, play(g, CheckCall()), sol.result.policy)
    assert e.exploitability_chips < base.exploitability_chips
    # a turn endgame: turn decisions fall back to the river trees on the shared features
    gt, _ = turn
    Policy(gt, play(gt, model).probs)


def test_distilled_policy_reproduces_a_constant_strategy(river):
    g, sol = river
    rows = decision_rows(g, sol.result.policy.probs)
    Y = np.tile(np.array([0.25, 0.25, 0.5, 0.0], dtype=np.float32), (rows.Y.shape[0], 1))
    rows = type(rows)(rows.street, rows.facing, rows.X, Y, rows.weight, rows.node, rows.hand, rows.stake)
    model = DistilledPolicy(max_depth=2, n_samples=2000).fit(rows)
    assert np.allclose(model.class_probs(5, False, rows.X[:5]), [0.25, 0.25, 0.5, 0.0], atol=1e-6)


def test_distilled_policy_errors(river):
    g, sol = river
    rows = decision_rows(g, sol.result.policy.probs)
    with pytest.raises(ValueError, match="criterion"):
        DistilledPolicy(criterion="gini").fit(rows)
    with pytest.raises(ValueError, match="n_samples"):
        DistilledPolicy(n_samples=0).fit(rows)
    bad = type(rows)(rows.street, rows.facing, rows.X, rows.Y, -rows.weight, rows.node, rows.hand, rows.stake)
    with pytest.raises(ValueError, match="weight"):
        DistilledPolicy().fit(bad)
    with pytest.raises(ValueError, match="ranges"):
        DistilledPolicy(ranges="end").fit(rows)
    with pytest.raises(ValueError, match="weighting"):
        DistilledPolicy(weighting="pot").fit(rows)
    model = DistilledPolicy(max_depth=2, n_samples=500).fit(rows)
    model.trees_.pop((5, True, 1))
    model.feature_names_.pop((5, True, 1))
    X = rows.X[(rows.street == 5) & rows.facing & (rows.X[:, 7] == 1)][:2]
    with pytest.raises(ValueError, match="player 2 .*facing a bet"):
        model.class_probs(5, True, X)


def test_feature_name_tables():
    assert TURN_FEATURES[:len(RIVER_FEATURES)] == RIVER_FEATURES
    assert TURN_FEATURES[0] == "equity" and TURN_FEATURES[3] == "facing_bet"  # used by EquityThreshold


@settings(max_examples=25, deadline=None)
@given(st.integers(50, 400), st.integers(5, 60), st.integers(0, 2 ** 31))
def test_thin_rows_keeps_the_weighted_mass(n, max_rows, seed):
    """``thin_rows``: about ``max_rows`` rows, every row of zero mass dropped, rows certain to be kept keep their
    weight, the others are reweighted by 1/q, so the probability-times-stake mass is unbiased."""
    from hunl.distill.decisions import DecisionRows
    from hunl.distill.policy import thin_rows

    rng = np.random.default_rng(seed)
    w = rng.pareto(1.5, n) * (rng.random(n) < 0.9)
    rows = DecisionRows(np.full(n, 5, np.int8), rng.random(n) < 0.5, rng.random((n, 23)).astype(np.float32),
                        rng.random((n, 4)).astype(np.float32), w, np.arange(n), np.arange(n), 1 + rng.random(n))
    mass = float((rows.weight * rows.stake).sum())
    draws = [thin_rows(rows, max_rows, seed=s) for s in range(200)]
    assert all(np.all(d.weight * d.stake > 0) for d in draws)
    sizes = np.array([d.weight.size for d in draws])
    positive = int((w > 0).sum())
    if positive <= max_rows:
        assert np.all(sizes == positive)
        assert all(np.array_equal(d.weight, w[w > 0]) for d in draws)
    else:
        assert abs(sizes.mean() - max_rows) < 4 * np.sqrt(max_rows / 200) + 1
        est = np.array([(d.weight * d.stake).sum() for d in draws])
        assert abs(est.mean() - mass) < 5 * est.std(ddof=1) / np.sqrt(est.size) + 1e-9 * mass
    again = thin_rows(rows, max_rows, seed=0)
    assert np.array_equal(again.node, draws[0].node)
    with pytest.raises(ValueError, match="max_rows"):
        thin_rows(rows, 0)


@pytest.mark.parametrize("which_game", ["river", "turn"])
def test_scattered_actions_equal_classes_to_actions_node_by_node(which_game, request):
    """The vectorised scatter of class distributions onto actions (``policy._scatter_actions``) writes what
    :func:`classes_to_actions` gives node by node, and plays the other hands of a node uniformly."""
    from hunl.distill.policy import _scatter_actions

    game, _ = request.getfixturevalue(which_game)
    ctx = DecisionContext(game)
    t = game.tree
    rng = np.random.default_rng(7)
    ks = rng.permutation(ctx.nodes.size)[: max(1, ctx.nodes.size * 2 // 3)]
    member, hand = [], []
    for j, k in enumerate(ks):                      # a random subset of each node's hands has class rows
        hp = game.num_hands[int(ctx.player[k])]
        h = np.flatnonzero(rng.random(hp) < 0.7)
        member.append(np.full(h.size, j))
        hand.append(h)
    member, hand = np.concatenate(member), np.concatenate(hand)
    cp = rng.dirichlet(np.ones(N_CLASSES) * 0.5, size=member.size)
    got = np.full((t.n_nodes, game.max_hands), -1.0)
    _scatter_actions(game, ctx, ks, cp, (member, hand), got)
    want = np.full_like(got, -1.0)
    for j, k in enumerate(ks):
        kids = t.children(int(ctx.nodes[k]))
        hp = game.num_hands[int(ctx.player[k])]
        act = np.full((hp, len(kids)), 1.0 / len(kids))
        rows = member == j
        act[hand[rows]] = classes_to_actions(cp[rows], ctx.edge_class[kids.start:kids.stop].astype(np.int64))
        want[kids.start:kids.stop, :hp] = act.T
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)

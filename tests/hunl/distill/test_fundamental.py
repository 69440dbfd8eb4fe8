"""HUNL rules: coverage, mass, agreement and cost in solved endgames; the pipeline's parallel steps."""

from __future__ import annotations

import numpy as np
import pytest

from games.core.best_response import exploitability
from games.core.tree import DECISION
from hunl.distill.actions import actions_to_classes
from hunl.distill.decisions import TURN_FEATURES, DecisionContext
from hunl.distill.fundamental import (
    RULE_80_20,
    RULE_ALL_IN,
    HoldemRule,
    SolvedEndgame,
    rule_statistics,
    rules_from_tree,
)
from hunl.distill.policy import DistilledPolicy
from hunl.solver.game import HoldemEndgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.conditions import Condition

SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)


@pytest.fixture(scope="module")
def solved():
    out = []
    for board, r1, r2 in (("Ks7d2c9hTs", "TT+,A9s+,KJo+,QTs+,98s,76s", "77+,A5s+,KTo+,QJs,JTs,T8s+"),
                          ("2h5d8cJsQh", "22+,AJo+,KQs,T9s", "55+,A8s+,KJs+,QJo")):
        g = HoldemEndgame(board, [r1, r2], pot=800, stack=2400, bet_sizes=SIZES, raise_cap=1)
        sol = solve_endgame(g, "dcfr", iterations=300)
        out.append(SolvedEndgame.from_policy(g, sol.result.policy.probs))
    return out


def test_rule_texts():
    assert "beats more than 20% and at most 80% of the opponent's range" in RULE_80_20.text()
    assert RULE_80_20.text().endswith("check 100%")
    t = RULE_ALL_IN.text()
    assert "more than 95%" in t and "10% of the opponent's range is strong" in t and t.endswith("all-in 100%")


def test_rule_statistics_match_a_direct_computation(solved):
    s = rule_statistics(RULE_80_20, solved)
    mass = covered = agree = 0.0
    costs = []
    for e in solved:
        r = e.rows
        typ = (r.street == 5) & ~r.facing
        eq = r.X[:, TURN_FEATURES.index("equity")]
        on = typ & (eq > 0.2) & (eq <= 0.8)
        mass += r.weight[typ].sum()
        covered += r.weight[on].sum()
        agree += (r.weight[on] * r.Y[on, 0]).sum()
        # play "check" at each covered information set, one by one
        probs = e.probs.copy()
        t = e.game.tree
        for n, h in zip(r.node[on], r.hand[on]):
            kids = t.children(int(n))
            assert t.action[kids.start] == "check"
            probs[kids.start:kids.stop, h] = 0.0
            probs[kids.start, h] = 1.0
        ex = exploitability(e.game, probs).exploitability
        costs.append(100 * (ex - e.exploitability_chips) / e.game.pot)
    assert s.coverage == pytest.approx(covered / mass)
    assert s.mass == pytest.approx(agree / covered, rel=1e-5)
    assert s.weighting == "probability" and 0 <= s.agreement <= 1
    assert s.cost == pytest.approx(np.mean(costs))
    assert s.cost_spread == pytest.approx(np.std(costs))
    assert 0 < s.coverage < 1 and 0 <= s.mass <= 1
    assert s.cost >= -1e-6  # deviating from an equilibrium never lowers exploitability (up to DCFR slack)


def test_a_rule_that_never_applies(solved):
    never = HoldemRule("never", 5, False, (Condition(0, "equity", 2.0, None),), np.array([1.0, 0, 0, 0]))
    s = rule_statistics(never, solved)
    assert s.coverage == 0 and np.isnan(s.agreement) and np.isnan(s.mass) and s.cost == 0
    with pytest.raises(ValueError, match="endgames"):
        rule_statistics(never, [])


def test_rules_from_tree_partition_the_tree(solved):
    from hunl.distill.policy import concat_rows

    rows = concat_rows(e.rows for e in solved)
    model = DistilledPolicy(max_depth=2, n_samples=4000, min_samples_leaf=10).fit(rows)
    rules = rules_from_tree(model, (5, True, 1), min_coverage=0.0)
    assert 1 <= len(rules) <= 4 and all(r.player == 1 for r in rules)
    X = np.nan_to_num(rows.X.astype(np.float64))
    masks = np.array([r.applies(rows.street, rows.facing, X) for r in rules])
    facing = (rows.street == 5) & rows.facing & (X[:, 7] == 1)
    assert np.array_equal(masks.sum(axis=0), facing.astype(int))  # every facing decision in exactly one leaf
    pred = model.class_probs(5, True, X[facing])
    for r, m in zip(rules, masks):
        assert np.allclose(pred[m[facing]], r.strategy)


def test_pipeline_steps_agree_with_direct_calls(solved, tmp_path):
    """hunl.distill.pipeline on a tiny stored database equals decision_rows / evaluate_policy called directly."""
    from hunl.distill.cost import evaluate_policy
    from hunl.distill.family import HoldemRiverFamily
    from hunl.distill.pipeline import collect_rows, evaluate_task, rows_task, score_policies
    from hunl.distill.policy import CheckCall, play
    from rulelearn.data.database import SolutionDatabase
    from rulelearn.data.executors import SerialExecutor

    fam = HoldemRiverFamily(max_combos=40, iterations=60, target_pct_pot=50.0,
                            range_models=(("preflop", 1.0), ("strength", 1.0)))
    db = SolutionDatabase(tmp_path / "db")
    db.generate(fam, 3, seed=1, workers=1, progress=False)
    cols = db.load()
    with SerialExecutor() as ex:
        rows = collect_rows(fam, cols, ex, chunk=2)
        _, n, direct = rows_task(fam, cols)
        assert n == 3 and np.array_equal(rows.weight, direct.weight)
        # columns in another order than their game ids: the rows follow the columns
        from hunl.distill.pipeline import take

        rev = take(cols, [2, 1, 0])
        again, (_, _, direct_rev) = collect_rows(fam, rev, ex, chunk=2), rows_task(fam, rev)
        assert np.array_equal(again.weight, direct_rev.weight) and np.array_equal(again.node, direct_rev.node)
        scores = score_policies(fam, cols, {"cc": CheckCall()}, ex, chunk=2)
    one = evaluate_task(fam, cols, {"cc": CheckCall()})
    assert np.allclose(scores.exploitability_pct_pot, one.exploitability_pct_pot)
    g = fam.game(cols, 0)
    e = evaluate_policy(g, play(g, CheckCall()), fam.policy_array(cols, 0, g))
    assert scores.exploitability_pct_pot[0, 0] == pytest.approx(e.exploitability_pct_pot)
    assert scores.ev_mbb[0, 0] == pytest.approx(e.ev_mbb)
    # the rows of the first endgame come first, and hold the stored policy summed by class
    from hunl.distill.decisions import decision_rows

    r0 = decision_rows(g, fam.policy_array(cols, 0, g))
    k = r0.weight.size
    assert np.array_equal(direct.Y[:k], r0.Y) and np.array_equal(direct.node[:k], r0.node)
    ctx = DecisionContext(g)
    probs = fam.policy_array(cols, 0, g)
    root = r0.node == 0
    kids = g.tree.children(0)
    assert g.tree.kind[0] == DECISION
    want = actions_to_classes(probs[kids.start:kids.stop, r0.hand[root]].T, ctx.node_classes(0))
    assert np.allclose(r0.Y[root], want, atol=1e-6)

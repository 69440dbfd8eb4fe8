"""The rule-set frontier: its rows against rule sets scored directly, worker processes against one process."""

import numpy as np
import pandas as pd
import pytest

from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.experiments.frontier import RuleSetConfig, rule_frontier, summarise_frontier
from rulelearn.rules.leaves import LEAF_KINDS, LeafFitter, RuleSet
from tests.rulelearn.conftest import SMALL_FAMILY as FAMILY


def test_frontier_on_a_small_database(small_db):
    cols, _ = small_db
    cfg = RuleSetConfig(max_leaves=3, seeds=(0, 1), max_fit_games=1000, n_fit=40, n_score=40, n_screen=2,
                        min_leaf=8, kmedoids_max_samples=200)
    frontier, fitted = rule_frontier(SolvedGames(FAMILY, cols), cfg)
    assert set(frontier.method) == {"CART tree", "exploitability tree", "k-medoids"}
    assert len(frontier) == 2 * 3 * 3 * 3
    # on their own training games, optimal leaves beat medoid and mean leaves for every rule set
    wide = frontier.pivot_table(index=["seed", "method", "n_leaves"], columns="leaf_kind",
                                values="train_exploitability")
    assert np.all(wide["optimal"] <= wide[["medoid", "mean"]].min(axis=1) + 1e-9)
    summary = summarise_frontier(frontier)
    assert set(summary.columns) >= {"mean", "std", "min", "max", "n_seeds"}
    assert np.all(summary.n_seeds == 2)
    assert (0, "exploitability tree") in fitted


def test_frontier_rows_match_rule_sets_scored_directly(small_db):
    """The frontier scores each tree node once; the means must equal scoring each fitted rule set whole."""
    cols, _ = small_db
    cfg = RuleSetConfig(max_leaves=4, seeds=(3,), max_fit_games=60, n_fit=40, n_score=40, n_screen=2, min_leaf=8,
                        kmedoids_max_samples=200)
    frontier, fitted = rule_frontier(SolvedGames(FAMILY, cols), cfg)
    X = np.cumsum(FAMILY.ranges(cols), axis=-1).reshape(len(cols["value"]), -1)
    split = split_games(len(X), cfg.test_fraction, 3)
    fitter = LeafFitter(SolvedGames(FAMILY, cols), cfg.max_fit_games, 3)
    test_cols = {k: v[split.test] for k, v in cols.items()}
    train_cols = {k: v[split.train] for k, v in cols.items()}
    for method in ("CART tree", "exploitability tree"):
        tree, train = fitted[(3, method)]
        assert np.array_equal(train, split.train)
        for kind in LEAF_KINDS:
            for k in range(1, tree.max_leaves + 1):
                rs = RuleSet.fit(tree, k, X[train], train, kind, fitter)
                row = frontier[(frontier.method == method) & (frontier.leaf_kind == kind) & (frontier.n_leaves == k)]
                assert len(row) == 1
                test = FAMILY.player1_exploitability(test_cols, rs.predict(X[split.test])).mean()
                train_e = FAMILY.player1_exploitability(train_cols, rs.predict(X[train])).mean()
                assert row["test_exploitability"].iloc[0] == pytest.approx(test, abs=1e-12)
                assert row["train_exploitability"].iloc[0] == pytest.approx(train_e, abs=1e-12)


def test_frontier_in_worker_processes_equals_one_process(small_db):
    cols, _ = small_db
    cfg = RuleSetConfig(max_leaves=3, seeds=(0, 1), max_fit_games=60, n_fit=40, n_score=40, n_screen=2,
                        min_leaf=8, kmedoids_max_samples=200)
    one, _ = rule_frontier(SolvedGames(FAMILY, cols), cfg)
    two, fitted = rule_frontier(SolvedGames(FAMILY, cols), cfg, n_jobs=2)
    cols_compared = ["seed", "method", "leaf_kind", "n_leaves", "test_exploitability", "train_exploitability"]
    pd.testing.assert_frame_equal(one[cols_compared], two[cols_compared])
    assert {(0, "exploitability tree"), (1, "CART tree"), (1, "k-medoids k=3")} <= set(fitted)
    with pytest.raises(ValueError, match="n_jobs"):
        rule_frontier(SolvedGames(FAMILY, cols), cfg, n_jobs=0)


def test_run_frontier_writes_its_blocks(tmp_path):
    from rulelearn.data.database import SolutionDatabase
    from rulelearn.experiments.frontier import FrontierJob, run_frontier

    SolutionDatabase(tmp_path / "db").generate("betgame", n_games=300, workers=1, progress=False)
    doc = tmp_path / "RULES.md"
    job = FrontierJob(db=str(tmp_path / "db"), games=300, seeds=(0,), max_leaves=2, max_fit_games=40,
                      acceptance_leaves=2, out=str(tmp_path / "out"), figure=str(tmp_path / "f.png"), doc=str(doc))
    assert run_frontier(job) == 0
    text = doc.read_text()
    for block in ("frontier-table", "frontier-acceptance", "frontier-rules"):
        assert f"<!--block:{block}-->" in text
    assert "| k-medoids, medoid strategies (the paper) |" in text and (tmp_path / "f.png").exists()

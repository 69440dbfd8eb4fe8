"""The rule-set frontier: held-out exploitability of rule sets with 1 .. 15 leaves, and its report (docs/RULES.md).

:func:`rule_frontier` evaluates the two trees of :mod:`rulelearn.rules.growth` (CART and exploitability in the
loop) with the three leaf kinds of :mod:`rulelearn.rules.leaves`, and k-medoids rule sets (each test game assigned
to its EMD-nearest medoid, the paper's Section 4.3) with the same three kinds per cluster, for 1 ..
``max_leaves`` leaves on several train/test splits. Game-agnostic: the family supplies ranges, strategies, player
1's exploitability and the group optimum. :func:`run_frontier` is ``scripts/rule_frontier.py``: it loads a
database, runs the frontier, and writes the CSV tables, the figure and the blocks ``frontier-table``,
``frontier-acceptance``, ``frontier-rules`` (and with the LP-games study ``frontier-lp-games``) of the doc.

Speed. Each (split, method) pair is one task, and tasks run in worker processes (``n_jobs``,
:func:`rulelearn.data.executors.make_executor`); every random choice is seeded by the split and the group, so the
results do not depend on the order or the process of the work. The nested trees are scored node by node (a
node's strategy is scored on its games once, not once per tree size), and each optimal group strategy
warm-starts the family's solver from the previous one (the bet game's LP starts from the bets that optimum uses,
see :mod:`games.betgame.group_lp`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rulelearn.data.database import SolutionDatabase
from rulelearn.data.executors import make_executor
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.family import supports_group_optimum
from rulelearn.features.representations import Representation
from rulelearn.learners import EMDKMedoids
from rulelearn.report.docblocks import markdown_table, write_blocks
from rulelearn.report.plots import plot_frontier
from rulelearn.report.timing import cpu_seconds
from rulelearn.rules.formatting import describe_strategy
from rulelearn.rules.growth import grow_cart_tree, grow_exploitability_tree
from rulelearn.rules.leaves import LEAF_KINDS, LeafFitter, RuleSet
from rulelearn.validation import check_int

__all__ = ["METHODS", "FrontierJob", "RuleSetConfig", "acceptance_table", "frontier_table", "lp_games_study",
           "rule_frontier", "run_frontier", "summarise_frontier"]


@dataclass(frozen=True)
class RuleSetConfig:
    """Settings of :func:`rule_frontier` (see the module docstring for the approximations).

    Attributes
    ----------
    max_leaves : int
        Frontier from 1 to this many leaves (and k-medoids from k = 1 to it).
    seeds : tuple of int
        One train/test split (and subsample stream) per seed.
    test_fraction : float
    max_fit_games : int
        Subsample size of an optimal leaf's LP (:class:`~rulelearn.rules.leaves.LeafFitter`).
    n_thresholds, n_fit, n_score, n_screen, min_leaf : int
        Of :func:`~rulelearn.rules.growth.grow_exploitability_tree`.
    kmedoids_max_samples : int
        k-medoids fits its medoids on at most this many training games (``8 m^2`` bytes of distances).
    n_games : int or None
        Use only the first ``n_games`` loaded games (None: all).
    """

    max_leaves: int = 15
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    test_fraction: float = 0.2
    max_fit_games: int = 300
    n_thresholds: int = 5
    n_fit: int = 200
    n_score: int = 400
    n_screen: int = 4
    min_leaf: int = 30
    kmedoids_max_samples: int = 3000
    n_games: int | None = None


#: The three ways of forming groups, in the order of the frontier's rows.
METHODS = ("k-medoids", "CART tree", "exploitability tree")
_TASK_ORDER = ("exploitability tree", "k-medoids", "CART tree")  # the most expensive parts first


def rule_frontier(games: SolvedGames, config: RuleSetConfig = RuleSetConfig(), progress=None,
                  n_jobs: int = 1) -> tuple[pd.DataFrame, dict]:
    """Held-out mean exploitability of rule sets with 1 .. ``max_leaves`` leaves, on several splits.

    Methods: ``"CART tree"`` and ``"exploitability tree"`` (each with ``medoid``, ``mean`` and ``optimal``
    leaves), and ``"k-medoids"`` (k clusters by input EMD, test games assigned to the nearest medoid; each cluster
    plays its medoid's strategy -- the paper's rule set --, its mean strategy, or its optimal strategy).

    Parameters
    ----------
    games : SolvedGames
        A loaded solution database; its family must provide ``optimal_group_strategy``.
    config : RuleSetConfig
    progress : callable, optional
        Called with a short message after each step (e.g. ``print``).
    n_jobs : int, default 1
        Worker processes. Each (split, method) pair is one task; results do not depend on ``n_jobs`` (every
        random choice is seeded by the split and the group, not by the order of the work).

    Returns
    -------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves): ``seed``, ``method``, ``leaf_kind``, ``n_leaves``,
        ``test_exploitability`` (mean over the test games, chips), ``train_exploitability`` (over the training
        games), ``n_train``, ``n_test``, ``seconds`` (wall time of the (seed, method) task).
    fitted : dict
        ``(seed, method) -> (GrownTree or EMDKMedoids, train rows)``, to print the rules of a fitted rule set.

    Raises
    ------
    ValueError
        If the family has no group optimum, or ``n_jobs < 1``.
    """
    if not supports_group_optimum(games.family):
        raise ValueError("rule_frontier needs a family with optimal_group_strategy (GroupOptimizingFamily)")
    n_jobs = check_int("n_jobs", n_jobs, 1)
    say = progress or (lambda msg: None)
    if config.n_games is not None:
        games = games.subset(np.arange(min(config.n_games, len(games))))
    data = games.represent(Representation("cdf", None))
    X, names = data.X, data.feature_names
    tasks = [(seed, method) for method in _TASK_ORDER for seed in config.seeds]
    results = {}
    # worker processes get the games once (the initializer), then one (split, method) task at a time
    with make_executor(n_jobs, n_tasks=len(tasks), initializer=_init_worker,
                       initargs=(games, X, names, config)) as ex:
        for seed, method, result in ex.imap_unordered(_worker_task, tasks):
            results[(seed, method)] = result
            say(f"seed {seed}: {method} ({result[2]:.0f} s)")
    rows_out, fitted = [], {}
    for seed in config.seeds:
        for method in METHODS:
            rows, fits, _ = results[(seed, method)]
            rows_out += rows
            fitted.update(fits)
    return pd.DataFrame(rows_out), fitted


_WORKER: dict = {}


def _init_worker(games, X, names, config) -> None:
    _WORKER.update(games=games, X=X, names=names, config=config)


def _worker_task(seed: int, method: str):
    w = _WORKER
    return seed, method, _frontier_task(w["games"], w["X"], w["names"], w["config"], seed, method)


def _frontier_task(games: SolvedGames, X: np.ndarray, names, config: RuleSetConfig, seed: int,
                   method: str) -> tuple[list[dict], dict, float]:
    """The frontier rows and fitted models of one method on one train/test split (see :func:`rule_frontier`)."""
    t0 = time.perf_counter()
    split = split_games(X.shape[0], config.test_fraction, seed)
    train, test = split.train, split.test
    fitter = LeafFitter(games, config.max_fit_games, seed)
    strategies = games.strategies
    parts = {"test": games.subset(test), "train": games.subset(train)}
    rows_out, fitted = [], {}

    def record(kind, k, test_pred, train_pred):
        rows_out.append({"seed": seed, "method": method, "leaf_kind": kind, "n_leaves": k,
                         "test_exploitability": float(parts["test"].player1_exploitability(test_pred).mean()),
                         "train_exploitability": float(parts["train"].player1_exploitability(train_pred).mean()),
                         "n_train": train.size, "n_test": test.size})

    if method == "k-medoids":
        for k in range(1, config.max_leaves + 1):
            km = EMDKMedoids(k, max_samples=config.kmedoids_max_samples, random_state=seed).fit(
                X[train], strategies[train])
            fitted[(seed, f"k-medoids k={k}")] = (km, train)
            lab_train, lab_test = km.labels_, km.predict_cluster(X[test])
            for kind in LEAF_KINDS:
                if kind == "medoid":
                    per = km.medoid_targets_
                else:
                    per = np.stack([fitter(kind, train[lab_train == c]) if np.any(lab_train == c)
                                    else km.medoid_targets_[c] for c in range(k)])
                record(kind, k, per[lab_test], per[lab_train])
    else:
        if method == "CART tree":
            tree = grow_cart_tree(X[train], strategies[train], config.max_leaves, names, random_state=seed)
        else:
            def score(rows, strat):
                return parts["train"].subset(rows).player1_exploitability(
                    np.broadcast_to(strat, (rows.size, *strat.shape)))

            tree = grow_exploitability_tree(
                X[train], lambda r: fitter("optimal", train[r]), lambda r: fitter("mean", train[r]), score,
                config.max_leaves, names, config.n_thresholds, config.n_fit, config.n_score, config.n_screen,
                config.min_leaf, random_state=seed)
        fitted[(seed, method)] = (tree, train)
        # the trees with 1 .. max_leaves leaves are nested: score each node's strategy on its games once
        masks = {"train": tree.node_masks(X[train]), "test": tree.node_masks(X[test])}
        for kind in LEAF_KINDS:
            sums: dict = {}
            for k in range(1, tree.max_leaves + 1):
                leaves = [int(node) for node in tree.leaves(k)]
                for node in leaves:
                    if node not in sums:
                        strat = fitter(kind, train[masks["train"][node]])
                        sums[node] = {part: _exploitability_sum(parts[part], masks[part][node], strat)
                                      for part in ("train", "test")}
                rows_out.append({"seed": seed, "method": method, "leaf_kind": kind, "n_leaves": k,
                                 "test_exploitability": sum(sums[nd]["test"] for nd in leaves) / test.size,
                                 "train_exploitability": sum(sums[nd]["train"] for nd in leaves) / train.size,
                                 "n_train": train.size, "n_test": test.size})
    seconds = time.perf_counter() - t0
    for r in rows_out:
        r["seconds"] = seconds
    return rows_out, fitted, seconds


def _exploitability_sum(games: SolvedGames, mask: np.ndarray, strategy: np.ndarray) -> float:
    """Total player-1 exploitability (chips) of one strategy over the games ``mask`` selects."""
    if not mask.any():
        return 0.0
    sub = games.subset(np.flatnonzero(mask))
    return float(sub.player1_exploitability(np.broadcast_to(strategy, (int(mask.sum()), *strategy.shape))).sum())


def summarise_frontier(frontier: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard deviation, min and max over seeds of the held-out exploitability (chips).

    Parameters
    ----------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves), as the first result of :func:`rule_frontier`; read are
        ``method``, ``leaf_kind``, ``n_leaves`` and ``test_exploitability`` (player 1's held-out mean
        exploitability of one split, chips).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``leaf_kind``, ``n_leaves``, ``mean``, ``std``, ``min``, ``max``, ``n_seeds``.
        One row per (method, leaf kind, leaves), sorted by them; the statistics are over the splits, in chips
        (``std`` is the sample standard deviation, NaN for one split); ``n_seeds`` counts the splits.

    Raises
    ------
    KeyError
        If ``frontier`` lacks one of the columns read.
    """
    g = frontier.groupby(["method", "leaf_kind", "n_leaves"])["test_exploitability"]
    out = g.agg(["mean", "std", "min", "max", "count"]).reset_index()
    return out.rename(columns={"count": "n_seeds"})


# ---------------------------------------------------------------------------------------------- the report
def frontier_table(summary: pd.DataFrame) -> str:
    """Markdown: rows = leaves, columns = method x leaf kind, cells = mean +- std over splits (chips).

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`summarise_frontier`; read are ``method``, ``leaf_kind``, ``n_leaves``, ``mean`` and
        ``std``. Rows of methods or leaf kinds not in :data:`METHODS` and
        :data:`~rulelearn.rules.leaves.LEAF_KINDS` are left out.

    Returns
    -------
    str
        A GitHub Markdown table (ending in a newline): one row per number of leaves, ascending; a column
        ``leaves``, then one per (method, leaf kind) in the order of :data:`METHODS` and
        :data:`~rulelearn.rules.leaves.LEAF_KINDS`. Each cell is the held-out mean exploitability of player 1
        (chips), ``mean ± std`` over the splits to four decimals (a NaN ``std``, from one split, prints as
        ``0.0000``); empty where the summary has no row.

    Raises
    ------
    KeyError
        If ``summary`` lacks ``n_leaves``.
    AttributeError
        If it lacks ``method`` or ``leaf_kind``.
    """
    cols = [(m, k) for m in METHODS for k in LEAF_KINDS]
    rows = []
    for n in sorted(summary["n_leaves"].unique()):
        cells = [n]
        for m, k in cols:
            r = summary[(summary.method == m) & (summary.leaf_kind == k) & (summary.n_leaves == n)]
            cells.append("" if r.empty else f"{r['mean'].iloc[0]:.4f} ± {np.nan_to_num(r['std'].iloc[0]):.4f}")
        rows.append(cells)
    header = ["leaves"] + [f"{m}, {k}" for m, k in cols]
    return markdown_table((header, rows), right=header)


def acceptance_table(frontier: pd.DataFrame, k: int) -> str:
    """Rule sets of ``k`` leaves (optimal leaves of both trees first) against the paper's k-medoids, by split.

    The baseline is k-medoids with each cluster playing its medoid's strategy (the paper's rule set, Section
    4.3); it is compared with the rule sets of ``k`` leaves of the exploitability tree and CART with optimal
    leaves, k-medoids with optimal and mean strategies, and CART with mean leaves. The improvement of a rule
    set is the baseline's held-out exploitability minus its own, split by split (splits missing from either
    are dropped); positive is better than the medoids.

    Parameters
    ----------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves), as the first result of :func:`rule_frontier`; read are
        ``seed``, ``method``, ``leaf_kind``, ``n_leaves`` and ``test_exploitability``.
    k : int
        The number of leaves (clusters) compared. It is not checked: a ``k`` the frontier has no rows for
        gives NaN cells.

    Returns
    -------
    str
        A GitHub Markdown table (rule set; mean ± std over the splits of the held-out mean exploitability of
        player 1, chips; the improvement over the medoids, mean ± std (min .. max) over the splits, chips),
        then a line naming the baseline's splits, ending in a newline. A standard deviation over one split is
        NaN.

    Raises
    ------
    KeyError
        If ``frontier`` lacks ``seed`` or ``test_exploitability``.
    AttributeError
        If it lacks ``method``, ``leaf_kind`` or ``n_leaves``.
    """
    def per_seed(method, kind):
        r = frontier[(frontier.method == method) & (frontier.leaf_kind == kind) & (frontier.n_leaves == k)]
        return r.set_index("seed")["test_exploitability"]

    base = per_seed("k-medoids", "medoid")
    header = [f"rule set ({k} leaves)", "mean held-out exploitability (chips)",
              f"improvement over {k} medoids: mean ± std (min .. max) over splits"]
    rows = [("k-medoids, medoid strategies (the paper)", f"{base.mean():.4f} ± {base.std():.4f}", "")]
    for method, kind in (("exploitability tree", "optimal"), ("CART tree", "optimal"), ("k-medoids", "optimal"),
                         ("k-medoids", "mean"), ("CART tree", "mean")):
        s = per_seed(method, kind)
        d = (base - s).dropna()
        rows.append((f"{method}, {kind} strategies", f"{s.mean():.4f} ± {s.std():.4f}",
                     f"{d.mean():.4f} ± {d.std():.4f} ({d.min():.4f} .. {d.max():.4f})"))
    table = markdown_table((header, rows), right=header[1:])
    return table + f"\n{base.size} train/test splits (seeds {', '.join(map(str, base.index))}).\n"


def rules_block(games: SolvedGames, fitted, seed: int, n_leaves: int, config: RuleSetConfig) -> str:
    """The rules of the exploitability tree with ``n_leaves`` optimal leaves of one split, in words."""
    tree, train = fitted[(seed, "exploitability tree")]
    X = games.represent(Representation("cdf", None)).X
    fitter = LeafFitter(games, config.max_fit_games, seed)
    rs = RuleSet.fit(tree, n_leaves, X[train], train, "optimal", fitter)
    out = []
    for rule in rs.rules():
        cond = " and ".join(str(c) for c in rule.conditions) or "always"
        what = describe_strategy(rule.strategy, games.family.action_labels, games.hand_labels, games.hand_noun,
                                 action_values=games.family.action_values)
        out.append(f"* **if {cond}** ({rule.coverage:.0%} of training games): {what}")
    return "\n".join(out) + "\n"


def lp_games_study(games: SolvedGames, seed: int, sizes=(100, 200, 300, 600, 1200, 2400), repeats: int = 4,
                   n_groups: int = 4) -> pd.DataFrame:
    """Held-out mean exploitability (chips) of the optimal strategy of a group fitted on ``m`` of its games.

    Groups: all training games of the split ``seed``, and the leaves of its CART tree with ``n_groups`` leaves
    (groups of a few thousand games, like the frontier's leaves). For each group and ``m`` (at most the
    group's size), ``repeats`` random subsamples of ``m`` training games are fitted and scored on the group's
    test games.

    Parameters
    ----------
    games : SolvedGames
        The loaded solution database; its family must provide ``optimal_group_strategy``
        (:class:`~rulelearn.family.GroupOptimizingFamily`).
    seed : int
        Seed of the 80/20 train/test split (:func:`~rulelearn.data.splits.split_games`), of the CART tree's
        ``random_state`` and of the subsamples.
    sizes : sequence of int, default ``(100, 200, 300, 600, 1200, 2400)``
        The numbers ``m`` of training games an LP is fitted on; sizes above a group's training games are
        skipped for that group.
    repeats : int, default 4
        Random subsamples per group and size (at least 2 for a finite ``std over subsamples``).
    n_groups : int, default 4
        Leaves of the CART tree (on the whole cdf, ``Representation("cdf", None)``) whose leaves are the
        smaller groups.

    Returns
    -------
    pandas.DataFrame
        One row per (group, size): ``group`` (``"all games"`` or ``"CART leaf i of n"``), ``train games``,
        ``test games``, ``LP games`` (``m``), ``held-out exploitability`` (mean over the subsamples of
        player 1's mean exploitability on the group's test games, chips), ``std over subsamples`` (chips,
        sample standard deviation) and ``LP CPU time (s)`` (mean CPU seconds of this process per LP).

    Raises
    ------
    ValueError
        If the split has an empty side, or the CART tree cannot grow ``n_groups`` leaves (``n_groups < 1``
        included).
    AttributeError
        If the family has no ``optimal_group_strategy``.
    """
    data = games.represent(Representation("cdf", None))
    X, names = data.X, data.feature_names
    split = split_games(X.shape[0], 0.2, seed)
    train, test = split.train, split.test
    tree = grow_cart_tree(X[train], games.strategies[train], n_groups, names, random_state=seed)
    leaves = tree.leaves(n_groups)
    groups = {"all games": (train, test)}
    m_train, m_test = tree.node_masks(X[train]), tree.node_masks(X[test])
    for pos, node in enumerate(leaves):
        groups[f"CART leaf {pos + 1} of {n_groups}"] = (train[m_train[node]], test[m_test[node]])
    rng = np.random.default_rng(seed)
    rows = []
    for name, (g_train, g_test) in groups.items():
        scored = games.subset(g_test)
        for m in sizes:
            if m > g_train.size:
                continue
            scores, cpu = [], []
            for _ in range(repeats):
                r = np.sort(rng.choice(g_train, m, replace=False))
                c0 = time.process_time()
                strat = games.family.optimal_group_strategy(games.columns, r)
                cpu.append(time.process_time() - c0)
                scores.append(scored.player1_exploitability(np.broadcast_to(strat, (g_test.size, *strat.shape)))
                              .mean())
            rows.append({"group": name, "train games": g_train.size, "test games": g_test.size, "LP games": m,
                         "held-out exploitability": np.mean(scores), "std over subsamples": np.std(scores, ddof=1),
                         "LP CPU time (s)": np.mean(cpu)})
    return pd.DataFrame(rows)


def lp_games_block(study: pd.DataFrame, db: str, repeats: int, seed: int) -> str:
    """Markdown: one row per group, one column per LP size (held-out exploitability, its excess over the largest
    LP's), then the CPU time of one LP by size."""
    sizes = sorted(study["LP games"].unique())
    header = ["group", "train / test games"] + [f"{m} games" for m in sizes]
    rows = []
    for name, g in study.groupby("group", sort=False):
        best = g.loc[g["LP games"].idxmax(), "held-out exploitability"]
        cells = []
        for m in sizes:
            r = g[g["LP games"] == m]
            cells.append("" if r.empty else f"{r['held-out exploitability'].iloc[0]:.5f} "
                         f"({r['held-out exploitability'].iloc[0] - best:+.5f})")
        rows.append([name, f"{g['train games'].iloc[0]} / {g['test games'].iloc[0]}"] + cells)
    cpu = study.groupby("LP games")["LP CPU time (s)"].mean()
    rows.append(["CPU time of one LP (s)", ""] + [f"{cpu[m]:.2f}" for m in sizes])
    return (f"Split seed {seed}, mean over {repeats} random subsamples per cell (chips; in brackets: the "
            f"difference to the largest LP's); `python scripts/rule_frontier.py --db {db} --lp-games-study`.\n\n"
            + markdown_table((header, rows), right=header[1:]))


@dataclass(frozen=True)
class FrontierJob:
    """What ``scripts/rule_frontier.py`` runs (its options; see the script's ``--help``)."""

    db: str = "data/db20k"
    games: int = 20_000
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    max_leaves: int = 15
    max_fit_games: int = 300
    acceptance_leaves: int = 5
    jobs: int = 1
    out: str = "data/rules"
    figure: str = "docs/figures/rule_frontier.png"
    doc: str | None = "docs/RULES.md"
    lp_games_study: bool = False
    lp_repeats: int = 4


def run_frontier(job: FrontierJob) -> int:
    """Run the frontier of ``job`` and write its tables, figure and doc blocks; returns 0.

    Loads the games with id below ``job.games`` of ``job.db`` (verified ones only), runs :func:`rule_frontier`
    on the splits ``job.seeds``, and writes ``<out>/frontier.csv``, ``<out>/frontier_summary.csv`` and the
    figure ``job.figure`` (:func:`rulelearn.report.plots.plot_frontier`); prints :func:`frontier_table` and
    :func:`acceptance_table` with ``min(job.acceptance_leaves, job.max_leaves)`` leaves. With
    ``job.lp_games_study`` it also runs :func:`lp_games_study` on the first split (``<out>/lp_games.csv``).
    With ``job.doc`` it writes the blocks ``frontier-table``, ``frontier-acceptance``, ``frontier-rules`` (the
    rules of the first split's exploitability tree with optimal leaves) and, with the study,
    ``frontier-lp-games``. Progress and timings go to standard output.

    Parameters
    ----------
    job : FrontierJob
        The database and its number of games, the splits' seeds, ``max_leaves``, ``max_fit_games``,
        ``acceptance_leaves``, worker processes (``jobs``), the output paths and the LP-games study's
        settings.

    Returns
    -------
    int
        Exit status, always 0 (errors raise).

    Raises
    ------
    FileNotFoundError
        If ``job.db`` holds no solution database.
    CorruptManifestError, CorruptShardError
        If its manifest or a shard read is damaged (both are ``ValueError``).
    ValueError
        If the database's family has no group optimum (``optimal_group_strategy``) or ``job.jobs < 1``; with
        ``job.doc``, also if the first split's exploitability tree has fewer than
        ``min(job.acceptance_leaves, job.max_leaves)`` leaves or that number is below 1.
    """
    t0, c0 = time.perf_counter(), cpu_seconds()
    db = SolutionDatabase(job.db)
    games = SolvedGames(db.family(), db.load(n_games=job.games))
    config = RuleSetConfig(max_leaves=job.max_leaves, seeds=tuple(job.seeds), max_fit_games=job.max_fit_games)
    print(f"{len(games)} games from {job.db}; splits {config.seeds}", flush=True)
    frontier, fitted = rule_frontier(games, config, progress=lambda m: print(
        f"[{time.perf_counter() - t0:7.0f} s] {m}", flush=True), n_jobs=job.jobs)
    summary = summarise_frontier(frontier)
    out = Path(job.out)
    out.mkdir(parents=True, exist_ok=True)
    frontier.to_csv(out / "frontier.csv", index=False)
    summary.to_csv(out / "frontier_summary.csv", index=False)
    plot_frontier(summary, Path(job.figure), METHODS, LEAF_KINDS)
    k = min(job.acceptance_leaves, job.max_leaves)
    acc_text = acceptance_table(frontier, k)
    table = frontier_table(summary)
    print(table)
    print(acc_text)
    blocks = {}
    if job.doc:
        blocks["frontier-rules"] = rules_block(games, fitted, config.seeds[0], k, config)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    timing = (f"{wall / 60:.1f} min wall, {cpu / 60:.1f} CPU-min on {job.jobs} worker processes, load average "
              f"{load} at the end")
    print(f"frontier: {timing}", flush=True)
    if job.lp_games_study:
        study = lp_games_study(games, config.seeds[0], repeats=job.lp_repeats)
        study.to_csv(out / "lp_games.csv", index=False)
        print(study.round(5).to_string(), flush=True)
        blocks["frontier-lp-games"] = lp_games_block(study, job.db, job.lp_repeats, config.seeds[0])
    if job.doc:
        header = (f"Database `{job.db}`, first {len(games)} games, {len(config.seeds)} random 80/20 "
                  f"splits; `python scripts/rule_frontier.py --db {job.db}` ({timing}).\n\n")
        blocks["frontier-table"] = header + table
        blocks["frontier-acceptance"] = acc_text
        write_blocks(job.doc, blocks)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0

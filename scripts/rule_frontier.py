#!/usr/bin/env python
"""Exploitability-optimal rule sets: number of leaves (1-15) against held-out mean exploitability.

For several train/test splits of a solution database, grows a CART tree and a tree with exploitability in the
loop over the games' cdf features, fits medoid / mean / LP-optimal strategies in their leaves, fits k-medoids rule
sets (k = 1..15, test games assigned to the EMD-nearest medoid) with the same three kinds per cluster, and writes

* ``docs/figures/rule_frontier.png``: the frontier, one panel per leaf kind (mean over splits, min-max band);
* ``<out>/frontier.csv`` (one row per split, method, kind and size) and ``<out>/frontier_summary.csv``;
* the blocks ``frontier-table``, ``frontier-acceptance`` and ``frontier-rules`` of ``docs/RULES.md``.

::

    python scripts/rule_frontier.py --db data/db20k                 # 20,000 games, 5 splits (minutes on 2 cores)
    python scripts/rule_frontier.py --db data/db20k --games 3000 --seeds 0 --max-leaves 5 --no-doc   # a quick look
    python scripts/rule_frontier.py --db data/db20k --lp-games-study   # also: held-out exploitability vs LP size

The (split, method) tasks run in ``--jobs`` worker processes (default: all cores). ``--lp-games-study`` measures
how the held-out exploitability of an optimal group strategy depends on the number of games its LP sees (block
``frontier-lp-games`` of ``docs/RULES.md``; a few extra minutes, not part of the default run).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rulelearn.database import SolutionDatabase
from rulelearn.rules import describe_strategy
from rulelearn.ruleset import (
    LEAF_KINDS,
    LeafFitter,
    RuleSet,
    RuleSetConfig,
    rule_frontier,
    summarise_frontier,
)

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"(<!--block:([\w.-]+)-->\n)(.*?)(<!--/block:\2-->)", re.DOTALL)
METHODS = ("k-medoids", "CART tree", "exploitability tree")


def write_blocks(path: Path, blocks: dict[str, str]) -> None:
    """Replace the ``<!--block:key-->`` ... ``<!--/block:key-->`` sections of ``path`` named in ``blocks``;
    blocks the file does not mark yet are appended."""
    doc = path.read_text() if path.exists() else "# Rules\n"
    for key in blocks:
        if f"<!--block:{key}-->" not in doc:
            doc = doc.rstrip("\n") + f"\n\n<!--block:{key}-->\n<!--/block:{key}-->\n"
    doc = _BLOCK.sub(lambda m: m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(4)
                     if m.group(2) in blocks else m.group(0), doc)
    path.write_text(doc)


def frontier_table(summary: pd.DataFrame) -> str:
    """Markdown: rows = leaves, columns = method x leaf kind, cells = mean +- std over splits (chips)."""
    cols = [(m, k) for m in METHODS for k in LEAF_KINDS]
    head = "| leaves | " + " | ".join(f"{m}, {k}" for m, k in cols) + " |"
    lines = [head, "|---:|" + "---:|" * len(cols)]
    for n in sorted(summary["n_leaves"].unique()):
        cells = []
        for m, k in cols:
            r = summary[(summary.method == m) & (summary.leaf_kind == k) & (summary.n_leaves == n)]
            cells.append("" if r.empty else f"{r['mean'].iloc[0]:.4f} ± {np.nan_to_num(r['std'].iloc[0]):.4f}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def acceptance(frontier: pd.DataFrame, k: int) -> str:
    """Optimal leaves (both trees) against the paper's k-medoids rule set with ``k`` medoids, per split."""
    def per_seed(method, kind):
        r = frontier[(frontier.method == method) & (frontier.leaf_kind == kind) & (frontier.n_leaves == k)]
        return r.set_index("seed")["test_exploitability"]

    base = per_seed("k-medoids", "medoid")
    title = (f"| rule set ({k} leaves) | mean held-out exploitability (chips) | improvement over {k} medoids: "
             "mean ± std (min .. max) over splits |")
    lines = [title, "|---|---:|---:|",
             f"| k-medoids, medoid strategies (the paper) | {base.mean():.4f} ± {base.std():.4f} | |"]
    for method, kind in (("exploitability tree", "optimal"), ("CART tree", "optimal"), ("k-medoids", "optimal"),
                         ("k-medoids", "mean"), ("CART tree", "mean")):
        s = per_seed(method, kind)
        d = (base - s).dropna()
        lines.append(f"| {method}, {kind} strategies | {s.mean():.4f} ± {s.std():.4f} | "
                     f"{d.mean():.4f} ± {d.std():.4f} ({d.min():.4f} .. {d.max():.4f}) |")
    n_seeds = base.size
    return "\n".join(lines) + f"\n\n{n_seeds} train/test splits (seeds {', '.join(map(str, base.index))}).\n"


def plot_frontier(summary: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharey=True)
    styles = {"k-medoids": ("tab:gray", "o"), "CART tree": ("tab:blue", "s"), "exploitability tree": ("tab:red", "^")}
    for ax, kind in zip(axes, LEAF_KINDS):
        for method in METHODS:
            r = summary[(summary.method == method) & (summary.leaf_kind == kind)].sort_values("n_leaves")
            color, marker = styles[method]
            ax.plot(r.n_leaves, r["mean"], marker=marker, color=color, label=method, ms=4)
            ax.fill_between(r.n_leaves, r["min"], r["max"], color=color, alpha=0.15, lw=0)
        ax.set_title({"medoid": "medoid strategy per leaf / cluster", "mean": "mean strategy per leaf / cluster",
                      "optimal": "LP-optimal strategy per leaf / cluster"}[kind])
        ax.set_xlabel("leaves (clusters for k-medoids)")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].set_ylabel("held-out mean exploitability (chips; pot = 1)")
    axes[0].legend()
    fig.suptitle("Rule sets: size against exploitability (mean over train/test splits, band: min-max)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def rules_block(family, columns, fitted, seed: int, n_leaves: int, config: RuleSetConfig) -> str:
    """The rules of the exploitability tree with ``n_leaves`` optimal leaves of one split, in words."""
    tree, train = fitted[(seed, "exploitability tree")]
    from rulelearn.representations import Representation

    X = Representation("cdf", None).transform(family.ranges(columns), None, list(family.hand_labels),
                                              list(family.player_names)).X
    fitter = LeafFitter(family, columns, config.max_fit_games, seed)
    rs = RuleSet.fit(tree, n_leaves, X[train], train, "optimal", fitter)
    out = []
    for rule in rs.rules():
        cond = " and ".join(str(c) for c in rule.conditions) or "always"
        what = describe_strategy(rule.strategy, family.action_labels, family.hand_labels,
                                 action_values=family.action_values)
        out.append(f"* **if {cond}** ({rule.coverage:.0%} of training games): {what}")
    return "\n".join(out) + "\n"


def lp_games_study(family, columns, seed: int, sizes=(100, 200, 300, 600, 1200, 2400), repeats: int = 4,
                   n_groups: int = 4) -> pd.DataFrame:
    """Held-out mean exploitability (chips) of the optimal strategy of a group fitted on ``m`` of its games.

    Groups: all training games of the split ``seed``, and the leaves of its CART tree with ``n_groups`` leaves
    (groups of a few thousand games, like the frontier's leaves). For each group and ``m`` (at most the group's
    size), ``repeats`` random subsamples of ``m`` training games are fitted and scored on the group's test games.
    """
    from rulelearn.experiment import split_games
    from rulelearn.ruleset import _whole_game_features, grow_cart_tree

    X, names = _whole_game_features(family, columns)
    split = split_games(X.shape[0], 0.2, seed)
    train, test = split.train, split.test
    tree = grow_cart_tree(X[train], family.strategies(columns)[train], n_groups, names, random_state=seed)
    leaves = tree.leaves(n_groups)
    groups = {"all games": (train, test)}
    m_train, m_test = tree.node_masks(X[train]), tree.node_masks(X[test])
    for pos, node in enumerate(leaves):
        groups[f"CART leaf {pos + 1} of {n_groups}"] = (train[m_train[node]], test[m_test[node]])
    rng = np.random.default_rng(seed)
    rows = []
    test_cols = {k: v[test] for k, v in columns.items()}
    for name, (g_train, g_test) in groups.items():
        cols = {k: v[g_test] for k, v in columns.items()} if name != "all games" else test_cols
        for m in sizes:
            if m > g_train.size:
                continue
            scores, cpu = [], []
            for _ in range(repeats):
                r = np.sort(rng.choice(g_train, m, replace=False))
                c0 = time.process_time()
                strat = family.optimal_group_strategy(columns, r)
                cpu.append(time.process_time() - c0)
                scores.append(family.exploitability(cols, np.broadcast_to(strat, (g_test.size, *strat.shape))).mean())
            rows.append({"group": name, "train games": g_train.size, "test games": g_test.size, "LP games": m,
                         "held-out exploitability": np.mean(scores), "std over subsamples": np.std(scores, ddof=1),
                         "LP CPU time (s)": np.mean(cpu)})
    return pd.DataFrame(rows)


def lp_games_block(study: pd.DataFrame, args, seed: int) -> str:
    """Markdown: one row per group, one column per LP size (held-out exploitability, its excess over the largest
    LP's), then the CPU time of one LP by size."""
    sizes = sorted(study["LP games"].unique())
    head = "| group | train / test games | " + " | ".join(f"{m} games" for m in sizes) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(sizes)]
    for name, g in study.groupby("group", sort=False):
        best = g.loc[g["LP games"].idxmax(), "held-out exploitability"]
        cells = []
        for m in sizes:
            r = g[g["LP games"] == m]
            cells.append("" if r.empty else f"{r['held-out exploitability'].iloc[0]:.5f} "
                         f"({r['held-out exploitability'].iloc[0] - best:+.5f})")
        lines.append(f"| {name} | {g['train games'].iloc[0]} / {g['test games'].iloc[0]} | " + " | ".join(cells) + " |")
    cpu = study.groupby("LP games")["LP CPU time (s)"].mean()
    lines.append("| CPU time of one LP (s) | | " + " | ".join(f"{cpu[m]:.2f}" for m in sizes) + " |")
    return (f"Split seed {seed}, mean over {args.lp_repeats} random subsamples per cell (chips; in brackets: the "
            f"difference to the largest LP's); `python scripts/rule_frontier.py --db {args.db} --lp-games-study`.\n\n"
            + "\n".join(lines) + "\n")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default="data/db20k", help="solution database (default data/db20k)")
    p.add_argument("--games", type=int, default=20_000, help="use the first N games (default 20000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="one split per seed")
    p.add_argument("--max-leaves", type=int, default=15)
    p.add_argument("--max-fit-games", type=int, default=300, help="games per optimal-leaf LP (subsample)")
    p.add_argument("--acceptance-leaves", type=int, default=5)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="worker processes, one (split, method) task each (default: all cores)")
    p.add_argument("--out", default="data/rules", help="CSV directory (default data/rules)")
    p.add_argument("--figure", default="docs/figures/rule_frontier.png")
    p.add_argument("--doc", default="docs/RULES.md")
    p.add_argument("--no-doc", action="store_true", help="leave docs/RULES.md alone")
    p.add_argument("--lp-games-study", action="store_true",
                   help="also measure held-out exploitability against the games per LP (block frontier-lp-games)")
    p.add_argument("--lp-repeats", type=int, default=4, help="subsamples per cell of the LP-games study")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    db = SolutionDatabase(args.db)
    family = db.family()
    columns = db.load(n_games=args.games)
    config = RuleSetConfig(max_leaves=args.max_leaves, seeds=tuple(args.seeds), max_fit_games=args.max_fit_games)
    print(f"{len(columns['game_id'])} games from {args.db}; splits {config.seeds}", flush=True)
    frontier, fitted = rule_frontier(family, columns, config, progress=lambda m: print(
        f"[{time.perf_counter() - t0:7.0f} s] {m}", flush=True), n_jobs=args.jobs)
    summary = summarise_frontier(frontier)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frontier.to_csv(out / "frontier.csv", index=False)
    summary.to_csv(out / "frontier_summary.csv", index=False)
    plot_frontier(summary, Path(args.figure))
    k = min(args.acceptance_leaves, args.max_leaves)
    acc_text = acceptance(frontier, k)
    table = frontier_table(summary)
    print(table)
    print(acc_text)
    blocks = {}
    if not args.no_doc:
        blocks["frontier-rules"] = rules_block(family, columns, fitted, config.seeds[0], k, config)
    wall, cpu = time.perf_counter() - t0, _cpu_seconds() - c0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    timing = (f"{wall / 60:.1f} min wall, {cpu / 60:.1f} CPU-min on {args.jobs} worker processes, load average "
              f"{load} at the end")
    print(f"frontier: {timing}", flush=True)
    if args.lp_games_study:
        study = lp_games_study(family, columns, config.seeds[0], repeats=args.lp_repeats)
        study.to_csv(out / "lp_games.csv", index=False)
        print(study.round(5).to_string(), flush=True)
        blocks["frontier-lp-games"] = lp_games_block(study, args, config.seeds[0])
    if not args.no_doc:
        header = (f"Database `{args.db}`, first {len(columns['game_id'])} games, {len(config.seeds)} random 80/20 "
                  f"splits; `python scripts/rule_frontier.py --db {args.db}` ({timing}).\n\n")
        blocks["frontier-table"] = header + table
        blocks["frontier-acceptance"] = acc_text
        write_blocks(ROOT / args.doc if not Path(args.doc).is_absolute() else Path(args.doc), blocks)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (the worker processes), seconds."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


if __name__ == "__main__":
    sys.exit(main())

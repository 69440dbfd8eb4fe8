"""The bet game's rule card and its frontier, written to the terminal, JSON, a figure and docs/RULES.md.

:func:`run_group_cards` is ``scripts/rule_cards.py betgame``: it loads a solution database, measures
:func:`rulelearn.experiments.cards.card_frontier` (cached as CSV under ``out``: a second run with the same
settings reuses it), builds the card of the first split (:func:`rulelearn.experiments.cards.group_card`), prints
it, and writes ``<out>/betgame_card.json``, the figure and the blocks ``betgame-card``, ``betgame-card-table`` of
the doc.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from rulelearn.data.database import SolutionDatabase
from rulelearn.data.shards import columns_digest
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.experiments.cards import GroupCardConfig, card_frontier, group_card
from rulelearn.report.docblocks import markdown_table, write_blocks
from rulelearn.report.plots import plot_card_frontier

__all__ = ["GroupCardJob", "card_summary", "run_group_cards"]


@dataclass(frozen=True)
class GroupCardJob:
    """What ``scripts/rule_cards.py betgame`` runs."""

    db: str = "data/db20k"
    games: int = 20_000
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    max_leaves: int = 8
    card_leaves: int = 6
    max_conditions: int | None = None
    max_fit_games: int = 1200
    target: float = 0.043
    jobs: int = 1
    out: str = "data/cards"
    figure: str = "docs/figures/betgame_card_frontier.png"
    doc: str | None = "docs/RULES.md"
    cards: str = "docs/cards"
    command: str = "python scripts/rule_cards.py betgame"


def card_summary(frontier: pd.DataFrame) -> pd.DataFrame:
    """Mean over splits of conditions and held-out exploitability, per method, leaf kind and leaves.

    Parameters
    ----------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves), as the first result of
        :func:`rulelearn.experiments.cards.card_frontier`; read are ``method``, ``leaf_kind``, ``n_leaves``,
        ``n_conditions``, ``test_exploitability`` and ``seed``.

    Returns
    -------
    pandas.DataFrame
        One row per (method, leaf kind, leaves), sorted by them: ``method``, ``leaf_kind``, ``n_leaves``,
        ``n_conditions`` (mean number of conditions on the card), ``mean`` and ``std`` (mean and sample
        standard deviation over the splits of the held-out mean exploitability of player 1, chips, pot = 1;
        ``std`` is NaN with one split) and ``n_seeds`` (number of splits).

    Raises
    ------
    KeyError
        If ``frontier`` lacks one of the columns read.
    """
    g = frontier.groupby(["method", "leaf_kind", "n_leaves"])
    out = g.agg(n_conditions=("n_conditions", "mean"), mean=("test_exploitability", "mean"),
                std=("test_exploitability", "std"), n_seeds=("seed", "nunique")).reset_index()
    return out


def _curves(summary: pd.DataFrame, kinds) -> dict:
    out = {}
    for (method, kind), label in kinds.items():
        r = summary[(summary.method == method) & (summary.leaf_kind == kind)].sort_values("n_leaves")
        if not r.empty:
            out[label] = (r.n_conditions.to_numpy(), r["mean"].to_numpy())
    return out


_CURVES = {("round exploitability tree", "optimal, plain"): "card: round thresholds, optimal leaves in plain mixes",
           ("round exploitability tree", "optimal, exact"): "round thresholds, optimal leaves (exact mixes)",
           ("exploitability tree", "optimal"): "exploitability tree, raw thresholds, optimal leaves",
           ("CART tree", "optimal"): "CART tree, raw thresholds, optimal leaves",
           ("CART tree", "medoid"): "CART tree, medoid leaves"}


def run_group_cards(job: GroupCardJob) -> int:
    """Run ``job`` (see the module docstring); returns 0, or 1 if the card misses ``job.target``.

    Loads the games with id below ``job.games`` of ``job.db`` (verified ones only), measures
    :func:`rulelearn.experiments.cards.card_frontier` (or reads ``<out>/betgame_frontier.csv`` when
    ``<out>/betgame_frontier.key`` records the same database path, number of games and settings), builds and
    prints the card with ``job.card_leaves`` rules of the first seed's split, and writes
    ``<out>/betgame_card.json``, ``<out>/betgame_frontier_summary.csv`` and the figure ``job.figure``; with
    ``job.doc``, also ``<job.cards>/betgame.json`` and the blocks ``betgame-card`` and ``betgame-card-table``
    of ``job.doc``. Progress goes to standard output.

    Parameters
    ----------
    job : GroupCardJob
        The database and its number of games, the splits' seeds, the frontier's ``max_leaves``, the card's
        ``card_leaves``, ``max_conditions`` and ``max_fit_games``, ``target`` (chips), worker processes
        (``jobs``) and the output paths.

    Returns
    -------
    int
        Exit status: 0 if the held-out mean exploitability of player 1 (chips, pot = 1) of the round-threshold
        card with ``job.card_leaves`` rules in plain mixes, mean over the splits, is at most ``job.target``;
        1 otherwise (the outputs are written either way).

    Raises
    ------
    FileNotFoundError
        If ``job.db`` holds no solution database.
    CorruptManifestError, CorruptShardError
        If its manifest or a shard read is damaged (both are ``ValueError``).
    ValueError
        If ``job.card_leaves`` is not in ``1 ..`` the leaves the first split's tree has (at most
        ``job.max_leaves``), or ``job.jobs < 1``.
    """
    t0 = time.perf_counter()
    out = Path(job.out)
    out.mkdir(parents=True, exist_ok=True)
    db = SolutionDatabase(job.db)
    columns = db.load(n_games=job.games)
    games = SolvedGames(db.family(), columns)
    config = GroupCardConfig(max_leaves=job.max_leaves, seeds=tuple(job.seeds), max_conditions=job.max_conditions,
                             max_fit_games=job.max_fit_games)
    # the games' contents are in the key: a database solved again at the same path is not read from the cache
    key = json.dumps({"db": job.db, "games": len(games), "contents": columns_digest(columns), **asdict(config)},
                     sort_keys=True)
    cache, cache_key = out / "betgame_frontier.csv", out / "betgame_frontier.key"
    if cache.exists() and cache_key.exists() and cache_key.read_text() == key:
        frontier = pd.read_csv(cache)
        print(f"reusing {cache}", flush=True)
        fitted, reused = None, True
    else:
        frontier, fitted = card_frontier(games, config, progress=lambda m: print(
            f"[{time.perf_counter() - t0:6.0f} s] {m}", flush=True), n_jobs=job.jobs)
        frontier.to_csv(cache, index=False)
        cache_key.write_text(key)
        reused = False
    seed = config.seeds[0]
    split = split_games(len(games), config.test_fraction, seed)
    if fitted is None:  # the tree is cheap to regrow for one split with the same seed
        one = GroupCardConfig(**{**asdict(config), "seeds": (seed,), "papers": False})
        _, fitted = card_frontier(games, one)
    tree, train = fitted[seed]
    card = group_card(games, tree, job.card_leaves, train, config, seed, test=split.test)
    print(card.to_text())
    (out / "betgame_card.json").write_text(json.dumps(card.to_dict(), indent=1))
    if job.doc:
        Path(job.cards).mkdir(parents=True, exist_ok=True)
        (Path(job.cards) / "betgame.json").write_text(json.dumps(card.to_dict(), indent=1))
    summary = card_summary(frontier)
    summary.to_csv(out / "betgame_frontier_summary.csv", index=False)
    medoids = summary[(summary.method == "k-medoids") & (summary.leaf_kind == "medoid") & (summary.n_leaves == 5)]
    refs = [("5 medoids, the papers' rule set (no conditions; needs EMD distances)", float(medoids["mean"].iloc[0]))] \
        if not medoids.empty else []
    pts = [("medoid tree of 5 medoids (the papers, Section 4.4)", float(r.n_conditions), float(r.mean))
           for r in summary[summary.method == "medoid tree (papers)"].itertuples()]
    plot_card_frontier(_curves(summary, _CURVES), job.figure,
                       f"Bet game rule cards: mean over {len(config.seeds)} splits of {len(games):,} games",
                       "held-out mean exploitability of player 1 (chips; pot = 1)", refs, pts)
    card_row = summary[(summary.method == "round exploitability tree") & (summary.leaf_kind == "optimal, plain")
                       & (summary.n_leaves == job.card_leaves)].iloc[0]
    ok = card_row["mean"] <= job.target
    print(f"card with {job.card_leaves} rules: {card_row['mean']:.4f} chips mean over {len(config.seeds)} splits "
          f"(target {job.target}); the printed card (split {seed}): {card.cost.mean:.4f}", flush=True)
    if job.doc:
        rows = []
        for n in sorted(summary.n_leaves.unique()):
            cells = [n]
            for (method, kind) in _CURVES:
                r = summary[(summary.method == method) & (summary.leaf_kind == kind) & (summary.n_leaves == n)]
                cells.append("" if r.empty else f"{r['mean'].iloc[0]:.4f} ({r.n_conditions.iloc[0]:.0f})")
            rows.append(cells)
        header = ["rules"] + list(_CURVES.values())
        table = markdown_table((header, rows), right=header)
        extra = [f"{lab}: {v:.4f}" for lab, v in refs] + [f"{lab}: {y:.4f} with {x:.0f} conditions"
                                                          for lab, x, y in pts[:1]]
        blocks = {
            "betgame-card": (f"`{job.command}` ({(time.perf_counter() - t0) / 60:.1f} min"
                             + (f"; the frontier read from `{cache}`, computed by an earlier run with the same "
                                "settings" if reused else "") + f"). The card of split "
                             f"{seed} ({job.card_leaves} rules"
                             + (f", at most {job.max_conditions} conditions each" if job.max_conditions else "")
                             + "):\n\n"
                             + card.to_markdown("####")),
            "betgame-card-table": (f"Held-out mean exploitability of player 1 (chips), mean over "
                                   f"{len(config.seeds)} splits of {len(games):,} games, with the mean number of "
                                   "conditions on the card in brackets:\n\n" + table + "\n"
                                   + "".join(f"* {e}\n" for e in extra)),
        }
        write_blocks(job.doc, blocks)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0 if ok else 1

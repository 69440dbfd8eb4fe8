"""The reproduction of Ganzfried & Yusuf (2017) on a solution database: every experiment, its figures and tables.

:func:`reproduce` is ``scripts/reproduce.py``: generate (or reuse) the database, run the experiments of
:mod:`rulelearn.experiments.trees` and :mod:`rulelearn.experiments.neighbours` as timed stages
(:class:`rulelearn.report.timing.Stages`), run the caller's extra stages (the rule studies of ``docs/RULES.md``),
save the figures ``repro_*.png`` and the CSV tables, pickle everything into ``<out>/results.pkl`` and rewrite the
marked numbers and tables of the doc (:mod:`rulelearn.experiments.reproduction_report`).
"""

from __future__ import annotations

import json
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rulelearn.data.database import GenerationReport, SolutionDatabase
from rulelearn.data.distributions import pmf_to_cdf
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.experiments import neighbours as nb
from rulelearn.experiments import trees
from rulelearn.family import load_family
from rulelearn.features.distance import input_emd
from rulelearn.report import plots
from rulelearn.report.docblocks import render
from rulelearn.report.timing import Stages

__all__ = ["ReproductionJob", "Results", "render_only", "reproduce", "write_doc"]


@dataclass(frozen=True)
class ReproductionJob:
    """What ``scripts/reproduce.py`` runs (its options; see the script's ``--help``)."""

    games: int = 100_000
    db: str = "data/betgame100k"
    seed: int = 0
    workers: int | None = None
    jobs: int = 2
    tree_games: int = 80_000
    table_games: int = 20_000
    table_depth: int = 12
    min_depth: int = 3
    max_depth: int = 20
    repeats: int = 10
    out: str = "data/repro"
    figures: str = "docs/figures"
    results: str = "docs/reproduction_results.json"
    doc: str | None = "docs/REPRODUCTION.md"
    family: str = "betgame"


@dataclass(frozen=True)
class Results:
    """Everything the doc is written from (pickled to ``<out>/results.pkl`` for :func:`render_only`)."""

    games: int
    n_all: int
    seconds: dict
    cpu: dict
    total: float
    report: GenerationReport
    sweep: pd.DataFrame
    table1: pd.DataFrame
    knn: pd.DataFrame
    knn_big: pd.DataFrame
    km_small: pd.DataFrame
    km_big: pd.DataFrame
    mt: object
    mt_small: object
    fig5: object
    n_tree: tuple
    n_table: tuple
    n_full: tuple
    external: dict
    gap_mean: float
    gap_max: float
    load_average: tuple
    table_depth: int
    family: str = "betgame"
    extra: dict = field(default_factory=dict)


def _figures(games: SolvedGames, figs: Path, r: dict, n_tree: tuple, n_test: int) -> None:
    sub = f"trees on {n_tree[0]:,} games, tested on {n_tree[1]:,}"
    sweep = r["sweep"]
    plots.plot_tree_sweep(sweep, figs / "repro_tree_depth.png", title=f"Test EMD and size vs depth ({sub})")
    plots.plot_tree_nodes(sweep, figs / "repro_tree_nodes.png", title=f"Test EMD vs nodes ({sub})")
    plots.plot_exploitability_depth(sweep, figs / "repro_exploitability_depth.png",
                                    title=f"Exploitability vs depth ({sub})")
    plots.plot_knn_fraction(r["knn"], figs / "repro_knn_fraction.png",
                            title=f"1-NN on 1,000-game subsets ({r['knn']['repeat'].nunique()} subsets; band: "
                                  "min-max)", hand_noun=games.hand_noun)
    plots.plot_knn_learning_curve(r["knn_big"], figs / "repro_knn_learning_curve.png",
                                  title=f"1-NN on the full database, tested on {n_test:,} games")
    plots.plot_kmedoids(r["km_small"], r["km_big"], figs / "repro_kmedoids.png",
                        title="k-medoids: play the nearest medoid's strategy")
    plots.plot_medoid_tree(r["mt"], figs / "repro_medoid_tree.png",
                           title="Decision tree on the 5 cluster medoids (full database)")
    km = r["mt"].model.learner_.kmedoids_
    plots.plot_strategies(km.medoid_targets_, figs / "repro_medoids.png",
                          titles=[f"medoid {k + 1}" for k in range(len(km.medoid_indices_))],
                          action_labels=list(games.family.action_labels), hand_labels=games.hand_labels,
                          suptitle="Player 1's equilibrium strategy in the 5 medoid games (full database)",
                          hand_noun=games.hand_noun)


def reproduce(job: ReproductionJob, extra_stages: dict[str, Callable[[], int]] | None = None) -> int:
    """Run the reproduction of ``job``; returns 0.

    Parameters
    ----------
    job : ReproductionJob
    extra_stages : dict of str to callable, optional
        Further stages run after the experiments (``name -> fn()`` returning an exit code, 0 for success), e.g. the
        rule studies that write ``docs/RULES.md``; their codes are recorded in the doc.
    """
    t_start = time.perf_counter()
    st = Stages()
    out, figs = Path(job.out), Path(job.figures)
    out.mkdir(parents=True, exist_ok=True)
    figs.mkdir(parents=True, exist_ok=True)
    family = load_family(job.family)
    db = SolutionDatabase(job.db)
    report = st.run("database: generate or reuse", db.generate, family, job.games, seed=job.seed,
                    workers=job.workers, progress=False)
    columns = st.run("database: load", db.load, n_games=job.games,
                     columns=["probs", "strategy", "value", "pmf1", "pmf2"])
    games = SolvedGames(family, columns)
    n_all = len(games)
    print(f"{n_all} verified games ({report.n_solved} solved by this run in {report.seconds:.0f} s)")
    r = {}
    # --- trees: depth sweep (Games 8(4), Figures 4 and 6), Figure 5 ------------------------------------------
    tree_games = games.first(job.tree_games)
    tree_split = split_games(len(tree_games), 0.2, job.seed)
    r["sweep"] = st.run("trees: depth sweep, every representation", trees.tree_sweep, tree_games, tree_split,
                        depths=range(job.min_depth, job.max_depth + 1), seed=job.seed, n_jobs=job.jobs)
    r["sweep"].to_csv(out / "tree_sweep.csv", index=False)
    r["fig5"] = st.run("trees: Figure 5 (bet-size tree, depth 4)", trees.action_value_tree, tree_games, tree_split,
                       number=9, depth=4, seed=job.seed)
    # --- Table 1 (AAAI-W Section 4.2) --------------------------------------------------------------------------
    table_games = games.first(job.table_games)
    table_split = split_games(len(table_games), 0.2, job.seed)
    r["table1"] = st.run("trees: Table 1", trees.tree_table, table_games, table_split, depth=job.table_depth,
                         seed=job.seed, n_jobs=job.jobs)
    r["table1"].to_csv(out / "table1.csv", index=False)
    # --- k-NN (AAAI-W Section 4.1) -----------------------------------------------------------------------------
    r["knn"] = st.run("k-NN: paper scale (1,000 games)", nb.knn_fraction_curve, games, repeats=job.repeats,
                      seed=job.seed)
    r["knn"].to_csv(out / "knn_fraction.csv", index=False)
    split = split_games(n_all, 0.2, job.seed)
    sizes = sorted({max(10, round(f * n_all)) for f in (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)} | {len(split.train)})
    r["knn_big"] = st.run("k-NN: learning curve, full database", nb.knn_learning_curve, games, split, sizes,
                          seed=job.seed)
    r["knn_big"].to_csv(out / "knn_learning_curve.csv", index=False)
    # --- k-medoids (AAAI-W Section 4.3) and the medoid tree (Section 4.4) --------------------------------------
    r["km_small"] = st.run("k-medoids: paper scale (1,000 games)", nb.kmedoids_paper_scale, games,
                           repeats=job.repeats, seed=job.seed)
    r["km_small"].to_csv(out / "kmedoids_paper_scale.csv", index=False)
    r["km_big"] = st.run("k-medoids: full database", nb.kmedoids_errors, games, split, ks=(1, 5, 10, 15),
                         seed=job.seed)
    r["km_big"].to_csv(out / "kmedoids_full.csv", index=False)
    r["mt"] = st.run("medoid tree", nb.medoid_tree, games, split, seed=job.seed)
    r["mt_small"] = st.run("medoid tree: paper scale", nb.medoid_tree, games.first(1000),
                           split_games(1000, 0.2, job.seed), seed=job.seed)
    # --- the caller's extra stages (the rule studies, with their own outputs and docs) -------------------------
    external = {name: st.run(name, fn) for name, fn in (extra_stages or {}).items()}
    st.run("figures", _figures, games, figs, r, (len(tree_split.train), len(tree_split.test)), len(split.test))
    # generating distributions (Algorithm 4) vs the deal's marginals (what the features are)
    gen = np.concatenate([pmf_to_cdf(columns["pmf1"]), pmf_to_cdf(columns["pmf2"])], axis=1)
    gap = input_emd(gen, pmf_to_cdf(games.ranges).reshape(len(gen), -1))
    total = time.perf_counter() - t_start
    res = Results(games=job.games, n_all=n_all, seconds=dict(st.seconds), cpu=dict(st.cpu), total=total,
                  report=report, n_tree=(len(tree_split.train), len(tree_split.test)),
                  n_table=(len(table_split.train), len(table_split.test)), n_full=(len(split.train), len(split.test)),
                  external={name.split(": ", 1)[-1]: code for name, code in external.items()},
                  gap_mean=float(gap.mean()), gap_max=float(gap.max()), load_average=tuple(os.getloadavg()),
                  table_depth=job.table_depth, family=job.family, **r)
    with open(out / "results.pkl", "wb") as fh:
        pickle.dump(res, fh)
    if not job.doc:
        print(f"done in {total:.0f} s (doc not rewritten; results in {out / 'results.pkl'})")
        return 0
    write_doc(res, job)
    print(f"done in {total:.0f} s; rewrote {job.doc} and {job.results}")
    return 0


def write_doc(res: Results, job: ReproductionJob) -> None:
    """Rewrite the doc's marked numbers and tables, and the results JSON, from ``res``.

    The values and blocks come from :func:`rulelearn.experiments.reproduction_report.collect`. The JSON
    ``job.results`` (``values``, ``stage_seconds``, ``stage_cpu_seconds``) is written first, then every marked
    value and block of the doc ``job.doc`` is replaced (:func:`rulelearn.report.docblocks.render`).

    Parameters
    ----------
    res : Results
        A finished reproduction (:func:`reproduce`, or the pickle ``<out>/results.pkl``).
    job : ReproductionJob
        Read are ``results`` (path of the JSON) and ``doc`` (path of the doc, which must exist).

    Raises
    ------
    KeyError
        If the doc marks a key that ``res`` does not produce (a stale doc); the JSON is already written then.
    FileNotFoundError
        If the doc does not exist or the folder of the JSON does not exist.
    TypeError
        If ``job.doc`` is ``None``; the JSON is already written then.
    """
    from rulelearn.experiments.reproduction_report import collect

    values, blocks = collect(res)
    Path(job.results).write_text(
        json.dumps({"values": values, "stage_seconds": res.seconds, "stage_cpu_seconds": res.cpu}, indent=1) + "\n")
    doc = Path(job.doc)
    doc.write_text(render(doc.read_text(), values, blocks))


def render_only(job: ReproductionJob) -> int:
    """Rewrite the doc and the results JSON from the last run's ``<out>/results.pkl`` (no experiments).

    Parameters
    ----------
    job : ReproductionJob
        Read are ``out`` (the folder of ``results.pkl``), ``results`` and ``doc`` (see :func:`write_doc`).

    Returns
    -------
    int
        Exit status, always 0 (errors raise).

    Raises
    ------
    FileNotFoundError
        If ``<out>/results.pkl``, the doc or the folder of the JSON does not exist.
    pickle.UnpicklingError, AttributeError
        If the pickle is damaged, or was written by a version whose classes no longer load.
    KeyError, TypeError
        As :func:`write_doc`: a stale doc, or ``job.doc`` is ``None``.
    """
    with open(Path(job.out) / "results.pkl", "rb") as fh:
        write_doc(pickle.load(fh), job)
    print(f"rewrote {job.doc} and {job.results} from {Path(job.out) / 'results.pkl'}")
    return 0

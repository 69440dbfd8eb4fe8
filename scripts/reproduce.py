#!/usr/bin/env python
"""Reproduce the learning experiments of Ganzfried & Yusuf (2017) and regenerate docs/REPRODUCTION.md.

One command: generate (or reuse) the solution database, run every experiment, save the figures
``docs/figures/repro_*.png``, the tables (CSV under ``--out``), the numbers
(``docs/reproduction_results.json``),
and rewrite the marked numbers and tables of ``docs/REPRODUCTION.md``::

    python scripts/reproduce.py                          # the paper's 100,000 games (about 15-25 min on 2
    cores) python scripts/reproduce.py --games 20000 --db data/db20k --no-doc   # a quicker run that leaves
    the doc alone

The doc is a template: ``<!--v:key-->...<!--/v-->`` holds one number and ``<!--block:key-->`` ...
``<!--/block:key-->`` one table; a run replaces their contents and fails if the doc names a key it did not
produce. Stages and their wall times are printed and recorded in the doc.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

_VALUE = re.compile(r"<!--v:([\w.-]+)-->(.*?)<!--/v-->", re.DOTALL)
_BLOCK = re.compile(r"(<!--block:([\w.-]+)-->\n)(.*?)(<!--/block:\2-->)", re.DOTALL)


def render(doc: str, values: dict[str, str], blocks: dict[str, str]) -> str:
    """Replace the marked values and blocks of ``doc``.

    Raises
    ------
    KeyError
        If the doc marks a key that ``values`` or ``blocks`` does not hold (a stale doc).
    """
    missing = sorted(
        {m.group(1) for m in _VALUE.finditer(doc)} - set(values)
        | {m.group(2) for m in _BLOCK.finditer(doc)} - set(blocks)
    )
    if missing:
        raise KeyError(f"docs/REPRODUCTION.md marks keys this run did not produce: {missing}")
    doc = _VALUE.sub(lambda m: f"<!--v:{m.group(1)}-->{values[m.group(1)]}<!--/v-->", doc)
    return _BLOCK.sub(lambda m: m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(4), doc)


def markdown_table(df: pd.DataFrame, formats: dict[str, str] | None = None) -> str:
    """A GitHub markdown table; ``formats`` maps a column to a format spec (e.g. ``".4f"``)."""
    formats = formats or {}
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    sep = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    lines = [head, sep]
    for i in range(len(df)):
        cells = []
        for c in df.columns:
            x = df[c].iloc[i]
            cells.append("" if pd.isna(x) else format(x, formats[c]) if c in formats else str(x))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _cpu_seconds() -> float:
    """CPU time of this process, its threads and its finished children (solver workers, external scripts)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Stages:
    """Wall time and CPU time of each named stage."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def run(self, name: str, fn, *args, **kwargs):
        print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
        t0, c0 = time.perf_counter(), _cpu_seconds()
        out = fn(*args, **kwargs)
        self.seconds[name] = time.perf_counter() - t0
        self.cpu[name] = _cpu_seconds() - c0
        print(
            f"[{time.strftime('%H:%M:%S')}] {name}: {self.seconds[name]:.1f} s wall, "
            f"{self.cpu[name]:.1f} s CPU",
            flush=True,
        )
        return out


def _subset(columns: dict, n: int) -> dict:
    keep = np.asarray(columns["game_id"]) < n
    return {k: v[keep] for k, v in columns.items()}


def _external_scripts(db: Path, workers: int | None = None) -> list[tuple[str, list[str]]]:
    """The scripts of the fundamental-rules work, when they exist (so one command runs everything).

    ``workers`` (``--workers``) caps the frontier's worker processes too (default: all cores)."""
    out = []
    for name in ("fundamental_rules.py", "rule_frontier.py"):
        path = ROOT / "scripts" / name
        if path.exists():
            cmd = [sys.executable, str(path), "--db", str(db)]
            if name == "rule_frontier.py" and workers:
                cmd += ["--jobs", str(workers)]
            out.append((name, cmd))
    return out


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--games", type=int, default=100_000, help="games in the database (default 100000, the paper's)"
    )
    p.add_argument(
        "--db", default="data/betgame100k", help="solution database directory (default data/betgame100k)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the game stream, splits and learners (default 0)"
    )
    p.add_argument("--workers", type=int, default=None, help="solver processes (default: all cores)")
    p.add_argument("--jobs", type=int, default=2, help="threads for the tree fits (default 2)")
    p.add_argument(
        "--tree-games",
        type=int,
        default=80_000,
        help="games of the depth sweep, split 80/20 (default 80000: the paper's 64000/16000)",
    )
    p.add_argument(
        "--table-games",
        type=int,
        default=20_000,
        help="games of Table 1, split 80/20 (default 20000, AAAI-W Section 4.2)",
    )
    p.add_argument("--table-depth", type=int, default=12, help="tree depth of Table 1 (default 12)")
    p.add_argument("--min-depth", type=int, default=3)
    p.add_argument("--max-depth", type=int, default=20)
    p.add_argument(
        "--repeats",
        type=int,
        default=10,
        help="1,000-game subsets for the paper-scale k-NN and k-medoids runs (default 10)",
    )
    p.add_argument("--out", default="data/repro", help="CSV tables (default data/repro)")
    p.add_argument("--figures", default="docs/figures", help="figure directory (default docs/figures)")
    p.add_argument("--results", default="docs/reproduction_results.json", help="numbers of the run (JSON)")
    p.add_argument("--doc", default="docs/REPRODUCTION.md", help="the doc whose marked numbers are rewritten")
    p.add_argument("--no-doc", action="store_true", help="do not rewrite the doc or the results JSON")
    p.add_argument("--no-external", action="store_true", help="skip the fundamental-rules scripts")
    p.add_argument(
        "--render-only",
        action="store_true",
        help="only rewrite the doc from the last run's <out>/results.pkl (no experiments)",
    )
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    os.chdir(ROOT)
    from rulelearn import experiment as ex
    from rulelearn import plots
    from rulelearn.database import SolutionDatabase
    from rulelearn.family import load_family

    if args.render_only:
        with open(Path(args.out) / "results.pkl", "rb") as fh:
            write_doc(pickle.load(fh), args)
        print(f"rewrote {args.doc} and {args.results} from {Path(args.out) / 'results.pkl'}")
        return 0
    t_start = time.perf_counter()
    st = Stages()
    out, figs = Path(args.out), Path(args.figures)
    out.mkdir(parents=True, exist_ok=True)
    figs.mkdir(parents=True, exist_ok=True)

    family = load_family("betgame")
    db = SolutionDatabase(args.db)
    report = st.run(
        "database: generate or reuse",
        db.generate,
        family,
        args.games,
        seed=args.seed,
        workers=args.workers,
        progress=False,
    )
    columns = st.run(
        "database: load", db.load, n_games=args.games, columns=["probs", "strategy", "value", "pmf1", "pmf2"]
    )
    n_all = len(columns["game_id"])
    print(f"{n_all} verified games ({report.n_solved} solved by this run in {report.seconds:.0f} s)")

    # --- trees: depth sweep (Games 8(4), Figures 4 and 6) --------------------------------------------------
    tree_cols = _subset(columns, args.tree_games)
    tree_split = ex.split_games(len(tree_cols["game_id"]), 0.2, args.seed)
    depths = range(args.min_depth, args.max_depth + 1)
    sweep = st.run(
        "trees: depth sweep, every representation",
        ex.tree_sweep,
        family,
        tree_cols,
        tree_split,
        depths=depths,
        seed=args.seed,
        n_jobs=args.jobs,
    )
    sweep.to_csv(out / "tree_sweep.csv", index=False)
    fig5 = st.run(
        "trees: Figure 5 (bet-size tree, depth 4)",
        ex.bet_size_tree,
        family,
        tree_cols,
        tree_split,
        number=9,
        depth=4,
        seed=args.seed,
    )

    # --- Table 1 (AAAI-W Section 4.2) ----------------------------------------------------------------------
    table_cols = _subset(columns, args.table_games)
    table_split = ex.split_games(len(table_cols["game_id"]), 0.2, args.seed)
    table1 = st.run(
        "trees: Table 1",
        ex.tree_table,
        family,
        table_cols,
        table_split,
        depth=args.table_depth,
        seed=args.seed,
        n_jobs=args.jobs,
    )
    table1.to_csv(out / "table1.csv", index=False)

    # --- k-NN (AAAI-W Section 4.1) -------------------------------------------------------------------------
    knn = st.run(
        "k-NN: paper scale (1,000 games)",
        ex.knn_fraction_curve,
        family,
        columns,
        repeats=args.repeats,
        seed=args.seed,
    )
    knn.to_csv(out / "knn_fraction.csv", index=False)
    split = ex.split_games(n_all, 0.2, args.seed)
    sizes = sorted(
        {max(10, round(f * n_all)) for f in (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)} | {len(split.train)}
    )
    knn_big = st.run(
        "k-NN: learning curve, full database",
        ex.knn_learning_curve,
        family,
        columns,
        split,
        sizes,
        seed=args.seed,
    )
    knn_big.to_csv(out / "knn_learning_curve.csv", index=False)

    # --- k-medoids (AAAI-W Section 4.3) and the medoid tree (Section 4.4) ----------------------------------
    km_small = st.run(
        "k-medoids: paper scale (1,000 games)",
        ex.kmedoids_paper_scale,
        family,
        columns,
        repeats=args.repeats,
        seed=args.seed,
    )
    km_small.to_csv(out / "kmedoids_paper_scale.csv", index=False)
    km_big = st.run(
        "k-medoids: full database",
        ex.kmedoids_errors,
        family,
        columns,
        split,
        ks=(1, 5, 10, 15),
        seed=args.seed,
    )
    km_big.to_csv(out / "kmedoids_full.csv", index=False)
    mt = st.run("medoid tree", ex.medoid_tree, family, columns, split, seed=args.seed)
    mt_small_split = ex.split_games(1000, 0.2, args.seed)
    mt_small = st.run(
        "medoid tree: paper scale",
        ex.medoid_tree,
        family,
        _subset(columns, 1000),
        mt_small_split,
        seed=args.seed,
    )

    # --- the fundamental-rules scripts (their own outputs and docs) ----------------------------------------
    external = {}
    if not args.no_external:
        for name, cmd in _external_scripts(Path(args.db), args.workers):
            proc = st.run(f"rules: {name}", subprocess.run, cmd, capture_output=True, text=True)
            external[name] = proc.returncode
            (out / f"{Path(name).stem}.log").write_text(proc.stdout + proc.stderr)
            if proc.returncode:
                print(
                    f"{name} failed (exit {proc.returncode}); see {out / Path(name).stem}.log",
                    file=sys.stderr,
                )

    # --- figures -------------------------------------------------------------------------------------------
    def figures():
        n_tr, n_te = len(tree_split.train), len(tree_split.test)
        sub = f"trees on {n_tr:,} games, tested on {n_te:,}"
        plots.plot_tree_sweep(
            sweep, figs / "repro_tree_depth.png", title=f"Test EMD and size vs depth ({sub})"
        )
        plots.plot_tree_nodes(sweep, figs / "repro_tree_nodes.png", title=f"Test EMD vs nodes ({sub})")
        plots.plot_exploitability_depth(
            sweep, figs / "repro_exploitability_depth.png", title=f"Exploitability vs depth ({sub})"
        )
        plots.plot_knn_fraction(
            knn,
            figs / "repro_knn_fraction.png",
            title=f"1-NN on 1,000-game subsets ({knn['repeat'].nunique()} subsets; band: min-max)",
        )
        plots.plot_knn_learning_curve(
            knn_big,
            figs / "repro_knn_learning_curve.png",
            title=f"1-NN on the full database, tested on {len(split.test):,} games",
        )
        plots.plot_kmedoids(
            km_small,
            km_big,
            figs / "repro_kmedoids.png",
            title="k-medoids: play the nearest medoid's strategy",
        )
        plots.plot_medoid_tree(
            mt, figs / "repro_medoid_tree.png", title="Decision tree on the 5 cluster medoids (full database)"
        )
        km = mt.model.learner_.kmedoids_
        plots.plot_strategies(
            km.medoid_targets_,
            figs / "repro_medoids.png",
            titles=[f"medoid {k + 1}" for k in range(len(km.medoid_indices_))],
            action_labels=list(family.action_labels),
            hand_labels=list(family.hand_labels),
            suptitle="Player 1's equilibrium strategy in the 5 medoid games (full database)",
        )

    st.run("figures", figures)

    # --- numbers for the doc -------------------------------------------------------------------------------
    total = time.perf_counter() - t_start
    from rulelearn.distance import input_emd
    from rulelearn.distributions import pmf_to_cdf

    # generating distributions (Algorithm 4) vs the deal's marginals (what the features are)
    gen = np.concatenate([pmf_to_cdf(columns["pmf1"]), pmf_to_cdf(columns["pmf2"])], axis=1)
    gap = input_emd(gen, pmf_to_cdf(family.ranges(columns)).reshape(len(gen), -1))
    res = Results(
        games=args.games,
        n_all=n_all,
        seconds=dict(st.seconds),
        cpu=dict(st.cpu),
        total=total,
        report=report,
        sweep=sweep,
        table1=table1,
        knn=knn,
        knn_big=knn_big,
        km_small=km_small,
        km_big=km_big,
        mt=mt,
        mt_small=mt_small,
        fig5=fig5,
        n_tree=(len(tree_split.train), len(tree_split.test)),
        n_table=(len(table_split.train), len(table_split.test)),
        n_full=(len(split.train), len(split.test)),
        external=external,
        gap_mean=float(gap.mean()),
        gap_max=float(gap.max()),
        load_average=tuple(os.getloadavg()),
        table_depth=args.table_depth,
    )
    with open(out / "results.pkl", "wb") as fh:
        pickle.dump(res, fh)
    if args.no_doc:
        print(f"done in {total:.0f} s (doc not rewritten; results in {out / 'results.pkl'})")
        return 0
    write_doc(res, args)
    print(f"done in {total:.0f} s; rewrote {args.doc} and {args.results}")
    return 0


@dataclass(frozen=True)
class Results:
    """Everything the doc is written from (pickled to ``<out>/results.pkl`` for ``--render-only``)."""

    games: int
    n_all: int
    seconds: dict
    cpu: dict
    total: float
    report: object
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


def write_doc(res: Results, args) -> None:
    """Rewrite the doc's marked numbers and tables, and the results JSON, from ``res``."""
    values, blocks = collect(res)
    Path(args.results).write_text(
        json.dumps({"values": values, "stage_seconds": res.seconds, "stage_cpu_seconds": res.cpu}, indent=1)
        + "\n"
    )
    doc = Path(args.doc)
    doc.write_text(render(doc.read_text(), values, blocks))


def _threshold(x: float) -> str:
    """4 decimals, or 10 significant digits just below 1 (a cdf threshold that separates the top card)."""
    return f"{x:.10g}" if 0.9999 < x < 1 else f"{x:.4f}"


def _condition(c) -> str:
    lo = "" if c.lower is None else f"{_threshold(c.lower)} < "
    hi = "" if c.upper is None else f" <= {_threshold(c.upper)}"
    return f"{lo}{c.name}{hi}"


def collect(res: Results) -> tuple[dict[str, str], dict[str, str]]:
    """The doc's numbers (``values``, formatted strings) and tables (``blocks``, markdown)."""
    from rulelearn.family import load_family
    from rulelearn.rules import describe_strategy

    family = load_family("betgame")
    sweep, table1, knn, knn_big, km_small, km_big = (
        res.sweep,
        res.table1,
        res.knn,
        res.knn_big,
        res.km_small,
        res.km_big,
    )
    mt, mt_small, fig5, report, n_all = res.mt, res.mt_small, res.fig5, res.report, res.n_all
    v: dict[str, str] = {}
    b: dict[str, str] = {}
    f4 = "{:.4f}".format
    f3 = "{:.3f}".format
    v["n_games"] = f"{n_all:,}"
    v["tree_train"], v["tree_test"] = (f"{n:,}" for n in res.n_tree)
    v["table_train"], v["table_test"] = (f"{n:,}" for n in res.n_table)
    v["full_train"], v["full_test"] = (f"{n:,}" for n in res.n_full)
    v["table_depth"] = str(res.table_depth)
    v["total_minutes"] = f"{res.total / 60:.1f}"
    if report.n_solved:
        v["db_note"] = (
            f"This run generated the database: it solved {report.n_solved:,} games in "
            f"{report.seconds:.0f} s ({report.games_per_second:.0f} games/s on {report.workers} workers)"
        )
    else:
        v["db_note"] = "This run reused a stored database, so its first stage only checked the shards"

    # stage times
    rows = [{"stage": k, "wall time (s)": s, "CPU time (s)": res.cpu[k]} for k, s in res.seconds.items()]
    rows.append({"stage": "total", "wall time (s)": res.total, "CPU time (s)": sum(res.cpu.values())})
    b["stages"] = markdown_table(pd.DataFrame(rows), {"wall time (s)": ".0f", "CPU time (s)": ".0f"})
    v["total_cpu_minutes"] = f"{sum(res.cpu.values()) / 60:.1f}"
    v["load_average"] = ", ".join(f"{x:.1f}" for x in res.load_average)

    v["gen_marginal_emd"], v["gen_marginal_emd_max"] = f"{res.gap_mean:.4f}", f"{res.gap_max:.4f}"
    v["verified_dropped"] = f"{res.games - n_all:,}"

    # depth sweep
    d5 = sweep[sweep["depth"] == 5].sort_values("number")
    cols5 = [
        "number",
        "representation",
        "leaves",
        "emd",
        "exploitability",
        "exploitability_median",
        "exploitability_max",
    ] + [c for c in ("emd_mixed", "exploitability_mixed") if c in d5]
    b["depth5"] = markdown_table(
        d5[cols5].rename(
            columns={
                "number": "#",
                "leaves": "rules (leaves)",
                "emd": "test EMD",
                "exploitability": "exploitability mean (chips)",
                "exploitability_median": "median",
                "exploitability_max": "max",
                "emd_mixed": "EMD, leaf mix",
                "exploitability_mixed": "expl., leaf mix",
            }
        ),
        {
            "test EMD": ".4f",
            "exploitability mean (chips)": ".4f",
            "median": ".4f",
            "max": ".4f",
            "EMD, leaf mix": ".4f",
            "expl., leaf mix": ".4f",
        },
    )
    if "exploitability_mixed" in d5:
        mix = d5["exploitability_mixed"].dropna()
        v["d5_mixed_expl"] = f"{mix.min():.3f}-{mix.max():.3f}" if len(mix) else "n/a"
    single = d5[d5["number"] >= 7]["exploitability"]
    v["d5_single_expl"] = f"{single.min():.3f}-{single.max():.3f}" if len(single) else "n/a"
    v["d5_expl_min"], v["d5_expl_max"] = f3(d5["exploitability"].min()), f3(d5["exploitability"].max())
    whole5 = d5[d5["number"].isin([1, 2])]
    card5 = d5[d5["number"].isin([3, 4, 5, 6])]
    v["d5_whole_expl"] = f"{whole5['exploitability'].min():.3f}-{whole5['exploitability'].max():.3f}"
    v["d5_card_expl"] = f"{card5['exploitability'].min():.3f}-{card5['exploitability'].max():.3f}"
    piv = sweep.pivot_table(index="depth", columns="number", values=["emd", "exploitability", "nodes"])
    show = [d for d in (3, 5, 8, 10, 12, 15, 20) if d in piv.index]
    emd_tab = piv["emd"].loc[show].reset_index()
    emd_tab.columns = ["depth"] + [f"{c}" for c in emd_tab.columns[1:]]
    b["sweep_emd"] = markdown_table(emd_tab, {c: ".4f" for c in emd_tab.columns[1:]})
    ex_tab = piv["exploitability"].loc[show].reset_index()
    ex_tab.columns = ["depth"] + [f"{c}" for c in ex_tab.columns[1:]]
    b["sweep_expl"] = markdown_table(ex_tab, {c: ".4f" for c in ex_tab.columns[1:]})
    names = sweep.drop_duplicates("number").set_index("number")["representation"]
    b["rep_names"] = ", ".join(f"{n} = `{r}`" for n, r in names.items()) + "\n"
    for n in names.index:
        s = sweep[sweep["number"] == n].set_index("depth")
        v[f"r{n}_emd_min_depth"] = str(int(s["emd"].idxmin()))
        v[f"r{n}_emd_min"] = f4(s["emd"].min())
        v[f"r{n}_expl_min_depth"] = str(int(s["exploitability"].idxmin()))
        v[f"r{n}_expl_min"] = f4(s["exploitability"].min())
        v[f"r{n}_expl_d20"] = f4(s["exploitability"].iloc[-1])
        v[f"r{n}_emd_d20"] = f4(s["emd"].iloc[-1])
        v[f"r{n}_nodes_d20"] = f"{int(s['nodes'].iloc[-1]):,}"
    best_emd = sweep.loc[sweep["emd"].idxmin()]
    v["best_emd"], v["best_emd_rep"] = (
        f4(best_emd["emd"]),
        f"{int(best_emd['number'])} ({best_emd['representation']})",
    )
    v["best_emd_depth"] = str(int(best_emd["depth"]))
    best_ex = sweep.loc[sweep["exploitability"].idxmin()]
    v["best_expl"] = f4(best_ex["exploitability"])
    v["best_expl_rep"] = f"{int(best_ex['number'])} ({best_ex['representation']})"
    v["best_expl_depth"] = str(int(best_ex["depth"]))

    pairs = sweep[sweep["number"].isin([1, 3, 5, 7, 9])].set_index(["number", "depth"])["emd"]
    other = sweep.set_index(["number", "depth"])["emd"]
    wins = [pairs.loc[(n, d)] < other.loc[(n + 1, d)] for n, d in pairs.index if (n + 1, d) in other.index]
    emd = sweep.pivot(index="depth", columns="number", values="emd")
    expl = sweep.pivot(index="depth", columns="number", values="exploitability")

    def from_depth(mask) -> str:
        """The first depth from which ``mask`` holds at every deeper depth."""
        ok = mask.to_numpy()
        tail = np.flatnonzero(~ok)
        first = 0 if not len(tail) else tail[-1] + 1
        return str(int(mask.index[first])) if first < len(ok) else "never"

    v["card_beats_whole_from"] = from_depth(emd[[3, 4, 5, 6]].min(axis=1) < emd[[1, 2]].min(axis=1))
    v["single_worst_from"] = from_depth(
        expl[[7, 8, 9, 10]].min(axis=1) > expl[[1, 2, 3, 4, 5, 6]].max(axis=1)
    )
    v["tree_cdf_beats_pdf"] = f"{np.mean(wins):.0%}"
    v["tree_cdf_beats_pdf_n"] = str(len(wins))

    # Figure 5
    v["f5_root"] = f"{fig5.root_feature} <= {_threshold(fig5.root_threshold)}"
    v["f5_emd"], v["f5_expl"] = f4(fig5.emd), f4(fig5.exploitability)
    v["f5_rows"] = f"{fig5.n_rows:,}"
    sizes = [float(r.strategy) for r in fig5.rules]
    v["f5_min_bet"], v["f5_max_bet"] = f"{min(sizes):.4f}", f"{max(sizes):.4f}"
    lo = fig5.rules[int(np.argmin(sizes))]
    hi = fig5.rules[int(np.argmax(sizes))]
    v["f5_min_rule"] = " and ".join(_condition(c) for c in lo.conditions)
    v["f5_max_rule"] = " and ".join(_condition(c) for c in hi.conditions)
    v["f5_min_share"] = f"{lo.coverage:.0%}"
    b["figure5"] = (
        "\n".join(
            f"- if {' and '.join(_condition(c) for c in r.conditions)}: bet "
            f"{float(r.strategy):.4f} ({r.coverage:.1%} of training rows)"
            for r in fig5.rules
        )
        + "\n"
    )

    # Table 1
    t1 = table1.copy()
    b["table1"] = markdown_table(
        t1[
            [
                "number",
                "representation",
                "leaves",
                "emd",
                "r2",
                "r2_pooled",
                "exploitability",
                "emd_paper_tree",
                "r2_paper_tree",
                "exploitability_paper_tree",
                "train_emd",
                "emd_of_means",
            ]
        ].rename(
            columns={
                "number": "#",
                "leaves": "leaves",
                "emd": "test EMD",
                "r2": "R^2",
                "r2_pooled": "R^2 pooled",
                "exploitability": "expl.",
                "emd_paper_tree": "test EMD (paper tree)",
                "r2_paper_tree": "R^2 (paper tree)",
                "exploitability_paper_tree": "expl. (paper tree)",
                "train_emd": "train EMD",
                "emd_of_means": "EMD of means",
            }
        ),
        {
            "test EMD": ".4f",
            "R^2": ".3f",
            "R^2 pooled": ".3f",
            "expl.": ".4f",
            "test EMD (paper tree)": ".4f",
            "R^2 (paper tree)": ".3f",
            "expl. (paper tree)": ".4f",
            "train EMD": ".4f",
            "EMD of means": ".5f",
        },
    )
    for col in ("emd", "r2", "r2_pooled", "emd_paper_tree", "r2_paper_tree", "train_emd", "emd_of_means"):
        v[f"t1_{col}_min"] = f"{t1[col].min():.4f}"
        v[f"t1_{col}_max"] = f"{t1[col].max():.4f}"
    card = t1[t1["number"] >= 3]
    for col in ("r2", "r2_paper_tree", "r2_train_paper_tree"):
        v[f"t1_{col}_card_min"], v[f"t1_{col}_card_max"] = f"{card[col].min():.3f}", f"{card[col].max():.3f}"
        v[f"t1_{col}_whole"] = ", ".join(f"{x:.2f}" for x in t1[t1["number"] <= 2][col])
    v["t1_ours_beats_paper"] = f"{int((t1['emd'] < t1['emd_paper_tree']).sum())} of {len(t1)}"
    v["t1_best"] = t1.loc[t1["emd"].idxmin(), "representation"]
    v["t1_best_paper_tree"] = t1.loc[t1["emd_paper_tree"].idxmin(), "representation"]

    # k-NN
    g = knn.groupby(["variant", "train_fraction"])[["emd", "exploitability"]]
    mean, lo, hi = g.mean(), g.min(), g.max()
    tab = mean.reset_index().pivot(index="train_fraction", columns="variant", values="emd")
    tab = tab[[c for c in knn["variant"].unique()]].reset_index()
    b["knn_fraction"] = markdown_table(tab, {**{c: ".4f" for c in tab.columns[1:]}, "train_fraction": ".2f"})
    for var in knn["variant"].unique():
        key = var.replace("-", "_")
        for fr in (0.1, 0.5, 0.9):
            if (var, fr) in mean.index:
                v[f"knn_{key}_{int(fr * 100)}"] = f4(mean.loc[(var, fr), "emd"])
                v[f"knn_{key}_{int(fr * 100)}_range"] = (
                    f"{lo.loc[(var, fr), 'emd']:.4f}-{hi.loc[(var, fr), 'emd']:.4f}"
                )
                v[f"knn_{key}_{int(fr * 100)}_expl"] = f4(mean.loc[(var, fr), "exploitability"])
        v[f"knn_{key}_same_card"] = f"{knn.loc[knn['variant'] == var, 'same_card'].mean():.1%}"
    per_repeat = knn.groupby(["variant", "repeat"])["emd"].apply(
        lambda s: int(np.sum(np.diff(s.to_numpy()) > 0))
    )
    v["knn_cdf_nonmonotone"] = f"{per_repeat.loc['cdf'].mean():.1f}"
    paired = knn.pivot_table(index=["repeat", "train_fraction"], columns="variant", values="emd")
    v["knn_pdf_beats_cdf"] = f"{(paired['pdf'] < paired['cdf']).mean():.0%}"
    v["knn_card_cdf_worse"] = f"{(paired['cdf-card-cdf'] > paired['cdf']).mean():.0%}"
    v["knn_n_pairs"] = str(len(paired))
    kb = knn_big.copy()
    b["knn_learning"] = markdown_table(
        kb.pivot(index="n_train", columns="variant", values=["emd", "exploitability"])
        .pipe(lambda p: p.set_axis([f"{a} ({c})" for a, c in p.columns], axis=1))
        .reset_index(),
        {f"{a} ({c})": ".4f" for a in ("emd", "exploitability") for c in kb["variant"].unique()},
    )
    big = kb[kb["n_train"] == kb["n_train"].max()].set_index("variant")
    v["knn_big_n"] = f"{int(kb['n_train'].max()):,}"
    for var in big.index:
        v[f"knn_big_{var}_emd"], v[f"knn_big_{var}_expl"] = (
            f4(big.loc[var, "emd"]),
            f4(big.loc[var, "exploitability"]),
        )

    # k-medoids
    ks = km_small.groupby(["features", "k"])[["emd", "exploitability"]]
    kmean, kmin, kmax = ks.mean(), ks.min(), ks.max()
    rows = []
    for (feat, k), r in kmean.iterrows():
        full = km_big[(km_big["features"] == feat) & (km_big["k"] == k)]
        rows.append(
            {
                "distance": feat,
                "k": k,
                "EMD, 1,000 games (mean)": r["emd"],
                "EMD range over subsets": (
                    f"{kmin.loc[(feat, k), 'emd']:.4f}-{kmax.loc[(feat, k), 'emd']:.4f}"
                ),
                "expl., 1,000 games": r["exploitability"],
                "EMD, full": float(full["emd"].iloc[0]) if len(full) else np.nan,
                "expl., full": float(full["exploitability"].iloc[0]) if len(full) else np.nan,
            }
        )
    b["kmedoids"] = markdown_table(
        pd.DataFrame(rows),
        {
            "EMD, 1,000 games (mean)": ".4f",
            "expl., 1,000 games": ".4f",
            "EMD, full": ".4f",
            "expl., full": ".4f",
        },
    )
    v["km_repeats"] = str(km_small["repeat"].nunique())
    worst10 = km_small.pivot_table(index=["features", "repeat"], columns="k", values="emd")
    v["km_10_worst_share"] = f"{(worst10.idxmax(axis=1) == 10).mean():.0%}"
    v["km_n_runs"] = str(len(worst10))
    best_small = kmean["emd"].idxmin()
    v["km_best_small"] = f"{best_small[0]} distance, k = {best_small[1]}"
    for _, r in km_big.iterrows():
        v[f"km_full_{r['features']}_{int(r['k'])}_emd"] = f4(r["emd"])
        v[f"km_full_{r['features']}_{int(r['k'])}_expl"] = f4(r["exploitability"])
    for feat in km_small["features"].unique():
        for k in (5, 10, 15):
            if (feat, k) in kmean.index:
                v[f"km_small_{feat}_{k}_emd"] = f4(kmean.loc[(feat, k), "emd"])
    v["km_max_samples"] = f"{min(res.n_full[0], 10_000):,}"

    # medoid tree
    for tag, m_ in (("mt", mt), ("mts", mt_small)):
        v[f"{tag}_depth"], v[f"{tag}_leaves"] = str(m_.depth), str(m_.leaves)
        v[f"{tag}_emd"], v[f"{tag}_expl"] = f4(m_.emd), f4(m_.exploitability)
        v[f"{tag}_emd_near"], v[f"{tag}_expl_near"] = (
            f4(m_.emd_nearest_medoid),
            f4(m_.exploitability_nearest_medoid),
        )
        v[f"{tag}_agree"] = f"{m_.agreement:.0%}"
        v[f"{tag}_emd_first"], v[f"{tag}_r2_first"] = f4(m_.emd_first), f"{m_.r2_first:.2f}"
        v[f"{tag}_n_features"] = str(len(m_.split_features))
        v[f"{tag}_n_test"] = f"{m_.n_test:,}"
    labels, values_, hands = list(family.action_labels), list(family.action_values), list(family.hand_labels)
    lines = []
    for rule in mt.model.rules():
        cond = " and ".join(str(c) for c in rule.conditions) or "always"
        lines.append(f"- if {cond}: {describe_strategy(rule.strategy, labels, hands, action_values=values_)}")
    b["medoid_rules"] = "\n".join(lines) + "\n"
    b["external"] = (
        "\n".join(f"- `scripts/{name}`: exit code {code}" for name, code in res.external.items())
        or "- (the fundamental-rules scripts were not found or were skipped in this run)"
    ) + "\n"
    return v, b


if __name__ == "__main__":
    sys.exit(main())

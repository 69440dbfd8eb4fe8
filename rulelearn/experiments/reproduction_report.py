"""The numbers and tables of docs/REPRODUCTION.md from a reproduction's
:class:`~rulelearn.experiments.reproduction.Results`.

The doc is a template (:mod:`rulelearn.report.docblocks`): :func:`collect` returns its marked values
(formatted strings) and blocks (markdown), one section of the doc per function. Its wording ("bet", "card") and
its keys are the papers', whose experiments run on the bet game.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rulelearn.family import hand_noun, load_family
from rulelearn.report.docblocks import markdown_table
from rulelearn.rules.formatting import describe_strategy

__all__ = ["collect"]

f4 = "{:.4f}".format
f3 = "{:.3f}".format


def _threshold(x: float) -> str:
    """4 decimals, or 10 significant digits just below 1 (a cdf threshold that separates the top card)."""
    return f"{x:.10g}" if 0.9999 < x < 1 else f"{x:.4f}"


def _condition(c) -> str:
    lo = "" if c.lower is None else f"{_threshold(c.lower)} < "
    hi = "" if c.upper is None else f" <= {_threshold(c.upper)}"
    return f"{lo}{c.name}{hi}"


def _setup(res, v: dict[str, str], b: dict[str, str]) -> None:
    """The set-up: database, splits, stage times, load."""
    n_all, report = res.n_all, res.report
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


def _depth_sweep(res, v: dict[str, str], b: dict[str, str]) -> None:
    """The depth sweep of every representation (*Games*, Figures 4 and 6)."""
    sweep = res.sweep
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



def _figure5(res, v: dict[str, str], b: dict[str, str]) -> None:
    """The action-size tree (*Games*, Figure 5)."""
    fig5 = res.fig5
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



def _table1(res, v: dict[str, str], b: dict[str, str]) -> None:
    """AAAI-W Table 1."""
    table1 = res.table1
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



def _knn(res, v: dict[str, str], b: dict[str, str]) -> None:
    """1-NN (AAAI-W Section 4.1)."""
    knn, knn_big = res.knn, res.knn_big
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
        v[f"knn_{key}_same_card"] = f"{knn.loc[knn['variant'] == var, 'same_hand'].mean():.1%}"
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



def _kmedoids(res, v: dict[str, str], b: dict[str, str]) -> None:
    """k-medoids (AAAI-W Section 4.3)."""
    km_small, km_big = res.km_small, res.km_big
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



def _medoid_tree(res, v: dict[str, str], b: dict[str, str]) -> None:
    """The medoid tree (AAAI-W Section 4.4) and the extra stages."""
    family, mt = load_family(res.family), res.mt
    for tag, m_ in (("mt", mt), ("mts", res.mt_small)):
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
        what = describe_strategy(rule.strategy, labels, hands, hand_noun(family), action_values=values_)
        lines.append(f"- if {cond}: {what}")
    b["medoid_rules"] = "\n".join(lines) + "\n"
    b["external"] = (
        "\n".join(f"- `scripts/{name}`: exit code {code}" for name, code in res.external.items())
        or "- (the fundamental-rules scripts were not found or were skipped in this run)"
    ) + "\n"


def collect(res) -> tuple[dict[str, str], dict[str, str]]:
    """The doc's numbers (``values``, formatted strings) and tables (``blocks``, markdown), one section after
    the other (each fills both).

    The sections: set-up (database, splits, stage times), the depth sweep (*Games*, Figures 4 and 6), the
    action-size tree (Figure 5), AAAI-W Table 1, 1-NN (Section 4.1), k-medoids (Section 4.3) and the medoid
    tree (Section 4.4).

    Parameters
    ----------
    res : rulelearn.experiments.reproduction.Results
        A complete reproduction's results: the sweep of all ten representations, the 1-NN variants ``cdf``,
        ``pdf`` and ``cdf-card-cdf``, k-medoids, the medoid trees and ``family``, a registered family name.

    Returns
    -------
    values : dict of str to str
        The doc's marked values by key, formatted (e.g. ``"0.0123"``, ``"20,000"``, ``"45%"``); exploitability
        in chips.
    blocks : dict of str to str
        The doc's marked blocks by key: markdown tables and lists, each ending in a newline.

    Raises
    ------
    KeyError
        If ``res`` lacks a representation, variant or column the doc reports.
    ValueError
        If ``res.family`` names no family (:func:`~rulelearn.family.load_family`), or the Figure 5 tree has no
        rule.
    """
    values: dict[str, str] = {}
    blocks: dict[str, str] = {}
    for section in (_setup, _depth_sweep, _figure5, _table1, _knn, _kmedoids, _medoid_tree):
        section(res, values, blocks)
    return values, blocks

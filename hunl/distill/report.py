"""docs/HUNL.md from a pipeline run's results (:mod:`hunl.distill.experiment`): the frontier figure, and the
doc's marked values and tables (:mod:`rulelearn.report.docblocks`)."""

from __future__ import annotations

import itertools
from pathlib import Path

from rulelearn.report.docblocks import current_blocks, markdown_table, render

__all__ = ["frontier_figure", "render_doc", "values_and_blocks"]


def _table(header, rows) -> str:
    return markdown_table((header, rows), right=())


def _pct(x) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.0f}%"


def values_and_blocks(res: dict) -> tuple[dict, dict]:
    """The doc's marked values and tables from a run's ``results.json``.

    Parameters
    ----------
    res : dict
        The results of :func:`hunl.distill.experiment.run_pipeline` (its ``results.json``, parsed):
        exploitability and EV in % of the pot and mbb/g, the frontier by depth, the baselines, the rules, the
        Libratus scores, the stage times in seconds.

    Returns
    -------
    values : dict of str to str
        The text of each marked value (``<!--v:key-->``), numbers formatted: counts with thousands separators,
        % of the pot to 2 decimals (the DCFR solutions' to 3), mbb/g to whole numbers, the total time in
        minutes.
    blocks : dict of str to str
        The Markdown of each marked block (``<!--block:key-->``): ``frontier``, ``rules``, ``fundamental``,
        ``tree_rules``, ``libratus`` and ``stages``.

    Raises
    ------
    KeyError
        If ``res`` lacks an entry the doc shows.
    StopIteration
        If ``res["frontier"]`` has no row of the headline depth ``res["depth"]``.
    """
    d = res["depth"]
    head = res["head"]
    mean_head = next(r for r in res["frontier"] if r["depth"] == d)
    best = res["baselines"][res["best_baseline"]]
    v = {
        "n_endgames": f"{res['n_endgames']:,}", "n_train": f"{res['n_train']:,}", "n_test": f"{res['n_test']:,}",
        "decisions": f"{res['decisions']:,}", "dcfr_pct_pot": f"{res['dcfr_pct_pot']:.3f}",
        "dcfr_iterations": f"{res['dcfr_iterations_mean']:.0f}", "solve_s": f"{res['solve_seconds_mean']:.2f}",
        "depth": str(d), "head_pct": f"{head['exploitability_pct_pot']:.2f}", "head_sd": f"{head['sd']:.2f}",
        "head_sem": f"{head['sem']:.2f}", "head_mbb": f"{head['exploitability_mbb']:,.0f}",
        "head_rules": str(head["n_rules"]), "head_ev": f"{head['ev_pct_pot']:.2f}",
        "head_leaves": head["leaves"], "mean_head_pct": f"{mean_head['exploitability_pct_pot']:.2f}",
        "mean_head_sd": f"{mean_head['sd']:.2f}",
        "best_baseline": res["best_baseline"], "best_pct": f"{best['exploitability_pct_pot']:.2f}",
        "ratio": f"{res['ratio_to_best_baseline']:.3f}",
        "total_min": f"{sum(res['stages'].values()) / 60:.1f}",
    }
    b = {}
    rows = [(f"depth {r['depth']}, {r['leaves']} leaves", r["n_rules"],
             f"{r['exploitability_pct_pot']:.2f} ± {r['sd']:.2f}", f"{r['median_pct_pot']:.2f}",
             f"{r['exploitability_mbb']:,.0f}", f"{r['ev_pct_pot']:.2f}", f"{r['ev_mbb']:,.0f}")
            for r in res["frontier"] + res.get("optimal_frontier", [])]
    rows += [(name, "-", f"{s['exploitability_pct_pot']:.2f} ± {s['sd']:.2f}", f"{s['median_pct_pot']:.2f}",
              f"{s['exploitability_mbb']:,.0f}", f"{s['ev_pct_pot']:.2f}", f"{s['ev_mbb']:,.0f}")
             for name, s in res["baselines"].items()]
    b["frontier"] = _table(["policy", "rules", "exploitability, % pot (mean ± sd)", "median, % pot",
                            "mbb/g", "EV vs DCFR, % pot", "EV vs DCFR, mbb/g"], rows)
    lines = []
    for key, rules in res["rules_text"].items():
        lines.append(f"**{key}** ({len(rules)} rules with at least 2% of the decisions, most covered first)\n")
        lines.append("```")
        lines.extend(rules[:12])
        if len(rules) > 12:
            lines.append(f"... {len(rules) - 12} more")
        lines.append("```\n")
    b["rules"] = "\n".join(lines)
    fr = res["rules"]["fundamental"]
    b["fundamental"] = _table(["rule", "statement", "coverage", "mass", "cost, % pot (mean ± sd)"],
                              [(r["name"], r["text"], _pct(r["coverage"]), _pct(r["mass"]),
                                f"{r['cost_pct_pot']:.3f} ± {r['cost_sd']:.3f}") for r in fr])
    tl = []
    for key, lst in res["rules"]["tree"].items():
        for r in lst:
            tl.append((r["text"], _pct(r["coverage"]), _pct(r["mass"]),
                       f"{r['cost_pct_pot']:.3f} ± {r['cost_sd']:.3f}"))
    b["tree_rules"] = _table(["rule (depth-" + str(res.get("rule_depth", 3)) + " tree leaf)", "coverage",
                              "mass", "cost, % pot"], tl)
    if res["libratus"]:
        lr = []
        for r in res["libratus"]:
            for name, p in r["policies"].items():
                lr.append((r["endgame"], r["street"], f"{r['dcfr_pct_pot']:.3f}% ({r['dcfr_iterations']} it)", name,
                           f"{p['exploitability_pct_pot']:.2f}", f"{p['exploitability_mbb']:,.0f}",
                           f"{p['ev_pct_pot']:.2f}", f"{p['ev_mbb']:,.0f}"))
        b["libratus"] = _table(["endgame", "street", "DCFR solution", "policy", "exploitability, % pot", "mbb/g",
                                "EV vs DCFR, % pot", "EV vs DCFR, mbb/g"], lr)
    else:
        b["libratus"] = "(not run: pass `--libratus`)\n"
    b["stages"] = _table(["stage", "wall time"], [(k, f"{s:.0f} s") for k, s in res["stages"].items()])
    return v, b


def render_doc(doc: str, res: dict) -> str:
    """``doc`` with its marked values and tables replaced by this run's (the ``card-*`` blocks stay).

    The ``card-*`` blocks are written by ``scripts/rule_cards.py`` (:mod:`hunl.distill.card_experiment`); the
    ``command`` value is ``res["command"]`` (default ``"python scripts/hunl_pipeline.py"``).

    Parameters
    ----------
    doc : str
        The Markdown text of the doc (docs/HUNL.md), with ``<!--v:key-->...<!--/v-->`` and
        ``<!--block:key-->`` ... ``<!--/block:key-->`` markers (:mod:`rulelearn.report.docblocks`).
    res : dict
        The results of :func:`hunl.distill.experiment.run_pipeline` (its ``results.json``, parsed).

    Returns
    -------
    str
        The doc with every marked value and block (but the ``card-*`` blocks) holding this run's numbers.

    Raises
    ------
    KeyError
        If ``res`` lacks an entry the doc shows, or the doc marks a key this run does not produce (a stale
        doc; from :func:`rulelearn.report.docblocks.render`).
    StopIteration
        If ``res["frontier"]`` has no row of the headline depth ``res["depth"]``.
    """
    v, b = values_and_blocks(res)
    v["command"] = res.get("command", "python scripts/hunl_pipeline.py")
    # the rule-card blocks are written by scripts/rule_cards.py (hunl.distill.card_experiment): keep them
    b = {**current_blocks(doc, "card-"), **b}
    return render(doc, v, b)


def frontier_figure(path: Path, results: dict) -> None:
    """Held-out exploitability (% of the pot) against the number of rules, with the baselines and DCFR.

    One line per frontier (trees with mean leaf strategies; with exploitability-optimal leaves, if any) with
    s.e.m. error bars and each point labelled by its depth, a dashed line per baseline and a
    dotted line for the DCFR solutions' own exploitability; both axes logarithmic. Switches matplotlib to the
    ``Agg`` backend.

    Parameters
    ----------
    path : pathlib.Path
        The image file to write (PNG at 120 dpi for a ``.png`` name); its directory is created if missing.
    results : dict
        The results of :func:`hunl.distill.experiment.run_pipeline` (its ``results.json``, parsed):
        ``frontier`` and ``optimal_frontier`` rows (``n_rules``, ``depth``, ``exploitability_pct_pot`` and
        ``sem`` in % of the pot), ``baselines``, ``dcfr_pct_pot``, ``n_test`` and ``n_endgames``.

    Raises
    ------
    KeyError
        If ``results`` lacks one of those entries.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for fr, label, marker in ((results["frontier"], "trees, mean leaf strategies", "o"),
                              (results.get("optimal_frontier", []), "trees, exploitability-optimal leaves", "s")):
        if not fr:
            continue
        x = [r["n_rules"] for r in fr]
        y = [r["exploitability_pct_pot"] for r in fr]
        err = [r["sem"] for r in fr]
        ax.errorbar(x, y, yerr=err, marker=marker, capsize=3, label=label)
        for r in fr:
            ax.annotate(f"d{r['depth']}", (r["n_rules"], r["exploitability_pct_pot"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=8)
    colors = itertools.cycle(["tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:olive", "tab:cyan"])
    for (name, b), c in zip(results["baselines"].items(), colors):   # every baseline, however many
        ax.axhline(b["exploitability_pct_pot"], ls="--", color=c, label=f"{name}")
    ax.axhline(results["dcfr_pct_pot"], ls=":", color="k", label="DCFR solution")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of rules (leaves over all trees; d = tree depth)")
    ax.set_ylabel("mean held-out exploitability (% of pot)")
    ax.set_title(f"HUNL river endgames: {results['n_test']} held-out of {results['n_endgames']} (error bars: s.e.m.)")
    ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0.01, 0.1))
    ax.grid(alpha=0.3, which="both")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)

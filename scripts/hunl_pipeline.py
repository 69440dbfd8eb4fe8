#!/usr/bin/env python
"""The HUNL distillation pipeline: random river endgames -> DCFR solutions -> per-street trees -> exploitability.

One command (issue 6)::

    python scripts/hunl_pipeline.py                                 # 300 river endgames, a few minutes
    python scripts/hunl_pipeline.py --endgames 2500 --libratus --leaf-endgames 400 --leaf-iterations 600 \
        --doc docs/HUNL.md                                          # the run docs/HUNL.md shows
    python scripts/hunl_pipeline.py --endgames 1000000 --scheduler tcp://scheduler:8786   # a cluster

Stages (each prints its wall time; the database stage resumes after a kill):

1. solve ``--endgames`` random river endgames (:class:`hunl.family.HoldemRiverFamily`: random boards, ranges from
   the preflop-class, strength-shaped and Bayes models, random pot and stack) with DCFR into the solution database
   ``--db`` (checksummed Parquet shards; local processes or a Dask cluster);
2. split them into training and held-out endgames (``--test-fraction``);
3. turn every decision of the training endgames into a row of interpretable features and equilibrium action-class
   frequencies (:mod:`hunl.decisions`);
4. fit one EMD tree per street and decision type (:class:`hunl.distill.DistilledPolicy`), cut at every depth of
   ``--depths``;
5. play each policy and the baselines (uniform random, always check/call, equity threshold) in every held-out
   endgame and measure exploitability and EV against the DCFR solution (:mod:`hunl.evaluate`);
6. measure the 80-20 and all-in rules and the rules of a shallow tree (:mod:`hunl.fundamental`);
7. with ``--libratus``: solve the four Libratus endgames with DCFR and score the distilled policy in them.

Outputs: ``<out>/results.json`` and ``<out>/hunl_frontier.png``; with ``--doc docs/HUNL.md`` also the marked numbers
and tables of that doc (``<!--v:key-->`` / ``<!--block:key-->`` markers, as ``scripts/reproduce.py``), its figure
``<figures>/hunl_frontier.png`` and ``docs/hunl_results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--endgames", type=int, default=300, help="random river endgames to solve (default 300)")
    p.add_argument("--db", default=None, help="solution database (default data/hunl_river_<endgames>)")
    p.add_argument("--seed", type=int, default=0, help="seed of the endgame stream and the split (default 0)")
    p.add_argument("--iterations", type=int, default=1000, help="maximum DCFR iterations per endgame")
    p.add_argument("--target-pct-pot", type=float, default=0.1,
                   help="DCFR stops at this exploitability (default 0.1%% of the pot)")
    p.add_argument("--test-fraction", type=float, default=0.2, help="held-out share of the endgames (default 0.2)")
    p.add_argument("--max-test", type=int, default=400, help="held-out endgames scored at most (default 400)")
    p.add_argument("--depth", type=int, default=6, help="depth of the headline policy (default 6)")
    p.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6, 8, 10],
                   help="depths of the frontier (default 1 2 3 4 5 6 8 10)")
    p.add_argument("--optimal-depths", type=int, nargs="*", default=[2, 4, 6],
                   help="depths whose leaf strategies are also optimised for exploitability (CFR-BR; default 2 4 6)")
    p.add_argument("--leaf-endgames", type=int, default=200,
                   help="training endgames the leaf optimisation runs on (default 200)")
    p.add_argument("--leaf-iterations", type=int, default=200, help="CFR-BR iterations (default 200)")
    p.add_argument("--rule-depth", type=int, default=3, help="depth of the tree whose rules are printed")
    p.add_argument("--rule-endgames", type=int, default=100, help="held-out endgames for rule costs")
    p.add_argument("--samples", type=int, default=300_000, help="decisions drawn per tree (default 300000)")
    p.add_argument("--min-samples-leaf", type=int, default=200)
    p.add_argument("--ranges", choices=["start", "node"], default="start",
                   help="range features against the endgame's starting ranges (default) or the ranges at the node")
    p.add_argument("--criterion", choices=["squared_error", "emd"], default="squared_error",
                   help="tree split criterion on cumulative class distributions (default squared_error: CART, "
                        "mean leaf strategies; emd: exact EMD splits, median leaf strategies)")
    p.add_argument("--workers", type=int, default=None, help="local processes (default: all cores)")
    p.add_argument("--scheduler", default=None, help="Dask scheduler address for the solves")
    p.add_argument("--libratus", action="store_true", help="also score the policy in the four Libratus endgames")
    p.add_argument("--out", default="data/hunl", help="results directory (default data/hunl)")
    p.add_argument("--doc", default=None,
                   help="rewrite the marked numbers of this doc (docs/HUNL.md for the documented run) and put the "
                        "frontier figure and the results JSON beside it; by default only <out> is written")
    p.add_argument("--figures", default="docs/figures", help="figure directory used with --doc (default docs/figures)")
    p.add_argument("--no-doc", action="store_true", help="do not rewrite a doc even if --doc is given")
    a = p.parse_args(argv)
    if a.endgames < 10:
        p.error("--endgames must be at least 10")
    if not 0 < a.test_fraction < 1:
        p.error("--test-fraction must be in (0, 1)")
    if a.depth not in a.depths:
        a.depths = sorted(set(a.depths) | {a.depth})
    if a.db is None:
        a.db = f"data/hunl_river_{a.endgames}"
    return a


class Stages:
    """Wall time per stage, printed as it goes."""

    def __init__(self):
        self.times: dict[str, float] = {}

    def run(self, name, fn, *args, **kwargs):
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        self.times[name] = time.perf_counter() - t0
        print(f"   {name}: {self.times[name]:.1f} s", flush=True)
        return out


def _bar(total, unit, desc):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, desc=desc, smoothing=0.05)


def _mean_sd(x: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=np.float64)
    return float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else 0.0, float(x.std(ddof=1) / np.sqrt(x.size)) \
        if x.size > 1 else 0.0


def libratus_scores(model, policies: dict) -> list[dict]:
    """Solve each Libratus endgame with DCFR (to 0.1% of the pot on the river, 0.5% on the turn) and score
    ``policies`` (``{name: chooser}``) in it."""
    from hunl.distill import play
    from hunl.evaluate import evaluate_policy
    from hunl.game import HoldemEndgame
    from hunl.libratus import ENDGAMES, load_endgame
    from hunl.solver import solve_endgame
    from hunl.tree import LIBRATUS_SIZES

    out = []
    for name in ENDGAMES:
        e = load_endgame(name)
        game = HoldemEndgame(e.board, e.normalised_reach(), pot=e.pot, stack=e.stack_remaining,
                             bet_sizes=LIBRATUS_SIZES, raise_cap=1000, big_blind=e.big_blind)
        target = 0.1 if e.street == "river" else 0.5
        t0 = time.perf_counter()
        sol = solve_endgame(game, "dcfr", iterations=2000, target_pct_pot=target, check_every=50)
        row = {"endgame": name, "street": e.street, "pot": e.pot, "nodes": int(game.tree.n_nodes),
               "hands": list(game.num_hands), "dcfr_iterations": sol.iterations,
               "dcfr_pct_pot": sol.exploitability_pct_pot, "solve_s": time.perf_counter() - t0, "policies": {}}
        for pname, chooser in policies.items():
            t1 = time.perf_counter()
            ev = evaluate_policy(game, play(game, chooser), sol.result.policy)
            row["policies"][pname] = {"exploitability_pct_pot": ev.exploitability_pct_pot,
                                      "exploitability_mbb": ev.exploitability_mbb, "ev_pct_pot": ev.ev_pct_pot,
                                      "ev_mbb": ev.ev_mbb, "seconds": time.perf_counter() - t1}
        print(f"   {name}: DCFR {sol.exploitability_pct_pot:.3f}% pot; " + ", ".join(
            f"{k} {v['exploitability_pct_pot']:.1f}%" for k, v in row["policies"].items()), flush=True)
        out.append(row)
        del sol, game
    return out


def frontier_figure(path: Path, results: dict) -> None:
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
    colors = ["tab:red", "tab:purple", "tab:brown"]
    for (name, b), c in zip(results["baselines"].items(), colors):
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


def main(argv=None) -> int:
    args = parse_args(argv)
    os.chdir(ROOT)
    from hunl.distill import DistilledPolicy, _key_name
    from hunl.family import HoldemRiverFamily
    from hunl.fundamental import RULE_80_20, RULE_ALL_IN, SolvedEndgame, rule_statistics, rules_from_tree
    from hunl.optimal_leaves import optimise_leaves
    from hunl.pipeline import BASELINES, collect_rows, score_policies, take
    from rulelearn.data.database import SolutionDatabase
    from rulelearn.data.executors import make_executor

    st = Stages()
    family = HoldemRiverFamily(iterations=args.iterations, target_pct_pot=args.target_pct_pot)
    db = SolutionDatabase(args.db)
    report = st.run("solve endgames", db.generate, family, args.endgames, seed=args.seed, workers=args.workers,
                    scheduler=args.scheduler, family_params=family.params())
    cols = st.run("load", db.load, args.endgames)
    n = len(cols["game_id"])
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(n)
    n_test = max(1, int(round(args.test_fraction * n)))
    test_ids = np.sort(perm[:n_test])[:args.max_test]
    train_ids = np.sort(perm[n_test:])
    train, test = take(cols, train_ids), take(cols, test_ids)
    print(f"   {n} verified endgames: {train_ids.size} training, {test_ids.size} held-out scored", flush=True)

    with make_executor(args.workers, None) as ex:
        with _bar(train_ids.size, "endgame", "decision rows") as bar:
            rows = st.run("decision rows", collect_rows, family, train, ex, progress=bar, ranges=args.ranges)
        print(f"   {rows.weight.size:,} decisions", flush=True)
        def fit_all():
            make = lambda d: DistilledPolicy(max_depth=d, criterion=args.criterion,  # noqa: E731
                                             min_samples_leaf=args.min_samples_leaf, n_samples=args.samples,
                                             ranges=args.ranges, random_state=args.seed)
            if args.criterion == "emd":  # one deep fit, cut at every depth
                deep = make(max(args.depths)).fit(rows)
                return {d: deep.at_depth(d) for d in sorted(set(args.depths) | {args.rule_depth})}
            return {d: make(d).fit(rows) for d in sorted(set(args.depths) | {args.rule_depth})}

        models = st.run("fit trees", fit_all)

        def leaves_all():
            k = min(args.leaf_endgames, train_ids.size)
            games = [family.game(train, i) for i in range(k)]
            out, logs = {}, {}
            for d in args.optimal_depths:
                res = optimise_leaves(models[d], games, iterations=args.leaf_iterations,
                                      log_every=max(1, args.leaf_iterations // 10),
                                      workers=args.workers or os.cpu_count() or 1, progress=True)
                out[d] = models[d].with_leaf_tables(res.tables)
                logs[d] = {"iterations": res.log_iterations.tolist(),
                           "exploitability_pct_pot": res.log_exploitability_pct_pot.tolist(), "endgames": k}
                print(f"   depth {d}: training exploitability {res.log_exploitability_pct_pot[0]:.2f}% -> "
                      f"{res.log_exploitability_pct_pot[-1]:.2f}% of the pot", flush=True)
            return out, logs

        optimal, leaf_logs = st.run("optimal leaves", leaves_all) \
            if args.optimal_depths and args.ranges == "start" else ({}, {})
        choosers = {f"depth {d}": models[d] for d in args.depths}
        choosers.update({f"depth {d}, optimal leaves": m for d, m in optimal.items()})
        choosers.update(BASELINES)
        with _bar(test_ids.size, "endgame", "scoring policies") as bar:
            scores = st.run("score policies", score_policies, family, test, choosers, ex, progress=bar)

    def summary(j):
        m, sd, se = _mean_sd(scores.exploitability_pct_pot[:, j])
        evm, evsd, evse = _mean_sd(scores.ev_pct_pot[:, j])
        mm = float(scores.exploitability_mbb[:, j].mean())
        return {"exploitability_pct_pot": m, "sd": sd, "sem": se, "exploitability_mbb": mm,
                "median_pct_pot": float(np.median(scores.exploitability_pct_pot[:, j])),
                "ev_pct_pot": evm, "ev_sd": evsd, "ev_sem": evse, "ev_mbb": float(scores.ev_mbb[:, j].mean())}

    frontier = []
    for d in args.depths:
        j = scores.policies.index(f"depth {d}")
        frontier.append({"depth": d, "leaves": "mean", "n_rules": models[d].n_rules(), **summary(j)})
    optimal_frontier = []
    for d in optimal:
        j = scores.policies.index(f"depth {d}, optimal leaves")
        optimal_frontier.append({"depth": d, "leaves": "optimal", "n_rules": optimal[d].n_rules(), **summary(j)})
    baselines = {name: summary(scores.policies.index(name)) for name in BASELINES}
    best = min(baselines, key=lambda k: baselines[k]["exploitability_pct_pot"])
    head = next((r for r in optimal_frontier if r["depth"] == args.depth), None) or \
        next(r for r in frontier if r["depth"] == args.depth)
    head_model = optimal.get(args.depth, models[args.depth])
    ratio = head["exploitability_pct_pot"] / baselines[best]["exploitability_pct_pot"]
    print(f"   depth {args.depth} ({head['leaves']} leaves): {head['exploitability_pct_pot']:.2f}% pot (sd {head['sd']:.2f}); best baseline "
          f"{best} {baselines[best]['exploitability_pct_pot']:.2f}%: ratio {ratio:.3f}", flush=True)

    # fundamental rules on held-out endgames
    def rules_stage():
        k = min(args.rule_endgames, test_ids.size)
        solved = [SolvedEndgame.from_policy(family.game(test, i), family.policy_array(test, i), ranges=args.ranges)
                  for i in range(k)]
        shallow = optimal.get(args.rule_depth, models[args.rule_depth])
        out = {"fundamental": [], "tree": {}}
        for rule in (RULE_80_20, RULE_ALL_IN):
            s = rule_statistics(rule, solved)
            out["fundamental"].append({"name": rule.name, "text": rule.text(), "coverage": s.coverage,
                                       "agreement": s.agreement, "cost_pct_pot": s.cost_pct_pot,
                                       "cost_sd": s.cost_spread, "endgames": s.n_endgames})
        for key in shallow.trees_:
            if key[0] != 5:
                continue
            lst = []
            for rule in rules_from_tree(shallow, key):
                s = rule_statistics(rule, solved)
                lst.append({"text": rule.text(), "coverage": s.coverage, "agreement": s.agreement,
                            "cost_pct_pot": s.cost_pct_pot, "cost_sd": s.cost_spread})
            out["tree"][_key_name(key)] = lst
        return out

    rules = st.run("rules", rules_stage)
    lib = st.run("libratus", libratus_scores, head_model,
                 {f"depth {args.depth}": models[args.depth], **({f"depth {args.depth}, optimal leaves": head_model}
                                                               if args.depth in optimal else {}), **BASELINES}) \
        if args.libratus else []

    results = {
        "n_endgames": n, "n_train": int(train_ids.size), "n_test": int(test_ids.size), "ranges": args.ranges,
        "decisions": int(rows.weight.size), "seed": args.seed, "depth": args.depth,
        "family": family.config(), "generation": {"solved": report.n_solved, "unverified": report.n_unverified, "seconds": report.seconds},
        "dcfr_pct_pot": float(scores.reference_pct_pot.mean()),
        "dcfr_iterations_mean": float(np.mean(cols["iterations"])),
        "solve_seconds_mean": float(np.mean(cols["seconds"])),
        "frontier": frontier, "optimal_frontier": optimal_frontier, "leaf_logs": leaf_logs, "head": head,
        "baselines": baselines, "best_baseline": best, "ratio_to_best_baseline": ratio,
        "rules_text": head_model.rules(min_coverage=0.02), "rule_depth": args.rule_depth,
        "rules": rules, "libratus": lib, "stages": st.times,
        "command": "python scripts/hunl_pipeline.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    frontier_figure(out / "hunl_frontier.png", results)
    print(f"   wrote {out / 'results.json'} and {out / 'hunl_frontier.png'}")
    if args.doc and not args.no_doc:
        frontier_figure(Path(args.figures) / "hunl_frontier.png", results)
        from hunl_report import render_doc

        path = Path(args.doc)
        path.write_text(render_doc(path.read_text(), results, args))
        (path.parent / "hunl_results.json").write_text(json.dumps(results, indent=1))
    total = sum(st.times.values())
    print(f"done in {total:.0f} s: " + ", ".join(f"{k} {v:.0f} s" for k, v in st.times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

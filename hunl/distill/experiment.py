"""The HUNL distillation pipeline: random river endgames -> DCFR solutions -> per-street trees -> exploitability.

:func:`run_pipeline` is ``scripts/hunl_pipeline.py`` (its stages print their wall times; the database stage
resumes after a kill):

1. solve ``endgames`` random river endgames (:class:`hunl.distill.family.HoldemRiverFamily`: random boards,
   ranges from the preflop-class, strength-shaped and Bayes models, random pot and stack) with DCFR into the
   solution database ``db`` (checksummed Parquet shards; local processes or a Dask cluster);
2. split them into training and held-out endgames (``test_fraction``);
3. turn every decision of the training endgames into a row of interpretable features and equilibrium
   action-class frequencies (:mod:`hunl.distill.decisions`);
4. fit one tree per street and decision type (:class:`hunl.distill.policy.DistilledPolicy`) at every depth of
   ``depths``, and give the leaves of the ``optimal_depths`` trees the strategies of least exploitability
   (:mod:`hunl.distill.optimal_leaves`);
5. play each policy and the baselines (uniform random, always check/call, equity threshold) in every held-out
   endgame and measure exploitability and EV against the DCFR solution (:mod:`hunl.distill.cost`);
6. measure the 80-20 and all-in rules and the rules of a shallow tree (:mod:`hunl.distill.fundamental`);
7. with ``libratus``: solve the four Libratus endgames with DCFR and score the distilled policy in them.

Outputs: ``<out>/results.json`` and ``<out>/hunl_frontier.png``; with ``doc`` also the marked numbers and tables
of that doc (:mod:`hunl.distill.report`), its figure ``<figures>/hunl_frontier.png`` and ``hunl_results.json``
beside the doc.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.core.compilation import compiling
from hunl.distill.cost import evaluate_policy
from hunl.distill.family import HoldemRiverFamily
from hunl.distill.fundamental import RULE_80_20, RULE_ALL_IN, SolvedEndgame, rule_statistics, rules_from_tree
from hunl.distill.optimal_leaves import optimise_leaves
from hunl.distill.pipeline import BASELINES, collect_rows, score_policies, take
from hunl.distill.policy import DistilledPolicy, play, tree_key_name
from hunl.distill.report import frontier_figure, render_doc
from hunl.solver.game import HoldemEndgame
from hunl.solver.libratus import ENDGAMES, load_endgame
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import LIBRATUS_SIZES
from rulelearn.data.database import SolutionDatabase
from rulelearn.data.executors import make_executor
from rulelearn.report.timing import Stages

__all__ = ["PipelineJob", "libratus_scores", "run_pipeline"]


@dataclass(frozen=True)
class PipelineJob:
    """What ``scripts/hunl_pipeline.py`` runs (its options; see the script's ``--help``).

    Raises
    ------
    ValueError
        If ``depth`` is not one of ``depths``, or one of ``optimal_depths`` is neither one of ``depths`` nor
        ``rule_depth``.
    """

    endgames: int = 300
    db: str = "data/hunl_river_300"
    seed: int = 0
    iterations: int = 1000
    target_pct_pot: float = 0.1
    test_fraction: float = 0.2
    max_test: int = 400
    depth: int = 6
    depths: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10)
    optimal_depths: tuple[int, ...] = (2, 4, 6)
    leaf_endgames: int = 200
    leaf_iterations: int = 200
    rule_depth: int = 3
    rule_endgames: int = 100
    samples: int = 300_000
    min_samples_leaf: int = 200
    ranges: str = "start"
    criterion: str = "squared_error"
    workers: int | None = None
    scheduler: str | None = None
    libratus: bool = False
    out: str = "data/hunl"
    doc: str | None = None
    figures: str = "docs/figures"
    command: str = "python scripts/hunl_pipeline.py"

    def __post_init__(self):
        # checked before the expensive stages: run_pipeline reads the trees of these depths once they are fitted
        if self.depth not in self.depths:
            raise ValueError(f"depth ({self.depth}) must be one of depths {tuple(self.depths)}")
        stray = sorted(set(self.optimal_depths) - set(self.depths) - {self.rule_depth})
        if stray:
            raise ValueError(f"optimal_depths {stray} must be among depths {tuple(self.depths)} or the "
                             f"rule_depth ({self.rule_depth})")


def _bar(total, unit, desc):
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, desc=desc, smoothing=0.05)


def _mean_sd(x: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=np.float64)
    return float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else 0.0, float(x.std(ddof=1) / np.sqrt(x.size)) \
        if x.size > 1 else 0.0


def libratus_scores(policies: dict) -> list[dict]:
    """Solve each Libratus endgame with DCFR (to 0.1% of the pot on the river, 0.5% on the turn) and score
    ``policies`` (``{name: chooser}``) in it.

    The four endgames of :data:`hunl.solver.libratus.ENDGAMES` are played in the bet abstraction
    :data:`hunl.solver.tree.LIBRATUS_SIZES` (raise cap 1000); DCFR runs at most 2000 iterations. Prints one
    line per endgame.

    Parameters
    ----------
    policies : dict of str to chooser
        ``{name: chooser}``: what :func:`hunl.distill.policy.play` plays (e.g. a
        :class:`hunl.distill.cards.CardPolicy` or a baseline of :data:`hunl.distill.pipeline.BASELINES`); none
        may need the stored solution (:func:`hunl.distill.policy.needs_solution`).

    Returns
    -------
    list of dict
        One per endgame, in :data:`~hunl.solver.libratus.ENDGAMES` order: ``endgame`` (name), ``street``
        (``"turn"`` or ``"river"``), ``pot`` (chips), ``nodes``, ``hands`` (per player), ``dcfr_iterations``,
        ``dcfr_pct_pot`` (the DCFR solution's exploitability, % of the pot), ``solve_s`` and ``compile_s``
        (seconds), and ``policies``: ``{name: {"exploitability_pct_pot", "exploitability_mbb", "ev_pct_pot",
        "ev_mbb", "seconds"}}`` -- NashConv / 2 of the policy played by both players, and its EV against the
        DCFR solution (mean over the two seats), in % of the pot and mbb/g
        (:func:`hunl.distill.cost.evaluate_policy`); ``seconds`` without compilation.

    Raises
    ------
    FileNotFoundError
        If a Libratus endgame file is missing (:func:`hunl.solver.libratus.load_endgame`).
    ValueError
        If a chooser needs the stored solution (:func:`hunl.distill.policy.play`) or plays an invalid policy
        (:func:`hunl.distill.cost.evaluate_policy`).
    """
    out = []
    for name in ENDGAMES:
        e = load_endgame(name)
        game = HoldemEndgame(e.board, e.normalised_reach(), pot=e.pot, stack=e.stack_remaining,
                             bet_sizes=LIBRATUS_SIZES, raise_cap=1000, big_blind=e.big_blind)
        target = 0.1 if e.street == "river" else 0.5
        sol = solve_endgame(game, "dcfr", iterations=2000, target_pct_pot=target, check_every=50)
        row = {"endgame": name, "street": e.street, "pot": e.pot, "nodes": int(game.tree.n_nodes),
               "hands": list(game.num_hands), "dcfr_iterations": sol.iterations,
               "dcfr_pct_pot": sol.exploitability_pct_pot, "solve_s": sol.seconds,
               "compile_s": sol.compile_seconds, "policies": {}}
        for pname, chooser in policies.items():
            t1 = time.perf_counter()
            with compiling() as compiled:
                ev = evaluate_policy(game, play(game, chooser), sol.result.policy)
            row["policies"][pname] = {"exploitability_pct_pot": ev.exploitability_pct_pot,
                                      "exploitability_mbb": ev.exploitability_mbb, "ev_pct_pot": ev.ev_pct_pot,
                                      "ev_mbb": ev.ev_mbb, "seconds": time.perf_counter() - t1 - compiled.seconds}
        print(f"   {name}: DCFR {sol.exploitability_pct_pot:.3f}% pot; " + ", ".join(
            f"{k} {v['exploitability_pct_pot']:.1f}%" for k, v in row["policies"].items()), flush=True)
        out.append(row)
        del sol, game
    return out


def run_pipeline(job: PipelineJob) -> int:
    """Run the whole pipeline of ``job`` (see the module docstring); returns 0.

    Prints each stage's progress and wall time. Writes ``<job.out>/results.json`` (the numbers of every stage:
    exploitability and EV in % of the pot and mbb/g, the rules, the stage times) and
    ``<job.out>/hunl_frontier.png`` (:func:`hunl.distill.report.frontier_figure`); with ``job.doc`` also
    rewrites the marked values and tables of that Markdown file (:func:`hunl.distill.report.render_doc`),
    writes ``<job.figures>/hunl_frontier.png`` and ``hunl_results.json`` beside the doc. The leaves of the
    ``job.optimal_depths`` trees are optimised only with ``job.ranges == "start"``.

    Parameters
    ----------
    job : PipelineJob
        The run's options (those of ``scripts/hunl_pipeline.py``): the number of endgames and the solution
        database, the seed of the endgames and of the split, the held-out share and cap, the tree depths, the
        leaf optimisation, the range mode, the split criterion, the workers and the outputs
        (:class:`PipelineJob` checks its depths when it is made).

    Returns
    -------
    int
        0, the exit status.

    Raises
    ------
    ValueError
        If ``job.ranges`` is not one of :data:`hunl.distill.decisions.RANGE_MODES` (from
        :func:`hunl.distill.decisions.decision_rows`) or ``job.criterion`` is not ``"squared_error"`` or
        ``"emd"`` (from :meth:`hunl.distill.policy.DistilledPolicy.fit`), or ``job.workers`` is not a positive
        integer.
    """
    args = job
    st = Stages(style="indent")
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
            def make(d):
                return DistilledPolicy(max_depth=d, criterion=args.criterion, min_samples_leaf=args.min_samples_leaf,
                                       n_samples=args.samples, ranges=args.ranges, random_state=args.seed)

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
    print(f"   depth {args.depth} ({head['leaves']} leaves): {head['exploitability_pct_pot']:.2f}% pot "
          f"(sd {head['sd']:.2f}); best baseline {best} {baselines[best]['exploitability_pct_pot']:.2f}%: "
          f"ratio {ratio:.3f}", flush=True)

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
                                       "mass": s.mass, "agreement": s.agreement, "cost_pct_pot": s.cost,
                                       "cost_sd": s.cost_spread, "endgames": s.n_games})
        for key in shallow.trees_:
            if key[0] != 5:
                continue
            lst = []
            for rule in rules_from_tree(shallow, key):
                s = rule_statistics(rule, solved)
                lst.append({"text": rule.text(), "coverage": s.coverage, "mass": s.mass, "agreement": s.agreement,
                            "cost_pct_pot": s.cost, "cost_sd": s.cost_spread})
            out["tree"][tree_key_name(key)] = lst
        return out

    rules = st.run("rules", rules_stage)
    lib = st.run("libratus", libratus_scores,
                 {f"depth {args.depth}": models[args.depth], **({f"depth {args.depth}, optimal leaves": head_model}
                                                               if args.depth in optimal else {}), **BASELINES}) \
        if args.libratus else []

    results = {
        "n_endgames": n, "n_train": int(train_ids.size), "n_test": int(test_ids.size), "ranges": args.ranges,
        "decisions": int(rows.weight.size), "seed": args.seed, "depth": args.depth, "family": family.config(),
        "generation": {"solved": report.n_solved, "unverified": report.n_unverified, "seconds": report.seconds},
        "dcfr_pct_pot": float(scores.reference_pct_pot.mean()),
        "dcfr_iterations_mean": float(np.mean(cols["iterations"])),
        "solve_seconds_mean": float(np.mean(cols["seconds"])),
        "frontier": frontier, "optimal_frontier": optimal_frontier, "leaf_logs": leaf_logs, "head": head,
        "baselines": baselines, "best_baseline": best, "ratio_to_best_baseline": ratio,
        "rules_text": head_model.rules(min_coverage=0.02), "rule_depth": args.rule_depth,
        "rules": rules, "libratus": lib, "stages": st.seconds, "command": args.command,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    frontier_figure(out / "hunl_frontier.png", results)
    print(f"   wrote {out / 'results.json'} and {out / 'hunl_frontier.png'}")
    if args.doc:
        frontier_figure(Path(args.figures) / "hunl_frontier.png", results)
        path = Path(args.doc)
        path.write_text(render_doc(path.read_text(), results))
        (path.parent / "hunl_results.json").write_text(json.dumps(results, indent=1))
    total = sum(st.seconds.values())
    print(f"done in {total:.0f} s: " + ", ".join(f"{k} {v:.0f} s" for k, v in st.seconds.items()))
    return 0

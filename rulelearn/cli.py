"""Command line: ``rulelearn demo`` (the main job), ``rulelearn generate`` (a solution database), ``rulelearn rules``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


__all__ = ["main"]


def _add_db_args(p: argparse.ArgumentParser, games: int) -> None:
    p.add_argument("--game", "--family", dest="game", default="betgame",
                   help="game family: betgame (default, the paper's ten-card game) or hunl_river")
    p.add_argument("--games", type=int, default=games, help=f"number of games in the database (default {games})")
    p.add_argument("--seed", type=int, default=0, help="seed of the game stream and of the learners (default 0)")
    p.add_argument("--db", default="data/betgame", help="solution database directory (default data/betgame)")
    p.add_argument("--workers", type=int, default=None, help="solver processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _generate(args):
    from rulelearn.database import SolutionDatabase
    from rulelearn.family import load_family

    family = load_family(args.game)
    db = SolutionDatabase(args.db)
    report = db.generate(family, args.games, seed=args.seed, workers=args.workers, progress=not args.quiet,
                         shard_size=getattr(args, "shard_size", 250), scheduler=getattr(args, "scheduler", None),
                         repair=getattr(args, "repair", False))
    if report.repaired:
        print(f"repaired {len(report.repaired)} bad shard(s) (deleted and solved again): "
              f"{', '.join(report.repaired)}")
    stored = len(db)
    workers = "Dask worker threads" if report.backend == "dask" else "workers"
    print(f"solution database {db.path}: {stored} games stored; this run solved {report.n_solved} "
          f"in {report.seconds:.1f} s ({report.games_per_second:.0f} games/s on {report.workers} {workers}), "
          f"{report.n_unverified} failed verification"
          + (" (NashConv > 1e-9)" if family.name == "betgame" else ""))
    return family, db, report


def cmd_generate(args) -> int:
    _generate(args)
    return 0


def cmd_demo(args) -> int:
    from rulelearn.experiment import default_learners, depth_curve, evaluate, format_scores, split_games
    from rulelearn.plots import plot_depth_curve, plot_strategies
    from rulelearn.rules import describe_strategy, format_rule

    t0 = time.perf_counter()
    family, db, _ = _generate(args)
    columns = db.load(n_games=args.games)
    n = len(columns["game_id"])
    split = split_games(n, 0.2, args.seed)
    print(f"learning from {len(split.train)} training games, scoring on {len(split.test)} held-out games\n")

    results = evaluate(family, columns, default_learners(args.seed), split)
    scores = [s for s, _ in results]
    print("EMD: mean strategy distance to the equilibrium (Algorithm 2, 0 = identical, 1 = maximal).")
    print("Exploitability: game value minus the policy's payoff against a best response, in chips "
          "(the pot is 1 chip).\n")
    print(format_scores(scores))

    labels, values = list(family.action_labels), list(family.action_values)
    hands = list(family.hand_labels)
    by_name = {(s.learner, s.representation): m for s, m in results}
    beats = by_name[("tree depth 4", "cdf-beats")]
    print("\nMost prominent rules (depth-4 tree on the share of the opponent's range your card beats;"
          " the rules covering most situations):")
    for rule in sorted(beats.rules(), key=lambda r: -r.coverage)[:6]:
        print("  " + format_rule(rule, labels, hands, action_values=values))
    c2t = by_name[("cluster-then-tree k=5 (on medoids)", "cdf")]
    print("\nCluster-then-tree: five canonical games and the rules that pick one (Section 4.4):")
    for rule in c2t.rules():
        cond = " and ".join(str(c) for c in rule.conditions) or "always"
        print(f"  if {cond}:\n      {describe_strategy(rule.strategy, labels, hands, action_values=values)}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    curve = depth_curve(family, columns, split, depths=range(1, args.max_depth + 1))
    curve.to_csv(out / "error_vs_depth.csv", index=False)
    plot_depth_curve(curve, out / "error_vs_depth.png",
                     title=f"Decision trees on {len(split.train)} solved {family.name} games, "
                           f"scored on {len(split.test)} held-out games")
    import pandas as pd

    pd.DataFrame([s.as_row() for s in scores]).to_csv(out / "scores.csv", index=False)
    medoids = c2t.learner_.kmedoids_
    plot_strategies(medoids.medoid_targets_, out / "canonical_games.png",
                    titles=[f"canonical game {k + 1}" for k in range(len(medoids.medoid_indices_))],
                    action_labels=labels, hand_labels=hands,
                    suptitle="Player 1's equilibrium strategy in the five canonical (medoid) games")
    best = curve.loc[curve["exploitability"].idxmin()]
    print(f"\nError vs depth: {out / 'error_vs_depth.png'} (table {out / 'error_vs_depth.csv'}); lowest mean "
          f"exploitability {best['exploitability']:.4f} chips with representation {best['representation']} at "
          f"depth {int(best['depth'])} ({int(best['rules'])} rules).")
    print(f"Strategies of the canonical games: {out / 'canonical_games.png'}. Scores: {out / 'scores.csv'}.")
    print(f"Finished in {time.perf_counter() - t0:.0f} s.")
    return 0


def cmd_rules(args) -> int:
    from rulelearn.database import SolutionDatabase
    from rulelearn.learners import StrategyTree
    from rulelearn.pipeline import StrategyModel
    from rulelearn.representations import Representation

    db = SolutionDatabase(args.db)
    family = db.family()
    columns = db.load()
    features, _, per_hand = args.representation.partition("-")
    per_hand = {"": None, "card": "index", "card-cdf": "cdf", "beats": "beats"}.get(per_hand, per_hand)
    rep = Representation(features, per_hand)
    model = StrategyModel(StrategyTree(args.depth), rep, hand_labels=list(family.hand_labels)).fit(
        family.ranges(columns), family.strategies(columns))
    rules = model.rules()
    if args.sort == "coverage":
        rules = sorted(rules, key=lambda r: -r.coverage)
    from rulelearn.rules import format_rule

    print(f"{len(rules)} rules of a depth-{args.depth} tree on {len(columns['game_id'])} games, "
          f"representation {rep.name}:")
    for r in rules[: args.top or None]:
        print("  " + format_rule(r, list(family.action_labels), list(family.hand_labels),
                                 action_values=list(family.action_values)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulelearn", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="generate (or reuse) solved games, train every learner, print scores "
                                       "and rules, plot error vs depth")
    _add_db_args(demo, games=2000)
    demo.add_argument("--out", default="data/demo", help="output directory for the plot and tables")
    demo.add_argument("--max-depth", type=int, default=12, help="deepest tree of the error-vs-depth curve")
    demo.set_defaults(func=cmd_demo)
    gen = sub.add_parser("generate", help="solve random games into a solution database (resumable)")
    _add_db_args(gen, games=10_000)
    gen.add_argument("--shard-size", type=int, default=250, help="games per Parquet shard (default 250)")
    gen.add_argument("--scheduler", default=None, metavar="ADDRESS",
                     help="solve on a Dask cluster: its scheduler address, e.g. tcp://10.0.0.5:8786 (needs the dask "
                          "extra and rulelearn installed on the workers; the shards are written here). Default: local "
                          "processes (--workers)")
    gen.add_argument("--repair", action="store_true",
                     help="if stored shards are corrupt or truncated, delete exactly those and solve them again "
                          "(default: stop and name them)")
    gen.set_defaults(func=cmd_generate)
    rules = sub.add_parser("rules", help="fit a decision tree on a database and print its rules")
    rules.add_argument("--db", default="data/betgame")
    rules.add_argument("--depth", type=int, default=3)
    rules.add_argument("--representation", default="cdf-beats",
                       help="cdf | pdf, optionally -card, -card-cdf or -beats (default cdf-beats)")
    rules.add_argument("--sort", choices=["tree", "coverage"], default="tree")
    rules.add_argument("--top", type=int, default=0, help="print only the first N rules")
    rules.set_defaults(func=cmd_rules)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``rulelearn`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"rulelearn {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

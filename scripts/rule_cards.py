#!/usr/bin/env python
"""Rule cards a person can carry, with their measured cost: the bet game and HUNL endgames.

::

    python scripts/rule_cards.py betgame                  # the bet game's card and frontier (docs/RULES.md)
    python scripts/rule_cards.py betgame --seeds 0 --no-doc   # one split, a quick look
    python scripts/rule_cards.py hunl --db data/hunl_river_2500 --libratus   # the river card and its frontier
    python scripts/rule_cards.py streets --libratus   # the turn card with the river card on the river
    python scripts/rule_cards.py flop --doc docs/HUNL.md   # flop cards inside solved flop endgames
    python scripts/rule_cards.py floor --card docs/cards/river.json   # the card's rules with each endgame's own
                                                                      # strategies: what sharing one costs
    python scripts/rule_cards.py thresholds --card docs/cards/river.json --out data/cards/river-moved.json
                                                    # the card's round thresholds moved by their training cost

``betgame`` grows exploitability trees with round thresholds on a solution database (``--db``), gives each leaf
the LP-optimal strategy in plain mixes, measures player 1's held-out exploitability against the total number of
conditions for 1 .. ``--max-leaves`` rules beside the other rule sets and the papers', prints the card of the
first split and writes ``<out>/betgame_card.json``, ``docs/figures/betgame_card_frontier.png`` and the blocks
``betgame-card`` and ``betgame-card-table`` of ``docs/RULES.md``
(:func:`rulelearn.experiments.cards_report.run_group_cards`). The frontier is cached under ``--out``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from hunl.distill.card_experiment import CardJob, run_cards
from rulelearn.experiments.cards_report import GroupCardJob, run_group_cards
from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[1]


def _features(given) -> tuple[str, ...] | None:
    """``--features``: the names given, or the default card features plus each ``+NAME`` (``None``: default)."""
    if not given:
        return None
    from hunl.distill.cards import DEFAULT_CARD_FEATURES

    added = [f[1:] for f in given if f.startswith("+")]
    named = [f for f in given if not f.startswith("+")]
    return tuple(dict.fromkeys((named or list(DEFAULT_CARD_FEATURES)) + added))


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=help_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="game", required=True)
    b = sub.add_parser("betgame", help="the bet game's rule card (docs/RULES.md)")
    b.add_argument("--db", default="data/db20k", help="solution database (default data/db20k; built by "
                                                      "`rulelearn generate --games 20000 --db data/db20k`)")
    b.add_argument("--games", type=int, default=20_000)
    b.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    b.add_argument("--max-leaves", type=int, default=8)
    b.add_argument("--card-leaves", type=int, default=6, help="rules on the printed card (default 6)")
    b.add_argument("--max-conditions", type=int, default=None, help="conditions per rule at most (default: no cap)")
    b.add_argument("--max-fit-games", type=int, default=1200, help="training games per leaf LP (default 1200)")
    b.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    b.add_argument("--out", default="data/cards")
    b.add_argument("--figure", default="docs/figures/betgame_card_frontier.png")
    b.add_argument("--doc", default="docs/RULES.md")
    b.add_argument("--no-doc", action="store_true")
    h = sub.add_parser("hunl", help="HUNL rule cards from solved endgame databases (docs/HUNL.md)")
    h.add_argument("--db", nargs="+", default=["data/hunl_river_2500"],
                   help="hunl_river solution databases (river or turn endgames; several: pooled)")
    h.add_argument("--endgames", type=int, default=None, help="use the first N endgames of each database")
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--max-test", type=int, default=400, help="held-out endgames scored per database")
    h.add_argument("--sizes", type=int, nargs="+", default=list(CardJob.sizes), help="card sizes (rules)")
    h.add_argument("--card-rules", type=int, default=20, help="rules of the printed card (default 20)")
    h.add_argument("--max-conditions", type=int, default=3)
    h.add_argument("--leaf-endgames", type=int, default=200, help="training endgames of the CFR-BR leaves")
    h.add_argument("--max-rows", type=int, default=None,
                   help="keep about this many decisions of each training endgame, drawn by probability times "
                        "stake and reweighted (turn endgames have about 400,000)")
    h.add_argument("--leaf-iterations", type=int, default=200)
    h.add_argument("--plain-search", type=float, default=0.0, metavar="RADIUS",
                   help="print, for each rule, the plain mix within RADIUS of its optimised strategy (in every "
                        "action's probability) with the least training exploitability, rule by rule (default 0: "
                        "the nearest plain mix)")
    h.add_argument("--regret-from", type=int, default=None,
                   help="grow the card tree by imitation to this many rules, then by the splits that most reduce "
                        "what best responses win (exploitability in the loop; default: imitation only)")
    h.add_argument("--regret-endgames", type=int, default=100, help="training endgames of the regret growth")
    h.add_argument("--regret-iterations", type=int, default=100, help="CFR-BR iterations per regret round")
    h.add_argument("--regret-step", type=int, default=1, help="splits added per regret round")
    h.add_argument("--prune-from", type=int, default=None,
                   help="grow the card tree by imitation to this many rules, fit it, then remove the splits whose "
                        "rules cost least to play as one, by training exploitability, down to the smallest size "
                        "(pruned while the cost allows; default: imitation only)")
    h.add_argument("--prune-endgames", type=int, default=100, help="training endgames of the pruning")
    h.add_argument("--prune-iterations", type=int, default=200, help="CFR-BR iterations of the card pruned")
    h.add_argument("--prune-every", type=int, default=4,
                   help="removals between CFR-BR re-optimisations of the remaining rules (0: never)")
    h.add_argument("--prune-reoptimise", type=int, default=50, help="CFR-BR iterations of each re-optimisation")
    h.add_argument("--compare", nargs=2, action="append", metavar=("LABEL", "FRONTIER_JSON"), default=None,
                   help="draw another run's card frontier (its frontier.json) in the frontier figure; repeatable")
    h.add_argument("--streets", nargs="+", choices=("flop", "turn", "river"), default=None,
                   help="learn the card from the decisions of these streets only (default: every street)")
    h.add_argument("--fixed-card", nargs=2, action="append", metavar=("STREET", "JSON"), default=None,
                   help="a card that plays another street while the card's rules are optimised and measured "
                        "(e.g. --streets turn --fixed-card river docs/cards/river.json); repeat per street")
    h.add_argument("--ranges", choices=("start", "own"), default="start",
                   help="ranges the card's quantities read: at the start of the street (default), or with 'own' the "
                        "player's own range at the decision (the opponent's at the start)")
    h.add_argument("--features", nargs="+", default=None,
                   help="quantities the rules may test (default: hunl.distill.cards.DEFAULT_CARD_FEATURES); "
                        "'+NAME' adds NAME to the default, e.g. --features +bluff_ratio")
    h.add_argument("--samples", type=int, default=400_000, help="decisions drawn to grow the card tree")
    h.add_argument("--depths", type=int, nargs="*", default=[1, 2, 3],
                   help="depths of the comparison trees (raw thresholds, optimal leaves)")
    h.add_argument("--workers", type=int, default=None)
    h.add_argument("--libratus", action="store_true", help="also play the card in the four Libratus endgames")
    h.add_argument("--out", default="data/cards/hunl_river")
    h.add_argument("--title", default="HUNL river rule card")
    h.add_argument("--name", default="river", help="card name: docs/cards/<name>.json, blocks card-<name>*")
    h.add_argument("--doc", default=None, help="write the card's blocks into this doc (docs/HUNL.md)")
    fl = sub.add_parser("floor", help="a card's rules with each held-out endgame's own strategies: the floor of its "
                                      "rule form and the cost of sharing one strategy per rule (docs/HUNL.md)")
    fl.add_argument("--card", default="docs/cards/river.json", help="the card's JSON")
    fl.add_argument("--fixed-card", nargs=2, action="append", metavar=("STREET", "JSON"), default=None,
                    help="a card kept as it is for another street (e.g. river docs/cards/river.json beside a turn card)")
    fl.add_argument("--db", default="data/hunl_river_2500", help="database whose held-out endgames are used")
    fl.add_argument("--seed", type=int, default=0, help="split seed (the card run's)")
    fl.add_argument("--max-test", type=int, default=20, help="held-out endgames")
    fl.add_argument("--iterations", type=int, default=1500, help="CFR-BR iterations in each endgame")
    fl.add_argument("--shared-iterations", type=int, default=0,
                    help="also fit one strategy per rule on the held-out endgames themselves (CFR-BR iterations; "
                         "default 0: not done)")
    fl.add_argument("--sections", action="store_true",
                    help="also play each endgame's own strategies everywhere but one section, section by section")
    fl.add_argument("--workers", type=int, default=None)
    fl.add_argument("--name", default="river", help="block card-<name>-floor")
    fl.add_argument("--doc", default=None, help="write the block into this doc (docs/HUNL.md)")
    th = sub.add_parser("thresholds", help="a card's round thresholds moved by their cost on training endgames "
                                           "(coordinate descent; docs/HUNL.md)")
    th.add_argument("--card", default="docs/cards/river.json", help="the card's JSON")
    th.add_argument("--fixed-card", nargs=2, action="append", metavar=("STREET", "JSON"), default=None,
                    help="a card kept as it is for another street")
    th.add_argument("--db", nargs="+", default=["data/hunl_river_2500"],
                    help="database(s) whose training endgames are played (several: each weighs the same, unless "
                         "--db-weights)")
    th.add_argument("--db-weights", type=float, nargs="+", default=(), metavar="W",
                    help="one positive weight per --db: the training figure weighs the databases' means by these "
                         "(default: the same)")
    th.add_argument("--seed", type=int, default=0, help="split seed (the card run's)")
    th.add_argument("--train", type=int, nargs="+", default=[400],
                    help="training endgames (default 400; one figure, or one per database)")
    th.add_argument("--max-test", type=int, nargs="+", default=[400],
                    help="held-out endgames the written card's cost is measured in (default 400; one figure or one "
                         "per database; 0: none)")
    th.add_argument("--steps", type=int, default=2, help="grid places a threshold may move per try, each side")
    th.add_argument("--sweeps", type=int, default=2, help="passes over the card's thresholds at most (0: keep them)")
    th.add_argument("--mixes", type=float, default=0.0, metavar="RADIUS",
                    help="then choose each rule's plain mix again within RADIUS of it by the training cost (default 0: "
                         "keep the mixes)")
    th.add_argument("--orders", action="store_true",
                    help="with --mixes: choose each rule's hand order with its mix -- at random, or by hand order "
                         "('call with the best 2 in 5 of these hands') from the best or the weakest hands")
    th.add_argument("--polar", action="store_true",
                    help="with --orders: the rules of decisions not facing a bet may also play polar -- each bet "
                         "two parts from the best hands for one from the weakest, the check in between")
    th.add_argument("--by-position", type=int, nargs="+", default=(), metavar="RULE",
                    help="first move these rules (positions in the card's either-position section of decisions not "
                         "facing a bet) into each position's section and choose each copy's plain mix by the training "
                         "cost (default: none)")
    th.add_argument("--position-radius", type=float, default=1.0,
                    help="how far a copy's mix may move from the rule's (default 1: any plain mix)")
    th.add_argument("--split-rules", type=int, default=0, metavar="N",
                    help="first cut up to N of the card's rules in two, each cut the cheapest on the training endgames "
                         "of the --split-candidates best by imitation of the equilibrium (default 0: none)")
    th.add_argument("--split-candidates", type=int, default=8, help="cuts played per added rule (default 8)")
    th.add_argument("--split-radius", type=float, default=0.0,
                    help="each side of a cut also tries every plain mix within this distance of its rule's "
                         "(default 0: the rule's mix moved towards the equilibrium's only)")
    th.add_argument("--workers", type=int, default=None)
    th.add_argument("--out", required=True, help="the moved card's JSON (e.g. docs/cards/<name>.json); a killed "
                    "run started again resumes from <out>.state.json")
    th.add_argument("--name", default="river-thresholds", help="block card-<name>-thresholds")
    th.add_argument("--title", default=None, help="the written card's title (default: the card's, marked as moved)")
    th.add_argument("--doc", default=None, help="write the block into this doc (docs/HUNL.md)")
    s = sub.add_parser("streets", help="rule cards played together, each street by its own card (docs/HUNL.md)")
    s.add_argument("--card", nargs=2, action="append", metavar=("STREET", "JSON"), default=None,
                   help="a street (flop, turn, river) and its card's JSON; repeat per street (default: the turn "
                        "card on the turn, the river card on the river)")
    s.add_argument("--db", default="data/hunl_turn_1000", help="database whose held-out endgames are scored")
    s.add_argument("--seed", type=int, default=0, help="split seed (the card run's, for its held-out endgames)")
    s.add_argument("--max-test", type=int, default=100, help="held-out endgames scored")
    s.add_argument("--workers", type=int, default=None)
    s.add_argument("--libratus", action="store_true", help="also play them in the four Libratus endgames")
    s.add_argument("--splits", action="store_true",
                   help="also each card on its street with the stored DCFR solution on the others (held-out only)")
    s.add_argument("--sections", action="store_true",
                   help="also each card by decision type (facing a bet or not) with the stored DCFR solution on the "
                        "others, beside the minimum-defence rule facing a bet (held-out only)")
    s.add_argument("--name", default="turn-river", help="block card-<name> of the doc")
    s.add_argument("--doc", default=None, help="write the block into this doc (docs/HUNL.md)")
    f = sub.add_parser("flop", help="flop cards, and the turn and river cards, inside solved flop endgames "
                                    "(docs/HUNL.md)")
    f.add_argument("--turn-card", default="docs/cards/turn.json")
    f.add_argument("--river-card", default="docs/cards/river.json")
    f.add_argument("--out", default="data/cards/flop", help="per-endgame results (a killed run resumes)")
    f.add_argument("--train", type=int, default=60, help="training flop endgames")
    f.add_argument("--test", type=int, default=30, help="held-out flop endgames")
    f.add_argument("--test-start", type=int, default=None,
                   help="first held-out endgame of the stream (default: --train); the training endgames skip the "
                        "held-out block, so --train can grow around the same held-out endgames")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--max-combos", type=int, default=100, help="largest range, combos")
    f.add_argument("--target", type=float, default=0.5, help="DCFR target, %% of the pot")
    f.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16], help="rules of the flop cards")
    f.add_argument("--card-rules", type=int, default=16, help="the flop card printed")
    f.add_argument("--leaf-sizes", type=int, nargs="+", default=[],
                   help="rules of flop cards whose strategies are optimised by CFR-BR (the printed card is one of "
                        "them if --card-rules is)")
    f.add_argument("--card-leaves", choices=("mean", "optimised"), default=None,
                   help="print the card of --card-rules rules with equilibrium means or optimised strategies "
                        "(default: optimised if --card-rules is one of --leaf-sizes)")
    f.add_argument("--leaf-endgames", type=int, default=0, help="training endgames of the CFR-BR optimisation")
    f.add_argument("--leaf-iterations", type=int, default=0, help="CFR-BR iterations")
    f.add_argument("--splits", action="store_true",
                   help="also the flop card with DCFR on the turn and river, and the turn and river cards with "
                        "DCFR on the flop")
    f.add_argument("--workers", type=int, default=1)
    f.add_argument("--ranges", choices=("start", "own"), default="start",
                   help="the flop card reads the ranges at the start of the flop, or your own range at the "
                        "decision (training rows under out/train/<k>_own.npz)")
    f.add_argument("--pair-only", action="store_true",
                   help="measure only the turn card (on the flop and turn) and the river card in the held-out "
                        "endgames (with --splits also under the DCFR flop): no training, flop card or baselines")
    f.add_argument("--name", default="flop",
                   help="card name: docs/cards/<name>.json, figures <name>_card*.png, blocks card-<name>*")
    f.add_argument("--doc", default=None, help="write the blocks card-<name>* into this doc (docs/HUNL.md)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    a = parse_args(argv)
    os.chdir(ROOT)
    command = "python scripts/rule_cards.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    if a.game == "hunl":
        return run_cards(CardJob(
            dbs=tuple(a.db), endgames=a.endgames, seed=a.seed, max_test=a.max_test, sizes=tuple(a.sizes),
            max_rows=a.max_rows,
            card_rules=a.card_rules, max_conditions=a.max_conditions, leaf_endgames=a.leaf_endgames,
            leaf_iterations=a.leaf_iterations, samples=a.samples, depths=tuple(a.depths), workers=a.workers,
            libratus=a.libratus, out=a.out, title=a.title, command=command, name=a.name, doc=a.doc,
            regret_from=a.regret_from, regret_endgames=a.regret_endgames, regret_iterations=a.regret_iterations,
            regret_step=a.regret_step, prune_from=a.prune_from, prune_endgames=a.prune_endgames,
            prune_iterations=a.prune_iterations, prune_every=a.prune_every, prune_reoptimise=a.prune_reoptimise,
            compare=tuple((label, path) for label, path in a.compare) if a.compare else (),
            streets=None if a.streets is None else tuple({"flop": 3, "turn": 4, "river": 5}[x] for x in a.streets),
            fixed_cards=tuple((st, path) for st, path in a.fixed_card) if a.fixed_card else (),
            ranges=a.ranges, features=_features(a.features), plain_search=a.plain_search))
    if a.game == "floor":
        from hunl.distill.card_floor import FloorJob, run_card_floor

        res = run_card_floor(FloorJob(card=a.card, db=a.db, seed=a.seed, max_test=a.max_test, iterations=a.iterations,
                                      shared_iterations=a.shared_iterations, sections=a.sections,
                                      workers=a.workers, name=a.name, doc=a.doc, command=command,
                                      fixed_cards=tuple((st, p) for st, p in a.fixed_card) if a.fixed_card else ()))
        print(f"{res['n_rules']} rules, {res['n_test']} held-out endgames: {res['printed_mean']:.2f}% of the pot as "
              f"printed, {res['floor_mean']:.2f}% with each endgame's own strategies"
              + ("" if res["shared_mean"] is None else f", {res['shared_mean']:.2f}% with one strategy per rule fitted "
                 "on them"))
        return 0
    if a.game == "thresholds":
        from hunl.distill.threshold_search import ThresholdJob, run_threshold_search

        res = run_threshold_search(ThresholdJob(
            card=a.card, db=tuple(a.db), seed=a.seed, train=a.train[0] if len(a.train) == 1 else tuple(a.train),
            max_test=a.max_test[0] if len(a.max_test) == 1 else tuple(a.max_test), db_weights=tuple(a.db_weights),
            steps=a.steps, sweeps=a.sweeps,
            mixes=a.mixes, orders=a.orders, polar=a.polar, workers=a.workers, out=a.out, name=a.name, title=a.title, doc=a.doc, command=command,
            fixed_cards=tuple((st, p) for st, p in a.fixed_card) if a.fixed_card else (),
            by_position=tuple(a.by_position), position_radius=a.position_radius, split_rules=a.split_rules,
            split_candidates=a.split_candidates, split_radius=a.split_radius))
        for e in res["split_log"]:
            k = e["kept"]
            print(f"rule cut: {e['train_pct_pot']:.2f}% -> " + ("no cut lowers it" if k is None else
                  f"{k['pct_pot']:.2f}% of the pot on the training endgames (rule {k['rule'] + 1} at "
                  f"{k['feature']} {k['threshold']:g})"))
        if res["position_log"]:
            print(f"rules {', '.join(map(str, res['by_position']))} per position: {res['position_log'][0]:.2f}% -> "
                  f"{res['position_log'][-1]:.2f}% of the pot on the training endgames")
        for h in res["held_out"]:
            print(f"held out: {h['pct_pot']:.2f}% of the pot in {h['n']} endgames of {h['db']}")
        swept = "" if not res["log"] else (f": {res['log'][0]:.2f}% of the pot as given, {min(res['log']):.2f}% with "
                                           f"{len(res['moves'])} thresholds moved")
        print(f"{res['n_train']} training endgames{swept}" + (f", {res['mixes_log'][-1]:.2f}% with the mixes chosen "
                                                           "again" if res["mixes_log"] else "")
              + f"; written to {res['out']}")
        return 0
    if a.game == "streets":
        from hunl.distill.street_cards import StreetCardsJob, run_street_cards

        cards = tuple((st, path) for st, path in a.card) if a.card else StreetCardsJob.cards
        res = run_street_cards(StreetCardsJob(cards=cards, db=a.db, seed=a.seed, max_test=a.max_test,
                                              workers=a.workers, libratus=a.libratus, splits=a.splits,
                                              sections=a.sections, name=a.name, doc=a.doc, command=command))
        for name, v in res["held_out"].items():
            print(f"{name}: {v['exploitability_pct_pot']:.2f}% of the pot (sd {v['sd']:.2f}), "
                  f"{v['exploitability_mbb']:,.0f} mbb/g, {res['n_test']} held-out endgames")
        return 0
    if a.game == "flop":
        from hunl.distill.flop_cards import FlopJob, run_flop_cards

        res = run_flop_cards(FlopJob(
            turn_card=a.turn_card, river_card=a.river_card, out=a.out, n_train=a.train, n_test=a.test,
            test_start=a.test_start, seed=a.seed,
            max_combos=a.max_combos, target_pct_pot=a.target, sizes=tuple(a.sizes), card_rules=a.card_rules,
            card_leaves=a.card_leaves, leaf_sizes=tuple(a.leaf_sizes), leaf_endgames=a.leaf_endgames,
            leaf_iterations=a.leaf_iterations,
            workers=a.workers, splits=a.splits, ranges=a.ranges, pair_only=a.pair_only, name=a.name, doc=a.doc,
            command=command))
        for name, v in res["policies"].items():
            print(f"{name}: {v['exploitability_pct_pot']:.2f}% of the pot (sd {v['sd']:.2f}), "
                  f"{v['exploitability_mbb']:,.0f} mbb/g, {res['n_test']} held-out flop endgames")
        return 0
    return run_group_cards(GroupCardJob(
        db=a.db, games=a.games, seeds=tuple(a.seeds), max_leaves=a.max_leaves, card_leaves=a.card_leaves,
        max_conditions=a.max_conditions, max_fit_games=a.max_fit_games, jobs=a.jobs, out=a.out, figure=a.figure,
        doc=None if a.no_doc else a.doc, command=command))


if __name__ == "__main__":
    sys.exit(main())

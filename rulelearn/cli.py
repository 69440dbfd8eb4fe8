"""Command line: ``rulelearn demo`` (the main job), ``rulelearn generate`` (a solution database), ``rulelearn rules``,
and the commands of the game packages registered in :data:`COMMANDS` (``rulelearn pushfold``).

``rulelearn rules --card river`` prints a rule card written by ``scripts/rule_cards.py`` (:data:`CARD_FILES`);
``rulelearn rules --card`` prints the cards of docs/HUNL.md's summary table (:data:`HEADLINE_CARDS`);
``--out DIR`` also writes each as Markdown and (hold'em cards) as a one-page figure."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

__all__ = ["CARD_FIGURES", "CARD_FILES", "COMMANDS", "HEADLINE_CARDS", "main"]

#: Subcommands provided by game packages: name -> (module path, help). The module has ``add_arguments(parser)``
#: and ``run(args) -> int``; it is imported by name (this layer imports no game), like the families of
#: :data:`rulelearn.family.FAMILIES`.
COMMANDS = {
    "pushfold": ("hunl.preflop.cli", "heads-up push/fold at a stack depth: the exact chart and the rule card with "
                                     "its cost in mbb/g"),
}

#: One-page figures of rule cards, by the game a card is of: game -> ``"module:function"``, the function taking
#: ``(card, path)``; imported by name (this layer imports no game). A card whose meta names streets is hold'em's.
CARD_FIGURES = {
    "hunl": "hunl.distill.card_figure:card_page",
}


def _add_db_args(p: argparse.ArgumentParser, games: int) -> None:
    p.add_argument("--game", "--family", dest="game", default="betgame",
                   help="game family: betgame (default, the paper's ten-card game) or hunl_river")
    p.add_argument("--games", type=int, default=games, help=f"number of games in the database (default {games})")
    p.add_argument("--seed", type=int, default=0, help="seed of the game stream and of the learners (default 0)")
    p.add_argument("--db", default="data/betgame", help="solution database directory (default data/betgame)")
    p.add_argument("--workers", type=int, default=None, help="solver processes (default: all cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _job(args):
    from rulelearn.experiments.demo import DemoJob

    names = ("game", "games", "seed", "db", "workers", "quiet", "out", "max_depth", "shard_size", "scheduler",
             "repair")
    return DemoJob(**{k: getattr(args, k) for k in names if hasattr(args, k)})


def cmd_generate(args) -> int:
    """``rulelearn generate``: solve the database of ``args`` (resumable); returns the exit status 0."""
    from rulelearn.experiments.demo import solve_or_load

    solve_or_load(_job(args))
    return 0


def cmd_demo(args) -> int:
    """``rulelearn demo``: the main job on ``args`` (:class:`~rulelearn.experiments.demo.DemoJob`); returns 0."""
    from rulelearn.experiments.demo import run_demo

    return run_demo(_job(args))


def cmd_rules(args) -> int:
    """``rulelearn rules``: print the rule cards of ``args.card``, or fit a tree of depth ``args.depth`` on the
    database ``args.db`` and print its rules; returns 0.

    Raises
    ------
    FileNotFoundError
        If a card named in ``args.card`` does not exist.
    """
    if args.card is not None:
        return _print_cards(args.card, args.markdown, args.out)
    if args.out is not None:
        raise ValueError("--out: writes rule cards, so it needs --card")
    from rulelearn.data.database import SolutionDatabase
    from rulelearn.data.splits import SolvedGames
    from rulelearn.features.representations import Representation
    from rulelearn.learners import StrategyModel, StrategyTree
    from rulelearn.rules.formatting import format_rule

    db = SolutionDatabase(args.db)
    games = SolvedGames(db.family(), db.load())
    rep = Representation.from_name(args.representation)
    model = StrategyModel.for_games(games, StrategyTree(args.depth), rep).fit(games.ranges, games.strategies)
    rules = model.rules()
    if args.sort == "coverage":
        rules = sorted(rules, key=lambda r: -r.coverage)
    family = games.family
    print(f"{len(rules)} rules of a depth-{args.depth} tree on {len(games)} games, representation {rep.name}:")
    for r in rules[: args.top or None]:
        print("  " + format_rule(r, list(family.action_labels), games.hand_labels, games.hand_noun,
                                 action_values=list(family.action_values)))
    return 0


#: Rule cards written by ``scripts/rule_cards.py``, by name (``rulelearn rules --card river``).
CARD_FILES = {name: f"docs/cards/{name}.json" for name in ("betgame", "river", "river-own", "river-own-bluff",
                                                            "river-own-bluff-pruned", "river-own-bluff-pruned-plain",
                                                            "river-deep", "river-all",
                                                            "river-all-own", "river-all-own-bluff",
                                                            "river-all-own-bluff-pruned",
                                                            "river-all-own-bluff-pruned-plain", "river-moved",
                                                            "river-moved-all", "river-positions", "river-positions-all", "river-value",
                                                            "river-value-all", "river-ordered-start", "river-ordered",
                                                            "river-ordered-all", "river-cut",
                                                            "river-cut-weighted", "river-cut-w5",
                                                            "turn", "turn-own",
                                                            "turn-own-pruned", "turn-own-pruned-plain", "turn-moved-all",
                                                            "turn-positions", "turn-value-all", "turn-ordered",
                                                            "flop",
                                                            "flop-own", "flop-plain")}

#: The cards of the summary table of docs/HUNL.md, in the order they are played (``rulelearn rules --card`` with
#: no name): the turn card, which also plays the flop (in flop endgames it costs less there than the flop cards),
#: the river card measured with it, the river card for deep stacks, and the bet game's card.
HEADLINE_CARDS = ("turn-ordered", "river-cut-w5", "river-deep", "betgame")
HEADLINE_NOTE = ("The cards of the summary table of docs/HUNL.md. Play the flop and the turn with the turn card (its "
                 "quantities read on the flop), the river with the river card; with more than 8 pots behind on the "
                 "river, the deep-stack river card. Last, the bet game's card.")

#: The repository's card folder, for a ``rulelearn`` run from another working directory.
_REPO_CARDS = Path(__file__).resolve().parents[1] / "docs" / "cards"


def _card_path(name: str):
    """The card file of ``name``: a path, a name of :data:`CARD_FILES`, or any ``docs/cards/<name>.json``, read
    from the working directory first, then from the repository's ``docs/cards``.

    Raises
    ------
    FileNotFoundError
        If none of these exists (the message names the card and the places looked at).
    """
    tried = [Path(CARD_FILES.get(name, name)), Path(f"docs/cards/{name}.json"), _REPO_CARDS / f"{name}.json"]
    for path in tried:
        if path.is_file():
            return path
    raise FileNotFoundError(f"--card: no rule card {name!r} (looked at {', '.join(map(str, dict.fromkeys(tried)))}; "
                            "write one with scripts/rule_cards.py)")


def _print_cards(names, markdown: bool, out=None) -> int:
    """Print the cards ``names`` (default :data:`HEADLINE_CARDS`); with ``out``, also write each as
    ``<out>/<name>.md`` and, for a hold'em card, its one-page figure ``<out>/<name>_card.png``
    (:data:`CARD_FIGURES`: the rules beside 13x13 grids of the hands each rule covers on an
    example board; the bet game's card has no hand grid). A rule that plays its section's "otherwise" mix
    where no rule in between can take its decisions is not printed
    (:meth:`rulelearn.rules.cards.RuleCard.without_default_copies`): the card plays what its file plays, so its
    cost line stands."""
    import json

    from rulelearn.rules.cards import RuleCard

    if not names:
        print(HEADLINE_NOTE + "\n")
    written = []
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
    for name in names or HEADLINE_CARDS:
        path = _card_path(name)
        # no rule that plays its section's "otherwise" mix (a search that moves mixes can leave such rules behind)
        card = RuleCard.from_dict(json.loads(path.read_text())).without_default_copies()
        print(card.to_markdown() if markdown else card.to_text())
        if out is not None:
            written.append(Path(out) / f"{path.stem}.md")
            written[-1].write_text(card.to_markdown())
            if card.meta.get("streets"):
                module, function = CARD_FIGURES["hunl"].split(":")
                written.append(Path(out) / f"{path.stem}_card.png")
                getattr(importlib.import_module(module), function)(card, written[-1])
    if written:
        print("wrote " + ", ".join(map(str, written)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``rulelearn`` argument parser: ``demo``, ``generate``, ``rules`` and the commands of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="rulelearn", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Solve poker games, learn rules a person can remember from the solutions, and measure what "
                    "they cost.",
        epilog="examples:\n"
               "  rulelearn demo                    solve 2,000 bet games, train every learner, print scores and rules\n"
               "  rulelearn rules --card            print the rule cards of docs/HUNL.md's summary with their cost\n"
               "  rulelearn rules --card river-deep --out cards/   also write it as Markdown and a one-page figure\n"
               "  rulelearn pushfold --stack 10     the push/fold chart and rule card at 10 big blinds\n"
               "  rulelearn <command> --help        the options of a command")
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
                     help="rebuild a missing or broken manifest, keep the shards that pass the check against their "
                          "own checksums, delete exactly the corrupt or truncated ones and solve them again "
                          "(default: stop and name them)")
    gen.set_defaults(func=cmd_generate)
    rules = sub.add_parser("rules", help="print the rules of a decision tree fitted on a database, or rule cards with their cost (--card)")
    rules.add_argument("--db", default="data/betgame", help="solution database directory (default data/betgame)")
    rules.add_argument("--depth", type=int, default=3, help="depth of the tree (default 3)")
    rules.add_argument("--representation", default="cdf-beats",
                       help="cdf | pdf, optionally -card, -card-cdf or -beats (default cdf-beats)")
    rules.add_argument("--sort", choices=["tree", "coverage"], default="tree",
                       help="order of the rules: the tree's (default) or by the share of rows they cover")
    rules.add_argument("--top", type=int, default=0, help="print only the first N rules")
    rules.add_argument("--card", nargs="*", default=None, metavar="NAME",
                       help=f"print rule cards instead: {', '.join(CARD_FILES)} (any docs/cards/<name>.json) or a "
                            f"card JSON file; with no name, the cards of the summary table: {', '.join(HEADLINE_CARDS)}")
    rules.add_argument("--markdown", action="store_true", help="with --card: print Markdown")
    rules.add_argument("--out", default=None, metavar="DIR",
                       help="with --card: also write each card as DIR/<name>.md and, for a hold'em card, its one-page "
                            "figure DIR/<name>_card.png (rules beside 13x13 grids of the hands each covers)")
    rules.set_defaults(func=cmd_rules)
    for name, (module, text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=text)
        mod = importlib.import_module(module)
        mod.add_arguments(cmd)
        cmd.set_defaults(func=mod.run)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``rulelearn`` console script.

    Parses ``argv`` (:func:`build_parser`) and runs the chosen command. A ``ValueError`` (a corrupt database
    included), ``FileNotFoundError`` or ``RuntimeError`` of the command is printed to standard error as
    ``rulelearn <command>: error: <message>`` instead of a traceback; a reader that closes the pipe
    (``| head``) ends the command quietly. Other exceptions propagate.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments without the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: the command's own (0 on success), 2 after a reported error, 141 (128 + SIGPIPE) when
        standard output was closed by its reader.

    Raises
    ------
    SystemExit
        From :mod:`argparse`: with status 2 on invalid arguments or a missing command, 0 after ``--help``.
    """
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (``rulelearn rules --card | head``): stop quietly, as other command-line tools do;
        # stdout goes to devnull so that the interpreter's final flush does not raise again
        # (https://docs.python.org/3/library/signal.html#note-on-sigpipe)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, a shell's status for a command killed by a closed pipe
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"rulelearn {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

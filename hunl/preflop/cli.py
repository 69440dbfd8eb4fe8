"""``pushfold``: print the exact push/fold chart at a stack, and the rule cards with what they cost.

Wiring: ``scripts/pushfold.py`` calls :func:`main`; a ``rulelearn pushfold`` subcommand needs only
``add_arguments(subparser)`` and ``run(args)``.

Example::

    python scripts/pushfold.py --stack 10
    python scripts/pushfold.py --stack 7.5 --ante 0.125 --rules beam
    python scripts/pushfold.py --stack 10 --thresholds          # also each hand's threshold over 1-25 bb
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

import numpy as np

from rulelearn.report.helptext import help_text

__all__ = ["add_arguments", "main", "run"]

RULE_SOURCES = ("stored", "beam", "mip")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the ``pushfold`` options to ``parser`` (returned for chaining).

    The options: ``--stack`` (required; effective stack in big blinds, before posting), ``--ante`` and
    ``--small-blind`` (big blinds), ``--method`` (``lp`` or ``dcfr``), ``--hands`` (``classes`` or
    ``combos``), ``--rules`` (one of ``RULE_SOURCES``: ``stored``, ``beam``, ``mip``), ``--max-rules``,
    ``--thresholds`` and ``--json``; :func:`run` reads them from the parsed namespace.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser (or subcommand parser) to add them to; changed in place.

    Returns
    -------
    argparse.ArgumentParser
        ``parser`` itself.

    Raises
    ------
    argparse.ArgumentError
        If ``parser`` already has one of these options.
    """
    parser.add_argument("--stack", type=float, required=True, help="effective stack in big blinds, before posting")
    parser.add_argument("--ante", type=float, default=0.0, help="ante per player in big blinds (default 0)")
    parser.add_argument("--small-blind", type=float, default=0.5, help="small blind in big blinds (default 0.5)")
    parser.add_argument("--method", choices=("lp", "dcfr"), default="lp",
                        help="exact solver: sequence-form LP (default) or DCFR to 0.01 mbb/g")
    parser.add_argument("--hands", choices=("classes", "combos"), default="classes",
                        help="solve the exact 169-class reduction (default) or the 1,326-combo game")
    parser.add_argument("--rules", choices=RULE_SOURCES, default="stored",
                        help="rule cards: the shipped cards of the stack's band (default; no ante only), or fit "
                             "a card at this stack by beam search or by the exact MIP")
    parser.add_argument("--max-rules", type=int, default=5, help="clauses per fitted card (default 5)")
    parser.add_argument("--thresholds", action="store_true",
                        help="also print each hand's threshold stack over 1-25 bb (241 LPs, about 15 s)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


def _range_text(probs) -> str:
    from hunl.poker.cards import HAND_CLASS
    from hunl.poker.ranges import format_range

    return format_range(np.asarray(probs)[HAND_CLASS], precision=2) or "-"


def _share(probs) -> float:
    from hunl.poker.cards import CLASS_SIZES

    return float((np.asarray(probs) * CLASS_SIZES).sum() / CLASS_SIZES.sum())


def _cards(args, sweep) -> list[dict]:
    """The rule card of each player for this stack, with its cost here (and over its band if stored)."""
    from hunl.preflop.cardfile import card_for_stack
    from hunl.preflop.rules import fit_rule_card, strategy_cost

    out = []
    for player in (0, 1):
        stored = card_for_stack(args.stack, player, args.ante, args.small_blind) if args.rules == "stored" else None
        if stored is not None:
            card, source = stored.card, (f"shipped card for {stored.card.band[0]:g}-{stored.card.band[1]:g} bb: "
                                         f"mean {stored.mean_mbb:.2f} mbb/g, max {stored.max_mbb:.2f} over the band")
        else:
            method = "mip" if args.rules == "stored" else args.rules
            fit = fit_rule_card(sweep, player, (args.stack, args.stack), args.max_rules, rows=[0], method=method,
                                time_limit=30.0)
            card, source = fit.card, f"fitted at this stack ({method}{'' if fit.gap_mbb is None else ', ' + fit.status})"
        cost = strategy_cost(sweep, player, card.strategy(), [0])
        out.append({"player": ("SB", "BB")[player], "rules": card.lines(), "range": card.range_text(),
                    "cost_mbb": cost.mean_mbb, "source": source})
    return out


@contextlib.contextmanager
def _stdout_to_stderr():
    """Send what compiled libraries write to file descriptor 1 (HiGHS prints a banner on its first use) to
    stderr, so that stdout holds only this command's output (``--json`` stays parseable)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:                      # no real file descriptor (e.g. captured in tests): nothing to do
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def run(args) -> int:
    """Solve, then print the charts, ranges, rule cards and costs (or JSON). Returns the exit status.

    Solves the push/fold game at ``args.stack`` and prints to stdout: the SB's value (big blinds per hand),
    the exploitability (mbb/g), the push and call charts and ranges, each player's rule card (the shipped card
    of the stack's band, or one fitted at this stack) with its cost in mbb/g, the cost of the rounded exact
    chart and of the Sklansky-Chubukov push chart (mbb/g), and with ``args.thresholds`` each hand's threshold
    stack over 1-25 bb; with ``args.json`` one JSON object instead. What compiled solvers print while solving
    goes to stderr.

    Parameters
    ----------
    args : argparse.Namespace
        The options of :func:`add_arguments`, parsed (``stack``, ``ante``, ``small_blind``, ``method``,
        ``hands``, ``rules``, ``max_rules``, ``thresholds``, ``json``).

    Returns
    -------
    int
        0 on success; 2 if the stack, ante, small blind, method, hands or ``max_rules`` is invalid (the error
        is printed to stderr as ``error: ...``).
    """
    with _stdout_to_stderr():
        out = _compute(args)
    if isinstance(out, int):
        return out
    _print(args, *out)
    return 0


def _compute(args):
    """Everything the output needs, or an exit status on bad input."""
    from hunl.preflop.rules import strategy_cost
    from hunl.preflop.sklansky import sklansky_chubukov
    from hunl.preflop.solve import StackSweep, solve_pushfold, solve_stacks

    try:
        if isinstance(args.max_rules, bool) or args.max_rules < 1:
            raise ValueError(f"max-rules must be a positive integer, got {args.max_rules!r}")
        sol = solve_pushfold(args.stack, args.ante, method=args.method, hands=args.hands,
                             small_blind=args.small_blind)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # costs are measured against the exact class-game LP at this stack; the charts show the requested solution
    # (its class strategies: a combo solution is averaged over each class)
    sweep = solve_stacks([args.stack], args.ante, args.small_blind)
    push, call = (sol.push, sol.call) if sol.hands == "classes" else (sol.grid(0).ravel(), sol.grid(1).ravel())
    shown = StackSweep(sweep.stacks, sweep.ante, sweep.small_blind, push[None], call[None], sweep.value,
                       sweep.exploitability, sol.seconds)
    cards = _cards(args, sweep)
    sc = sklansky_chubukov(args.ante, args.small_blind)
    sc_cost = strategy_cost(sweep, 0, (sc >= args.stack - 1e-9).astype(float), [0]).mean_mbb
    rounded = [strategy_cost(sweep, p, ((push, call)[p] >= 0.5).astype(float), [0]).mean_mbb for p in (0, 1)]
    tol = _tolerance(sol)
    mixed = {who: {lab: round(float(p), 4) for lab, p in zip(_labels(), probs) if tol < p < 1 - tol}
             for who, probs in (("SB", push), ("BB", call))}
    return sol, push, call, shown, cards, sc_cost, rounded, mixed


def _print(args, sol, push, call, shown, cards, sc_cost, rounded, mixed) -> None:
    from hunl.preflop.charts import format_chart, format_threshold_chart
    from hunl.preflop.solve import solve_stacks

    if args.json:
        print(json.dumps({
            "stack": sol.stack, "ante": sol.ante, "small_blind": sol.small_blind, "method": sol.method,
            "hands": sol.hands, "value_bb": sol.value, "value_bounds_bb": list(sol.value_bounds),
            "exploitability_mbb": sol.exploitability_mbb, "seconds": sol.seconds,
            "compile_seconds": sol.compile_seconds,
            "push_share": _share(push), "call_share": _share(call),
            "push_range": _range_text(push), "call_range": _range_text(call), "mixed": mixed,
            "rule_cards": cards, "rounded_chart_cost_mbb": rounded, "sklansky_chubukov_cost_mbb": sc_cost,
        }))
        return
    print(f"Heads-up push/fold, {sol.stack:g} bb effective, blinds {sol.small_blind:g}/1 bb, ante {sol.ante:g} bb: "
          f"{'exact equilibrium by sequence-form LP' if sol.method == 'lp' else 'equilibrium by DCFR to 0.01 mbb/g'}"
          " over the "
          f"{'169 hand classes' if sol.hands == 'classes' else '1,326 combos'}")
    print(f"SB value {sol.value:+.6f} bb/hand; exploitability {sol.exploitability_mbb:.2g} mbb/g; "
          f"{sol.seconds:.2f} s\n")
    for p, who in ((0, "SB pushes"), (1, "BB calls")):
        probs = (push, call)[p]
        print(f"{who} {100 * _share(probs):.1f}% of hands (## always, digits: % of a mixed hand"
              f"{'' if sol.method == 'lp' else ', within 0.5%'}):")
        print(format_chart(shown, args.stack, p, tol=_tolerance(sol)))
        print(f"range: {_range_text(probs)}\n")
    for card in cards:
        print(f"Rule card, {card['player']} ({card['source']}):")
        for line in card["rules"]:
            print(f"  {line}")
        print(f"  = {card['range']}")
        print(f"  cost here: {card['cost_mbb']:.2f} mbb/g (the {card['player']}'s loss against a best response, "
              f"relative to the game value; the exact chart with its mixed hands rounded: "
              f"{rounded[0 if card['player'] == 'SB' else 1]:.3f} mbb/g)\n")
    print(f"Sklansky-Chubukov push chart (push iff the hand's SC number >= {args.stack:g} bb): "
          f"{sc_cost:.2f} mbb/g for the SB here")
    if args.thresholds:
        with _stdout_to_stderr():
            full = solve_stacks(None, args.ante, args.small_blind, progress=True)
        for p, who in ((0, "SB push"), (1, "BB call")):
            print(f"\n{who} thresholds: the largest stack (bb) at which each hand is played")
            print(format_threshold_chart(full, p))


def _tolerance(sol) -> float:
    """Probabilities this close to 0 or 1 count as pure: 1e-6 for the LP, 0.5% for DCFR's approximation."""
    return 1e-6 if sol.method == "lp" else 0.005


def _labels():
    from hunl.poker.cards import HAND_CLASS_LABELS

    return HAND_CLASS_LABELS


def main(argv=None) -> int:
    """Command-line entry point.

    Parameters
    ----------
    argv : list of str, optional
        The command-line arguments (without the program name); default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status of :func:`run`: 0 on success, 2 on an invalid stack, ante, small blind or
        ``--max-rules``.

    Raises
    ------
    SystemExit
        From :mod:`argparse`: status 2 on unknown or malformed options (``--stack`` missing), 0 after
        ``--help``.
    """
    parser = argparse.ArgumentParser(prog="pushfold", description=help_text(__doc__.split("\n\n")[0]))
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

"""The bet game's fundamental rules: the paper's 80-20 and all-in rules tested, and rules found automatically.

:func:`run_fundamental_study` is ``scripts/fundamental_rules.py``. It splits a database 80/20 (seed 0); trees and
searches (:mod:`rulelearn.rules.fundamental`) are fitted on the training games' decisions, and every number
(coverage, agreement, mass and player 1's exploitability: :func:`rulelearn.rules.statistics.family_rule_statistics`)
is measured on the test games. It writes

* ``docs/figures/rules_by_share_beaten.png``: what the equilibrium does against the share of the opponent's
  range the hand beats, with the paper's 80-20 band and the rules found;
* ``<out>/paper_rules.csv``, ``<out>/found_rules.csv``, ``<out>/by_share_beaten.csv``;
* the blocks ``fundamental-setup``, ``paper-rules`` and ``found-rules`` of ``docs/RULES.md``.

The rules as the paper states them (:func:`paper_rules`), with the bet game's sizes (bets of 0.1 and 2.5 chips and
more), belong to this game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rulelearn.data.database import SolutionDatabase
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.report.docblocks import markdown_table, write_blocks
from rulelearn.rules import fundamental as F
from rulelearn.rules.conditions import Condition
from rulelearn.rules.statistics import RuleStatistics, family_rule_statistics

__all__ = ["FundamentalJob", "by_share_beaten", "paper_rules", "run_fundamental_study"]


@dataclass(frozen=True)
class FundamentalJob:
    """What ``scripts/fundamental_rules.py`` runs (its options; see the script's ``--help``)."""

    db: str = "data/db20k"
    games: int = 20_000
    seed: int = 0
    min_leaf: float = 0.01
    min_agreement: float = 0.8
    out: str = "data/rules"
    figure: str = "docs/figures/rules_by_share_beaten.png"
    doc: str | None = "docs/RULES.md"


def paper_rules(dec: F.HandDecisions, family) -> list[F.FundamentalRule]:
    """The two rules of Ganzfried & Yusuf (2017, Games 8(4), Section 4) as stated, and readings of them
    (conditions on the features of :func:`rulelearn.rules.fundamental.hand_decisions`).

    Parameters
    ----------
    dec : rulelearn.rules.fundamental.HandDecisions
        Player 1's decisions; its features must include :data:`rulelearn.rules.fundamental.BEATS` (the share
        of player 2's range the hand beats), ``"P(P2 holds <= 6)"`` and player 1's own cdf
        (:attr:`~rulelearn.rules.fundamental.HandDecisions.own_cdf`).
    family : GameFamily
        Read are ``action_labels`` and ``action_values`` (bet sizes in chips, pot = 1; 0 for the check): the
        check is the action of value 0, the smallest bet the first positive one, the all-in the largest, and
        the "big" bets those of at least 2.5 chips.

    Returns
    -------
    list of rulelearn.rules.fundamental.FundamentalRule
        Seven rules: the 80-20 rule (share beaten in ``(20%, 80%]``: check) as stated (the smallest bet
        agrees), with the check only, and on the own cdf (the paper's Figure 5 tree variable); the all-in rule
        (share beaten above 95% and ``P(P2 holds <= 6) <= 90%``: all-in) as stated, without its second
        condition, with every bet of at least 2.5 agreeing, and on the paper's tree variables (own cdf above
        0.9035, ``P(P2 holds <= 6) <= 0.9154``).

    Raises
    ------
    ValueError
        If ``dec`` lacks one of the features.
    IndexError
        If ``action_values`` has no action of value 0 or no positive one.
    """
    labels = family.action_labels
    values = np.asarray(family.action_values)
    check = int(np.flatnonzero(values == 0)[0])
    smallest = int(np.flatnonzero(values > 0)[0])
    allin = int(np.argmax(values))
    big = tuple(int(a) for a in np.flatnonzero(values >= 2.5))
    beats, own = dec.feature(F.BEATS), dec.feature(dec.own_cdf)
    p6 = dec.feature("P(P2 holds <= 6)")
    band = Condition(beats, F.BEATS, 0.2, 0.8)
    src = "Ganzfried & Yusuf 2017, Section 4"
    small_text = f"check (or {labels[smallest]})"
    strong = Condition(p6, "P(P2 holds <= 6)", None, 0.9)
    return [
        F.FundamentalRule("80-20 rule, as stated", (band,), F.RuleAction(check, (check, smallest), small_text), src),
        F.FundamentalRule("80-20 rule, check only", (band,), F.RuleAction(check, (check,), "check"), src),
        F.FundamentalRule("80-20 rule on the paper's tree variable (own cdf)",
                          (Condition(own, dec.own_cdf, 0.2, 0.8),),
                          F.RuleAction(check, (check, smallest), small_text), "Figure 5 tree's x[20]"),
        F.FundamentalRule("all-in rule, as stated", (Condition(beats, F.BEATS, 0.95, None), strong),
                          F.RuleAction(allin, (allin,), f"{labels[allin]} (all-in)"), src),
        F.FundamentalRule("all-in rule without its second condition", (Condition(beats, F.BEATS, 0.95, None),),
                          F.RuleAction(allin, (allin,), f"{labels[allin]} (all-in)"), src),
        F.FundamentalRule("all-in rule, agreeing with any bet >= 2.5",
                          (Condition(beats, F.BEATS, 0.95, None), strong),
                          F.RuleAction(allin, big, f"{labels[allin]} (all-in); bets >= 2.5 agree"), src),
        F.FundamentalRule("all-in rule on the paper's tree variables",
                          (Condition(own, dec.own_cdf, 0.9035, None),
                           Condition(p6, "P(P2 holds <= 6)", None, 0.9154)),
                          F.RuleAction(allin, (allin,), f"{labels[allin]} (all-in)"), "Figure 5 tree's x[20], x[15]"),
    ]


def by_share_beaten(dec: F.HandDecisions, family, n_bins: int = 10) -> pd.DataFrame:
    """What the equilibrium does, by bins of the share of the opponent's range the hand beats (one row a bin).

    Bin ``b`` holds the decisions whose share beaten (the feature :data:`rulelearn.rules.fundamental.BEATS`)
    is in ``[b / n_bins, (b + 1) / n_bins)``, the last bin including 1. A *majority* is a decision with at
    least 50% on the action(s).

    Parameters
    ----------
    dec : HandDecisions
        Player 1's decisions, one per (game, hand) (:func:`rulelearn.rules.fundamental.hand_decisions`).
    family : GameFamily
        Read is ``action_values``: bet sizes in chips (pot = 1), 0 for the check. The "small" bet is a bet of
        at most 0.1 chips, the all-in the largest size (the bet game's grid).
    n_bins : int, default 10
        Number of equal-width bins over ``[0, 1]``; not checked (``n_bins >= 1``).

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin, ascending: ``share beaten`` (the bin as text, e.g. ``"20%-30%"``),
        ``decisions`` (count), ``p_check`` and ``check_majority`` (mean probability of checking, share of
        check majorities), ``p_check_or_small`` and ``check_or_small_majority`` (the same for checking or
        betting at most 0.1), ``p_allin`` and ``allin_majority`` (for the all-in), and ``mean_bet`` (the
        equilibrium's mean bet size, checks counting 0, chips).

    Raises
    ------
    ValueError
        If ``dec`` has no feature :data:`~rulelearn.rules.fundamental.BEATS`.
    """
    values = np.asarray(family.action_values)
    eq = dec.equilibrium_rows
    x = dec.X[:, dec.feature(F.BEATS)]
    bins = np.minimum((x * n_bins).astype(int), n_bins - 1)
    small = eq[:, values <= 0.1 + 1e-12].sum(axis=1)
    df = pd.DataFrame({"bin": bins, "check": eq[:, values == 0].sum(axis=1), "small": small,
                       "allin": eq[:, np.argmax(values)], "bet": eq @ values})
    out = df.groupby("bin").agg(decisions=("check", "size"), p_check=("check", "mean"),
                                check_majority=("check", lambda s: np.mean(s >= 0.5)),
                                p_check_or_small=("small", "mean"),
                                check_or_small_majority=("small", lambda s: np.mean(s >= 0.5)),
                                p_allin=("allin", "mean"), allin_majority=("allin", lambda s: np.mean(s >= 0.5)),
                                mean_bet=("bet", "mean")).reset_index()
    out.insert(0, "share beaten", [f"{b / n_bins:.0%}-{(b + 1) / n_bins:.0%}" for b in out["bin"]])
    return out.drop(columns="bin")


def plot_by_share_beaten(dec: F.HandDecisions, family, found: dict, path: Path) -> None:
    """The equilibrium's play against the share beaten, with the paper's bands and the ``found`` intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values = np.asarray(family.action_values)
    eq = dec.equilibrium_rows
    x = dec.X[:, dec.feature(F.BEATS)]
    edges = np.linspace(0, 1, 41)
    idx = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, 39)
    centre = (edges[:-1] + edges[1:]) / 2
    series = {"check": eq[:, values == 0].sum(1), "check or bet 0.1": eq[:, values <= 0.1 + 1e-12].sum(1),
              f"all-in (bet {values.max():g})": eq[:, np.argmax(values)],
              "bet >= 2.5": eq[:, values >= 2.5].sum(1)}
    fig, ax = plt.subplots(figsize=(11, 4.8))
    ax.axvspan(0.2, 0.8, color="tab:orange", alpha=0.12, label="80-20 rule: check")
    ax.axvspan(0.95, 1.0, color="tab:red", alpha=0.12, label="all-in rule (first condition)")
    count = np.bincount(idx, minlength=40)
    for name, v in series.items():
        mean = np.bincount(idx, weights=v, minlength=40) / np.maximum(count, 1)
        ax.plot(centre[count > 0], mean[count > 0], marker=".", label=f"equilibrium P({name})")
    for k, (label, (lo, hi)) in enumerate(found.items()):
        ax.plot([lo, hi], [1.04 + 0.04 * k] * 2, lw=4, label=label, solid_capstyle="butt")
    ax.set_xlabel("share of the opponent's range the hand beats, P(P2 holds < card)")
    ax.set_ylabel("mean equilibrium probability")
    ax.set_ylim(0, 1.06 + 0.04 * len(found))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_title("What equilibrium play does, by the share of the opponent's range beaten")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


FORMATS = {"coverage": ".1%", "agreement": ".1%", "mass": ".1%", "exploitability": ".4f",
           "exploitability_touched": ".4f", "games_touched": ".1%"}
COLUMNS = ["text", "coverage", "agreement", "mass", "exploitability", "exploitability_touched", "games_touched"]


def stats_table(stats: list[RuleStatistics], first: str = "rule") -> pd.DataFrame:
    """One row per rule; the cost is player 1's exploitability (chips), hence the column names."""
    df = pd.DataFrame([s.as_row() for s in stats])
    df = df.rename(columns={"cost": "exploitability", "cost_touched": "exploitability_touched"})
    df = df[[first] + COLUMNS] if first != "text" else df[COLUMNS]
    return df


def md_table(df: pd.DataFrame, formats: dict[str, str]) -> str:
    """A markdown table whose formatted columns are right-aligned."""
    return markdown_table(df, formats, right=formats)


def run_fundamental_study(job: FundamentalJob) -> int:
    """Test the paper's rules and find rules on a bet-game database; write the tables, figure and doc blocks.

    Loads the games with id below ``job.games`` of ``job.db`` (verified ones only) and splits them 80/20 (seed
    ``job.seed``). The paper's rules (:func:`paper_rules`, Ganzfried & Yusuf 2017, *Games* 8(4), Section 4)
    and the rules found on the training decisions (a one-feature tree of depth 4 on the share beaten with
    merged intervals, a tree of depth 3 on both ranges' cdfs and the share beaten, and interval searches for a
    check band and an all-in threshold at agreements ``job.min_agreement`` and 90%) are measured on the test
    games (:func:`rulelearn.rules.statistics.family_rule_statistics`). Writes ``<out>/paper_rules.csv``,
    ``<out>/by_share_beaten.csv`` (:func:`by_share_beaten` on the test decisions), ``<out>/found_rules.csv``
    and the figure ``job.figure``; prints the tables; with ``job.doc``, writes the blocks
    ``fundamental-setup``, ``paper-rules`` and ``found-rules`` of that doc.

    Parameters
    ----------
    job : FundamentalJob
        ``db`` and ``games`` (the database and how many of its games), ``seed`` (the split), ``min_leaf``
        (least share of the training decisions in a tree leaf, a fraction), ``min_agreement`` (a fraction),
        ``out``, ``figure`` and ``doc`` (``None``: no doc).

    Returns
    -------
    int
        Exit status, always 0 (errors raise).

    Raises
    ------
    FileNotFoundError
        If ``job.db`` holds no solution database.
    CorruptManifestError, CorruptShardError
        If its manifest or a shard read is damaged (both are ``ValueError``).
    ValueError
        If the decisions lack a feature the paper's rules name (``"P(P2 holds <= 6)"``: not a bet-game
        database).
    IndexError
        If the family's actions have no check (size 0) or no bet (size above 0).
    """
    args = job
    t0 = time.perf_counter()
    db = SolutionDatabase(args.db)
    games = SolvedGames(db.family(), db.load(n_games=args.games))
    family = games.family
    n = len(games)
    split = split_games(n, 0.2, args.seed)
    dec = F.hand_decisions(games.ranges, games.strategies, games.hand_labels, games.player_names,
                           games.hand_noun)
    d = dec.strategies.shape[1]
    train_rows = (split.train[:, None] * d + np.arange(d)).ravel()
    test_games = games.subset(split.test)
    test = F.hand_decisions(test_games.ranges, test_games.strategies, games.hand_labels, games.player_names,
                            games.hand_noun)
    labels, values = family.action_labels, family.action_values

    def measure(rules):
        return [family_rule_statistics(r, test, family, test_games.columns) for r in rules]

    # the paper's rules
    paper = measure(paper_rules(test, family))
    paper_df = stats_table(paper)
    # what equilibrium play does by share beaten (test games)
    bins = by_share_beaten(test, family)
    # rules found: a one-feature tree (merged intervals), a tree on all range features, and searches
    cdf_names = [nm for nm in dec.feature_names if nm.startswith("P(") and nm != dec.own_cdf]
    min_leaf = max(1, int(args.min_leaf * train_rows.size))  # no leaves of a handful of decisions
    one = F.merge_interval_rules(F.tree_rules(dec, train_rows, [F.BEATS], 4, values, labels, min_leaf))
    full = F.tree_rules(dec, train_rows, cdf_names + [F.BEATS], 3, values, labels, min_leaf)
    vals = np.asarray(values)
    check, smallest, allin = 0, int(np.flatnonzero(vals > 0)[0]), int(np.argmax(vals))
    searched = []
    for thr in (args.min_agreement, 0.9):
        r = F.best_interval_rule(dec, train_rows, F.BEATS,
                                 F.RuleAction(check, (check, smallest), f"check (or {labels[smallest]})"), thr,
                                 name=f"check band, agreement >= {thr:.0%}")
        if r is not None:
            searched.append(r)
        r = F.best_interval_rule(dec, train_rows, F.BEATS,
                                 F.RuleAction(allin, (allin,), f"{labels[allin]} (all-in)"), thr, upper_open=True,
                                 name=f"all-in threshold, agreement >= {thr:.0%}")
        if r is not None:
            searched.append(r)
    one_stats = sorted(measure(one), key=lambda s: -s.coverage)
    full_stats = sorted(measure(full), key=lambda s: -s.coverage)
    searched_stats = measure(searched)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paper_df.to_csv(out / "paper_rules.csv", index=False)
    bins.to_csv(out / "by_share_beaten.csv", index=False)
    found_df = pd.concat([stats_table(s, "source").assign(method=m) for m, s in
                          (("one-feature tree, depth 4", one_stats), ("tree on ranges + share beaten, depth 3",
                                                                     full_stats), ("search", searched_stats))])
    found_df.to_csv(out / "found_rules.csv", index=False)

    def interval(rule):
        c = rule.conditions[0]
        return (0.0 if c.lower is None else c.lower, 1.0 if c.upper is None else c.upper)

    found_bands = {}
    check_rules = [s.rule for s in one_stats if s.rule.action.play == check]
    if check_rules:
        widest = max(check_rules, key=lambda r: np.diff(interval(r))[0])
        found_bands["found by the one-feature tree: check"] = interval(widest)
    for r in searched:
        found_bands["found by search: " + r.name] = interval(r)
    plot_by_share_beaten(test, family, found_bands, Path(args.figure))

    pd.set_option("display.width", 250)
    pd.set_option("display.max_colwidth", 110)
    print(paper_df.round(4).to_string())
    print(bins.round(3).to_string())
    print(found_df.round(4).to_string())

    if args.doc:
        minutes = (time.perf_counter() - t0) / 60
        setup = (
            f"Database `{args.db}`: {n} games; trees and searches are fitted on the {split.train.size} training "
            f"games of one random 80/20 split (seed {args.seed}), every number below is measured on the "
            f"{split.test.size} test games ({split.test.size * d} decisions of player 1, one per game and card). "
            f"`python scripts/fundamental_rules.py --db {args.db}` ({minutes:.1f} min).\n\n"
            "* **coverage**: share of the (game, card) decisions the rule applies to;\n"
            "* **agreement**: share of those in which the equilibrium puts at least 50% on the actions the rule "
            "allows; **mass**: the equilibrium's mean probability of those actions there;\n"
            "* **exploitability**: player 1 plays the rule's action wherever it applies and the equilibrium "
            "elsewhere; his exploitability (game value minus best-response payoff, chips, pot = 1), mean over all "
            "test games (*touched*: over the games where the rule applies to at least one card; "
            "*games touched*: their share).\n\n"
            "\"Share of P2's range beaten\" is P(P2 holds a lower card) from player 2's range (card removal "
            "ignored, as in the paper); \"P(P1 holds <= card)\" is player 1's own cdf at his card, the variable "
            "x[20] the paper's Figure 5 tree actually splits on.\n\n"
            "What the equilibrium does, by the share of P2's range the card beats (test decisions; *majority*: "
            "share of decisions with at least 50% on the action):\n\n"
            + md_table(bins, {"decisions": "d", "p_check": ".3f", "check_majority": ".1%",
                              "p_check_or_small": ".3f", "check_or_small_majority": ".1%", "p_allin": ".3f",
                              "allin_majority": ".1%", "mean_bet": ".2f"})
            + "\n![Equilibrium play by share of the opponent's range beaten](figures/rules_by_share_beaten.png)\n")
        paper_block = md_table(paper_df, FORMATS)
        found_block = (
            f"Plain rules from tree leaves (leaves of at least {args.min_leaf:.0%} of the training decisions): a leaf "
            "whose strategy checks at least half the time says \"check\"; otherwise it plays the median bet size of "
            "its bets, and bets between the quartiles of its bet sizes count as agreeing.\n\n"
            "One-feature tree (depth 4 on the share beaten; neighbouring leaves with the same action merged), "
            "ranked by coverage:\n\n" + md_table(stats_table(one_stats, "text")[COLUMNS], FORMATS)
            + "\nTree on both ranges' cdfs and the share beaten (depth 3), ranked by coverage:\n\n"
            + md_table(stats_table(full_stats, "text")[COLUMNS], FORMATS)
            + "\nExhaustive search over intervals of the share beaten (bounds on a 1% grid, fitted on the training "
            "decisions): the interval with the largest coverage whose agreement reaches the threshold:\n\n"
            + md_table(stats_table(searched_stats)[["rule"] + COLUMNS], FORMATS))
        write_blocks(args.doc, {"fundamental-setup": setup, "paper-rules": paper_block, "found-rules": found_block})
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0

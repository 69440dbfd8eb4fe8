"""Write ``docs/PREFLOP.md`` and its figures from scratch (``python scripts/preflop_report.py``).

Everything in the document is computed here: the equity checks, LP against DCFR, the charts and thresholds
against the published HoldemResources.net (HRC) charts, the rule cards with their costs (also written to
``hunl/preflop/data/rule_cards.json`` for the ``pushfold`` command), the baselines and the figures. The speed
section between the markers ``<!-- bench_preflop:start -->`` and ``<!-- bench_preflop:end -->`` belongs to
``benchmarks/bench_preflop.py`` and is carried over unchanged.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from hunl.poker.cards import HAND_CLASS_LABELS
from hunl.preflop.cardfile import CARDS_PATH, save_rule_cards
from hunl.preflop.charts import (
    format_chart,
    format_threshold_chart,
    hand_thresholds,
    plot_chart,
    plot_threshold_grid,
    plot_thresholds,
)
from hunl.preflop.equity import load_equity_table
from hunl.preflop.published import HRC_CALL, HRC_PUSH, HRC_SOURCE
from hunl.preflop.rules import DEFAULT_BANDS, band_reports
from hunl.preflop.sklansky import sklansky_chubukov
from hunl.preflop.solve import solve_pushfold, solve_stacks

__all__ = ["BENCH_END", "BENCH_START", "write_report"]

ROOT = Path(__file__).resolve().parents[2]
BENCH_START = "<!-- bench_preflop:start -->"
BENCH_END = "<!-- bench_preflop:end -->"
def _hrc_compare(sweep, player: int, published) -> tuple[int, int, list[str]]:
    """(cells, agreeing cells, notes on the others): a number agrees when it is our threshold; "20+" when ours
    is at least 20; "*" when ours has a gap."""
    th = hand_thresholds(sweep, player)
    agree, notes = 0, []
    for h, cell in enumerate(published):
        t = th[h]
        if cell == "20+":
            ok = t.threshold is not None and t.threshold >= 20.0
        elif cell == "*":
            ok = t.gap
        else:
            ok = t.threshold == float(cell)
        if ok:
            agree += 1
        else:
            probs = (sweep.push if player == 0 else sweep.call)[:, h]
            near = [f"{s:g} bb: {100 * probs[sweep.index(s)]:.0f}%" for s in t.mixed if abs(s - float(cell)) < 0.45]
            notes.append(f"{t.label} ({('push', 'call')[player]}): HRC {cell}, exact {t.threshold:g} "
                         f"({'; '.join(near) or 'pure'})")
    return len(published), agree, notes


def _solver_table(stacks=(2.0, 5.0, 10.0, 15.0, 20.0, 25.0)) -> list[str]:
    rows = [("| stack (bb) | LP value (bb) | LP bounds width (bb) | LP s | DCFR iterations | DCFR exploitability "
            "(mbb/g) | DCFR value - LP value (bb) | DCFR s |"), "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in stacks:
        lp = solve_pushfold(s)
        cfr = solve_pushfold(s, method="dcfr", target_mbb=0.01)
        rows.append(f"| {s:g} | {lp.value:+.12f} | {max(0.0, lp.value_bounds[1] - lp.value_bounds[0]):.1e} | "
                    f"{lp.seconds:.3f} | {cfr.iterations} | {cfr.exploitability_mbb:.4f} | "
                    f"{cfr.value - lp.value:+.1e} | {cfr.seconds:.3f} |")
    return rows


def _combo_check(stack: float = 10.0) -> str:
    from games.core import exploitability, solve_lp
    from hunl.preflop.game import PushFoldGame

    t0 = time.perf_counter()
    g = PushFoldGame(stack, hands="combos")
    lp = solve_lp(g)
    ex = exploitability(g, lp.policy)
    cls = solve_pushfold(stack)
    lifted = exploitability(g, g.policy(cls.push, cls.call))
    return (f"At {stack:g} bb the LP of the full 1,326-combo game ({lp.num_sequences[0]:,} + "
            f"{lp.num_sequences[1]:,} sequences, {time.perf_counter() - t0:.1f} s) has policy value "
            f"{ex.policy_values[0]:+.12f} bb and exploitability {ex.exploitability_mbb:.1e} mbb/g; the class "
            f"game's value is {cls.value:+.12f} bb (difference {abs(ex.policy_values[0] - cls.value):.1e}), and "
            f"the class equilibrium played combo by combo has exploitability {lifted.exploitability_mbb:.1e} mbb/g "
            f"in the combo game. (HiGHS's own objective for the combo LP is {lp.value:+.12f}: off by "
            f"{abs(lp.value - ex.policy_values[0]):.0e} bb, its feasibility tolerance, which is why values here "
            "are certified by best responses.)")


def _cost_plot(sweep, reports, sc, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for p, ax in enumerate(axes):
        for rep in reports:
            s = rep.card_costs[p].stacks
            ax.plot(s, np.maximum(rep.card_costs[p].loss * 1000, 1e-4), color="C0",
                    label="rule card (5 clauses)" if rep is reports[0] else None)
            if rep.tree_costs is not None:
                ax.plot(s, np.maximum(rep.tree_costs[p].loss * 1000, 1e-4), color="C2", lw=0.8,
                        label="tree, 5 leaves" if rep is reports[0] else None)
            ax.plot(s, np.maximum(rep.chart_costs[p].loss * 1000, 1e-4), color="k", lw=0.8,
                    label="exact chart read by thresholds" if rep is reports[0] else None)
            if p == 0:
                ax.plot(s, np.maximum(rep.sklansky_cost.loss * 1000, 1e-4), color="C3", lw=0.8,
                        label="Sklansky-Chubukov numbers" if rep is reports[0] else None)
            ax.axvline(rep.band[0], color="0.85", lw=0.5)
        ax.set_yscale("log")
        ax.set_xlabel("effective stack (bb)")
        ax.set_title(("SB push strategies", "BB call strategies")[p], fontsize=10)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("loss against a best response (mbb/g)")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def _figures(sweep, out: Path) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10.5, 5.2))
    plot_chart(sweep, 10.0, 0, ax=axes[0])
    plot_chart(sweep, 10.0, 1, ax=axes[1])
    fig.tight_layout()
    fig.savefig(out / "preflop_chart_10bb.png", dpi=130)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(13, 6))
    plot_threshold_grid(sweep, 0, ax=axes[0])
    plot_threshold_grid(sweep, 1, ax=axes[1])
    fig.tight_layout()
    fig.savefig(out / "preflop_thresholds.png", dpi=130)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(11, 10))
    plot_thresholds(sweep, 0, ax=axes[0])
    plot_thresholds(sweep, 1, ax=axes[1])
    fig.tight_layout()
    fig.savefig(out / "preflop_by_stack.png", dpi=130)
    plt.close(fig)


_SV = (("22", 24.2), ("33", 33.1), ("44", 41.3), ("55", 50.0), ("66", 58.1))


def _rel(sc, hand: str, published: float) -> str:
    v = float(sc[HAND_CLASS_LABELS.index(hand)])
    return f"{v:.1f} ({100 * (v / published - 1):+.1f}%)"


def _fmt_gap(fit) -> str:
    if fit.method != "mip":
        return "beam"
    return "optimal" if fit.status == "Optimal" else f"gap {fit.gap_mbb:.2f}"


def write_report(doc: Path | None = None, figures: Path | None = None, cards_path: Path = CARDS_PATH,
                 time_limit: float = 60.0, progress: bool = True, bands=DEFAULT_BANDS) -> Path:
    """Compute everything and write the document, the figures and the rule-card file.

    Parameters
    ----------
    doc : pathlib.Path, default ``docs/PREFLOP.md`` of the repository
    figures : pathlib.Path, default ``docs/figures``
    cards_path : pathlib.Path, default the packaged ``rule_cards.json``
    time_limit : float, default 60
        Seconds per rule-card MILP.
    progress : bool, default True
    bands : sequence of (float, float), default :data:`hunl.preflop.rules.DEFAULT_BANDS`

    Returns
    -------
    pathlib.Path
        The document written.
    """
    import matplotlib

    matplotlib.use("Agg")
    t_start = time.perf_counter()
    doc = ROOT / "docs" / "PREFLOP.md" if doc is None else Path(doc)
    figures = ROOT / "docs" / "figures" if figures is None else Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    bench = ""
    if doc.exists():
        old = doc.read_text()
        if BENCH_START in old and BENCH_END in old:
            bench = old[old.index(BENCH_START): old.index(BENCH_END) + len(BENCH_END)]
    if not bench:
        bench = f"{BENCH_START}\n_Run `python benchmarks/bench_preflop.py` to fill in this section._\n{BENCH_END}"

    eq = load_equity_table()
    sweep = solve_stacks(progress=progress)
    reports = band_reports(sweep, bands=bands, progress=progress, time_limit=time_limit)
    save_rule_cards(reports, sweep.ante, sweep.small_blind, cards_path)
    sc = sklansky_chubukov()
    _figures(sweep, figures)
    _cost_plot(sweep, reports, sc, figures / "preflop_rule_costs.png")
    n_push, ok_push, notes_push = _hrc_compare(sweep, 0, HRC_PUSH)
    n_call, ok_call, notes_call = _hrc_compare(sweep, 1, HRC_CALL)

    L = HAND_CLASS_LABELS
    w, t = eq.win_tie("72s", "AKo")
    lines = [
        "# Preflop: heads-up push/fold, solved exactly and distilled into rules",
        "",
        "_Generated by `python scripts/preflop_report.py` (hunl/preflop/report.py); do not edit by hand._",
        "",
        ("The small blind (SB) moves all-in or folds; the big blind (BB) calls or folds. This is the one preflop "
        "game that is solved exactly in practice, and the game behind the published Nash push/fold charts. "
        "`hunl.preflop` computes the exact all-in equities, solves the game with the solver core's "
        "sequence-form LP and DCFR, prints the 13x13 charts for 1-25 bb, and distils them into rule cards of "
        "at most five clauses per stack band whose cost is measured exactly, in mbb/g, by best response."),
        "",
        "```bash",
        ("python scripts/pushfold.py --stack 10             # the chart, ranges and rule cards at 10 bb (later: "
        "rulelearn pushfold)"),
        "python scripts/pushfold.py --stack 10 --thresholds   # plus every hand's threshold over 1-25 bb",
        "python scripts/build_preflop_equity.py            # rebuild the equity table (resumable)",
        "python scripts/preflop_report.py                  # regenerate this document, its figures and the cards",
        "```",
        "",
        ("Conventions (those of the published charts): stacks are effective stacks in big blinds *before* "
        "posting; SB 0.5 bb, BB 1 bb, no ante unless stated; payoffs in bb per hand; mbb/g = 1/1000 bb per "
        "hand. A hand is *played* at a stack when the equilibrium plays it at least half the time; its "
        "*threshold* is the largest stack at which it is played."),
        "",
        "## 1. Exact all-in equities",
        "",
        ("Every pair of disjoint hands is enumerated over all C(48, 5) = 1,712,304 boards. Renaming suits and "
        "swapping the two hands leave the result unchanged, so only **47,008** distinct matchups of the "
        "1,624,350 ordered pairs of disjoint combos are computed (`hunl/preflop/matchups.py`). The numba kernel "
        "(`hunl/preflop/boards.py`) uses that, without flushes, both hands' strengths depend only on the "
        "board's rank multiset: it credits each of the 6,188 multisets with its board count at once "
        "(`prod_r C(cards of rank r left, k_r)`) from a compact rank table (`hunl/preflop/ranktable.py`, the "
        "project evaluator's strengths re-indexed by hole ranks and an additive multiset index), then corrects "
        "only the boards with three or more cards of a suit on which a player makes a flush: 1,300 to 160,000 "
        "boards per matchup instead of 1.7 million. A second kernel enumerates every board incrementally (one "
        "addition per board card, two lookups per board); both agree exactly, and both agree with brute force "
        "by the project's 7-card evaluator (`tests/hunl/preflop/test_preflop_equity.py`). The table ships as "
        f"`hunl/preflop/data/equity.npz` ({(ROOT / 'hunl/preflop/data/equity.npz').stat().st_size / 1e6:.2f} "
        "MB: the 47,008 win/tie counts and the 169x169 class sums); build time in the speed section below."),
        "",
        "| matchup | exact equity | published | source |",
        "|---|---:|---:|---|",
        (f"| AA vs KK (suits unknown) | {100 * eq.equity('AA', 'KK'):.6f}% | 81.946031% | Kevin Gong, "
        "kevingong.com/Math/KKPreflop.html |"),
        (f"| AsAh vs KsKh / KsKd / KdKc | {100 * eq.equity('AsAh', 'KsKh'):.1f}% / "
        f"{100 * eq.equity('AsAh', 'KsKd'):.1f}% / {100 * eq.equity('AsAh', 'KdKc'):.1f}% | 82.6% / 81.9% / "
        "81.3% | same |"),
        f"| AKs vs QQ | {100 * eq.equity('AKs', 'QQ'):.2f}% | ~46% | the-felt-3eb.pages.dev, hand vs. hand odds |",
        f"| 72o vs AA | {100 * eq.equity('72o', 'AA'):.2f}% | ~12% (AA ~88%) | deadmanshands.net/matchup/aa-vs-72 |",
        (f"| 72s vs AKo: win / tie | {100 * w:.2f}% / {100 * t:.2f}% ({eq.class_wins[L.index('72s'), L.index('AKo')]:,}"
        " boards) | 36.14% / 0.49% (29,706,444) | cardfight.com/72s_AKo.html |"),
        "",
        ("Kevin Gong's eight-digit AA-KK figure is 2e-7 below ours; his rounded per-suit figures and the exact "
        "board counts of cardfight.com agree exactly."),
        "",
        "## 2. The game and its exact solution",
        "",
        ("`PushFoldGame(stack, ante=0, hands=\"classes\")` (`hunl/preflop/game.py`) implements the solver core's "
        "interface (`games.core.Game`) and passes `check_game`: a public tree with five terminals (SB folds: "
        "-(0.5 + ante); BB folds: +(1 + ante); after a call a chance node whose three outcomes -- SB wins, "
        "split, BB wins -- group the boards, with `deal[b][i, j]` the probability of the hands *and* that "
        "outcome from the equity table, and showdown stakes of the whole stack). So the core's sequence-form "
        "LP (HiGHS), DCFR and best response run on it unchanged."),
        "",
        "**The 169-class game is an exact reduction of the 1,326-combo game.** The game is invariant under the "
        "24 suit permutations and the classes are exactly the orbits of the combos, so averaging any "
        "equilibrium over the permutations gives an equilibrium that plays every combo of a class alike, and "
        "against a class strategy some best response is a class strategy. What makes the reduced game exact is "
        "its chance: the *joint* law of the two classes with card removal and the equity averaged over the "
        "compatible combo pairs (AA against AKs has 12 of the 6 x 4 combo pairs). The naive reduction -- "
        "independent class frequencies 6/1326, 4/1326, 12/1326 times a 169x169 equity -- is not exact. "
        + _combo_check(),
        "",
        ("LP and DCFR on the class game (values certified by best responses: the game value lies in "
        "[-BR_BB, BR_SB], whose width is NashConv):"),
        "",
        *_solver_table(),
        "",
        "## 3. Charts",
        "",
        (f"The class LP at each of the {sweep.stacks.size} stacks 1.0, 1.1, ..., 25.0 bb takes "
        f"{sweep.seconds:.0f} s in all. At 10 bb (`##`: always, digits: percentage of a mixed hand):"),
        "",
        "```",
        "SB pushes", format_chart(sweep, 10.0, 0), "", "BB calls", format_chart(sweep, 10.0, 1),
        "```",
        "",
        "![The push and call charts at 10 bb](figures/preflop_chart_10bb.png)",
        "",
        ("Thresholds: the largest stack (bb) at which each hand is played; `25+`: at every stack up to 25 bb, "
        "`*`: a gap (the stacks at which such hands are played follow the chart)."),
        "",
        "```",
        "SB push", format_threshold_chart(sweep, 0), "", "BB call", format_threshold_chart(sweep, 1),
        "```",
        "",
        "![Thresholds](figures/preflop_thresholds.png)",
        "",
        "![Push and call probability by hand and stack](figures/preflop_by_stack.png)",
        "",
        (f"**Against the published charts** ({HRC_SOURCE}): {ok_push} of the {n_push} pusher cells and {ok_call} "
        f"of the {n_call} caller cells available agree exactly (a number is our threshold to the 0.1 bb; "
        "\"20+\" means ours is at least 20; \"*\" means ours has a gap, as for 63s: pushed at 6.1-7.1 bb, "
        "5.1-5.2 and 5.7 bb and below 2.3 bb, which HRC summarises as \"between 7.1 and 5.1bb, and stacks "
        "below 2.3bb\"). The others are hands mixed near 50% at the disputed stack, where a chart's number flips "
        "with the solver's tolerance or version (HRC notes that its charts simplify the mixed strategies):"),
        "",
        *[f"* {n}" for n in notes_push + notes_call],
        "",
        ("The 10 bb push range is also exactly the heads-up 10 bb range of super-turbo-poker-tips.com/push-fold."
        "html (`22,A2,K2,Q7,Q2s,J8,J3s,T8,T4s,97,95s,87,84s,76,74s,64s,53s,43s`; their \"67%\" counts hand "
        "classes: by combos it is 58.3% of hands)."),
        "",
        "## 4. Rules and their cost",
        "",
        ("A rule card names at most five hand sets (`hunl/preflop/clauses.py`: pairs from a rank up; suited, "
        "offsuit or any unpaired hands with one high card and a kicker, a high card or better with a kicker, "
        "connectors and gappers, or a rank total) and plays their union at every stack of its band. Its **cost** "
        "is the player's loss against a best response, relative to the game value, averaged over the band's "
        "0.1 bb stacks (`hunl/preflop/rules.py`); the two cards played together have exploitability "
        "(NashConv/2) the mean of the two. Each card is the cheapest of its grammar, found by a MILP "
        "(`hunl/preflop/rule_mip.py`, HiGHS, started from a beam search; \"optimal\" = proven, else the "
        f"remaining gap at the {time_limit:g} s limit)."),
        "",
        ("| band (bb) | SB card mean / max (mbb/g) | BB card mean / max | both cards (NashConv/2) | exact chart "
        "by thresholds SB / BB | Sklansky-Chubukov SB | tree, 5 leaves SB / BB | search SB / BB |"),
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for rep in reports:
        c0, c1 = rep.card_costs
        tree = (f"{rep.tree_costs[0].mean_mbb:.2f} / {rep.tree_costs[1].mean_mbb:.2f}"
                if rep.tree_costs is not None else "-")
        lines.append(f"| {rep.band[0]:g}-{rep.band[1]:g} | {c0.mean_mbb:.2f} / {c0.max_mbb:.2f} | {c1.mean_mbb:.2f} "
                     f"/ {c1.max_mbb:.2f} | {rep.profile_exploitability_mbb:.2f} | {rep.chart_costs[0].mean_mbb:.3f} / "
                     f"{rep.chart_costs[1].mean_mbb:.3f} | {rep.sklansky_cost.mean_mbb:.1f} | {tree} | "
                     f"{_fmt_gap(rep.fits[0])} / {_fmt_gap(rep.fits[1])} |")
    lines += [
        "",
        ("Bands are `lo <= stack < hi` (the last includes 25). \"Exact chart by thresholds\" plays the exact "
        "0.1 bb chart the way its numbers are read (played iff the stack is at most the hand's threshold: "
        "mixed hands rounded, gaps ignored) -- the cost of the chart itself. The Sklansky-Chubukov strategy "
        "pushes the hands whose SC number is at least the stack. The tree is scikit-learn's CART on hand "
        "features and the stack, weighted by what each mistake costs, printed through "
        "`rulelearn.rules.conditions.extract_rules` (`hunl/preflop/tree_rules.py`)."),
        "",
        "![Cost of rule cards and baselines by stack](figures/preflop_rule_costs.png)",
        "",
        "The cards:",
        "",
    ]
    for rep in reports:
        lines.append(f"**{rep.band[0]:g}-{rep.band[1]:g} bb**")
        lines.append("")
        for fit in rep.fits:
            who = "SB" if fit.card.player == 0 else "BB"
            lines.append(f"* {who} ({fit.cost.mean_mbb:.2f} mbb/g): " + "; ".join(fit.card.lines()) +
                         f" -- `{fit.card.range_text()}`")
        lines.append("")
    lines += [
        ("The rank total counts T=10, J=11, Q=12, K=13, A=14 (\"hands with ranks adding up to 16+\": K3, Q4, "
        "J5, T6, 97 and better). The cards are stored in `hunl/preflop/data/rule_cards.json` for "
        "`pushfold`."),
        "",
        "### Sklansky-Chubukov numbers",
        "",
        ("The largest stack at which pushing a hand *face up* beats folding against a BB who calls exactly when "
        "calling is right (`hunl/preflop/sklansky.py`, exact card removal). In bb:"),
        "",
        "| hand | " + " | ".join(["KK", "QQ", "AKs", "AKo", "22", "33", "44", "55", "66", "A3o", "T9s", "72o"]) + " |",
        "|---|" + "---:|" * 12,
        "| SC (bb) | " + " | ".join(f"{sc[L.index(h)]:.1f}" for h in ["KK", "QQ", "AKs", "AKo", "22", "33", "44",
                                                                       "55", "66", "A3o", "T9s", "72o"]) + " |",
        "",
        (f"Published: KK 953 \"ciegas\" with blinds of 1-2 (poker-red.com: the book's table is in small blinds, "
         f"so 476.5 bb; ours {_rel(sc, 'KK', 476.5)}); 22 and A3o 48 (okgioco.com, also small blinds: 24 bb; "
         f"ours {_rel(sc, '22', 24.0)} and {_rel(sc, 'A3o', 24.0)}); PokerStrategy.com's \"Super-Villain\" "
         "column, in bb, 22 24.2, 33 33.1, 44 41.3, 55 50.0, 66 58.1 (kick3r.free.fr copy of \"Push or Fold in "
         f"Heads-up\"; ours {', '.join(_rel(sc, h, x) for h, x in _SV)}). The differences are of the size of "
         "the half small blind by which conventions differ (whether the posted blind counts in the stack) and "
         "of the published rounding. As a strategy the numbers are far too tight: against a BB who does not "
         "see the cards they cost tens of mbb/g from 5 bb up (table above)."),
        "",
        "## 5. Speed",
        "",
        bench,
        "",
        f"_Report computed in {time.perf_counter() - t_start:.0f} s._",
        "",
    ]
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text("\n".join(lines))
    return doc

"""How much of a rule card's cost is its rules, and how much is one strategy shared by every endgame:
``scripts/rule_cards.py floor``.

A card does two things at once: its conditions split the information sets into rules (the card's *rule form*),
and each rule plays one strategy in every endgame. :func:`run_card_floor` separates the two on held-out solved
endgames. For each endgame, the card's rules get that endgame's own least exploitable strategies (CFR-BR over the
rules in that endgame alone, :func:`hunl.distill.optimal_leaves.optimise_leaves` with one game): the mean of those
figures is the *floor* of the rule form -- what the same rules would cost if each endgame could have its own
strategies (up to the convergence of CFR-BR, which only approaches the optimum; more iterations lower it). The
card as printed costs more; the difference is the cost of sharing one strategy per rule across endgames, which
more rules of the same kind, or rules about the ranges, must buy back.

With ``shared_iterations`` the card's rules also get one strategy each for all the held-out endgames at once,
fitted on those endgames themselves (:func:`shared_fit`: CFR-BR over the rules in every held-out endgame
together). No card with these rules and one strategy per rule can do better in those endgames (up to CFR-BR's
convergence), so the cost of sharing splits in two: what one strategy per rule must cost even when fitted where
it is measured (shared fit minus floor), and what learning the strategies from other endgames and rounding them
to plain mixes adds (printed minus shared fit). With ``sections`` each endgame is also played with its own
strategies everywhere but one section (:func:`section_costs`), which shows the sections whose strategies carry
least from endgame to endgame.

Exploitability is NashConv / 2 of the policy played by both players, in % of the starting pot
(:func:`hunl.distill.cost.evaluate_policy`), as everywhere in ``docs/HUNL.md``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hunl.distill.card_experiment import split_endgames
from hunl.distill.cards import CARD_KEY, FIXED_KEY, card_model
from hunl.distill.cost import evaluate_policy
from hunl.distill.optimal_leaves import optimise_leaves
from hunl.distill.pipeline import take
from hunl.distill.policy import play
from rulelearn.data.database import SolutionDatabase
from rulelearn.data.executors import make_executor
from rulelearn.rules.cards import RuleCard
from rulelearn.validation import check_int

__all__ = ["FloorJob", "card_floor", "run_card_floor", "section_costs", "section_rules", "shared_fit"]


@dataclass(frozen=True)
class FloorJob:
    """What ``scripts/rule_cards.py floor`` runs (its options).

    Attributes
    ----------
    card : str
        The card's JSON (:meth:`rulelearn.rules.cards.RuleCard.to_dict`).
    fixed_cards : tuple of (str, str)
        ``(street, JSON)`` cards that play the other streets and keep their rules' strategies (e.g. the river
        card beside a turn card); default none (the card plays every street).
    db : str
        Database whose held-out endgames are used (the split of the card run: same ``seed``).
    seed, test_fraction : int, float
    max_test : int
        Held-out endgames measured.
    iterations : int
        CFR-BR iterations in each endgame.
    sections : bool
        Also measure, in each endgame, the card with that endgame's own strategies everywhere but one section
        (:func:`section_costs`); default False.
    shared_iterations : int
        CFR-BR iterations of the shared fit over all the held-out endgames (:func:`shared_fit`); 0 (default) skips
        it.
    workers : int or None
    name : str
        Block ``card-<name>-floor`` of ``doc``.
    doc : str or None
    command : str
    """

    card: str = "docs/cards/river.json"
    fixed_cards: tuple = ()
    db: str = "data/hunl_river_2500"
    seed: int = 0
    test_fraction: float = 0.2
    max_test: int = 20
    iterations: int = 1500
    shared_iterations: int = 0
    sections: bool = False
    workers: int | None = None
    name: str = "river"
    doc: str | None = None
    command: str = "python scripts/rule_cards.py floor"


def _fit_one(card: RuleCard, game, iterations: int, fixed):
    iterations = check_int("iterations", iterations, 1)
    model = card_model(card, fixed)
    printed = evaluate_policy(game, play(game, model)).exploitability_pct_pot
    res = optimise_leaves(model, [game], iterations=iterations, log_every=max(1, iterations // 5),
                          frozen=(FIXED_KEY,) if fixed else ())
    return model, float(printed), res


def card_floor(card: RuleCard, game, iterations: int = 1500, fixed=None) -> tuple[float, float]:
    """The card's exploitability in one endgame as printed, and with its rules' strategies optimised for that
    endgame alone.

    Parameters
    ----------
    card : RuleCard
    game : HoldemEndgame
    iterations : int, default 1500
        CFR-BR iterations (the floor falls towards the optimum as they grow).
    fixed : mapping of int to RuleCard, optional
        Cards for the other streets, kept as they are (:class:`hunl.distill.cards.CompositeCard`).

    Returns
    -------
    printed, floor : float
        NashConv / 2 in % of the pot: the card played as printed (with ``fixed`` on their streets), and its rules
        playing this endgame's CFR-BR strategies (the least of the logged averages, which start at the printed
        strategies: after few iterations the average may still be above them).

    Raises
    ------
    ValueError
        If ``iterations < 1``.
    """
    _, printed, res = _fit_one(card, game, iterations, fixed)
    return printed, float(res.log_exploitability_pct_pot.min())


def section_rules(card: RuleCard) -> list[np.ndarray]:
    """The rule indices (rows of the card's strategy table, :meth:`RuleCard.rules` order) of each section of
    ``card``: a list of ``int64`` arrays, one per section, in the card's order.

    Parameters
    ----------
    card : RuleCard

    Returns
    -------
    list of numpy.ndarray of int64
        One per section of ``card``, in the card's order: the consecutive indices of the section's rules in
        ``card.rules()``, shape ``(len(section.rules),)`` (empty for a section without rules; an empty list
        for a card without sections).
    """
    ends = np.cumsum([len(sec.rules) for sec in card.sections], dtype=np.int64)
    return [np.arange(a, b, dtype=np.int64) for a, b in zip(np.r_[0, ends[:-1]], ends)]


def section_costs(card: RuleCard, game, iterations: int = 1500, fixed=None) -> tuple[float, float, float, list]:
    """Which sections' shared strategies cost most in one endgame: the card with this endgame's own strategies
    everywhere but one section, which plays the printed strategies.

    The endgame's own strategies are the final CFR-BR average of :func:`card_floor`'s fit, not the least logged
    one: CFR-BR over a card's rules (which merge information sets: imperfect recall) need not converge
    monotonically, so ``own`` may sit well above the floor (4.79 against 3.94% of the pot for the summary river
    card, docs/HUNL.md). A section whose printed strategies lift the cost far above
    ``own`` is one whose best strategies differ most from endgame to endgame. The figures do not add up over
    sections (exploitability is not additive).

    Parameters
    ----------
    card, game, iterations, fixed
        As :func:`card_floor`.

    Returns
    -------
    printed, floor, own : float
        NashConv / 2 in % of the pot: as printed, the least logged average of the fit, its final average.
    printed_in : list of float
        One per section of ``card``: the cost with the printed strategies in that section and the endgame's own
        (final average) in the others.

    Raises
    ------
    ValueError
        If ``iterations < 1``.
    """
    model, printed, res = _fit_one(card, game, iterations, fixed)
    own = {k: np.asarray(v, dtype=np.float64) for k, v in res.tables.items()}
    base = np.asarray(model.leaf_table(CARD_KEY), dtype=np.float64)

    def cost(tables):
        m = model.with_leaf_tables(tables)
        return float(evaluate_policy(game, play(game, m)).exploitability_pct_pot)

    printed_in = []
    for idx in section_rules(card):
        t = own[CARD_KEY].copy()
        t[idx] = base[idx]
        printed_in.append(cost({**own, CARD_KEY: t}))
    return printed, float(res.log_exploitability_pct_pot.min()), cost(own), printed_in


def shared_fit(card: RuleCard, games, iterations: int = 1500, fixed=None, workers: int = 1,
               progress: bool = False) -> float:
    """The card's mean exploitability over ``games`` with one strategy per rule fitted on those games themselves.

    CFR-BR over the card's rules in every game of ``games`` together
    (:func:`hunl.distill.optimal_leaves.optimise_leaves`; Johanson, Bard, Burch & Bowling 2012), starting from the
    printed strategies: the least mean exploitability that one strategy per rule reaches in these games, up to
    CFR-BR's convergence. Fitted and measured on the same endgames, it is a bound for the rule form, not a
    held-out figure.

    Parameters
    ----------
    card : RuleCard
    games : sequence of HoldemEndgame
    iterations : int, default 1500
    fixed : mapping of int to RuleCard, optional
        Cards for the other streets, kept as they are.
    workers : int, default 1
        Processes sharing the games (the result does not depend on it).
    progress : bool, default False

    Returns
    -------
    float
        Mean over ``games`` of NashConv / 2 in % of the pot: the least of the logged averages (the first is the
        printed strategies, so it is never above the card as printed).

    Raises
    ------
    ValueError
        If ``iterations < 1`` or ``games`` is empty.
    """
    iterations = check_int("iterations", iterations, 1)
    model = card_model(card, fixed)
    res = optimise_leaves(model, games, iterations=iterations, log_every=max(1, iterations // 10),
                          frozen=(FIXED_KEY,) if fixed else (), workers=workers, progress=progress)
    return float(res.log_exploitability_pct_pot.min())


def _floor_task(card: RuleCard, fixed, family, columns: dict, iterations: int, sections: bool = False) -> list:
    out = []
    for i in range(len(columns["game_id"])):
        game = family.game(columns, i)
        if sections:
            printed, floor, own, printed_in = section_costs(card, game, iterations, fixed)
            out.append((int(columns["game_id"][i]), printed, floor, own, printed_in))
        else:
            printed, floor = card_floor(card, game, iterations, fixed)
            out.append((int(columns["game_id"][i]), printed, floor))
    return out


def run_card_floor(job: FloorJob) -> dict:
    """Run ``job``: the printed cost and the floor of the card's rule form in each held-out endgame.

    The held-out endgames are those of :func:`hunl.distill.card_experiment.split_endgames` with the job's
    ``seed``, ``test_fraction`` and ``max_test``. With ``job.doc`` the block ``card-<name>-floor`` of that doc
    is written (:func:`write_floor_docs`).

    Parameters
    ----------
    job : FloorJob
        The run's settings: the options of ``scripts/rule_cards.py floor``.

    Returns
    -------
    dict
        ``{"game_id", "printed_pct_pot", "floor_pct_pot"}`` lists, one entry per held-out endgame in
        increasing ``game_id`` (costs: NashConv / 2 in % of the pot, :func:`card_floor`), their means
        (``printed_mean``, ``floor_mean``), ``sections`` (with ``job.sections``: the section ``titles`` and
        ``n_rules``, and per endgame ``own_pct_pot`` and ``printed_in_pct_pot``, :func:`section_costs`; else
        None), ``shared_mean`` (:func:`shared_fit` over the held-out endgames, % of the pot, or None without
        ``job.shared_iterations``), ``n_test``, ``n_rules``, ``iterations``, ``shared_iterations``,
        ``seconds``, and the job's ``card``, ``db``, ``command`` and ``fixed_cards`` (as lists).

    Raises
    ------
    FileNotFoundError
        If the card's JSON (``job.card``) or a file of ``job.fixed_cards`` is missing, or ``job.db`` holds no
        database.
    ValueError
        If ``job.iterations < 1``, ``job.shared_iterations`` is negative, or a street of ``job.fixed_cards``
        is not flop, turn or river, is given twice (:func:`hunl.distill.street_cards.load_cards`) or is one
        the card plays (:func:`hunl.distill.cards.card_model`).
    """
    from tqdm.auto import tqdm

    from hunl.distill.street_cards import load_cards

    t0 = time.perf_counter()
    card = RuleCard.from_dict(json.loads(Path(job.card).read_text()))
    fixed = load_cards(job.fixed_cards) if job.fixed_cards else None
    db = SolutionDatabase(job.db)
    family = db.family()
    cols = db.load(None, columns=[c for c in db.column_names() if c != "policy"])
    _, test = split_endgames(len(cols["game_id"]), job.seed, job.test_fraction, job.max_test)
    tasks = [(card, fixed, family, take(cols, test[a:a + 1]), job.iterations, job.sections)
             for a in range(test.size)]
    rows = []
    with make_executor(job.workers, None, n_tasks=len(tasks)) as ex, \
            tqdm(total=len(tasks), unit="endgame", desc="card floor") as bar:
        for part in ex.imap_unordered(_floor_task, tasks):
            rows += part
            bar.update(len(part))
    rows.sort()
    shared = None
    if job.shared_iterations:
        games = [family.game(cols, int(i)) for i in test]
        shared = shared_fit(card, games, job.shared_iterations, fixed, workers=job.workers or 1, progress=True)
    result = {"game_id": [r[0] for r in rows], "printed_pct_pot": [r[1] for r in rows],
              "floor_pct_pot": [r[2] for r in rows], "n_test": len(rows), "n_rules": card.n_rules,
              "iterations": job.iterations, "shared_iterations": job.shared_iterations, "shared_mean": shared,
              "card": job.card, "sections": None, "db": job.db, "command": job.command,
              "fixed_cards": [list(c) for c in job.fixed_cards]}
    if job.sections:
        result["sections"] = {"titles": [sec.title for sec in card.sections],
                              "n_rules": [len(sec.rules) for sec in card.sections],
                              "own_pct_pot": [r[3] for r in rows], "printed_in_pct_pot": [r[4] for r in rows]}
    result["printed_mean"] = float(np.mean(result["printed_pct_pot"]))
    result["floor_mean"] = float(np.mean(result["floor_pct_pot"]))
    result["seconds"] = time.perf_counter() - t0
    if job.doc:
        write_floor_docs(job, result)
    return result


def write_floor_docs(job: FloorJob, result: dict) -> None:
    """The block ``card-<name>-floor`` of ``job.doc``."""
    from rulelearn.report.docblocks import markdown_table, write_blocks

    p, f = np.asarray(result["printed_pct_pot"]), np.asarray(result["floor_pct_pot"])
    sd = (lambda x: float(x.std(ddof=1)) if x.size > 1 else 0.0)  # noqa: E731
    rows = [("the card as printed: one strategy per rule for every endgame", f"{p.mean():.2f} ± {sd(p):.2f}"),
            (f"the same rules, each endgame's own strategies (CFR-BR, {result['iterations']} iterations)",
             f"{f.mean():.2f} ± {sd(f):.2f}"),
            ("the cost of sharing one strategy per rule", f"{p.mean() - f.mean():.2f}")]
    shared = result.get("shared_mean")
    if shared is not None:
        rows[2:2] = [(f"the same rules, one strategy per rule fitted on these endgames themselves (CFR-BR, "
                      f"{result['shared_iterations']} iterations)", f"{shared:.2f}")]
        rows += [("  of which one strategy per rule, even fitted where it is measured (shared fit - own)",
                  f"{shared - f.mean():.2f}"),
                 ("  of which learning the strategies from other endgames and rounding them (printed - shared fit)",
                  f"{p.mean() - shared:.2f}")]
    sec = result.get("sections")
    sec_text = ""
    if sec:
        own = np.asarray(sec["own_pct_pot"])
        pin = np.asarray(sec["printed_in_pct_pot"]).reshape(own.size, -1)
        srows = [("each endgame's own strategies in every section (the fit's final average)", f"{own.mean():.2f}",
                  "")]
        srows += [(f"the printed strategies in *{t}* ({n} rules), each endgame's own elsewhere", f"{v:.2f}",
                   f"{v - own.mean():+.2f}") for t, n, v in zip(sec["titles"], sec["n_rules"], pin.mean(axis=0))]
        sec_text = ("\nWhich sections' shared strategies cost most (the figures do not add up: exploitability "
                    "is not additive):\n\n" + markdown_table(
                        (["policy", "exploitability, % pot (mean)", "over own strategies"], srows),
                        right=("exploitability, % pot (mean)", "over own strategies")))
    beside = "" if not result["fixed_cards"] else " beside " + ", ".join(
        f"the {s} card `{c}` (kept as it is)" for s, c in result["fixed_cards"])
    text = (f"`{job.command}` ({result['seconds'] / 60:.0f} min on this machine). The card `{result['card']}` "
            f"({result['n_rules']} rules){beside} in {result['n_test']} held-out endgames of {result['db']} "
            "(the split of the card run: same seed).\n\n"
            + markdown_table((["policy", "exploitability, % pot (mean ± sd)"], rows), right=("exploitability, % pot "
                                                                                           "(mean ± sd)",))
            + sec_text)
    write_blocks(job.doc, {f"card-{job.name}-floor": text}, title="# HUNL\n")

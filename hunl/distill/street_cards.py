"""Rule cards played together, street by street, measured in held-out solved endgames: ``scripts/rule_cards.py
streets``.

A turn card learned from turn endgames has river sections of its own, learned from the river decisions of those
endgames. A river card learned from river endgames is another answer for the same decisions. :func:`run_street_cards`
measures, on the held-out endgames of a database (the split of :func:`hunl.distill.card_experiment.split_endgames`,
so the same seed gives the held-out endgames of the card run), each card alone and the cards together
(:class:`hunl.distill.cards.StreetCards`: every decision played by the card of its street), and with ``libratus``
the same in the four Libratus endgames. Exploitability is NashConv / 2 of the policy played by both players, in %
of the pot and mbb/g (:func:`hunl.distill.cost.evaluate_policy`); no stored strategy is read.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hunl.distill.card_experiment import _summary, split_endgames
from hunl.distill.cards import STREET_NAMES, CardPolicy, StreetCards
from hunl.distill.defence import MinimumDefence
from hunl.distill.pipeline import score_policies, take
from hunl.distill.policy import OnStreets, needs_solution
from rulelearn.data.database import SolutionDatabase
from rulelearn.data.executors import make_executor
from rulelearn.rules.cards import RuleCard

__all__ = ["StreetCardsJob", "run_street_cards"]

_STREETS = {name: street for street, name in STREET_NAMES.items()}


@dataclass(frozen=True)
class StreetCardsJob:
    """What ``scripts/rule_cards.py streets`` runs (its options).

    ``cards``: ``(street, path)`` pairs, street ``"flop"``, ``"turn"`` or ``"river"``, path a card's JSON
    (``docs/cards/<name>.json``, :meth:`rulelearn.rules.cards.RuleCard.from_dict`). ``splits``: also each
    card on its own street with the stored DCFR solution on the others (:class:`hunl.distill.policy.OnStreets`),
    which says how much of the cards' cost each street's card carries (held-out endgames only). ``sections``: the
    same by decision type (facing a bet or not) on each card's street, beside the minimum-defence rule
    (:func:`choosers_of`; held-out endgames only).
    """

    cards: tuple[tuple[str, str], ...] = (("turn", "docs/cards/turn.json"), ("river", "docs/cards/river.json"))
    db: str = "data/hunl_turn_1000"
    seed: int = 0
    test_fraction: float = 0.2
    max_test: int = 100
    workers: int | None = None
    libratus: bool = False
    splits: bool = False
    sections: bool = False
    name: str = "turn-river"
    doc: str | None = None
    command: str = "python scripts/rule_cards.py streets"


def load_cards(pairs) -> dict:
    """``{street number: RuleCard}`` of ``(street, path)`` pairs.

    Raises
    ------
    ValueError
        If a street is not flop, turn or river, or appears twice; a missing file raises ``FileNotFoundError``.
    """
    out = {}
    for street, path in pairs:
        if street not in _STREETS:
            raise ValueError(f"cards: street must be flop, turn or river, got {street!r}")
        if _STREETS[street] in out:
            raise ValueError(f"cards: street {street!r} given twice")
        out[_STREETS[street]] = RuleCard.from_dict(json.loads(Path(path).read_text()))
    return out


def choosers_of(cards: dict, splits: bool = False, sections: bool = False) -> dict:
    """The policies a :class:`StreetCardsJob` scores.

    Each card alone (``"<street> card alone"``), with two or more all together (the :class:`StreetCards`
    name), and with ``splits`` each card on its street with the stored solution on the others (named
    ``"<street> card on the <street>, DCFR solution elsewhere"``, :class:`hunl.distill.policy.OnStreets`).
    With ``sections``, for each card's street: the cards on that street's decisions facing a bet only, and on
    those not facing one only (the stored solution elsewhere); the minimum-defence rule on the decisions facing a
    bet (:class:`hunl.distill.defence.MinimumDefence`) with the stored solution elsewhere, ranking hands in the
    range at the decision and in the starting range; and the cards with the minimum-defence rule (range at the
    decision) in place of their rules facing a bet on that street.
    """
    out = {f"{STREET_NAMES[s]} card alone": CardPolicy(c) for s, c in cards.items()}
    together = StreetCards(cards)
    if len(cards) > 1:
        out[together.name] = together
        if splits:
            for s in cards:
                name = f"{STREET_NAMES[s]} card on the {STREET_NAMES[s]}, DCFR solution elsewhere"
                out[name] = OnStreets(together, (s,), name)
    if sections:
        played = "the cards" if len(cards) > 1 else f"{STREET_NAMES[next(iter(cards))]} card"
        for s in cards:
            st = STREET_NAMES[s]
            for facing, what in ((True, "facing a bet"), (False, "not facing a bet")):
                name = f"{st} card on the {st} {what} only, DCFR solution elsewhere"
                out[name] = OnStreets(together, (s,), name, facing=facing)
            for ranges, where in (("node", "the range at the decision"), ("start", "the starting range")):
                name = f"minimum defence ({where}) facing a bet on the {st}, DCFR solution elsewhere"
                out[name] = MinimumDefence(None, name, (s,), ranges)
            name = f"{played}, with minimum defence (the range at the decision) facing a bet on the {st}"
            out[name] = MinimumDefence(together, name, (s,), "node")
    return out


def run_street_cards(job: StreetCardsJob) -> dict:
    """Run ``job``: held-out (and Libratus) exploitability of each card alone and of the cards together.

    The policies are those of :func:`choosers_of` (with ``job.splits`` and ``job.sections``); the stored
    solutions of the held-out endgames are read only when one of them plays the stored solution. With
    ``job.doc`` the block ``card-<name>`` of that doc is written (:func:`write_street_docs`).

    Parameters
    ----------
    job : StreetCardsJob
        The run's settings: the options of ``scripts/rule_cards.py streets``.

    Returns
    -------
    dict
        ``{"held_out": {policy: {"exploitability_pct_pot", "sd", "exploitability_mbb", "better_share"}},
        "n_test", "db", "cards", "command", "libratus": [...] (with ``libratus``), "seconds"}``: the held-out
        mean exploitability (NashConv / 2) in % of the pot with its standard deviation ``sd`` and in mbb/g;
        ``better_share`` is the share of held-out endgames in which the cards together are less exploitable
        than that policy (NaN with one card, and for the cards together); ``db``, ``cards`` (as lists) and
        ``command`` are the job's; ``libratus`` is :func:`hunl.distill.experiment.libratus_scores` of the
        policies that do not play the stored solution.

    Raises
    ------
    ValueError
        Bad ``cards`` (:func:`load_cards`).
    FileNotFoundError
        If a card's JSON is missing or ``job.db`` holds no database.
    """
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    cards = load_cards(job.cards)
    choosers = choosers_of(cards, job.splits, job.sections)
    reference = any(needs_solution(c) for c in choosers.values())
    db = SolutionDatabase(job.db)
    family = db.family()
    cols = db.load(None, columns=[c for c in db.column_names() if c != "policy"])
    _, test = split_endgames(len(cols["game_id"]), job.seed, job.test_fraction, job.max_test)
    cols = take(cols, test)
    if reference:  # the stored strategies of the held-out endgames only
        cols = db.load(None, columns=db.column_names(), ids=cols["game_id"])
    with make_executor(job.workers, None) as ex, tqdm(total=test.size, unit="endgame", desc="street cards") as bar:
        scores = score_policies(family, cols, choosers, ex, chunk=5, progress=bar, reference=reference)
    x = scores.exploitability_pct_pot
    pair = StreetCards(cards).name if len(cards) > 1 else None
    held = {}
    for j, name in enumerate(scores.policies):
        s = _summary(scores, name)
        held[name] = {k: s[k] for k in ("exploitability_pct_pot", "sd", "exploitability_mbb")}
        held[name]["better_share"] = (float("nan") if pair is None or name == pair
                                      else float(np.mean(x[:, scores.policies.index(pair)] < x[:, j])))
    result = {"held_out": held, "n_test": int(test.size), "db": job.db, "cards": [list(c) for c in job.cards],
              "command": job.command}
    if job.libratus:
        from hunl.distill.experiment import libratus_scores

        result["libratus"] = libratus_scores({k: c for k, c in choosers.items()
                                                    if not isinstance(c, (OnStreets, MinimumDefence))})
    result["seconds"] = time.perf_counter() - t0
    if job.doc:
        write_street_docs(job, result)
    return result


def write_street_docs(job: StreetCardsJob, result: dict) -> None:
    """The block ``card-<name>`` of ``job.doc``: held-out and Libratus tables."""
    from rulelearn.report.docblocks import markdown_table, write_blocks

    rows = [(n, f"{v['exploitability_pct_pot']:.2f} ± {v['sd']:.2f}", f"{v['exploitability_mbb']:,.0f}",
             "" if np.isnan(v["better_share"]) else f"{100 * v['better_share']:.0f}%")
            for n, v in result["held_out"].items()]
    header = ["policy", "held-out exploitability, % pot (mean ± sd)", "mbb/g",
              "endgames where the cards together are less exploitable"]
    if all(np.isnan(v["better_share"]) for v in result["held_out"].values()):   # one card: nothing to compare
        header, rows = header[:3], [r[:3] for r in rows]
    text = (f"`{job.command}` ({result['seconds'] / 60:.0f} min on this machine). {result['n_test']} held-out "
            f"endgames of {result['db']} (the split of the card run: same seed); cards: "
            + ", ".join(f"{s} `{p}`" for s, p in result["cards"]) + ".\n\n"
            + markdown_table((header, rows), right=header[1:]))
    if result.get("libratus"):
        lr = [(r["endgame"], r["street"], f"{r['pot']:g}", f"{r['dcfr_pct_pot']:.3f}%", name,
               f"{p['exploitability_pct_pot']:.2f}", f"{p['exploitability_mbb']:,.0f}")
              for r in result["libratus"] for name, p in r["policies"].items()]
        text = text.rstrip("\n") + "\n\n" + markdown_table((["endgame", "street", "pot", "DCFR solution", "policy",
                                          "exploitability, % pot", "mbb/g"], lr), right=())
    write_blocks(job.doc, {f"card-{job.name}": text}, title="# HUNL\n")

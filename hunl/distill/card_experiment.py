"""HUNL rule cards measured: the frontier by number of conditions, the card, and the Libratus endgames.

:func:`run_cards` is ``scripts/rule_cards.py hunl``. From one or more solution databases of the
``"hunl_river"`` family (river or turn endgames, any bet trees and stack depths), it

1. splits each database into training and held-out endgames as :func:`hunl.distill.experiment.run_pipeline`
   does (the same seed gives the same held-out endgames);
2. turns the training endgames' decisions into rows (:mod:`hunl.distill.decisions`; cached under ``out``);
3. grows one card tree (:func:`hunl.distill.cards.grow_card_tree`) and, for every card size of ``sizes``, fits
   the card (CFR-BR leaves over ``leaf_endgames`` training endgames of every database, plain mixes) and measures
   it in every held-out endgame (exploitability, NashConv / 2, in % of the pot and mbb/g; EV against the stored
   solution) -- each size is cached under ``out``, so a killed run resumes; the two sides of a split that print
   the same mix are then one rule (:meth:`rulelearn.rules.cards.RuleCard.merge_equal_rules`), and in a section
   whose rules partition it the last rule reads "otherwise" (:meth:`~rulelearn.rules.cards.RuleCard.with_otherwise`),
   and a rule that plays the "otherwise" mix where no rule between them can take its decisions goes
   (:meth:`~rulelearn.rules.cards.RuleCard.without_default_copies`): the card plays the same, so its cost stands,
   and the frontier counts the printed card's rules and conditions;
4. measures the baselines and, for comparison, depth-limited trees with unconstrained thresholds and optimal
   leaves (:class:`hunl.distill.policy.DistilledPolicy`), with their conditions counted the same way;
5. with ``libratus``: plays the card of ``card_rules`` rules in the four Libratus endgames.

Outputs under ``out``: ``frontier.json``, ``card.json`` (the card, rebuildable: :meth:`rulelearn.rules.cards.
RuleCard.from_dict`), ``card.md`` and the frontier figure.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from hunl.distill.cards import (
    CARD_RANGES,
    CardConfig,
    CardPolicy,
    StreetCards,
    fit_card,
    grow_card_by_regret,
    grow_card_tree,
)
from hunl.distill.decisions import TURN_FEATURES, DecisionRows
from hunl.distill.optimal_leaves import optimise_leaves
from hunl.distill.pipeline import BASELINES, BASELINES_VERSION, collect_rows, score_policies, take
from hunl.distill.policy import DistilledPolicy, concat_rows
from hunl.distill.quantities import QUANTITIES
from rulelearn.data.database import SolutionDatabase
from rulelearn.data.executors import make_executor
from rulelearn.rules.cards import CardCost, RuleCard
from rulelearn.rules.conditions import extract_rules

#: The phrases of the quantities, by name: a cached card is printed in the current words (they are not results).
_PHRASES = {q.name: q for q in QUANTITIES}

__all__ = ["CardJob", "card_cost", "policy_conditions", "run_cards", "split_endgames"]


@dataclass(frozen=True)
class CardJob:
    """What ``scripts/rule_cards.py hunl`` runs (its options)."""

    dbs: tuple[str, ...] = ("data/hunl_river_2500",)
    endgames: int | None = None
    seed: int = 0
    test_fraction: float = 0.2
    max_test: int = 400
    sizes: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 30, 40)
    card_rules: int = 20
    max_conditions: int = 3
    leaf_endgames: int = 200
    leaf_iterations: int = 200
    samples: int = 400_000
    max_rows: int | None = None
    min_leaf_share: float = 0.002
    depths: tuple[int, ...] = (1, 2, 3)
    workers: int | None = None
    libratus: bool = False
    regret_from: int | None = None
    regret_endgames: int = 100
    regret_iterations: int = 100
    regret_step: int = 1
    prune_from: int | None = None
    prune_endgames: int = 100
    prune_iterations: int = 200
    prune_every: int = 4
    prune_reoptimise: int = 50
    compare: tuple[tuple[str, str], ...] = ()
    streets: tuple[int, ...] | None = None
    fixed_cards: tuple[tuple[int, str], ...] = ()
    ranges: str = "start"
    features: tuple[str, ...] | None = None
    plain_search: float = 0.0
    out: str = "data/cards/hunl_river"
    title: str = "HUNL river rule card"
    command: str = "python scripts/rule_cards.py hunl"
    name: str = "river"
    doc: str | None = None
    figures: str = "docs/figures"
    cards: str = "docs/cards"


def split_endgames(n: int, seed: int, test_fraction: float, max_test: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out positions, as :func:`hunl.distill.experiment.run_pipeline` splits.

    A random permutation of the ``n`` positions: its first ``max(1, round(test_fraction * n))`` are held out
    (and of those, only the ``max_test`` lowest positions are returned), the rest train. The same ``seed`` and
    ``n`` give the same split.

    Parameters
    ----------
    n : int
        Number of endgames (rows of the database's columns).
    seed : int
        Seed of the permutation (:func:`numpy.random.default_rng`).
    test_fraction : float
        Fraction of the ``n`` endgames held out (at least one is).
    max_test : int
        Most held-out positions returned; the held-out endgames beyond it are neither trained nor scored.

    Returns
    -------
    train_ids : numpy.ndarray of int64, shape ``(n - n_test,)``
        Training positions (0 to ``n - 1``), increasing.
    test_ids : numpy.ndarray of int64, shape ``(min(n_test, max_test),)``
        Held-out positions, increasing, disjoint from ``train_ids``.
    """
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_test = max(1, int(round(test_fraction * n)))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])[:max_test]


def policy_conditions(model: DistilledPolicy) -> int:
    """Conditions (bounds, one per feature and side) over every leaf of a distilled policy's trees.

    Every leaf of every tree is read as a rule (:func:`rulelearn.rules.conditions.extract_rules`); a feature
    bounded on both sides in a rule counts two conditions, on one side one. The count the card frontier
    compares the rule cards' conditions with.

    Parameters
    ----------
    model : hunl.distill.policy.DistilledPolicy
        A fitted policy (its ``trees_`` and ``feature_names_`` set).

    Returns
    -------
    int
        Total number of bounds over all leaves of all of the policy's trees.
    """
    total = 0
    for key, tree in model.trees_.items():
        for r in extract_rules(tree.tree_, model.leaf_table(key), model.feature_names_[key]):
            total += sum((c.lower is not None) + (c.upper is not None) for c in r.conditions)
    return int(total)


def card_cost(scores, name: str, measure: str) -> CardCost:
    """The :class:`rulelearn.rules.cards.CardCost` of policy ``name`` in held-out scores (% of the pot).

    Parameters
    ----------
    scores : hunl.distill.pipeline.EndgameScores
        Scores of the policies in the held-out endgames (:func:`hunl.distill.pipeline.score_policies`).
    name : str
        The policy, one of ``scores.policies``.
    measure : str
        What was measured, stored as the cost's ``measure`` (e.g. "NashConv / 2 inside 400 held-out solved
        river endgames").

    Returns
    -------
    rulelearn.rules.cards.CardCost
        Mean and standard deviation (``ddof=1``; 0 for a single endgame) of the policy's exploitability over
        the endgames of ``scores``, in % of the pot (``unit`` ``"% of the pot"``), the number of endgames, and
        the mean exploitability in mbb/g.

    Raises
    ------
    ValueError
        If ``name`` is not one of ``scores.policies``.
    """
    j = scores.policies.index(name)
    x = scores.exploitability_pct_pot[:, j]
    return CardCost(float(x.mean()), float(x.std(ddof=1)) if x.size > 1 else 0.0, "% of the pot", int(x.size),
                    float(scores.exploitability_mbb[:, j].mean()), measure)


def _summary(scores, name: str) -> dict:
    j = scores.policies.index(name)
    x = scores.exploitability_pct_pot[:, j]
    return {"exploitability_pct_pot": float(x.mean()), "sd": float(x.std(ddof=1)) if x.size > 1 else 0.0,
            "sem": float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0,
            "median_pct_pot": float(np.median(x)), "exploitability_mbb": float(scores.exploitability_mbb[:, j].mean()),
            "ev_pct_pot": float(scores.ev_pct_pot[:, j].mean())}


def _by_db(scores, name: str, dbs) -> list[dict]:
    """Mean held-out exploitability (% of the pot) of policy ``name`` in each database (scores of
    :meth:`_Data.score`, whose game ids carry the database's position times 10**9)."""
    j = scores.policies.index(name)
    part = scores.game_id // 10 ** 9
    return [{"db": db, "n": int((part == k).sum()),
             "exploitability_pct_pot": float(scores.exploitability_pct_pot[part == k, j].mean())}
            for k, db in enumerate(dbs) if np.any(part == k)]


class _Data:
    """The databases, their splits, training rows and endgames.

    Only the small columns of the databases are kept in memory; the stored strategies (a turn endgame's take
    about 20 MB) are read one shard at a time, when the training rows are made and when held-out endgames are
    scored (decoding one 50-endgame turn shard peaks at about 6 GB).
    """

    def __init__(self, job: CardJob, executor):
        self.parts = []
        rows = []
        out = Path(job.out)
        reads_value = bool({"own_value", "value_bluff_ratio"} & set(job.features or ()))
        for k, path in enumerate(job.dbs):
            db = SolutionDatabase(path)
            family = db.family()
            cols = db.load(job.endgames, columns=[c for c in db.column_names() if c != "policy"])
            train_ids, test_ids = split_endgames(len(cols["game_id"]), job.seed, job.test_fraction, job.max_test)
            train, test = take(cols, train_ids), take(cols, test_ids)
            thin = "" if job.max_rows is None else f"_thin{job.max_rows}"
            thin += "" if job.streets is None else "_streets" + "".join(str(s) for s in sorted(job.streets))
            thin += "" if job.ranges == "start" else f"_{job.ranges}"
            cache = out / f"rows_{k}_{Path(path).name}_{len(train_ids)}{thin}.npz"
            r = None
            if cache.exists():
                with np.load(cache) as z:
                    # rows stored before own_value serve every card that does not read it (its column NaN)
                    if z["X"].shape[1] == len(TURN_FEATURES) or not reads_value:
                        r = DecisionRows.from_stored(z)
            if r is None:
                from tqdm.auto import tqdm

                with tqdm(total=train_ids.size, unit="endgame", desc=f"decision rows {Path(path).name}") as bar:
                    r = concat_rows(collect_rows(family, chunk, executor, progress=bar, max_rows=job.max_rows,
                                                 streets=job.streets, ranges=job.ranges)
                                    for chunk in _chunks(db, train["game_id"]))
                np.savez(cache, **{f: getattr(r, f) for f in DecisionRows.__dataclass_fields__})
            rows.append(r)
            self.parts.append({"db": path, "database": db, "family": family, "train": train, "test": test,
                               "n": len(cols["game_id"])})
            print(f"   {path}: {len(cols['game_id'])} endgames, {train_ids.size} training ({r.weight.size:,} "
                  f"decisions), {test_ids.size} held-out", flush=True)
        self.rows = concat_rows(rows)

    def leaf_games(self, n: int) -> list:
        """``n`` training endgames, spread over the databases in proportion to their sizes."""
        sizes = np.array([len(p["train"]["game_id"]) for p in self.parts], dtype=np.float64)
        share = np.maximum(1, np.round(n * sizes / sizes.sum())).astype(int)
        out = []
        for p, m in zip(self.parts, share):
            out += [p["family"].game(p["train"], i) for i in range(min(int(m), len(p["train"]["game_id"])))]
        return out

    def score(self, choosers: dict, executor):
        """Held-out scores of ``choosers`` in every database, concatenated (game ids made unique)."""
        from tqdm.auto import tqdm

        from hunl.distill.pipeline import EndgameScores

        parts = []
        for k, p in enumerate(self.parts):
            with tqdm(total=len(p["test"]["game_id"]), unit="endgame", desc="scoring", leave=False) as bar:
                s = EndgameScores.concat([score_policies(p["family"], chunk, choosers, executor, progress=bar)
                                          for chunk in _chunks(p["database"], p["test"]["game_id"])])
            parts.append(EndgameScores(s.game_id + k * 10 ** 9, s.policies, s.exploitability_pct_pot,
                                       s.ev_pct_pot, s.exploitability_mbb, s.ev_mbb, s.reference_pct_pot))
        return EndgameScores.concat(parts), [len(p["test"]["game_id"]) for p in self.parts]


def _by_db_measure(measure: str, by_db) -> str:
    """``measure``, followed (several databases) by the card's mean in each: a pooled mean mixes endgames of
    different kinds (river and turn endgames, shallow and deep stacks)."""
    if len(by_db) < 2:
        return measure
    return measure + "; by database: " + ", ".join(
        f"{d['db']} {d['exploitability_pct_pot']:.2f}% ({d['n']} endgames)" for d in by_db)


def _chunks(db: SolutionDatabase, ids: np.ndarray):
    """The games ``ids`` of ``db``, all columns, one shard at a time (in id order; each shard is read once)."""
    ids = np.sort(np.asarray(ids, dtype=np.int64))
    for a, b, _ in db.shards():
        chosen = ids[(ids >= a) & (ids < b)]
        if chosen.size:
            yield db.load(columns=None, ids=chosen)


def _same_settings(old: str, new: str, job: CardJob, free: tuple = ("sizes", "card_rules")) -> bool:
    """Whether the cached results under the key ``old`` hold for the key ``new``: equal keys, or (cards grown by
    imitation, whose trees are nested: the card of n rules is the same in a tree grown to any larger size) keys
    that differ only in the ``free`` settings (by default the sizes measured and the card printed, each size being
    cached on its own)."""
    if "plain_search" in free:          # how the rules' mixes are printed changes no tree or baseline
        old, new = _without(old, "plain_search"), _without(new, "plain_search")
    if old == new:
        return True
    if job.regret_from is not None or job.prune_from is not None:
        return False
    try:
        a, b = json.loads(old), json.loads(new)
    except json.JSONDecodeError:
        return False
    return {k: v for k, v in a.items() if k not in free} == {k: v for k, v in b.items() if k not in free}


def _without(key: str, name: str) -> str:
    """The settings ``key`` (JSON) without the setting ``name``."""
    try:
        d = json.loads(key)
    except json.JSONDecodeError:
        return key
    d.pop(name, None)
    return json.dumps(d, sort_keys=True)


def run_cards(job: CardJob) -> int:
    """Run ``job`` (see the module docstring); returns 0.

    Writes ``frontier.json``, ``card.json``, ``card.md``, the frontier figure and the caches (one
    ``size_<n>.json`` per card size, ``others.json``, ``key.json``) under ``job.out``, and with ``job.doc``
    the card's JSON, figures and blocks of that doc (:func:`write_card_docs`). Caches of other settings are
    deleted.

    Parameters
    ----------
    job : CardJob
        The run's settings: the options of ``scripts/rule_cards.py hunl``.

    Returns
    -------
    int
        0, the exit status of the script.

    Raises
    ------
    ValueError
        If ``job.ranges`` is not one of :data:`hunl.distill.cards.CARD_RANGES`, ``job.features`` names a
        quantity without a phrase (or is empty), both ``regret_from`` and ``prune_from`` are given, or
        ``prune_from`` does not exceed the smallest size.
    FileNotFoundError
        If a frontier of ``job.compare`` is missing.
    """
    if job.ranges not in CARD_RANGES:
        raise ValueError(f"ranges must be one of {CARD_RANGES}, got {job.ranges!r}")
    if job.prune_from is not None and job.regret_from is not None:
        raise ValueError("prune_from and regret_from are two ways of choosing the card's splits: give one")
    if job.prune_from is not None and job.prune_from <= min(job.sizes):
        raise ValueError(f"prune_from must exceed the smallest card size {min(job.sizes)}, got {job.prune_from}")
    unknown = [f for f in (job.features or ()) if f not in _PHRASES]
    if job.features is not None and (unknown or not job.features):
        raise ValueError(f"features must name quantities with a plain-language phrase "
                         f"(hunl.distill.quantities.QUANTITIES), got unknown {unknown or 'none at all'}")
    compare = _compare(job)          # before any work: a missing frontier file fails now
    t0 = time.perf_counter()
    out = Path(job.out)
    out.mkdir(parents=True, exist_ok=True)
    workers = job.workers or os.cpu_count() or 1
    key = json.dumps({k: v for k, v in asdict(job).items()
                      if k not in ("workers", "libratus", "command", "title", "name", "doc", "figures", "cards",
                                   "compare")
                      and not (k == "max_rows" and v is None)  # caches of runs before the options stay valid
                      and not (k.startswith("regret_") and job.regret_from is None)
                      and not (k.startswith("prune_") and job.prune_from is None)
                      and not (k in ("streets", "fixed_cards") and not v)
                      and not (k == "ranges" and v == "start")
                      and not (k == "features" and v is None)
                      and not (k == "plain_search" and not v)},
                     sort_keys=True)
    if (out / "key.json").exists():
        old_key = (out / "key.json").read_text()
        # the cards' sizes do not depend on the comparison trees' depths; the comparison results do
        if not _same_settings(old_key, key, job, free=("sizes", "card_rules", "depths")):
            for f in out.glob("size_*.json"):                         # every card of the old settings
                f.unlink()
        if not _same_settings(old_key, key, job, free=("sizes", "card_rules", "plain_search")):
            (out / "others.json").unlink(missing_ok=True)
        # the trees grown by regret or pruned depend on every setting but how the rules' mixes are printed
        if not _same_settings(old_key, key, job, free=("plain_search",)):
            for f in ("regret_tree.npz", "pruned_tree.npz", "pruning.json"):
                (out / f).unlink(missing_ok=True)
    (out / "key.json").write_text(key)
    with make_executor(workers, None) as ex:
        data = _Data(job, ex)
        config = CardConfig(max_leaves=max(max(job.sizes), job.prune_from or 0), max_conditions=job.max_conditions,
                            n_samples=job.samples, min_leaf_share=job.min_leaf_share, random_state=job.seed,
                            plain_search=job.plain_search,
                            **({} if job.features is None else {"features": tuple(job.features)}))
        tree, Z, Y = grow_card_tree(data.rows, config)
        print(f"   card tree: {tree.max_leaves} rules at most ({time.perf_counter() - t0:.0f} s)", flush=True)
        regret_log = []
        if job.regret_from is not None:
            tree, regret_log = _regret_tree(job, tree, Z, Y, data, config, workers, out)
        prune_log = []
        if job.prune_from is not None:
            tree, prune_log = _pruned_tree(job, tree, Z, Y, data, workers, out)
        games = data.leaf_games(job.leaf_endgames)
        n_test = sum(len(p["test"]["game_id"]) for p in data.parts)
        fixed = _fixed_cards(job)
        beside = "" if not fixed else " (" + ", ".join(f"the {s} card `{p}` on the {s}" for s, p in job.fixed_cards) + ")"
        measure = (f"NashConv / 2 of the card{beside} played by both players, mean over {n_test:,} held-out solved "
                   f"endgames ({', '.join(job.dbs)})")
        frontier, cards, cached = [], {}, 0
        for n in sorted(set(job.sizes) | {job.card_rules}):
            if n > tree.max_leaves:
                continue
            cache = out / f"size_{n}.json"
            if cache.exists():
                rec = json.loads(cache.read_text())
                cached += 1
            else:
                card, policy, log = fit_card(tree, n, Z, Y, games, config, iterations=job.leaf_iterations,
                                             workers=workers, title=job.title, fixed=fixed, progress=True,
                                             ranges=job.ranges)
                scores, _ = data.score({"card": _played(card, policy, fixed)}, ex)
                by_db = _by_db(scores, "card", job.dbs)
                card = RuleCard(card.title, card.sections, card.quantities,
                                card_cost(scores, "card", _by_db_measure(measure, by_db)), _notes(job.ranges),
                                card.meta)
                rec = {"n_rules": card.n_rules, "n_conditions": card.n_conditions, **_summary(scores, "card"),
                       "by_db": by_db,
                       "train_pct_pot": log["exact_train_pct_pot"][-1], "card": card.to_dict()}
                if "plain_train_pct_pot" in log:      # the plain mixes chosen by exploitability: before, after
                    rec["plain_train_pct_pot"] = log["plain_train_pct_pot"]
                cache.write_text(json.dumps(rec))
            cards[n] = RuleCard.from_dict(rec["card"])
            c = cards[n]
            words = tuple(_PHRASES.get(q.name, q) for q in c.quantities)
            if c.title != job.title or words != c.quantities:   # a cache under another title or older phrases
                cards[n] = RuleCard(job.title, c.sections, words, c.cost, c.notes, c.meta)
            wording = _by_db_measure(measure, rec.get("by_db", ()))
            if cards[n].cost is not None and cards[n].cost.measure != wording:    # a cache of an older wording
                c = cards[n]
                cards[n] = RuleCard(c.title, c.sections, c.quantities, replace(c.cost, measure=wording), c.notes,
                                    c.meta)
            # plays the same: split sides that print one mix are one rule, a section's last rule reads "otherwise"
            cards[n] = cards[n].merge_equal_rules().with_otherwise().without_default_copies()
            rec = {**rec, "n_rules": cards[n].n_rules, "n_conditions": cards[n].n_conditions}
            frontier.append({k: v for k, v in rec.items() if k != "card"})
            print(f"   {n:3d} rules ({rec['n_rules']} as printed), {rec['n_conditions']:3d} conditions: "
                  f"{rec['exploitability_pct_pot']:.2f}% of the pot (training {rec['train_pct_pot']:.2f}%) "
                  f"[{time.perf_counter() - t0:.0f} s]", flush=True)
        others_cached = (out / "others.json").exists()
        others = _others(job, data, ex, games, workers, out)
    card = cards[job.card_rules] if job.card_rules in cards else cards[max(cards)]
    (out / "card.json").write_text(json.dumps(card.to_dict(), indent=1))
    (out / "card.md").write_text(card.to_markdown())
    print(card.to_text())
    result = {"frontier": frontier, **others, "dbs": list(job.dbs), "n_test": n_test, "command": job.command,
              "regret_from": job.regret_from, "regret_log": regret_log,
              "prune_from": job.prune_from, "prune_log": prune_log, "compare": compare,
              "card_rules": card.n_rules, "seconds": time.perf_counter() - t0,
              "cached": {"sizes": cached, "of": len(frontier), "others": others_cached}}
    if job.libratus:
        from hunl.distill.experiment import libratus_scores

        result["libratus"] = libratus_scores({"card": _played(card, CardPolicy(card), fixed), **BASELINES})
        result["seconds"] = time.perf_counter() - t0
    (out / "frontier.json").write_text(json.dumps(result, indent=1))
    frontier_plot(result, out / "frontier.png", job.title)
    if job.doc:
        write_card_docs(job, result, card)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    return 0


def _compare(job: CardJob) -> dict:
    """``{label: [conditions, exploitability]}`` of the card frontiers of other runs (``job.compare``: ``(label,
    frontier.json)`` pairs), drawn beside this run's in the frontier figure.

    Raises
    ------
    FileNotFoundError
        If a frontier file is missing.
    """
    out = {}
    for label, path in job.compare:
        if not Path(path).exists():
            raise FileNotFoundError(f"compare: no frontier at {path} (a rule_cards.py hunl run's frontier.json)")
        fr = sorted(json.loads(Path(path).read_text())["frontier"], key=lambda r: r["n_rules"])
        out[label] = [[r["n_conditions"] for r in fr], [r["exploitability_pct_pot"] for r in fr]]
    return out


def _fixed_cards(job: CardJob) -> dict | None:
    """``{street: RuleCard}`` of ``job.fixed_cards`` (``(street name, JSON path)`` pairs; None without them)."""
    from hunl.distill.street_cards import load_cards

    return load_cards(job.fixed_cards) if job.fixed_cards else None


def _played(card: RuleCard, policy: CardPolicy, fixed: dict | None):
    """How a card is measured: alone, or on its streets beside the fixed cards (:class:`StreetCards`)."""
    if not fixed:
        return policy
    return StreetCards({**fixed, **{int(s): card for s in card.meta.get("streets", (4, 5))}})


def _regret_tree(job: CardJob, tree, Z, Y, data: _Data, config: CardConfig, workers: int, out: Path):
    """The card tree grown on from ``job.regret_from`` rules by :func:`hunl.distill.cards.grow_card_by_regret`
    (cached as ``out/regret_tree.npz``: the growth re-fits the card at every size)."""
    cache = out / "regret_tree.npz"
    if cache.exists():
        return _load_tree(cache)
    t0 = time.perf_counter()
    grown, log = grow_card_by_regret(tree, job.regret_from, max(job.sizes), Z, Y,
                                     data.leaf_games(job.regret_endgames), config, iterations=job.regret_iterations,
                                     step=job.regret_step, workers=workers, progress=True, fixed=_fixed_cards(job))
    _save_tree(cache, grown, log)
    print(f"   regret growth from {job.regret_from} to {grown.max_leaves} rules ({time.perf_counter() - t0:.0f} s)",
          flush=True)
    return grown, log


def _pruned_tree(job: CardJob, tree, Z, Y, data: _Data, workers: int, out: Path):
    """The card tree of ``job.prune_from`` rules pruned down to the smallest card size by
    :func:`hunl.distill.card_pruning.prune_card_tree` (cached as ``out/pruned_tree.npz``; a killed pruning resumes
    from ``out/pruning.json``)."""
    from hunl.distill.card_pruning import prune_card_tree

    cache = out / "pruned_tree.npz"
    if cache.exists():
        return _load_tree(cache)
    t0 = time.perf_counter()
    start = min(job.prune_from, tree.max_leaves)     # the tree may stop growing before (min_leaf_share)
    if start < job.prune_from:
        print(f"   the card tree has {start} rules at most: pruned from {start}", flush=True)
    pruned, log = prune_card_tree(tree, start, min(job.sizes), Z, Y, data.leaf_games(job.prune_endgames),
                                  iterations=job.prune_iterations, reoptimise_every=job.prune_every,
                                  reoptimise_iterations=job.prune_reoptimise, workers=workers, progress=True,
                                  fixed=_fixed_cards(job), ranges=job.ranges, checkpoint=out / "pruning.json")
    _save_tree(cache, pruned, log)
    (out / "pruning.json").unlink(missing_ok=True)      # the state of a killed pruning, now superseded
    print(f"   pruned from {start} to {min(job.sizes)} rules ({time.perf_counter() - t0:.0f} s)", flush=True)
    return pruned, log


def _save_tree(path: Path, tree, log) -> None:
    np.savez(path, feature=tree.feature, threshold=tree.threshold, left=tree.left, right=tree.right,
             split_order=tree.split_order, gains=tree.gains, feature_names=np.asarray(tree.feature_names),
             log=json.dumps(log))


def _load_tree(path: Path):
    from rulelearn.rules.growth import GrownTree

    with np.load(path) as z:
        return (GrownTree(z["feature"], z["threshold"], z["left"], z["right"], z["split_order"], z["gains"],
                          tuple(str(n) for n in z["feature_names"])), json.loads(str(z["log"])))


def write_card_docs(job: CardJob, result: dict, card: RuleCard) -> None:
    """The card's JSON (``<cards>/<name>.json``), its figures and the blocks ``card-<name>``,
    ``card-<name>-frontier`` (and ``card-<name>-libratus``) of ``job.doc``."""
    from hunl.distill.card_figure import card_page
    from rulelearn.report.docblocks import markdown_table, write_blocks

    figures, cards = Path(job.figures), Path(job.cards)
    figures.mkdir(parents=True, exist_ok=True)
    cards.mkdir(parents=True, exist_ok=True)
    (cards / f"{job.name}.json").write_text(json.dumps(card.to_dict(), indent=1))
    frontier_plot(result, figures / f"{job.name}_card_frontier.png", job.title)
    card_page(card, figures / f"{job.name}_card.png")
    rows = [(r["n_rules"], r["n_conditions"], f"{r['exploitability_pct_pot']:.2f} ± {r['sd']:.2f}",
             f"{r['exploitability_mbb']:,.0f}", f"{r['train_pct_pot']:.2f}", f"{r['ev_pct_pot']:.2f}")
            for r in sorted(result["frontier"], key=lambda r: r["n_rules"])]
    rows += [(f"{t['n_rules']} (trees of depth {t['depth']})", t["n_conditions"],
              f"{t['exploitability_pct_pot']:.2f} ± {t['sd']:.2f}", f"{t['exploitability_mbb']:,.0f}", "",
              f"{t['ev_pct_pot']:.2f}") for t in result.get("trees", [])]
    rows += [(f"{n} (baseline)", "", f"{b['exploitability_pct_pot']:.2f} ± {b['sd']:.2f}",
              f"{b['exploitability_mbb']:,.0f}", "", f"{b['ev_pct_pot']:.2f}")
             for n, b in result.get("baselines", {}).items()]
    header = ["rules", "conditions", "held-out exploitability, % pot (mean ± sd)", "mbb/g",
              "training endgames, % pot", "EV vs DCFR, % pot"]
    minutes = result["seconds"] / 60
    c = result.get("cached", {})
    reused = [f"{c['sizes']} of the {c['of']} card sizes"] if c.get("sizes") else []
    reused += ["the comparison trees and baselines"] if c.get("others") else []
    note = (f"; {' and '.join(reused)} read from the cache under `{job.out}` of an earlier run with the same "
            "settings") if reused else ""
    blocks = {f"card-{job.name}": f"`{job.command}` ({minutes:.0f} min on this machine{note})\n\n"
                                  + card.to_markdown("####"),
              f"card-{job.name}-frontier": (f"{result['n_test']} held-out endgames of {', '.join(result['dbs'])}; "
                                            f"the stored DCFR solutions are at {result.get('dcfr_pct_pot', 0):.3f}% "
                                            "of the pot.\n\n" + markdown_table((header, rows), right=header))}
    printed = next((r for r in result["frontier"] if r["n_rules"] == card.n_rules), None)
    if printed is not None and len(printed.get("by_db", ())) > 1:
        blocks[f"card-{job.name}-frontier"] = blocks[f"card-{job.name}-frontier"].rstrip("\n") + (
            f"\n\nThe card of {card.n_rules} rules by database (held-out endgames): "
            + "; ".join(f"{d['db']} {d['exploitability_pct_pot']:.2f}% ({d['n']})" for d in printed["by_db"]) + ".")
    if result.get("libratus"):
        lr = []
        for r in result["libratus"]:
            for name, p in r["policies"].items():
                lr.append((r["endgame"], r["street"], f"{r['pot']:g}", f"{r['dcfr_pct_pot']:.3f}%", name,
                           f"{p['exploitability_pct_pot']:.2f}", f"{p['exploitability_mbb']:,.0f}",
                           f"{p['ev_pct_pot']:.2f}"))
        blocks[f"card-{job.name}-libratus"] = markdown_table(
            (["endgame", "street", "pot", "DCFR solution", "policy", "exploitability, % pot", "mbb/g",
              "EV vs DCFR, % pot"], lr), right=())
        if printed is not None:
            worst = max(r["policies"]["card"]["exploitability_pct_pot"] for r in result["libratus"])
            blocks[f"card-{job.name}-libratus"] = blocks[f"card-{job.name}-libratus"].rstrip("\n") + (
                f"\n\nThe card's held-out figure is {printed['exploitability_pct_pot']:.2f}% of the pot; in the "
                f"Libratus endgames it is at most {worst:.2f}%, {worst / printed['exploitability_pct_pot']:.1f} "
                "times that.")
    write_blocks(job.doc, blocks, title="# HUNL\n")


def _notes(ranges: str = "start") -> tuple[str, ...]:
    which = ("Ranges are the players' ranges at the start of the street" if ranges == "start" else
             "Your range is the hands you would have played as you did on this street (after a check, the hands "
             "you check); the opponent's range is the one at the start of the street")
    return (f"{which}; a strong hand beats 80% of all hands; b is "
            "the bet faced in pots (the pot before it): b/(1+2b) is the pot odds, b/(1+b) the minimum-defence line.",
            "Bet small: at most 3/4 pot; bet big: more, short of all-in; raise: any raise short of all-in. "
            "k in d: play it k times out of d.")


def _others(job: CardJob, data: _Data, ex, games, workers: int, out: Path) -> dict:
    """Baselines and depth-limited trees with optimal leaves (cached)."""
    cache = out / "others.json"
    old = json.loads(cache.read_text()) if cache.exists() else None
    if old is not None and old.get("baselines_version") == BASELINES_VERSION:
        return old
    choosers = dict(BASELINES)
    depth = {}
    if old is not None:                                 # the trees stay valid: only the baselines are re-measured
        scores, _ = data.score(choosers, ex)
        old.update(baselines={n: _summary(scores, n) for n in BASELINES}, baselines_version=BASELINES_VERSION)
        cache.write_text(json.dumps(old))
        return old
    for d in job.depths if job.ranges == "start" else ():   # the comparison trees read the starting ranges
        m = DistilledPolicy(max_depth=d, n_samples=job.samples, random_state=job.seed).fit(data.rows)
        res = optimise_leaves(m, games, iterations=job.leaf_iterations, workers=workers, progress=True)
        choosers[f"depth {d}, optimal leaves"] = m.with_leaf_tables(res.tables)
        depth[d] = (m.n_rules(), policy_conditions(m))
    scores, _ = data.score(choosers, ex)
    res = {"baselines": {n: _summary(scores, n) for n in BASELINES},
           "trees": [{"depth": d, "n_rules": depth[d][0], "n_conditions": depth[d][1],
                      **_summary(scores, f"depth {d}, optimal leaves")} for d in depth],
           "dcfr_pct_pot": float(scores.reference_pct_pot.mean()), "baselines_version": BASELINES_VERSION}
    cache.write_text(json.dumps(res))
    return res


def frontier_plot(result: dict, path: Path, title: str) -> None:
    """Held-out exploitability (% of the pot) against the conditions on the card, per learner."""
    from rulelearn.report.plots import plot_card_frontier

    fr = sorted(result["frontier"], key=lambda r: r["n_rules"])
    how = "pruned by exploitability from a larger card, " if result.get("prune_from") else ""
    curves = {f"rule cards: round thresholds, <= 3 conditions a rule, {how}CFR-BR leaves in plain mixes":
              ([r["n_conditions"] for r in fr], [r["exploitability_pct_pot"] for r in fr])}
    curves.update({label: tuple(xy) for label, xy in result.get("compare", {}).items()})
    if result.get("trees"):
        tr = result["trees"]
        curves["trees of depth 1-3 per decision type, raw thresholds, CFR-BR leaves"] = (
            [r["n_conditions"] for r in tr], [r["exploitability_pct_pot"] for r in tr])
    refs = [(f"{n} (baseline)", b["exploitability_pct_pot"]) for n, b in result.get("baselines", {}).items()
            if n != "uniform random"]
    plot_card_frontier(curves, path, f"{title}: {result['n_test']} held-out endgames",
                       "held-out mean exploitability (% of the pot)", refs)

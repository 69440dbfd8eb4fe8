"""Rule cards measured inside solved flop endgames: ``scripts/rule_cards.py flop``.

A flop endgame of :meth:`hunl.distill.sampler.EndgameSampler.flop` (a half-pot bet and all-in on every street,
stack-to-pot ratio 4-12) has about 485,000 public nodes, so its solution is not stored: each endgame is sampled
from ``(seed, k)``, solved by DCFR and used at once.

1. **Training endgames**: the first ``n_train`` endgames of the stream ``seed`` outside the held-out block (by
   default ``0 .. n_train - 1``), solved to ``target_pct_pot`` percent of the
   pot; the rows of their flop decisions (:func:`hunl.distill.decisions.decision_rows`, the Bertsimas & Paskov
   features with equity deciles over the turn card) are kept under ``out/train/<k>.npz``: on the starting ranges,
   or with ``ranges="own"`` on the acting player's own range at the decision (``out/train/<k>_own.npz``).
2. **Flop cards**: one card tree over those rows (:func:`hunl.distill.cards.grow_card_tree`, round thresholds, at
   most 3 conditions a rule); the card of each size in ``sizes`` plays in each rule the equilibrium's mean
   strategy there, rounded to a plain mix (:func:`hunl.distill.cards.fit_card` with ``iterations=0``). The card
   of each size in ``leaf_sizes`` has its rules' strategies optimised for exploitability instead: CFR-BR over the
   rules in the first ``leaf_endgames`` training endgames for ``leaf_iterations`` iterations, with the turn and
   river cards playing the turn and river (:func:`hunl.distill.optimal_leaves.optimise_leaves`; an iteration costs
   about 2 s of one core per flop endgame of 100-combo ranges, and each endgame a worker holds about 1.3 GB, so
   the optimisation runs over a dozen endgames, not hundreds). Each optimised card is kept under
   ``out/cards/`` as soon as it is fitted.
3. **Held-out endgames** ``test_start .. test_start + n_test - 1`` (``test_start`` defaults to ``n_train``; fix it
   to grow the training set around the same held-out endgames): solved, then every policy is played in them by both
   players (:func:`hunl.distill.policy.play_all`) and measured exactly: exploitability (NashConv / 2) in % of the
   pot and mbb/g, and EV against the DCFR solution. The policies: the baselines, the turn card with the river card
   on the river (the turn card plays the flop: :class:`hunl.distill.cards.StreetCards`), and each flop card on the
   flop with the same turn and river cards. Each endgame's scores are written to ``out/test/<k>.json`` as soon as
   they are measured, so a killed run resumes without redoing finished endgames (an endgame missing a policy is
   solved again and only that policy is played). Each score names the cards it was measured with
   (:func:`policy_digest`, of their rules); a policy that now plays other cards (another turn or river card,
   or a flop card learned from other training endgames) is measured again, the others are kept. With
   ``splits``, also the flop cards of ``card_rules`` rules on the flop with the DCFR solution on the turn and
   river, and the turn and river cards with the DCFR solution on the flop
   (:class:`hunl.distill.policy.OnStreets`): which street's cards carry the cost.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from hunl.distill.cards import CARD_RANGES, CardConfig, StreetCards, fit_card, grow_card_tree
from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import DecisionRows, decision_rows
from hunl.distill.pipeline import BASELINES
from hunl.distill.policy import OnStreets, concat_rows, play_beside_solution
from hunl.distill.sampler import EndgameSampler
from rulelearn.data.executors import make_executor
from rulelearn.data.shards import write_atomic
from rulelearn.rules.cards import CardCost, RuleCard

__all__ = ["FlopJob", "run_flop_cards", "write_pair_docs", "train_task", "heldout_task", "flop_card_name", "flop_split_name",
           "policy_digest"]

PAIR = "turn card on the flop and turn, river card on the river"
_SPLIT_SUFFIX = ", DCFR solution on the turn and river"
PAIR_SPLIT = "DCFR solution on the flop, turn card on the turn, river card on the river"
FLOP_NOTES = ("Ranges are the players' ranges at the start of the flop; a strong hand beats 80% of all hands; the "
              "tenths of turn cards rank the turn cards by how much of the opponent's range your hand beats on "
              "them. Play the turn with the turn card and the river with the river card.",
              "Bet small: at most 3/4 pot (half pot in these endgames); all-in: the rest of the stack. k in d: play "
              "it k times out of d.")
_OWN_RANGES = ("Your range is the hands you would have played as you did on the flop (after a check, the hands you "
               "check); the opponent's range is the one at the start of the flop")


def flop_notes(ranges: str = "start") -> tuple[str, ...]:
    """The notes printed under a flop card whose quantities read ``ranges`` (``"start"`` or ``"own"``)."""
    if ranges == "start":
        return FLOP_NOTES
    return (FLOP_NOTES[0].replace("Ranges are the players' ranges at the start of the flop", _OWN_RANGES),
            FLOP_NOTES[1])


@dataclass(frozen=True)
class FlopJob:
    """What ``scripts/rule_cards.py flop`` runs (its options; see the module docstring).

    Attributes
    ----------
    turn_card, river_card : str
        JSON of the turn and river cards (:meth:`rulelearn.rules.cards.RuleCard.to_dict`).
    out : str
        Directory of the per-endgame results (resumable).
    n_train, n_test : int
        Training and held-out flop endgames.
    test_start : int or None
        First held-out endgame of the stream (``None``: ``n_train``). The training endgames are the first
        ``n_train`` endgames outside ``test_start .. test_start + n_test - 1``.
    seed : int
        Stream of :meth:`EndgameSampler.sample`.
    max_combos : int
        Largest range (combos) of :meth:`EndgameSampler.flop`.
    target_pct_pot, iterations : float, int
        DCFR stops at this exploitability (% of the pot) or after this many iterations.
    sizes : tuple of int
        Rules of the flop cards measured whose rules play the equilibrium's mean strategy.
    card_rules : int
        Rules of the flop card printed (and of the cards split, with ``splits``).
    card_leaves : {None, "mean", "optimised"}
        Which card of ``card_rules`` rules is printed: the one of ``sizes`` (equilibrium means) or of
        ``leaf_sizes`` (optimised strategies); ``None``: optimised if ``card_rules`` is in ``leaf_sizes``.
    leaf_sizes : tuple of int
        Rules of the flop cards whose strategies are optimised for exploitability (CFR-BR); default none.
    leaf_endgames, leaf_iterations : int
        Training endgames and iterations of that optimisation (positive when ``leaf_sizes`` is given).
    samples : int
        Decisions drawn to grow the card tree.
    sampler_params : tuple of (str, value) pairs
        Overrides of :meth:`EndgameSampler.flop` (e.g. a smaller tree for a quick run).
    workers : int
    splits : bool
        Also measure the flop cards of ``card_rules`` rules (with equilibrium means and, if fitted, optimised
        strategies) with the DCFR solution on the turn and river, and the turn and river cards with the DCFR
        solution on the flop (not part of the run key: only the new policies are played).
    doc : str or None
        Markdown file whose blocks ``card-<name>`` and ``card-<name>-frontier`` are rewritten.
    ranges : {"start", "own"}
        The ranges the flop card's quantities read: the players' ranges at the start of the flop, or the acting
        player's own range at the decision beside the opponent's at the start of the flop
        (:data:`hunl.distill.decisions.RANGE_MODES`). Not part of the run key: each mode's training rows are
        kept in their own files, and each held-out score names the cards it was measured with, so one
        directory holds runs of both modes.
    pair_only : bool
        Measure only the turn and river cards (the turn card on the flop; with ``splits`` also with the DCFR
        solution on the flop): no training endgames, no flop card, no baselines. ``sizes``, ``card_rules`` and
        ``samples`` are then unused; ``leaf_sizes`` must be empty.
    name : str
        Name of the printed card: ``<cards_dir>/<name>.json``, the figures ``<name>_card.png`` and
        ``<name>_card_frontier.png`` and the blocks of ``doc`` (default ``"flop"``).
    """

    turn_card: str = "docs/cards/turn.json"
    river_card: str = "docs/cards/river.json"
    out: str = "data/cards/flop"
    n_train: int = 60
    n_test: int = 30
    test_start: int | None = None
    seed: int = 0
    max_combos: int = 100
    target_pct_pot: float = 0.5
    iterations: int = 1000
    sizes: tuple = (4, 8, 16)
    card_rules: int = 16
    card_leaves: str | None = None
    leaf_sizes: tuple = ()
    leaf_endgames: int = 0
    leaf_iterations: int = 0
    samples: int = 200_000
    workers: int = 1
    splits: bool = False
    doc: str | None = None
    ranges: str = "start"
    pair_only: bool = False
    name: str = "flop"
    cards_dir: str = "docs/cards"
    figures: str = "docs/figures"
    command: str = "python scripts/rule_cards.py flop"
    sampler_params: tuple = ()

    def __post_init__(self):
        for name in ("n_train", "n_test", "max_combos", "iterations", "samples", "workers"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if self.test_start is not None and (isinstance(self.test_start, bool)
                                            or not isinstance(self.test_start, (int, np.integer))
                                            or self.test_start < 0):
            raise ValueError(f"test_start must be a non-negative integer or None, got {self.test_start!r}")
        if not self.sizes or any(int(s) < 1 for s in self.sizes):
            raise ValueError(f"sizes must be positive rule counts, got {self.sizes!r}")
        if any(int(s) < 1 for s in self.leaf_sizes):
            raise ValueError(f"leaf_sizes must be positive rule counts, got {self.leaf_sizes!r}")
        if self.card_leaves not in (None, "mean", "optimised"):
            raise ValueError(f"card_leaves must be None, 'mean' or 'optimised', got {self.card_leaves!r}")
        if self.card_rules not in self.printed_sizes():
            raise ValueError(f"card_rules must be one of {self.printed_sizes()} (card_leaves {self.card_leaves!r}, "
                             f"sizes {tuple(self.sizes)}, leaf_sizes {tuple(self.leaf_sizes)}), got "
                             f"{self.card_rules!r}")
        if self.leaf_sizes:
            if isinstance(self.leaf_iterations, bool) or self.leaf_iterations < 1:
                raise ValueError(f"leaf_iterations must be a positive integer with leaf_sizes, got "
                                 f"{self.leaf_iterations!r}")
            if not 1 <= self.leaf_endgames <= self.n_train:
                raise ValueError(f"leaf_endgames must be in [1, n_train={self.n_train}] with leaf_sizes, got "
                                 f"{self.leaf_endgames!r}")
        if self.pair_only and self.leaf_sizes:
            raise ValueError(f"leaf_sizes must be empty with pair_only (no flop card is learned), got "
                             f"{self.leaf_sizes!r}")
        if self.ranges not in CARD_RANGES:
            raise ValueError(f"ranges must be one of {CARD_RANGES}, got {self.ranges!r}")
        if not isinstance(self.name, str) or not self.name or "/" in self.name:
            raise ValueError(f"name must be a non-empty file name (no '/'), got {self.name!r}")
        if not self.target_pct_pot > 0:
            raise ValueError(f"target_pct_pot must be positive, got {self.target_pct_pot!r}")

    def printed_sizes(self) -> tuple:
        """The sizes ``card_rules`` may take given ``card_leaves``."""
        if self.card_leaves == "mean":
            return tuple(self.sizes)
        if self.card_leaves == "optimised":
            return tuple(self.leaf_sizes)
        return tuple(self.sizes) + tuple(self.leaf_sizes)

    def printed(self) -> tuple:
        """``(card_rules, optimised)``: the card printed."""
        opt = (int(self.card_rules) in {int(n) for n in self.leaf_sizes} if self.card_leaves is None
               else self.card_leaves == "optimised")
        return int(self.card_rules), opt

    def test_ids(self) -> range:
        """Stream indices of the held-out endgames."""
        start = self.n_train if self.test_start is None else int(self.test_start)
        return range(start, start + self.n_test)

    def train_ids(self) -> list:
        """Stream indices of the training endgames: the first ``n_train`` outside :meth:`test_ids`."""
        test = self.test_ids()
        ids, k = [], 0
        while len(ids) < self.n_train:
            if k not in test:
                ids.append(k)
            k += 1
        return ids

    def sampler(self) -> EndgameSampler:
        """:meth:`EndgameSampler.flop` with ``max_combos`` and the ``sampler_params`` overrides."""
        return EndgameSampler.flop(max_combos=self.max_combos, **dict(self.sampler_params))


def _solve(sampler: EndgameSampler, seed: int, k: int, target: float, iterations: int):
    from hunl.solver.solve import solve_endgame

    game = sampler.game(sampler.sample(seed, k))
    sol = solve_endgame(game, "dcfr", iterations=iterations, target_pct_pot=target, check_every=25)
    return game, sol


def train_task(sampler: EndgameSampler, seed: int, k: int, target: float, iterations: int, path: str,
               ranges: str = "start") -> int:
    """Solve training endgame ``k`` and write its flop decision rows (features on ``ranges``) to ``path``
    (``.npz``); returns ``k``.

    The task a worker of :func:`run_flop_cards` runs (step 1 of the module docstring): the endgame
    ``sampler.game(sampler.sample(seed, k))`` is solved by DCFR, and the file (written atomically) holds the
    fields of :class:`~hunl.distill.decisions.DecisionRows` of its flop decisions, ``dcfr_pct_pot`` (the
    solution's exploitability, % of the pot) and ``iterations`` (DCFR's).

    Parameters
    ----------
    sampler : EndgameSampler
        The flop endgames' sampler (:meth:`FlopJob.sampler`).
    seed : int
        Stream of :meth:`EndgameSampler.sample` (non-negative).
    k : int
        Index of the endgame in the stream (non-negative).
    target : float
        DCFR stops once its exploitability is at most this, in % of the pot.
    iterations : int
        Most DCFR iterations.
    path : str
        The ``.npz`` file written.
    ranges : {"start", "node", "own"}, default "start"
        The range mode of the features (:data:`hunl.distill.decisions.RANGE_MODES`).

    Returns
    -------
    int
        ``k``.

    Raises
    ------
    ValueError
        If ``seed`` or ``k`` is negative, ``iterations < 1``, ``target`` is negative
        (:func:`hunl.solver.solve.solve_endgame`), or ``ranges`` is not a range mode.
    """
    game, sol = _solve(sampler, seed, k, target, iterations)
    rows = decision_rows(game, sol.result.policy.probs, streets=[3], ranges=ranges)
    buf = _npz_bytes({**{f: getattr(rows, f) for f in DecisionRows.__dataclass_fields__},
                      "dcfr_pct_pot": np.float64(sol.exploitability_pct_pot), "iterations": np.int64(sol.iterations)})
    write_atomic(Path(path), buf)
    return k


def _npz_bytes(arrays: dict) -> bytes:
    import io

    b = io.BytesIO()
    np.savez(b, **arrays)
    return b.getvalue()


PLAY_META = ("streets", "ranges")
"""The keys of a card's ``meta`` that change what it plays (the streets it plays, the ranges its quantities read);
the others (``leaf_order``, ``leaf_nodes``, ``threshold_search``, ...) record how it was made."""


def _card_rules(card: RuleCard, legacy: bool = False) -> dict:
    """What a card plays by: its sections (rules and strategies), quantities and the keys of its meta that change
    its play (:data:`PLAY_META`), not its title, notes, printed cost or the meta that records how it was made.
    ``legacy``: all of its meta, as the records and fitted flop cards of runs before 2026-11-28 were keyed (read
    only to keep them valid)."""
    d = card.to_dict()
    meta = d["meta"] if legacy else {k: v for k, v in d["meta"].items() if k in PLAY_META}
    return {"sections": d["sections"], "quantities": d["quantities"], "meta": meta}


def _sha(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def cards_digest(turn: RuleCard, river: RuleCard) -> str:
    """The digest the records of earlier runs name their turn and river cards by (record field ``cards``): of
    their rules and strategies, not of their printed cost. Read only to carry those records over
    (:func:`_carry_over`)."""
    return _sha({street: {k: v for k, v in card.to_dict().items() if k != "cost"}
                 for street, card in (("turn", turn), ("river", river))})


def policy_digest(chooser, legacy: bool = False) -> str | None:
    """A digest of the cards a policy plays: the rules and strategies of each card of a
    :class:`~hunl.distill.cards.StreetCards` by street (not their titles, notes, printed cost or the meta that
    records how they were made: :func:`_card_rules`), and for an :class:`~hunl.distill.policy.OnStreets` also the
    streets it plays; ``None`` for a policy that plays no card (the baselines). A held-out score stores it, and is
    measured again when the policy of that name plays other cards. ``legacy``: the digest of runs before
    2026-11-28, over all of each card's meta (a score stored under it is kept and stamped with the new one).

    Parameters
    ----------
    chooser : object
        A policy of the run: a :class:`~hunl.distill.cards.StreetCards`, an
        :class:`~hunl.distill.policy.OnStreets` (of any chooser) or any other chooser.
    legacy : bool, default False
        The digest of runs before 2026-11-28.

    Returns
    -------
    str or None
        16 hexadecimal digits (the start of a SHA-256 of the JSON of the cards' rules), or ``None`` for a
        policy that plays no card (including an :class:`~hunl.distill.policy.OnStreets` of such a policy).
    """
    if isinstance(chooser, OnStreets):
        inner = policy_digest(chooser.chooser, legacy)
        if inner is None:
            return None
        key = {"on_streets": list(chooser.streets), "cards": inner}
        if chooser.facing is not None:   # absent when None: the digests of earlier runs stay valid
            key["facing"] = chooser.facing
        return _sha(key)
    if isinstance(chooser, StreetCards):
        return _sha({str(st): _card_rules(card, legacy) for st, card in chooser.cards.items()})
    return None


def _restamp(rec: dict, digests: dict, legacy: dict) -> bool:
    """Stamp the scores stored under a policy's legacy digest (``legacy[name]``, :func:`policy_digest` with
    ``legacy=True``) with its current one (``digests[name]``): the same cards, keyed without their provenance.
    Returns whether any score changed."""
    changed = False
    for name, score in rec["policies"].items():
        if name in digests and digests[name] is not None and score.get("cards") == legacy[name] \
                and legacy[name] != digests[name]:
            score["cards"] = digests[name]
            changed = True
    return changed


def _carry_over(rec: dict, digests: dict, legacy: str) -> None:
    """Stamp the scores of a record written before scores named their cards (it has a record-level ``cards``
    digest of the turn and river cards) with the digests they were measured with, as those runs trusted them:
    a score that plays the turn or river card holds if the record's digest is ``legacy`` (the current turn and
    river cards), a flop card's score holds for the flop card of the same settings (the run key), and the rest
    are left unstamped (measured again). ``digests``: :func:`policy_digest` of each policy of the run."""
    old = rec.pop("cards", None)
    if old is None:
        return
    for name, score in rec["policies"].items():
        if "cards" in score or name not in digests:
            continue
        d = digests[name]
        if d is not None and (old == legacy or not plays_below_flop(name)):
            score["cards"] = d


def heldout_task(sampler: EndgameSampler, seed: int, k: int, target: float, iterations: int, choosers: dict,
                 path: str, digests: dict) -> int:
    """Solve held-out endgame ``k``, score ``choosers`` in it and merge the scores into ``path`` (JSON), each with
    the digest of the cards it played (``digests[name]``, :func:`policy_digest`; ``None``: no card); returns
    ``k``.

    The task a worker of :func:`run_flop_cards` runs (step 3 of the module docstring). The record (written
    atomically) keeps the scores already in it and gets the endgame's ``k``, ``pot`` and ``stack`` (chips),
    ``nodes``, ``hands``, ``dcfr_pct_pot``, ``dcfr_iterations``, ``solve_s`` and ``seconds``; each policy's
    score holds ``exploitability_pct_pot`` and ``exploitability_mbb`` (NashConv / 2 when both players play
    it), ``ev_pct_pot`` (EV against the DCFR solution, % of the pot) and ``cards`` (the digest, when not
    ``None``).

    Parameters
    ----------
    sampler : EndgameSampler
        The flop endgames' sampler (:meth:`FlopJob.sampler`).
    seed : int
        Stream of :meth:`EndgameSampler.sample` (non-negative).
    k : int
        Index of the endgame in the stream (non-negative).
    target : float
        DCFR stops once its exploitability is at most this, in % of the pot.
    iterations : int
        Most DCFR iterations.
    choosers : dict of str to chooser
        ``{name: chooser}`` to play (:func:`hunl.distill.policy.play_beside_solution`: an
        :class:`~hunl.distill.policy.OnStreets` plays the DCFR solution on its other streets).
    path : str
        The endgame's JSON record (``out/test/<k>.json``), created if missing.
    digests : dict of str to str or None
        :func:`policy_digest` of each policy, by name (at least every name of ``choosers``).

    Returns
    -------
    int
        ``k``.

    Raises
    ------
    ValueError
        If ``seed`` or ``k`` is negative, ``iterations < 1`` or ``target`` is negative
        (:func:`hunl.solver.solve.solve_endgame`).
    KeyError
        If a name of ``choosers`` is missing from ``digests``.
    """
    t0 = time.perf_counter()
    game, sol = _solve(sampler, seed, k, target, iterations)
    rec = json.loads(Path(path).read_text()) if Path(path).exists() else {"policies": {}}
    rec.update(k=k, pot=game.pot, stack=game.config.stack, nodes=int(game.tree.n_nodes),
               hands=[int(h) for h in game.num_hands], dcfr_pct_pot=sol.exploitability_pct_pot,
               dcfr_iterations=sol.iterations, solve_s=sol.seconds)
    for name, pol in play_beside_solution(game, choosers, sol.result.policy.probs).items():
        e = evaluate_policy(game, pol, sol.result.policy)
        score = {"exploitability_pct_pot": e.exploitability_pct_pot, "exploitability_mbb": e.exploitability_mbb,
                 "ev_pct_pot": e.ev_pct_pot}
        if digests[name] is not None:
            score["cards"] = digests[name]
        rec["policies"][name] = score
    rec["seconds"] = time.perf_counter() - t0
    write_atomic(Path(path), json.dumps(rec).encode())
    return k


def _load_card(path: str) -> RuleCard:
    return RuleCard.from_dict(json.loads(Path(path).read_text()))


def _flop_card(n_rules: int, optimised: bool) -> str:
    return f"flop card of {n_rules} rules" + (" (optimised strategies)" if optimised else "") + " on the flop"


def flop_card_name(n_rules: int, optimised: bool = False) -> str:
    """The name of the flop card of ``n_rules`` rules (with ``optimised``, its strategies optimised by CFR-BR)
    played with the turn and river cards.

    The policy name of the flop card in :func:`run_flop_cards`, the key of its scores in the held-out records
    and in the summary's ``policies`` and ``cards``.

    Parameters
    ----------
    n_rules : int
        Number of rules of the flop card.
    optimised : bool, default False
        The card whose strategies were optimised by CFR-BR (rather than the equilibrium's mean strategies
        rounded to plain mixes).

    Returns
    -------
    str
        E.g. ``"flop card of 8 rules on the flop, turn card on the turn, river card on the river"`` (with
        ``optimised``, ``"flop card of 8 rules (optimised strategies) on the flop, ..."``).
    """
    return f"{_flop_card(n_rules, optimised)}, turn card on the turn, river card on the river"


def flop_split_name(n_rules: int, optimised: bool = False) -> str:
    """Name of the flop card of ``n_rules`` rules on the flop with the DCFR solution on the turn and river.

    The policy name of the ``splits`` comparison (see the module docstring), the key of its scores in the
    held-out records; :func:`plays_below_flop` is false for it.

    Parameters
    ----------
    n_rules : int
        Number of rules of the flop card.
    optimised : bool, default False
        The card whose strategies were optimised by CFR-BR (rather than the equilibrium's mean strategies
        rounded to plain mixes).

    Returns
    -------
    str
        E.g. ``"flop card of 8 rules on the flop, DCFR solution on the turn and river"`` (with ``optimised``,
        ``"flop card of 8 rules (optimised strategies) on the flop, ..."``).
    """
    return _flop_card(n_rules, optimised) + _SPLIT_SUFFIX


def plays_below_flop(name: str) -> bool:
    """Whether the policy ``name`` of a held-out record plays the turn or river card (its score holds only for the
    cards it was measured with): every policy but the baselines and the flop cards with DCFR below the flop."""
    return name not in BASELINES and not name.endswith(_SPLIT_SUFFIX)


def run_flop_cards(job: FlopJob) -> dict:
    """Run ``job`` (see the module docstring); returns the summary written to ``out/flop.json`` (with
    ``pair_only``, to ``out/pair.json``, without training figures or cards).

    Also writes ``out/key.json`` (the run's settings), the training rows and held-out records, the optimised
    cards under ``out/cards/``, and (without ``pair_only``) the printed card to ``out/card.json``; with
    ``job.doc`` the blocks of that doc (:func:`write_flop_docs`, or :func:`write_pair_docs` with
    ``pair_only``).

    Parameters
    ----------
    job : FlopJob
        The run's settings: the options of ``scripts/rule_cards.py flop``.

    Returns
    -------
    dict
        ``n_train``, ``n_test``, ``test_ids`` (first and last held-out endgame of the stream),
        ``dcfr_test_pct_pot`` (the held-out DCFR solutions' mean exploitability, % of the pot), ``nodes``
        (public nodes of a flop endgame), ``policies`` (by name: the held-out means of
        ``exploitability_pct_pot`` with its standard deviation ``sd``, ``exploitability_mbb`` and
        ``ev_pct_pot``, EV against the DCFR solution), ``cards`` (by policy name of each flop card:
        ``n_rules``, ``n_conditions``, ``optimised``, the name of its ``split`` policy and, for an optimised
        card, the optimisation's ``log``; empty with ``pair_only``), ``command``, ``turn_card``,
        ``river_card``, ``pair_only``, ``seconds``, and without ``pair_only`` ``train_rows`` (flop decisions
        of the training endgames) and ``dcfr_train_pct_pot``.

    Raises
    ------
    ValueError
        If ``job.out`` holds a run with other settings (its ``key.json``).
    FileNotFoundError
        If the turn or river card (``job.turn_card``, ``job.river_card``) is missing.
    """
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    out = Path(job.out)
    (out / "train").mkdir(parents=True, exist_ok=True)
    (out / "test").mkdir(parents=True, exist_ok=True)
    key = {k: v for k, v in asdict(job).items() if k in ("n_train", "seed", "max_combos", "target_pct_pot",
                                                         "iterations", "samples")}
    if job.test_start is not None and job.test_start != job.n_train:
        key["test_start"] = int(job.test_start)   # the training endgames skip the held-out block
    if job.sampler_params:
        key["sampler"] = job.sampler().config()
    key_path = out / "key.json"
    if key_path.exists() and json.loads(key_path.read_text()) != key:
        raise ValueError(f"out: {out} holds a run with other settings ({key_path}); use another directory")
    key_path.write_text(json.dumps(key))
    sampler = job.sampler()
    turn, river = _load_card(job.turn_card), _load_card(job.river_card)
    rows, dcfr_train, cards, logs = (None, [], {}, {}) if job.pair_only else _train_and_fit(job, turn, river)
    # 3. held-out endgames
    choosers = {} if job.pair_only else dict(BASELINES)
    choosers[PAIR] = StreetCards({4: turn, 5: river})
    for (n, opt), card in cards.items():
        choosers[flop_card_name(n, opt)] = StreetCards({3: card, 4: turn, 5: river})
    printed = job.printed()
    if job.splits:
        for opt in (False, True):
            if (printed[0], opt) in cards:
                name = flop_split_name(printed[0], opt)
                choosers[name] = OnStreets(choosers[flop_card_name(printed[0], opt)], (3,), name)
        choosers[PAIR_SPLIT] = OnStreets(choosers[PAIR], (4, 5), PAIR_SPLIT)
    legacy = cards_digest(turn, river)
    digests = {name: policy_digest(c) for name, c in choosers.items()}
    old_digests = {name: policy_digest(c, legacy=True) for name, c in choosers.items()}
    ids = job.test_ids()
    tasks = []
    for k in ids:
        path = out / "test" / f"{k}.json"
        rec = json.loads(path.read_text()) if path.exists() else {"policies": {}}
        if "cards" in rec:
            _carry_over(rec, digests, legacy)
            write_atomic(path, json.dumps(rec).encode())
        elif _restamp(rec, digests, old_digests):
            write_atomic(path, json.dumps(rec).encode())
        missing = {n: c for n, c in choosers.items()
                   if n not in rec["policies"] or rec["policies"][n].get("cards") != digests[n]}
        if missing:
            tasks.append((sampler, job.seed, k, job.target_pct_pot, job.iterations, missing, str(path), digests))
    with make_executor(job.workers, None, n_tasks=max(len(tasks), 1)) as ex, \
            tqdm(total=job.n_test, initial=job.n_test - len(tasks), unit="endgame", desc="flop: held out") as bar:
        for _ in ex.imap_unordered(heldout_task, tasks):
            bar.update(1)
    recs = [json.loads((out / "test" / f"{k}.json").read_text()) for k in ids]
    result = {"n_train": job.n_train, "n_test": job.n_test, "test_ids": [ids.start, ids.stop - 1],
              "dcfr_test_pct_pot": float(np.mean([r["dcfr_pct_pot"] for r in recs])),
              "nodes": recs[0]["nodes"], "policies": {}, "command": job.command,
              "turn_card": job.turn_card, "river_card": job.river_card, "pair_only": job.pair_only}
    if rows is not None:
        result.update(train_rows=int(rows.street.size), dcfr_train_pct_pot=float(np.mean(dcfr_train)))
    for name in choosers:
        x = np.array([r["policies"][name]["exploitability_pct_pot"] for r in recs])
        result["policies"][name] = {
            "exploitability_pct_pot": float(x.mean()), "sd": float(x.std(ddof=1)) if x.size > 1 else 0.0,
            "exploitability_mbb": float(np.mean([r["policies"][name]["exploitability_mbb"] for r in recs])),
            "ev_pct_pot": float(np.mean([r["policies"][name]["ev_pct_pot"] for r in recs]))}
    result["cards"] = {}
    if job.pair_only:
        result["seconds"] = time.perf_counter() - t0
        (out / "pair.json").write_text(json.dumps(result, indent=1))
        if job.doc:
            write_pair_docs(job, result)
        return result
    for (n, opt), card in cards.items():
        name = flop_card_name(n, opt)
        s = result["policies"][name]
        result["cards"][name] = {"n_rules": card.n_rules, "n_conditions": card.n_conditions, "optimised": opt,
                                 "split": flop_split_name(n, opt)}
        if opt:
            result["cards"][name]["log"] = logs[n]
        how = (f"its rules' strategies optimised by CFR-BR over {job.leaf_endgames} training endgames for "
               f"{job.leaf_iterations} iterations" if opt else "its rules playing the equilibrium's mean strategy")
        cards[(n, opt)] = RuleCard(
            card.title, card.sections, card.quantities,
            CardCost(s["exploitability_pct_pot"], s["sd"], "% of the pot", job.n_test, s["exploitability_mbb"],
                     f"NashConv / 2 of the flop card ({how}; with the turn card `{job.turn_card}` on the turn and "
                     f"the river card `{job.river_card}` on the river) played by both players, mean over "
                     f"{job.n_test} held-out solved flop endgames"), flop_notes(job.ranges), card.meta)
    card = cards[printed]
    (out / "card.json").write_text(json.dumps(card.to_dict(), indent=1))
    result["seconds"] = time.perf_counter() - t0
    (out / "flop.json").write_text(json.dumps(result, indent=1))
    print(card.to_text())
    if job.doc:
        write_flop_docs(job, result, card)
    return result


def _train_and_fit(job: FlopJob, turn: RuleCard, river: RuleCard):
    """Steps 1 and 2 of :func:`run_flop_cards`: solve the training endgames (resumable), grow the flop card tree
    and fit the flop cards. Returns ``(rows, dcfr_train, cards, logs)``: the training rows
    (:class:`hunl.distill.decisions.DecisionRows`), each training endgame's DCFR exploitability (% of the pot),
    the cards by ``(n_rules, optimised)`` and the optimisation logs by ``n_rules``."""
    from tqdm.auto import tqdm

    out, sampler = Path(job.out), job.sampler()
    # 1. training endgames
    train_ids = job.train_ids()
    suffix = "" if job.ranges == "start" else f"_{job.ranges}"     # the rows of each range mode in their own files
    todo = [k for k in train_ids if not (out / "train" / f"{k}{suffix}.npz").exists()]
    tasks = [(sampler, job.seed, k, job.target_pct_pot, job.iterations, str(out / "train" / f"{k}{suffix}.npz"),
              job.ranges) for k in todo]
    with make_executor(job.workers, None, n_tasks=max(len(tasks), 1)) as ex, \
            tqdm(total=job.n_train, initial=job.n_train - len(todo), unit="endgame", desc="flop: train") as bar:
        for _ in ex.imap_unordered(train_task, tasks):
            bar.update(1)
    parts, dcfr_train = [], []
    for k in train_ids:
        with np.load(out / "train" / f"{k}{suffix}.npz") as z:
            parts.append(DecisionRows.from_stored(z))
            dcfr_train.append(float(z["dcfr_pct_pot"]))
    rows = concat_rows(parts)

    # 2. flop cards
    config = CardConfig(max_leaves=max(tuple(job.sizes) + tuple(job.leaf_sizes)), n_samples=job.samples)
    tree, Z, Y = grow_card_tree(rows, config)
    cards, logs = {}, {}
    for n in job.sizes:
        card, _, _ = fit_card(tree, int(n), Z, Y, (), config, iterations=0, ranges=job.ranges,
                              title=f"HUNL flop rule card, {n} rules")
        cards[(int(n), False)] = card
    for n in job.leaf_sizes:
        cards[(int(n), True)], logs[int(n)] = _optimised_card(job, int(n), tree, Z, Y, config, train_ids, turn,
                                                              river)
    return rows, dcfr_train, cards, logs


def _optimised_paths(job: FlopJob, n: int, train_ids, turn: RuleCard, river: RuleCard) -> tuple[Path, Path]:
    """Where the optimised flop card of ``n`` rules is kept (``out/cards/flop-<n>-optimised-<tag>.json``, the tag a
    digest of the settings and of what the turn and river cards play), and where a run before 2026-11-28 kept it
    (the tag over the cards' whole meta, provenance included)."""
    key = {"n": n, "n_train": job.n_train, "samples": job.samples, "train_ids": list(train_ids),
           "leaf_endgames": job.leaf_endgames, "leaf_iterations": job.leaf_iterations,
           "turn": _card_rules(turn), "river": _card_rules(river)}
    if job.ranges != "start":                 # absent on starting ranges: the cards of earlier runs stay valid
        key["ranges"] = job.ranges
    old = dict(key, turn=_card_rules(turn, legacy=True), river=_card_rules(river, legacy=True))
    return tuple(Path(job.out) / "cards" / f"flop-{n}-optimised-{_sha(k)}.json" for k in (key, old))


def _optimised_card(job: FlopJob, n: int, tree, Z, Y, config, train_ids, turn: RuleCard, river: RuleCard):
    """The flop card of ``n`` rules with its strategies optimised by CFR-BR over the first ``job.leaf_endgames``
    training endgames, the turn and river cards playing below (:func:`hunl.distill.cards.fit_card` with
    ``fixed``); read from ``out/cards/`` if a run with the same settings and cards fitted it. Returns the card
    and the optimisation's log."""
    path, legacy = _optimised_paths(job, n, train_ids, turn, river)
    path = legacy if not path.exists() and legacy.exists() else path
    if path.exists():
        d = json.loads(path.read_text())
        return RuleCard.from_dict(d["card"]), d["log"]
    sampler = job.sampler()
    games = [sampler.game(sampler.sample(job.seed, k)) for k in train_ids[:job.leaf_endgames]]
    card, _, log = fit_card(tree, n, Z, Y, games, config, iterations=job.leaf_iterations, workers=job.workers,
                            ranges=job.ranges,
                            title=f"HUNL flop rule card, {n} rules", progress=True, fixed={4: turn, 5: river})
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"card": card.to_dict(), "log": log}).encode())
    return card, log


def flop_frontier_plot(result: dict, path) -> None:
    """Held-out exploitability (% of the pot) of the flop cards against the conditions on them (the turn and
    river cards on their streets), beside the turn card on the flop and the baselines (lines) and, with splits,
    the printed flop card with the DCFR solution on the turn and river (a point)."""
    from rulelearn.report.plots import plot_card_frontier

    pol = result["policies"]
    curves = {}
    for opt, label in ((False, "equilibrium means"), (True, "strategies optimised by CFR-BR")):
        names = sorted((n for n, c in result["cards"].items() if c.get("optimised", False) == opt),
                       key=lambda n: result["cards"][n]["n_rules"])
        if names:
            curves[f"flop cards (round thresholds, <= 3 conditions a rule, {label} in plain mixes), turn and "
                   "river cards on their streets"] = ([result["cards"][n]["n_conditions"] for n in names],
                                                      [pol[n]["exploitability_pct_pot"] for n in names])
    refs = [(PAIR, pol[PAIR]["exploitability_pct_pot"])]
    refs += [(f"{n} (baseline)", pol[n]["exploitability_pct_pot"]) for n in BASELINES
             if n in pol and n != "uniform random"]
    points = [(c["split"], c["n_conditions"], pol[c["split"]]["exploitability_pct_pot"])
              for c in result["cards"].values() if c["split"] in pol]
    plot_card_frontier(curves, path, f"HUNL flop rule cards: {result['n_test']} held-out flop endgames",
                       "held-out mean exploitability (% of the pot)", refs, points)


def _ids(result: dict) -> str:
    first, last = result.get("test_ids", (result["n_train"], result["n_train"] + result["n_test"] - 1))
    return f"endgames {first}-{last} of the stream"


def _policy_rows(result: dict) -> tuple:
    """The doc table of ``result``'s policies: ``(header, rows)``."""
    rows = []
    for name, s in result["policies"].items():
        c = result["cards"].get(name)
        rules = f"{c['n_rules']} ({c['n_conditions']} conditions)" if c else ""
        rows.append((name, rules, f"{s['exploitability_pct_pot']:.2f} ± {s['sd']:.2f}",
                     f"{s['exploitability_mbb']:,.0f}", f"{s['ev_pct_pot']:.2f}"))
    header = ["policy", "flop rules", "held-out exploitability, % pot (mean ± sd)", "mbb/g", "EV vs DCFR, % pot"]
    return header, rows


def _measured(job: FlopJob, result: dict) -> str:
    return (f"`{job.command}` (this run: {result['seconds'] / 60:.0f} min on this machine; endgames already "
            f"solved and scored under `{job.out}` are read, not redone). {result['n_test']} held-out flop endgames "
            f"({_ids(result)}, {result['nodes']:,} public nodes each), solved by DCFR to "
            f"{result['dcfr_test_pct_pot']:.2f}% of the pot on average")


def write_pair_docs(job: FlopJob, result: dict) -> None:
    """The block ``card-<name>`` of ``job.doc`` for a ``pair_only`` run: the turn and river cards' held-out
    scores in the flop endgames (no flop card, no baselines).

    A doc that does not exist yet starts as ``# HUNL``; its other blocks are kept
    (:func:`rulelearn.report.docblocks.write_blocks`).

    Parameters
    ----------
    job : FlopJob
        The run; its ``doc`` (the Markdown file written, not None), ``name``, ``command`` and ``out`` are
        used.
    result : dict
        The summary :func:`run_flop_cards` returns for the run (``pair_only``): its ``policies``, ``cards``,
        ``n_test``, ``n_train``, ``test_ids``, ``nodes``, ``dcfr_test_pct_pot``, ``seconds``, ``turn_card``
        and ``river_card`` are used.

    Raises
    ------
    KeyError
        If ``result`` lacks one of those fields.
    TypeError
        If ``job.doc`` is None.
    """
    from rulelearn.report.docblocks import markdown_table, write_blocks

    header, rows = _policy_rows(result)
    text = (_measured(job, result) + f"; turn card `{result['turn_card']}` (on the flop and turn), river card "
            f"`{result['river_card']}`; no flop card and no baselines (they do not depend on the cards).\n\n"
            + markdown_table((header[:1] + header[2:], [r[:1] + r[2:] for r in rows]), right=header[2:]))
    write_blocks(job.doc, {f"card-{job.name}": text}, title="# HUNL\n")


def write_flop_docs(job: FlopJob, result: dict, card: RuleCard) -> None:
    """The card's JSON (``<cards_dir>/<name>.json``), its one-page figure (``<figures>/<name>_card.png``), the
    frontier figure (``<figures>/<name>_card_frontier.png``) and the blocks ``card-<name>`` and
    ``card-<name>-frontier`` of ``job.doc``."""
    from hunl.distill.card_figure import card_page
    from rulelearn.report.docblocks import markdown_table, write_blocks

    Path(job.cards_dir).mkdir(parents=True, exist_ok=True)
    (Path(job.cards_dir) / f"{job.name}.json").write_text(json.dumps(card.to_dict(), indent=1))
    card_page(card, Path(job.figures) / f"{job.name}_card.png")
    flop_frontier_plot(result, Path(job.figures) / f"{job.name}_card_frontier.png")
    header, rows = _policy_rows(result)
    text = (_measured(job, result) + f"; flop cards learned from the {result['train_rows']:,} flop decisions of "
            f"{result['n_train']} training endgames (DCFR at {result['dcfr_train_pct_pot']:.2f}%)"
            + (f", the optimised cards' strategies by CFR-BR over the first {job.leaf_endgames} of them for "
               f"{job.leaf_iterations} iterations" if job.leaf_sizes else "") + "; turn card "
            f"`{result['turn_card']}`, river card `{result['river_card']}`.\n\n"
            + markdown_table((header, rows), right=header[2:]))
    write_blocks(job.doc, {f"card-{job.name}-frontier": text,
                           f"card-{job.name}": f"`{job.command}`\n\n" + card.to_markdown("####")}, title="# HUNL\n")

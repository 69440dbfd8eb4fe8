"""A card's round thresholds chosen by what they cost: ``scripts/rule_cards.py thresholds``.

A card's thresholds come from its tree, grown to imitate the equilibrium (:func:`hunl.distill.cards.grow_card_tree`):
each split is the round value that best separates the equilibrium's strategies, not the one whose rules cost least
once they play one strategy each. :func:`thresholds_by_exploitability` moves them by cost instead -- coordinate
descent over the card's splits, as :func:`hunl.distill.plain_search.plain_by_exploitability` does over its mixes:

* a *split* is a threshold ``t`` of a quantity in one group of sections -- sections that can share decisions, such
  as the river's "either position, not facing a bet" and the two positions' "not facing a bet"
  (:meth:`rulelearn.rules.cards.RuleCard.section_groups`): a decision one leaves falls to the next; every
  condition of the group on the quantity at ``t`` (``x <= t`` on one side, ``x > t`` on the other, wherever the
  tree or the merge of equal rules left them) moves with it, so the rules keep their order and their mixes;
* a split may move to the round values of its quantity's grid (:func:`hunl.distill.quantities.feature_grid`)
  within ``steps`` grid places of ``t`` and strictly between the group's neighbouring thresholds of the same
  quantity, so no two thresholds cross: the rules cut the decisions into the same cells as before, each cell moved
  along the quantity, so a decision that had a rule still has one (an "otherwise" rule takes what the others
  leave, as before);
* every move of a split is played in the training endgames with the rest of the card held (one best-response pass
  per endgame, :class:`SplitWorkers`), and the cheapest is kept if it lowers the mean exploitability.

The rule each information set reads is found again for every try from the features stored when the endgames were
loaded. For a card reading the player's own range (``ranges="own"``), those features read the range of the card
the sweep started from (a move changes which hands the card would have checked, and so the own range, only at the
next sweep, which loads them again); the figures the search reports are exact at the start of each sweep, the card
it returns is the one of the least of them, and the held-out measurement (``rule_cards.py streets``) is exact.

A card that plays on several kinds of endgame -- a river card plays the rivers of river endgames and of turn
endgames -- can be searched over several databases at once (``--db A B``, a fixed turn card beside it): each
database's endgames together weigh as much as another's (``weights``), so the training figure is the mean of the
databases' means, and the card's held-out cost is measured in each database.

Each rule's coverage is counted again on the training endgames' decision rows (the equilibrium's decisions,
weighted by probability times stake, as the card's tree was grown on; :func:`hunl.distill.pipeline.rows_task`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hunl.distill.actions import class_routing
from hunl.distill.cards import CARD_FEATURES, CARD_KEY, CardPolicy, _design_of, card_model
from hunl.distill.decisions import range_weights
from hunl.distill.hand_order import (
    HAND_ORDER_NOTE,
    HAND_ORDERS,
    POLAR_NOTE,
    hand_positions,
    order_codes,
    strength_order,
)
from hunl.distill.optimal_leaves import (
    _flatten,
    _NodeLeaves,
    endgame_features,
    exploitability_pct,
    model_codes,
    node_groups,
    place_inputs,
    reach_of,
)
from hunl.distill.quantities import feature_grid
from rulelearn.data.executors import ShardWorkers, deal, release_memory
from rulelearn.rules.cards import CardCondition, CardRule, CardSection, RuleCard
from rulelearn.validation import check_game_weights, check_int

__all__ = ["SearchState", "SplitWorkers", "ThresholdJob", "card_splits", "move_split", "printed_card", "rule_coverage",
           "run_threshold_search", "rule_weight", "split_moves", "thresholds_by_exploitability", "with_coverage",
           "with_orders", "with_strategies"]


def _group_of(card: RuleCard, i: int) -> list[int]:
    group = next((g for g in card.section_groups() if i in g), None)
    if group is None:
        raise ValueError(f"split: section {i!r} is not a section of the card (0 .. {len(card.sections) - 1})")
    return group


def card_splits(card: RuleCard) -> list[tuple[int, str, float]]:
    """The card's splits: ``(first section of its group, quantity, threshold)`` of every distinct threshold the
    rules of a group of sections (:meth:`rulelearn.rules.cards.RuleCard.section_groups`) test, in the order the
    rules first name them.

    Parameters
    ----------
    card : RuleCard

    Returns
    -------
    list of (int, str, float)
        ``(section, quantity, threshold)``: the first section of the group (an index into ``card.sections``),
        the name of the quantity a rule's condition tests and its threshold; the groups in the order of
        :meth:`~rulelearn.rules.cards.RuleCard.section_groups`. The sections' own conditions are not splits.
    """
    out: list = []
    for g in card.section_groups():
        for i in g:
            for r in card.sections[i].rules:
                for c in r.conditions:
                    key = (g[0], c.feature, float(c.threshold))
                    if key not in out:
                        out.append(key)
    return out


def split_moves(card: RuleCard, split: tuple[int, str, float], steps: int = 2) -> list[float]:
    """The round thresholds ``split`` may move to: the grid values of its quantity within ``steps`` places of its
    threshold, strictly between the neighbouring thresholds of the same quantity in its group of sections
    (ascending; the threshold itself left out).

    Parameters
    ----------
    card : RuleCard
    split : tuple of (int, str, float)
        ``(section, quantity, threshold)`` as :func:`card_splits` gives it: a section of the group (an index
        into ``card.sections``), the quantity's name and its threshold.
    steps : int, default 2
        Grid places each way from the grid value nearest the threshold.

    Returns
    -------
    list of float
        The candidate thresholds, ascending, in the quantity's unit; empty if none qualifies.

    Raises
    ------
    ValueError
        If ``steps < 1``, the quantity has no grid of round thresholds, or ``split[0]`` is not a section of
        ``card``.
    """
    steps = check_int("steps", steps, 1)
    i, name, t = split
    grid = feature_grid(name)
    if grid is None:
        raise ValueError(f"quantity {name!r} has no grid of round thresholds")
    grid = np.asarray(grid, dtype=np.float64)
    others = sorted({float(c.threshold) for j in _group_of(card, i) for r in card.sections[j].rules
                     for c in r.conditions if c.feature == name and not np.isclose(c.threshold, t)})
    lo = max([o for o in others if o < t], default=-np.inf)
    hi = min([o for o in others if o > t], default=np.inf)
    at = int(np.argmin(np.abs(grid - t)))
    near = grid[max(0, at - steps):at + steps + 1]
    return [float(v) for v in near if lo < v < hi and not np.isclose(v, t)]


def move_split(card: RuleCard, split: tuple[int, str, float], new: float) -> RuleCard:
    """``card`` with every condition on quantity ``split[1]`` at threshold ``split[2]`` in the group of sections of
    section ``split[0]`` moved to ``new`` (rules, their order and their mixes kept).

    Within its group no threshold of the quantity lies between the old and the new value
    (:func:`split_moves`), so the rules cut the decisions into the same cells, each moved along the quantity: no
    decision is left without a rule and none gains a second one that it did not have.

    Parameters
    ----------
    card : RuleCard
    split : tuple of (int, str, float)
        ``(section, quantity, threshold)`` as :func:`card_splits` gives it: a section of the group (an index
        into ``card.sections``), the quantity's name and its threshold.
    new : float
        The new threshold, in the quantity's unit: one of :func:`split_moves` (not checked here).

    Returns
    -------
    RuleCard
        A new card (``card`` is unchanged); the conditions matched are those at a threshold close to
        ``split[2]`` (:func:`numpy.isclose`); the sections' own conditions are kept.

    Raises
    ------
    ValueError
        If ``split[0]`` is not a section of ``card``.
    """
    i, name, t = split

    def moved(r: CardRule) -> CardRule:
        conds = tuple(CardCondition(c.feature, c.op, float(new)) if c.feature == name and np.isclose(c.threshold, t)
                      else c for c in r.conditions)
        return dataclasses.replace(r, conditions=conds)

    sections = list(card.sections)
    for j in _group_of(card, i):
        sections[j] = CardSection(sections[j].title, tuple(moved(r) for r in sections[j].rules),
                                  sections[j].conditions)
    return dataclasses.replace(card, sections=tuple(sections))


def card_quantities(card: RuleCard) -> tuple[str, ...]:
    """The quantities the card's conditions (sections' and rules') read, in :data:`CARD_FEATURES` order."""
    used = {c.feature for sec in card.sections for c in sec.conditions + tuple(
        c for r in sec.rules for c in r.conditions)}
    return tuple(f for f in CARD_FEATURES if f in used)


def threshold_changes(before: RuleCard, after: RuleCard) -> list[tuple[str, float, float]] | None:
    """``(quantity, low, high)`` of every condition whose threshold differs between two cards of the same rules:
    only a decision whose value of the quantity lies in ``[low, high]`` can read another rule. ``None`` if the
    cards differ in more than thresholds (sections, rules, or a condition's quantity or side)."""
    if len(before.sections) != len(after.sections):
        return None
    out = []

    def pair(cb: tuple, ca: tuple) -> bool:
        if len(cb) != len(ca):
            return False
        for b, a in zip(cb, ca):
            if b.feature != a.feature or b.op != a.op:
                return False
            if b.threshold != a.threshold:
                out.append((b.feature, float(min(b.threshold, a.threshold)), float(max(b.threshold, a.threshold))))
        return True

    for sb, sa in zip(before.sections, after.sections):
        if len(sb.rules) != len(sa.rules) or not pair(sb.conditions, sa.conditions):
            return None
        for rb, ra in zip(sb.rules, sa.rules):
            if not pair(rb.conditions, ra.conditions):
                return None
    return out


class _SplitShard:
    """Training endgames with their designs stored (the state of one worker of :class:`SplitWorkers`): the
    exploitability of any card with the same rules, their thresholds moved, without reading features again.

    Only the decisions whose value of a moved quantity lies between a condition's old and new threshold read the
    rules again (:func:`threshold_changes`): every other decision meets each condition as before, so it reads the
    same rule."""

    def __init__(self, card: RuleCard, fixed, games, weights, quantities=(), ranked=False):
        model = card_model(card, fixed)
        reader = model if isinstance(model, CardPolicy) else model.learn
        self.card, self.fixed, self.games = card, fixed, list(games)
        self.weights = np.asarray(weights, dtype=np.float64)
        used = set(card_quantities(card)) | set(quantities)
        self.names = tuple(f for f in CARD_FEATURES if f in used)
        cols = [CARD_FEATURES.index(f) for f in self.names]
        moving: list = []          # (row positions, design over the card's quantities) of the moving card's rows
        ids: list = []             # every row's rule under ``card``, endgame after endgame
        self.ordered = bool(ranked or getattr(model, "reads_hand_order", False))
        ranks: list = []           # with hand orders: the moving card's rows' (rows, node, strength, weight)
        fixed_places: list = []    # and the fixed cards' rows' places, which no move changes: (rows, lo, hi)
        start = n_nodes = 0
        self.flat = []             # per endgame: the start table and its nodes, whose flat leaves hold row positions
        for g in self.games:
            ctx, chunks, reach = endgame_features(model, g, with_reach=True)
            keys, where = [None] * ctx.nodes.size, [None] * ctx.nodes.size
            for which, feats in chunks:
                for group, members in node_groups(ctx, which):
                    sizes = [feats[i].shape[0] for i in members]
                    X = np.concatenate([feats[i] for i in members])
                    key, part = model.leaf_ids(*group, X)
                    rows = np.arange(start, start + X.shape[0], dtype=np.int64)
                    ids.append(np.asarray(part, dtype=np.int64))
                    if self.ordered:
                        w = range_weights(g, ctx, which[members], reach_of(reach, model, group[0]))
                        rank = place_inputs([feats[i] for i in members], w, n_nodes)
                        if key == CARD_KEY:
                            ranks.append((rows, *rank))
                        else:
                            fixed_places.append((rows, *hand_positions(ids[-1], *rank)))
                        n_nodes += len(members)
                    if key == CARD_KEY:               # a fixed card's rows keep their rules: no design kept
                        moving.append((rows, reader.design(group[0], group[1], X)[:, cols]))
                    for i, r in zip(members, np.split(rows, np.cumsum(sizes)[:-1])):
                        keys[which[i]], where[which[i]] = key, r
                    start += X.shape[0]
            nodes = [_NodeLeaves(int(n), int(ctx.player[k]), g.tree.children(int(n)),
                                 class_routing(ctx.node_classes(int(n))), keys[k], where[k])
                     for k, n in enumerate(ctx.nodes)]
            self.flat.append(_flatten(g, nodes))
            release_memory()                  # the endgame's features are gone: give their heap back
        self.ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        if self.ordered:           # the strength order within a node does not move with the thresholds: sort once
            empty = (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0),) * 2
            self.rank_rows, self.rank_node, self.rank_strength, self.rank_weight = (
                np.concatenate(c) for c in zip(*(ranks or [empty])))
            self.rank_order = strength_order(self.rank_node, self.rank_strength)
            self.lo, self.hi = np.zeros(self.ids.size), np.zeros(self.ids.size)
            for rows, lo, hi in fixed_places:
                self.lo[rows], self.hi[rows] = lo, hi
            del ranks, fixed_places
        self.rows = np.concatenate([r for r, _ in moving]) if moving else np.zeros(0, dtype=np.int64)
        # column-major: a try scans the moved quantities' columns
        self.Z = np.asfortranarray(np.concatenate([z for _, z in moving]) if moving else np.zeros((0, len(cols))))
        del moving, ids
        release_memory()

    def _leaves(self, card: RuleCard) -> np.ndarray:
        ids = self.ids.copy()
        changes = threshold_changes(self.card, card)
        if changes is None:                    # not a moved card: every row reads the rules again
            sel = np.arange(self.rows.size)
        else:
            mask = np.zeros(self.rows.size, dtype=bool)
            for f, lo, hi in changes:
                z = self.Z[:, self.names.index(f)]
                mask |= (z >= lo) & (z <= hi)
            sel = np.flatnonzero(mask)
        new = card.rule_index(self.Z[sel], self.names)
        if np.any(new < 0):
            raise ValueError("the card has no rule for some decisions")
        ids[self.rows[sel]] = new
        return ids

    def _played(self, card: RuleCard):
        """The tables, hand order codes and, per endgame, the flat leaves of ``card`` (its rules read again)."""
        model = card_model(card, self.fixed)
        ids = self._leaves(card)
        tables = {k: np.asarray(model.leaf_table(k), dtype=np.float64) for k in model.leaf_keys()}
        codes = model_codes(model)
        if self.ordered:           # the moving card's hands are ranked again: the thresholds moved its rules' hands
            lo, hi = self.lo.copy(), self.hi.copy()
            lo[self.rank_rows], hi[self.rank_rows] = hand_positions(
                ids[self.rank_rows], self.rank_node, self.rank_strength, self.rank_weight, self.rank_order)
        else:
            lo = hi = np.zeros(ids.size)
        flats = [(base, [dataclasses.replace(f, leaves=ids[f.leaves], lo=lo[f.leaves], hi=hi[f.leaves])
                         for f in flat]) for base, flat in self.flat]
        return ids, tables, codes, flats

    def exploitability_sums(self, cards: list) -> list[float]:
        """Weighted sum over the endgames of NashConv / 2 (% of the pot) of each card."""
        out = []
        for card in cards:
            _, tables, codes, flats = self._played(card)
            out.append(sum(w * exploitability_pct(g, base, flat, tables, codes)
                           for w, g, (base, flat) in zip(self.weights, self.games, flats)))
        return out

    def class_values(self, card: RuleCard) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The moving card's rows under ``card``: their design over :attr:`names`, rule, own reach (times the
        endgame's weight) and the value of each action class against the opponent's best response (units of the
        pot, times own reach and the endgame's weight; :func:`hunl.distill.optimal_leaves.class_values`)."""
        from hunl.distill.optimal_leaves import class_values

        ids, tables, codes, flats = self._played(card)
        values = np.zeros((ids.size, 4))
        reach = np.zeros(ids.size)
        for w, g, (base, flat), (_, rows_flat) in zip(self.weights, self.games, flats, self.flat):
            moving = [k for k, f in enumerate(rows_flat) if f.key == CARD_KEY]
            got = class_values(g, base, flat, tables, codes, moving)
            for k, (v, r) in zip(moving, got):
                values[rows_flat[k].leaves] = w * v
                reach[rows_flat[k].leaves] = w * r
        return np.ascontiguousarray(self.Z), ids[self.rows], reach[self.rows], values[self.rows]

    def rule_values(self, card: RuleCard) -> np.ndarray:
        """``(n_rules, 4)``: :meth:`class_values` summed over each rule of ``card`` (weighted by the endgames')."""
        _, rule, _, values = self.class_values(card)
        out = np.zeros((card.n_rules, values.shape[1]))
        np.add.at(out, rule, values)
        return out


class SplitWorkers:
    """Training endgames with the features of every information set stored, kept by worker processes: the mean
    exploitability of a card with its thresholds moved, without reading the features again.

    Parameters
    ----------
    card : RuleCard
        The card whose features are read (with ``ranges="own"``: its own ranges when it plays).
    games : sequence of HoldemEndgame
    fixed : mapping of int to RuleCard, optional
        Cards that play the other streets (:class:`hunl.distill.cards.CompositeCard`), kept as they are.
    workers : int, default 1
    weights : array_like of float, shape ``(len(games),)``, optional
        Each endgame's weight in the mean (default: equal), e.g. each database's endgames together weighing as
        much as another's.

    Raises
    ------
    ValueError
        If ``games`` is empty, ``workers < 1``, or ``weights`` has another length, a negative entry or sums to 0.
    """

    def __init__(self, card: RuleCard, games, fixed=None, workers: int = 1, weights=None, quantities=(),
                 ranked: bool = False):
        workers = check_int("workers", workers, 1)
        games = list(games)
        if not games:
            raise ValueError("games must hold at least one endgame")
        unknown = [f for f in quantities if f not in CARD_FEATURES]
        if unknown:
            raise ValueError(f"quantities must be card features (CARD_FEATURES), got {unknown}")
        w = check_game_weights(weights, len(games))
        self.total = float(w.sum())
        local = workers <= 1 or len(games) < 2
        extra = (tuple(quantities), bool(ranked))
        parts = [(card, fixed, games, w, *extra)] if local else [
            (card, fixed, [games[i] for i in part], w[part], *extra) for part in deal(len(games), workers)]
        self._pool = ShardWorkers(_SplitShard, parts, local=local)
        self.names = tuple(f for f in CARD_FEATURES if f in set(card_quantities(card)) | set(quantities))

    def __enter__(self) -> SplitWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self._pool.close()

    def exploitabilities(self, cards) -> np.ndarray:
        """Weighted mean NashConv / 2 over the endgames, % of the pot, of each card of ``cards``: shape
        ``(len(cards),)``."""
        parts = self._pool.ask("exploitability_sums", list(cards))
        return np.sum(np.asarray(parts, dtype=np.float64), axis=0) / self.total

    def class_values(self, card: RuleCard) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every information set the moving card plays in the endgames, under ``card`` (the moving card with other
        rules, e.g. one split in two: :mod:`hunl.distill.rule_splits`).

        Returns
        -------
        Z : numpy.ndarray of float64, shape ``(n, len(names))``
            Each information set's quantities (:attr:`names`, the card's and the extra ``quantities``).
        rule : numpy.ndarray of int64, shape ``(n,)``
            The rule of ``card`` it reads.
        reach : numpy.ndarray of float64, shape ``(n,)``
            The acting player's own reach, times the endgame's weight over the weights' total.
        values : numpy.ndarray of float64, shape ``(n, 4)``
            The value of each action class against the opponent's best response, in pots, weighted as ``reach``
            and by the own reach (what the player gains in the endgames by playing the class there).
        """
        parts = self._pool.ask("class_values", card)
        Z, rule, reach, values = (np.concatenate(p) for p in zip(*parts))
        return Z, rule, reach / self.total, values / self.total

    def rule_values(self, card: RuleCard) -> np.ndarray:
        """``(n_rules, 4)`` float64: the values of :meth:`class_values` summed over each rule of ``card`` (the
        summed regret-matching input of a rule's strategy, :mod:`hunl.distill.rule_splits`)."""
        return np.sum(self._pool.ask("rule_values", card), axis=0) / self.total


def thresholds_by_exploitability(card: RuleCard, games, fixed=None, steps: int = 2, sweeps: int = 2,
                                 workers: int = 1, progress: bool = False,
                                 weights=None, resume: dict | None = None,
                                 save=None) -> tuple[RuleCard, list[float]]:
    """The card with its splits moved, one at a time, to the round thresholds of least mean training
    exploitability (coordinate descent; module docstring).

    Parameters
    ----------
    card : RuleCard
        A HUNL card (:func:`hunl.distill.cards.card_from_tree`), its rules' strategies kept.
    games : sequence of HoldemEndgame
        Training endgames.
    fixed : mapping of int to RuleCard, optional
        Cards of other streets, played beside it and kept.
    steps : int, default 2
        Grid places a split may move per try, each side.
    sweeps : int, default 2
        Passes over the splits; each loads the endgames' features again under the current card, and the search
        stops after a pass that moves nothing.
    workers : int, default 1
    progress : bool, default False
        Show a progress bar (splits).
    weights : array_like of float, shape ``(len(games),)``, optional
        Each endgame's weight in the mean (:class:`SplitWorkers`; default: equal).
    resume : dict, optional
        A state passed to ``save`` by an earlier run of the same search (same card, endgames and settings): the
        search goes on from it and returns what the uninterrupted search would have.
    save : callable, optional
        Called with the search's state (a JSON-serialisable dict) after each split is tried, e.g. to write it
        to disk so that a killed search resumes (``scripts/rule_cards.py thresholds``).

    Returns
    -------
    card : RuleCard
        The card of the least exact figure of ``log`` (coverage as given: count it again with
        :func:`rule_coverage`).
    log : list of float
        Mean training exploitability (NashConv / 2, % of the pot; weighted by ``weights``), exact: of the card as
        given, then of the card after each sweep that moved a threshold (its features read again). With own
        ranges a sweep's moves are chosen on the features of its starting card, so a sweep can end above its
        start: the card returned is the one of the least of these figures.

    Raises
    ------
    ValueError
        If ``steps`` or ``sweeps`` is below 1, or ``games`` is empty.
    """
    from tqdm.auto import tqdm

    steps = check_int("steps", steps, 1)
    sweeps = check_int("sweeps", sweeps, 1)
    log: list[float] = []
    kept = card
    first_sweep, at = 0, None
    if resume is not None:                # the sweep, split and cards where the saved search stood
        first_sweep, log = int(resume["sweep"]), [float(x) for x in resume["log"]]
        kept, card = RuleCard.from_dict(resume["kept"]), RuleCard.from_dict(resume["card"])
        at = (RuleCard.from_dict(resume["sweep_card"]), int(resume["split"]), float(resume["best"]),
              bool(resume["moved"]))
    for sweep in range(first_sweep, sweeps + 1):
        # the features are read under the card the sweep starts from, and its splits are the ones tried
        start, first_split, moved = (at[0], at[1], at[3]) if at else (card, 0, False)
        with SplitWorkers(start, games, fixed, workers, weights) as pool:
            if at:
                best, at = at[2], None
            else:
                best = float(pool.exploitabilities([card])[0])   # exact: the features of this card
                if not log or best < min(log):
                    kept = card
                log.append(best)
            if sweep == sweeps:
                break
            splits = card_splits(start)
            for i in tqdm(range(first_split, len(splits)), disable=not progress, total=len(splits),
                          initial=first_split, desc=f"thresholds, sweep {sweep + 1}", unit="split", leave=False):
                values = split_moves(card, splits[i], steps)
                if values:
                    tries = [move_split(card, splits[i], v) for v in values]
                    costs = pool.exploitabilities(tries)
                    k = int(np.argmin(costs))
                    if costs[k] < best - 1e-9:
                        card, best, moved = tries[k], float(costs[k]), True
                if save is not None:
                    save({"sweep": sweep, "split": i + 1, "card": card.to_dict(), "sweep_card": start.to_dict(),
                          "best": best, "moved": moved, "log": log, "kept": kept.to_dict()})
        if not moved:
            break
    return kept, log


def rule_weight(card: RuleCard, Z: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``(n_rules,)``: the weight of the design rows ``Z`` each rule takes (first match).

    Parameters
    ----------
    card : RuleCard
        A card over :data:`hunl.distill.quantities.CARD_FEATURES`.
    Z : numpy.ndarray of float64, shape ``(m, len(CARD_FEATURES))``
        Card design rows (:func:`hunl.distill.cards._design_of`); NaN reads as below every threshold.
    weight : numpy.ndarray of float64, shape ``(m,)`` or ``(m, k)``
        Each row's weight (probability of the decision times its stake, as the card's tree was grown on), or
        ``k`` weights per row.

    Returns
    -------
    numpy.ndarray of float64, shape ``(n_rules,)`` or ``(n_rules, k)``
        The summed weight of the rows each rule (in :meth:`RuleCard.rules` order) is the first to match; rows
        no rule matches count nowhere. Divided by its section's total it is the rule's coverage
        (:func:`coverage_shares`).

    Raises
    ------
    KeyError
        If a condition of the card names a feature not in :data:`~hunl.distill.quantities.CARD_FEATURES`.
    """
    return _by_rule(card.rule_index(Z, CARD_FEATURES), card.n_rules, weight)


def _by_rule(idx: np.ndarray, n_rules: int, values) -> np.ndarray:
    """``values`` (``(m,)`` or ``(m, k)``) summed by the rule each row reads (``idx``; -1: none), shape
    ``(n_rules,)`` or ``(n_rules, k)``."""
    ok = idx >= 0
    v = np.asarray(values, dtype=np.float64)[ok]
    if v.ndim == 1:
        return np.bincount(idx[ok], weights=v, minlength=n_rules)
    return np.stack([np.bincount(idx[ok], weights=col, minlength=n_rules) for col in v.T], axis=1)


def rule_coverage(card: RuleCard, Z: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Each rule's share of its section's decisions among design rows ``Z``.

    Parameters
    ----------
    card : RuleCard
    Z : numpy.ndarray of float64, shape ``(m, len(CARD_FEATURES))``
        Card design rows (:func:`hunl.distill.cards._design_of`).
    weight : numpy.ndarray of float64, shape ``(m,)``
        Each row's weight (probability of the decision times its stake, as the card's tree was grown on).

    Returns
    -------
    numpy.ndarray of float64, shape ``(n_rules,)``
        The weight of the rows a rule takes (first match) over the weight of the rows its section takes.
    """
    return coverage_shares(card, rule_weight(card, Z, weight))


def coverage_shares(card: RuleCard, per_rule) -> np.ndarray:
    """``(n_rules,)``: each rule's weight (``per_rule``, e.g. :func:`rule_weight` summed over chunks of rows) over
    the weight of its section's rules (0 in a section of no weight)."""
    per_rule = np.asarray(per_rule, dtype=np.float64)
    out = np.zeros(card.n_rules)
    a = 0
    for sec in card.sections:
        b = a + len(sec.rules)
        total = per_rule[a:b].sum()
        out[a:b] = per_rule[a:b] / total if total > 0 else 0.0
        a = b
    return out


def with_coverage(card: RuleCard, coverage) -> RuleCard:
    """``card`` with each rule's coverage replaced (card order).

    Parameters
    ----------
    card : RuleCard
        The card; unchanged (a new card is returned).
    coverage : iterable of float, length ``card.n_rules``
        The new coverage of each rule, in :meth:`RuleCard.rules` order, as a share of its section's decisions
        (e.g. :func:`rule_coverage`).

    Returns
    -------
    RuleCard
        A copy of ``card`` whose rules carry ``coverage`` (everything else the same).

    Raises
    ------
    ValueError
        If ``coverage`` does not have one value per rule of the card.
    """
    values = [float(c) for c in coverage]
    if len(values) != card.n_rules:
        raise ValueError(f"coverage must have one value per rule of the card ({card.n_rules}), got {len(values)}")
    it = iter(values)
    sections = tuple(CardSection(s.title, tuple(dataclasses.replace(r, coverage=next(it)) for r in s.rules),
                                 s.conditions) for s in card.sections)
    return dataclasses.replace(card, sections=sections)


def _facing(section: CardSection) -> bool | None:
    """Whether a section's decisions face a bet (``None``: either)."""
    for c in section.conditions:
        if c.feature == "facing":
            return c.op == ">"
    return None


def with_strategies(card: RuleCard, table) -> RuleCard:
    """``card`` with each rule playing row ``k`` of ``table`` (``(n_rules, 4)``, card order), its words written
    again (:func:`hunl.distill.cards.action_text`).

    Parameters
    ----------
    card : RuleCard
    table : array_like of float, shape ``(n_rules, 4)``
        Each rule's class distribution (:mod:`hunl.distill.actions`), in the order of ``card.rules()``; rows
        beyond ``card.n_rules`` are ignored.

    Returns
    -------
    RuleCard
        A new card: every rule's ``strategy`` is its row, its ``action`` the row in words for its section's
        decision type; titles, conditions and coverage are kept.

    Raises
    ------
    IndexError
        If ``table`` has fewer than ``card.n_rules`` rows.
    ValueError
        If a row is negative or sums to 0 (:func:`rulelearn.rules.plain.plain_fractions`).
    """
    from hunl.distill.cards import action_text

    table = np.asarray(table, dtype=np.float64)
    k = iter(range(card.n_rules))
    sections = []
    for sec in card.sections:
        rules = []
        for r in sec.rules:
            row = table[next(k)]
            rules.append(dataclasses.replace(r, strategy=tuple(float(v) for v in row),
                                             action=action_text(row, _facing(sec), r.order)))
        sections.append(CardSection(sec.title, tuple(rules), sec.conditions))
    return dataclasses.replace(card, sections=tuple(sections))


def with_orders(card: RuleCard, codes) -> RuleCard:
    """``card`` with each rule played in hand order ``codes[k]`` (card order; 0 at random, 1 from the best
    hands, -1 from the weakest, 2 polar: :func:`hunl.distill.hand_order.order_codes`), its words written again.

    Parameters
    ----------
    card : RuleCard
    codes : array_like of int, shape ``(n_rules,)``

    Returns
    -------
    RuleCard

    Raises
    ------
    ValueError
        If ``codes`` does not give one code of 0, 1, -1 or 2 per rule.
    """
    from hunl.distill.cards import action_text

    codes = np.asarray(codes, dtype=np.int64).ravel()
    if codes.size != card.n_rules or not np.isin(codes, order_codes(HAND_ORDERS)).all():
        raise ValueError(f"codes must give one hand order code (0, 1, -1 or 2) per rule ({card.n_rules}), got "
                         f"{codes.tolist()}")
    names = {int(c): o for c, o in zip(order_codes(HAND_ORDERS), HAND_ORDERS)}
    k = iter(codes.tolist())
    sections = []
    for sec in card.sections:
        rules = []
        for r in sec.rules:
            order = names[next(k)]
            rules.append(dataclasses.replace(r, order=order, action=action_text(r.strategy, _facing(sec), order)))
        sections.append(CardSection(sec.title, tuple(rules), sec.conditions))
    notes = tuple(n for n in card.notes if n not in (HAND_ORDER_NOTE, POLAR_NOTE))
    if np.any(codes != 0):
        notes += (HAND_ORDER_NOTE,)
    if np.any(codes == 2):
        notes += (POLAR_NOTE,)
    return dataclasses.replace(card, sections=tuple(sections), notes=notes)


def rule_class_weight(card: RuleCard, Z: np.ndarray, Y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``(n_rules, n_classes)``: the weight each rule's decisions among design rows ``Z`` give each class of their
    strategies ``Y`` (additive over chunks of rows)."""
    return _by_rule(card.rule_index(Z, CARD_FEATURES), card.n_rules,
                    np.asarray(Y, dtype=np.float64) * np.asarray(weight, dtype=np.float64)[:, None])


def classes_played(sums: np.ndarray) -> np.ndarray:
    """``(n_rules, n_classes)`` bool from :func:`rule_class_weight`: the classes of more than 1e-4 of a rule's
    weight (a rule of no weight: all classes)."""
    sums = np.asarray(sums, dtype=np.float64)
    used = sums > 1e-4 * sums.sum(axis=1, keepdims=True)
    used[sums.sum(axis=1) <= 0] = True
    return used


@dataclass(frozen=True)
class ThresholdJob:
    """What ``scripts/rule_cards.py thresholds`` runs (its options).

    Attributes
    ----------
    card : str
        The card's JSON.
    fixed_cards : tuple of (str, str)
        ``(street, JSON)`` cards played on the other streets and kept.
    db : str or tuple of str
        Database(s) whose training endgames (the split of the card run: same ``seed``) the search plays. With
        several, each database's endgames together weigh as much as another's in the training figure (the mean of
        the databases' means), e.g. river endgames and turn endgames (a fixed turn card on the turn) for a river
        card, which plays the rivers of both; ``db_weights`` weighs them otherwise.
    db_weights : tuple of float
        One positive weight per database: the training figure is the databases' means weighted by these (e.g.
        ``(1, 2)``: the second database's endgames count twice the first's). Default ``()``: all weigh the same.
    seed, test_fraction : int, float
        The card run's split.
    max_test : int or tuple of int
        The written card's cost is measured in the first ``max_test`` held-out endgames of each database (one
        figure for all, or one per database; 0: no cost). The card's cost line is the first database's; every
        database's is in ``meta["threshold_search"]["held_out"]``.
    train : int or tuple of int
        Training endgames of each database (the first of its split's training endgames; one figure for all, or one
        per database).
    steps, sweeps : int
        :func:`thresholds_by_exploitability`; ``sweeps = 0`` leaves the thresholds as they are.
    mixes : float
        0 (default): the rules keep their mixes. Positive: after the thresholds, each rule's plain mix is chosen
        again among those within this distance of it, by the training cost
        (:func:`hunl.distill.plain_search.plain_by_exploitability`; classes the equilibrium plays in the rule).
    orders : bool
        False (default): the rules keep their hand orders. True (with ``mixes``): each rule's plain mix is chosen
        together with its hand order -- at random, by hand order from the best hands or from the weakest
        (:mod:`hunl.distill.hand_order`; :func:`hunl.distill.plain_search.orders_by_exploitability`).
    polar : bool
        False (default). True (with ``orders``): the rules of decisions not facing a bet may also play the polar
        order -- each bet two parts from the best hands for one part from the weakest, the check in between
        (:data:`hunl.distill.hand_order.POLAR_BLUFF_SHARE`).
    by_position : tuple of int
        Before the search, these rules of the card's either-position section of decisions not facing a bet are
        moved into each position's section (:func:`hunl.distill.position_rules.by_position`; same play), and the
        copies' plain mixes chosen for each position by the training cost, among every plain mix within
        ``position_radius`` of the rule's (two passes). Default ``()``: not done.
    position_radius : float
        See ``by_position`` (default 1.0: every plain mix).
    split_rules : int
        Before the threshold sweeps, cut up to this many of the card's rules in two, each cut the cheapest on the
        training endgames of the ``split_candidates`` best by imitation of the equilibrium's training decisions
        (:func:`hunl.distill.rule_splits.splits_by_exploitability`). Default 0: not done.
    split_candidates : int
        Cuts played exactly per added rule (default 8).
    split_radius : float
        Positive: each side of a cut also tries every plain mix within this distance of its rule's
        (:func:`hunl.distill.rule_splits.side_tries`). Default 0: the mixes moved towards the equilibrium's only.
    workers : int or None
    out : str
        The moved card's JSON.
    name : str
        Block ``card-<name>-thresholds`` of ``doc``.
    title : str or None
        The written card's title (default: the card's, with "thresholds moved by their cost" added).
    doc : str or None
    command : str
    """

    card: str = "docs/cards/river.json"
    fixed_cards: tuple = ()
    db: str | tuple = "data/hunl_river_2500"
    seed: int = 0
    test_fraction: float = 0.2
    max_test: int | tuple = 400
    train: int | tuple = 400
    db_weights: tuple = ()
    steps: int = 2
    sweeps: int = 2
    mixes: float = 0.0
    orders: bool = False
    polar: bool = False
    by_position: tuple = ()
    position_radius: float = 1.0
    split_rules: int = 0
    split_candidates: int = 8
    split_radius: float = 0.0
    workers: int | None = None
    out: str = "docs/cards/river-thresholds.json"
    name: str = "river-thresholds"
    title: str | None = None
    doc: str | None = None
    command: str = "python scripts/rule_cards.py thresholds"


def _moves(before: RuleCard, after: RuleCard) -> list[tuple[str, str, float, float]]:
    """``(section title, quantity, old, new)`` of every split whose threshold moved."""
    out = []
    for sb, sa in zip(before.sections, after.sections):
        for rb, ra in zip(sb.rules, sa.rules):
            for cb, ca in zip(rb.conditions, ra.conditions):
                m = (sb.title, cb.feature, float(cb.threshold), float(ca.threshold))
                if cb.threshold != ca.threshold and m not in out:
                    out.append(m)
    return out


def _held_out_cost(job: ThresholdJob, card: RuleCard, fixed, family, held: dict, db: str):
    """The card's :class:`~rulelearn.rules.cards.CardCost` in the held-out endgames ``held`` of database ``db``
    (with ``fixed`` on their streets), as the card run measures it."""
    from hunl.distill.card_experiment import card_cost
    from hunl.distill.cards import StreetCards
    from hunl.distill.pipeline import score_policies
    from rulelearn.data.executors import make_executor

    policy = StreetCards({**{int(s): card for s in card.meta.get("streets", (4, 5))}, **fixed}) if fixed \
        else CardPolicy(card)
    with make_executor(job.workers, None) as ex:
        scores = score_policies(family, held, {"card": policy}, ex, chunk=5, reference=False)
    beside = "" if not job.fixed_cards else " (" + ", ".join(
        f"the {st} card `{path}` on the {st}" for st, path in job.fixed_cards) + ")"
    return card_cost(scores, "card", f"NashConv / 2 of the card{beside} played by both players, mean over "
                                     f"{len(held['game_id'])} held-out solved endgames ({db})")


def _equilibrium_rows(train_sets, card: RuleCard, streets) -> tuple:
    """``(CARD_FEATURES, Z, Y, weight)`` of the equilibrium's training decisions on ``streets``
    (:func:`hunl.distill.pipeline.rows_task` under the card's ranges; weight probability times stake, each
    database's endgames together weighing its ``db_weights`` share), read shard by shard: what the rule cuts
    imitate."""
    from hunl.distill.card_experiment import _chunks
    from hunl.distill.cards import card_ranges
    from hunl.distill.pipeline import rows_task

    zs, ys, ws = [], [], []
    for db, family, ids, db_weight in train_sets:
        for chunk in _chunks(db, ids):
            r = rows_task(family, chunk, ranges=card_ranges(card), streets=streets)[2]
            zs.append(_design_of(r.X, r.facing, r.street))
            ys.append(np.asarray(r.Y, dtype=np.float64))
            ws.append(r.weight * r.stake * db_weight / len(ids))
            del r
    return CARD_FEATURES, np.concatenate(zs), np.concatenate(ys), np.concatenate(ws)


def _db_weights(value, n: int) -> list[float]:
    """``db_weights`` (empty, or one positive number per database) as one weight per database, summing to 1."""
    if len(value) == 0:
        return [1.0 / n] * n
    vals = [float(v) for v in value]
    if len(vals) != n or not all(np.isfinite(v) and v > 0 for v in vals):
        raise ValueError(f"db_weights must be empty or one positive number per database ({n}), got {value!r}")
    return [v / sum(vals) for v in vals]


def _per_db(name: str, value, n: int) -> list[int]:
    """``value`` (an int, or one int per database) as one int per database."""
    vals = [value] * n if isinstance(value, (int, np.integer)) else list(value)
    if len(vals) != n:
        raise ValueError(f"{name} must be one integer or one per database ({n}), got {value!r}")
    return vals


class SearchState:
    """The state of a running ``rule_cards.py thresholds`` search, in ``<out>.state.json``: each stage's result
    once it is done, and the running stage's last state (after each split or rule tried), written whole or not
    at all. A search killed and started again with the same job (same card and fixed cards, databases, split,
    training endgames and settings) goes on from it; another job starts afresh. Removed when the card is
    written.

    Parameters
    ----------
    job : ThresholdJob
        The search; its settings (all but ``workers``, ``out``, ``name``, ``title``, ``doc``, ``command`` and
        ``max_test``, which do not change the search) and the SHA-256 of its card and fixed cards key the state.

    Attributes
    ----------
    path : pathlib.Path
        ``<job.out>.state.json``.
    settings : dict
        The key, as JSON reads it back.
    stages : dict
        ``{stage: {"done": result} or {"partial": state}}`` read from ``path`` under the same key, else empty.

    Raises
    ------
    FileNotFoundError
        If the card or a fixed card file is missing.
    json.JSONDecodeError
        If ``path`` exists but is not JSON.
    """

    def __init__(self, job: ThresholdJob):
        import hashlib

        self.path = Path(job.out).with_name(Path(job.out).name + ".state.json")
        skip = {"workers", "out", "name", "title", "doc", "command", "max_test"}   # no effect on the search
        settings = {k: v for k, v in dataclasses.asdict(job).items() if k not in skip}
        settings["contents"] = [hashlib.sha256(Path(f).read_bytes()).hexdigest()
                                for f in (job.card, *(path for _, path in job.fixed_cards))]
        self.settings = json.loads(json.dumps(settings))           # tuples as lists, as read back
        saved = json.loads(self.path.read_text()) if self.path.exists() else None
        self.stages = saved["stages"] if saved and saved.get("settings") == self.settings else {}

    def done(self, stage: str):
        """The result of a finished stage, or None."""
        return self.stages.get(stage, {}).get("done")

    def partial(self, stage: str):
        """The last state a running stage saved, or None."""
        return self.stages.get(stage, {}).get("partial")

    def saver(self, stage: str):
        """A ``save`` callback writing the stage's running state."""
        return lambda state: self._write(stage, {"partial": state})

    def finish(self, stage: str, result) -> None:
        self._write(stage, {"done": result})

    def _write(self, stage: str, entry: dict) -> None:
        from rulelearn.data.shards import write_atomic

        self.stages[stage] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps({"settings": self.settings, "stages": self.stages}).encode())

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def run_threshold_search(job: ThresholdJob) -> dict:
    """Run ``job``: move the card's thresholds by their cost on training endgames and write the card.

    A killed run, started again with the same job, goes on from ``<out>.state.json``: the stages it finished (the
    per-position mixes, the threshold sweeps, the mixes) and the last split or rule the running stage tried are
    kept there, and the card written is the one an uninterrupted run writes. The file is removed with the card
    written; a job with other settings, or another card, starts afresh.

    Writes the card to ``job.out`` and, with ``job.doc``, the block ``card-<name>-thresholds`` of that doc
    (:func:`write_threshold_docs`).

    Parameters
    ----------
    job : ThresholdJob
        The run's settings: the options of ``scripts/rule_cards.py thresholds``.

    Returns
    -------
    dict
        ``log`` (mean training exploitability, % of the pot: the card as given, then after each sweep),
        ``moves`` (:func:`_moves`: ``(section title, quantity, old, new)`` of each moved split), ``n_train``
        (training endgames of all databases), ``train_by_db``, ``seconds``, ``out``; ``cost`` (held-out mean
        exploitability in the first database, % of the pot, or None) and ``held_out`` (per database with
        held-out endgames: ``db``, ``n``, ``pct_pot``, ``sd``); ``mixes``, ``mixes_log`` (the training figures
        of the mixes' search; empty without ``mixes``), ``by_position``, ``position_radius``, ``position_log``
        (likewise); ``card`` (the job's card), ``db`` (the databases joined by " and "), and the written
        card's ``n_rules``, ``n_conditions`` and ``markdown``.

    Raises
    ------
    ValueError
        If ``db`` is empty, ``train`` or ``max_test`` is neither one integer nor one per database, ``db_weights``
        is neither empty nor one positive number per database, ``train`` is
        below 1, ``max_test`` is negative, ``orders`` is asked without ``mixes`` or ``polar`` without ``orders``,
        ``steps`` or ``sweeps`` is below 1
        (:func:`thresholds_by_exploitability`), ``position_radius`` is not positive (with ``by_position``),
        :func:`hunl.distill.position_rules.by_position` refuses ``by_position``, or ``fixed_cards`` is bad
        (:func:`hunl.distill.street_cards.load_cards`).
    FileNotFoundError
        If the card's JSON, a fixed card's or a database is missing.
    """
    from hunl.distill.card_experiment import _chunks, split_endgames
    from hunl.distill.cards import card_ranges
    from hunl.distill.pipeline import rows_task, take
    from hunl.distill.street_cards import load_cards
    from rulelearn.data.database import SolutionDatabase

    t0 = time.perf_counter()
    dbs = (job.db,) if isinstance(job.db, str) else tuple(job.db)
    if not dbs:
        raise ValueError("db must name at least one database")
    train_ns = [check_int("train", v, 1) for v in _per_db("train", job.train, len(dbs))]
    max_tests = [check_int("max_test", v, 0) for v in _per_db("max_test", job.max_test, len(dbs))]
    db_weights = _db_weights(tuple(job.db_weights), len(dbs))
    # the same play with no rule that plays its section's "otherwise" mix (the search could move such a rule's mix)
    card = RuleCard.from_dict(json.loads(Path(job.card).read_text())).without_default_copies()
    position_rows = None
    if job.by_position:
        from hunl.distill.position_rules import by_position

        if not (np.isfinite(job.position_radius) and job.position_radius > 0):
            raise ValueError(f"position_radius must be a positive number, got {job.position_radius!r}")

        card, position_rows = by_position(card, job.by_position)
    fixed = load_cards(job.fixed_cards) if job.fixed_cards else None
    streets = tuple(int(v) for v in card.meta.get("streets", (4, 5)))      # the card's decisions only
    games, weights, parts, train_sets = [], [], [], []
    # each database's endgames together weigh its share times the number of databases (1 each by default, as before)
    for path, n_train, n_test, db_weight in zip(dbs, train_ns, max_tests, [w * len(dbs) for w in db_weights]):
        db = SolutionDatabase(path)
        family = db.family()
        cols = db.load(None, columns=[c for c in db.column_names() if c != "policy"])
        train_ids, test_ids = split_endgames(len(cols["game_id"]), job.seed, job.test_fraction, max(n_test, 1))
        train = take(cols, train_ids[:n_train])
        n = len(train["game_id"])
        games += [family.game(train, i) for i in range(n)]
        weights += [db_weight / n] * n
        parts.append((path, family, take(cols, test_ids) if n_test > 0 else None, n))
        train_sets.append((db, family, train["game_id"], db_weight))
    workers = job.workers or 1
    state = SearchState(job)
    if state.stages:
        print(f"resuming the search saved in {state.path}", flush=True)
    position_log: list = []
    if position_rows is not None:
        from hunl.distill.optimal_leaves import LeafWorkers
        from hunl.distill.plain_search import plain_by_exploitability

        model = card_model(card, fixed)
        table = np.array([r.strategy for r in card.rules()], dtype=np.float64)
        if state.done("position") is None:
            with LeafWorkers(model, games, workers, weights) as pool:
                table, position_log = plain_by_exploitability(
                    pool, {k: model.leaf_table(k) for k in model.leaf_keys()}, CARD_KEY, table,
                    np.ones(table.shape, dtype=bool), job.position_radius, order=position_rows, sweeps=2,
                    progress=True, resume=state.partial("position"), save=state.saver("position"))
            state.finish("position", {"table": table.tolist(), "log": position_log})
        table, position_log = np.array(state.done("position")["table"]), state.done("position")["log"]
        card = with_strategies(card, table)
    split_log: list = []
    if job.split_rules > 0:
        from hunl.distill.rule_splits import splits_by_exploitability

        if state.done("splits") is None:
            cut, split_log = splits_by_exploitability(
                card, games, fixed, job.split_rules, check_int("split_candidates", job.split_candidates, 1),
                rows=_equilibrium_rows(train_sets, card, streets), radius=job.split_radius, workers=workers,
                weights=weights, progress=True,
                resume=state.partial("splits"), save=state.saver("splits"))
            state.finish("splits", {"card": cut.to_dict(), "log": split_log})
        card, split_log = RuleCard.from_dict(state.done("splits")["card"]), state.done("splits")["log"]
    if job.sweeps == 0:
        state.finish("thresholds", {"card": card.to_dict(), "log": []})
    if state.done("thresholds") is None:
        moved, log = thresholds_by_exploitability(card, games, fixed, job.steps, job.sweeps, workers,
                                                  progress=True, weights=weights,
                                                  resume=state.partial("thresholds"),
                                                  save=state.saver("thresholds"))
        state.finish("thresholds", {"card": moved.to_dict(), "log": log})
    moved, log = RuleCard.from_dict(state.done("thresholds")["card"]), state.done("thresholds")["log"]
    # the training decisions (the equilibrium's) read chunk by chunk, after the search: each rule's weight and the
    # classes its decisions play (the river decisions of 100 turn endgames alone are tens of millions of rows)
    per_rule, class_weight = np.zeros(moved.n_rules), None
    for db, family, ids, _ in train_sets:
        for chunk in _chunks(db, ids):
            r = rows_task(family, chunk, ranges=card_ranges(card), streets=streets)[2]
            idx = moved.rule_index(_design_of(r.X, r.facing, r.street), CARD_FEATURES)
            w = r.weight * r.stake
            per_rule += _by_rule(idx, moved.n_rules, w)
            cw = _by_rule(idx, moved.n_rules, np.asarray(r.Y, dtype=np.float64) * w[:, None])
            class_weight = cw if class_weight is None else class_weight + cw
            del r, idx, w
    coverage = coverage_shares(moved, per_rule)
    mixes_log: list = []
    if job.orders and not job.mixes > 0:
        raise ValueError("orders needs mixes: the hand orders are chosen with the plain mixes (mixes > 0)")
    if job.polar and not job.orders:
        raise ValueError("polar needs orders: the polar order is one of the hand orders tried (orders=True)")
    if job.mixes > 0:
        from hunl.distill.optimal_leaves import LeafWorkers
        from hunl.distill.plain_search import orders_by_exploitability, plain_by_exploitability

        model = card_model(moved, fixed)
        table = np.array([r.strategy for r in moved.rules()], dtype=np.float64)
        codes = np.asarray(model.leaf_codes(CARD_KEY), dtype=np.int64)
        used = classes_played(class_weight) | (table > 0)
        if state.done("mixes") is None:
            with LeafWorkers(model, games, workers, weights) as pool:
                args = (pool, {k: model.leaf_table(k) for k in model.leaf_keys()}, CARD_KEY, table, used, job.mixes)
                rest = dict(order=np.argsort(-per_rule, kind="stable"), progress=True, resume=state.partial("mixes"),
                            save=state.saver("mixes"))
                if job.orders:
                    polar = np.array([job.polar and _facing(sec) is False for sec in moved.sections
                                      for _ in sec.rules], dtype=bool)
                    table, codes, mixes_log = orders_by_exploitability(*args, codes=codes, polar=polar, **rest)
                else:
                    table, mixes_log = plain_by_exploitability(*args, **rest)
            state.finish("mixes", {"table": table.tolist(), "codes": codes.tolist(), "log": mixes_log})
        done = state.done("mixes")
        table, mixes_log = np.array(done["table"]), done["log"]
        moved = with_strategies(with_orders(moved, done.get("codes", codes)), table)
    searched = with_coverage(moved, coverage)
    moved = printed_card(searched)
    tag = "thresholds moved by their cost" if log else "rules cut in two by their cost" if split_log else \
        "plain mixes chosen by their cost"
    title = job.title if job.title else moved.title if tag in moved.title else (
        moved.title[:-1] + f", {tag})" if moved.title.endswith(")") else f"{moved.title} ({tag})")
    costs = [(path, _held_out_cost(job, moved, fixed, family, held, path)) for path, family, held, _ in parts
             if held is not None]
    held_out = [{"db": path, "n": c.n_games, "pct_pot": c.mean, "sd": c.sd} for path, c in costs]
    first = costs[0][1] if costs and costs[0][0] == dbs[0] else None
    moved = dataclasses.replace(moved, title=title, meta=dict(moved.meta, threshold_search={
        "from": job.card, "db": dbs[0] if len(dbs) == 1 else list(dbs), "train": len(games)
        if len(dbs) == 1 else [n for *_, n in parts], "steps": job.steps, "sweeps": job.sweeps,
        "train_pct_pot": log, "mixes": job.mixes, "mixes_train_pct_pot": mixes_log,
        **({"orders": True} if job.orders else {}),
        **({"polar": True} if job.polar else {}),
        **({"by_position": list(job.by_position), "position_radius": job.position_radius,
            "position_train_pct_pot": position_log} if job.by_position else {}),
        **({"split_rules": job.split_rules, "split_candidates": job.split_candidates,
            "splits": split_log, **({"split_radius": job.split_radius} if job.split_radius else {})}
           if job.split_rules else {}),
        **({"fixed_cards": [list(f) for f in job.fixed_cards], "held_out": held_out} if len(dbs) > 1 else {}),
        **({"db_weights": db_weights} if job.db_weights else {})}),
        cost=first)
    Path(job.out).parent.mkdir(parents=True, exist_ok=True)
    Path(job.out).write_text(json.dumps(moved.to_dict(), indent=1) + "\n")
    state.remove()
    result = {"cost": None if first is None else first.mean, "held_out": held_out, "log": log,
              "mixes_log": mixes_log, "mixes": job.mixes, "orders": job.orders, "moves": _moves(card, searched),
              "by_position": list(job.by_position), "position_radius": job.position_radius,
              "position_log": position_log, "split_log": split_log, "split_rules": job.split_rules,
              "n_train": len(games), "train_by_db": [n for *_, n in parts],
              "db_weights": db_weights if job.db_weights else None,
              "seconds": time.perf_counter() - t0,
              "out": job.out, "card": job.card, "db": " and ".join(dbs), "n_rules": moved.n_rules,
              "n_conditions": moved.n_conditions, "markdown": moved.to_markdown("####")}
    if job.doc:
        write_threshold_docs(job, result)
    return result


def printed_card(card: RuleCard) -> RuleCard:
    """The card a search writes: the same play with the rules its moves made redundant removed.

    A rule whose mix moved onto its section's default ("otherwise") mix plays as the default
    (:meth:`rulelearn.rules.cards.RuleCard.without_default_copies`), and two rules whose mixes moved onto the
    same mix and whose conditions differ in one quantity on adjacent intervals become one
    (:meth:`rulelearn.rules.cards.RuleCard.merge_equal_rules`, e.g. "at most 1% of the opponent's range is
    strong ...: check" and "more than 1% ...: check"). Both are exact: every decision reads the same mix.

    Parameters
    ----------
    card : RuleCard
        A searched card (thresholds and mixes moved).

    Returns
    -------
    RuleCard
        The card with at most as many rules and conditions, playing the same strategy in every decision.
    """
    return card.without_default_copies().merge_equal_rules()


def write_threshold_docs(job: ThresholdJob, result: dict) -> None:
    """The block ``card-<name>-thresholds`` of ``job.doc``: the training figures and the moves."""
    from rulelearn.report.docblocks import markdown_table, write_blocks

    log = result["log"]
    plog = result.get("position_log") or []
    rows = [] if not plog else [
        (f"the card as given, its either-position betting rules {', '.join(map(str, result['by_position']))} "
         "copied into each position's section", f"{plog[0]:.2f}"),
        (f"the copies' plain mixes chosen for each position within {result['position_radius']:g}", f"{plog[-1]:.2f}")]
    slog = result.get("split_log") or []
    if slog:
        rows.append(("the card as given", f"{slog[0]['train_pct_pot']:.2f}"))
        rows += [(f"rule {e['kept']['rule'] + 1} cut at {e['kept']['feature']} {e['kept']['threshold']:g} "
                  f"(the best of {len(e['tried'])} cuts tried)", f"{e['kept']['pct_pot']:.2f}")
                 for e in slog if e["kept"] is not None]
        if slog[-1]["kept"] is None:
            rows.append((f"no cut of {len(slog[-1]['tried'])} tried lowers it further", ""))
    # the copies' mixes were tried with the leaves (own ranges) of the card before them; the search reads them again
    if log:
        rows += [("the card as given" if not (plog or slog) else "the same card, its quantities read again",
                  f"{log[0]:.2f}")] + [
            (f"its thresholds after sweep {k}", f"{v:.2f}") for k, v in enumerate(log[1:], start=1)]
    if result["mixes_log"]:
        rows.append((f"the best of these, its plain mixes{' and hand orders' if result.get('orders') else ''} "
                     f"chosen again within {result['mixes']:g}", f"{result['mixes_log'][-1]:.2f}"))
    moves = [(t, q, f"{a:g}", f"{b:g}") for t, q, a, b in result["moves"]] or [("(none)", "", "", "")]
    cuts = "" if not slog else "\n\n" + markdown_table((
        ["round", "rule", "cut at", "imitation score", "training exploitability, % pot"],
        [(str(k), str(t["rule"] + 1), f"{t['feature']} {t['threshold']:g}", f"{t['gain']:.3g}", f"{t['pct_pot']:.2f}")
         for k, e in enumerate(slog, start=1) for t in e["tried"]]),
        right=("imitation score", "training exploitability, % pot")).rstrip("\n")
    held_out = result.get("held_out", [])
    held = "" if not held_out else " Held out: " + "; ".join(
        f"{h['pct_pot']:.2f}% of the pot in {h['n']} endgames of {h['db']}" for h in held_out) + (
        " (the card's cost line)" if len(held_out) == 1 else " (the card's cost line: the first)") + "."
    dw = result.get("db_weights")
    weighs = "" if len(result.get("train_by_db", [])) < 2 else (
        " (" + " + ".join(str(n) for n in result["train_by_db"]) + ("; each database's endgames weigh the same "
        "in the figures below: the mean of the databases' means)" if not dw else "; the figures below weigh the "
        "databases' means " + " : ".join(f"{w:.3g}" for w in dw) + ")"))
    text = (f"`{job.command}` ({result['seconds'] / 60:.0f} min on this machine). The card `{result['card']}` "
            f"({result['n_rules']} rules, {result['n_conditions']} conditions), "
            + (f"up to {result.get('split_rules', 0)} of its rules cut in two by their cost, " if slog else "")
            + ("its thresholds moved by their cost " if log else "played ")
            + f"on {result['n_train']} training endgames of {result['db']}{weighs} (the split of the card run: same "
            f"seed); written to `{result['out']}`.{held}\n\n"
            + markdown_table((["card", "training exploitability, % pot"], rows),
                             right=("training exploitability, % pot",)).rstrip("\n") + cuts
            + "\n\n" + markdown_table((["section", "quantity", "threshold before", "after"], moves),
                                        right=("threshold before", "after")).rstrip("\n")
            + "\n\n<details><summary>The card</summary>\n\n" + result["markdown"] + "\n</details>\n")
    write_blocks(job.doc, {f"card-{job.name}-thresholds": text}, title="# HUNL\n")

"""A finished card's rules cut in two by what they cost: ``rule_cards.py thresholds --split-rules N``.

A card learned by imitation, pruned and moved by cost may still have places to spend (a turn card of 16 rules
against the 20 a card may print). :func:`splits_by_exploitability` spends them one rule at a time, with
exploitability in the loop, on the finished card itself rather than on the tree it came from:

1. every rule with fewer than ``max_conditions`` conditions is cut at every round threshold of every quantity
   the card can name (:func:`hunl.distill.quantities.feature_grid`) into the decisions at or below it and those
   above, and each cut is scored (:func:`split_gains`): by imitation, how differently the equilibrium plays on
   the two sides of its training decisions (the sum of squares between the sides; what ``rule_cards.py
   thresholds`` uses), or by cost, the first-order gain of playing each side's best class against the opponent's
   best response held (:meth:`hunl.distill.threshold_search.SplitWorkers.class_values`; the regret-guided
   refinement of CFR-BR, Johanson, Bard, Burch & Bowling 2012, Section 4) -- which misleads where a class the
   rule never plays meets the best response's play off the rule's path;
2. the best ``candidates`` cuts are played exactly (:func:`split_rule`): each side's plain mix and hand order are
   chosen by the mean training exploitability among the rule's mix moved towards the side's target (the
   equilibrium's mean strategy there, or its best class; optionally a strategy fitted by regret matching against
   best responses, :func:`_fit_sides`), by :func:`side_mixes` (with ``radius``, also every plain mix that near
   the rule's, :func:`side_tries`), first the side at or below, then the side above, and the cheapest cut is kept
   if it lowers the training figure.

A kept cut adds one rule and one condition to each side, so the card stays within ``max_conditions`` a rule and
its thresholds stay round. The search saves its state after every cut it plays, so a killed run resumes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from hunl.distill.actions import N_CLASSES
from hunl.distill.cards import CardPolicy
from hunl.distill.quantities import SECTION_FEATURES, feature_grid
from rulelearn.rules.cards import CardCondition, CardSection, RuleCard
from rulelearn.rules.plain import plain_fractions, plain_mixes_near
from rulelearn.validation import check_int, check_real

__all__ = ["RuleSplit", "side_mixes", "side_tries", "split_gains", "split_quantities", "split_rule", "splits_by_exploitability"]

_ALPHAS = (0.1, 0.2, 0.35, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class RuleSplit:
    """One cut of a card rule and its score.

    Attributes
    ----------
    rule : int
        Position of the rule in ``card.rules()``.
    feature : str
        The quantity cut (a :data:`hunl.distill.quantities.CARD_FEATURES` name).
    threshold : float
        A round value of the quantity's grid: the decisions at or below it go to the first side.
    gain : float
        The cut's score (:func:`split_gains`).
    targets : tuple of tuple of float
        Each side's target class distribution (:mod:`hunl.distill.actions` classes): its best pure class
        (``criterion="cost"``) or the equilibrium's mean strategy there (``"imitation"``).
    """

    rule: int
    feature: str
    threshold: float
    gain: float
    targets: tuple

    def to_dict(self) -> dict:
        return {"rule": self.rule, "feature": self.feature, "threshold": self.threshold, "gain": self.gain,
                "targets": [list(t) for t in self.targets]}

    @classmethod
    def from_dict(cls, d: dict) -> RuleSplit:
        return cls(int(d["rule"]), str(d["feature"]), float(d["threshold"]), float(d["gain"]),
                   tuple(tuple(float(v) for v in t) for t in d["targets"]))


def split_quantities(card: RuleCard) -> tuple[str, ...]:
    """The quantities a rule of ``card`` may be cut on: those it has phrases for, without the section features
    (street, position, facing a bet).

    Parameters
    ----------
    card : RuleCard

    Returns
    -------
    tuple of str
        Quantity names, in the card's order of phrases.
    """
    return tuple(q.name for q in card.quantities if q.name not in SECTION_FEATURES)


def split_rule(card: RuleCard, rule: int, feature: str, threshold: float) -> RuleCard:
    """``card`` with rule ``rule`` cut in two at ``feature <= threshold``: the side at or below it, then the side
    above, both playing the rule's strategy and order (the same play until their mixes are chosen).

    Parameters
    ----------
    card : RuleCard
    rule : int
        Position in ``card.rules()``.
    feature : str
        A quantity the card has a phrase for.
    threshold : float
        A round value of the quantity's kind.

    Returns
    -------
    RuleCard
        One rule more; the new rules are at positions ``rule`` and ``rule + 1`` of its ``rules()``.

    Raises
    ------
    IndexError
        If ``rule`` is not a position of ``card.rules()``.
    ValueError
        If the card has no phrase for ``feature`` or ``threshold`` is not round for it (:class:`RuleCard`).
    """
    if not 0 <= rule < card.n_rules:
        raise IndexError(f"rule must be a position of the card's {card.n_rules} rules, got {rule}")
    k, sections = 0, []
    for sec in card.sections:
        rules = []
        for r in sec.rules:
            if k == rule:
                for op in ("<=", ">"):
                    rules.append(dataclasses.replace(
                        r, conditions=r.conditions + (CardCondition(feature, op, float(threshold)),)))
            else:
                rules.append(r)
            k += 1
        sections.append(CardSection(sec.title, tuple(rules), sec.conditions))
    return dataclasses.replace(card, sections=tuple(sections))


def split_gains(card: RuleCard, names, Z, rule, weight, values, criterion: str = "cost", max_conditions: int = 3,
                min_share: float = 0.002) -> list[RuleSplit]:
    """Every cut of the card's rules at a round threshold, scored, best first.

    Parameters
    ----------
    card : RuleCard
    names : sequence of str
        The quantity of each column of ``Z``; only those of :func:`split_quantities` are cut.
    Z : array_like of float, shape ``(n, len(names))``
        The quantities of the information sets or decisions (NaN where a quantity does not apply: below every
        threshold).
    rule : array_like of int, shape ``(n,)``
        The rule of ``card`` each reads.
    weight : array_like of float, shape ``(n,)``
        Each row's weight: own reach (``"cost"``), or probability times stake (``"imitation"``).
    values : array_like of float, shape ``(n, 4)``
        ``"cost"``: each action class's value against the best response, times the own reach
        (:meth:`hunl.distill.threshold_search.SplitWorkers.class_values`); ``"imitation"``: the equilibrium's
        class distribution of each decision.
    criterion : {"cost", "imitation"}, default "cost"
        ``"cost"``: ``max_c L[c] + max_c R[c] - max_c (L + R)[c]`` of the sides' summed values, what playing the
        best pure class on each side gains over one for both against the best response held (the cost criterion
        of the card trees; Johanson et al. 2012, Section 4). ``"imitation"``: the weighted sum of squares of the
        equilibrium's strategies between the two sides, ``|L|^2 / w_L + |R|^2 / w_R - |L + R|^2 / w`` of the
        weighted class sums (the tree learners' squared-error criterion).
    max_conditions : int, default 3
        A rule with this many conditions is not cut.
    min_share : float, default 0.002
        Each side must hold at least this share of the total weight of the rows.

    Returns
    -------
    list of RuleSplit
        Cuts with a positive gain, best first.

    Raises
    ------
    ValueError
        If the arrays' shapes disagree or ``criterion`` is unknown.
    """
    if criterion not in ("cost", "imitation"):
        raise ValueError(f"criterion must be 'cost' or 'imitation', got {criterion!r}")
    Z = np.asarray(Z, dtype=np.float64)
    rule = np.asarray(rule, dtype=np.int64)
    weight = np.asarray(weight, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    n = rule.size
    if Z.shape != (n, len(names)) or weight.shape != (n,) or values.shape != (n, N_CLASSES):
        raise ValueError(f"Z, rule, weight and values must describe the same {n} rows: shapes {Z.shape}, "
                         f"{rule.shape}, {weight.shape}, {values.shape}")
    phrased = set(split_quantities(card))       # a cut must be printable: a quantity the card has words for
    sums = values if criterion == "cost" else values * weight[:, None]
    floor = min_share * float(weight.sum())
    out = []
    for k, r in enumerate(card.rules()):
        if len(r.conditions) >= max_conditions:
            continue
        rows = np.flatnonzero(rule == k)
        if rows.size < 2:
            continue
        total_v, total_w = sums[rows].sum(axis=0), float(weight[rows].sum())
        if total_w <= 0:
            continue
        for j, f in enumerate(names):
            if f not in phrased:
                continue
            z = np.where(np.isnan(Z[rows, j]), -np.inf, Z[rows, j])
            o = np.argsort(z, kind="stable")
            cv = np.vstack([np.zeros(N_CLASSES), np.cumsum(sums[rows][o], axis=0)])
            cw = np.concatenate([[0.0], np.cumsum(weight[rows][o])])
            grid = np.asarray(feature_grid(f), dtype=np.float64)
            at = np.searchsorted(z[o], grid, side="right")          # rows at or below each threshold
            left_v, left_w = cv[at], cw[at]
            right_v, right_w = total_v - left_v, total_w - left_w
            ok = (left_w >= floor) & (right_w >= floor) & (left_w > 0) & (right_w > 0)
            if criterion == "cost":
                gain = left_v.max(axis=1) + right_v.max(axis=1) - total_v.max()
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    gain = ((left_v ** 2).sum(axis=1) / left_w + (right_v ** 2).sum(axis=1) / right_w
                            - (total_v ** 2).sum() / total_w)
            tol = 1e-12 * max(1.0, float(np.abs(total_v).sum()))   # not a gain: rounding of the sums
            for i in np.flatnonzero(ok & (gain > tol)):
                if criterion == "cost":
                    sides = (np.eye(N_CLASSES)[np.argmax(left_v[i])], np.eye(N_CLASSES)[np.argmax(right_v[i])])
                else:
                    sides = (left_v[i] / left_w[i], right_v[i] / right_w[i])
                out.append(RuleSplit(k, f, float(grid[i]), float(gain[i]),
                                     tuple(tuple(float(v) for v in t) for t in sides)))
    return sorted(out, key=lambda c: -c.gain)


def _plain(p: np.ndarray) -> np.ndarray:
    counts, d = plain_fractions(p)
    return np.asarray(counts, dtype=np.float64) / d


def side_mixes(targets) -> list[tuple[np.ndarray, int]]:
    """The mixes tried for one side of a cut: each target rounded to the nearest plain mix
    (:func:`rulelearn.rules.plain.plain_fractions`), each mixed one at random, from the best hands and from the
    weakest (hand order codes 0, 1, -1).

    Parameters
    ----------
    targets : array_like of float, shape ``(m, 4)``
        Class distributions (e.g. the side's fitted strategy, or the rule's moved towards the side's best class).

    Returns
    -------
    list of (numpy.ndarray, int)
        Distinct ``(mix, hand order code)`` pairs; a pure mix once, at random.
    """
    out: list = []
    for t in np.asarray(targets, dtype=np.float64).reshape(-1, N_CLASSES):
        _add_orders(out, _plain(t))
    return out


def _add_orders(out: list, m: np.ndarray) -> None:
    """Append ``(m, code)`` to ``out`` for each hand order code (0, 1, -1; a pure mix at random only) not there."""
    for c in ((0,) if np.count_nonzero(m > 1e-12) <= 1 else (0, 1, -1)):
        if not any(c == c2 and np.allclose(m, m2) for m2, c2 in out):
            out.append((m, c))


def _targets(strategy, target, fitted=None) -> np.ndarray:
    """A side's targets for :func:`side_mixes`: the rule's strategy moved towards ``fitted`` (its strategy of
    :func:`_fit_sides`) or else the cut's ``target`` for the side, by :data:`_ALPHAS` of the way."""
    s = np.asarray(strategy, dtype=np.float64)
    e = np.asarray(target if fitted is None else fitted, dtype=np.float64)
    return np.vstack([(1 - a) * s + a * e for a in _ALPHAS])


def _played_as(card: RuleCard, table: np.ndarray, codes: np.ndarray) -> RuleCard:
    from hunl.distill.threshold_search import with_orders, with_strategies

    return with_strategies(with_orders(card, codes), table)


def _fit_sides(pool, cut_card: RuleCard, table: np.ndarray, codes: np.ndarray, rows, iterations: int) -> np.ndarray:
    """Regret matching+ over the strategies of rules ``rows`` of ``cut_card`` (played as ``table`` and ``codes``,
    the others held), each iteration against the opponent's best response to the current strategies (CFR-BR
    restricted to the cut's two sides, played at random), linearly averaged after the first fifth:
    ``(len(rows), 4)``."""
    table, codes = table.copy(), codes.copy()
    rows = list(rows)
    codes[rows] = 0
    regret, avg = np.zeros((len(rows), N_CLASSES)), np.zeros((len(rows), N_CLASSES))
    delay = iterations // 5
    for it in range(1, iterations + 1):
        v = pool.rule_values(_played_as(cut_card, table, codes))[rows]
        regret = np.maximum(regret + v - (table[rows] * v).sum(axis=1, keepdims=True), 0.0)
        pos = regret.sum(axis=1, keepdims=True)
        table[rows] = np.where(pos > 0, regret / np.where(pos > 0, pos, 1.0), table[rows])
        avg += max(it - delay, 0) * table[rows]
    z = avg.sum(axis=1, keepdims=True)
    return np.where(z > 0, avg / np.where(z > 0, z, 1.0), table[rows])


def side_tries(strategy, targets, radius: float = 0.0) -> list[tuple[np.ndarray, int]]:
    """The ``(mix, hand order code)`` pairs tried for one side of a cut: :func:`side_mixes` of ``targets``, then,
    with ``radius``, every other plain mix within ``radius`` of the rule's ``strategy``
    (:func:`rulelearn.rules.plain.plain_mixes_near`), each at random and in both hand orders.

    Parameters
    ----------
    strategy : array_like of float, shape ``(4,)``
        The rule's class distribution before the cut.
    targets : array_like of float, shape ``(m, 4)``
        See :func:`side_mixes`.
    radius : float, default 0.0
        Largest change of a class probability from ``strategy``; 0: the targets' mixes only.

    Returns
    -------
    list of (numpy.ndarray, int)
        Distinct pairs, the targets' first; a pure mix once, at random.

    Raises
    ------
    ValueError
        If ``radius`` is negative or not finite.
    """
    radius = check_real("radius", radius, 0.0)
    out = side_mixes(targets)
    if radius > 0:
        for m in plain_mixes_near(strategy, radius):
            _add_orders(out, m)
    return out


def _play_cut(pool, card: RuleCard, cut: RuleSplit, start: float, iterations: int,
              radius: float = 0.0) -> tuple[float, RuleCard]:
    """The cheapest card of ``cut`` (:func:`split_rule`) with each side's mix chosen among :func:`side_tries`,
    first the side at or below, then the side above (the other held; a side keeps the rule's mix unless a try
    is cheaper), and its mean training exploitability (``start``, the card's, when no try is cheaper). With
    ``iterations``, the sides' targets are their strategies fitted by :func:`_fit_sides`."""
    cut_card = split_rule(card, cut.rule, cut.feature, cut.threshold)
    played = CardPolicy(cut_card)
    table, codes = played.table.copy(), played.codes.copy()
    fitted = _fit_sides(pool, cut_card, table, codes, (cut.rule, cut.rule + 1), iterations) if iterations > 0 \
        else None
    best_value, best_card = float(start), cut_card
    for side in (0, 1):
        row = cut.rule + side
        tries = []
        targets = _targets(table[row], cut.targets[side], None if fitted is None else fitted[side])
        for m, c in side_tries(table[row], targets, radius):
            t, k = table.copy(), codes.copy()
            t[row], k[row] = m, c
            tries.append((t, k))
        cards = [_played_as(cut_card, t, k) for t, k in tries]
        vals = pool.exploitabilities(cards)
        i = int(np.argmin(vals))
        if vals[i] < best_value:
            best_value, best_card = float(vals[i]), cards[i]
            table, codes = tries[i]
    return best_value, best_card


def splits_by_exploitability(card: RuleCard, games, fixed=None, n_splits: int = 4, candidates: int = 6,
                             iterations: int = 0, rows=None, max_conditions: int = 3, radius: float = 0.0,
                             workers: int = 1,
                             weights=None, progress: bool = False,
                             resume: dict | None = None, save=None) -> tuple[RuleCard, list[dict]]:
    """``card`` with up to ``n_splits`` of its rules cut in two, each cut chosen by its cost (see the module
    docstring).

    Parameters
    ----------
    card : RuleCard
        A card of :func:`hunl.distill.cards.card_from_tree` (its quantities name the cuts' candidates:
        :func:`split_quantities`).
    games : sequence of HoldemEndgame
        The training endgames.
    fixed : mapping of int to RuleCard, optional
        Cards played on the other streets and kept (:class:`hunl.distill.cards.CompositeCard`).
    n_splits : int, default 4
        Rules to add at most (rounds; a round that finds no cut lowering the training figure ends the search).
    candidates : int, default 6
        Cuts of each round played exactly: the best of each rule by :func:`split_gains`, best first, then the best
        of each rule on each other quantity.
    iterations : int, default 0
        0: each side's mixes are the rule's moved towards the cut's target for the side
        (:attr:`RuleSplit.targets`). Positive: the two sides' strategies are first fitted by this many iterations
        of regret matching+ against best responses (:func:`_fit_sides`), and their plain mixes chosen near them.
    rows : tuple of (sequence of str, numpy.ndarray, numpy.ndarray, numpy.ndarray), optional
        ``(names, Z, Y, weight)``: the equilibrium's training decisions, their quantities ``Z`` (columns
        ``names``, shape ``(n, len(names))``), class distributions ``Y`` ``(n, 4)`` and weights ``(n,)``. Given,
        the cuts are scored by imitation (:func:`split_gains` ``criterion="imitation"``: where the equilibrium
        plays differently on the two sides, its mean strategies the sides' targets); default by cost, on the
        class values of the card's own information sets against best responses (``"cost"``; values of classes a
        rule never plays read the best response's play off its path, so their first-order gains mislead).
    max_conditions : int, default 3
    radius : float, default 0.0
        Positive: each side also tries every plain mix within this distance of the rule's (:func:`side_tries`;
        on the turn card the only cheaper cut of a scratch search was one of these, docs/HUNL.md).
    workers : int, default 1
    weights : array_like of float, shape ``(len(games),)``, optional
        Each endgame's weight (:class:`hunl.distill.threshold_search.SplitWorkers`).
    progress : bool, default False
        Show a progress bar (cuts played).
    resume : dict, optional
        A state passed to ``save`` by an earlier run of the same search: it goes on from there.
    save : callable, optional
        Called with the search's state (JSON-serialisable) after each cut played.

    Returns
    -------
    card : RuleCard
        The card with its kept cuts (coverage of the new rules as their rule's; the caller counts it again).
    log : list of dict
        Per round: ``train_pct_pot`` (mean training exploitability, % of the pot, before the round), ``tried``
        (each cut played: :meth:`RuleSplit.to_dict` and its ``pct_pot``) and ``kept`` (the cut kept or None).

    Raises
    ------
    ValueError
        If ``n_splits``, ``candidates`` or ``max_conditions`` is below 1, or ``radius`` is negative or not finite.
    """
    from tqdm.auto import tqdm

    from hunl.distill.threshold_search import SplitWorkers

    n_splits = check_int("n_splits", n_splits, 1)
    candidates = check_int("candidates", candidates, 1)
    max_conditions = check_int("max_conditions", max_conditions, 1)
    radius = check_real("radius", radius, 0.0)
    state = resume or {"card": card.to_dict(), "log": [], "round": None}
    cur = RuleCard.from_dict(state["card"])
    log = list(state["log"])
    pending = state["round"]               # a round a killed run was playing
    with SplitWorkers(card, games, fixed, workers, weights, quantities=split_quantities(card), ranked=True) as pool:
        while len(log) < n_splits:
            rnd, pending = pending, None
            if rnd is None:
                if rows is None:
                    cuts = split_gains(cur, pool.names, *pool.class_values(cur), max_conditions=max_conditions)
                else:
                    names, Z, Y, w = rows
                    cuts = split_gains(cur, names, Z, cur.rule_index(Z, names), w, Y, "imitation", max_conditions)
                # each rule's best cut first, then each rule's best on each other quantity
                firsts = sorted({c.rule: c for c in reversed(cuts)}.values(), key=lambda c: -c.gain)
                seconds = sorted({(c.rule, c.feature): c for c in reversed(cuts)}.values(), key=lambda c: -c.gain)
                chosen = firsts[:candidates]
                chosen += [c for c in seconds if c not in chosen][:candidates - len(chosen)]
                rnd = {"start": float(pool.exploitabilities([cur])[0]), "cuts": [c.to_dict() for c in chosen],
                       "tried": []}
            bar = tqdm(total=len(rnd["cuts"]), initial=len(rnd["tried"]), disable=not progress, unit="cut",
                       desc=f"rule splits, round {len(log) + 1}", leave=False)
            for c in rnd["cuts"][len(rnd["tried"]):]:
                cut = RuleSplit.from_dict(c)
                value, cut_card = _play_cut(pool, cur, cut, rnd["start"], iterations, radius)
                rnd["tried"].append({**c, "pct_pot": value, "card": cut_card.to_dict()})
                bar.update(1)
                if save is not None:
                    save({"card": cur.to_dict(), "log": log, "round": rnd})
            bar.close()
            best = min(rnd["tried"], key=lambda t: t["pct_pot"]) if rnd["tried"] else None
            kept = best if best is not None and best["pct_pot"] < rnd["start"] - 1e-9 else None
            log.append({"train_pct_pot": rnd["start"], "tried": [{k: v for k, v in t.items() if k != "card"}
                                                                for t in rnd["tried"]],
                        "kept": None if kept is None else {k: v for k, v in kept.items() if k != "card"}})
            if kept is None:
                break
            cur = RuleCard.from_dict(kept["card"])
            if progress:
                print(f"   rule split {len(log)}: rule {kept['rule']} on {kept['feature']} at {kept['threshold']:g}, "
                      f"{rnd['start']:.3f}% -> {kept['pct_pot']:.3f}% of the pot on the training endgames",
                      flush=True)
            if save is not None:
                save({"card": cur.to_dict(), "log": log, "round": None})
    return cur, log

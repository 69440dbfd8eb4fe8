"""Rule cards: a few plain rules per section, the quantities they name in words, and what the card costs.

A :class:`RuleCard` is what a player carries to the table: sections (a street, a position, a decision type),
each with a handful of :class:`CardRule` s -- "if *your hand beats more than 70% of the opponent's range* and *the
bet is at most pot-sized*: call 2 in 3, fold 1 in 3" -- and, beside them, the card's measured cost
(:class:`CardCost`: exploitability, held out). Every quantity a rule names has a plain-language phrase
(:class:`Quantity`); every threshold is a round number (:mod:`rulelearn.rules.plain`).

A card is also data: :meth:`RuleCard.to_dict` / :meth:`RuleCard.from_dict` round-trip it through JSON with the
exact strategy each rule plays, so a game package can rebuild the policy from the card and re-measure it. The
module knows no game.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from rulelearn.rules.plain import QUANTITY_KINDS, is_round

__all__ = ["RULE_ORDERS", "CardCondition", "CardCost", "CardRule", "CardSection", "Quantity", "RuleCard",
           "conditions_overlap"]

#: How a rule's mix may be given out to its hands (:class:`CardRule`): at random, or by hand strength.
RULE_ORDERS = ("random", "best", "worst", "polar")


@dataclass(frozen=True)
class Quantity:
    """A named quantity a rule can test, with its phrases.

    Attributes
    ----------
    name : str
        The feature's name in the data (``"equity"``).
    kind : str
        One of :data:`rulelearn.rules.plain.QUANTITY_KINDS`: how values print (``"share"``: 70%; ``"signed"``:
        +5 points; ``"scale"``: 0.75; ``"count"``: a whole number; ``"flag"``: yes/no).
    above : str
        Phrase for ``x > t``, with ``{t}`` for the printed threshold (``"your hand beats more than {t} of the
        opponent's range"``; a signed margin prints as ``" plus 5 points"``, nothing for 0).
    at_most : str
        Phrase for ``x <= t``.
    label : str, optional
        A short noun for tables and figures (default: the name).
    between : str, optional
        Phrase for ``lo < x <= hi``, with ``{lo}`` and ``{hi}`` (default: the two phrases joined by "and").
    """

    name: str
    kind: str
    above: str
    at_most: str
    label: str = ""
    between: str = ""

    def __post_init__(self):
        if self.kind not in QUANTITY_KINDS:
            raise ValueError(f"kind must be one of {QUANTITY_KINDS}, got {self.kind!r}")

    def value_text(self, t: float, op: str) -> str:
        """The threshold ``t`` as printed (for a count, the whole number the phrase names)."""
        if self.kind == "share":
            return f"{100 * t:.0f}%" if abs(100 * t - round(100 * t)) < 1e-9 else f"{100 * t:g}%"
        if self.kind == "signed":  # read after a reference ("the pot odds plus 5 points")
            return "" if abs(t) < 1e-12 else f" {'plus' if t > 0 else 'minus'} {abs(100 * t):.0f} points"
        if self.kind == "count":
            return str(int(math.floor(t)) + 1 if op == ">" else int(math.floor(t)))
        return f"{t:g}"

    def phrase(self, op: str, t: float) -> str:
        """The condition ``x op t`` in words (``op`` is ``">"`` or ``"<="``)."""
        if op not in (">", "<="):
            raise ValueError(f"op must be '>' or '<=', got {op!r}")
        return (self.above if op == ">" else self.at_most).format(t=self.value_text(t, op))

    def interval(self, lo: float | None, hi: float | None) -> str:
        """``lo < x <= hi`` in words (either bound may be None)."""
        if lo is not None and hi is not None:
            if self.between:
                return self.between.format(lo=self.value_text(lo, ">"), hi=self.value_text(hi, "<="))
            return f"{self.phrase('>', lo)} and {self.phrase('<=', hi)}"
        return self.phrase(">", lo) if lo is not None else self.phrase("<=", hi)

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind, "above": self.above, "at_most": self.at_most,
                "label": self.label, "between": self.between}


@dataclass(frozen=True)
class CardCondition:
    """``feature op threshold``, ``op`` one of ``">"``, ``"<="``."""

    feature: str
    op: str
    threshold: float

    def holds(self, value):
        """Whether values (a float or an array) satisfy the condition."""
        return value > self.threshold if self.op == ">" else value <= self.threshold


@dataclass(frozen=True)
class CardRule:
    """One rule: its conditions, what it plays in words and in numbers, and how often it applies.

    Attributes
    ----------
    conditions : tuple of CardCondition
        All must hold (empty: the rule always applies in its section).
    action : str
        The strategy in words (``"bet big 2 in 3, check 1 in 3"``).
    strategy : tuple
        The exact strategy the card plays (nested tuples of floats; its shape is the game's).
    coverage : float
        Share of the section's training decisions (weighted as the learner weighted them) the rule covers.
    order : {"random", "best", "worst", "polar"}, default "random"
        How the mix is given out to the hands the rule covers at a decision: ``"random"``, every hand plays the
        mix; ``"best"``, the game's most aggressive action goes to the strongest hands first, then the next
        action, and so on ("call with the best 2 in 5 of these hands, fold the rest"); ``"worst"``, the most
        aggressive action to the weakest hands first (bluffs from the bottom); ``"polar"``, each aggressive
        action in two parts, value from the strongest hands and bluffs from the weakest, the passive action in
        between. Each action is still played by its share of the rule's hands; a game's policy reads the order
        (e.g. :mod:`hunl.distill.hand_order`).

    Raises
    ------
    ValueError
        If ``order`` is not one of :data:`RULE_ORDERS`.
    """

    conditions: tuple[CardCondition, ...]
    action: str
    strategy: tuple
    coverage: float = 0.0
    order: str = "random"

    def __post_init__(self):
        if self.order not in RULE_ORDERS:
            raise ValueError(f"order must be one of {RULE_ORDERS}, got {self.order!r}")


@dataclass(frozen=True)
class CardSection:
    """The rules of one decision type.

    Attributes
    ----------
    title : str
        "River, out of position, not facing a bet".
    rules : tuple of CardRule
    conditions : tuple of CardCondition
        What puts a decision in this section (on the section features: street, position, facing a bet); the
        title says it in words, and they are not counted as the rules' conditions.
    """

    title: str
    rules: tuple[CardRule, ...]
    conditions: tuple[CardCondition, ...] = ()


@dataclass(frozen=True)
class CardCost:
    """What a card costs, measured outside its training data.

    Attributes
    ----------
    mean, sd : float
        Mean and standard deviation over the held-out games of the exploitability, in ``unit``.
    unit : str
        ``"% of the pot"`` or ``"chips"``.
    n_games : int
        Held-out games the mean is over.
    mbb : float or None
        The mean in milli-big-blinds per game, where the game has blinds.
    measure : str
        What was measured ("NashConv / 2 inside 400 held-out solved river endgames").
    """

    mean: float
    sd: float
    unit: str
    n_games: int
    mbb: float | None = None
    measure: str = ""

    def text(self) -> str:
        """``"5.0% of the pot (sd 3.1) = 650 mbb/g, 400 held-out endgames"``."""
        s = f"{self.mean:.3g} {self.unit} (sd {self.sd:.2g})" if self.unit == "chips" else \
            f"{self.mean:.2f}{self.unit if self.unit.startswith('%') else ' ' + self.unit} (sd {self.sd:.2f})"
        if self.mbb is not None:
            s += f" = {self.mbb:,.0f} mbb/g"
        return s + f", {self.n_games:,} held-out games"


@dataclass(frozen=True)
class RuleCard:
    """A rule card: sections of plain rules, the phrases of the quantities they name, and the card's cost.

    Attributes
    ----------
    title : str
    sections : tuple of CardSection
    quantities : tuple of Quantity
        Every quantity a condition names (checked).
    cost : CardCost or None
    notes : tuple of str
        Lines printed under the title (how to read the card, where its cost comes from).
    meta : dict
        Anything a game needs to rebuild the card's policy (JSON-serialisable).

    Raises
    ------
    ValueError
        If a condition names a quantity without a phrase, or a threshold that is not round for its kind.
    """

    title: str
    sections: tuple[CardSection, ...]
    quantities: tuple[Quantity, ...]
    cost: CardCost | None = None
    notes: tuple[str, ...] = ()
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        known = {q.name: q for q in self.quantities}
        for s in self.sections:
            for r in s.rules:
                for c in r.conditions:
                    if c.feature not in known:
                        raise ValueError(f"condition on {c.feature!r} has no plain-language phrase")
                    if not is_round(c.threshold, known[c.feature].kind):
                        raise ValueError(f"threshold {c.threshold!r} of {c.feature!r} is not a round number")

    @property
    def n_rules(self) -> int:
        """Rules on the card."""
        return sum(len(s.rules) for s in self.sections)

    @property
    def n_conditions(self) -> int:
        """Conditions on the card, over all rules."""
        return sum(len(r.conditions) for s in self.sections for r in s.rules)

    def rules(self) -> list[CardRule]:
        """All rules, section by section."""
        return [r for s in self.sections for r in s.rules]

    def rule_index(self, X, feature_names) -> np.ndarray:
        """The position in :meth:`rules` of the first rule (section conditions and rule conditions) that each row
        of ``X`` satisfies; -1 where none does.

        Parameters
        ----------
        X : array_like of float, shape ``(m, F)``
            Feature rows (NaN counts as below every threshold, as in :func:`rulelearn.rules.round_tree.grow_round_tree`).
        feature_names : sequence of str
            The column of each feature (every feature a condition names must be there).
        """
        x = np.asarray(X, dtype=np.float64)
        x = np.where(np.isnan(x), -1e300, x)                  # NaN below every threshold, once for all conditions
        col = {n: k for k, n in enumerate(feature_names)}
        out = np.full(x.shape[0], -1, dtype=np.int64)
        k = 0
        for s in self.sections:
            open_ = np.flatnonzero(out < 0)                   # rows no earlier rule took
            for c in s.conditions:
                open_ = open_[c.holds(x[open_, col[c.feature]])]
            for r in s.rules:
                rows = open_
                for c in r.conditions:
                    rows = rows[c.holds(x[rows, col[c.feature]])]
                out[rows] = k
                if rows.size:
                    open_ = open_[out[open_] < 0]
                k += 1
        return out

    def section_groups(self) -> list[list[int]]:
        """The sections grouped by the decisions they can share: two sections whose own conditions can hold at
        once are in one group, and groups are closed under that (e.g. the river's "either position, not facing a
        bet" with both positions' "not facing a bet" sections). A decision a section leaves falls to a later
        section of its group.

        Returns
        -------
        list of list of int
            Section positions, each group in card order, groups by their first section.
        """
        boxes = [_box(CardRule(sec.conditions, "", ())) for sec in self.sections]
        group = list(range(len(boxes)))

        def root(i: int) -> int:
            while group[i] != i:
                i = group[i]
            return i

        for i in range(len(boxes)):
            for j in range(i):
                if _overlap(boxes[i], boxes[j]):
                    group[root(i)] = root(j)
        out: dict = {}
        for i in range(len(boxes)):
            out.setdefault(root(i), []).append(i)
        return list(out.values())

    def quantity(self, name: str) -> Quantity:
        """The quantity called ``name``."""
        return next(q for q in self.quantities if q.name == name)

    def rule_text(self, rule: CardRule, otherwise: bool = False) -> str:
        """``"if <phrase> and <phrase>: <action>"``; without conditions ``"always: ..."``, or with ``otherwise``
        (the last of several rules of a section) ``"otherwise: ..."``."""
        if not rule.conditions:
            return f"{'otherwise' if otherwise else 'always'}: {rule.action}"
        # one phrase per quantity: "between 20% and 70%"
        conds = " and ".join(self.quantity(f).interval(lo, hi) for f, (lo, hi) in _box(rule).items())
        return f"if {conds}: {rule.action}"

    def to_text(self) -> str:
        """The card for a terminal."""
        lines = [self.title, "=" * len(self.title)]
        if self.cost is not None:
            lines.append(f"cost: {self.cost.text()}")
        lines += list(self.notes)
        for s in self.sections:
            lines += ["", s.title]
            for r in s.rules:
                lines.append(f"  - {self.rule_text(r, len(s.rules) > 1)}   [{r.coverage:.0%}]")
        lines += ["", f"{self.n_rules} rules, {self.n_conditions} conditions"]
        return "\n".join(lines) + "\n"

    def to_markdown(self, heading: str = "###") -> str:
        """The card as Markdown: a cost line, then one list per section."""
        out = []
        if self.cost is not None:
            out.append(f"**Cost: {self.cost.text()}.** {self.cost.measure}".rstrip())
            out.append("")
        out += [n for n in self.notes] + ([""] if self.notes else [])
        for s in self.sections:
            out.append(f"{heading} {s.title}")
            out.append("")
            for r in s.rules:
                out.append(f"* {self.rule_text(r, len(s.rules) > 1)} *({r.coverage:.0%} of the decisions)*")
            out.append("")
        out.append(f"{self.n_rules} rules, {self.n_conditions} conditions.")
        return "\n".join(out) + "\n"

    def merge_equal_rules(self) -> RuleCard:
        """The same card with fewer rules: two rules of a section that play the same strategy and whose conditions
        differ only in one quantity, on adjacent intervals ("beats at most 60%" and "beats between 60% and 70%"),
        become one rule on the union ("beats at most 70%"), as long as merging changes no decision.

        A decision reads the first rule it satisfies (:meth:`rule_index`), so a pair is merged only if no rule
        between the two can take a decision of the later one; each rule's conditions are read as a box (one
        interval per quantity), so the union of the two boxes is a box with conditions from theirs (round, and
        never more than the rule with more). Merging repeats until no pair is left. Where no two rules of a
        section overlap (a card from a tree), the section's rules are then ordered by coverage, largest first.
        A rule played by hand order (``order != "random"``) ranks its own hands, so it is never merged.

        Returns
        -------
        RuleCard
            Every decision plays what it played on ``self``; the merged rule's coverage is the sum of the two.
            ``self`` if nothing merges.

        Notes
        -----
        Two leaves of one tree split that end up with the same printed mix (after their strategies are optimised
        and rounded, e.g. both "fold") are the usual case: the split is worth nothing on the card.
        """
        sections, changed = [], False
        for sec in self.sections:
            rules = list(sec.rules)
            merged = True
            while merged:
                merged = False
                for i in range(len(rules)):
                    for j in range(i + 1, len(rules)):
                        union = _union(rules[i], rules[j])
                        if union is None or any(_overlap(_box(rules[k]), _box(rules[j])) for k in range(i + 1, j)):
                            continue
                        rules[i] = CardRule(union, rules[i].action, rules[i].strategy,
                                            rules[i].coverage + rules[j].coverage)
                        del rules[j]
                        merged = changed = True
                        break
                    if merged:
                        break
            boxes = [_box(r) for r in rules]
            if not any(_overlap(boxes[a], boxes[b]) for a in range(len(rules)) for b in range(a + 1, len(rules))):
                rules.sort(key=lambda r: -r.coverage)     # stable: equal coverages keep their order
            sections.append(CardSection(sec.title, tuple(rules), sec.conditions))
        if not changed:
            return self
        return RuleCard(self.title, tuple(sections), self.quantities, self.cost, self.notes, self.meta)

    def with_otherwise(self, max_cells: int = 1_000_000) -> RuleCard:
        """The same card with one rule fewer to check per section: in each section whose rules are disjoint and
        together cover every decision of the section, the rule with the most conditions (then the most coverage)
        moves last and loses its conditions, printed "otherwise: ..." -- the default rule of a rule list.

        Exact: a section qualifies only if its rules' boxes (one interval per quantity) are pairwise disjoint and
        cover the whole space of the quantities they test -- checked on every cell of the grid of their
        thresholds (NaN counts as below every threshold, as in :meth:`rule_index`) -- so the rules earlier in
        the list take the same decisions as before and the last one takes the rest, which were its own.

        Parameters
        ----------
        max_cells : int, default 1,000,000
            A section whose threshold grid has more cells is left as it is.

        Returns
        -------
        RuleCard
            ``self`` if no section qualifies.
        """
        sections, changed = [], False
        for sec in self.sections:
            rules = list(sec.rules)
            if len(rules) > 1 and all(r.conditions for r in rules) and _partition(rules, max_cells):
                k = max(range(len(rules)), key=lambda i: (len(rules[i].conditions), rules[i].coverage, -i))
                last = rules.pop(k)
                rules.append(CardRule((), last.action, last.strategy, last.coverage, last.order))
                sec = CardSection(sec.title, tuple(rules), sec.conditions)
                changed = True
            sections.append(sec)
        if not changed:
            return self
        return RuleCard(self.title, tuple(sections), self.quantities, self.cost, self.notes, self.meta)

    def without_default_copies(self) -> RuleCard:
        """The same card with fewer rules: a rule that plays what its section's default rule plays is dropped.

        A section ending in a rule without conditions (``"otherwise: ..."``, :meth:`with_otherwise`) sends every
        decision no earlier rule took to it. A rule before it with the same strategy and action, whose conditions
        (read as a box) cannot hold together with those of any rule between it and the default, takes only
        decisions that would otherwise fall to the default: dropping it changes no decision's strategy. Rules are
        dropped from the last to the first, so a run of such rules goes at once. Only rules played at random
        (``order == "random"``, both the rule and the default) are copies in this sense.

        Returns
        -------
        RuleCard
            Every decision plays what it played on ``self``; the default rule's coverage gains the dropped rules'.
            ``self`` if nothing is dropped.
        """
        sections, changed = [], False
        for sec in self.sections:
            rules = list(sec.rules)
            if len(rules) > 1 and not rules[-1].conditions:
                default = rules[-1]
                for i in range(len(rules) - 2, -1, -1):
                    r = rules[i]
                    if (r.action != default.action or r.strategy != default.strategy
                            or r.order != "random" or default.order != "random"):
                        continue        # a rule played by hand order ranks its own hands: not a copy
                    box = _box(r)
                    if any(_overlap(box, _box(rules[k])) for k in range(i + 1, len(rules) - 1)):
                        continue
                    default = dataclasses.replace(default, coverage=default.coverage + r.coverage)
                    del rules[i]
                    rules[-1] = default
                    changed = True
            sections.append(CardSection(sec.title, tuple(rules), sec.conditions))
        if not changed:
            return self
        return RuleCard(self.title, tuple(sections), self.quantities, self.cost, self.notes, self.meta)

    def to_dict(self) -> dict:
        """A JSON-serialisable dict (:meth:`from_dict` inverts it)."""
        def rule(r):
            d = {"conditions": [[c.feature, c.op, c.threshold] for c in r.conditions], "action": r.action,
                 "strategy": _listify(r.strategy), "coverage": r.coverage}
            if r.order != "random":             # absent: cards written before hand orders read the same
                d["order"] = r.order
            return d
        return {"title": self.title,
                "sections": [{"title": s.title, "rules": [rule(r) for r in s.rules],
                              "conditions": [[c.feature, c.op, c.threshold] for c in s.conditions]}
                             for s in self.sections],
                "quantities": [q.to_dict() for q in self.quantities],
                "cost": None if self.cost is None else dict(vars(self.cost)),
                "notes": list(self.notes), "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict) -> RuleCard:
        """The card of :meth:`to_dict`."""
        sections = tuple(CardSection(s["title"], tuple(
            CardRule(tuple(CardCondition(f, op, float(t)) for f, op, t in r["conditions"]), r["action"],
                     _tuplify(r["strategy"]), float(r["coverage"]), str(r.get("order", "random")))
            for r in s["rules"]),
            tuple(CardCondition(f, op, float(t)) for f, op, t in s.get("conditions", ()))) for s in d["sections"])
        cost = None if d.get("cost") is None else CardCost(**d["cost"])
        return cls(d["title"], sections, tuple(Quantity(**q) for q in d["quantities"]), cost,
                   tuple(d.get("notes", ())), dict(d.get("meta", {})))


def _listify(x):
    if isinstance(x, (tuple, list)):
        return [_listify(v) for v in x]
    return float(x)


def _tuplify(x):
    if isinstance(x, (tuple, list)):
        return tuple(_tuplify(v) for v in x)
    return float(x)


def _box(rule: CardRule) -> dict:
    """``{feature: (lo, hi)}``: the rule holds where ``lo < x <= hi`` for every feature (``None``: unbounded)."""
    box: dict = {}
    for c in rule.conditions:
        lo, hi = box.get(c.feature, (None, None))
        if c.op == ">":
            lo = c.threshold if lo is None else max(lo, c.threshold)
        else:
            hi = c.threshold if hi is None else min(hi, c.threshold)
        box[c.feature] = (lo, hi)
    return box


def _overlap(a: dict, b: dict) -> bool:
    """Whether two boxes of :func:`_box` can hold at once."""
    for f in set(a) | set(b):
        lo = max((v for v in (a.get(f, (None, None))[0], b.get(f, (None, None))[0]) if v is not None), default=None)
        hi = min((v for v in (a.get(f, (None, None))[1], b.get(f, (None, None))[1]) if v is not None), default=None)
        if lo is not None and hi is not None and lo >= hi:
            return False
    return True


def conditions_overlap(a, b) -> bool:
    """Whether two conjunctions of card conditions (sequences of :class:`CardCondition`, e.g. two rules' or a
    rule's and a section's) can hold at once: each read as a box, one interval per quantity, as
    :meth:`RuleCard.rule_index` reads them (``lo < x <= hi``).

    Parameters
    ----------
    a, b : sequence of CardCondition
        The two conjunctions; an empty one always holds. Conditions on the same feature intersect (the
        largest ``>`` threshold, the smallest ``<=`` one); an ``op`` other than ``">"`` reads as ``"<="``.

    Returns
    -------
    bool
        ``True`` if some point satisfies every condition of both: on each feature the tightest lower bound
        is below the tightest upper bound (or one side is unbounded). ``False`` also when ``a`` or ``b`` alone
        can never hold.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is not iterable.
    AttributeError
        If an entry lacks ``feature``, ``op`` or ``threshold``.
    """
    return _overlap(_box(CardRule(tuple(a), "", ())), _box(CardRule(tuple(b), "", ())))


def _union(a: CardRule, b: CardRule):
    """The conditions of the box ``a`` or ``b`` where the two play the same and their boxes differ in one feature on
    adjacent intervals; ``None`` otherwise."""
    if a.action != b.action or a.strategy != b.strategy or a.order != "random" or b.order != "random":
        return None             # a rule played by hand order ranks its own hands: a union would rank others
    ba, bb = _box(a), _box(b)
    diff = [f for f in dict.fromkeys([*ba, *bb]) if ba.get(f, (None, None)) != bb.get(f, (None, None))]
    if len(diff) != 1:
        return None
    f = diff[0]
    (la, ha), (lb, hb) = ba.get(f, (None, None)), bb.get(f, (None, None))
    if ha is not None and ha == lb:
        span = (la, hb)
    elif hb is not None and hb == la:
        span = (lb, ha)
    else:
        return None
    box = {**ba, f: span}
    out = []
    for g in dict.fromkeys(c.feature for c in a.conditions + b.conditions):
        lo, hi = box[g]
        if lo is not None:
            out.append(CardCondition(g, ">", lo))
        if hi is not None:
            out.append(CardCondition(g, "<=", hi))
    return tuple(out)


def _partition(rules: list, max_cells: int) -> bool:
    """Whether the boxes of ``rules`` are pairwise disjoint and cover the space of the features they test: each cell
    of the grid of their thresholds (one representative point a cell; NaN reads below every threshold) lies in
    exactly one box. False if the grid has more than ``max_cells`` cells."""
    boxes = [_box(r) for r in rules]
    feats = list(dict.fromkeys(f for b in boxes for f in b))
    points = []
    for f in feats:
        t = sorted({v for b in boxes for v in b.get(f, (None, None)) if v is not None})
        # a point in every interval (-inf, t0], (t0, t1], ..., (tk, inf): each threshold itself, and one above all
        points.append(np.array(t + [t[-1] + 1.0]))
    if math.prod(len(p) for p in points) > max_cells:
        return False
    grid = np.stack([g.ravel() for g in np.meshgrid(*points, indexing="ij")], axis=1)
    hits = np.zeros(grid.shape[0], dtype=np.int64)
    for b in boxes:
        inside = np.ones(grid.shape[0], dtype=bool)
        for j, f in enumerate(feats):
            lo, hi = b.get(f, (None, None))
            if lo is not None:
                inside &= grid[:, j] > lo
            if hi is not None:
                inside &= grid[:, j] <= hi
        hits += inside
    return bool(np.all(hits == 1))

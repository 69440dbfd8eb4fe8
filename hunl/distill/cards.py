"""HUNL rule cards: a few rules per street, position and decision type, learned with exploitability in the loop.

A card (:class:`rulelearn.rules.cards.RuleCard`) is learned from the decisions of solved endgames
(:func:`hunl.distill.decisions.decision_rows`: starting ranges, or with ``ranges="own"`` the player's own range
at the decision, :func:`card_ranges`) in three steps:

1. :func:`grow_card_tree`: one best-first tree over all decisions (:func:`rulelearn.rules.round_tree.
   grow_round_tree`) on the cumulative action-class distributions (the Cramér distance, as
   :class:`hunl.distill.policy.DistilledPolicy`), rows drawn in proportion to probability times stake. Its first
   splits are on the *section* features (street, position, facing a bet), which cost no condition; every other
   threshold is a round number (:func:`hunl.distill.quantities.feature_grid`) and a rule has at most
   ``max_conditions`` of them. The trees with 1, 2, ... leaves are nested, so one growth gives every card size.
2. :func:`fit_card`: the leaves of the tree with ``n_rules`` leaves get the class distributions of least
   exploitability over training endgames (CFR-BR, :func:`hunl.distill.optimal_leaves.optimise_leaves`), rounded
   to plain mixes ("bet big 2 in 3, check 1 in 3", :func:`rulelearn.rules.plain.plain_fractions`).
3. :class:`CardPolicy` plays the card -- exactly the rounded strategies it prints -- in any endgame
   (:func:`hunl.distill.policy.play`), so its cost is measured in held-out solved endgames like any policy
   (:mod:`hunl.distill.cost`).

The rules of step 1 can instead be chosen by what they are worth to the card's exploitability: grown on by regret
(:func:`grow_card_by_regret`), or grown large by imitation and pruned back while the cost allows
(:func:`hunl.distill.card_pruning.prune_card_tree`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.distill.actions import N_CLASSES
from hunl.distill.decisions import DecisionRows
from hunl.distill.hand_order import (
    AGGRESSION,
    HAND_ORDERS,
    POLAR_BLUFF_SHARE,
    STRENGTH_COLUMN,
    hand_positions,
    order_codes,
    ranked_class_probs,
)
from hunl.distill.optimal_leaves import LeafWorkers, information_set_values, optimise_leaves
from hunl.distill.policy import FACING_ONLY
from hunl.distill.quantities import (
    CARD_FEATURES,
    FLOP_QUANTITIES,
    QUANTITIES,
    SECTION_FEATURES,
    derive_features,
    design_matrix,
    feature_grid,
    section_title,
)
from rulelearn.rules.cards import CardCondition, CardCost, CardRule, CardSection, RuleCard
from rulelearn.rules.growth import GrownTree
from rulelearn.rules.plain import describe_plain_mix, plain_fractions
from rulelearn.rules.round_tree import grow_round_tree, leaf_means

__all__ = ["CARD_KEY", "CARD_RANGES", "DEFAULT_CARD_FEATURES", "FIXED_KEY", "STREET_NAMES", "CardConfig",
           "CardPolicy", "CompositeCard", "StreetCards", "card_model",
           "card_from_tree", "card_ranges", "fit_card", "provisional_card", "grow_card_by_regret", "grow_card_tree", "plain_table"]

#: Street numbers (cards on the board) and their names.
STREET_NAMES = {3: "flop", 4: "turn", 5: "river"}
#: The one leaf-table key of a card (all its rules form one table).
CARD_KEY = "card"
#: The leaf-table key of the fixed cards of a :class:`CompositeCard`.
FIXED_KEY = "fixed"
#: Features a card may test by default (the river's and the turn's deciles; ``equity_uniform`` left out: raw
#: strength without the ranges is what rule cards should not rely on).
DEFAULT_CARD_FEATURES = ("equity", "percentile", "facing_bet", "spr", "opp_bets", "opp_bets_prev", "opp_strong",
                         "equity_margin", "defend_margin", "own_strong", "range_equity") + tuple(
    f"decile_{k}" for k in range(1, 11))
#: Words of the action classes by section: not facing a bet, facing one, either.
ACTION_WORDS = (("check", "bet small", "bet big", "all-in"), ("fold", "call", "raise", "all-in"),
                ("check or fold", "bet small or call", "bet big or raise", "all-in"))
_SECTION_COLS = [CARD_FEATURES.index(f) for f in SECTION_FEATURES]
_PURE_COLS = [CARD_FEATURES.index("facing"), CARD_FEATURES.index("street")]
_FACING_COLS = [CARD_FEATURES.index(f) for f in FACING_ONLY]


@dataclass(frozen=True)
class CardConfig:
    """How a card's tree is grown.

    Attributes
    ----------
    max_leaves : int
        Rules of the largest card (the tree is grown once to this size).
    max_conditions : int
        Most conditions of one rule (bounds on non-section features, one per feature and side).
    features : tuple of str
        Features the rules may test (section features are always available).
    n_samples : int
        Decisions drawn (with replacement, in proportion to probability times stake).
    min_leaf_share : float
        Least share of the drawn decisions in a rule.
    plain_tolerance : float
        Largest change of a class probability by the plain rounding.
    plain_search : float
        0 (the default): each rule prints the plain mix nearest its optimised strategy. Positive: the plain
        mixes within this distance of it (in every class) are tried rule by rule and the one with the least
        training exploitability is printed (:func:`hunl.distill.plain_search.plain_by_exploitability`; only
        when the strategies are optimised, ``fit_card(iterations > 0)``).
    random_state : int

    Raises
    ------
    ValueError
        If ``plain_search`` is not in ``[0, 1]``.
    """

    max_leaves: int = 40
    max_conditions: int = 3
    features: tuple[str, ...] = DEFAULT_CARD_FEATURES
    n_samples: int = 400_000
    min_leaf_share: float = 0.002
    plain_tolerance: float = 0.05
    plain_search: float = 0.0
    random_state: int = 0

    def __post_init__(self):
        if not (np.isfinite(self.plain_search) and 0.0 <= self.plain_search <= 1.0):
            raise ValueError(f"plain_search must be a distance in [0, 1] (0: the nearest plain mixes), "
                             f"got {self.plain_search!r}")


def _sample(rows: DecisionRows, n: int, seed: int) -> np.ndarray:
    w = np.asarray(rows.weight, dtype=np.float64) * np.asarray(rows.stake, dtype=np.float64)
    w = np.where(np.isfinite(w) & (w > 0), w, 0.0)
    if w.sum() <= 0:
        raise ValueError("rows holds no decision of positive weight")
    rng = np.random.default_rng(seed)
    return rng.choice(w.size, size=int(n), p=w / w.sum())


def _design(rows: DecisionRows, take: np.ndarray) -> np.ndarray:
    return _design_of(rows.X[take], rows.facing[take], rows.street[take])


def _design_of(X: np.ndarray, facing: np.ndarray, street: np.ndarray) -> np.ndarray:
    """The card design matrix (:data:`CARD_FEATURES`) of feature rows with their decision type, for growing a
    card: the features about the bet faced are NaN where no bet is faced (there they are 0 or copies of
    ``equity`` and ``percentile``, and a rule must not name the pot odds of a bet that is not there; NaN goes
    left at every threshold, so no split on them can separate such rows)."""
    Z = np.full((X.shape[0], len(CARD_FEATURES)), np.nan)
    Z[:, :X.shape[1]] = X
    Z[:, -2] = facing
    Z[:, -1] = street
    derive_features(Z)
    Z[np.ix_(~np.asarray(facing, dtype=bool), _FACING_COLS)] = np.nan
    return Z


def _grids(config: CardConfig) -> list:
    return [feature_grid(f) if (f in config.features or f in SECTION_FEATURES) else None for f in CARD_FEATURES]


def grow_card_tree(rows: DecisionRows, config: CardConfig = CardConfig()) -> tuple[GrownTree, np.ndarray,
                                                                                  np.ndarray]:
    """Grow the card tree on decision rows (see the module docstring).

    ``config.n_samples`` decisions are drawn with replacement in proportion to ``weight * stake``; the tree is
    grown on the cumulative class distributions of the drawn decisions (first three columns of the cumulative
    sum of ``Y``), with round thresholds and at most ``config.max_conditions`` conditions a rule.

    Parameters
    ----------
    rows : DecisionRows
        Training decisions (:func:`hunl.distill.decisions.decision_rows`, concatenated over endgames).
    config : CardConfig, default ``CardConfig()``
        Largest card (``max_leaves``), conditions a rule, features, draws, least leaf share and seed.

    Returns
    -------
    tree : GrownTree
        Over :data:`hunl.distill.quantities.CARD_FEATURES`, with ``config.max_leaves`` leaves at most.
    Z : numpy.ndarray of float64, shape ``(n_samples, len(CARD_FEATURES))``
        The drawn decisions' design matrix (``n_samples`` is ``config.n_samples``; NaN in the features about
        the bet faced where no bet is faced).
    Y : numpy.ndarray of float64, shape ``(n_samples, 4)``
        Their equilibrium class distributions (rows renormalised to sum to 1).

    Raises
    ------
    ValueError
        If a feature of ``config.features`` has no phrase (is not in
        :data:`hunl.distill.quantities.QUANTITIES`), the rows hold no decision of positive ``weight * stake``,
        or a size is invalid: ``config.n_samples < 1``, ``config.max_leaves < 1`` or
        ``config.max_conditions < 0`` (from :func:`rulelearn.rules.round_tree.grow_round_tree` and
        :meth:`numpy.random.Generator.choice`).
    """
    known = {q.name for q in QUANTITIES}
    bad = [f for f in config.features if f not in known]
    if bad:
        raise ValueError(f"features without a plain-language phrase: {bad}")
    take = _sample(rows, config.n_samples, config.random_state)
    Z = _design(rows, take)
    Y = rows.Y[take].astype(np.float64)
    Y /= Y.sum(axis=1, keepdims=True)
    tree = grow_round_tree(Z, np.cumsum(Y, axis=1)[:, :-1], _grids(config), None, config.max_leaves, config.max_conditions,
                           free=_SECTION_COLS, pure=_PURE_COLS, min_leaf_weight=config.min_leaf_share,
                           feature_names=CARD_FEATURES)
    return tree, Z, Y


def plain_table(table, tolerance: float = 0.05) -> np.ndarray:
    """Every row of a ``(n, 4)`` class table rounded to a plain mix.

    Each row is rounded by :func:`rulelearn.rules.plain.plain_fractions` (the smallest denominator of
    :data:`rulelearn.rules.plain.PLAIN_DENOMINATORS` within ``tolerance``, else the closest).

    Parameters
    ----------
    table : array_like of float, shape ``(n, 4)``
        Class distributions (e.g. a card's leaf strategies), one per row; non-negative (rows are
        renormalised).
    tolerance : float, default 0.05
        Largest difference, in probability, allowed between an entry and its plain fraction.

    Returns
    -------
    numpy.ndarray of float64, shape ``(n, 4)``
        The plain mixes: every row is ``counts / d`` for integer ``counts`` summing to ``d`` (sums to 1).

    Raises
    ------
    ValueError
        If a row is negative, not finite or sums to 0 (from :func:`~rulelearn.rules.plain.plain_fractions`).
    """
    t = np.asarray(table, dtype=np.float64)
    out = np.zeros_like(t)
    for i, row in enumerate(t):
        counts, d = plain_fractions(row, tolerance)
        out[i] = counts / d
    return out


def _section_of(conds) -> tuple:
    street = player = facing = None
    for c in conds:
        if c.name == "street":
            street = 4 if c.upper is not None else 5
        elif c.name == "in_position":
            player = 0 if c.upper is not None else 1
        elif c.name == "facing":
            facing = c.upper is None
    return street, player, facing


def action_text(row, facing: bool | None, order: str = "random") -> str:
    """A rule's strategy in words: ``row`` (4 class probabilities) as a plain mix of the actions of its decision
    type (``facing`` a bet, not, or ``None`` for either), e.g. ``"bet big 2 in 3, check 1 in 3"``; percentages
    where no denominator up to 10 gives it exactly.

    With ``order`` ``"best"`` or ``"worst"`` (the rule is played by hand order, :mod:`hunl.distill.hand_order`)
    the mix is said as which hands play what, the most aggressive action first: ``"call with the best 2 in 5 of
    these hands, fold the rest"``, ``"all-in with the weakest 3 in 10 of these hands, bet big with the next 4
    in 10, check the rest"``; ``"polar"``, each bet two parts from the best hands for one from the weakest:
    ``"bet big with 3 in 10 of these hands (2 of the best for each of the weakest), check the rest"``. A pure action
    is named alone either way.

    Raises
    ------
    ValueError
        If ``order`` is not one of :data:`hunl.distill.hand_order.HAND_ORDERS`, or ``row`` is negative or sums
        to 0.
    """
    row = np.asarray(row, dtype=np.float64)
    words = ACTION_WORDS[2 if facing is None else int(facing)]
    if order not in HAND_ORDERS:
        raise ValueError(f"order must be one of {HAND_ORDERS}, got {order!r}")
    counts, d = plain_fractions(row, 1e-9, denominators=(1, 2, 3, 4, 5, 6, 8, 10, 1000))
    if order != "random" and int(np.count_nonzero(counts)) > 1:
        return _ranked_text(words, counts, d, order)
    return describe_plain_mix(words, counts, d) if d <= 10 else ", ".join(
        f"{words[c]} {100 * row[c]:.0f}%" for c in np.argsort(-row) if row[c] >= 0.005)


def _ranked_text(words, counts, d: int, order: str) -> str:
    """The words of a mix given out by hand order (:func:`action_text`)."""
    present = [c for c in AGGRESSION if counts[c] > 0]
    share = (lambda k: f"{int(counts[k])} in {d}") if d <= 10 else (lambda k: f"{100 * counts[k] / d:.0f}%")
    if order == "polar":
        value = round((1 - POLAR_BLUFF_SHARE) / POLAR_BLUFF_SHARE)
        bets = ", ".join(f"{words[c]} with {share(c)}" for c in present if c != 0)
        rest = f", {words[0]} the rest" if counts[0] > 0 else ""
        return f"{bets} of these hands ({value} of the best for each of the weakest){rest}"
    parts = [f"{words[present[0]]} with the {'best' if order == 'best' else 'weakest'} {share(present[0])} of "
             "these hands"]
    parts += [f"{words[c]} with the next {share(c)}" for c in present[1:-1]]
    return ", ".join(parts + [f"{words[present[-1]]} the rest"])


def card_from_tree(tree: GrownTree, n_rules: int, table, coverage, title: str, cost: CardCost | None = None,
                   notes=(), meta=None, streets=None, ranges: str = "start") -> RuleCard:
    """The card of the tree with ``n_rules`` leaves playing ``table`` (``(n_rules, 4)``, in the order of
    ``tree.leaves(n_rules)``); ``coverage`` gives each leaf's share of its section's decisions.

    Rules are grouped into sections by their conditions on the section features, most covered first; the card's
    ``meta`` records ``leaf_order`` (the leaf position of each rule, in card order), ``leaf_nodes`` (their tree
    node ids) and ``streets`` (those of the training decisions, ``streets``, when given: a river-only card's
    sections are titled "River"), and ``ranges`` when it is not ``"start"`` (:func:`card_ranges`).

    Parameters
    ----------
    tree : GrownTree
        A card tree (:func:`grow_card_tree`), over :data:`hunl.distill.quantities.CARD_FEATURES`.
    n_rules : int
        Leaves of the tree the card is read from (1 to ``tree.max_leaves``).
    table : array_like of float, shape ``(n_rules, 4)``
        Each leaf's class distribution (:mod:`hunl.distill.actions`), in the order of
        ``tree.leaves(n_rules)``; printed as the rule's action (:func:`action_text`) and stored as its
        strategy.
    coverage : array_like of float, shape ``(n_rules,)``
        Each leaf's share (0-1) of its section's decisions, in the same order.
    title : str
        The card's title.
    cost : CardCost, optional
        What the card costs, printed with it; default none.
    notes : sequence of str, default ()
        Notes printed under the card.
    meta : dict, optional
        Further entries of ``card.meta`` (its ``streets``, ``leaf_order`` and ``leaf_nodes`` are replaced).
    streets : iterable of int, optional
        The streets (3 flop, 4 turn, 5 river) of the training decisions; default the streets the sections name
        (``[4, 5]`` when none does).
    ranges : {"start", "own"}, default "start"
        The ranges the card's quantities read (:data:`CARD_RANGES`).

    Returns
    -------
    RuleCard
        The card, its rules section by section (the order of its strategy table), with the quantities of the
        flop (:data:`hunl.distill.quantities.FLOP_QUANTITIES`) when its streets are ``[3]``, else
        :data:`hunl.distill.quantities.QUANTITIES`.

    Raises
    ------
    ValueError
        If ``n_rules`` is not in ``1 .. tree.max_leaves`` or ``ranges`` is not one of :data:`CARD_RANGES`.
    """
    table = np.asarray(table, dtype=np.float64)
    leaves = tree.leaves(n_rules)
    sections: dict = {}
    for k, node in enumerate(leaves):
        conds = tree.conditions(int(node))
        sec = _section_of(conds)
        if sec[0] is None and streets is not None and len(set(streets)) == 1:
            sec = (int(next(iter(streets))),) + sec[1:]
        rule_conds = []
        for c in conds:
            if c.name in SECTION_FEATURES:
                continue
            if c.lower is not None:
                rule_conds.append(CardCondition(c.name, ">", float(c.lower)))
            if c.upper is not None:
                rule_conds.append(CardCondition(c.name, "<=", float(c.upper)))
        action = action_text(table[k], sec[2])
        rule = CardRule(tuple(rule_conds), action, tuple(float(v) for v in table[k]), float(coverage[k]))
        sections.setdefault(sec, []).append((k, rule))
    out, leaf_order = [], []
    order = sorted(sections, key=lambda s: (-(s[0] or 9), s[1] if s[1] is not None else -1,
                                            -1 if s[2] is None else int(s[2])))
    for sec in order:
        ranked = sorted(sections[sec], key=lambda kr: -kr[1].coverage)
        rules = [r for _, r in ranked]
        leaf_order += [int(k) for k, _ in ranked]
        sconds = []
        if sec[0] is not None:          # flop <= 3.5, turn <= 4.5, river > 4.5
            sconds.append(CardCondition("street", ">" if sec[0] == 5 else "<=", 4.5 if sec[0] >= 4 else 3.5))
        if sec[1] is not None:
            sconds.append(CardCondition("in_position", "<=" if sec[1] == 0 else ">", 0.5))
        if sec[2] is not None:
            sconds.append(CardCondition("facing", ">" if sec[2] else "<=", 0.5))
        out.append(CardSection(section_title(*sec), tuple(rules), tuple(sconds)))
    # the policy reads the rules section by section: keep the table in that order
    streets = sorted({int(v) for v in streets}) if streets is not None else \
        sorted({s[0] for s in sections if s[0] is not None})
    meta = dict(meta or {}, streets=streets or [4, 5], leaf_order=leaf_order,
                leaf_nodes=[int(leaves[k]) for k in leaf_order])
    if _check_ranges(ranges) != "start":   # absent for the starting ranges: earlier cards read the same
        meta["ranges"] = ranges
    return RuleCard(title, tuple(out), FLOP_QUANTITIES if meta["streets"] == [3] else QUANTITIES, cost,
                    tuple(notes), meta)


#: The range modes a rule card may read (:mod:`hunl.distill.decisions`): ``"node"`` is left out, because a card
#: whose quantities read the opponent's range at the decision compounds both players' mistakes.
CARD_RANGES = ("start", "own")


def _check_ranges(ranges: str) -> str:
    if ranges not in CARD_RANGES:
        raise ValueError(f"ranges must be one of {CARD_RANGES}, got {ranges!r}")
    return ranges


def card_ranges(card: RuleCard) -> str:
    """The ranges a card's quantities read: ``card.meta["ranges"]``, ``"start"`` when absent.

    Parameters
    ----------
    card : RuleCard

    Returns
    -------
    str
        ``"start"`` (the endgame's starting ranges) or ``"own"`` (the player's own range at the decision).

    Raises
    ------
    ValueError
        If the card names a mode other than :data:`CARD_RANGES`.
    """
    return _check_ranges(str(card.meta.get("ranges", "start")))


class CardPolicy:
    """A rule card played in any endgame: a chooser for :func:`hunl.distill.policy.play` and a policy over leaves
    for :func:`hunl.distill.optimal_leaves.optimise_leaves` (its leaves are the card's rules).

    Parameters
    ----------
    card : RuleCard
        From :func:`card_from_tree` (rules' strategies are class distributions).
    table : array_like, shape ``(n_rules, 4)``, optional
        Strategies to play instead of the card's (leaf optimisation); default the card's own.

    Notes
    -----
    A decision on a street the card has no section for reads the rules of the nearest street it has (a river card
    plays the turn of a turn endgame with its river rules, on the features both streets share). The card's
    quantities read the ranges of its ``meta["ranges"]`` (:func:`card_ranges`): the starting ranges, or with
    ``"own"`` the player's own range at the decision (:mod:`hunl.distill.decisions`).
    """

    name = "rule card"

    def __init__(self, card: RuleCard, table=None, codes=None):
        self.card = card
        self.ranges = card_ranges(card)
        self.table = np.asarray([r.strategy for r in card.rules()] if table is None else table, dtype=np.float64)
        if self.table.shape != (card.n_rules, N_CLASSES):
            raise ValueError(f"table must have shape ({card.n_rules}, {N_CLASSES}), got {self.table.shape}")
        self.codes = order_codes([r.order for r in card.rules()]) if codes is None else \
            np.asarray(codes, dtype=np.int64)
        if self.codes.shape != (card.n_rules,):
            raise ValueError(f"codes must have shape ({card.n_rules},), got {self.codes.shape}")
        self.streets = tuple(int(s) for s in card.meta.get("streets", (4, 5)))

    @property
    def reads_hand_order(self) -> bool:
        """Whether some rule is played by hand order (:mod:`hunl.distill.hand_order`): then :meth:`class_probs`
        needs each row's node and weight."""
        return bool(np.any(self.codes != 0))

    def leaf_codes(self, key) -> np.ndarray:
        """``(n_rules,)`` int64: each rule's hand order code (:func:`hunl.distill.hand_order.order_codes`)."""
        return self.codes

    def leaf_keys(self) -> tuple:
        return (CARD_KEY,)

    def tree_key(self, street: int, facing: bool, player: int) -> str:
        return CARD_KEY

    def leaf_table(self, key) -> np.ndarray:
        return self.table

    def with_leaf_tables(self, tables: dict) -> CardPolicy:
        """The same card playing ``tables[CARD_KEY]`` (in the same hand orders)."""
        return CardPolicy(self.card, tables[CARD_KEY], self.codes)

    def n_rules(self) -> int:
        return self.card.n_rules

    def design(self, street: int, facing: bool, X) -> np.ndarray:
        """The rows of ``X`` as the card reads them: :func:`hunl.distill.quantities.design_matrix` on the card's
        street nearest ``street``, shape ``(m, len(CARD_FEATURES))``, float64 (columns :data:`CARD_FEATURES`)."""
        s = min(self.streets, key=lambda v: (abs(v - int(street)), -v))
        return design_matrix(X, s, bool(facing))

    def leaf_ids(self, street: int, facing: bool, player: int, X) -> tuple:
        """The card key and the rule (position in ``card.rules()``) each feature row of ``X`` reads.

        Raises
        ------
        ValueError
            If some row matches no rule (cannot happen for a card of :func:`card_from_tree`).
        """
        idx = self.card.rule_index(self.design(street, facing, X), CARD_FEATURES)
        if np.any(idx < 0):
            raise ValueError("the card has no rule for some decisions")
        return CARD_KEY, idx

    def class_probs(self, street: int, facing: bool, X, nodes=None, weights=None) -> np.ndarray:
        """``(m, 4)`` class distributions of the rules the rows read.

        Parameters
        ----------
        street : int
        facing : bool
        X : numpy.ndarray of float64, shape ``(m, F)``
            Feature rows of the street (:func:`hunl.distill.decisions.feature_names`).
        nodes : array_like of int, shape ``(m,)``, optional
            The decision node of each row; needed when a rule is played by hand order (:attr:`reads_hand_order`).
        weights : array_like of float, shape ``(m,)``, optional
            Each row's hand probability in the acting player's range at its node (the range the card reads);
            needed with ``nodes``.

        Raises
        ------
        ValueError
            If a rule is played by hand order and ``nodes`` or ``weights`` is missing, or a row reads no rule.
        """
        idx = self.leaf_ids(street, facing, 0, X)[1]
        if not self.reads_hand_order:
            return self.table[idx]
        if nodes is None or weights is None:
            raise ValueError("the card plays rules by hand order: class_probs needs the nodes and weights of the "
                             "rows (which hands share a decision, and how likely each is in the range)")
        lo, hi = hand_positions(idx, nodes, np.asarray(X)[:, STRENGTH_COLUMN], weights)
        return ranked_class_probs(self.table, self.codes, idx, lo, hi)


class StreetCards:
    """Several rule cards played together, each decision by the card of its street: e.g. a turn card on the turn
    and a river card (learned from river endgames) on the river of a turn endgame.

    A chooser for :func:`hunl.distill.policy.play` (starting ranges, as :class:`CardPolicy`). A street no card is
    given for is played by the card of the nearest street (the later one on a tie), which reads it with its own
    nearest street's rules (:meth:`CardPolicy.leaf_ids`).

    Parameters
    ----------
    cards : mapping of int to RuleCard
        ``{street: card}``, streets 3 (flop), 4 (turn) or 5 (river).

    Raises
    ------
    ValueError
        If ``cards`` is empty, a street is not 3, 4 or 5, or a value is not a :class:`RuleCard`.

    Examples
    --------
    >>> import json
    >>> from rulelearn.rules.cards import RuleCard
    >>> turn, river = (RuleCard.from_dict(json.load(open(f"docs/cards/{n}.json"))) for n in ("turn", "river"))
    >>> StreetCards({4: turn, 5: river}).name
    'turn card on the turn, river card on the river'
    """

    def __init__(self, cards):
        cards = dict(cards)
        if not cards:
            raise ValueError("cards must give at least one card ({street: RuleCard})")
        for street, card in cards.items():
            if isinstance(street, bool) or street not in STREET_NAMES:
                raise ValueError(f"cards: street must be 3 (flop), 4 (turn) or 5 (river), got {street!r}")
            if not isinstance(card, RuleCard):
                raise ValueError(f"cards[{street}] must be a RuleCard, got {type(card).__name__}")
        self.cards = {int(k): cards[k] for k in sorted(cards)}
        self.policies = {k: CardPolicy(c) for k, c in self.cards.items()}
        # "own" when any card reads the player's own range at the decision: played depth by depth, each street
        # in its card's mode (ranges_of)
        self.ranges = "own" if any(p.ranges == "own" for p in self.policies.values()) else "start"
        self.name = ", ".join(f"{STREET_NAMES[k]} card on the {STREET_NAMES[k]}" for k in self.cards)

    def ranges_of(self, street: int) -> str:
        """The ranges the card playing ``street`` reads (:func:`card_ranges`)."""
        return self.policy_for(street).ranges

    def policy_for(self, street: int) -> CardPolicy:
        """The :class:`CardPolicy` that plays ``street``."""
        k = min(self.policies, key=lambda v: (abs(v - int(street)), -v))
        return self.policies[k]

    @property
    def reads_hand_order(self) -> bool:
        """Whether some card plays a rule by hand order (:attr:`CardPolicy.reads_hand_order`)."""
        return any(p.reads_hand_order for p in self.policies.values())

    def class_probs(self, street: int, facing: bool, X, nodes=None, weights=None) -> np.ndarray:
        """``(m, 4)`` class distributions of the rules the rows read, in the card of ``street``
        (:meth:`CardPolicy.class_probs`)."""
        return self.policy_for(street).class_probs(street, facing, X, nodes, weights)


class CompositeCard:
    """A card being learned for some streets, played beside fixed cards for the others: the policy over leaves
    that :func:`hunl.distill.optimal_leaves.optimise_leaves` optimises, with the fixed cards' rules frozen.

    E.g. a turn card's rules are optimised while the river card plays every river decision, so they are the
    turn strategies that are least exploitable *together with* that river card, which is how the two are played
    (:class:`StreetCards`).

    Parameters
    ----------
    learn : CardPolicy
        The card being learned; it plays the decisions of the streets of its card's ``meta["streets"]``.
    fixed : mapping of int to RuleCard
        ``{street: card}`` for the other streets (each street by its own card; a street without one is played
        by the nearest, as :class:`StreetCards`).

    Raises
    ------
    ValueError
        If ``fixed`` is empty or gives a card for a street the learned card plays.
    """

    def __init__(self, learn: CardPolicy, fixed):
        fixed = dict(fixed)
        if not fixed:
            raise ValueError("fixed must give at least one card ({street: RuleCard})")
        clash = sorted(set(fixed) & set(learn.streets))
        if clash:
            raise ValueError(f"fixed gives cards for streets {clash} that the learned card plays")
        self.learn = learn
        self.fixed = StreetCards(fixed)
        self.ranges = "own" if "own" in (learn.ranges, self.fixed.ranges) else "start"
        self._offsets = {}
        a = 0
        for k, pol in self.fixed.policies.items():
            self._offsets[k] = a
            a += pol.table.shape[0]
        self._fixed_table = np.concatenate([pol.table for pol in self.fixed.policies.values()])
        self._fixed_codes = np.concatenate([pol.codes for pol in self.fixed.policies.values()])
        self.reads_hand_order = learn.reads_hand_order or self.fixed.reads_hand_order

    def ranges_of(self, street: int) -> str:
        """The ranges the card playing ``street`` reads: the learned card's on its streets, else the fixed card's."""
        return self.learn.ranges if int(street) in self.learn.streets else self.fixed.ranges_of(street)

    def leaf_keys(self) -> tuple:
        return (CARD_KEY, FIXED_KEY)

    def leaf_table(self, key) -> np.ndarray:
        return self.learn.table if key == CARD_KEY else self._fixed_table

    def leaf_codes(self, key) -> np.ndarray:
        """Hand order codes of the rules of ``key`` (:meth:`CardPolicy.leaf_codes`), as :meth:`leaf_table`."""
        return self.learn.codes if key == CARD_KEY else self._fixed_codes

    def leaf_ids(self, street: int, facing: bool, player: int, X) -> tuple:
        """The learned card's rule (key :data:`CARD_KEY`) on its streets, else the fixed card's rule (key
        :data:`FIXED_KEY`, rows of all fixed cards' rules one after the other)."""
        if int(street) in self.learn.streets:
            return self.learn.leaf_ids(street, facing, player, X)
        pol = self.fixed.policy_for(street)
        k = next(s for s, p in self.fixed.policies.items() if p is pol)
        _, idx = pol.leaf_ids(street, facing, player, X)
        return FIXED_KEY, idx + self._offsets[k]

    def with_leaf_tables(self, tables: dict) -> CompositeCard:
        """The learned card playing ``tables[CARD_KEY]``, beside the same fixed cards."""
        return CompositeCard(self.learn.with_leaf_tables(tables), self.fixed.cards)

    def class_probs(self, street: int, facing: bool, X, nodes=None, weights=None) -> np.ndarray:
        """``(m, 4)`` class distributions: the learned card's on its streets, else the fixed card's
        (:meth:`CardPolicy.class_probs`)."""
        if int(street) in self.learn.streets:
            return self.learn.class_probs(street, facing, X, nodes, weights)
        return self.fixed.class_probs(street, facing, X, nodes, weights)


def card_model(card: RuleCard, fixed=None):
    """The card as a policy over leaves: :class:`CardPolicy`, or beside ``fixed`` cards for the other streets
    (``{street: RuleCard}``, kept as they are) a :class:`CompositeCard`, whose own leaves are under
    :data:`CARD_KEY` and the fixed cards' under :data:`FIXED_KEY` (frozen in
    :func:`hunl.distill.optimal_leaves.optimise_leaves`).

    Parameters
    ----------
    card : RuleCard
        The card whose rules' strategies are to be optimised (rules' strategies are class distributions).
    fixed : mapping of int to RuleCard, optional
        ``{street: card}`` for the other streets (3 flop, 4 turn, 5 river); default none (or empty): the card
        plays every street.

    Returns
    -------
    CardPolicy or CompositeCard
        :class:`CardPolicy` of ``card`` without ``fixed``, else :class:`CompositeCard`.

    Raises
    ------
    ValueError
        If a card names a range mode other than :data:`CARD_RANGES` or its rules' strategies do not have 4
        classes (:class:`CardPolicy`), or ``fixed`` gives a card for a street ``card`` plays, a street other
        than 3, 4 or 5, or a value that is not a :class:`RuleCard` (:class:`CompositeCard`).
    """
    return CardPolicy(card) if not fixed else CompositeCard(CardPolicy(card), fixed)


def provisional_card(tree: GrownTree, n_rules: int, Z: np.ndarray, Y: np.ndarray, title: str = "HUNL rule card",
                     ranges: str = "start") -> tuple[RuleCard, np.ndarray, np.ndarray, np.ndarray, list]:
    """The card of the tree with ``n_rules`` leaves playing the equilibrium's mean strategy in each rule (the start
    of :func:`fit_card`'s leaf optimisation).

    Parameters
    ----------
    tree : GrownTree
        The card tree (:func:`grow_card_tree`).
    n_rules : int
        Leaves of the tree the card is read from (1 to ``tree.max_leaves``).
    Z : numpy.ndarray of float64, shape ``(n, len(CARD_FEATURES))``
        The drawn decisions' design matrix (:func:`grow_card_tree`); its last column is the street.
    Y : numpy.ndarray of float64, shape ``(n, 4)``
        Their equilibrium class distributions (:func:`grow_card_tree`).
    title : str, default "HUNL rule card"
        The card's title.
    ranges : {"start", "own"}, default "start"
        The ranges the card's quantities read (:data:`CARD_RANGES`).

    Returns
    -------
    card : RuleCard
        Unrounded strategies; ``card.meta["leaf_order"]`` gives the leaf position of each rule.
    means : numpy.ndarray of float64, shape ``(n_rules, 4)``
        Each leaf's mean class distribution over the drawn decisions ``Z``, ``Y`` (uniform where none), leaf
        order.
    masks : numpy.ndarray of bool, shape ``(n_rules, len(Z))``
        Which drawn decisions each leaf holds (leaf order).
    coverage : numpy.ndarray of float64, shape ``(n_rules,)``
        Each leaf's share of its section's drawn decisions (by count, leaf order).
    streets : list of int
        The streets of the drawn decisions.

    Raises
    ------
    ValueError
        If ``n_rules`` is not in ``1 .. tree.max_leaves``, ``Z`` does not have the tree's number of columns,
        or ``ranges`` is not one of :data:`CARD_RANGES`.
    """
    leaves, means = leaf_means(tree, n_rules, Z, Y)
    means = np.where(np.isnan(means), 1.0 / N_CLASSES, means)
    masks = tree.node_masks(np.nan_to_num(Z, nan=-1e300))[leaves]
    sec_w = {}
    secs = [_section_of(tree.conditions(int(n))) for n in leaves]
    for k, s in enumerate(secs):
        sec_w[s] = sec_w.get(s, 0) + masks[k].sum()
    coverage = np.array([masks[k].sum() / max(sec_w[secs[k]], 1) for k in range(len(leaves))])
    streets = sorted({int(v) for v in np.unique(Z[:, -1])})
    card = card_from_tree(tree, n_rules, means, coverage, title, streets=streets, ranges=ranges)
    return card, means, masks, coverage, streets


def fit_card(tree: GrownTree, n_rules: int, Z: np.ndarray, Y: np.ndarray, games, config: CardConfig = CardConfig(),
             iterations: int = 200, workers: int = 1, title: str = "HUNL rule card",
             progress: bool = False, fixed=None, ranges: str = "start") -> tuple[RuleCard, CardPolicy, dict]:
    """The card of the tree with ``n_rules`` leaves, its leaves optimised for exploitability and rounded.

    Parameters
    ----------
    tree, Z, Y
        From :func:`grow_card_tree` (``Z``, ``Y`` give the leaves' starting strategies and coverage).
    n_rules : int
    games : sequence of HoldemEndgame
        Training endgames of the CFR-BR leaf optimisation.
    config : CardConfig
    iterations : int, default 200
        CFR-BR iterations; 0 keeps the equilibrium's mean strategy in each rule (no optimisation: for endgames
        too large to optimise over, e.g. flop endgames; ``games`` is then unused).
    workers : int, default 1
    title : str
    progress : bool, default False
    fixed : mapping of int to RuleCard, optional
        Cards that play the other streets of ``games`` while the rules are optimised (:class:`CompositeCard`);
        by default the card plays every street (a street without rules by the nearest street's rules).
    ranges : {"start", "own"}, default "start"
        The ranges the card's quantities read (the rows ``Z`` must have been computed the same way); with
        ``"own"`` the rule each information set of a training endgame reads is fixed during the optimisation
        at the one of the card with the equilibrium's mean strategies (:func:`optimise_leaves`).

    Returns
    -------
    card : RuleCard
        Plain strategies (no cost yet).
    policy : CardPolicy
        Plays the card (with ``fixed``: on its streets; play it with :class:`StreetCards`).
    log : dict
        ``{"exact_train_pct_pot": [...], "iterations": [...]}`` of the optimisation (training endgames); with
        ``config.plain_search``, also ``"plain_train_pct_pot"``: the training exploitability of the nearest plain
        mixes, then after each pass of the search.
    """
    provisional, means, masks, coverage, streets = provisional_card(tree, n_rules, Z, Y, title, ranges)
    order = np.asarray(provisional.meta["leaf_order"], dtype=np.int64)  # leaf position of each rule
    if iterations > 0:
        model = card_model(provisional, fixed)
        res = optimise_leaves(model, games, iterations=iterations, log_every=max(1, iterations // 10),
                              workers=workers, progress=progress, frozen=(FIXED_KEY,) if fixed else ())
        tuned = np.empty_like(res.tables[CARD_KEY])
        tuned[order] = res.tables[CARD_KEY]  # leaf order
        log = {"iterations": res.log_iterations.tolist(),
               "exact_train_pct_pot": res.log_exploitability_pct_pot.tolist()}
    else:                               # no leaf optimisation: the equilibrium's mean strategy in each rule
        tuned = means
        log = {"iterations": [], "exact_train_pct_pot": []}
    used = (masks.astype(np.float64) @ Y) > 1e-4 * masks.sum(axis=1, keepdims=True)
    folded = _fold_unused(tuned, used)
    plain = plain_table(folded, config.plain_tolerance)
    if iterations > 0 and config.plain_search > 0:      # choose among the plain mixes by the training cost
        from hunl.distill.plain_search import plain_by_exploitability

        with LeafWorkers(model, games, workers) as pool:
            searched, log["plain_train_pct_pot"] = plain_by_exploitability(
                pool, {**res.tables, CARD_KEY: plain[order]}, CARD_KEY, folded[order], used[order], config.plain_search,
                order=np.argsort(-masks.sum(axis=1)[order], kind="stable"), progress=progress)
        plain[order] = searched
    card = card_from_tree(tree, n_rules, plain, coverage, title, streets=streets, ranges=ranges)
    return card, CardPolicy(card), log


def _fold_unused(table: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Move each row's mass on classes the equilibrium never plays in that leaf (``used`` False; e.g. a raise the
    training trees lack) to the nearest used class, the more passive on a tie (as
    :func:`hunl.distill.actions.class_routing` plays a missing class)."""
    out = np.array(table, dtype=np.float64, copy=True)
    for k in range(out.shape[0]):
        avail = np.flatnonzero(used[k])
        if avail.size == 0 or avail.size == N_CLASSES:
            continue
        for c in range(N_CLASSES):
            if not used[k, c] and out[k, c] > 0:
                target = avail[np.argmin(np.abs(avail - c) * 2 + (avail > c))]
                out[k, target] += out[k, c]
                out[k, c] = 0.0
    return out


def _values_task(policy, games: list, streets) -> tuple[np.ndarray, np.ndarray]:
    """The card design rows and class values (:func:`information_set_values`) of the information sets on
    ``streets`` of ``games`` under ``policy`` (a :class:`CardPolicy` or :class:`CompositeCard`), concatenated."""
    zs, vs = [], []
    for g in games:
        iv = information_set_values(policy, g)
        keep = np.isin(iv.street, list(streets))
        zs.append(_design_of(iv.X[keep], iv.facing[keep], iv.street[keep]))
        vs.append(iv.values[keep])
    return np.concatenate(zs), np.concatenate(vs)


def grow_card_by_regret(tree: GrownTree, start_rules: int, max_rules: int, Z: np.ndarray, Y: np.ndarray, games,
                        config: CardConfig = CardConfig(), iterations: int = 100, step: int = 1,
                        workers: int = 1, progress: bool = False, fixed=None) -> tuple[GrownTree, list[dict]]:
    """Grow a card tree on from ``start_rules`` rules by the splits that most reduce what best responses win.

    The card grown by imitation (:func:`grow_card_tree`) splits where the equilibrium's strategies differ most;
    its rules then share one strategy across endgames whose equilibria differ in ways a best response exploits
    (a river card at 20 rules loses about 10% of the pot, of which about 5% is lost even with each endgame's own
    best leaf strategies). Here each round

    1. fits the card of the current tree (:func:`fit_card`: CFR-BR leaves over ``games``, plain mixes);
    2. measures every information set of ``games`` under it: the value of each action class against the
       opponent's best response, weighted by the player's own reach (:func:`hunl.distill.optimal_leaves.
       information_set_values`);
    3. adds the ``step`` splits (round thresholds, at most ``config.max_conditions`` a rule, best-first) whose
       two sides gain most by playing different pure classes against that best response: the cost criterion of
       :func:`rulelearn.rules.round_tree.grow_round_tree` with costs ``-values``, continuing the tree.

    This is exploitability in the loop, as the bet game's exploitability trees (:mod:`rulelearn.rules.growth`),
    with a first-order score of a split (the opponent's best response held fixed) in place of re-solving every
    candidate: the regret-guided refinement of abstractions in CFR-BR (Johanson, Bard, Burch & Bowling 2012).

    Parameters
    ----------
    tree : GrownTree
        From :func:`grow_card_tree` (over :data:`hunl.distill.quantities.CARD_FEATURES`).
    start_rules : int
        Rules of ``tree`` to start from (its first ``start_rules - 1`` splits are kept).
    max_rules : int
        Rules of the grown card (growth stops early when no split gains).
    Z, Y : numpy.ndarray
        The drawn training decisions of :func:`grow_card_tree` (leaf starting strategies and coverage).
    games : sequence of HoldemEndgame
        Training endgames of the CFR-BR leaves and of the values.
    config : CardConfig
    iterations : int, default 100
        CFR-BR iterations of each round's card.
    step : int, default 1
        Splits added per round.
    workers : int, default 1
    progress : bool, default False
    fixed : mapping of int to RuleCard, optional
        Cards that play the other streets (:func:`fit_card`); only the information sets of the card's own
        streets are split.

    Returns
    -------
    tree : GrownTree
        The tree with ``start_rules .. max_rules`` leaves nested as before (:meth:`GrownTree.leaves`).
    log : list of dict
        Per round: ``rules`` and ``train_pct_pot`` (the mean exploitability over ``games`` of that round's card,
        % of the pot, before its splits).

    Raises
    ------
    ValueError
        If ``start_rules`` is not in ``1 .. tree.max_leaves``, ``max_rules <= start_rules`` or ``step < 1``.
    """
    from rulelearn.data.executors import make_executor
    from rulelearn.validation import check_int

    start_rules = check_int("start_rules", start_rules, 1, tree.max_leaves)
    max_rules = check_int("max_rules", max_rules, start_rules + 1)
    step = check_int("step", step, 1)
    games = list(games)
    grids = _grids(config)
    log = []
    n = start_rules
    parts = [list(p) for p in np.array_split(np.asarray(games, dtype=object), max(1, min(workers, len(games))))]
    with make_executor(workers, None, n_tasks=len(parts)) as ex:
        while n < max_rules:
            _, policy, fit_log = fit_card(tree, n, Z, Y, games, config, iterations=iterations, workers=workers,
                                          fixed=fixed)
            played = CompositeCard(policy, fixed) if fixed else policy
            got = list(ex.imap_unordered(_values_task, [(played, p, policy.streets) for p in parts]))
            Zv = np.concatenate([z for z, _ in got])
            V = np.concatenate([v for _, v in got])
            log.append({"rules": n, "train_pct_pot": float(fit_log["exact_train_pct_pot"][-1])})
            if progress:
                print(f"   regret growth: {n} rules, {log[-1]['train_pct_pot']:.2f}% of the pot on the training "
                      f"endgames; {Zv.shape[0]:,} information sets", flush=True)
            grown = grow_round_tree(Zv, -V, grids, None, min(n + step, max_rules), config.max_conditions,
                                    free=_SECTION_COLS, pure=_PURE_COLS, min_leaf_weight=config.min_leaf_share,
                                    criterion="cost", feature_names=CARD_FEATURES, start=tree, start_leaves=n)
            if grown.max_leaves == n:       # no split gains
                break
            tree, n = grown, grown.max_leaves
    return tree, log

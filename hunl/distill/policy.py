"""Distilled HUNL policies: one strategy tree per street and decision type, played inside any endgame tree.

:class:`DistilledPolicy` learns, from the decisions of solved endgames (:func:`hunl.distill.decisions.decision_rows`),
one tree per ``(street, facing a bet)`` -- "one tree per betting round" of Bertsimas & Paskov (2022, Section 2.4),
split further by decision type -- that maps the interpretable features of :mod:`hunl.distill.decisions` to a distribution
over the four ordered action classes of :mod:`hunl.distill.actions`. The trees fit cumulative class distributions, so
with ``criterion="emd"`` the split criterion is the output EMD over the ordered bet sizes itself (Ganzfried &
Yusuf 2017, Algorithm 2; :class:`rulelearn.learners.StrategyTree`), and with ``"squared_error"`` it is CART.
Decisions are weighted by how likely they are (the sample is drawn with probability proportional to the
decision's weight), so rare information sets cost little.

:func:`play` turns any policy over classes (a distilled one, or the baselines :class:`UniformRandom`,
:class:`CheckCall` and :class:`EquityThreshold`) into a full behaviour policy of a
:class:`hunl.solver.game.HoldemEndgame`: node by node, top down, each player's range at a node is Bayes' rule on the
policy itself, and the features are computed against those ranges.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from games.core.policy import Policy
from games.core.tree import DECISION
from hunl.distill.actions import CLASS_LABELS, N_CLASSES, class_routing
from hunl.distill.decisions import (
    RANGE_MODES,
    RIVER_FEATURES,
    TURN_FEATURES,
    DecisionContext,
    DecisionRows,
    feature_names,
    features_in,
    node_features,
    range_weights,
    reach_probabilities,
)

__all__ = ["DistilledPolicy", "UniformRandom", "CheckCall", "EquityThreshold", "OnStreets", "play", "play_all",
           "play_beside_solution", "needs_solution", "check_streets", "concat_rows", "on_streets", "TREE_KEYS", "tree_key_name"]

#: The trees of a distilled policy: ``(street, facing a bet, player)`` (player 0 acts first, out of position).
TREE_KEYS = tuple((s, f, p) for s in (5, 4) for f in (False, True) for p in (0, 1))
_POSITION = RIVER_FEATURES.index("in_position")


def concat_rows(rows) -> DecisionRows:
    """Concatenate the :class:`DecisionRows` of several endgames (each endgame's weights kept as they are).

    Parameters
    ----------
    rows : iterable of DecisionRows
        The rows of each endgame (or of groups of endgames), in the order wanted; consumed once.

    Returns
    -------
    DecisionRows
        Every field the concatenation of the parts' (``X`` of shape ``(sum of m, 23)``), in the order given.

    Raises
    ------
    ValueError
        If ``rows`` is empty.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows must hold at least one DecisionRows")
    return DecisionRows(*(np.concatenate([getattr(r, f) for r in rows]) for f in DecisionRows.__dataclass_fields__))


def thin_rows(rows: DecisionRows, max_rows: int, seed: int = 0) -> DecisionRows:
    """At most about ``max_rows`` of ``rows``, drawn so that learners see the same distribution.

    Row ``i`` is kept with probability ``q_i = min(1, c * weight_i * stake_i)``, ``c`` chosen so that the ``q_i``
    sum to ``max_rows``, and a kept row's weight is divided by ``q_i`` (Horvitz-Thompson): every weighted sum over
    the rows, in particular the probability-times-stake mass the trees draw from, keeps its expectation. Rows of
    zero weight or stake are dropped (they are never drawn). A turn endgame has about 400,000 decisions (44 river
    cards), so this is what lets hundreds of them fit in memory.

    Parameters
    ----------
    rows : DecisionRows
        One endgame's (or several endgames') rows.
    max_rows : int
        Expected number of rows kept (at least 1); rows are returned unchanged when fewer have positive mass.
    seed : int, default 0
        Seed of the draw (e.g. the endgame's id, so a run is reproducible).

    Returns
    -------
    DecisionRows

    Raises
    ------
    ValueError
        If ``max_rows < 1``.
    """
    max_rows = int(max_rows)
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}")
    a = np.asarray(rows.weight, dtype=np.float64) * np.asarray(rows.stake, dtype=np.float64)
    pos = a > 0
    if int(pos.sum()) <= max_rows:
        return DecisionRows(*(getattr(rows, f)[pos] for f in DecisionRows.__dataclass_fields__))
    lo, hi = 0.0, max_rows / float(a[pos].min())  # sum(min(1, c a)) is increasing in c; at hi every q is 1
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if np.minimum(1.0, mid * a).sum() < max_rows:
            lo = mid
        else:
            hi = mid
    q = np.minimum(1.0, hi * a)
    keep = np.random.default_rng(seed).random(a.size) < q
    out = {f: getattr(rows, f)[keep] for f in DecisionRows.__dataclass_fields__}
    out["weight"] = out["weight"] / q[keep]
    return DecisionRows(**out)


#: Features that only mean something when facing a bet (left out of the trees of the other decisions, where they
#: are 0 or copies of ``equity`` and ``percentile``).
FACING_ONLY = ("facing_bet", "equity_margin", "defend_margin")


def tree_features(street: int, facing: bool) -> tuple[str, ...]:
    """The features a tree of this decision type splits on."""
    names = feature_names(street)
    return names if facing else tuple(f for f in names if f not in FACING_ONLY)


def tree_key_name(key) -> str:
    """The decision type of a tree key ``(street, facing, player)`` in words (``"river, player 1 (out of
    position), not facing a bet"``).

    Parameters
    ----------
    key : tuple of (int, bool, int)
        ``(street, facing, player)``: board cards (3 flop, 4 turn, 5 river), whether a bet is faced, and the
        acting player (0 out of position, named "player 1"; any other value is "player 2 (in position)").

    Returns
    -------
    str
        ``"<street>, <player>, facing a bet"`` or ``"<street>, <player>, not facing a bet"``.

    Raises
    ------
    KeyError
        If the street is not 3, 4 or 5.
    ValueError
        If ``key`` does not have three items.
    """
    street, facing, player = key
    who = "player 1 (out of position)" if player == 0 else "player 2 (in position)"
    name = {3: "flop", 4: "turn", 5: "river"}[street]
    return f"{name}, {who}, {'facing a bet' if facing else 'not facing a bet'}"


class DistilledPolicy(BaseEstimator):
    """Per-street, per-decision strategy trees over interpretable features.

    Parameters
    ----------
    max_depth : int, default 6
        Depth of every tree.
    criterion : {"squared_error", "emd"}, default "squared_error"
        ``"squared_error"``: CART (scikit-learn) on the cumulative class distributions (the Cramér distance; leaves
        play the mean strategy of their decisions, so action frequencies are kept); ``"emd"``: exact output-EMD
        splits (leaves play the coordinate-wise median of the cumulative distributions, which rounds mixed
        strategies towards pure ones).
    min_samples_leaf : int, default 200
    n_samples : int, default 300000
        Decisions drawn per tree, with probability proportional to their weight (with replacement).
    ranges : {"start", "node"}, default "start"
        The ranges the range features (equity, percentile, ...) are computed against: the endgame's starting
        ranges, or the ranges at the node (Bayes' rule on the strategy played). The training rows must be
        computed with the same setting (:func:`hunl.distill.decisions.decision_rows`). ``"start"`` is the default:
        with ``"node"`` the features of a distilled policy depend on its own earlier mistakes, which compounds
        them (measured in docs/HUNL.md).
    weighting : {"stake", "probability"}, default "stake"
        Decisions are drawn with probability proportional to their probability times their stake (the pot after
        calling over the starting pot: exploitability is in units of the starting pot, and a mistake facing an
        all-in costs more than one at the first bet), or to their probability alone.
    random_state : int, default 0

    Attributes
    ----------
    trees_ : dict
        ``{(street, facing, player): StrategyTree}`` for the decision types seen in training.
    feature_names_ : dict
        ``{(street, facing, player): tuple of str}``: the features each tree splits on (:func:`tree_features`).
    """

    def __init__(self, max_depth: int = 6, criterion: str = "squared_error", min_samples_leaf: int = 200,
                 n_samples: int = 300_000, ranges: str = "start", weighting: str = "stake", random_state=0):
        self.max_depth = max_depth
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf
        self.n_samples = n_samples
        self.ranges = ranges
        self.weighting = weighting
        self.random_state = random_state

    def fit(self, rows: DecisionRows) -> DistilledPolicy:
        """Fit one tree per decision type present in ``rows``.

        Raises
        ------
        ValueError
            If ``rows`` is empty, a weight is negative or not finite, or a parameter is out of range.
        """
        from rulelearn.learners import StrategyTree

        if self.criterion not in ("emd", "squared_error"):
            raise ValueError(f"criterion must be 'emd' or 'squared_error', got {self.criterion!r}")
        if self.ranges not in RANGE_MODES:
            raise ValueError(f"ranges must be one of {RANGE_MODES}, got {self.ranges!r}")
        if int(self.n_samples) < 1:
            raise ValueError(f"n_samples must be >= 1, got {self.n_samples!r}")
        if self.weighting not in ("stake", "probability"):
            raise ValueError(f"weighting must be 'stake' or 'probability', got {self.weighting!r}")
        w = np.asarray(rows.weight, dtype=np.float64)
        if w.size and self.weighting == "stake":
            w = w * np.asarray(rows.stake, dtype=np.float64)
        if w.size == 0:
            raise ValueError("rows holds no decision")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("rows.weight must be finite and non-negative")
        rng = np.random.default_rng(self.random_state)
        self.trees_, self.feature_names_ = {}, {}
        player = rows.X[:, _POSITION]
        for key in TREE_KEYS:
            street, facing, pl = key
            sel = np.flatnonzero((rows.street == street) & (rows.facing == facing) & (player == pl) & (w > 0))
            if sel.size == 0:
                continue
            names = tree_features(street, facing)
            cols = [TURN_FEATURES.index(f) for f in names]
            p = w[sel] / w[sel].sum()
            take = sel[rng.choice(sel.size, size=int(self.n_samples), p=p)]
            X = np.nan_to_num(rows.X[take][:, cols].astype(np.float64), nan=0.0)
            Y = rows.Y[take].astype(np.float64)
            Y /= Y.sum(axis=1, keepdims=True)
            tree = StrategyTree(max_depth=self.max_depth, min_samples_leaf=self.min_samples_leaf,
                                criterion=self.criterion, random_state=self.random_state)
            self.trees_[key] = tree.fit(X, Y)
            self.feature_names_[key] = names
        return self

    def tree_key(self, street: int, facing: bool, player: int) -> tuple:
        """The key of the tree that plays a decision type (a turn decision without a turn tree: the river tree of
        the same type, on the features both streets share).

        Raises
        ------
        ValueError
            If no tree covers the decision type.
        """
        key = (int(street), bool(facing), int(player))
        if key in self.trees_:
            return key
        other = (5, bool(facing), int(player))
        if other in self.trees_:
            return other
        raise ValueError(f"no tree for decisions '{tree_key_name(key)}' (not in the training rows)")

    def leaf_keys(self) -> tuple:
        """The keys of the leaf tables (one per tree)."""
        return tuple(self.trees_)

    def leaf_ids(self, street: int, facing: bool, player: int, X: np.ndarray) -> tuple:
        """The tree key of a decision type and the leaf (tree node id) each feature row of ``X`` reaches.

        Parameters
        ----------
        street, facing, player
            The decision type.
        X : numpy.ndarray, shape ``(m, F)``
            Feature rows in :data:`hunl.distill.decisions.TURN_FEATURES` order (at least the street's columns).

        Returns
        -------
        key : tuple
        leaves : numpy.ndarray of int64, shape ``(m,)``
        """
        key = self.tree_key(street, facing, player)
        x = np.nan_to_num(np.asarray(X, dtype=np.float64)[:, self.columns(key)], nan=0.0)
        return key, self.trees_[key].tree_.apply(x).astype(np.int64)

    def columns(self, key) -> list[int]:
        """Columns of :data:`hunl.distill.decisions.TURN_FEATURES` the tree ``key`` splits on."""
        return [TURN_FEATURES.index(f) for f in self.feature_names_[key]]

    def leaf_table(self, key) -> np.ndarray:
        """``(n_tree_nodes, 4)`` class distribution played at every node of a tree: the optimised leaf strategies
        (:meth:`with_leaf_tables`) if set, else the tree's own."""
        tables = getattr(self, "leaf_tables_", None) or {}
        if key in tables:
            return tables[key]
        return self.trees_[key].leaf_strategies()

    def with_leaf_tables(self, tables: dict) -> DistilledPolicy:
        """A copy that plays ``tables`` (``{key: (n_tree_nodes, 4)}``, e.g. from
        :func:`hunl.distill.optimal_leaves.optimise_leaves`) at the leaves of the same trees."""
        import copy

        out = copy.copy(self)
        out.leaf_tables_ = {k: np.asarray(v, dtype=np.float64) for k, v in tables.items()}
        return out

    def class_probs(self, street: int, facing: bool, X: np.ndarray) -> np.ndarray:
        """``(m, 4)`` class distributions for feature rows ``X`` of shape ``(m, F)`` (:data:`TURN_FEATURES`
        order, at least the street's features; the ``in_position`` column picks the player's tree)."""
        X = np.nan_to_num(np.asarray(X, dtype=np.float64), nan=0.0)
        out = np.zeros((X.shape[0], N_CLASSES))
        tables = getattr(self, "leaf_tables_", None) or {}
        for pl in (0, 1):
            rows = X[:, _POSITION] == pl
            if rows.any():
                key = self.tree_key(street, facing, pl)
                tree = self.trees_[key]
                x = X[rows][:, self.columns(key)]
                if key in tables:
                    out[rows] = tables[key][tree.tree_.apply(x)]
                else:
                    out[rows] = tree.predict(x)
        return out

    def at_depth(self, max_depth: int) -> DistilledPolicy:
        """This fitted policy with every tree cut at ``max_depth`` (what refitting with that depth would grow;
        ``criterion="emd"`` only, see :meth:`rulelearn.learners.StrategyTree.at_depth`).

        Raises
        ------
        ValueError
            For ``criterion="squared_error"`` or a negative depth.
        """
        out = DistilledPolicy(max_depth=max_depth, criterion=self.criterion,
                              min_samples_leaf=self.min_samples_leaf, n_samples=self.n_samples,
                              ranges=self.ranges, weighting=self.weighting, random_state=self.random_state)
        out.trees_ = {k: t.at_depth(max_depth) for k, t in self.trees_.items()}
        out.feature_names_ = dict(self.feature_names_)
        return out

    def n_rules(self) -> int:
        """Total number of leaves (one if-then rule each) over all trees."""
        return int(sum(t.model_size[0] for t in self.trees_.values()))

    def rules(self, min_coverage: float = 0.0) -> dict:
        """Plain-language rules, ``{"river, facing a bet": [str, ...], ...}``, most covered first.

        Each rule reads ``if 0.2 < equity <= 0.8 and facing_bet <= 0.6: check 91%, small bet 9%   [coverage]``;
        coverage is the share of the tree's (weight-sampled) training decisions.
        """
        from rulelearn.rules.conditions import extract_rules

        out = {}
        for key, tree in self.trees_.items():
            names = self.feature_names_[key]
            leaves = extract_rules(tree.tree_, self.leaf_table(key), names)
            leaves.sort(key=lambda r: -r.coverage)
            labels = CLASS_LABELS[int(key[1])]
            lines = []
            for r in leaves:
                if r.coverage < min_coverage:
                    continue
                cond = " and ".join(str(c) for c in r.conditions) or "always"
                mix = ", ".join(f"{labels[c]} {r.strategy[c]:.0%}" for c in np.argsort(-r.strategy)
                                if r.strategy[c] >= 0.05)
                lines.append(f"if {cond}: {mix}   [{r.coverage:.1%} of decisions]")
            out[tree_key_name(key)] = lines
        return out


def check_streets(streets) -> tuple[int, ...]:
    """``streets`` as a sorted tuple of distinct board sizes.

    Parameters
    ----------
    streets : iterable of int
        Board sizes: 3 (flop), 4 (turn), 5 (river); repeats are dropped, and each value is converted by
        ``int``.

    Returns
    -------
    tuple of int
        The distinct streets, increasing.

    Raises
    ------
    ValueError
        If ``streets`` is empty or holds a value other than 3 (flop), 4 (turn) or 5 (river).
    TypeError
        If ``streets`` is not iterable or holds a value ``int`` cannot convert (e.g. None).
    """
    out = tuple(sorted({int(s) for s in streets}))
    if not out or any(s not in (3, 4, 5) for s in out):
        raise ValueError(f"streets must be a non-empty set of 3 (flop), 4 (turn), 5 (river), got {out}")
    return out


class OnStreets:
    """A chooser played on some streets only, the endgame's stored solution on the others: which street of a
    policy costs what (e.g. a turn card on the turn with the DCFR solution on the river).

    Scored by :func:`hunl.distill.pipeline.evaluate_task`, which reads the stored solution
    (:func:`play_beside_solution`); :func:`play` does not take it. A chooser that reads the ranges at the decision
    reads those of the mixed play (the solution's where it does not play); one that reads the starting ranges is
    spliced (:func:`on_streets`).

    Parameters
    ----------
    chooser : object
        Any chooser of :func:`play`.
    streets : iterable of int
        Board sizes the chooser plays: 3 (flop), 4 (turn), 5 (river).
    name : str
        The policy's name in tables.
    facing : bool or None, default None
        Which decisions of those streets the chooser plays: all (None), only those facing a bet (True), only those
        not facing one (False) -- which *decision type* of a card costs what.

    Raises
    ------
    ValueError
        If ``streets`` is empty or holds a value other than 3, 4 or 5, or ``facing`` is not None, True or False.
    """

    def __init__(self, chooser, streets, name: str, facing: bool | None = None):
        streets = check_streets(streets)
        if facing is not None and not isinstance(facing, (bool, np.bool_)):
            raise ValueError(f"facing must be None, True or False, got {facing!r}")
        self.chooser = chooser
        self.streets = streets
        self.name = name
        self.facing = None if facing is None else bool(facing)


def on_streets(game, played, solution, streets, facing: bool | None = None) -> np.ndarray:
    """Edge-layout probabilities: ``played`` at the decision nodes of ``streets``, ``solution`` elsewhere.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    played, solution : array_like of float, shape ``(N, Hm)``
        Edge-layout probabilities (:attr:`games.core.policy.Policy.probs`) of the chooser and the stored solution.
    streets : iterable of int
        Board sizes (3, 4, 5) whose decisions ``played`` makes.
    facing : bool or None, default None
        With True only the decisions of ``streets`` that face a bet, with False only those that do not.

    Returns
    -------
    numpy.ndarray of float64, shape ``(N, Hm)``
        Row ``n`` (the action into node ``n``) from ``played`` where ``n``'s parent is a decision node on one of
        ``streets`` (of the decision type ``facing``), else from ``solution``.
    """
    t = game.tree
    played = np.asarray(played, dtype=np.float64)
    solution = np.asarray(solution, dtype=np.float64)
    if played.shape != solution.shape:
        raise ValueError(f"played and solution must have the same shape, got {played.shape} and {solution.shape}")
    parent = np.asarray(t.parent, dtype=np.int64)
    take = (parent >= 0) & _decides(game, streets, facing)[np.maximum(parent, 0)]
    return np.where(take[:, None], played, solution)


def _decides(game, streets, facing: bool | None = None) -> np.ndarray:
    """``(N,)`` bool: the decision nodes on ``streets`` (board sizes) of the decision type ``facing`` (all with
    None, those facing a bet with True, the others with False)."""
    take = (game.tree.kind == DECISION) & np.isin(np.asarray(game.betting.street), list(streets))
    if facing is not None:
        take &= (np.asarray(game.betting.to_call) > 0) == bool(facing)
    return take


def play_beside_solution(game, choosers: dict, solution=None) -> dict:
    """:func:`play_all` for choosers that may include :class:`OnStreets` and
    :class:`hunl.distill.defence.MinimumDefence`: every distinct chooser is played once (an :class:`OnStreets` or
    a ``MinimumDefence`` reuses the play of its chooser), then each :class:`OnStreets` takes ``solution`` on the
    other streets (:func:`on_streets`) and each ``MinimumDefence`` plays the minimum-defence rule on its
    decisions facing a bet (:func:`hunl.distill.defence.minimum_defence`, over ``solution`` when its chooser is
    None).

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    choosers : dict of str to chooser
    solution : array_like of float, shape ``(N, Hm)``, optional
        Edge-layout probabilities of the stored solution; needed when a chooser :func:`needs_solution`.

    Returns
    -------
    dict of str to games.core.Policy or numpy.ndarray of shape ``(N, Hm)``
        In the order of ``choosers``: a policy for a plain chooser, edge probabilities for an :class:`OnStreets`
        or a ``MinimumDefence``.

    Raises
    ------
    ValueError
        If a chooser :func:`needs_solution` and ``solution`` is None.
    """
    from hunl.distill.defence import MinimumDefence

    def inner(c):
        return c.chooser if isinstance(c, (OnStreets, MinimumDefence)) else c

    if solution is None and any(needs_solution(c) for c in choosers.values()):
        raise ValueError("choosers: an OnStreets policy (or a MinimumDefence of the stored solution) plays the "
                         "stored solution, so a solution must be given")
    first = {}
    for name, c in choosers.items():
        if inner(c) is not None and not _reads_play(c):
            first.setdefault(id(inner(c)), name)
    played = play_all(game, {name: inner(choosers[name]) for name in first.values()})
    out = {}
    for name, c in choosers.items():
        if _reads_play(c):                               # its ranges follow the solution where it does not play
            out[name] = _play_node(game, c.chooser, solution=solution, streets=c.streets, facing=c.facing).probs
            continue
        p = played[first[id(inner(c))]] if inner(c) is not None else None
        if isinstance(c, OnStreets):
            out[name] = on_streets(game, p.probs, solution, c.streets, c.facing)
        elif isinstance(c, MinimumDefence):
            out[name] = c.probs(game, p, solution)
        else:
            out[name] = p
    return out


def _reads_play(c) -> bool:
    """Whether ``c`` is an :class:`OnStreets` whose chooser reads ranges that follow the play (``"node"`` or
    ``"own"`` ranges on some street): then the stored solution's play where the chooser does not play changes what
    it reads, and it is played with the solution in place (:func:`_play_node`), not spliced after."""
    return isinstance(c, OnStreets) and reads_play_on(c.chooser, c.streets)


def reads_play_on(chooser, streets) -> bool:
    """Whether ``chooser`` reads, on one of ``streets`` (board sizes), ranges that follow the play above the
    decision (``"node"`` or ``"own"`` ranges), so that what another policy plays above changes its play there."""
    if chooser is None or not len(streets) or getattr(chooser, "uniform_actions", False):
        return False
    mode = getattr(chooser, "ranges_of", None)
    if callable(mode):
        return any(mode(int(s)) != "start" for s in streets)
    return getattr(chooser, "ranges", "node") != "start"


def needs_solution(chooser) -> bool:
    """Whether scoring ``chooser`` reads the endgame's stored solution: an :class:`OnStreets`, or a
    :class:`hunl.distill.defence.MinimumDefence` of the stored solution.

    Parameters
    ----------
    chooser : object
        A chooser of :func:`play` (or :func:`play_beside_solution`).

    Returns
    -------
    bool
        True for an :class:`OnStreets` or a chooser whose ``needs_solution`` attribute is true; such a chooser
        can only be played beside a solution (:func:`play_beside_solution` with ``solution``).
    """
    return isinstance(chooser, OnStreets) or bool(getattr(chooser, "needs_solution", False))


class UniformRandom:
    """Baseline: every action of a node with equal probability."""

    name = "uniform random"
    uniform_actions = True


class CheckCall:
    """Baseline: always check, or call when facing a bet.

    It reads the endgame's starting ranges (``ranges = "start"``) only to know which hands can hold on a board:
    with ranges by Bayes' rule on its own play, every node after a bet it would never make has empty ranges
    there, and it played those nodes uniformly (folding a third of the time facing a bet) -- exactly the nodes
    a best response reaches by betting. (Before this was fixed, the figures of this baseline in docs/HUNL.md
    were of that policy; see the note there.)
    """

    name = "always check/call"
    ranges = "start"

    def class_probs(self, street: int, facing: bool, X: np.ndarray) -> np.ndarray:
        out = np.zeros((X.shape[0], N_CLASSES))
        out[:, 1 if facing else 0] = 1.0
        return out


class EquityThreshold:
    """Baseline: an equity-threshold heuristic on the equity against the opponent's starting range.

    Not facing a bet: bet pot (a big bet) with equity above ``value``, check otherwise. Facing a bet of ``b``
    times the pot: raise all-in with equity above ``raise_above``, call when the equity covers the pot odds
    ``b / (1 + 2 b)``, fold otherwise. The equity is against the range at the start of the endgame
    (``ranges = "start"``, as the rule cards read it), so the rule is defined at every node, also after
    actions its own play never takes (with ranges by Bayes' rule on itself those nodes had empty ranges and
    were played uniformly).

    Parameters
    ----------
    value : float, default 0.7
    raise_above : float, default 0.9
    """

    name = "equity threshold"
    ranges = "start"

    def __init__(self, value: float = 0.7, raise_above: float = 0.9):
        self.value = float(value)
        self.raise_above = float(raise_above)

    def class_probs(self, street: int, facing: bool, X: np.ndarray) -> np.ndarray:
        eq = np.nan_to_num(X[:, 0], nan=0.0)
        out = np.zeros((X.shape[0], N_CLASSES))
        if not facing:
            big = eq > self.value
            out[big, 2] = 1.0
            out[~big, 0] = 1.0
            return out
        b = X[:, 3]
        odds = b / (1.0 + 2.0 * b)
        allin = eq > self.raise_above
        call = ~allin & (eq >= odds)
        out[allin, 3] = 1.0
        out[call, 1] = 1.0
        out[~allin & ~call, 0] = 1.0
        return out


def play(game, chooser, chunk: int = 4096) -> Policy:
    """The full behaviour policy of ``chooser`` in an endgame, both players, ranges by Bayes' rule on itself.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    chooser : DistilledPolicy, CheckCall, EquityThreshold, UniformRandom or any object with
        ``class_probs(street, facing, X) -> (m, 4)`` (or ``uniform_actions = True``)
    chunk : int, default 4096
        Decision nodes whose features are held at once (:func:`play_all`).

    Returns
    -------
    games.core.Policy
        Decision nodes are visited by depth; at each, the features of every hand are computed against the
        ranges the policy itself induces (:func:`hunl.distill.decisions.node_features`), the chooser gives class
        distributions and :func:`hunl.distill.actions.classes_to_actions` maps them onto the node's actions. Hands that
        cannot hold on the node's board (they share the river card) play uniformly (never reached). A chooser
        whose ``ranges`` is ``"start"`` reads the endgame's starting ranges (:func:`play_all`).
    """
    return play_all(game, {"policy": chooser}, chunk)["policy"]


def play_all(game, choosers: dict, chunk: int = 4096) -> dict:
    """:func:`play` for several choosers (``{name: chooser}``), sharing the features where they can be shared.

    Choosers that read the endgame's starting ranges (``ranges = "start"``) or play uniformly do not depend on
    their own earlier actions, so their features are computed once, for a chunk of ``chunk`` decision nodes
    at a time (grouped by board: the range features of a board are computed once), and every such chooser reads
    them; a chooser of ``"node"`` ranges is played depth by depth on its own (:func:`play`).

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    choosers : dict of str to chooser
    chunk : int, default 4096
        Decision nodes per feature batch (bounds the feature memory: ``chunk * hands * 23`` floats).

    Returns
    -------
    dict of str to games.core.Policy
        In the order of ``choosers``.
    """
    out = {}
    shared = {n: c for n, c in choosers.items()
              if getattr(c, "uniform_actions", False) or getattr(c, "ranges", "node") == "start"}
    policies = dict(_play_start(game, shared, chunk)) if shared else {}
    for name, c in choosers.items():
        out[name] = policies[name] if name in shared else _play_node(game, c, chunk)
    return out


def _base_probs(game) -> np.ndarray:
    t = game.tree
    probs = np.zeros((t.n_nodes, game.max_hands))
    probs[0] = 1.0
    nondec = t.kind[t.parent[1:]] != DECISION
    probs[1:][nondec] = 1.0
    return probs


def _play_start(game, choosers: dict, chunk: int):
    t = game.tree
    ctx = DecisionContext(game)
    probs = {n: _base_probs(game) for n in choosers}
    uniform = {n for n, c in choosers.items() if getattr(c, "uniform_actions", False)}
    for name in uniform:
        for k, n in enumerate(ctx.nodes):
            kids = t.children(int(n))
            probs[name][kids.start:kids.stop, :game.num_hands[int(ctx.player[k])]] = 1.0 / len(kids)
    readers = {n: c for n, c in choosers.items() if n not in uniform}
    if readers:
        _choose_by_board(game, ctx, np.arange(ctx.nodes.size), _start_features(game, ctx), readers, probs, chunk)
    for name in choosers:
        yield name, Policy(game, probs.pop(name))


def _play_node(game, chooser, chunk: int = 4096, solution=None, streets=None, facing=None) -> Policy:
    """One chooser of ``"node"`` or ``"own"`` ranges, depth by depth (its ranges are Bayes' rule on its own actions
    above); a chooser with ``ranges_of(street)`` reads each street's features in that street's mode. A depth's
    decision nodes are read ``chunk`` at a time, grouped by board. The decisions of streets read on the starting
    ranges do not depend on the play above them: they are played first, all depths at once (each board's range
    features read once, as in :func:`_play_start`).

    With ``solution`` (edge-layout probabilities, shape ``(N, Hm)``) the chooser plays only the decisions of
    ``streets`` (of the decision type ``facing``, as :func:`on_streets`) and ``solution`` the others, and its
    ranges are Bayes' rule on that mixed play: a card on the river after the stored solution on the turn reads the
    ranges the solution's turn leaves, not those its own turn play would."""
    t = game.tree
    ctx = DecisionContext(game)
    probs = _base_probs(game)
    reach = np.ones((2, t.n_nodes, game.max_hands))
    depth = t.depth
    dec_depth = depth[ctx.nodes]
    mode = getattr(chooser, "ranges_of", None) or getattr(chooser, "ranges", "node")
    later = np.ones(ctx.nodes.size, dtype=bool)          # decisions played depth by depth
    if solution is not None:                             # the solution's actions where the chooser does not play
        decides = _decides(game, streets, facing)
        parent = np.asarray(t.parent, dtype=np.int64)
        theirs = (parent >= 0) & (t.kind[np.maximum(parent, 0)] == DECISION) & ~decides[np.maximum(parent, 0)]
        probs[theirs] = np.asarray(solution, dtype=np.float64)[theirs]
        later = decides[ctx.nodes]
    if callable(mode):
        present = np.unique(ctx.street)
        start = later & np.isin(ctx.street, [s for s in present if mode(int(s)) == "start"])
        _choose_by_board(game, ctx, np.flatnonzero(start), _start_features(game, ctx), {0: chooser}, {0: probs},
                         chunk)
        later = later & ~start
    done = 0                                             # reach is up to date down to this depth
    for d in range(int(depth.max()) + 1):
        at = np.flatnonzero((dec_depth == d) & later)
        if at.size == 0:
            continue
        if d > done:                                     # the depths skipped so far too: parents come first
            reach_probabilities(game, probs, upto=np.flatnonzero((depth > done) & (depth <= d)), reach=reach)
            done = d
        _choose_by_board(game, ctx, at, lambda which: features_in(game, ctx, which, reach, mode), {0: chooser},
                         {0: probs}, chunk, reach=None if mode == "start" else reach)
    return Policy(game, probs)


def _start_features(game, ctx):
    """``which -> node_features`` on the endgame's starting ranges (no reach)."""
    ones = np.broadcast_to(np.ones((2, 1, game.max_hands)), (2, game.tree.n_nodes, game.max_hands))
    return lambda which: node_features(game, ctx, which, ones)


def _choose_by_board(game, ctx, at: np.ndarray, features, choosers: dict, probs: dict, chunk: int,
                     reach: np.ndarray | None = None) -> None:
    """:func:`_choose` at the decision nodes ``ctx.nodes[at]``, ``chunk`` nodes at a time in board order (a board's
    range features are read once a chunk); ``features(which)`` gives the feature matrices of ``which``, read
    against the players' own ``reach`` (``None``: the starting ranges)."""
    at = at[np.argsort(ctx.boards[at], kind="stable")]
    for a in range(0, at.size, chunk):
        which = at[a:a + chunk]
        _choose(game, ctx, which, features(which), choosers, probs, reach)


def _scatter_actions(game, ctx, ks: np.ndarray, cp: np.ndarray, hands: tuple, probs: np.ndarray) -> None:
    """Write the action probabilities of the decision nodes ``ctx.nodes[ks]`` into ``probs`` (edge layout, shape
    ``(N, Hm)``): row ``r`` of the class distributions ``cp`` (shape ``(R, 4)``) is hand ``hands[1][r]`` at node
    ``ks[hands[0][r]]``, mapped onto the node's actions as :func:`hunl.distill.actions.classes_to_actions` does
    (the classes' probabilities added in class order); the other hands of a node (they cannot hold on its board)
    play its actions uniformly. Vectorised per pattern of action classes (a tree has a handful)."""
    t = game.tree
    nodes = ctx.nodes[ks]
    start = np.asarray(t.child_start, dtype=np.int64)[nodes]
    nk = np.asarray(t.num_children, dtype=np.int64)[nodes]
    hp = np.asarray(game.num_hands, dtype=np.int64)[ctx.player[ks]]
    member_of, hand_of = hands
    for n in np.unique(nk):
        of_n = np.flatnonzero(nk == n)
        edges = start[of_n, None] + np.arange(n)                 # (nodes, n) child ids
        for h in np.unique(hp[of_n]):                            # uniform first: hands that cannot hold keep it
            probs[edges[hp[of_n] == h].ravel(), :h] = 1.0 / n
        classes = ctx.edge_class[edges].astype(np.int64)
        code = classes @ (N_CLASSES ** np.arange(n))
        local = np.full(nk.size, -1, dtype=np.int64)
        local[of_n] = np.arange(of_n.size)
        rows = np.flatnonzero(nk[member_of] == n)
        for c in np.unique(code):
            first = int(np.flatnonzero(code == c)[0])
            route = class_routing(classes[first])                # (4, n)
            r = rows[code[local[member_of[rows]]] == c]
            if not r.size:
                continue
            act = cp[r, 0, None] * route[0]
            for k in range(1, N_CLASSES):
                act = act + cp[r, k, None] * route[k]
            probs[start[member_of[r], None] + np.arange(n), hand_of[r, None]] = act


def _choose(game, ctx, which: np.ndarray, feats: list, choosers: dict, probs: dict,
            reach: np.ndarray | None = None) -> None:
    """Write each chooser's action probabilities at the decision nodes ``ctx.nodes[which]`` (features ``feats``,
    one ``(H_p, F)`` matrix a node) into ``probs[name]``: one ``class_probs`` call per street and decision type
    for all the nodes. Hands whose features are NaN (they cannot hold on the board) play uniformly. A chooser
    that plays rules by hand order (``reads_hand_order``) is also given each row's node and its weight in the
    range the features read (:func:`range_weights` of ``reach``)."""
    ok = [~np.isnan(X[:, 0]) for X in feats]
    groups: dict[tuple, list[int]] = {}
    for i, k in enumerate(which):
        groups.setdefault((int(ctx.street[k]), bool(ctx.facing[k])), []).append(i)
    ordered = any(getattr(c, "reads_hand_order", False) for c in choosers.values())
    weights = range_weights(game, ctx, which, reach) if ordered else None
    for (street, facing), members in groups.items():
        X = np.concatenate([feats[i][ok[i]] for i in members])
        sizes = np.cumsum([0] + [int(ok[i].sum()) for i in members])
        members_idx = np.asarray(members, dtype=np.int64)
        hands = (np.repeat(np.arange(len(members)), np.diff(sizes)),          # each row's member and hand
                 np.concatenate([np.flatnonzero(ok[i]) for i in members]))
        for name, c in choosers.items():
            if not X.shape[0]:
                cp = np.zeros((0, N_CLASSES))
            elif getattr(c, "reads_hand_order", False):
                cp = c.class_probs(street, facing, X, hands[0], np.concatenate([weights[i][ok[i]] for i in members]))
            else:
                cp = c.class_probs(street, facing, X)
            _scatter_actions(game, ctx, which[members_idx], cp, hands, probs[name])

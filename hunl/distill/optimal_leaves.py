"""Exploitability-optimal leaf strategies for a distilled HUNL policy: CFR against best responses over tree leaves.

A fitted :class:`hunl.distill.policy.DistilledPolicy` partitions every information set of every endgame (with range
features against the starting ranges, which do not depend on the policy) into tree leaves, and plays one class
distribution per leaf. Mean leaf strategies copy the equilibrium's average frequencies; the strategies that make
the policy *least exploitable* are different, and are found here with CFR-BR (Johanson, Bard, Burch & Bowling 2012,
"Finding optimal abstract strategies in extensive-form games", Section 4): the tree's leaves are the abstract
information sets of the restricted player, who runs regret matching+ over them (regrets of each action class
summed over every information set of every training endgame in the leaf, each endgame in units of its pot)
against an opponent who best-responds in each endgame; the linearly weighted average of the leaf strategies
minimises the restricted player's mean exploitability over the training endgames as the iterations grow (exactly
so when the leaves give each player perfect recall; a well-behaved heuristic otherwise). The two players' leaves
are optimised independently (each against the other's best response), since exploitability (NashConv / 2) is the
mean of the two players' best-response gains.

This is the HUNL counterpart of the bet game's optimal-leaf rule sets (:mod:`rulelearn.rules`), which solve
the same problem exactly by a linear program.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from games.core.evaluation import MODE_BEST_RESPONSE, MODE_EXPECTED, engine_for
from hunl.distill.actions import class_routing
from hunl.distill.decisions import DecisionContext, features_in, node_features, range_weights
from hunl.distill.hand_order import STRENGTH_COLUMN, hand_positions, ranked_mix
from rulelearn.data.executors import ShardWorkers, deal, release_memory
from rulelearn.validation import check_game_weights, check_int

__all__ = ["LeafCFRResult", "LeafWorkers", "InformationSetValues", "optimise_leaves", "endgame_features", "endgame_leaves",
           "class_values", "exploitability_pct", "hand_places", "information_set_values", "model_codes", "node_groups",
           "place_inputs", "reach_of"]


@dataclass(frozen=True)
class _NodeLeaves:
    node: int
    player: int
    kids: range
    route: np.ndarray  # (4, n_actions)
    key: tuple
    leaves: np.ndarray  # (H,) leaf node id of every hand of the acting player
    lo: np.ndarray | None = None  # (H,) each hand's place in its leaf's hand order at the node (hand_order)
    hi: np.ndarray | None = None


def _leaf_ranges(model) -> str:
    """The range mode of a policy over leaves, which must not let its leaves depend on the opponent's strategy."""
    mode = getattr(model, "ranges", "start")
    if mode not in ("start", "own"):
        raise ValueError("optimal leaves need a policy with ranges 'start' or 'own' (its leaves must not depend "
                         f"on the opponent's strategy), got {mode!r}")
    return mode


def endgame_leaves(model, game, chunk: int = 4096) -> list[_NodeLeaves]:
    """The leaf of every (decision node, hand) of ``game`` under ``model`` (range features against the starting
    ranges; ``model.ranges`` must be ``"start"`` or ``"own"``).

    ``model`` is a :class:`hunl.distill.policy.DistilledPolicy` or any policy over leaves with ``ranges``,
    ``leaf_keys()``, ``leaf_table(key)`` (``(n_leaves, 4)``) and ``leaf_ids(street, facing, player, X) -> (key,
    leaf of each row)`` (a rule card, :class:`hunl.distill.cards.CardPolicy`), row by row.

    With ``model.ranges == "own"`` (a card reading the player's own range at the decision) the features read the
    model's own ranges when it plays its current leaf strategies: the leaves of the information sets are those
    of that policy, and stay fixed while :func:`optimise_leaves` changes the strategies.

    The features are read ``chunk`` decision nodes at a time (grouped by board), and ``leaf_ids`` is called once
    per street, decision type and player of a chunk.

    Parameters
    ----------
    model : object
        A policy over leaves (:class:`hunl.distill.policy.DistilledPolicy`,
        :class:`hunl.distill.cards.CardPolicy`, ...) with ``ranges``, ``leaf_keys()``, ``leaf_table(key)`` and
        ``leaf_ids(street, facing, player, X)``.
    game : hunl.solver.game.HoldemEndgame
    chunk : int, default 4096
        Decision nodes whose features are read at a time (positive); it bounds the memory, not the result.

    Returns
    -------
    list of _NodeLeaves
        One per decision node of the game (breadth-first, the order of
        :attr:`hunl.distill.decisions.DecisionContext.nodes`), with its ``node`` id, acting ``player``,
        ``kids`` (the range of its children), ``route`` (:func:`hunl.distill.actions.class_routing` of its
        actions' classes, shape ``(4, n_actions)``), the tree ``key`` of its leaves and ``leaves``
        (numpy.ndarray of int64, shape ``(H,)``: the leaf of every hand of the acting player).

    Raises
    ------
    ValueError
        If ``model.ranges`` is not ``"start"`` or ``"own"``, e.g. ``"node"`` (the leaves would change with
        both players' leaf strategies), or ``chunk`` is 0.
    """
    ctx, chunks, reach = endgame_features(model, game, chunk, with_reach=True)
    # a model whose leaves may be played by hand order (a card: ``leaf_codes``) gets every hand's place, so that
    # a search can try orders on leaves the model plays at random
    ordered = hasattr(model, "leaf_codes")
    keys: list = [None] * ctx.nodes.size
    leaves: list = [None] * ctx.nodes.size
    places: list = [(None, None)] * ctx.nodes.size
    for which, feats in chunks:
        for (street, facing, p), members in node_groups(ctx, which):
            X = np.concatenate([feats[i] for i in members])
            key, ids = model.leaf_ids(street, facing, p, X)
            ids = np.asarray(ids, dtype=np.int64)
            ends = np.cumsum([feats[i].shape[0] for i in members])
            if ordered:
                lo, hi = hand_places(ids, [feats[i] for i in members],
                                     range_weights(game, ctx, which[members], reach_of(reach, model, street)))
                parts = zip(np.split(ids, ends[:-1]), np.split(lo, ends[:-1]), np.split(hi, ends[:-1]))
            else:
                parts = ((part, None, None) for part in np.split(ids, ends[:-1]))
            for i, (part, a, b) in zip(members, parts):
                keys[which[i]], leaves[which[i]], places[which[i]] = key, part, (a, b)
    return [_NodeLeaves(int(n), int(ctx.player[k]), game.tree.children(int(n)),
                        class_routing(ctx.node_classes(int(n))), keys[k], leaves[k], *places[k])
            for k, n in enumerate(ctx.nodes)]


def reach_of(reach: np.ndarray | None, model, street: int) -> np.ndarray | None:
    """The own reach a model's quantities read on ``street``: ``reach`` in the ``"own"`` range mode, ``None`` (the
    starting ranges) where the model reads the starting ranges (``model.ranges_of(street)`` when it has it).

    Parameters
    ----------
    reach : numpy.ndarray of float64, shape ``(2, N, Hm)``, or None
        The players' own reach under the model's play (:func:`endgame_features` with ``with_reach``).
    model
        A policy over leaves with ``ranges`` (and optionally ``ranges_of(street)``).
    street : int
        3 (flop), 4 (turn) or 5 (river).

    Returns
    -------
    numpy.ndarray or None
        ``reach``, or ``None`` where the street's quantities read the starting ranges.
    """
    mode = getattr(model, "ranges_of", None)
    mode = mode(int(street)) if mode is not None else getattr(model, "ranges", "start")
    return None if mode == "start" or reach is None else reach


def place_inputs(feats: list, weights: list, first_node: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The node, strength and weight of every row of several nodes, one after the other: what
    :func:`hunl.distill.hand_order.hand_positions` ranks.

    Parameters
    ----------
    feats : list of numpy.ndarray of float64
        Each node's ``(H_p, F)`` features (column :data:`hunl.distill.hand_order.STRENGTH_COLUMN` the share of the
        opponent's range the hand beats; NaN rows, hands that cannot hold on the board, rank last with weight 0).
    weights : list of numpy.ndarray of float64
        Each node's ``(H_p,)`` range weights (:func:`hunl.distill.decisions.range_weights`).
    first_node : int, default 0
        The label of the first node (the others follow: ``first_node + k``).

    Returns
    -------
    node : numpy.ndarray of int64, shape ``(m,)``
    strength, weight : numpy.ndarray of float64, shape ``(m,)``
    """
    strength = np.concatenate([f[:, STRENGTH_COLUMN] for f in feats])
    w = np.concatenate([np.where(np.isnan(f[:, STRENGTH_COLUMN]), 0.0, wt) for f, wt in zip(feats, weights)])
    node = np.repeat(np.arange(first_node, first_node + len(feats)), [f.shape[0] for f in feats])
    return node, strength, w


def hand_places(leaves: np.ndarray, feats: list, weights: list) -> tuple[np.ndarray, np.ndarray]:
    """Each row's place ``[lo, hi)`` in its leaf's hand order at its node (:func:`hunl.distill.hand_order.
    hand_positions` of :func:`place_inputs`), for the rows of several nodes one after the other.

    Parameters
    ----------
    leaves : numpy.ndarray of int64, shape ``(m,)``
        The leaf of every row (the nodes' rows concatenated).
    feats, weights : list of numpy.ndarray of float64
        As :func:`place_inputs`.

    Returns
    -------
    lo, hi : numpy.ndarray of float64, shape ``(m,)``
    """
    return hand_positions(leaves, *place_inputs(feats, weights))


def node_groups(ctx: DecisionContext, which: np.ndarray) -> list[tuple[tuple[int, bool, int], list[int]]]:
    """``[((street, facing, player), positions in which), ...]``: the decisions ``ctx.nodes[which]`` grouped by
    street, decision type and player (one ``leaf_ids`` call per group).

    Parameters
    ----------
    ctx : DecisionContext
        The decisions of the endgame.
    which : array_like of int, shape ``(K,)``
        Positions into ``ctx.nodes``.

    Returns
    -------
    list of ((int, bool, int), list of int)
        One entry per group, in the order of first appearance in ``which``: ``(street, facing, player)``
        (board cards 3-5, whether a bet is faced, acting player 0/1) and the positions ``i`` (into ``which``,
        increasing) of its decisions.
    """
    groups: dict = {}
    for i, k in enumerate(which):
        groups.setdefault((int(ctx.street[k]), bool(ctx.facing[k]), int(ctx.player[k])), []).append(i)
    return list(groups.items())


def endgame_features(model, game, chunk: int = 4096, with_reach: bool = False):
    """The feature rows of every decision node of ``game`` as ``model`` reads them (:func:`endgame_leaves`),
    ``chunk`` decision nodes at a time (grouped by board), so that a large endgame's features are never all held.

    Parameters
    ----------
    model : object
        A policy over leaves (:class:`hunl.distill.policy.DistilledPolicy`,
        :class:`hunl.distill.cards.CardPolicy`, ...) with ``ranges``, ``leaf_keys()``, ``leaf_table(key)`` and
        ``leaf_ids(street, facing, player, X)``.
    game : hunl.solver.game.HoldemEndgame
    chunk : int, default 4096
        Decision nodes whose features are read at a time (positive); it bounds the memory, not the result.
    with_reach : bool, default False
        Also return the players' own reach under the model's play (``None`` for a model of starting ranges).

    Returns
    -------
    ctx : hunl.distill.decisions.DecisionContext
    chunks : iterator of (numpy.ndarray of int64, list of numpy.ndarray of float64)
        ``(which, feats)``: decision positions (into ``ctx.nodes``) and, for each, its features, shape ``(hands of
        the acting player, F)``, against the ranges of ``model.ranges`` (with ``"own"``: the model's own ranges
        when it plays its current leaf strategies).
    reach : numpy.ndarray of float64, shape ``(2, N, Hm)``, or None
        Only with ``with_reach``.

    Raises
    ------
    ValueError
        If ``model.ranges`` is not ``"start"`` or ``"own"``, e.g. ``"node"`` (raised at once, not when the
        chunks are read); if ``chunk`` is 0, when the chunks are read.
    """
    mode = _leaf_ranges(model)
    ctx = DecisionContext(game)
    reach = np.ones((2, game.tree.n_nodes, game.max_hands))
    own = None
    if mode == "own":             # own ranges on some street (ranges_of: which)
        mode = getattr(model, "ranges_of", None) or mode
        from hunl.distill.decisions import reach_probabilities
        from hunl.distill.policy import play

        reach = own = reach_probabilities(game, play(game, model, chunk).probs)
    order = np.argsort(ctx.boards, kind="stable")

    def chunks():
        for a in range(0, order.size, chunk):
            which = order[a:a + chunk]
            yield which, features_in(game, ctx, which, reach, mode)

    return (ctx, chunks(), own) if with_reach else (ctx, chunks())


@dataclass(frozen=True)
class InformationSetValues:
    """Every information set of one endgame under a policy over leaves, with the value of each action class
    against a best response.

    Attributes
    ----------
    node : numpy.ndarray of int64, shape ``(n,)``
        Decision node of each information set (the tree's node id).
    X : numpy.ndarray of float64, shape ``(n, F)``
        Features of each information set (:func:`hunl.distill.decisions.node_features`, starting ranges, the
        street's columns: ``F`` = 13 on the river, 23 on the turn and flop).
    street : numpy.ndarray of int64, shape ``(n,)``
        Board size (3 flop, 4 turn, 5 river).
    facing : numpy.ndarray of bool, shape ``(n,)``
        Whether the acting player faces a bet.
    values : numpy.ndarray of float64, shape ``(n, 4)``
        Expected value, in units of the endgame's starting pot, that the acting player gains in this information
        set by playing each action class (:mod:`hunl.distill.actions`, routed onto the node's actions as the
        policy plays them) instead of nothing, against the opponent's best response to the policy: the
        counterfactual value of the class (chips, deal included) times the player's own reach of the node under
        the policy. Summed over an information-set group, ``max_c sum values[:, c]`` is the most a pure action
        of the group could earn against that best response.
    """

    node: np.ndarray
    X: np.ndarray
    street: np.ndarray
    facing: np.ndarray
    values: np.ndarray


def _values_against_best_response(eng, table, p: int) -> tuple[float, np.ndarray]:
    """Player ``p``'s value of every action in the engine layout when the opponent plays a best response to
    ``table`` (the engine-layout profile of both players), and that best response's value (chips)."""
    profile = table.copy()
    br_value = float(eng.hand_values(1 - p, MODE_BEST_RESPONSE, table, best=profile).sum())
    values = np.zeros_like(table)
    eng.hand_values(p, MODE_EXPECTED, profile, best=values)
    return br_value, values


def information_set_values(model, game, tables: dict | None = None) -> InformationSetValues:
    """The class values of every information set of ``game`` when both players play the leaves of ``model``
    (with ``tables`` or the model's own) and each meets the other's best response.

    These are the quantities regret-guided growth splits on (:func:`hunl.distill.cards.grow_card_by_regret`):
    splitting a group of information sets into two that play different pure classes gains
    ``max_c sum_left values[:, c] + max_c sum_right values[:, c] - max_c sum_all values[:, c]`` against the
    current best response (the cost criterion of :func:`rulelearn.rules.round_tree.grow_round_tree` with costs
    ``-values``). Source: the regret-based abstraction refinement of CFR-BR (Johanson et al. 2012, Section 4:
    the restricted player's counterfactual values against the best response), summed per information set.

    Parameters
    ----------
    model
        A policy over leaves with ``ranges = "start"`` (:func:`endgame_leaves`).
    game : HoldemEndgame
    tables : dict, optional
        ``{key: (n_leaves, 4)}`` leaf strategies (default ``model.leaf_table``).

    Returns
    -------
    InformationSetValues
        Rows of hands that cannot hold on a node's board are left out.

    Raises
    ------
    ValueError
        If ``model.ranges`` is not ``"start"``.
    """
    from hunl.distill.decisions import reach_probabilities

    if getattr(model, "ranges", "start") != "start":
        raise ValueError("information-set values need a policy with ranges='start'")
    tables = {k: np.asarray(model.leaf_table(k) if tables is None else tables[k], dtype=np.float64)
              for k in model.leaf_keys()}
    ctx = DecisionContext(game)
    reach1 = np.ones((2, game.tree.n_nodes, game.max_hands))
    feats = node_features(game, ctx, np.arange(ctx.nodes.size), reach1)
    nodes = []
    for k, n in enumerate(ctx.nodes):
        key, leaves = model.leaf_ids(int(ctx.street[k]), bool(ctx.facing[k]), int(ctx.player[k]), feats[k])
        nodes.append(_NodeLeaves(int(n), int(ctx.player[k]), game.tree.children(int(n)),
                                 class_routing(ctx.node_classes(int(n))), key, np.asarray(leaves, dtype=np.int64)))
    base, flat = _flatten(game, nodes)
    probs = _probs(base, flat, tables)
    own = reach_probabilities(game, probs.astype(np.float64))
    eng = engine_for(game)
    offset = eng.layout.offset
    table = eng.from_edges(probs)
    action_values = {p: _values_against_best_response(eng, table, p)[1].astype(np.float64) for p in (0, 1)}
    xs, sts, fs, vs, ns = [], [], [], [], []
    for k, nl in enumerate(nodes):
        h = nl.leaves.size
        n_act = len(nl.kids)
        off = int(offset[nl.node])
        v = action_values[nl.player][off:off + n_act * h].reshape(n_act, h).T @ nl.route.T   # (h, 4)
        v = v * own[nl.player, nl.node, :h, None] / game.pot
        ok = ~np.isnan(feats[k][:, 0])
        xs.append(feats[k][ok])
        vs.append(v[ok])
        sts.append(np.full(int(ok.sum()), int(ctx.street[k]), dtype=np.int64))
        fs.append(np.full(int(ok.sum()), bool(ctx.facing[k])))
        ns.append(np.full(int(ok.sum()), nl.node, dtype=np.int64))
    width = max(x.shape[1] for x in xs)
    X = np.full((sum(x.shape[0] for x in xs), width), np.nan)
    a = 0
    for x in xs:
        X[a:a + x.shape[0], :x.shape[1]] = x
        a += x.shape[0]
    return InformationSetValues(np.concatenate(ns), X, np.concatenate(sts), np.concatenate(fs), np.concatenate(vs))


def class_values(game, base: np.ndarray, flat: list[_FlatLeaves], tables: dict, codes: dict | None,
                 which) -> list[tuple[np.ndarray, np.ndarray]]:
    """The value of each action class, against the opponent's best response, of every hand at the decisions of
    ``flat[k]`` for ``k`` in ``which``, and the acting player's own reach there, when both players play ``tables``.

    The first-order gain of letting a group of information sets play another class (a rule split in two, say:
    :mod:`hunl.distill.rule_splits`) is the change of their summed values with the best response held: the
    regret-guided refinement of CFR-BR (Johanson, Bard, Burch & Bowling 2012, Section 4), per information set
    as :func:`information_set_values` gives it.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    base, flat, tables, codes
        As :func:`exploitability_pct`.
    which : sequence of int
        Positions in ``flat``.

    Returns
    -------
    list of (numpy.ndarray, numpy.ndarray)
        For each ``k`` of ``which``, in the order of ``flat[k].leaves``: values, shape ``(n, 4)`` float64, in
        pots, times the hand's own reach (what the player gains in the endgame by playing the class there), and
        the own reach, shape ``(n,)``.
    """
    from hunl.distill.decisions import reach_probabilities

    probs = _probs(base, flat, tables, codes)
    own = reach_probabilities(game, probs.astype(np.float64))
    eng = engine_for(game)
    table = eng.from_edges(probs)
    values = {p: _values_against_best_response(eng, table, p)[1].astype(np.float64)
              for p in {flat[k].player for k in which}}
    out = []
    for k in which:
        f = flat[k]
        v_all = np.zeros((f.leaves.size, 4))
        r_all = np.zeros(f.leaves.size)
        for m, (kid, n_act, h, off, rr) in enumerate(f.nodes.tolist()):
            a = int(f.leaf_start[m])
            reach = own[f.player, kid:kid + n_act, :h].sum(axis=0)      # the acting player's reach at the node
            v = values[f.player][off:off + n_act * h].reshape(n_act, h).T @ f.routes[rr:rr + n_act]
            v_all[a:a + h] = v * reach[:, None] / game.pot
            r_all[a:a + h] = reach
        out.append((v_all, r_all))
    return out


@dataclass(frozen=True)
class LeafCFRResult:
    """Optimised leaf strategies and the training curve.

    Attributes
    ----------
    tables : dict
        ``{tree key: (n_tree_nodes, 4) float64}`` average leaf strategies (rows of leaves no information set
        reached keep the tree's mean strategy).
    iterations : int
    log_iterations : numpy.ndarray of int64
    log_exploitability_pct_pot : numpy.ndarray of float64
        Mean over the training endgames of the exploitability (NashConv / 2, % of the pot) of the average leaf
        strategies at the logged iterations (iteration 0: the tree's own leaves, where the optimisation starts).
    """

    tables: dict
    iterations: int
    log_iterations: np.ndarray
    log_exploitability_pct_pot: np.ndarray


@dataclass(frozen=True)
class _FlatLeaves:
    """The decision nodes of one endgame whose leaves sit in one tree key and whose acting player is ``player``,
    as flat arrays, so that a whole endgame is one compiled pass (no Python loop over nodes)."""

    key: object
    player: int
    nodes: np.ndarray  # (M, 5) int64: first child, actions, hands, value offset in the engine layout, route row
    leaf_start: np.ndarray  # (M,) int64: where the node's hands start in ``leaves``
    leaves: np.ndarray  # (sum of hands,) int64: each hand's leaf
    routes: np.ndarray  # (sum of actions, 4) float64: class -> action routing of every (node, action)
    lo: np.ndarray  # (sum of hands,) float64: each hand's place in its leaf's hand order (0 when not ranked)
    hi: np.ndarray


def _flatten(game, nodes: list[_NodeLeaves]) -> tuple[np.ndarray, list[_FlatLeaves]]:
    """The edge table every strategy starts from (1 on non-decision edges, 0 for hands a node does not have) and
    :func:`endgame_leaves`' ``nodes`` as flat arrays, by (tree key, player)."""
    offset = engine_for(game).layout.offset
    base = np.ones((game.tree.n_nodes, game.max_hands), dtype=game.storage_dtype)
    parts: dict[tuple, tuple[list, list, list, list, list, list]] = {}
    for nl in nodes:
        h = nl.leaves.size
        base[nl.kids.start:nl.kids.stop, h:] = 0.0
        rows, leaves, routes, n_routes, los, his = parts.setdefault((nl.key, nl.player), ([], [], [], [0], [], []))
        rows.append((nl.kids.start, len(nl.kids), h, int(offset[nl.node]), n_routes[0]))
        leaves.append(nl.leaves)
        routes.append(nl.route.T)
        los.append(np.zeros(h) if nl.lo is None else nl.lo)
        his.append(np.zeros(h) if nl.hi is None else nl.hi)
        n_routes[0] += len(nl.kids)
    flat = []
    for (key, p), (rows, leaves, routes, _, los, his) in parts.items():
        sizes = np.array([x.size for x in leaves], dtype=np.int64)
        flat.append(_FlatLeaves(key, p, np.array(rows, dtype=np.int64), np.cumsum(sizes) - sizes,
                                np.concatenate(leaves).astype(np.int64), np.concatenate(routes),
                                np.concatenate(los).astype(np.float64), np.concatenate(his).astype(np.float64)))
    return base, flat


@njit(cache=True)
def _fill_probs(out, hm, nodes, leaf_start, leaves, routes, table, codes, lo, hi):  # pragma: no cover - compiled
    """Write each hand's action probabilities (its leaf's class distribution, given out by hand order where the
    leaf's code says so, routed onto the node's actions) into the flat ``(N, hm)`` edge table ``out``.

    Hands of leaves played at random (code 0) read their leaf's row directly, action by action along the edge
    table's rows; only hands of ranked leaves build their own mix (:func:`~hunl.distill.hand_order.ranked_mix`)."""
    n_classes = table.shape[1]
    mix = np.empty(n_classes)
    for m in range(nodes.shape[0]):
        kid0, n_act, h, _, r0 = nodes[m, 0], nodes[m, 1], nodes[m, 2], nodes[m, 3], nodes[m, 4]
        ls = leaf_start[m]
        for a in range(n_act):
            row = (kid0 + a) * hm
            for i in range(h):
                lf = leaves[ls + i]
                if codes[lf] == 0:
                    acc = 0.0
                    for c in range(n_classes):
                        acc += table[lf, c] * routes[r0 + a, c]
                    out[row + i] = acc
        for i in range(h):
            lf = leaves[ls + i]
            if codes[lf] != 0:
                ranked_mix(table, codes[lf], lf, lo[ls + i], hi[ls + i], mix)
                for a in range(n_act):
                    acc = 0.0
                    for c in range(n_classes):
                        acc += mix[c] * routes[r0 + a, c]
                    out[(kid0 + a) * hm + i] = acc


@njit(cache=True)
def _class_values(values, nodes, leaf_start, leaves, routes, V):  # pragma: no cover - compiled
    """Add every hand's action values, routed back to the classes, to its leaf's row of ``V`` ``(L, 4)``."""
    n_classes = V.shape[1]
    for m in range(nodes.shape[0]):
        n_act, h, off, r0 = nodes[m, 1], nodes[m, 2], nodes[m, 3], nodes[m, 4]
        ls = leaf_start[m]
        for a in range(n_act):
            base = off + a * h
            for i in range(h):
                x = values[base + i]
                lf = leaves[ls + i]
                for c in range(n_classes):
                    V[lf, c] += x * routes[r0 + a, c]


def _probs(base: np.ndarray, flat: list[_FlatLeaves], tables: dict, codes: dict | None = None) -> np.ndarray:
    """The edge table of the leaf strategies ``tables`` (each hand plays its leaf's class distribution, given out
    by hand order where ``codes[key]`` says so, routed onto its node's actions)."""
    probs = base.copy()
    for f in flat:
        table = np.ascontiguousarray(tables[f.key], dtype=np.float64)
        code = np.zeros(table.shape[0], dtype=np.int64) if codes is None or f.key not in codes else \
            np.ascontiguousarray(codes[f.key], dtype=np.int64)
        _fill_probs(probs.reshape(-1), probs.shape[1], f.nodes, f.leaf_start, f.leaves, f.routes, table, code,
                    f.lo, f.hi)
    return probs


def _regrets(game, flat: list[_FlatLeaves], tables, probs, p: int, regret: dict, weight: float = 1.0) -> float:
    """Add player ``p``'s leaf regrets against a best response (units of the pot, times ``weight``); return the
    opponent's best-response value (chips)."""
    eng = engine_for(game)
    br_value, action_values = _values_against_best_response(eng, eng.from_edges(probs), p)
    scale = weight / game.pot
    for f in flat:
        if f.player != p:
            continue
        tab = tables[f.key]
        # a leaf's strategy is the same for all its hands, so the regret of class c summed over the leaf's
        # information sets is V[c] - s.V with V the summed class values (routed back from the actions)
        V = np.zeros(tab.shape, dtype=np.float64)
        _class_values(action_values, f.nodes, f.leaf_start, f.leaves, f.routes, V)
        regret[f.key] += (V - (tab * V).sum(axis=1, keepdims=True)) * scale
    return br_value


def exploitability_pct(game, base: np.ndarray, flat: list[_FlatLeaves], tables: dict,
                       codes: dict | None = None) -> float:
    """NashConv / 2 in % of the pot of ``game`` when every hand plays its leaf's strategy of ``tables`` (the flat
    leaves of :func:`_flatten`).

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    base : numpy.ndarray of ``game.storage_dtype``, shape ``(N, Hm)``
        The edge table every strategy starts from (1 on non-decision edges, 0 for hands a node does not have):
        the first item :func:`_flatten` returns.
    flat : list of _FlatLeaves
        The decision nodes of ``game`` with their leaves, by tree key and player: the second item
        :func:`_flatten` returns.
    tables : dict
        ``{tree key: (n_leaves, 4) array_like of float}``: each leaf's class distribution, for every key of
        ``flat``.
    codes : dict, optional
        ``{tree key: (n_leaves,) int}``: each leaf's hand order (:func:`hunl.distill.hand_order.order_codes`;
        the hands' places are those ``flat`` holds); a key left out, or ``None``, plays its mixes at random.

    Returns
    -------
    float
        NashConv / 2 of the policy played by both players, in % of the endgame's starting pot.

    Raises
    ------
    KeyError
        If ``tables`` lacks a key of ``flat``.
    """
    eng = engine_for(game)
    # NashConv = BR_1 + BR_2 (each player's best-response value against the other; zero-sum)
    gains = float(eng.best_response_values(eng.from_edges(_probs(base, flat, tables, codes))).sum())
    return 100.0 * 0.5 * gains / game.pot


class _Shard:
    """A group of training endgames with their leaves: regrets and exploitability for given leaf tables (the
    state of one worker of :class:`rulelearn.data.executors.ShardWorkers`)."""

    def __init__(self, model, games, weights=None):
        self.games = list(games)
        self.weights = check_game_weights(weights, len(self.games))
        self.flat = []
        for g in self.games:
            self.flat.append(_flatten(g, endgame_leaves(model, g)))
            release_memory()                  # the endgame's features are gone: give their heap back
        self.keys = tuple(model.leaf_keys())
        self.codes = model_codes(model)

    def seen(self, shapes: dict) -> dict:
        out = {k: np.zeros(n, dtype=bool) for k, n in shapes.items()}
        for _, flat in self.flat:
            for f in flat:
                if f.key in out:
                    out[f.key][f.leaves] = True
        return out

    def regrets(self, tables: dict) -> dict:
        regret = {k: np.zeros_like(v) for k, v in tables.items()}
        for w, g, (base, flat) in zip(self.weights, self.games, self.flat):
            probs = _probs(base, flat, tables, self.codes)
            for p in (0, 1):
                _regrets(g, flat, tables, probs, p, regret, w)
        return regret

    def exploitability_sum(self, tables: dict, codes: dict | None = None) -> float:
        """Weighted sum over the endgames of NashConv / 2 in % of the pot (hand orders ``codes``, default the
        model's)."""
        codes = self.codes if codes is None else {**self.codes, **codes}
        return sum(w * exploitability_pct(g, base, flat, tables, codes)
                   for w, g, (base, flat) in zip(self.weights, self.games, self.flat))

    def exploitability_sums(self, many: list, codes: list | None = None) -> list:
        """:meth:`exploitability_sum` of each of several leaf tables (one message for all)."""
        return [self.exploitability_sum(t, None if codes is None else c)
                for t, c in zip(many, codes if codes is not None else [None] * len(many))]


def model_codes(model) -> dict:
    """``{key: (n_leaves,) int64}``: the hand order code of every leaf of a policy over leaves
    (``model.leaf_codes(key)``; 0, at random, for a model without them).

    Parameters
    ----------
    model
        A policy over leaves (``leaf_keys()``, ``leaf_table(key)``; optionally ``leaf_codes(key)``).

    Returns
    -------
    dict
    """
    get = getattr(model, "leaf_codes", None)
    return {k: (np.asarray(get(k), dtype=np.int64) if get is not None else
                np.zeros(np.asarray(model.leaf_table(k)).shape[0], dtype=np.int64)) for k in model.leaf_keys()}


class LeafWorkers:
    """Training endgames with the leaf of every information set under a policy over leaves, kept by worker
    processes: the exploitability and the leaf regrets of any leaf strategies, without finding the leaves again.

    The state of :func:`optimise_leaves`, for callers that try many leaf tables on the same endgames (e.g.
    :func:`hunl.distill.card_pruning.prune_card_tree`).

    Parameters
    ----------
    model
        A policy over leaves (:func:`endgame_leaves`; ranges ``"start"`` or ``"own"``, whose leaves are those of the
        model's own strategies).
    games : sequence of HoldemEndgame
    workers : int, default 1
        Processes sharing the endgames (1: this process).
    weights : array_like of float, shape ``(len(games),)``, optional
        Each endgame's weight in the mean exploitability and in the summed regrets (default: 1 each).

    Raises
    ------
    ValueError
        If ``games`` is empty, ``workers < 1``, the model's ranges are ``"node"``, or ``weights`` has another
        length, a negative entry or sums to 0.
    """

    def __init__(self, model, games, workers: int = 1, weights=None):
        workers = check_int("workers", workers, 1)
        games = list(games)
        if not games:
            raise ValueError("games must hold at least one endgame")
        _leaf_ranges(model)
        w = check_game_weights(weights, len(games))
        self.total = float(w.sum())
        self.codes = model_codes(model)
        local = workers <= 1 or len(games) < 2
        parts = [(model, games, w)] if local else [(model, [games[i] for i in part], w[part])
                                                   for part in deal(len(games), workers)]
        self._pool = ShardWorkers(_Shard, parts, local=local)

    def __enter__(self) -> LeafWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._pool.close()

    def seen(self, shapes: dict) -> dict:
        """``{key: bool array of shape (shapes[key],)}``: which leaves some information set of the endgames reads
        (for the keys of ``shapes`` only)."""
        out = {k: np.zeros(n, dtype=bool) for k, n in shapes.items()}
        for part in self._pool.ask("seen", shapes):
            for k in out:
                out[k] |= part[k]
        return out

    def regrets(self, tables: dict) -> dict:
        """Each leaf's regret of each class against best responses to ``tables``, summed over the endgames (each in
        units of its pot, times its weight): ``{key: (n_leaves, 4)}``."""
        total = {k: np.zeros_like(np.asarray(v, dtype=np.float64)) for k, v in tables.items()}
        for part in self._pool.ask("regrets", tables):
            for k in total:
                total[k] += part[k]
        return total

    def exploitability(self, tables: dict, codes: dict | None = None) -> float:
        """Weighted mean NashConv / 2 over the endgames, % of the pot, of the policy playing ``tables`` (in the
        hand orders ``codes``, ``{key: (n_leaves,) int}`` of :func:`hunl.distill.hand_order.order_codes`;
        default the model's, for the keys not given)."""
        return float(sum(self._pool.ask("exploitability_sum", tables, codes))) / self.total

    def exploitabilities(self, many, codes=None) -> np.ndarray:
        """:meth:`exploitability` of each of several leaf tables, shape ``(len(many),)``; ``codes``, if given,
        one dict of hand orders per table."""
        many = list(many)
        if codes is not None and len(codes) != len(many):
            raise ValueError(f"codes must give one dict per table ({len(many)}), got {len(codes)}")
        parts = self._pool.ask("exploitability_sums", many, None if codes is None else list(codes))
        return np.sum(np.asarray(parts, dtype=np.float64), axis=0) / self.total

    def cfr_br(self, start: dict, iterations: int, delay: int, frozen=(), groups: dict | None = None,
               log_every: int | None = None, progress: bool = False) -> tuple[dict, list, list]:
        """CFR-BR over the leaves from the strategies ``start`` (the loop of :func:`optimise_leaves`).

        Parameters
        ----------
        start : dict
            ``{key: (n_leaves, 4)}`` starting leaf strategies.
        iterations, delay : int
            Regret-matching+ iterations; iteration ``t > delay`` has weight ``t - delay`` in the average.
        frozen : collection of keys
            Tables that keep their ``start``.
        groups : dict, optional
            ``{key: int array (n_leaves,)}``: leaves of one group share one strategy (their regrets are summed; their
            ``start`` rows must be equal), e.g. the rules of a pruned card that now play as one.
        log_every : int, optional
            Measure the average strategies every this many iterations (and at the end).

        Returns
        -------
        tables : dict
            The average strategies (``start`` for leaves no information set reads, and for frozen keys).
        log_iterations, log_exploitability : list
            Iteration 0 (``start``) and the logged ones; mean exploitability, % of the pot (empty without
            ``log_every``).

        Raises
        ------
        ValueError
            If a key that is not frozen has leaves played by hand order (the regrets of a leaf are those of one
            strategy shared by its hands, which a hand order does not play; frozen ones are played exactly).
        """
        from tqdm.auto import tqdm

        frozen, groups = set(frozen), dict(groups or {})
        ranked = sorted(str(k) for k in start if k not in frozen and np.any(self.codes.get(k, 0) != 0))
        if ranked:
            raise ValueError(f"CFR-BR optimises mixes played at random; the leaves of {ranked} are played by hand "
                             "order (optimise them at random, then choose their orders: "
                             "hunl.distill.plain_search.plain_by_exploitability(hand_orders=True))")
        seen = self.seen({k: v.shape[0] for k, v in start.items()})
        grp = {k: groups.get(k, np.arange(v.shape[0])) for k, v in start.items() if k not in frozen}
        first = {k: np.unique(g, return_index=True)[1] for k, g in grp.items()}   # a leaf of each group
        s0 = {k: start[k][first[k]] for k in grp}
        live = {}
        for k, g in grp.items():
            live[k] = np.zeros(first[k].size, dtype=bool)
            np.logical_or.at(live[k], g, seen[k])
        current = {k: v.copy() for k, v in s0.items()}
        regret = {k: np.zeros_like(v) for k, v in s0.items()}
        avg = {k: np.zeros_like(v) for k, v in s0.items()}

        def tables_of(per_group: dict) -> dict:
            return {k: per_group[k][grp[k]] if k in grp else start[k] for k in start}

        def averaged() -> dict:
            out = {}
            for k in avg:
                z = avg[k].sum(axis=1, keepdims=True)
                out[k] = np.where(live[k][:, None] & (z > 0), avg[k] / np.where(z > 0, z, 1.0), s0[k])
            return tables_of(out)

        log_it, log_ex = ([0], [self.exploitability(start)]) if log_every else ([], [])
        for it in tqdm(range(1, int(iterations) + 1), disable=not progress, desc="optimal leaves", unit="it",
                       leave=log_every is not None):
            for k, r in self.regrets(tables_of(current)).items():
                if k not in grp:
                    continue
                if k in groups:
                    summed = np.zeros_like(regret[k])
                    np.add.at(summed, grp[k], r)
                    r = summed
                regret[k] = np.maximum(regret[k] + r, 0.0)   # regret matching+
                pos = regret[k].sum(axis=1, keepdims=True)
                upd = np.where(pos > 0, regret[k] / np.where(pos > 0, pos, 1.0), current[k])
                current[k] = np.where(live[k][:, None], upd, s0[k])
                avg[k] += max(it - delay, 0) * current[k]
            if log_every and (it % log_every == 0 or it == iterations) and it > delay:
                log_it.append(it)
                log_ex.append(self.exploitability(averaged()))
        return averaged(), log_it, log_ex


def optimise_leaves(model, games, iterations: int = 100, log_every: int = 10, delay: int | None = None,
                    workers: int = 1, progress: bool = False, frozen=()) -> LeafCFRResult:
    """Leaf strategies minimising the mean exploitability of ``model`` over ``games`` (CFR-BR over the leaves).

    Parameters
    ----------
    model : DistilledPolicy
        Fitted, ``ranges="start"`` (or a card of ``"own"`` ranges: the leaf of each information set is then fixed
        at the one of the model's starting strategies, :func:`endgame_leaves`).
    games : sequence of HoldemEndgame
        The training endgames.
    iterations : int, default 100
        CFR-BR iterations (each: per endgame and player, one best response and one evaluation).
    log_every : int, default 10
        Record the mean exploitability of the average strategies every this many iterations.
    delay : int, optional
        Iterations left out of the average (the first iterates of regret matching jump far from the start);
        iteration ``t > delay`` has weight ``t - delay``. Default ``iterations // 5``.
    workers : int, default 1
        Processes sharing the endgames (each keeps its share between iterations; the leaf tables and regrets,
        a few KiB, travel each iteration). The result does not depend on it.
    progress : bool, default False
        Show a progress bar.
    frozen : sequence of keys, default ()
        Leaf tables that keep the model's strategies (e.g. the rules of a card already learned for another
        street, :class:`hunl.distill.cards.CompositeCard`): the other leaves are optimised against best responses
        to the policy that plays them too.

    Returns
    -------
    LeafCFRResult
        Frozen tables are returned as they were.

    Raises
    ------
    ValueError
        If ``iterations < 1``, ``delay`` is outside ``[0, iterations)``, ``workers < 1`` or the model's ranges
        are ``"node"``.
    """

    iterations = check_int("iterations", iterations, 1)
    workers = check_int("workers", workers, 1)
    games = list(games)
    if not games:
        raise ValueError("games must hold at least one endgame")
    delay = int(iterations) // 5 if delay is None else int(delay)
    if not 0 <= delay < iterations:
        raise ValueError(f"delay must be in [0, iterations), got {delay!r}")
    _leaf_ranges(model)
    frozen = set(frozen)
    unknown = frozen - set(model.leaf_keys())
    if unknown:
        raise ValueError(f"frozen keys {sorted(map(str, unknown))} are not leaf keys of the model")
    start = {k: np.asarray(model.leaf_table(k), dtype=np.float64) for k in model.leaf_keys()}
    with LeafWorkers(model, games, workers) as pool:
        tables, log_it, log_ex = pool.cfr_br(start, iterations, delay, frozen=frozen, log_every=log_every,
                                             progress=progress)
    return LeafCFRResult(tables, int(iterations), np.asarray(log_it, dtype=np.int64), np.asarray(log_ex))

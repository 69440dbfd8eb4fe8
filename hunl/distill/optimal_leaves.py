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

from games.core.evaluation import MODE_BEST_RESPONSE, MODE_EXPECTED, engine_for
from hunl.distill.actions import class_routing
from hunl.distill.decisions import DecisionContext, node_features
from rulelearn.data.executors import ShardWorkers
from rulelearn.validation import check_int

__all__ = ["LeafCFRResult", "optimise_leaves", "endgame_leaves"]


@dataclass(frozen=True)
class _NodeLeaves:
    node: int
    player: int
    kids: range
    route: np.ndarray  # (4, n_actions)
    key: tuple
    leaves: np.ndarray  # (H,) leaf node id of every hand of the acting player


def endgame_leaves(model, game) -> list[_NodeLeaves]:
    """The leaf of every (decision node, hand) of ``game`` under ``model`` (range features against the starting
    ranges; ``model.ranges`` must be ``"start"``).

    ``model`` is a :class:`hunl.distill.policy.DistilledPolicy` or any policy over leaves with ``ranges``,
    ``leaf_keys()``, ``leaf_table(key)`` (``(n_leaves, 4)``) and ``leaf_ids(street, facing, player, X) -> (key,
    leaf of each row)`` (a rule card, :class:`hunl.distill.cards.CardPolicy`).

    Raises
    ------
    ValueError
        If ``model.ranges`` is not ``"start"`` (node-range features change with the leaf strategies).
    """
    if getattr(model, "ranges", "start") != "start":
        raise ValueError("optimal leaves need a policy with ranges='start' (its leaves must not depend on it)")
    ctx = DecisionContext(game)
    reach = np.ones((2, game.tree.n_nodes, game.max_hands))
    feats = node_features(game, ctx, np.arange(ctx.nodes.size), reach)
    out = []
    for k, n in enumerate(ctx.nodes):
        p = int(ctx.player[k])
        key, leaves = model.leaf_ids(int(ctx.street[k]), bool(ctx.facing[k]), p, feats[k])
        out.append(_NodeLeaves(int(n), p, game.tree.children(int(n)), class_routing(ctx.node_classes(int(n))), key,
                               np.asarray(leaves, dtype=np.int64)))
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


def _probs(game, nodes: list[_NodeLeaves], tables: dict) -> np.ndarray:
    t = game.tree
    probs = np.ones((t.n_nodes, game.max_hands), dtype=game.storage_dtype)
    for nl in nodes:
        h = nl.leaves.size
        act = tables[nl.key][nl.leaves] @ nl.route  # (H, n_actions)
        probs[nl.kids.start:nl.kids.stop, :h] = act.T
        probs[nl.kids.start:nl.kids.stop, h:] = 0.0
    return probs


def _regrets(game, nodes, tables, probs, p: int, regret: dict) -> float:
    """Add player ``p``'s leaf regrets against a best response (units of the pot); return the opponent's
    best-response value (chips)."""
    eng = engine_for(game)
    o = 1 - p
    table = eng.from_edges(probs)
    profile = table.copy()
    br_value = float(eng.hand_values(o, MODE_BEST_RESPONSE, table, best=profile).sum())
    action_values = np.zeros_like(table)
    eng.hand_values(p, MODE_EXPECTED, profile, best=action_values)
    offset = eng.layout.offset
    scale = 1.0 / game.pot
    for nl in nodes:
        if nl.player != p:
            continue
        h = nl.leaves.size
        tab = tables[nl.key]
        n_leaves = tab.shape[0]
        # the leaf's strategy is the same for all its hands, so the regret of class c summed over the leaf's
        # hands is V[c] - s.V with V the summed class values: one bincount per action
        off = int(offset[nl.node])
        va = action_values[off:off + len(nl.kids) * h].reshape(len(nl.kids), h)  # (n_actions, H)
        summed = np.stack([np.bincount(nl.leaves, weights=row, minlength=n_leaves) for row in va], axis=1)
        V = summed @ nl.route.T  # (L, 4): summed value of each class per leaf
        regret[nl.key] += (V - (tab * V).sum(axis=1, keepdims=True)) * scale
    return br_value


class _Shard:
    """A group of training endgames with their leaves: regrets and exploitability for given leaf tables (the
    state of one worker of :class:`rulelearn.data.executors.ShardWorkers`)."""

    def __init__(self, model, games):
        self.games = list(games)
        self.leaves = [endgame_leaves(model, g) for g in self.games]
        self.keys = tuple(model.leaf_keys())

    def seen(self, shapes: dict) -> dict:
        out = {k: np.zeros(n, dtype=bool) for k, n in shapes.items()}
        for nodes in self.leaves:
            for nl in nodes:
                out[nl.key][nl.leaves] = True
        return out

    def regrets(self, tables: dict) -> dict:
        regret = {k: np.zeros_like(v) for k, v in tables.items()}
        for g, nodes in zip(self.games, self.leaves):
            probs = _probs(g, nodes, tables)
            for p in (0, 1):
                _regrets(g, nodes, tables, probs, p, regret)
        return regret

    def exploitability_sum(self, tables: dict) -> float:
        """Sum over the endgames of NashConv / 2 in % of the pot."""
        total = 0.0
        for g, nodes in zip(self.games, self.leaves):
            eng = engine_for(g)
            # NashConv = BR_1 + BR_2 (each player's best-response value against the other; zero-sum)
            gains = float(eng.best_response_values(eng.from_edges(_probs(g, nodes, tables))).sum())
            total += 100.0 * 0.5 * gains / g.pot
        return total


def optimise_leaves(model, games, iterations: int = 100, log_every: int = 10, delay: int | None = None,
                    workers: int = 1, progress: bool = False) -> LeafCFRResult:
    """Leaf strategies minimising the mean exploitability of ``model`` over ``games`` (CFR-BR over the leaves).

    Parameters
    ----------
    model : DistilledPolicy
        Fitted, ``ranges="start"``.
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

    Returns
    -------
    LeafCFRResult

    Raises
    ------
    ValueError
        If ``iterations < 1``, ``delay`` is outside ``[0, iterations)``, ``workers < 1`` or the model's ranges
        are not ``"start"``.
    """
    from tqdm.auto import tqdm

    iterations = check_int("iterations", iterations, 1)
    workers = check_int("workers", workers, 1)
    games = list(games)
    if not games:
        raise ValueError("games must hold at least one endgame")
    delay = int(iterations) // 5 if delay is None else int(delay)
    if not 0 <= delay < iterations:
        raise ValueError(f"delay must be in [0, iterations), got {delay!r}")
    if getattr(model, "ranges", "start") != "start":
        raise ValueError("optimal leaves need a policy with ranges='start' (its leaves must not depend on it)")
    start = {k: np.asarray(model.leaf_table(k), dtype=np.float64) for k in model.leaf_keys()}
    current = {k: v.copy() for k, v in start.items()}
    regret = {k: np.zeros_like(v) for k, v in start.items()}
    avg = {k: np.zeros_like(v) for k, v in start.items()}
    local = workers <= 1 or len(games) < 2
    parts = [(model, games)] if local else [(model, [games[i] for i in part])
                                            for part in np.array_split(np.arange(len(games)), workers)]
    with ShardWorkers(_Shard, parts, local=local) as pool:
        seen = {k: np.zeros(v.shape[0], dtype=bool) for k, v in start.items()}
        for part in pool.ask("seen", {k: v.shape[0] for k, v in start.items()}):
            for k in seen:
                seen[k] |= part[k]

        def averaged():
            out = {}
            for k in avg:
                z = avg[k].sum(axis=1, keepdims=True)
                out[k] = np.where(seen[k][:, None] & (z > 0), avg[k] / np.where(z > 0, z, 1.0), start[k])
            return out

        def mean_exploitability(tables) -> float:
            return float(sum(pool.ask("exploitability_sum", tables))) / len(games)

        log_it, log_ex = [0], [mean_exploitability(start)]
        for it in tqdm(range(1, int(iterations) + 1), disable=not progress, desc="optimal leaves", unit="it"):
            for part in pool.ask("regrets", current):
                for k in regret:
                    regret[k] += part[k]
            for k in current:
                r = np.maximum(regret[k], 0.0)  # regret matching+
                regret[k] = r
                pos = r.sum(axis=1, keepdims=True)
                upd = np.where(pos > 0, r / np.where(pos > 0, pos, 1.0), current[k])
                current[k] = np.where(seen[k][:, None], upd, start[k])
                avg[k] += max(it - delay, 0) * current[k]
            if (it % log_every == 0 or it == iterations) and it > delay:
                log_it.append(it)
                log_ex.append(mean_exploitability(averaged()))
        tables = averaged()
    return LeafCFRResult(tables, int(iterations), np.asarray(log_it, dtype=np.int64), np.asarray(log_ex))

"""Rule cards pruned while the cost allows: a large card tree cut back, rule pair by rule pair, by exploitability.

The card tree grown by imitation (:func:`hunl.distill.cards.grow_card_tree`) adds its splits where the equilibrium's
strategies differ most; the card of ``n`` rules is its first ``n - 1`` splits. :func:`prune_card_tree` chooses the
``n - 1`` splits by what they are worth to the card's *exploitability* instead:

1. the card of ``from_rules`` rules gets the leaf strategies of least exploitability over training endgames
   (CFR-BR over its rules, :func:`hunl.distill.optimal_leaves.optimise_leaves`);
2. every split whose two sides are both rules of the current card is a candidate: its two rules would become one,
   playing their strategies' mean (weighted by the decisions each covers); each candidate card's mean
   exploitability over the training endgames is measured exactly (best responses in every endgame,
   :class:`hunl.distill.optimal_leaves.LeafWorkers`), and the split whose removal costs least goes;
3. every ``reoptimise_every`` removals the remaining rules' strategies are optimised again by CFR-BR (kept when
   that lowers the training figure).

The removals, last first, give a new order of the tree's splits, so the pruned cards of every size from
``to_rules`` to ``from_rules`` are nested like the grown ones and :func:`hunl.distill.cards.fit_card` fits any of
them. This is weakest-link pruning (Breiman, Friedman, Olshen & Stone 1984, *Classification and Regression
Trees*, Chapter 3: remove the split whose removal raises the cost least) with the card's exploitability as the cost, the backward counterpart of growing with exploitability in the loop
(:func:`hunl.distill.cards.grow_card_by_regret`), which scores a split by a first-order estimate (the best
response held fixed) where each pruning step measures the card it keeps.
"""

from __future__ import annotations

import numpy as np

from hunl.distill.cards import CARD_KEY, CardPolicy, CompositeCard, provisional_card
from hunl.distill.optimal_leaves import LeafWorkers
from rulelearn.rules.growth import GrownTree
from rulelearn.validation import check_int

__all__ = ["prune_card_tree"]


def _group_cfr(pool: LeafWorkers, tables: dict, rows_of: dict, strat: dict, iterations: int,
               progress: bool = False) -> dict:
    """CFR-BR over the current rules of a pruned card, each a group of the full card's rows playing one strategy
    (:meth:`LeafWorkers.cfr_br` with groups; the other tables frozen): ``{node: (4,) strategy}``."""
    group = np.empty(tables[CARD_KEY].shape[0], dtype=np.int64)
    start = np.empty_like(tables[CARD_KEY])
    for g, (node, rows) in enumerate(rows_of.items()):
        group[rows] = g
        start[rows] = strat[node]
    out, _, _ = pool.cfr_br({**tables, CARD_KEY: start}, iterations, iterations // 5,
                            frozen=[k for k in tables if k != CARD_KEY], groups={CARD_KEY: group}, progress=progress)
    return {node: out[CARD_KEY][rows[0]] for node, rows in rows_of.items()}


def prune_card_tree(tree: GrownTree, from_rules: int, to_rules: int, Z: np.ndarray, Y: np.ndarray, games,
                    iterations: int = 200, reoptimise_every: int = 4,
                    reoptimise_iterations: int = 50, workers: int = 1, progress: bool = False, fixed=None,
                    ranges: str = "start", checkpoint=None) -> tuple[GrownTree, list[dict]]:
    """Cut the card of ``from_rules`` rules back to ``to_rules`` rules, each time removing the split whose two
    rules cost least, in mean training exploitability, to play as one (see the module docstring).

    Parameters
    ----------
    tree : GrownTree
        A card tree (:func:`hunl.distill.cards.grow_card_tree`, over
        :data:`hunl.distill.quantities.CARD_FEATURES`) of at least ``from_rules`` leaves.
    from_rules : int
        Rules of the card pruned (the first ``from_rules - 1`` splits of ``tree``).
    to_rules : int
        Rules left (``1 <= to_rules < from_rules``).
    Z, Y : numpy.ndarray
        The drawn training decisions of :func:`grow_card_tree`: the rules' starting strategies (the equilibrium's
        means) and the weights of a merged rule's mean (each rule's share of the decisions, which are drawn in
        proportion to probability times stake).
    games : sequence of HoldemEndgame
        Training endgames: the CFR-BR leaves and the exploitability of every candidate.
    iterations : int, default 200
        CFR-BR iterations of the full card's rules.
    reoptimise_every : int, default 4
        Removals between two CFR-BR re-optimisations of the remaining rules (0: never).
    reoptimise_iterations : int, default 50
    workers : int, default 1
        Processes sharing the endgames.
    progress : bool, default False
        Print each removal.
    fixed : mapping of int to RuleCard, optional
        Cards that play the other streets (:func:`fit_card`): frozen, as in the card's own optimisation.
    ranges : {"start", "own"}, default "start"
        The ranges the card reads (``"own"``: each information set's rule is fixed at the one it reads under the
        full card with the equilibrium's mean strategies, as in :func:`optimise_leaves`).
    checkpoint : str or os.PathLike, optional
        A JSON file the state is written to after the full card's optimisation and after every removal (atomically:
        a killed run leaves the last complete state). A run that finds it, written with the same card (the splits
        of its ``from_rules`` rules), number of training endgames and iteration settings, resumes from it (the
        endgames themselves are the caller's to keep: ``rule_cards.py`` deletes the file when its settings change) (the removals do not depend on ``to_rules``, so a
        run to fewer rules continues one to more) and gives the result of an uninterrupted run.

    Returns
    -------
    tree : GrownTree
        The same nodes with the splits reordered: the kept splits (in their order of growth), then the removed ones,
        last removed first, then the splits beyond ``from_rules``. ``tree.leaves(n)`` for ``to_rules <= n <=
        from_rules`` is the pruned card of ``n`` rules. ``gains`` of a removed split is the rise of the training
        figure (% of the pot) its removal cost.
    log : list of dict
        Per card size from ``from_rules`` down: ``rules``, ``train_pct_pot`` (mean exploitability over ``games``,
        % of the pot, of the unrounded strategies) and ``removed`` (the node merged to reach that size; None first).

    Raises
    ------
    ValueError
        If ``from_rules`` is not in ``2 .. tree.max_leaves``, ``to_rules`` not in ``1 .. from_rules - 1``, an
        iteration count is negative (``iterations`` must be at least 1) or ``games`` is empty.
    """
    from tqdm.auto import tqdm

    from_rules = check_int("from_rules", from_rules, 2, tree.max_leaves)
    to_rules = check_int("to_rules", to_rules, 1, from_rules - 1)
    iterations = check_int("iterations", iterations, 1)
    reoptimise_every = check_int("reoptimise_every", reoptimise_every, 0)
    reoptimise_iterations = check_int("reoptimise_iterations", reoptimise_iterations, 1)
    games = list(games)
    if not games:
        raise ValueError("games must hold at least one endgame")
    card, _, masks, _, _ = provisional_card(tree, from_rules, Z, Y, ranges=ranges)
    leaves = tree.leaves(from_rules)
    order = np.asarray(card.meta["leaf_order"], dtype=np.int64)   # leaf position of each card row
    row_of = np.empty_like(order)
    row_of[order] = np.arange(order.size)
    policy = CardPolicy(card)
    model = policy if not fixed else CompositeCard(policy, fixed)
    tables = {k: np.asarray(model.leaf_table(k), dtype=np.float64) for k in model.leaf_keys()}
    mass = masks.sum(axis=1).astype(np.float64)
    rows_of = {int(n): np.array([row_of[j]]) for j, n in enumerate(leaves)}
    weight = {int(n): mass[j] for j, n in enumerate(leaves)}
    internal = [int(s) for s in tree.split_order[: from_rules - 1]]
    settings = {"from_rules": from_rules, "n_games": len(games), "iterations": iterations,
                "reoptimise_every": reoptimise_every, "reoptimise_iterations": reoptimise_iterations,
                "splits": [[p, int(tree.feature[p]), float(tree.threshold[p])] for p in internal]}
    saved = _read_checkpoint(checkpoint, settings)
    with LeafWorkers(model, games, workers) as pool:
        def merge(p: int) -> tuple[int, int]:
            """Make split ``p``'s two rules one (their rows and weights); returns their nodes."""
            a, b = int(tree.left[p]), int(tree.right[p])
            rows_of[p] = np.concatenate([rows_of.pop(a), rows_of.pop(b)])
            weight[p] = weight.pop(a) + weight.pop(b)
            return a, b

        def expand(strategies: dict) -> np.ndarray:
            t = np.empty_like(tables[CARD_KEY])
            for node, rows in rows_of.items():
                t[rows] = strategies[node]
            return t

        if saved is None:
            strat = {int(n): tables[CARD_KEY][row_of[j]] for j, n in enumerate(leaves)}
            strat = _group_cfr(pool, tables, rows_of, strat, iterations, progress)
            current = pool.exploitability({**tables, CARD_KEY: expand(strat)})
            log = [{"rules": from_rules, "train_pct_pot": current, "removed": None}]
            removed, rises = [], []
        else:                                   # replay the saved removals, then go on from the saved state
            removed, rises, log, current = saved["removed"], saved["rises"], saved["log"], saved["current"]
            for p in removed[: from_rules - to_rules]:     # a state saved further than asked: only up to to_rules
                merge(p)
            strat = {int(n): np.asarray(v, dtype=np.float64) for n, v in saved["strat"].items()}
        state = {"settings": settings, "removed": removed, "rises": rises, "log": log}
        _write_checkpoint(checkpoint, state, strat, current)
        bar = tqdm(total=from_rules - to_rules, initial=min(len(removed), from_rules - to_rules), disable=not progress,
                   desc="pruning", unit="rule")
        while len(rows_of) > to_rules:
            cands = [p for p in internal if p not in removed
                     and int(tree.left[p]) in rows_of and int(tree.right[p]) in rows_of]
            merged, trial = [], []
            for p in cands:
                a, b = int(tree.left[p]), int(tree.right[p])
                w = weight[a] + weight[b]
                s = (weight[a] * strat[a] + weight[b] * strat[b]) / w if w > 0 else 0.5 * (strat[a] + strat[b])
                merged.append(s)
                t = expand(strat)
                t[np.concatenate([rows_of[a], rows_of[b]])] = s
                trial.append({**tables, CARD_KEY: t})
            ex = pool.exploitabilities(trial)
            k = int(np.argmin(ex))
            p = cands[k]
            a, b = merge(p)
            strat.pop(a), strat.pop(b)
            strat[p] = merged[k]
            rises.append(float(ex[k] - current))
            current = float(ex[k])
            removed.append(p)
            if reoptimise_every and len(removed) % reoptimise_every == 0:
                again = _group_cfr(pool, tables, rows_of, strat, reoptimise_iterations, progress)
                e = pool.exploitability({**tables, CARD_KEY: expand(again)})
                if e < current:
                    strat, current = again, e
            log.append({"rules": len(rows_of), "train_pct_pot": current, "removed": p})
            _write_checkpoint(checkpoint, state, strat, current)
            bar.update(1)
            if progress:
                bar.write(f"   pruned to {len(rows_of)} rules: {current:.2f}% of the pot on the training endgames "
                          f"(merging node {p} cost {rises[-1]:+.2f})")
        bar.close()
    log = [r for r in log if r["rules"] >= len(rows_of)]     # a resumed run to more rules than it was saved at
    removed, rises = removed[: from_rules - len(rows_of)], rises[: from_rules - len(rows_of)]
    gain_of = dict(zip(tree.split_order.tolist(), tree.gains.tolist()))
    gain_of.update(zip(removed, rises))
    kept = [s for s in internal if s not in removed]
    new_order = kept + removed[::-1] + [int(s) for s in tree.split_order[from_rules - 1:]]
    pruned = GrownTree(tree.feature, tree.threshold, tree.left, tree.right, np.asarray(new_order, dtype=np.int64),
                       np.asarray([gain_of[s] for s in new_order], dtype=np.float64), tree.feature_names)
    return pruned, log



def _read_checkpoint(path, settings: dict) -> dict | None:
    """The state saved by :func:`_write_checkpoint` under the same settings (None: no file, or other settings)."""
    import json
    from pathlib import Path

    if path is None or not Path(path).exists():
        return None
    state = json.loads(Path(path).read_text())
    if state.get("settings") != settings:
        return None
    state["strat"] = {int(k): v for k, v in state["strat"].items()}
    return state


def _write_checkpoint(path, state: dict, strat: dict, current: float) -> None:
    """Write the pruning's state to ``path`` whole or not at all (:func:`rulelearn.data.shards.write_atomic`)."""
    import json
    from pathlib import Path

    from rulelearn.data.shards import write_atomic

    if path is None:
        return
    write_atomic(Path(path), json.dumps({**state, "current": float(current),
                                         "strat": {str(k): [float(x) for x in v] for k, v in strat.items()}}).encode())

"""Rule cards for rule sets that play one full strategy per group of games (the bet game), and their frontier.

A *group card* is a rule set (:mod:`rulelearn.rules.leaves`) a person can carry:

* its tree is grown with exploitability in the loop (:func:`rulelearn.rules.growth.grow_exploitability_tree`)
  with every threshold a round number (``grids``: each candidate quantile is replaced by the nearest round value,
  :mod:`rulelearn.rules.plain`), so the printed thresholds are the fitted ones;
* each leaf plays the strategy of least mean exploitability over its training games (the family's
  ``optimal_group_strategy``, an LP for the bet game), rounded to *plain mixes* (``k in d`` with a small ``d``,
  :func:`rulelearn.rules.plain.plain_fractions`) and improved by a local search over plain mixes
  (:func:`improve_plain`), and the card's cost is measured with those strategies -- the card plays exactly what
  it prints;
* its cost is player 1's exploitability on held-out games (the family's ``player1_exploitability``: closed form
  for the bet game).

:func:`card_frontier` measures, on several train/test splits, the held-out mean exploitability of the round-
threshold trees with 1 .. ``max_leaves`` leaves (exact and plain leaves) against the *total number of conditions*
on the card, and the same for the rule sets of :mod:`rulelearn.experiments.frontier` (CART and the
exploitability tree with raw thresholds, k-medoids) and the papers' medoid tree (Ganzfried & Yusuf 2017, AAAI-W
Section 4.4, :class:`rulelearn.learners.ClusterThenTree`). :func:`group_card` builds the printed card of one
split. Game-agnostic: the family supplies the groups' optimum and, for the card, ``card_quantities()`` (the
phrases of its game features).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rulelearn.data.executors import make_executor
from rulelearn.data.splits import SolvedGames, split_games
from rulelearn.experiments.frontier import _exploitability_sum
from rulelearn.features.representations import Representation
from rulelearn.rules.cards import CardCondition, CardCost, CardRule, CardSection, RuleCard
from rulelearn.rules.conditions import extract_rules
from rulelearn.rules.formatting import group_hands
from rulelearn.rules.growth import GrownTree, grow_exploitability_tree
from rulelearn.rules.leaves import LeafFitter
from rulelearn.rules.plain import describe_plain_mix, plain_fractions, share_grid
from rulelearn.validation import check_int

__all__ = ["GroupCardConfig", "card_frontier", "group_card", "plain_strategy", "tree_conditions"]


@dataclass(frozen=True)
class GroupCardConfig:
    """Settings of :func:`card_frontier`.

    Attributes
    ----------
    max_leaves : int
        Frontier from 1 to this many leaves.
    seeds : tuple of int
        One train/test split per seed.
    test_fraction : float
    max_fit_games, n_thresholds, n_fit, n_score, n_screen, min_leaf : int
        Of :class:`~rulelearn.rules.leaves.LeafFitter` and
        :func:`~rulelearn.rules.growth.grow_exploitability_tree` (``n_thresholds`` quantiles per feature, each
        snapped to the nearest round value).
    improve_plain : bool
        Improve each leaf's rounded mixes by :func:`improve_plain` on its training games.
    plain_games : int
        Training games of a leaf that search sees at most.
    max_conditions : int or None
        Most conditions of one rule (bounds, one per feature and side).
    tolerance : float
        Largest change of an action probability by the plain rounding, where a denominator of at most 10 allows.
    papers : bool
        Also measure the papers' rule sets and the raw-threshold trees (:mod:`rulelearn.experiments.frontier`).
    n_games : int or None
        Use only the first ``n_games`` games.
    """

    max_leaves: int = 8
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    test_fraction: float = 0.2
    max_fit_games: int = 300
    n_thresholds: int = 9
    n_fit: int = 200
    n_score: int = 400
    n_screen: int = 4
    min_leaf: int = 30
    tolerance: float = 0.05
    improve_plain: bool = True
    plain_games: int = 1000
    max_conditions: int | None = 3
    papers: bool = True
    n_games: int | None = None


def plain_strategy(strategy, tolerance: float = 0.05) -> np.ndarray:
    """Every row (a hand's mix over actions) of ``strategy`` rounded to a plain mix ``k in d``
    (:func:`rulelearn.rules.plain.plain_fractions`); rows summing to 0 stay 0.

    Parameters
    ----------
    strategy : array_like of float, shape ``(..., B)``
        Mixes over ``B`` actions along the last axis, e.g. a group's strategy ``(d, B)`` (one row per hand);
        each row non-negative (renormalised before rounding).
    tolerance : float, default 0.05
        Largest change of an action probability allowed by the rounding: the smallest denominator among
        :data:`rulelearn.rules.plain.PLAIN_DENOMINATORS` that keeps every entry within it is used (the one
        with the least largest error if none does).

    Returns
    -------
    numpy.ndarray of float64, shape of ``strategy``
        Each row ``counts / d``, summing to 1; a row whose sum is not positive (or is NaN) is all zeros.

    Raises
    ------
    ValueError
        If a row with a positive sum has a negative or non-finite entry.
    IndexError
        If ``strategy`` is a scalar.
    """
    s = np.asarray(strategy, dtype=np.float64)
    flat = s.reshape(-1, s.shape[-1])
    out = np.zeros_like(flat)
    for i, row in enumerate(flat):
        if row.sum() > 0:
            counts, d = plain_fractions(row, tolerance)
            out[i] = counts / d
    return out.reshape(s.shape)


def improve_plain(plain, exact, score, max_passes: int = 8) -> np.ndarray:
    """Greedy local search over plain mixes: move one unit ``1/d`` of a hand's mix between two actions while it
    lowers ``score`` (a group's mean exploitability on its training games).

    Each row keeps the denominator ``d`` of its plain mix (a pure row moves in tenths); the actions tried are those
    of the row's plain mix and of the exact optimum ``exact``. Exploitability is convex in the strategy, but the
    grid of plain mixes is not, so this finds a local optimum near the rounding.

    Parameters
    ----------
    plain : numpy.ndarray, shape ``(d, B)``
        Plain strategy (:func:`plain_strategy`).
    exact : numpy.ndarray, shape ``(d, B)``
        The optimum it rounds.
    score : callable ``strategy -> float``

    Returns
    -------
    numpy.ndarray
        A plain strategy whose score is at most ``score(plain)``.
    """
    s = np.array(plain, dtype=np.float64, copy=True)
    best = score(s)
    den = np.full(s.shape[0], 10)
    for h, row in enumerate(s):
        for d in (2, 3, 4, 5, 6, 8, 10):
            if np.allclose(row * d, np.round(row * d)):
                den[h] = d
                break
    for _ in range(int(max_passes)):
        improved = False
        for h in range(s.shape[0]):
            if s[h].sum() <= 0:
                continue
            unit = 1.0 / den[h]
            support = np.flatnonzero(s[h] > 1e-12)
            targets = np.union1d(support, np.flatnonzero(np.asarray(exact)[h] > 1e-6))
            move = None
            for a in support:
                for b in targets:
                    if b == a:
                        continue
                    t = s.copy()
                    t[h, a] = max(t[h, a] - unit, 0.0)
                    t[h, b] += unit
                    t[h] /= t[h].sum()
                    v = score(t)
                    if v < best - 1e-12 and (move is None or v < move[0]):
                        move = (v, t[h].copy())
            if move is not None:
                best, s[h] = move[0], move[1]
                improved = True
        if not improved:
            break
    return s


def tree_conditions(tree: GrownTree, leaves) -> int:
    """Total conditions (bounds, one per feature and side) over the rules of the given leaves.

    A leaf's rule is the merged bounds on its path (:meth:`GrownTree.conditions`): a feature bounded from
    below and above counts 2, however often the path splits on it.

    Parameters
    ----------
    tree : GrownTree
    leaves : iterable of int
        Node ids of ``tree``, e.g. ``tree.leaves(k)``. An id that is not a node of the tree has an empty path
        and counts 0 (it is not rejected).

    Returns
    -------
    int
        The number of conditions on a card of these leaves' rules.

    Raises
    ------
    TypeError, ValueError
        If an entry of ``leaves`` cannot be converted by ``int``.
    """
    return int(sum((c.lower is not None) + (c.upper is not None) for n in leaves for c in tree.conditions(int(n))))


def _grids(names, quantities) -> list:
    kinds = {q.name: q.kind for q in quantities} if quantities else {}
    return [share_grid() if kinds.get(n, "share") == "share" else None for n in names]


def _card_task(games: SolvedGames, X: np.ndarray, names, config: GroupCardConfig, seed: int, grids):
    """Frontier rows of the round-threshold card of one split, and its fitted tree."""
    t0 = time.perf_counter()
    split = split_games(X.shape[0], config.test_fraction, seed)
    train, test = split.train, split.test
    fitter = LeafFitter(games, config.max_fit_games, seed)
    parts = {"train": games.subset(train), "test": games.subset(test)}

    def score(rows, strat):
        return parts["train"].subset(rows).player1_exploitability(np.broadcast_to(strat, (rows.size, *strat.shape)))

    tree = grow_exploitability_tree(
        X[train], lambda r: fitter("optimal", train[r]), lambda r: fitter("mean", train[r]), score,
        config.max_leaves, names, config.n_thresholds, config.n_fit, config.n_score, config.n_screen,
        config.min_leaf, random_state=seed, grids=grids, max_conditions=config.max_conditions)
    masks = {"train": tree.node_masks(X[train]), "test": tree.node_masks(X[test])}
    sums, rows = {}, []
    for k in range(1, tree.max_leaves + 1):
        leaves = [int(n) for n in tree.leaves(k)]
        for node in leaves:
            if node not in sums:
                exact = fitter("optimal", train[masks["train"][node]])
                plain = _plain_leaf(exact, parts["train"], masks["train"][node], config, seed)
                sums[node] = {(part, kind): _exploitability_sum(parts[part], masks[part][node], s)
                              for part in ("train", "test") for kind, s in (("exact", exact), ("plain", plain))}
        for kind in ("exact", "plain"):
            rows.append({"seed": seed, "method": "round exploitability tree", "leaf_kind": f"optimal, {kind}",
                         "n_leaves": k, "n_conditions": tree_conditions(tree, leaves),
                         "test_exploitability": sum(sums[n][("test", kind)] for n in leaves) / test.size,
                         "train_exploitability": sum(sums[n][("train", kind)] for n in leaves) / train.size})
    seconds = time.perf_counter() - t0
    for r in rows:
        r["seconds"] = seconds
    return rows, (tree, train)


def _plain_leaf(exact: np.ndarray, train: SolvedGames, mask: np.ndarray, config: GroupCardConfig,
                seed: int) -> np.ndarray:
    """The plain strategy of a leaf: the optimum rounded, then improved on (at most ``config.plain_games`` of) the
    leaf's training games."""
    plain = plain_strategy(exact, config.tolerance)
    if not config.improve_plain:
        return plain
    rows = np.flatnonzero(mask)
    if rows.size > config.plain_games:
        rows = np.sort(np.random.default_rng([seed, rows.size, int(rows[0])]).choice(rows, config.plain_games,
                                                                                    replace=False))
    group = train.subset(rows)

    def score(s):
        return float(group.player1_exploitability(np.broadcast_to(s, (rows.size, *s.shape))).mean())

    return improve_plain(plain, exact, score)


def _papers_task(games: SolvedGames, X: np.ndarray, config: GroupCardConfig, seed: int, k: int = 5):
    """The papers' medoid tree (k medoids, a tree on the medoids; Section 4.4) on one split."""
    from rulelearn.learners import ClusterThenTree

    split = split_games(X.shape[0], config.test_fraction, seed)
    train, test = split.train, split.test
    model = ClusterThenTree(n_clusters=k, tree_on="medoids", random_state=seed)
    fit_rows = train[:3000]  # the medoids are fitted on at most 3,000 games (8 m^2 bytes of distances)
    model.fit(X[fit_rows], games.strategies[fit_rows])
    tree = model.tree_
    rules = extract_rules(tree, model.leaf_strategies(), [f"x{j}" for j in range(X.shape[1])])
    n_cond = sum((c.lower is not None) + (c.upper is not None) for r in rules for c in r.conditions)
    pred = model.predict(X[test])
    return [{"seed": seed, "method": "medoid tree (papers)", "leaf_kind": "medoid", "n_leaves": len(rules),
             "n_conditions": int(n_cond),
             "test_exploitability": float(games.subset(test).player1_exploitability(pred).mean()),
             "train_exploitability": np.nan, "seconds": 0.0}]


_WORKER: dict = {}


def _init_worker(games, X, names, config, grids) -> None:
    _WORKER.update(games=games, X=X, names=names, config=config, grids=grids)


def _worker_task(seed: int, what: str):
    w = _WORKER
    if what == "card":
        return seed, what, _card_task(w["games"], w["X"], w["names"], w["config"], seed, w["grids"])
    if what == "papers":
        return seed, what, (_papers_task(w["games"], w["X"], w["config"], seed), None)
    from rulelearn.experiments.frontier import RuleSetConfig, _frontier_task

    c = w["config"]
    rc = RuleSetConfig(max_leaves=c.max_leaves, seeds=c.seeds, test_fraction=c.test_fraction,
                       max_fit_games=c.max_fit_games, min_leaf=c.min_leaf)
    rows, fitted, _ = _frontier_task(w["games"], w["X"], w["names"], rc, seed, what)
    if what != "k-medoids":
        tree, _ = fitted[(seed, what)]
        for r in rows:
            r["n_conditions"] = tree_conditions(tree, tree.leaves(r["n_leaves"]))
    else:
        for r in rows:
            r["n_conditions"] = 0
    return seed, what, (rows, None)


def card_frontier(games: SolvedGames, config: GroupCardConfig = GroupCardConfig(), progress=None,
                  n_jobs: int = 1) -> tuple[pd.DataFrame, dict]:
    """Held-out exploitability against the number of conditions, for round-threshold cards and the other rule sets.

    Parameters
    ----------
    games : SolvedGames
        Its family must provide ``optimal_group_strategy`` (and ``card_quantities`` for round grids by kind).
    config : GroupCardConfig
    progress : callable, optional
        Called with a message after each task.
    n_jobs : int, default 1
        Worker processes (results do not depend on it).

    Returns
    -------
    frontier : pandas.DataFrame
        One row per (seed, method, leaf kind, leaves): ``n_conditions``, ``test_exploitability`` (mean over the
        test games, player 1, chips), ``train_exploitability``, ``seconds``. Methods: ``"round exploitability
        tree"`` (leaf kinds ``"optimal, exact"`` and ``"optimal, plain"``), and with ``config.papers``
        ``"exploitability tree"``, ``"CART tree"`` (raw thresholds; medoid, mean, optimal leaves),
        ``"k-medoids"`` (0 conditions: a nearest-medoid rule set) and ``"medoid tree (papers)"``.
    fitted : dict
        ``seed -> (GrownTree, train rows)`` of the round-threshold trees.
    """
    n_jobs = check_int("n_jobs", n_jobs, 1)
    say = progress or (lambda msg: None)
    if config.n_games is not None:
        games = games.subset(np.arange(min(config.n_games, len(games))))
    data = games.represent(Representation("cdf", None))
    X, names = data.X, data.feature_names
    quantities = getattr(games.family, "card_quantities", lambda: ())()
    grids = _grids(names, quantities)
    what = ["card"] + (["exploitability tree", "CART tree", "k-medoids", "papers"] if config.papers else [])
    tasks = [(seed, w) for w in what for seed in config.seeds]
    rows, fitted = [], {}
    with make_executor(n_jobs, n_tasks=len(tasks), initializer=_init_worker,
                       initargs=(games, X, names, config, grids)) as ex:
        for seed, w, (part, fit) in ex.imap_unordered(_worker_task, tasks):
            rows += part
            if fit is not None:
                fitted[seed] = fit
            say(f"seed {seed}: {w}")
    frame = pd.DataFrame(rows).sort_values(["method", "leaf_kind", "seed", "n_leaves"], kind="stable")
    return frame.reset_index(drop=True), fitted


def group_card(games: SolvedGames, tree: GrownTree, n_leaves: int, train, config: GroupCardConfig,
               seed: int, test=None, title: str = "Bet game: player 1's rule card") -> RuleCard:
    """The printed card of a round-threshold tree with ``n_leaves`` leaves: LP-optimal leaves in plain mixes.

    Parameters
    ----------
    games : SolvedGames
        All games; ``train`` (and ``test``) are positions into them.
    tree : GrownTree
    n_leaves : int
    train : array_like of int
    config : GroupCardConfig
    seed : int
        The split's seed (the leaf fitter's subsample stream).
    test : array_like of int, optional
        Held-out games: the card's cost is player 1's exploitability of the card's plain strategies on them.
    title : str

    Returns
    -------
    RuleCard
        One section; each rule's ``strategy`` is the ``(d, B)`` plain strategy it plays.
    """
    family = games.family
    data = games.represent(Representation("cdf", None))
    X, names = data.X, data.feature_names
    train = np.asarray(train, dtype=np.intp)
    fitter = LeafFitter(games, config.max_fit_games, seed)
    masks = tree.node_masks(X[train])
    labels = list(family.action_labels)
    hands = games.hand_labels
    rules = []
    train_games = games.subset(train)
    for node in tree.leaves(n_leaves):
        strat = _plain_leaf(fitter("optimal", train[masks[node]]), train_games, masks[node], config, seed)
        conds = []
        for c in tree.conditions(int(node)):
            if c.lower is not None:
                conds.append(CardCondition(c.name, ">", float(c.lower)))
            if c.upper is not None:
                conds.append(CardCondition(c.name, "<=", float(c.upper)))
        rules.append(CardRule(tuple(conds), _describe_hands(strat, labels, hands, games.hand_noun),
                              tuple(map(tuple, strat.tolist())), float(masks[node].mean())))
    cost = None
    section = CardSection("Player 1 (bets first), by the two ranges", tuple(rules))
    card = RuleCard(title, (section,), tuple(family.card_quantities()), None,
                    ("Find the one rule whose conditions hold for this deal's ranges; play its strategy for your "
                     "card (k in d: k times out of d).",), {"feature_names": list(names), "seed": int(seed),
                                                           "n_leaves": int(n_leaves)})
    if test is not None:
        test = np.asarray(test, dtype=np.intp)
        e = card_exploitability(card, games.subset(test))
        cost = CardCost(float(e.mean()), float(e.std(ddof=1)) if e.size > 1 else 0.0, "chips", int(e.size),
                        None, f"Player 1's exploitability (closed form), mean over {e.size:,} held-out games; "
                              "the pot is 1 chip.")
        card = RuleCard(card.title, card.sections, card.quantities, cost, card.notes, card.meta)
    return card


def card_exploitability(card: RuleCard, games: SolvedGames) -> np.ndarray:
    """Player 1's exploitability (chips) in each of ``games`` of the strategies the card prints."""
    data = games.represent(Representation("cdf", None))
    idx = card.rule_index(data.X, data.feature_names)
    if np.any(idx < 0):
        raise ValueError("the card has no rule for some games")
    strategies = np.array([np.asarray(r.strategy) for r in card.rules()])
    return games.player1_exploitability(strategies[idx])


def _describe_hands(strategy: np.ndarray, labels, hands, noun: str) -> str:
    """``"cards 1-2: bet 0.8; card 3: check 1 in 2, bet 0.8 1 in 2; ..."`` with equal neighbours grouped."""
    words = []
    for row in strategy:
        if row.sum() <= 0:
            words.append("check")
            continue
        counts, d = plain_fractions(row, 1e-9, denominators=(1, 2, 3, 4, 5, 6, 8, 10))
        words.append(describe_plain_mix(labels, counts, d))
    return group_hands(words, hands, noun)

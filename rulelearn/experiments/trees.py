"""Decision trees on a solution database: the papers' depth sweeps, Table 1, and the action-size tree.

The reproduction of Ganzfried & Yusuf (2017; ``scripts/reproduce.py``, :mod:`rulelearn.experiments.reproduction`):

* :func:`tree_sweep`, trees of depth 3-20 for every representation (*Games* 8(4), Section 4, Figures 4 and 6),
  from one deep tree per representation truncated at each depth (:func:`predict_by_depth`);
* :func:`tree_table`, the AAAI-W Table 1 (test EMD and the R^2 "score" at one depth);
* :func:`action_value_tree`, the depth-4 tree on one sampled action's size (*Games*, Figure 5: a bet size).

Scores are the mean output EMD and player 1's exploitability (chips) on held-out games
(:func:`rulelearn.experiments.scoring.held_out_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeRegressor

from rulelearn.data.splits import SolvedGames, Split
from rulelearn.experiments.scoring import held_out_scores, r2
from rulelearn.features.distance import output_emd
from rulelearn.features.representations import REPRESENTATIONS, Representation
from rulelearn.learners import StrategyTree
from rulelearn.learners.model import StrategyModel
from rulelearn.rules.conditions import extract_rules
from rulelearn.validation import check_int

__all__ = ["ActionValueTree", "DepthSlice", "action_value_tree", "check_depths",
           "most_probable_action", "numbered_representations", "predict_by_depth", "tree_sweep", "tree_table"]



def check_depths(depths) -> list[int]:
    """Sorted distinct depth limits from a non-empty iterable of non-negative integers.

    Parameters
    ----------
    depths : iterable of int
        Depth limits (the root is depth 0, as ``max_depth`` in scikit-learn); integral floats such as ``3.0``
        are accepted, repeats dropped.

    Returns
    -------
    list of int
        The distinct depths in increasing order.

    Raises
    ------
    ValueError
        If ``depths`` is empty or holds a negative or non-integer value (a bool included).
    TypeError
        If ``depths`` is not iterable.
    """
    ds = list(depths)
    if not ds:
        raise ValueError("depths must be a non-empty sequence of non-negative integers")
    return sorted({check_int("depths", d, 0) for d in ds})


def numbered_representations() -> dict[int, Representation]:
    """The ten representations of *Games* 8(4), Section 4, by the paper's numbers (a copy of
    :data:`rulelearn.features.representations.REPRESENTATIONS`).

    1 cdf (whole game, 310 outputs), 2 pdf, 3 cdf + card, 4 pdf + card, 5 cdf + card cdf, 6 pdf + card cdf,
    and 7-10: 3-6 with one bet size sampled from the strategy as the output.

    Returns
    -------
    dict of int to Representation
    """
    return dict(sorted(REPRESENTATIONS.items()))



def _node_depths(tree) -> np.ndarray:
    """Depth of every node of a fitted scikit-learn ``Tree`` (root 0), shape ``(n_nodes,)`` int64."""
    left, right = tree.children_left, tree.children_right
    depth = np.zeros(tree.node_count, dtype=np.int64)
    frontier, level = np.array([0]), 0
    while frontier.size:
        depth[frontier] = level
        kids = np.concatenate([left[frontier], right[frontier]])
        frontier, level = kids[kids >= 0], level + 1
    return depth



@dataclass(frozen=True)
class DepthSlice:
    """A fitted tree cut at one depth.

    Attributes
    ----------
    depth : int
        The depth limit (the root is depth 0, as ``max_depth`` in scikit-learn).
    nodes : int
        Nodes of the cut tree (the paper's "#nodes", Figure 4b).
    leaves : int
        Leaves of the cut tree: the number of if-then rules.
    rows : numpy.ndarray of float64, shape ``(m, ...)``
        Predicted strategy of every input row: the tree's ``predict`` shape.
    """

    depth: int
    nodes: int
    leaves: int
    rows: np.ndarray



def predict_by_depth(tree: StrategyTree, X, depths) -> list[DepthSlice]:
    """Predictions of a fitted tree cut at each depth, from one pass down the deepest tree.

    Cutting a tree grown to depth ``D`` at depth ``d <= D`` (each node at depth ``d`` becomes a leaf
    predicting its training mean) gives the tree that :class:`~sklearn.tree.DecisionTreeRegressor` grows with
    ``max_depth=d``: CART is greedy, so a node's split does not depend on the depth limit below it. The one
    exception is the choice between *equally good* splits, which scikit-learn breaks by a random feature order
    whose draws depend on how many nodes were split before; this changes a few deep, small nodes, not the
    statistics of the tree (``tests/rulelearn/experiments/test_trees.py`` checks equality with refits at shallow depths, and
    that every cut node predicts the mean of its training rows). It makes the paper's 18 depths cost one tree.

    Parameters
    ----------
    tree : StrategyTree
        Fitted.
    X : array_like of float, shape ``(m, n_features)``
    depths : iterable of int
        Depth limits; those at or beyond the tree's own depth give its full predictions.

    Returns
    -------
    list of DepthSlice
        In increasing depth.

    Raises
    ------
    ValueError
        If ``depths`` is empty or holds a negative or non-integer value.
    """
    ds = check_depths(depths)
    t = tree.tree_.tree_
    node_depth = _node_depths(t)
    is_leaf = t.children_left < 0
    node_strategies = tree.leaf_strategies()
    path = tree.tree_.decision_path(np.asarray(X, dtype=np.float64))
    ptr, nodes_on_path = path.indptr, path.indices
    length = np.diff(ptr)  # nodes on each row's path = its leaf's depth + 1
    out = []
    for d in ds:
        pos = ptr[:-1] + np.minimum(d, length - 1)
        node = nodes_on_path[pos]
        # node ids grow along a path (children are numbered after their parent), so position k is depth k
        if not np.array_equal(node_depth[node], np.minimum(d, length - 1)):  # pragma: no cover - invariant
            raise RuntimeError("decision_path did not list nodes by depth")
        n_nodes = int(np.count_nonzero(node_depth <= d))
        n_leaves = int(np.count_nonzero((node_depth == d) | (is_leaf & (node_depth < d))))
        out.append(DepthSlice(d, n_nodes, n_leaves, node_strategies[node]))
    return out



def _one_sweep(games, split, number, rep, depths, max_depth, seed, with_r2):
    ranges, strategies = games.ranges, games.strategies
    test = games.subset(split.test)
    truth = strategies[split.test]
    model = StrategyModel.for_games(games, StrategyTree(max_depth, random_state=seed), rep)
    model.fit(ranges[split.train], strategies[split.train])
    X = rep.transform(ranges[split.test]).X
    sampled = rep.output == "sampled"
    rows = []
    for sl in predict_by_depth(model.learner_, X, depths):
        mixed = rep.assemble(sl.rows, len(split.test))
        pred = most_probable_action(mixed) if sampled else mixed
        row = {"number": number, "representation": rep.name, "depth": sl.depth, "nodes": sl.nodes,
               "leaves": sl.leaves, **held_out_scores(test, pred, truth)}
        if sampled:
            s_mixed = held_out_scores(test, mixed, truth)
            row["emd_mixed"], row["exploitability_mixed"] = s_mixed["emd"], s_mixed["exploitability"]
        if with_r2:
            row["r2"] = r2(pred, truth, rep.per_hand is not None)
        rows.append(row)
    return rows



def most_probable_action(strategies) -> np.ndarray:
    """The pure strategy on each hand's most probable action (the lowest-indexed one on a tie).

    How the paper scores representations 7-10, whose trees output one sampled action per leaf: "considering only
    the most probable bet size" (*Games* 8(4), Section 4, on Figure 6a).

    Parameters
    ----------
    strategies : array_like of float, shape ``(..., B)``

    Returns
    -------
    numpy.ndarray of float64, shape ``(..., B)``
        One-hot rows.
    """
    s = np.asarray(strategies, dtype=np.float64)
    out = np.zeros_like(s)
    np.put_along_axis(out, s.argmax(axis=-1)[..., None], 1.0, axis=-1)
    return out


def tree_sweep(games: SolvedGames, split: Split, representations=None, depths=range(3, 21),
               seed: int = 0, n_jobs: int = 1, r2: bool = True) -> pd.DataFrame:
    """Test error and exploitability of trees by depth, per representation (*Games*, Figures 4 and 6).

    The paper trains on 64,000 games and tests on 16,000 (80% / 20% of 80,000), depths 3 to 20. For each
    representation one :class:`~rulelearn.learners.StrategyTree` of the largest depth is grown and cut at
    every depth (:func:`predict_by_depth`).

    Parameters
    ----------
    games : SolvedGames
        Loaded solution database.
    split : Split
    representations : dict of int to Representation, optional
        Default :func:`numbered_representations`.
    depths : iterable of int, default 3..20
    seed : int, default 0
        The trees' ``random_state`` (tie-breaking between equal splits).
    n_jobs : int, default 1
        Representations fitted in parallel threads (scikit-learn grows trees without the GIL).
    r2 : bool, default True
        Also report scikit-learn's R^2 score of the raw action probabilities (column ``r2``).

    Returns
    -------
    pandas.DataFrame
        One row per (representation, depth): ``number``, ``representation``, ``depth``, ``nodes``, ``leaves``,
        ``emd`` (mean output EMD), ``exploitability``, ``exploitability_median``, ``exploitability_max``
        (chips), and ``r2`` if asked. For representations with sampled outputs (7-10) these score the paper's
        policy, the leaf's most frequent sampled action as a pure strategy (:func:`most_probable_action`); ``emd_mixed``
        and ``exploitability_mixed`` score the leaf's frequencies of sampled bets as a mixed strategy (NaN for
        the other representations).

    Raises
    ------
    ValueError
        On bad ``depths``.
    """
    from joblib import Parallel, delayed

    reps = numbered_representations() if representations is None else dict(representations)
    ds = check_depths(depths)
    jobs = (delayed(_one_sweep)(games, split, n, rep, ds, max(ds), seed, r2)
            for n, rep in reps.items())
    parts = Parallel(n_jobs=n_jobs, prefer="threads")(jobs)
    return pd.DataFrame([row for part in parts for row in part])



def _one_table_row(games, split, number, rep, depth, seed) -> dict:
    ranges, strategies = games.ranges, games.strategies
    test = games.subset(split.test)
    truth, train_truth = strategies[split.test], strategies[split.train]
    per_hand = rep.per_hand is not None
    ours = StrategyModel.for_games(games, StrategyTree(depth, random_state=seed), rep)
    ours.fit(ranges[split.train], train_truth)
    pred = ours.predict(ranges[split.test])
    train_pred = ours.predict(ranges[split.train])
    # the paper's tree: scikit-learn's default criterion (squared error) on the raw probabilities
    tr, te = rep.transform(ranges[split.train], train_truth), rep.transform(ranges[split.test])
    paper = DecisionTreeRegressor(max_depth=depth, random_state=seed)
    paper.fit(tr.X, tr.Y.reshape(tr.Y.shape[0], -1))
    raw = np.clip(paper.predict(te.X), 0.0, None).reshape((-1,) + truth.shape[1 + per_hand:])
    raw = rep.assemble(raw / raw.sum(-1, keepdims=True), len(split.test))
    s_ours = held_out_scores(test, pred, truth)
    s_paper = held_out_scores(test, raw, truth)
    return {
        "number": number, "representation": rep.name, "leaves": ours.model_size[0],
        "emd": s_ours["emd"], "r2": r2(pred, truth, per_hand), "exploitability": s_ours["exploitability"],
        "r2_pooled": r2(pred, truth, per_hand, "variance_weighted"),
        "emd_paper_tree": s_paper["emd"], "r2_paper_tree": r2(raw, truth, per_hand),
        "exploitability_paper_tree": s_paper["exploitability"],
        "r2_train_paper_tree": float(paper.score(tr.X, tr.Y.reshape(tr.Y.shape[0], -1))),
        "train_emd": float(np.mean(output_emd(train_pred, train_truth))),
        "emd_of_means": float(output_emd(pred.mean(0), truth.mean(0))),
    }



def tree_table(games: SolvedGames, split: Split, depth: int = 12, representations=None,
               seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """The AAAI-W Table 1: test EMD and R^2 score of depth-``depth`` trees per representation, two criteria.

    The paper fits :class:`~sklearn.tree.DecisionTreeRegressor` with its default criterion (squared error) on
    the raw action probabilities ("paper tree"); :class:`~rulelearn.learners.StrategyTree` fits the cumulative
    probabilities, whose L1 distance is the EMD ("our tree"). Both predict leaf means, which are valid
    strategies. Also reported: the training EMD, and the EMD between the *average* predicted and the average
    true strategy (two readings under which an "EMD error" can be far below the per-game test EMD).

    Parameters
    ----------
    games, split
        As in :func:`tree_sweep` (the paper uses 20,000 games, 80/20).
    depth : int, default 12
    representations : dict of int to Representation, optional
        Default: the six of :func:`numbered_representations` that predict whole strategies (1-6).
    seed : int, default 0
    n_jobs : int, default 1
        Representations fitted in parallel threads.

    Returns
    -------
    pandas.DataFrame
        One row per representation: ``number``, ``representation``, ``leaves``, ``emd``, ``r2`` (uniform
        average over outputs, scikit-learn's ``score``), ``r2_pooled`` (variance-weighted), ``exploitability``
        (ours, chips), ``emd_paper_tree``, ``r2_paper_tree``, ``exploitability_paper_tree``,
        ``r2_train_paper_tree`` (the paper tree's ``score`` on its training rows), ``train_emd``,
        ``emd_of_means``.

    Raises
    ------
    ValueError
        If ``depth`` is not a positive integer.
    """
    from joblib import Parallel, delayed

    depth = check_int("depth", depth, 1)
    reps = representations
    if reps is None:
        reps = {n: r for n, r in numbered_representations().items() if n <= 6}
    jobs = (delayed(_one_table_row)(games, split, n, rep, depth, seed)
            for n, rep in reps.items())
    return pd.DataFrame(Parallel(n_jobs=n_jobs, prefer="threads")(jobs))



@dataclass(frozen=True)
class ActionValueTree:
    """A regression tree on the size of one sampled action per (game, hand): the paper's Figure 5 tree (a bet size
    per card) on the bet game.

    Attributes
    ----------
    rules : list of rulelearn.rules.conditions.Rule
        One per leaf; ``strategy`` holds the leaf's predicted action size (a 0-d array; the family's
        ``action_values`` unit, chips for the bet game).
    representation : str
    n_rows : int
        Training rows (games times hands).
    emd, exploitability : float
        Test scores of the policy that plays, with every hand, the action whose size is nearest to its leaf's.
    root_feature : str
    root_threshold : float
        The first split: rows with ``root_feature <= root_threshold`` go left.
    """

    rules: list
    representation: str
    n_rows: int
    emd: float
    exploitability: float
    root_feature: str
    root_threshold: float


def action_value_tree(games: SolvedGames, split: Split, number: int = 9, depth: int = 4,
                      seed: int = 0) -> ActionValueTree:
    """Fit a regression tree on the sampled action's size (the paper's single-bet-size tree, *Games* 8(4),
    Section 4, Figure 5).

    :class:`~sklearn.tree.DecisionTreeRegressor` (squared error) from the features of a sampled-output
    representation (default 9: cdfs plus the hand's cdf) to the size (``family.action_values``) of the action
    sampled from the strategy, as the paper's Figure 5 ("the output (i.e., bet size) predicted").

    Parameters
    ----------
    games, split
    number : int, default 9
        A representation of :func:`numbered_representations` with sampled outputs.
    depth : int, default 4
    seed : int, default 0

    Returns
    -------
    ActionValueTree

    Raises
    ------
    ValueError
        If the representation does not sample its outputs.
    """
    rep = numbered_representations().get(number)
    if rep is None or rep.output != "sampled":
        raise ValueError(f"number must name a sampled-output representation (7-10), got {number!r}")
    train = games.subset(split.train)
    data = train.represent(rep, with_strategies=True)
    sizes = np.asarray(games.family.action_values, dtype=np.float64)
    tree = DecisionTreeRegressor(max_depth=int(depth), random_state=seed)
    tree.fit(data.X, sizes[data.sampled_action])
    values = tree.tree_.value[:, 0, 0]
    rules = extract_rules(tree, values, data.feature_names, data.integer_features)
    test = rep.transform(games.ranges[split.test])
    nearest = np.abs(tree.predict(test.X)[:, None] - sizes[None, :]).argmin(axis=1)
    pred = rep.assemble(np.eye(len(sizes))[nearest], len(split.test))
    s = held_out_scores(games.subset(split.test), pred, games.strategies[split.test])
    return ActionValueTree(rules, rep.name, int(data.X.shape[0]), s["emd"], s["exploitability"],
                       data.feature_names[int(tree.tree_.feature[0])], float(tree.tree_.threshold[0]))


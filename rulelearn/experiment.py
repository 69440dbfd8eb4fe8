"""The papers' learning experiments: train learners on a solution database, score them on held-out games.

Game-agnostic: everything game-specific comes from the :class:`~rulelearn.family.GameFamily`. Two groups of
functions:

* the main job (``rulelearn demo``): :func:`default_learners`, :func:`evaluate`, :func:`depth_curve`,
  :func:`format_scores`;
* the reproduction of Ganzfried & Yusuf (2017), driven by ``scripts/reproduce.py``:

  - :func:`tree_sweep`, trees of depth 3-20 for every representation (*Games* 8(4), Section 4, Figures 4
    and 6),
    from one deep tree per representation truncated at each depth (:func:`predict_by_depth`);
  - :func:`tree_table`, the AAAI-W Table 1 (test EMD and the R^2 "score" at one depth);
  - :func:`knn_fraction_curve` and :func:`knn_learning_curve`, 1-NN error against the training fraction
    (AAAI-W Section 4.1, Figures 8-11);
  - :func:`kmedoids_errors` and :func:`kmedoids_paper_scale`, k-medoids with 5, 10, 15 clusters (AAAI-W
    Section 4.3, Figures 14-15);
  - :func:`medoid_tree`, the decision tree on the cluster medoids (AAAI-W Section 4.4, Figure 16);
  - :func:`bet_size_tree`, the depth-4 tree on one sampled bet size (*Games*, Figure 5).

Every score is the mean output EMD (Algorithm 2, in ``[0, 1]``) and player 1's exploitability (chips; the pot
is 1 chip) on held-out games. Tables are :class:`pandas.DataFrame`, one row per (learner, setting).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.metrics import r2_score
from sklearn.tree import DecisionTreeRegressor

from rulelearn.distance import output_emd
from rulelearn.family import GameFamily
from rulelearn.learners import ClusterThenTree, EMDKMedoids, EMDNearestNeighbors, StrategyTree
from rulelearn.learners._l1 import L1NeighborIndex
from rulelearn.pipeline import StrategyModel
from rulelearn.representations import PAPER_REPRESENTATIONS, REPRESENTATIONS, Representation
from rulelearn.scoring import PolicyScore, score_policy

__all__ = [
    "ALL_REPRESENTATIONS",
    "EMD_METRICS",
    "BetSizeTree",
    "DepthSlice",
    "LearnerSpec",
    "MedoidTreeResult",
    "Split",
    "bet_size_tree",
    "default_learners",
    "depth_curve",
    "evaluate",
    "format_scores",
    "kmedoids_errors",
    "kmedoids_paper_scale",
    "knn_fraction_curve",
    "knn_learning_curve",
    "medoid_tree",
    "numbered_representations",
    "predict_by_depth",
    "single_bet",
    "split_games",
    "tree_sweep",
    "tree_table",
]

#: The paper's six representations and the "share of the opponent's range beaten" extension.
ALL_REPRESENTATIONS = PAPER_REPRESENTATIONS + (Representation("cdf", "beats"),)

#: Distances for the EMD learners (k-NN, k-medoids): ``"cdf"`` is Algorithm 1 on the cdf features (the input
#: EMD); ``"pdf"`` is Algorithm 1 applied to the pdf features as if they were cdfs, which reduces to the L1
#: distance between the pdfs (card order ignored). Under the true EMD the pdf and cdf features give identical
#: distances, so this is the only reading under which the papers' pdf and cdf k-NN curves can differ.
EMD_METRICS = ("cdf", "pdf")


@dataclass(frozen=True)
class LearnerSpec:
    """A named learner with its representation."""

    name: str
    learner: object
    representation: Representation


@dataclass(frozen=True)
class Split:
    """Train and test row indices into the loaded columns."""

    train: np.ndarray
    test: np.ndarray


def split_games(n_games: int, test_fraction: float = 0.2, seed: int = 0) -> Split:
    """A seeded random train/test split of ``n_games`` games (the paper uses 80/20).

    Raises
    ------
    ValueError
        If ``test_fraction`` is not in ``(0, 1)`` or either side would be empty.
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction!r}")
    perm = np.random.default_rng(seed).permutation(n_games)
    n_test = round(n_games * test_fraction)
    if n_test == 0 or n_test == n_games:
        raise ValueError(f"{n_games} games cannot be split with test_fraction={test_fraction}")
    return Split(np.sort(perm[n_test:]), np.sort(perm[:n_test]))


def default_learners(seed: int = 0) -> list[LearnerSpec]:
    """The learners of the papers, each with the representation it is reported with."""
    whole = Representation("cdf", None)
    specs = [
        LearnerSpec("one strategy (k-medoids k=1)", EMDKMedoids(1, random_state=seed), whole),
        LearnerSpec("1-NN, input EMD", EMDNearestNeighbors(1), whole),
    ]
    specs += [LearnerSpec(f"k-medoids k={k}, input EMD", EMDKMedoids(k, random_state=seed), whole)
              for k in (5, 10, 15)]
    specs += [
        LearnerSpec("cluster-then-tree k=5 (on medoids)", ClusterThenTree(5, random_state=seed), whole),
        LearnerSpec("cluster-then-tree k=5 (on members, depth 3)",
                    ClusterThenTree(5, max_depth=3, tree_on="members", random_state=seed), whole),
    ]
    specs += [LearnerSpec("tree depth 4", StrategyTree(4), rep) for rep in ALL_REPRESENTATIONS]
    specs += [LearnerSpec("tree depth 8", StrategyTree(8), whole)]
    return specs


def _subset(columns: dict, idx: np.ndarray) -> dict:
    return {k: v[idx] for k, v in columns.items()}


def _model(family: GameFamily, learner, representation: Representation) -> StrategyModel:
    return StrategyModel(learner, representation, hand_labels=list(family.hand_labels),
                         player_names=list(family.player_names))


def evaluate(family: GameFamily, columns: dict, specs: list[LearnerSpec], split: Split
             ) -> list[tuple[PolicyScore, StrategyModel]]:
    """Fit every learner on the training games and score it on the test games.

    Parameters
    ----------
    family : GameFamily
    columns : dict of numpy.ndarray
        Loaded solution database (see :meth:`rulelearn.database.SolutionDatabase.load`).
    specs : list of LearnerSpec
    split : Split

    Returns
    -------
    list of (PolicyScore, StrategyModel)
        In the order of ``specs``.
    """
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    test_cols = _subset(columns, split.test)
    out = []
    for spec in specs:
        model = _model(family, spec.learner, spec.representation)
        model.fit(ranges[split.train], strategies[split.train])
        pred = model.predict(ranges[split.test])
        expl = family.exploitability(test_cols, pred)
        score = score_policy(spec.name, spec.representation.name, model.model_size, pred,
                             strategies[split.test], expl)
        out.append((score, model))
    return out


def depth_curve(family: GameFamily, columns: dict, split: Split, depths=range(1, 13),
                representations=ALL_REPRESENTATIONS) -> pd.DataFrame:
    """Test error of trees by depth for each representation (the paper's Figures 4a and 6a).

    One tree of the largest depth is grown per representation and truncated at each depth
    (:func:`predict_by_depth`).

    Returns
    -------
    pandas.DataFrame
        Columns ``representation``, ``depth``, ``rules`` (leaves), ``emd``, ``exploitability`` (mean, chips).
    """
    reps = dict(enumerate(representations, start=1))
    sweep = tree_sweep(family, columns, split, reps, depths=depths, r2=False)
    keep = ["representation", "depth", "rules", "emd", "exploitability"]
    return sweep.rename(columns={"leaves": "rules"})[keep]


def format_scores(scores: list[PolicyScore]) -> str:
    """A fixed-width table: learner, representation, size, EMD, exploitability mean/median/max (chips)."""
    head = (f"{'learner':<44} {'repr.':<13} {'size':>14} {'EMD':>7}   "
            f"{'exploitability (chips)':>24}\n{'':<44} {'':<13} {'':>14} {'':>7}   "
            f"{'mean':>8}{'median':>8}{'max':>8}")
    lines = [head, "-" * len(head.splitlines()[0])]
    for s in scores:
        size = f"{s.size} {s.size_unit}"
        lines.append(f"{s.learner:<44} {s.representation:<13} {size:>14} {s.emd:7.4f}   "
                     f"{s.exploitability_mean:8.4f}{s.exploitability_median:8.4f}{s.exploitability_max:8.4f}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------------------
# Reproduction of the papers' experiments
# ----------------------------------------------------------------------------------------------------------

def numbered_representations() -> dict[int, Representation]:
    """The ten representations of *Games* 8(4), Section 4, by the paper's numbers (a copy of
    :data:`rulelearn.representations.REPRESENTATIONS`).

    1 cdf (whole game, 310 outputs), 2 pdf, 3 cdf + card, 4 pdf + card, 5 cdf + card cdf, 6 pdf + card cdf,
    and 7-10: 3-6 with one bet size sampled from the strategy as the output.

    Returns
    -------
    dict of int to Representation
    """
    return dict(sorted(REPRESENTATIONS.items()))


def _check_depths(depths) -> list[int]:
    ds = list(depths)
    if not ds or any(isinstance(d, bool) or not float(d).is_integer() or d < 0 for d in ds):
        raise ValueError(f"depths must be a non-empty sequence of non-negative integers, got {ds!r}")
    return sorted({int(d) for d in ds})


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
    statistics of the tree (``tests/test_experiment.py`` checks equality with refits at shallow depths, and
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
    ds = _check_depths(depths)
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


def _r2(pred: np.ndarray, truth: np.ndarray, per_hand: bool, multioutput: str = "uniform_average") -> float:
    """scikit-learn's regression ``score`` (R^2, by default the uniform average over outputs) of raw action
    probabilities; ``multioutput="variance_weighted"`` pools the outputs (1 - total SSE / total variance)."""
    b = truth.shape[-1]
    shape = (-1, b) if per_hand else (truth.shape[0], -1)
    return float(r2_score(truth.reshape(shape), pred.reshape(shape), multioutput=multioutput))


def _scores(family: GameFamily, test_cols: dict, pred: np.ndarray, truth: np.ndarray) -> dict:
    expl = np.asarray(family.exploitability(test_cols, pred), dtype=np.float64)
    return {"emd": float(np.mean(output_emd(pred, truth))), "exploitability": float(expl.mean()),
            "exploitability_median": float(np.median(expl)), "exploitability_max": float(expl.max())}


def _one_sweep(family, columns, split, number, rep, depths, max_depth, seed, r2):
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    test_cols = _subset(columns, split.test)
    truth = strategies[split.test]
    model = _model(family, StrategyTree(max_depth, random_state=seed), rep)
    model.fit(ranges[split.train], strategies[split.train])
    X = rep.transform(ranges[split.test]).X
    sampled = rep.output == "sampled"
    rows = []
    for sl in predict_by_depth(model.learner_, X, depths):
        mixed = rep.assemble(sl.rows, len(split.test))
        pred = single_bet(mixed) if sampled else mixed
        row = {"number": number, "representation": rep.name, "depth": sl.depth, "nodes": sl.nodes,
               "leaves": sl.leaves, **_scores(family, test_cols, pred, truth)}
        if sampled:
            s_mixed = _scores(family, test_cols, mixed, truth)
            row["emd_mixed"], row["exploitability_mixed"] = s_mixed["emd"], s_mixed["exploitability"]
        if r2:
            row["r2"] = _r2(pred, truth, rep.per_hand is not None)
        rows.append(row)
    return rows


def single_bet(strategies) -> np.ndarray:
    """The pure strategy on each hand's most probable action (the lowest-indexed one on a tie).

    How the paper scores representations 7-10, whose trees output one bet size per leaf: "considering only the
    most probable bet size" (*Games* 8(4), Section 4, on Figure 6a).

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


def tree_sweep(family: GameFamily, columns: dict, split: Split, representations=None, depths=range(3, 21),
               seed: int = 0, n_jobs: int = 1, r2: bool = True) -> pd.DataFrame:
    """Test error and exploitability of trees by depth, per representation (*Games*, Figures 4 and 6).

    The paper trains on 64,000 games and tests on 16,000 (80% / 20% of 80,000), depths 3 to 20. For each
    representation one :class:`~rulelearn.learners.StrategyTree` of the largest depth is grown and cut at
    every depth (:func:`predict_by_depth`).

    Parameters
    ----------
    family : GameFamily
    columns : dict of numpy.ndarray
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
        policy, the leaf's most frequent sampled bet as a pure strategy (:func:`single_bet`); ``emd_mixed``
        and ``exploitability_mixed`` score the leaf's frequencies of sampled bets as a mixed strategy (NaN for
        the other representations).

    Raises
    ------
    ValueError
        On bad ``depths``.
    """
    from joblib import Parallel, delayed

    reps = numbered_representations() if representations is None else dict(representations)
    ds = _check_depths(depths)
    jobs = (delayed(_one_sweep)(family, columns, split, n, rep, ds, max(ds), seed, r2)
            for n, rep in reps.items())
    parts = Parallel(n_jobs=n_jobs, prefer="threads")(jobs)
    return pd.DataFrame([row for part in parts for row in part])


def _one_table_row(family, columns, split, number, rep, depth, seed) -> dict:
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    test_cols = _subset(columns, split.test)
    truth, train_truth = strategies[split.test], strategies[split.train]
    per_hand = rep.per_hand is not None
    ours = _model(family, StrategyTree(depth, random_state=seed), rep)
    ours.fit(ranges[split.train], train_truth)
    pred = ours.predict(ranges[split.test])
    train_pred = ours.predict(ranges[split.train])
    # the paper's tree: scikit-learn's default criterion (squared error) on the raw probabilities
    tr, te = rep.transform(ranges[split.train], train_truth), rep.transform(ranges[split.test])
    paper = DecisionTreeRegressor(max_depth=depth, random_state=seed)
    paper.fit(tr.X, tr.Y.reshape(tr.Y.shape[0], -1))
    raw = np.clip(paper.predict(te.X), 0.0, None).reshape((-1,) + truth.shape[1 + per_hand:])
    raw = rep.assemble(raw / raw.sum(-1, keepdims=True), len(split.test))
    s_ours = _scores(family, test_cols, pred, truth)
    s_paper = _scores(family, test_cols, raw, truth)
    return {
        "number": number, "representation": rep.name, "leaves": ours.model_size[0],
        "emd": s_ours["emd"], "r2": _r2(pred, truth, per_hand), "exploitability": s_ours["exploitability"],
        "r2_pooled": _r2(pred, truth, per_hand, "variance_weighted"),
        "emd_paper_tree": s_paper["emd"], "r2_paper_tree": _r2(raw, truth, per_hand),
        "exploitability_paper_tree": s_paper["exploitability"],
        "r2_train_paper_tree": float(paper.score(tr.X, tr.Y.reshape(tr.Y.shape[0], -1))),
        "train_emd": float(np.mean(output_emd(train_pred, train_truth))),
        "emd_of_means": float(output_emd(pred.mean(0), truth.mean(0))),
    }


def tree_table(family: GameFamily, columns: dict, split: Split, depth: int = 12, representations=None,
               seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """The AAAI-W Table 1: test EMD and R^2 score of depth-``depth`` trees per representation, two criteria.

    The paper fits :class:`~sklearn.tree.DecisionTreeRegressor` with its default criterion (squared error) on
    the raw action probabilities ("paper tree"); :class:`~rulelearn.learners.StrategyTree` fits the cumulative
    probabilities, whose L1 distance is the EMD ("our tree"). Both predict leaf means, which are valid
    strategies. Also reported: the training EMD, and the EMD between the *average* predicted and the average
    true strategy (two readings under which an "EMD error" can be far below the per-game test EMD).

    Parameters
    ----------
    family, columns, split
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

    if isinstance(depth, bool) or not float(depth).is_integer() or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    reps = representations
    if reps is None:
        reps = {n: r for n, r in numbered_representations().items() if n <= 6}
    jobs = (delayed(_one_table_row)(family, columns, split, n, rep, int(depth), seed)
            for n, rep in reps.items())
    return pd.DataFrame(Parallel(n_jobs=n_jobs, prefer="threads")(jobs))


@dataclass(frozen=True)
class BetSizeTree:
    """The paper's Figure 5 tree: a regression tree on one sampled bet size per (game, card).

    Attributes
    ----------
    rules : list of rulelearn.rules.Rule
        One per leaf; ``strategy`` holds the leaf's predicted bet size in chips (a 0-d array).
    representation : str
    n_rows : int
        Training rows (games times cards).
    emd, exploitability : float
        Test scores of the policy that bets, with every card, the grid bet nearest to its leaf's bet size.
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


def bet_size_tree(family: GameFamily, columns: dict, split: Split, number: int = 9, depth: int = 4,
                  seed: int = 0) -> BetSizeTree:
    """Fit the paper's single-bet-size tree (*Games* 8(4), Section 4, Figure 5).

    :class:`~sklearn.tree.DecisionTreeRegressor` (squared error) from the features of a sampled-output
    representation (default 9: cdfs plus the card's cdf) to the sampled bet size in chips, as the paper's
    Figure 5 ("the output (i.e., bet size) predicted").

    Parameters
    ----------
    family, columns, split
    number : int, default 9
        A representation of :func:`numbered_representations` with sampled outputs.
    depth : int, default 4
    seed : int, default 0

    Returns
    -------
    BetSizeTree

    Raises
    ------
    ValueError
        If the representation does not sample its outputs.
    """
    from rulelearn.rules import extract_rules

    rep = numbered_representations().get(number)
    if rep is None or rep.output != "sampled":
        raise ValueError(f"number must name a sampled-output representation (7-10), got {number!r}")
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    data = rep.transform(ranges[split.train], strategies[split.train], hand_labels=list(family.hand_labels),
                         player_names=list(family.player_names))
    sizes = np.asarray(family.action_values, dtype=np.float64)
    tree = DecisionTreeRegressor(max_depth=int(depth), random_state=seed)
    tree.fit(data.X, sizes[data.sampled_action])
    values = tree.tree_.value[:, 0, 0]
    rules = extract_rules(tree, values, data.feature_names, data.integer_features)
    test = rep.transform(ranges[split.test])
    nearest = np.abs(tree.predict(test.X)[:, None] - sizes[None, :]).argmin(axis=1)
    pred = rep.assemble(np.eye(len(sizes))[nearest], len(split.test))
    s = _scores(family, _subset(columns, split.test), pred, strategies[split.test])
    return BetSizeTree(rules, rep.name, int(data.X.shape[0]), s["emd"], s["exploitability"],
                       data.feature_names[int(tree.tree_.feature[0])], float(tree.tree_.threshold[0]))


def _pool_subsets(n_total: int, n_games: int, repeats: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``repeats`` random subsets of ``n_games`` rows, disjoint when the pool is large enough."""
    if n_games > n_total:
        raise ValueError(f"n_games={n_games} exceeds the {n_total} games loaded")
    perm = rng.permutation(n_total)
    if n_games * repeats <= n_total:
        return [np.sort(perm[r * n_games:(r + 1) * n_games]) for r in range(repeats)]
    return [np.sort(rng.choice(n_total, n_games, replace=False)) for _ in range(repeats)]


def _emd_representation(metric: str) -> tuple[Representation, str]:
    """The whole-game representation and the learners' ``input_kind`` of an :data:`EMD_METRICS` entry."""
    if metric not in EMD_METRICS:
        raise ValueError(f"metric must be one of {EMD_METRICS}, got {metric!r}")
    # "pdf": pdf features declared as cdfs, so Algorithm 1 measures the L1 distance between the pdfs
    return Representation(metric, None), "cdf"


_PER_CARD = {"card": "index", "card-cdf": "cdf"}


def _knn_variant(name: str) -> Representation:
    """The representation of a k-NN variant: ``cdf``/``pdf`` (whole game) or ``<features>-card[-cdf]``."""
    features, _, per_hand = str(name).partition("-")
    if features not in EMD_METRICS or (per_hand and per_hand not in _PER_CARD):
        raise ValueError(f"k-NN variants must be 'cdf', 'pdf' or '<cdf|pdf>-card[-cdf]', got {name!r}")
    return Representation(features, _PER_CARD.get(per_hand))


def _knn_scores(family, columns, ranges, strategies, train, test, variants) -> list[dict]:
    test_cols = _subset(columns, test)
    truth = strategies[test]
    rows = []
    for name in variants:
        rep = _knn_variant(name)
        if rep.per_hand is None:
            _, kind = _emd_representation(rep.features)
            model = _model(family, EMDNearestNeighbors(1, input_kind=kind), rep)
            pred = model.fit(ranges[train], strategies[train]).predict(ranges[test])
            same_card = 1.0
        else:  # one row per card: the features block plus the card (number or cdf), Manhattan distance
            tr, te = rep.transform(ranges[train], strategies[train]), rep.transform(ranges[test])
            idx = L1NeighborIndex(tr.X, min(8, tr.X.shape[1])).query(te.X, 1)[1][:, 0]
            pred = rep.assemble(tr.Y[idx], len(test))
            same_card = float(np.mean(tr.hand_index[idx] == te.hand_index))
        rows.append({"variant": rep.name, "features": rep.features, "outputs": "whole" if rep.per_hand is None
                     else "per card", "same_card": same_card, **_scores(family, test_cols, pred, truth)})
    return rows


_KNN_VARIANTS = ("cdf", "pdf", "cdf-card", "cdf-card-cdf", "pdf-card-cdf")


def knn_fraction_curve(family: GameFamily, columns: dict, fractions=(0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7,
                                                                     0.8, 0.9),
                       n_games: int = 1000, repeats: int = 10, seed: int = 0, variants=_KNN_VARIANTS
                       ) -> pd.DataFrame:
    """1-NN test error against the share of games used for training, at the paper's scale (AAAI-W 4.1).

    The paper takes 1,000 games and, for each training fraction ``f``, trains on ``f * 1000`` and tests on the
    rest (Figures 8-11). We repeat this on ``repeats`` disjoint 1,000-game subsets of the database, each with
    its own random split, to show the spread that the paper's single curves hide.

    Parameters
    ----------
    family : GameFamily
    columns : dict of numpy.ndarray
    fractions : sequence of float in (0, 1)
    n_games : int, default 1000
    repeats : int, default 10
    seed : int, default 0
    variants : sequence of str
        ``"cdf"``, ``"pdf"``: whole-game 1-NN (the paper's "310 outputs") with that distance of
        :data:`EMD_METRICS`. ``"<cdf|pdf>-card"``, ``"<cdf|pdf>-card-cdf"``: one row per card (the paper's "31
        outputs"): the features block plus the card number or the card's cdf, Manhattan distance.

    Returns
    -------
    pandas.DataFrame
        Columns ``repeat``, ``train_fraction``, ``n_train``, ``n_test``, ``variant``, ``features``,
        ``outputs`` (``"whole"`` or ``"per card"``), ``same_card`` (share of per-card neighbours holding the
        same card), ``emd``, ``exploitability``, ``exploitability_median``, ``exploitability_max``.

    Raises
    ------
    ValueError
        If a fraction leaves an empty side, or ``n_games`` exceeds the database.
    """
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    rng = np.random.default_rng(seed)
    rows = []
    for r, pool in enumerate(_pool_subsets(len(ranges), int(n_games), int(repeats), rng)):
        for f in fractions:
            sp = split_games(len(pool), 1.0 - float(f), seed=seed + 1000 * r + round(1000 * f))
            train, test = pool[sp.train], pool[sp.test]
            for row in _knn_scores(family, columns, ranges, strategies, train, test, variants):
                rows.append({"repeat": r, "train_fraction": float(f), "n_train": len(train),
                             "n_test": len(test), **row})
    return pd.DataFrame(rows)


def knn_learning_curve(family: GameFamily, columns: dict, split: Split, train_sizes, seed: int = 0,
                       variants=("cdf", "pdf")) -> pd.DataFrame:
    """1-NN test error against the number of memorised games, on the full database.

    Training sets are nested random subsets of ``split.train``; the test set is ``split.test`` for every size.

    Parameters
    ----------
    family, columns, split
    train_sizes : sequence of int
        Each at most ``len(split.train)``.
    seed : int, default 0
    variants : sequence of str, default the whole-game ones
        As in :func:`knn_fraction_curve`.

    Returns
    -------
    pandas.DataFrame
        Columns ``n_train``, ``n_test``, ``train_fraction`` (of all loaded games), ``variant``, ``features``,
        ``outputs``, ``same_card``, ``emd``, ``exploitability``, ``exploitability_median``,
        ``exploitability_max``.

    Raises
    ------
    ValueError
        If a size is not in ``1 .. len(split.train)``.
    """
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    order = np.random.default_rng(seed).permutation(split.train)
    n_all = len(split.train) + len(split.test)
    rows = []
    for size in train_sizes:
        if int(size) != size or not 1 <= size <= len(order):
            raise ValueError(f"train_sizes must be integers in 1..{len(order)}, got {size!r}")
        train = np.sort(order[: int(size)])
        for row in _knn_scores(family, columns, ranges, strategies, train, split.test, variants):
            rows.append({"n_train": int(size), "n_test": len(split.test), "train_fraction": int(size) / n_all,
                         **row})
    return pd.DataFrame(rows)


def kmedoids_errors(family: GameFamily, columns: dict, split: Split, ks=(5, 10, 15), metrics=EMD_METRICS,
                    seed: int = 0, max_samples: int | None = None) -> pd.DataFrame:
    """k-medoids by input distance, scored by playing the nearest medoid's strategy (AAAI-W Section 4.3).

    Parameters
    ----------
    family, columns, split
    ks : sequence of int, default (5, 10, 15)
    metrics : sequence of str, default :data:`EMD_METRICS`
    seed : int, default 0
    max_samples : int, optional
        Training games the medoids are chosen from (a random subsample when there are more); default the
        learner's own default.

    Returns
    -------
    pandas.DataFrame
        Columns ``features``, ``k``, ``n_train``, ``n_test``, ``inertia`` (mean input distance of training
        games to their medoid), ``emd``, ``exploitability``, ``exploitability_median``,
        ``exploitability_max``.
    """
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    test_cols = _subset(columns, split.test)
    truth = strategies[split.test]
    extra = {} if max_samples is None else {"max_samples": int(max_samples)}
    rows = []
    for metric in metrics:
        rep, kind = _emd_representation(metric)
        for k in ks:
            model = _model(family, EMDKMedoids(int(k), input_kind=kind, random_state=seed, **extra), rep)
            model.fit(ranges[split.train], strategies[split.train])
            pred = model.predict(ranges[split.test])
            rows.append({"features": metric, "k": int(k), "n_train": len(split.train),
                         "n_test": len(split.test), "inertia": model.learner_.inertia_,
                         **_scores(family, test_cols, pred, truth)})
    return pd.DataFrame(rows)


def kmedoids_paper_scale(family: GameFamily, columns: dict, ks=(5, 10, 15), n_games: int = 1000,
                         repeats: int = 10, test_fraction: float = 0.2, seed: int = 0,
                         metrics=EMD_METRICS) -> pd.DataFrame:
    """:func:`kmedoids_errors` on ``repeats`` disjoint subsets of ``n_games`` games (the paper: 1,000).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`kmedoids_errors` plus ``repeat``.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for r, pool in enumerate(_pool_subsets(len(columns["game_id"]), int(n_games), int(repeats), rng)):
        sp = split_games(len(pool), test_fraction, seed=seed + r)
        sub = Split(pool[sp.train], pool[sp.test])
        df = kmedoids_errors(family, columns, sub, ks, metrics, seed=seed + r)
        parts.append(df.assign(repeat=r))
    return pd.concat(parts, ignore_index=True)


@dataclass(frozen=True)
class MedoidTreeResult:
    """The decision tree on the cluster medoids (AAAI-W Section 4.4) and its scores.

    Attributes
    ----------
    model : StrategyModel
        Fitted :class:`~rulelearn.learners.ClusterThenTree` (``tree_on="medoids"``) with its representation.
    depth, leaves : int
        Of the classification tree on the medoids.
    split_features : tuple of str
        The features the tree branches on.
    emd, exploitability : float
        Mean test EMD and mean exploitability (chips) of the tree's policy on all test games.
    emd_nearest_medoid, exploitability_nearest_medoid : float
        The same for the nearest-medoid policy of the same clustering (Section 4.3).
    agreement : float
        Share of test games in which the tree picks the nearest medoid.
    emd_first, r2_first : float
        Test EMD and R^2 score of the tree's policy on the first ``n_first`` test games (the paper tests on
        1,000).
    n_first, n_test : int
    """

    model: StrategyModel
    depth: int
    leaves: int
    split_features: tuple[str, ...]
    emd: float
    exploitability: float
    emd_nearest_medoid: float
    exploitability_nearest_medoid: float
    agreement: float
    emd_first: float
    r2_first: float
    n_first: int
    n_test: int


def medoid_tree(family: GameFamily, columns: dict, split: Split, n_clusters: int = 5, seed: int = 0,
                n_first: int = 1000) -> MedoidTreeResult:
    """Cluster training games by input EMD, fit a tree on the ``n_clusters`` medoids, score it on test games.

    Parameters
    ----------
    family, columns, split
    n_clusters : int, default 5
        The paper uses 5 clusters with cdf features.
    seed : int, default 0
    n_first : int, default 1000
        Also score on the first ``n_first`` test games, the paper's test size.

    Returns
    -------
    MedoidTreeResult
    """
    ranges, strategies = family.ranges(columns), family.strategies(columns)
    rep = Representation("cdf", None)
    model = _model(family, ClusterThenTree(int(n_clusters), tree_on="medoids", random_state=seed), rep)
    model.fit(ranges[split.train], strategies[split.train])
    test_cols = _subset(columns, split.test)
    truth = strategies[split.test]
    pred = model.predict(ranges[split.test])
    X = rep.transform(ranges[split.test]).X
    c2t = model.learner_
    nearest = c2t.kmedoids_.predict_cluster(X)
    picked = c2t.predict_cluster(X)
    near_pred = c2t.kmedoids_.medoid_targets_[nearest]
    s_tree = _scores(family, test_cols, pred, truth)
    s_near = _scores(family, test_cols, near_pred, truth)
    tree = c2t.tree_
    used = sorted({int(f) for f in tree.tree_.feature if f >= 0})
    m = min(int(n_first), len(split.test))
    return MedoidTreeResult(
        model=model, depth=int(tree.get_depth()), leaves=int(tree.get_n_leaves()),
        split_features=tuple(model.feature_names_[f] for f in used),
        emd=s_tree["emd"], exploitability=s_tree["exploitability"],
        emd_nearest_medoid=s_near["emd"], exploitability_nearest_medoid=s_near["exploitability"],
        agreement=float(np.mean(nearest == picked)),
        emd_first=float(np.mean(output_emd(pred[:m], truth[:m]))), r2_first=_r2(pred[:m], truth[:m], False),
        n_first=m, n_test=len(split.test),
    )

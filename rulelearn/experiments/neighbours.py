"""Nearest neighbours and medoids on a solution database: the papers' k-NN curves, k-medoids and the medoid tree.

The reproduction of Ganzfried & Yusuf (2017; :mod:`rulelearn.experiments.reproduction`):

* :func:`knn_fraction_curve` and :func:`knn_learning_curve`, 1-NN error against the training fraction (AAAI-W
  Section 4.1, Figures 8-11) and against the number of memorised games;
* :func:`kmedoids_errors` and :func:`kmedoids_paper_scale`, k-medoids with 5, 10, 15 clusters (AAAI-W Section 4.3,
  Figures 14-15);
* :func:`medoid_tree`, the decision tree on the cluster medoids (AAAI-W Section 4.4, Figure 16).

Scores are the mean output EMD and player 1's exploitability (chips) on held-out games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rulelearn.data.splits import SolvedGames, Split, disjoint_subsets, split_games
from rulelearn.experiments.scoring import held_out_scores, r2
from rulelearn.features.distance import output_emd
from rulelearn.features.representations import Representation
from rulelearn.learners import ClusterThenTree, EMDKMedoids, EMDNearestNeighbors, L1NeighborIndex
from rulelearn.learners.model import StrategyModel
from rulelearn.validation import check_int

__all__ = ["EMD_METRICS", "MedoidTreeResult", "kmedoids_errors", "kmedoids_paper_scale", "knn_fraction_curve",
           "knn_learning_curve", "medoid_tree"]

#: Distances for the EMD learners (k-NN, k-medoids): ``"cdf"`` is Algorithm 1 on the cdf features (the input
#: EMD); ``"pdf"`` is Algorithm 1 applied to the pdf features as if they were cdfs, which reduces to the L1
#: distance between the pdfs (hand order ignored). Under the true EMD the pdf and cdf features give identical
#: distances, so this is the only reading under which the papers' pdf and cdf k-NN curves can differ.
EMD_METRICS = ("cdf", "pdf")


def _emd_representation(metric: str) -> tuple[Representation, str]:
    """The whole-game representation and the learners' ``input_kind`` of an :data:`EMD_METRICS` entry."""
    if metric not in EMD_METRICS:
        raise ValueError(f"metric must be one of {EMD_METRICS}, got {metric!r}")
    # "pdf": pdf features declared as cdfs, so Algorithm 1 measures the L1 distance between the pdfs
    return Representation(metric, None), "cdf"


def _knn_variant(name: str) -> Representation:
    """The representation of a k-NN variant: ``cdf``/``pdf`` (whole game) or ``<features>-card[-cdf]``."""
    try:
        rep = Representation.from_name(name)
    except ValueError:
        rep = None
    if rep is None or rep.per_hand == "beats":
        raise ValueError(f"k-NN variants must be 'cdf', 'pdf' or '<cdf|pdf>-card[-cdf]', got {name!r}")
    return rep


def _knn_scores(games: SolvedGames, train, test, variants) -> list[dict]:
    ranges, strategies = games.ranges, games.strategies
    test_games = games.subset(test)
    truth = strategies[test]
    rows = []
    for name in variants:
        rep = _knn_variant(name)
        if rep.per_hand is None:
            _, kind = _emd_representation(rep.features)
            model = StrategyModel.for_games(games, EMDNearestNeighbors(1, input_kind=kind), rep)
            pred = model.fit(ranges[train], strategies[train]).predict(ranges[test])
            same_hand = 1.0
        else:  # one row per hand: the features block plus the hand (number or cdf), Manhattan distance
            tr, te = rep.transform(ranges[train], strategies[train]), rep.transform(ranges[test])
            idx = L1NeighborIndex(tr.X, min(8, tr.X.shape[1])).query(te.X, 1)[1][:, 0]
            pred = rep.assemble(tr.Y[idx], len(test))
            same_hand = float(np.mean(tr.hand_index[idx] == te.hand_index))
        whole = rep.per_hand is None
        rows.append({"variant": rep.name, "features": rep.features, "outputs": "whole" if whole else "per hand",
                     "n_outputs": int(np.prod(truth.shape[1:]) if whole else truth.shape[-1]),
                     "same_hand": same_hand, **held_out_scores(test_games, pred, truth)})
    return rows


_KNN_VARIANTS = ("cdf", "pdf", "cdf-card", "cdf-card-cdf", "pdf-card-cdf")


def knn_fraction_curve(games: SolvedGames, fractions=(0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                       n_games: int = 1000, repeats: int = 10, seed: int = 0, variants=_KNN_VARIANTS
                       ) -> pd.DataFrame:
    """1-NN test error against the share of games used for training, at the paper's scale (AAAI-W 4.1).

    The paper takes 1,000 games and, for each training fraction ``f``, trains on ``f * 1000`` and tests on the
    rest (Figures 8-11). We repeat this on ``repeats`` disjoint 1,000-game subsets of the database, each with
    its own random split, to show the spread that the paper's single curves hide.

    Parameters
    ----------
    games : SolvedGames
    fractions : sequence of float in (0, 1)
    n_games : int, default 1000
    repeats : int, default 10
    seed : int, default 0
    variants : sequence of str
        ``"cdf"``, ``"pdf"``: whole-game 1-NN (the paper's "310 outputs") with that distance of
        :data:`EMD_METRICS`. ``"<cdf|pdf>-card"``, ``"<cdf|pdf>-card-cdf"`` (the representations' names): one row
        per hand (the paper's "31 outputs"): the features block plus the hand's number or its cdf, Manhattan
        distance.

    Returns
    -------
    pandas.DataFrame
        Columns ``repeat``, ``train_fraction``, ``n_train``, ``n_test``, ``variant``, ``features``,
        ``outputs`` (``"whole"`` or ``"per hand"``), ``n_outputs`` (predicted numbers per row), ``same_hand``
        (share of per-hand neighbours holding the same hand), ``emd``, ``exploitability``,
        ``exploitability_median``, ``exploitability_max``.

    Raises
    ------
    ValueError
        If a fraction leaves an empty side, or ``n_games`` exceeds the database.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for r, pool in enumerate(disjoint_subsets(len(games), int(n_games), int(repeats), rng)):
        for f in fractions:
            sp = split_games(len(pool), 1.0 - float(f), seed=seed + 1000 * r + round(1000 * f))
            train, test = pool[sp.train], pool[sp.test]
            for row in _knn_scores(games, train, test, variants):
                rows.append({"repeat": r, "train_fraction": float(f), "n_train": len(train),
                             "n_test": len(test), **row})
    return pd.DataFrame(rows)


def knn_learning_curve(games: SolvedGames, split: Split, train_sizes, seed: int = 0,
                       variants=("cdf", "pdf")) -> pd.DataFrame:
    """1-NN test error against the number of memorised games, on the full database.

    Training sets are nested random subsets of ``split.train``; the test set is ``split.test`` for every size.

    Parameters
    ----------
    games, split
    train_sizes : sequence of int
        Each at most ``len(split.train)``.
    seed : int, default 0
    variants : sequence of str, default the whole-game ones
        As in :func:`knn_fraction_curve`.

    Returns
    -------
    pandas.DataFrame
        Columns ``n_train``, ``n_test``, ``train_fraction`` (of all loaded games), ``variant``, ``features``,
        ``outputs``, ``n_outputs``, ``same_hand``, ``emd``, ``exploitability``, ``exploitability_median``,
        ``exploitability_max``.

    Raises
    ------
    ValueError
        If a size is not in ``1 .. len(split.train)``.
    """
    order = np.random.default_rng(seed).permutation(split.train)
    n_all = len(split.train) + len(split.test)
    rows = []
    for size in train_sizes:
        size = check_int("train_sizes", size, 1, len(order))
        train = np.sort(order[:size])
        for row in _knn_scores(games, train, split.test, variants):
            rows.append({"n_train": int(size), "n_test": len(split.test), "train_fraction": int(size) / n_all,
                         **row})
    return pd.DataFrame(rows)


def kmedoids_errors(games: SolvedGames, split: Split, ks=(5, 10, 15), metrics=EMD_METRICS,
                    seed: int = 0, max_samples: int | None = None) -> pd.DataFrame:
    """k-medoids by input distance, scored by playing the nearest medoid's strategy (AAAI-W Section 4.3).

    Parameters
    ----------
    games, split
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
    ranges, strategies = games.ranges, games.strategies
    test = games.subset(split.test)
    truth = strategies[split.test]
    extra = {} if max_samples is None else {"max_samples": int(max_samples)}
    rows = []
    for metric in metrics:
        rep, kind = _emd_representation(metric)
        for k in ks:
            model = StrategyModel.for_games(games, EMDKMedoids(int(k), input_kind=kind, random_state=seed, **extra),
                                            rep)
            model.fit(ranges[split.train], strategies[split.train])
            pred = model.predict(ranges[split.test])
            rows.append({"features": metric, "k": int(k), "n_train": len(split.train),
                         "n_test": len(split.test), "inertia": model.learner_.inertia_,
                         **held_out_scores(test, pred, truth)})
    return pd.DataFrame(rows)


def kmedoids_paper_scale(games: SolvedGames, ks=(5, 10, 15), n_games: int = 1000,
                         repeats: int = 10, test_fraction: float = 0.2, seed: int = 0,
                         metrics=EMD_METRICS) -> pd.DataFrame:
    """:func:`kmedoids_errors` on ``repeats`` disjoint subsets of ``n_games`` games (the paper: 1,000).

    Parameters
    ----------
    games : SolvedGames
        The loaded solution database.
    ks : sequence of int, default (5, 10, 15)
        Numbers of clusters (medoids).
    n_games : int, default 1000
        Games per subset; at most ``len(games)``. The subsets are disjoint when ``n_games * repeats`` games
        are loaded, else drawn independently (:func:`~rulelearn.data.splits.disjoint_subsets`).
    repeats : int, default 10
        Number of subsets, at least 1.
    test_fraction : float, default 0.2
        Share of each subset held out for scoring, in ``(0, 1)``.
    seed : int, default 0
        Seed of the subsets; subset ``r`` is split, and its medoids chosen, with seed ``seed + r``.
    metrics : sequence of str, default :data:`EMD_METRICS`
        Input distances (``"cdf"``, ``"pdf"``).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`kmedoids_errors` plus ``repeat``.
        One row per (subset, metric, k); ``repeat`` is the subset's number ``0 .. repeats-1``; ``emd`` is the
        mean output EMD, the exploitability columns player 1's (chips), on the subset's held-out games.

    Raises
    ------
    ValueError
        If ``n_games`` exceeds the games loaded, ``repeats < 1``, ``test_fraction`` is not in ``(0, 1)`` or a
        subset's split would have an empty side, a metric is not in :data:`EMD_METRICS`, or a ``k`` is not
        a valid number of clusters for the training games.
    """
    rng = np.random.default_rng(seed)
    parts = []
    for r, pool in enumerate(disjoint_subsets(len(games), int(n_games), int(repeats), rng)):
        sp = split_games(len(pool), test_fraction, seed=seed + r)
        sub = Split(pool[sp.train], pool[sp.test])
        df = kmedoids_errors(games, sub, ks, metrics, seed=seed + r)
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


def medoid_tree(games: SolvedGames, split: Split, n_clusters: int = 5, seed: int = 0,
                n_first: int = 1000) -> MedoidTreeResult:
    """Cluster training games by input EMD, fit a tree on the ``n_clusters`` medoids, score it on test games.

    Parameters
    ----------
    games, split
    n_clusters : int, default 5
        The paper uses 5 clusters with cdf features.
    seed : int, default 0
    n_first : int, default 1000
        Also score on the first ``n_first`` test games, the paper's test size.

    Returns
    -------
    MedoidTreeResult
    """
    ranges, strategies = games.ranges, games.strategies
    rep = Representation("cdf", None)
    model = StrategyModel.for_games(games, ClusterThenTree(int(n_clusters), tree_on="medoids", random_state=seed),
                                    rep)
    model.fit(ranges[split.train], strategies[split.train])
    test = games.subset(split.test)
    truth = strategies[split.test]
    pred = model.predict(ranges[split.test])
    X = rep.transform(ranges[split.test]).X
    c2t = model.learner_
    nearest = c2t.kmedoids_.predict_cluster(X)
    picked = c2t.predict_cluster(X)
    near_pred = c2t.kmedoids_.medoid_targets_[nearest]
    s_tree = held_out_scores(test, pred, truth)
    s_near = held_out_scores(test, near_pred, truth)
    tree = c2t.tree_
    used = sorted({int(f) for f in tree.tree_.feature if f >= 0})
    m = min(int(n_first), len(split.test))
    return MedoidTreeResult(
        model=model, depth=int(tree.get_depth()), leaves=int(tree.get_n_leaves()),
        split_features=tuple(model.feature_names_[f] for f in used),
        emd=s_tree["emd"], exploitability=s_tree["exploitability"],
        emd_nearest_medoid=s_near["emd"], exploitability_nearest_medoid=s_near["exploitability"],
        agreement=float(np.mean(nearest == picked)),
        emd_first=float(np.mean(output_emd(pred[:m], truth[:m]))), r2_first=r2(pred[:m], truth[:m], False),
        n_first=m, n_test=len(split.test),
    )

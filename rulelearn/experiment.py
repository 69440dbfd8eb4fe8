"""The main job: train every learner on a solution database, score it on held-out games, extract rules, plot.

Game-agnostic: everything game-specific comes from the :class:`~rulelearn.family.GameFamily`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rulelearn.family import GameFamily
from rulelearn.learners import ClusterThenTree, EMDKMedoids, EMDNearestNeighbors, StrategyTree
from rulelearn.pipeline import StrategyModel
from rulelearn.representations import PAPER_REPRESENTATIONS, Representation
from rulelearn.scoring import PolicyScore, score_policy

__all__ = [
    "LearnerSpec",
    "Split",
    "split_games",
    "default_learners",
    "evaluate",
    "depth_curve",
    "format_scores",
    "ALL_REPRESENTATIONS",
]

#: The paper's six representations and the "share of the opponent's range beaten" extension.
ALL_REPRESENTATIONS = PAPER_REPRESENTATIONS + (Representation("cdf", "beats"),)


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
    n_test = int(round(n_games * test_fraction))
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
        model = StrategyModel(spec.learner, spec.representation, hand_labels=list(family.hand_labels),
                              player_names=list(family.player_names))
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

    Returns
    -------
    pandas.DataFrame
        Columns ``representation``, ``depth``, ``rules`` (leaves), ``emd``, ``exploitability`` (mean, chips).
    """
    specs = [LearnerSpec(f"tree depth {d}", StrategyTree(d), rep) for rep in representations for d in depths]
    rows = []
    for spec, (score, _) in zip(specs, evaluate(family, columns, specs, split)):
        rows.append({"representation": spec.representation.name, "depth": spec.learner.max_depth,
                     "rules": score.size, "emd": score.emd, "exploitability": score.exploitability_mean})
    return pd.DataFrame(rows)


def format_scores(scores: list[PolicyScore]) -> str:
    """A fixed-width table: learner, representation, size, EMD, exploitability mean/median/max (chips)."""
    head = (f"{'learner':<44} {'repr.':<13} {'size':>14} {'EMD':>7}   "
            f"{'exploitability (chips)':>24}\n{'':<44} {'':<13} {'':>14} {'':>7}   {'mean':>8}{'median':>8}{'max':>8}")
    lines = [head, "-" * len(head.splitlines()[0])]
    for s in scores:
        size = f"{s.size} {s.size_unit}"
        lines.append(f"{s.learner:<44} {s.representation:<13} {size:>14} {s.emd:7.4f}   "
                     f"{s.exploitability_mean:8.4f}{s.exploitability_median:8.4f}{s.exploitability_max:8.4f}")
    return "\n".join(lines)

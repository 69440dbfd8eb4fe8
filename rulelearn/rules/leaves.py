"""Rule sets: the leaves of a grown tree (:mod:`rulelearn.rules.growth`), each holding one full strategy.

"if P(P2 holds <= 6) <= 0.91 and ...: play strategy 3". The paper's cluster-then-tree (Ganzfried & Yusuf 2017,
AAAI-W Section 4.4) is one: its leaves hold the strategies of k-medoids' medoid games. Here a leaf can hold

* ``"medoid"``: the equilibrium strategy of the leaf's *EMD medoid*, the training game with the least total input
  EMD (Algorithm 1) to the leaf's other training games (exact, by sorting:
  :func:`rulelearn.features.distance.emd_medoid`);
* ``"mean"``: the mean of the leaf's training games' equilibrium strategies (what a CART regression tree on
  strategies predicts);
* ``"optimal"``: the strategy that minimises the leaf's mean exploitability, from the family's
  :meth:`~rulelearn.family.GroupOptimizingFamily.optimal_group_strategy` (an LP for the bet game). Exploitability
  is convex in player 1's strategy, so this is a global optimum, fitted on at most ``max_fit_games`` training
  games of the leaf (a random subsample; see :class:`LeafFitter`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from rulelearn.data.splits import SolvedGames
from rulelearn.family import supports_group_optimum
from rulelearn.features.distance import emd_medoid
from rulelearn.rules.conditions import Rule
from rulelearn.rules.growth import GrownTree

__all__ = ["LEAF_KINDS", "LeafFitter", "RuleSet"]

#: What a leaf (or cluster) memorises: a medoid game's strategy, the mean strategy, or the LP-optimal strategy.
LEAF_KINDS = ("medoid", "mean", "optimal")


@dataclass
class LeafFitter:
    """The strategy a group of training games memorises, by leaf kind, with a cache keyed by the group.

    Parameters
    ----------
    games : SolvedGames
        *All* games; groups are row positions into them. For ``"optimal"`` the family must provide
        ``optimal_group_strategy`` (see :class:`~rulelearn.family.GroupOptimizingFamily`).
    max_fit_games : int, default 300
        The optimal strategy of a larger group is fitted on a random subsample of this size (on the bet game its
        held-out exploitability is 1e-4 to 6e-4 chips above that of a fit on 2,400 games; see ``docs/RULES.md``).
    random_state : int, default 0

    Notes
    -----
    If the family's ``optimal_group_strategy`` takes a ``start`` argument, each optimal fit passes the previous
    one's strategy (a warm start: it changes the work, not the optimal value).
    """

    games: SolvedGames
    max_fit_games: int = 300
    random_state: int = 0
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self):
        ranges = self.games.ranges
        self._cdf = np.cumsum(ranges, axis=-1).reshape(ranges.shape[0], -1)
        self._strategies = self.games.strategies
        self._last_optimal = None  # the previous group optimum: a warm start for the next (related) group
        method = getattr(self.games.family, "optimal_group_strategy", None)
        self._takes_start = method is not None and "start" in inspect.signature(method).parameters

    def strategies(self) -> np.ndarray:
        """Equilibrium strategies of all games, shape ``(G, d, B)``."""
        return self._strategies

    def __call__(self, kind: str, rows) -> np.ndarray:
        """The ``kind`` strategy (one of :data:`LEAF_KINDS`) of the games ``rows``, shape ``(d, B)``.

        Raises
        ------
        ValueError
            On an unknown kind, an empty group, or ``"optimal"`` for a family without a group optimum.
        """
        if kind not in LEAF_KINDS:
            raise ValueError(f"kind must be one of {LEAF_KINDS}, got {kind!r}")
        r = np.sort(np.asarray(rows, dtype=np.intp).reshape(-1))
        if r.size == 0:
            raise ValueError("rows must select at least one game")
        key = (kind, r.tobytes())
        if key not in self._cache:
            self._cache[key] = self._fit(kind, r)
        return self._cache[key]

    def _fit(self, kind: str, r: np.ndarray) -> np.ndarray:
        if kind == "mean":
            return self._strategies[r].mean(axis=0)
        if kind == "medoid":
            return self._strategies[r[emd_medoid(self._cdf[r])]]
        family = self.games.family
        if not supports_group_optimum(family):
            raise ValueError(f"family {getattr(family, 'name', family)!r} has no optimal_group_strategy")
        if r.size > self.max_fit_games:
            seed = np.random.default_rng([self.random_state, r.size, int(r[0]), int(r[-1])])
            r = np.sort(seed.choice(r, size=int(self.max_fit_games), replace=False))
        if self._takes_start:
            out = family.optimal_group_strategy(self.games.columns, r, start=self._last_optimal)
        else:
            out = family.optimal_group_strategy(self.games.columns, r)
        self._last_optimal = out
        return out


@dataclass(frozen=True)
class RuleSet:
    """A fitted rule set: the leaves of a :class:`GrownTree` and one full strategy per leaf.

    Attributes
    ----------
    tree : GrownTree
    leaves : numpy.ndarray of int64, shape ``(L,)``
        Node ids of the leaves.
    strategies : numpy.ndarray of float64, shape ``(L, d, B)``
    leaf_kind : str
        One of :data:`LEAF_KINDS`.
    coverage : numpy.ndarray of float64, shape ``(L,)``
        Share of the training games in each leaf.
    """

    tree: GrownTree
    leaves: np.ndarray
    strategies: np.ndarray
    leaf_kind: str
    coverage: np.ndarray

    @classmethod
    def fit(cls, tree: GrownTree, n_leaves: int, X_train, train_rows, kind: str, fitter: LeafFitter) -> RuleSet:
        """Fit the leaf strategies of the tree with ``n_leaves`` leaves on the training games.

        Parameters
        ----------
        tree : GrownTree
        n_leaves : int
        X_train : array_like of float, shape ``(m, n_features)``
            Features of the training games.
        train_rows : array_like of int, shape ``(m,)``
            Their positions in the fitter's columns.
        kind : str
            Leaf kind.
        fitter : LeafFitter

        Returns
        -------
        RuleSet

        Raises
        ------
        ValueError
            If a leaf holds no training game.
        """
        leaves = tree.leaves(n_leaves)
        masks = tree.node_masks(X_train)[leaves]
        rows = np.asarray(train_rows, dtype=np.intp)
        if np.any(masks.sum(axis=1) == 0):
            raise ValueError("a leaf holds no training game")
        strategies = np.stack([fitter(kind, rows[mk]) for mk in masks])
        return cls(tree, leaves, strategies, kind, masks.mean(axis=1))

    def leaf_index(self, X) -> np.ndarray:
        """Position in :attr:`leaves` of the leaf each row of ``X`` reaches, shape ``(m,)`` int64."""
        masks = self.tree.node_masks(X)[self.leaves]
        return masks.argmax(axis=0).astype(np.int64)

    def predict(self, X) -> np.ndarray:
        """The strategy each game plays, shape ``(m, d, B)``."""
        return self.strategies[self.leaf_index(X)]

    def rules(self) -> list[Rule]:
        """One :class:`~rulelearn.rules.conditions.Rule` per leaf (print with
        :func:`rulelearn.rules.formatting.format_rule`)."""
        return [Rule(self.tree.conditions(int(node)), self.strategies[k], 0, float(self.coverage[k]),
                     self.tree.depth(int(node)), int(node)) for k, node in enumerate(self.leaves)]

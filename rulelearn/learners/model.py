"""A representation and a learner, fitted from ranges to whole strategies."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from rulelearn.features.representations import Representation
from rulelearn.rules.conditions import Rule, extract_rules

__all__ = ["StrategyModel"]


class StrategyModel(BaseEstimator):
    """Learn strategies from solved games through one of the paper's data representations.

    Parameters
    ----------
    learner : estimator
        A strategy learner from :mod:`rulelearn.learners` (cloned on fit). EMD learners (nearest neighbours,
        k-medoids, cluster-then-tree) need a whole-game representation (``per_hand=None``).
    representation : Representation, default ``Representation("cdf", None)``
    hand_labels : sequence of str, optional
        Names of the hands for feature names and rules (default ``"1" .. "d"``).
    player_names : sequence of str, optional
        Default ``"P1", "P2"``.
    hand_noun : str, default "hand"
        What a hand is called in per-hand feature names (a family's :func:`~rulelearn.family.hand_noun`).

    Attributes
    ----------
    learner_ : estimator
        The fitted learner.
    feature_names_ : tuple of str
    integer_features_ : tuple of bool
    """

    def __init__(self, learner, representation: Representation = Representation(), hand_labels=None,
                 player_names=None, hand_noun: str = "hand"):
        self.learner = learner
        self.representation = representation
        self.hand_labels = hand_labels
        self.player_names = player_names
        self.hand_noun = hand_noun

    @classmethod
    def for_games(cls, games, learner, representation: Representation = Representation()) -> StrategyModel:
        """A model with the hand labels, player names and hand noun of ``games`` (a
        :class:`~rulelearn.data.splits.SolvedGames`)."""
        return cls(learner, representation, hand_labels=games.hand_labels, player_names=games.player_names,
                   hand_noun=games.hand_noun)

    def _transform(self, ranges, strategies=None):
        return self.representation.transform(ranges, strategies, self.hand_labels, self.player_names,
                                             hand_noun=self.hand_noun)

    def fit(self, ranges, strategies):
        """Fit on solved games.

        Parameters
        ----------
        ranges : array_like of float, shape ``(G, P, d)``
            The players' hand distributions.
        strategies : array_like of float, shape ``(G, d, B)``
            Player 1's equilibrium strategies.

        Returns
        -------
        self
        """
        data = self._transform(ranges, strategies)
        if self.representation.per_hand is not None and getattr(self.learner, "whole_game_inputs", False):
            raise ValueError(
                f"{type(self.learner).__name__} measures the input EMD between whole games; use a whole-game "
                f"representation (per_hand=None), not {self.representation.name!r}"
            )
        self.learner_ = clone(self.learner).fit(data.X, data.Y)
        self.feature_names_ = data.feature_names
        self.integer_features_ = data.integer_features
        self.target_shape_ = np.shape(data.Y)[1:]
        return self

    def predict(self, ranges) -> np.ndarray:
        """Player 1's strategy in each game, shape ``(G, d, B)``."""
        check_is_fitted(self, "learner_")
        data = self._transform(ranges)
        return self.representation.assemble(self.learner_.predict(data.X), np.shape(ranges)[0])

    @property
    def model_size(self) -> tuple[int, str]:
        """What a person memorises: ``(count, unit)`` with unit ``"rules"``, ``"medoids"`` or ``"games"``."""
        check_is_fitted(self, "learner_")
        return self.learner_.model_size

    def rules(self) -> list[Rule]:
        """The if-then rules of a tree learner, one per leaf (see :func:`rulelearn.rules.conditions.extract_rules`)."""
        check_is_fitted(self, "learner_")
        if not hasattr(self.learner_, "leaf_strategies"):
            raise ValueError(f"{type(self.learner_).__name__} is not a tree: it has no rules")
        return extract_rules(self.learner_.tree_, self.learner_.leaf_strategies(), self.feature_names_,
                             self.integer_features_)

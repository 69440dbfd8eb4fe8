"""Solved games in memory: :class:`SolvedGames` (columns of one family with their ranges and strategies computed
once) and seeded train/test splits.

Every experiment takes a family's loaded database columns; its ranges ``(G, P, d)`` and equilibrium strategies
``(G, d, B)`` are computed from them once here, and subsets (a split's training or test games) share them, so a
function that needs the test games' exploitability asks ``games.subset(split.test)`` rather than rebuilding
columns and ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from rulelearn.family import GameFamily, hand_noun
from rulelearn.features.representations import Representation, RepresentedData
from rulelearn.validation import check_int, check_real

__all__ = ["SolvedGames", "Split", "disjoint_subsets", "split_games"]


@dataclass(frozen=True)
class Split:
    """Train and test row indices into the loaded columns."""

    train: np.ndarray
    test: np.ndarray


def split_games(n_games: int, test_fraction: float = 0.2, seed: int = 0) -> Split:
    """A seeded random train/test split of ``n_games`` games (the paper uses 80/20).

    Parameters
    ----------
    n_games : int
        Number of games (rows of the loaded columns) to split.
    test_fraction : float, default 0.2
        Fraction of the games in the test set, in ``(0, 1)``; the test set has ``round(n_games *
        test_fraction)`` games.
    seed : int, default 0
        Seed of the permutation (``numpy.random.default_rng(seed)``); the split is a function of it.

    Returns
    -------
    Split
        ``train`` and ``test``: disjoint sorted int64 arrays of row indices in ``0 .. n_games-1``, together
        every row.

    Raises
    ------
    ValueError
        If ``test_fraction`` is not in ``(0, 1)`` or either side would be empty, or ``seed`` is negative.
    """
    check_real("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    perm = np.random.default_rng(seed).permutation(n_games)
    n_test = round(n_games * test_fraction)
    if n_test == 0 or n_test == n_games:
        raise ValueError(f"{n_games} games cannot be split with test_fraction={test_fraction}")
    return Split(np.sort(perm[n_test:]), np.sort(perm[:n_test]))


def disjoint_subsets(n_total: int, n_games: int, repeats: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``repeats`` random sorted subsets of ``n_games`` of the rows ``0 .. n_total-1``, disjoint when the pool
    is large enough (otherwise each drawn independently).

    Parameters
    ----------
    n_total : int
        Number of rows to draw from (the games loaded).
    n_games : int
        Size of each subset, at most ``n_total``.
    repeats : int
        Number of subsets.
    rng : numpy.random.Generator
        Source of randomness; the subsets are a function of its state (which they advance).

    Returns
    -------
    list of numpy.ndarray of int64
        ``repeats`` sorted arrays of ``n_games`` distinct row indices each; pairwise disjoint if
        ``n_games * repeats <= n_total``.

    Raises
    ------
    ValueError
        If ``n_games`` exceeds ``n_total``.
    """
    if n_games > n_total:
        raise ValueError(f"n_games={n_games} exceeds the {n_total} games loaded")
    perm = rng.permutation(n_total)
    if n_games * repeats <= n_total:
        return [np.sort(perm[r * n_games:(r + 1) * n_games]) for r in range(repeats)]
    return [np.sort(rng.choice(n_total, n_games, replace=False)) for _ in range(repeats)]


class SolvedGames:
    """Loaded solved games of one family: columns, and their ranges and strategies computed once.

    Parameters
    ----------
    family : GameFamily
    columns : dict of numpy.ndarray
        Loaded solution database (:meth:`rulelearn.data.database.SolutionDatabase.load`), ``(G, ...)`` each.

    Attributes
    ----------
    family : GameFamily
    columns : dict of numpy.ndarray
    """

    def __init__(self, family: GameFamily, columns: dict):
        self.family = family
        self.columns = columns

    def __len__(self) -> int:
        return len(next(iter(self.columns.values())))

    @cached_property
    def ranges(self) -> np.ndarray:
        """Both players' hand distributions, ``(G, P, d)`` float64."""
        return np.asarray(self.family.ranges(self.columns), dtype=np.float64)

    @cached_property
    def strategies(self) -> np.ndarray:
        """Player 1's equilibrium strategies, ``(G, d, B)`` float64."""
        return np.asarray(self.family.strategies(self.columns), dtype=np.float64)

    @property
    def hand_labels(self) -> list[str]:
        return list(self.family.hand_labels)

    @property
    def player_names(self) -> list[str]:
        return list(self.family.player_names)

    @property
    def hand_noun(self) -> str:
        """What the family calls a hand (see :func:`rulelearn.family.hand_noun`)."""
        return hand_noun(self.family)

    def subset(self, rows) -> SolvedGames:
        """The games ``rows`` (positions), sharing the ranges and strategies computed so far."""
        r = np.asarray(rows)
        out = SolvedGames(self.family, {k: v[r] for k, v in self.columns.items()})
        for name in ("ranges", "strategies"):
            if name in self.__dict__:
                out.__dict__[name] = self.__dict__[name][r]
        return out

    def first(self, n: int) -> SolvedGames:
        """The games with ``game_id < n`` (the first ``n`` of a database stream)."""
        return self.subset(np.flatnonzero(np.asarray(self.columns["game_id"]) < check_int("n", n, 0)))

    def represent(self, representation: Representation, with_strategies: bool = False) -> RepresentedData:
        """The games under ``representation``, with the family's hand labels, player names and hand noun."""
        return representation.transform(self.ranges, self.strategies if with_strategies else None,
                                         self.hand_labels, self.player_names, hand_noun=self.hand_noun)

    def player1_exploitability(self, strategies) -> np.ndarray:
        """Player 1's exploitability (chips, ``(G,)``) of ``strategies`` ``(G, d, B)`` in these games
        (:meth:`GameFamily.player1_exploitability`)."""
        return np.asarray(self.family.player1_exploitability(self.columns, strategies), dtype=np.float64)

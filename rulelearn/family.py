"""The protocol through which a game family plugs into rulelearn (which knows no game).

A *game family* is a distribution over game instances (e.g. bet games with random deals) with an exact solver.
``rulelearn`` stores its solutions (:mod:`rulelearn.data.database`), learns from its ranges and strategies
(:mod:`rulelearn.learners.model`) and scores learned strategies by player 1's exploitability
(:meth:`GameFamily.player1_exploitability`: the game value minus his payoff against a best response, one player's
measure as in the papers; not NashConv, and not :func:`games.core.exploitability`, which is NashConv / 2). Families
are looked up by name in :data:`FAMILIES` (module paths as strings, so this layer imports no game).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = ["FAMILIES", "GameFamily", "GroupOptimizingFamily", "hand_noun", "load_family", "supports_group_optimum"]


@runtime_checkable
class GameFamily(Protocol):
    """A family of two-player games with ordered private hands, solvable exactly.

    Attributes
    ----------
    name : str
        Registry name, e.g. ``"betgame"``.
    hand_labels : sequence of str
        Names of the ``d`` ordered hands, worst first.
    action_labels : sequence of str
        Names of player 1's ``B`` actions, in the order of the strategy's last axis.
    action_values : sequence of float
        Numeric size of each action (0 for a passive action such as a check), used to summarise mixes.
    player_names : sequence of str

    A family may also name its hands with an attribute ``hand_noun`` (``"card"`` for the bet game; default
    ``"hand"``, see :func:`hand_noun`), used in feature names and printed rules.
    """

    name: str
    hand_labels: Sequence[str]
    action_labels: Sequence[str]
    action_values: Sequence[float]
    player_names: Sequence[str]

    def config(self) -> dict[str, Any]:
        """JSON-serialisable parameters; a database refuses to mix families with different configs."""

    def solve_range(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """Sample and solve games ``start .. stop-1`` of the stream seeded by ``seed``.

        Game ``k`` must depend only on ``(seed, k)``, so that any split into ranges gives the same games. Returns
        columns of equal length ``stop - start``, including ``"game_id"`` (int64) and ``"verified"`` (bool).
        """

    def ranges(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Both players' hand distributions, shape ``(G, P, d)`` float64."""

    def strategies(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Player 1's equilibrium strategies, shape ``(G, d, B)`` float64."""

    def player1_exploitability(self, columns: dict[str, np.ndarray], strategies: np.ndarray) -> np.ndarray:
        """Player 1's exploitability of ``strategies`` (shape ``(G, d, B)``) in each game: the game value minus his
        payoff against player 2's best response, chips, shape ``(G,)``."""


@runtime_checkable
class GroupOptimizingFamily(Protocol):
    """Optional extension of :class:`GameFamily`: one strategy for a whole group of games, chosen optimally.

    Exploitability is convex in player 1's strategy, so the single strategy that minimises a group's weighted mean
    exploitability is a convex (for the bet game: linear) program. Rule sets that give each tree leaf or
    cluster one full strategy (:mod:`rulelearn.rules.leaves`) use it when a family provides it.
    """

    def optimal_group_strategy(self, columns: dict[str, np.ndarray], rows=None, weights=None) -> np.ndarray:
        """The strategy, shape ``(d, B)`` float64, minimising the weighted mean exploitability (chips) of the games
        ``rows`` (positions into ``columns``; all games when ``None``) with non-negative ``weights`` (shape
        ``(len(rows),)``, default equal)."""


def hand_noun(family) -> str:
    """What ``family`` calls a hand in words (its optional ``hand_noun`` attribute; default ``"hand"``).

    Parameters
    ----------
    family : object
        A game family (:class:`GameFamily`), or any object.

    Returns
    -------
    str
        ``str(family.hand_noun)`` (singular, e.g. ``"card"`` for the bet game), or ``"hand"`` if ``family``
        has no such attribute. The attribute is not checked: ``None`` gives ``"None"``.
    """
    return str(getattr(family, "hand_noun", "hand"))


def supports_group_optimum(family) -> bool:
    """True when ``family`` implements :class:`GroupOptimizingFamily` (an optional method of a game family).

    Parameters
    ----------
    family : object
        A game family (:class:`GameFamily`), or any object.

    Returns
    -------
    bool
        Whether ``family`` has an attribute ``optimal_group_strategy`` (a runtime-checkable protocol's
        ``isinstance`` looks for the name only, not at its signature or whether it is callable).
    """
    return isinstance(family, GroupOptimizingFamily)


#: Registered families: name -> "module:attribute".
FAMILIES = {
    "betgame": "games.betgame.family:BetGameFamily",
    "hunl_river": "hunl.distill.family:HoldemRiverFamily",
}


def load_family(name: str, **params) -> GameFamily:
    """Instantiate a registered family (or ``"module:attribute"``) with ``params``.

    Parameters
    ----------
    name : str
        A key of :data:`FAMILIES` (``"betgame"``, ``"hunl_river"``) or a ``"module:attribute"`` path to a
        family class or factory.
    **params
        Keyword arguments of the factory, e.g. ``n_cards=5`` for
        :class:`games.betgame.family.BetGameFamily`.

    Returns
    -------
    GameFamily
        ``factory(**params)``, checked to implement the :class:`GameFamily` protocol.

    Raises
    ------
    ValueError
        If ``name`` is neither registered nor a ``module:attribute`` path, or the object built does not
        implement the :class:`GameFamily` protocol (and whatever the factory raises on bad ``params``).
    ImportError
        If the module cannot be imported.
    AttributeError
        If the module has no such attribute.
    TypeError
        If the factory does not accept ``params``.
    """
    target = FAMILIES.get(name, name)
    if ":" not in target:
        raise ValueError(f"unknown game family {name!r}; registered: {sorted(FAMILIES)}")
    module, attr = target.split(":", 1)
    factory = getattr(importlib.import_module(module), attr)
    family = factory(**params)
    if not isinstance(family, GameFamily):
        raise ValueError(f"{target} does not implement the GameFamily protocol")
    return family

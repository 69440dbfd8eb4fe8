"""Best response, expected value, NashConv and exploitability over the public tree of any :class:`Game`.

The best response of player ``p`` to the opponent's fixed behaviour strategy is computed in one bottom-up pass
with range vectors (Johanson et al. 2011, "Accelerating best response calculation in large extensive games",
public-tree traversal): the opponent's reach is pushed down the tree, terminal counterfactual values come from
the game's evaluator, chance nodes and opponent nodes sum their children, and at ``p``'s own decision nodes the
value of each hand is the maximum over actions. The best-response value is the sum over ``p``'s hands at the
root (the deal probabilities are in the counterfactual values).

Terms (two-player zero-sum, payoffs in chips):

* ``best_response_values[p]``: the expected payoff of player ``p``'s best response against the other player's
  strategy in the policy;
* ``NashConv = sum_p (best_response_values[p] - u_p(policy))``; with zero sum this is
  ``best_response_values[0] + best_response_values[1]`` (Lanctot et al. 2017);
* games that are not zero-sum (a raked poker game: the rake leaves the table) keep
  ``NashConv = sum_p (best_response_values[p] - u_p(policy))`` with each player's own value ``u_p``, and
  ``exploitability = NashConv / 2`` (postflop-solver's definition for raked games);
* ``exploitability = NashConv / 2``: the average gain of a best responder over the two seats, the quantity
  OpenSpiel's ``exploitability.exploitability`` returns and the usual "exploitability" of CFR papers (e.g.
  Bowling et al. 2015 report it in mbb/g).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core import traversal as X
from games.core.policy import Policy
from games.core.tree import Game

__all__ = ["BestResponse", "ExploitabilityResult", "best_response", "engine_for", "expected_value",
           "exploitability", "result_from_values"]


@dataclass(frozen=True)
class ExploitabilityResult:
    """Best-response values, NashConv and exploitability of a policy (all in chips unless stated).

    Attributes
    ----------
    best_response_values : tuple of (float, float)
        ``(v1, v2)``: player 1's payoff when he best-responds to player 2's strategy, and player 2's payoff when
        he best-responds to player 1's.
    policy_values : tuple of (float, float)
        ``(u1, u2)``: each player's expected payoff when both follow the policy (``u2 = -u1`` when zero-sum).
    nash_conv : float
        ``(v1 - u1) + (v2 - u2)`` (``v1 + v2`` when zero-sum) = the sum of both players' gains from deviating to
        a best response; >= 0, 0 exactly at a Nash equilibrium.
    exploitability : float
        ``nash_conv / 2`` (OpenSpiel's ``exploitability``).
    pot : float
        The game's pot at the root in chips, for relative figures.
    big_blind : float or None
        Big blind in chips, or ``None`` when the game has none (then mbb/g is ``None``).
    """

    best_response_values: tuple
    policy_values: tuple
    nash_conv: float
    exploitability: float
    pot: float
    big_blind: float | None = None

    @property
    def exploitability_fraction_of_pot(self) -> float:
        """Exploitability divided by the root pot (dimensionless)."""
        return self.exploitability / self.pot

    @property
    def exploitability_mbb(self) -> float | None:
        """Exploitability in milli-big-blinds per game (``1000 * chips / big_blind``), or ``None`` without a big
        blind (Kuhn, Leduc and the bet game have antes only)."""
        return None if self.big_blind is None else 1000.0 * self.exploitability / self.big_blind

    @property
    def deviation_gains(self) -> tuple:
        """Each player's gain from deviating to a best response, ``best_response_values[p] - policy_values[p]``
        in chips; they sum to NashConv."""
        return tuple(b - u for b, u in zip(self.best_response_values, self.policy_values))


@dataclass(frozen=True)
class BestResponse:
    """A pure best response of one player.

    Attributes
    ----------
    player : int
        The responding player (0 or 1).
    value : float
        His expected payoff in chips against the opponent's strategy.
    hand_values : numpy.ndarray of float64, shape ``(H_player,)``
        Counterfactual value of each of his hands at the root (deal probability included; they sum to ``value``).
    policy : Policy
        The input policy with the responder's strategy replaced by the (pure) best response; ties go to the
        first action in the tree's order.
    """

    player: int
    value: float
    hand_values: np.ndarray
    policy: Policy


_ENGINES: dict = {}


def engine_for(game: Game):
    """The :class:`games.core.engine.Engine` used to evaluate policies of ``game`` (one per game object,
    cached; its work space is shared, so one game object should not be evaluated from several threads at
    once).

    The cache is keyed by the game object's ``id`` and emptied whenever it holds more than 32 engines and
    another game needs one (not a most-recently-used cache); a cached engine keeps its game object alive.

    Parameters
    ----------
    game : Game
        The game.

    Returns
    -------
    games.core.engine.Engine
        The cached engine of ``game`` (default settings: no locks, not predictive, not compressed), built on
        the first call.

    Raises
    ------
    ValueError
        If the engine cannot be built: a game with rake (:func:`games.core.engine.terminal_arrays`) whose
        terminal evaluator is the dense one, or an invalid rake array.
    """
    from games.core.engine import Engine

    eng = _ENGINES.get(id(game))
    if eng is None or eng.game is not game:
        if len(_ENGINES) > 32:
            _ENGINES.clear()
        eng = _ENGINES[id(game)] = Engine(game)
    return eng


def _as_policy(game: Game, policy) -> Policy:
    if isinstance(policy, Policy):
        if policy.game is not game:
            raise ValueError("the policy belongs to a different game object")
        return policy
    if isinstance(policy, dict):
        return Policy.from_dict(game, policy)
    return Policy(game, policy)


def result_from_values(game: Game, br: np.ndarray, value: float, values=None) -> ExploitabilityResult:
    """Assemble an :class:`ExploitabilityResult` from best-response values and player 1's policy value.

    ``values``, when given, are both players' policy values (games that are not zero-sum, e.g. raked): then
    ``NashConv = sum_p (br[p] - values[p])``; without it the game is zero-sum, ``values = (value, -value)``
    and ``NashConv = br[0] + br[1]`` exactly.

    Parameters
    ----------
    game : Game
        The game; its ``pot`` (chips at the root) and ``big_blind`` (or ``None``) are copied into the result.
    br : array_like of float, shape ``(2,)``
        Each player's best-response value against the other's strategy, chips.
    value : float
        Player 1's expected payoff under the policy, chips; ignored when ``values`` is given.
    values : array_like of float, shape ``(2,)``, optional
        Both players' expected payoffs under the policy, chips. If ``values[0] == -values[1]`` exactly,
        ``NashConv = br[0] + br[1]`` as in a zero-sum game.

    Returns
    -------
    ExploitabilityResult
        ``best_response_values = (br[0], br[1])``, ``policy_values``, ``nash_conv`` and ``exploitability =
        nash_conv / 2`` (chips), with the game's pot and big blind.
    """
    if values is None:
        nash_conv = float(br[0] + br[1])
        u = (float(value), -float(value))
    else:
        u = (float(values[0]), float(values[1]))
        if u[0] == -u[1]:
            nash_conv = float(br[0] + br[1])
        else:
            nash_conv = float((br[0] - u[0]) + (br[1] - u[1]))
    return ExploitabilityResult(
        best_response_values=(float(br[0]), float(br[1])),
        policy_values=u,
        nash_conv=nash_conv,
        exploitability=nash_conv / 2.0,
        pot=float(game.pot),
        big_blind=game.big_blind,
    )


def exploitability(game: Game, policy) -> ExploitabilityResult:
    """Best-response values, NashConv and exploitability (NashConv / 2) of a policy, in chips.

    Parameters
    ----------
    game : Game
    policy : Policy, dict or array_like
        A :class:`Policy`, a ``{node: (H_p, n_actions)}`` dict (see :meth:`Policy.from_dict`) or an edge-layout
        array of shape ``(N, Hm)``.

    Returns
    -------
    ExploitabilityResult

    Raises
    ------
    ValueError
        If the policy is invalid (negative or non-normalised rows, a missing node, wrong shape).

    Examples
    --------
    >>> from games.kuhn import KuhnPoker
    >>> from games.core import Policy, exploitability
    >>> g = KuhnPoker()
    >>> round(exploitability(g, Policy.uniform(g)).exploitability, 6)
    0.458333
    """
    pol = _as_policy(game, policy)
    eng = engine_for(game)
    table = eng.from_edges(pol.probs)
    br = eng.best_response_values(table)
    values = eng.policy_values(table)
    return result_from_values(game, br, float(values[0]), values=values)


def expected_value(game: Game, policy) -> float:
    """Player 1's expected payoff in chips when both players follow ``policy`` (in a zero-sum game player 2
    gets the negative).

    Parameters
    ----------
    game : Game
        The game.
    policy : Policy, dict or array_like
        A :class:`Policy` of ``game``, a ``{node: (H_p, n_actions)}`` dict (see :meth:`Policy.from_dict`) or
        an edge-layout array of shape ``(N, Hm)``.

    Returns
    -------
    float
        Player 1's expected payoff, chips (computed in the game's storage dtype).

    Raises
    ------
    ValueError
        If the policy is invalid (negative or non-normalised rows, a missing node, wrong shape) or is a
        :class:`Policy` of another game object.
    """
    pol = _as_policy(game, policy)
    eng = engine_for(game)
    return eng.expected_value(eng.from_edges(pol.probs))


def best_response(game: Game, policy, player: int) -> BestResponse:
    """A pure best response of ``player`` (0 or 1) to the other player's strategy in ``policy``.

    Parameters
    ----------
    game : Game
        The game.
    policy : Policy, dict or array_like
        A :class:`Policy` of ``game``, a ``{node: (H_p, n_actions)}`` dict (see :meth:`Policy.from_dict`) or
        an edge-layout array of shape ``(N, Hm)``; only the other player's strategy matters.
    player : int
        The responding player: 0 (player 1) or 1 (player 2).

    Returns
    -------
    BestResponse
        ``value``: his expected payoff against the other's strategy (chips); ``hand_values``: float64, shape
        ``(H_player,)``, the counterfactual value of each of his hands at the root (deal included, summing to
        ``value``); ``policy``: ``policy`` with his strategy replaced by the pure best response (ties to the
        first action in the tree's order).

    Raises
    ------
    ValueError
        If the policy is invalid or is a :class:`Policy` of another game object, or ``player`` is not 0 or 1.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    pol = _as_policy(game, policy)
    eng = engine_for(game)
    table = eng.from_edges(pol.probs)
    best = table.copy()
    hv = eng.hand_values(player, X.MODE_BEST_RESPONSE, table, best=best)
    probs = np.array(pol.probs)
    edges, _, _ = game.tree.action_edges(player)
    hp = game.num_hands[player]
    if edges.size:
        probs[edges, :hp] = eng.to_edges(best.astype(np.float64))[edges, :hp]
    return BestResponse(player, float(hv.sum()), hv, Policy(game, probs))

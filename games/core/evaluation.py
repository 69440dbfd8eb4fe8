"""The public seam between the solver core and its games: terminal evaluators and the best-response evaluator.

A game of the core (:class:`games.core.tree.Game`) owns its terminal evaluation, as a game owns ``evaluate`` in
postflop-solver: :meth:`~games.core.tree.Game.compiled_terminal` returns a *terminal spec* that the compiled
passes (CFR, best response) call at every terminal node. The core offers two, built here:

* :func:`dense_terminal` -- a chance-weighted payoff matrix per terminal (Kuhn, Leduc, the bet game; the default
  of :class:`~games.core.tree.Game`);
* :func:`ranked_showdown_terminal` -- the O(n) sorted showdown with card removal of :mod:`games.core.showdown`
  (hold'em endgames, :class:`hunl.solver.game.HoldemEndgame`), from data laid out as
  :func:`games.core.showdown.empty_ranked_data` describes; :func:`games.core.showdown.terminal_row` is its
  Python reference for one node.

Code that needs the core's passes themselves -- counterfactual values against a fixed opponent, a pure best
response node by node, as CFR-BR over tree leaves does (:mod:`hunl.distill.optimal_leaves`) -- uses
:func:`best_response_evaluator`: the compiled forward (reach) and backward (values) passes over one game, with the
modes :data:`MODE_BEST_RESPONSE` and :data:`MODE_EXPECTED`.
"""

from __future__ import annotations

from games.core import _kernels
from games.core.best_response import _Evaluator, _evaluator
from games.core.tree import Game

__all__ = ["MODE_BEST_RESPONSE", "MODE_EXPECTED", "BestResponseEvaluator", "best_response_evaluator",
           "dense_terminal", "ranked_showdown_terminal"]

#: Backward-pass mode: the responding player maximises over his actions (his best-response values).
MODE_BEST_RESPONSE = _kernels.MODE_BEST_RESPONSE
#: Backward-pass mode: both players follow the policy (expected counterfactual values).
MODE_EXPECTED = _kernels.MODE_EXPECTED

#: The compiled passes over one game: ``forward(probs)`` fills the reach of both players, then
#: ``backward(player, mode, probs)`` returns the root counterfactual values of ``player``'s hands and leaves every
#: node's values in ``cfv`` (``(N, Hm)``) and, in :data:`MODE_BEST_RESPONSE`, the best action index in ``best``
#: (``(N, Hm)``); ``evaluate(probs)`` returns both best-response values and player 1's value at once.
BestResponseEvaluator = _Evaluator


def best_response_evaluator(game: Game) -> BestResponseEvaluator:
    """The (cached) :class:`BestResponseEvaluator` of ``game``: one per game object, its buffers reused."""
    return _evaluator(game)


def dense_terminal(term_index, payoff) -> tuple:
    """Terminal spec of the dense evaluator: ``term_index`` int64 ``(N,)`` (row of each terminal node in
    ``payoff``, -1 elsewhere) and ``payoff`` float64 ``(T, H1, H2)`` (chance-weighted payoff to player 1)."""
    return _kernels.dense_spec(term_index, payoff)


def ranked_showdown_terminal(data: tuple) -> tuple:
    """Terminal spec of the ranked showdown (``data`` as :func:`games.core.showdown.empty_ranked_data` describes)."""
    return _kernels.ranked_spec(data)

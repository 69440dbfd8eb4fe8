"""The public seam between the solver core and its games: terminal evaluators and the solver engine.

A game of the core (:class:`games.core.tree.Game`) owns its terminal evaluation, as a game owns ``evaluate`` in
postflop-solver: :meth:`~games.core.tree.Game.terminal_evaluator` returns the evaluator that the compiled
traversal (:mod:`games.core.traversal`) calls for all the terminals of a unit at once. The core offers two, which
a game builds from its own data:

* :func:`dense_evaluator` -- a chance-weighted payoff matrix per terminal (Kuhn, Leduc, the bet game, preflop
  push/fold; the default of :class:`~games.core.tree.Game`);
* :func:`card_showdown_evaluator` -- hands that are sets of cards from one deck, with each board's hands listed
  by showdown strength (hold'em endgames, :class:`hunl.solver.game.HoldemEndgame`): fold and showdown values
  with card removal in O(hands) per terminal, no ``hands x hands`` matrix.

(The evaluator is data of a fixed form rather than a function the game passes in because numba cannot cache a
compiled function that takes another compiled function as an argument: it would recompile in every process.)

Code that needs the traversal itself -- counterfactual values of each action against a fixed opponent, a pure
best response node by node, as CFR-BR over tree leaves does (:mod:`hunl.distill.optimal_leaves`) -- uses the
:class:`Engine` of a game (:func:`engine_for`) with the modes :data:`MODE_BEST_RESPONSE` and
:data:`MODE_EXPECTED`, and strategies in its storage layout (:meth:`Engine.from_edges`).
"""

from __future__ import annotations

from games.core.best_response import engine_for
from games.core.engine import Engine, estimate_memory
from games.core.terminals import card_showdown_evaluator, dense_evaluator
from games.core.traversal import MODE_BEST_RESPONSE, MODE_EXPECTED

__all__ = ["MODE_BEST_RESPONSE", "MODE_EXPECTED", "Engine", "card_showdown_evaluator", "dense_evaluator",
           "engine_for", "estimate_memory"]

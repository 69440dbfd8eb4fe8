"""One solver core for two-player zero-sum extensive-form poker games (see ``DESIGN.md``, "The solver core").

* :mod:`games.core.tree` -- the game interface: a public tree over private hands with range vectors, and the
  terminal evaluator ``values(node, player, opp_reach)``;
* :mod:`games.core.evaluation` -- the public seam of the compiled traversal: the terminal evaluators a game
  returns from ``terminal_evaluator()``, and the solver :class:`~games.core.engine.Engine` of a game;
* :mod:`games.core.layout`, :mod:`games.core.traversal`, :mod:`games.core.terminals`, :mod:`games.core.engine`
  -- the solver itself: units of chance blocks, per-decision-node storage, one compiled traversal for CFR, best
  response and expected values, and the batched terminal evaluators;
* :mod:`games.core.check` -- :func:`check_game`, which simulates any game against the interface;
* :mod:`games.core.policy` -- behaviour strategies and their validation;
* :mod:`games.core.best_response` -- best response, NashConv and exploitability (NashConv / 2, OpenSpiel's
  meaning; the bet game's one-player measure is :func:`games.betgame.player1_exploitability`);
* :mod:`games.core.sequence_lp` -- the sequence-form LP (Koller, Megiddo & von Stengel 1996) solved with HiGHS;
* :mod:`games.core.cfr` -- vanilla CFR, CFR+, Discounted CFR and predictive CFR+ as parameters of one compiled
  loop;
* :mod:`games.core.locks` -- node locking (fixed strategies at chosen nodes and hands; the restricted game);
* :mod:`games.core.checkpoint` -- the solver state saved to one file and resumed bitwise.

Games implementing the interface: :class:`games.kuhn.KuhnPoker`, :class:`games.leduc.LeducHoldem` and
:class:`games.betgame.BetGameTree`.
"""

from games.core.best_response import (
    BestResponse,
    ExploitabilityResult,
    best_response,
    expected_value,
    exploitability,
)
from games.core.cfr import VARIANTS, CFRConfig, CFRResult, solve_cfr
from games.core.check import GameCheckReport, check_game
from games.core.checkpoint import SolverState, load_state, save_state
from games.core.locks import NodeLocks, check_locks
from games.core.policy import Policy
from games.core.sequence_lp import SequenceFormSolution, solve_lp
from games.core.tree import CHANCE, DECISION, TERMINAL, Game, NodeSpec, PublicTree

__all__ = [
    "CHANCE",
    "DECISION",
    "GAMES",
    "TERMINAL",
    "VARIANTS",
    "BestResponse",
    "CFRConfig",
    "CFRResult",
    "ExploitabilityResult",
    "Game",
    "GameCheckReport",
    "NodeLocks",
    "NodeSpec",
    "Policy",
    "PublicTree",
    "SequenceFormSolution",
    "SolverState",
    "best_response",
    "check_game",
    "check_locks",
    "expected_value",
    "exploitability",
    "load_game",
    "load_state",
    "save_state",
    "solve_cfr",
    "solve_lp",
]

#: Game names accepted by :func:`load_game`.
GAMES = ("kuhn", "leduc", "leduc-iso", "betgame")


def load_game(name: str) -> Game:
    """Construct a game by name: ``"kuhn"``, ``"leduc"``, ``"leduc-iso"`` (Leduc with the suits identified, an
    exact reduction to 3 hands per player) or ``"betgame"`` (the paper's bet game on the uniform deal of 10
    cards).

    Parameters
    ----------
    name : str
        One of :data:`GAMES`; case and surrounding spaces are ignored (``str(name)`` is read).

    Returns
    -------
    Game
        A new :class:`games.kuhn.KuhnPoker`, :class:`games.leduc.LeducHoldem` (``suit_isomorphic`` for
        ``"leduc-iso"``) or :class:`games.betgame.tree.BetGameTree` (on ``uniform_deal(10)``).

    Raises
    ------
    ValueError
        For an unknown name.
    """
    key = str(name).strip().lower()
    if key == "kuhn":
        from games.kuhn import KuhnPoker

        return KuhnPoker()
    if key in ("leduc", "leduc-iso"):
        from games.leduc import LeducHoldem

        return LeducHoldem(suit_isomorphic=key == "leduc-iso")
    if key == "betgame":
        from games.betgame.tree import BetGameTree
        from rulelearn.data.distributions import uniform_deal

        return BetGameTree(uniform_deal(10))
    raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")

"""The ten-card no-limit bet game of Ganzfried & Yusuf (2017): rules, exact LP solver, closed-form best responses.

>>> from games import betgame
>>> from rulelearn.data.distributions import uniform_deal
>>> sol = betgame.solve(uniform_deal(10))
>>> round(sol.value, 12)
0.065736485736
"""

from games.betgame.best_response import (
    Player1BestResponse,
    Player2BestResponse,
    expected_payoff,
    nash_conv,
    player1_best_response,
    player1_exploitability,
    player2_best_response,
)
from games.betgame.lp import VERIFY_TOLERANCE, BetGameSolution, UnverifiedSolutionError, solve, solve_many
from games.betgame.rules import DEFAULT_GAME, BetGame
from games.betgame.tree import BetGameTree

__all__ = [
    "BetGame",
    "BetGameTree",
    "DEFAULT_GAME",
    "BetGameSolution",
    "UnverifiedSolutionError",
    "VERIFY_TOLERANCE",
    "solve",
    "solve_many",
    "player1_exploitability",
    "nash_conv",
    "expected_payoff",
    "player1_best_response",
    "player2_best_response",
    "Player1BestResponse",
    "Player2BestResponse",
]

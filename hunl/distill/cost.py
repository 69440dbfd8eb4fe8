"""How much a policy costs inside a solved endgame: exploitability and expected value against the solution.

:func:`evaluate_policy` scores a behaviour policy of a :class:`hunl.solver.game.HoldemEndgame` (both players' strategies,
e.g. :func:`hunl.distill.policy.play` of a distilled policy) by

* its exploitability: NashConv / 2, the mean over the two seats of what a best response of the opponent gains
  against it (:func:`games.core.exploitability`), and
* its expected value against a reference policy (the DCFR solution): the mean over the two seats of its payoff
  when it plays one seat and the reference the other. The reference against itself scores 0 by construction, so a
  negative value is what the policy loses to the equilibrium per hand.

Both in chips, percent of the pot at the start of the endgame and milli-big-blinds per game (mbb/g).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.best_response import expected_value, exploitability
from games.core.policy import Policy
from games.core.tree import DECISION

__all__ = ["PolicyEvaluation", "evaluate_policy", "seat_mix"]


@dataclass(frozen=True)
class PolicyEvaluation:
    """Exploitability and EV against a reference of one policy in one endgame.

    Attributes
    ----------
    exploitability_chips : float
        NashConv / 2, chips per hand.
    exploitability_pct_pot : float
        The same in percent of the endgame's starting pot.
    exploitability_mbb : float
        The same in mbb/g.
    ev_chips : float
        Mean over the two seats of the policy's payoff against the reference, chips per hand (negative: it loses).
    ev_pct_pot, ev_mbb : float
        The same in percent of the pot and mbb/g.
    pot : float
        The endgame's starting pot, chips.
    """

    exploitability_chips: float
    exploitability_pct_pot: float
    exploitability_mbb: float
    ev_chips: float
    ev_pct_pot: float
    ev_mbb: float
    pot: float


def seat_mix(game, player1, player2) -> np.ndarray:
    """Edge-layout probabilities with player 1's decisions from ``player1`` and player 2's from ``player2``.

    Parameters
    ----------
    game : HoldemEndgame
    player1, player2 : Policy or numpy.ndarray of shape ``(N, Hm)``

    Returns
    -------
    numpy.ndarray of float64, shape ``(N, Hm)``
    """
    a = player1.probs if isinstance(player1, Policy) else np.asarray(player1, dtype=np.float64)
    b = player2.probs if isinstance(player2, Policy) else np.asarray(player2, dtype=np.float64)
    t = game.tree
    out = np.array(a, dtype=np.float64, copy=True)
    par = t.parent[1:]
    p2 = np.flatnonzero((t.kind[par] == DECISION) & (t.player[par] == 1)) + 1
    out[p2] = b[p2]
    return out


def evaluate_policy(game, policy, reference=None) -> PolicyEvaluation:
    """Exploitability of ``policy`` and, given a ``reference``, its expected value against it.

    Parameters
    ----------
    game : HoldemEndgame
    policy : Policy or numpy.ndarray of shape ``(N, Hm)``
        Both players' strategies (edge layout).
    reference : Policy or numpy.ndarray, optional
        The strategy to play against (e.g. the DCFR average policy). Without it the EV fields are NaN.

    Returns
    -------
    PolicyEvaluation

    Raises
    ------
    ValueError
        If a policy is invalid for the game (see :func:`games.core.policy.check_edge_probs`).
    """
    pol = policy if isinstance(policy, Policy) else Policy(game, policy)
    ex = exploitability(game, pol).exploitability
    if reference is None:
        ev = float("nan")
    else:
        ref = reference if isinstance(reference, Policy) else Policy(game, reference)
        as_p1 = expected_value(game, Policy(game, seat_mix(game, pol, ref)))
        as_p2 = -expected_value(game, Policy(game, seat_mix(game, ref, pol)))
        ev = 0.5 * (as_p1 + as_p2)
    pot, bb = float(game.pot), float(game.big_blind)
    return PolicyEvaluation(float(ex), 100.0 * ex / pot, 1000.0 * ex / bb, float(ev), 100.0 * ev / pot,
                            1000.0 * ev / bb, pot)

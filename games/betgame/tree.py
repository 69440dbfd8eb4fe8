"""The ten-card bet game as a public tree over private hands: its adapter to :mod:`games.core`.

The rules are those of :mod:`games.betgame.rules` (Ganzfried & Yusuf 2017, Section 1). The public tree has the
root (player 1 picks a bet from the grid), a terminal showdown after a check (bet 0), and after each positive bet
a decision of player 2 with actions ``"fold"`` (player 1 wins the ante of player 2: ``+ante``) and ``"call"``
(showdown for ``ante + bet``). Hands are the cards ``0 .. n_cards - 1`` (labelled 1..n as in the paper). The deal
is the arbitrary joint matrix ``probs[i, j]`` (one board), so the generic solvers see exactly the game that
:func:`games.betgame.solve` and the closed-form best responses of :mod:`games.betgame.best_response` solve.

:meth:`BetGameTree.policy_from_strategies` and :meth:`BetGameTree.strategies` convert between the generic
:class:`games.core.Policy` and the bet game's ``(strategy, call_probability)`` arrays.
"""

from __future__ import annotations

import numpy as np

from games.betgame.rules import DEFAULT_GAME, BetGame
from games.core.policy import Policy
from games.core.tree import DECISION, TERMINAL, Game, NodeSpec, PublicTree

__all__ = ["BetGameTree"]


class BetGameTree(Game):
    """One deal of the bet game as a :class:`games.core.Game`.

    Parameters
    ----------
    probs : array_like of float, shape ``(n, n)``
        The joint deal: player 1 holds card ``i`` and player 2 card ``j`` with probability ``probs[i, j]``.
    rules : BetGame, default :data:`games.betgame.DEFAULT_GAME`
        Deck size, ante, stack and bet grid.

    Attributes
    ----------
    name : str
        ``"betgame"``.
    pot : float
        ``2 * ante`` chips.
    big_blind : None
        The bet game has antes only; results are in chips.

    Raises
    ------
    ValueError
        If ``probs`` is not a valid single deal (see :meth:`BetGame.check_deal`).
    """

    name = "betgame"

    def __init__(self, probs, rules: BetGame = DEFAULT_GAME):
        p = rules.check_deal(probs)
        if p.ndim != 2:
            raise ValueError(f"probs must be a single deal of shape (n, n), got {p.shape}")
        self.rules = rules
        self.probs = p
        ante = float(rules.ante)
        children = []
        for label, s in zip(rules.action_labels(), rules.bets):
            if s == 0.0:
                child = NodeSpec(TERMINAL, showdown_stake=ante)
            else:
                child = NodeSpec(DECISION, player=1, children=[
                    ("fold", NodeSpec(TERMINAL, fold_value=ante)),
                    ("call", NodeSpec(TERMINAL, showdown_stake=ante + float(s))),
                ])
            children.append((label, child))
        self.tree = PublicTree.build(NodeSpec(DECISION, player=0, children=children))
        n = rules.n_cards
        self.num_hands = (n, n)
        self.deal = p[None].copy()
        self.showdown = np.sign(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(np.float64)[None]
        self.pot = 2.0 * ante
        self.big_blind = None
        # node of each bet (child of the root), and of player 2's "call" action per positive bet
        root_kids = self.tree.children(0)
        self._bet_nodes = np.arange(root_kids.start, root_kids.stop)

    def hand_labels(self, player: int) -> list[str]:
        """Cards ``"1" .. "n"`` (the paper's numbering; hand ``i`` is card ``i + 1``)."""
        return [str(k + 1) for k in range(self.rules.n_cards)]

    def payoff(self, node: int, hand1: int, hand2: int) -> float:
        """Payoff to player 1 in chips from the rules of :mod:`games.betgame.rules`."""
        t = self.tree
        node = t.node(node)
        if t.kind[node] != TERMINAL:
            raise ValueError(f"node {node} is not terminal")
        ante = self.rules.ante
        if t.parent[node] == 0:  # a check
            bet, action = 0.0, "call"
        else:
            bet_node = t.parent[node]
            bet = self.rules.bets[bet_node - self._bet_nodes[0]]
            action = t.action[node]
        if action == "fold":
            return ante
        return (ante + bet) * (1.0 if hand1 > hand2 else -1.0)

    # ------------------------------------------------------------------ conversions
    def policy_from_strategies(self, strategy, call_probability) -> Policy:
        """A :class:`Policy` from player 1's ``strategy (n, n_bets)`` and player 2's ``call_probability
        (n, n_bets)`` (the check column is ignored).

        Raises
        ------
        ValueError
            On invalid arrays (see :meth:`BetGame.check_strategy` and :meth:`BetGame.check_call_probability`).
        """
        x = self.rules.check_strategy(strategy, batch=None)
        c = self.rules.check_call_probability(call_probability, batch=None)
        t = self.tree
        probs = np.ones((t.n_nodes, self.max_hands))
        probs[self._bet_nodes] = x.T
        for b, node in enumerate(self._bet_nodes):
            if t.kind[node] == DECISION:
                kids = t.children(node)
                probs[kids.start] = 1.0 - c[:, b]  # fold
                probs[kids.start + 1] = c[:, b]  # call
        return Policy(self, probs)

    def strategies(self, policy: Policy) -> tuple[np.ndarray, np.ndarray]:
        """``(strategy, call_probability)``, each float64 ``(n, n_bets)``, from a :class:`Policy` of this game
        (call probability 1 in the check column, as in :mod:`games.betgame.rules`)."""
        if policy.game is not self:
            raise ValueError("the policy belongs to a different game object")
        t = self.tree
        x = policy.probs[self._bet_nodes].T.copy()
        c = np.ones_like(x)
        for b, node in enumerate(self._bet_nodes):
            if t.kind[node] == DECISION:
                c[:, b] = policy.probs[t.children(node).start + 1]
        return x, c

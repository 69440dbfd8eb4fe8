"""Kuhn poker (Kuhn 1950) as a public tree over private hands (:class:`games.core.Game`).

Three cards J < Q < K; each player antes 1 chip and is dealt one card (no card is dealt twice, so each of the 6
ordered deals has probability 1/6). Player 1 passes ("p") or bets 1 chip ("b"); facing a bet a player folds
("p") or calls ("b"); after pass-pass or a call the higher card wins the pot. The game value to player 1 is
-1/18 chips (Kuhn 1950). Actions and hands follow OpenSpiel's ``kuhn_poker`` (action 0 = pass, 1 = bet; cards
0, 1, 2 = J, Q, K), so an information state ``"1pb"`` is player 1 holding Q at public node ``"p/b"``.
"""

from __future__ import annotations

import numpy as np

from games.core.tree import DECISION, TERMINAL, Game, NodeSpec, PublicTree

__all__ = ["KUHN_VALUE", "KuhnPoker"]

#: The value of Kuhn poker to player 1, in chips (Kuhn 1950).
KUHN_VALUE = -1.0 / 18.0

_CARDS = ("J", "Q", "K")


def _showdown(stake: float) -> NodeSpec:
    return NodeSpec(TERMINAL, showdown_stake=stake)


def _fold(value: float) -> NodeSpec:
    return NodeSpec(TERMINAL, fold_value=value)


class KuhnPoker(Game):
    """Three-card Kuhn poker: 2 players, 3 hands each, 12 information sets, ante 1 chip.

    Attributes
    ----------
    name : str
        ``"kuhn"``.
    pot : float
        2 chips (the antes).
    big_blind : None
        Kuhn poker has antes, no blinds: results are in chips; mbb/g is not reported.
    """

    name = "kuhn"

    def __init__(self):
        ante = 1.0
        root = NodeSpec(DECISION, player=0, children=[
            ("p", NodeSpec(DECISION, player=1, children=[
                ("p", _showdown(ante)),
                ("b", NodeSpec(DECISION, player=0, children=[
                    ("p", _fold(-ante)),
                    ("b", _showdown(ante + 1.0)),
                ])),
            ])),
            ("b", NodeSpec(DECISION, player=1, children=[
                ("p", _fold(+ante)),
                ("b", _showdown(ante + 1.0)),
            ])),
        ])
        self.tree = PublicTree.build(root)
        self.num_hands = (3, 3)
        off = 1.0 - np.eye(3)
        self.deal = (off / 6.0)[None]
        self.showdown = np.sign(np.arange(3)[:, None] - np.arange(3)[None, :]).astype(np.float64)[None]
        self.pot = 2.0 * ante
        self.big_blind = None

    def hand_labels(self, player: int) -> list[str]:
        """``["J", "Q", "K"]`` for either player."""
        return list(_CARDS)

    def payoff(self, node: int, hand1: int, hand2: int) -> float:
        """Payoff to player 1 in chips from the rules: the history decides fold/showdown and the stake."""
        hist = self.tree.history[self.tree.node(node)].replace("/", "")
        if hand1 == hand2:
            raise ValueError("both players cannot hold the same card")
        better = 1.0 if hand1 > hand2 else -1.0
        if hist == "pp":
            return better * 1.0
        if hist in ("pbb", "bb"):
            return better * 2.0
        if hist == "pbp":
            return -1.0
        if hist == "bp":
            return 1.0
        raise ValueError(f"{hist!r} is not a terminal history of Kuhn poker")

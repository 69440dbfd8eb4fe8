"""Leduc hold'em (Southey et al. 2005) as a public tree over private hands (:class:`games.core.Game`).

A deck of six cards, two suits of J < Q < K. Each player antes 1 chip and is dealt one private card; player 1
acts first in both betting rounds. In each round a player may fold (only when facing a bet), check/call, or
raise, with at most two raises per round; raises are 2 chips in round 1 and 4 chips in round 2. After round 1 a
public card is dealt from the four remaining cards. At showdown a player whose card pairs the board wins;
otherwise the higher rank wins, and equal ranks split the pot.

Hands are the six cards, numbered as in OpenSpiel's ``leduc_poker``: card ``c`` has rank ``c // 2`` (0 = J,
1 = Q, 2 = K) and suit ``c % 2``. Actions follow OpenSpiel's ids and order: ``"f"`` fold (0), ``"c"`` check/call
(1), ``"r"`` raise (2); the public card's chance outcome is labelled by the card number. Boards: 0 before the
public card, ``1 + c`` after public card ``c``.

The game value to player 1 is -0.085606424078 chips (sequence-form LP, checked in the tests).
"""

from __future__ import annotations

import numpy as np

from games.core.tree import CHANCE, DECISION, TERMINAL, Game, NodeSpec, PublicTree

__all__ = ["LEDUC_VALUE", "LeducHoldem"]

#: The value of Leduc hold'em to player 1 in chips (sequence-form LP solution).
LEDUC_VALUE = -0.085606424078

_RANKS = ("J", "Q", "K")
_SUITS = ("s", "h")


def _rank(card: int) -> int:
    return card // 2


def _winner(card1: int, card2: int, board: int, ranks: bool = False) -> int:
    """+1 if player 1 wins the showdown, -1 if player 2 wins, 0 for a split (rule-level reference).

    The arguments are cards, or ranks when ``ranks`` is true.
    """
    r1, r2, rb = (card1, card2, board) if ranks else (_rank(card1), _rank(card2), _rank(board))
    if r1 == rb:
        return 1
    if r2 == rb:
        return -1
    return int(np.sign(r1 - r2))


class LeducHoldem(Game):
    """Leduc hold'em: 6 hands per player, 7 boards, 936 information sets (288 up to suit isomorphism).

    Parameters
    ----------
    suit_isomorphic : bool, default False
        Identify the two suits (an exact, lossless abstraction: suits never matter in Leduc). Hands are then the
        three ranks J, Q, K; the deal counts the cards of each rank (``P(J, J) = 2/30``, ``P(J, Q) = 4/30``), the
        public card is a rank (boards ``1 + r``) dealt from the remaining cards
        (``P(r | i, j) = (2 - [i = r] - [j = r]) / 4``), and equal ranks split the pot. The game value is the
        same; the public tree has half the boards and each player half the hands, so the sequence-form LP is about
        four times smaller. Policies are per rank (a card plays its rank's strategy).

    Attributes
    ----------
    name : str
        ``"leduc"``.
    pot : float
        2 chips (the antes).
    big_blind : None
        Leduc has antes, no blinds: results are in chips; mbb/g is not reported.
    """

    name = "leduc"
    n_cards = 6
    raise_sizes = (2.0, 4.0)
    max_raises = 2

    def __init__(self, suit_isomorphic: bool = False):
        self.ante = 1.0
        self.suit_isomorphic = bool(suit_isomorphic)
        if self.suit_isomorphic:
            self.name = "leduc-iso"
        # hands: cards (6) or ranks (3); copies[h] = cards per hand
        n = len(_RANKS) if self.suit_isomorphic else self.n_cards
        copies = np.full(n, len(_SUITS) if self.suit_isomorphic else 1.0)
        self._n_outcomes = n
        root = self._betting(0, (self.ante, self.ante), board=0, to_act=0, raises=0, first=True)
        self.tree = PublicTree.build(root)
        self.num_hands = (n, n)
        # P(hands i, j): copies[i] * (copies[j] - [i = j]) / (6 * 5)
        pairs = copies[:, None] * (copies[None, :] - np.eye(n))
        deal = np.zeros((1 + n, n, n))
        deal[0] = pairs / (self.n_cards * (self.n_cards - 1))
        showdown = np.zeros((1 + n, n, n))
        for c in range(n):  # public card (or rank) c, dealt from the 4 remaining cards
            left = copies[c] - (np.arange(n) == c)[:, None] - (np.arange(n) == c)[None, :]
            deal[1 + c] = deal[0] * np.clip(left, 0, None) / (self.n_cards - 2)
            for i in range(n):
                for j in range(n):
                    if deal[1 + c, i, j] > 0:
                        showdown[1 + c, i, j] = _winner(i, j, c, ranks=self.suit_isomorphic)
        self.deal = deal
        self.showdown = showdown
        self.pot = 2.0 * self.ante
        self.big_blind = None

    # ------------------------------------------------------------------ construction
    def _betting(self, rnd, contrib, board, to_act, raises, first) -> NodeSpec:
        facing = contrib[1 - to_act] > contrib[to_act]
        children = []
        if facing:  # fold: the folder loses what he has put in
            value = -contrib[0] if to_act == 0 else contrib[1]
            children.append(("f", NodeSpec(TERMINAL, fold_value=value, board=board)))
        # check / call
        called = (max(contrib), max(contrib))
        if first:  # a check by the first player: the round continues
            children.append(("c", self._betting(rnd, called, board, 1 - to_act, raises, False)))
        else:
            children.append(("c", self._end_round(rnd, called, board)))
        if raises < self.max_raises:
            new = list(contrib)
            new[to_act] = max(contrib) + self.raise_sizes[rnd]
            children.append(("r", self._betting(rnd, tuple(new), board, 1 - to_act, raises + 1, False)))
        return NodeSpec(DECISION, player=to_act, board=board, children=children)

    def _end_round(self, rnd, contrib, board) -> NodeSpec:
        if rnd == 0:
            kids = [(str(c), self._betting(1, contrib, 1 + c, to_act=0, raises=0, first=True))
                    for c in range(self._n_outcomes)]
            return NodeSpec(CHANCE, board=board, children=kids)
        return NodeSpec(TERMINAL, showdown_stake=contrib[0], board=board)

    # ------------------------------------------------------------------ interface
    def hand_labels(self, player: int) -> list[str]:
        """``["Js", "Jh", "Qs", "Qh", "Ks", "Kh"]`` (OpenSpiel's card numbering), or ``["J", "Q", "K"]``."""
        if self.suit_isomorphic:
            return list(_RANKS)
        return [_RANKS[_rank(c)] + _SUITS[c % 2] for c in range(self.n_cards)]

    def payoff(self, node: int, hand1: int, hand2: int) -> float:
        """Payoff to player 1 in chips, replaying the public history from the rules."""
        t = self.tree
        node = t.node(node)
        if t.kind[node] != TERMINAL:
            raise ValueError(f"node {node} is not terminal")
        actions = t.history[node].split("/")
        contrib = [self.ante, self.ante]
        rnd, to_act, board = 0, 0, None
        for a in actions:
            if a == "f":
                return -contrib[0] if to_act == 0 else contrib[1]
            if a == "c":
                contrib = [max(contrib)] * 2
                to_act = 1 - to_act
            elif a == "r":
                contrib[to_act] = max(contrib) + self.raise_sizes[rnd]
                to_act = 1 - to_act
            else:  # the public card
                board = int(a)
                rnd, to_act = 1, 0
        if self.suit_isomorphic:
            if board is None or hand1 == hand2 == board:
                raise ValueError(f"impossible showdown: ranks {hand1}, {hand2}, board {board}")
            return contrib[0] * _winner(hand1, hand2, board, ranks=True)
        if board is None or hand1 == hand2 or board in (hand1, hand2):
            raise ValueError(f"impossible showdown: hands {hand1}, {hand2}, board {board}")
        return contrib[0] * _winner(hand1, hand2, board)

"""The bet game's rule card vocabulary: the cdf features of the two ranges in words.

A bet-game rule set picks one full strategy per group of games from the cdf of each player's range
(``P(P2 holds <= 8)``: the chance that player 2's card is 8 or lower; Ganzfried & Yusuf 2017, *Games* 8(4),
Section 3). On a card they read "more than 75% of the opponent's range is 8 or lower". The card itself is built
and measured by :mod:`rulelearn.experiments.cards`.
"""

from __future__ import annotations

from rulelearn.rules.cards import Quantity

__all__ = ["cdf_quantities"]


def cdf_quantities(n_cards: int = 10) -> tuple[Quantity, ...]:
    """The phrases of the features ``P(P1 holds <= k)`` (player 1 is "you") and ``P(P2 holds <= k)`` ("the
    opponent"), ``k = 1 .. n_cards``, in the order of
    :class:`rulelearn.features.representations.Representation` ``("cdf", None)``.

    Parameters
    ----------
    n_cards : int, default 10
        Cards in the deck (the paper's game: 10). Not checked: ``n_cards <= 0`` gives no quantity.

    Returns
    -------
    tuple of rulelearn.rules.cards.Quantity
        ``2 * n_cards`` quantities of kind ``"share"``: player 1's ``k = 1 .. n_cards``, then player 2's. E.g.
        ``P(P2 holds <= 8)`` reads "more than {t} of the opponent's range is 8 or lower" (``x > t``) and "at
        most {t} of the opponent's range is 8 or lower" (``x <= t``), label "the opponent's range <= 8"; for
        ``k = 1`` the range "is a 1".

    Raises
    ------
    TypeError
        If ``n_cards`` is not an integer (``range`` rejects a float).
    """
    out = []
    for who, whose in (("P1", "your"), ("P2", "the opponent's")):
        for k in range(1, n_cards + 1):
            cards = "a 1" if k == 1 else f"{k} or lower"
            out.append(Quantity(f"P({who} holds <= {k})", "share", f"more than {{t}} of {whose} range is {cards}",
                                f"at most {{t}} of {whose} range is {cards}", label=f"{whose} range <= {k}"))
    return tuple(out)

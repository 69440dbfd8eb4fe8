"""The poker quantities a HUNL rule card names, in plain language, with their round thresholds.

Every feature of :mod:`hunl.distill.decisions` a card may test has a :class:`rulelearn.rules.cards.Quantity`:
its phrase for ``x > t`` and ``x <= t`` and its kind (which fixes its grid of round thresholds,
:func:`rulelearn.rules.plain.grid_for`). The ranges the features look at are the players' ranges at the start of
the endgame's street (``ranges="start"`` in :mod:`hunl.distill.decisions`), or for a card of ``ranges="own"`` the
player's own range at the decision (the hands it would have played the same way on this street) beside the
opponent's starting range (:func:`hunl.distill.cards.card_ranges`).

The *derived* quantities (:data:`DERIVED_FEATURES`: ``bluff_ratio``, ``beaten_ratio``, ``defend_ratio``,
``value_bluff_ratio``) are ratios of the
decision features, computed in the card's design matrix (:func:`derive_features`), so decision rows stored before
them serve cards that test them. A card tests them only when asked (``CardConfig.features``,
``rule_cards.py hunl --features +bluff_ratio``).

The *section* features say which part of the card a decision reads: ``street`` (4 turn, 5 river), ``in_position``
and ``facing`` (1 when facing a bet). They are not conditions of the rules (:data:`SECTION_FEATURES`).
"""

from __future__ import annotations

import numpy as np

from hunl.distill.decisions import TURN_FEATURES, VALUE_EQUITY
from rulelearn.rules.cards import Quantity
from rulelearn.rules.plain import count_grid, grid_for, scale_grid

__all__ = ["RATIO_CAP", "CARD_FEATURES", "DERIVED_FEATURES", "derive_features", "FLOP_QUANTITIES", "QUANTITIES", "SECTION_FEATURES", "design_matrix", "feature_grid", "section_title"]

#: Features naming the section of the card, not counted as conditions.
SECTION_FEATURES = ("street", "in_position", "facing")
#: Quantities a card computes from the decision features (not stored in the decision rows): ``bluff_ratio``, the
#: share of the player's own range its hand beats over the share of its own range that is strong (a hand with
#: ``bluff_ratio <= 0.5`` is among the weakest hands of the range, one for every two strong hands: the bluff-to-value
#: ratio of a pot-sized bet, for which a bettor bluffs ``b / (1 + b)`` hands for every value hand, Chen & Ankenman
#: 2006, Chapter 11); :data:`RATIO_CAP` where the range holds no strong hand. ``beaten_ratio``, the share of
#: the opponent's range that beats the hand over the opponent's strong share (at most 1: the hand loses only to as
#: many hands as the opponent has strong ones, a bluff catcher); the same cap where the opponent has no strong hand.
#: ``defend_ratio``, facing a bet of ``b`` pots, the share of the player's own range that beats the hand over the
#: minimum-defence share ``1 / (1 + b)`` (at most 1: the hand is among the hands that must continue so that a pure
#: bluff does not profit; NaN when not facing a bet).
#: ``value_bluff_ratio``, the share of the player's own range its hand beats over the player's value share
#: ``own_value`` (the hands of its range that beat more than :data:`hunl.distill.decisions.VALUE_EQUITY` of
#: the opponent's range): the bluff count of ``bluff_ratio`` against the value bets the range can make against
#: this opponent, not against its strong hands (it falls when the opponent's range is strong, as the
#: equilibrium's bluffs do).
DERIVED_FEATURES = ("bluff_ratio", "beaten_ratio", "defend_ratio", "value_bluff_ratio")
#: A derived ratio where its denominator (a strong share) is 0 (above every threshold of its grid).
RATIO_CAP = 1e6
#: Columns of a card's design matrix: :data:`hunl.distill.decisions.TURN_FEATURES`, the
#: :data:`DERIVED_FEATURES`, then ``facing`` and ``street``.
CARD_FEATURES = TURN_FEATURES + DERIVED_FEATURES + ("facing", "street")
_PCT, _OWN_STRONG = TURN_FEATURES.index("percentile"), TURN_FEATURES.index("own_strong")
_EQUITY, _OPP_STRONG = TURN_FEATURES.index("equity"), TURN_FEATURES.index("opp_strong")
_BET = TURN_FEATURES.index("facing_bet")
_OWN_VALUE = TURN_FEATURES.index("own_value")
_BLUFF, _BEATEN, _DEFEND, _VALUE_BLUFF = (CARD_FEATURES.index(f) for f in DERIVED_FEATURES)


def _decile_phrase(k: int, card: str = "river") -> str:
    if k == 1:
        return f"on the worst tenth of {card} cards"
    if k == 10:
        return f"on the best tenth of {card} cards"
    return f"on the {k}{'nd' if k == 2 else 'rd' if k == 3 else 'th'} tenth of {card} cards (from the worst)"


_VALUE = f"{VALUE_EQUITY:.0%}"


def _quantities(next_card: str = "river") -> tuple[Quantity, ...]:
    q = [
        Quantity("equity", "share", "your hand beats more than {t} of the opponent's range",
                 "your hand beats at most {t} of the opponent's range", "share of the opponent's range beaten",
                 "your hand beats between {lo} and {hi} of the opponent's range"),
        Quantity("equity_uniform", "share", "your hand beats more than {t} of all hands",
                 "your hand beats at most {t} of all hands", "share of all hands beaten"),
        Quantity("percentile", "share", "your hand beats more than {t} of your own range",
                 "your hand beats at most {t} of your own range", "share of your own range beaten",
                 "your hand beats between {lo} and {hi} of your own range"),
        Quantity("facing_bet", "scale", "the bet is more than {t} times the pot",
                 "the bet is at most {t} times the pot", "bet faced (pots)",
                 "the bet is more than {lo} and at most {hi} times the pot"),
        Quantity("spr", "scale", "the stack-to-pot ratio is above {t}", "the stack-to-pot ratio is at most {t}",
                 "stack-to-pot ratio",
                 "the stack-to-pot ratio is above {lo} and at most {hi}"),
        Quantity("opp_bets", "count", "the opponent has bet or raised at least {t} times on this street",
                 "the opponent has bet or raised at most {t} times on this street", "opponent's bets this street"),
        Quantity("opp_bets_prev", "count", "the opponent bet or raised at least {t} times on the turn",
                 "the opponent bet or raised at most {t} times on the turn", "opponent's bets on the turn"),
        Quantity("opp_strong", "share", "more than {t} of the opponent's range is strong",
                 "at most {t} of the opponent's range is strong", "opponent's strong share",
                 "between {lo} and {hi} of the opponent's range is strong"),
        Quantity("equity_margin", "signed", "your hand beats more than the pot odds b/(1+2b){t} of the "
                 "opponent's range", "your hand beats at most the pot odds b/(1+2b){t} of the opponent's range",
                 "share beaten minus pot odds",
                 "your hand beats between the pot odds b/(1+2b){lo} and the pot odds{hi} of the opponent's range"),
        Quantity("defend_margin", "signed", "your hand beats more than b/(1+b){t} of your own range",
                 "your hand beats at most b/(1+b){t} of your own range", "own-range share beaten minus b/(1+b)",
                 "your hand beats between b/(1+b){lo} and b/(1+b){hi} of your own range"),
        Quantity("own_strong", "share", "more than {t} of your range is strong",
                 "at most {t} of your range is strong", "your strong share",
                 "between {lo} and {hi} of your range is strong"),
        Quantity("range_equity", "share", "your range beats more than {t} of the opponent's range",
                 "your range beats at most {t} of the opponent's range", "range against range",
                 "your range beats between {lo} and {hi} of the opponent's range"),
        Quantity("beaten_ratio", "scale", "the opponent's hands that beat yours are more than {t} times its strong "
                 "hands", "the opponent's hands that beat yours are at most {t} times its strong hands",
                 "share of the opponent's range beating you over its strong share",
                 "the opponent's hands that beat yours are more than {lo} and at most {hi} times its strong hands"),
        Quantity("defend_ratio", "scale", "more than {t} times the minimum-defence share 1/(1+b) of your own range "
                 "beats your hand", "at most {t} times the minimum-defence share 1/(1+b) of your own range beats "
                 "your hand", "own-range share beating you over 1/(1+b)",
                 "more than {lo} and at most {hi} times the minimum-defence share 1/(1+b) of your own range beats "
                 "your hand"),
        Quantity("bluff_ratio", "scale", "your hand is above your weakest hands, {t} for each strong hand in your "
                 "range", "your hand is among your weakest hands, {t} for each strong hand in your range",
                 "own-range share beaten over your strong share",
                 "your hand is above your weakest hands, {lo} for each strong hand in your range, but among the "
                 "weakest, {hi} for each"),
        Quantity("own_value", "share",
                 f"more than {{t}} of your range beats {_VALUE} of the opponent's range",
                 f"at most {{t}} of your range beats {_VALUE} of the opponent's range", "your value share",
                 f"between {{lo}} and {{hi}} of your range beats {_VALUE} of the opponent's range"),
        Quantity("value_bluff_ratio", "scale",
                 "your hand is above your weakest hands, {t} for each hand of your "
                 f"range that beats {_VALUE} of the opponent's range",
                 "your hand is among your weakest hands, {t} for "
                 f"each hand of your range that beats {_VALUE} of the opponent's range",
                 "own-range share beaten over your value share",
                 "your hand is above your weakest hands, {lo} for each hand of your range that beats "
                 f"{_VALUE} of the opponent's range, but among the weakest, {{hi}} for each"),
    ]
    for k in range(1, 11):
        where = _decile_phrase(k, next_card)
        q.append(Quantity(f"decile_{k}", "share", f"{where} your hand beats more than {{t}} of the opponent's range",
                          f"{where} your hand beats at most {{t}} of the opponent's range",
                          f"{next_card} decile {k}"))
    return tuple(q)


#: Plain-language phrases of every feature a card may test (a "strong" hand beats 80% of all hands).
QUANTITIES = _quantities()
#: The same for a flop card: its equity deciles are over the turn card.
FLOP_QUANTITIES = _quantities("turn")


def feature_grid(name: str) -> np.ndarray | None:
    """Round thresholds of a card feature (``None`` for one the card never tests).

    The section features split at 0.5 (``in_position``, ``facing``) and 4.5 (``street``: turn or river); the
    quantities on the round grid of their kind (:func:`rulelearn.rules.plain.grid_for`), except ``facing_bet``
    (0.25 to 10 pots), ``spr`` (0.1 to 50), the :data:`DERIVED_FEATURES` (0.1 to 5) and the counts (0.5, 1.5,
    2.5: "at least 1, 2, 3").

    Parameters
    ----------
    name : str
        A column of :data:`CARD_FEATURES` (any string is accepted).

    Returns
    -------
    numpy.ndarray of float64, shape ``(k,)`` or None
        The candidate thresholds ``t`` of a condition ``x > t`` / ``x <= t``, increasing, in the feature's
        unit (a share in 0-1, a margin in -0.5 to 0.5, a bet in pots, a count); ``None`` if ``name`` is
        neither a section feature nor one of :data:`QUANTITIES`.
    """
    if name in ("in_position", "facing"):
        return np.array([0.5])
    if name == "street":
        return np.array([4.5])
    if name not in {q.name for q in QUANTITIES}:
        return None
    kind = next(q.kind for q in QUANTITIES if q.name == name)
    if name == "facing_bet":
        return scale_grid(0.25, 10.0)
    if name == "spr":
        return scale_grid(0.1, 50.0)
    if name in DERIVED_FEATURES:
        return scale_grid(0.1, 5.0)
    if kind == "count":
        return count_grid(3)
    return grid_for(kind)


def derive_features(Z: np.ndarray) -> np.ndarray:
    """Fill the :data:`DERIVED_FEATURES` columns of a card design matrix from its decision-feature columns.

    ``bluff_ratio = percentile / own_strong``, ``beaten_ratio = (1 - equity) / opp_strong`` and
    ``value_bluff_ratio = percentile / own_value``: shares of a range over strong (or value) shares (ratios,
    unitless), :data:`RATIO_CAP` where the strong share is 0 and NaN where an input is NaN. ``defend_ratio =
    (1 - percentile) * (1 + facing_bet)``: the own-range share beating the hand over the minimum-defence share
    ``1 / (1 + b)``, NaN when not facing a bet. The bluff-to-value ratio and the minimum defence they express
    are those of Chen & Ankenman (2006), *The Mathematics of Poker*, Chapter 11 (a bet of ``b`` pots is
    balanced by ``b / (1 + b)`` bluffs per value bet).

    Parameters
    ----------
    Z : numpy.ndarray of float64, shape ``(m, len(CARD_FEATURES))``
        Columns in :data:`CARD_FEATURES` order; its derived columns are overwritten in place.

    Returns
    -------
    numpy.ndarray
        ``Z`` itself.
    """
    for col, num, strong in ((_BLUFF, Z[:, _PCT], Z[:, _OWN_STRONG]),
                             (_BEATEN, 1.0 - Z[:, _EQUITY], Z[:, _OPP_STRONG]),
                             (_VALUE_BLUFF, Z[:, _PCT], Z[:, _OWN_VALUE])):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = np.where(strong > 0, num / np.where(strong > 0, strong, 1.0), RATIO_CAP)
        Z[:, col] = np.where(np.isnan(num) | np.isnan(strong), np.nan, np.minimum(ratio, RATIO_CAP))
    b = Z[:, _BET]
    Z[:, _DEFEND] = np.where(b > 0, (1.0 - Z[:, _PCT]) * (1.0 + b), np.nan)
    return Z


def design_matrix(X, street: int, facing: bool) -> np.ndarray:
    """``(m, len(CARD_FEATURES))`` card design matrix from node feature rows ``X`` (``TURN_FEATURES`` order, at
    least the street's columns; missing columns are NaN), with the :data:`DERIVED_FEATURES`.

    How a card reads a decision (:meth:`hunl.distill.cards.CardPolicy.design`). Unlike the design matrix a
    card is grown on, the features about the bet faced keep their values where no bet is faced.

    Parameters
    ----------
    X : array_like of float, shape ``(m, F)``
        Feature rows of the decision's hands (:func:`hunl.distill.decisions.node_features`), in
        :data:`hunl.distill.decisions.TURN_FEATURES` order; ``F`` at most ``len(TURN_FEATURES)`` (the river's
        rows lack the decile columns).
    street : int
        Board cards at the decision (3 flop, 4 turn, 5 river): the ``street`` column.
    facing : bool
        Whether the player faces a bet: the ``facing`` column (1.0 or 0.0).

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, len(CARD_FEATURES))``
        Columns in :data:`CARD_FEATURES` order: ``X``, NaN in its missing columns, the derived ratios
        (:func:`derive_features`), ``facing`` and ``street``.

    Raises
    ------
    IndexError
        If ``X`` is not two-dimensional (one-dimensional or a scalar).
    ValueError
        If ``X`` has more columns than :data:`CARD_FEATURES`, or more than two dimensions.
    """
    X = np.asarray(X, dtype=np.float64)
    out = np.full((X.shape[0], len(CARD_FEATURES)), np.nan)
    out[:, :X.shape[1]] = X
    out[:, -2] = float(facing)
    out[:, -1] = float(street)
    return derive_features(out)


def section_title(street: int | None, player: int | None, facing: bool | None) -> str:
    """``"River, out of position (acting first), not facing a bet"`` (``None``: either).

    Parameters
    ----------
    street : {3, 4, 5} or None
        Board size of the section (3 flop, 4 turn, 5 river); ``None``: any street.
    player : {0, 1} or None
        0 out of position (acting first), 1 in position (acting last); ``None``: either.
    facing : bool or None
        Whether the player faces a bet; ``None``: any decision.

    Returns
    -------
    str
        The title of a card section, ``"<street>, <position>, <decision>"``.

    Raises
    ------
    KeyError
        If a value is not one of those listed.
    """
    s = {None: "Any street", 3: "Flop", 4: "Turn", 5: "River"}[street]
    p = {None: "either position", 0: "out of position (acting first)", 1: "in position (acting last)"}[player]
    f = {None: "any decision", False: "not facing a bet", True: "facing a bet"}[facing]
    return f"{s}, {p}, {f}"

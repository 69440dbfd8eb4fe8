"""Cards, two-card hands (combos), boards and the 13x13 hand grid of heads-up no-limit hold'em.

Conventions (shared by every ``hunl`` module and by the Libratus endgame files, see
``data/libratus_endgames/README.md``):

- ranks ``"23456789TJQKA"`` are 0..12 and suits ``"shdc"`` are 0..3; a card is the integer ``4 * rank + suit``
  (2s = 0, 2h = 1, 2d = 2, 2c = 3, 3s = 4, ..., Ac = 51). Card strings are two characters: the rank (upper
  case; ``t j q k a`` are accepted too) then the suit (lower case);
- a combo (a two-card hand) is a pair of cards ``(i, j)`` with ``i < j``; the 1,326 combos are numbered in
  lexicographic order of ``(i, j)``: 0 = 2s2h, 1 = 2s2d, 2 = 2s2c, 3 = 2s3s, ..., 1325 = AdAc;
- the 13x13 hand grid of solver UIs (and of Figure 4 of the HULHE paper): row/column 0 is the Ace and 12 the
  Two; pairs lie on the diagonal, suited hands above it (row = higher rank, column = lower rank) and offsuit
  hands below it (row = lower rank, column = higher rank). A grid cell is ``row * 13 + col``.

>>> parse_cards("7s 9h 9c Tc")
(20, 29, 31, 35)
>>> combo_label(combo_index("Kh", "As")), combo_index("As", "Kh")
('AsKh', 1307)
>>> hand_class_label(int(HAND_CLASS[combo_index("As", "Kh")])), hand_class_label(int(HAND_CLASS[0]))
('AKo', '22')
>>> int(board_conflicts("7s9h9cTc").sum())      # 4 * 51 - 6 combos hold a board card
198
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = [
    "RANKS",
    "SUITS",
    "NUM_RANKS",
    "NUM_SUITS",
    "NUM_CARDS",
    "NUM_COMBOS",
    "NUM_CLASSES",
    "COMBO_CARDS",
    "COMBO_INDEX",
    "CARD_COMBOS",
    "COMBO_LABELS",
    "HAND_CLASS",
    "HAND_CLASS_LABELS",
    "CLASS_SIZES",
    "parse_card",
    "format_card",
    "parse_cards",
    "format_cards",
    "combo_index",
    "parse_combo",
    "combo_label",
    "check_board",
    "card_mask",
    "board_conflicts",
    "class_cell",
    "hand_class_label",
    "parse_hand_class",
    "class_combos",
    "grid_average",
    "card_totals",
    "unblocked_sums",
]

#: Rank characters, index = rank (0 = Two ... 12 = Ace).
RANKS = "23456789TJQKA"
#: Suit characters, index = suit (0 = spades, 1 = hearts, 2 = diamonds, 3 = clubs).
SUITS = "shdc"
NUM_RANKS = 13
NUM_SUITS = 4
#: Cards in the deck.
NUM_CARDS = 52
#: Two-card hands: 52 choose 2.
NUM_COMBOS = 1326
#: Cells of the 13x13 hand grid (13 pairs, 78 suited and 78 offsuit classes).
NUM_CLASSES = 169

_RANK_OF_CHAR = {c: i for i, c in enumerate(RANKS)}
_RANK_OF_CHAR.update({c.lower(): i for i, c in enumerate(RANKS) if c.isalpha()})
_SUIT_OF_CHAR = {c: i for i, c in enumerate(SUITS)}


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


def _build_tables():
    first, second = np.triu_indices(NUM_CARDS, k=1)              # lexicographic (i, j), i < j
    combo_cards = np.stack([first, second], axis=1).astype(np.int16)
    combo_index = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int16)
    ks = np.arange(NUM_COMBOS, dtype=np.int16)
    combo_index[first, second] = ks
    combo_index[second, first] = ks
    # combos holding card c: row c of combo_index without the diagonal, in increasing combo order
    off_diagonal = ~np.eye(NUM_CARDS, dtype=bool)
    card_combos = np.sort(combo_index[off_diagonal].reshape(NUM_CARDS, NUM_CARDS - 1), axis=1)

    hi_rank = combo_cards[:, 1] // NUM_SUITS                    # the second card never has a lower rank
    lo_rank = combo_cards[:, 0] // NUM_SUITS
    suited = combo_cards[:, 0] % NUM_SUITS == combo_cards[:, 1] % NUM_SUITS
    hi_row, lo_row = 12 - hi_rank, 12 - lo_rank
    row = np.where(suited | (hi_rank == lo_rank), hi_row, lo_row)
    col = np.where(suited | (hi_rank == lo_rank), lo_row, hi_row)
    hand_class = (row * NUM_RANKS + col).astype(np.int16)
    return combo_cards, combo_index, card_combos, hand_class


COMBO_CARDS, COMBO_INDEX, CARD_COMBOS, HAND_CLASS = (_readonly(a) for a in _build_tables())
# COMBO_CARDS: int16 (1326, 2), the cards (i, j), i < j, of each combo, in lexicographic order.
# COMBO_INDEX: int16 (52, 52), symmetric, COMBO_INDEX[i, j] = combo of cards i != j, -1 on the diagonal.
# CARD_COMBOS: int16 (52, 51), the combos holding each card, increasing.
# HAND_CLASS: int16 (1326,), each combo's grid cell row * 13 + col (0 = AA, 1 = AKs, 13 = AKo, 168 = 22).
#: Number of combos in each grid cell, int64 (169,): 6 for a pair, 4 suited, 12 offsuit.
CLASS_SIZES = _readonly(np.bincount(HAND_CLASS, minlength=NUM_CLASSES))
_CLASS_ORDER = _readonly(np.argsort(HAND_CLASS, kind="stable"))
_CLASS_START = _readonly(np.concatenate([[0], np.cumsum(CLASS_SIZES)]))


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def parse_card(card, name: str = "card") -> int:
    """Card index of a card string such as ``"Ah"`` (or of an index, checked).

    Parameters
    ----------
    card : str or int
        Two characters, rank then suit (``"Td"``, ``"td"``), or an integer in 0..51.
    name : str
        Parameter name used in error messages.

    Returns
    -------
    int
        ``4 * rank + suit`` with ranks ``"23456789TJQKA"`` -> 0..12 and suits ``"shdc"`` -> 0..3.

    Raises
    ------
    ValueError
        If the string is not a rank followed by a lower-case suit, or the integer is outside 0..51.
    TypeError
        If ``card`` is neither a string nor an integer.

    Examples
    --------
    >>> parse_card("2s"), parse_card("Ac"), parse_card("th")
    (0, 51, 33)
    """
    if _is_int(card):
        if not 0 <= card < NUM_CARDS:
            raise ValueError(f"{name}: card index {int(card)} is outside 0..51")
        return int(card)
    if not isinstance(card, str):
        raise TypeError(
            f"{name} must be a card string like 'Ah' or an index 0..51, got {type(card).__name__}"
        )
    if len(card) != 2 or card[0] not in _RANK_OF_CHAR or card[1] not in _SUIT_OF_CHAR:
        raise ValueError(
            f"{name}: unknown card {card!r}; a card is a rank from '{RANKS}' followed by a lower-case suit "
            f"from '{SUITS}', e.g. 'Ah'"
        )
    return NUM_SUITS * _RANK_OF_CHAR[card[0]] + _SUIT_OF_CHAR[card[1]]


def format_card(card: int) -> str:
    """Two-character string of a card index (``0 -> "2s"``, ``51 -> "Ac"``).

    Parameters
    ----------
    card : int or str
        Card index in 0..51 (a card string such as ``"Ah"`` is accepted too and normalised).

    Returns
    -------
    str
        Rank character (upper case) then suit character (lower case), e.g. ``"Ac"``.

    Raises
    ------
    ValueError
        As :func:`parse_card`: an integer outside 0..51 or an unknown card string.
    TypeError
        As :func:`parse_card`: ``card`` is neither a string nor an integer.
    """
    c = parse_card(card)
    return RANKS[c // NUM_SUITS] + SUITS[c % NUM_SUITS]


def parse_cards(cards, name: str = "cards") -> tuple[int, ...]:
    """Card indices of several cards, in the order given.

    Parameters
    ----------
    cards : str or iterable of str/int
        ``"7s9h9cTc"``, ``"7s 9h 9c Tc"`` (spaces or commas between cards are ignored), ``["7s", "9h"]``,
        or card indices (a list, tuple or integer numpy array).
    name : str
        Parameter name used in error messages.

    Returns
    -------
    tuple of int
        Card indices. Repeated cards are kept (see :func:`check_board` to reject them).

    Raises
    ------
    ValueError
        On an unknown card or a string whose length (without separators) is odd.
    TypeError
        If ``cards`` is not a string or an iterable of cards.
    """
    if isinstance(cards, str):
        text = cards.replace(",", " ")
        compact = "".join(text.split())
        if len(compact) % 2:
            raise ValueError(f"{name}: {cards!r} does not split into two-character cards like '7s9h'")
        return tuple(parse_card(compact[i:i + 2], name) for i in range(0, len(compact), 2))
    if _is_int(cards):
        raise TypeError(f"{name} must be a string or a sequence of cards, got a single integer {cards!r}")
    if isinstance(cards, np.ndarray):
        if cards.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {cards.shape}")
        cards = cards.tolist()
    if not isinstance(cards, Iterable):
        raise TypeError(f"{name} must be a string or a sequence of cards, got {type(cards).__name__}")
    return tuple(parse_card(c, name) for c in cards)


def format_cards(cards, sep: str = "") -> str:
    """String of several cards (``(20, 29) -> "7s9h"``); ``sep`` goes between cards.

    Parameters
    ----------
    cards : str or iterable of str/int
        Anything :func:`parse_cards` reads: ``"7s9h"``, ``["7s", "9h"]`` or card indices (0-51).
    sep : str, default ""
        Put between consecutive cards (e.g. ``" "`` for ``"7s 9h"``).

    Returns
    -------
    str
        Two characters per card (rank then suit), in the order given; ``""`` for no card.

    Raises
    ------
    ValueError
        On an unknown card, a string whose length (without separators) is odd, or an array that is not
        one-dimensional (from :func:`parse_cards`).
    TypeError
        If ``cards`` is not a string or an iterable of cards.
    """
    return sep.join(format_card(c) for c in parse_cards(cards))


def combo_index(c1, c2) -> int:
    """Combo index (0..1325) of the two-card hand ``{c1, c2}``, in either order.

    Parameters
    ----------
    c1, c2 : str or int
        Cards as strings (``"As"``) or indices.

    Returns
    -------
    int
        The position of ``(min, max)`` in the lexicographic order of pairs ``i < j``.

    Raises
    ------
    ValueError
        If a card is invalid or the two cards are the same.

    Examples
    --------
    >>> combo_index("2s", "2h"), combo_index("Ac", "Ad"), combo_index(3, 0)
    (0, 1325, 2)
    """
    a, b = parse_card(c1, "c1"), parse_card(c2, "c2")
    if a == b:
        raise ValueError(f"a combo needs two different cards, got {format_card(a)} twice")
    return int(COMBO_INDEX[a, b])


def parse_combo(text: str, name: str = "combo") -> int:
    """Combo index of a four-character hand such as ``"AsKh"`` (cards in either order).

    Parameters
    ----------
    text : str
        Two cards as :func:`parse_cards` reads them (``"AsKh"``, ``"Kh As"``, ``"as,kh"``).
    name : str, default "combo"
        Parameter name used in error messages.

    Returns
    -------
    int
        Combo index in 0..1325 (as :func:`combo_index`).

    Raises
    ------
    ValueError
        If ``text`` is not a string, is not two cards (an unknown card, an odd number of characters or a
        number of cards other than two) or repeats a card.
    """
    cards = parse_cards(text, name) if isinstance(text, str) else None
    if cards is None or len(cards) != 2:
        raise ValueError(f"{name}: {text!r} is not a two-card hand like 'AsKh'")
    if cards[0] == cards[1]:
        raise ValueError(f"{name}: {text!r} holds the same card twice")
    return int(COMBO_INDEX[cards[0], cards[1]])


def _combo_label(k: int) -> str:
    a, b = (int(x) for x in COMBO_CARDS[k])
    if a // NUM_SUITS != b // NUM_SUITS:
        a, b = b, a                                               # higher rank first
    return format_card(a) + format_card(b)


#: Labels of the 1,326 combos, higher rank first (a pair in suit order s, h, d, c): ``"2s2h", ..., "AdAc"``.
COMBO_LABELS = tuple(_combo_label(k) for k in range(NUM_COMBOS))


def combo_label(k) -> str:
    """Label of combo ``k``: higher-ranked card first, a pair's cards in suit order s, h, d, c (``"AsKh"``).

    Parameters
    ----------
    k : int
        Combo index in 0..1325 (a Python or numpy integer; not a bool).

    Returns
    -------
    str
        Four characters, e.g. ``"AsKh"`` (the entry ``k`` of :data:`COMBO_LABELS`).

    Raises
    ------
    ValueError
        If ``k`` is not an integer in 0..1325.
    """
    if not _is_int(k) or not 0 <= k < NUM_COMBOS:
        raise ValueError(f"combo index must be an integer in 0..1325, got {k!r}")
    return COMBO_LABELS[int(k)]


def check_board(board, min_cards: int = 3, max_cards: int = 5, name: str = "board") -> tuple[int, ...]:
    """Parse and validate a board.

    Parameters
    ----------
    board : str or sequence of str/int
        The board, in any form :func:`parse_cards` accepts.
    min_cards, max_cards : int
        Allowed number of cards (3..5 by default: flop, turn or river).
    name : str
        Parameter name used in error messages.

    Returns
    -------
    tuple of int
        The board's card indices, in the order given.

    Raises
    ------
    ValueError
        On an unknown card, a repeated card, or a number of cards outside ``[min_cards, max_cards]``.
    """
    cards = parse_cards(board, name)
    if not min_cards <= len(cards) <= max_cards:
        span = str(min_cards) if min_cards == max_cards else f"{min_cards} to {max_cards}"
        raise ValueError(f"{name} must have {span} cards, got {len(cards)} ({format_cards(cards)!r})")
    if len(set(cards)) != len(cards):
        repeated = sorted({c for c in cards if cards.count(c) > 1})
        raise ValueError(f"{name} repeats the card(s) {', '.join(format_card(c) for c in repeated)}")
    return cards


def card_mask(cards) -> np.ndarray:
    """Combos that hold at least one of ``cards``.

    Parameters
    ----------
    cards : str or sequence of str/int
        Any cards (dead cards, a board, a hand); repeats are harmless.

    Returns
    -------
    numpy.ndarray of bool, shape (1326,)
        True for every combo sharing a card with ``cards``.
    """
    idx = np.asarray(parse_cards(cards), dtype=np.intp)
    mask = np.zeros(NUM_COMBOS, dtype=bool)
    mask[CARD_COMBOS[idx].ravel()] = True
    return mask


def board_conflicts(board) -> np.ndarray:
    """Combos that share a card with ``board`` (0 to 5 distinct cards), bool (1326,).

    Parameters
    ----------
    board : str or sequence of str/int
        The board, in any form :func:`parse_cards` accepts (``""`` for no board).

    Returns
    -------
    numpy.ndarray of bool, shape (1326,)
        True for every combo holding a board card.

    Raises
    ------
    ValueError
        As :func:`check_board` with ``min_cards=0``: an unknown card, a repeated card or more than 5 cards.
    TypeError
        If ``board`` is not a string or an iterable of cards (from :func:`parse_cards`).
    """
    return card_mask(check_board(board, min_cards=0, max_cards=5))


def class_cell(high_rank: int, low_rank: int, suited: bool) -> int:
    """Grid cell (``row * 13 + col``) of a hand class given by its ranks (0 = Two ... 12 = Ace).

    ``suited`` is ignored for pairs.

    Parameters
    ----------
    high_rank : int
        Rank of the higher card, 0 (Two) .. 12 (Ace).
    low_rank : int
        Rank of the lower card, 0..12, at most ``high_rank`` (equal for a pair).
    suited : bool
        Suited class (cell above the diagonal) rather than offsuit (below it).

    Returns
    -------
    int
        Grid cell in 0..168 (row/column 0 is the Ace, 12 the Two; layout as :data:`HAND_CLASS`).

    Raises
    ------
    ValueError
        If a rank is not an integer in 0..12 or ``high_rank < low_rank``.
    """
    if not (_is_int(high_rank) and _is_int(low_rank) and 0 <= low_rank <= high_rank < NUM_RANKS):
        raise ValueError(f"need ranks 0 <= low_rank <= high_rank <= 12, got {high_rank!r}, {low_rank!r}")
    hi_row, lo_row = 12 - int(high_rank), 12 - int(low_rank)
    if suited or high_rank == low_rank:
        return hi_row * NUM_RANKS + lo_row
    return lo_row * NUM_RANKS + hi_row


def _class_label(cell: int) -> str:
    row, col = divmod(cell, NUM_RANKS)
    if row == col:
        return RANKS[12 - row] * 2
    if row < col:
        return RANKS[12 - row] + RANKS[12 - col] + "s"
    return RANKS[12 - col] + RANKS[12 - row] + "o"


#: Labels of the 169 grid cells in cell order: ``"AA", "AKs", "AQs", ..., "AKo", "KK", ..., "22"``.
HAND_CLASS_LABELS = tuple(_class_label(c) for c in range(NUM_CLASSES))
_CELL_OF_LABEL = {label: cell for cell, label in enumerate(HAND_CLASS_LABELS)}


def hand_class_label(cell) -> str:
    """Label of a grid cell: ``"QQ"`` (pair), ``"AKs"`` (suited, above the diagonal), ``"AKo"`` (offsuit).

    Parameters
    ----------
    cell : int
        Grid cell ``row * 13 + col`` in 0..168 (a Python or numpy integer; not a bool).

    Returns
    -------
    str
        The class label, higher rank first (the entry ``cell`` of :data:`HAND_CLASS_LABELS`).

    Raises
    ------
    ValueError
        If ``cell`` is not an integer in 0..168.
    """
    if not _is_int(cell) or not 0 <= cell < NUM_CLASSES:
        raise ValueError(f"grid cell must be an integer in 0..168, got {cell!r}")
    return HAND_CLASS_LABELS[int(cell)]


def parse_hand_class(label: str) -> int:
    """Grid cell of a class label such as ``"AKs"``, ``"t9o"`` or ``"QQ"`` (higher rank first).

    Parameters
    ----------
    label : str
        Two rank characters (either case), higher first, then ``"s"`` (suited) or ``"o"`` (offsuit, lower
        case) unless the ranks are equal (a pair, no suffix).

    Returns
    -------
    int
        Grid cell ``row * 13 + col`` in 0..168.

    Raises
    ------
    ValueError
        If ``label`` is not a pair, or two different ranks (higher first) followed by ``s`` or ``o``.
    """
    key = label[:2].upper() + label[2:] if isinstance(label, str) else None
    if key not in _CELL_OF_LABEL:
        raise ValueError(
            f"unknown hand class {label!r}; expected e.g. 'QQ', 'AKs' or 'AKo' (higher rank first)"
        )
    return _CELL_OF_LABEL[key]


def class_combos(cell) -> np.ndarray:
    """Combo indices in a grid cell, increasing, int (6,), (4,) or (12,).

    Parameters
    ----------
    cell : int
        Grid cell ``row * 13 + col`` in 0..168.

    Returns
    -------
    numpy.ndarray of int64, shape (6,), (4,) or (12,)
        The combos (0..1325) of the cell, increasing: 6 for a pair, 4 for a suited and 12 for an offsuit
        class; a writable copy.

    Raises
    ------
    ValueError
        If ``cell`` is not an integer in 0..168.
    """
    hand_class_label(cell)
    return _CLASS_ORDER[_CLASS_START[cell]:_CLASS_START[cell + 1]].copy()


def grid_average(values, weights=None) -> np.ndarray:
    """Weighted mean of per-combo values over each cell of the 13x13 hand grid (for heatmaps).

    Parameters
    ----------
    values : array_like, shape (1326,) or (1326, A)
        A number per combo, or A numbers per combo (e.g. action probabilities). Entries whose weight is 0 are
        ignored and may be NaN (e.g. hands blocked by the board).
    weights : array_like, shape (1326,), optional
        Nonnegative weights (e.g. a range or reach probabilities); all ones if omitted.

    Returns
    -------
    numpy.ndarray of float64, shape (13, 13) or (13, 13, A)
        ``out[row, col]`` is the weighted mean over the combos of that cell (layout as :data:`HAND_CLASS`),
        NaN where the cell's total weight is 0.

    Raises
    ------
    ValueError
        On wrong shapes, negative or non-finite weights, or a non-finite value with positive weight.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim not in (1, 2) or v.shape[0] != NUM_COMBOS:
        raise ValueError(f"values must have shape (1326,) or (1326, A), got {v.shape}")
    if weights is None:
        w = np.ones(NUM_COMBOS)
    else:
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (NUM_COMBOS,):
            raise ValueError(f"weights must have shape (1326,), got {w.shape}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("weights must be finite and nonnegative")
    live = w > 0
    v2 = v.reshape(NUM_COMBOS, -1)
    if not np.all(np.isfinite(v2[live])):
        raise ValueError("values must be finite on every combo with positive weight")
    n_cols = v2.shape[1]
    weighted = np.where(live[:, None], v2 * w[:, None], 0.0)
    flat = (HAND_CLASS.astype(np.intp)[:, None] * n_cols + np.arange(n_cols)).ravel()
    sums = np.bincount(flat, weighted.ravel(), minlength=NUM_CLASSES * n_cols).reshape(NUM_CLASSES, n_cols)
    totals = np.bincount(HAND_CLASS, w, minlength=NUM_CLASSES)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(totals[:, None] > 0, sums / totals[:, None], np.nan)
    shape = (NUM_RANKS, NUM_RANKS) if v.ndim == 1 else (NUM_RANKS, NUM_RANKS, n_cols)
    return out.reshape(shape)


def card_totals(weights) -> np.ndarray:
    """Sum of per-combo weights over the 51 combos that hold each card.

    Parameters
    ----------
    weights : array_like, shape (1326,) or (1326, A)

    Returns
    -------
    numpy.ndarray of float64, shape (52,) or (52, A)
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim not in (1, 2) or w.shape[0] != NUM_COMBOS:
        raise ValueError(f"weights must have shape (1326,) or (1326, A), got {w.shape}")
    return w[CARD_COMBOS].sum(axis=1)


def unblocked_sums(weights) -> np.ndarray:
    """For each combo, the total weight of the opponent combos that share no card with it.

    By inclusion-exclusion, ``total - card_totals[a] - card_totals[b] + weights[k]`` for combo ``k = (a, b)``
    (combo ``k`` itself is the only combo holding both ``a`` and ``b``): O(1326) instead of the O(1326^2) sum
    over a conflict matrix.

    Parameters
    ----------
    weights : array_like, shape (1326,) or (1326, A)
        Opponent weights (a range or reach probabilities).

    Returns
    -------
    numpy.ndarray of float64, same shape as ``weights``
    """
    w = np.asarray(weights, dtype=np.float64)
    ct = card_totals(w)
    return w.sum(axis=0) - ct[COMBO_CARDS[:, 0]] - ct[COMBO_CARDS[:, 1]] + w

"""hunl.poker.cards: card/combo tables against brute-force enumeration, the hand grid, masks and grid averages."""

import doctest
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.poker import cards
from hunl.poker.cards import (
    CARD_COMBOS,
    CLASS_SIZES,
    COMBO_CARDS,
    COMBO_INDEX,
    COMBO_LABELS,
    HAND_CLASS,
    HAND_CLASS_LABELS,
    NUM_CARDS,
    NUM_COMBOS,
    board_conflicts,
    card_mask,
    card_totals,
    check_board,
    class_cell,
    class_combos,
    combo_index,
    combo_label,
    format_card,
    format_cards,
    grid_average,
    hand_class_label,
    parse_card,
    parse_cards,
    parse_combo,
    parse_hand_class,
    unblocked_sums,
)

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"
DECK = [r + s for r in RANK_CHARS for s in SUIT_CHARS]          # index order 2s, 2h, 2d, 2c, 3s, ...
PAIRS = list(itertools.combinations(range(52), 2))


def test_docstring_examples():
    result = doctest.testmod(cards, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_card_strings_and_indices():
    assert NUM_CARDS == 52 and NUM_COMBOS == 1326 == len(PAIRS)
    for i, text in enumerate(DECK):
        assert parse_card(text) == i and format_card(i) == text
    assert (parse_card("2s"), parse_card("2h"), parse_card("Ac"), parse_card("7s")) == (0, 1, 51, 20)
    for upper in "TJQKA":
        assert parse_card(upper.lower() + "d") == parse_card(upper + "d")
    assert parse_card(np.int64(7)) == 7


@pytest.mark.parametrize("bad", ["1s", "AS", "A", "Asd", "", "Ax", "10s", 52, -1])
def test_bad_card_raises_value_error(bad):
    with pytest.raises(ValueError, match="card"):
        parse_card(bad)


@pytest.mark.parametrize("bad", [True, 1.5, None, b"As"])
def test_non_card_type_raises_type_error(bad):
    with pytest.raises(TypeError, match="card"):
        parse_card(bad)


def test_parse_cards_accepts_every_form():
    expected = (20, 29, 31, 35)
    for form in ("7s9h9cTc", "7s 9h 9c Tc", "7s,9h,9c,tc", ["7s", "9h", "9c", "Tc"], [20, 29, 31, 35],
                 np.array([20, 29, 31, 35]), ("7s", 29, "9c", 35)):
        assert parse_cards(form) == expected
    assert format_cards(expected) == "7s9h9cTc" and format_cards(expected, " ") == "7s 9h 9c Tc"
    with pytest.raises(ValueError, match="two-character"):
        parse_cards("7s9")
    with pytest.raises(TypeError):
        parse_cards(7)


def test_combo_tables_match_itertools():
    assert COMBO_CARDS.shape == (1326, 2) and COMBO_CARDS.dtype in (np.int8, np.int16)
    assert [tuple(map(int, row)) for row in COMBO_CARDS] == PAIRS
    assert COMBO_INDEX.shape == (52, 52) and COMBO_INDEX.dtype == np.int16
    assert np.array_equal(COMBO_INDEX, COMBO_INDEX.T) and np.all(np.diag(COMBO_INDEX) == -1)
    for k, (i, j) in enumerate(PAIRS):
        assert COMBO_INDEX[i, j] == k
    assert CARD_COMBOS.shape == (52, 51) and CARD_COMBOS.dtype == np.int16
    for c in range(52):
        assert sorted(CARD_COMBOS[c].tolist()) == [k for k, pair in enumerate(PAIRS) if c in pair]
    assert not COMBO_CARDS.flags.writeable and not HAND_CLASS.flags.writeable


def test_combo_index_and_labels():
    assert combo_index("2s", "2h") == 0 and combo_index("Ac", "Ad") == 1325 and combo_index("2s", "3s") == 3
    assert combo_index("Kh", "As") == combo_index("As", "Kh") == PAIRS.index((45, 48))
    assert COMBO_LABELS[0] == "2s2h" and COMBO_LABELS[3] == "3s2s" and COMBO_LABELS[-1] == "AdAc"
    for k, (i, j) in enumerate(PAIRS):
        label = combo_label(k)
        first, second = label[:2], label[2:]
        assert {first, second} == {DECK[i], DECK[j]}
        # higher rank first; a pair in suit order s, h, d, c
        assert (RANK_CHARS.index(first[0]), -SUIT_CHARS.index(first[1])) > \
            (RANK_CHARS.index(second[0]), -SUIT_CHARS.index(second[1]))
        assert parse_combo(label) == k and parse_combo(second + first) == k
    with pytest.raises(ValueError, match="two different cards"):
        combo_index("As", "As")
    for bad in (-1, 1326, 2.0, True):
        with pytest.raises(ValueError, match="0..1325"):
            combo_label(bad)
    for bad in ("AsAs", "AsK", "AsKhQd"):
        with pytest.raises(ValueError, match="combo"):
            parse_combo(bad)


def test_check_board_rules():
    assert check_board("7s9h9cTc") == (20, 29, 31, 35)
    assert check_board([], min_cards=0) == ()
    with pytest.raises(ValueError, match=r"board repeats the card\(s\) 9h"):
        check_board("7s9h9h")
    with pytest.raises(ValueError, match="board must have 3 to 5 cards, got 2"):
        check_board("7s9h")
    with pytest.raises(ValueError, match="board must have 3 to 5 cards, got 6"):
        check_board("2s3s4s5s6s7s")
    with pytest.raises(ValueError, match="board: unknown card 'Zs'"):
        check_board("7s9hZs")
    with pytest.raises(ValueError, match="flop must have 3 cards"):
        check_board("7s9hTcJc", 3, 3, name="flop")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 51), max_size=8))
def test_card_mask_matches_brute_force(dead):
    expected = np.array([i in dead or j in dead for i, j in PAIRS])
    assert np.array_equal(card_mask(dead), expected)
    distinct = sorted(set(dead))[:5]
    mask = board_conflicts(distinct)
    n = len(distinct)
    assert mask.sum() == n * 51 - n * (n - 1) // 2
    assert np.array_equal(mask, np.array([i in distinct or j in distinct for i, j in PAIRS]))


def _reference_class_label(k):
    """Class label of combo k from its card strings alone."""
    (r1, s1), (r2, s2) = DECK[PAIRS[k][0]], DECK[PAIRS[k][1]]
    hi, lo = sorted((r1, r2), key=RANK_CHARS.index, reverse=True)
    if hi == lo:
        return hi + lo
    return hi + lo + ("s" if s1 == s2 else "o")


def test_hand_grid_classes():
    assert HAND_CLASS.shape == (1326,)
    for k in range(NUM_COMBOS):
        assert HAND_CLASS_LABELS[HAND_CLASS[k]] == _reference_class_label(k)
    counts = np.bincount(HAND_CLASS, minlength=169).reshape(13, 13)
    assert np.array_equal(counts, CLASS_SIZES.reshape(13, 13))
    rows, cols = np.indices((13, 13))
    assert np.all(counts[rows == cols] == 6) and np.all(counts[rows < cols] == 4)
    assert np.all(counts[rows > cols] == 12)
    assert counts.sum() == 1326 and sorted(np.unique(counts)) == [4, 6, 12]
    # layout: Ace in row/col 0, Two in 12; suited above the diagonal, offsuit below
    assert hand_class_label(0) == "AA" and hand_class_label(168) == "22"
    assert hand_class_label(1) == "AKs" and hand_class_label(13) == "AKo" and hand_class_label(12) == "A2s"
    assert hand_class_label(12 * 13) == "A2o" and hand_class_label(2 * 13 + 2) == "QQ"
    assert class_cell(12, 11, True) == 1 and class_cell(12, 11, False) == 13 and class_cell(0, 0, True) == 168


def test_class_labels_and_members():
    seen = []
    for cell in range(169):
        label = hand_class_label(cell)
        assert parse_hand_class(label) == cell and parse_hand_class(label.lower()[:2] + label[2:]) == cell
        members = class_combos(cell)
        assert np.all(HAND_CLASS[members] == cell) and len(members) == CLASS_SIZES[cell]
        seen += members.tolist()
    assert sorted(seen) == list(range(1326))
    for bad in ("KAs", "AAs", "AKx", "A", 5):
        with pytest.raises(ValueError, match="hand class"):
            parse_hand_class(bad)
    for bad in (-1, 169, 1.0):
        with pytest.raises(ValueError, match="0..168"):
            hand_class_label(bad)
    with pytest.raises(ValueError, match="ranks"):
        class_cell(3, 5, True)


def _grid_average_reference(values, weights):
    values = values.reshape(1326, -1)
    out = np.full((13, 13, values.shape[1]), np.nan)
    for cell in range(169):
        members = [k for k in range(1326) if HAND_CLASS[k] == cell and weights[k] > 0]
        total = sum(weights[k] for k in members)
        if total > 0:
            out[cell // 13, cell % 13] = sum(weights[k] * values[k] for k in members) / total
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.floats(0.0, 0.95))
def test_grid_average_matches_loop(seed, n_actions, zero_share):
    rng = np.random.default_rng(seed)
    shape = (1326,) if n_actions == 0 else (1326, n_actions)
    values = rng.normal(size=shape)
    weights = rng.random(1326) * (rng.random(1326) >= zero_share)
    values[weights == 0] = np.nan                         # ignored where the weight is 0
    got = grid_average(values, weights)
    expected = _grid_average_reference(values, weights)
    assert got.shape == ((13, 13) if n_actions == 0 else (13, 13, n_actions))
    np.testing.assert_allclose(got.reshape(13, 13, -1), expected, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_grid_average_unweighted_and_errors():
    values = np.arange(1326, dtype=float)
    grid = grid_average(values)
    assert grid[0, 0] == np.mean(class_combos(0)) and not np.any(np.isnan(grid))
    with pytest.raises(ValueError, match="values must have shape"):
        grid_average(np.zeros(1325))
    with pytest.raises(ValueError, match="weights must have shape"):
        grid_average(values, np.ones(3))
    with pytest.raises(ValueError, match="nonnegative"):
        grid_average(values, -np.ones(1326))
    with pytest.raises(ValueError, match="positive weight"):
        grid_average(np.full(1326, np.nan), np.ones(1326))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 2))
def test_unblocked_sums_match_conflict_matrix(seed, n_cols):
    rng = np.random.default_rng(seed)
    weights = rng.random((1326,) if n_cols == 0 else (1326, n_cols))
    conflict = np.zeros((1326, 1326), dtype=bool)       # test-only reference: the matrix the library avoids
    for c in range(52):
        conflict[np.ix_(CARD_COMBOS[c], CARD_COMBOS[c])] = True
    expected = (~conflict).astype(float) @ weights
    np.testing.assert_allclose(unblocked_sums(weights), expected, rtol=1e-12)
    totals = card_totals(weights)
    assert totals.shape == (52,) + weights.shape[1:]
    np.testing.assert_allclose(totals.sum(axis=0), 2 * weights.sum(axis=0))

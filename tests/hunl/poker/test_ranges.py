"""hunl.poker.ranges: solver range syntax against a string-based reference, round trips, and every error rule."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.poker import ranges
from hunl.poker.cards import COMBO_LABELS, HAND_CLASS, board_conflicts, class_combos
from hunl.poker.ranges import check_range, format_range, parse_range

RANK_CHARS = "23456789TJQKA"


def test_docstring_examples():
    result = doctest.testmod(ranges, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def reference_class(label):
    """0/1 weights of a class label, computed from the combo label strings alone (no parser involved)."""
    out = np.zeros(1326)
    for k, text in enumerate(COMBO_LABELS):
        ranks, suits = {text[0], text[2]}, {text[1], text[3]}
        hi, lo = max(text[0], text[2], key=RANK_CHARS.index), min(text[0], text[2], key=RANK_CHARS.index)
        if hi + lo != label[:2]:
            continue
        if len(ranks) == 1 or len(label) == 2 or (label[2] == "s") == (len(suits) == 1):
            out[k] = 1.0
    return out


def reference_union(*labels):
    return np.maximum.reduce([reference_class(label) for label in labels])


@pytest.mark.parametrize("cell", range(0, 169, 7))
def test_single_classes_match_reference(cell):
    from hunl.poker.cards import hand_class_label
    label = hand_class_label(cell)
    assert np.array_equal(parse_range(label), reference_class(label))
    if len(label) == 3:
        assert np.array_equal(parse_range(label[:2]), reference_union(label[:2] + "s", label[:2] + "o"))


@pytest.mark.parametrize("text, labels", [
    ("QQ+", ["QQ", "KK", "AA"]),
    ("99-66", ["99", "88", "77", "66"]),
    ("66-99", ["99", "88", "77", "66"]),
    ("A5s+", ["A5s", "A6s", "A7s", "A8s", "A9s", "ATs", "AJs", "AQs", "AKs"]),
    ("A5o+", ["A5o", "A6o", "A7o", "A8o", "A9o", "ATo", "AJo", "AQo", "AKo"]),
    ("T8+", ["T8s", "T9s", "T8o", "T9o"]),
    ("KTs-K7s", ["KTs", "K9s", "K8s", "K7s"]),
    ("K7o-KTo", ["KTo", "K9o", "K8o", "K7o"]),
    ("T9s-76s", ["T9s", "98s", "87s", "76s"]),
    ("T8o-64o", ["T8o", "97o", "86o", "75o", "64o"]),
    ("A5s-K4s", ["A5s", "K4s"]),
    ("J9-T8", ["J9s", "T8s", "J9o", "T8o"]),
    ("AKs,22", ["AKs", "22"]),
    (" aks , t9s ", ["AKs", "T9s"]),
])
def test_spans_match_reference(text, labels):
    assert np.array_equal(parse_range(text), reference_union(*labels))


def test_counts_of_classic_ranges():
    assert parse_range("22+").sum() == 78 and parse_range("A2s+").sum() == 48
    assert parse_range("AK").sum() == 16
    assert parse_range("AA,KK,AKs,AKo").sum() == 6 + 6 + 4 + 12
    w = parse_range("AsKh,Ah2h:0.5")
    assert w.sum() == 1.5 and w[COMBO_LABELS.index("AsKh")] == 1 and w[COMBO_LABELS.index("Ah2h")] == 0.5


def test_later_tokens_override_earlier_ones():
    aks, ako = reference_class("AKs").astype(bool), reference_class("AKo").astype(bool)
    w = parse_range("AK,AKs:0.5")
    assert np.all(w[aks] == 0.5) and np.all(w[ako] == 1.0)
    assert np.all(parse_range("AKs:0.5,AK")[aks | ako] == 1.0)
    assert np.array_equal(parse_range("QQ+,KK:0"), reference_union("QQ", "AA"))
    k = COMBO_LABELS.index("AsKs")
    w = parse_range("AKs:0.25,AsKs:1")
    assert w[k] == 1.0 and w.sum() == 1.75


def test_board_zeroes_conflicting_combos_only_when_asked():
    w = parse_range("AA,KK", board="AsKd7c")
    assert w.sum() == 6 and np.all(w[board_conflicts("AsKd7c")] == 0)


@pytest.mark.parametrize("text, token, rule", [
    ("AKx", "AKx", "suffix 'x' must be 's'"),
    ("AAs", "AAs", "pair .* cannot be suited"),
    ("A", "A", "needs two ranks"),
    ("ZZ", "ZZ", "unknown rank 'Z'"),
    ("QQ:1.5", "QQ:1.5", r"in \[0, 1\]"),
    ("QQ:-0.1", "QQ:-0.1", r"in \[0, 1\]"),
    ("QQ:abc", "QQ:abc", "not a number"),
    ("QQ:nan", "QQ:nan", r"in \[0, 1\]"),
    ("T9s-76o", "T9s-76o", "same suffix"),
    ("A5s-K3s", "A5s-K3s", "same top card .* same gap"),
    ("AsAs", "AsAs", "two different cards"),
    ("KAs", "KAs", "higher rank first"),
    ("QQ-AKs", "QQ-AKs", "mix a pair"),
    ("AKs-AQs-AJs", "AKs-AQs-AJs", "exactly one '-'"),
    ("AA,AKsss", "AKsss", "not a hand class"),
    (":0.5", ":0.5", "needs a hand"),
])
def test_malformed_tokens_name_token_and_rule(text, token, rule):
    with pytest.raises(ValueError, match=rf"range token '{token}'.*{rule}"):
        parse_range(text)


@pytest.mark.parametrize("text", ["", "   ", "AA,,KK", "AA,"])
def test_empty_text_or_token(text):
    with pytest.raises(ValueError, match="empty"):
        parse_range(text)


def test_parse_range_type_error():
    with pytest.raises(TypeError, match="string"):
        parse_range(["AA"])


@pytest.mark.parametrize("weights, expected", [
    ("QQ+,AKs,AKo:0.5,T9s-98s:0.25", "QQ+,AKs,AKo:0.5,T9s-98s:0.25"),
    ("AK,KQ", "AK-KQ"),
    ("AK,QJ", "AK,QJ"),
    ("AKs,KQs,QJs,54s", "AKs-QJs,54s"),
    ("K2s+,Q5s+", "K2s+,Q5s+"),
    ("KTs-K7s,99-66,JJ-TT", "JJ-66,KTs-K7s"),
    ("AK,AKs:0.5", "AKo,AKs:0.5"),
    ("AsKh,AsKd:0.5", "AsKh,AsKd:0.5"),
    ("AK,AsKh:0.5", "AK,AsKh:0.5"),
    ("QQ+,AsAh:0", "QQ+,AsAh:0"),
    ("AK:0.3,AhKh:0.2,AsKs:0.2", "AK:0.3,AsKs:0.2,AhKh:0.2"),
    ("AsAh,AsAd,KK:0.5", "KK:0.5,AsAh,AsAd"),
    ("22+", "22+"),
])
def test_format_range_is_compact(weights, expected):
    assert format_range(parse_range(weights)) == expected


def test_format_range_precision_and_board():
    w = parse_range("AA:0.123456,KK:0.6,QQ:0.5")
    assert format_range(w, precision=2) == "KK:0.6,QQ:0.5,AA:0.12"
    assert format_range(w, precision=0) == "KK"           # 0.6 rounds to 1, 0.5 (half to even) and 0.12 to 0
    assert format_range(np.zeros(1326)) == ""
    w = parse_range("AA,KK,AKs", board="As7d2c")
    assert format_range(w, board="As7d2c") == "KK+,AKs"
    assert np.array_equal(parse_range("KK+,AKs", board="As7d2c"), w)
    with pytest.raises(ValueError, match="conflict with the board"):
        format_range(parse_range("AA"), board="As7d2c")
    for bad in (-1, 13, 1.5, True):
        with pytest.raises(ValueError, match="precision"):
            format_range(w, precision=bad)
    with pytest.raises(ValueError, match=r"within \[0, 1\]"):
        format_range(np.full(1326, 1.5))


@st.composite
def grid_ranges(draw):
    """Weights on the 10**-precision grid: random whole classes, random partial classes, random combos."""
    precision = draw(st.integers(0, 4))
    scale = 10 ** precision
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    q = np.zeros(1326, dtype=np.int64)
    levels = rng.integers(0, scale + 1, size=draw(st.integers(1, 4)))   # few weights, so classes group
    whole = rng.random(169) < draw(st.floats(0, 1))
    q[whole[HAND_CLASS]] = rng.choice(levels, size=169)[HAND_CLASS][whole[HAND_CLASS]]
    for cell in rng.choice(169, size=draw(st.integers(0, 10)), replace=False):
        members = class_combos(int(cell))
        q[members] = rng.choice(levels, size=members.size) * (rng.random(members.size) < 0.7)
    single = rng.random(1326) < draw(st.sampled_from([0.0, 0.01, 0.3]))
    q[single] = rng.integers(0, scale + 1, size=int(single.sum()))
    return q / scale, precision, rng


@settings(max_examples=150, deadline=None)
@given(grid_ranges())
def test_format_parse_round_trip(case):
    weights, precision, _ = case
    text = format_range(weights, precision)
    if not np.any(weights > 0):
        assert text == ""
        return
    assert np.array_equal(parse_range(text), weights), text
    # never more tokens than printing uniform classes whole and every nonzero combo of the others
    q = np.rint(weights * 10**precision)
    listing = 0
    for cell in range(169):
        members = q[class_combos(cell)]
        listing += 1 if members.min() == members.max() > 0 else int(np.count_nonzero(members))
    assert len(text.split(",")) <= listing


@settings(max_examples=60, deadline=None)
@given(grid_ranges(), st.integers(0, 5))
def test_format_parse_round_trip_on_a_board(case, n_board):
    weights, precision, rng = case
    board = rng.choice(52, size=n_board, replace=False).tolist()
    weights = np.where(board_conflicts(board), 0.0, weights)
    text = format_range(weights, precision, board=board)
    if np.any(weights > 0):
        assert np.array_equal(parse_range(text, board=board), weights), text


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_format_rounds_arbitrary_weights(seed, precision):
    w = np.random.default_rng(seed).random(1326)
    back = parse_range(format_range(w, precision))
    assert np.max(np.abs(back - w)) <= 0.5 * 10.0 ** -precision + 1e-15


def test_check_range_rules():
    w = parse_range("AA,KK")
    out = check_range(w)
    assert out.dtype == np.float64 and np.array_equal(out, w) and out is not w
    with pytest.raises(ValueError, match=r"hero must have shape \(1326,\)"):
        check_range(np.ones(5), name="hero")
    with pytest.raises(ValueError, match="NaN"):
        check_range(np.full(1326, np.nan))
    with pytest.raises(ValueError, match="negative"):
        check_range(-w)
    with pytest.raises(ValueError, match=r"within \[0, 1\]"):
        check_range(2 * w)
    assert np.array_equal(check_range(2 * w, bounded=False), 2 * w)
    with pytest.raises(ValueError, match="range is empty"):
        check_range(np.zeros(1326))


def test_check_range_board_conflicts_are_never_silently_dropped():
    w = parse_range("AA,KK")
    listed = r"5 combo\(s\) that conflict with the board \(AsAh, AsAd, AsAc, AhAd, AhAc\)"
    with pytest.raises(ValueError, match=listed):
        check_range(w, board="AhAs2c")
    with pytest.raises(ValueError, match="drop_board_conflicts=True"):
        check_range(w, board="AhAs2c")
    dropped = check_range(w, board="AhAs2c", drop_board_conflicts=True)
    assert dropped.sum() == 7 and np.all(dropped[board_conflicts("AhAs2c")] == 0) and w.sum() == 12
    with pytest.raises(ValueError, match="empty: no combo among combos that avoid the board"):
        check_range(parse_range("AA"), board="AhAsAd", drop_board_conflicts=True)
    assert np.array_equal(check_range(dropped, board="AhAs2c"), dropped)

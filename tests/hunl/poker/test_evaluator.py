"""hunl.poker.evaluator: agreement with phevaluator, exhaustive enumerations against published hand frequencies,
hand-ranking rules, combo strengths and showdown order of a board, numba callability and bad input."""

import doctest
import itertools
import math

import numpy as np
import phevaluator
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from hunl.poker import evaluator
from hunl.poker.cards import COMBO_CARDS, parse_cards
from hunl.poker.evaluator import (
    HAND_CATEGORIES,
    NO_HAND,
    NUM_STRENGTHS,
    RANK_KEYS,
    category_index,
    combo_strengths,
    evaluate7,
    evaluate7_nb,
    evaluate_many,
    evaluate_nb,
    hand_category,
    showdown_order,
    tables,
)

# Published frequencies (e.g. Wikipedia, "Poker probability"), weakest category first.
FIVE_CARD_COUNTS = [1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40]
SEVEN_CARD_COUNTS = [23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184, 224_848,
                     41_584]
# Distinct hands of each category, and how many five-card hands each of them has (4**5 - 4 rank-distinct
# unsuited patterns for high card / straight; C(4,2) * 4**3 for a pair; ...).
CLASSES_PER_CATEGORY = [1277, 2860, 858, 858, 10, 1277, 156, 156, 10]
HANDS_PER_CLASS = [1020, 384, 144, 64, 1020, 4, 24, 4, 4]


def phe_rank(cards) -> int:
    """phevaluator's rank (1 = royal flush) of our cards (its suits c, d, h, s are 0..3; ours s, h, d, c)."""
    return phevaluator.evaluate_cards(*[4 * (c // 4) + 3 - c % 4 for c in cards])


def ev(text: str) -> int:
    return evaluate7(text)


hands7 = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


def test_docstring_examples():
    result = doctest.testmod(evaluator, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -------------------------------------------------------------------------------------------- the tables
def test_rank_keys_distinguish_every_seven_rank_multiset():
    multisets = [m for m in itertools.combinations_with_replacement(range(13), 7)
                 if max(map(m.count, m)) <= 4]
    assert len(multisets) == 49205
    sums = np.array([sum(RANK_KEYS[r] for r in m) for m in multisets])
    assert np.unique(sums).size == sums.size
    assert sums.max() + 1 == tables().rank_table.size


def test_tables_are_shared_and_read_only():
    t = tables()
    assert tables() is t
    for arr in (t.card_keys, t.rank_table, t.flush_table, t.class_raw, t.category_starts):
        assert not arr.flags.writeable
    assert t.class_raw.size == NUM_STRENGTHS and np.all(np.diff(t.class_raw) > 0)
    assert np.array_equal(np.diff(t.category_starts), CLASSES_PER_CATEGORY)


# -------------------------------------------------------------------------------------------- phevaluator
@settings(max_examples=400, deadline=None)
@given(hands7, st.integers(5, 7))
def test_strength_is_phevaluator_rank_reversed(cards, k):
    assert evaluate7(cards[:k]) == NUM_STRENGTHS + 1 - phe_rank(cards[:k])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=9, max_size=9, unique=True), st.booleans())
def test_order_of_two_hands_agrees_with_phevaluator(cards, share_board):
    # share_board: two hands on one board (ties are common when the board plays); else two unrelated hands
    if share_board:
        a, b = cards[:7], cards[:5] + cards[7:]
    else:
        a, b = cards[:7], cards[2:]
    ours = np.sign(evaluate7(a) - evaluate7(b))
    theirs = np.sign(phe_rank(b) - phe_rank(a))
    assert ours == theirs


def test_ties_on_a_board_that_plays():
    # both hands play the board's broadway straight: a tie, for us and for phevaluator
    a, b = parse_cards("AsKdQhJcTs2h3d"), parse_cards("AsKdQhJcTs4c5c")
    assert evaluate7(a) == evaluate7(b) and phe_rank(a) == phe_rank(b)


def test_random_batches_agree_with_phevaluator():
    rng = np.random.default_rng(11)
    hands = np.argsort(rng.random((20_000, 52)), axis=1)[:, :7]
    for k in (5, 6, 7):
        ours = evaluate_many(hands[:, :k])
        theirs = np.array([phe_rank(h) for h in hands[:, :k].tolist()])
        assert ours.dtype == np.int32
        np.testing.assert_array_equal(ours, NUM_STRENGTHS + 1 - theirs)


# -------------------------------------------------------------------------------------------- enumerations
@njit(cache=True)
def _histogram5(card_keys, rank_table, flush_table, class_raw):
    hist = np.zeros(NUM_STRENGTHS + 1, dtype=np.int64)
    cards = np.empty(5, dtype=np.int64)
    for a in range(52):
        cards[0] = a
        for b in range(a + 1, 52):
            cards[1] = b
            for c in range(b + 1, 52):
                cards[2] = c
                for d in range(c + 1, 52):
                    cards[3] = d
                    for e in range(d + 1, 52):
                        cards[4] = e
                        hist[evaluate_nb(cards, card_keys, rank_table, flush_table, class_raw)] += 1
    return hist


@njit(cache=True)
def _histogram7(card_keys, rank_table, flush_table):
    hist = np.zeros(NUM_STRENGTHS + 1, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        for f in range(e + 1, 52):
                            for g in range(f + 1, 52):
                                v = evaluate7_nb(a, b, c, d, e, f, g, card_keys, rank_table, flush_table)
                                hist[v] += 1
    return hist


def _by_category(hist):
    starts = tables().category_starts
    return [int(hist[starts[c]:starts[c + 1]].sum()) for c in range(len(HAND_CATEGORIES))]


def test_all_five_card_hands():
    """All C(52, 5) hands: 7,462 distinct strengths, the published category frequencies, and within each
    category the same number of hands for every distinct hand."""
    t = tables()
    hist = _histogram5(t.card_keys, t.rank_table, t.flush_table, t.class_raw)
    assert hist.sum() == math.comb(52, 5) and hist[0] == 0
    assert np.count_nonzero(hist) == NUM_STRENGTHS
    assert _by_category(hist) == FIVE_CARD_COUNTS
    for c in range(len(HAND_CATEGORIES)):
        block = hist[t.category_starts[c]:t.category_starts[c + 1]]
        assert np.all(block == HANDS_PER_CLASS[c]), HAND_CATEGORIES[c]


def test_all_seven_card_hands():
    """All C(52, 7) = 133,784,560 hands: the published category frequencies and 4,824 distinct values."""
    t = tables()
    hist = _histogram7(t.card_keys, t.rank_table, t.flush_table)
    assert hist.sum() == math.comb(52, 7)
    assert _by_category(hist) == SEVEN_CARD_COUNTS
    assert np.count_nonzero(hist) == 4824


# -------------------------------------------------------------------------------------------- rules
def test_extremes_and_categories():
    assert ev("AsKsQsJsTs") == NUM_STRENGTHS and hand_category(ev("AsKsQsJsTs")) == "straight flush"
    assert ev("7s5h4d3c2s") == 1 and hand_category(1) == "high card"
    examples = ["Ks9d7h4c2s", "KsKd7h4c2s", "KsKd7h7c2s", "KsKdKh7c2s", "9s8d7h6c5s", "Ks9s7s4s2s",
                "KsKdKh7c7s", "KsKdKhKc2s", "9s8s7s6s5s"]
    assert [hand_category(ev(h)) for h in examples] == list(HAND_CATEGORIES)
    assert [ev(h) for h in examples] == sorted(ev(h) for h in examples)


def test_wheel_and_steel_wheel():
    wheel, six_high = ev("As2h3d4c5s"), ev("2h3d4c5s6h")
    assert hand_category(wheel) == "straight" and wheel < six_high
    assert wheel > ev("AsAhAdKcQs")                              # a straight beats trips
    assert wheel == ev("5s4h3d2cAs") == tables().category_starts[4]   # the weakest straight
    assert wheel == min(ev(h) for h in ["As2h3d4c5s", "2h3d4c5s6h", "TsJhQdKcAs", "9s8h7d6c5s"])
    steel, six_sf = ev("As2s3s4s5s"), ev("2s3s4s5s6s")
    assert hand_category(steel) == "straight flush" and steel < six_sf
    assert steel > ev("AsAhAdAcKs")                              # beats the best quads
    assert ev("As2h3d4c5s6d") == six_high                       # A-2-3-4-5-6 is a six-high straight
    assert ev("As2s3s4s5s6s") == six_sf
    assert ev("As2h3d4c5sKsQs") == wheel                        # no wrap-around: Q-K-A-2-3 is no straight
    assert hand_category(ev("QsKhAd2c3s")) == "high card"


def test_flush_beats_straight_and_loses_to_full_house():
    flush, straight, full = ev("2s4s6s8sTs"), ev("AsKhQdJcTs"), ev("2s2h2d3c3s")
    assert straight < flush < full
    # seven cards holding both a straight and a (non-straight) flush make the flush
    assert ev("9s8s7h6s5d2sKs") == ev("Ks9s8s6s2s")
    # six suited cards: the best five count
    assert ev("As3s5s7s9sJs2h") == ev("AsJs9s7s5s")
    # a straight flush inside six suited cards
    assert ev("9s8s7s6s5s2sKh") == ev("9s8s7s6s5s")


def test_full_house_order():
    order = ["2s2h2d3c3s", "2s2h2dAcAs", "3s3h3d2c2s", "KsKhKdAcAs", "AsAhAd2c2s", "AsAhAdKcKs"]
    assert [ev(h) for h in order] == sorted(ev(h) for h in order) and len({ev(h) for h in order}) == 6
    # two trips make a full house with the higher trips and a pair of the lower
    assert ev("AsAhAdKcKsKh2d") == ev("AsAhAdKcKs")
    # trips plus two pairs: the higher pair completes the house
    assert ev("7s7h7d5c5s9h9d") == ev("7s7h7d9h9d")
    assert hand_category(ev("7s7h7d5c5s9h9d")) == "full house"


def test_kickers():
    assert ev("AsAhKdQcJs") > ev("AsAhKdQc9s") > ev("AsAhKdJc9s") > ev("AsAhQdJc9s")
    assert ev("KsKhQdQc9s") < ev("KsKhQdQcTs")                   # two pair kicker
    assert ev("KsKhQdQcJsJh2c") == ev("KsKhQdQcJs")              # a third pair only gives the kicker
    assert ev("KsKhQdQcJsJhAc") == ev("KsKhQdQcAc")
    assert ev("AsAhAdAc2s3h4d") == ev("AsAhAdAc4d")              # quads: best of three kickers
    assert ev("AsAhAdAcKsKhKd") == ev("AsAhAdAcKs")
    assert ev("9s9h9dAcKs2h3d") == ev("9s9h9dAcKs")              # trips: two kickers
    assert ev("AsKhQdJc9s8h7d") == ev("AsKhQdJc9s")              # high card: five best
    assert ev("AsKhQdJc9s8h7d") == ev("AsKhQdJc9s8h")
    assert ev("KsKhQd7c5s") == ev("KdKcQh7s5h")                  # suits do not matter


@settings(max_examples=200, deadline=None)
@given(hands7, st.permutations(range(4)), st.randoms(use_true_random=False))
def test_invariant_under_suit_relabelling_and_card_order(cards, suit_map, rnd):
    relabelled = [4 * (c // 4) + suit_map[c % 4] for c in cards]
    rnd.shuffle(relabelled)
    assert evaluate7(relabelled) == evaluate7(cards)


# -------------------------------------------------------------------------------------------- boards
boards = st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True)


@settings(max_examples=60, deadline=None)
@given(boards)
def test_combo_strengths_match_evaluate_many(board):
    s = combo_strengths(board)
    assert s.shape == (1326,) and s.dtype == np.int32
    conflict = np.isin(COMBO_CARDS, board).any(axis=1)
    assert np.all((s == NO_HAND) == conflict) and int((~conflict).sum()) == 1081
    hands = np.concatenate([np.tile(board, (1326, 1)), COMBO_CARDS], axis=1)[~conflict]
    np.testing.assert_array_equal(s[~conflict], evaluate_many(hands))


@settings(max_examples=60, deadline=None)
@given(boards)
def test_showdown_order(board):
    s = combo_strengths(board)
    res = showdown_order(board)
    order, strength = res
    assert order.dtype == np.int32 and strength.dtype == np.int32
    assert np.array_equal(np.sort(order), np.flatnonzero(s >= 0))
    np.testing.assert_array_equal(strength, s[order])
    assert np.all(np.diff(strength) >= 0)
    same = np.diff(strength) == 0                                # ties adjacent, in increasing combo index
    assert np.all(np.diff(order)[same] > 0)


def test_board_that_plays_ties_every_combo():
    s = combo_strengths("AsKsQsJsTs")
    assert set(np.unique(s).tolist()) == {NO_HAND, NUM_STRENGTHS}
    res = showdown_order("AsKsQsJsTs")
    assert np.all(res.strength == NUM_STRENGTHS) and np.array_equal(res.order, np.sort(res.order))


def test_numba_callable_from_compiled_code():
    @njit
    def best_combo(board, card_keys, rank_table, flush_table):
        best, arg = -1, -1
        for k in range(COMBO_CARDS.shape[0]):
            a, b = COMBO_CARDS[k, 0], COMBO_CARDS[k, 1]
            clash = False
            for c in board:
                clash |= c == a or c == b
            if clash:
                continue
            v = evaluate7_nb(board[0], board[1], board[2], board[3], board[4], a, b, card_keys, rank_table,
                             flush_table)
            if v > best:
                best, arg = v, k
        return best, arg

    board = np.array(parse_cards("Ts9s2h7d3c"))
    t = tables()
    best, arg = best_combo(board, t.card_keys, t.rank_table, t.flush_table)
    assert best == combo_strengths(board).max() == ev("Ts9s2h7d3cJs8h")  # a jack-high straight
    assert best == evaluate_nb(np.concatenate([board, COMBO_CARDS[arg]]), *t.arrays())


# -------------------------------------------------------------------------------------------- categories
def test_hand_category_boundaries():
    starts = tables().category_starts
    for c, name in enumerate(HAND_CATEGORIES):
        assert hand_category(int(starts[c])) == name
        assert hand_category(int(starts[c + 1]) - 1) == name
    np.testing.assert_array_equal(category_index(np.arange(1, NUM_STRENGTHS + 1)),
                                  np.repeat(np.arange(9), CLASSES_PER_CATEGORY))


@pytest.mark.parametrize("bad", [0, NUM_STRENGTHS + 1, -1])
def test_hand_category_rejects_out_of_range(bad):
    with pytest.raises(ValueError, match="strength"):
        hand_category(bad)


@pytest.mark.parametrize("bad", [1.0, "7", True, None])
def test_hand_category_rejects_non_integers(bad):
    with pytest.raises(TypeError, match="strength"):
        hand_category(bad)


# -------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cards, match", [
    ("AsKsQsJsJs2h", "repeat"),
    ([0, 1, 2, 3], "5 to 7 cards"),
    ([0, 1, 2, 3, 4, 5, 6, 7], "5 to 7 cards"),
    ([0, 1, 2, 3, 52], "outside 0..51"),
    ([-1, 1, 2, 3, 4], "outside 0..51"),
    ("AsKsQsJsXx", "unknown card"),
])
def test_evaluate7_bad_input(cards, match):
    with pytest.raises(ValueError, match=match) as err:
        evaluate7(cards)
    assert "cards" in str(err.value)


def test_evaluate7_bad_type():
    with pytest.raises(TypeError, match="cards"):
        evaluate7([0, 1, 2, 3, 4.0])


@pytest.mark.parametrize("cards, exc, match", [
    (np.zeros((3, 7), dtype=float), TypeError, "integer"),
    (np.arange(7), ValueError, "shape"),
    (np.arange(8).reshape(2, 4), ValueError, "shape"),
    (np.arange(16).reshape(2, 8), ValueError, "shape"),
    (np.array([[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 5]]), ValueError, "row 1"),
    (np.array([[0, 1, 2, 3, 4, 5, 52]]), ValueError, "row 0"),
    (np.array([[0, 1, 2, 3, -4]]), ValueError, "row 0"),
])
def test_evaluate_many_bad_input(cards, exc, match):
    with pytest.raises(exc, match=match) as err:
        evaluate_many(cards)
    assert "cards" in str(err.value)


@pytest.mark.parametrize("board", ["AsKsQsJs", "AsKsQsJsTs9s", "AsKsQsJsJs", [0, 1, 2, 3, 60]])
def test_combo_strengths_bad_board(board):
    with pytest.raises(ValueError, match="board"):
        combo_strengths(board)
    with pytest.raises(ValueError, match="board"):
        showdown_order(board)


def test_evaluate_many_accepts_small_integer_dtypes_and_empty_batches():
    hands = np.array([parse_cards("AsKsQsJsTs2h3d"), parse_cards("7s5h4d3c2s9h8h")])
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64):
        np.testing.assert_array_equal(evaluate_many(hands.astype(dtype)), [evaluate7(h) for h in hands])
    assert evaluate_many(np.zeros((0, 7), dtype=np.int64)).shape == (0,)

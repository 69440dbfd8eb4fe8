"""hunl.distill.features: every feature against a brute-force loop over hands, opponent hands and river cards with
hunl.poker.evaluator.evaluate7; batches, suit-permutation invariance, the nuts, bad input."""

import doctest
import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.distill import features
from hunl.distill.features import (
    ehs,
    ehs2,
    equity,
    equity_histogram,
    equity_vs_uniform,
    range_percentile,
    river_hand_strengths,
)
from hunl.poker.cards import (
    CARD_COMBOS,
    COMBO_CARDS,
    COMBO_INDEX,
    NUM_COMBOS,
    board_conflicts,
    combo_index,
    parse_cards,
)
from hunl.poker.evaluator import evaluate7

TOL = 1e-10


# ------------------------------------------------------------------------------------------- brute force
@functools.cache
def _strength(board: tuple, combo: int) -> int:
    """evaluate7 of a combo on a five-card board (board given as a sorted tuple)."""
    return evaluate7(board + tuple(int(c) for c in COMBO_CARDS[combo]))


def _cards(combo: int) -> set:
    return {int(c) for c in COMBO_CARDS[combo]}


def _score(board: tuple, h: int, o: int) -> float:
    a, b = _strength(board, h), _strength(board, o)
    return 1.0 if a > b else 0.5 if a == b else 0.0


def _showdown(board: tuple, h: int, o: int) -> float:
    """Showdown score of h against o: exact on a river board, mean over the 44 rivers on a turn board and over
    the 990 (turn, river) runouts of the 45 cards left on a flop."""
    if len(board) == 5:
        return _score(board, h, o)
    used = set(board) | _cards(h) | _cards(o)
    rest = [r for r in range(52) if r not in used]
    runouts = list(itertools.combinations(rest, 5 - len(board)))
    assert len(runouts) == (44 if len(board) == 4 else 990)
    return sum(_score(tuple(sorted(board + r)), h, o) for r in runouts) / len(runouts)


def brute_equity(board: tuple, w: np.ndarray, heroes) -> np.ndarray:
    """sum_o w(o) score(h, o) / sum_o w(o) over opponent combos o disjoint from h and the board."""
    board = tuple(sorted(board))
    opps = [int(o) for o in np.flatnonzero(w > 0) if not _cards(o) & set(board)]
    out = []
    for h in heroes:
        if _cards(h) & set(board):
            out.append(np.nan)
            continue
        num = den = 0.0
        for o in opps:
            if not _cards(o) & _cards(h):
                num += w[o] * _showdown(board, h, o)
                den += w[o]
        out.append(num / den if den > 0 else np.nan)
    return np.array(out)


def brute_hs(board: tuple, h: int) -> float:
    """Equity of h against the uniform range on a river board (all 990 opponent combos)."""
    board = tuple(sorted(board))
    total = 0.0
    n = 0
    for o in range(NUM_COMBOS):
        if not _cards(o) & (set(board) | _cards(h)):
            total += _score(board, h, o)
            n += 1
    assert n == 990
    return total / n


def brute_inverted_cdf(values, probs, q):
    """Quantiles at (i + 0.5) / q: the smallest value whose cumulative probability reaches the level."""
    values = np.asarray(values, dtype=float)
    probs = np.asarray(probs, dtype=float)
    keep = probs > 0
    values, probs = values[keep], probs[keep] / probs[keep].sum()
    order = np.argsort(values, kind="stable")
    values, cum = values[order], np.cumsum(probs[order])
    out = []
    for i in range(q):
        level = (i + 0.5) / q
        out.append(values[np.flatnonzero(cum >= level - 1e-12)[0]])
    return np.array(out)


def random_case(seed: int, n_board: int, n_opp: int = 60, n_heroes: int = 30):
    rng = np.random.default_rng(seed)
    board = tuple(int(c) for c in rng.choice(52, n_board, replace=False))
    w = np.zeros(NUM_COMBOS)
    opp = rng.choice(NUM_COMBOS, n_opp, replace=False)
    w[opp] = rng.exponential(size=n_opp) * (rng.random(n_opp) < 0.9)   # a few explicit zeros
    w[opp[0]] = 1.0
    heroes = rng.choice(NUM_COMBOS, n_heroes, replace=False)
    return board, w, heroes, rng


def _with_live_weight(board, w):
    """Make sure some positive weight misses the board (the functions reject a range that is all blocked)."""
    live = ~board_conflicts(board)
    if not np.any(w[live] > 0):
        w[np.flatnonzero(live)[0]] = 1.0
    return w


def test_docstring_examples():
    result = doctest.testmod(features, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------------------------------- equity
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_opp=st.sampled_from([1, 3, 60]))
def test_river_equity_matches_brute_force(seed, n_opp):
    board, w, heroes, _ = random_case(seed, 5, n_opp)
    w = _with_live_weight(board, w)
    got = equity(board, w)
    want = brute_equity(board, w, heroes)
    np.testing.assert_allclose(got[heroes], want, atol=TOL, equal_nan=True)
    assert np.all(np.isnan(got[board_conflicts(board)]))


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_opp=st.sampled_from([2, 40]))
def test_turn_equity_matches_brute_force(seed, n_opp):
    board, w, heroes, _ = random_case(seed, 4, n_opp, n_heroes=20)
    w = _with_live_weight(board, w)
    got = equity(board, w)
    np.testing.assert_allclose(got[heroes], brute_equity(board, w, heroes), atol=TOL, equal_nan=True)


@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_opp=st.sampled_from([1, 3]))
def test_flop_equity_matches_brute_force(seed, n_opp):
    """On a flop every (turn, river) runout of the 45 cards on neither the board nor either hand is equally
    likely (the chance model of a flop endgame)."""
    board, w, heroes, _ = random_case(seed, 3, n_opp, n_heroes=4)
    w = _with_live_weight(board, w)
    got = equity(board, w)
    np.testing.assert_allclose(got[heroes], brute_equity(board, w, heroes), atol=TOL, equal_nan=True)
    assert np.all(np.isnan(got[board_conflicts(board)]))


def test_nan_exactly_where_no_opponent_weight_remains():
    board = "AsKsQsJs2h"
    w = np.zeros(NUM_COMBOS)
    w[combo_index("Ah", "Ad")] = 1.0
    eq = equity(board, w)
    blocked = set(np.flatnonzero(board_conflicts(board)).tolist())
    holds = {k for k in range(NUM_COMBOS) if _cards(k) & set(parse_cards("AhAd"))}
    nan = set(np.flatnonzero(np.isnan(eq)).tolist())
    assert nan == blocked | holds
    assert eq[combo_index("Ts", "3c")] == 1.0 and eq[combo_index("Tc", "3c")] == 1.0   # royal flush; straight
    assert eq[combo_index("Kh", "Kd")] == 0.0 and eq[combo_index("Ac", "3c")] == 0.0   # trips, pair < trip aces


def test_batch_rows_equal_single_calls():
    board, w, _, rng = random_case(7, 4)
    batch = np.vstack([w, rng.random(NUM_COMBOS), np.ones(NUM_COMBOS)])
    for fn in (equity, range_percentile):
        out = fn(board, batch)
        assert out.shape == (3, NUM_COMBOS) and out.dtype == np.float64
        for k in range(3):
            np.testing.assert_array_equal(out[k], fn(board, batch[k]))
    hist = equity_histogram(board, batch, quantiles=4)
    assert hist.shape == (3, NUM_COMBOS, 4)
    np.testing.assert_array_equal(hist[1], equity_histogram(board, batch[1], quantiles=4))


def test_weights_scale_free_and_board_weights_ignored():
    board, w, _, rng = random_case(11, 5)
    w2 = 3.5 * w
    w2[board_conflicts(board)] = rng.random(int(board_conflicts(board).sum()))   # ignored
    np.testing.assert_allclose(equity(board, w), equity(board, w2), atol=1e-13, equal_nan=True)


# ------------------------------------------------------------------------------------------- vs uniform, nuts
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_river_equity_vs_uniform_matches_brute_force(seed):
    board, _, heroes, _ = random_case(seed, 5, n_heroes=8)
    got = equity_vs_uniform(board)
    want = [np.nan if _cards(h) & set(board) else brute_hs(board, h) for h in heroes]
    np.testing.assert_allclose(got[heroes], want, atol=TOL, equal_nan=True)
    np.testing.assert_array_equal(got, equity(board, np.ones(NUM_COMBOS)))


def test_turn_equity_vs_uniform_matches_brute_force():
    board, _, _, rng = random_case(3, 4)
    heroes = rng.choice(np.flatnonzero(~board_conflicts(board)), 2, replace=False)
    got = equity_vs_uniform(board)
    np.testing.assert_allclose(got[heroes], brute_equity(board, np.ones(NUM_COMBOS), heroes), atol=TOL)


def test_nuts_have_equity_one_against_uniform():
    for board, hand in [("AsKsQsJs2h", "Ts3c"), ("AsKsQsJs", "Ts3c"), ("7c7d7h2s9d", "7s2c")]:
        h = combo_index(*parse_cards(hand))
        assert equity_vs_uniform(board)[h] == 1.0
        assert ehs(board)[h] == 1.0 and ehs2(board)[h] == 1.0


@settings(max_examples=10, deadline=None)
@given(board=st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True))
def test_river_strongest_hands_win_unless_a_compatible_hand_ties(board):
    board = tuple(board)
    ev = equity_vs_uniform(board)
    live = np.flatnonzero(~board_conflicts(board))
    strength = {int(h): _strength(tuple(sorted(board)), int(h)) for h in live}
    best = max(strength.values())
    for h, s in strength.items():
        if s == best:
            can_tie = any(s2 == best and not _cards(o) & _cards(h) for o, s2 in strength.items() if o != h)
            assert (ev[h] == 1.0) == (not can_tie) and ev[h] >= 0.5
    assert np.nanmin(ev) >= 0.0 and np.nanmax(ev) <= 1.0


# ------------------------------------------------------------------------------------------- range percentile
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_board=st.sampled_from([3, 4, 5]))
def test_range_percentile_matches_brute_force(seed, n_board):
    board, w, heroes, _ = random_case(seed, n_board)
    w = _with_live_weight(board, w)
    sboard = tuple(sorted(board))
    if n_board == 5:
        rank = {k: _strength(sboard, k) for k in range(NUM_COMBOS) if not _cards(k) & set(board)}
    else:
        ev = equity_vs_uniform(board)
        rank = {k: ev[k] for k in range(NUM_COMBOS) if not np.isnan(ev[k])}
    got = range_percentile(board, w)
    for h in heroes:
        if h not in rank:
            assert np.isnan(got[h])
            continue
        num = den = 0.0
        for g in np.flatnonzero(w > 0):
            if g in rank and not _cards(g) & _cards(h):
                num += w[g] * (1.0 if rank[h] > rank[g] else 0.5 if rank[h] == rank[g] else 0.0)
                den += w[g]
        want = num / den if den > 0 else np.nan
        np.testing.assert_allclose(got[h], want, atol=TOL, equal_nan=True)
    if n_board == 5:
        np.testing.assert_array_equal(got, equity(board, w))


def test_turn_equity_vs_uniform_ties_are_exact():
    """Suit-isomorphic hands get bit-identical equities (range_percentile relies on it)."""
    board = "Ks7d2c4h"
    ev = equity_vs_uniform(board)
    # a rainbow turn: no flush is possible, so hands of the same ranks and suit pattern are equivalent
    assert ev[combo_index("As", "Ah")] == ev[combo_index("Ad", "Ac")]
    assert ev[combo_index("Qh", "Jh")] == ev[combo_index("Qs", "Js")] == ev[combo_index("Qd", "Jd")]
    assert ev[combo_index("Qh", "Jd")] == ev[combo_index("Qc", "Js")]
    assert np.all(np.round(ev[~np.isnan(ev)] * 44 * 1035 * 2, 6) % 1 == 0)


# ------------------------------------------------------------------------------------------- histogram
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_opp=st.sampled_from([2, 40]),
       mode=st.sampled_from(["range", "uniform"]), q=st.sampled_from([1, 4, 10]))
def test_equity_histogram_matches_brute_force(seed, n_opp, mode, q):
    board, w, heroes, _ = random_case(seed, 4, n_opp, n_heroes=12)
    w = _with_live_weight(board, w)
    got = equity_histogram(board, w, quantiles=q, river_probabilities=mode)
    assert got.shape == (NUM_COMBOS, q)
    sboard = tuple(sorted(board))
    for h in heroes:
        if _cards(h) & set(board):
            assert np.all(np.isnan(got[h]))
            continue
        values, probs = [], []
        for r in range(52):
            if r in sboard or r in _cards(h):
                continue
            wr = w.copy()
            wr[CARD_COMBOS[r]] = 0.0                               # the opponent cannot hold the river card
            den = sum(wr[o] for o in np.flatnonzero(wr > 0) if not _cards(o) & (set(board) | _cards(h)))
            if den > 0:
                values.append(brute_equity(sboard + (r,), wr, [h])[0])
                probs.append(den if mode == "range" else 1.0)
        if not values:
            assert np.all(np.isnan(got[h]))
            continue
        np.testing.assert_allclose(got[h], brute_inverted_cdf(values, probs, q), atol=TOL)
        if mode == "range":      # the river-weighted mean of the distribution is the turn equity
            mean = np.dot(values, probs) / np.sum(probs)
            np.testing.assert_allclose(mean, equity(board, w)[h], atol=TOL)


@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["range", "uniform"]))
def test_flop_equity_histogram_is_over_the_turn_cards(seed, mode):
    """On a flop the next card is the turn: the atoms are the turn equities (equity on board + t against the
    range without t), weighted by the compatible opponent weight (or 1); their weighted mean is the flop
    equity."""
    board, w, heroes, _ = random_case(seed, 3, 40, n_heroes=6)
    w = _with_live_weight(board, w)
    got = equity_histogram(board, w, quantiles=10, river_probabilities=mode)
    flop_equity = equity(board, w)
    for h in heroes:
        if _cards(h) & set(board):
            assert np.all(np.isnan(got[h]))
            continue
        values, probs = [], []
        for t in range(52):
            if t in board or t in _cards(h):
                continue
            wt = w.copy()
            wt[CARD_COMBOS[t]] = 0.0
            den = sum(wt[o] for o in np.flatnonzero(wt > 0) if not _cards(o) & (set(board) | _cards(h)))
            if den > 0:
                values.append(equity(board + (t,), _with_live_weight(board + (t,), wt))[h])
                probs.append(den if mode == "range" else 1.0)
        if not values:
            assert np.all(np.isnan(got[h]))
            continue
        np.testing.assert_allclose(got[h], brute_inverted_cdf(values, probs, 10), atol=TOL)
        if mode == "range":
            np.testing.assert_allclose(np.dot(values, probs) / np.sum(probs), flop_equity[h], atol=TOL)


def test_flop_equity_vs_uniform_ties_are_exact():
    """Suit-isomorphic hands get bit-identical equities on a flop (range_percentile relies on it): on a
    monotone spade flop hearts, diamonds and clubs are interchangeable."""
    ev = equity_vs_uniform("Ks7s2s")
    assert ev[combo_index("Ah", "Ad")] == ev[combo_index("Ad", "Ac")] == ev[combo_index("Ah", "Ac")]
    assert ev[combo_index("Qh", "Jh")] == ev[combo_index("Qd", "Jd")] == ev[combo_index("Qc", "Jc")]
    assert ev[combo_index("Qh", "Jd")] == ev[combo_index("Qc", "Jh")]
    assert ev[combo_index("As", "Ah")] != ev[combo_index("Ah", "Ad")]          # the flush draw counts


def test_equity_histogram_quantiles_agree_with_numpy_inverted_cdf():
    board = "Ks7d2c4h"
    w = np.ones(NUM_COMBOS)
    got = equity_histogram(board, w, quantiles=10, river_probabilities="uniform")
    hs = river_hand_strengths(board)
    levels = (np.arange(10) + 0.5) / 10
    for h in [combo_index("As", "Ah"), combo_index("5h", "6h"), combo_index("Kd", "Qd")]:
        vals = hs[~np.isnan(hs[:, h]), h]
        assert vals.size == 46
        np.testing.assert_array_equal(got[h], np.quantile(vals, levels, method="inverted_cdf"))
    assert np.all(np.diff(got[~np.isnan(got[:, 0])], axis=1) >= 0)


# ------------------------------------------------------------------------------------------- E[HS], E[HS^2]
def test_ehs_and_ehs2_match_brute_force_on_the_turn():
    rng = np.random.default_rng(5)
    board = tuple(int(c) for c in rng.choice(52, 4, replace=False))
    heroes = rng.choice(np.flatnonzero(~board_conflicts(board)), 2, replace=False)
    e1, e2, hs = ehs(board), ehs2(board), river_hand_strengths(board)
    rivers = [r for r in range(52) if r not in board]
    for h in heroes:
        vals = [brute_hs(board + (r,), h) for r in rivers if r not in _cards(h)]
        assert len(vals) == 46
        np.testing.assert_allclose(e1[h], np.mean(vals), atol=TOL)
        np.testing.assert_allclose(e2[h], np.mean(np.square(vals)), atol=TOL)
        np.testing.assert_allclose(np.sort(hs[~np.isnan(hs[:, h]), h]), np.sort(vals), atol=TOL)
    assert np.all(np.isnan(e1[board_conflicts(board)]))


def test_ehs_on_the_river_is_hand_strength():
    board = "Ah2s3d4c5h"
    hs = equity_vs_uniform(board)
    np.testing.assert_array_equal(ehs(board), hs)
    np.testing.assert_allclose(ehs2(board), hs ** 2)


def test_river_hand_strengths_rows_are_river_boards():
    board = parse_cards("Ks7d2c4h")
    hs = river_hand_strengths(board)
    rivers = [r for r in range(52) if r not in board]
    for r_idx in (0, 20, 47):
        np.testing.assert_array_equal(hs[r_idx], equity_vs_uniform(board + (rivers[r_idx],)))


# ------------------------------------------------------------------------------------------- invariance
def _suit_permutation(perm):
    """Card map and combo map of a permutation of the four suits."""
    card_map = np.array([4 * (c // 4) + perm[c % 4] for c in range(52)])
    combo_map = COMBO_INDEX[card_map[COMBO_CARDS[:, 0]], card_map[COMBO_CARDS[:, 1]]].astype(np.intp)
    return card_map, combo_map


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), perm=st.permutations(range(4)), n_board=st.sampled_from([4, 5]))
def test_suit_permutation_invariance(seed, perm, n_board):
    board, w, _, _ = random_case(seed, n_board)
    w = _with_live_weight(board, w)
    card_map, combo_map = _suit_permutation(perm)
    pboard = tuple(int(card_map[c]) for c in board)
    pw = np.empty_like(w)
    pw[combo_map] = w                                  # combo k becomes combo_map[k]
    checks = [(equity(board, w), equity(pboard, pw)), (range_percentile(board, w), range_percentile(pboard, pw)),
              (ehs(board), ehs(pboard)), (ehs2(board), ehs2(pboard))]
    if n_board == 4:
        checks.append((equity_histogram(board, w), equity_histogram(pboard, pw)))
    for orig, permuted in checks:
        np.testing.assert_allclose(permuted[combo_map], orig, atol=1e-12, equal_nan=True)


def test_board_order_does_not_matter():
    w = np.random.default_rng(1).random(NUM_COMBOS)
    for a, b in [("Ks7d2c4h9s", "9s4h2c7dKs"), ("Ks7d2c4h", "4hKs2c7d")]:
        np.testing.assert_array_equal(equity(a, w), equity(b, w))


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("fn", [equity, range_percentile, equity_histogram])
def test_bad_weights_raise_naming_the_parameter(fn):
    name = "own_weights" if fn is range_percentile else "opp_weights"
    board = "Ks7d2c4h"
    for bad, match in [(np.ones(1325), "shape"), (np.ones((2, 3, 1326)), "shape"), (np.ones((0, 1326)), "shape"),
                       (-np.ones(1326), "nonnegative"), (np.full(1326, np.nan), "finite"),
                       (np.zeros(1326), "no positive weight"), (board_conflicts(board) * 1.0, "no positive"),
                       (np.vstack([np.ones(1326), np.zeros(1326)]), "row 1")]:
        with pytest.raises(ValueError, match=match) as info:
            fn(board, bad)
        assert name in str(info.value)
    with pytest.raises(TypeError, match=name):
        fn(board, ["a"] * 1326)


@pytest.mark.parametrize("fn", [equity, range_percentile])
def test_bad_board_raises(fn):
    for bad in ["Ks7d", "Ks7d2c4h9s3c", "KsKs2c4h", "Xx7d2c4h"]:
        with pytest.raises(ValueError, match="board"):
            fn(bad, np.ones(NUM_COMBOS))
    with pytest.raises(ValueError, match="board"):
        equity_vs_uniform("Ks7d")
    for f in (ehs, ehs2):
        with pytest.raises(ValueError, match="board"):
            f("Ks7d2c")


def test_histogram_rejects_river_board_and_bad_quantiles():
    with pytest.raises(ValueError, match="board must have 3 to 4 cards"):
        equity_histogram("Ks7d2c4h9s", np.ones(NUM_COMBOS))
    with pytest.raises(ValueError, match="board must have 4 cards"):
        river_hand_strengths("Ks7d2c4h9s")
    with pytest.raises(ValueError, match="quantiles"):
        equity_histogram("Ks7d2c4h", np.ones(NUM_COMBOS), quantiles=0)
    with pytest.raises(TypeError, match="quantiles"):
        equity_histogram("Ks7d2c4h", np.ones(NUM_COMBOS), quantiles=2.5)
    with pytest.raises(ValueError, match="river_probabilities"):
        equity_histogram("Ks7d2c4h", np.ones(NUM_COMBOS), river_probabilities="flat")


def test_cached_results_are_not_shared_mutable_state():
    board = "Ks7d2c4h9s"
    a = equity_vs_uniform(board)
    a[:] = -1.0
    assert np.nanmin(equity_vs_uniform(board)) >= 0.0
    e = ehs("Ks7d2c4h")
    e[:] = 5.0
    assert np.nanmax(ehs("Ks7d2c4h")) <= 1.0


def test_combos_holding_a_board_card_are_nan_whatever_the_weights():
    board = "2s3h4d5c6s"
    for w in (np.ones(NUM_COMBOS), np.random.default_rng(0).random(NUM_COMBOS)):
        eq = equity(board, w)
        assert np.array_equal(np.isnan(eq), board_conflicts(board))
    assert sum(1 for _ in itertools.combinations(range(47), 2)) == int((~board_conflicts(board)).sum())

"""Spot and endgame inputs that once passed and produced nonsense are refused, naming the field or the file
(issue 12, item 7)."""

import json

import numpy as np
import pytest

from hunl import BetSizes, HoldemEndgame
from hunl.distill.sampler import EndgameSampler
from hunl.poker.cards import NUM_COMBOS, board_conflicts, check_board
from hunl.poker.ranges import check_range, parse_range
from hunl.solver.libratus import ENV_VAR, LibratusEndgame, load_endgame, save_endgame
from hunl.solver.limits import MAX_CHIPS, MAX_POT_FRACTION, MIN_BIG_BLIND
from hunl.solver.spot_files import load_spot, parse_spot

BOARD = "Ks7d2c9h4s"
SPOT = {"name": "tiny", "board": BOARD, "pot": 1000, "stack": 3000,
        "ranges": {"oop": "KK,AK,77", "ip": "QQ,AQs,98s"},
        "bet_sizes": {"raise_cap": 1, "river": {"bets": [0.5], "raises": [1.0], "all_in": True}}}


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def _endgame(**kwargs):
    args = dict(board=BOARD, ranges=["KK,AK,77", "QQ,AQs,98s"], pot=1000, stack=3000)
    args.update(kwargs)
    return HoldemEndgame(**args)


# ------------------------------------------------------------------------------------------ magnitudes
@pytest.mark.parametrize("changes, message", [
    (dict(pot=1e300), "pot must be at most 2**53"),
    (dict(pot=1e39), "pot must be at most 2**53"),
    (dict(stack=2.0 ** 52), "pot + 2 * stack must be at most 2**53"),
    (dict(big_blind=1e-320), "big_blind must be a positive number of chips in [2**-30, 2**53]"),
    (dict(bet_sizes={"bets": (1e300,)}), "bets: 1e+300: a pot fraction must be positive, finite and at most 2**20"),
    (dict(bet_sizes={"bets": "200000000%"}), "bets: '200000000%': a pot fraction must be at most 2**20"),
    (dict(bet_sizes={"bets": "1" + "0" * 400 + "c"}), "a chips size must be positive and finite"),
    (dict(bet_sizes={"raises": "1" + "0" * 400 + "x"}), "a raise multiple must be greater than 1"),
])
def test_absurd_magnitudes_are_refused(changes, message):
    with pytest.raises(ValueError) as info:
        if "bet_sizes" in changes:
            changes = {"bet_sizes": BetSizes(**changes["bet_sizes"])}
        _endgame(**changes)
    assert message in str(info.value)


@pytest.mark.parametrize("changes, message", [
    ({"pot": 1e300}, "pot must be at most 2**53"),
    ({"stack": 1e20}, "pot + 2 * stack must be at most 2**53"),
    ({"big_blind": 1e300}, "big_blind must be a positive number of chips in [2**-30, 2**53]"),
    ({"bet_sizes": {"river": {"bets": [1e9]}}},
     "bet_sizes.river.bets: 1000000000.0: a pot fraction must be positive, finite and at most 2**20"),
    ({"bet_sizes": {"river": {"oop": {"bets": "e200000000%"}}}},
     "bet_sizes.river.oop.bets: 'e200000000%': a pot fraction must be at most 2**20"),
])
def test_absurd_magnitudes_in_a_spot_name_the_field(changes, message):
    with pytest.raises(ValueError) as info:
        parse_spot({**SPOT, **changes})
    assert message in str(info.value)


def test_the_bounds_themselves_are_accepted():
    """The largest amounts allowed build a game whose chip amounts are exact (whole chips in float64)."""
    game = _endgame(pot=2.0 ** 50, stack=(MAX_CHIPS - 2.0 ** 50) / 2, bet_sizes=BetSizes(bets=(MAX_POT_FRACTION,)),
                    big_blind=MIN_BIG_BLIND)
    contributions = game.betting.contributions
    assert np.all(np.isfinite(contributions)) and np.all(contributions == np.round(contributions))
    assert contributions.max() <= MAX_CHIPS / 2


# ------------------------------------------------------------------------------------------ weights
def test_weights_above_one_are_refused_as_check_range_does():
    w = parse_range("KK,AK", board=BOARD)
    w[np.flatnonzero(w)[0]] = 1.5
    with pytest.raises(ValueError, match=r"weights must be within \[0, 1\]"):
        check_range(w, board=BOARD)
    with pytest.raises(ValueError, match=r"ranges\[0\]"):
        _endgame(ranges=[w, "QQ"])
    with pytest.raises(ValueError, match="ranges.oop"):
        parse_spot({**SPOT, "ranges": {"oop": w.tolist(), "ip": "QQ"}})
    w[np.flatnonzero(w)[0]] = 1.0  # the bound itself is a weight
    assert _endgame(ranges=[w, "QQ"]).weights[0].max() == 1.0


def test_raise_cap_none_is_a_clear_error():
    with pytest.raises(ValueError, match="raise_cap must be an integer >= 0, got None"):
        _endgame(raise_cap=None)
    with pytest.raises(ValueError, match="raise_cap must be an integer >= 0, got None"):
        EndgameSampler(raise_cap=None)


# ------------------------------------------------------------------------------------------ files
def _libratus_file(tmp_path):
    reach = np.zeros((2, NUM_COMBOS))
    live = ~board_conflicts(BOARD)
    reach[:, live] = np.random.default_rng(0).uniform(0.1, 0.9, (2, int(live.sum())))  # long reprs
    endgame = LibratusEndgame(name="cut", street="river", board=check_board(BOARD), pot=500.0, reach=reach)
    return save_endgame(endgame, tmp_path / "cut.txt")


def test_a_libratus_file_cut_inside_its_last_number_is_detected(tmp_path):
    path = _libratus_file(tmp_path)
    text = path.read_text()
    assert load_endgame(path).pot == 500.0
    assert not text.endswith("0.0\n")
    path.write_text(text[:-4])  # the newline and the last three digits: still 2,652 numbers
    assert len(path.read_text().split("-reach")[1].split()) == 2 * NUM_COMBOS
    with pytest.raises(ValueError, match=f"{path}: does not end with a newline, so it is truncated"):
        load_endgame(path)
    with pytest.raises(ValueError, match="truncated"):
        load_spot(path)


@pytest.mark.parametrize("suffix", [".toml", ".json", ".txt"])
def test_a_non_utf8_spot_file_names_the_file(tmp_path, suffix):
    path = tmp_path / f"bad{suffix}"
    if suffix == ".txt":
        data = _libratus_file(tmp_path).read_bytes().replace(b"-board", b"-board \xff", 1)
    elif suffix == ".json":
        data = json.dumps(SPOT).encode().replace(b"tiny", b"ti\xe9ny")
    else:
        data = b'name = "t\xe9"\nboard = "Ks7d2c9h4s"\n'
    path.write_bytes(data)
    with pytest.raises(ValueError) as info:
        load_spot(path)
    assert str(path) in str(info.value) and "not a UTF-8 text file" in str(info.value)


def test_a_non_utf8_range_file_names_the_file(tmp_path):
    (tmp_path / "oop.txt").write_bytes(b"KK,A\xffK\n")
    spot = tmp_path / "spot.json"
    spot.write_text(json.dumps({**SPOT, "ranges": {"oop": {"file": "oop.txt"}, "ip": "QQ"}}))
    with pytest.raises(ValueError, match="oop.txt: not a UTF-8 text file"):
        load_spot(spot)


def test_a_summary_with_a_non_finite_figure_is_not_written(tmp_path):
    """Strict JSON has no NaN or infinity: the file is named and nothing is written."""
    from hunl.solver.output import write_summary

    class _Solution:
        def summary(self):
            return {"pot": 1000.0, "exploitability_chips": float("nan"), "value_chips": float("inf")}

    path = tmp_path / "summary.json"
    with pytest.raises(ValueError, match=r"summary.json: not written: .*'exploitability_chips', 'value_chips'"):
        write_summary(_Solution(), path)
    assert not path.exists()

"""hunl.solver.spot, hunl.solver.spot_files: TOML, JSON and Libratus spot files give the same Spot; every bad input names file and field."""

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.poker.cards import COMBO_CARDS, board_conflicts, card_mask, format_cards, parse_cards, parse_combo
from hunl.poker.ranges import parse_range
from hunl.solver.libratus import ENV_VAR, endgame_dir, load_endgame
from hunl.solver.spot import UNCAPPED, Spot, spot_from_endgame
from hunl.solver.spot_files import load_spot, parse_spot
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "spots"

TOML = """
name = "tiny"
board = "Ks7d2c9h4s"
pot = 1000
stack = 4000
big_blind = 50

[ranges]
oop = "KK,AK,QJs:0.5"
ip = "QQ,AQs,98s"

[bet_sizes]
raise_cap = 2
allin_threshold = 0.25

[bet_sizes.river]
bets = [0.33, 0.75]
raises = [1.0]
all_in = false

[solver]
algorithm = "cfr+"
max_iterations = 50
target_pct_pot = 0.5
check_every = 5
"""

DATA = {
    "name": "tiny", "board": "Ks7d2c9h4s", "pot": 1000, "stack": 4000, "big_blind": 50,
    "ranges": {"oop": "KK,AK,QJs:0.5", "ip": "QQ,AQs,98s"},
    "bet_sizes": {"raise_cap": 2, "allin_threshold": 0.25,
                  "river": {"bets": [0.33, 0.75], "raises": [1.0], "all_in": False}},
    "solver": {"algorithm": "cfr+", "max_iterations": 50, "target_pct_pot": 0.5, "check_every": 5},
}


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def _toml_dump(data: dict) -> str:
    """A minimal TOML writer for the test mappings: nested dicts become [tables] (those under ``ranges``
    inline tables), everything else ``key = value``."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        return repr(v)

    lines = []

    def table(prefix, tab):
        if prefix:
            lines.append(f"[{prefix}]")
        inline = prefix == "ranges"
        lines.extend(f"{k} = {value(v)}" for k, v in tab.items() if inline or not isinstance(v, dict))
        for k, v in tab.items():
            if isinstance(v, dict) and not inline:
                table(f"{prefix}.{k}" if prefix else k, v)

    table("", data)
    return "\n".join(lines) + "\n"


def _write(tmp_path, data, name="spot", fmt="toml") -> Path:
    path = tmp_path / f"{name}.{fmt}"
    path.write_text(_toml_dump(data) if fmt == "toml" else json.dumps(data))
    return path


def _with(**changes) -> dict:
    data = json.loads(json.dumps(DATA))
    for key, v in changes.items():
        *head, last = key.split("__")
        table = data
        for h in head:
            table = table.setdefault(h, {})
        if v is _DELETE:
            del table[last]
        else:
            table[last] = v
    return data


_DELETE = object()


def _assert_same_spot(a: Spot, b: Spot):
    for f in dataclasses.fields(Spot):
        if f.name == "source":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
        else:
            assert x == y, f.name


# ---------------------------------------------------------------------- formats
def test_toml_and_json_give_the_same_spot(tmp_path):
    (tmp_path / "a.toml").write_text(TOML)
    (tmp_path / "a.json").write_text(json.dumps(DATA))
    a, b = load_spot(tmp_path / "a.toml"), load_spot(tmp_path / "a.json")
    _assert_same_spot(a, b)
    assert (a.name, a.street, a.board_text, a.pot, a.stack, a.big_blind) == \
        ("tiny", "river", "Ks7d2c9h4s", 1000.0, 4000.0, 50.0)
    assert a.river_sizes == BetSizes(bets=(0.33, 0.75), raises=(1.0,), all_in=False)
    solver = (a.raise_cap, a.allin_threshold, a.algorithm, a.max_iterations, a.target_pct_pot, a.check_every)
    assert solver == (2, 0.25, "cfr+", 50, 0.5, 5)
    assert a.range_text == ("KK,AK,QJs:0.5", "QQ,AQs,98s")
    # the ranges are the range strings with the board's combos removed: KK loses 3 combos to the Ks
    board = parse_cards("Ks7d2c9h4s")
    for p, text in enumerate(a.range_text):
        expected = parse_range(text, board=board)
        np.testing.assert_array_equal(a.ranges[p], expected)
    assert a.board_removed == (3 + 4, 1)     # KK: 3 combos hold the Ks, AK: 4; 98s: 9h8h holds the 9h
    assert not a.ranges.flags.writeable


def test_the_test_toml_writer_matches_tomllib(tmp_path):
    import tomllib

    assert tomllib.loads(_toml_dump(DATA)) == DATA
    assert tomllib.loads(TOML) == DATA


@pytest.mark.parametrize("name", ["river_small.toml", "turn_small.toml", "river_libratus_sizes.json",
                                  "turn_QsJh2h8d.toml"])
def test_example_spots_load_and_build(name):
    spot = load_spot(EXAMPLES / name)
    assert spot.name == Path(name).stem and spot.kind == "spot"
    game = spot.game()
    assert game.config.street == spot.street
    assert game.num_hands == spot.num_combos()
    np.testing.assert_array_equal(game.weights, spot.ranges)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_libratus_benchmark_spots_are_the_libratus_endgames(n):
    spot = load_spot(EXAMPLES / f"libratus_subgame{n}.toml")
    ref = load_spot(f"subgame{n}")
    assert spot.kind == "libratus" and spot.name == f"libratus_subgame{n}"
    np.testing.assert_array_equal(spot.ranges, ref.ranges)
    assert (spot.board, spot.pot, spot.stack, spot.river_sizes) == (ref.board, ref.pot, ref.stack, ref.river_sizes)


def test_the_flop_benchmark_spot_has_the_documented_tree():
    # examples/spots/flop_Td9d6h.toml: postflop-solver's README ranges, 180 x 265 combos after the board;
    # 710,986 public nodes with suit isomorphism (clubs and spades interchangeable)
    spot = load_spot(EXAMPLES / "flop_Td9d6h.toml")
    assert spot.street == "flop" and spot.num_combos() == (180, 265)
    assert set(spot.info()["bet_sizes"]) == {"flop", "turn", "river"}
    game = spot.game()
    assert game.config.street == "flop" and game.tree.n_nodes == 710_986
    assert spot.replace(isomorphism=False).isomorphism is False


def test_solver_settings_reach_the_solve(tmp_path):
    from hunl.solver.solve import solve_endgame

    spot = load_spot(_write(tmp_path, _with(solver={"threads": 1, "compressed": True, "isomorphism": False,
                                                    "algorithm": "dcfr-reset", "max_iterations": 20})))
    assert (spot.threads, spot.compressed, spot.isomorphism, spot.algorithm) == (1, True, False, "dcfr-reset")
    sol = solve_endgame(spot.game(), spot.solver)
    assert sol.result.engine.compressed and sol.result.engine.n_threads == 1
    assert sol.algorithm == "dcfr-reset" and sol.iterations == 20


def test_starting_stack_gives_the_stack_behind(tmp_path):
    spot = load_spot(_write(tmp_path, _with(stack=_DELETE, starting_stack=5000)))
    assert spot.stack == 5000 - 1000 / 2


def test_defaults(tmp_path):
    data = {"board": "Ks7d2c9h4s", "pot": 100, "stack": 100, "ranges": {"oop": "AA", "ip": "QQ"}}
    spot = load_spot(_write(tmp_path, data, name="my-spot_1"))
    assert spot.name == "my-spot_1"
    assert (spot.big_blind, spot.raise_cap, spot.allin_threshold, spot.algorithm, spot.max_iterations,
            spot.target_pct_pot, spot.check_every) == (100.0, 3, 0.0, "dcfr", 1000, None, None)
    assert (spot.threads, spot.isomorphism, spot.compressed) == (None, True, False)
    assert spot.river_sizes == BetSizes() and spot.turn_sizes == BetSizes()


def test_game_matches_direct_construction():
    from hunl.solver.game import HoldemEndgame

    spot = load_spot(EXAMPLES / "river_small.toml")
    game = spot.game(dtype="float64", raise_cap=1)
    direct = HoldemEndgame(spot.board_text, spot.range_text, spot.pot, spot.stack,
                           bet_sizes={"river": spot.river_sizes}, raise_cap=1, dtype="float64")
    np.testing.assert_array_equal(game.weights, direct.weights)
    assert game.tree.history == direct.tree.history
    assert game.storage_dtype == np.float64 and game.config.raise_cap == 1


def test_range_files_relative_to_the_spot(tmp_path):
    board = "Ks7d2c9h4s"
    w = parse_range("QQ,AQs,98s", board=board) * 0.5
    (tmp_path / "ranges").mkdir()
    np.save(tmp_path / "ranges" / "ip.npy", w)
    (tmp_path / "ranges" / "ip.txt").write_text("# weights\n" + "\n".join(repr(float(x)) for x in w))
    (tmp_path / "ranges" / "oop.txt").write_text("# a range file\nKK,AK,\nQJs:0.5\n")
    for ip_file in ("ranges/ip.npy", "ranges/ip.txt"):
        data = _with(ranges={"oop": {"file": "ranges/oop.txt"}, "ip": {"file": ip_file}})
        spot = load_spot(_write(tmp_path, data))
        np.testing.assert_array_equal(spot.ranges[1], w)
        np.testing.assert_array_equal(spot.ranges[0], parse_range("KK,AK,QJs:0.5", board=board))
        assert spot.range_text == ("KK,AK,QJs:0.5", None)
    # an inline list of 1,326 weights (JSON)
    spot = load_spot(_write(tmp_path, _with(ranges__ip=w.tolist()), fmt="json"))
    np.testing.assert_array_equal(spot.ranges[1], w)


# ---------------------------------------------------------------------- Libratus
def test_libratus_name_uses_the_libratus_abstraction():
    spot = load_spot("subgame3")
    assert spot.kind == "libratus" and spot.name == "subgame3"
    assert (spot.street, spot.board_text, spot.pot, spot.stack, spot.big_blind) == \
        ("river", "4s8hTc9h2s", 500.0, 20_000 - 250, 100.0)
    assert spot.turn_sizes == LIBRATUS_SIZES and spot.river_sizes == LIBRATUS_SIZES and spot.raise_cap is None
    np.testing.assert_allclose(spot.ranges.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(spot.ranges, load_endgame("subgame3").normalised_reach())
    game = spot.game()
    t = game.tree
    assert [t.action[c] for c in t.children(0)] == ["check", "bet 250", "bet 500", "all-in"]
    # pot-size raises after the first bet, uncapped: bet 500 -> raise to 2000 (500 + 1.0 * 1500)
    facing = t.node("bet 500")
    assert [t.action[c] for c in t.children(facing)] == ["fold", "call", "raise to 2000", "all-in"]
    assert game.config.raise_cap == UNCAPPED


def test_libratus_file_detected_by_content(tmp_path):
    src = endgame_dir() / "subgame4.txt"
    copy = tmp_path / "endgame_copy.dat"
    shutil.copy(src, copy)
    spot = load_spot(copy)
    assert spot.kind == "libratus" and spot.name == "endgame_copy" and spot.board_text == "JsKs5cQs7d"
    assert load_spot(src).name == "subgame4"
    odd = tmp_path / "my endgame (copy).txt"
    shutil.copy(src, odd)
    assert load_spot(odd).name == "my_endgame__copy_"
    (tmp_path / "+river spot.json").write_text(json.dumps(DATA | {"name": "x"}))
    assert load_spot(tmp_path / "+river spot.json").name == "x"
    (tmp_path / "+river spot.json").write_text(json.dumps({k: v for k, v in DATA.items() if k != "name"}))
    assert load_spot(tmp_path / "+river spot.json").name == "spot__river_spot"


def test_spot_file_with_endgame_and_own_sizes(tmp_path):
    data = {"endgame": "subgame3", "bet_sizes": {"raise_cap": 1, "river": {"bets": [0.75], "raises": []}},
            "solver": {"max_iterations": 20}}
    spot = load_spot(_write(tmp_path, data, name="sg3_coarse"))
    assert spot.kind == "libratus" and spot.name == "sg3_coarse" and spot.max_iterations == 20
    t = spot.game().tree
    assert [t.action[c] for c in t.children(0)] == ["check", "bet 375", "all-in"]
    # no bet sizes: the Libratus abstraction
    spot = load_spot(_write(tmp_path, {"endgame": "subgame3"}, name="sg3"))
    assert spot.river_sizes == LIBRATUS_SIZES and spot.raise_cap is None


def test_spot_from_endgame_type_check():
    with pytest.raises(TypeError, match="LibratusEndgame"):
        spot_from_endgame("subgame3")


# ---------------------------------------------------------------------- bad input
BAD = [
    # (changes, message fragments)
    (dict(ranges__oop="AKx"), ["ranges.oop", "'AKx'", "suffix"]),
    (dict(ranges__oop="KK,ZZ"), ["ranges.oop", "unknown rank"]),
    (dict(ranges__ip=""), ["ranges.ip", "range text is empty"]),
    (dict(ranges__ip="QQ:0"), ["ranges.ip is empty"]),
    (dict(ranges__ip="KsKh,Ks9s"), ["ranges.ip", "every combo", "board Ks7d2c9h4s"]),
    (dict(ranges__ip=_DELETE), ["ranges.ip: required field missing"]),
    (dict(ranges__btn="AA"), ["ranges.btn", "unknown key 'btn'"]),
    (dict(ranges__ip={"file": "nowhere.txt"}), ["ranges.ip", "not found"]),
    (dict(ranges__ip=[0.5] * 10), ["ranges.ip", "1,326 numbers"]),
    (dict(board="Ks7d2c9hKs"), ["board repeats", "Ks"]),
    (dict(board="Ks7d2c9h4x"), ["board", "unknown card '4x'"]),
    (dict(board="Ks7d"), ["board must have 3 to 5 cards"]),
    (dict(bet_sizes__flop={"bets": [0.5]}), ["bet_sizes.flop", "river spot", "no flop betting"]),
    (dict(solver__threads=0), ["solver.threads must be an integer >= 1"]),
    (dict(solver__isomorphism="yes"), ["solver.isomorphism must be true or false"]),
    (dict(solver__compressed=True, solver__algorithm="pcfr+"), ["solver.compressed", "pcfr+"]),
    (dict(board=7), ["board must be a string"]),
    (dict(pot=-100), ["pot must be a positive number of chips", "-100"]),
    (dict(pot=0), ["pot must be a positive"]),
    (dict(pot="1000"), ["pot must be a positive number"]),
    (dict(stack=-1), ["stack (chips behind each player) must be >= 0"]),
    (dict(stack=_DELETE, starting_stack=400),
     ["starting_stack 400 is smaller than each player's share of the pot", "pot / 2 = 500"]),
    (dict(starting_stack=5000), ["give exactly one of stack"]),
    (dict(stack=_DELETE), ["give exactly one of stack"]),
    (dict(big_blind=0), ["big_blind must be a positive"]),
    (dict(bet_size={}), ["unknown key 'bet_size'", "did you mean 'bet_sizes'"]),
    (dict(bet_sizes__river__bet=[0.5]), ["bet_sizes.river.bet", "did you mean 'bets'"]),
    (dict(bet_sizes__river__bets=[0.5, -1]), ["bet_sizes.river.bets: -1: a pot fraction must be positive"]),
    (dict(bet_sizes__river__bets=["half"]), ["bet_sizes.river.bets: 'half' is not a size"]),
    (dict(bet_sizes__river__all_in="yes"), ["bet_sizes.river.all_in must be true or false"]),
    (dict(bet_sizes__turn={"bets": [0.5]}), ["bet_sizes.turn", "river spot", "no turn betting"]),
    (dict(bet_sizes__river__raise_cap=3),
     ["bet_sizes.river.raise_cap = 3 differs from bet_sizes.raise_cap = 2"]),
    (dict(bet_sizes__raise_cap=-1), ["bet_sizes.raise_cap must be an integer >= 0"]),
    (dict(bet_sizes__allin_threshold=-0.5), ["bet_sizes.allin_threshold must be a number >= 0"]),
    (dict(solver__algorithm="cfr-"), ["solver.algorithm must be one of dcfr, dcfr-reset, pcfr+, cfr+, cfr"]),
    (dict(solver__iterations=10), ["solver.iterations", "did you mean 'max_iterations'"]),
    (dict(solver__max_iterations=0), ["solver.max_iterations must be an integer >= 1"]),
    (dict(solver__target_pct_pot=-1), ["solver.target_pct_pot must be a percentage >= 0"]),
    (dict(name="../x"), ["name must be letters"]),
    (dict(endgame="subgame3"), ["a spot with endgame", "remove board"]),
    (dict(ranges__oop="AsQs", ranges__ip="AsJs"), ["no hand of oop can be dealt together with a hand of ip"]),
]


@pytest.mark.parametrize("fmt", ["toml", "json"])
@pytest.mark.parametrize("changes, fragments", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input_names_the_file_and_the_field(tmp_path, fmt, changes, fragments):
    path = _write(tmp_path, _with(**changes), name="bad", fmt=fmt)
    with pytest.raises(ValueError) as info:
        load_spot(path)
    msg = str(info.value)
    assert msg.startswith(str(path) + ": "), msg
    for fragment in fragments:
        assert fragment in msg, (fragment, msg)


def test_weights_on_board_combos_are_an_error_not_dropped(tmp_path):
    w = np.zeros(1326)
    w[parse_combo("KsQh")] = 1.0                      # holds the board's Ks
    w[parse_combo("QdQc")] = 1.0
    msg = r"ranges.ip: positive weight on 1 combo\(s\) holding a card of the board Ks7d2c9h4s \(KsQh\)"
    with pytest.raises(ValueError, match=msg):
        load_spot(_write(tmp_path, _with(ranges__ip=w.tolist()), fmt="json"))
    w[parse_combo("QdQc")] = 0.0
    with pytest.raises(ValueError, match="ranges.ip: every combo with positive weight holds a card of the"):
        load_spot(_write(tmp_path, _with(ranges__ip=w.tolist()), fmt="json"))
    w[parse_combo("QdQc")] = -1.0
    with pytest.raises(ValueError, match="ranges.ip has negative weights"):
        load_spot(_write(tmp_path, _with(ranges__ip=w.tolist()), fmt="json"))


def test_file_level_errors(tmp_path):
    (tmp_path / "broken.toml").write_text("board = \n")
    with pytest.raises(ValueError, match="broken.toml: not valid TOML"):
        load_spot(tmp_path / "broken.toml")
    (tmp_path / "broken.json").write_text("{\"board\": ")
    with pytest.raises(ValueError, match="broken.json: not valid JSON"):
        load_spot(tmp_path / "broken.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="list.json: the spot must be a table"):
        load_spot(tmp_path / "list.json")
    (tmp_path / "notes.txt").write_text("board Ks7d2c9h4s\n")
    with pytest.raises(ValueError, match="notes.txt: unknown spot format"):
        load_spot(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError, match="spot file 'missing.toml' not found"):
        load_spot("missing.toml")
    with pytest.raises(TypeError, match="path must be a file path"):
        load_spot(3)
    bad_endgame = tmp_path / "eg.txt"
    bad_endgame.write_text("-round 5\n-board 4s8hTc9h2s\n-pot 500\n-reach 1\n")
    with pytest.raises(ValueError, match="eg.txt: -round must be 3"):
        load_spot(bad_endgame)


def test_spot_constructor_validates():
    ranges = np.stack([parse_range("AA", board="Ks7d2c9h4s"), parse_range("QQ", board="Ks7d2c9h4s")])
    ok = Spot(name="x", board=parse_cards("Ks7d2c9h4s"), pot=100, stack=100, ranges=ranges)
    assert ok.street == "river"
    with pytest.raises(ValueError, match="pot must be a positive"):
        dataclasses.replace(ok, pot=-1)
    msg = r"ranges.oop has positive weight on 3 combo\(s\) holding a board card \(KsKh, KsKd, KsKc\)"
    with pytest.raises(ValueError, match=msg):
        dataclasses.replace(ok, ranges=np.stack([parse_range("KK"), ranges[1]]))
    with pytest.raises(ValueError, match=r"ranges must have shape \(2, 1326\)"):
        dataclasses.replace(ok, ranges=ranges[0])
    with pytest.raises(ValueError, match="ranges.ip is empty"):
        dataclasses.replace(ok, ranges=np.stack([ranges[0], np.zeros(1326)]))
    with pytest.raises(ValueError, match="solver.max_iterations"):
        ok.replace(max_iterations=2.5)
    with pytest.raises(ValueError, match="bet_sizes.raise_cap"):
        dataclasses.replace(ok, raise_cap=True)


# ---------------------------------------------------------------------- property: range strings vs the board
_CLASS_TOKENS = ["AA", "KK", "QQ", "77", "22", "AK", "AKs", "KQo", "QJs", "T9s", "98", "A5s", "K7", "J2o"]


@settings(max_examples=40, deadline=None)
@given(board=st.lists(st.integers(0, 51), min_size=4, max_size=5, unique=True),
       oop=st.lists(st.sampled_from(_CLASS_TOKENS), min_size=1, max_size=5, unique=True),
       ip=st.lists(st.sampled_from(_CLASS_TOKENS), min_size=1, max_size=5, unique=True),
       weight=st.sampled_from([1.0, 0.5, 0.25]))
def test_range_strings_lose_exactly_the_board_combos(board, oop, ip, weight):
    texts = [",".join(oop), ",".join(ip[:-1] + [f"{ip[-1]}:{weight}"])]
    conflicts = card_mask(board)
    raw = [parse_range(t) for t in texts]
    data = {"board": format_cards(board), "pot": 100, "stack": 300,
            "ranges": dict(zip(("oop", "ip"), texts))}
    live = [np.any((w > 0) & ~conflicts) for w in raw]
    if not all(live):
        with pytest.raises(ValueError, match="every combo of the range"):
            parse_spot(data)
        return
    # independent count: combos of each range that hold a board card, from the combo cards themselves
    holds = np.isin(COMBO_CARDS, board).any(axis=1)
    live0, live1 = np.flatnonzero((raw[0] > 0) & ~holds), np.flatnonzero((raw[1] > 0) & ~holds)
    compatible = any(not (set(COMBO_CARDS[i]) & set(COMBO_CARDS[j])) for i in live0 for j in live1)
    if not compatible:
        with pytest.raises(ValueError, match="no hand of oop"):
            parse_spot(data)
        return
    spot = parse_spot(data)
    for p in range(2):
        np.testing.assert_array_equal(spot.ranges[p], np.where(holds, 0.0, raw[p]))
        assert spot.board_removed[p] == int(np.count_nonzero((raw[p] > 0) & holds))
    assert np.all(spot.ranges[:, board_conflicts(board)] == 0)

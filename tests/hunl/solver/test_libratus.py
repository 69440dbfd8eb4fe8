"""hunl.solver.libratus: the four real endgame files load as published, malformed files raise clear errors."""

import doctest
import itertools
from pathlib import Path

import numpy as np
import pytest

from hunl.poker.cards import COMBO_LABELS, board_conflicts, card_mask, format_cards, parse_card
from hunl.solver import libratus
from hunl.solver.libratus import ENDGAMES, ENV_VAR, LibratusEndgame, endgame_dir, load_endgame, save_endgame

# The table of data/libratus_endgames/README.md (Brown & Sandholm 2019 endgames, DDCFR repository).
PUBLISHED = {
    "subgame1": ("turn", "7s9h9cTc", 500.0),
    "subgame2": ("turn", "Ts6hAh7c", 4780.0),
    "subgame3": ("river", "4s8hTc9h2s", 500.0),
    "subgame4": ("river", "JsKs5cQs7d", 3750.0),
}
REPO_DIR = Path(__file__).resolve().parents[3] / "data" / "libratus_endgames"
SHARED_DIR = Path("/work/shared/data/libratus_endgames")


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def test_docstring_examples():
    result = doctest.testmod(libratus, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("name", ENDGAMES)
def test_real_endgames_match_the_published_table(name):
    street, board, pot = PUBLISHED[name]
    game = load_endgame(name)
    assert (game.name, game.street, format_cards(game.board), game.pot) == (name, street, board, pot)
    assert game.round == {"turn": 3, "river": 4}[street]
    assert (game.stack, game.big_blind, game.small_blind) == (20_000.0, 100.0, 50.0)
    assert game.stack_remaining == 20_000.0 - pot / 2
    assert game.reach.shape == (2, 1326) and game.reach.dtype == np.float64 and not game.reach.flags.writeable
    assert np.all(game.reach[:, board_conflicts(board)] == 0)
    assert np.all(game.reach >= 0) and np.all(game.reach <= 1) and np.all(game.reach.sum(axis=1) > 1)
    normalised = game.normalised_reach()
    np.testing.assert_allclose(normalised.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(normalised * game.reach.sum(axis=1, keepdims=True), game.reach, rtol=1e-12)


@pytest.mark.parametrize("name", ENDGAMES)
def test_reach_order_matches_an_independent_parse(name):
    """The README's hand order (pairs (i, j), i < j, lexicographic) read with plain Python."""
    game = load_endgame(name)
    lines = game.path.read_text().split("\n")
    numbers = [float(x) for x in next(line for line in lines if line.startswith("-reach")).split()[1:]]
    pairs = list(itertools.combinations(range(52), 2))
    for player in range(2):
        for k in range(0, 1326, 13):
            assert game.reach[player, k] == numbers[1326 * player + pairs.index(tuple(pairs[k]))]
    board = set(game.board)
    blocked = [k for k, (i, j) in enumerate(pairs) if i in board or j in board]
    assert all(numbers[k] == 0 and numbers[1326 + k] == 0 for k in blocked)


def test_name_resolution(tmp_path, monkeypatch):
    assert endgame_dir() == REPO_DIR and load_endgame("subgame2.txt").path == REPO_DIR / "subgame2.txt"
    if SHARED_DIR.is_dir():      # the committed copy is the shared one, unchanged
        for name in ENDGAMES:
            assert (REPO_DIR / f"{name}.txt").read_bytes() == (SHARED_DIR / f"{name}.txt").read_bytes()
    game = load_endgame(REPO_DIR / "subgame3.txt")
    assert game.name == "subgame3" and game.street == "river"
    altered = tmp_path / "subgame1.txt"
    altered.write_text((REPO_DIR / "subgame1.txt").read_text().replace("-pot 500", "-pot 600"))
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert endgame_dir() == tmp_path and load_endgame("subgame1").pot == 600.0
    with pytest.raises(FileNotFoundError, match="subgame2.txt"):
        load_endgame("subgame2")
    with pytest.raises(FileNotFoundError, match="not found"):
        load_endgame(tmp_path / "nope.txt")
    with pytest.raises(TypeError, match="path_or_name"):
        load_endgame(3)


def test_save_load_round_trip(tmp_path):
    for name in ENDGAMES:
        game = load_endgame(name)
        back = load_endgame(save_endgame(game, tmp_path / f"{name}.txt"))
        assert (back.street, back.board, back.pot) == (game.street, game.board, game.pot)
        assert np.array_equal(back.reach, game.reach)
    rng = np.random.default_rng(0)
    reach = rng.random((2, 1326)) * ~board_conflicts("2c3d4h5s6c")
    game = LibratusEndgame("random", "river", (3, 6, 9, 12, 19), 1234.5, reach)
    back = load_endgame(save_endgame(game, tmp_path / "random.txt"))
    assert back.pot == 1234.5 and back.board == game.board and np.array_equal(back.reach, reach)


def _valid_cards(board):
    out = []
    for i in range(0, len(board), 2):
        try:
            out.append(parse_card(board[i:i + 2]))
        except ValueError:
            pass
    return out


def _write(tmp_path, round_="3", board="7s9h9cTc", pot="500", reach=None, extra=""):
    if reach is None:                         # 0.5 on every combo that avoids the board's valid cards
        reach = np.tile(np.where(card_mask(_valid_cards(board)), 0.0, 0.5), 2)
    text = f"-round {round_}\n-board {board}\n-pot {pot}\n-reach {' '.join(map(str, reach))}\n{extra}"
    path = tmp_path / "bad.txt"
    path.write_text(text)
    return path


def _reach_with(board, index, value):
    reach = np.where(np.concatenate([board_conflicts(board)] * 2), 0.0, 0.5)
    reach[index] = value
    return reach


@pytest.mark.parametrize("kwargs, message", [
    (dict(round_="2"), "-round must be 3 .turn. or 4 .river., got '2'"),
    (dict(round_="x"), "-round must be 3"),
    (dict(round_="3 4"), "-round must have exactly one value"),
    (dict(round_="4"), r"-board \(round 4\) must have 5 cards, got 4"),
    (dict(board="7s9h9cTcJc"), r"-board \(round 3\) must have 4 cards, got 5"),
    (dict(board="7s9h9c9h"), r"repeats the card\(s\) 9h"),
    (dict(board="7s9h9cZc"), "unknown card 'Zc'"),
    (dict(pot="0"), "-pot must be a positive number"),
    (dict(pot="-5"), "-pot must be a positive number"),
    (dict(pot="inf"), "-pot must be a positive number"),
    (dict(pot="abc"), "-pot must be a number"),
    (dict(pot="40001"), "needs more than the stack"),
    (dict(reach=np.full(2651, 0.0)), "-reach must hold 2,652 numbers .* got 2651"),
    (dict(reach=np.full(2653, 0.0)), "got 2653"),
    (dict(reach=["0.5"] * 2651 + ["zero"]), "not a number"),
    (dict(reach=_reach_with("7s9h9cTc", 0, np.nan)), "player 0 .* is not finite at combo 2s2h"),
    (dict(reach=_reach_with("7s9h9cTc", 1326, -0.1)), r"player 1 \(button\) must be a probability in \[0, 1"),
    (dict(reach=_reach_with("7s9h9cTc", COMBO_LABELS.index("3h2s"), 1.5)),
     r"player 0 .* a probability in \[0, 1\]; got 1.5 at combo 3h2s"),
    (dict(reach=_reach_with("7s9h9cTc", COMBO_LABELS.index("Tc9c"), 0.25)),
     "player 0 .out of position. is 0.25 at combo Tc9c, which conflicts with the board 7s9h9cTc"),
    (dict(reach=_reach_with("7s9h9cTc", 1326 + COMBO_LABELS.index("AhTc"), 0.1)),
     "player 1 .button. is 0.1 at combo AhTc"),
    (dict(reach=np.concatenate([np.zeros(1326), np.where(board_conflicts("7s9h9cTc"), 0, 0.5)])),
     "player 0 .out of position. is zero on every combo"),
    (dict(extra="-stack 20000\n"), "line 5 starts with '-stack'"),
    (dict(extra="-pot 600\n"), "field -pot appears twice"),
])
def test_malformed_files_raise_naming_the_file(tmp_path, kwargs, message):
    path = _write(tmp_path, **kwargs)
    with pytest.raises(ValueError, match=message) as info:
        load_endgame(path)
    assert str(path) in str(info.value)


def test_missing_field(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("-round 3\n-board 7s9h9cTc\n")
    with pytest.raises(ValueError, match=r"short.txt: missing field\(s\) -pot, -reach"):
        load_endgame(path)


def test_direct_construction_is_validated():
    reach = np.where(np.stack([board_conflicts("7s9h9cTc")] * 2), 0.0, 0.5)
    game = LibratusEndgame("x", "turn", "7s9h9cTc", 500, reach)
    assert game.board == (20, 29, 31, 35) and isinstance(game.pot, float)
    reach[0, 0] = 0.25                       # the endgame holds its own read-only copy
    assert game.reach[0, 0] == 0.5
    with pytest.raises(ValueError, match="street must be 'turn' or 'river'"):
        LibratusEndgame("x", "flop", "7s9h9c", 500, reach)
    with pytest.raises(ValueError, match=r"reach must have shape \(2, 1326\)"):
        LibratusEndgame("x", "turn", "7s9h9cTc", 500, reach[0])
    with pytest.raises(ValueError, match="pot must be a positive finite"):
        LibratusEndgame("x", "turn", "7s9h9cTc", float("nan"), reach)
    with pytest.raises(ValueError, match="stack must be a positive finite"):
        LibratusEndgame("x", "turn", "7s9h9cTc", 500, reach, stack=0)

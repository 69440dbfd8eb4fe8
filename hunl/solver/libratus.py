"""The four Libratus HUNL endgames of Brown & Sandholm (AAAI 2019): a validated loader.

Brown & Sandholm, *Solving Imperfect-Information Games via Discounted Regret Minimization* (AAAI 2019,
Section 5) test DCFR on four heads-up no-limit hold'em endgames that the Libratus agent generated and solved:
two start on the turn and two on the river, with each player's reach probabilities of the 1,326 hands under
the Libratus blueprint. The files come from the MIT-licensed DDCFR repository (rpSebastian/DDCFR,
``PokerRL/LibratusEndgames/``); a copy with its license notice is in ``data/libratus_endgames/``.

File format, one field a line: ``-round 3`` (3 = turn, 4 = river), ``-board 7s9h9cTc``, ``-pot 500`` (chips,
half from each player) and ``-reach`` followed by 2,652 numbers: 1,326 for the out-of-position player (first
to act on the round), then 1,326 for the button, in the combo order of :mod:`hunl.poker.cards`. Blinds are 50/100
and stacks 20,000 chips at the start of the hand. A file must be UTF-8 and end with a newline: one cut inside its
last number still holds 2,652 numbers, so a missing final newline is refused as a truncation.

>>> game = load_endgame("subgame1")
>>> game.street, format_cards(game.board), game.pot, game.stack_remaining
('turn', '7s9h9cTc', 500.0, 19750.0)
>>> game.normalised_reach().sum(axis=1)
array([1., 1.])
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hunl.poker.cards import COMBO_LABELS, NUM_COMBOS, board_conflicts, check_board, format_cards
from rulelearn.validation import read_text_file

__all__ = [
    "ENDGAMES",
    "ENV_VAR",
    "LibratusEndgame",
    "endgame_dir",
    "load_endgame",
    "save_endgame",
]

#: Names of the four endgames (files ``<name>.txt``).
ENDGAMES = ("subgame1", "subgame2", "subgame3", "subgame4")
#: Environment variable that overrides the directory the endgame names resolve against.
ENV_VAR = "RULELEARN_LIBRATUS_DIR"
_REPO_DIR = Path(__file__).resolve().parents[2] / "data" / "libratus_endgames"
_SHARED_DIR = Path("/work/shared/data/libratus_endgames")

_STREET_OF_ROUND = {3: "turn", 4: "river"}
_ROUND_OF_STREET = {v: k for k, v in _STREET_OF_ROUND.items()}
_BOARD_CARDS = {"turn": 4, "river": 5}
_PLAYERS = ("player 0 (out of position)", "player 1 (button)")
_FIELDS = ("-round", "-board", "-pot", "-reach")
#: Reach probabilities may exceed 1 by this much (float noise in the files); more is an error.
_REACH_ATOL = 1e-9


@dataclass(frozen=True, eq=False)
class LibratusEndgame:
    """One HUNL endgame: a turn or river board, the pot, and each player's reach of every hand.

    Attributes
    ----------
    name : str
        ``"subgame1"`` .. ``"subgame4"`` (the file stem).
    street : {"turn", "river"}
        The betting round the endgame starts on (file round 3 or 4).
    board : tuple of int
        4 (turn) or 5 (river) distinct card indices (:mod:`hunl.poker.cards` convention).
    pot : float
        Chips in the pot at the start of the endgame; each player has put in ``pot / 2``.
    reach : numpy.ndarray of float64, shape (2, 1326), read-only
        ``reach[p, k]``: probability that player ``p`` reaches the endgame holding combo ``k`` under the
        Libratus blueprint. Row 0 is the out-of-position player (first to act on the round), row 1 the button.
        Zero on every combo that shares a card with the board. Not normalised (see :meth:`normalised_reach`).
    stack : float
        Chips per player at the start of the hand (20,000 = 200 big blinds).
    big_blind, small_blind : float
        Blinds in chips (100 and 50).
    path : pathlib.Path or None
        The file the endgame was read from.

    Raises
    ------
    ValueError
        On construction, if a field breaks the rules :func:`load_endgame` checks.

    Notes
    -----
    Instances compare by identity (``eq=False``): ``reach`` is an array.
    """

    name: str
    street: str
    board: tuple[int, ...]
    pot: float
    reach: np.ndarray = field(repr=False)
    stack: float = 20_000.0
    big_blind: float = 100.0
    small_blind: float = 50.0
    path: Path | None = None

    def __post_init__(self):
        if self.street not in _BOARD_CARDS:
            raise ValueError(f"street must be 'turn' or 'river', got {self.street!r}")
        n_board = _BOARD_CARDS[self.street]
        board = check_board(self.board, n_board, n_board)
        for attr in ("pot", "stack", "big_blind", "small_blind"):
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{attr} must be a positive finite number of chips, got {value!r}")
        if self.pot / 2 > self.stack:
            raise ValueError(
                f"pot {self.pot!r} needs more than the stack of {self.stack!r} chips from each player"
            )
        reach = np.array(self.reach, dtype=np.float64)
        if reach.shape != (2, NUM_COMBOS):
            raise ValueError(
                f"reach must have shape (2, 1326) (two players' reach of each combo), got {reach.shape}"
            )
        conflicts = board_conflicts(board)
        for p in range(2):
            row, who = reach[p], _PLAYERS[p]
            if not np.all(np.isfinite(row)):
                k = int(np.flatnonzero(~np.isfinite(row))[0])
                raise ValueError(f"reach of {who} is not finite at combo {COMBO_LABELS[k]}")
            if np.any(row < 0) or np.any(row > 1 + _REACH_ATOL):
                k = int(np.flatnonzero((row < 0) | (row > 1 + _REACH_ATOL))[0])
                raise ValueError(f"reach of {who} must be a probability in [0, 1]; got {float(row[k])!r} at "
                                 f"combo {COMBO_LABELS[k]}")
            bad = np.flatnonzero(conflicts & (row != 0))
            if bad.size:
                k = int(bad[0])
                raise ValueError(
                    f"reach of {who} is {float(row[k])!r} at combo {COMBO_LABELS[k]}, which conflicts with "
                    f"the board {format_cards(board)} (and {bad.size - 1} more); it must be 0"
                )
            if not np.any(row > 0):
                raise ValueError(f"reach of {who} is zero on every combo")
        reach.setflags(write=False)
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "pot", float(self.pot))
        object.__setattr__(self, "stack", float(self.stack))
        object.__setattr__(self, "big_blind", float(self.big_blind))
        object.__setattr__(self, "small_blind", float(self.small_blind))
        object.__setattr__(self, "reach", reach)
        if self.path is not None:
            object.__setattr__(self, "path", Path(self.path))

    @property
    def round(self) -> int:
        """The file's betting-round number: 3 (turn) or 4 (river)."""
        return _ROUND_OF_STREET[self.street]

    @property
    def stack_remaining(self) -> float:
        """Effective stack behind each player at the start of the endgame: ``stack - pot / 2`` chips."""
        return self.stack - self.pot / 2

    def normalised_reach(self) -> np.ndarray:
        """The reach vectors scaled so that each player's row sums to 1 (as the published reference runs do).

        Returns
        -------
        numpy.ndarray of float64, shape (2, 1326)
            Each player's distribution over combos given that the endgame is reached.
        """
        return self.reach / self.reach.sum(axis=1, keepdims=True)


def endgame_dir() -> Path:
    """The directory the names in :data:`ENDGAMES` resolve against.

    ``$RULELEARN_LIBRATUS_DIR`` if set; otherwise the repository copy ``data/libratus_endgames/`` if present;
    otherwise ``/work/shared/data/libratus_endgames``.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    if (_REPO_DIR / f"{ENDGAMES[0]}.txt").is_file():
        return _REPO_DIR
    return _SHARED_DIR


def _resolve(path_or_name) -> Path:
    if isinstance(path_or_name, str) and path_or_name.removesuffix(".txt") in ENDGAMES \
            and os.path.sep not in path_or_name:
        path = endgame_dir() / f"{path_or_name.removesuffix('.txt')}.txt"
    elif isinstance(path_or_name, (str, os.PathLike)):
        path = Path(path_or_name)
    else:
        raise TypeError(
            f"path_or_name must be a path or one of {ENDGAMES}, got {type(path_or_name).__name__}"
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"Libratus endgame file {str(path)!r} not found (names {', '.join(ENDGAMES)} resolve against "
            f"${ENV_VAR} or data/libratus_endgames/)"
        )
    return path


def _read_fields(path: Path) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    text = read_text_file(path)
    if text.strip() and not text.endswith("\n"):
        # a file cut inside its last line would otherwise pass: its last number, shortened, is still a number
        raise ValueError(f"{path}: does not end with a newline, so it is truncated (its last value may be cut "
                         "short); if the file is complete, add a newline at its end")
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key not in _FIELDS:
            raise ValueError(
                f"{path}: line {number} starts with {key[:20]!r}; expected one of {', '.join(_FIELDS)}"
            )
        if key in fields:
            raise ValueError(f"{path}: field {key} appears twice (line {number})")
        fields[key] = parts[1:]
    missing = [k for k in _FIELDS if k not in fields]
    if missing:
        raise ValueError(f"{path}: missing field(s) {', '.join(missing)}")
    return fields


def _single(fields: dict[str, list[str]], key: str, path: Path) -> str:
    values = fields[key]
    if len(values) != 1:
        raise ValueError(f"{path}: {key} must have exactly one value, got {len(values)}")
    return values[0]


def load_endgame(path_or_name) -> LibratusEndgame:
    """Read and validate a Libratus endgame file.

    Parameters
    ----------
    path_or_name : str or os.PathLike
        One of :data:`ENDGAMES` (``"subgame1"`` .. ``"subgame4"``, resolved by :func:`endgame_dir`), or the
        path of a file in the same format.

    Returns
    -------
    LibratusEndgame
        With ``stack = 20000``, ``big_blind = 100``, ``small_blind = 50`` chips (the game of the files).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        Naming the file: unknown, repeated or missing fields; a round other than 3 or 4; a board whose length
        does not match the round, with an unknown or repeated card; a pot that is not a positive number; a
        reach list that does not hold 2,652 finite numbers in [0, 1], is positive on a combo that conflicts
        with the board (the message names the player and the combo) or is zero for a player.
    TypeError
        If ``path_or_name`` is neither a string nor a path.
    """
    path = _resolve(path_or_name)
    fields = _read_fields(path)
    round_text = _single(fields, "-round", path)
    try:
        round_ = int(round_text)
    except ValueError:
        round_ = None
    if round_ not in _STREET_OF_ROUND:
        raise ValueError(f"{path}: -round must be 3 (turn) or 4 (river), got {round_text!r}")
    street = _STREET_OF_ROUND[round_]
    n_board = _BOARD_CARDS[street]
    try:
        board = check_board(" ".join(fields["-board"]), n_board, n_board, name=f"-board (round {round_})")
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    pot_text = _single(fields, "-pot", path)
    try:
        pot = float(pot_text)
    except ValueError:
        raise ValueError(f"{path}: -pot must be a number of chips, got {pot_text!r}") from None
    if not (math.isfinite(pot) and pot > 0):
        raise ValueError(f"{path}: -pot must be a positive number of chips, got {pot_text!r}")
    values = fields["-reach"]
    if len(values) != 2 * NUM_COMBOS:
        raise ValueError(f"{path}: -reach must hold 2,652 numbers (1,326 per player), got {len(values)}")
    try:
        reach = np.array(values, dtype=np.float64).reshape(2, NUM_COMBOS)
    except ValueError as exc:
        raise ValueError(f"{path}: -reach holds a value that is not a number ({exc})") from None
    try:
        return LibratusEndgame(name=path.stem, street=street, board=board, pot=pot, reach=reach, path=path)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def save_endgame(endgame: LibratusEndgame, path) -> Path:
    """Write an endgame in the Libratus file format (:func:`load_endgame` reads it back exactly).

    Stack and blinds are not part of the format: the loader assumes 20,000 chips and 50/100 blinds.

    Parameters
    ----------
    endgame : LibratusEndgame
        The endgame to write: its round (3 = turn, 4 = river), board, pot (chips; written as an integer when
        it is one) and the 2 x 1,326 reach probabilities (out-of-position player first), as exact ``repr``
        floats.
    path : str or os.PathLike
        The file to write (replaced if it exists; its directory must exist).

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    TypeError
        If ``endgame`` is not a :class:`LibratusEndgame`.
    OSError
        If the file cannot be written (e.g. its directory does not exist).
    """
    if not isinstance(endgame, LibratusEndgame):
        raise TypeError(f"endgame must be a LibratusEndgame, got {type(endgame).__name__}")
    path = Path(path)
    pot = int(endgame.pot) if float(endgame.pot).is_integer() else repr(endgame.pot)
    lines = [
        f"-round {endgame.round}",
        f"-board {format_cards(endgame.board)}",
        f"-pot {pot}",
        "-reach " + " ".join(repr(float(x)) for x in endgame.reach.ravel()),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path

"""Spot files: a HUNL turn or river endgame to solve, read from TOML, JSON or a Libratus endgame file.

A *spot* is everything :func:`hunl.solver.solve.solve_endgame` needs: the board, the pot, the stack behind, both
players' ranges, the bet abstraction and the solver's settings. :func:`load_spot` reads one into a frozen
:class:`Spot`; :meth:`Spot.game` builds the :class:`hunl.solver.game.HoldemEndgame`. ``scripts/solve_spot.py`` is the
command line around it.

Schema (TOML shown; a JSON spot is the same nested object)::

    name = "river_small"            # optional; default: the file name without suffix ([A-Za-z0-9_.-])
    description = "..."             # optional free text
    board = "Ks7d2c9h4s"            # 4 cards (turn endgame) or 5 (river endgame), no card repeated
    pot = 1000                      # chips in the pot when the endgame starts, > 0 (half from each player)
    stack = 4500                    # effective stack behind, chips, >= 0 ...
    # starting_stack = 5000         # ... OR the stack when the hand started: behind = starting_stack - pot/2
    big_blind = 100                 # optional, chips (default 100): units of bb/hand and mbb/g

    [ranges]                        # both required; oop acts first on every street
    oop = "QQ+,AK,KQs,T9s-76s:0.5"  # solver range syntax (hunl.poker.ranges) ...
    ip = {file = "ip_range.txt"}    # ... or a file (relative to the spot file) or a list of 1,326 weights

    [bet_sizes]                     # optional
    raise_cap = 3                   # raises per street after the first bet (default 3)
    allin_threshold = 0.0           # a bet leaving less than this times the pot behind becomes all-in

    [bet_sizes.river]               # optional; default bets [0.5, 1.0], raises [1.0], all_in true
    bets = [0.33, 0.75]             # first bet of the street, fractions of the pot
    raises = [1.0]                  # raises, fractions of the pot after calling ([] = no sized raise)
    all_in = true                   # all-in always allowed
    # raise_cap / allin_threshold may also be written here; the tree has one value for every street, so
    # values given in several places must agree

    [bet_sizes.turn]                # turn spots only (an error on a river spot)

    [solver]                        # optional; command-line options override it
    algorithm = "dcfr"              # "dcfr" or "cfr+"
    max_iterations = 1000
    target_pct_pot = 0.5            # stop at this exploitability, percent of the pot (default: none)
    check_every = 10                # measure exploitability every this many iterations (default: automatic)

A spot can take the board, pot, stack and ranges from a Libratus endgame instead: ``endgame = "subgame3"`` (a
name in :data:`hunl.solver.libratus.ENDGAMES` or a path relative to the spot file) replaces ``board``, ``pot``,
``stack``/``starting_stack``, ``ranges`` and ``big_blind``, which must then be absent; ``bet_sizes`` and
``solver`` still apply. A Libratus endgame file given directly (detected by content: its first field is
``-round``; or by the names ``subgame1`` .. ``subgame4``) is the spot ``endgame = FILE`` with nothing else.

Libratus endgames (Brown & Sandholm, AAAI 2019, Section 5) use the abstraction of the DDCFR repository's
benchmark unless the spot gives bet sizes: ``{0.5 pot, 1 pot, all-in}`` for a round's first bet and
``{1 pot, all-in}`` afterwards (:data:`hunl.solver.tree.LIBRATUS_SIZES`) with no cap on the number of raises (in the
four endgames a cap of 4 raises gives the same tree); each reach vector is normalised to sum 1;
stacks are 20,000 chips and blinds 50/100, so the stack behind is ``20000 - pot / 2``.

Validation. Keys that are not in the schema are an error naming the key (a typo must not be ignored). Every
error is a ``ValueError`` whose message starts with the file and names the field (``ranges.oop``,
``bet_sizes.river.bets``): a malformed range, a board with a bad or repeated card, a non-positive pot, a
negative stack or a ``starting_stack`` below each player's share of the pot, an empty range, a range whose
every combo holds a board card, weights (file or list) that are positive on a combo holding a board card, two
ranges with no compatible pair of hands, bad sizes or solver settings. Range *strings* follow the solver
convention that a class such as ``"AA"`` means its combos that avoid the board (``"AA"`` on an ace-high board
is three combos); the number of combos removed so is kept in :attr:`Spot.board_removed` and printed by the
command line, so nothing is dropped silently.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hunl.poker.cards import (
    COMBO_LABELS,
    NUM_COMBOS,
    board_conflicts,
    check_board,
    format_cards,
    unblocked_sums,
)
from hunl.poker.ranges import check_range, parse_range
from hunl.solver.libratus import ENDGAMES, LibratusEndgame, load_endgame
from hunl.solver.settings import SolverSettings
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes
from rulelearn.validation import check_int

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

__all__ = [
    "ALGORITHMS",
    "PLAYERS",
    "Spot",
    "load_spot",
    "parse_spot",
    "spot_from_endgame",
]

#: Solver algorithms a spot may ask for.
ALGORITHMS = ("dcfr", "cfr+")
#: Range keys of a spot, in player order (0 = out of position, first to act; 1 = in position).
PLAYERS = ("oop", "ip")
#: ``raise_cap`` used when a spot has none (:attr:`Spot.raise_cap` is ``None``): above any raise sequence.
UNCAPPED = 1_000_000

_TOP_KEYS = ("name", "description", "board", "pot", "stack", "starting_stack", "big_blind", "ranges",
             "bet_sizes", "solver", "endgame")
_ENDGAME_EXCLUDES = ("board", "pot", "stack", "starting_stack", "ranges", "big_blind")
_SIZE_KEYS = ("bets", "raises", "all_in", "raise_cap", "allin_threshold")
_TREE_KEYS = ("raise_cap", "allin_threshold")
_SOLVER_KEYS = ("algorithm", "max_iterations", "target_pct_pot", "check_every")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_STREET_OF_CARDS = {4: "turn", 5: "river"}
_LIBRATUS_FIELDS = ("-round", "-board", "-pot", "-reach")


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _number(v, name: str) -> float:
    if not _is_number(v) or not math.isfinite(float(v)):
        raise ValueError(f"{name} must be a finite number, got {v!r}")
    return float(v)


def _safe_name(stem: str) -> str:
    """A file stem made into a spot name: characters outside ``[A-Za-z0-9_.-]`` become ``_``."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", stem)
    return name if _NAME_RE.match(name) else f"spot_{name}"


def _first_labels(mask: np.ndarray, limit: int = 4) -> str:
    idx = np.flatnonzero(mask)
    shown = ", ".join(COMBO_LABELS[k] for k in idx[:limit])
    return shown + (f" and {idx.size - limit} more" if idx.size > limit else "")


@dataclass(frozen=True, eq=False)
class Spot:
    """A HUNL turn or river endgame with its bet abstraction and solver settings (the content of a spot file).

    Every field is validated on construction (also by :func:`dataclasses.replace`). Error messages name the
    field as it is written in a spot file (``ranges.oop``, ``bet_sizes.river``, ``solver.max_iterations``).

    Attributes
    ----------
    name : str
        Short name (letters, digits, ``_.-``): the default output directory ``data/spots/<name>/``.
    board : tuple of int
        4 (turn) or 5 (river) distinct card indices (:mod:`hunl.poker.cards`).
    pot : float
        Chips in the pot at the start of the endgame, > 0; each player has put in half.
    stack : float
        Effective stack behind each player at the start of the endgame, chips, >= 0.
    ranges : numpy.ndarray of float64, shape (2, 1326), read-only
        Weight of each combo for the out-of-position player (row 0, first to act) and the in-position player
        (row 1). Nonnegative, zero on every combo that holds a board card, not all zero, and the two rows must
        allow at least one pair of hands without a shared card.
    big_blind : float, default 100
        Big blind in chips (for bb/hand and mbb/g).
    turn_sizes, river_sizes : BetSizes
        The bet abstraction of each street (``turn_sizes`` is unused on a river spot).
    raise_cap : int or None, default 3
        Raises per street after the first bet; ``None`` means no cap (:data:`UNCAPPED`).
    allin_threshold : float, default 0
        See :class:`hunl.solver.tree.TreeConfig`.
    solver : SolverSettings
        The spot file's ``solver`` table (:class:`~hunl.solver.settings.SolverSettings`; a spot allows the
        algorithms ``"dcfr"`` and ``"cfr+"``). Its fields read as ``spot.algorithm``, ``spot.max_iterations``,
        ``spot.target_pct_pot``, ``spot.check_every``; :meth:`replace` changes any field, solver ones included.
    range_text : tuple of two (str or None)
        The range strings as written (``None`` for weights from a file, a list or a Libratus endgame).
    board_removed : tuple of two int
        Combos of each range string that hold a board card and were therefore not dealt.
    source : str or None
        Where the spot was read from (file path or Libratus endgame name).
    kind : {"spot", "libratus"}
        ``"libratus"`` when board, pot, stack and ranges come from a Libratus endgame.

    Raises
    ------
    ValueError
        If a field breaks one of the rules above.
    TypeError
        If ``turn_sizes`` or ``river_sizes`` is not a :class:`hunl.solver.tree.BetSizes`.
    """

    name: str
    board: tuple
    pot: float
    stack: float
    ranges: np.ndarray = field(repr=False)
    big_blind: float = 100.0
    turn_sizes: BetSizes = field(default_factory=BetSizes)
    river_sizes: BetSizes = field(default_factory=BetSizes)
    raise_cap: int | None = 3
    allin_threshold: float = 0.0
    solver: SolverSettings = field(default_factory=SolverSettings)
    range_text: tuple = (None, None)
    board_removed: tuple = (0, 0)
    source: str | None = None
    kind: str = "spot"

    def __post_init__(self):
        set_ = object.__setattr__
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(f"name must be letters, digits, '_', '.' or '-' (a directory name), "
                             f"got {self.name!r}")
        set_(self, "board", check_board(self.board, min_cards=4, max_cards=5, name="board"))
        pot = _number(self.pot, "pot")
        if pot <= 0:
            raise ValueError(f"pot must be a positive number of chips, got {self.pot!r}")
        stack = _number(self.stack, "stack")
        if stack < 0:
            raise ValueError(f"stack (chips behind each player) must be >= 0, got {self.stack!r}")
        bb = _number(self.big_blind, "big_blind")
        if bb <= 0:
            raise ValueError(f"big_blind must be a positive number of chips, got {self.big_blind!r}")
        set_(self, "pot", pot)
        set_(self, "stack", stack)
        set_(self, "big_blind", bb)
        set_(self, "ranges", _check_ranges(self.ranges, self.board))
        for street in ("turn", "river"):
            sizes = getattr(self, f"{street}_sizes")
            if not isinstance(sizes, BetSizes):
                raise TypeError(f"bet_sizes.{street} must be a BetSizes, got {type(sizes).__name__}")
        check_int("bet_sizes.raise_cap", self.raise_cap, 0, allow_none=True)
        thr = _number(self.allin_threshold, "bet_sizes.allin_threshold")
        if thr < 0:
            raise ValueError(f"bet_sizes.allin_threshold must be >= 0, got {self.allin_threshold!r}")
        set_(self, "allin_threshold", thr)
        if not isinstance(self.solver, SolverSettings):
            raise TypeError(f"solver must be a SolverSettings, got {type(self.solver).__name__}")
        if self.solver.algorithm not in ALGORITHMS:
            raise ValueError(f"solver.algorithm must be one of {', '.join(ALGORITHMS)}, "
                             f"got {self.solver.algorithm!r}")
        if self.kind not in ("spot", "libratus"):
            raise ValueError(f"kind must be 'spot' or 'libratus', got {self.kind!r}")
        set_(self, "range_text", tuple(self.range_text))
        set_(self, "board_removed", tuple(int(x) for x in self.board_removed))

    # ------------------------------------------------------------------ derived
    @property
    def street(self) -> str:
        """``"turn"`` (4-card board) or ``"river"`` (5 cards)."""
        return _STREET_OF_CARDS[len(self.board)]

    @property
    def board_text(self) -> str:
        """The board as a string, e.g. ``"Ks7d2c9h4s"``."""
        return format_cards(self.board)

    def num_combos(self) -> tuple[int, int]:
        """Combos with positive weight in each range (the hands of :meth:`game`)."""
        return int(np.count_nonzero(self.ranges[0])), int(np.count_nonzero(self.ranges[1]))

    @property
    def algorithm(self) -> str:
        return self.solver.algorithm

    @property
    def max_iterations(self) -> int:
        return self.solver.max_iterations

    @property
    def target_pct_pot(self) -> float | None:
        return self.solver.target_pct_pot

    @property
    def check_every(self) -> int | None:
        return self.solver.check_every

    def replace(self, **changes) -> Spot:
        """A copy with ``changes`` to its fields or to its solver settings (``max_iterations=50``), validated.

        Raises
        ------
        ValueError, TypeError
            As the constructor.
        """
        solver = {k: changes.pop(k) for k in list(changes) if k in _SOLVER_KEYS}
        if solver:
            changes["solver"] = self.solver.replace(**solver)
        return dataclasses.replace(self, **changes)

    def bet_sizes(self) -> dict:
        """``{"turn": BetSizes, "river": BetSizes}`` for :class:`hunl.solver.game.HoldemEndgame`."""
        return {"turn": self.turn_sizes, "river": self.river_sizes}

    def describe(self) -> str:
        """One line: name, street, board, pot, stack, combos per range and the abstraction."""
        h0, h1 = self.num_combos()
        sizes = self.river_sizes if self.street == "river" else self.turn_sizes
        cap = "no cap" if self.raise_cap is None else f"raise cap {self.raise_cap}"
        return (f"{self.name}: {self.street} {self.board_text}, pot {self.pot:g}, stack {self.stack:g}, "
                f"{h0} x {h1} combos, {self.street} bets {list(sizes.bets)} raises {list(sizes.raises)}"
                f"{' +all-in' if sizes.all_in else ''}, {cap}")

    def to_dict(self) -> dict:
        """JSON-ready description of the spot (ranges as text where they were written as text)."""
        out = {
            "name": self.name, "source": self.source, "kind": self.kind, "street": self.street,
            "board": self.board_text, "pot": self.pot, "stack": self.stack, "big_blind": self.big_blind,
            "ranges": dict(zip(PLAYERS, self.range_text)), "combos": dict(zip(PLAYERS, self.num_combos())),
            "board_removed": dict(zip(PLAYERS, self.board_removed)),
            "bet_sizes": {s: dataclasses.asdict(b) for s, b in self.bet_sizes().items()
                          if s == "river" or self.street == "turn"},
            "raise_cap": self.raise_cap, "allin_threshold": self.allin_threshold,
            "solver": self.solver.to_dict(),
        }
        for sizes in out["bet_sizes"].values():
            sizes["bets"], sizes["raises"] = list(sizes["bets"]), list(sizes["raises"])
        return out

    def game(self, dtype="float32", raise_cap: int | None = None):
        """Build the endgame for the solver.

        Parameters
        ----------
        dtype : {"float32", "float64"}, default "float32"
            Storage precision of the solver's per-(node, hand) arrays.
        raise_cap : int, optional
            Override :attr:`raise_cap` (e.g. from the command line).

        Returns
        -------
        hunl.solver.game.HoldemEndgame

        Raises
        ------
        ValueError
            A bad dtype or raise cap (see :class:`hunl.solver.game.HoldemEndgame`).
        """
        from hunl.solver.game import HoldemEndgame

        cap = self.raise_cap if raise_cap is None else raise_cap
        cap = UNCAPPED if cap is None else cap
        return HoldemEndgame(self.board, self.ranges, self.pot, self.stack, bet_sizes=self.bet_sizes(),
                             raise_cap=cap, allin_threshold=self.allin_threshold, big_blind=self.big_blind,
                             dtype=dtype)


def _check_ranges(ranges, board) -> np.ndarray:
    try:
        w = np.array(ranges, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"ranges must be a numeric array of shape (2, 1326): {exc}") from None
    if w.shape != (2, NUM_COMBOS):
        raise ValueError(f"ranges must have shape (2, 1326) (oop, ip), got {w.shape}")
    conflicts = board_conflicts(board)
    for p, key in enumerate(PLAYERS):
        name = f"ranges.{key}"
        bad = conflicts & (w[p] != 0)
        if np.any(bad):
            raise ValueError(f"{name} has positive weight on {int(bad.sum())} combo(s) holding a board card "
                             f"({_first_labels(bad)}); those hands cannot be dealt with board "
                             f"{format_cards(board)}")
        check_range(w[p], name=name, bounded=False)
    if not float(w[0] @ unblocked_sums(w[1])) > 0:
        raise ValueError("ranges: no hand of oop can be dealt together with a hand of ip "
                         "(every pair shares a card)")
    w.setflags(write=False)
    return w


# ---------------------------------------------------------------------- parsing
def _check_keys(table, allowed, where: str) -> None:
    if not isinstance(table, Mapping):
        raise ValueError(f"{where or 'the spot'} must be a table (mapping), got {type(table).__name__}")
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; allowed: {', '.join(allowed)}"
            prefix = f"{where}.{key}" if where else str(key)
            raise ValueError(f"{prefix}: unknown key {key!r}{hint}")


def _read_weights_file(path: Path, name: str):
    """A range file: ``.npy`` of 1,326 weights, a text file of 1,326 numbers, or a text file holding a range
    string (lines are joined with commas, a comma at a line's end is optional; ``#`` starts a comment)."""
    if not path.is_file():
        raise ValueError(f"{name}: range file {str(path)!r} not found")
    if path.suffix.lower() == ".npy":
        try:
            return np.load(path, allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{name}: cannot read {str(path)!r} as a .npy array ({exc})") from None
    lines = [ln.strip() for ln in path.read_text().splitlines()]
    text = ",".join(ln.strip(", ") for ln in lines if ln and not ln.startswith("#"))
    if not text:
        raise ValueError(f"{name}: range file {str(path)!r} is empty")
    if text[0].isdigit() or text[0] == ".":
        try:
            return np.array(text.replace(",", " ").split(), dtype=np.float64)
        except ValueError:
            raise ValueError(f"{name}: range file {str(path)!r} starts with a number but is not a list of "
                             "1,326 numbers") from None
    return text


def _parse_range(value, board, name: str, base_dir: Path | None):
    """(weights (1326,), text or None, combos removed by the board)."""
    if isinstance(value, Mapping):
        _check_keys(value, ("file",), name)
        if "file" not in value or not isinstance(value["file"], str):
            raise ValueError(f"{name}: a range table needs file = \"path\" (a string)")
        path = Path(value["file"])
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        value = _read_weights_file(path, name)
    conflicts = board_conflicts(board)
    board_txt = format_cards(board)
    if isinstance(value, str):
        try:
            w = parse_range(value)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        if not np.any(w > 0):
            raise ValueError(f"{name} is empty: {value!r} gives no combo a positive weight")
        live = w > 0
        if not np.any(live & ~conflicts):
            raise ValueError(f"{name}: every combo of the range {value!r} holds a card of the board "
                             f"{board_txt}, so the range is empty")
        removed = int(np.count_nonzero(live & conflicts))
        w[conflicts] = 0.0
        return w, value, removed
    if isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value)
        if arr.dtype.kind not in "iuf":
            raise ValueError(f"{name}: a weight list must hold 1,326 numbers (combo order of hunl.poker.cards)")
        if arr.shape != (NUM_COMBOS,):
            raise ValueError(f"{name}: a weight list must hold 1,326 numbers (one per combo), "
                             f"got shape {arr.shape}")
        w = check_range(arr, name=name, bounded=False)
        bad = conflicts & (w > 0)
        if np.any(bad):
            if not np.any((w > 0) & ~conflicts):
                raise ValueError(f"{name}: every combo with positive weight holds a card of the board "
                                 f"{board_txt}, so the range is empty")
            raise ValueError(f"{name}: positive weight on {int(bad.sum())} combo(s) holding a card of the "
                             f"board {board_txt} ({_first_labels(bad)}); weights must be 0 there")
        return w, None, 0
    raise ValueError(f"{name} must be a range string, a list of 1,326 weights or {{file = \"path\"}}, "
                     f"got {type(value).__name__}")


def _parse_sizes(table, street: str, defaults: BetSizes) -> tuple[BetSizes, dict]:
    where = f"bet_sizes.{street}"
    _check_keys(table, _SIZE_KEYS, where)
    kwargs = {}
    for key in ("bets", "raises"):
        if key in table:
            v = table[key]
            if _is_number(v):
                v = [v]
            if not isinstance(v, (list, tuple)) or not all(_is_number(x) for x in v):
                raise ValueError(f"{where}.{key} must be a list of pot fractions (numbers), got {v!r}")
            kwargs[key] = tuple(float(x) for x in v)
        else:
            kwargs[key] = getattr(defaults, key)
    if "all_in" in table:
        if not isinstance(table["all_in"], bool):
            raise ValueError(f"{where}.all_in must be true or false, got {table['all_in']!r}")
        kwargs["all_in"] = table["all_in"]
    else:
        kwargs["all_in"] = defaults.all_in
    try:
        sizes = BetSizes(**kwargs)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return sizes, {k: table[k] for k in _TREE_KEYS if k in table}


def _parse_bet_sizes(table, street: str, defaults: BetSizes, default_cap):
    """(turn BetSizes, river BetSizes, raise_cap, allin_threshold)."""
    table = {} if table is None else table
    _check_keys(table, ("turn", "river") + _TREE_KEYS, "bet_sizes")
    if street == "river" and "turn" in table:
        raise ValueError("bet_sizes.turn: a river spot (5-card board) has no turn betting; remove the table")
    tree_values: dict = {k: [(f"bet_sizes.{k}", table[k])] for k in _TREE_KEYS if k in table}
    sizes = {}
    for s in ("turn", "river"):
        sizes[s], extra = _parse_sizes(table.get(s, {}), s, defaults)
        for k, v in extra.items():
            tree_values.setdefault(k, []).append((f"bet_sizes.{s}.{k}", v))
    chosen = {}
    for k, given in tree_values.items():
        first_name, first = given[0]
        for other_name, other in given[1:]:
            if other != first:
                raise ValueError(f"{other_name} = {other!r} differs from {first_name} = {first!r}; the "
                                 f"betting tree uses one {k} for every street")
        chosen[k] = (first_name, first)
    cap, thr = default_cap, 0.0
    if "raise_cap" in chosen:
        where, cap = chosen["raise_cap"]
        if not _is_int(cap) or cap < 0:
            raise ValueError(f"{where} must be an integer >= 0, got {cap!r}")
    if "allin_threshold" in chosen:
        where, thr = chosen["allin_threshold"]
        if not _is_number(thr) or not math.isfinite(thr) or thr < 0:
            raise ValueError(f"{where} must be a number >= 0, got {thr!r}")
    return sizes["turn"], sizes["river"], cap, thr


def _parse_solver(table) -> SolverSettings:
    table = {} if table is None else table
    _check_keys(table, _SOLVER_KEYS, "solver")
    return SolverSettings(**table)


def _parse_name(data, default_name) -> str:
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"name must be letters, digits, '_', '.' or '-' (it names the output directory), "
                         f"got {name!r}")
    return name


def spot_from_endgame(endgame: LibratusEndgame, name: str | None = None, **overrides) -> Spot:
    """The spot of a Libratus endgame with the Libratus abstraction (see the module docstring).

    Parameters
    ----------
    endgame : LibratusEndgame
        From :func:`hunl.solver.libratus.load_endgame`.
    name : str, optional
        Default: the endgame's name (``"subgame3"``).
    **overrides
        Other :class:`Spot` fields (bet sizes, raise cap, ``solver``).

    Returns
    -------
    Spot
        Ranges = the normalised reach vectors (each sums to 1), stack = ``20000 - pot / 2``, big blind 100,
        ``LIBRATUS_SIZES`` on both streets, no raise cap, unless overridden.

    Raises
    ------
    TypeError
        If ``endgame`` is not a :class:`LibratusEndgame`.
    """
    if not isinstance(endgame, LibratusEndgame):
        raise TypeError(f"endgame must be a LibratusEndgame, got {type(endgame).__name__}")
    fields = dict(name=name or endgame.name, board=endgame.board, pot=endgame.pot,
                  stack=endgame.stack_remaining, ranges=endgame.normalised_reach(),
                  big_blind=endgame.big_blind, turn_sizes=LIBRATUS_SIZES, river_sizes=LIBRATUS_SIZES,
                  raise_cap=None,
                  source=str(endgame.path) if endgame.path is not None else endgame.name, kind="libratus")
    fields.update(overrides)
    return Spot(**fields)


def _resolve_endgame(ref, base_dir: Path | None) -> LibratusEndgame:
    if not isinstance(ref, str) or not ref.strip():
        raise ValueError(f"endgame must be a Libratus endgame name ({', '.join(ENDGAMES)}) or a file path, "
                         f"got {ref!r}")
    path = Path(ref)
    if base_dir is not None and not path.is_absolute() and (base_dir / path).is_file():
        path = base_dir / path
    try:
        return load_endgame(str(path) if path.is_file() else ref)
    except FileNotFoundError as exc:
        raise ValueError(f"endgame: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"endgame: {exc}") from None


def parse_spot(data, source: str = "<spot>", base_dir=None, default_name: str = "spot") -> Spot:
    """Validate a spot given as a mapping (the parsed content of a TOML or JSON spot file).

    Parameters
    ----------
    data : mapping
        The schema of the module docstring.
    source : str
        Where ``data`` came from; every error message starts with it.
    base_dir : path-like, optional
        Directory that range files and ``endgame`` paths are relative to.
    default_name : str
        The spot's name when ``data`` has no ``name`` (:func:`load_spot` passes the file name without suffix,
        with characters outside ``[A-Za-z0-9_.-]`` replaced by ``_``).

    Returns
    -------
    Spot

    Raises
    ------
    ValueError
        ``"<source>: <field>: <rule>"`` on an unknown key, a missing or malformed field, or a spot that breaks
        a rule of :class:`Spot`.
    """
    base = Path(base_dir) if base_dir is not None else None
    try:
        _check_keys(data, _TOP_KEYS, "")
        name = _parse_name(data, default_name)
        if "description" in data and not isinstance(data["description"], str):
            raise ValueError("description must be a string")
        solver = _parse_solver(data.get("solver"))
        if "endgame" in data:
            both = [k for k in _ENDGAME_EXCLUDES if k in data]
            if both:
                raise ValueError(f"{both[0]}: a spot with endgame = ... takes board, pot, stack and ranges "
                                 "from the Libratus endgame; remove " + ", ".join(both))
            endgame = _resolve_endgame(data["endgame"], base)
            turn, river, cap, thr = _parse_bet_sizes(data.get("bet_sizes"), endgame.street, LIBRATUS_SIZES,
                                                     None)
            return spot_from_endgame(endgame, name=name, turn_sizes=turn, river_sizes=river,
                                     raise_cap=cap, allin_threshold=thr, source=source, solver=solver)
        missing = [k for k in ("board", "pot", "ranges") if k not in data]
        if missing:
            raise ValueError(f"{missing[0]}: required field missing")
        if not isinstance(data["board"], (str, list)):
            raise ValueError(f"board must be a string such as 'Ks7d2c9h4s', got {data['board']!r}")
        try:
            board = check_board(data["board"], min_cards=4, max_cards=5, name="board")
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            raise ValueError(msg if msg.startswith("board") else f"board: {msg}") from None
        street = _STREET_OF_CARDS[len(board)]
        pot = data["pot"]
        if not _is_number(pot) or not math.isfinite(pot) or pot <= 0:
            raise ValueError(f"pot must be a positive number of chips, got {pot!r}")
        pot = float(pot)
        if ("stack" in data) == ("starting_stack" in data):
            raise ValueError("stack: give exactly one of stack (chips behind at the start of the endgame) "
                             "and starting_stack (chips at the start of the hand)")
        if "stack" in data:
            stack = data["stack"]
            if not _is_number(stack) or not math.isfinite(stack):
                raise ValueError(f"stack must be a number of chips, got {stack!r}")
            if stack < 0:
                raise ValueError(f"stack (chips behind each player) must be >= 0, got {stack!r}")
        else:
            start = data["starting_stack"]
            if not _is_number(start) or not math.isfinite(start):
                raise ValueError(f"starting_stack must be a number of chips, got {start!r}")
            stack = float(start) - pot / 2
            if stack < 0:
                raise ValueError(f"starting_stack {start!r} is smaller than each player's share of the pot "
                                 f"(pot / 2 = {pot / 2:g} chips): the players cannot have put that much in")
        ranges = data["ranges"]
        _check_keys(ranges, PLAYERS, "ranges")
        weights, texts, removed = [], [], []
        for key in PLAYERS:
            if key not in ranges:
                raise ValueError(f"ranges.{key}: required field missing")
            w, text, r = _parse_range(ranges[key], board, f"ranges.{key}", base)
            weights.append(w)
            texts.append(text)
            removed.append(r)
        turn, river, cap, thr = _parse_bet_sizes(data.get("bet_sizes"), street, BetSizes(), 3)
        return Spot(name=name, board=board, pot=pot, stack=float(stack), ranges=np.stack(weights),
                    big_blind=data.get("big_blind", 100.0), turn_sizes=turn, river_sizes=river, raise_cap=cap,
                    allin_threshold=thr, range_text=tuple(texts), board_removed=tuple(removed), source=source,
                    solver=solver)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def _is_libratus_file(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(64).decode("ascii", errors="replace").lstrip()
    return head.split(" ", 1)[0].split("\n", 1)[0] in _LIBRATUS_FIELDS


def load_spot(path) -> Spot:
    """Read a spot: a ``.toml`` or ``.json`` spot file, a Libratus endgame file, or a Libratus endgame name.

    Parameters
    ----------
    path : str or os.PathLike
        A spot file (schema in the module docstring); a file whose first field is ``-round`` (a Libratus
        endgame, any name); or ``"subgame1"`` .. ``"subgame4"`` (with or without ``.txt``), resolved by
        :func:`hunl.solver.libratus.endgame_dir` when no such file exists.

    Returns
    -------
    Spot

    Raises
    ------
    FileNotFoundError
        If the file does not exist and is not a Libratus endgame name.
    ValueError
        ``"<file>: <field>: <rule>"`` for invalid content (see :func:`parse_spot`), invalid TOML or JSON, or a
        file of unknown format.
    TypeError
        If ``path`` is not a string or path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path or a Libratus endgame name, got {type(path).__name__}")
    p = Path(path)
    if not p.exists():
        stem = str(path).removesuffix(".txt")
        if stem in ENDGAMES:
            return spot_from_endgame(load_endgame(stem))
        raise FileNotFoundError(f"spot file {str(path)!r} not found (give a .toml or .json spot file, a "
                                f"Libratus endgame file, or one of {', '.join(ENDGAMES)})")
    if not p.is_file():
        raise ValueError(f"{p}: not a file")
    suffix = p.suffix.lower()
    if suffix == ".toml":
        if tomllib is None:  # pragma: no cover - Python 3.10 without tomli
            raise ValueError(f"{p}: reading TOML needs Python >= 3.11 or the tomli package")
        try:
            with open(p, "rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{p}: not valid TOML: {exc}") from None
    elif suffix == ".json":
        try:
            data = json.loads(p.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}: not valid JSON: {exc}") from None
    elif _is_libratus_file(p) or p.stem in ENDGAMES:
        try:
            endgame = load_endgame(p)
        except ValueError as exc:
            msg = str(exc)
            raise ValueError(msg if msg.startswith(str(p)) else f"{p}: {msg}") from None
        return spot_from_endgame(endgame, name=_safe_name(p.stem))
    else:
        raise ValueError(f"{p}: unknown spot format; expected a .toml or .json spot file or a Libratus "
                         "endgame file (first field -round)")
    return parse_spot(data, source=str(p), base_dir=p.parent, default_name=_safe_name(p.stem))

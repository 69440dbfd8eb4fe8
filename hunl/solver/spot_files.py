"""Spot files: a HUNL flop, turn or river endgame to solve, read from TOML, JSON or a Libratus endgame file.

A *spot* (:class:`hunl.solver.spot.Spot`) is everything :func:`hunl.solver.solve.solve_endgame` needs: the board,
the pot, the stack behind, both players' ranges, the bet abstraction and the solver's settings. :func:`load_spot`
reads one into a frozen :class:`~hunl.solver.spot.Spot`; :meth:`~hunl.solver.spot.Spot.game` builds the
:class:`hunl.solver.game.HoldemEndgame`. ``scripts/solve_spot.py`` is the command line around it.

Schema (TOML shown; a JSON spot is the same nested object)::

    name = "river_small"            # optional; default: the file name without suffix ([A-Za-z0-9_.-])
    description = "..."             # optional free text
    board = "Ks7d2c9h4s"            # 3 cards (flop endgame), 4 (turn) or 5 (river), no card repeated
    pot = 1000                      # chips in the pot when the endgame starts, > 0 (half from each player)
    stack = 4500                    # effective stack behind, chips, >= 0 ...
    # starting_stack = 5000         # ... OR the stack when the hand started: behind = starting_stack - pot/2
    big_blind = 100                 # optional, chips (default 100): units of bb/hand and mbb/g

    [ranges]                        # both required; oop acts first on every street
    oop = "QQ+,AK,KQs,T9s-76s:0.5"  # solver range syntax (hunl.poker.ranges) ...
    ip = {file = "ip_range.txt"}    # ... or a file (relative to the spot file) or a list of 1,326 weights

    [bet_sizes]                     # optional
    raise_cap = 3                   # raises per street after the first bet (default 3)
    force_allin_threshold = 0.0     # a bet leaving at most this times the pot behind after a call is all-in
                                    # (old name: allin_threshold; default 0 = off)
    add_allin_threshold = 0.0       # add all-in where it is at most this many pots (default 0 = off)
    merging_threshold = 0.0         # PioSOLVER's merging of close sizes (default 0 = off)

    [bet_sizes.river]               # optional; default bets [0.5, 1.0], raises [1.0], all-in everywhere
    bets = "33%, 75%, a"            # first bet of the street: a string of size tokens (below) ...
    raises = [1.0]                  # ... or a list of tokens and numbers (numbers: pot fractions); "" = none
    # all_in = true                 # all-in always allowed; default: true unless an "a" is written
    donk = "50%"                    # turn and river only: OOP's first bet after OOP called the last street
    # raise_cap / the thresholds may also be written here; the tree has one value for every street, so
    # values given in several places must agree

    [bet_sizes.river.oop]           # optional: one player's sizes (bets, raises, all_in), each key
    raises = "2.5x, a"              # defaulting to the street table's value, then to the default
    [bet_sizes.river.ip]
    bets = "50%, 100%"

    [bet_sizes.turn]                # flop and turn spots only (an error on a river spot)
    [bet_sizes.flop]                # flop spots only (no donk on the flop)

    [solver]                        # optional; command-line options override it
    algorithm = "dcfr"              # "dcfr", "dcfr-reset", "pcfr+", "cfr+" or "cfr"
    max_iterations = 1000
    target_pct_pot = 0.5            # stop at this exploitability, percent of the pot (default: none)
    check_every = 10                # measure exploitability every this many iterations (default: automatic)
    threads = 2                     # solver threads (default: numba's thread count on large trees)
    isomorphism = true              # merge suit-isomorphic turn/river cards (default true; same values)
    compressed = false              # 16-bit regrets and average weights (default false; half the state)

    [rake]                          # optional; default no rake
    rate = 0.05                     # fraction of the pot raked at every terminal, in [0, 1)
    cap = 3                         # most chips raked at one terminal (default: no cap)

Size tokens (:mod:`hunl.solver.sizes`; the syntax of postflop-solver, desktop-postflop and PioSOLVER):
``33%`` a pot percentage (of the pot for a bet, of the pot after calling for a raise); ``2.5x`` raises only,
to 2.5 times the opponent's bet on this street; ``100c`` 100 chips (a bet, or a raise by 100 on top of the
call); ``e``, ``2e``, ``2e150%`` the geometric size that reaches all-in over the streets left (or 2 streets),
capped at 150% of the pot; ``a`` all-in; a bare number ``0.33`` a pot fraction. Amounts are rounded half away
from zero to whole chips (a 75% bet into 166 is 125), at least one chip (:mod:`hunl.solver.tree`). When
``all_in`` is not written it is true (all-in always an option, the old default) unless an ``a`` token is
written in the player's ``bets`` or ``raises``: then all-in is an option exactly where ``a`` is.
Size errors name the field as written, e.g. ``bet_sizes.river.oop.raises: '0.5x': a raise multiple must be
greater than 1``. :meth:`hunl.solver.spot.Spot.to_dict` writes a spot back in this schema (sizes as text).

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

import difflib
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from hunl.poker.cards import (
    NUM_COMBOS,
    board_conflicts,
    check_board,
    format_cards,
)
from hunl.poker.ranges import check_range, parse_range
from hunl.solver.libratus import ENDGAMES, LibratusEndgame, load_endgame
from hunl.solver.settings import SolverSettings
from hunl.solver.sizes import parse_sizes
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes, StreetSizes
from rulelearn.validation import read_text_file

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

from hunl.solver.spot import (
    _ENDGAME_EXCLUDES,
    _LIBRATUS_FIELDS,
    _NAME_RE,
    _PLAYER_SIZE_KEYS,
    _SIZE_KEYS,
    _SOLVER_KEYS,
    _STREET_OF_CARDS,
    _TOP_KEYS,
    _TREE_KEYS,
    PLAYERS,
    Spot,
    _first_labels,
    _is_int,
    _is_number,
    _safe_name,
    spot_from_endgame,
)

__all__ = ["load_spot", "parse_spot", "read_spot_data"]


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
    lines = [ln.strip() for ln in read_text_file(path).splitlines()]
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
        w = check_range(arr, name=name, bounded=True)
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


def _size_list(value, role: str, where: str) -> tuple:
    if not (isinstance(value, (str, list, tuple)) or _is_number(value)):
        raise ValueError(f"{where} must be a string of sizes such as \"33%, 75%, a\" or a list of sizes, "
                         f"got {value!r}")
    return parse_sizes(value, role, where)


def _player_sizes(table, where: str, common: dict, defaults: BetSizes) -> BetSizes:
    """One player's BetSizes: ``table``'s keys, else ``common``'s (the street table), else ``defaults``.

    ``all_in`` not written: the defaults' when no size is written either, else automatic (true unless an ``a``
    token is written, :class:`hunl.solver.tree.BetSizes`)."""
    kwargs = {}
    for key, role in (("bets", "bet"), ("raises", "raise")):
        if key in table:
            kwargs[key] = _size_list(table[key], role, f"{where}.{key}")
        elif key in common:
            kwargs[key] = common[key]
        else:
            kwargs[key] = getattr(defaults, key)
    if "all_in" in table:
        all_in = table["all_in"]
        if not isinstance(all_in, bool):
            raise ValueError(f"{where}.all_in must be true or false, got {all_in!r}")
    elif "all_in" in common:
        all_in = common["all_in"]
    elif not any(k in table or k in common for k in ("bets", "raises")):
        all_in = defaults.all_in
    else:
        all_in = None
    return BetSizes(**kwargs, all_in=all_in)


def _parse_sizes(table, street: str, defaults: BetSizes):
    """(BetSizes or StreetSizes of a ``bet_sizes.<street>`` table, its tree keys)."""
    where = f"bet_sizes.{street}"
    _check_keys(table, _SIZE_KEYS, where)
    common: dict = {}
    for key, role in (("bets", "bet"), ("raises", "raise")):
        if key in table:
            common[key] = _size_list(table[key], role, f"{where}.{key}")
    if "all_in" in table:
        if not isinstance(table["all_in"], bool):
            raise ValueError(f"{where}.all_in must be true or false, got {table['all_in']!r}")
        common["all_in"] = table["all_in"]
    donk = None
    if "donk" in table:
        if street == "flop":
            raise ValueError(f"{where}.donk: the flop has no donk bet (there is no previous street); donk sizes "
                             "are for the turn and the river")
        donk = _size_list(table["donk"], "bet", f"{where}.donk")
    players = {}
    for key in PLAYERS:
        sub = table.get(key, {})
        _check_keys(sub, _PLAYER_SIZE_KEYS, f"{where}.{key}")
        players[key] = _player_sizes(sub, f"{where}.{key}" if key in table else where, common, defaults)
    if "oop" in table or "ip" in table or donk is not None:
        sizes = StreetSizes(players["oop"], players["ip"], donk)
    else:
        sizes = players["oop"]
    return sizes, {k: table[k] for k in _TREE_KEYS if k in table}


def _parse_bet_sizes(table, street: str, defaults: BetSizes, default_cap):
    """(flop sizes, turn sizes, river sizes, {raise_cap, force/add all-in and merging thresholds})."""
    table = {} if table is None else table
    _check_keys(table, ("flop", "turn", "river") + _TREE_KEYS, "bet_sizes")
    if street == "river" and "turn" in table:
        raise ValueError("bet_sizes.turn: a river spot (5-card board) has no turn betting; remove the table")
    if street != "flop" and "flop" in table:
        raise ValueError(f"bet_sizes.flop: a {street} spot has no flop betting; remove the table")
    tree_values: dict = {k: [(f"bet_sizes.{k}", table[k])] for k in _TREE_KEYS if k in table}
    sizes = {}
    for s in ("flop", "turn", "river"):
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
    tree = {"raise_cap": default_cap}
    if "raise_cap" in chosen:
        where, cap = chosen["raise_cap"]
        if not _is_int(cap) or cap < 0:
            raise ValueError(f"{where} must be an integer >= 0, got {cap!r}")
        tree["raise_cap"] = cap
    for k in _TREE_KEYS[1:]:
        if k in chosen:
            where, thr = chosen[k]
            if not _is_number(thr) or not math.isfinite(thr) or thr < 0:
                raise ValueError(f"{where} must be a number >= 0, got {thr!r}")
            tree[k] = float(thr)
    if "allin_threshold" in tree and "force_allin_threshold" in tree:
        old, new = tree["allin_threshold"], tree["force_allin_threshold"]
        if old != new:
            raise ValueError(f"{chosen['force_allin_threshold'][0]} = {new!r} differs from "
                             f"{chosen['allin_threshold'][0]} = {old!r}; allin_threshold is the old name of "
                             "force_allin_threshold (give one)")
    return sizes["flop"], sizes["turn"], sizes["river"], tree


def _parse_solver(table) -> SolverSettings:
    table = {} if table is None else table
    _check_keys(table, _SOLVER_KEYS, "solver")
    return SolverSettings(**table)


def _parse_rake(table) -> dict:
    """``{"rake_rate": ..., "rake_cap": ...}`` from the ``[rake]`` table (checked by :class:`Spot`)."""
    table = {} if table is None else table
    _check_keys(table, ("rate", "cap"), "rake")
    return {"rake_rate": table.get("rate", 0.0), "rake_cap": table.get("cap", math.inf)}


def _parse_name(data, default_name) -> str:
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ValueError(f"name must be letters, digits, '_', '.' or '-' (it names the output directory), "
                         f"got {name!r}")
    return name


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
        rake = _parse_rake(data.get("rake"))
        if "endgame" in data:
            both = [k for k in _ENDGAME_EXCLUDES if k in data]
            if both:
                raise ValueError(f"{both[0]}: a spot with endgame = ... takes board, pot, stack and ranges "
                                 "from the Libratus endgame; remove " + ", ".join(both))
            endgame = _resolve_endgame(data["endgame"], base)
            _, turn, river, tree = _parse_bet_sizes(data.get("bet_sizes"), endgame.street, LIBRATUS_SIZES,
                                                    None)
            return spot_from_endgame(endgame, name=name, turn_sizes=turn, river_sizes=river, source=source,
                                     solver=solver, **tree, **rake)
        missing = [k for k in ("board", "pot", "ranges") if k not in data]
        if missing:
            raise ValueError(f"{missing[0]}: required field missing")
        if not isinstance(data["board"], (str, list)):
            raise ValueError(f"board must be a string such as 'Ks7d2c9h4s', got {data['board']!r}")
        try:
            board = check_board(data["board"], min_cards=3, max_cards=5, name="board")
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
        flop, turn, river, tree = _parse_bet_sizes(data.get("bet_sizes"), street, BetSizes(), 3)
        return Spot(name=name, board=board, pot=pot, stack=float(stack), ranges=np.stack(weights),
                    big_blind=data.get("big_blind", 100.0), turn_sizes=turn, river_sizes=river,
                    range_text=tuple(texts), board_removed=tuple(removed), source=source,
                    solver=solver, flop_sizes=flop, **tree, **rake)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
def _is_libratus_file(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(64).decode("ascii", errors="replace").lstrip()
    return head.split(" ", 1)[0].split("\n", 1)[0] in _LIBRATUS_FIELDS
def read_spot_data(path) -> tuple[dict, Path]:
    """The raw content of a ``.toml`` or ``.json`` spot file, before validation (for spot templates such as
    :mod:`hunl.solver.batch`, which change the board and then call :func:`parse_spot`).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.toml`` or ``.json`` spot file.

    Returns
    -------
    data : dict
        The file's nested tables.
    path : pathlib.Path
        The file's path (range files and ``endgame`` paths are relative to its directory).

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        ``"<file>: ..."`` for invalid TOML or JSON, or a suffix other than ``.toml`` / ``.json``.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"spot file {str(path)!r} not found")
    suffix = p.suffix.lower()
    if suffix == ".toml":
        if tomllib is None:  # pragma: no cover - Python 3.10 without tomli
            raise ValueError(f"{p}: reading TOML needs Python >= 3.11 or the tomli package")
        try:
            return tomllib.loads(read_text_file(p)), p
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{p}: not valid TOML: {exc}") from None
    if suffix == ".json":
        try:
            data = json.loads(read_text_file(p))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{p}: not valid JSON: {exc}") from None
        return data, p
    raise ValueError(f"{p}: a spot template must be a .toml or .json spot file")
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
    if suffix in (".toml", ".json"):
        data, _ = read_spot_data(p)
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


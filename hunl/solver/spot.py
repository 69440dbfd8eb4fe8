"""A HUNL spot: an endgame to solve with its bet abstraction and solver settings (:class:`Spot`).

A *spot* is everything :func:`hunl.solver.solve.solve_endgame` needs: the board, the pot, the stack behind, both
players' ranges, the bet abstraction and the solver's settings; :meth:`Spot.game` builds the
:class:`hunl.solver.game.HoldemEndgame`. Spots are read from TOML, JSON or Libratus endgame files by
:mod:`hunl.solver.spot_files` (the file schema is described there), or built from a Libratus endgame by
:func:`spot_from_endgame`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

import numpy as np

from hunl.poker.cards import (
    COMBO_LABELS,
    NUM_COMBOS,
    board_conflicts,
    check_board,
    format_cards,
    unblocked_sums,
)
from hunl.poker.ranges import check_range
from hunl.solver.libratus import LibratusEndgame
from hunl.solver.limits import check_big_blind, check_chips, check_rake
from hunl.solver.settings import SolverSettings
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes, StreetSizes
from rulelearn.validation import check_int

__all__ = [
    "ALGORITHMS",
    "PLAYERS",
    "Spot",
    "spot_from_endgame",
]

#: Solver algorithms a spot may ask for.
ALGORITHMS = ("dcfr", "dcfr-reset", "pcfr+", "cfr+", "cfr")
#: Range keys of a spot, in player order (0 = out of position, first to act; 1 = in position).
PLAYERS = ("oop", "ip")
#: ``raise_cap`` used when a spot has none (:attr:`Spot.raise_cap` is ``None``): above any raise sequence.
UNCAPPED = 1_000_000

_TOP_KEYS = ("name", "description", "board", "pot", "stack", "starting_stack", "big_blind", "ranges",
             "bet_sizes", "solver", "endgame", "rake")
_ENDGAME_EXCLUDES = ("board", "pot", "stack", "starting_stack", "ranges", "big_blind")
_TREE_KEYS = ("raise_cap", "allin_threshold", "force_allin_threshold", "add_allin_threshold", "merging_threshold")
_PLAYER_SIZE_KEYS = ("bets", "raises", "all_in")
_SIZE_KEYS = _PLAYER_SIZE_KEYS + ("donk", "oop", "ip") + _TREE_KEYS
_SOLVER_KEYS = ("algorithm", "max_iterations", "target_pct_pot", "check_every", "threads", "isomorphism",
                "compressed")
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_STREET_OF_CARDS = {3: "flop", 4: "turn", 5: "river"}
#: Streets with betting in an endgame that starts on each street.
_STREETS_FROM = {"flop": ("flop", "turn", "river"), "turn": ("turn", "river"), "river": ("river",)}
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
        3 (flop), 4 (turn) or 5 (river) distinct card indices (:mod:`hunl.poker.cards`).
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
    turn_sizes, river_sizes, flop_sizes : BetSizes or StreetSizes
        The bet abstraction of each street (streets before the spot's are unused): a
        :class:`~hunl.solver.tree.BetSizes` for both players, or a :class:`~hunl.solver.tree.StreetSizes`
        with each player's sizes and the donk sizes (no donk on the flop).
    raise_cap : int or None, default 3
        Raises per street after the first bet; ``None`` means no cap (:data:`UNCAPPED`).
    allin_threshold : float, default 0
        The old name of ``force_allin_threshold``; both attributes hold the same value (see
        :class:`hunl.solver.tree.TreeConfig`).
    add_allin_threshold, force_allin_threshold, merging_threshold : float
        Tree thresholds of :class:`hunl.solver.tree.TreeConfig` (default 0, off; ``force_allin_threshold``
        defaults to ``allin_threshold``).
    solver : SolverSettings
        The spot file's ``solver`` table (:class:`~hunl.solver.settings.SolverSettings`). Its fields read as
        ``spot.algorithm``, ``spot.max_iterations``, ``spot.target_pct_pot``, ``spot.check_every``,
        ``spot.threads``, ``spot.isomorphism``, ``spot.compressed``; :meth:`replace` changes any field, solver
        ones included.
    range_text : tuple of two (str or None)
        The range strings as written (``None`` for weights from a file, a list or a Libratus endgame).
    board_removed : tuple of two int
        Combos of each range string that hold a board card and were therefore not dealt.
    source : str or None
        Where the spot was read from (file path or Libratus endgame name).
    kind : {"spot", "libratus"}
        ``"libratus"`` when board, pot, stack and ranges come from a Libratus endgame.
    rake_rate : float, default 0
        The spot file's ``rake.rate``: fraction of the pot raked at every terminal, in ``[0, 1)``.
    rake_cap : float, default inf
        ``rake.cap``: most chips raked at one terminal, ``>= 0`` (``inf``: no cap); see
        :class:`hunl.solver.game.HoldemEndgame`.

    Raises
    ------
    ValueError
        If a field breaks one of the rules above.
    TypeError
        If ``flop_sizes``, ``turn_sizes`` or ``river_sizes`` is not a :class:`hunl.solver.tree.BetSizes` or
        :class:`hunl.solver.tree.StreetSizes`.
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
    flop_sizes: BetSizes = field(default_factory=BetSizes)
    add_allin_threshold: float = 0.0
    force_allin_threshold: float | None = None
    merging_threshold: float = 0.0
    rake_rate: float = 0.0
    rake_cap: float = math.inf

    def __post_init__(self):
        set_ = object.__setattr__
        rate, cap = check_rake(self.rake_rate, self.rake_cap, "rake.rate", "rake.cap")
        set_(self, "rake_rate", rate)
        set_(self, "rake_cap", cap)
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(f"name must be letters, digits, '_', '.' or '-' (a directory name), "
                             f"got {self.name!r}")
        set_(self, "board", check_board(self.board, min_cards=3, max_cards=5, name="board"))
        pot = _number(self.pot, "pot")
        if pot <= 0:
            raise ValueError(f"pot must be a positive number of chips, got {self.pot!r}")
        stack = _number(self.stack, "stack")
        if stack < 0:
            raise ValueError(f"stack (chips behind each player) must be >= 0, got {self.stack!r}")
        check_chips(pot, stack)  # chip amounts exact and finite (hunl.solver.limits)
        bb = _number(self.big_blind, "big_blind")
        if bb <= 0:
            raise ValueError(f"big_blind must be a positive number of chips, got {self.big_blind!r}")
        bb = check_big_blind(bb)
        set_(self, "pot", pot)
        set_(self, "stack", stack)
        set_(self, "big_blind", bb)
        set_(self, "ranges", _check_ranges(self.ranges, self.board))
        for street in ("flop", "turn", "river"):
            sizes = getattr(self, f"{street}_sizes")
            if not isinstance(sizes, (BetSizes, StreetSizes)):
                raise TypeError(f"bet_sizes.{street} must be a BetSizes or a StreetSizes, "
                                f"got {type(sizes).__name__}")
        if isinstance(self.flop_sizes, StreetSizes) and self.flop_sizes.donk is not None:
            raise ValueError("bet_sizes.flop.donk: the flop has no donk bet (there is no previous street)")
        check_int("bet_sizes.raise_cap", self.raise_cap, 0, allow_none=True)
        thr = {}
        for key in ("allin_threshold", "add_allin_threshold", "merging_threshold", "force_allin_threshold"):
            v = getattr(self, key)
            if v is None:
                continue
            v = _number(v, f"bet_sizes.{key}")
            if v < 0:
                raise ValueError(f"bet_sizes.{key} must be >= 0, got {getattr(self, key)!r}")
            thr[key] = v
        force = thr.get("force_allin_threshold", thr["allin_threshold"])
        if thr["allin_threshold"] not in (0.0, force):
            raise ValueError(f"bet_sizes.allin_threshold = {thr['allin_threshold']!r} and "
                             f"bet_sizes.force_allin_threshold = {force!r} disagree (allin_threshold is the old "
                             "name of force_allin_threshold)")
        set_(self, "allin_threshold", force)
        set_(self, "force_allin_threshold", force)
        set_(self, "add_allin_threshold", thr["add_allin_threshold"])
        set_(self, "merging_threshold", thr["merging_threshold"])
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
        """``"flop"`` (3-card board), ``"turn"`` (4 cards) or ``"river"`` (5 cards)."""
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
    def threads(self) -> int | None:
        return self.solver.threads

    @property
    def isomorphism(self) -> bool:
        return self.solver.isomorphism

    @property
    def compressed(self) -> bool:
        return self.solver.compressed

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
        aliases = ("allin_threshold", "force_allin_threshold")
        given = [k for k in aliases if k in changes]
        if len(given) == 1:  # one name changes both (they are one setting)
            changes[aliases[1 - aliases.index(given[0])]] = changes[given[0]]
        if solver:
            changes["solver"] = self.solver.replace(**solver)
        return dataclasses.replace(self, **changes)

    def bet_sizes(self) -> dict:
        """``{"flop": sizes, "turn": sizes, "river": sizes}`` (:class:`BetSizes` or :class:`StreetSizes`) for
        :class:`hunl.solver.game.HoldemEndgame`."""
        return {"flop": self.flop_sizes, "turn": self.turn_sizes, "river": self.river_sizes}

    def tree_thresholds(self) -> dict:
        """``{"add_allin_threshold": .., "force_allin_threshold": .., "merging_threshold": ..}``."""
        return {"add_allin_threshold": self.add_allin_threshold,
                "force_allin_threshold": self.force_allin_threshold,
                "merging_threshold": self.merging_threshold}

    def describe(self) -> str:
        """One line: name, street, board, pot, stack, combos per range and the abstraction."""
        h0, h1 = self.num_combos()
        cap = "no cap" if self.raise_cap is None else f"raise cap {self.raise_cap}"
        return (f"{self.name}: {self.street} {self.board_text}, pot {self.pot:g}, stack {self.stack:g}, "
                f"{h0} x {h1} combos, {self.street} {_sizes_line(getattr(self, f'{self.street}_sizes'))}, {cap}")

    def _sizes_text(self) -> dict:
        """The betting streets' sizes as spot-file text (:meth:`BetSizes.to_text`, :meth:`StreetSizes.to_text`)."""
        return {s: b.to_text() for s, b in self.bet_sizes().items() if s in _STREETS_FROM[self.street]}

    def info(self) -> dict:
        """JSON-ready description of the spot (ranges as text where they were written as text; no weights), as
        written under ``"spot"`` in ``summary.json``."""
        return {
            "name": self.name, "source": self.source, "kind": self.kind, "street": self.street,
            "board": self.board_text, "pot": self.pot, "stack": self.stack, "big_blind": self.big_blind,
            "ranges": dict(zip(PLAYERS, self.range_text)), "combos": dict(zip(PLAYERS, self.num_combos())),
            "board_removed": dict(zip(PLAYERS, self.board_removed)),
            "bet_sizes": self._sizes_text(),
            "raise_cap": self.raise_cap, "allin_threshold": self.allin_threshold, **self.tree_thresholds(),
            "solver": self.solver.to_dict(),
            "rake": {"rate": self.rake_rate, "cap": None if math.isinf(self.rake_cap) else self.rake_cap},
        }

    def to_dict(self) -> dict:
        """The spot as a spot-file mapping (the schema of :mod:`hunl.solver.spot_files`), JSON- and TOML-ready.

        ``parse_spot(spot.to_dict())`` gives a spot with the same board, pot, stack, ranges, sizes, tree
        thresholds and solver settings, hence the same game. Ranges are written as their text when they were
        given as text, else as the list of 1,326 weights; a Libratus spot is written with its board, pot,
        stack and weights (not as ``endgame = ...``); no raise cap (``None``) is written as
        :data:`UNCAPPED` (the same tree). ``source``, ``kind``, ``range_text`` of weight ranges and
        ``board_removed`` are not part of a spot file.

        Returns
        -------
        dict
        """
        ranges = {}
        for p, key in enumerate(PLAYERS):
            text = self.range_text[p]
            ranges[key] = text if text is not None else [float(x) for x in self.ranges[p]]
        bet_sizes = {"raise_cap": UNCAPPED if self.raise_cap is None else int(self.raise_cap),
                     **self.tree_thresholds(), **self._sizes_text()}
        out = {"name": self.name, "board": self.board_text, "pot": self.pot, "stack": self.stack,
               "big_blind": self.big_blind, "ranges": ranges, "bet_sizes": bet_sizes,
               "solver": {k: v for k, v in self.solver.to_dict().items() if v is not None}}
        if self.rake_rate > 0:
            out["rake"] = {"rate": self.rake_rate, **({} if math.isinf(self.rake_cap) else {"cap": self.rake_cap})}
        return out

    def tree_config(self, raise_cap: int | None = None):
        """The :class:`hunl.solver.tree.TreeConfig` of the spot's betting tree (``raise_cap`` overrides
        :attr:`raise_cap`, as in :meth:`game`)."""
        from hunl.solver.tree import TreeConfig

        cap = self.raise_cap if raise_cap is None else raise_cap
        cap = UNCAPPED if cap is None else cap
        return TreeConfig(street=self.street, pot=self.pot, stack=self.stack, flop=self.flop_sizes,
                          turn=self.turn_sizes, river=self.river_sizes, raise_cap=cap, **self.tree_thresholds())

    def betting_tree(self, raise_cap: int | None = None):
        """The betting tree of :meth:`game` without the hands (quick: no showdown tables), with the same suit
        isomorphism (:attr:`isomorphism`).

        Returns
        -------
        hunl.solver.tree.BettingTree
        """
        from hunl.solver.tree import build_tree, suit_symmetries

        sym = suit_symmetries(self.board, self.ranges) if self.isomorphism and len(self.board) < 5 else None
        return build_tree(self.tree_config(raise_cap), self.board, symmetries=sym)

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
                             raise_cap=cap, big_blind=self.big_blind, dtype=dtype,
                             isomorphism=self.solver.isomorphism, rake_rate=self.rake_rate,
                             rake_cap=self.rake_cap, **self.tree_thresholds())


def _sizes_line(sizes) -> str:
    """``bets 33%, 75%, a raises 2.5x`` (per player and donk when they differ)."""
    def one(b):
        return (f"bets [{', '.join(x.text for x in b.bets)}] raises [{', '.join(x.text for x in b.raises)}]"
                f"{' +all-in' if b.all_in else ''}")
    if isinstance(sizes, BetSizes):
        return one(sizes)
    text = one(sizes.oop) if sizes.oop == sizes.ip else f"oop {one(sizes.oop)}, ip {one(sizes.ip)}"
    if sizes.donk is not None:
        text += f", donk [{', '.join(x.text for x in sizes.donk)}]"
    return text


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
        check_range(w[p], name=name, bounded=True)
    if not float(w[0] @ unblocked_sums(w[1])) > 0:
        raise ValueError("ranges: no hand of oop can be dealt together with a hand of ip "
                         "(every pair shares a card)")
    w.setflags(write=False)
    return w


# ---------------------------------------------------------------------- parsing


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



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
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes
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
_SIZE_KEYS = ("bets", "raises", "all_in", "raise_cap", "allin_threshold")
_TREE_KEYS = ("raise_cap", "allin_threshold")
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
    turn_sizes, river_sizes, flop_sizes : BetSizes
        The bet abstraction of each street (streets before the spot's are unused).
    raise_cap : int or None, default 3
        Raises per street after the first bet; ``None`` means no cap (:data:`UNCAPPED`).
    allin_threshold : float, default 0
        See :class:`hunl.solver.tree.TreeConfig`.
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
        If ``flop_sizes``, ``turn_sizes`` or ``river_sizes`` is not a :class:`hunl.solver.tree.BetSizes`.
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
        if solver:
            changes["solver"] = self.solver.replace(**solver)
        return dataclasses.replace(self, **changes)

    def bet_sizes(self) -> dict:
        """``{"flop": BetSizes, "turn": BetSizes, "river": BetSizes}`` for
        :class:`hunl.solver.game.HoldemEndgame`."""
        return {"flop": self.flop_sizes, "turn": self.turn_sizes, "river": self.river_sizes}

    def describe(self) -> str:
        """One line: name, street, board, pot, stack, combos per range and the abstraction."""
        h0, h1 = self.num_combos()
        sizes = getattr(self, f"{self.street}_sizes")
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
                          if s in _STREETS_FROM[self.street]},
            "raise_cap": self.raise_cap, "allin_threshold": self.allin_threshold,
            "solver": self.solver.to_dict(),
            "rake": {"rate": self.rake_rate, "cap": None if math.isinf(self.rake_cap) else self.rake_cap},
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
                             dtype=dtype, isomorphism=self.solver.isomorphism, rake_rate=self.rake_rate,
                             rake_cap=self.rake_cap)


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



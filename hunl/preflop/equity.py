"""The exact preflop all-in equity table: every pair of combos and every pair of the 169 hand classes.

The table shipped with the package (``hunl/preflop/data/equity.npz``, built by
``python scripts/build_preflop_equity.py``, see :mod:`hunl.preflop.equity_build`) holds, for each of the
47,008 distinct matchups (:mod:`hunl.preflop.matchups`), the exact number of the 1,712,304 boards the first hand
wins and ties (:mod:`hunl.preflop.boards`), and the class-level sums. Everything else is derived on load:

* per combo pair (1326 x 1326): win and tie probabilities, through each pair's canonical matchup;
* per class pair (169 x 169): the number of compatible combo pairs (card removal: AA against AKs has 12 of
  the ``6 * 4`` combo pairs, as each AKs combo holds one of the aces), and the win and tie board counts summed over them, so a class
  equity is the average over the *compatible* combo pairs -- what a player who knows only the two classes and
  that the hands do not share a card would compute.

>>> t = load_equity_table()
>>> round(t.equity("AA", "KK"), 4), round(t.equity("AsAh", "KsKh"), 4)
(0.8195, 0.8264)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from hunl.poker.cards import HAND_CLASS, NUM_CLASSES, parse_combo, parse_hand_class
from hunl.preflop.boards import NUM_BOARDS
from hunl.preflop.matchups import NUM_MATCHUPS, combo_matchups

__all__ = ["DEFAULT_PATH", "FORMAT_VERSION", "EquityTable", "load_equity_table", "parse_hand"]

#: The equity table shipped with the package.
DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "equity.npz"
#: Version of the file layout (the ``format_version`` entry of the ``.npz``).
FORMAT_VERSION = 1


def parse_hand(text: str, name: str = "hand") -> tuple[str, int]:
    """Read a hand given as a combo (``"AsKh"``) or a hand class (``"AKs"``, ``"72o"``, ``"QQ"``).

    Parameters
    ----------
    text : str
        A combo of four characters, two cards in either order (``"AsKh"``, ``"KhAs"``), or a class label,
        higher rank first (:func:`hunl.poker.cards.parse_hand_class`); surrounding whitespace is ignored.
    name : str, default "hand"
        Parameter name used in error messages.

    Returns
    -------
    (kind, index) : tuple of (str, int)
        ``("combo", 0..1325)`` or ``("class", 0..168)`` (grid cell, :mod:`hunl.poker.cards`).

    Raises
    ------
    ValueError
        Naming ``name`` when the text is neither.
    """
    if not isinstance(text, str):
        raise ValueError(f"{name} must be a string such as 'AsKh', 'AKs' or 'QQ', got {text!r}")
    s = text.strip()
    if len(s) == 4:
        try:
            return "combo", int(parse_combo(s, name=name))
        except ValueError:
            pass
    try:
        return "class", int(parse_hand_class(s))
    except ValueError:
        raise ValueError(f"{name}: {text!r} is neither a combo such as 'AsKh' nor a hand class such as "
                         "'AKs', 'AKo' or 'QQ' (higher rank first)") from None


@dataclass(frozen=True, eq=False)
class EquityTable:
    """Exact all-in preflop equities (see the module docstring).

    Attributes
    ----------
    cards : numpy.ndarray of int8, shape (47008, 4)
        The canonical matchups ``(h0, h1, v0, v1)`` (:func:`hunl.preflop.matchups.canonical_matchups`).
    wins, ties : numpy.ndarray of int64, shape (47008,)
        Boards (of :data:`boards`) the first hand wins, and boards split.
    class_pairs : numpy.ndarray of int64, shape (169, 169)
        Compatible combo pairs (no shared card) of each pair of grid cells.
    class_wins, class_ties : numpy.ndarray of int64, shape (169, 169)
        Boards won by the row class, and split, summed over its compatible combo pairs with the column class.
    boards : int
        Boards per matchup: C(48, 5) = 1,712,304.
    """

    cards: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    class_pairs: np.ndarray
    class_wins: np.ndarray
    class_ties: np.ndarray
    boards: int = NUM_BOARDS

    def __post_init__(self):
        m = self.cards.shape[0]
        if self.cards.shape != (m, 4) or self.wins.shape != (m,) or self.ties.shape != (m,):
            raise ValueError(f"cards, wins and ties must have shapes (M, 4), (M,), (M,); got {self.cards.shape}, "
                             f"{self.wins.shape}, {self.ties.shape}")
        if np.any(self.wins < 0) or np.any(self.ties < 0) or np.any(self.wins + self.ties > self.boards):
            raise ValueError("win and tie counts must be non-negative and at most the number of boards")
        for name in ("class_pairs", "class_wins", "class_ties"):
            if getattr(self, name).shape != (NUM_CLASSES, NUM_CLASSES):
                raise ValueError(f"{name} must have shape (169, 169), got {getattr(self, name).shape}")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_counts(cls, cards, wins, ties) -> EquityTable:
        """Build the table from the canonical matchups' counts, deriving the class-level sums.

        Parameters
        ----------
        cards : array_like of int, shape (47008, 4)
            :func:`hunl.preflop.matchups.canonical_matchups` (in that order).
        wins, ties : array_like of int, shape (47008,)
            From :func:`hunl.preflop.boards.matchup_counts`.
        """
        cards = np.asarray(cards, dtype=np.int8)
        wins = np.asarray(wins, dtype=np.int64)
        ties = np.asarray(ties, dtype=np.int64)
        if cards.shape[0] != NUM_MATCHUPS:
            raise ValueError(f"expected the {NUM_MATCHUPS} canonical matchups, got {cards.shape[0]}")
        empty = np.zeros((NUM_CLASSES, NUM_CLASSES), dtype=np.int64)
        table = cls(cards, wins, ties, empty, empty, empty)
        pairs, cw, ct = table._aggregate()
        return cls(cards, wins, ties, pairs, cw, ct)

    def _aggregate(self):
        w, t = self.combo_counts
        live = self.combo_compatible
        key = (HAND_CLASS.astype(np.int64)[:, None] * NUM_CLASSES + HAND_CLASS[None, :]).ravel()
        n = NUM_CLASSES * NUM_CLASSES
        pairs = np.bincount(key, live.ravel().astype(np.float64), minlength=n)
        cw = np.bincount(key, w.ravel().astype(np.float64), minlength=n)  # exact: sums < 2**53
        ct = np.bincount(key, t.ravel().astype(np.float64), minlength=n)
        return tuple(np.rint(a).astype(np.int64).reshape(NUM_CLASSES, NUM_CLASSES) for a in (pairs, cw, ct))

    # ------------------------------------------------------------------ per combo pair
    @cached_property
    def combo_compatible(self) -> np.ndarray:
        """``(1326, 1326)`` bool: the two combos share no card."""
        index, _ = combo_matchups()
        return index >= 0

    @cached_property
    def combo_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(wins, ties)``, each int64 (1326, 1326): boards the row combo wins / splits against the column
        combo; 0 where they share a card."""
        index, swapped = combo_matchups()
        live = index >= 0
        k = np.where(live, index, 0)
        w = np.where(swapped, self.boards - self.wins[k] - self.ties[k], self.wins[k])
        t = self.ties[k]
        return np.where(live, w, 0), np.where(live, t, 0)

    @cached_property
    def combo_win(self) -> np.ndarray:
        """``(1326, 1326)`` float64: probability that the row combo wins (0 where the combos share a card)."""
        return self.combo_counts[0] / self.boards

    @cached_property
    def combo_tie(self) -> np.ndarray:
        """``(1326, 1326)`` float64: probability of a split pot (0 where the combos share a card)."""
        return self.combo_counts[1] / self.boards

    @cached_property
    def combo_equity(self) -> np.ndarray:
        """``(1326, 1326)`` float64: the row combo's equity, win + tie / 2 (NaN where the combos share a card)."""
        eq = self.combo_win + 0.5 * self.combo_tie
        return np.where(self.combo_compatible, eq, np.nan)

    # ------------------------------------------------------------------ per class pair
    @cached_property
    def class_win(self) -> np.ndarray:
        """``(169, 169)`` float64: probability that the row class wins, over its compatible combo pairs with the
        column class (every pair of cells has some, even AA against AA)."""
        return self.class_wins / (self.class_pairs * float(self.boards))

    @cached_property
    def class_tie(self) -> np.ndarray:
        """``(169, 169)`` float64: probability of a split pot, over the compatible combo pairs."""
        return self.class_ties / (self.class_pairs * float(self.boards))

    @cached_property
    def class_equity(self) -> np.ndarray:
        """``(169, 169)`` float64: the row class's equity (win + tie / 2) against the column class."""
        return self.class_win + 0.5 * self.class_tie

    # ------------------------------------------------------------------ look-up
    def win_tie(self, hand1: str, hand2: str) -> tuple[float, float]:
        """Probabilities that ``hand1`` wins and that the pot is split, against ``hand2``.

        Parameters
        ----------
        hand1, hand2 : str
            Both combos (``"AsKh"``) or both hand classes (``"AKs"``, ``"QQ"``).

        Raises
        ------
        ValueError
            On an unreadable hand, a combo against a class, or two combos sharing a card.
        """
        k1, i = parse_hand(hand1, "hand1")
        k2, j = parse_hand(hand2, "hand2")
        if k1 != k2:
            raise ValueError(f"hand1 and hand2 must both be combos or both be classes, got {hand1!r}, {hand2!r}")
        if k1 == "combo":
            if not self.combo_compatible[i, j]:
                raise ValueError(f"hand1 {hand1!r} and hand2 {hand2!r} share a card")
            return float(self.combo_win[i, j]), float(self.combo_tie[i, j])
        return float(self.class_win[i, j]), float(self.class_tie[i, j])

    def equity(self, hand1: str, hand2: str) -> float:
        """Equity (win + tie / 2) of ``hand1`` against ``hand2``; see :meth:`win_tie`."""
        w, t = self.win_tie(hand1, hand2)
        return w + 0.5 * t

    # ------------------------------------------------------------------ storage
    def save(self, path) -> None:
        """Write the table to ``path`` (``.npz``, compressed; written to a temporary file, then renamed)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, format_version=np.int64(FORMAT_VERSION), boards=np.int64(self.boards),
                            cards=self.cards.astype(np.int8), wins=self.wins.astype(np.int32),
                            ties=self.ties.astype(np.int32), class_pairs=self.class_pairs.astype(np.int32),
                            class_wins=self.class_wins.astype(np.int64),
                            class_ties=self.class_ties.astype(np.int64))
        tmp.replace(path)

    @classmethod
    def load(cls, path) -> EquityTable:
        """Read a table written by :meth:`save`.

        Raises
        ------
        FileNotFoundError
            If the file does not exist (build it with ``python scripts/build_preflop_equity.py``).
        ValueError
            On another format version or inconsistent arrays.
        """
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"no preflop equity table at {path}; build it with "
                                    "`python scripts/build_preflop_equity.py` (a few minutes on 2 cores)")
        with np.load(path) as z:
            version = int(z["format_version"])
            if version != FORMAT_VERSION:
                raise ValueError(f"{path}: format version {version}, expected {FORMAT_VERSION}")
            out = cls(z["cards"].astype(np.int8), z["wins"].astype(np.int64), z["ties"].astype(np.int64),
                      z["class_pairs"].astype(np.int64), z["class_wins"].astype(np.int64),
                      z["class_ties"].astype(np.int64), int(z["boards"]))
        for arr in (out.cards, out.wins, out.ties, out.class_pairs, out.class_wins, out.class_ties):
            arr.setflags(write=False)
        return out


@functools.cache
def _load_default() -> EquityTable:
    return EquityTable.load(DEFAULT_PATH)


def load_equity_table(path=None) -> EquityTable:
    """The exact preflop equity table (the packaged one by default, loaded once per process).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Another table file written by :meth:`EquityTable.save`.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    """
    return _load_default() if path is None else EquityTable.load(path)

"""Hand sets a player can name in a few words: the clauses of push/fold rule cards.

A rule card (:mod:`hunl.preflop.rules`) says "push any pair, any ace, any suited king, K7o+, suited hands
adding up to 15+" -- a union of at most five *clauses*. A clause (:class:`HandSet`) is one of

* pairs from a rank up: ``"any pair"``, ``"pairs 55+"``;
* unpaired hands of one kind -- ``suited``, ``offsuit`` or either (``unpaired``) -- whose cards satisfy bounds on
  hand features: the high card between two ranks, the low card ("kicker") at least a rank, the gap
  (``high - low - 1``: 0 for connectors) at most a number, and the rank total (deuce = 2 .. ace = 14) at least a
  number. The candidate clauses (:func:`candidate_clauses`) use one of four shapes: one high card (``"any
  suited king"``, ``"K7o+"``), a high card or better with a kicker (``"suited, a queen or better with an 8+"``),
  connectors and gappers (``"suited connectors 54s+"``), or a rank total (``"offsuit, ranks adding up to 18+"``).

Hand features of the 169 classes (grid cells of :mod:`hunl.poker.cards`) are :data:`HAND_FEATURES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.poker.cards import NUM_CLASSES, RANKS

__all__ = ["FEATURE_NAMES", "HAND_FEATURES", "KINDS", "HandSet", "candidate_clauses"]

#: Clause kinds.
KINDS = ("pair", "suited", "offsuit", "unpaired")
_WORD = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")
_KIND_WORD = {"suited": "suited", "offsuit": "offsuit"}
_KIND_SUFFIX = {"suited": "s", "offsuit": "o", "unpaired": ""}
#: Columns of :data:`HAND_FEATURES`.
FEATURE_NAMES = ("pair", "suited", "high card", "low card", "gap", "rank total")


def _features() -> np.ndarray:
    out = np.zeros((NUM_CLASSES, 6), dtype=np.int64)
    for h in range(NUM_CLASSES):
        row, col = divmod(h, 13)
        a, b = 12 - row, 12 - col
        high, low = max(a, b), min(a, b)
        out[h] = (row == col, row < col, high, low, high - low - 1 if row != col else -1, high + low + 4)
    out.setflags(write=False)
    return out


#: Features of each hand class (grid-cell order), int64 (169, 6): pair (0/1), suited (0/1), high card and low
#: card (ranks 0 = deuce .. 12 = ace), gap (``high - low - 1``; -1 for a pair), rank total (2 .. 14 per card).
HAND_FEATURES = _features()


@dataclass(frozen=True)
class HandSet:
    """One clause: a set of hand classes described by bounds on hand features (see the module docstring).

    Attributes
    ----------
    kind : str
        ``"pair"``, ``"suited"``, ``"offsuit"`` or ``"unpaired"`` (suited or offsuit).
    high_min, high_max : int
        Bounds on the high card's rank (0 = deuce .. 12 = ace); for pairs ``high_min`` is the lowest pair.
    low_min : int
        Lowest low card (kicker), unpaired kinds only.
    gap_max : int
        Largest gap between the ranks (0 = connectors), unpaired kinds only.
    sum_min : int
        Lowest rank total (deuce = 2 .. ace = 14), unpaired kinds only.
    """

    kind: str
    high_min: int = 0
    high_max: int = 12
    low_min: int = 0
    gap_max: int = 11
    sum_min: int = 0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not 0 <= self.high_min <= self.high_max <= 12 or not 0 <= self.low_min <= 12:
            raise ValueError(f"rank bounds must satisfy 0 <= high_min <= high_max <= 12 and 0 <= low_min <= 12, "
                             f"got {self}")

    def members(self) -> np.ndarray:
        """``(169,)`` bool: the hand classes in the set (grid-cell order)."""
        f = HAND_FEATURES
        pair, suited, high, low, gap, total = (f[:, k] for k in range(6))
        if self.kind == "pair":
            return (pair == 1) & (high >= self.high_min) & (high <= self.high_max)
        ok = (pair == 0) & (high >= self.high_min) & (high <= self.high_max) & (low >= self.low_min)
        ok &= (gap <= self.gap_max) & (total >= self.sum_min)
        if self.kind == "suited":
            ok &= suited == 1
        elif self.kind == "offsuit":
            ok &= suited == 0
        return ok

    def __str__(self) -> str:
        if self.kind == "pair":
            if self.high_min == 0 and self.high_max == 12:
                return "any pair"
            r = RANKS[self.high_min]
            return f"pairs {r}{r}+" if self.high_max == 12 else f"pairs {RANKS[self.high_min]}{RANKS[self.high_min]}-" \
                f"{RANKS[self.high_max]}{RANKS[self.high_max]}"
        word = "" if self.kind == "unpaired" else _KIND_WORD[self.kind] + " "
        sfx = _KIND_SUFFIX[self.kind]
        if self.members().sum() == HandSet(self.kind).members().sum():
            return f"any {word or 'unpaired '}hand"
        if self.sum_min > 0:
            return f"{word}hands with ranks adding up to {self.sum_min}+ (T=10, J=11, Q=12, K=13, A=14)"
        if self.gap_max < 11:
            name = {0: "connectors", 1: "connectors and one-gappers", 2: "connectors to two-gappers"}.get(
                self.gap_max, f"hands at most {self.gap_max} ranks apart")
            if self.low_min == 0:
                return f"any {word}{name}"
            if self.gap_max == 0:
                return f"{word}{name} {RANKS[self.low_min + 1]}{RANKS[self.low_min]}{sfx}+"
            return f"{word}{name} with the low card {RANKS[self.low_min]}+"
        if self.high_min == self.high_max:
            x = RANKS[self.high_max]
            if self.low_min == 0:
                return f"any {word}{_WORD[self.high_max]} ({x}2{sfx}+)"
            return f"{x}{RANKS[self.low_min]}{sfx}+"
        top = _article(_WORD[self.high_min])
        if self.low_min == 0:
            return f"{word}hands with {top} or better"
        return f"{word}hands with {top} or better and {_article(RANKS[self.low_min])}+ kicker"


def _article(word: str) -> str:
    return ("an " if word[0] in "aeiou8A" else "a ") + word


def candidate_clauses() -> list[HandSet]:
    """The clauses rule cards are built from, simplest first, one per distinct set of hand classes.

    Returns
    -------
    list of HandSet
        Pairs from each rank up; for each kind (suited, offsuit, unpaired): one high card with a kicker from
        each rank up, a high card or better with a kicker, connectors and gappers (gap 0 to 3) from each low card
        up, and rank totals from each value up. Sets with the same members as an earlier (simpler) one are
        dropped.
    """
    out: list[HandSet] = [HandSet("pair", high_min=r) for r in range(13)]
    for kind in ("unpaired", "suited", "offsuit"):
        out += [HandSet(kind, high_min=x, high_max=x, low_min=lo) for x in range(12, 0, -1) for lo in range(x)]
        out += [HandSet(kind, high_min=h, low_min=lo) for h in range(11, 0, -1) for lo in range(h)]
        out += [HandSet(kind, gap_max=g, low_min=lo) for g in range(4) for lo in range(12 - g)]
        out += [HandSet(kind, sum_min=n) for n in range(6, 28)]
    seen: set = set()
    unique = []
    for c in out:
        key = c.members().tobytes()
        if key in seen or not c.members().any():
            continue
        seen.add(key)
        unique.append(c)
    return unique

"""The bet-size grammar of the solver ecosystem (postflop-solver, desktop-postflop, PioSOLVER).

A list of sizes is written as one string of comma-separated tokens (``"33%, 75%, a"``), a list of tokens
(``["33%", "75%", "a"]``) or, for backward compatibility, numbers (``[0.33, 0.75]``: pot fractions). Each token
is one :class:`Size`:

=============  ==========================================================================================
token          meaning
=============  ==========================================================================================
``33%``        pot-relative. A bet of 33% of the pot; a raise by 33% of the pot *after calling* (facing a bet
               ``b`` into a pot ``P``, a ``100%`` raise raises to ``b + (P + b)``). Any positive decimal
               (``12.5%``).
``0.33``       a bare number: the same pot fraction (``0.33`` = ``33%``), the syntax of older spot files.
``2.5x``       raises only: raise to 2.5 times the opponent's total bet on this street (facing a bet of 40, a
               raise to 100). The factor must be > 1. A first bet has no previous bet, so ``x`` in ``bets``
               or ``donk`` is an error.
``100c``       a fixed number of chips: a bet of 100 chips; a raise by 100 chips on top of the call.
``e``          geometric: the pot fraction ``f`` that, bet on each of the ``n`` remaining streets, puts the
``2e``         stacks all-in. With ``P'`` the pot after calling and ``S'`` the stack behind after calling,
``2e150%``     ``f = ((1 + 2 S' / P') ** (1 / n) - 1) / 2``. ``n`` is the number before ``e``; a bare ``e``
               means the streets left including this one (3 on the flop, 2 on the turn, 1 on the river). An
               optional pot percentage after ``e`` caps ``f`` (``2e150%``: at most 150% of the pot).
``a``          all-in.
=============  ==========================================================================================

Tokens are case-insensitive and may have spaces around them, not inside (``'33 %'`` is an error). The amounts
are computed by :mod:`hunl.solver.tree` (rounding half away from zero to whole chips, at least one chip).

Worked example (pot 100, stack 200 behind each player, both with 50 in): ``33%`` bets 33; facing a bet of 40,
``2.5x`` raises to 100; ``100c`` bets 100, and facing a bet of 40 raises to 40 + 100 = 140; on the river ``e``
gives ``f = ((1 + 2 * 200 / 100) - 1) / 2 = 2`` -> 200, all-in; on the turn ``2e`` gives
``f = (sqrt(5) - 1) / 2 = 0.618`` -> 61.8, rounded to 62 (and after a call, pot 224 and 138 behind, the river
``e`` is ``138 / 224`` of the pot: all-in).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from hunl.solver.limits import MAX_POT_FRACTION

__all__ = ["KINDS", "Size", "format_sizes", "parse_size", "parse_sizes"]

#: Kinds of size: pot fraction, multiple of the previous bet, chips, geometric, all-in (in canonical order).
KINDS = ("pot", "x", "chips", "geometric", "allin")

_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)"
_POT_RE = re.compile(rf"^({_NUM})%$")
_X_RE = re.compile(rf"^({_NUM})x$")
_CHIPS_RE = re.compile(rf"^({_NUM})c$")
_GEO_RE = re.compile(rf"^(\d*)e(?:({_NUM})%)?$")
_BARE_RE = re.compile(rf"^{_NUM}$")
#: Largest number of streets of a geometric size (there are at most 3 betting streets left; a larger ``n`` is
#: allowed, as in postflop-solver, but must be a small number).
_MAX_STREETS = 100


def _fmt(v: float, digits: int | None = None) -> str:
    """Positional decimal text of ``v`` (``0.5``, ``2.5``, ``100``, never an exponent): the shortest text that
    reads back as ``v``, or with at most ``digits`` significant digits."""
    if digits is None:
        return np.format_float_positional(float(v), unique=True, trim="-")
    return np.format_float_positional(float(v), precision=digits, unique=True, fractional=False, trim="-")


@dataclass(frozen=True, order=True)
class Size:
    """One bet or raise size.

    Attributes
    ----------
    kind : {"pot", "x", "chips", "geometric", "allin"}
        Pot fraction, multiple of the previous bet (raises only), fixed chips, geometric, all-in.
    value : float
        ``"pot"``: the fraction of the pot (0.33); ``"x"``: the factor (> 1); ``"chips"``: chips (> 0);
        ``"geometric"``: the cap on the pot fraction (``inf`` when uncapped); ``"allin"``: 0.
    streets : int
        ``"geometric"`` only: the number of streets ``n`` (0 = the streets left, a bare ``e``); 0 otherwise.

    Raises
    ------
    ValueError
        Unknown kind or a value outside the rule of its kind.
    """

    kind: str
    value: float = 0.0
    streets: int = 0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        v = float(self.value)
        if self.kind == "geometric":
            if not (v > 0):
                raise ValueError(f"a geometric size's cap must be a positive pot fraction, got {self.value!r}")
            if not (isinstance(self.streets, (int, np.integer)) and 0 <= self.streets <= _MAX_STREETS):
                raise ValueError(f"a geometric size's streets must be an integer in 0..{_MAX_STREETS} "
                                 f"(0 = the streets left), got {self.streets!r}")
        elif self.streets != 0:
            raise ValueError(f"streets is for geometric sizes only, got {self.streets!r} for {self.kind!r}")
        if self.kind == "allin":
            v = 0.0
        elif self.kind in ("pot", "chips") and not (math.isfinite(v) and v > 0):
            raise ValueError(f"a {self.kind} size must be positive and finite, got {self.value!r}")
        elif self.kind == "x" and not (math.isfinite(v) and v > 1):
            raise ValueError(f"a raise multiple must be greater than 1 (raise to more than the previous bet), "
                             f"got {self.value!r}")
        if self.kind in ("pot", "geometric") and math.isfinite(v) and v > MAX_POT_FRACTION:
            raise ValueError(f"a pot fraction must be at most 2**20, got {self.value!r}")
        object.__setattr__(self, "value", v)
        object.__setattr__(self, "streets", int(self.streets))

    @property
    def text(self) -> str:
        """The token (``"33%"``, ``"2.5x"``, ``"100c"``, ``"2e150%"``, ``"a"``); :func:`parse_size` of it gives
        back an equal :class:`Size`."""
        if self.kind == "pot":
            for digits in (12, None):
                pct = _fmt(self.value * 100.0, digits) + "%"
                if parse_size(pct) == self:
                    return pct
            return _fmt(self.value)
        if self.kind == "x":
            return _fmt(self.value) + "x"
        if self.kind == "chips":
            return _fmt(self.value) + "c"
        if self.kind == "geometric":
            n = str(self.streets) if self.streets else ""
            if not math.isfinite(self.value):
                return n + "e"
            cap = _fmt(self.value * 100.0) + "%"
            if parse_size(n + "e" + cap) != self:  # pragma: no cover - a cap not exact in percent
                raise ValueError(f"the geometric cap {self.value!r} has no exact percentage")
            return n + "e" + cap
        return "a"

    def __str__(self) -> str:
        return self.text


def parse_size(token, role: str = "bet", name: str = "size") -> Size:
    """Parse one size token.

    Parameters
    ----------
    token : str or float
        A token of the grammar of the module docstring, or a number (a pot fraction).
    role : {"bet", "raise"}
        ``"bet"`` (a first bet of a street, or a donk bet) refuses ``x`` sizes.
    name : str
        The field named in errors (``bet_sizes.river.bets``).

    Returns
    -------
    Size

    Raises
    ------
    ValueError
        ``"<name>: '<token>' ..."`` naming the token and the rule it broke.
    """
    if isinstance(token, (bool, np.bool_)):
        raise ValueError(f"{name}: {token!r} is not a size (a string such as '33%' or a pot fraction)")
    if isinstance(token, (int, float, np.integer, np.floating)):
        v = float(token)
        if not math.isfinite(v) or v <= 0 or v > MAX_POT_FRACTION:
            raise ValueError(f"{name}: {token!r}: a pot fraction must be positive, finite and at most 2**20")
        return Size("pot", v)
    if not isinstance(token, str):
        raise ValueError(f"{name}: {token!r} is not a size (a string such as '33%' or a pot fraction)")
    raw = token
    t = token.strip().lower()
    if not t:
        raise ValueError(f"{name}: an empty size (two commas in a row, or a trailing comma?)")
    if re.search(r"\s", t):
        raise ValueError(f"{name}: {raw!r}: no space is allowed inside a size (write '33%', '2.5x', '100c')")
    if t.startswith("-"):
        raise ValueError(f"{name}: {raw!r}: a size must be positive")
    try:
        if t in ("a", "allin", "all-in"):
            return Size("allin")
        m = _POT_RE.match(t)
        if m:
            v = float(m.group(1)) / 100.0
            if v <= 0:
                raise ValueError("a pot percentage must be positive")
            return Size("pot", v)
        m = _X_RE.match(t)
        if m:
            if role == "bet":
                raise ValueError("is a raise size (a multiple of the previous bet); a first bet of a street "
                                 "has no previous bet: use a pot percentage, chips, 'e' or 'a'")
            v = float(m.group(1))
            if v <= 1:
                raise ValueError("a raise multiple must be greater than 1 (raise to more than the previous bet)")
            return Size("x", v)
        m = _CHIPS_RE.match(t)
        if m:
            v = float(m.group(1))
            if v <= 0:
                raise ValueError("a chip size must be positive")
            return Size("chips", v)
        m = _GEO_RE.match(t)
        if m:
            n = int(m.group(1)) if m.group(1) else 0
            if m.group(1) and n == 0:
                raise ValueError("the number of streets before 'e' must be at least 1 (a bare 'e' means "
                                 "the streets left)")
            if n > _MAX_STREETS:
                raise ValueError(f"the number of streets before 'e' must be at most {_MAX_STREETS}")
            cap = math.inf
            if m.group(2) is not None:
                cap = float(m.group(2)) / 100.0
                if cap <= 0:
                    raise ValueError("the cap after 'e' must be a positive pot percentage")
            return Size("geometric", cap, n)
        if _BARE_RE.match(t):
            v = float(t)
            if v <= 0:
                raise ValueError("a pot fraction must be positive")
            return Size("pot", v)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(f"{name}: {raw!r}{' ' if msg.startswith('is ') else ': '}{msg}") from None
    raise ValueError(f"{name}: {raw!r} is not a size; write a pot percentage ('33%'), a raise multiple "
                     "('2.5x', raises only), chips ('100c'), a geometric size ('e', '2e', '2e150%'), all-in "
                     "('a') or a pot fraction (0.33)")


def parse_sizes(value, role: str = "bet", name: str = "sizes") -> tuple:
    """Parse a list of sizes: a comma-separated string, a sequence of tokens and numbers, or one number.

    Parameters
    ----------
    value : str, float or sequence of (str or float)
        ``"33%, 75%, a"``, ``["33%", "a"]``, ``[0.5, 1.0]`` or ``0.5``; ``""`` and ``[]`` are no sizes.
    role : {"bet", "raise"}
        See :func:`parse_size`.
    name : str
        The field named in errors.

    Returns
    -------
    tuple of Size
        Distinct sizes in canonical order (by kind as in :data:`KINDS`, then value).

    Raises
    ------
    ValueError
        On a malformed token (:func:`parse_size`) or a value that is not a string, number or list.
    """
    if isinstance(value, Size):
        items = [value]
    elif isinstance(value, str):
        items = [] if not value.strip() else value.split(",")
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        items = [value]
    elif isinstance(value, (list, tuple, np.ndarray)):
        items = list(value)
    else:
        raise ValueError(f"{name} must be a string such as '33%, 75%, a', a list of sizes or a pot fraction, "
                         f"got {value!r}")
    out = set()
    for item in items:
        if isinstance(item, Size):
            if role == "bet" and item.kind == "x":
                raise ValueError(f"{name}: {item.text!r} is a raise size (a multiple of the previous bet); a "
                                 "first bet of a street has no previous bet")
            out.add(item)
        else:
            out.add(parse_size(item, role, name))
    return tuple(sorted(out, key=lambda s: (KINDS.index(s.kind), s.value, s.streets)))


def format_sizes(sizes) -> str:
    """The text of a size list: ``"33%, 75%, a"`` (``""`` for no size); :func:`parse_sizes` reads it back.

    Parameters
    ----------
    sizes : iterable of Size
        The sizes, e.g. :func:`parse_sizes`' tuple; written in the order given.

    Returns
    -------
    str
        Each size's token (:attr:`Size.text`: ``"33%"`` a fraction of the pot, ``"2.5x"`` a multiple of the
        previous bet, ``"300c"`` chips, ``"e"`` or ``"2e150%"`` geometric, ``"a"`` all-in) joined by ``", "``.
    """
    return ", ".join(s.text for s in sizes)

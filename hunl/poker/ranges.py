"""Hand ranges: parse and print the range syntax of postflop solvers, and validate weight vectors.

A range is a float64 vector of shape (1326,): the weight in [0, 1] of each combo (combo order of
:mod:`hunl.poker.cards`). The text syntax is that of PioSOLVER, GTO+ and postflop-solver: comma-separated tokens,
each optionally followed by ``:w`` to give its combos the weight ``w`` in [0, 1] (default 1):

======================  ==========================================================================
``AA``, ``QQ+``         a pair; that pair and every higher pair
``99-66``               the pairs from 99 down to 66 (either end may come first)
``AKs``, ``AKo``, ``AK``  suited (4 combos), offsuit (12) or both (16) -- the higher rank comes first
``A5s+``                A5s, A6s, ..., AKs: the kicker rises to one below the top card (``A5o+``, ``A5+``)
``KTs-K7s``             same top card, a span of kickers: KTs, K9s, K8s, K7s
``T9s-76s``             same gap, both ranks step together: T9s, 98s, 87s, 76s (``T8o-64o``, ``T9-76`` too)
``AsKh``                one specific combo
``QQ:0.5``              any token with a weight
======================  ==========================================================================

**Later tokens override earlier ones** for the combos they share: ``"AK,AKs:0.5"`` gives AKs weight 0.5 and
AKo weight 1, and ``"AKs:0.5,AK"`` gives all 16 combos weight 1. A weight of 0 removes combos
(``"QQ+,KK:0"``).

>>> w = parse_range("QQ+,AKs,AKo:0.5,T9s-98s:0.25")
>>> float(w.sum())                          # 18 + 4 + 6 + 2 combos
30.0
>>> format_range(w)
'QQ+,AKs,AKo:0.5,T9s-98s:0.25'
"""

from __future__ import annotations

import re

import numpy as np

from hunl.poker.cards import (
    _RANK_OF_CHAR,
    COMBO_LABELS,
    HAND_CLASS,
    NUM_CLASSES,
    NUM_COMBOS,
    RANKS,
    board_conflicts,
    class_cell,
    class_combos,
    parse_combo,
)
from rulelearn.validation import check_int

__all__ = ["parse_range", "format_range", "check_range"]

_COMBO_RE = re.compile(r"^[2-9TJQKAtjqka][shdc][2-9TJQKAtjqka][shdc]$")
_MAX_PRECISION = 12


def _token_error(token: str, rule: str) -> ValueError:
    return ValueError(f"range token {token!r}: {rule}")


def _parse_weight(text: str, token: str) -> float:
    try:
        w = float(text)
    except ValueError:
        raise _token_error(token, f"the weight {text!r} after ':' is not a number") from None
    if not np.isfinite(w) or not 0.0 <= w <= 1.0:
        raise _token_error(token, f"the weight {text!r} must be a number in [0, 1]")
    return w


def _parse_class(text: str, token: str) -> tuple[int, int, str]:
    """(high rank, low rank, kind) with kind 'pair', 's', 'o' or '' (suited and offsuit)."""
    if len(text) < 2:
        raise _token_error(token, f"{text!r} is not a hand: a hand class needs two ranks, e.g. 'AA' or 'AKs'")
    if len(text) > 3:
        raise _token_error(token, f"{text!r} is not a hand class like 'AKs' or a combo like 'AsKh'")
    bad = [c for c in text[:2] if c not in _RANK_OF_CHAR]
    if bad:
        raise _token_error(token, f"unknown rank {bad[0]!r}; ranks are '{RANKS}'")
    hi, lo = _RANK_OF_CHAR[text[0]], _RANK_OF_CHAR[text[1]]
    suffix = text[2:]
    if suffix not in ("", "s", "o"):
        raise _token_error(
            token, f"the suffix {suffix!r} must be 's' (suited), 'o' (offsuit) or nothing (both)"
        )
    if hi == lo:
        if suffix:
            raise _token_error(token, f"a pair ({text[:2]}) cannot be suited or offsuit")
        return hi, lo, "pair"
    if hi < lo:
        raise _token_error(token, f"write the higher rank first ({text[1]}{text[0]}{suffix})")
    return hi, lo, suffix


def _class_cells(hi: int, lo: int, kind: str) -> list[int]:
    if kind == "pair":
        return [class_cell(hi, hi, False)]
    if kind == "":
        return [class_cell(hi, lo, True), class_cell(hi, lo, False)]
    return [class_cell(hi, lo, kind == "s")]


def _expand_span(text: str, token: str) -> list[tuple[int, int, str]]:
    ends = text.split("-")
    if len(ends) != 2:
        raise _token_error(
            token, "a span has exactly one '-' between two hand classes, e.g. '99-66' or 'KTs-K7s'"
        )
    (h1, l1, k1), (h2, l2, k2) = (_parse_class(e, token) for e in ends)
    if (k1 == "pair") != (k2 == "pair"):
        raise _token_error(token, "a span cannot mix a pair with a non-pair hand")
    if k1 == "pair":
        return [(r, r, "pair") for r in range(min(h1, h2), max(h1, h2) + 1)]
    if k1 != k2:
        raise _token_error(token, "both ends of a span need the same suffix ('s', 'o' or none)")
    if h1 == h2:
        return [(h1, lo, k1) for lo in range(min(l1, l2), max(l1, l2) + 1)]
    if h1 - l1 == h2 - l2:
        gap = h1 - l1
        return [(hi, hi - gap, k1) for hi in range(min(h1, h2), max(h1, h2) + 1)]
    raise _token_error(
        token, "a span needs the same top card (e.g. 'KTs-K7s') or the same gap between the two ranks "
        "(e.g. 'T9s-76s')"
    )


def _expand_plus(text: str, token: str) -> list[tuple[int, int, str]]:
    hi, lo, kind = _parse_class(text, token)
    if kind == "pair":
        return [(r, r, "pair") for r in range(hi, 13)]
    return [(hi, k, kind) for k in range(lo, hi)]


def _token_combos(body: str, token: str) -> np.ndarray:
    if "-" in body:
        classes = _expand_span(body, token)
    elif body.endswith("+"):
        classes = _expand_plus(body[:-1], token)
    elif _COMBO_RE.match(body):
        try:
            return np.array([parse_combo(body, "range token")])
        except ValueError:
            raise _token_error(token, "a specific combo needs two different cards, e.g. 'AsKh'") from None
    else:
        classes = [_parse_class(body, token)]
    cells = [c for cls in classes for c in _class_cells(*cls)]
    return np.concatenate([class_combos(c) for c in cells])


def parse_range(text: str, board=None) -> np.ndarray:
    """Weights of a range written in solver syntax (see the module docstring).

    Parameters
    ----------
    text : str
        Comma-separated tokens such as ``"QQ+,AKs,A5s-A2s:0.5,T9s-76s,AsKh:0.25"``; spaces around tokens are
        ignored. Later tokens override earlier ones for the combos they share.
    board : str or sequence of cards, optional
        If given (0 to 5 cards), combos that share a card with the board get weight 0 (an explicit request;
        without it nothing is removed).

    Returns
    -------
    numpy.ndarray of float64, shape (1326,)
        The weight of each combo in [0, 1], combo order of :mod:`hunl.poker.cards`.

    Raises
    ------
    ValueError
        On an empty string or empty token, and on a malformed token (unknown rank, bad suffix, a suited or
        offsuit pair, a span whose ends differ in suffix or share neither the top card nor the gap, a combo
        repeating a card, a weight that is not a number in [0, 1]); the message quotes the token and the rule.
    TypeError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"range text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ValueError("range text is empty; write e.g. 'QQ+,AKs' (see hunl.poker.ranges for the syntax)")
    weights = np.zeros(NUM_COMBOS)
    for position, raw in enumerate(text.split(",")):
        token = raw.strip()
        if not token:
            raise ValueError(
                f"range text {text!r} has an empty token at position {position} (a stray comma?)"
            )
        body, sep, weight_text = token.partition(":")
        weight = _parse_weight(weight_text.strip(), token) if sep else 1.0
        body = body.strip()
        if not body:
            raise _token_error(token, "a weight needs a hand before the ':'")
        weights[_token_combos(body, token)] = weight
    if board is not None:
        weights[board_conflicts(board)] = 0.0
    return weights


def _check_weights(weights, name: str, bounded: bool) -> np.ndarray:
    try:
        w = np.array(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array of shape (1326,): {exc}") from None
    if w.shape != (NUM_COMBOS,):
        raise ValueError(f"{name} must have shape (1326,) (one weight per combo), got {w.shape}")
    if not np.all(np.isfinite(w)):
        raise ValueError(f"{name} has NaN or infinite weights (at {_first_labels(~np.isfinite(w))})")
    if np.any(w < 0):
        raise ValueError(f"{name} has negative weights (at {_first_labels(w < 0)})")
    if bounded and np.any(w > 1):
        raise ValueError(
            f"{name} weights must be within [0, 1]; found {float(w.max())!r} (at {_first_labels(w > 1)})"
        )
    return w


def _first_labels(mask: np.ndarray, limit: int = 5) -> str:
    idx = np.flatnonzero(mask)
    shown = ", ".join(COMBO_LABELS[k] for k in idx[:limit])
    return shown + (f" and {idx.size - limit} more" if idx.size > limit else "")


def check_range(weights, board=None, name: str = "range", bounded: bool = True,
                drop_board_conflicts: bool = False) -> np.ndarray:
    """Validate a range (or a reach vector) and return it as float64.

    Parameters
    ----------
    weights : array_like, shape (1326,)
        A weight per combo.
    board : str or sequence of cards, optional
        The board (0 to 5 cards). Combos sharing a card with it must have weight 0.
    name : str
        Parameter name used in error messages.
    bounded : bool
        True (default): weights must lie in [0, 1] (a range). False: weights need only be nonnegative (e.g.
        reach probabilities scaled by chance, or unnormalised counts).
    drop_board_conflicts : bool
        If True, set the weight of combos that conflict with ``board`` to 0 instead of raising. Nothing is
        dropped silently: without this flag such weights are an error.

    Returns
    -------
    numpy.ndarray of float64, shape (1326,)
        A new array (conflicting combos zeroed if ``drop_board_conflicts``).

    Raises
    ------
    ValueError
        On a wrong shape, NaN/infinity, a negative weight, a weight above 1 when ``bounded``, positive
        weight on a combo that conflicts with the board (listing a few, unless ``drop_board_conflicts``), or
        when no combo that avoids the board has positive weight (an empty range).
    """
    w = _check_weights(weights, name, bounded)
    if board is not None:
        conflicts = board_conflicts(board)
        bad = conflicts & (w > 0)
        if np.any(bad):
            if not drop_board_conflicts:
                raise ValueError(
                    f"{name} puts positive weight on {int(bad.sum())} combo(s) that conflict with the board "
                    f"({_first_labels(bad)}); zero them or pass drop_board_conflicts=True"
                )
            w[conflicts] = 0.0
    if not np.any(w > 0):
        where = " among combos that avoid the board" if board is not None else ""
        raise ValueError(f"{name} is empty: no combo{where} has positive weight")
    return w


def _weight_suffix(q: int, precision: int) -> str:
    if q == 10 ** precision:
        return ""
    if q == 0:
        return ":0"
    digits = str(q).zfill(precision).rstrip("0")
    return ":0." + digits


def _runs(values: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive integers in an increasing list."""
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][-1] + 1:
            runs[-1].append(v)
        else:
            runs.append([v])
    return runs


def _pair_tokens(ranks: list[int]) -> list[tuple[tuple, str]]:
    out = []
    for run in _runs(sorted(ranks)):
        lo, hi = RANKS[run[0]] * 2, RANKS[run[-1]] * 2
        if len(run) == 1:
            text = lo
        elif run[-1] == 12:
            text = lo + "+"
        else:
            text = f"{hi}-{lo}"
        out.append(((0, -run[-1], 0), text))
    return out


def _nonpair_tokens(hands: set[tuple[int, int]], suffix: str, order: int) -> list[tuple[tuple, str]]:
    out, singles = [], []
    for hi in sorted({h for h, _ in hands}, reverse=True):
        for run in _runs(sorted(lo for h, lo in hands if h == hi)):
            top = RANKS[hi]
            if len(run) == 1:
                singles.append((hi, run[0]))
            elif run[-1] == hi - 1:
                out.append(((order, -hi, -run[-1]), f"{top}{RANKS[run[0]]}{suffix}+"))
            else:
                out.append(((order, -hi, -run[-1]),
                            f"{top}{RANKS[run[-1]]}{suffix}-{top}{RANKS[run[0]]}{suffix}"))
    # lone classes that share a gap and step together make a connector span ("T9s-76s")
    for gap in sorted({h - lo for h, lo in singles}):
        for run in _runs(sorted(h for h, lo in singles if h - lo == gap)):
            top, bottom = run[-1], run[0]
            text = RANKS[top] + RANKS[top - gap] + suffix
            if len(run) > 1:
                text += f"-{RANKS[bottom]}{RANKS[bottom - gap]}{suffix}"
            out.append(((order, -top, -(top - gap)), text))
    return out


def _class_tokens(cells: np.ndarray) -> list[str]:
    pairs, suited, offsuit = [], set(), set()
    for cell in cells.tolist():
        row, col = divmod(cell, 13)
        if row == col:
            pairs.append(12 - row)
        elif row < col:
            suited.add((12 - row, 12 - col))
        else:
            offsuit.add((12 - col, 12 - row))
    both = suited & offsuit
    keyed = (_pair_tokens(pairs) + _nonpair_tokens(both, "", 1) + _nonpair_tokens(suited - both, "s", 2)
             + _nonpair_tokens(offsuit - both, "o", 3))
    return [text for _, text in sorted(keyed)]


def format_range(weights, precision: int = 3, board=None) -> str:
    """Compact solver-syntax text of a range; :func:`parse_range` reads it back.

    Weights are rounded to ``precision`` decimals. Each grid class (``"AKs"``) is printed at its base weight,
    the most common weight among its combos, and classes with equal base weight are merged into ``+`` and
    ``-`` spans (``"QQ+"``, ``"A5s+"``, ``"KTs-K7s"``, ``"T9s-76s"``) and into suited-and-offsuit tokens
    (``"AK"``). The combos of a partial class whose weight differs from its base follow at the end as specific
    combos, which override the class tokens (``"AK,AsKh:0.5"``, ``"QQ+,AsAh:0"``); a class whose base weight
    is 0 is printed only through its nonzero combos. Class tokens are grouped by weight, highest first;
    weight 1 has no suffix. This never uses more tokens than listing every combo of a partial class.

    Parameters
    ----------
    weights : array_like, shape (1326,)
        Weights in [0, 1].
    precision : int
        Decimals of the printed weights (0..12).
    board : str or sequence of cards, optional
        If given, combos that conflict with the board must have weight 0 and are ignored when deciding whether
        a class has a single weight, so ``"AA"`` still prints as ``"AA"`` on an ace-high board. Read the text
        back with ``parse_range(text, board=board)``.

    Returns
    -------
    str
        The range text; ``""`` if no weight survives the rounding (``parse_range`` rejects an empty string).
        Round trip: ``parse_range(format_range(w, p, board), board) == w`` exactly whenever every entry of
        ``w`` is a multiple of ``10**-p`` (as ``round(x, p)`` returns it).

    Raises
    ------
    ValueError
        On a wrong shape, non-finite weights or weights outside [0, 1], a precision outside 0..12, or positive
        weight on a combo that conflicts with ``board``.
    """
    check_int("precision", precision, 0, _MAX_PRECISION)
    w = _check_weights(weights, "weights", bounded=True)
    live = np.ones(NUM_COMBOS, dtype=bool)
    if board is not None:
        live = ~board_conflicts(board)
        if np.any(w[~live] > 0):
            raise ValueError(f"weights is positive on combos that conflict with the board "
                             f"({_first_labels(~live & (w > 0))})")
    scale = 10 ** int(precision)
    q = np.rint(w * scale).astype(np.int64)
    q[~live] = 0

    # each class's base weight: its most common weight among live combos (on a tie 0, then the larger weight)
    live_k = np.flatnonzero(live)
    keys = HAND_CLASS[live_k].astype(np.int64) * (scale + 1) + q[live_k]
    cell_q, counts = np.unique(keys, return_counts=True)
    u_cell, u_q = np.divmod(cell_q, scale + 1)
    pick = np.lexsort((u_q, u_q == 0, counts, u_cell))   # per cell, the best candidate comes last
    last = np.r_[u_cell[pick][1:] != u_cell[pick][:-1], True]
    base = np.zeros(NUM_CLASSES, dtype=np.int64)
    base[u_cell[pick][last]] = u_q[pick][last]
    # classes print at their base weight; the live combos that differ follow as overriding exceptions
    exceptions = np.flatnonzero(live & (q != base[HAND_CLASS]))

    tokens: list[str] = []
    for value in sorted(set(base[base > 0].tolist()), reverse=True):
        suffix = _weight_suffix(value, int(precision))
        tokens += [t + suffix for t in _class_tokens(np.flatnonzero(base == value))]
    exceptions = exceptions[np.lexsort((exceptions, HAND_CLASS[exceptions], -q[exceptions]))]
    tokens += [COMBO_LABELS[k] + _weight_suffix(v, int(precision))
               for k, v in zip(exceptions.tolist(), q[exceptions].tolist())]
    return ",".join(tokens)


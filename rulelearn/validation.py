"""Input checks shared by every package (rulelearn, games, hunl): each raises naming the parameter and the rule it
broke.

* :func:`check_int`, :func:`check_real`: one integer or real parameter and its bounds;
* :func:`as_float_array`, :func:`check_probability_rows`: arrays and distributions;
* :func:`check_game_weights`: each game's weight in a weighted mean;
* :func:`check_output_dir`, :func:`check_output_file`: where a command will write, checked before any work;
* :func:`read_text_file`: a UTF-8 input file, errors naming it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

#: Absolute tolerance for "sums to 1" checks on probability vectors that define a game (a deal).
PMF_ATOL = 1e-9
#: Absolute tolerance for "sums to 1" checks on strategies (learned strategies are renormalised floats).
STRATEGY_ATOL = 1e-6


def as_float_array(value, name: str, ndim: int | tuple[int, ...] | None = None) -> np.ndarray:
    """Convert ``value`` to a float64 array, rejecting NaN/inf and wrong dimensionality.

    Parameters
    ----------
    value : array_like
        The input.
    name : str
        The parameter name used in error messages.
    ndim : int or tuple of int, optional
        Allowed numbers of dimensions.

    Returns
    -------
    numpy.ndarray of float64

    Raises
    ------
    ValueError
        If the input is not numeric, contains NaN or infinity, or has a disallowed number of dimensions.
    """
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise ValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimensions, got shape {arr.shape}"
            )
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return arr


def check_probability_rows(arr: np.ndarray, name: str, axes: int | tuple[int, ...] = -1,
                           atol: float = PMF_ATOL) -> None:
    """Check that ``arr`` is non-negative and sums to 1 over ``axes``.

    Raises
    ------
    ValueError
        If an entry is negative or a sum over ``axes`` differs from 1 by more than ``atol``.
    """
    if np.any(arr < 0):
        idx = tuple(int(i) for i in np.argwhere(arr < 0)[0])
        raise ValueError(f"{name} has a negative probability {arr[idx]!r} at index {idx}")
    sums = arr.sum(axis=axes)
    bad = np.abs(sums - 1.0) > atol
    if np.any(bad):
        where = np.argwhere(np.atleast_1d(bad))[0]
        worst = np.atleast_1d(sums)[tuple(where)]
        raise ValueError(
            f"{name} must sum to 1 over axis {axes} (tolerance {atol:g}); "
            f"found a sum of {worst!r} at index {tuple(int(i) for i in where)}"
        )


def _int_rule(minimum, maximum, allow_none: bool) -> str:
    if maximum is not None:
        rule = f"an integer in {minimum}..{maximum}" if minimum is not None else f"an integer <= {maximum}"
    elif minimum is not None:
        rule = f"an integer >= {minimum}"
    else:
        rule = "an integer"
    return rule + (" or None" if allow_none else "")


def check_int(name: str, value, minimum: int | None = None, maximum: int | None = None, *,
              allow_none: bool = False, strict_type: bool = False) -> int | None:
    """Check that ``value`` is an integer in ``minimum .. maximum`` (either bound optional) and return it as int.

    Parameters
    ----------
    name : str
        The parameter name used in error messages.
    value : object
        Booleans are never integers here. Integer types (``int``, ``numpy.integer``) pass; a float with an
        integral value (``3.0``) passes too unless ``strict_type``.
    minimum, maximum : int, optional
        Inclusive bounds.
    allow_none : bool, default False
        Accept ``None`` (returned as is).
    strict_type : bool, default False
        Reject every non-integer type with a ``TypeError`` (for parameters that must be typed as integers).

    Returns
    -------
    int or None

    Raises
    ------
    TypeError
        With ``strict_type``, if ``value`` is not of an integer type.
    ValueError
        Otherwise, if ``value`` is not an integer or lies outside the bounds: ``"<name> must be an integer >= 1,
        got 0"``.
    """
    if value is None and allow_none:
        return None
    rule = _int_rule(minimum, maximum, allow_none)
    integer_type = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not integer_type:
        if strict_type:
            raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
        integral = (isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer())
        if not integral:
            raise ValueError(f"{name} must be {rule}, got {value!r}")
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise ValueError(f"{name} must be {rule}, got {value!r}")
    return v


def check_game_weights(weights, n_games: int) -> np.ndarray:
    """Each game's weight in a weighted mean over ``n_games`` games.

    Parameters
    ----------
    weights : array_like of float, shape ``(n_games,)``, or None
        ``None``: every game weighs 1.
    n_games : int

    Returns
    -------
    numpy.ndarray of float64, shape ``(n_games,)``

    Raises
    ------
    ValueError
        If ``weights`` has another shape, or is not finite, non-negative and not all zero.
    """
    if weights is None:
        return np.ones(n_games)
    w = np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape != (n_games,):
        raise ValueError(f"weights must have one entry per game ({n_games}), got shape {np.shape(weights)}")
    if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    return w


def check_real(name: str, value, low: float | None = None, high: float | None = None, *,
               low_open: bool = False, high_open: bool = False, allow_none: bool = False) -> float | None:
    """Check that ``value`` is a finite real number in an interval and return it as float.

    Parameters
    ----------
    name : str
        The parameter name used in error messages.
    value : object
        A real number (not a bool); ``None`` only with ``allow_none``.
    low, high : float, optional
        Bounds of the interval (absent: unbounded on that side).
    low_open, high_open : bool, default False
        Exclude the bound: ``low_open=True`` means ``value > low`` rather than ``value >= low``.
    allow_none : bool, default False

    Returns
    -------
    float or None

    Raises
    ------
    ValueError
        If ``value`` is not a finite real number in the interval: ``"test_fraction must be in (0, 1), got 1.5"``.
    """
    if value is None and allow_none:
        return None
    if low is not None and high is not None:
        rule = f"in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    elif low is not None:
        rule = f"{'>' if low_open else '>='} {low:g}"
    elif high is not None:
        rule = f"{'<' if high_open else '<='} {high:g}"
    else:
        rule = "a finite number"
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    v = float(value) if ok else float("nan")
    if ok and np.isfinite(v):
        ok = ((low is None or (v > low if low_open else v >= low))
              and (high is None or (v < high if high_open else v <= high)))
    else:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be {rule}{' or None' if allow_none else ''}, got {value!r}")
    return v


def _probe_writable(name: str, directory: Path, target: Path) -> None:
    """Raise unless a file can be created in the existing directory ``directory`` (the truth, whatever the
    permission bits say: read-only file systems, root, ACLs)."""
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        raise ValueError(f"{name}: cannot write {target}: the directory {directory} is not writable "
                         f"({exc.strerror or exc})") from None


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")  # pragma: no cover - a relative path's parents end at "."


def check_output_dir(name: str, path) -> Path:
    """Check that ``path`` is, or can be created as, a writable directory, before any work is done.

    Parameters
    ----------
    name : str
        The parameter (command-line option) named in the error, e.g. ``"--out"``.
    path : str or os.PathLike

    Returns
    -------
    pathlib.Path
        The path (not created).

    Raises
    ------
    ValueError
        If ``path`` is a file, lies below a file, or its nearest existing directory is not writable.
    """
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise ValueError(f"{name} must be a directory, but {p} is a file")
    base = _nearest_existing(p)
    if not base.is_dir():
        raise ValueError(f"{name}: cannot create the directory {p}: {base} is a file")
    _probe_writable(name, base, p)
    return p


def check_output_file(name: str, path) -> Path:
    """Check that the file ``path`` can be written: its directory exists and is writable, and it is not a
    directory itself.

    Parameters
    ----------
    name : str
        The parameter (command-line option) named in the error, e.g. ``"--plot"``.
    path : str or os.PathLike

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        If ``path`` is a directory, its directory does not exist or is a file, or it is not writable.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise ValueError(f"{name} must be a file name, but {p} is a directory")
    parent = p.parent
    if not parent.exists():
        raise ValueError(f"{name}: the directory {parent} of {p} does not exist")
    if not parent.is_dir():
        raise ValueError(f"{name}: cannot write {p}: {parent} is a file")
    _probe_writable(name, parent, p)
    return p


def read_text_file(path) -> str:
    """The contents of a UTF-8 text file.

    Raises
    ------
    ValueError
        Naming the file, if it is not valid UTF-8 (with the offset of the first bad byte) or cannot be read.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"{p}: cannot read the file ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p}: not a UTF-8 text file (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None

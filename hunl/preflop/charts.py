"""Push and call charts: 13x13 grids at a stack, each hand's threshold stack, mixed hands and range gaps.

A hand is *played* (pushed by the SB, called by the BB) at a stack when the equilibrium plays it with
probability at least 1/2 (:data:`PLAY_AT`); it is *mixed* there when that probability is strictly between
:data:`PURE_TOL` and ``1 - PURE_TOL``. Its *threshold* is the largest stack of the sweep at which it is played --
the number a published Nash chart prints for it ("the highest effective stack size in big blinds where a hand
can be pushed or called", HoldemResources.net, *Using the Nash Charts*). A hand has a *gap* when the stacks at
which it is played are not all the stacks from the bottom of the sweep up to its threshold (63s: pushed from
5.1 to 7.1 bb and below 2.3 bb, not in between).

Text charts use the grid of :mod:`hunl.poker.cards` (rows and columns A..2, suited hands above the diagonal, offsuit
below); plots use matplotlib.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.poker.cards import HAND_CLASS_LABELS, NUM_CLASSES, RANKS
from hunl.preflop.solve import StackSweep

__all__ = [
    "PLAYERS",
    "PLAY_AT",
    "PURE_TOL",
    "HandThreshold",
    "chart_grid",
    "format_chart",
    "format_threshold_chart",
    "hand_thresholds",
    "plot_chart",
    "plot_threshold_grid",
    "plot_thresholds",
    "threshold_strategy",
]

#: A hand is played at a stack when its equilibrium probability is at least this.
PLAY_AT = 0.5
#: Probabilities within this of 0 or 1 count as pure.
PURE_TOL = 1e-6
#: Player names: 0 = the SB's pushes, 1 = the BB's calls.
PLAYERS = ("push", "call")
_GRID_RANKS = RANKS[::-1]      # "AKQJT98765432": row/column order of the grid


def _probs(sweep: StackSweep, player: int) -> np.ndarray:
    if player not in (0, 1):
        raise ValueError(f"player must be 0 (SB pushes) or 1 (BB calls), got {player!r}")
    return sweep.push if player == 0 else sweep.call


@dataclass(frozen=True)
class HandThreshold:
    """How one hand class is played across the stacks of a sweep.

    Attributes
    ----------
    label : str
        The class (``"K2s"``).
    threshold : float or None
        Largest stack at which it is played (bb); ``None`` if never.
    always : bool
        Played at every stack of the sweep (printed as ``"25+"`` for a sweep ending at 25 bb).
    intervals : tuple of (float, float)
        Maximal runs of consecutive sweep stacks at which it is played, ``(lowest, highest)``, increasing.
    gap : bool
        The runs are not one run starting at the bottom of the sweep.
    mixed : tuple of float
        Stacks at which it is played with a probability strictly between 0 and 1.
    """

    label: str
    threshold: float | None
    always: bool
    intervals: tuple
    gap: bool
    mixed: tuple


def hand_thresholds(sweep: StackSweep, player: int = 0) -> list[HandThreshold]:
    """The threshold, runs and mixed stacks of every hand class (grid-cell order, 169 entries).

    Parameters
    ----------
    sweep : StackSweep
    player : int, default 0
        0 for the SB's pushes, 1 for the BB's calls.
    """
    probs = _probs(sweep, player)
    s = sweep.stacks
    out = []
    for h in range(NUM_CLASSES):
        p = probs[:, h]
        played = p >= PLAY_AT
        runs = []
        k = 0
        while k < s.size:
            if played[k]:
                j = k
                while j + 1 < s.size and played[j + 1]:
                    j += 1
                runs.append((float(s[k]), float(s[j])))
                k = j + 1
            else:
                k += 1
        mixed = tuple(float(x) for x in s[(p > PURE_TOL) & (p < 1 - PURE_TOL)])
        threshold = runs[-1][1] if runs else None
        gap = len(runs) > 1 or (len(runs) == 1 and runs[0][0] != float(s[0]))
        out.append(HandThreshold(HAND_CLASS_LABELS[h], threshold, bool(played.all()), tuple(runs), gap, mixed))
    return out


def threshold_strategy(thresholds, stacks) -> np.ndarray:
    """Play a chart the way its numbers are read: a hand is played at a stack iff the stack is at most the
    hand's threshold (gaps ignored, mixing rounded).

    Parameters
    ----------
    thresholds : array_like of float, shape (169,)
        Threshold stack per class (bb); ``inf`` for always, ``-inf`` or NaN for never.
    stacks : array_like of float, shape (S,)

    Returns
    -------
    numpy.ndarray of float64, shape (S, 169)
        1.0 where played, 0.0 elsewhere.
    """
    t = np.nan_to_num(np.asarray(thresholds, dtype=np.float64), nan=-np.inf)
    s = np.asarray(stacks, dtype=np.float64)
    return (s[:, None] <= t[None, :] + 1e-9).astype(np.float64)


def chart_grid(sweep: StackSweep, stack, player: int = 0) -> np.ndarray:
    """The equilibrium probabilities at one stack of the sweep on the 13x13 grid, shape (13, 13).

    Parameters
    ----------
    sweep : StackSweep
    stack : float
        Effective stack in bb; must be one of ``sweep.stacks`` (to 1e-9).
    player : int, default 0
        0 for the SB's pushes, 1 for the BB's calls.

    Returns
    -------
    numpy.ndarray of float64, shape (13, 13)
        Probability of pushing (or calling) each hand class, in the grid of :mod:`hunl.poker.cards` (rows and
        columns A..2, suited above the diagonal, offsuit below, pairs on it); a copy.

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1, or ``stack`` is not a stack of the sweep.
    """
    return _probs(sweep, player)[sweep.index(stack)].reshape(13, 13).copy()


def format_chart(sweep: StackSweep, stack, player: int = 0, tol: float = PURE_TOL) -> str:
    """A 13x13 text chart of one stack: ``##`` played always, two digits the percentage of a mixed hand,
    ``.`` never. Rows and columns A..2, suited above the diagonal, offsuit below. Probabilities within ``tol``
    of 0 or 1 count as pure (raise it for approximate solutions such as DCFR's).

    Parameters
    ----------
    sweep : StackSweep
    stack : float
        Effective stack in bb; must be one of ``sweep.stacks`` (to 1e-9).
    player : int, default 0
        0 for the SB's pushes, 1 for the BB's calls.
    tol : float, default :data:`PURE_TOL`
        Probabilities at least ``1 - tol`` print as ``##``, at most ``tol`` as ``.``; the others print as
        their percentage rounded and clipped to 1..99.

    Returns
    -------
    str
        14 lines joined by newlines: a header of ranks, then one line per grid row (A..2), two characters per
        cell.

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1, or ``stack`` is not a stack of the sweep.
    """
    g = chart_grid(sweep, stack, player)
    lines = ["    " + "  ".join(_GRID_RANKS)]
    for r in range(13):
        cells = []
        for c in range(13):
            p = g[r, c]
            if p >= 1 - tol:
                cells.append("##")
            elif p <= tol:
                cells.append(" .")
            else:
                cells.append(f"{min(99, max(1, round(100 * p))):2d}")
        lines.append(f"{_GRID_RANKS[r]}  " + " ".join(cells))
    return "\n".join(lines)


def _threshold_text(t: HandThreshold, top: float) -> str:
    if t.always:
        return f"{top:g}+"
    if t.threshold is None:
        return "-"
    return f"{t.threshold:.1f}" + ("*" if t.gap else "")


def format_threshold_chart(sweep: StackSweep, player: int = 0, width: int = 6) -> str:
    """A 13x13 text chart of each hand's threshold stack (``"25+"``: played at every stack of the sweep;
    ``"-"``: never; ``*``: a gap, listed below the chart with its runs).

    Thresholds come from :func:`hand_thresholds` and print in bb with one decimal.

    Parameters
    ----------
    sweep : StackSweep
    player : int, default 0
        0 for the SB's pushes, 1 for the BB's calls.
    width : int, default 6
        Width of each column, in characters (entries are right-aligned).

    Returns
    -------
    str
        A header of ranks and one line per grid row (A..2), joined by newlines; if any hand has a gap, a blank
        line and a line ``"* played only at: ..."`` listing each such hand's runs of stacks (bb).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1.
    """
    th = hand_thresholds(sweep, player)
    top = float(sweep.stacks[-1])
    lines = [" " * 3 + "".join(f"{r:>{width}}" for r in _GRID_RANKS)]
    for r in range(13):
        lines.append(f"{_GRID_RANKS[r]:<3}" + "".join(f"{_threshold_text(th[r * 13 + c], top):>{width}}"
                                                      for c in range(13)))
    gaps = [t for t in th if t.gap]
    if gaps:
        lines.append("")
        lines.append("* played only at: " + "; ".join(
            f"{t.label} " + ", ".join(f"{lo:g}-{hi:g}" if lo != hi else f"{lo:g}" for lo, hi in t.intervals)
            for t in gaps))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------ plots
def _grid_axes(ax):
    ax.set_xticks(range(13), list(_GRID_RANKS))
    ax.set_yticks(range(13), list(_GRID_RANKS))
    ax.tick_params(length=0)


def plot_chart(sweep: StackSweep, stack, player: int = 0, ax=None):
    """Heatmap of the equilibrium probabilities at one stack; mixed hands are outlined and labelled with their
    percentage. Returns the matplotlib axes.

    Parameters
    ----------
    sweep : StackSweep
    stack : float
        Effective stack in bb; must be one of ``sweep.stacks`` (to 1e-9).
    player : int, default 0
        0 for the SB's pushes (green), 1 for the BB's calls (orange).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new 5.2 x 5 inch figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; the title gives the share of all 1,326 combos played (probability-weighted, %).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1, or ``stack`` is not a stack of the sweep.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    if ax is None:
        _, ax = plt.subplots(figsize=(5.2, 5))
    g = chart_grid(sweep, stack, player)
    ax.imshow(g, cmap="Greens" if player == 0 else "Oranges", vmin=0, vmax=1)
    for r in range(13):
        for c in range(13):
            label = HAND_CLASS_LABELS[r * 13 + c]
            p = g[r, c]
            mixed = PURE_TOL < p < 1 - PURE_TOL
            txt = f"{label}\n{100 * p:.0f}%" if mixed else label
            ax.text(c, r, txt, ha="center", va="center", fontsize=5.5 if mixed else 6.5,
                    color="white" if p > 0.6 else "black")
            if mixed:
                ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="crimson", lw=1.5))
    _grid_axes(ax)
    who = "SB push" if player == 0 else "BB call"
    ax.set_title(f"{who} at {float(stack):g} bb ({100 * _range_share(g):.1f}% of hands; red: mixed)", fontsize=9)
    return ax


def _range_share(grid: np.ndarray) -> float:
    from hunl.poker.cards import CLASS_SIZES

    return float((grid.ravel() * CLASS_SIZES).sum() / CLASS_SIZES.sum())


def plot_threshold_grid(sweep: StackSweep, player: int = 0, ax=None, cap: float | None = None):
    """Heatmap of each hand's threshold stack (numbers printed, ``*`` for a gap). Returns the axes.

    Each cell shows the hand class and its threshold (:func:`hand_thresholds`): ``"<top>+"`` for a hand played
    at every stack of the sweep, ``"-"`` for one never played (coloured as 0), the largest stack played
    otherwise (coloured at most ``top``).

    Parameters
    ----------
    sweep : StackSweep
    player : int, default 0
        0 for the SB's pushes, 1 for the BB's calls.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new 6 x 5.6 inch figure.
    cap : float, optional
        Top of the colour scale in bb (``top``; thresholds above it get its colour); default the sweep's
        largest stack.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (a colour bar in bb beside them).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 5.6))
    th = hand_thresholds(sweep, player)
    top = float(sweep.stacks[-1]) if cap is None else float(cap)
    vals = np.array([top if t.always else (0.0 if t.threshold is None else min(t.threshold, top)) for t in th])
    im = ax.imshow(vals.reshape(13, 13), cmap="viridis", vmin=0, vmax=top)
    for h, t in enumerate(th):
        r, c = divmod(h, 13)
        ax.text(c, r, f"{HAND_CLASS_LABELS[h]}\n{_threshold_text(t, top)}", ha="center", va="center",
                fontsize=5, color="white" if vals[h] < 0.6 * top else "black")
    _grid_axes(ax)
    ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="threshold stack (bb)")
    who = "SB push" if player == 0 else "BB call"
    ax.set_title(f"{who} thresholds: largest stack played (* gap)", fontsize=9)
    return ax


def plot_thresholds(sweep: StackSweep, player: int = 0, ax=None):
    """Each hand's equilibrium probability against the stack: one row per hand class, hands ordered by threshold
    (widest-played on top), so the threshold of a hand is where its row stops; gaps show as breaks and mixed
    stacks in intermediate colours. Returns the axes.

    Parameters
    ----------
    sweep : StackSweep
    player : int, default 0
        0 for the SB's pushes (green), 1 for the BB's calls (orange).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new 7 x 9 inch figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: stack (bb) on the x axis, the 169 hand classes on the y axis (``*`` marks a gap).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 9))
    probs = _probs(sweep, player)
    th = hand_thresholds(sweep, player)
    key = np.array([(probs[:, h] >= PLAY_AT).sum() + 1e-3 * probs[:, h].sum() for h in range(NUM_CLASSES)])
    order = np.argsort(-key, kind="stable")
    s = sweep.stacks
    step = float(np.median(np.diff(s))) if s.size > 1 else 1.0
    ax.imshow(probs[:, order].T, aspect="auto", interpolation="nearest", cmap="Greens" if player == 0 else "Oranges",
              vmin=0, vmax=1, extent=(s[0] - step / 2, s[-1] + step / 2, NUM_CLASSES - 0.5, -0.5))
    labels = [HAND_CLASS_LABELS[h] + ("*" if th[h].gap else "") for h in order]
    ax.set_yticks(range(NUM_CLASSES), labels, fontsize=3.2)
    ax.set_xlabel("effective stack (bb)")
    who = "SB push" if player == 0 else "BB call"
    ax.set_title(f"{who} probability by hand and stack (* gap)", fontsize=9)
    return ax

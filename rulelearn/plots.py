"""Plots: error against tree depth, and strategies as heatmaps (hand x action)."""

from __future__ import annotations

import numpy as np

__all__ = ["plot_depth_curve", "plot_strategies"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_depth_curve(curve, path, title: str = "") -> None:
    """Save test EMD and mean exploitability against tree depth, one line per representation (PNG).

    Parameters
    ----------
    curve : pandas.DataFrame
        Columns ``representation``, ``depth``, ``emd``, ``exploitability`` (chips), as from
        :func:`rulelearn.experiment.depth_curve`.
    path : str or os.PathLike
    title : str, optional
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for rep, df in curve.groupby("representation", sort=False):
        axes[0].plot(df["depth"], df["emd"], marker="o", ms=3, label=rep)
        axes[1].plot(df["depth"], df["exploitability"], marker="o", ms=3, label=rep)
    axes[0].set_ylabel("test EMD to equilibrium (Algorithm 2)")
    axes[1].set_ylabel("mean exploitability on test games (chips)")
    for ax in axes:
        ax.set_xlabel("tree depth")
        ax.grid(alpha=0.3)
    axes[1].legend(title="representation", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_strategies(strategies, path, titles=None, action_labels=None, hand_labels=None,
                    suptitle: str = "") -> None:
    """Save strategies as heatmaps: one panel per strategy, hands down, actions across, colour = probability.

    Parameters
    ----------
    strategies : array_like of float, shape ``(k, d, B)`` or ``(d, B)``
    path : str or os.PathLike
        PNG file.
    titles : sequence of str, optional
        One per panel.
    action_labels, hand_labels : sequence of str, optional
        Tick labels (every fifth action is labelled when there are many).
    suptitle : str, optional
    """
    s = np.asarray(strategies, dtype=np.float64)
    if s.ndim == 2:
        s = s[None]
    k, d, nb = s.shape
    plt = _pyplot()
    cols = min(k, 5)
    rows = int(np.ceil(k / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.9 * rows + 0.4), squeeze=False)
    for idx, ax in enumerate(axes.flat):
        if idx >= k:
            ax.axis("off")
            continue
        im = ax.imshow(s[idx], aspect="auto", cmap="viridis", vmin=0, vmax=1, origin="lower",
                       interpolation="nearest")
        if titles is not None:
            ax.set_title(titles[idx], fontsize=9)
        step = 5 if nb > 12 else 1
        ax.set_xticks(range(0, nb, step))
        if action_labels is not None:
            ax.set_xticklabels([action_labels[j] for j in range(0, nb, step)], rotation=60, fontsize=7)
        ax.set_yticks(range(d))
        ax.set_yticklabels(hand_labels if hand_labels is not None else [str(j + 1) for j in range(d)], fontsize=7)
        if idx % cols == 0:
            ax.set_ylabel("card")
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability")
    if suptitle:
        fig.suptitle(suptitle, y=1.03)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)

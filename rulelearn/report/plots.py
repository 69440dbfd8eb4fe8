"""Plots: error against tree depth, and strategies as heatmaps (hand x action)."""

from __future__ import annotations

import textwrap

import numpy as np

__all__ = [
    "plot_convergence",
    "plot_depth_curve",
    "plot_exploitability_depth",
    "plot_frontier",
    "plot_kmedoids",
    "plot_knn_fraction",
    "plot_knn_learning_curve",
    "plot_medoid_tree",
    "plot_strategies",
    "plot_tree_nodes",
    "plot_tree_sweep",
]

#: Axis labels with units, shared by the reproduction figures.
EMD_LABEL = "mean test EMD to equilibrium (Algorithm 2, 0-1)"
EXPL_LABEL = "mean exploitability on test games (chips, pot = 1)"


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
        :func:`rulelearn.experiments.demo.depth_curve`.
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
                    suptitle: str = "", hand_noun: str = "hand") -> None:
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
    hand_noun : str, default "hand"
        Label of the hand axis (a family's :func:`~rulelearn.family.hand_noun`).
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
        ax.set_yticklabels(hand_labels if hand_labels is not None else [str(j + 1) for j in range(d)],
                           fontsize=7)
        if idx % cols == 0:
            ax.set_ylabel(hand_noun)
    fig.colorbar(im, ax=axes, shrink=0.8, label="probability")
    if suptitle:
        fig.suptitle(suptitle, y=1.03)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _series_label(number, name) -> str:
    return f"{int(number)}: {name}"


def _style(k: int) -> dict:
    """Colour and line style of the ``k``-th series: ten colours, then dashed."""
    import matplotlib

    cmap = matplotlib.colormaps["tab10"]
    return {"color": cmap(k % 10), "linestyle": "-" if k < 10 else "--"}


def _save(fig, path, plt, dpi: int = 100) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def _by_representation(sweep):
    for k, ((number, name), df) in enumerate(sweep.groupby(["number", "representation"], sort=True)):
        style = _style(k) if number <= 6 else {**_style(k), "linestyle": "--"}
        yield _series_label(number, name), df.sort_values("depth"), style


def plot_tree_sweep(sweep, path, title: str = "") -> None:
    """Test EMD and tree size against depth, one line per representation (*Games* 8(4), Figure 4a).

    Parameters
    ----------
    sweep : pandas.DataFrame
        From :func:`rulelearn.experiments.trees.tree_sweep` (``number``, ``representation``, ``depth``, ``nodes``,
        ``emd``).
    path : str or os.PathLike
        PNG file.
    title : str, optional
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for label, df, style in _by_representation(sweep):
        axes[0].plot(df["depth"], df["emd"], marker="o", ms=2.5, label=label, **style)
        axes[1].plot(df["depth"], df["nodes"], marker="o", ms=2.5, label=label, **style)
    axes[0].set_ylabel(EMD_LABEL)
    axes[1].set_ylabel("nodes in the tree")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("maximum tree depth")
        ax.grid(alpha=0.3)
    axes[0].legend(title="representation", fontsize=7, ncol=2)
    if title:
        fig.suptitle(title)
    _save(fig, path, plt)


def plot_tree_nodes(sweep, path, title: str = "") -> None:
    """Test EMD against the number of tree nodes (log scale), one line per representation (Figure 4b).

    Parameters
    ----------
    sweep : pandas.DataFrame
        From :func:`rulelearn.experiments.trees.tree_sweep`.
    path : str or os.PathLike
    title : str, optional
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, df, style in _by_representation(sweep):
        ax.plot(df["nodes"], df["emd"], marker="o", ms=2.5, label=label, **style)
    ax.set_xscale("log")
    ax.set_xlabel("nodes in the tree (log scale)")
    ax.set_ylabel(EMD_LABEL)
    ax.grid(alpha=0.3, which="both")
    ax.legend(title="representation", fontsize=7, ncol=2)
    if title:
        ax.set_title(title, fontsize=10)
    _save(fig, path, plt)


def plot_exploitability_depth(sweep, path, title: str = "") -> None:
    """Mean exploitability against depth, one line per representation (*Games* 8(4), Figure 6a).

    Parameters
    ----------
    sweep : pandas.DataFrame
        From :func:`rulelearn.experiments.trees.tree_sweep` (``exploitability`` in chips).
    path : str or os.PathLike
    title : str, optional
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, df, style in _by_representation(sweep):
        ax.plot(df["depth"], df["exploitability"], marker="o", ms=2.5, label=label, **style)
    ax.set_xlabel("maximum tree depth")
    ax.set_ylabel(EXPL_LABEL)
    ax.grid(alpha=0.3)
    ax.legend(title="representation", fontsize=7, ncol=2)
    if title:
        ax.set_title(title, fontsize=10)
    _save(fig, path, plt)


def _band(ax, df, x, y, label, style):
    g = df.groupby(x)[y]
    mean, lo, hi = g.mean(), g.min(), g.max()
    ax.plot(mean.index, mean.values, marker="o", ms=3, label=label, **style)
    ax.fill_between(mean.index, lo.values, hi.values, alpha=0.15, color=style["color"], linewidth=0)


def plot_knn_fraction(curve, path, title: str = "", hand_noun: str = "hand") -> None:
    """1-NN test EMD and exploitability against the training fraction (AAAI-W Figures 8-11).

    Lines are the means over the repeats, bands their range (min to max).

    Parameters
    ----------
    curve : pandas.DataFrame
        From :func:`rulelearn.experiments.neighbours.knn_fraction_curve`.
    path : str or os.PathLike
    title : str, optional
    hand_noun : str, default "hand"
        What the per-hand variants predict for (a family's :func:`~rulelearn.family.hand_noun`).
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for k, (variant, df) in enumerate(curve.groupby("variant", sort=False)):
        whole = df["outputs"].iloc[0] == "whole"
        out = f"{'whole game' if whole else f'per {hand_noun}'}, {int(df['n_outputs'].iloc[0])} outputs"
        style = _style(k)
        _band(axes[0], df, "train_fraction", "emd", f"{variant} ({out})", style)
        _band(axes[1], df, "train_fraction", "exploitability", f"{variant} ({out})", style)
    axes[0].set_ylabel(EMD_LABEL)
    axes[1].set_ylabel(EXPL_LABEL)
    for ax in axes:
        ax.set_xlabel("share of the games used for training (rest: test)")
        ax.grid(alpha=0.3)
    axes[0].legend(title="1-NN variant", fontsize=7)
    if title:
        fig.suptitle(title)
    _save(fig, path, plt)


def plot_knn_learning_curve(curve, path, title: str = "") -> None:
    """1-NN test EMD and exploitability against the number of memorised games (log scale).

    Parameters
    ----------
    curve : pandas.DataFrame
        From :func:`rulelearn.experiments.neighbours.knn_learning_curve`.
    path : str or os.PathLike
    title : str, optional
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for k, (variant, df) in enumerate(curve.groupby("variant", sort=False)):
        df = df.sort_values("n_train")
        for ax, y in zip(axes, ("emd", "exploitability")):
            ax.plot(df["n_train"], df[y], marker="o", ms=3, label=f"1-NN, {variant} distance", **_style(k))
    axes[0].set_ylabel(EMD_LABEL)
    axes[1].set_ylabel(EXPL_LABEL)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("training games memorised (log scale)")
        ax.grid(alpha=0.3, which="both")
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    _save(fig, path, plt)


def plot_kmedoids(paper_scale, full_scale, path, title: str = "") -> None:
    """k-medoids test EMD and exploitability against the number of clusters (AAAI-W Figures 14-15).

    Parameters
    ----------
    paper_scale : pandas.DataFrame
        From :func:`rulelearn.experiments.neighbours.kmedoids_paper_scale`: means with min-max error bars over repeats.
    full_scale : pandas.DataFrame or None
        From :func:`rulelearn.experiments.neighbours.kmedoids_errors` on the full database: plotted as lines.
    path : str or os.PathLike
    title : str, optional
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.3))
    for k, (features, df) in enumerate(paper_scale.groupby("features", sort=False)):
        style = _style(k)
        for ax, y in zip(axes, ("emd", "exploitability")):
            g = df.groupby("k")[y]
            mean = g.mean()
            err = np.vstack([mean - g.min(), g.max() - mean])
            n_train = int(df["n_train"].iloc[0])
            ax.errorbar(mean.index + (k - 0.5) * 0.3, mean.values, yerr=err, fmt="o", capsize=3,
                        color=style["color"], label=f"{features} distance, {n_train} training games "
                                                    f"({df['repeat'].nunique()} repeats)")
        if full_scale is not None:
            big = full_scale[full_scale["features"] == features].sort_values("k")
            for ax, y in zip(axes, ("emd", "exploitability")):
                ax.plot(big["k"], big[y], marker="s", ms=4, label=f"{features} distance, "
                        f"{int(big['n_train'].iloc[0])} training games", **style)
    axes[0].set_ylabel(EMD_LABEL)
    axes[1].set_ylabel(EXPL_LABEL)
    for ax in axes:
        ax.set_xlabel("number of clusters k (medoids memorised)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title)
    _save(fig, path, plt)


def plot_medoid_tree(result, path, title: str = "") -> None:
    """The classification tree on the cluster medoids (AAAI-W Figure 16): splits, and each leaf's medoid.

    Parameters
    ----------
    result : rulelearn.experiments.neighbours.MedoidTreeResult
    path : str or os.PathLike
    title : str, optional
    """
    from sklearn.tree import plot_tree

    plt = _pyplot()
    c2t = result.model.learner_
    fig, ax = plt.subplots(figsize=(9, 1.6 + 1.1 * (result.depth + 1)))
    plot_tree(c2t.tree_, ax=ax, feature_names=list(result.model.feature_names_),
              class_names=[f"medoid {k + 1}" for k in range(len(c2t.kmedoids_.medoid_indices_))],
              impurity=False, filled=True, rounded=True, fontsize=8, proportion=False)
    if title:
        ax.set_title(title, fontsize=10)
    _save(fig, path, plt)


def plot_frontier(summary, path, methods, leaf_kinds) -> None:
    """Rule sets: size against held-out exploitability, one panel per leaf kind (mean over splits, min-max band).

    Parameters
    ----------
    summary : pandas.DataFrame
        From :func:`rulelearn.experiments.frontier.summarise_frontier`.
    path : str or os.PathLike
        PNG file (its folder is created).
    methods, leaf_kinds : sequence of str
        The frontier's methods (lines) and leaf kinds (panels), in order.
    """
    from pathlib import Path

    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), sharey=True)
    styles = {"k-medoids": ("tab:gray", "o"), "CART tree": ("tab:blue", "s"), "exploitability tree": ("tab:red", "^")}
    for ax, kind in zip(axes, leaf_kinds):
        for method in methods:
            r = summary[(summary.method == method) & (summary.leaf_kind == kind)].sort_values("n_leaves")
            color, marker = styles[method]
            ax.plot(r.n_leaves, r["mean"], marker=marker, color=color, label=method, ms=4)
            ax.fill_between(r.n_leaves, r["min"], r["max"], color=color, alpha=0.15, lw=0)
        ax.set_title({"medoid": "medoid strategy per leaf / cluster", "mean": "mean strategy per leaf / cluster",
                      "optimal": "LP-optimal strategy per leaf / cluster"}[kind])
        ax.set_xlabel("leaves (clusters for k-medoids)")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=0)
    axes[0].set_ylabel("held-out mean exploitability (chips; pot = 1)")
    axes[0].legend()
    fig.suptitle("Rule sets: size against exploitability (mean over train/test splits, band: min-max)")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def plot_convergence(iterations, seconds, exploitability, path, title: str = "") -> None:
    """Exploitability (NashConv / 2, chips) against iterations and against seconds, log scales (PNG).

    Two panels side by side, both axes logarithmic (non-positive values are not drawn).

    Parameters
    ----------
    iterations : array_like of int, shape ``(L,)``
        Iterations at which the exploitability was measured, as ``log_iterations`` of
        :class:`games.core.cfr.CFRResult`.
    seconds : array_like of float, shape ``(L,)``
        Solve time at those points (seconds).
    exploitability : array_like of float, shape ``(L,)``
        Exploitability there (NashConv / 2, chips).
    path : str or os.PathLike
        PNG file (its folder must exist).
    title : str, optional
        Title over both panels.

    Raises
    ------
    ValueError
        If ``iterations`` or ``seconds`` does not have the length of ``exploitability``.
    FileNotFoundError
        If the folder of ``path`` does not exist.
    """
    from matplotlib.ticker import LogLocator

    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].loglog(iterations, exploitability)
    axes[0].set_xlabel("iterations")
    axes[1].loglog(seconds, exploitability)
    axes[1].set_xlabel("seconds")
    for ax in axes:
        ax.set_ylabel("exploitability (NashConv / 2, chips)")
        ax.grid(True, which="both", alpha=0.3)
        ax.xaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # a few labelled minor ticks that do not collide
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_card_frontier(curves, path, title: str = "", ylabel: str = "held-out mean exploitability",
                       references=(), points=()) -> None:
    """Rule cards: total conditions on the card against held-out exploitability, one line per learner.

    Parameters
    ----------
    curves : dict
        ``{label: (conditions, exploitability)}``: sequences of equal length (means over splits).
    path : str or os.PathLike
        PNG file (its folder is created).
    title, ylabel : str
    references : sequence of (label, value)
        Horizontal lines (baselines, rule sets without conditions).
    points : sequence of (label, conditions, exploitability)
        Single marked points (e.g. the papers' rule sets).
    """
    from pathlib import Path

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 6))
    markers = "os^vD<>pxh"
    for k, (label, (x, y)) in enumerate(curves.items()):
        ax.plot(x, y, marker=markers[k % len(markers)], ms=4, label=label)
    colors = ["tab:gray", "tab:brown", "tab:purple", "tab:olive"]
    for k, (label, v) in enumerate(references):
        ax.axhline(v, ls="--", color=colors[k % len(colors)], label=label)
    for k, (label, x, y) in enumerate(points):
        ax.plot([x], [y], marker="*", ms=12, ls="none", color=colors[(k + 1) % len(colors)], label=label, zorder=5)
    ax.set_xlabel("conditions on the card (bounds, over all rules)")
    ax.set_ylabel(ylabel)
    ax.set_title("\n".join(textwrap.wrap(title, 80)))   # long card titles on two lines
    ax.grid(alpha=0.3, which="both")
    # below the axes: inside, it hid the papers' point
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1, frameon=False)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)

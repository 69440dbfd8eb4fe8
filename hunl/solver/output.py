"""Write a solved HUNL endgame to disk: strategy tables (Parquet and JSON), the summary, a hand-grid heatmap.

Files (``write_outputs``):

``strategy.parquet``
    Long format, one row per (decision node, combo of the acting player's range, action), rows ordered by
    node, then combo, then action. Columns: ``node`` (int32, public node id), ``history`` (public action
    history, ``"check/bet 250"``; ``""`` at the root), ``street`` (``"flop"``/``"turn"``/``"river"``),
    ``player`` (int8; 0 = out of position, first to act; 1 = in position), ``combo`` (``"AsKh"``), ``hand_class`` (``"AKo"``),
    ``action`` (``"check"``, ``"bet 250"``, ``"raise to 1500"``, ``"all-in"``, ``"call"``, ``"fold"``),
    ``action_index`` (int8, the action's position at its node), ``probability`` (float32), ``ev`` (float32,
    chips: the EV of taking the action with the combo at the node, :func:`hunl.solver.report.action_ev`),
    ``hand_ev`` (float32, chips: the EV of the combo at the node, the same on each of its action rows) and
    ``equity`` (float32: the combo's all-in equity against the opponent's range at the node, on the nodes of the
    endgame's starting street only -- NaN on later streets and on flop endgames). ``ev`` and ``hand_ev`` are NaN
    where the opponent cannot hold a hand there (definitions in :mod:`hunl.solver.report`). Text columns are
    dictionary encoded (pandas categoricals). Every decision node is present; on a turn endgame a river node
    omits the combos that hold its river card (they cannot be dealt there).
``strategy.json``
    ``{"board", "pot", "stack", "street", "players", "nodes_written", "nodes": [...]}``; each node is
    ``{"node", "history", "street", "player", "pot", "to_call", "actions", "strategy": {combo: [p, ...]}}``
    with probabilities rounded to 4 decimals, actions in the order of ``"actions"``, plus ``"ev": {combo: [ev,
    ...]}`` (chips per action, 3 decimals), ``"hand_ev": {combo: ev}`` and, on the starting street's nodes,
    ``"equity": {combo: equity}`` (``null`` where undefined). A turn endgame has tens
    of thousands of river nodes (a flop endgame far more), so only the nodes of the endgame's starting street are
    written unless ``full_json=True`` (``--full-json``); the Parquet table always holds every node.
``summary.json``
    :meth:`hunl.solver.solve.EndgameSolution.summary` (exploitability in chips, % pot, bb/hand, mbb/g; pot;
    iterations; seconds of the solve and, apart, ``compile_seconds`` of numba's kernels; memory; convergence log), plus the spot's description under ``"spot"`` when given.
``first_decision.png``
    The root decision on the 13x13 hand grid (rows/columns A..2, suited hands above the diagonal, offsuit
    below, pairs on it), one panel per action: the range-weighted frequency of the action in each cell (0..1,
    one colour bar); cells with no combo in the acting player's range are grey. Figure 4 of Bowling et al.,
    *Heads-up limit hold'em poker is solved* (Science 2015) shows the same grid for preflop actions.
``first_decision_ev.png``
    The same grid for the root's acting player: the EV (chips) and the equity of each cell, range-weighted means
    over its combos (:func:`first_decision_ev_figure`; no equity panel on flop endgames).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.core.tree import DECISION
from hunl.poker.cards import COMBO_LABELS, HAND_CLASS, HAND_CLASS_LABELS, RANKS, format_cards, grid_average
from hunl.solver.report import action_ev
from hunl.solver.tree import STREETS

__all__ = [
    "SpotOutputs",
    "first_decision_ev_figure",
    "first_decision_figure",
    "save_png",
    "strategy_frame",
    "strategy_table",
    "write_outputs",
    "write_strategy_json",
    "write_strategy_parquet",
    "write_summary",
]

#: Rows per Parquet row group (and per batch built in memory).
ROWS_PER_GROUP = 2_000_000
_STREET_NAMES = ("flop", "turn", "river")  # street_code 0, 1, 2 (board cards - 3)


@dataclass(frozen=True)
class SpotOutputs:
    """Paths of the files :func:`write_outputs` wrote (``figure`` and ``figure_ev`` are None with
    ``plot=False``)."""

    directory: Path
    parquet: Path
    json: Path
    summary: Path
    figure: Path | None
    figure_ev: Path | None = None

    def as_dict(self) -> dict:
        """``{"directory": str, "parquet": str, ...}``."""
        return {k: (None if v is None else str(v)) for k, v in self.__dict__.items()}


# ---------------------------------------------------------------------- the long table
class _Layout:
    """Per-node row counts of the long table, vectorised over all decision nodes."""

    def __init__(self, game, probs=None):
        t = game.tree
        self.game = game
        self.probs = probs                                                # (N, Hm) edge-layout policy
        self.nodes = np.flatnonzero(t.kind == DECISION)
        self.player = t.player[self.nodes].astype(np.int64)
        self.n_actions = t.num_children[self.nodes].astype(np.int64)
        self.first_child = t.child_start[self.nodes].astype(np.int64)
        self.board = t.board[self.nodes].astype(np.int64)
        hm = game.max_hands
        self.combos = np.zeros((2, hm), dtype=np.int64)
        # possible[p, b, h]: hand h of player p can be dealt on board b (False on the padding h >= H_p)
        self.possible = np.zeros((2, len(game.boards), hm), dtype=bool)
        for p in (0, 1):
            h = game.num_hands[p]
            self.combos[p, :h] = game.combos[p]
            self.possible[p, :, :h] = game.hand_possible(p)
        live_hands = self.possible.sum(axis=2)                            # (2, B)
        self.rows = live_hands[self.player, self.board] * self.n_actions
        street = game.betting.street[self.nodes]
        self.street_code = (street - 3).astype(np.int8)                   # 0 flop, 1 turn, 2 river

    def batches(self, node_mask=None, rows_per_batch: int = ROWS_PER_GROUP):
        """Yield column arrays of whole nodes, each batch at most ``rows_per_batch`` rows plus one node's."""
        sel = np.arange(self.nodes.size) if node_mask is None else np.flatnonzero(node_mask)
        if sel.size == 0:
            return
        rows = self.rows[sel]
        block = (np.cumsum(rows) - rows) // max(1, int(rows_per_batch))  # block of each node's first row
        bounds = np.concatenate(([0], np.flatnonzero(np.diff(block)) + 1, [sel.size]))
        for a, b in itertools.pairwise(bounds):
            yield self._columns(sel[a:b])

    def _columns(self, idx: np.ndarray) -> dict:
        """Rows of the nodes ``self.nodes[idx]``: per node, per live hand (increasing), per action."""
        p, b, k = self.player[idx], self.board[idx], self.n_actions[idx]
        full = self.game.max_hands * k                                    # every (hand, action), then filter
        node_local = np.repeat(np.arange(idx.size), full)
        r = np.arange(full.sum()) - np.repeat(np.cumsum(full) - full, full)
        kk = k[node_local]
        hand, action = r // kk, r % kk
        keep = self.possible[p[node_local], b[node_local], hand]
        node_local, hand, action = node_local[keep], hand[keep], action[keep]
        child = self.first_child[idx][node_local] + action
        return {
            "node_pos": idx[node_local],
            "combo": self.combos[p[node_local], hand],
            "hand": hand,
            "action_index": action,
            "child": child,
            "probability": self.probs[child, hand].astype(np.float32),
        }


def _dictionary(indices: np.ndarray, values):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(indices.astype(np.int32)),
                                          pa.array(list(values), pa.string()))


def _start_street_nodes(lay: _Layout) -> np.ndarray:
    """Positions (in ``lay.nodes``) of the decision nodes on the endgame's starting street: the nodes whose
    ``hand_ev`` and ``equity`` the files hold."""
    street = lay.game.betting.street[lay.nodes]
    return np.flatnonzero(street == len(lay.game.board))


def _node_figures(solution, lay: _Layout) -> tuple:
    """``(ev, eq_row, equity)``: the action EV per edge (``(N, Hm)``, :func:`hunl.solver.report.action_ev`), and
    for the starting-street decision nodes (row ``eq_row[pos]`` of ``equity``, -1 for other nodes) the equity
    of each acting hand (NaN on flop endgames)."""
    from hunl.solver.report import hand_equity, node_reach

    game = solution.game
    ev = action_ev(solution)
    pos = _start_street_nodes(lay)
    eq_row = np.full(lay.nodes.size, -1, dtype=np.int64)
    eq_row[pos] = np.arange(pos.size)
    equity = np.full((pos.size, game.max_hands), np.nan)
    if len(game.board) >= 4:
        for k, i in enumerate(pos):
            n = int(lay.nodes[i])
            p = int(lay.player[i])
            o = 1 - p
            ho = game.num_hands[o]
            opp = game.prior[o, :ho] * node_reach(solution, n)[o, :ho]
            equity[k, :game.num_hands[p]] = hand_equity(game, n, p, opp)
    return ev, eq_row, equity


def _hand_ev_rows(cols: dict, ev_rows: np.ndarray) -> np.ndarray:
    """Per row, the EV of the row's hand at its node: ``sum_a probability * ev`` over the node's actions (the
    rows of one (node, hand) are consecutive, action 0 first)."""
    starts = np.flatnonzero(cols["action_index"] == 0)
    sums = np.add.reduceat(cols["probability"].astype(np.float64) * ev_rows, starts)
    return np.repeat(sums, np.diff(np.append(starts, ev_rows.size)))


def _arrow_batches(solution, node_mask=None, rows_per_batch: int = ROWS_PER_GROUP):
    import pyarrow as pa

    game = solution.game
    t = game.tree
    lay = _Layout(game, solution.result.policy.probs)
    ev, eq_row, equity = _node_figures(solution, lay)
    histories = [t.history[n] for n in lay.nodes]
    action_labels = sorted({t.action[c] for n in lay.nodes for c in t.children(int(n))})
    action_code = {a: i for i, a in enumerate(action_labels)}
    child_action = np.full(t.n_nodes, -1, dtype=np.int32)
    for n in lay.nodes:
        for c in t.children(int(n)):
            child_action[c] = action_code[t.action[c]]
    for cols in lay.batches(node_mask, rows_per_batch):
        pos = cols["node_pos"]
        ev_rows = ev[cols["child"], cols["hand"]]
        hand_ev = _hand_ev_rows(cols, ev_rows)
        row = eq_row[pos]
        eq = np.where(row >= 0, equity[np.maximum(row, 0), cols["hand"]], np.nan)
        yield pa.record_batch({
            "node": pa.array(lay.nodes[pos].astype(np.int32)),
            "history": _dictionary(pos, histories),
            "street": _dictionary(lay.street_code[pos], _STREET_NAMES),
            "player": pa.array(lay.player[pos].astype(np.int8)),
            "combo": _dictionary(cols["combo"], COMBO_LABELS),
            "hand_class": _dictionary(HAND_CLASS[cols["combo"]], HAND_CLASS_LABELS),
            "action": _dictionary(child_action[cols["child"]], action_labels),
            "action_index": pa.array(cols["action_index"].astype(np.int8)),
            "probability": pa.array(cols["probability"]),
            "ev": pa.array(ev_rows.astype(np.float32)),
            "hand_ev": pa.array(hand_ev.astype(np.float32)),
            "equity": pa.array(eq.astype(np.float32)),
        })


def strategy_table(solution, nodes=None):
    """The strategy as one long :class:`pyarrow.Table` (see the module docstring for the columns).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    nodes : array_like of int, optional
        Decision node ids to include (default: all).

    Returns
    -------
    pyarrow.Table
        ``sum over decision nodes of (live combos of the acting player) x (actions)`` rows.

    Raises
    ------
    ValueError
        If ``nodes`` holds an id that is not a decision node.
    """
    import pyarrow as pa

    mask = _node_mask(solution.game, nodes)
    batches = list(_arrow_batches(solution, mask))
    if not batches:
        raise ValueError("no decision node selected")
    return pa.Table.from_batches(batches)


def strategy_frame(solution, nodes=None):
    """:func:`strategy_table` as a :class:`pandas.DataFrame` (text columns categorical).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    nodes : array_like of int, optional
        Decision node ids to include (default: all).

    Returns
    -------
    pandas.DataFrame
        One row per (decision node, live combo of the acting player, action), ordered by node, combo, action;
        the columns of the module docstring: ``node`` (int32), ``history``, ``street``, ``combo``,
        ``hand_class`` and ``action`` (categorical), ``player`` and ``action_index`` (int8), ``probability``,
        ``ev`` and ``hand_ev`` (float32, chips) and ``equity`` (float32; NaN off the starting street and on
        flop endgames).

    Raises
    ------
    ValueError
        If ``nodes`` holds an id that is not a decision node, or selects no node.
    """
    return strategy_table(solution, nodes).to_pandas()


def _node_mask(game, nodes):
    if nodes is None:
        return None
    t = game.tree
    dec = np.flatnonzero(t.kind == DECISION)
    ids = np.asarray(nodes, dtype=np.int64).ravel()
    bad = ids[~np.isin(ids, dec)]
    if bad.size:
        raise ValueError(f"nodes: {int(bad[0])} is not a decision node")
    return np.isin(dec, ids)


def write_strategy_parquet(solution, path, rows_per_group: int = ROWS_PER_GROUP) -> Path:
    """Write :func:`strategy_table` to Parquet, a row group at a time (bounded memory on turn endgames).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    path : path-like
        The file to write (zstd-compressed; replaced if it exists). Every decision node is written; the
        columns are those of the module docstring (``probability``; ``ev`` and ``hand_ev`` in chips;
        ``equity``).
    rows_per_group : int, default :data:`ROWS_PER_GROUP`
        Rows per batch built in memory and written at once (whole nodes: a batch holds the nodes whose first
        row falls in one block of ``rows_per_group`` rows, so it may exceed it by up to one node's rows).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    import pyarrow.parquet as pq

    path = Path(path)
    writer = None
    try:
        for batch in _arrow_batches(solution, None, rows_per_group):
            if writer is None:
                writer = pq.ParquetWriter(path, batch.schema, compression="zstd")
            writer.write_batch(batch)
    finally:
        if writer is not None:
            writer.close()
    return path


# ---------------------------------------------------------------------- JSON
def _rounded(x: np.ndarray, decimals: int) -> list:
    """Rounded values as a (nested) list with NaN as ``None`` (strict JSON has no NaN)."""
    r = np.round(x, decimals).astype(object)
    r[~np.isfinite(x)] = None
    return r.tolist()


def _node_json(game, lay: _Layout, i: int, probs: np.ndarray, figures: tuple) -> dict:
    t, bet = game.tree, game.betting
    n = int(lay.nodes[i])
    p = int(lay.player[i])
    kids = t.children(n)
    h = game.num_hands[p]
    live = lay.possible[p, lay.board[i], :h]
    block = np.round(probs[kids.start:kids.stop, :h].T[live], 4)          # (live hands, actions)
    labels = [COMBO_LABELS[k] for k in game.combos[p][live]]
    ev, eq_row, equity = figures
    ev_block = ev[kids.start:kids.stop, :h].T[live]                       # (live hands, actions)
    hand_ev = (probs[kids.start:kids.stop, :h].T[live] * ev_block).sum(axis=1)
    extra = {"ev": dict(zip(labels, _rounded(ev_block, 3))), "hand_ev": dict(zip(labels, _rounded(hand_ev, 3)))}
    if eq_row[i] >= 0:
        extra["equity"] = dict(zip(labels, _rounded(equity[eq_row[i], :h][live], 4)))
    return {
        "node": n,
        "history": t.history[n],
        "street": _STREET_NAMES[int(lay.street_code[i])],
        "player": p,
        "pot": float(bet.pot[n]),
        "to_call": float(bet.to_call[n]),
        "actions": [t.action[c] for c in kids],
        "strategy": dict(zip(labels, block.tolist())),
        **extra,
    }


def write_strategy_json(solution, path, full: bool = False) -> Path:
    """Write the per-node strategy as JSON (streamed node by node).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    path : path-like
    full : bool, default False
        On a turn or flop endgame, also write the nodes of the later streets (tens of thousands of nodes,
        hundreds of MB); by default only the starting street's nodes. River endgames are always written in full.

    Returns
    -------
    pathlib.Path
    """
    game = solution.game
    lay = _Layout(game)
    first = STREETS[game.config.street] - 3                               # street_code of the starting street
    start_only = game.config.street != "river" and not full
    sel = np.flatnonzero(lay.street_code == first) if start_only else np.arange(lay.nodes.size)
    probs = solution.result.policy.probs
    figures = _node_figures(solution, lay)
    head = {
        "board": format_cards(game.board),
        "street": game.config.street,
        "pot": game.pot,
        "stack": game.config.stack,
        "players": ["oop", "ip"],
        "nodes_written": (f"{game.config.street} street only (use --full-json for every node)" if start_only
                          else "all"),
        "probabilities": "per combo, in the order of 'actions', rounded to 4 decimals",
        "ev": "per combo, the EV in chips of each action (order of 'actions'), rounded to 3 decimals; null where "
              "the node cannot be reached with the combo",
        "hand_ev": "per combo, the EV of the hand at the node (chips), rounded to 3 decimals",
        "equity": "starting-street nodes only: per combo, the all-in equity against the opponent's range at the "
                  "node, rounded to 4 decimals (null on flop endgames)",
    }
    path = Path(path)
    with open(path, "w") as fh:
        fh.write(json.dumps(head)[:-1] + ', "nodes": [\n')
        for j, i in enumerate(sel):
            fh.write((",\n" if j else "") + json.dumps(_node_json(game, lay, int(i), probs, figures),
                                                        allow_nan=False))
        fh.write("\n]}\n")
    return path


def write_summary(solution, path, spot=None) -> Path:
    """Write :meth:`EndgameSolution.summary` (plus ``spot.info()`` under ``"spot"``) as JSON.

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    path : path-like
        The file to write (indented JSON; replaced if it exists).
    spot : hunl.solver.spot.Spot, optional
        Its :meth:`~hunl.solver.spot.Spot.info` is added under ``"spot"``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        Naming the file, if a figure is NaN or infinite (strict JSON has no such number; nothing is written).
    """
    out = solution.summary()
    if spot is not None:
        out["spot"] = spot.info()
    path = Path(path)
    try:
        text = json.dumps(out, indent=1, allow_nan=False)
    except ValueError:
        bad = [k for k, v in out.items() if isinstance(v, float) and not math.isfinite(v)]
        raise ValueError(f"{path}: not written: the summary holds non-finite figures {bad or ''}") from None
    path.write_text(text + "\n")
    return path


# ---------------------------------------------------------------------- the heatmap
def first_decision_figure(solution, title: str | None = None, ncols: int | None = None):
    """The root decision on the 13x13 hand grid, one panel per action (see the module docstring).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    title : str, optional
        Figure title (default: street, board, pot, stack, algorithm, iterations and exploitability).
    ncols : int, optional
        Panels per row (default: 2 for 4 actions, else up to 3).

    Returns
    -------
    matplotlib.figure.Figure
        Grid values: ``grid_average(node_strategy(root), weights=acting player's range)``, shape (13, 13, A).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    game = solution.game
    t = game.tree
    root = 0
    player = int(t.player[root])
    actions = [t.action[c] for c in t.children(root)]
    strat = solution.node_strategy(root)                                  # (1326, A), NaN off the range
    weights = game.weights[player]
    grid = grid_average(np.nan_to_num(strat), weights)                   # (13, 13, A)
    live = weights > 0
    overall = (weights[live] @ strat[live]) / weights[live].sum()         # (A,)
    n = len(actions)
    ncols = ncols or (2 if n == 4 else min(n, 3))
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.3 * ncols + 0.9, 4.5 * nrows + 0.9), squeeze=False)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#d9d9d9")
    norm = Normalize(0.0, 1.0)
    labels = np.array(HAND_CLASS_LABELS).reshape(13, 13)
    image = None
    for a, ax in enumerate(axes.ravel()):
        if a >= n:
            ax.set_axis_off()
            continue
        values = grid[:, :, a]
        image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, norm=norm)
        for (r, c), v in np.ndenumerate(values):
            dark = np.isfinite(v) and v < 0.6
            ax.text(c, r - 0.12, labels[r, c], ha="center", va="center", fontsize=6.2,
                    color="white" if dark else "black")
            if np.isfinite(v):
                ax.text(c, r + 0.27, f"{100 * v:.0f}", ha="center", va="center", fontsize=4.8,
                        color="white" if dark else "black")
        ticks = list(range(13))
        rank_labels = list(RANKS[::-1])
        ax.set_xticks(ticks, rank_labels, fontsize=7)
        ax.set_yticks(ticks, rank_labels, fontsize=7)
        ax.tick_params(length=0, labeltop=True, labelbottom=False)
        ax.set_xticks(np.arange(-0.5, 13), minor=True)
        ax.set_yticks(np.arange(-0.5, 13), minor=True)
        ax.grid(which="minor", color="white", linewidth=0.6)
        ax.tick_params(which="minor", length=0)
        ax.set_title(f"{actions[a]}  ({100 * overall[a]:.0f}% of the range)", fontsize=10)
    if title is None:
        who = "out-of-position player (first to act)" if player == 0 else "in-position player"
        title = (f"{game.config.street.capitalize()} {format_cards(game.board)}, pot {game.pot:g}, "
                 f"stack {game.config.stack:g}: first decision of the {who}\n"
                 f"{solution.algorithm.upper()}, {solution.iterations} iterations, exploitability "
                 f"{solution.exploitability_pct_pot:.3g}% of the pot "
                 f"({solution.exploitability_mbb:.4g} mbb/g)")
    fig.suptitle(title, fontsize=11)
    fig.text(0.5, 0.01, "cell: action frequency (%) averaged over the combos of the range, weighted by the "
             "range; suited above the diagonal, offsuit below; grey: not in the range",
             ha="center", fontsize=7.5)
    fig.tight_layout(rect=(0, 0.025, 0.92, 0.97), h_pad=1.5)
    cax = fig.add_axes((0.93, 0.2, 0.018, 0.6))
    fig.colorbar(image, cax=cax, label="action frequency")
    return fig


def first_decision_ev_figure(solution, title: str | None = None):
    """The root decision's EV and equity on the 13x13 hand grid: two panels, the acting player's EV of each
    cell (chips, range-weighted mean over its combos) and its all-in equity against the opponent's range
    (0..1; no equity panel on flop endgames). Values from :meth:`hunl.solver.solve.EndgameSolution.node_report`.

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    title : str, optional
        Figure title (default: street, board, pot, stack and the acting player).

    Returns
    -------
    matplotlib.figure.Figure
        One or two panels: the EV (chips; colour scale symmetric about 0), then the equity (printed in %)
        when the range equity at the root is finite. Each is the 13x13 grid of
        :func:`~hunl.poker.cards.grid_average` of the per-combo values, weighted by the node report's
        ``weight`` (range weight times reach); cells with no weight are grey.

    Raises
    ------
    ValueError
        If the root is not a decision node (from :meth:`~hunl.solver.solve.EndgameSolution.node_report`).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize, TwoSlopeNorm

    from hunl.poker.cards import COMBO_INDEX, parse_cards

    game = solution.game
    rep = solution.node_report(0)
    player = rep.player
    combos = np.array([COMBO_INDEX[tuple(parse_cards(c))] for c in rep.frame["combo"]], dtype=np.int64)
    panels = [("ev", "EV (chips)", rep.range_ev)]
    if np.isfinite(rep.range_equity):
        panels.append(("equity", "equity", rep.range_equity))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.4 * len(panels) + 0.4, 5.6), squeeze=False)
    labels = np.array(HAND_CLASS_LABELS).reshape(13, 13)
    for ax, (col, name, overall) in zip(axes.ravel(), panels):
        values = np.full(1326, np.nan)
        weights = np.zeros(1326)
        v = rep.frame[col].to_numpy(dtype=np.float64)
        ok = np.isfinite(v)
        values[combos[ok]] = v[ok]
        weights[combos[ok]] = rep.frame["weight"].to_numpy()[ok]
        grid = grid_average(np.nan_to_num(values), weights)
        if col == "equity":
            norm, cmap, fmt = Normalize(0.0, 1.0), "viridis", "{:.0f}"
            scale = 100.0
        else:
            finite = grid[np.isfinite(grid)]
            lim = float(np.abs(finite).max()) if finite.size else 1.0
            norm, cmap, fmt = TwoSlopeNorm(0.0, -lim or -1.0, lim or 1.0), "RdBu", "{:.0f}"
            scale = 1.0
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=matplotlib.colormaps[cmap].with_extremes(bad="#d9d9d9"),
                          norm=norm)
        for (r, c), x in np.ndenumerate(grid):
            dark = np.isfinite(x) and (x < 0.6 if col == "equity" else abs(norm(x) - 0.5) > 0.3)
            colour = "white" if dark else "black"
            ax.text(c, r - 0.12, labels[r, c], ha="center", va="center", fontsize=6.2, color=colour)
            if np.isfinite(x):
                ax.text(c, r + 0.27, fmt.format(scale * x), ha="center", va="center", fontsize=4.8, color=colour)
        ticks = list(range(13))
        rank_labels = list(RANKS[::-1])
        ax.set_xticks(ticks, rank_labels, fontsize=7)
        ax.set_yticks(ticks, rank_labels, fontsize=7)
        ax.tick_params(length=0, labeltop=True, labelbottom=False)
        unit = f"{100 * overall:.1f}%" if col == "equity" else f"{overall:.4g} chips"
        ax.set_title(f"{name}: range {unit}", fontsize=10)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    if title is None:
        who = "out-of-position player (first to act)" if player == 0 else "in-position player"
        title = (f"{game.config.street.capitalize()} {format_cards(game.board)}, pot {game.pot:g}, "
                 f"stack {game.config.stack:g}: EV and equity of the {who} at the first decision")
    fig.suptitle(title, fontsize=11)
    fig.text(0.5, 0.01, "cell: mean over the combos of the range (weighted by the range); EV in chips counts the "
             "chips put in before the endgame; equity in %; grey: not in the range", ha="center", fontsize=7.5)
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    return fig


def save_png(fig, path, dpi: int = 110, colors: int = 256) -> Path:
    """Save a figure as a palette PNG (``colors`` colours, adaptive palette): about a third of the size of
    matplotlib's RGBA output, with no visible loss on heatmaps and text.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to save.
    path : path-like
        The PNG file to write (replaced if it exists; its directory must exist).
    dpi : int, default 110
        Resolution, dots per inch.
    colors : int, default 256
        Size of the palette (median-cut quantisation), 1..256.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        If ``colors`` is not in 1..256 (from Pillow).
    """
    import io

    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    buf.seek(0)
    with Image.open(buf) as im:
        pal = im.convert("RGB").quantize(colors=int(colors), method=Image.Quantize.MEDIANCUT)
        path = Path(path)
        pal.save(path, format="PNG", optimize=True)
    return path


# ---------------------------------------------------------------------- all files
def write_outputs(solution, out_dir, spot=None, full_json: bool = False, plot: bool = True,
                  dpi: int = 110) -> SpotOutputs:
    """Write ``strategy.parquet``, ``strategy.json``, ``summary.json``, ``first_decision.png`` and
    ``first_decision_ev.png``.

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    out_dir : path-like
        Created if missing; files in it are overwritten.
    spot : hunl.solver.spot.Spot, optional
        Its description goes into ``summary.json``.
    full_json : bool, default False
        See :func:`write_strategy_json`.
    plot : bool, default True
        Draw ``first_decision.png`` and ``first_decision_ev.png``.
    dpi : int, default 110

    Returns
    -------
    SpotOutputs
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    parquet = write_strategy_parquet(solution, out / "strategy.parquet")
    js = write_strategy_json(solution, out / "strategy.json", full=full_json)
    summary = write_summary(solution, out / "summary.json", spot=spot)
    figure = None
    if plot:
        import matplotlib.pyplot as plt

        fig = first_decision_figure(solution)
        figure = save_png(fig, out / "first_decision.png", dpi=dpi)
        plt.close(fig)
        fig = first_decision_ev_figure(solution)
        figure_ev = save_png(fig, out / "first_decision_ev.png", dpi=dpi)
        plt.close(fig)
    else:
        figure_ev = None
    return SpotOutputs(directory=out, parquet=parquet, json=js, summary=summary, figure=figure,
                       figure_ev=figure_ev)

"""What a player reads off a solved endgame at a decision node: per hand, the strategy, the EV of the hand and of
each action (chips), and the all-in equity against the opponent's range at the node.

Definitions (chips; payoffs as in :mod:`hunl.solver.tree`: everything a player put in counts, so the EV of folding
is minus the folder's contribution; with rake, :class:`hunl.solver.game.HoldemEndgame`):

EV of action ``a`` of hand ``i`` at node ``n``
    The expected payoff of the acting player holding ``i``, given that ``n`` is reached and he takes ``a``, both
    players following the average strategies afterwards: the counterfactual value of the action (one
    :data:`~games.core.traversal.MODE_EXPECTED` pass per player, :meth:`games.core.engine.Engine.hand_values`)
    divided by the probability mass of the opponent's hands at ``n`` -- their range weights times their reach,
    compatible with ``i`` and the node's board, times the chance probability of the board. That mass is itself
    a counterfactual value: the one of a game that pays 1 at every terminal (a second pass with the terminal
    arrays ``fold_value = showdown_stake = 0``, ``common = 1``), so numerator and denominator come from the
    same traversal, card removal, chance and suit isomorphism included. ``NaN`` where the mass is 0.
EV of hand ``i``
    ``sum_a strategy[i, a] * EV[i, a]``: the value of the hand at the node.
Equity of hand ``i``
    Raw all-in showdown equity against the opponent's range at the node (range weight times reach, compatible
    with ``i``): win 1, tie 1/2; on a turn node averaged over the river cards (each of the 44 left given both
    hands equally likely). Flop nodes (two cards to come) are not computed (``NaN``).
Range EV, range equity
    Means over the acting player's hands weighted by the probability of holding the hand at the node: his range
    weight times his own reach times the opponent's compatible mass (so the range EV at the root is the game
    value, :attr:`hunl.solver.solve.EndgameSolution.value_chips` for player 1).

The player who does not act at a node gets the same figures (EV of the hand, equity; :attr:`NodeReport.other`):
his counterfactual value at the node is the one recorded for the action of his that led to it, or, at the first
decision of a street (the root, or a node below a chance node, where every action of the actor leads to a decision
of his), the sum over the actor's actions of his strategy-weighted action values there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core import traversal as X
from games.core.tree import DECISION, TERMINAL

__all__ = ["NodeReport", "action_ev", "hand_equity", "node_reach", "node_report"]


@dataclass(frozen=True)
class NodeReport:
    """The report of one decision node (:func:`node_report`).

    Attributes
    ----------
    node : int
        Public node id.
    history : str
        Public action history (``""`` at the root).
    player : int
        The acting player (0 = out of position, 1 = in position).
    actions : tuple of str
        Action labels in tree order.
    frame : pandas.DataFrame
        One row per combo of the acting player's range that can be dealt on the node's board, in the order of
        ``game.combos[player]``: ``combo`` (``"AsKh"``), ``hand_class`` (``"AKo"``), ``weight`` (range weight
        times his own reach at the node, float64), ``strategy:<action>`` (average strategy), ``ev:<action>``
        (EV of the action, chips), ``ev`` (EV of the hand, chips), ``equity`` (0..1, NaN on flop nodes).
    range_ev : float
        The acting player's EV at the node (chips), weighted as in the module docstring.
    range_equity : float
        His range's equity at the node (NaN on flop nodes).
    reach_probability : float
        Probability that the node is reached when both follow the average strategies.
    other : pandas.DataFrame
        The player who does not act: one row per combo of his range that can be dealt on the board, columns
        ``combo``, ``hand_class``, ``weight`` (range weight times his reach), ``ev`` (chips), ``equity``.
    other_range_ev, other_range_equity : float
        His range's EV and equity at the node.
    """

    node: int
    history: str
    player: int
    actions: tuple
    frame: object
    range_ev: float
    range_equity: float
    reach_probability: float
    other: object = None
    other_range_ev: float = float("nan")
    other_range_equity: float = float("nan")


def _engine_of(solution):
    eng = getattr(solution.result, "engine", None)
    if eng is None:  # pragma: no cover - CFRResult always carries its engine
        from games.core.best_response import engine_for

        eng = engine_for(solution.game)
    return eng


def _counterfactual_action_values(solution) -> tuple:
    """``(values, mass)``: storage-layout arrays (the game's storage dtype) of each decision node's actions for
    the acting hands: the counterfactual value of the action and the opponent's chance-weighted compatible reach
    mass (the value of the all-ones game). Cached on the solution object."""
    cached = solution.__dict__.get("_report_cfv")
    if cached is not None:
        return cached
    eng = _engine_of(solution)
    table = np.ascontiguousarray(solution.result.strategy, dtype=eng.dtype)
    values = np.zeros(eng.layout.size, dtype=eng.dtype)
    mass = np.zeros(eng.layout.size, dtype=eng.dtype)
    t = solution.game.tree
    ones = np.where(t.kind == TERMINAL, 1.0, 0.0)
    zeros = np.zeros(t.n_nodes)
    saved = eng.T
    for p in (0, 1):
        eng.hand_values(p, X.MODE_EXPECTED, table, best=values)
    try:
        eng.T = saved[:5] + (zeros, zeros, ones)
        for p in (0, 1):
            eng.hand_values(p, X.MODE_EXPECTED, table, best=mass)
    finally:
        eng.T = saved
    out = (values, mass)
    solution.__dict__["_report_cfv"] = out
    return out


def action_ev(solution) -> np.ndarray:
    """EV (chips) of every action of every decision node for every hand of the acting player.

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution

    Returns
    -------
    numpy.ndarray of the game's storage dtype (float32 by default), shape ``(N, Hm)``
        Edge layout (as :attr:`games.core.policy.Policy.probs`): row ``c`` for the action that leads to child
        ``c``, columns the acting player's hands; NaN where the opponent's mass is 0 (an unreachable
        situation), on hands beyond ``H_p`` and on rows that are not actions. Both players' average strategies;
        see the module docstring.
    """
    values, mass = _counterfactual_action_values(solution)
    eng = _engine_of(solution)
    with np.errstate(invalid="ignore", divide="ignore"):
        ev = np.where(mass > 0, values / np.where(mass > 0, mass, 1.0), np.nan)
    game = solution.game
    out = np.full((game.tree.n_nodes, game.max_hands), np.nan, dtype=ev.dtype)
    for p, off in enumerate(eng.layout.edge_index(game.tree, game.num_hands)):
        edges, _, _ = game.tree.action_edges(p)
        hp = game.num_hands[p]
        if edges.size:
            out[edges, :hp] = ev[off[:, None] + np.arange(hp)]
    return out


def node_reach(solution, node) -> np.ndarray:
    """``(2, Hm)`` float64: each player's own reach (product of his average-strategy probabilities on the path
    from the root) of each of his hands at ``node`` (1 at the root; chance not included).

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
        The solved endgame (its average strategy).
    node : int or str
        Any node of the tree: a public node id or its action history (``"check/bet 250"``, ``""`` the root).

    Returns
    -------
    numpy.ndarray of float64, shape (2, Hm)
        ``reach[p, h]`` for player ``p`` and his hand ``h`` (in the order of ``game.combos[p]``), in [0, 1];
        ``Hm = game.max_hands``, and the padding columns ``h >= game.num_hands[p]`` are 1.

    Raises
    ------
    ValueError
        If ``node`` is not a node of the tree.
    """
    game = solution.game
    t = game.tree
    n = t.node(node)
    reach = np.ones((2, game.max_hands))
    c = n
    while c != 0:
        pa = int(t.parent[c])
        if t.kind[pa] == DECISION:
            q = int(t.player[pa])
            s = solution.result.node_strategy(pa)  # (H_q, A)
            reach[q, :game.num_hands[q]] *= s[:, c - int(t.child_start[pa])]
        c = pa
    return reach


def hand_equity(game, node, player: int, opp_weight) -> np.ndarray:
    """All-in showdown equity of each of ``player``'s hands against an opponent range at ``node``'s board.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    node : int or str
        Any node; its board (4 or 5 cards) is used.
    player : int
        0 or 1.
    opp_weight : array_like of float, shape ``(H_opp,)``
        Weight of each opponent hand (e.g. range weight times reach), >= 0.

    Returns
    -------
    numpy.ndarray of float64, shape ``(H_player,)``
        ``sum_j w_j * score(i, j) / sum_j w_j`` over the opponent hands ``j`` compatible with hand ``i`` and the
        board, with ``score`` 1 for a win, 1/2 for a tie, 0 for a loss on the complete board (turn boards:
        averaged over the 44 river cards left given both hands). NaN for hands with no compatible weight, for
        hands that conflict with the board, and on flop boards (not computed).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1 or ``opp_weight`` has the wrong shape or negative or non-finite entries.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    t = game.tree
    n = t.node(node)
    o = 1 - player
    x = np.asarray(opp_weight, dtype=np.float64)
    if x.shape != (game.num_hands[o],):
        raise ValueError(f"opp_weight must have shape ({game.num_hands[o]},), got {x.shape}")
    if not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError("opp_weight must be finite and >= 0")
    hp = game.num_hands[player]
    b = int(t.board[n])
    if len(game.boards[b]) < 4:
        return np.full(hp, np.nan)
    score, compat = _equity_matrices(game, b, player)
    num = score @ x
    den = compat @ x
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _equity_matrices(game, b: int, player: int) -> tuple:
    """``(score, compat)``, each ``(H_player, H_opp)`` float64: the mean showdown score (1 win, 1/2 tie, 0 loss;
    averaged over river cards on a turn board) of each compatible pair on board ``b``, 0 elsewhere, and the
    0/1 compatibility (no shared card, none on the board). Cached on the game for the starting board, which
    every node of the starting street shares."""
    from hunl.poker.cards import COMBO_CARDS
    from hunl.poker.evaluator import combo_strengths

    key = ("_equity_matrices", b, player)
    if key in game.__dict__:
        return game.__dict__[key]
    o = 1 - player
    board = tuple(game.boards[b])
    cp = COMBO_CARDS[game.combos[player]]
    co = COMBO_CARDS[game.combos[o]]
    on_board = np.zeros(52, dtype=bool)
    on_board[list(board)] = True
    ok_p = ~on_board[cp].any(axis=1)
    ok_o = ~on_board[co].any(axis=1)
    compat = (~(cp[:, None, :, None] == co[None, :, None, :]).any(axis=(2, 3))) & ok_p[:, None] & ok_o[None, :]
    if len(board) == 5:
        s = combo_strengths(board)
        score = compat * (0.5 + 0.5 * np.sign(s[game.combos[player]][:, None] - s[game.combos[o]][None, :]))
    else:
        score = np.zeros(compat.shape)
        for c in range(52):
            if on_board[c]:
                continue
            s = combo_strengths(board + (c,))
            vp = (cp != c).all(axis=1)
            vo = (co != c).all(axis=1)
            diff = np.sign(s[game.combos[player]][:, None] - s[game.combos[o]][None, :])
            score += (compat & vp[:, None] & vo[None, :]) * (0.5 + 0.5 * diff)
        score /= 44.0  # every compatible pair leaves 52 - 4 - 4 river cards
    out = (score, compat.astype(np.float64))
    if b == 0:
        game.__dict__[key] = out
    return out


def _other_value(solution, n: int, q: int, values, mass) -> tuple:
    """``(cfv, den)``, float64 ``(H_q,)``: counterfactual value and opponent mass of player ``q`` (who does not
    act at ``n``) at node ``n``, from the per-action records (module docstring); NaN when neither rule applies."""
    game = solution.game
    t = game.tree
    eng = _engine_of(solution)
    hq = game.num_hands[q]
    off = eng.layout.offset
    pa = int(t.parent[n]) if n != 0 else -1
    if pa >= 0 and t.kind[pa] == DECISION and t.player[pa] == q:
        lo = int(off[pa]) + (n - int(t.child_start[pa])) * hq
        return values[lo:lo + hq].astype(np.float64), mass[lo:lo + hq].astype(np.float64)
    cfv = np.zeros(hq)
    den = np.zeros(hq)
    for c in t.children(n):
        if t.kind[c] != DECISION or t.player[c] != q:
            return np.full(hq, np.nan), np.full(hq, np.nan)
        a = int(t.num_children[c])
        lo = int(off[c])
        block = values[lo:lo + a * hq].reshape(a, hq).astype(np.float64)
        cfv += (solution.result.node_strategy(c).T * block).sum(axis=0)
        den += mass[lo:lo + hq].astype(np.float64)
    return cfv, den


def _hand_frame(game, p: int, keep, weight, extra: dict):
    import pandas as pd

    from hunl.poker.cards import COMBO_LABELS, HAND_CLASS, HAND_CLASS_LABELS

    combos = game.combos[p][keep]
    cols = {
        "combo": pd.Categorical([COMBO_LABELS[k] for k in combos]),
        "hand_class": pd.Categorical([HAND_CLASS_LABELS[HAND_CLASS[k]] for k in combos]),
        "weight": weight[keep],
    }
    cols.update({k: v[keep] for k, v in extra.items()})
    return pd.DataFrame(cols)


def _range_means(joint, ev, eq) -> tuple:
    total = joint.sum()
    if not total > 0:
        return float("nan"), float("nan")
    ok = joint > 0
    range_ev = float(joint[ok] @ ev[ok] / total) if np.all(np.isfinite(ev[ok])) else float("nan")
    range_eq = float(joint[ok] @ eq[ok] / total) if np.all(np.isfinite(eq[ok])) else float("nan")
    return range_ev, range_eq


def node_report(solution, node, equity: bool = True) -> NodeReport:
    """Strategy, EV per action, EV and equity of every hand of the acting player at a decision node.

    Parameters
    ----------
    solution : hunl.solver.solve.EndgameSolution
    node : int or str
        A decision node (id or public history such as ``"check/bet 50"``).
    equity : bool, default True
        Compute the equity column (a dense ``H x H`` product per board: about a second on a turn node with full
        ranges); without it the column is NaN.

    Returns
    -------
    NodeReport

    Raises
    ------
    ValueError
        If ``node`` is not a decision node.
    """
    game = solution.game
    t = game.tree
    n = t.node(node)
    if t.kind[n] != DECISION:
        raise ValueError(f"node {n} ({t.history[n] or 'root'}) is not a decision node")
    p = int(t.player[n])
    o = 1 - p
    hp = game.num_hands[p]
    kids = t.children(n)
    actions = tuple(t.action[c] for c in kids)
    values, mass = _counterfactual_action_values(solution)
    eng = _engine_of(solution)
    off = int(eng.layout.offset[n])
    a = len(kids)
    cfv = values[off:off + a * hp].reshape(a, hp).astype(np.float64)
    den = mass[off:off + a * hp].reshape(a, hp)[0].astype(np.float64)       # the same for every action of the actor
    strat = solution.result.node_strategy(n)               # (hp, a)
    with np.errstate(invalid="ignore", divide="ignore"):
        ev_a = np.where(den > 0, cfv / np.where(den > 0, den, 1.0), np.nan).T     # (hp, a)
    ev = np.einsum("ha,ha->h", strat, np.nan_to_num(ev_a))
    ev = np.where(den > 0, ev, np.nan)
    reach = node_reach(solution, n)
    board = t.board[n]
    ho = game.num_hands[o]
    opp_w = game.prior[o, :ho] * reach[o, :ho]
    own_w = game.prior[p, :hp] * reach[p, :hp]
    eq = hand_equity(game, n, p, opp_w) if equity else np.full(hp, np.nan)
    # P(hand i and the node) is proportional to own reach times the opponent's compatible mass (den includes
    # the range weight / Z and the chance probability of the board); over the hands it sums to the probability
    # of reaching the node
    joint = reach[p, :hp] * np.where(den > 0, den, 0.0)
    range_ev, range_eq = _range_means(joint, ev, eq)
    keep = np.flatnonzero(game.hand_possible(p)[board])
    extra = {f"strategy:{lab}": strat[:, j] for j, lab in enumerate(actions)}
    extra.update({f"ev:{lab}": ev_a[:, j] for j, lab in enumerate(actions)})
    extra.update({"ev": ev, "equity": eq})
    frame = _hand_frame(game, p, keep, own_w, extra)
    # the player who does not act
    cfv_o, den_o = _other_value(solution, n, o, values, mass)
    with np.errstate(invalid="ignore", divide="ignore"):
        ev_o = np.where(den_o > 0, cfv_o / np.where(den_o > 0, den_o, 1.0), np.nan)
    eq_o = hand_equity(game, n, o, own_w) if equity else np.full(ho, np.nan)
    joint_o = reach[o, :ho] * np.where(den_o > 0, den_o, 0.0)
    other_ev, other_eq = _range_means(joint_o, ev_o, eq_o)
    other = _hand_frame(game, o, np.flatnonzero(game.hand_possible(o)[board]), opp_w, {"ev": ev_o, "equity": eq_o})
    return NodeReport(node=int(n), history=t.history[n], player=p, actions=actions, frame=frame,
                      range_ev=range_ev, range_equity=range_eq, reach_probability=float(joint.sum()),
                      other=other, other_range_ev=other_ev, other_range_equity=other_eq)

"""Exact equilibria of small games by the sequence-form linear program, solved with HiGHS.

Sequence form (Koller, Megiddo & von Stengel 1996; history in Bowling et al. 2015, "Sequence-Form Linear
Programming"): a player's *sequence* is an information set and an action there, identified on the public tree by
``(child node c, own hand h)``, plus the empty sequence. A *realization plan* ``x`` gives each sequence the
product of the player's own action probabilities along it; it satisfies ``E x = e``, ``x >= 0``:
``x[empty] = 1`` and, at each information set ``(n, h)``, ``sum_c x[(c, h)] = x[parent sequence of (n, h)]``.
The payoff matrix ``A`` (player 1's sequences x player 2's) sums, over the terminal nodes and hand pairs whose
last actions are those sequences, the chance-weighted payoff ``deal[b, i, j] * u1(t, i, j)``. Then
``x^T A y`` is player 1's expected payoff and the game is solved by the LP (Koller et al. 1996, Theorem 4.5)::

    maximise_{x, v}   f^T v
    subject to        F^T v - A^T x <= 0,     E x = e,     x >= 0,  v free

whose optimum is the game value to player 1, ``x`` his equilibrium realization plan, and the duals of the first
block player 2's equilibrium realization plan ``y`` (``F y = f``, ``y >= 0``).

Both players' behaviour strategies follow by normalising the realization plan over each information set's
actions (``sigma(c | n, h) = x[(c, h)] / sum_c' x[(c', h)]``); an information set the player never reaches
(``x = 0`` on all its actions) plays uniformly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from games.core.policy import Policy
from games.core.tree import Game

__all__ = ["SequenceForm", "SequenceFormSolution", "build_sequence_form", "solve_lp"]


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """The sequence-form matrices of a game.

    Attributes
    ----------
    E, F : scipy.sparse.csr_matrix of float64
        Realization-plan constraints of player 1 ``(1 + #infosets-rows, n1)`` and player 2 ``(.., n2)``; the
        first row is the empty sequence. Rows exist for every (decision node, hand), including hands impossible
        at the node's board (their sequences carry no payoff).
    e, f : numpy.ndarray of float64
        Right-hand sides (1 in the first row, 0 elsewhere).
    A : scipy.sparse.csr_matrix of float64, shape ``(n1, n2)``
        Player 1's chance-weighted payoff per pair of sequences, chips.
    seq_node : tuple of numpy.ndarray of int32
        For each player, the child node of each sequence (-1 for the empty sequence), shape ``(n_p,)``.
    seq_hand : tuple of numpy.ndarray of int32
        For each player, the hand of each sequence (-1 for the empty sequence).
    seq_index : tuple of numpy.ndarray of int64
        For each player, ``(N, H_p)``: the sequence id of (child node, hand), -1 where the node is not an action
        of that player.
    """

    E: sp.csr_matrix
    e: np.ndarray
    F: sp.csr_matrix
    f: np.ndarray
    A: sp.csr_matrix
    seq_node: tuple
    seq_hand: tuple
    seq_index: tuple


@dataclass(frozen=True)
class SequenceFormSolution:
    """An exact equilibrium from the sequence-form LP.

    Attributes
    ----------
    value : float
        The game value to player 1 in chips.
    realization_plans : tuple of numpy.ndarray of float64
        ``(x, y)``: the players' equilibrium realization plans, shapes ``(n1,)`` and ``(n2,)`` (sequence ids as
        in :class:`SequenceForm`).
    policy : Policy
        Both players' equilibrium behaviour strategies.
    status : str
        HiGHS's model status (``"Optimal"``).
    seconds : float
        Wall time of building the matrices, solving and extracting the strategies.
    num_sequences : tuple of (int, int)
        Sizes of the two realization plans.
    simplex_iterations : int
    """

    value: float
    realization_plans: tuple
    policy: Policy
    status: str
    seconds: float
    num_sequences: tuple
    simplex_iterations: int


def _sequences(game: Game, p: int):
    """Sequence ids of player ``p``: 0 = empty, then (edge k, hand h) -> 1 + k * H_p + h."""
    t = game.tree
    hp = game.num_hands[p]
    nodes = t.decision_nodes(p)
    counts = t.num_children[nodes]
    edges = (np.repeat(t.child_start[nodes], counts)
             + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)).astype(np.int64)
    edge_index = np.full(t.n_nodes, -1, dtype=np.int64)
    edge_index[edges] = np.arange(edges.size)
    n_seq = 1 + edges.size * hp
    seq_index = np.full((t.n_nodes, hp), -1, dtype=np.int64)
    seq_index[edges] = 1 + edge_index[edges][:, None] * hp + np.arange(hp)[None, :]
    seq_node = np.concatenate(([-1], np.repeat(edges, hp))).astype(np.int32)
    seq_hand = np.concatenate(([-1], np.tile(np.arange(hp), edges.size))).astype(np.int32)

    def seq_of(last_edge: np.ndarray) -> np.ndarray:
        """``(len(last_edge), H_p)`` sequence ids of the player's last action (0 if none)."""
        out = np.zeros((last_edge.size, hp), dtype=np.int64)
        has = last_edge >= 0
        out[has] = seq_index[last_edge[has]]
        return out

    # Constraints: row 0 is x[empty] = 1; row 1 + k * H_p + h is information set (nodes[k], h).
    rows, cols, vals = [np.array([0])], [np.array([0])], [np.array([1.0])]
    parent_seq = seq_of(t.last_own_edge[p, nodes])  # (K, H)
    info_row = 1 + np.arange(nodes.size)[:, None] * hp + np.arange(hp)[None, :]  # (K, H)
    rows.append(info_row.ravel())
    cols.append(parent_seq.ravel())
    vals.append(np.full(info_row.size, -1.0))
    node_of_edge = np.repeat(np.arange(nodes.size), counts)
    rows.append(info_row[node_of_edge].ravel())
    cols.append(seq_index[edges].ravel())
    vals.append(np.ones(edges.size * hp))
    n_rows = 1 + nodes.size * hp
    E = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n_rows, n_seq))
    rhs = np.zeros(n_rows)
    rhs[0] = 1.0
    return E, rhs, seq_node, seq_hand, seq_index, seq_of


def build_sequence_form(game: Game) -> SequenceForm:
    """Build ``E, e, F, f, A`` of a game from its public tree and terminal evaluator (vectorised over hands)."""
    t = game.tree
    E, e, node1, hand1, index1, seq1 = _sequences(game, 0)
    F, f, node2, hand2, index2, seq2 = _sequences(game, 1)
    term = t.terminal_nodes
    b = t.board[term]
    u = (t.fold_value[term][:, None, None] * game.deal[b]
         + t.showdown_stake[term][:, None, None] * game.showdown_weighted[b])  # (T, H1, H2)
    r = seq1(t.last_own_edge[0, term])  # (T, H1)
    c = seq2(t.last_own_edge[1, term])  # (T, H2)
    nz = u != 0.0
    tt, ii, jj = np.nonzero(nz)
    A = sp.csr_matrix((u[nz], (r[tt, ii], c[tt, jj])), shape=(E.shape[1], F.shape[1]))
    A.sum_duplicates()
    return SequenceForm(E, e, F, f, A, (node1, node2), (hand1, hand2), (index1, index2))


def solve_lp(game: Game, tolerance: float = 1e-10) -> SequenceFormSolution:
    """Solve a two-player zero-sum game exactly with the sequence-form LP and HiGHS (dual simplex).

    Parameters
    ----------
    game : Game
        Any game implementing the interface of :mod:`games.core.tree`.
    tolerance : float, default 1e-10
        HiGHS's primal and dual feasibility tolerances.

    Returns
    -------
    SequenceFormSolution
        Value to player 1 (chips), both realization plans, both behaviour strategies.

    Raises
    ------
    RuntimeError
        If HiGHS does not report an optimal solution (the LP is always feasible and bounded, so this signals a
        numerical failure).

    Examples
    --------
    >>> from games.kuhn import KuhnPoker
    >>> round(solve_lp(KuhnPoker()).value * 18, 9)
    -1.0
    """
    start = time.perf_counter()
    sf = build_sequence_form(game)
    n1, n2 = sf.A.shape
    m2 = sf.F.shape[0]
    m1 = sf.E.shape[0]
    # Columns [x (n1) | v (m2)]; rows [F^T v - A^T x <= 0 (n2) ; E x = e (m1)].
    top = sp.hstack([-sf.A.T, sf.F.T])
    bottom = sp.hstack([sf.E, sp.csr_matrix((m1, m2))])
    M = sp.vstack([top, bottom]).tocsc()
    M.sort_indices()
    num_col, num_row = n1 + m2, n2 + m1
    cost = np.zeros(num_col)
    cost[n1:] = sf.f
    inf = highspy.kHighsInf
    col_lower = np.concatenate((np.zeros(n1), np.full(m2, -inf)))
    col_upper = np.full(num_col, inf)
    row_lower = np.concatenate((np.full(n2, -inf), sf.e))
    row_upper = np.concatenate((np.zeros(n2), sf.e))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("primal_feasibility_tolerance", tolerance)
    h.setOptionValue("dual_feasibility_tolerance", tolerance)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = num_col, num_row
    lp.col_cost_ = cost
    lp.col_lower_, lp.col_upper_ = col_lower, col_upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = M.indptr.astype(np.int32)
    lp.a_matrix_.index_ = M.indices.astype(np.int32)
    lp.a_matrix_.value_ = M.data.astype(np.float64)
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise RuntimeError(f"HiGHS did not solve the sequence-form LP of {game.name}: "
                           f"{h.modelStatusToString(status)}")
    sol = h.getSolution()
    info = h.getInfo()
    x = np.clip(np.asarray(sol.col_value)[:n1], 0.0, None)
    duals = np.asarray(sol.row_dual)[:n2]
    y = np.abs(duals) if duals[0] == 0 else duals * np.sign(duals[0])
    y = np.clip(y, 0.0, None)
    value = float(info.objective_function_value)
    policy = Policy(game, _behaviour_from(game, sf, (x, y)))
    return SequenceFormSolution(
        value=value,
        realization_plans=(x, y),
        policy=policy,
        status=h.modelStatusToString(status),
        seconds=time.perf_counter() - start,
        num_sequences=(n1, n2),
        simplex_iterations=int(info.simplex_iteration_count),
    )


def _behaviour_from(game: Game, sf: SequenceForm, plans) -> np.ndarray:
    t = game.tree
    probs = np.ones((t.n_nodes, game.max_hands))
    for p, x in enumerate(plans):
        hp = game.num_hands[p]
        index = sf.seq_index[p]
        nodes = t.decision_nodes(p)
        for n in nodes:
            kids = t.children(n)
            block = np.clip(x[index[kids.start:kids.stop]], 0.0, None)  # (A, H)
            tot = block.sum(axis=0)
            ok = tot > 1e-300
            out = np.full_like(block, 1.0 / len(kids))
            out[:, ok] = block[:, ok] / tot[ok]
            probs[kids.start:kids.stop, :hp] = out
    return probs

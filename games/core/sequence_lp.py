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

Node locks (:mod:`games.core.locks`) restrict the realization plans by linear equalities: at a locked information
set ``(n, h)`` with parent sequence ``sigma``, ``x[(c_a, h)] = p_a * x[sigma]`` for every action ``a``. Player 1's
lock rows ``G1 x = 0`` join ``E x = e``; player 2's ``G2 y = 0`` enter the LP above as free dual variables ``w``
(``F^T v + G2^T w - A^T x <= 0``), because the inner minimisation over ``y`` in ``{F y = f, G2 y = 0, y >= 0}``
has the dual ``max f^T v`` subject to ``F^T v + G2^T w <= A^T x``. The optimum is the value of the restricted game
(the locked information sets fixed, everything else at equilibrium).

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

from games.core.highs import quiet_highs
from games.core.policy import Policy
from games.core.tree import Game

__all__ = ["SequenceForm", "SequenceFormSolution", "build_sequence_form", "solve_lp"]


@dataclass(frozen=True, eq=False)
class SequenceForm:
    """The sequence-form matrices of a game.

    Attributes
    ----------
    E, F : scipy.sparse.csr_matrix of float64
        Realization-plan constraints of player 1 ``(1 + #information sets, n1)`` and player 2; the first row is
        the empty sequence. Hands impossible at a node's board (card removal) have no information set and no
        sequences there.
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
        of that player or the hand is impossible there.
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
    """Sequences of player ``p``: id 0 is the empty sequence, then one per (action edge, hand) with the hand
    possible at the edge's board (card removal prunes the rest), numbered edge-major."""
    t = game.tree
    hp = game.num_hands[p]
    possible = game.hand_possible(p)[t.board]  # (N, H_p)
    nodes = t.decision_nodes(p)
    counts = t.num_children[nodes]
    edges = (np.repeat(t.child_start[nodes], counts)
             + np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)).astype(np.int64)
    keep = possible[edges]  # (n_edges, H)
    ids = np.full(keep.shape, -1, dtype=np.int64)
    ids[keep] = 1 + np.arange(int(keep.sum()))
    n_seq = 1 + int(keep.sum())
    seq_index = np.full((t.n_nodes, hp), -1, dtype=np.int64)
    seq_index[edges] = ids
    ei, hi = np.nonzero(keep)
    seq_node = np.concatenate(([-1], edges[ei])).astype(np.int32)
    seq_hand = np.concatenate(([-1], hi)).astype(np.int32)

    def seq_of(last_edge: np.ndarray) -> np.ndarray:
        """``(len(last_edge), H_p)`` sequence ids of the player's last action (0 if none, -1 if impossible)."""
        out = np.zeros((last_edge.size, hp), dtype=np.int64)
        has = last_edge >= 0
        out[has] = seq_index[last_edge[has]]
        return out

    # Constraints: row 0 is x[empty] = 1; then one row per information set (node, possible hand).
    info = possible[nodes]  # (K, H)
    info_row = np.full(info.shape, -1, dtype=np.int64)
    info_row[info] = 1 + np.arange(int(info.sum()))
    parent_seq = seq_of(t.last_own_edge[p, nodes])  # (K, H)
    if np.any(parent_seq[info] < 0):  # a hand possible now was possible at the player's previous action
        raise ValueError(f"{game.name}: an information set's parent sequence is impossible (bad deal matrices)")
    node_of_edge = np.repeat(np.arange(nodes.size), counts)
    child_rows = info_row[node_of_edge]  # (n_edges, H)
    rows = np.concatenate(([0], info_row[info], child_rows[keep]))
    cols = np.concatenate(([0], parent_seq[info], ids[keep]))
    vals = np.concatenate(([1.0], np.full(int(info.sum()), -1.0), np.ones(int(keep.sum()))))
    n_rows = 1 + int(info.sum())
    rhs = np.zeros(n_rows)
    rhs[0] = 1.0
    return (rows, cols, vals, (n_rows, n_seq)), rhs, seq_node, seq_hand, seq_index, seq_of


def _triplets(game: Game):
    """COO triplets of E, F and A plus the sequence tables (no scipy objects: cheap for small games)."""
    t = game.tree
    E, e, node1, hand1, index1, seq1 = _sequences(game, 0)
    F, f, node2, hand2, index2, seq2 = _sequences(game, 1)
    _, payoff = game.terminal_payoffs()
    term = t.terminal_nodes
    r = seq1(t.last_own_edge[0, term])  # (T, H1)
    c = seq2(t.last_own_edge[1, term])  # (T, H2)
    nz = payoff != 0.0
    tt, ii, jj = np.nonzero(nz)
    rows, cols = r[tt, ii], c[tt, jj]
    if rows.size and (rows.min() < 0 or cols.min() < 0):
        raise ValueError(f"{game.name}: a payoff falls on an impossible hand (deal and tree disagree)")
    A = (rows, cols, payoff[nz], (E[3][1], F[3][1]))
    return E, e, F, f, A, (node1, node2), (hand1, hand2), (index1, index2)


def _csr(trip) -> sp.csr_matrix:
    rows, cols, vals, shape = trip
    return sp.csr_matrix((vals, (rows, cols)), shape=shape)


def build_sequence_form(game: Game) -> SequenceForm:
    """Build ``E, e, F, f, A`` of a game from its public tree and terminal evaluator (vectorised over hands).

    The sequence form of Koller, Megiddo & von Stengel (1996), as in the module docstring: a sequence is
    ``(child node, own hand)`` with the hand possible at the node's board, plus the empty sequence (id 0).
    ``A`` comes from :meth:`games.core.tree.Game.terminal_payoffs`, which has no rake: for a raked game it is
    the payoff without the rake (the rake is not checked here, unlike :func:`solve_lp`).

    Parameters
    ----------
    game : Game
        Any game implementing the interface of :mod:`games.core.tree`.

    Returns
    -------
    SequenceForm
        ``E`` (scipy.sparse.csr_matrix of float64, shape ``(1 + K1, n1)``, ``K1`` player 1's information
        sets), ``e`` (numpy.ndarray of float64, shape ``(1 + K1,)``), ``F`` and ``f`` likewise for player 2,
        ``A`` (scipy.sparse.csr_matrix of float64, shape ``(n1, n2)``: player 1's chance-weighted payoff per
        pair of sequences, chips), and the sequence tables ``seq_node``, ``seq_hand`` and ``seq_index``.

    Raises
    ------
    ValueError
        If the deal and the tree disagree: an information set's parent sequence is impossible, or a non-zero
        payoff falls on a hand impossible at the player's last action.
    """
    E, e, F, f, A, nodes, hands, index = _triplets(game)
    return SequenceForm(_csr(E), e, _csr(F), f, _csr(A), nodes, hands, index)


def _lock_rows(game: Game, locks, seq_index, p: int):
    """COO triplets of player ``p``'s lock equalities ``x[(c_a, h)] - p_a x[parent] = 0`` (one row per locked
    (node, possible hand, action)) and their number."""
    t = game.tree
    rows, cols, vals = [], [], []
    r = 0
    if locks is not None:
        possible = game.hand_possible(p)[t.board]
        for n, probs in zip(locks.nodes, locks.probs):
            if t.player[n] != p:
                continue
            le = int(t.last_own_edge[p, n])
            kids = t.children(int(n))
            for h in np.flatnonzero(~np.isnan(probs[0]) & possible[n]):
                parent = 0 if le < 0 else int(seq_index[p][le, h])
                for a, c in enumerate(kids):
                    rows += [r, r]
                    cols += [int(seq_index[p][c, h]), parent]
                    vals += [1.0, -float(probs[a, h])]
                    r += 1
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), np.array(vals), r


def solve_lp(game: Game, tolerance: float = 1e-10, locks=None) -> SequenceFormSolution:
    """Solve a two-player zero-sum game exactly with the sequence-form LP and HiGHS (dual simplex).

    Parameters
    ----------
    game : Game
        Any game implementing the interface of :mod:`games.core.tree`.
    tolerance : float, default 1e-10
        HiGHS's primal and dual feasibility tolerances.
    locks : mapping or NodeLocks, optional
        Node locks (:func:`games.core.locks.check_locks`): solve the restricted game (module docstring); the
        behaviour strategies play the lock at every locked information set.

    Returns
    -------
    SequenceFormSolution
        Value to player 1 (chips), both realization plans, both behaviour strategies.

    Raises
    ------
    ValueError
        Invalid locks.
    RuntimeError
        If HiGHS does not report an optimal solution (the LP is always feasible and bounded, so this signals a
        numerical failure).
    ValueError
        If the game is not zero-sum (it has a rake, :meth:`games.core.tree.Game.terminal_rake`): the minimax LP
        does not apply.

    Examples
    --------
    >>> from games.kuhn import KuhnPoker
    >>> round(solve_lp(KuhnPoker()).value * 18, 9)
    -1.0
    """
    rake = game.terminal_rake() if hasattr(game, "terminal_rake") else None
    if rake is not None and np.any(rake):
        raise ValueError("game: the sequence-form LP solves zero-sum games; this game has a rake")
    start = time.perf_counter()
    from games.core.locks import check_locks

    locks = check_locks(game, locks)
    E, e, F, f, A, _nodes, _hands, seq_index = _triplets(game)
    (m1, n1), (m2, n2) = E[3], F[3]
    g1r, g1c, g1v, k1 = _lock_rows(game, locks, seq_index, 0)
    g2r, g2c, g2v, k2 = _lock_rows(game, locks, seq_index, 1)
    # Columns [x (n1) | v (m2) | w (k2)]; rows [F^T v + G2^T w - A^T x <= 0 (n2) ; E x = e (m1) ; G1 x = 0 (k1)],
    # assembled once from COO (duplicate payoff entries are summed).
    rows = np.concatenate((A[1], F[1], g2c, n2 + E[0], n2 + m1 + g1r))
    cols = np.concatenate((A[0], n1 + F[0], n1 + m2 + g2r, E[1], g1c))
    vals = np.concatenate((-A[2], F[2], g2v, E[2], g1v))
    num_col, num_row = n1 + m2 + k2, n2 + m1 + k1
    M = sp.csc_matrix((vals, (rows, cols)), shape=(num_row, num_col))
    cost = np.zeros(num_col)
    cost[n1:n1 + m2] = f
    inf = highspy.kHighsInf
    col_lower = np.concatenate((np.zeros(n1), np.full(m2 + k2, -inf)))
    col_upper = np.full(num_col, inf)
    row_lower = np.concatenate((np.full(n2, -inf), e, np.zeros(k1)))
    row_upper = np.concatenate((np.zeros(n2), e, np.zeros(k1)))
    h = quiet_highs()
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
    probs = _behaviour_from(game, seq_index, (x, y))
    if locks is not None:
        t = game.tree
        for n, lock in zip(locks.nodes, locks.probs):
            kids = t.children(int(n))
            hands = np.flatnonzero(~np.isnan(lock[0]))
            probs[kids.start:kids.stop, hands] = lock[:, hands]
    policy = Policy(game, probs)
    return SequenceFormSolution(
        value=value,
        realization_plans=(x, y),
        policy=policy,
        status=h.modelStatusToString(status),
        seconds=time.perf_counter() - start,
        num_sequences=(n1, n2),
        simplex_iterations=int(info.simplex_iteration_count),
    )


def _behaviour_from(game: Game, seq_index, plans) -> np.ndarray:
    """Edge-layout behaviour strategies from realization plans (vectorised over information sets)."""
    t = game.tree
    probs = np.ones((t.n_nodes, game.max_hands))
    for p, x in enumerate(plans):
        hp = game.num_hands[p]
        edges, starts, node_of_edge = t.action_edges(p)
        if edges.size == 0:
            continue
        ids = seq_index[p][edges]  # (E, H), -1 for impossible hands
        w = np.where(ids >= 0, np.clip(x[np.maximum(ids, 0)], 0.0, None), 0.0)
        tot = np.add.reduceat(w, starts, axis=0)[node_of_edge]  # (E, H)
        counts = np.diff(np.append(starts, edges.size))[node_of_edge]
        probs[edges, :hp] = np.where(tot > 1e-300, w / np.where(tot > 1e-300, tot, 1.0), 1.0 / counts[:, None])
    return probs

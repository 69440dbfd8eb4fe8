"""Node locking: fix a player's strategy at chosen decision nodes, for all or some of his hands, and solve the rest.

A *lock* says how some hands of the acting player play at a decision node. The solver (:class:`games.core.engine.
Engine`, :func:`games.core.cfr.solve_cfr`) then solves the *restricted game*, in which those (node, hand)
information sets are chance-like moves with the given probabilities and every other information set of both
players is free: at a locked entry the current strategy of every CFR iteration and the returned average strategy
are the lock itself, and the engine's best response of the locked player keeps the lock (so the exploitability a
locked solve reports is that of the restricted game and goes to 0 as the solve converges). The same restriction is
available to the sequence-form LP as linear equalities (:func:`games.core.sequence_lp.solve_lp` with ``locks``).
Postflop solvers call this *node locking* (PioSolver, postflop-solver's ``lock_current_strategy``).

Input (:func:`check_locks`): a mapping ``{node: probs}`` where ``node`` is a decision node id or its action history
(``PublicTree.node``) and ``probs`` is

* an array of shape ``(n_actions, H_q)`` (``H_q`` the acting player's hands, actions in the tree's child order):
  column ``h`` is hand ``h``'s locked strategy, or all NaN to leave hand ``h`` free; or
* a pair ``(probs, hands)``: ``hands`` a boolean mask of shape ``(H_q,)`` or an array of hand indices, and
  ``probs`` of shape ``(n_actions,)`` (the same strategy for every listed hand) or ``(n_actions, len(hands))``.

Rules (``ValueError`` naming the node otherwise): the node is a decision node, listed once; the shape is right; a
column is either all NaN or all finite; locked probabilities lie in ``[0, 1]`` and sum to 1 within ``1e-6`` per
hand (a hand whose sum is off by more than float rounding, ``1e-12``, is renormalised; a validated lock passes a
second validation unchanged); at least one hand is locked.

The compiled traversal receives a compact form (:meth:`NodeLocks.kernel_arrays`): ``lock_of`` (int64, one entry per
node, -1 where unlocked) points into ``lock_probs`` (the locked nodes' blocks, action-major like the storage of
:mod:`games.core.layout`, NaN for free hands). Without locks ``lock_of`` is empty and no node pays a lookup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from games.core.tree import Game

__all__ = ["NodeLocks", "check_locks", "no_lock_arrays"]

#: Tolerance on the sum of a locked hand's probabilities.
SUM_TOLERANCE = 1e-6


@dataclass(frozen=True, eq=False)
class NodeLocks:
    """Validated node locks of one game (see the module docstring).

    Attributes
    ----------
    nodes : numpy.ndarray of int64, shape ``(K,)``
        The locked decision nodes, increasing.
    probs : tuple of numpy.ndarray of float64
        ``probs[k]``: shape ``(n_actions, H_q)`` at ``nodes[k]``; columns of free hands are NaN; locked columns
        sum to 1.
    n_nodes : int
        Nodes of the game's tree (for the kernel's per-node index).
    """

    nodes: np.ndarray
    probs: tuple
    n_nodes: int

    def __len__(self) -> int:
        return int(self.nodes.size)

    def locked_hands(self, k: int) -> np.ndarray:
        """``(H_q,)`` bool: the locked hands at ``nodes[k]``."""
        return ~np.isnan(self.probs[k][0])

    def as_dict(self) -> dict:
        """``{node id: (n_actions, H_q) float64}`` (copies; NaN columns for free hands)."""
        return {int(n): p.copy() for n, p in zip(self.nodes, self.probs)}

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(nodes, starts, values)``: the locked nodes, the start of each node's block in ``values`` and all
        blocks concatenated action-major (float64, NaN for free hands) -- the kernel's and the archive's form."""
        sizes = np.array([p.size for p in self.probs], dtype=np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64) if sizes.size else sizes
        values = np.concatenate([p.ravel() for p in self.probs]) if self.probs else np.zeros(0)
        return self.nodes.copy(), starts, values

    def kernel_arrays(self, dtype) -> tuple[np.ndarray, np.ndarray]:
        """``(lock_of, lock_probs)``: int64 ``(N,)``, -1 at unlocked nodes, else the start of the node's block
        in ``lock_probs`` (``dtype``, action-major, NaN for free hands)."""
        nodes, starts, values = self.flat()
        lock_of = np.full(self.n_nodes, -1, dtype=np.int64)
        lock_of[nodes] = starts
        return lock_of, values.astype(dtype)

    def same_as(self, other: NodeLocks | None) -> bool:
        """Whether ``other`` locks the same nodes and hands to the same probabilities (bitwise)."""
        if other is None:
            return len(self) == 0
        if not np.array_equal(self.nodes, other.nodes):
            return False
        return all(np.array_equal(a, b, equal_nan=True) for a, b in zip(self.probs, other.probs))

    @classmethod
    def from_flat(cls, game: Game, nodes, starts, values) -> NodeLocks:
        """Rebuild from :meth:`flat` (validated against ``game`` as :func:`check_locks` does)."""
        nodes = np.asarray(nodes, dtype=np.int64)
        starts = np.asarray(starts, dtype=np.int64)
        values = np.asarray(values, dtype=np.float64)
        t = game.tree
        out = {}
        for n, s in zip(nodes, starts):
            if not 0 <= n < t.n_nodes or t.player[n] not in (0, 1):
                raise ValueError(f"locks: node {int(n)} is not a decision node of {game.name}")
            a, h = int(t.num_children[n]), int(game.num_hands[int(t.player[n])])
            out[int(n)] = values[s:s + a * h].reshape(a, h)
        return check_locks(game, out)


def no_lock_arrays(dtype) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's lock arrays of an unlocked game: empty (no node pays a lookup).

    The counterpart of :meth:`NodeLocks.kernel_arrays` when there are no locks.

    Parameters
    ----------
    dtype : numpy.dtype or str
        The game's storage dtype (float64 or float32), the dtype of ``lock_probs`` (``None``: float64).

    Returns
    -------
    lock_of : numpy.ndarray of int64, shape ``(0,)``
        Empty: the traversal looks up no node.
    lock_probs : numpy.ndarray of ``dtype``, shape ``(1,)``
        A single zero, never read (a placeholder of the right type).

    Raises
    ------
    TypeError
        If ``dtype`` is not a data type NumPy understands.
    """
    return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=dtype)


def _node_id(game: Game, key) -> int:
    t = game.tree
    if isinstance(key, (bool, np.bool_)):
        raise ValueError(f"locks: node must be a node id or an action history, got {key!r}")
    if isinstance(key, (int, np.integer)):
        n = int(key)
        if not 0 <= n < t.n_nodes:
            raise ValueError(f"locks: node {n} is outside the tree (0 .. {t.n_nodes - 1})")
    else:
        try:
            n = int(t.node(key))
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"locks: no node with history {key!r} ({exc})") from None
    if t.player[n] not in (0, 1):
        raise ValueError(f"locks: node {n} ({t.history[n] or 'root'!r}) is not a decision node")
    return n


def _block(game: Game, n: int, value) -> np.ndarray:
    t = game.tree
    q = int(t.player[n])
    a, h = int(t.num_children[n]), int(game.num_hands[q])
    where = f"locks[{n}] ({t.history[n] or 'root'})"
    if isinstance(value, tuple):
        if len(value) != 2:
            raise ValueError(f"{where}: a pair (probs, hands) was expected, got a tuple of {len(value)}")
        probs, hands = value
        hands = np.asarray(hands)
        if hands.dtype == bool:
            if hands.shape != (h,):
                raise ValueError(f"{where}: a hand mask must have shape ({h},), got {hands.shape}")
            idx = np.flatnonzero(hands)
        else:
            if hands.ndim != 1 or (hands.size and not np.issubdtype(hands.dtype, np.integer)):
                raise ValueError(f"{where}: hands must be a boolean mask or a 1-D array of hand indices")
            idx = hands.astype(np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= h):
                raise ValueError(f"{where}: hand indices must lie in 0 .. {h - 1}")
            if np.unique(idx).size != idx.size:
                raise ValueError(f"{where}: a hand is listed twice")
        try:
            p = np.asarray(probs, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: probabilities must be numbers") from None
        if p.ndim == 1:
            if p.shape != (a,):
                raise ValueError(f"{where}: one strategy must have shape ({a},) (the node's actions), got {p.shape}")
            p = np.repeat(p[:, None], idx.size, axis=1)
        if p.shape != (a, idx.size):
            raise ValueError(f"{where}: probabilities must have shape ({a},) or ({a}, {idx.size}), got {p.shape}")
        out = np.full((a, h), np.nan)
        out[:, idx] = p
    else:
        try:
            out = np.array(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: probabilities must be a numeric array") from None
        if out.shape != (a, h):
            raise ValueError(f"{where}: probabilities must have shape ({a}, {h}) (actions, hands of player "
                             f"{q + 1}), got {out.shape}")
    nan = np.isnan(out)
    locked = ~nan.any(axis=0)
    if np.any(nan.any(axis=0) & ~nan.all(axis=0)):
        raise ValueError(f"{where}: a hand's column must be all NaN (free) or all numbers (locked)")
    if not locked.any():
        raise ValueError(f"{where}: no hand is locked (every column is NaN)")
    p = out[:, locked]
    if not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1:
        raise ValueError(f"{where}: locked probabilities must lie in [0, 1]")
    sums = p.sum(axis=0)
    bad = np.abs(sums - 1.0) > SUM_TOLERANCE
    if bad.any():
        raise ValueError(f"{where}: locked probabilities must sum to 1 per hand; hand "
                         f"{int(np.flatnonzero(locked)[np.argmax(bad)])} sums to {sums[np.argmax(bad)]!r}")
    off = np.abs(sums - 1.0) > 1e-12
    if off.any():  # renormalise only beyond float rounding, so that a validated lock passes through unchanged
        idx = np.flatnonzero(locked)[off]
        out[:, idx] = p[:, off] / sums[off]
    out.setflags(write=False)
    return out


def check_locks(game: Game, locks) -> NodeLocks | None:
    """Validate node locks for ``game`` (rules in the module docstring).

    Parameters
    ----------
    game : Game
    locks : mapping, NodeLocks or None
        ``{node id or history: probs or (probs, hands)}``; a :class:`NodeLocks` is returned as it is after a
        check of its tree size; ``None`` or an empty mapping means no locks.

    Returns
    -------
    NodeLocks or None
        ``None`` when nothing is locked.

    Raises
    ------
    ValueError
        Naming the node and the broken rule.
    """
    if locks is None:
        return None
    if isinstance(locks, NodeLocks):
        if locks.n_nodes != game.tree.n_nodes:
            raise ValueError(f"locks: made for a tree of {locks.n_nodes} nodes, the game has {game.tree.n_nodes}")
        return locks if len(locks) else None
    if not isinstance(locks, Mapping):
        raise ValueError(f"locks must be a mapping node -> probabilities, got {type(locks).__name__}")
    blocks = {}
    for key, value in locks.items():
        n = _node_id(game, key)
        if n in blocks:
            raise ValueError(f"locks: node {n} is listed twice (as {key!r} and before)")
        blocks[n] = _block(game, n, value)
    if not blocks:
        return None
    nodes = np.array(sorted(blocks), dtype=np.int64)
    return NodeLocks(nodes=nodes, probs=tuple(blocks[int(n)] for n in nodes), n_nodes=int(game.tree.n_nodes))

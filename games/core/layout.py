"""The solver state's layout: the units a traversal works on, and compact per-decision-node storage.

Blocks and units
----------------
A chance node's children start new *blocks*; every other node belongs to its parent's block. A block is a
betting round under one sequence of chance outcomes: its nodes share a board. Blocks that share a board (the
same river card reached through different turn lines, say) are processed together as one *unit*: their
terminals are evaluated in one call (:mod:`games.core.terminals`), which lets the evaluator sweep the hands once
for many terminals at a time, side by side in vector registers. Units form a tree: the children of a unit's
chance nodes lie in the units of the child boards. A unit without chance nodes (a river) may be split into several
units of at most ``max_unit_terminals`` terminals, so that work space stays small; units with chance nodes are
never split. The traversal (:mod:`games.core.traversal`) goes depth first over units, so its work space is one
unit per chance depth, never the whole tree.

Storage
-------
Only decision nodes hold solver state: decision node ``d`` of player ``q`` with ``A`` actions owns
``A * H_q`` consecutive entries from ``offset[d]``, action-major (entry ``offset[d] + a * H_q + h`` is action
``a`` of hand ``h``). Regrets, the average-strategy weights and (for predictive CFR) the last instantaneous
regrets each use one array of that size, in the game's storage dtype -- nothing is stored for terminal or chance
nodes, nor for the other player's hands.

Chance isomorphism
------------------
A chance node may list only representative outcomes: child ``c`` then stands also for outcomes whose game is the
image of its own under a permutation of the hands (suit isomorphism in hold'em: swapping two suits that the board
and both ranges treat alike maps the game to itself). ``iso_ptr[c] .. iso_ptr[c + 1] - 1`` index ``iso_index``,
which names permutations in ``iso_perm`` (shape ``(P, 2, Hm)``): the value of player ``q``'s hand ``h`` in the
copy is the value of hand ``iso_perm[m, q, h]`` in the representative. The chance node adds the child's values once
as they are and once per listed copy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from games.core.tree import CHANCE, DECISION, TERMINAL, PublicTree

__all__ = ["TreeLayout", "build_layout"]

#: Default cap on the terminals of a unit without chance nodes (larger units are split).
MAX_UNIT_TERMINALS = 96


@dataclass(frozen=True, eq=False)
class TreeLayout:
    """Units and storage offsets of a public tree for given numbers of hands (see the module docstring).

    All ``*_ptr`` arrays are int64 CSR offsets (length ``U + 1`` for per-unit lists).

    Attributes
    ----------
    unit_of : numpy.ndarray of int32, shape ``(N,)``
        Unit of each node.
    local : numpy.ndarray of int32, shape ``(N,)``
        Row of each node in its unit's work space.
    unit_ptr, unit_nodes : numpy.ndarray
        Nodes of each unit (increasing, so parents come before children).
    root_ptr, root_nodes : numpy.ndarray
        The unit's roots: the tree's root for unit 0, otherwise children of chance nodes of the parent unit.
    dec_ptr, dec_nodes : numpy.ndarray
        Decision nodes of each unit (increasing).
    term_ptr, term_nodes : numpy.ndarray
        Terminal nodes of each unit, showdowns first (``showdown_stake != 0``), then folds.
    n_showdown : numpy.ndarray of int32, shape ``(U,)``
        Showdown terminals per unit.
    chance_ptr, chance_nodes : numpy.ndarray
        Chance nodes of each unit.
    child_ptr, child_units : numpy.ndarray
        Child units of each unit (the units of its chance nodes' children).
    unit_board, unit_depth, unit_parent : numpy.ndarray of int32, shape ``(U,)``
        Board, chance depth (0 for the root unit) and parent unit (-1 for the root) of each unit.
    depth_rows : numpy.ndarray of int64, shape ``(D + 1,)``
        Largest unit (nodes) at each chance depth: the work-space rows per depth.
    offset : numpy.ndarray of int64, shape ``(N,)``
        Storage offset of each decision node (-1 elsewhere).
    size : int
        Entries per storage array.
    max_terms : int
        Most terminals of a unit.
    iso_ptr : numpy.ndarray of int64, shape ``(N + 1,)``
    iso_index : numpy.ndarray of int32
    iso_perm : numpy.ndarray of int32, shape ``(P, 2, Hm)``
        Chance isomorphism (see the module docstring); empty without it.
    """

    unit_of: np.ndarray
    local: np.ndarray
    unit_ptr: np.ndarray
    unit_nodes: np.ndarray
    root_ptr: np.ndarray
    root_nodes: np.ndarray
    dec_ptr: np.ndarray
    dec_nodes: np.ndarray
    term_ptr: np.ndarray
    term_nodes: np.ndarray
    n_showdown: np.ndarray
    chance_ptr: np.ndarray
    chance_nodes: np.ndarray
    child_ptr: np.ndarray
    child_units: np.ndarray
    unit_board: np.ndarray
    unit_depth: np.ndarray
    unit_parent: np.ndarray
    depth_rows: np.ndarray
    offset: np.ndarray
    size: int
    max_terms: int
    iso_ptr: np.ndarray
    iso_index: np.ndarray
    iso_perm: np.ndarray

    @property
    def n_units(self) -> int:
        """Number of units."""
        return int(self.unit_ptr.shape[0] - 1)

    @property
    def max_depth(self) -> int:
        """Deepest chance depth of a unit."""
        return int(self.depth_rows.shape[0] - 1)

    def arrays(self) -> tuple:
        """The arrays the compiled traversal takes, in its order."""
        return (self.unit_of, self.local, self.unit_ptr, self.unit_nodes, self.root_ptr, self.root_nodes,
                self.dec_ptr, self.dec_nodes, self.term_ptr, self.term_nodes, self.n_showdown, self.chance_ptr,
                self.chance_nodes, self.child_ptr, self.child_units, self.unit_board, self.offset, self.iso_ptr,
                self.iso_index, self.iso_perm)

    def edge_index(self, tree: PublicTree, num_hands) -> tuple[np.ndarray, np.ndarray]:
        """Storage position of every action edge of each player, for converting to and from the edge layout of
        :class:`games.core.policy.Policy`.

        Returns
        -------
        tuple of two numpy.ndarray of int64, shape ``(E_p,)``
            For player ``p``: the storage offset of the first hand of each of his action edges, in the order of
            :meth:`PublicTree.action_edges` (hand ``h`` of edge ``e`` is at ``out[p][e] + h``).
        """
        out = []
        for p in (0, 1):
            edges, _, _ = tree.action_edges(p)
            par = tree.parent[edges]
            a = edges - tree.child_start[par]
            out.append(self.offset[par] + a.astype(np.int64) * int(num_hands[p]))
        return out[0], out[1]


@njit(cache=True)
def storage_to_edges(table, off, edges, hp, probs):  # pragma: no cover - compiled
    """Copy a storage-layout strategy into the edge layout: ``probs[edges[e], :hp] = table[off[e]:off[e] + hp]``
    and ``probs[edges[e], hp:] = 0`` for each of one player's action edges (``off``: :meth:`TreeLayout.edge_index`).
    One pass, no index arrays (a flop endgame's ``E x H`` index would take 390 MB)."""
    m = probs.shape[1]
    for e in range(edges.shape[0]):
        row = probs[edges[e]]
        o = off[e]
        for h in range(hp):
            row[h] = table[o + h]
        for h in range(hp, m):
            row[h] = 0.0


@njit(cache=True)
def edges_to_storage(probs, off, edges, hp, table):  # pragma: no cover - compiled
    """The inverse of :func:`storage_to_edges`: ``table[off[e]:off[e] + hp] = probs[edges[e], :hp]`` (cast to
    the table's dtype)."""
    for e in range(edges.shape[0]):
        row = probs[edges[e]]
        o = off[e]
        for h in range(hp):
            table[o + h] = row[h]


def _csr(keys: np.ndarray, values: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR grouping of ``values`` by ``keys`` (stable within a group)."""
    keys = np.asarray(keys, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    counts = np.bincount(keys, minlength=n_groups)
    ptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return ptr, np.asarray(values)[order].astype(np.int32)


def _blocks(tree: PublicTree) -> tuple[np.ndarray, np.ndarray]:
    """Block of every node and the root node of every block (block roots in breadth-first order)."""
    n = tree.n_nodes
    parent = tree.parent
    new_block = np.zeros(n, dtype=bool)
    new_block[0] = True
    new_block[1:] = tree.kind[parent[1:]] == CHANCE
    roots = np.flatnonzero(new_block)
    block_of = np.full(n, -1, dtype=np.int64)
    block_of[roots] = np.arange(roots.size)
    anc = parent.astype(np.int64).copy()
    anc[0] = 0
    todo = block_of < 0
    while np.any(todo):  # pointer jumping: a node's block is its nearest block root's
        block_of[todo] = block_of[anc[todo]]
        todo = block_of < 0
        anc[todo] = anc[anc[todo]]
    return block_of, roots


def build_layout(tree: PublicTree, num_hands, iso=None, max_unit_terminals: int = MAX_UNIT_TERMINALS) -> TreeLayout:
    """Units and storage offsets of ``tree`` (see the module docstring).

    Parameters
    ----------
    tree : PublicTree
    num_hands : tuple of (int, int)
        Hands of each player (the storage of a decision node is sized for its actor).
    iso : tuple, optional
        ``(iso_ptr, iso_index, iso_perm)`` describing chance isomorphism (see :class:`TreeLayout`).
    max_unit_terminals : int, default 96
        Units without chance nodes are split into units of at most this many terminals (whole blocks).

    Returns
    -------
    TreeLayout
    """
    n = tree.n_nodes
    kind = tree.kind
    parent = tree.parent
    block_of, block_roots = _blocks(tree)
    n_blocks = block_roots.size
    block_board = tree.board[block_roots].astype(np.int64)
    block_parent = np.full(n_blocks, -1, dtype=np.int64)
    block_parent[1:] = block_of[parent[block_roots[1:]]]
    block_terms = np.bincount(block_of[kind == TERMINAL], minlength=n_blocks)
    block_has_chance = np.bincount(block_of[kind == CHANCE], minlength=n_blocks) > 0
    # units: blocks grouped by (parent unit, board); leaf groups split by terminal count (blocks in order)
    unit_of_block = np.full(n_blocks, -1, dtype=np.int64)
    unit_of_block[0] = 0
    n_units = 1
    cap = max(1, int(max_unit_terminals))
    # blocks in breadth-first order of their roots: a block's parent block (hence unit) is already assigned
    pending: dict = {}
    order = np.argsort(block_roots, kind="stable")
    for blk in order[1:]:
        key = (int(unit_of_block[block_parent[blk]]), int(block_board[blk]))
        entry = pending.get(key)
        if entry is None or (not block_has_chance[blk] and entry[1] + block_terms[blk] > cap and entry[1] > 0):
            entry = [n_units, 0]
            pending[key] = entry
            n_units += 1
        unit_of_block[blk] = entry[0]
        entry[1] += int(block_terms[blk])
    unit_of = unit_of_block[block_of]
    nodes = np.arange(n, dtype=np.int64)
    unit_ptr, unit_nodes = _csr(unit_of, nodes, n_units)
    local = np.empty(n, dtype=np.int32)
    local[unit_nodes] = (np.arange(n, dtype=np.int64) - np.repeat(unit_ptr[:-1], np.diff(unit_ptr))).astype(
        np.int32)
    unit_board = np.zeros(n_units, dtype=np.int32)
    unit_board[unit_of_block] = block_board
    unit_parent = np.full(n_units, -1, dtype=np.int32)
    unit_parent[unit_of_block[1:]] = unit_of_block[block_parent[1:]]
    unit_depth = np.zeros(n_units, dtype=np.int32)
    for u in range(1, n_units):  # units are numbered so that parents come first
        unit_depth[u] = unit_depth[unit_parent[u]] + 1
    root_ptr, root_nodes = _csr(unit_of_block, block_roots, n_units)
    dec = np.flatnonzero(kind == DECISION)
    dec_ptr, dec_nodes = _csr(unit_of[dec], dec, n_units)
    term = np.flatnonzero(kind == TERMINAL)
    show = tree.showdown_stake[term] != 0
    t_order = np.lexsort((term, ~show, unit_of[term]))
    term_nodes = term[t_order].astype(np.int32)
    term_ptr = np.concatenate(([0], np.cumsum(np.bincount(unit_of[term], minlength=n_units)))).astype(np.int64)
    n_showdown = np.bincount(unit_of[term[show]], minlength=n_units).astype(np.int32)
    chance = np.flatnonzero(kind == CHANCE)
    chance_ptr, chance_nodes = _csr(unit_of[chance], chance, n_units)
    child_ptr, child_units = _csr(unit_parent[1:], np.arange(1, n_units), n_units)
    sizes = np.diff(unit_ptr)
    depth_rows = np.zeros(int(unit_depth.max()) + 1, dtype=np.int64)
    np.maximum.at(depth_rows, unit_depth, sizes)
    hands = np.asarray(num_hands, dtype=np.int64)
    store = np.zeros(n, dtype=np.int64)
    store[dec] = tree.num_children[dec].astype(np.int64) * hands[tree.player[dec]]
    offset = np.full(n, -1, dtype=np.int64)
    offset[dec] = np.concatenate(([0], np.cumsum(store[dec])[:-1]))
    if iso is None:
        iso_ptr = np.zeros(n + 1, dtype=np.int64)
        iso_index = np.zeros(0, dtype=np.int32)
        iso_perm = np.zeros((0, 2, int(hands.max())), dtype=np.int32)
    else:
        iso_ptr, iso_index, iso_perm = (np.ascontiguousarray(iso[0], dtype=np.int64),
                                        np.ascontiguousarray(iso[1], dtype=np.int32),
                                        np.ascontiguousarray(iso[2], dtype=np.int32))
        if iso_ptr.shape != (n + 1,):
            raise ValueError(f"iso_ptr must have shape ({n + 1},), got {iso_ptr.shape}")
    return TreeLayout(
        unit_of=unit_of.astype(np.int32), local=local, unit_ptr=unit_ptr, unit_nodes=unit_nodes,
        root_ptr=root_ptr, root_nodes=root_nodes, dec_ptr=dec_ptr, dec_nodes=dec_nodes, term_ptr=term_ptr,
        term_nodes=term_nodes, n_showdown=n_showdown, chance_ptr=chance_ptr, chance_nodes=chance_nodes,
        child_ptr=child_ptr, child_units=child_units, unit_board=unit_board, unit_depth=unit_depth,
        unit_parent=unit_parent, depth_rows=depth_rows, offset=offset, size=int(store.sum()),
        max_terms=int(max(1, np.diff(term_ptr).max() if n_units else 1)), iso_ptr=iso_ptr, iso_index=iso_index,
        iso_perm=iso_perm,
    )

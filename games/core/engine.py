"""The solver state of one game: storage, work space and the calls into the compiled traversal.

:class:`Engine` is what :func:`games.core.solve_cfr`, :func:`games.core.exploitability` and the best-response
functions run on. It lays the game out (:func:`games.core.layout.build_layout`), allocates the regrets and
average-strategy weights per decision node and acting hand in the game's storage dtype, a work space of a few
blocks per thread, and calls :mod:`games.core.traversal`. Its memory is :meth:`Engine.memory_bytes` (and
:func:`estimate_memory` before allocating).
"""

from __future__ import annotations

import heapq

import numba
import numpy as np

from games.core import traversal as X
from games.core.layout import TreeLayout, build_layout, edges_to_storage, storage_to_edges
from games.core.locks import check_locks, no_lock_arrays
from games.core.terminals import EVALUATOR_DENSE, terminal_columns
from games.core.tree import TERMINAL, Game

__all__ = ["Engine", "estimate_memory", "layout_of", "terminal_arrays"]

#: Root items (independent subtrees) below which a traversal runs on one thread.
PARALLEL_MIN_WORK = 200_000


def layout_of(game: Game) -> TreeLayout:
    """The game's :class:`TreeLayout` (built once per game object and cached on it).

    The layout is built by :func:`games.core.layout.build_layout` from ``game.tree``, ``game.num_hands`` and
    ``game.chance_isomorphism()``, and stored in the game's ``__dict__`` as ``_core_layout``; later calls
    return that object without looking at the game again (a tree changed afterwards is not seen).

    Parameters
    ----------
    game : Game
        The game; it must have an instance ``__dict__``.

    Returns
    -------
    TreeLayout
        The units and storage offsets of the game's public tree for its numbers of hands (shared, not copied:
        do not modify it).
    """
    cached = game.__dict__.get("_core_layout")
    if cached is None:
        cached = build_layout(game.tree, game.num_hands, iso=game.chance_isomorphism())
        game.__dict__["_core_layout"] = cached
    return cached


def terminal_arrays(game: Game) -> tuple:
    """The tree arrays the compiled traversal takes (``T`` of :func:`games.core.traversal.traverse`).

    Parameters
    ----------
    game : Game
        The game; its ``tree`` and, if it has one, its ``terminal_rake()`` (``None`` or chips per node, shape
        ``(N,)``) are read.

    Returns
    -------
    tuple
        ``(kind, player, parent, child_start, num_children, fold_value, showdown_stake, common)``. Without
        rake (``game.terminal_rake()`` is ``None`` or all zero) the tree's own arrays and ``common`` all zero.
        With rake ``r`` (chips, per terminal; the winner gets the pot minus ``r``, each player bears ``r / 2``
        on a split), every terminal is a zero-sum terminal with amounts ``r / 2`` smaller plus a payoff of
        ``-r / 2`` to each player: ``fold_value - sign(fold_value) * r / 2``, ``showdown_stake - r / 2`` on
        showdowns and ``common = -r / 2`` (float64, shape ``(N,)``). All have shape ``(N,)``: ``kind`` and
        ``player`` int8, ``parent``, ``child_start`` and ``num_children`` int32 (the tree's own arrays,
        shared, not copied), the amounts float64 (chips).

    Raises
    ------
    ValueError
        If the rake array has the wrong shape, is negative or not finite.
    """
    t = game.tree
    rake = game.terminal_rake() if hasattr(game, "terminal_rake") else None
    common = np.zeros(t.n_nodes)
    if rake is None or not np.any(rake):
        return (t.kind, t.player, t.parent, t.child_start, t.num_children, t.fold_value, t.showdown_stake, common)
    rake = np.asarray(rake, dtype=np.float64)
    if rake.shape != (t.n_nodes,) or not np.all(np.isfinite(rake)) or np.any(rake < 0):
        raise ValueError(f"terminal_rake must be finite, >= 0 and of shape ({t.n_nodes},)")
    half = np.where(t.kind == TERMINAL, 0.5 * rake, 0.0)
    fold = t.fold_value - np.sign(t.fold_value) * half
    stake = np.where(t.showdown_stake != 0, t.showdown_stake - half, 0.0)
    return (t.kind, t.player, t.parent, t.child_start, t.num_children, fold, stake, -half)


def _unit_work(layout: TreeLayout) -> np.ndarray:
    """Nodes in each unit's subtree of units (its own and all units below it)."""
    size = np.diff(layout.unit_ptr).astype(np.int64)
    for u in range(layout.n_units - 1, 0, -1):  # children come after parents
        size[layout.unit_parent[u]] += size[u]
    return size


#: Terminals evaluated side by side (the card evaluator's work space has padding columns besides,
#: :func:`games.core.terminals.terminal_columns`).
TERMINAL_WIDTH = 96


def _work_arrays(layout: TreeLayout, hm: int, dtype, n_threads: int, compressed: bool = False,
                 max_actions: int = 1) -> tuple:
    d = layout.max_depth + 1
    b = int(layout.depth_rows.max())
    k = terminal_columns(min(layout.max_terms, TERMINAL_WIDTH))
    ro = np.zeros((n_threads, d, b, hm), dtype=dtype)
    rs = np.zeros((n_threads, d, b, hm), dtype=dtype)
    st = np.zeros((n_threads, d, b, hm), dtype=dtype)
    v = np.zeros((n_threads, d, b, hm), dtype=dtype)
    orow = np.zeros((n_threads, d, b), dtype=np.int32)
    srow = np.zeros((n_threads, d, b), dtype=np.int32)
    tmp = np.zeros((n_threads, hm), dtype=dtype)
    scratch = (np.zeros((n_threads, hm, k), dtype=dtype), np.zeros((n_threads, k), dtype=dtype),
               np.zeros((n_threads, 52, k), dtype=dtype), np.zeros((n_threads, k), dtype=dtype),
               np.zeros((n_threads, 52, k), dtype=dtype), np.zeros((n_threads, hm, k), dtype=dtype),
               np.zeros((n_threads, k), dtype=np.int64), np.zeros((n_threads, k), dtype=np.int64),
               np.zeros((n_threads, 2, k)))
    frames = np.zeros((n_threads, 2, d + 1), dtype=np.int64)
    work = np.zeros((n_threads, max_actions if compressed else 1, hm if compressed else 1), dtype=dtype)
    return ro, rs, st, v, orow, srow, tmp, scratch, frames, work


def estimate_memory(game: Game, predictive: bool = False, n_threads: int | None = None,
                    compressed: bool = False) -> int:
    """Bytes an :class:`Engine` allocates for ``game``: regrets and average weights (plus the last regrets
    with ``predictive``) per decision node and acting hand in the storage dtype (2 bytes each and two scales
    per node with ``compressed``), and the per-thread work space (four rows per node of the largest unit at
    each chance depth, plus the terminal evaluator's scratch).

    Nothing is allocated but the game's layout (:func:`layout_of`, built and cached on ``game`` if it is not
    yet).

    Parameters
    ----------
    game : Game
        The game.
    predictive : bool, default False
        As :class:`Engine`: also count the last instantaneous regrets.
    n_threads : int, optional
        Threads whose work space is counted, as given (default numba's thread count). An :class:`Engine`
        uses at most one thread per root subtree, and without ``n_threads`` one thread for a small game, so
        the estimate can exceed what it allocates.
    compressed : bool, default False
        As :class:`Engine`: int16 regrets and uint16 average weights with two float scales per node.

    Returns
    -------
    int
        The estimate in bytes; it leaves out a few small arrays (a few hundred bytes for Kuhn or Leduc).

    Raises
    ------
    TypeError, ValueError
        If ``n_threads`` cannot be converted by ``int``.
    """
    layout = layout_of(game)
    item = game.storage_dtype.itemsize
    n_threads = numba.get_num_threads() if n_threads is None else int(n_threads)
    hm = game.max_hands
    d = layout.max_depth + 1
    b = int(layout.depth_rows.max())
    k = terminal_columns(min(layout.max_terms, TERMINAL_WIDTH))
    if compressed:
        state = layout.size * 4 + 2 * game.tree.n_nodes * item
    else:
        state = layout.size * item * (3 if predictive else 2)
    work = n_threads * (4 * d * b * hm * item + 8 * d * b + item * hm * (1 + 2 * k) + item * k * 106 + 32 * k)
    if compressed:
        work += n_threads * int(game.tree.num_children.max()) * hm * item
    slots = int(np.diff(layout.root_ptr)[layout.unit_depth == 1].sum()) * hm * item
    return int(state + work + slots)


class Engine:
    """Regrets, average-strategy weights and work space of one game, and the compiled passes over it.

    Parameters
    ----------
    game : Game
        Any game of the core's interface.
    predictive : bool, default False
        Keep the last instantaneous regrets (predictive CFR+, Farina, Kroer & Sandholm 2021).
    compressed : bool, default False
        Store regrets as int16 and average-strategy weights as uint16, each decision node with its own float scale
        (half the memory of float32; postflop-solver's compression). Not with ``predictive``.
    n_threads : int, optional
        Threads for the root block's independent subtrees (default: numba's thread count; one thread when the
        game is small). On one thread the kernels never compile their threaded branch (a first run on a machine
        compiles in about two thirds of the time; docs/BENCHMARKS.md, "Compiling the solver's kernels").
    locks : mapping or NodeLocks, optional
        Node locks (:mod:`games.core.locks`): locked (node, hand) entries play the locked strategy in every
        iteration and in the average, and the locked player's best response keeps them (the restricted game).

    Attributes
    ----------
    regret, avg : numpy.ndarray, shape ``(layout.size,)``
        Accumulated regrets and average-strategy weights, storage layout, the game's storage dtype.
    """

    def __init__(self, game: Game, predictive: bool = False, n_threads: int | None = None,
                 compressed: bool = False, locks=None):
        t = game.tree
        self.game = game
        self.layout = lay = layout_of(game)
        self.hands = np.asarray(game.num_hands, dtype=np.int64)
        self.dtype = dt = np.dtype(game.storage_dtype)
        self.evaluator = game.terminal_evaluator()
        self.T = terminal_arrays(game)
        #: Whether the payoffs sum to zero at every terminal (no rake): then player 2's value is minus player 1's.
        self.zero_sum = not np.any(self.T[7])
        if not self.zero_sum and self.evaluator[0] == EVALUATOR_DENSE:
            raise ValueError("a game with a common terminal payoff (rake) needs the card-showdown evaluator; the "
                             "dense evaluator's payoff matrices are zero-sum")
        self.L = lay.arrays()
        self.predictive = bool(predictive)
        self.compressed = bool(compressed)
        if self.compressed and self.predictive:
            raise ValueError("compressed storage cannot be combined with predictive regret matching")
        if self.compressed:
            self.regret = np.zeros(lay.size, dtype=np.int16)
            self.avg = np.zeros(lay.size, dtype=np.uint16)
            self.rscale = np.ones(t.n_nodes, dtype=dt)
            self.ascale = np.ones(t.n_nodes, dtype=dt)
        else:
            self.regret = np.zeros(lay.size, dtype=dt)
            self.avg = np.zeros(lay.size, dtype=dt)
            self.rscale = np.ones(1, dtype=dt)
            self.ascale = np.ones(1, dtype=dt)
        self.pred = np.zeros(lay.size if predictive else 1, dtype=dt)
        self.table = np.zeros(1, dtype=dt)
        self.locks = check_locks(game, locks)
        self.lock_of, self.lock_probs = (no_lock_arrays(dt) if self.locks is None
                                         else self.locks.kernel_arrays(dt))
        hm = game.max_hands
        items = int(lay.child_ptr[1] - lay.child_ptr[0])
        if n_threads is None:
            n_threads = numba.get_num_threads()
            if items == 0 or t.n_nodes * hm < PARALLEL_MIN_WORK:
                n_threads = 1
        self.n_threads = max(1, min(int(n_threads), max(items, 1)))
        # the kernels' ``parallel`` argument: None on one thread, so that numba prunes the threaded branch of
        # ``traverse`` at compile time and a serial run never compiles it
        self._parallel_arg = True if self.n_threads > 1 else None
        if self.n_threads > 1:
            # launch numba's threading layer now: a kernel loaded from the on-disk cache that reaches a parfor
            # through a non-parallel caller (run_iterations -> traverse -> _items_parallel) does not launch it,
            # and crashes (numba issue #8578); get_num_threads launches it
            numba.get_num_threads()
        self.W = _work_arrays(lay, hm, dt, self.n_threads, self.compressed, int(t.num_children.max()))
        self.assign_ptr, self.assign = self._assign(self.n_threads)
        depth1 = np.zeros(lay.root_nodes.shape[0], dtype=bool)
        for c in range(lay.child_ptr[0], lay.child_ptr[1]):
            u = lay.child_units[c]
            depth1[lay.root_ptr[u]:lay.root_ptr[u + 1]] = True
        self.slot_of = np.full(lay.root_nodes.shape[0], -1, dtype=np.int64)
        self.slot_of[depth1] = np.arange(int(depth1.sum()))
        self.slots = np.zeros((max(int(depth1.sum()), 1), hm), dtype=dt)
        self.out = np.zeros(hm)
        self._nobest = np.zeros(1, dtype=dt)

    # ------------------------------------------------------------------ set-up
    def _assign(self, n_threads: int) -> tuple[np.ndarray, np.ndarray]:
        """The root unit's child units per thread (positions in ``child_units``): largest subtree first to the
        least loaded thread (deterministic)."""
        lay = self.layout
        first, last = int(lay.child_ptr[0]), int(lay.child_ptr[1])
        if last == first:
            return np.zeros(n_threads + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
        weight = _unit_work(lay)[lay.child_units[first:last]]
        order = np.argsort(-weight, kind="stable")
        heap = [(0, k) for k in range(n_threads)]
        lists = [[] for _ in range(n_threads)]
        for it in order:
            load, k = heapq.heappop(heap)
            lists[k].append(first + int(it))
            heapq.heappush(heap, (load + int(weight[it]), k))
        ptr = np.concatenate(([0], np.cumsum([len(x) for x in lists]))).astype(np.int64)
        flat = np.array([i for x in lists for i in sorted(x)], dtype=np.int64)
        return ptr, flat

    def memory_bytes(self) -> int:
        """Bytes held by the storage and work arrays."""
        arrays = [self.regret, self.avg, self.pred, self.table, self.slots, self.out, self.rscale, self.ascale]
        w = self.W
        arrays += list(w[:7]) + list(w[7]) + [w[8], w[9], self.slot_of]
        return int(sum(a.nbytes for a in arrays))

    @property
    def S(self) -> tuple:
        return (self.regret, self.avg, self.pred, self.table, self.rscale, self.ascale, self.lock_of,
                self.lock_probs)

    # ------------------------------------------------------------------ passes
    def iterate(self, t0: int, n_iter: int, params: tuple) -> None:
        """Run CFR iterations ``t0 + 1 .. t0 + n_iter`` with kernel parameters from
        :meth:`games.core.cfr.CFRConfig.kernel_params`."""
        (alpha, alpha_kind, beta, beta_kind, gamma, delay, reset_base, alternating) = params
        if not alternating and self.table.size != self.layout.size:
            self.table = np.zeros(self.layout.size, dtype=self.dtype)
        X.run_iterations(t0, n_iter, alpha, alpha_kind, beta, beta_kind, gamma, delay, reset_base, alternating,
                         self.predictive, self._parallel_arg, self.T, self.L, self.S, self.E, self.hands, self.W,
                         self.assign_ptr, self.assign, self.slots, self.slot_of, self.out, self._nobest)

    @property
    def E(self) -> tuple:
        return self.evaluator

    def _pass(self, p: int, mode: int, table: np.ndarray | None, best=None) -> np.ndarray:
        source = X.SOURCE_AVERAGE if table is None else X.SOURCE_TABLE
        s = (self.regret, self.avg, self.pred, self.table if table is None else table, self.rscale, self.ascale,
             self.lock_of, self.lock_probs)
        factors = np.zeros(4)
        X.traverse(p, mode, source, self.predictive, self._parallel_arg, self.T, self.L, s, self.E, self.hands,
                   factors, self.W, self.assign_ptr, self.assign, self.slots, self.slot_of, self.out,
                   self._nobest if best is None else best)
        return self.out[:self.hands[p]].copy()

    def best_response_values(self, table: np.ndarray | None = None) -> np.ndarray:
        """``(2,)`` float64: each player's best-response value (chips) against the other's average strategy,
        or against ``table`` (storage layout) when given. With locks the responder's locked hands keep their
        locked strategy (the restricted game's best response)."""
        return np.array([self._pass(p, X.MODE_BEST_RESPONSE, table).sum() for p in (0, 1)])

    def hand_values(self, p: int, mode: int, table: np.ndarray | None = None, best=None) -> np.ndarray:
        """Root counterfactual values of player ``p``'s hands (chips, deal included) under ``mode``.

        With ``best`` (a storage-sized array): in :data:`~games.core.traversal.MODE_BEST_RESPONSE` it receives
        ``p``'s best response (1 on the chosen action), in :data:`~games.core.traversal.MODE_EXPECTED` the
        counterfactual value (chips, deal included) of each of ``p``'s actions at each of his decision nodes.
        """
        values = self._pass(p, mode, table, best)
        if best is not None and mode == X.MODE_EXPECTED:
            weights = np.ones(self.game.max_hands)
            X.own_weights(self.evaluator, p, weights)
            t = self.game.tree
            edges, _, _ = t.action_edges(p)
            if edges.size:
                hp = int(self.hands[p])
                off = self.layout.edge_index(t, self.game.num_hands)[p]
                idx = off[:, None] + np.arange(hp)
                best[idx] = best[idx] * weights[None, :hp]
        return values

    def expected_value(self, table: np.ndarray | None = None) -> float:
        """Player 1's expected payoff (chips) under the average strategies (or ``table``)."""
        return float(self._pass(0, X.MODE_EXPECTED, table).sum())

    def policy_values(self, table: np.ndarray | None = None) -> np.ndarray:
        """``(2,)`` float64: each player's expected payoff (chips) under the average strategies (or ``table``);
        one pass when the game is zero-sum (player 2 gets minus player 1's), one per player otherwise."""
        u0 = self.expected_value(table)
        if self.zero_sum:
            return np.array([u0, -u0])
        return np.array([u0, float(self._pass(1, X.MODE_EXPECTED, table).sum())])

    def exploitability_chips(self, table: np.ndarray | None = None) -> tuple:
        """``(exploitability, best-response values (2,), policy values (2,) or None)``: NashConv / 2 in chips of
        the average strategies (or ``table``). Zero-sum games: ``(br[0] + br[1]) / 2`` (the policy values cancel
        and are not computed, ``None``); otherwise ``(sum_p br[p] - u[p]) / 2``."""
        br = self.best_response_values(table)
        if self.zero_sum:
            return 0.5 * float(br[0] + br[1]), br, None
        u = self.policy_values(table)
        return 0.5 * float(br[0] - u[0] + br[1] - u[1]), br, u

    def strategies(self, source: str = "average") -> np.ndarray:
        """The normalised average (``"average"``) or current (``"current"``) strategy of every decision node,
        storage layout, the storage dtype."""
        out = np.zeros(self.layout.size, dtype=self.dtype)
        src = X.SOURCE_AVERAGE if source == "average" else X.SOURCE_REGRET
        s = self.S
        X.fill_strategies(src, self.predictive, self.T, self.L, s, self.hands, out, np.zeros(self.game.max_hands))
        return out

    # ------------------------------------------------------------------ layouts
    def to_edges(self, table: np.ndarray) -> np.ndarray:
        """A storage-layout strategy as the ``(N, Hm)`` edge layout of :class:`games.core.policy.Policy`
        (float64; rows of non-decision edges at 1)."""
        t = self.game.tree
        probs = np.ones((t.n_nodes, self.game.max_hands))
        for p, off in enumerate(self.layout.edge_index(t, self.game.num_hands)):
            edges, _, _ = t.action_edges(p)
            hp = int(self.hands[p])
            if edges.size:
                storage_to_edges(table, off, edges, hp, probs)
        return probs

    def from_edges(self, probs: np.ndarray) -> np.ndarray:
        """An ``(N, Hm)`` edge-layout strategy in the storage layout (storage dtype)."""
        t = self.game.tree
        out = np.zeros(self.layout.size, dtype=self.dtype)
        for p, off in enumerate(self.layout.edge_index(t, self.game.num_hands)):
            edges, _, _ = t.action_edges(p)
            hp = int(self.hands[p])
            if edges.size:
                edges_to_storage(np.asarray(probs, dtype=np.float64), off, edges, hp, out)
        return out


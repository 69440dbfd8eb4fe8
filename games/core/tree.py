"""The public tree and the small game interface every solver in :mod:`games.core` uses.

A two-player zero-sum poker game here has one shape (see ``DESIGN.md``, "The solver core"): chance deals each
player a private hand, then the players act in public, possibly with further public chance events (Leduc's board
card), and a terminal node is either a *fold* (a fixed transfer of chips) or a *showdown* (a comparison of the
private hands). Following DeepStack (Moravcik et al. 2017) and open-source postflop solvers, the game is
represented as a **public tree** whose nodes are the public states, with each player's private hands indexed
``0 .. H_p - 1`` and strategies, reaches and counterfactual values held as vectors over hands. An **information
set** is a pair ``(public node, own hand)``.

Chance and card removal
-----------------------
All chance (the private deal and every public chance event) is described by one dense matrix per *board*
(a class of public chance outcomes): ``deal[b, i, j]`` is the joint probability that player 1 holds hand ``i``,
player 2 holds hand ``j`` **and** the public chance events on the path to a node with ``board[node] == b``
happened. The root has board 0 and ``deal[0]`` is the private deal, which may be any joint distribution (the bet
game's ``probs[i, j]``), not only a deal from one deck. Card removal is the zero pattern of ``deal``: in Leduc,
``deal[b, i, j] = 0`` when hand ``i`` or ``j`` is the board card. A chance node's children partition its
probability mass: ``sum_k deal[board[child_k]] == deal[board[node]]``, so solvers never multiply by chance
probabilities -- a chance node simply sums its children's counterfactual values -- and
:func:`games.core.check.check_game` verifies the partition.

Terminal payoffs
----------------
At a terminal node ``t`` the payoff to player 1, in chips, with hands ``(i, j)``, is::

    u1(t, i, j) = fold_value[t] + showdown_stake[t] * showdown[board[t], i, j]

with ``showdown[b, i, j]`` in ``{-1, 0, +1}`` (+1 when player 1's hand wins at board ``b``, 0 for a split).
A fold has ``showdown_stake = 0``; a showdown has ``fold_value = 0``. Player 2 receives ``-u1`` (zero sum).
The terminal evaluator of the interface is :meth:`Game.values`::

    values(t, 0, r2)[i] =  sum_j deal[b, i, j] * u1(t, i, j) * r2[j]
    values(t, 1, r1)[j] = -sum_i deal[b, i, j] * u1(t, i, j) * r1[i]

the counterfactual values of each of the player's hands given the opponent's reach ``r`` (his own-action
probabilities only; chance is in ``deal``). The compiled solvers read the same arrays
(:meth:`Game.terminal_payoffs`) instead of calling back into Python.

Node numbering
--------------
A parent precedes its children and the children of a node are the contiguous range
``child_start[n] .. child_start[n] + num_children[n] - 1`` (:meth:`PublicTree.build` numbers breadth first; large
games build their arrays directly, :meth:`PublicTree.from_arrays`). Every non-root node is reached by
exactly one edge, so per-action quantities (strategies, regrets) are stored per *child node*: row ``c`` of an
``(n_nodes, H)`` array holds the probability, for each hand, of the action leading to ``c``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

__all__ = [
    "CHANCE",
    "DECISION",
    "TERMINAL",
    "Game",
    "NodeSpec",
    "PublicTree",
]

#: Node kinds.
CHANCE, DECISION, TERMINAL = 0, 1, 2

_KIND_NAMES = {CHANCE: "chance", DECISION: "decision", TERMINAL: "terminal"}


@dataclass
class NodeSpec:
    """A node of a public tree under construction (games build these, then call :meth:`PublicTree.build`).

    Parameters
    ----------
    kind : int
        :data:`CHANCE`, :data:`DECISION` or :data:`TERMINAL`.
    player : int, default -1
        The acting player (0 or 1) at a decision node; -1 otherwise.
    board : int, default 0
        Index of the board (class of public chance outcomes) this node belongs to; chooses ``deal[board]``.
    children : list of (str, NodeSpec)
        The actions (or chance outcomes) and the nodes they lead to, in a fixed order.
    fold_value : float, default 0
        Terminal only: the fixed payoff to player 1 in chips (a fold).
    showdown_stake : float, default 0
        Terminal only: the chips won by the better hand at a showdown.
    """

    kind: int
    player: int = -1
    board: int = 0
    children: list = field(default_factory=list)
    fold_value: float = 0.0
    showdown_stake: float = 0.0


@dataclass(frozen=True, eq=False)
class PublicTree:
    """A public game tree flattened into arrays (breadth-first order; node 0 is the root).

    Attributes
    ----------
    kind : numpy.ndarray of int8, shape ``(N,)``
        :data:`CHANCE`, :data:`DECISION` or :data:`TERMINAL`.
    player : numpy.ndarray of int8, shape ``(N,)``
        Acting player (0 = player 1, 1 = player 2) at decision nodes, -1 elsewhere.
    parent : numpy.ndarray of int32, shape ``(N,)``
        Parent node, -1 for the root.
    child_start, num_children : numpy.ndarray of int32, shape ``(N,)``
        Children of ``n`` are ``child_start[n] .. child_start[n] + num_children[n] - 1``.
    board : numpy.ndarray of int32, shape ``(N,)``
        Board index of each node (see the module docstring).
    fold_value, showdown_stake : numpy.ndarray of float64, shape ``(N,)``
        Terminal payoff parameters in chips (0 at non-terminal nodes).
    action_id : numpy.ndarray of int32, shape ``(N,)``
        Index in ``action_labels`` of the label of the edge into each node.
    action_labels : tuple of str
        The distinct edge labels (the root's is ``""``).
    """

    kind: np.ndarray
    player: np.ndarray
    parent: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    board: np.ndarray
    fold_value: np.ndarray
    showdown_stake: np.ndarray
    action_id: np.ndarray
    action_labels: tuple

    @classmethod
    def from_arrays(cls, kind, player, parent, child_start, num_children, board, fold_value, showdown_stake,
                    action_id, action_labels) -> PublicTree:
        """A tree from its arrays (see the class attributes); node 0 is the root, every node's children are
        contiguous and come after it. Large games build their trees this way, without Python objects per node.

        Raises
        ------
        ValueError
            If the arrays' lengths differ, a child does not come after its parent, or a label id is out of range.
        """
        n = len(kind)
        arrays = dict(kind=(kind, np.int8), player=(player, np.int8), parent=(parent, np.int32),
                      child_start=(child_start, np.int32), num_children=(num_children, np.int32),
                      board=(board, np.int32), fold_value=(fold_value, np.float64),
                      showdown_stake=(showdown_stake, np.float64), action_id=(action_id, np.int32))
        out = {}
        for name, (arr, dt) in arrays.items():
            a = np.ascontiguousarray(arr, dtype=dt)
            if a.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
            out[name] = a
        if n and (out["parent"][0] != -1 or np.any(out["parent"][1:] >= np.arange(1, n))):
            raise ValueError("every node must come after its parent (node 0 is the root, parent -1)")
        if n and (out["action_id"].min() < 0 or out["action_id"].max() >= len(action_labels)):
            raise ValueError("action_id out of range of action_labels")
        return cls(**out, action_labels=tuple(str(x) for x in action_labels))

    @cached_property
    def action(self) -> tuple:
        """Label of the edge into each node ("" for the root), a tuple of length ``N``."""
        labels = self.action_labels
        return tuple(labels[k] for k in self.action_id.tolist())

    @cached_property
    def history(self) -> tuple:
        """The public history of each node: the edge labels from the root joined by ``"/"`` ("" for the root)."""
        act = self.action
        out = [""] * self.n_nodes
        par = self.parent.tolist()
        for c in range(1, self.n_nodes):
            h = out[par[c]]
            out[c] = f"{h}/{act[c]}" if h else act[c]
        return tuple(out)

    @classmethod
    def build(cls, root: NodeSpec) -> PublicTree:
        """Flatten a :class:`NodeSpec` tree into arrays in breadth-first order.

        Raises
        ------
        ValueError
            On an unknown node kind, a decision node without children or with a player other than 0 or 1, a
            chance node without children, or a terminal node with children.
        """
        order: list[NodeSpec] = []
        parents: list[int] = []
        actions: list[str] = []
        histories: list[str] = []
        queue = deque([(root, -1, "", "")])
        while queue:
            spec, par, act, hist = queue.popleft()
            order.append(spec)
            parents.append(par)
            actions.append(act)
            histories.append(hist)
            idx = len(order) - 1
            for label, child in spec.children:
                queue.append((child, idx, str(label), f"{hist}/{label}" if hist else str(label)))
        n = len(order)
        kind = np.array([s.kind for s in order], dtype=np.int8)
        player = np.array([s.player if s.kind == DECISION else -1 for s in order], dtype=np.int8)
        num_children = np.array([len(s.children) for s in order], dtype=np.int32)
        child_start = np.zeros(n, dtype=np.int32)
        # Breadth-first: the children of the k-th node follow those of the nodes before it.
        child_start[:] = 1 + np.concatenate(([0], np.cumsum(num_children)[:-1]))
        labels: dict = {}
        for k, s in enumerate(order):
            where = f"node {k} ({histories[k] or 'root'})"
            if s.kind not in _KIND_NAMES:
                raise ValueError(f"{where}: unknown node kind {s.kind!r}")
            if s.kind == DECISION and s.player not in (0, 1):
                raise ValueError(f"{where}: a decision node needs player 0 or 1, got {s.player!r}")
            if s.kind != TERMINAL and not s.children:
                raise ValueError(f"{where}: a {_KIND_NAMES[s.kind]} node needs at least one child")
            if s.kind == TERMINAL and s.children:
                raise ValueError(f"{where}: a terminal node cannot have children")
        return cls(
            kind=kind,
            player=player,
            parent=np.array(parents, dtype=np.int32),
            child_start=child_start,
            num_children=num_children,
            board=np.array([s.board for s in order], dtype=np.int32),
            fold_value=np.array([s.fold_value if s.kind == TERMINAL else 0.0 for s in order], dtype=np.float64),
            showdown_stake=np.array([s.showdown_stake if s.kind == TERMINAL else 0.0 for s in order],
                                    dtype=np.float64),
            action_id=np.array([labels.setdefault(a, len(labels)) for a in actions], dtype=np.int32),
            action_labels=(),
        )._with_labels(labels)

    def _with_labels(self, labels: dict) -> PublicTree:
        names = [""] * len(labels)
        for text, k in labels.items():
            names[k] = text
        object.__setattr__(self, "action_labels", tuple(names))
        return self

    # ------------------------------------------------------------------ derived views
    @property
    def n_nodes(self) -> int:
        """Number of public nodes."""
        return int(self.kind.shape[0])

    def children(self, node: int) -> range:
        """The child node ids of ``node`` (empty for a terminal)."""
        s = int(self.child_start[node])
        return range(s, s + int(self.num_children[node]))

    def decision_nodes(self, player: int) -> np.ndarray:
        """Ids of the decision nodes of ``player`` (0 or 1), increasing; int32 array."""
        return self._decision_nodes[player].copy()

    @cached_property
    def _decision_nodes(self) -> tuple:
        return tuple(np.flatnonzero((self.kind == DECISION) & (self.player == p)).astype(np.int32) for p in (0, 1))

    def action_edges(self, player: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The actions of ``player`` as child nodes, grouped by decision node.

        Returns
        -------
        edges : numpy.ndarray of int64, shape ``(E,)``
            Child node ids of the player's decision nodes, node by node (contiguous, increasing).
        starts : numpy.ndarray of int64, shape ``(K,)``
            Offset in ``edges`` of each decision node's first action (for ``np.add.reduceat``).
        node_of_edge : numpy.ndarray of int64, shape ``(E,)``
            Index ``0..K-1`` of the decision node each edge belongs to.
        """
        return self._action_edges[player]

    @cached_property
    def _action_edges(self) -> tuple:
        out = []
        for p in (0, 1):
            nodes = self._decision_nodes[p]
            counts = self.num_children[nodes].astype(np.int64)
            starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
            node_of_edge = np.repeat(np.arange(nodes.size), counts)
            edges = self.child_start[nodes].astype(np.int64)[node_of_edge] + np.arange(counts.sum()) - starts[
                node_of_edge]
            out.append((edges, starts, node_of_edge))
        return tuple(out)

    @cached_property
    def depth(self) -> np.ndarray:
        """``(N,)`` int32: the depth of each node (the root has depth 0)."""
        n = self.n_nodes
        d = np.ones(n, dtype=np.int32)
        d[0] = 0
        anc = self.parent.astype(np.int64)
        anc[0] = 0
        # pointer jumping: d[i] is the distance from i to anc[i]; halve the remaining chain each round
        idx = np.flatnonzero(anc > 0)
        while idx.size:
            d[idx] += d[anc[idx]]
            anc[idx] = anc[anc[idx]]
            idx = idx[anc[idx] > 0]
        return d

    @cached_property
    def terminal_nodes(self) -> np.ndarray:
        """Ids of the terminal nodes, increasing; int32 array."""
        return np.flatnonzero(self.kind == TERMINAL).astype(np.int32)

    @cached_property
    def _history_index(self) -> dict:
        return {h: k for k, h in enumerate(self.history)}

    def node(self, key) -> int:
        """Resolve a node given as an id or as its public history string.

        Raises
        ------
        ValueError
            If the id is out of range or no node has that history.
        """
        if isinstance(key, str):
            if key not in self._history_index:
                raise ValueError(f"no public node has history {key!r}")
            return self._history_index[key]
        k = int(key)
        if not 0 <= k < self.n_nodes:
            raise ValueError(f"node id {key!r} is out of range 0..{self.n_nodes - 1}")
        return k

    @cached_property
    def last_own_edge(self) -> np.ndarray:
        """``(2, N)`` int32: for each player and node, the child id of that player's last action on the path
        from the root to the node (the node itself when it was reached by that player's action), or -1 if the
        player has not acted yet. It identifies the player's *sequence* (Koller, Megiddo & von Stengel 1996)."""
        n = self.n_nodes
        out = np.full((2, n), -1, dtype=np.int32)
        for c in range(1, n):
            par = self.parent[c]
            out[:, c] = out[:, par]
            if self.kind[par] == DECISION:
                out[self.player[par], c] = c
        return out


class Game:
    """Base class of the game interface: a public tree over private hands and a terminal evaluator.

    Subclasses set, in ``__init__``, the attributes below and implement :meth:`payoff` (the per-deal reference
    payoff that :func:`games.core.check.check_game` compares against) and :meth:`hand_labels`. Solvers use only
    ``tree``, ``num_hands``, ``deal``, ``showdown`` (through :meth:`values` or :meth:`terminal_payoffs`) and
    ``pot``, never anything specific to one game.

    Attributes
    ----------
    name : str
        Short name ("kuhn", "leduc", "betgame").
    tree : PublicTree
        The public tree.
    num_hands : tuple of (int, int)
        ``(H1, H2)``: the number of private hands of player 1 and player 2.
    deal : numpy.ndarray of float64, shape ``(B, H1, H2)``
        Joint probability of the private hands and the public chance events of each board (see the module
        docstring). ``deal[0]`` sums to 1.
    showdown : numpy.ndarray of float64, shape ``(B, H1, H2)``
        ``+1`` where player 1's hand beats player 2's at that board, ``-1`` where it loses, 0 for a split;
        entries where ``deal`` is 0 are never used.
    pot : float
        The pot at the root in chips (the antes): the scale of "exploitability below 1e-3 of the pot".
    big_blind : float or None
        The big blind in chips, for reporting in milli-big-blinds per game (mbb/g); ``None`` when the game has
        antes but no blind (Kuhn, Leduc, the bet game), in which case mbb/g is not reported.
    storage_dtype : numpy.dtype
        Precision of the solvers' per-(node, hand) arrays (float64 unless a game chooses float32).
    """

    name: str = "game"
    #: Floating-point type of the per-(node, hand) arrays the solvers allocate (regrets, strategies, reaches,
    #: counterfactual values): float64 by default; hold'em endgames use float32 to halve memory.
    storage_dtype = np.dtype(np.float64)
    tree: PublicTree
    num_hands: tuple
    deal: np.ndarray
    showdown: np.ndarray
    pot: float
    big_blind: float | None = None

    # ------------------------------------------------------------------ to implement
    def payoff(self, node: int, hand1: int, hand2: int) -> float:  # pragma: no cover - abstract
        """Payoff to player 1 in chips at terminal ``node`` when the players hold ``hand1`` and ``hand2``,
        computed from the game's rules (independently of the ``showdown`` matrices)."""
        raise NotImplementedError

    def hand_labels(self, player: int) -> list[str]:  # pragma: no cover - abstract
        """Readable names of the player's private hands, length ``H_player``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ provided
    @property
    def max_hands(self) -> int:
        """``max(H1, H2)``: the width of per-hand arrays shared by both players."""
        return int(max(self.num_hands))

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(name={self.name!r}, nodes={self.tree.n_nodes}, "
                f"hands={tuple(self.num_hands)}, boards={self.deal.shape[0]})")

    @cached_property
    def showdown_weighted(self) -> np.ndarray:
        """``deal * showdown``, shape ``(B, H1, H2)``: the chance-weighted showdown outcome."""
        return np.ascontiguousarray(self.deal * self.showdown)

    def terminal_payoffs(self) -> tuple[np.ndarray, np.ndarray]:
        """The arrays behind :meth:`values`, for compiled solvers.

        Returns
        -------
        term_index : numpy.ndarray of int64, shape ``(N,)``
            Row of each terminal node in ``payoff`` (-1 for non-terminal nodes).
        payoff : numpy.ndarray of float64, shape ``(T, H1, H2)``
            ``deal[b] * u1(t, i, j)`` for each terminal ``t`` in increasing node order, C-contiguous (chips).
            Memory is ``T * H1 * H2`` doubles: fine for Kuhn, Leduc and the bet game; a game with thousands of
            hands per player would need a structured (e.g. sorted-showdown) evaluator instead.
        """
        cached = self.__dict__.get("_terminal_payoffs")
        if cached is None:
            t = self.tree
            term = t.terminal_nodes
            b = t.board[term]
            payoff = (t.fold_value[term][:, None, None] * self.deal[b]
                      + t.showdown_stake[term][:, None, None] * self.showdown_weighted[b])
            index = np.full(t.n_nodes, -1, dtype=np.int64)
            index[term] = np.arange(term.size)
            cached = (index, np.ascontiguousarray(payoff, dtype=np.float64))
            self.__dict__["_terminal_payoffs"] = cached
        return cached

    def terminal_evaluator(self) -> tuple:
        """The game's terminal evaluator for the compiled traversal (:mod:`games.core.terminals`): the seam through
        which a game owns its terminal values, in the spirit of postflop-solver's ``Game::evaluate``.

        The default is :func:`games.core.terminals.dense_evaluator` over :meth:`terminal_payoffs`. Games with
        thousands of hands (hold'em) return :func:`games.core.terminals.card_showdown_evaluator` with their own
        hand ranks and never build ``H1 x H2`` matrices. Either way the evaluator computes what :meth:`values`
        does, for all hands of one player and all terminals of a chance block at once.
        """
        from games.core.terminals import dense_evaluator

        return dense_evaluator(*self.terminal_payoffs())

    def terminal_rake(self) -> np.ndarray | None:
        """Rake taken at each terminal, chips, ``(N,)`` float64 (0 at other nodes), or ``None`` (the default): a
        zero-sum game. With rake the winner receives the pot minus the rake and each player bears half of it on a
        split (see :func:`games.core.engine.terminal_arrays`); only the card-showdown evaluator supports it."""
        return None

    def chance_isomorphism(self):
        """Chance outcomes the tree lists once for several isomorphic ones, as ``(iso_ptr, iso_index, iso_perm)``
        (see :mod:`games.core.layout`), or ``None`` (the default: every outcome is its own child)."""
        return None

    def terminal_matrix(self, node: int) -> np.ndarray:
        """``deal[b] * u1(node, i, j)``, shape ``(H1, H2)``: the chance-weighted payoff to player 1 (chips).

        Raises
        ------
        ValueError
            If ``node`` is not a terminal node.
        """
        t = self.tree.node(node)
        if self.tree.kind[t] != TERMINAL:
            raise ValueError(f"node {t} ({self.tree.history[t] or 'root'}) is not terminal")
        b = self.tree.board[t]
        return self.tree.fold_value[t] * self.deal[b] + self.tree.showdown_stake[t] * self.showdown_weighted[b]

    def values(self, node, player: int, opp_reach) -> np.ndarray:
        """Counterfactual values of each of ``player``'s hands at a terminal node (fold or showdown).

        Parameters
        ----------
        node : int or str
            A terminal node (id or public history).
        player : int
            0 for player 1, 1 for player 2.
        opp_reach : array_like of float, shape ``(H_opp,)``
            The opponent's reach probabilities (product of his own action probabilities) per hand.

        Returns
        -------
        numpy.ndarray of float64, shape ``(H_player,)``
            ``sum_opp deal[b] * payoff_to_player * opp_reach`` in chips: the deal and chance probabilities and
            card removal are included, so summing ``own_reach * values`` gives the player's expected payoff.

        Raises
        ------
        ValueError
            If the node is not terminal, the player is not 0 or 1, or ``opp_reach`` has the wrong shape or
            contains NaN/inf.
        """
        t, r = self.terminal_query(node, player, opp_reach)
        u = self.terminal_matrix(t)
        return u @ r if player == 0 else -(u.T @ r)

    def terminal_query(self, node, player: int, opp_reach) -> tuple[int, np.ndarray]:
        """Check the arguments of :meth:`values` (for every game's implementation of it).

        Returns
        -------
        node : int
            The terminal node's id.
        opp_reach : numpy.ndarray of float64, shape ``(H_opp,)``

        Raises
        ------
        ValueError
            As :meth:`values`.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        t = self.tree.node(node)
        if self.tree.kind[t] != TERMINAL:
            raise ValueError(f"node {t} ({self.tree.history[t] or 'root'}) is not terminal")
        r = np.asarray(opp_reach, dtype=np.float64)
        h_opp = self.num_hands[1 - player]
        if r.shape != (h_opp,):
            raise ValueError(f"opp_reach must have shape ({h_opp},) for player {player}'s opponent, got {r.shape}")
        if not np.all(np.isfinite(r)):
            raise ValueError("opp_reach contains NaN or infinite entries")
        return t, r

    def hand_possible(self, player: int) -> np.ndarray:
        """``(B, H_player)`` bool: whether each hand can be held at each board (card removal)."""
        axis = 2 if player == 0 else 1
        return self.deal.sum(axis=axis) > 0

    def infoset_mask(self, player: int) -> np.ndarray:
        """``(N, H_player)`` bool: True at ``(node, hand)`` when ``node`` is a decision node of ``player`` and
        the hand is possible at its board -- the player's information sets."""
        t = self.tree
        mask = np.zeros((t.n_nodes, self.num_hands[player]), dtype=bool)
        nodes = t.decision_nodes(player)
        mask[nodes] = self.hand_possible(player)[t.board[nodes]]
        return mask

    def num_infosets(self, player: int) -> int:
        """Number of information sets ``(decision node, possible hand)`` of ``player``."""
        return int(self.infoset_mask(player).sum())

"""Behaviour strategies (policies) over a public tree, with validation.

Format
------
A :class:`Policy` holds both players' behaviour strategies in one float64 array ``probs`` of shape
``(N, Hm)`` (``N`` public nodes, ``Hm = max(H1, H2)``): for a node ``c`` whose parent ``n`` is a decision node of
player ``p``, ``probs[c, h]`` is the probability that ``p``, holding hand ``h``, takes the action leading from
``n`` to ``c``. Rows of nodes below chance nodes, and columns ``h >= H_p``, are unused (kept at 1 and 0).

The user-facing view is per public node: :meth:`Policy.at` returns the ``(H_p, n_actions)`` matrix of a decision
node (rows = hands, columns = actions in the tree's order), :meth:`Policy.from_dict` builds a policy from such
matrices, and :meth:`Policy.from_infosets` from one probability vector per information set ``(node, hand)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from games.core.tree import DECISION, Game
from rulelearn.validation import STRATEGY_ATOL

__all__ = ["Policy", "check_edge_probs"]


def _node_name(game: Game, n: int) -> str:
    h = game.tree.history[n]
    return f"node {n} ({h!r})" if h else f"node {n} (root)"


@njit(cache=True)
def _first_non_finite(arr):  # pragma: no cover - compiled
    """``(row, column)`` of the first NaN or infinite entry of ``arr`` in row-major order, or ``(-1, -1)``."""
    n, m = arr.shape
    for i in range(n):
        for j in range(m):
            if not np.isfinite(arr[i, j]):
                return i, j
    return -1, -1


@njit(cache=True)
def _check_player(arr, edges, starts, hp, atol, sums):  # pragma: no cover - compiled
    """One pass over one player's action rows ``arr[edges, :hp]``, node by node (``starts``): zero the unused
    columns ``hp:`` and find the first negative entry (``(1, e, h)``, row-major in the edge order) or, if there is
    none, the first node and hand whose probabilities do not sum to 1 within ``atol`` (``(2, k, h)``, its sum in
    ``sums[0]``); ``(0, -1, -1)`` if the rows are valid. The sums add the rows in edge order (the numpy check this
    replaced, ``np.add.reduceat``, may round them in another order: a sum can differ in its last bit)."""
    n_edges = edges.shape[0]
    n_nodes = starts.shape[0]
    m = arr.shape[1]
    acc = np.empty(hp)
    neg_e, neg_h = -1, -1
    bad_k, bad_h, bad_sum = -1, -1, 0.0
    for k in range(n_nodes):
        e0 = starts[k]
        e1 = starts[k + 1] if k + 1 < n_nodes else n_edges
        acc[:] = 0.0
        for e in range(e0, e1):
            row = arr[edges[e]]
            for h in range(hp):
                x = row[h]
                if x < 0.0 and neg_e < 0:
                    neg_e, neg_h = e, h
                acc[h] += x
            for h in range(hp, m):
                row[h] = 0.0
        if bad_k < 0:
            for h in range(hp):
                if abs(acc[h] - 1.0) > atol:
                    bad_k, bad_h, bad_sum = k, h, acc[h]
                    break
    if neg_e >= 0:
        return 1, neg_e, neg_h
    if bad_k >= 0:
        sums[0] = bad_sum
        return 2, bad_k, bad_h
    return 0, -1, -1


def check_edge_probs(game: Game, probs, name: str = "policy") -> np.ndarray:
    """Validate a policy array in the edge layout and return it as float64 ``(N, Hm)`` (a copy).

    Every information set ``(decision node, hand)`` of a player must hold a probability distribution over the
    node's actions: non-negative entries summing to 1 within :data:`rulelearn.validation.STRATEGY_ATOL`.
    Unused entries (rows below chance nodes, hands beyond ``H_p``) are reset to 1 and 0. The check is one
    compiled pass over the array (a flop endgame's policy, 485,000 nodes by 100 hands, in a fraction of a
    second).

    Parameters
    ----------
    game : Game
        The game whose public tree (``N = game.tree.n_nodes`` nodes) and hands (``Hm = game.max_hands``,
        ``H_p = game.num_hands[p]``) define the layout.
    probs : array_like of float, shape ``(N, Hm)``
        ``probs[c, h]``: the probability that the player acting at the parent of node ``c``, holding hand
        ``h``, takes the action leading to ``c`` (see the module docstring). Not modified.
    name : str, default "policy"
        What the error messages call the array.

    Returns
    -------
    numpy.ndarray of float64, shape ``(N, Hm)``
        A validated copy: the root's row and the rows of children of chance nodes set to 1, the columns
        ``h >= H_p`` of player ``p``'s action rows set to 0.

    Raises
    ------
    ValueError
        Wrong shape, NaN/inf, a negative probability, or a row that does not sum to 1; the message names the
        public node, the player and the hand (the first offending entry: NaN/inf in row-major order, then
        player 1's negative entries and sums, then player 2's). Also if ``probs`` is not numeric.
    """
    t = game.tree
    arr = np.array(probs, dtype=np.float64, copy=True)
    want = (t.n_nodes, game.max_hands)
    if arr.shape != want:
        raise ValueError(f"{name} must have shape (n_nodes, max_hands) = {want}, got {arr.shape}")
    bad = _first_non_finite(arr)
    if bad[0] >= 0:
        raise ValueError(f"{name} contains NaN or infinite entries (first at {tuple(int(i) for i in bad)})")
    sums = np.zeros(1)
    for p in (0, 1):
        hp = game.num_hands[p]
        edges, starts, _ = t.action_edges(p)
        if edges.size == 0:
            continue
        code, i, h = _check_player(arr, edges, starts, int(hp), float(STRATEGY_ATOL), sums)
        if code == 1:
            n = int(t.parent[edges[i]])
            raise ValueError(
                f"{name} has a negative probability {float(arr[edges[i], h])!r} at {_node_name(game, n)}, "
                f"player {p + 1}, hand {game.hand_labels(p)[h]!r}, action {t.action[edges[i]]!r}"
            )
        if code == 2:
            n = int(t.parent[edges[starts[i]]])
            raise ValueError(
                f"{name} is not normalised at {_node_name(game, n)}, player {p + 1}, hand "
                f"{game.hand_labels(p)[h]!r}: the action probabilities sum to {float(sums[0])!r}, not 1 "
                f"(tolerance {STRATEGY_ATOL:g})"
            )
    nondecision_children = t.kind[t.parent[1:]] != DECISION
    arr[1:][nondecision_children] = 1.0
    arr[0] = 1.0
    return arr


@dataclass(frozen=True, eq=False)
class Policy:
    """Both players' behaviour strategies in a game (see the module docstring for the layout).

    Attributes
    ----------
    game : Game
        The game the policy belongs to.
    probs : numpy.ndarray of float64, shape ``(N, Hm)``
        Edge-layout action probabilities (validated; read-only).
    """

    game: Game
    probs: np.ndarray

    def __post_init__(self):
        arr = check_edge_probs(self.game, self.probs)
        arr.setflags(write=False)
        object.__setattr__(self, "probs", arr)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def uniform(cls, game: Game) -> Policy:
        """Every information set plays its actions with equal probability."""
        t = game.tree
        probs = np.ones((t.n_nodes, game.max_hands))
        for n in np.flatnonzero(t.kind == DECISION):
            kids = t.children(n)
            probs[kids.start:kids.stop] = 1.0 / len(kids)
        return cls(game, probs)

    @classmethod
    def random(cls, game: Game, rng=None, concentration: float = 1.0) -> Policy:
        """A random policy: each information set's distribution drawn from a Dirichlet(concentration) law."""
        rng = np.random.default_rng(rng)
        t = game.tree
        probs = np.ones((t.n_nodes, game.max_hands))
        for n in np.flatnonzero(t.kind == DECISION):
            kids = t.children(n)
            hp = game.num_hands[t.player[n]]
            probs[kids.start:kids.stop, :hp] = rng.dirichlet(np.full(len(kids), concentration), size=hp).T
        return cls(game, probs)

    @classmethod
    def from_dict(cls, game: Game, strategies: dict) -> Policy:
        """Build a policy from one ``(H_p, n_actions)`` matrix per decision node.

        Parameters
        ----------
        strategies : dict
            Keys: decision nodes as ids or public-history strings; values: array_like of shape
            ``(H_p, n_actions)``, rows = the acting player's hands, columns = actions in the tree's order.

        Raises
        ------
        ValueError
            A key that is not a decision node, a missing decision node, a matrix of the wrong shape, a negative
            probability or a row not summing to 1.
        """
        t = game.tree
        probs = np.ones((t.n_nodes, game.max_hands))
        seen = set()
        for key, mat in strategies.items():
            n = t.node(key)
            if t.kind[n] != DECISION:
                raise ValueError(f"{_node_name(game, n)} is not a decision node; policies have no entry there")
            p = int(t.player[n])
            kids = t.children(n)
            m = np.asarray(mat, dtype=np.float64)
            want = (game.num_hands[p], len(kids))
            if m.shape != want:
                raise ValueError(f"strategy at {_node_name(game, n)} must have shape (hands, actions) = {want}, "
                                 f"got {m.shape}")
            probs[kids.start:kids.stop, :want[0]] = m.T
            seen.add(n)
        missing = [int(n) for n in np.flatnonzero(t.kind == DECISION) if n not in seen]
        if missing:
            names = ", ".join(_node_name(game, n) for n in missing[:5])
            raise ValueError(f"the policy has no strategy for {len(missing)} decision node(s): {names}"
                             + (" ..." if len(missing) > 5 else ""))
        return cls(game, probs)

    @classmethod
    def from_infosets(cls, game: Game, strategies: dict) -> Policy:
        """Build a policy from one action distribution per information set.

        Parameters
        ----------
        strategies : dict
            Keys ``(node, hand)`` with ``node`` an id or public history and ``hand`` an index; values array_like
            of shape ``(n_actions,)``. Every information set (a decision node with a hand the acting player can
            hold there, see :meth:`Game.infoset_mask`) must be present; hands impossible at a node (card
            removal) may be omitted and then play uniformly.

        Raises
        ------
        ValueError
            A missing information set, a key that is not an information set, a vector of the wrong length, a
            negative probability or a vector not summing to 1.
        """
        t = game.tree
        probs = np.full((t.n_nodes, game.max_hands), np.nan)
        for key, vec in strategies.items():
            try:
                node_key, hand = key
            except (TypeError, ValueError):
                raise ValueError(f"information-set keys must be (node, hand) pairs, got {key!r}") from None
            n = t.node(node_key)
            if t.kind[n] != DECISION:
                raise ValueError(f"{_node_name(game, n)} is not a decision node")
            p = int(t.player[n])
            if not 0 <= int(hand) < game.num_hands[p]:
                raise ValueError(f"hand {hand!r} is out of range for player {p + 1} at {_node_name(game, n)}")
            kids = t.children(n)
            v = np.asarray(vec, dtype=np.float64)
            if v.shape != (len(kids),):
                raise ValueError(f"strategy at {_node_name(game, n)}, hand {hand} must have {len(kids)} entries, "
                                 f"got shape {v.shape}")
            probs[kids.start:kids.stop, int(hand)] = v
        for p in (0, 1):
            mask = game.infoset_mask(p)
            labels = game.hand_labels(p)
            for n in t.decision_nodes(p):
                kids = t.children(n)
                for h in range(game.num_hands[p]):
                    if np.isnan(probs[kids.start, h]):
                        if mask[n, h]:
                            raise ValueError(f"the policy is missing the information set of player {p + 1} at "
                                             f"{_node_name(game, n)} holding {labels[h]!r}")
                        probs[kids.start:kids.stop, h] = 1.0 / len(kids)
        probs[np.isnan(probs)] = 1.0
        return cls(game, probs)

    # ------------------------------------------------------------------ views
    def at(self, node) -> np.ndarray:
        """The ``(H_p, n_actions)`` action probabilities at a decision node (rows = hands).

        Raises
        ------
        ValueError
            If the node is not a decision node.
        """
        t = self.game.tree
        n = t.node(node)
        if t.kind[n] != DECISION:
            raise ValueError(f"{_node_name(self.game, n)} is not a decision node")
        kids = t.children(n)
        return self.probs[kids.start:kids.stop, :self.game.num_hands[t.player[n]]].T.copy()

    def to_dict(self) -> dict:
        """``{public history: (H_p, n_actions) array}`` for every decision node (inverse of :meth:`from_dict`)."""
        t = self.game.tree
        return {t.history[n]: self.at(n) for n in np.flatnonzero(t.kind == DECISION)}

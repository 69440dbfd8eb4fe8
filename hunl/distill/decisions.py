"""Decisions of an endgame as rows of interpretable features: the data a distilled policy learns from and plays on.

A *decision* is an information set: a public decision node ``n`` of player ``p`` and a hand ``h`` of ``p``. Its
features (Bertsimas & Paskov 2022, Section 2.2; Ganzfried & Yusuf 2017, the cdf feature):

``equity``
    Equity of ``h`` against the opponent's range at ``n`` (win + tie / 2, card removal; on the turn averaged over
    the river cards): "beats x% of the opponent's range".
``equity_uniform``
    The same against a uniform range (raw hand strength on this board).
``percentile``
    Share of ``p``'s own range at ``n`` that ``h`` beats (where ``h`` sits in its range).
``facing_bet``
    The bet or raise ``p`` faces as a fraction of the pot before it (0 when not facing one).
``spr``
    Stack-to-pot ratio: chips ``p`` has behind after calling, over the pot after calling.
``opp_bets``, ``opp_bets_prev``
    Bets and raises of the opponent on this street and on the previous street of the endgame.
``in_position``
    1 for player 2 (acts last), 0 for player 1.
``opp_strong``
    Share of the opponent's range at ``n`` holding a strong hand (equity against a uniform range at least
    :data:`STRONG_EQUITY`): the all-in rule's "the opponent's range contains at least 10% strong hands".
``equity_margin``
    ``equity`` minus the pot odds of the bet faced, ``b / (1 + 2 b)`` for a bet of ``b`` pots: above 0, a call
    wins against the range (equal to ``equity`` when not facing a bet).
``defend_margin``
    ``percentile`` minus ``b / (1 + b)``: above 0, the hand is within the share ``1 / (1 + b)`` of the range that
    must continue so that a pure bluff does not profit (the minimum defence frequency); ``percentile`` when not
    facing a bet.
``own_strong``
    Share of the player's own range holding a strong hand (the nut advantage, with ``opp_strong``).
``range_equity``
    Mean equity of the player's own range against the opponent's (the range advantage; 0.5 = even).
``own_value``
    Share of the player's own range whose hand beats more than :data:`VALUE_EQUITY` of the opponent's range
    (its value bets: the count a bettor balances its bluffs against, Chen & Ankenman 2006, Chapter 11).
``decile_1`` ... ``decile_10`` (turn and flop)
    Deciles of ``h``'s equity histogram over the next card (the river on the turn, the turn on the flop) against
    the opponent's range (Bertsimas & Paskov 2022, Section 2.2).

The range features are computed against one of three pairs of ranges (``ranges=``): the ranges at ``n``
(``"node"``: Bayes' rule on the strategy being played - the equilibrium for training rows, the distilled
policy itself when it plays), the endgame's starting ranges (``"start"``, the default), or the acting player's
*own* range at ``n`` with the opponent's starting range (``"own"``: ``percentile``, ``defend_margin``,
``own_strong``, ``range_equity`` and ``own_value`` read the hands the player still holds after its own
actions, e.g. its checking range when it faces a bet after a check). A human can track each; for a distilled
policy ``"start"`` is much less exploitable than ``"node"``, because with ``"node"`` its features depend on
its own and its opponent's earlier mistakes, which compounds them (docs/HUNL.md has the numbers). ``"own"``
reads only the player's own actions, the way the minimum-defence rule does (:mod:`hunl.distill.defence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from games.core.tree import DECISION
from hunl.distill import features as F
from hunl.distill.actions import N_CLASSES, edge_classes
from hunl.poker.cards import COMBO_CARDS

__all__ = ["RIVER_FEATURES", "TURN_FEATURES", "STRONG_EQUITY", "VALUE_EQUITY", "RANGE_MODES", "feature_names", "DecisionContext", "reach_probabilities",
           "node_features", "features_in", "decision_rows", "DecisionRows", "range_weights", "upgrade_rows"]

RIVER_FEATURES = ("equity", "equity_uniform", "percentile", "facing_bet", "spr", "opp_bets", "opp_bets_prev",
                  "in_position", "opp_strong", "equity_margin", "defend_margin", "own_strong", "range_equity",
                  "own_value")
#: A hand is *strong* when its equity against a uniform range is at least this (the ``opp_strong`` feature).
STRONG_EQUITY = 0.8
#: A hand of the player's range is a *value* hand when it beats more than this share of the opponent's range
#: (the ``own_value`` feature; the river card's value bets start there).
VALUE_EQUITY = 0.85
TURN_FEATURES = RIVER_FEATURES + tuple(f"decile_{i}" for i in range(1, 11))


def feature_names(street: int) -> tuple[str, ...]:
    """The feature names of a decision on ``street`` (3 flop, 4 turn, 5 river): the flop has the turn's.

    Parameters
    ----------
    street : int
        Number of board cards at the decision: 3 (flop), 4 (turn) or 5 (river).

    Returns
    -------
    tuple of str
        :data:`RIVER_FEATURES` on the river (14 names); :data:`TURN_FEATURES` on the turn and flop (those and
        ``decile_1`` ... ``decile_10``, 24 names), in the column order of :func:`node_features`' matrices.

    Raises
    ------
    ValueError
        If ``street`` is not 3, 4 or 5.
    """
    if street not in (3, 4, 5):
        raise ValueError(f"street must be 3 (flop), 4 (turn) or 5 (river), got {street!r}")
    return RIVER_FEATURES if street == 5 else TURN_FEATURES


MEMO_BYTES = 128 * 2**20
"""Most bytes of range features a :class:`DecisionContext` keeps (:meth:`DecisionContext.remember`): a flop
endgame played on the opponent's starting range needs about 85 MB (an equity per river board and seat, 10.6 kB,
and decile histograms per turn board and seat, 106 kB)."""


class DecisionContext:
    """The public part of every decision of an endgame, computed once per game.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame

    Attributes
    ----------
    nodes : numpy.ndarray of int64, shape ``(D,)``
        Decision nodes, breadth-first.
    player, street, facing : numpy.ndarray, shape ``(D,)``
        Acting player (0/1), board size (3/4/5), whether the player faces a bet.
    public : numpy.ndarray of float64, shape ``(D, 5)``
        ``facing_bet, spr, opp_bets, opp_bets_prev, in_position`` of each decision node.
    edge_class : numpy.ndarray of int8, shape ``(N,)``
        Class of the action into every node (:func:`hunl.distill.actions.edge_classes`).
    memo : dict
        Range features already computed with this context, ``(kind, board index, range bytes) -> array``
        (:func:`node_features`), at most :data:`MEMO_BYTES` of them (``memo_bytes``: their size).
    """

    def __init__(self, game):
        self.game = game
        b = game.betting
        t = b.tree
        self.edge_class = edge_classes(b)
        self.nodes = np.flatnonzero(t.kind == DECISION).astype(np.int64)
        self.player = t.player[self.nodes].astype(np.int64)
        self.street = b.street[self.nodes].astype(np.int64)
        to_call = b.to_call[self.nodes]
        pot = b.pot[self.nodes]
        self.facing = to_call > 0
        cap = game.pot / 2.0 + game.config.stack
        behind = cap - b.contributions[self.nodes].max(axis=1)
        facing_bet = np.where(self.facing, to_call / np.maximum(pot - to_call, 1e-12), 0.0)
        spr = behind / (pot + to_call)
        # bets and raises per (node, player, street) along the path
        n = t.n_nodes
        bets = np.zeros((n, 2, 3), dtype=np.int64)  # [node, player, street 0=flop 1=turn 2=river]
        acting = t.kind[np.maximum(t.parent, 0)] == DECISION
        raising = np.array([a.startswith(("bet ", "raise", "all-in")) for a in t.action]) & acting
        raising[0] = False
        for k in np.flatnonzero(raising):
            par = int(t.parent[k])
            bets[k, int(t.player[par]), int(b.street[par]) - 3] = 1
        for d in range(1, int(t.depth.max()) + 1):         # cumulative along the path, a depth at a time
            kk = np.flatnonzero(t.depth == d)
            bets[kk] += bets[t.parent[kk]]
        opp = 1 - self.player
        s = self.street - 3
        first = int(self.street.min()) - 3 if self.street.size else 0   # the endgame's first street
        opp_bets = bets[self.nodes, opp, s]
        opp_prev = np.where(s > first, bets[self.nodes, opp, np.maximum(s - 1, 0)], 0)
        self.public = np.column_stack([facing_bet, spr, opp_bets, opp_prev, self.player.astype(float)])
        # range features of ranges this context has seen, per board: ``(kind, board index, range bytes) ->
        # array`` (:func:`_per_range`); a card played depth by depth reads the same starting range of the
        # opponent on a board at every depth
        self.memo: dict[tuple, np.ndarray] = {}
        self.memo_bytes = 0

    def remember(self, key: tuple, value: np.ndarray) -> None:
        """Keep ``value`` in :attr:`memo` under ``key`` while the memo holds less than :data:`MEMO_BYTES`."""
        if self.memo_bytes + value.nbytes <= MEMO_BYTES:
            self.memo[key] = value
            self.memo_bytes += value.nbytes

    @cached_property
    def boards(self) -> np.ndarray:
        """``(D,)`` int64: the board index of each decision node (``game.boards``)."""
        return self.game.tree.board[self.nodes].astype(np.int64)

    @cached_property
    def board_sizes(self) -> np.ndarray:
        """``(B,)`` int64: the number of cards of each board of ``game.boards``."""
        return np.array([len(b) for b in self.game.boards], dtype=np.int64)

    @cached_property
    def conflicts(self) -> np.ndarray:
        """``(B, 1326)`` bool: the combos that hold a card of each board of ``game.boards``."""
        out = np.zeros((len(self.game.boards), 1326), dtype=bool)
        for size in np.unique(self.board_sizes):
            of = np.flatnonzero(self.board_sizes == size)
            cards = np.array([self.game.boards[b] for b in of], dtype=np.int64)      # (B_s, size)
            out[of] = ((COMBO_CARDS[None, :, :1] == cards[:, None, :]).any(axis=2)
                       | (COMBO_CARDS[None, :, 1:] == cards[:, None, :]).any(axis=2))
        return out

    def node_classes(self, node: int) -> np.ndarray:
        """Classes of the actions of a decision node, in the tree's order."""
        kids = self.game.tree.children(int(node))
        return self.edge_class[kids.start:kids.stop].astype(np.int64)


def reach_probabilities(game, probs: np.ndarray, upto: np.ndarray | None = None,
                        reach: np.ndarray | None = None) -> np.ndarray:
    """Each player's own reach probability at every node (product of their action probabilities on the path).

    Parameters
    ----------
    game : HoldemEndgame
    probs : numpy.ndarray of float64, shape ``(N, Hm)``
        A policy in the edge layout (:class:`games.core.Policy`).
    upto : numpy.ndarray of int, optional
        Only refresh these nodes (their parents must be up to date in ``reach``), in breadth-first order.
    reach : numpy.ndarray, shape ``(2, N, Hm)``, optional
        Array to update in place (required with ``upto``).

    Returns
    -------
    numpy.ndarray of float64, shape ``(2, N, Hm)``
    """
    t = game.tree
    if reach is None:
        reach = np.ones((2, t.n_nodes, game.max_hands))
    nodes = np.arange(1, t.n_nodes) if upto is None else np.asarray(upto)
    # breadth-first order: process depth by depth so parents are done first
    depth = t.depth[nodes]
    for d in np.unique(depth):
        kk = nodes[depth == d]
        par = t.parent[kk]
        reach[:, kk] = reach[:, par]
        acting = t.player[par]
        for p in (0, 1):
            sel = kk[(t.kind[par] == DECISION) & (acting == p)]
            reach[p, sel] *= probs[sel]
    return reach


def _scatter(game, p: int, values: np.ndarray) -> np.ndarray:
    """Game-hand-indexed ``(K, Hm)`` values of player ``p`` -> ``(K, 1326)`` combo vectors."""
    out = np.zeros((values.shape[0], 1326))
    out[:, game.combos[p]] = values[:, :game.num_hands[p]]
    return out


def node_features(game, ctx: DecisionContext, which: np.ndarray, reach: np.ndarray,
                  opponent_start: bool = False) -> list[np.ndarray]:
    """Feature matrices of the hands of the decision nodes ``ctx.nodes[which]``.

    Parameters
    ----------
    game : HoldemEndgame
    ctx : DecisionContext
    which : numpy.ndarray of int
        Positions into ``ctx.nodes``.
    reach : numpy.ndarray of float64, shape ``(2, N, Hm)``
        Own reach probabilities (:func:`reach_probabilities`).
    opponent_start : bool, default False
        Read the opponent's range at the start of the endgame (its reach taken as 1), the acting player's own
        range from ``reach`` (the ``"own"`` range mode).

    Returns
    -------
    list of numpy.ndarray of float64
        For each requested node, ``(H_p, F)`` features of the acting player's hands in ``feature_names(street)``
        order; rows of hands that cannot hold on the node's board (they share the river card) are NaN.

    Notes
    -----
    The nodes are read a player and a board size at a time, :data:`FEATURE_CHUNK` nodes at once in board order:
    the arithmetic is vectorised over the nodes, and each board's range features (equity, percentile, deciles)
    are computed once per distinct range on it, for all its nodes. A node's figures do not depend on the nodes read
    with it: bit for bit for the equity kernels' features (each range on its own), to rounding for the shares of
    strong hands (numpy sums the rows of a batch in another order than a single row).
    """
    which = np.asarray(which, dtype=np.int64)
    out: list[np.ndarray | None] = [None] * which.size
    bidx = ctx.boards[which]
    n_cards = ctx.board_sizes[bidx]
    player = ctx.player[which]
    for size in (3, 4, 5):
        pos = np.flatnonzero(n_cards == size)
        pos = pos[np.argsort(bidx[pos], kind="stable")]
        for a in range(0, pos.size, FEATURE_CHUNK):
            part = pos[a:a + FEATURE_CHUNK]
            rows = {p: part[player[part] == p] for p in (0, 1)}
            reads = {p: _PlayerRows(game, ctx, which[r], p, reach, opponent_start) for p, r in rows.items() if r.size}
            for b in np.unique(bidx[part]):     # a board's two players one after the other: its showdowns once
                cards = tuple(sorted(game.boards[int(b)]))
                for r in reads.values():
                    r.read_board(int(b), cards)
            for p, r in reads.items():
                for m, i in enumerate(rows[p]):
                    out[i] = r.matrices[m]
    return out  # type: ignore[return-value]


FEATURE_CHUNK = 1024
"""Decision nodes :func:`node_features` reads at once (its scratch arrays hold ``(FEATURE_CHUNK, 1326)`` floats)."""


class _PlayerRows:
    """The features of the decision nodes ``ctx.nodes[ks]``, all of player ``p`` on boards of one size (``ks`` in
    board order), as :func:`node_features`: the arithmetic over the nodes at construction, then each board's range
    features (:meth:`read_board`, every board of ``ks`` once), then :attr:`matrices`."""

    def __init__(self, game, ctx: DecisionContext, ks: np.ndarray, p: int, reach: np.ndarray, opponent_start: bool):
        self.ctx, self.ks, self.p = ctx, ks, p
        prior = game.prior
        nodes = ctx.nodes[ks]
        self.bidx = bidx = ctx.boards[ks]
        o = 1 - p
        k = ks.size
        opp_reach = np.ones((k, game.max_hands)) if opponent_start else reach[o, nodes]
        self.opp_w = opp_w = _scatter(game, o, prior[o] * opp_reach)
        self.own_w = own_w = _scatter(game, p, prior[p] * reach[p, nodes])
        self.conflict = ctx.conflicts[bidx]                              # (K, 1326)
        opp_w[self.conflict] = 0.0
        own_w[self.conflict] = 0.0
        self.hp = hp = game.combos[p]
        # the range features depend on the node only through its board and the ranges: each distinct (board,
        # range) is evaluated once (with starting ranges every node of a board shares one)
        self.opp_u, self.opp_inv = _distinct_rows(opp_w, bidx, game.combos[o])
        self.own_u, self.own_inv = _distinct_rows(own_w, bidx, hp)
        self.opp_board, self.own_board = bidx[_first(self.opp_inv)], bidx[_first(self.own_inv)]
        self.eq_u = np.full((self.opp_u.shape[0], 1326), np.nan)
        self.pct_u = np.full((self.own_u.shape[0], 1326), np.nan)
        river = ctx.board_sizes[int(bidx[0])] == 5
        self.dec_u = None if river else np.full((self.opp_u.shape[0], hp.size, 10), np.nan)
        self.ok_u = self.opp_u.sum(axis=1) > 0
        self.okp_u = self.own_u.sum(axis=1) > 0
        self.uni = np.empty((k, hp.size))
        self.strong_opp = np.empty(k)
        self.strong_own = np.empty(k)

    def read_board(self, b: int, cards: tuple) -> None:
        """The range features of board ``b`` (its sorted cards ``cards``) for the nodes on it, if any."""
        at = np.flatnonzero(self.bidx == b)
        if not at.size:
            return
        ctx, hp = self.ctx, self.hp
        at = slice(int(at[0]), int(at[-1]) + 1)                          # ``ks`` is in board order
        uni = ctx.memo.get(("uniform", b, b""))
        if uni is None:
            uni = F._uniform_equity(cards)
            ctx.remember(("uniform", b, b""), uni)
        self.uni[at] = uni[hp]
        rows = np.flatnonzero((self.opp_board == b) & self.ok_u)
        if rows.size:
            w = self.opp_u[rows]
            self.eq_u[rows] = _per_range(ctx, "equity", b, w, lambda x: F._equity(F._showdowns(cards), x))
            if self.dec_u is not None:
                self.dec_u[rows] = _per_range(ctx, "deciles", b, w, lambda x: F._histogram(cards, x))[:, hp]
        rows = np.flatnonzero((self.own_board == b) & self.okp_u)
        if rows.size:
            self.pct_u[rows] = F._percentile(cards, self.own_u[rows])
        strong = np.flatnonzero(np.nan_to_num(uni) >= STRONG_EQUITY)
        self.strong_opp[at] = self.opp_w[at][:, strong].sum(axis=1)
        self.strong_own[at] = self.own_w[at][:, strong].sum(axis=1)

    @cached_property
    def matrices(self) -> np.ndarray:
        """``(K, H_p, F)`` float64: the nodes' feature matrices (after :meth:`read_board` on each of their boards)."""
        hp, k = self.hp, self.ks.size
        eq = self.eq_u[self.opp_inv]
        cols = [eq[:, hp], self.uni, self.pct_u[:, hp][self.own_inv]]
        pub = self.ctx.public[self.ks]  # (K, 5)
        for j in range(pub.shape[1]):
            cols.append(np.broadcast_to(pub[:, j:j + 1], (k, hp.size)))
        tot = self.opp_w.sum(axis=1)
        share = np.where(tot > 0, self.strong_opp / np.where(tot > 0, tot, 1.0), np.nan)
        cols.append(np.broadcast_to(share[:, None], (k, hp.size)))
        b = pub[:, 0:1]
        cols.append(cols[0] - b / (1.0 + 2.0 * b))
        cols.append(cols[2] - b / (1.0 + b))
        own_w = self.own_w
        own_tot = own_w.sum(axis=1)
        own_share = np.where(own_tot > 0, self.strong_own / np.where(own_tot > 0, own_tot, 1.0), np.nan)
        cols.append(np.broadcast_to(own_share[:, None], (k, hp.size)))
        missing = np.isnan(eq)
        eqw = np.where(missing, 0.0, eq) * own_w
        mass = np.where(missing, 0.0, own_w).sum(axis=1)
        req = np.where(mass > 0, eqw.sum(axis=1) / np.where(mass > 0, mass, 1.0), np.nan)
        cols.append(np.broadcast_to(req[:, None], (k, hp.size)))
        value = np.where(missing, 0.0, own_w * (eq > VALUE_EQUITY)).sum(axis=1)
        own_value = np.where(mass > 0, value / np.where(mass > 0, mass, 1.0), np.nan)
        cols.append(np.broadcast_to(own_value[:, None], (k, hp.size)))
        if self.dec_u is not None:
            dec = self.dec_u[self.opp_inv]
            cols.extend(dec[:, :, j] for j in range(10))
        mats = np.stack(cols, axis=-1)  # (K, H_p, F)
        mats[self.conflict[:, hp]] = np.nan
        return mats


def _first(inv: np.ndarray) -> np.ndarray:
    """The position of a first occurrence of each value ``0 .. inv.max()`` of ``inv``."""
    first = np.zeros(int(inv.max()) + 1 if inv.size else 0, dtype=np.int64)
    first[inv[::-1]] = np.arange(inv.size)[::-1]
    return first


def _per_range(ctx: DecisionContext, kind: str, bidx: int, rows: np.ndarray, compute) -> np.ndarray:
    """``compute(rows)`` for ``(K, 1326)`` ranges on board ``bidx``, each range computed once per context: the
    rows found in ``ctx.memo`` are read from it, the others computed in one call and kept
    (:meth:`DecisionContext.remember`). ``compute`` must treat its rows independently, as the equity kernels do
    (every range is its own column of their sums), so that a row's result does not depend on the batch."""
    memo = ctx.memo
    keys = [(kind, bidx, r.tobytes()) for r in rows]
    found = [memo.get(k) for k in keys]
    missing = [i for i, v in enumerate(found) if v is None]
    if missing:
        res = compute(rows[missing])
        for j, i in enumerate(missing):
            found[i] = res[j]
            ctx.remember(keys[i], res[j])
    return np.stack(found)


def _distinct_rows(w: np.ndarray, group: np.ndarray | None = None,
                   columns: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``w`` (first occurrences, in order) and the position of each row among them.

    With ``group`` (one label a row), rows of different groups are distinct even when equal (a range on two
    boards); with ``columns``, rows are compared on those columns only (the caller's rows agree elsewhere, e.g.
    zero off a player's combos)."""
    n = w.shape[0]
    if n == 0:
        return w, np.zeros(0, dtype=np.int64)
    keyed = w if columns is None else w[:, columns]
    labels = np.zeros(n, dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    if labels[0] == labels[-1] and not np.any(labels != labels[0]) and not np.any(keyed[1:] != keyed[0]):
        return w[:1], np.zeros(n, dtype=np.int64)
    seen: dict[tuple, int] = {}
    keyed = np.ascontiguousarray(keyed)
    inv = np.array([seen.setdefault((int(g), row.tobytes()), len(seen)) for g, row in zip(labels, keyed)],
                   dtype=np.int64)
    return w[_first(inv)], inv


RANGE_MODES = ("node", "start", "own")


def _feature_reach(reach: np.ndarray, ranges: str) -> np.ndarray:
    """The reach the range features use: the node's (``"node"``, ``"own"``) or none (``"start"``: the endgame's
    ranges)."""
    if ranges in ("node", "own"):
        return reach
    if ranges == "start":
        return np.broadcast_to(np.ones((reach.shape[0], 1, reach.shape[2])), reach.shape)   # no copy
    raise ValueError(f"ranges must be one of {RANGE_MODES}, got {ranges!r}")


def features_in(game, ctx: DecisionContext, which: np.ndarray, reach: np.ndarray, ranges) -> list[np.ndarray]:
    """:func:`node_features` of the range mode ``ranges`` (see the module docstring): ``reach`` is the policy's own
    reach (:func:`reach_probabilities`); ``"start"`` ignores it, ``"node"`` reads both players' reach and ``"own"``
    only the acting player's.

    ``ranges`` may also be a callable ``street -> mode`` (cards of different modes on different streets,
    :meth:`hunl.distill.cards.StreetCards.ranges_of`): each node's features are those of its street's mode.

    Parameters
    ----------
    game : HoldemEndgame
    ctx : DecisionContext
        The decisions of ``game``.
    which : array_like of int, shape ``(K,)``
        Positions into ``ctx.nodes``.
    reach : numpy.ndarray of float64, shape ``(2, N, Hm)``
        Each player's own reach probabilities under the policy played (:func:`reach_probabilities`); all ones
        for the starting ranges.
    ranges : {"node", "start", "own"} or callable
        The range mode (:data:`RANGE_MODES`), or a function of the street (3, 4 or 5, int) returning the mode
        of that street's nodes.

    Returns
    -------
    list of numpy.ndarray of float64
        For each node of ``which``, in that order, the ``(H_p, F)`` features of the acting player's hands in
        ``feature_names(street)`` order (:func:`node_features`; rows of hands that cannot hold on the node's
        board are NaN).

    Raises
    ------
    ValueError
        If a mode is not one of :data:`RANGE_MODES`.
    """
    which = np.asarray(which, dtype=np.int64)
    if isinstance(ranges, str):
        return node_features(game, ctx, which, _feature_reach(reach, ranges), opponent_start=ranges == "own")
    modes = [ranges(int(ctx.street[k])) for k in which]
    out: list = [None] * which.size
    for mode in dict.fromkeys(modes):
        pos = [i for i, m in enumerate(modes) if m == mode]
        for i, x in zip(pos, features_in(game, ctx, which[pos], reach, mode)):
            out[i] = x
    return out


def range_weights(game, ctx, which, reach: np.ndarray | None = None) -> list[np.ndarray]:
    """The acting player's range at each decision node ``ctx.nodes[which]``: each hand's prior weight times the
    player's own reach of the node (``reach`` of :func:`hunl.distill.decisions.reach_probabilities`; ``None``:
    the starting range).

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    ctx : hunl.distill.decisions.DecisionContext
    which : array_like of int
        Positions into ``ctx.nodes``.
    reach : numpy.ndarray of float64, shape ``(2, N, Hm)``, optional

    Returns
    -------
    list of numpy.ndarray of float64
        One ``(H_p,)`` vector a node (``H_p`` the acting player's hands), in the order of ``which``.
    """
    out = []
    for k in np.asarray(which, dtype=np.int64):
        p = int(ctx.player[k])
        hp = game.num_hands[p]
        w = np.asarray(game.prior[p][:hp], dtype=np.float64)
        out.append(w * reach[p, int(ctx.nodes[k]), :hp] if reach is not None else w.copy())
    return out


@dataclass(frozen=True)
class DecisionRows:
    """Training rows of one endgame: features, equilibrium class strategies and weights, per decision.

    Attributes
    ----------
    street : numpy.ndarray of int8, shape ``(m,)``
        4 (turn) or 5 (river).
    facing : numpy.ndarray of bool, shape ``(m,)``
    X : numpy.ndarray of float32, shape ``(m, 24)``
        Features in :data:`TURN_FEATURES` order; the decile columns are NaN on the river.
    Y : numpy.ndarray of float32, shape ``(m, 4)``
        The strategy as class probabilities (:mod:`hunl.distill.actions`).
    weight : numpy.ndarray of float64, shape ``(m,)``
        Probability of the decision under the strategy: the hand's prior weight times its own reach, times the
        opponent's reach mass at the node (card removal ignored), times the chance probability of the node's
        board, over the deal's normaliser (about 1 at the root).
    node, hand : numpy.ndarray of int64, shape ``(m,)``
        Public node and the player's hand index in the game.
    stake : numpy.ndarray of float64, shape ``(m,)``
        The pot after calling at the node, over the endgame's starting pot: what a mistake there can cost, in
        units of the pot exploitability is measured in.
    """

    street: np.ndarray
    facing: np.ndarray
    X: np.ndarray
    Y: np.ndarray
    weight: np.ndarray
    node: np.ndarray
    hand: np.ndarray
    stake: np.ndarray

    @classmethod
    def from_stored(cls, stored) -> DecisionRows:
        """The rows stored under their field names (an ``np.load`` of a cache written with every field).

        Parameters
        ----------
        stored : mapping of str to numpy.ndarray
            At least every field; ``X`` may be of the columns before ``own_value`` (:func:`upgrade_rows`).

        Returns
        -------
        DecisionRows
            ``X`` in :data:`TURN_FEATURES` order, the other fields as stored.

        Raises
        ------
        KeyError
            If a field is missing.
        ValueError
            If ``X`` has neither today's column count nor the one before ``own_value``.
        """
        return cls(*(upgrade_rows(stored[f]) if f == "X" else stored[f] for f in cls.__dataclass_fields__))


def decision_rows(game, probs: np.ndarray, min_weight: float = 0.0, ranges: str = "start",
                  streets=None) -> DecisionRows:
    """Every decision of an endgame played with the edge-layout policy ``probs`` as feature/strategy rows.

    Parameters
    ----------
    game : HoldemEndgame
    probs : numpy.ndarray of float64, shape ``(N, Hm)``
        The strategy (e.g. a DCFR average policy).
    min_weight : float, default 0
        Drop decisions whose weight is at most this (unreached information sets).
    ranges : {"start", "node"}, default "start"
        Range features against the endgame's starting ranges, or against the ranges at each node (Bayes' rule on
        ``probs``); see the module docstring.
    streets : sequence of int, optional
        Only the decisions on these streets (3 flop, 4 turn, 5 river); default all.

    Returns
    -------
    DecisionRows

    Raises
    ------
    ValueError
        If ``ranges`` is not one of :data:`RANGE_MODES`.
    """
    ctx = DecisionContext(game)
    reach = reach_probabilities(game, probs)
    sel = np.arange(ctx.nodes.size) if streets is None else np.flatnonzero(np.isin(ctx.street, list(streets)))
    feats = features_in(game, ctx, sel, reach, ranges)
    t = game.tree
    prior = game.prior
    stake = (game.betting.pot[ctx.nodes] + game.betting.to_call[ctx.nodes]) / game.pot
    parts = []
    for i, k in enumerate(sel):
        n = ctx.nodes[k]
        p = int(ctx.player[k])
        hp = game.num_hands[p]
        X = feats[i]
        kids = t.children(int(n))
        member = ctx.edge_class[kids.start:kids.stop]
        Y = np.zeros((hp, N_CLASSES))
        for j, c in enumerate(member):
            Y[:, c] += probs[kids.start + j, :hp]
        chance = float(game.chance[t.board[n]])
        w = prior[p, :hp] * reach[p, n, :hp] * float(prior[1 - p] @ reach[1 - p, n]) * chance / game.normaliser
        keep = (w > min_weight) & ~np.isnan(X[:, 0])
        if not keep.any():
            continue
        full = np.full((int(keep.sum()), len(TURN_FEATURES)), np.nan, dtype=np.float32)
        full[:, :X.shape[1]] = X[keep]
        parts.append((np.full(full.shape[0], ctx.street[k], np.int8), np.full(full.shape[0], ctx.facing[k]),
                      full, Y[keep].astype(np.float32), w[keep], np.full(full.shape[0], n, np.int64),
                      np.flatnonzero(keep), np.full(full.shape[0], stake[k])))
    if not parts:
        e = np.zeros(0)
        return DecisionRows(e.astype(np.int8), e.astype(bool), np.zeros((0, len(TURN_FEATURES)), np.float32),
                            np.zeros((0, N_CLASSES), np.float32), e, e.astype(np.int64), e.astype(np.int64), e)
    cols = list(zip(*parts))
    return DecisionRows(*(np.concatenate(c) for c in cols))


def upgrade_rows(X: np.ndarray) -> np.ndarray:
    """Feature rows stored before ``own_value`` joined :data:`RIVER_FEATURES`, in today's column order.

    Rows cached by earlier runs (a card run's ``rows_*.npz``, a flop run's solved training endgames) have the
    columns of :data:`TURN_FEATURES` without ``own_value``; it is inserted as NaN (no stored rule tests it),
    so that the decile columns keep their names.

    Parameters
    ----------
    X : numpy.ndarray of float, shape ``(m, F)``
        Stored feature rows: ``F = len(TURN_FEATURES)`` (today's) or one fewer (before ``own_value``).

    Returns
    -------
    numpy.ndarray, shape ``(m, len(TURN_FEATURES))``
        ``X`` itself when it has today's columns, else a copy with a NaN ``own_value`` column (same dtype).

    Raises
    ------
    ValueError
        If ``X`` is not two-dimensional or has neither column count.
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] not in (len(TURN_FEATURES), len(TURN_FEATURES) - 1):
        n = len(TURN_FEATURES)
        raise ValueError(f"X must be feature rows of shape (m, {n}) (or (m, {n - 1}) stored before "
                         f"own_value), got shape {X.shape}")
    if X.shape[1] == len(TURN_FEATURES):
        return X
    k = TURN_FEATURES.index("own_value")
    return np.insert(X, k, np.nan, axis=1).astype(X.dtype, copy=False)

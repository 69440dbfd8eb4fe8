"""A heads-up no-limit hold'em endgame (turn or river) as a game of the solver core (:mod:`games.core`).

The public tree is the betting tree of :mod:`hunl.solver.tree`; each player's private hands are the combos of his range
with positive weight (at most 1,326); chance deals the river card on a turn endgame. The two ranges form the
joint deal ``P(i, j) = w1[i] * w2[j] * [i, j and the board share no card] / Z`` (Libratus endgames give the
ranges as reach vectors; Brown & Sandholm 2019 normalise each to sum 1, which does not change ``P``), and the
river card is uniform over the 44 cards left given both hands. Terminal values come from the sorted O(n)
showdown of :mod:`games.core.showdown`; no ``hands x hands`` matrix is built unless asked for on a small game
(:attr:`HoldemEndgame.deal`, for the sequence-form LP and :func:`games.core.check.check_game`).

Per-(node, hand) solver arrays are float32 by default (``dtype``), which halves memory;
:meth:`HoldemEndgame.memory_estimate` gives the bytes a DCFR run will allocate before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np

from games.core.evaluation import ranked_showdown_terminal
from games.core.showdown import terminal_row
from games.core.tree import TERMINAL, Game
from hunl.poker.cards import COMBO_CARDS, COMBO_LABELS, check_board, format_card
from hunl.poker.ranges import check_range, parse_range
from hunl.solver.tree import BetSizes, BettingTree, TreeConfig, build_tree

__all__ = ["DENSE_LIMIT", "HoldemEndgame"]

#: Largest ``boards * H1 * H2`` for which the dense ``deal`` / ``showdown`` matrices may be built.
DENSE_LIMIT = 20_000_000


def _sizes(bet_sizes) -> tuple[BetSizes, BetSizes]:
    if isinstance(bet_sizes, BetSizes):
        return bet_sizes, bet_sizes
    if isinstance(bet_sizes, Mapping):
        unknown = set(bet_sizes) - {"turn", "river"}
        if unknown:
            raise ValueError(f"bet_sizes keys must be 'turn' and/or 'river', got {sorted(unknown)}")
        out = []
        for street in ("turn", "river"):
            s = bet_sizes.get(street, BetSizes())
            if isinstance(s, Mapping):
                s = BetSizes(**s)
            if not isinstance(s, BetSizes):
                raise ValueError(f"bet_sizes[{street!r}] must be a BetSizes or a mapping, got {s!r}")
            out.append(s)
        return out[0], out[1]
    raise ValueError(f"bet_sizes must be a BetSizes or a mapping street -> BetSizes, got {bet_sizes!r}")


class HoldemEndgame(Game):
    """A postflop HUNL endgame: a board, two ranges, a pot, stacks and a bet abstraction.

    Parameters
    ----------
    board : str or sequence of int
        4 cards (turn endgame) or 5 (river), e.g. ``"7s9h9cTc"``; no card repeated.
    ranges : sequence of two (str or array_like of shape (1326,))
        Player 1's (out of position, first to act) and player 2's range: a range string in solver syntax
        (``"AA,KQs,T9s-76s"``, see :func:`hunl.poker.ranges.parse_range`) or nonnegative weights per combo in the
        order of :mod:`hunl.poker.cards` (e.g. Libratus reach probabilities). Weights need not sum to 1.
    pot : float
        Chips in the pot at the start of the endgame; each player has put in half.
    stack : float
        Effective stack behind (chips each player can still bet).
    bet_sizes : BetSizes or mapping, default ``BetSizes()``
        The sizes of both streets, or ``{"turn": BetSizes, "river": BetSizes}``.
    raise_cap : int, default 3
        Raises allowed per street after the first bet.
    allin_threshold : float, default 0
        See :class:`hunl.solver.tree.TreeConfig`.
    big_blind : float, default 100
        The big blind in chips, for mbb/g and big blinds per hand.
    dtype : {"float32", "float64"}, default "float32"
        Storage precision of the solvers' per-(node, hand) arrays.
    drop_board_conflicts : bool, default False
        Weight arrays: zero the combos that share a card with the board instead of raising. (Range strings
        always skip such combos: ``"AA"`` on an ace-high board means the remaining three aces combos.)

    Raises
    ------
    ValueError
        A malformed or repeated board card, a board of the wrong size, a malformed range string, weights that
        are negative, NaN or of the wrong shape, positive weight on a combo that conflicts with the board
        (unless ``drop_board_conflicts``), an empty range, two ranges with no compatible pair of hands, a pot that
        is not positive, a negative stack, or bad sizes.

    Attributes
    ----------
    betting : BettingTree
        The betting tree with the state (street, contributions) at every node.
    combos : tuple of two numpy.ndarray of int64
        ``combos[p][h]``: the combo index (0..1325) of player ``p``'s hand ``h``.
    weights : numpy.ndarray of float64, shape (2, 1326)
        The ranges as given (weights per combo).
    """

    name = "hunl"

    def __init__(self, board, ranges, pot, stack, bet_sizes=None, raise_cap: int = 3,
                 allin_threshold: float = 0.0, big_blind: float = 100.0, dtype="float32",
                 drop_board_conflicts: bool = False):
        self.board = check_board(board, min_cards=4, max_cards=5, name="board")
        street = "turn" if len(self.board) == 4 else "river"
        turn, river = _sizes(BetSizes() if bet_sizes is None else bet_sizes)
        self.config = TreeConfig(street=street, pot=pot, stack=stack, turn=turn, river=river,
                                 raise_cap=raise_cap, allin_threshold=allin_threshold)
        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
        self.storage_dtype = dt
        bb = float(big_blind)
        if not np.isfinite(bb) or bb <= 0:
            raise ValueError(f"big_blind must be a positive number of chips, got {big_blind!r}")
        self.big_blind = bb
        if isinstance(ranges, (str, bytes)) or len(ranges) != 2:
            raise ValueError("ranges must hold two ranges (player 1's, player 2's)")
        weights = np.zeros((2, 1326))
        for p, r in enumerate(ranges):
            name = f"ranges[{p}]"
            if isinstance(r, str):
                w = parse_range(r, board=self.board)
                weights[p] = check_range(w, board=self.board, name=name, bounded=True)
            else:
                weights[p] = check_range(r, board=self.board, name=name, bounded=False,
                                         drop_board_conflicts=drop_board_conflicts)
        self.weights = weights
        self.pot = self.config.pot
        self.betting: BettingTree = build_tree(self.config, self.board)
        self.tree = self.betting.tree
        self._setup_hands()

    # ------------------------------------------------------------------ set-up
    def _setup_hands(self) -> None:
        from hunl.poker.evaluator import combo_strengths

        combos = tuple(np.flatnonzero(self.weights[p] > 0) for p in (0, 1))
        self.combos = combos
        self.num_hands = (int(combos[0].size), int(combos[1].size))
        hm = self.max_hands
        river_cards = self.betting.river_cards
        n_boards = 1 + len(river_cards)
        prior = np.zeros((2, hm))
        cards = np.zeros((2, hm, 2), dtype=np.int64)
        same = np.full((2, hm), -1, dtype=np.int64)
        position = np.full((2, 1326), -1, dtype=np.int64)
        for p in (0, 1):
            h = combos[p].size
            prior[p, :h] = self.weights[p, combos[p]]
            cards[p, :h] = COMBO_CARDS[combos[p]]
            position[p, combos[p]] = np.arange(h)
        for p in (0, 1):
            h = combos[p].size
            same[p, :h] = position[1 - p, combos[p]]
        # Z = sum over compatible pairs of w1[i] * w2[j] (card removal by inclusion-exclusion).
        w2 = prior[1, :self.num_hands[1]]
        card_sum = np.zeros(52)
        np.add.at(card_sum, cards[1, :self.num_hands[1], 0], w2)
        np.add.at(card_sum, cards[1, :self.num_hands[1], 1], w2)
        h1 = self.num_hands[0]
        mass = (w2.sum() - card_sum[cards[0, :h1, 0]] - card_sum[cards[0, :h1, 1]]
                + np.where(same[0, :h1] >= 0, prior[1, np.maximum(same[0, :h1], 0)], 0.0))
        z = float(prior[0, :h1] @ mass)
        if not z > 0:
            raise ValueError("ranges: no hand of player 1 can be dealt together with a hand of player 2 "
                             "(every pair shares a card)")
        self.normaliser = z
        scale = prior / z
        valid = np.zeros((2, n_boards, hm), dtype=np.uint8)
        strength = np.zeros((2, n_boards, hm), dtype=np.int32)
        order = np.zeros((2, n_boards, hm), dtype=np.int32)
        count = np.zeros((2, n_boards), dtype=np.int32)
        chance = np.ones(n_boards)
        for p in (0, 1):
            valid[p, 0, :self.num_hands[p]] = 1
        boards = [self.board] + [self.board + (c,) for c in river_cards]
        if river_cards:
            chance[1:] = 1.0 / (52 - 4 - 4)
        sorted_strength = np.zeros((2, n_boards, hm), dtype=np.int32)
        sorted_cards = np.zeros((2, n_boards, hm, 2), dtype=np.int8)
        sorted_prior = np.zeros((2, n_boards, hm))
        sorted_scale = np.zeros((2, n_boards, hm))
        for b, full in enumerate(boards):
            if len(full) != 5:
                continue
            s = combo_strengths(full)
            for p in (0, 1):
                h = self.num_hands[p]
                ok = s[combos[p]] >= 0
                valid[p, b, :h] = ok
                strength[p, b, :h] = np.where(ok, s[combos[p]], -1)
                idx = np.flatnonzero(ok)
                srt = idx[np.argsort(strength[p, b, idx], kind="stable")]
                m = srt.size
                order[p, b, :m] = srt
                count[p, b] = m
                sorted_strength[p, b, :m] = strength[p, b, srt]
                sorted_cards[p, b, :m] = cards[p, srt]
                sorted_prior[p, b, :m] = prior[p, srt]
                sorted_scale[p, b, :m] = prior[p, srt] / z
        self.boards = tuple(boards)
        self.chance = chance
        t = self.tree
        self._strength = strength
        self._data = (t.board.astype(np.int64), t.fold_value.copy(), t.showdown_stake.copy(), chance, valid, order,
                      count, sorted_strength, cards, same, scale, prior, sorted_cards, sorted_prior, sorted_scale)

    # ------------------------------------------------------------------ Game interface
    def compiled_terminal(self) -> tuple:
        """The ranked-showdown evaluator (:mod:`games.core.showdown`): O(n) per terminal, no dense matrices."""
        return ranked_showdown_terminal(self._data)

    @property
    def prior(self) -> np.ndarray:
        """``(2, Hm)`` float64: each player's range weight of each of their hands (0 beyond ``num_hands``)."""
        return self._data[11]

    def hand_labels(self, player: int) -> list[str]:
        """Combo labels (``"AsKh"``) of the player's hands."""
        return [COMBO_LABELS[k] for k in self.combos[player]]

    def hand_possible(self, player: int) -> np.ndarray:
        """``(B, H_player)`` bool: hands that share no card with each board."""
        return self._data[4][player, :, :self.num_hands[player]].astype(bool)

    def values(self, node, player: int, opp_reach) -> np.ndarray:
        """Counterfactual values (chips) of ``player``'s hands at a terminal node; see
        :meth:`games.core.tree.Game.values`. Computed by the sorted showdown, O(n).

        Raises
        ------
        ValueError
            If the node is not terminal, the player is not 0 or 1, or ``opp_reach`` has the wrong shape or
            non-finite entries.
        """
        t, r = self.terminal_query(node, player, opp_reach)
        out = np.zeros(self.num_hands[player])
        terminal_row(player, int(self.tree.board[t]), float(self.tree.fold_value[t]),
                     float(self.tree.showdown_stake[t]), np.ascontiguousarray(r), out, self._data)
        return out

    def payoff(self, node: int, hand1: int, hand2: int) -> float:
        """Payoff to player 1 (chips) at terminal ``node`` with hands ``hand1``, ``hand2`` (indices into
        :attr:`combos`), from the rules: the fold transfer, or the showdown of the two best 5-card hands."""
        from hunl.poker.evaluator import evaluate7

        t = self.tree
        if t.kind[node] != TERMINAL:
            raise ValueError(f"node {node} is not terminal")
        if t.showdown_stake[node] == 0:
            return float(t.fold_value[node])
        board = self.boards[t.board[node]]
        a = evaluate7(board + tuple(int(c) for c in COMBO_CARDS[self.combos[0][hand1]]))
        b = evaluate7(board + tuple(int(c) for c in COMBO_CARDS[self.combos[1][hand2]]))
        return float(t.showdown_stake[node] * np.sign(a - b))

    # ------------------------------------------------------------------ dense form (small games only)
    def _check_dense(self) -> None:
        size = len(self.boards) * self.num_hands[0] * self.num_hands[1]
        if size > DENSE_LIMIT:
            raise ValueError(f"the dense deal would have {size:,} entries (> {DENSE_LIMIT:,}); the solvers use the "
                             "sorted showdown instead -- dense matrices are for small spots only")

    @cached_property
    def deal(self) -> np.ndarray:
        """``(B, H1, H2)`` float64 joint probability of the hands and the board (small spots only; see
        :class:`games.core.tree.Game`). Raises ValueError above :data:`DENSE_LIMIT` entries."""
        self._check_dense()
        h1, h2 = self.num_hands
        c1 = COMBO_CARDS[self.combos[0]]
        c2 = COMBO_CARDS[self.combos[1]]
        compat = ((c1[:, None, 0] != c2[None, :, 0]) & (c1[:, None, 0] != c2[None, :, 1])
                  & (c1[:, None, 1] != c2[None, :, 0]) & (c1[:, None, 1] != c2[None, :, 1]))
        base = self.weights[0, self.combos[0]][:, None] * self.weights[1, self.combos[1]][None, :] * compat
        base /= self.normaliser
        valid = self._data[4]
        out = np.empty((len(self.boards), h1, h2))
        for b in range(len(self.boards)):
            out[b] = base * self.chance[b] * valid[0, b, :h1, None] * valid[1, b, None, :h2]
        return out

    @cached_property
    def showdown(self) -> np.ndarray:
        """``(B, H1, H2)`` float64 showdown outcome (+1 player 1 wins, 0 split, -1 loses; 0 on 4-card boards)."""
        self._check_dense()
        h1, h2 = self.num_hands
        s = self._strength
        return np.sign(s[0, :, :h1, None].astype(np.int64) - s[1, :, None, :h2].astype(np.int64)).astype(float)

    # ------------------------------------------------------------------ reporting
    def memory_estimate(self) -> int:
        """Bytes a CFR run (:func:`games.core.solve_cfr`) allocates for this game: the solver state (7 arrays of
        ``N x Hm`` in the storage dtype), the best-response evaluator (4 arrays plus int32 best actions) and the
        two float64 policies of the result (with one validation copy)."""
        n, hm = self.tree.n_nodes, self.max_hands
        item = self.storage_dtype.itemsize
        return int(n * hm * (11 * item + 4 + 3 * 8))

    def describe(self) -> str:
        """One line: street, board, pot, stack, hands per player and tree size."""
        board = "".join(format_card(c) for c in self.board)
        return (f"{self.config.street} endgame {board}, pot {self.pot:g}, stack {self.config.stack:g}, "
                f"hands {self.num_hands[0]} x {self.num_hands[1]}, {self.betting.summary()}, "
                f"~{self.memory_estimate() / 2**20:.0f} MiB")

    def combo_policy(self, policy, node) -> np.ndarray:
        """Action probabilities of every combo at a decision node: ``(1326, n_actions)`` float64, NaN rows for
        combos not in the acting player's range."""
        from games.core.policy import Policy

        t = self.tree
        n = t.node(node)
        p = int(t.player[n])
        if p not in (0, 1):
            raise ValueError(f"node {n} is not a decision node")
        probs = policy.probs if isinstance(policy, Policy) else np.asarray(policy)
        kids = t.children(n)
        out = np.full((1326, len(kids)), np.nan)
        out[self.combos[p]] = probs[kids.start:kids.stop, :self.num_hands[p]].T
        return out


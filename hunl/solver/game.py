"""A heads-up no-limit hold'em endgame (flop, turn or river) as a game of the solver core (:mod:`games.core`).

The public tree is the betting tree of :mod:`hunl.solver.tree`; each player's private hands are the combos of his range
with positive weight (at most 1,326); chance deals the turn and river cards. The two ranges form the joint deal
``P(i, j) = w1[i] * w2[j] * [i, j and the board share no card] / Z`` (Libratus endgames give the ranges as reach
vectors; Brown & Sandholm 2019 normalise each to sum 1, which does not change ``P``), and each card dealt is
uniform over the cards left given both hands (44 for a river card after the turn). Terminal values come from the
card-showdown evaluator of :mod:`games.core.terminals` (the game supplies each board's hands in order of
strength); no ``hands x hands`` matrix is built unless asked for on a small game (:attr:`HoldemEndgame.deal`,
for the sequence-form LP and :func:`games.core.check.check_game`). With ``isomorphism`` the tree deals one card
per class of suit-isomorphic cards (:func:`hunl.solver.tree.suit_symmetries`) and the solver counts it once per copy.

Per-(node, hand) solver arrays are float32 by default (``dtype``), which halves memory;
:meth:`HoldemEndgame.memory_estimate` gives the bytes a DCFR run will allocate before it starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np

from games.core.engine import terminal_arrays
from games.core.terminals import card_showdown_evaluator, cards_block, terminal_columns
from games.core.tree import TERMINAL, Game
from hunl.poker.cards import COMBO_CARDS, COMBO_INDEX, COMBO_LABELS, check_board, format_card
from hunl.poker.ranges import check_range, parse_range
from hunl.solver.limits import check_big_blind, check_rake
from hunl.solver.tree import (
    STREETS,
    BetSizes,
    BettingTree,
    StreetSizes,
    TreeConfig,
    build_tree,
    suit_symmetries,
)

__all__ = ["DENSE_LIMIT", "HoldemEndgame"]

#: Largest ``boards * H1 * H2`` for which the dense ``deal`` / ``showdown`` matrices may be built.
DENSE_LIMIT = 20_000_000


def _sizes(bet_sizes) -> dict:
    """Per-street sizes (:class:`BetSizes` or :class:`StreetSizes`) from one BetSizes or StreetSizes (every
    street) or a mapping street -> sizes (a mapping value with ``oop``/``ip``/``donk`` keys is a StreetSizes,
    another mapping a BetSizes)."""
    if isinstance(bet_sizes, (BetSizes, StreetSizes)):
        return {"flop": bet_sizes, "turn": bet_sizes, "river": bet_sizes}
    if isinstance(bet_sizes, Mapping):
        unknown = set(bet_sizes) - set(STREETS)
        if unknown:
            raise ValueError(f"bet_sizes keys must be streets ('flop', 'turn', 'river'), got {sorted(unknown)}")
        out = {}
        for street in STREETS:
            s = bet_sizes.get(street, BetSizes())
            if isinstance(s, Mapping):
                try:
                    s = StreetSizes(**s) if set(s) & {"oop", "ip", "donk"} else BetSizes(**s)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"bet_sizes[{street!r}]: {exc}") from None
            if not isinstance(s, (BetSizes, StreetSizes)):
                raise ValueError(f"bet_sizes[{street!r}] must be a BetSizes, a StreetSizes or a mapping, got {s!r}")
            out[street] = s
        return out
    raise ValueError(f"bet_sizes must be a BetSizes, a StreetSizes or a mapping street -> sizes, got {bet_sizes!r}")


class HoldemEndgame(Game):
    """A postflop HUNL endgame: a board, two ranges, a pot, stacks and a bet abstraction.

    Parameters
    ----------
    board : str or sequence of int
        3 cards (flop endgame), 4 (turn) or 5 (river), e.g. ``"7s9h9cTc"``; no card repeated.
    ranges : sequence of two (str or array_like of shape (1326,))
        Player 1's (out of position, first to act) and player 2's range: a range string in solver syntax
        (``"AA,KQs,T9s-76s"``, see :func:`hunl.poker.ranges.parse_range`) or weights in ``[0, 1]`` per combo in the
        order of :mod:`hunl.poker.cards` (e.g. Libratus reach probabilities). Weights need not sum to 1.
    pot : float
        Chips in the pot at the start of the endgame; each player has put in half.
    stack : float
        Effective stack behind (chips each player can still bet).
    bet_sizes : BetSizes, StreetSizes or mapping, default ``BetSizes()``
        The sizes of every street, or ``{"flop": ..., "turn": ..., "river": ...}`` with a
        :class:`~hunl.solver.tree.BetSizes` (both players), a :class:`~hunl.solver.tree.StreetSizes` (per
        player, donk sizes) or a mapping of their arguments per street (missing streets get ``BetSizes()``).
    raise_cap : int, default 3
        Raises allowed per street after the first bet.
    allin_threshold : float, default 0
        The old name of ``force_allin_threshold``.
    add_allin_threshold, force_allin_threshold, merging_threshold : float, optional
        Tree thresholds, see :class:`hunl.solver.tree.TreeConfig` (default 0, off).
    big_blind : float, default 100
        The big blind in chips, for mbb/g and big blinds per hand.
    dtype : {"float32", "float64"}, default "float32"
        Storage precision of the solver's per-(decision node, hand) arrays.
    drop_board_conflicts : bool, default False
        Weight arrays: zero the combos that share a card with the board instead of raising. (Range strings
        always skip such combos: ``"AA"`` on an ace-high board means the remaining three aces combos.)
    isomorphism : bool, default False
        Deal one card per class of suit-isomorphic cards (when the board and both ranges are symmetric under a
        swap of suits); the solver's values are those of the full tree.
    rake_rate : float, default 0
        Fraction of the pot the house takes at every terminal, in ``[0, 1)`` (e.g. 0.05).
    rake_cap : float, default inf
        Most chips raked at one terminal (``>= 0``; ``inf``: no cap). The rake at a terminal is
        ``min(rake_rate * pot, rake_cap)`` with ``pot`` both players' contributions at the terminal, the starting
        pot included and the uncalled part of a bet returned first (:meth:`terminal_rake`); the winner receives
        the pot minus the rake, each player bears half of it on a split (postflop-solver's and PioSOLVER's rule).
        With rake the game is not zero-sum: exploitability is ``sum_p (best response_p - value_p) / 2``
        (:mod:`games.core.best_response`).

    Raises
    ------
    ValueError
        A malformed or repeated board card, a board of the wrong size, a malformed range string, weights that
        are negative, above 1, NaN or of the wrong shape, positive weight on a combo that conflicts with the board
        (unless ``drop_board_conflicts``), an empty range, two ranges with no compatible pair of hands, a pot that
        is not positive, a negative stack, chip amounts beyond :data:`hunl.solver.limits.MAX_CHIPS`, bad
        sizes, a ``rake_rate`` outside ``[0, 1)`` or a negative or NaN ``rake_cap``.

    Attributes
    ----------
    betting : BettingTree
        The betting tree with the state (street, contributions) at every node.
    boards : tuple of tuple of int
        The cards of every board index (``tree.board``).
    combos : tuple of two numpy.ndarray of int64
        ``combos[p][h]``: the combo index (0..1325) of player ``p``'s hand ``h``.
    weights : numpy.ndarray of float64, shape (2, 1326)
        The ranges as given (weights per combo).
    chance : numpy.ndarray of float64, shape (B,)
        Probability of each board's cards beyond the starting board, given both hands (1 on the starting board).
    normaliser : float
        ``Z``, the sum over compatible pairs of ``w1[i] * w2[j]``.
    """

    name = "hunl"

    def __init__(self, board, ranges, pot, stack, bet_sizes=None, raise_cap: int = 3,
                 allin_threshold: float = 0.0, big_blind: float = 100.0, dtype="float32",
                 drop_board_conflicts: bool = False, isomorphism: bool = False, add_allin_threshold: float = 0.0,
                 force_allin_threshold: float | None = None, merging_threshold: float = 0.0,
                 rake_rate: float = 0.0, rake_cap: float = float("inf")):
        self.rake_rate, self.rake_cap = check_rake(rake_rate, rake_cap)
        self.board = check_board(board, min_cards=3, max_cards=5, name="board")
        street = {3: "flop", 4: "turn", 5: "river"}[len(self.board)]
        sizes = _sizes(BetSizes() if bet_sizes is None else bet_sizes)
        self.config = TreeConfig(street=street, pot=pot, stack=stack, flop=sizes["flop"], turn=sizes["turn"],
                                 river=sizes["river"], raise_cap=raise_cap, allin_threshold=allin_threshold,
                                 add_allin_threshold=add_allin_threshold,
                                 force_allin_threshold=force_allin_threshold, merging_threshold=merging_threshold)
        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
        self.storage_dtype = dt
        self.big_blind = check_big_blind(big_blind)
        if isinstance(ranges, (str, bytes)) or len(ranges) != 2:
            raise ValueError("ranges must hold two ranges (player 1's, player 2's)")
        weights = np.zeros((2, 1326))
        for p, r in enumerate(ranges):
            name = f"ranges[{p}]"
            if isinstance(r, str):
                w = parse_range(r, board=self.board)
                weights[p] = check_range(w, board=self.board, name=name, bounded=True)
            else:
                weights[p] = check_range(r, board=self.board, name=name, bounded=True,
                                         drop_board_conflicts=drop_board_conflicts)
        self.weights = weights
        self.pot = self.config.pot
        sym = suit_symmetries(self.board, weights) if isomorphism and len(self.board) < 5 else None
        self.betting: BettingTree = build_tree(self.config, self.board, symmetries=sym)
        self.tree = self.betting.tree
        self.boards = self.betting.boards
        self._setup_hands()

    # ------------------------------------------------------------------ set-up
    def _setup_hands(self) -> None:
        from hunl.poker.evaluator import combo_strengths

        combos = tuple(np.flatnonzero(self.weights[p] > 0) for p in (0, 1))
        self.combos = combos
        self.num_hands = (int(combos[0].size), int(combos[1].size))
        hm = self.max_hands
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
        self._position = position
        # Z = sum over compatible pairs of w1[i] * w2[j] (card removal by inclusion-exclusion).
        h1, h2 = self.num_hands
        w2 = prior[1, :h2]
        card_sum = np.zeros(52)
        np.add.at(card_sum, cards[1, :h2, 0], w2)
        np.add.at(card_sum, cards[1, :h2, 1], w2)
        mass = (w2.sum() - card_sum[cards[0, :h1, 0]] - card_sum[cards[0, :h1, 1]]
                + np.where(same[0, :h1] >= 0, prior[1, np.maximum(same[0, :h1], 0)], 0.0))
        z = float(prior[0, :h1] @ mass)
        if not z > 0:
            raise ValueError("ranges: no hand of player 1 can be dealt together with a hand of player 2 "
                             "(every pair shares a card)")
        self.normaliser = z
        self._prior = prior
        self._scale = prior / z
        self._cards = cards
        self._same = same
        n_start = len(self.board)
        n_boards = len(self.boards)
        chance = np.ones(n_boards)
        for b, full in enumerate(self.boards):
            for k in range(n_start, len(full)):
                chance[b] /= 52 - k - 4
        self.chance = chance
        # per board and player: the possible hands (sharing no card with the board), by increasing strength on
        # complete boards; boards with the same cards share one list
        lists = {}
        start = np.zeros((2, n_boards), dtype=np.int64)
        count = np.zeros((2, n_boards), dtype=np.int64)
        hands_flat = ([], [])
        strength_flat = ([], [])
        offset = [0, 0]
        for b, full in enumerate(self.boards):
            key = frozenset(full)
            entry = lists.get(key)
            if entry is None:
                entry = []
                if len(full) == 5:
                    s = combo_strengths(full)
                for p in (0, 1):
                    h = self.num_hands[p]
                    if len(full) == 5:
                        sp = s[combos[p]]
                        ok = np.flatnonzero(sp >= 0)
                        srt = ok[np.argsort(sp[ok], kind="stable")]
                        st = sp[srt]
                    else:
                        mask = np.ones(1326, dtype=bool)
                        for c in full:
                            mask[np.any(COMBO_CARDS == c, axis=1)] = False
                        srt = np.flatnonzero(mask[combos[p]])
                        st = np.zeros(srt.size, dtype=np.int64)
                    entry.append((offset[p], srt.size))
                    hands_flat[p].append(srt.astype(np.int32))
                    strength_flat[p].append(st.astype(np.int32))
                    offset[p] += srt.size
                lists[key] = entry
            for p in (0, 1):
                start[p, b], count[p, b] = entry[p]
        self._board_hands = tuple(np.concatenate(x) if x else np.zeros(0, np.int32) for x in hands_flat)
        self._board_strength = tuple(np.concatenate(x) if x else np.zeros(0, np.int32) for x in strength_flat)
        self._board_start = start
        self._board_count = count
        self._has_showdown = np.array([len(b) == 5 for b in self.boards], dtype=np.uint8)

    # ------------------------------------------------------------------ Game interface
    def terminal_rake(self) -> np.ndarray | None:
        """Rake at each terminal in chips: ``min(rake_rate * pot, rake_cap)`` with ``pot = 2 * min(c1, c2)`` --
        both contributions after the uncalled part of a bet is returned (at a fold, twice the folder's
        contribution; at a showdown, the whole pot), as postflop-solver computes it. ``(N,)`` float64, 0 at other
        nodes; ``None`` without rake (``rake_rate == 0`` or ``rake_cap == 0``)."""
        if self.rake_rate == 0.0 or self.rake_cap == 0.0:
            return None
        cached = self.__dict__.get("_terminal_rake")
        if cached is None:
            pot = 2.0 * self.betting.contributions.min(axis=1)
            cached = np.where(self.tree.kind == TERMINAL, np.minimum(self.rake_rate * pot, self.rake_cap), 0.0)
            self.__dict__["_terminal_rake"] = cached
        return cached

    def terminal_evaluator(self) -> tuple:
        """The card-showdown evaluator (:func:`games.core.terminals.card_showdown_evaluator`) of this endgame:
        per board, each player's possible hands by increasing strength, with card removal by the hands' cards."""
        return card_showdown_evaluator(self._board_hands, self._board_strength, self._board_start,
                                       self._board_count, self.chance, self._cards, self._same, self._prior,
                                       self._scale, self._has_showdown)

    def chance_isomorphism(self):
        """The suit-isomorphic copies of chance outcomes (:mod:`games.core.layout`), or ``None`` without
        isomorphism: for each copy, the hand permutation ``perm[q, h]`` = the hand whose value in the
        representative's subtree equals hand ``h``'s in the copy's."""
        iso_ptr, iso_sym, _ = self.betting.iso
        sym = self.betting.symmetries
        if sym.shape[0] <= 1 or iso_sym.size == 0:
            return None
        hm = self.max_hands
        perms = np.zeros((sym.shape[0], 2, hm), dtype=np.int32)
        for s in range(sym.shape[0]):
            # the copy's game is the image of the representative's under sigma = sym[s]: the value of hand h in
            # the copy is that of sigma^-1(h) in the representative
            inv = np.argsort(sym[s])
            for q in (0, 1):
                h = self.num_hands[q]
                cards = COMBO_CARDS[self.combos[q]]
                img = 4 * (cards // 4) + inv[cards % 4]
                combo = COMBO_INDEX[img[:, 0], img[:, 1]]
                pos = self._position[q, combo]
                if np.any(pos < 0):  # pragma: no cover - symmetries are checked against the ranges
                    raise ValueError("a suit symmetry does not map the range to itself")
                perms[s, q, :h] = pos
        return iso_ptr, iso_sym.astype(np.int32), perms

    @property
    def prior(self) -> np.ndarray:
        """``(2, Hm)`` float64: each player's range weight of each of their hands (0 beyond ``num_hands``)."""
        return self._prior

    def hand_labels(self, player: int) -> list[str]:
        """Combo labels (``"AsKh"``) of the player's hands."""
        return [COMBO_LABELS[k] for k in self.combos[player]]

    def hand_possible(self, player: int) -> np.ndarray:
        """``(B, H_player)`` bool: hands that share no card with each board."""
        h = self.num_hands[player]
        out = np.zeros((len(self.boards), h), dtype=bool)
        for b in range(len(self.boards)):
            a, m = self._board_start[player, b], self._board_count[player, b]
            out[b, self._board_hands[player][a:a + m]] = True
        return out

    def values(self, node, player: int, opp_reach) -> np.ndarray:
        """Counterfactual values (chips) of ``player``'s hands at a terminal node; see
        :meth:`games.core.tree.Game.values`. Computed by the card-showdown evaluator, O(n).

        Raises
        ------
        ValueError
            If the node is not terminal, the player is not 0 or 1, or ``opp_reach`` has the wrong shape or
            non-finite entries.
        """
        t, r = self.terminal_query(node, player, opp_reach)
        h_opp = self.num_hands[1 - player]
        hm = self.max_hands
        ro = np.zeros((1, hm))
        ro[0, :h_opp] = r
        v = np.zeros((1, hm))
        show = self.tree.showdown_stake[t] != 0
        arrays = terminal_arrays(self)
        fv = float(arrays[5][t])
        k = terminal_columns(1)  # the terminal in column 0, the rest padding (no payoff)
        coef = np.zeros((2, k))
        coef[:, 0] = [arrays[6][t] if show else (fv if player == 0 else -fv), arrays[7][t]]
        idx = np.zeros(k, dtype=np.int64)
        cards_block(player, int(self.tree.board[t]), np.asarray(self.num_hands, dtype=np.int64), int(show), 1,
                    idx, idx, coef, bool(coef[1, 0] != 0), ro, v, self.terminal_evaluator()[2], np.zeros((hm, k)),
                    np.zeros(k), np.zeros((52, k)), np.zeros(k), np.zeros((52, k)), np.zeros((hm, k)))
        return v[0, :self.num_hands[player]] * self._scale[player, :self.num_hands[player]]

    def payoff(self, node: int, hand1: int, hand2: int, player: int = 0) -> float:
        """Payoff (chips) to ``player`` (0: player 1, the default; 1: player 2) at terminal ``node`` with hands
        ``hand1``, ``hand2`` (indices into :attr:`combos`), from the rules: the fold transfer, or the showdown of
        the two best 5-card hands; with rake ``r`` (:meth:`terminal_rake`) the winner gets ``r`` less and each
        player pays ``r / 2`` on a split. Written directly from the rules, independently of the evaluator.

        Raises
        ------
        ValueError
            If the node is not terminal or ``player`` is not 0 or 1.
        """
        from hunl.poker.evaluator import evaluate7

        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        t = self.tree
        if t.kind[node] != TERMINAL:
            raise ValueError(f"node {node} is not terminal")
        c = self.betting.contributions[node]
        pot = 2.0 * min(c[0], c[1])
        rake = min(self.rake_rate * pot, self.rake_cap) if self.rake_rate > 0 else 0.0
        if t.showdown_stake[node] == 0:
            # player 1 folded (he gets -c1) or player 2 folded (player 1 gets +c2)
            loser = 0 if t.fold_value[node] < 0 else 1
        else:
            board = self.boards[t.board[node]]
            a = evaluate7(board + tuple(int(x) for x in COMBO_CARDS[self.combos[0][hand1]]))
            b = evaluate7(board + tuple(int(x) for x in COMBO_CARDS[self.combos[1][hand2]]))
            if a == b:
                return float(-rake / 2.0)
            loser = 0 if a < b else 1
        if player == loser:
            return float(-c[loser])
        return float(c[loser] - rake)

    # ------------------------------------------------------------------ dense form (small games only)
    def _check_dense(self) -> None:
        if self.betting.symmetries.shape[0] > 1:
            raise ValueError("the dense deal lists every chance outcome; build the game without isomorphism")
        size = len(self.boards) * self.num_hands[0] * self.num_hands[1]
        if size > DENSE_LIMIT:
            raise ValueError(f"the dense deal would have {size:,} entries (> {DENSE_LIMIT:,}); the solvers use the "
                             "card-showdown evaluator instead -- dense matrices are for small spots only")

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
        possible = (self.hand_possible(0), self.hand_possible(1))
        out = np.empty((len(self.boards), h1, h2))
        for b in range(len(self.boards)):
            out[b] = base * self.chance[b] * possible[0][b, :, None] * possible[1][b, None, :]
        return out

    @cached_property
    def showdown(self) -> np.ndarray:
        """``(B, H1, H2)`` float64 showdown outcome (+1 player 1 wins, 0 split, -1 loses; 0 on incomplete
        boards)."""
        self._check_dense()
        h1, h2 = self.num_hands
        out = np.zeros((len(self.boards), h1, h2))
        for b in range(len(self.boards)):
            if not self._has_showdown[b]:
                continue
            s = np.full((2, self.max_hands), -1, dtype=np.int64)
            for q in (0, 1):
                a, m = self._board_start[q, b], self._board_count[q, b]
                s[q, self._board_hands[q][a:a + m]] = self._board_strength[q][a:a + m]
            out[b] = np.sign(s[0, :h1, None] - s[1, None, :h2])
        return out

    # ------------------------------------------------------------------ reporting
    def memory_estimate(self, compressed: bool = False, threads: int | None = None) -> int:
        """Bytes a solve allocates for this game: the solver's (:class:`games.core.engine.Engine`) regrets and
        average weights per decision node and acting hand (16-bit with ``compressed``) and its work space for
        ``threads`` threads (:func:`games.core.engine.estimate_memory`), and the average strategy it returns
        (storage dtype, same layout)."""
        from games.core.engine import estimate_memory, layout_of

        returned = layout_of(self).size * self.storage_dtype.itemsize
        return estimate_memory(self, compressed=compressed, n_threads=threads) + returned

    def describe(self) -> str:
        """One line: street, board, pot, stack, rake (when there is one), hands per player and tree size."""
        board = "".join(format_card(c) for c in self.board)
        rake = ""
        if self.terminal_rake() is not None:
            cap = "" if np.isinf(self.rake_cap) else f" capped at {self.rake_cap:g}"
            rake = f", rake {100 * self.rake_rate:g}%{cap}"
        return (f"{self.config.street} endgame {board}, pot {self.pot:g}, stack {self.config.stack:g}{rake}, "
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

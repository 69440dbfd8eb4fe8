"""The bet game as a :class:`rulelearn.family.GameFamily`: random deals (Algorithms 4-5), exact LP solutions."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games.betgame.best_response import player1_exploitability
from games.betgame.card import cdf_quantities
from games.betgame.group_lp import optimal_group_strategy
from games.betgame.lp import solve_many
from games.betgame.rules import BetGame
from rulelearn.data.distributions import (
    joint_deal,
    log_uniform_simplex,
    marginals,
    pmf_to_cdf,
    random_simplex,
)

__all__ = ["HAND_LAWS", "BetGameFamily", "sample_game"]


#: Laws of the players' hand distributions: ``"simplex"`` (uniform on the simplex, Algorithm 4: the paper's) and
#: ``"log-uniform"`` (entries log-uniform on ``[1e-12, 1]`` before normalisation: a hard law for the LP, whose
#: deals span 24 orders of magnitude).
HAND_LAWS = ("simplex", "log-uniform")


def sample_game(seed: int, game_id: int, n_cards: int = 10, hand_law: str = "simplex"):
    """The generating distributions and deal of game ``game_id`` of the stream ``seed``.

    Game ``k`` uses ``numpy.random.default_rng([seed, k])``: player 1's and then player 2's distribution are
    drawn from ``hand_law`` (uniform on the simplex by default, Algorithm 4), joined without shared cards
    (Algorithm 5).

    Parameters
    ----------
    seed : int
        Seed of the game stream, ``>= 0``.
    game_id : int
        The game's index in the stream, ``>= 0``; the game depends only on ``(seed, game_id)``.
    n_cards : int, default 10
        Cards in the deck, ``>= 2``.
    hand_law : {"simplex", "log-uniform"}, default "simplex"
        Law of the generating distributions (:data:`HAND_LAWS`).

    Returns
    -------
    x1, x2 : numpy.ndarray of float64, shape ``(n_cards,)``
        Player 1's and player 2's generating distributions (pmfs over the cards, worst first).
    probs : numpy.ndarray of float64, shape ``(n_cards, n_cards)``
        The joint deal: ``probs[i, j]`` is the probability that player 1 holds card ``i`` and player 2 card
        ``j``; zero diagonal, sums to 1.

    Raises
    ------
    ValueError
        If ``hand_law`` is not one of :data:`HAND_LAWS`, ``seed`` or ``game_id`` is negative, or ``n_cards``
        is not an integer ``>= 2``.
    """
    if hand_law not in HAND_LAWS:
        raise ValueError(f"hand_law must be one of {HAND_LAWS}, got {hand_law!r}")
    draw = random_simplex if hand_law == "simplex" else log_uniform_simplex
    rng = np.random.default_rng([int(seed), int(game_id)])
    x1 = draw(n_cards, rng)
    x2 = draw(n_cards, rng)
    return x1, x2, joint_deal(x1, x2)


@dataclass(frozen=True)
class BetGameFamily:
    """Bet games with random deals, solved exactly.

    Parameters
    ----------
    n_cards, ante, stack, bets, bet_step
        The :class:`~games.betgame.rules.BetGame` parameters (the paper's game by default).
    hand_law : {"simplex", "log-uniform"}, default "simplex"
        Law of the generating distributions (:data:`HAND_LAWS`; the paper's by default).

    Notes
    -----
    Database columns (one row per game; ``n = n_cards``, ``B = n_bets``):
    ``game_id`` int64, ``seed`` int64 (of the stream), ``pmf1``/``pmf2`` (n,) the generating distributions,
    ``probs`` (n, n) the deal, ``cdf1``/``cdf2`` (n,) the cdfs of the deal's marginals (the players' ranges),
    ``strategy`` (n, B), ``call_probability`` (n, B), ``value`` (chips, to player 1), ``status`` (HiGHS),
    ``nash_conv`` (chips), ``iterations`` (simplex), ``verified`` (NashConv <= 1e-9).
    Learners use the marginals (the ranges each player faces), not the generating distributions.
    """

    n_cards: int = 10
    ante: float = 0.5
    stack: float = 3.0
    bets: tuple[float, ...] | None = None
    bet_step: float = 0.1
    hand_law: str = "simplex"
    game: BetGame = field(init=False, repr=False, compare=False)
    name: str = field(default="betgame", init=False)
    #: The paper's word for a hand (:func:`rulelearn.family.hand_noun`).
    hand_noun: str = field(default="card", init=False, repr=False)

    def __post_init__(self):
        if self.hand_law not in HAND_LAWS:
            raise ValueError(f"hand_law must be one of {HAND_LAWS}, got {self.hand_law!r}")
        game = BetGame(self.n_cards, self.ante, self.stack, self.bets, self.bet_step)
        object.__setattr__(self, "game", game)

    @property
    def hand_labels(self) -> list[str]:
        """Cards ``"1" .. "n"`` as in the paper."""
        return [str(k + 1) for k in range(self.game.n_cards)]

    @property
    def action_labels(self) -> list[str]:
        """``"check"``, ``"bet 0.1"``, ..."""
        return self.game.action_labels()

    @property
    def action_values(self) -> list[float]:
        """Bet sizes in chips (0 = check)."""
        return list(self.game.bets)

    @property
    def player_names(self) -> list[str]:
        return ["P1", "P2"]

    def config(self) -> dict:
        """The game's parameters (JSON); the hand law only when it is not the paper's (so databases written
        before it existed keep their config)."""
        g = self.game
        out = {"n_cards": g.n_cards, "ante": g.ante, "stack": g.stack, "bets": list(g.bets)}
        if self.hand_law != "simplex":
            out["hand_law"] = self.hand_law
        return out

    def solve_range(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """Sample and solve games ``start .. stop-1`` (see :func:`sample_game`); columns as in the class notes."""
        ids = np.arange(start, stop, dtype=np.int64)
        draws = [sample_game(seed, k, self.game.n_cards, self.hand_law) for k in ids]
        x1 = np.array([d[0] for d in draws])
        x2 = np.array([d[1] for d in draws])
        probs = np.array([d[2] for d in draws])
        sols = solve_many(probs, game=self.game, strict=False)  # an unverified game is stored flagged
        m1, m2 = marginals(probs)
        return {
            "game_id": ids,
            "seed": np.full(ids.shape, int(seed), dtype=np.int64),
            "pmf1": x1,
            "pmf2": x2,
            "probs": probs,
            "cdf1": pmf_to_cdf(m1),
            "cdf2": pmf_to_cdf(m2),
            "strategy": np.array([s.strategy for s in sols]),
            "call_probability": np.array([s.call_probability for s in sols]),
            "value": np.array([s.value for s in sols]),
            "status": np.array([s.status for s in sols], dtype=object),
            "nash_conv": np.array([s.nash_conv for s in sols]),
            "iterations": np.array([s.iterations for s in sols], dtype=np.int64),
            "verified": np.array([s.verified for s in sols]),
        }

    def ranges(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """The deal's marginals, shape ``(G, 2, n)``: ``probs`` summed over the other player's card."""
        m1, m2 = marginals(columns["probs"])
        return np.stack([m1, m2], axis=1)

    def strategies(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Player 1's equilibrium strategies, shape ``(G, n, B)``."""
        return np.asarray(columns["strategy"], dtype=np.float64)

    def player1_exploitability(self, columns: dict[str, np.ndarray], strategies: np.ndarray) -> np.ndarray:
        """Player 1's exploitability (chips) of ``strategies``, in closed form against the stored game values
        (:func:`games.betgame.best_response.player1_exploitability`)."""
        return np.atleast_1d(player1_exploitability(columns["probs"], strategies, columns["value"], self.game))

    def card_quantities(self) -> tuple:
        """Plain-language phrases of the game features rule cards test (:func:`games.betgame.card.cdf_quantities`)."""
        return cdf_quantities(self.game.n_cards)

    def optimal_group_strategy(self, columns: dict[str, np.ndarray], rows=None, weights=None,
                               start=None) -> np.ndarray:
        """The single strategy with the least weighted mean exploitability over a group of games (exact LP).

        Parameters
        ----------
        columns : dict of numpy.ndarray
            Loaded database columns; ``probs`` and ``value`` are used.
        rows : array_like of int, optional
            Positions of the group's games in ``columns`` (default: all).
        weights : array_like of float, shape ``(len(rows),)``, optional
            Non-negative game weights (default equal).
        start : array_like of float, shape ``(n, B)``, optional
            A guess (e.g. a related group's optimum): the LP starts from the bets it uses. The optimum's value
            does not depend on it.

        Returns
        -------
        numpy.ndarray of float64, shape ``(n, B)``
            Player 1's strategy (see :func:`games.betgame.group_lp.optimal_group_strategy`).

        Raises
        ------
        ValueError
            On an empty group or invalid weights.
        """
        idx = np.arange(len(columns["value"])) if rows is None else np.asarray(rows, dtype=np.intp).reshape(-1)
        if idx.size == 0:
            raise ValueError("rows must select at least one game")
        return optimal_group_strategy(columns["probs"][idx], columns["value"][idx], weights, self.game,
                                      start=start).strategy

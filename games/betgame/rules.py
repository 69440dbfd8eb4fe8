"""The ten-card no-limit bet game (Ganzfried & Yusuf 2017, *Games* 8(4), Section 1) and its input checks.

Both players ante ``ante`` chips (the pot is ``2 * ante``) and are dealt one card each from an ordered deck of
``n_cards`` cards according to a joint deal ``probs`` (``probs[i, j]``: player 1 holds card ``i``, player 2 holds
card ``j``; card 0 is the worst). Player 1 picks a bet from the grid ``bets`` (chips beyond the ante; a bet of 0
is a check). After a check the higher card wins the antes. After a positive bet player 2 calls or folds: a fold
gives player 1 the pot (a net ``+ante``), a call goes to showdown for ``ante + bet`` each.

Payoffs are in chips, to player 1, net of his own ante::

    check:          +ante if i > j else -ante
    bet s, fold:    +ante
    bet s, call:    +(ante + s) if i > j else -(ante + s)

Strategies
----------
``strategy`` (player 1), shape ``(n_cards, n_bets)``: ``strategy[i, b]`` is the probability of betting
``bets[b]`` with card ``i``. ``call_probability`` (player 2), shape ``(n_cards, n_bets)``:
``call_probability[j, b]`` is the probability of calling bet ``bets[b]`` with card ``j``; the column of a check
(bet 0) is 1 by convention (a check always goes to showdown) and is ignored on input.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rulelearn.validation import (
    PMF_ATOL,
    STRATEGY_ATOL,
    as_float_array,
    check_int,
    check_probability_rows,
)

__all__ = ["BetGame", "DEFAULT_GAME"]


def _default_grid(stack: float, step: float) -> tuple[float, ...]:
    count = int(np.floor(stack / step + 1e-9))
    return tuple(float(round(k * step, 10)) for k in range(count + 1))


@dataclass(frozen=True)
class BetGame:
    """Parameters of the no-limit bet game (Ganzfried & Yusuf 2017, Section 1).

    Parameters
    ----------
    n_cards : int, default 10
        Deck size; cards are ``0 .. n_cards-1`` from worst to best (the paper's cards 1..10).
    ante : float, default 0.5
        Each player's ante in chips; the pot before betting is ``2 * ante``.
    stack : float, default 3.0
        Chips behind after the ante; the largest allowed bet.
    bets : tuple of float, optional
        The bet grid in chips, strictly increasing, within ``[0, stack]``; 0 means check.
        Default: ``0, bet_step, 2 * bet_step, ..., stack`` (the paper's 31 sizes 0, 0.1, ..., 3.0).
    bet_step : float, default 0.1
        Spacing of the default grid; ignored when ``bets`` is given.

    Raises
    ------
    ValueError
        If ``n_cards < 2``, ``ante <= 0``, ``stack < 0``, the bet grid is empty, unsorted, has duplicates, or
        has a bet outside ``[0, stack]``.
    """

    n_cards: int = 10
    ante: float = 0.5
    stack: float = 3.0
    bets: tuple[float, ...] | None = None
    bet_step: float = field(default=0.1, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "n_cards", check_int("n_cards", self.n_cards, 2))
        if not np.isfinite(self.ante) or self.ante <= 0:
            raise ValueError(f"ante must be a positive number of chips, got {self.ante!r}")
        if not np.isfinite(self.stack) or self.stack < 0:
            raise ValueError(f"stack must be a non-negative number of chips, got {self.stack!r}")
        if self.bets is None:
            if not np.isfinite(self.bet_step) or self.bet_step <= 0:
                raise ValueError(f"bet_step must be positive, got {self.bet_step!r}")
            bets = _default_grid(self.stack, self.bet_step)
        else:
            bets = tuple(float(b) for b in np.atleast_1d(np.asarray(self.bets, dtype=np.float64)))
        if len(bets) == 0:
            raise ValueError("bets (the bet grid) is empty: give at least one bet size")
        arr = np.asarray(bets)
        if not np.all(np.isfinite(arr)):
            raise ValueError("bets contains NaN or infinite sizes")
        if np.any(np.diff(arr) <= 0):
            raise ValueError(f"bets must be strictly increasing (no duplicates), got {bets}")
        if arr[0] < 0 or arr[-1] > self.stack + 1e-12:
            raise ValueError(f"bets must lie in [0, stack={self.stack}], got {arr[0]} .. {arr[-1]}")
        object.__setattr__(self, "bets", bets)

    # ----------------------------------------------------------------- derived quantities
    @property
    def n_bets(self) -> int:
        """Number of bet sizes in the grid."""
        return len(self.bets)

    @property
    def bet_array(self) -> np.ndarray:
        """The bet grid as a float64 array of shape ``(n_bets,)`` (chips)."""
        return np.asarray(self.bets, dtype=np.float64)

    @property
    def check_index(self) -> int | None:
        """Index of the check (bet 0) in the grid, or ``None`` when the grid has no check."""
        return 0 if self.bets[0] == 0.0 else None

    @property
    def pot(self) -> float:
        """The pot before betting, ``2 * ante`` chips."""
        return 2.0 * self.ante

    def action_labels(self) -> list[str]:
        """Human-readable action names: ``"check"`` for bet 0, ``"bet 0.3"`` otherwise."""
        return ["check" if b == 0 else f"bet {b:g}" for b in self.bets]

    # ----------------------------------------------------------------- input checks
    def check_deal(self, probs, name: str = "probs") -> np.ndarray:
        """Validate one deal ``(n, n)`` or a batch ``(G, n, n)``; return it as float64.

        Raises
        ------
        ValueError
            Wrong shape, NaN/inf, a negative entry, a deal not summing to 1 (tolerance 1e-9), or a positive
            probability on the diagonal (both players holding the same card).
        """
        p = as_float_array(probs, name, ndim=(2, 3))
        n = self.n_cards
        if p.shape[-2:] != (n, n):
            raise ValueError(f"{name} must have shape (n, n) or (G, n, n) with n = n_cards = {n}, got {p.shape}")
        check_probability_rows(p, name, axes=(-2, -1), atol=PMF_ATOL)
        diag = np.diagonal(p, axis1=-2, axis2=-1)
        if np.any(diag > 0):
            k = int(np.argwhere(diag > 0)[0][-1])
            raise ValueError(
                f"{name} puts probability {float(diag.reshape(-1, n)[:, k].max())!r} on both players holding "
                f"card {k}; one deck cannot deal the same card twice (the diagonal must be zero)"
            )
        return p

    def check_strategy(self, strategy, name: str = "strategy", batch=...) -> np.ndarray:
        """Validate player 1's strategy ``(n, n_bets)`` or a batch ``(G, n, n_bets)``; return float64.

        ``batch`` is the number of deals it must match (``None``: a single deal; ``...``: not checked).

        Raises
        ------
        ValueError
            Wrong shape, NaN/inf, a negative probability, or a row not summing to 1 (tolerance 1e-6).
        """
        s = as_float_array(strategy, name, ndim=(2, 3))
        self._check_policy_shape(s, name, batch)
        check_probability_rows(s, name, axes=-1, atol=STRATEGY_ATOL)
        return s

    def check_call_probability(self, call_probability, name: str = "call_probability", batch=...) -> np.ndarray:
        """Validate player 2's call probabilities ``(n, n_bets)`` or ``(G, n, n_bets)``; return float64.

        Raises
        ------
        ValueError
            Wrong shape, NaN/inf, or an entry outside ``[0, 1]``.
        """
        c = as_float_array(call_probability, name, ndim=(2, 3))
        self._check_policy_shape(c, name, batch)
        if np.any(c < 0) or np.any(c > 1):
            raise ValueError(f"{name} entries are probabilities and must lie in [0, 1]")
        return c

    def _check_policy_shape(self, arr: np.ndarray, name: str, batch) -> None:
        """``batch``: ``G`` for a batch of deals, ``None`` for one deal, ``...`` to skip the batch check."""
        want = (self.n_cards, self.n_bets)
        if arr.shape[-2:] != want:
            raise ValueError(
                f"{name} must have shape (n_cards, n_bets) = {want} (or a batch (G, {want[0]}, {want[1]})), "
                f"got {arr.shape}"
            )
        if batch is not ...:
            g = arr.shape[0] if arr.ndim == 3 else None
            if g != batch:
                raise ValueError(
                    f"{name} has shape {arr.shape} but probs is "
                    + (f"a batch of {batch} deals" if batch is not None else "a single deal")
                )

    @staticmethod
    def batch_size(probs: np.ndarray) -> int | None:
        """``G`` for a batch of deals ``(G, n, n)``, ``None`` for one deal."""
        return probs.shape[0] if probs.ndim == 3 else None


#: The paper's game: 10 cards, ante 0.5 each, stack 3, bets 0, 0.1, ..., 3.0.
DEFAULT_GAME = BetGame()

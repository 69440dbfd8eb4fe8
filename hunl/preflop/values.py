"""Closed-form values and best responses of push/fold, vectorised over many strategies at once.

The generic best response of :mod:`games.core` walks the public tree for one profile; scoring thousands of
candidate rules over a band of stack sizes needs the same numbers for many profiles at once. Push/fold has one
decision per player, so everything is a matrix product. From the SB's side, with ``D = deal[0]`` (the joint law
of the two hands) and ``E = stack * (deal[1] - deal[3])`` (the chance-weighted all-in result), for SB push
probabilities ``p`` and BB call probabilities ``c`` (vectors over hands)::

    u(p, c) = sum_i (1 - p_i) a_i + sum_j [(1 - c_j) bb_post (D^T p)_j + c_j (E^T p)_j],   a_i = -sb_post (D 1)_i

so the BB's best response to ``p`` (he minimises ``u``) is worth ``sum_i (1 - p_i) a_i + sum_j min(bb_post
(D^T p)_j, (E^T p)_j)`` and the SB's best response to ``c`` is worth ``sum_i max(a_i, bb_post (D (1 - c))_i +
(E c)_i)``. Payoffs in big blinds; the tests check these against :func:`games.core.exploitability`.

Costs of a strategy (what :mod:`hunl.preflop.rules` reports), in bb, relative to the game value ``v``:

* the SB's loss when he plays ``p`` and the BB best-responds: ``v - min_c u(p, c) >= 0``;
* the BB's loss when he plays ``c`` and the SB best-responds: ``max_p u(p, c) - v >= 0``;
* for a profile ``(p, c)`` the two losses sum to NashConv; ``exploitability = NashConv / 2`` as in
  :mod:`games.core.best_response`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.preflop.game import PushFoldGame

__all__ = ["PushFoldValues", "StackValues"]


@dataclass(frozen=True, eq=False)
class PushFoldValues:
    """The payoff matrices of one push/fold game (see the module docstring).

    Attributes
    ----------
    deal : numpy.ndarray of float64, shape (H, H)
        ``D``: joint probability of the SB's hand (row) and the BB's (column).
    allin : numpy.ndarray of float64, shape (H, H)
        ``E = stack * (P(SB wins) - P(BB wins))`` weighted by ``D`` (bb).
    fold_value : numpy.ndarray of float64, shape (H,)
        ``a_i = -sb_post * (D 1)_i``: the SB's counterfactual value of folding each hand (bb).
    bb_post : float
        What the BB loses by folding (bb).
    """

    deal: np.ndarray
    allin: np.ndarray
    fold_value: np.ndarray
    bb_post: float

    @classmethod
    def from_game(cls, game: PushFoldGame) -> PushFoldValues:
        """The matrices of a :class:`~hunl.preflop.game.PushFoldGame`."""
        d = np.ascontiguousarray(game.deal[0])
        e = np.ascontiguousarray(game.stack * (game.deal[1] - game.deal[3]))
        return cls(d, e, -game.sb_post * d.sum(axis=1), float(game.bb_post))

    # ------------------------------------------------------------------ per hand
    def sb_action_values(self, call) -> tuple[np.ndarray, np.ndarray]:
        """The SB's counterfactual values of folding and of pushing each hand against BB call probabilities.

        Parameters
        ----------
        call : array_like of float, shape (..., H)

        Returns
        -------
        fold, push : numpy.ndarray of float64, shapes (H,) and (..., H)
            Chance-weighted (summing ``max`` over hands gives the best-response value), bb.
        """
        c = np.asarray(call, dtype=np.float64)
        push = self.bb_post * ((1.0 - c) @ self.deal.T) + c @ self.allin.T
        return self.fold_value, push

    def bb_action_values(self, push) -> tuple[np.ndarray, np.ndarray]:
        """What the SB gets from each BB hand's folding and calling, against SB push probabilities.

        Parameters
        ----------
        push : array_like of float, shape (..., H)

        Returns
        -------
        fold, call : numpy.ndarray of float64, shape (..., H)
            The SB's chance-weighted payoff from the pushes, per BB hand, if that hand folds / calls (bb; the BB
            prefers the smaller). The SB's folds add ``sum_i (1 - p_i) a_i`` whatever the BB does.
        """
        p = np.asarray(push, dtype=np.float64)
        return self.bb_post * (p @ self.deal), p @ self.allin

    # ------------------------------------------------------------------ totals
    def value(self, push, call) -> np.ndarray:
        """The SB's expected payoff ``u(p, c)`` (bb), broadcast over leading dimensions."""
        p = np.asarray(push, dtype=np.float64)
        c = np.asarray(call, dtype=np.float64)
        fold_bb, call_bb = self.bb_action_values(p)
        return ((1.0 - p) * self.fold_value).sum(-1) + ((1.0 - c) * fold_bb + c * call_bb).sum(-1)

    def sb_guaranteed(self, push) -> np.ndarray:
        """``min_c u(p, c)``: the SB's payoff when the BB best-responds to ``push`` (bb), shape ``push.shape[:-1]``."""
        p = np.asarray(push, dtype=np.float64)
        fold_bb, call_bb = self.bb_action_values(p)
        return ((1.0 - p) * self.fold_value).sum(-1) + np.minimum(fold_bb, call_bb).sum(-1)

    def bb_conceded(self, call) -> np.ndarray:
        """``max_p u(p, c)``: the SB's payoff when he best-responds to ``call`` (bb), shape ``call.shape[:-1]``."""
        fold, push = self.sb_action_values(call)
        return np.maximum(fold, push).sum(-1)


@dataclass(frozen=True, eq=False)
class StackValues:
    """The payoff matrices of push/fold at many stacks at once (class game), for scoring strategies that may
    change with the stack.

    With ``W = deal[1] - deal[3]`` and ``D = deal[0]`` (neither depends on the stack), the game at stack ``S``
    has ``E = S * W``, ``bb_post = min(1 + ante, S)`` and ``sb_post = min(small_blind + ante, S)``; the formulas
    are those of :class:`PushFoldValues`, broadcast over a stack axis.

    Parameters
    ----------
    stacks : numpy.ndarray of float64, shape (S,)
    ante, small_blind : float
    """

    stacks: np.ndarray
    ante: float = 0.0
    small_blind: float = 0.5

    def __post_init__(self):
        g = PushFoldGame(1.0, self.ante, small_blind=self.small_blind)
        s = np.asarray(self.stacks, dtype=np.float64)
        object.__setattr__(self, "stacks", s)
        object.__setattr__(self, "_d", np.ascontiguousarray(g.deal[0]))
        object.__setattr__(self, "_w", np.ascontiguousarray(g.deal[1] - g.deal[3]))
        object.__setattr__(self, "_bb", np.minimum(1.0 + self.ante, s))
        object.__setattr__(self, "_sb", np.minimum(self.small_blind + self.ante, s))

    def sb_guaranteed(self, push) -> np.ndarray:
        """``min_c u(p, c)`` at each stack (bb).

        Parameters
        ----------
        push : array_like of float, shape (..., S, 169) or (..., 169)
            Push probabilities per stack (or the same at every stack).

        Returns
        -------
        numpy.ndarray of float64, shape (..., S)
        """
        p = np.asarray(push, dtype=np.float64)
        if p.ndim == 1 or p.shape[-2] != self.stacks.size:
            p = p[..., None, :]
        dx = p @ self._d                                          # (..., S or 1, 169)
        wx = p @ self._w
        fold = -self._sb * ((1.0 - p) @ self._d.sum(axis=1))      # (..., S)
        bb = self._bb[:, None]
        s = self.stacks[:, None]
        return fold + np.minimum(bb * dx, s * wx).sum(-1)

    def bb_conceded(self, call) -> np.ndarray:
        """``max_p u(p, c)`` at each stack (bb), for call probabilities of shape (..., S, 169) or (..., 169)."""
        c = np.asarray(call, dtype=np.float64)
        if c.ndim == 1 or c.shape[-2] != self.stacks.size:
            c = c[..., None, :]
        fold = -self._sb[:, None] * self._d.sum(axis=1)            # (S, 169)
        push = self._bb[:, None] * ((1.0 - c) @ self._d.T) + self.stacks[:, None] * (c @ self._w.T)
        return np.maximum(fold, push).sum(-1)

    def mean_sb_guaranteed(self, sets) -> np.ndarray:
        """``min_c u(p, c)`` averaged over the stacks, for fixed push vectors ``sets`` (N, 169): shape (N,).
        Loops over the stacks instead of building an (N, S, 169) array."""
        p = np.asarray(sets, dtype=np.float64)
        dx, wx = p @ self._d, p @ self._w
        fold = (1.0 - p) @ self._d.sum(axis=1)
        total = np.zeros(p.shape[0])
        for s, bb, sb in zip(self.stacks, self._bb, self._sb):
            total += -sb * fold + np.minimum(bb * dx, s * wx).sum(-1)
        return total / self.stacks.size

    def mean_bb_conceded(self, sets) -> np.ndarray:
        """``max_p u(p, c)`` averaged over the stacks, for fixed call vectors ``sets`` (N, 169): shape (N,)."""
        c = np.asarray(sets, dtype=np.float64)
        d1, wc = (1.0 - c) @ self._d.T, c @ self._w.T
        rows = self._d.sum(axis=1)
        total = np.zeros(c.shape[0])
        for s, bb, sb in zip(self.stacks, self._bb, self._sb):
            total += np.maximum(-sb * rows, bb * d1 + s * wc).sum(-1)
        return total / self.stacks.size

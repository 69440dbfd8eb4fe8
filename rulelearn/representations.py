"""The data representations of Ganzfried & Yusuf (2017, *Games* 8(4), Section 4; *AAAI-W* 2017, Section 3).

A game instance is given by its players' ranges (hand distributions) ``ranges`` of shape ``(G, P, d)``; its
solution by player 1's strategy ``strategies`` of shape ``(G, d, B)`` (``B`` actions per hand). The six
representations are the product of

* ``features``: ``"cdf"`` (``P(player holds <= k)``, the paper's default) or ``"pdf"`` (``P(player holds k)``);
* ``per_hand``:
  - ``None``: one row per game, the ``P * d`` features -> the ``d * B`` outputs (the paper's "310 outputs");
  - ``"index"``: one row per (game, hand of player 1), the features plus the hand's number (1-based, the paper's
    card 1..10) -> that hand's ``B`` outputs ("card", 31 outputs);
  - ``"cdf"``: as ``"index"`` but the extra feature is player 1's cdf at his hand, ``P(P1 holds <= card)``
    ("card cdf").

One extension: ``per_hand="beats"`` adds the share of the opponent's range that the hand beats,
``P(P2 holds < card)`` from player 2's range (the quantity in the paper's "80-20 rule"; it ignores card removal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulelearn.distributions import pmf_to_cdf
from rulelearn.validation import as_float_array

__all__ = ["Representation", "RepresentedData", "represent", "PAPER_REPRESENTATIONS"]

_PER_HAND = (None, "index", "cdf", "beats")


@dataclass(frozen=True)
class RepresentedData:
    """Design matrix and targets of one representation.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape ``(m, n_features)``
        ``m = G`` rows for whole-game representations, ``m = G * d`` for per-hand ones (game-major order).
    Y : numpy.ndarray of float64, shape ``(G, d, B)`` or ``(G * d, B)``, or None
        Targets (strategies), when strategies were given.
    game_index : numpy.ndarray of int64, shape ``(m,)``
        The game each row comes from.
    hand_index : numpy.ndarray of int64, shape ``(m,)``
        Player 1's hand (0-based) of each per-hand row; -1 for whole-game rows.
    feature_names : tuple of str
        Human-readable names, e.g. ``"P(P2 holds <= 8)"`` or ``"card"``.
    integer_features : tuple of bool
        True for the hand-number feature (printed as ``card >= 7`` rather than ``card > 6.5``).
    """

    X: np.ndarray
    Y: np.ndarray | None
    game_index: np.ndarray
    hand_index: np.ndarray
    feature_names: tuple[str, ...]
    integer_features: tuple[bool, ...]


@dataclass(frozen=True)
class Representation:
    """One of the paper's data representations (see the module docstring).

    Parameters
    ----------
    features : {"cdf", "pdf"}
    per_hand : {None, "index", "cdf", "beats"}

    Raises
    ------
    ValueError
        On an unknown ``features`` or ``per_hand``.
    """

    features: str = "cdf"
    per_hand: str | None = None

    def __post_init__(self):
        if self.features not in ("cdf", "pdf"):
            raise ValueError(f"features must be 'cdf' or 'pdf', got {self.features!r}")
        if self.per_hand not in _PER_HAND:
            raise ValueError(f"per_hand must be one of {_PER_HAND}, got {self.per_hand!r}")

    @property
    def name(self) -> str:
        """Short name in the paper's style: ``cdf``, ``cdf-card``, ``cdf-card-cdf``, ``pdf-beats``, ..."""
        suffix = {None: "", "index": "-card", "cdf": "-card-cdf", "beats": "-beats"}[self.per_hand]
        return self.features + suffix

    def transform(self, ranges, strategies=None, hand_labels=None, player_names=None) -> RepresentedData:
        """Apply the representation; see :func:`represent`."""
        return represent(ranges, strategies, self.features, self.per_hand, hand_labels, player_names)

    def assemble(self, rows, n_games: int) -> np.ndarray:
        """Turn per-row predictions back into whole strategies.

        Parameters
        ----------
        rows : array_like of float, shape ``(G, d, B)`` or, per hand, ``(G * d, B)`` in game-major order
        n_games : int

        Returns
        -------
        numpy.ndarray of float64, shape ``(G, d, B)``
        """
        r = np.asarray(rows, dtype=np.float64)
        if self.per_hand is None:
            return r
        return r.reshape(n_games, -1, r.shape[-1])


#: The six representations of the papers, in the order of Table 1 of the AAAI-W paper.
PAPER_REPRESENTATIONS = (
    Representation("pdf", None),
    Representation("cdf", None),
    Representation("pdf", "index"),
    Representation("cdf", "index"),
    Representation("pdf", "cdf"),
    Representation("cdf", "cdf"),
)


def represent(ranges, strategies=None, features: str = "cdf", per_hand: str | None = None,
              hand_labels=None, player_names=None) -> RepresentedData:
    """Build one of the paper's data representations from ranges (and strategies).

    Parameters
    ----------
    ranges : array_like of float, shape ``(G, P, d)``
        Each player's hand distribution (pmf over ``d`` ordered hands, worst first) in each game.
    strategies : array_like of float, shape ``(G, d, B)``, optional
        Player 1's strategy per game (the learning targets).
    features : {"cdf", "pdf"}, default "cdf"
    per_hand : {None, "index", "cdf", "beats"}, default None
        See the module docstring.
    hand_labels : sequence of str, optional
        Names of the hands for feature names; default ``"1" .. "d"`` (the paper's card numbers).
    player_names : sequence of str, optional
        Default ``"P1", "P2", ...``.

    Returns
    -------
    RepresentedData

    Raises
    ------
    ValueError
        On wrong shapes, NaN, rows that are not distributions, or unknown options.
    """
    rep = Representation(features, per_hand)
    r = as_float_array(ranges, "ranges", ndim=3)
    g, p, d = r.shape
    if np.any(r < -1e-12) or np.any(np.abs(r.sum(-1) - 1) > 1e-6):
        raise ValueError("ranges must hold one probability distribution per game and player (shape (G, P, d))")
    labels = [str(k + 1) for k in range(d)] if hand_labels is None else [str(h) for h in hand_labels]
    players = [f"P{k + 1}" for k in range(p)] if player_names is None else list(player_names)
    if len(labels) != d or len(players) != p:
        raise ValueError(f"need {d} hand labels and {p} player names, got {len(labels)} and {len(players)}")
    cdf = pmf_to_cdf(r)
    base = (cdf if rep.features == "cdf" else r).reshape(g, p * d)
    if rep.features == "cdf":
        names = [f"P({pl} holds <= {h})" for pl in players for h in labels]
    else:
        names = [f"P({pl} holds {h})" for pl in players for h in labels]
    integer = [False] * (p * d)
    y = None
    if strategies is not None:
        y = as_float_array(strategies, "strategies", ndim=3)
        if y.shape[:2] != (g, d):
            raise ValueError(f"strategies must have shape (G, d, B) = ({g}, {d}, B), got {y.shape}")
    if rep.per_hand is None:
        return RepresentedData(base, y, np.arange(g), np.full(g, -1), tuple(names), tuple(integer))
    game_index = np.repeat(np.arange(g), d)
    hand_index = np.tile(np.arange(d), g)
    X = base[game_index]
    if rep.per_hand == "index":
        extra = (hand_index + 1).astype(np.float64)
        names.append("card")
        integer.append(True)
    elif rep.per_hand == "cdf":
        extra = cdf[game_index, 0, hand_index]
        names.append(f"P({players[0]} holds <= card)")
        integer.append(False)
    else:  # "beats": share of the opponent's range strictly below the hand
        opp_below = np.concatenate([np.zeros((g, 1)), cdf[:, 1, :-1]], axis=1)
        extra = opp_below[game_index, hand_index]
        names.append(f"share of {players[1]}'s range beaten")
        integer.append(False)
    X = np.column_stack([X, extra])
    y_rows = None if y is None else y.reshape(g * d, y.shape[-1])
    return RepresentedData(X, y_rows, game_index, hand_index, tuple(names), tuple(integer))

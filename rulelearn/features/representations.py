"""The ten data representations of Ganzfried & Yusuf (2017, *Games* 8(4), Section 4; *AAAI-W* 2017, Section 3).

A game instance is given by its players' ranges (hand distributions) ``ranges`` of shape ``(G, P, d)``; its
solution by player 1's strategy ``strategies`` of shape ``(G, d, B)`` (``B`` actions per hand, the bet sizes in
increasing order). A :class:`Representation` turns them into a design matrix ``X`` and targets ``Y``. It is the
product of

* ``features``: ``"cdf"`` (``P(player holds <= k)``, the paper's default) or ``"pdf"`` (``P(player holds k)``),
  ``P * d`` features per game (20 for the paper's game);
* ``per_hand``:
  - ``None``: one row per game, the ``P * d`` features -> the ``d * B`` outputs (the paper's "310 outputs");
  - ``"index"``: one row per (game, hand of player 1), the features plus the hand's number (1-based, the paper's
    card 1..10) -> that hand's ``B`` outputs ("card", 31 outputs);
  - ``"cdf"``: as ``"index"`` but the extra feature is player 1's cdf at his hand, ``P(P1 holds <= card)``
    ("card cdf");
  - ``"beats"`` (an extension): as ``"index"`` but the extra feature is the share of the opponent's range that the
    hand beats, ``P(P2 holds < card)`` from player 2's range (the quantity of the paper's "80-20 rule", Section
    4; it ignores card removal, see :func:`share_beaten`);
* ``output``: ``"strategy"`` (the hand's or game's action probabilities) or ``"sampled"``: one action drawn from
  player 1's mixed strategy for each (game, hand), see below;
* ``beats=True`` appends the share-beaten feature to any per-hand representation (``"index"`` or ``"cdf"``).

The paper's numbering (*Games* 2017, Section 4, first paragraph after Algorithm 5), in :data:`REPRESENTATIONS`:

====  =========================================  ============================  ===========================
 no.  inputs                                     outputs                       ``Representation(...)``
====  =========================================  ============================  ===========================
  1   20 cdfs (10 per player)                    310: 31 bet probabilities     ``("cdf", None)``
                                                 for each of the 10 cards
  2   20 pdfs                                    310                           ``("pdf", None)``
  3   20 cdfs + card number (1-10)               31 for that card              ``("cdf", "index")``
  4   20 pdfs + card number                      31                            ``("pdf", "index")``
  5   20 cdfs + the card's cdf                   31                            ``("cdf", "cdf")``
  6   20 pdfs + the card's cdf                   31                            ``("pdf", "cdf")``
  7   as 3                                       one bet size sampled from     ``("cdf", "index",
                                                 the card's 31 probabilities   output="sampled")``
  8   as 4                                       one sampled bet size          ``("pdf", "index", ...)``
  9   as 5                                       one sampled bet size          ``("cdf", "cdf", ...)``
 10   as 6                                       one sampled bet size          ``("pdf", "cdf", ...)``
====  =========================================  ============================  ===========================

The text defines 2 as 1 with pdfs, 4 as "this approach [3] with the pdf features", 5 and 6 as 3 and 4 with the
card's cdf, and 7-10 as 3-6 with a sampled bet; the AAAI-W paper (Section 4.2, Figures 12-13) confirms 3 and 5
use cdfs. (A later sentence of the *Games* paper calls "the fourth" the one with pdfs plus the card's cdf, which
is 6 by that definition; we follow the definition.) :data:`PAPER_REPRESENTATIONS` keeps the six of Table 1 of the
AAAI-W paper in that table's order (pdf first).

**Sampled outputs (7-10).** For each (game, hand) one action ``a`` is drawn from player 1's strategy for that
hand, ``P(a) = strategies[g, h, a]``, deterministically from ``(seed, game id, hand)`` by a counter-based hash
(:func:`sample_actions`), so a game's draws do not depend on which other games are in the batch. The target row
is the sampled action as a pure strategy, a one-hot vector of length ``B`` (``RepresentedData.sampled_action``
holds its index). Every strategy learner then applies unchanged and always predicts a valid strategy, which is
how a learner trained on sampled bets is scored by exploitability: a tree leaf holding training rows with
sampled actions ``a_1 .. a_n`` predicts

* with the EMD criterion (``StrategyTree(criterion="emd")``, the coordinate-wise median of the one-hot cdfs):
  the *median* sampled bet size as a pure strategy (a 50/50 mix of the two middle bets on an exact tie) -- the
  paper's "single bet size" output (its Figure 5 tree prints one bet size per leaf);
* with ``criterion="squared_error"``: the *frequencies* of the sampled actions in the leaf, a mixed strategy
  (a classification tree whose leaf class frequencies are the strategy, but split on the Cramér distance between
  cdfs, which respects the order of the bet sizes, rather than on the Gini index, which ignores it). The leaf's
  mean bet size is the value the paper's regression tree on the sampled bet size prints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rulelearn.data.distributions import pmf_to_cdf
from rulelearn.validation import as_float_array, check_int

__all__ = [
    "PAPER_REPRESENTATIONS",
    "REPRESENTATIONS",
    "Representation",
    "RepresentedData",
    "represent",
    "sample_actions",
    "share_beaten",
]

_PER_HAND = (None, "index", "cdf", "beats")
#: The name suffix of each per-hand kind (the paper's words: "card", "card cdf").
_NAME_OF_PER_HAND = {"index": "card", "cdf": "card-cdf", "beats": "beats"}
_OUTPUTS = ("strategy", "sampled")


@dataclass(frozen=True)
class RepresentedData:
    """Design matrix and targets of one representation.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape ``(m, n_features)``
        ``m = G`` rows for whole-game representations, ``m = G * d`` for per-hand ones (game-major order).
    Y : numpy.ndarray of float64, shape ``(G, d, B)`` or ``(G * d, B)``, or None
        Targets (strategies; one-hot pure strategies for sampled outputs), when strategies were given.
    game_index : numpy.ndarray of int64, shape ``(m,)``
        The game each row comes from.
    hand_index : numpy.ndarray of int64, shape ``(m,)``
        Player 1's hand (0-based) of each per-hand row; -1 for whole-game rows.
    feature_names : tuple of str
        Human-readable names, e.g. ``"P(P2 holds <= 8)"`` or ``"card"`` (the hand noun).
    integer_features : tuple of bool
        True for the hand-number feature (printed as ``card >= 7`` rather than ``card > 6.5``).
    sampled_action : numpy.ndarray of int64, shape ``Y.shape[:-1]``, or None
        For sampled outputs with strategies given: the index of the sampled action (``Y`` is its one-hot).
    """

    X: np.ndarray
    Y: np.ndarray | None
    game_index: np.ndarray
    hand_index: np.ndarray
    feature_names: tuple[str, ...]
    integer_features: tuple[bool, ...]
    sampled_action: np.ndarray | None = None


@dataclass(frozen=True)
class Representation:
    """One data representation (see the module docstring for the paper's ten).

    Parameters
    ----------
    features : {"cdf", "pdf"}
    per_hand : {None, "index", "cdf", "beats"}
    output : {"strategy", "sampled"}, default "strategy"
        ``"sampled"``: the target of each (game, hand) is one action sampled from the strategy (representations
        7-10).
    beats : bool, default False
        Append the share of player 2's range the hand beats (:func:`share_beaten`) to a per-hand representation.
    seed : int, default 0
        Seed of the sampled actions (ignored for ``output="strategy"``).

    Raises
    ------
    ValueError
        On an unknown ``features``, ``per_hand`` or ``output``, ``beats=True`` without a per-hand
        representation or together with ``per_hand="beats"`` (which already has that feature), or a negative or
        non-integer ``seed``.
    """

    features: str = "cdf"
    per_hand: str | None = None
    output: str = "strategy"
    beats: bool = False
    seed: int = 0

    def __post_init__(self):
        if self.features not in ("cdf", "pdf"):
            raise ValueError(f"features must be 'cdf' or 'pdf', got {self.features!r}")
        if self.per_hand not in _PER_HAND:
            raise ValueError(f"per_hand must be one of {_PER_HAND}, got {self.per_hand!r}")
        if self.output not in _OUTPUTS:
            raise ValueError(f"output must be one of {_OUTPUTS}, got {self.output!r}")
        if not isinstance(self.beats, (bool, np.bool_)):
            raise TypeError(f"beats must be a bool, got {self.beats!r}")
        if self.beats and self.per_hand in (None, "beats"):
            raise ValueError("beats=True needs per_hand='index' or 'cdf' (per_hand='beats' already has the "
                             f"feature; whole-game rows have no hand), got per_hand={self.per_hand!r}")
        check_int("seed", self.seed, 0)

    @property
    def name(self) -> str:
        """Short name in the paper's style: ``cdf``, ``pdf-card``, ``cdf-card-cdf``, ``cdf-card-sampled``, ...
        (the paper's words for its ten representations, whatever the game; see :meth:`from_name`)."""
        suffix = "" if self.per_hand is None else "-" + _NAME_OF_PER_HAND[self.per_hand]
        return (self.features + suffix + ("+beats" if self.beats else "")
                + ("-sampled" if self.output == "sampled" else ""))

    @classmethod
    def from_name(cls, name: str) -> Representation:
        """The representation called ``name``: ``cdf`` or ``pdf``, optionally followed by ``-card``, ``-card-cdf``
        or ``-beats`` (a whole-game or per-hand :attr:`name` without ``+beats`` or ``-sampled``).

        Raises
        ------
        ValueError
            For any other name.
        """
        features, _, per_hand = str(name).partition("-")
        kinds = {v: k for k, v in _NAME_OF_PER_HAND.items()}
        if features not in ("cdf", "pdf") or (per_hand and per_hand not in kinds):
            raise ValueError(f"representation names are 'cdf' or 'pdf', optionally with '-card', '-card-cdf' or "
                             f"'-beats'; got {name!r}")
        return cls(features, kinds.get(per_hand))

    @property
    def label(self) -> str:
        """What goes in and what comes out, in words, e.g. ``"cdfs + card's cdf -> one sampled bet"``."""
        extra = {None: "", "index": " + card", "cdf": " + card's cdf", "beats": " + share beaten"}[self.per_hand]
        extra += " + share beaten" if self.beats else ""
        if self.output == "sampled":
            out = "one sampled bet" + (" per card" if self.per_hand is None else "")
        else:
            out = "strategy of every card" if self.per_hand is None else "the card's strategy"
        number = self.paper_number
        return (f"{number}: " if number is not None else "") + f"{self.features}s{extra} -> {out}"

    @property
    def paper_number(self) -> int | None:
        """The paper's number (1-10, see :data:`REPRESENTATIONS`), or None for an extension."""
        for number, rep in REPRESENTATIONS.items():
            if (rep.features, rep.per_hand, rep.output, rep.beats) == (
                    self.features, self.per_hand, self.output, self.beats):
                return number
        return None

    def transform(self, ranges, strategies=None, hand_labels=None, player_names=None,
                  game_ids=None, hand_noun: str = "hand") -> RepresentedData:
        """Apply the representation; see :func:`represent`."""
        return represent(ranges, strategies, self.features, self.per_hand, hand_labels, player_names,
                         output=self.output, beats=self.beats, seed=self.seed, game_ids=game_ids,
                         hand_noun=hand_noun)

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

#: The ten representations of the *Games* paper (Section 4) by its numbering; see the module docstring.
REPRESENTATIONS: dict[int, Representation] = {
    1: Representation("cdf", None),
    2: Representation("pdf", None),
    3: Representation("cdf", "index"),
    4: Representation("pdf", "index"),
    5: Representation("cdf", "cdf"),
    6: Representation("pdf", "cdf"),
    7: Representation("cdf", "index", output="sampled"),
    8: Representation("pdf", "index", output="sampled"),
    9: Representation("cdf", "cdf", output="sampled"),
    10: Representation("pdf", "cdf", output="sampled"),
}


def share_beaten(ranges) -> np.ndarray:
    """Share of player 2's range that each hand of player 1 beats: ``P(P2 holds < h)``.

    The human-meaningful quantity of the paper's "80-20 rule" (*Games* 2017, Section 4): "if your hand beats
    between 20% and 80% of the opponent's hand distribution, check". Computed from player 2's range (its
    marginal), so it ignores card removal (the paper's rules do too).

    Parameters
    ----------
    ranges : array_like of float, shape ``(G, P, d)``
        Hand distributions, ``P >= 2``; player 2 is ``ranges[:, 1]``.

    Returns
    -------
    numpy.ndarray of float64, shape ``(G, d)``
        ``out[g, h] = sum_{j < h} ranges[g, 1, j]``; 0 for the worst hand.

    Raises
    ------
    ValueError
        If ``ranges`` is not 3-D with at least two players, or contains NaN.
    """
    r = as_float_array(ranges, "ranges", ndim=3)
    if r.shape[1] < 2:
        raise ValueError(f"ranges needs at least 2 players on axis 1, got shape {r.shape}")
    below = np.cumsum(r[:, 1, :], axis=-1)
    return np.concatenate([np.zeros((r.shape[0], 1)), below[:, :-1]], axis=1)



def _splitmix64(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser (Steele, Lea & Flood 2014) on uint64 arrays, wrapping modulo 2**64."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def sample_actions(strategies, seed: int = 0, game_ids=None) -> np.ndarray:
    """Draw one action per (game, hand) from player 1's mixed strategies, deterministically.

    The uniform draw of ``(game g, hand h)`` is a counter-based hash of ``(seed, game_ids[g], h)`` (splitmix64),
    so it does not depend on the other games in the batch or their order; the action is the inverse-cdf sample
    ``min {a : F(a) > u}`` and always has positive probability.

    Parameters
    ----------
    strategies : array_like of float, shape ``(G, d, B)``
        Rows on the simplex (within 1e-6).
    seed : int, default 0
    game_ids : array_like of int, shape ``(G,)``, optional
        Stable identifiers of the games (e.g. the database's ``game_id``); default ``0 .. G-1``.

    Returns
    -------
    numpy.ndarray of int64, shape ``(G, d)``

    Raises
    ------
    ValueError
        If ``strategies`` is not ``(G, d, B)`` with rows on the simplex, ``seed`` is negative or ``game_ids`` has
        the wrong length.
    """
    s = as_float_array(strategies, "strategies", ndim=3)
    if np.any(s < 0) or np.any(np.abs(s.sum(-1) - 1) > 1e-6):
        raise ValueError("strategies must hold probability rows (non-negative, summing to 1) on the last axis")
    check_int("seed", seed, 0)
    g, d, b = s.shape
    ids = np.arange(g, dtype=np.int64) if game_ids is None else np.asarray(game_ids)
    if ids.shape != (g,) or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"game_ids must be {g} integers (one per game), got shape {ids.shape} ({ids.dtype})")
    z = _splitmix64(np.full(1, seed, dtype=np.uint64))
    z = _splitmix64(z ^ ids.astype(np.int64).view(np.uint64))[:, None]
    z = _splitmix64(z ^ np.arange(d, dtype=np.uint64)[None, :])
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0**-53  # uniform on [0, 1)
    cum = np.cumsum(s / s.sum(-1, keepdims=True), axis=-1)
    # past the last action with positive probability the cdf is exactly 1, so rounding never picks a 0 action
    last = b - 1 - np.argmax(s[..., ::-1] > 0, axis=-1)
    cum[np.arange(b) >= last[..., None]] = 1.0
    return (cum[..., :-1] <= u[..., None]).sum(axis=-1).astype(np.int64)


def represent(ranges, strategies=None, features: str = "cdf", per_hand: str | None = None,
              hand_labels=None, player_names=None, *, output: str = "strategy", beats: bool = False,
              seed: int = 0, game_ids=None, hand_noun: str = "hand") -> RepresentedData:
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
    output : {"strategy", "sampled"}, default "strategy"
    beats : bool, default False
    seed : int, default 0
        See :class:`Representation`.
    game_ids : array_like of int, shape ``(G,)``, optional
        Keys of the sampled actions (see :func:`sample_actions`); default ``0 .. G-1``.
    hand_noun : str, default "hand"
        What a hand is called in the per-hand feature names: ``hand_noun`` (the hand's number) and
        ``"P(P1 holds <= <hand_noun>)"`` (a family's :func:`~rulelearn.family.hand_noun`, ``"card"`` for the bet
        game).

    Returns
    -------
    RepresentedData

    Raises
    ------
    ValueError
        On wrong shapes, NaN, rows that are not distributions, or unknown options.
    """
    rep = Representation(features, per_hand, output=output, beats=beats, seed=seed)
    r = as_float_array(ranges, "ranges", ndim=3)
    g, p, d = r.shape
    if np.any(r < -1e-12) or np.any(np.abs(r.sum(-1) - 1) > 1e-6):
        raise ValueError("ranges must hold one probability distribution per game and player (shape (G, P, d))")
    labels = [str(k + 1) for k in range(d)] if hand_labels is None else [str(h) for h in hand_labels]
    players = [f"P{k + 1}" for k in range(p)] if player_names is None else list(player_names)
    if len(labels) != d or len(players) != p:
        raise ValueError(f"need {d} hand labels and {p} player names, got {len(labels)} and {len(players)}")
    if (rep.beats or rep.per_hand == "beats") and p < 2:
        raise ValueError("the share-beaten feature needs a second player's range (P >= 2)")
    cdf = pmf_to_cdf(r)
    base = (cdf if rep.features == "cdf" else r).reshape(g, p * d)
    if rep.features == "cdf":
        names = [f"P({pl} holds <= {h})" for pl in players for h in labels]
    else:
        names = [f"P({pl} holds {h})" for pl in players for h in labels]
    integer = [False] * (p * d)
    y = None
    action = None
    if strategies is not None:
        y = as_float_array(strategies, "strategies", ndim=3)
        if y.shape[:2] != (g, d):
            raise ValueError(f"strategies must have shape (G, d, B) = ({g}, {d}, B), got {y.shape}")
        if rep.output == "sampled":
            action = sample_actions(y, rep.seed, game_ids)
            y = np.eye(y.shape[-1])[action]
    if rep.per_hand is None:
        return RepresentedData(base, y, np.arange(g), np.full(g, -1), tuple(names), tuple(integer), action)
    game_index = np.repeat(np.arange(g), d)
    hand_index = np.tile(np.arange(d), g)
    beaten_name = f"share of {players[1]}'s range beaten" if p >= 2 else ""
    if rep.per_hand == "index":
        extra = [(hand_index + 1).astype(np.float64)]
        names.append(hand_noun)
        integer.append(True)
    elif rep.per_hand == "cdf":
        extra = [cdf[game_index, 0, hand_index]]
        names.append(f"P({players[0]} holds <= {hand_noun})")
        integer.append(False)
    else:  # "beats": share of the opponent's range strictly below the hand
        extra = [share_beaten(r).reshape(-1)]
        names.append(beaten_name)
        integer.append(False)
    if rep.beats:
        extra.append(share_beaten(r).reshape(-1))
        names.append(beaten_name)
        integer.append(False)
    X = np.column_stack([base[game_index]] + extra)
    y_rows = None if y is None else y.reshape(g * d, y.shape[-1])
    a_rows = None if action is None else action.reshape(-1)
    return RepresentedData(X, y_rows, game_index, hand_index, tuple(names), tuple(integer), a_rows)

"""Random HUNL endgames: random boards, pots, stacks and ranges, with a bet tree whose shape never changes.

The hold'em counterpart of the bet game's random deals (Ganzfried & Yusuf 2017, *Games* 8(4), Algorithms 4
and 5): :class:`EndgameSampler` draws endgame ``k`` of the stream ``seed`` from ``numpy.random.default_rng([seed,
k])`` alone, so any split of the stream into ranges gives the same endgames. An endgame is

* a board of 5 distinct cards (``street="river"``), 4 (``"turn"``) or 3 (``"flop"``), uniform over the deck;
* a pot, log-uniform in ``pot`` and rounded to an even number of chips (each player put in half), and a stack
  behind, ``ceil(spr * pot)`` with the stack-to-pot ratio ``spr`` log-uniform in ``spr``;
* two ranges (weights over the 1,326 combos, each summing to 1), one per player, each drawn from a range model
  chosen independently for each player with the probabilities ``range_models``.

The joint deal of the two hands is ``P(i, j) ~ w1[i] * w2[j] * [i and j share no card]``
(:class:`hunl.solver.game.HoldemEndgame`): Algorithm 5 of the paper on the 1,326 combos.

Range models
------------
Every model gives combos that share a card with the board weight 0, and then drops weights below
``1e-5`` of the largest (numerical dust: at most ``1081 * 1e-5`` of the largest weight in all, and it keeps
float32 storage of the range exact in its support); ``max_combos`` then keeps only the largest weights.

``"preflop"`` -- random weights over the 169 preflop hand classes
    ``x ~ Uniform(simplex of dimension 169)`` (Algorithm 4: normalised standard exponentials), sharpened or
    flattened by an exponent ``a`` log-uniform in ``sharpness``: every combo of class ``k`` gets weight
    ``x[k] ** a`` (a combo frequency, so offsuit classes carry three times the mass of suited ones, as in real
    ranges). ``a > 1`` concentrates the range on few classes, ``a < 1`` flattens it.

``"strength"`` -- a random function of the hand's showdown-strength percentile on the board
    ``q`` in (0, 1) is the hand's mid-rank among the combos that avoid the board (``(below + equal / 2) / n``;
    river: by :func:`hunl.poker.evaluator.combo_strengths`; turn: the mean of the river percentile over the 48 river
    cards, each card excluding the combos that hold it). One of four shapes is drawn uniformly, with ``a``
    log-uniform in ``sharpness``:

    - ``value`` (linear / value-heavy): ``f(q) = q ** a``;
    - ``condensed`` (medium hands, no nuts, no air): ``f(q) = exp(-((q - m) / s) ** 2 / 2)``, ``m ~ U(0.35,
      0.75)``, ``s ~ U(0.08, 0.25)``;
    - ``polarised`` (nuts and air): ``f(q) = t * q ** b + (1 - t) * (1 - q) ** b``, ``b ~ U(3, 10)``, ``t ~
      U(0.3, 0.8)``;
    - ``capped`` (no strongest hands): ``f(q) = q ** a / (1 + exp((q - c) / 0.03))``, ``c ~ U(0.5, 0.9)``;

    times independent log-normal noise per combo, ``exp(sigma * Z)`` with ``sigma ~ U(noise)``. The model name
    stored is ``"strength:<shape>"``.

``"bayes"`` -- ranges by Bayes' rule from a solved turn (river endgames only)
    The turn board is the first four board cards and the river card the fifth. Both players draw a prior from
    the other models on the turn board, capped to the ``bayes_combos`` largest weights; the turn endgame with
    bets of 3/4 pot on both streets and no raises (:data:`BAYES_SIZES`) is solved by ``bayes_iterations``
    iterations of DCFR, and a line is drawn uniformly from ``check-check``, ``bet-call`` and
    ``check-bet-call`` (the turn pot is chosen so that the line ends in the river endgame's pot). A player's
    range is his prior times the probabilities of his own actions on the line under the average strategy
    (Bayes' rule: the posterior of his hand given the line, up to the factor of the opponent's actions, which the
    joint deal adds), with the river card's combos removed. When both players draw ``"bayes"`` they share one
    turn solve and one line. A line that empties a range is replaced by the next one in a random order. The
    stored model name is ``"bayes:<line>"``.

The tree shape
--------------
All endgames of a sampler share one betting tree (same nodes, same actions as fractions of the pot): the lower
end of ``spr`` must exceed :func:`min_spr`, the largest bet or raise (in pots, above each player's half of the
starting pot) that is not all-in, so that no size ever collapses into all-in; the constructor checks it.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from hunl.poker.cards import HAND_CLASS, NUM_CARDS, NUM_COMBOS, board_conflicts, unblocked_sums
from hunl.poker.evaluator import combo_strengths
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import STREETS, BetSizes, TreeConfig, build_tree
from rulelearn.data.distributions import random_simplex
from rulelearn.validation import check_int, check_real

__all__ = [
    "BAYES_LINES",
    "BAYES_SIZES",
    "RANGE_MODELS",
    "RIVER_SIZES",
    "STRENGTH_SHAPES",
    "EndgameSampler",
    "RandomEndgame",
    "action_pattern",
    "min_spr",
    "strength_percentile",
]

#: River bet abstraction of the random endgames: the first bet is half pot, pot or all-in; the only raise is
#: all-in.
RIVER_SIZES = BetSizes(bets=(0.5, 1.0), raises=(), all_in=True)
#: Bet abstraction of the small turn endgames solved for the ``"bayes"`` model (both streets, no raise).
BAYES_SIZES = BetSizes(bets=(0.75,), raises=(), all_in=False)
#: Range models by name.
RANGE_MODELS = ("preflop", "strength", "bayes")
#: Shapes of the ``"strength"`` model.
STRENGTH_SHAPES = ("value", "condensed", "polarised", "capped")
#: Turn lines of the ``"bayes"`` model, as the child positions taken from the root (0 = check, 1 = the bet;
#: facing a bet 1 = call).
BAYES_LINES = {"check-check": (0, 0), "bet-call": (1, 1), "check-bet-call": (0, 1, 1)}
_DUST = 1e-5          # weights below this fraction of the largest are dropped
_MAX_REDRAWS = 50     # attempts at two ranges with a compatible pair of hands
_ROUNDING_CHIPS = 8   # margin of the stack over min_spr: bets are rounded to whole chips at every step


# ---------------------------------------------------------------------------------------------- tree shape
def action_pattern(betting) -> tuple:
    """The shape of a betting tree independent of the chip amounts: one entry per node.

    Parameters
    ----------
    betting : hunl.solver.tree.BettingTree

    Returns
    -------
    tuple of (int, int, int, str)
        ``(kind, player, parent, action)`` per node in breadth-first order, where a bet is written as its
        fraction of the pot (``"bet 0.5 pot"``), a raise as ``"raise"`` and a river card as ``"card"``.
    """
    t = betting.tree
    pot = betting.pot
    out = []
    for n in range(t.n_nodes):
        a = t.action[n]
        par = int(t.parent[n])
        if a.startswith("bet "):
            a = f"bet {float(a[4:]) / pot[par]:.2g} pot"
        elif a.startswith("raise to "):
            a = "raise"
        elif par >= 0 and t.kind[par] == 0:  # a chance outcome
            a = "card"
        out.append((int(t.kind[n]), int(t.player[n]), par, a))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _reference(street: str, bet_sizes: BetSizes, raise_cap: int):
    """The tree with a practically infinite stack (nothing collapses into all-in) and its pattern."""
    pot = 1e6
    cfg = TreeConfig(street=street, pot=pot, stack=1e12, flop=bet_sizes, turn=bet_sizes, river=bet_sizes,
                     raise_cap=raise_cap)
    bt = build_tree(cfg, tuple(range(STREETS[street])))
    return bt, action_pattern(bt)


@functools.lru_cache(maxsize=64)
def _same_shape(street: str, bet_sizes: BetSizes, raise_cap: int, pot: float, stack: int) -> bool:
    """Whether the tree at ``pot`` and ``stack`` has the shape of the unlimited-stack tree (:func:`_reference`);
    cached, as every sampler of the same settings checks the same two trees."""
    cfg = TreeConfig(street=street, pot=pot, stack=stack, flop=bet_sizes, turn=bet_sizes, river=bet_sizes,
                     raise_cap=raise_cap)
    return action_pattern(build_tree(cfg, tuple(range(STREETS[street])))) == _reference(street, bet_sizes,
                                                                                        raise_cap)[1]


@functools.lru_cache(maxsize=16)
def min_spr(street: str = "river", bet_sizes: BetSizes = RIVER_SIZES, raise_cap: int = 1) -> float:
    """The stack-to-pot ratio that every endgame must exceed for no bet or raise to collapse into all-in.

    It is ``max(c) / pot - 1/2`` over the non-all-in bets and raises of the tree without a stack limit, where
    ``c`` is the bettor's total contribution after the action (half the starting pot included): a bet of size
    ``c`` collapses exactly when ``c >= pot / 2 + stack`` (:mod:`hunl.solver.tree`).

    Parameters
    ----------
    street : {"river", "turn", "flop"}
    bet_sizes : BetSizes
        Sizes of both streets.
    raise_cap : int

    Returns
    -------
    float
        E.g. 1.0 for :data:`RIVER_SIZES` on the river (a pot-size bet), 4.0 on the turn (pot, call, pot). Cached
        per arguments.
    """
    bt, _ = _reference(street, bet_sizes, raise_cap)
    t = bt.tree
    c = bt.contributions
    worst = 0.0
    for n in range(1, t.n_nodes):
        a = t.action[n]
        if a.startswith(("bet ", "raise to ")):
            actor = int(t.player[t.parent[n]])
            worst = max(worst, c[n, actor] / bt.config.pot)
    return worst - 0.5


# ---------------------------------------------------------------------------------------------- percentiles
def _midrank(s: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Mid-rank percentile ``(below + equal / 2) / n`` of ``s`` among ``s[live]``; 0 where not live."""
    vals = np.sort(s[live])
    below = np.searchsorted(vals, s, "left")
    equal = np.searchsorted(vals, s, "right") - below
    return np.where(live, (below + 0.5 * equal) / max(vals.size, 1), 0.0)


def strength_percentile(board) -> np.ndarray:
    """Showdown-strength percentile of every combo on a flop, turn or river board.

    Parameters
    ----------
    board : sequence of int
        3 (flop), 4 (turn) or 5 (river) distinct card indices.

    Returns
    -------
    numpy.ndarray of float64, shape (1326,)
        River: the combo's mid-rank ``(below + equal / 2) / n`` among the ``n = 1081`` combos that avoid the
        board, by :func:`hunl.poker.evaluator.combo_strengths` (no card removal between the two hands). Turn: the mean
        of the river percentile over the 48 possible river cards, each river card averaging over the combos
        that avoid it; flop: the same over the 1,176 (turn, river) runouts. 0 for combos that share a card with
        the board.

    Raises
    ------
    ValueError
        If the board does not have 3, 4 or 5 distinct valid cards.
    """
    board = tuple(int(c) for c in board)
    if len(board) == 5:
        s = combo_strengths(board)
        return _midrank(s, s >= 0)
    if len(board) not in (3, 4) or len(set(board)) != len(board):
        raise ValueError(f"board must have 3, 4 or 5 distinct cards, got {board!r}")
    total = np.zeros(NUM_COMBOS)
    count = np.zeros(NUM_COMBOS)
    rest = [r for r in range(NUM_CARDS) if r not in board]
    for runout in itertools.combinations(rest, 5 - len(board)):
        s = combo_strengths(board + runout)
        live = s >= 0
        total += _midrank(s, live)
        count += live
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


# ---------------------------------------------------------------------------------------------- results
@dataclass(frozen=True, eq=False)
class RandomEndgame:
    """One random endgame of an :class:`EndgameSampler`.

    Attributes
    ----------
    seed, index : int
        The stream and the position ``k`` in it (``numpy.random.default_rng([seed, index])``).
    street : str
        ``"river"`` or ``"turn"``.
    board : numpy.ndarray of int64, shape (5,) or (4,)
        Distinct card indices (:mod:`hunl.poker.cards`), read-only.
    weights : numpy.ndarray of float64, shape (2, 1326)
        Player 1's (out of position) and player 2's range: nonnegative, each row summing to 1, 0 on combos that
        share a card with the board; read-only.
    pot : float
        Chips in the pot at the start of the endgame (an even number).
    stack : float
        Chips behind, each player.
    range_models : tuple of (str, str)
        The model that drew each player's range (``"preflop"``, ``"strength:polarised"``, ``"bayes:bet-call"``).
    """

    seed: int
    index: int
    street: str
    board: np.ndarray
    weights: np.ndarray
    pot: float
    stack: float
    range_models: tuple

    @property
    def spr(self) -> float:
        """Stack-to-pot ratio ``stack / pot``."""
        return self.stack / self.pot


def _pairs(name: str, value, low_min: float, integer: bool = False) -> tuple:
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high) of numbers, got {value!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo < low_min or hi < lo:
        raise ValueError(f"{name} must satisfy {low_min:g} <= low <= high < inf, got {value!r}")
    return (lo, hi)


def _even_bounds(pot) -> tuple[int, int]:
    """The smallest and largest even numbers of chips in the pot range."""
    return 2 * math.ceil(pot[0] / 2), 2 * math.floor(pot[1] / 2)


# ---------------------------------------------------------------------------------------------- sampler
@dataclass(frozen=True)
class EndgameSampler:
    """Random turn or river endgames whose betting trees all have the same shape.

    Parameters
    ----------
    street : {"river", "turn", "flop"}, default "river"
        Board of 5 or 4 cards.
    pot : (float, float), default (200, 4000)
        Range of the starting pot in chips (log-uniform, rounded to an even number).
    spr : (float, float), default (1.5, 8.0)
        Range of the stack-to-pot ratio (log-uniform; the stack is ``ceil(spr * pot)``). The low end must exceed
        :func:`min_spr` plus 8 chips (a margin for the rounding of bets to whole chips) over the smallest pot:
        1.04 for :data:`RIVER_SIZES` on the river and pots from 200, 4.04 on the turn (:meth:`turn` gives turn
        defaults).
    range_models : sequence of str or (str, float), default (("preflop", 0.45), ("strength", 0.45), ("bayes",
        0.1))
        The models of :data:`RANGE_MODELS` and the probability of drawing each (normalised); a bare name has
        weight 1. ``"bayes"`` is for river endgames only.
    sharpness : (float, float), default (0.5, 2.5)
        Range of the exponent ``a`` of the ``preflop`` and ``strength`` models (log-uniform).
    noise : (float, float), default (0.1, 0.8)
        Range of the log-normal noise ``sigma`` of the ``strength`` model.
    bet_sizes : BetSizes, default :data:`RIVER_SIZES`
        Sizes of every street of the endgame.
    raise_cap : int, default 1
    big_blind : float, default 100
        Chips (for mbb/g).
    max_combos : int, optional
        Keep only the ``max_combos`` largest weights of each range (ties: lower combo index first); for small
        turn endgames and tests.
    bayes_combos : int, default 200
        Size cap of the turn priors of the ``"bayes"`` model.
    bayes_iterations : int, default 100
        DCFR iterations of the turn solve of the ``"bayes"`` model.

    Raises
    ------
    ValueError
        A bad street, range or size, an unknown range model or a negative probability, ``"bayes"`` on the turn,
        or an ``spr`` low end at which some bet would collapse into all-in; the message names the parameter.
    TypeError
        If ``bet_sizes`` is not a :class:`hunl.solver.tree.BetSizes`.

    Examples
    --------
    >>> sampler = EndgameSampler()
    >>> e = sampler.sample(seed=0, k=3)
    >>> e.board.shape, e.weights.shape, bool(abs(e.weights.sum(axis=1) - 1).max() < 1e-12)
    ((5,), (2, 1326), True)
    >>> sampler.game(e).tree.n_nodes == sampler.n_nodes
    True
    """

    street: str = "river"
    pot: tuple = (200.0, 4000.0)
    spr: tuple = (1.5, 8.0)
    range_models: tuple = (("preflop", 0.45), ("strength", 0.45), ("bayes", 0.1))
    sharpness: tuple = (0.5, 2.5)
    noise: tuple = (0.1, 0.8)
    bet_sizes: BetSizes = RIVER_SIZES
    raise_cap: int = 1
    big_blind: float = 100.0
    max_combos: int | None = None
    bayes_combos: int = 200
    bayes_iterations: int = 100
    _probs: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        street = str(self.street).strip().lower()
        if street not in STREETS:
            raise ValueError(f"street must be 'river', 'turn' or 'flop', got {self.street!r}")
        object.__setattr__(self, "street", street)
        object.__setattr__(self, "pot", _pairs("pot", self.pot, 2.0))
        if _even_bounds(self.pot)[0] > _even_bounds(self.pot)[1]:
            raise ValueError(f"pot must contain an even number of chips, got {self.pot!r}")
        object.__setattr__(self, "spr", _pairs("spr", self.spr, 0.0))
        object.__setattr__(self, "sharpness", _pairs("sharpness", self.sharpness, 1e-3))
        object.__setattr__(self, "noise", _pairs("noise", self.noise, 0.0))
        if self.spr[0] <= 0:
            raise ValueError(f"spr must be positive, got {self.spr!r}")
        if not isinstance(self.bet_sizes, BetSizes):
            raise TypeError(f"bet_sizes must be a hunl.solver.tree.BetSizes, got {self.bet_sizes!r}")
        object.__setattr__(self, "raise_cap", check_int("raise_cap", self.raise_cap, 0))
        object.__setattr__(self, "big_blind", check_real("big_blind", self.big_blind, 0.0, low_open=True))
        object.__setattr__(self, "max_combos", check_int("max_combos", self.max_combos, 1, allow_none=True))
        object.__setattr__(self, "bayes_combos", check_int("bayes_combos", self.bayes_combos, 1))
        object.__setattr__(self, "bayes_iterations", check_int("bayes_iterations", self.bayes_iterations, 1))
        object.__setattr__(self, "range_models", self._check_models(self.range_models))
        # the fixed tree shape: nothing may collapse into all-in at the smallest stack
        need = min_spr(street, self.bet_sizes, self.raise_cap) + _ROUNDING_CHIPS / self.pot[0]
        if self.spr[0] <= need:
            raise ValueError(f"spr: the low end {self.spr[0]:g} lets a bet collapse into all-in (the tree shape "
                             f"would vary); it must exceed {need:.4g} for street={street!r} and these bet_sizes")
        for pot in _even_bounds(self.pot):
            if not _same_shape(street, self.bet_sizes, self.raise_cap, pot, math.ceil(self.spr[0] * pot)):
                raise ValueError(  # pragma: no cover - guarded by the bound above
                    f"spr: at pot {pot:g} and spr {self.spr[0]:g} the tree differs from the unlimited-stack tree")

    def _check_models(self, models) -> tuple:
        if isinstance(models, str):
            models = (models,)
        out = []
        try:
            items = list(models)
        except TypeError:
            raise ValueError(f"range_models must be a sequence of names or (name, probability) pairs, "
                             f"got {models!r}") from None
        for item in items:
            if isinstance(item, str):
                name, w = item, 1.0
            else:
                try:
                    name, w = item
                    w = float(w)
                except (TypeError, ValueError):
                    raise ValueError(f"range_models: entry {item!r} is not a name or a (name, probability) "
                                     "pair") from None
            if name not in RANGE_MODELS:
                raise ValueError(f"range_models: unknown model {name!r}; known: {', '.join(RANGE_MODELS)}")
            if not (math.isfinite(w) and w >= 0):
                raise ValueError(f"range_models: the probability of {name!r} must be finite and >= 0, got {w!r}")
            if name in (n for n, _ in out):
                raise ValueError(f"range_models: {name!r} is listed twice")
            out.append((name, w))
        total = sum(w for _, w in out)
        if not out or total <= 0:
            raise ValueError(f"range_models must give some model a positive probability, got {models!r}")
        if self.street != "river" and any(n == "bayes" and w > 0 for n, w in out):
            raise ValueError("range_models: 'bayes' needs a solved earlier street and is for river endgames only "
                             f"(give it probability 0 on the {self.street}, or use EndgameSampler.turn() or "
                             "EndgameSampler.flop())")
        if not any(n != "bayes" and w > 0 for n, w in out):
            raise ValueError("range_models: 'bayes' draws its turn priors from the other models, so 'preflop' or "
                             "'strength' needs a positive probability too")
        probs = tuple((n, w / total) for n, w in out)
        object.__setattr__(self, "_probs", probs)
        return tuple((n, w) for n, w in out)

    @classmethod
    def flop(cls, **overrides) -> EndgameSampler:
        """A sampler of small flop endgames: one bet size (half pot) and all-in on every street, ``spr=(4, 12)``
        (a half-pot bet on every street never collapses into all-in), no ``"bayes"`` model, ranges of at most 150
        combos (about 370,000 public nodes); ``overrides`` replace any parameter."""
        params = dict(street="flop", spr=(4.0, 12.0), range_models=(("preflop", 0.5), ("strength", 0.5)),
                      max_combos=150, bet_sizes=BetSizes(bets=(0.5,), raises=(), all_in=True))
        params.update(overrides)
        return cls(**params)

    @classmethod
    def turn(cls, **overrides) -> EndgameSampler:
        """A sampler of small turn endgames: ``spr=(4.5, 12)``, no ``"bayes"`` model, ranges of at most 200
        combos; ``overrides`` replace any parameter."""
        params = dict(street="turn", spr=(4.5, 12.0), range_models=(("preflop", 0.5), ("strength", 0.5)),
                      max_combos=200)
        params.update(overrides)
        return cls(**params)

    # ------------------------------------------------------------------ tree
    @property
    def pattern(self) -> tuple:
        """The common tree shape of every endgame (:func:`action_pattern`)."""
        return _reference(self.street, self.bet_sizes, self.raise_cap)[1]

    @property
    def n_nodes(self) -> int:
        """Number of public nodes of every endgame's betting tree."""
        return len(self.pattern)

    @property
    def root_actions(self) -> tuple:
        """Labels of player 1's first actions, amount-free (``"check"``, ``"bet 0.5 pot"``, ..., ``"all-in"``)."""
        return tuple(a for _, _, par, a in self.pattern if par == 0)

    def config(self) -> dict:
        """JSON-serialisable parameters."""
        b = self.bet_sizes
        return {"street": self.street, "pot": list(self.pot), "spr": list(self.spr),
                "range_models": [[n, w] for n, w in self.range_models], "sharpness": list(self.sharpness),
                "noise": list(self.noise),
                "bet_sizes": b.to_data(),
                "raise_cap": self.raise_cap, "big_blind": self.big_blind, "max_combos": self.max_combos,
                "bayes_combos": self.bayes_combos, "bayes_iterations": self.bayes_iterations}

    # ------------------------------------------------------------------ sampling
    def sample(self, seed: int, k: int) -> RandomEndgame:
        """Endgame ``k`` of the stream ``seed`` (a function of ``(seed, k)`` only).

        Parameters
        ----------
        seed, k : int
            Nonnegative integers.

        Returns
        -------
        RandomEndgame

        Raises
        ------
        ValueError
            If ``seed`` or ``k`` is not a nonnegative integer.
        """
        for name, v in (("seed", seed), ("k", k)):
            check_int(name, v, 0)
        rng = np.random.default_rng([int(seed), int(k)])
        n_board = STREETS[self.street]
        board = tuple(int(c) for c in rng.choice(NUM_CARDS, size=n_board, replace=False))
        lo, hi = _even_bounds(self.pot)
        pot = float(min(max(2 * round(math.exp(rng.uniform(math.log(lo), math.log(hi))) / 2), lo), hi))
        spr = math.exp(rng.uniform(math.log(self.spr[0]), math.log(self.spr[1])))
        stack = float(math.ceil(spr * pot))
        stack = max(stack, float(math.ceil(self.spr[0] * pot)))
        names, probs = zip(*self._probs)
        percentile = None
        for _ in range(_MAX_REDRAWS):
            picks = [names[i] for i in rng.choice(len(names), size=2, p=np.asarray(probs))]
            weights, labels = np.zeros((2, NUM_COMBOS)), ["", ""]
            if "bayes" in picks:
                bw, line = self._bayes(rng, board, pot, stack)
                for p in (0, 1):
                    if picks[p] == "bayes":
                        weights[p], labels[p] = bw[p], f"bayes:{line}"
            for p in (0, 1):
                if picks[p] != "bayes":
                    if picks[p] == "strength" and percentile is None:
                        percentile = strength_percentile(board)
                    weights[p], labels[p] = self._draw(rng, picks[p], board, percentile, self.max_combos)
            if _compatible(weights):
                break
        else:  # pragma: no cover - needs tiny ranges that always collide
            raise RuntimeError(f"no two compatible ranges in {_MAX_REDRAWS} draws (seed {seed}, k {k}); "
                               "raise max_combos")
        weights /= weights.sum(axis=1, keepdims=True)
        b = np.array(board, dtype=np.int64)
        b.setflags(write=False)
        weights.setflags(write=False)
        return RandomEndgame(int(seed), int(k), self.street, b, weights, pot, stack, tuple(labels))

    def game(self, endgame: RandomEndgame, dtype="float32") -> HoldemEndgame:
        """The endgame as a :class:`hunl.solver.game.HoldemEndgame` with this sampler's bet tree.

        Raises
        ------
        TypeError
            If ``endgame`` is not a :class:`RandomEndgame`.
        ValueError
            If it is an endgame of the other street.
        RuntimeError
            If its tree does not have the sampler's shape (cannot happen for endgames of this sampler).
        """
        if not isinstance(endgame, RandomEndgame):
            raise TypeError(f"endgame must be a RandomEndgame, got {type(endgame).__name__}")
        if endgame.street != self.street:
            raise ValueError(f"endgame is a {endgame.street} endgame; this sampler's street is {self.street!r}")
        g = HoldemEndgame(endgame.board.tolist(), endgame.weights, pot=endgame.pot, stack=endgame.stack,
                          bet_sizes=self.bet_sizes, raise_cap=self.raise_cap, big_blind=self.big_blind,
                          dtype=dtype)
        if g.tree.n_nodes != self.n_nodes:
            raise RuntimeError(f"endgame {endgame.index}: {g.tree.n_nodes} nodes, the sampler's tree has "
                               f"{self.n_nodes}")
        return g

    # ------------------------------------------------------------------ range models
    def _draw(self, rng, model: str, board, percentile, cap) -> tuple[np.ndarray, str]:
        """One range of the ``preflop`` or ``strength`` model on ``board`` (4 or 5 cards), unnormalised."""
        a = math.exp(rng.uniform(*np.log(self.sharpness)))
        if model == "preflop":
            x = random_simplex(169, rng)  # Algorithm 4 over the hand classes
            w = x[HAND_CLASS] ** a
            label = "preflop"
        else:
            q = percentile
            shape = STRENGTH_SHAPES[int(rng.integers(len(STRENGTH_SHAPES)))]
            if shape == "value":
                f = q ** a
            elif shape == "condensed":
                m, s = rng.uniform(0.35, 0.75), rng.uniform(0.08, 0.25)
                f = np.exp(-0.5 * ((q - m) / s) ** 2)
            elif shape == "polarised":
                b, t = rng.uniform(3.0, 10.0), rng.uniform(0.3, 0.8)
                f = t * q ** b + (1.0 - t) * (1.0 - q) ** b
            else:
                c = rng.uniform(0.5, 0.9)
                f = q ** a / (1.0 + np.exp(np.clip((q - c) / 0.03, -60.0, 60.0)))
            sigma = rng.uniform(*self.noise)
            w = f * np.exp(sigma * rng.standard_normal(NUM_COMBOS))
            label = f"strength:{shape}"
        return _clean(w, board, cap), label

    def _bayes(self, rng, board, pot, stack) -> tuple[np.ndarray, str]:
        """Both players' river ranges by Bayes' rule from a solved turn endgame (see the module notes)."""
        from hunl.solver.solve import solve_endgame

        turn_board, river_card = board[:4], board[4]
        names, probs = zip(*[(n, w) for n, w in self._probs if n != "bayes"])
        p = np.asarray(probs) / sum(probs)
        percentile = None
        priors = np.zeros((2, NUM_COMBOS))
        for _ in range(_MAX_REDRAWS):
            for q in (0, 1):
                model = names[int(rng.choice(len(names), p=p))]
                if model == "strength" and percentile is None:
                    percentile = strength_percentile(turn_board)
                priors[q] = self._draw(rng, model, turn_board, percentile, self.bayes_combos)[0]
            if _compatible(priors):
                break
        order = list(BAYES_LINES)
        first = int(rng.integers(len(order)))
        solved = {}  # turn pot -> (game, average policy): the two bet lines share one solve
        for line in order[first:] + order[:first]:
            bets = 1 in BAYES_LINES[line]
            turn_pot = float(max(2, 2 * round(pot / (1.0 + 2.0 * BAYES_SIZES.bets[0].value) / 2))) if bets else pot
            if turn_pot not in solved:
                # a range's weights lie in [0, 1]: scale each prior by a power of 2 (exact; the deal is the same)
                scaled = priors * 2.0 ** -np.ceil(np.log2(priors.max(axis=1, keepdims=True)))
                game = HoldemEndgame(list(turn_board), scaled, pot=turn_pot, stack=stack + (pot - turn_pot) / 2.0,
                                     bet_sizes=BAYES_SIZES, raise_cap=0, big_blind=self.big_blind)
                sol = solve_endgame(game, "dcfr", iterations=self.bayes_iterations,
                                    check_every=self.bayes_iterations)
                solved[turn_pot] = (game, sol.result.policy.probs)
            post = _posterior(*solved[turn_pot], BAYES_LINES[line], priors, river_card)
            if _compatible(post):
                return post, line
        # every line empties a range (not seen in practice): keep the priors without the river card's combos
        return np.stack([_clean(priors[q], board, None) for q in (0, 1)]), "prior"  # pragma: no cover


def _posterior(game: HoldemEndgame, probs: np.ndarray, line: tuple, priors: np.ndarray,
               river_card: int) -> np.ndarray:
    """Prior times the probability of each player's own actions along ``line`` (child positions), river card
    removed."""
    t = game.tree
    reach = [np.ones(game.num_hands[0]), np.ones(game.num_hands[1])]
    node = 0
    for pos in line:
        p = int(t.player[node])
        child = int(t.child_start[node]) + pos
        reach[p] = reach[p] * probs[child, :game.num_hands[p]]
        node = child
    out = np.zeros((2, NUM_COMBOS))
    for p in (0, 1):
        out[p, game.combos[p]] = priors[p, game.combos[p]] * reach[p]
    return np.stack([_clean(out[p], (river_card,), None) for p in (0, 1)])


def _clean(w: np.ndarray, board, cap) -> np.ndarray:
    """Zero the board's combos and the dust below ``_DUST`` of the largest weight; keep the ``cap`` largest."""
    w = np.array(w, dtype=np.float64)
    w[board_conflicts(list(board))] = 0.0
    top = w.max()
    if top <= 0:
        return w
    w[w < _DUST * top] = 0.0
    if cap is not None and np.count_nonzero(w) > cap:
        keep = np.argsort(-w, kind="stable")[:cap]
        out = np.zeros_like(w)
        out[keep] = w[keep]
        w = out
    return w


def _compatible(weights: np.ndarray) -> bool:
    """Whether some hand of player 1 and some hand of player 2 with positive weight share no card."""
    if not (weights[0].max() > 0 and weights[1].max() > 0):
        return False
    return float(weights[0] @ unblocked_sums(weights[1])) > 0

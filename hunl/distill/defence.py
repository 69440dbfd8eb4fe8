"""The minimum-defence rule: facing a bet of ``b`` pots, continue with the hands in the top ``1 / (1 + b)`` of your
range, fold the rest.

A bet of ``b`` times the pot risks ``b`` to win ``1``: a pure bluff breaks even when the defender folds ``b / (1 +
b)`` of the time, so a defender who continues with a share ``1 / (1 + b)`` of the range makes every bluff a
break-even bet (the *minimum defence frequency*; Chen & Ankenman, *The Mathematics of Poker*, 2006, the [0,1]
river games, where the bluff-to-bet ratio of the equilibrium is ``alpha = b / (1 + b)``). As a rule a person can
play: "your hand beats more than b/(1+b) of your range: call".

The rule cards read their quantities against the ranges at the *start* of the street (``docs/HUNL.md``: a
distilled policy that reads Bayes' rule on its own earlier actions compounds its mistakes). The minimum-defence
rule is the exception worth measuring: it sets the defence by the range the player actually holds at the decision
(after a check, the checking range), whatever the earlier actions were, so its own mistakes above it do not
change what share of that range defends. :func:`minimum_defence` plays it on the decisions facing a bet of a
given policy (the stored solution, or a card), and :class:`MinimumDefence` is that policy for
:func:`hunl.distill.pipeline.evaluate_task` (``scripts/rule_cards.py streets --sections``).
"""

from __future__ import annotations

import numpy as np

from hunl.distill import features as F
from hunl.distill.decisions import DecisionContext, reach_probabilities
from hunl.distill.policy import _play_node, check_streets, reads_play_on
from hunl.poker.cards import board_conflicts

__all__ = ["minimum_defence", "MinimumDefence", "DEFENCE_RANGES"]

#: Which range the rule ranks a hand in: at the decision (Bayes' rule on the policy played above it) or at the
#: start of the endgame.
DEFENCE_RANGES = ("node", "start")


def _check(ranges: str, margin: float) -> float:
    if ranges not in DEFENCE_RANGES:
        raise ValueError(f"ranges must be one of {DEFENCE_RANGES}, got {ranges!r}")
    margin = float(margin)
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"margin must be a share between -1 and 1 (added to b/(1+b)), got {margin}")
    return margin


def minimum_defence(game, probs, streets=(5,), ranges: str = "node", margin: float = 0.0) -> np.ndarray:
    """A policy with its decisions facing a bet replaced by the minimum-defence rule.

    At every decision node on ``streets`` where the acting player faces a bet of ``b`` times the pot (the pot
    before the bet), each hand continues -- calls; facing an all-in that is the call -- if it beats more than
    ``b / (1 + b) + margin`` of the player's range (:func:`hunl.distill.features.range_percentile`: by weight,
    ties counted half, card removal), and folds otherwise; it never raises. Every other decision plays ``probs``.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
    probs : array_like of float, shape ``(N, Hm)``
        Edge-layout probabilities (:attr:`games.core.policy.Policy.probs`) of the policy played elsewhere.
    streets : iterable of int, default ``(5,)``
        Board sizes (3 flop, 4 turn, 5 river) whose decisions facing a bet the rule plays.
    ranges : {"node", "start"}, default "node"
        The range a hand is ranked in: the player's range at the decision (the endgame's starting range times
        the player's own reach under the policy returned, decided top-down, so the rule's own earlier folds and
        calls count), or the starting range. Where the player's range at the decision is empty (never reached
        by its own play) the starting range is used.
    margin : float, default 0.0
        Added to ``b / (1 + b)``: positive defends less, negative more.

    Returns
    -------
    numpy.ndarray of float64, shape ``(N, Hm)``

    Raises
    ------
    ValueError
        If ``probs`` has the wrong shape, ``streets`` is empty or holds a value other than 3, 4, 5, ``ranges``
        is not ``"node"`` or ``"start"``, ``margin`` is outside [-1, 1], or a node facing a bet has no fold or no
        call.
    """
    streets = check_streets(streets)
    margin = _check(ranges, margin)
    t = game.tree
    out = np.array(probs, dtype=np.float64, copy=True)
    if out.shape != (t.n_nodes, game.max_hands):
        raise ValueError(f"probs must have shape {(t.n_nodes, game.max_hands)}, got {out.shape}")
    ctx = DecisionContext(game)
    rule = ctx.facing & np.isin(ctx.street, streets)
    if not rule.any():
        return out
    reach = np.ones((2, t.n_nodes, game.max_hands))
    depth = t.depth
    done = 0
    for d in np.unique(depth[ctx.nodes[rule]]):
        if ranges == "node":   # the reach of every node down to depth d, under the policy as decided so far
            level = np.flatnonzero((depth > done) & (depth <= d))
            level = level[np.argsort(depth[level], kind="stable")]
            reach_probabilities(game, out, upto=level, reach=reach)
            done = int(d)
        which = np.flatnonzero(rule & (depth[ctx.nodes] == d))
        _decide(game, ctx, which, reach, ranges, margin, out)
    return out


def _decide(game, ctx, which, reach, ranges, margin, out) -> None:
    """Set the actions of the decision nodes ``ctx.nodes[which]`` (all facing a bet) in ``out``."""
    t = game.tree
    groups: dict[tuple[int, int], list[int]] = {}
    for k in which:
        groups.setdefault((int(ctx.boards[k]), int(ctx.player[k])), []).append(int(k))
    for (bidx, p), ks in groups.items():
        nodes = ctx.nodes[ks]
        hp = game.num_hands[p]
        combos = game.combos[p]
        start = np.zeros(1326)
        start[combos] = game.prior[p][:hp]
        w = np.broadcast_to(start, (len(ks), 1326)).copy()
        board = game.boards[bidx]
        if ranges == "node":
            w[:, combos] *= reach[p][nodes][:, :hp]
            # a range its own play never reaches (no weight off the board): rank in the starting range
            empty = w[:, ~board_conflicts(board)].sum(axis=1) <= 0
            w[empty] = start
        pct = F.range_percentile(board, w)[:, combos]
        b = ctx.public[ks, 0]
        cont = np.nan_to_num(pct, nan=0.0) > (b / (1.0 + b) + margin)[:, None]
        for row, k in enumerate(ks):
            n = int(ctx.nodes[k])
            kids = t.children(n)
            cls = ctx.edge_class[kids.start:kids.stop]
            fold = np.flatnonzero(cls == 0)
            call = np.flatnonzero(cls == 1)
            if fold.size != 1 or call.size != 1:
                raise ValueError(f"node {n} faces a bet but has no single fold and call action: {list(cls)}")
            out[kids.start:kids.stop, :hp] = 0.0
            out[kids.start + fold[0], :hp] = ~cont[row]
            out[kids.start + call[0], :hp] = cont[row]


class MinimumDefence:
    """A policy for :func:`hunl.distill.pipeline.evaluate_task`: ``chooser`` (or, when it is None, the endgame's
    stored solution) with its decisions facing a bet on ``streets`` played by :func:`minimum_defence`.

    A chooser that reads the ranges at the decision (``"node"`` or ``"own"`` ranges) on a street after one of
    ``streets`` plays that street on the ranges the rule's folds and calls leave, street by street (it is played
    again with the rule's play above in place, :func:`hunl.distill.policy._play_node`); one that reads the
    starting ranges there is played once and the rule spliced in, which is the same.

    Parameters
    ----------
    chooser : object or None
        Any chooser of :func:`hunl.distill.policy.play`, or None for the stored DCFR solution.
    name : str
        The policy's name in tables.
    streets : iterable of int, default ``(5,)``
    ranges : {"node", "start"}, default "node"
    margin : float, default 0.0
        As :func:`minimum_defence`.

    Raises
    ------
    ValueError
        As :func:`minimum_defence` for ``streets``, ``ranges`` and ``margin``.
    """

    def __init__(self, chooser, name: str, streets=(5,), ranges: str = "node", margin: float = 0.0):
        self.streets = check_streets(streets)
        self.margin = _check(ranges, margin)
        self.chooser = chooser
        self.name = name
        self.ranges = ranges

    @property
    def needs_solution(self) -> bool:
        """Whether scoring it reads the stored solution (it plays the solution where the rule does not)."""
        return self.chooser is None

    def probs(self, game, played=None, solution=None) -> np.ndarray:
        """Edge-layout probabilities in ``game``: ``played`` (the chooser's :class:`games.core.Policy` or
        probabilities; None plays it here) or ``solution``, with the rule on the decisions facing a bet."""
        if self.chooser is None:
            if solution is None:
                raise ValueError("solution: a MinimumDefence of the stored solution needs the solution's probs")
            base = solution
        else:
            if played is None:
                from hunl.distill.policy import play
                played = play(game, self.chooser)
            base = getattr(played, "probs", played)
        out = np.asarray(base, dtype=np.float64)
        for k, s in enumerate(self.streets):   # street by street: a later street reads the rule's play above it
            later = [x for x in (3, 4, 5) if x > s]
            if not reads_play_on(self.chooser, later):
                return minimum_defence(game, out, self.streets[k:], self.ranges, self.margin)
            out = minimum_defence(game, out, (s,), self.ranges, self.margin)
            out = _play_node(game, self.chooser, solution=out, streets=later).probs
        return out

"""``check_game``: simulate any game against the interface of :mod:`games.core.tree` and check its invariants.

What is checked (each failure raises :class:`GameCheckError`, a ``ValueError``, naming the node):

1. **Structure** -- breadth-first numbering (parents before children, contiguous children), node kinds, players
   0/1 at decision nodes, no children at terminals, decision nodes keep their parent's board, every player's
   information sets have at least one action.
2. **Chance** -- ``deal`` is non-negative with ``deal[0]`` summing to 1; each chance node's children partition
   its probability mass (``sum_k deal[board[child_k]] == deal[board[node]]``), so conditional chance
   probabilities are well defined; ``showdown`` is in ``{-1, 0, 1}``.
3. **Terminal evaluator** -- for random opponent reaches, ``values(node, p, r)`` equals the explicit sum
   ``sum_opp deal * payoff * r`` computed from the game's rule-level :meth:`Game.payoff`, and the two players'
   values are zero-sum.
4. **Simulation** -- ``n_games`` games are played out by sampling the deal, the chance outcomes (conditioned on
   the hands) and uniformly random legal actions; the mean payoff must agree with the exact expected value of
   the uniform policy from the solvers' evaluator within 5 standard errors, and each sampled terminal payoff
   must equal the evaluator's payoff for that deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.core.tree import CHANCE, DECISION, TERMINAL, Game

__all__ = ["GameCheckError", "GameCheckReport", "check_game"]


class GameCheckError(ValueError):
    """A game does not satisfy the interface of :mod:`games.core.tree`."""


@dataclass(frozen=True)
class GameCheckReport:
    """Summary of a successful :func:`check_game`.

    Attributes
    ----------
    name : str
    n_nodes, n_terminals, n_chance : int
        Public node counts.
    n_infosets : tuple of (int, int)
        Information sets ``(decision node, possible hand)`` per player.
    simulated_games : int
    simulated_mean, exact_value, standard_error : float
        Monte Carlo mean payoff to player 1 under uniform random play, its exact value, and the standard error.
    """

    name: str
    n_nodes: int
    n_terminals: int
    n_chance: int
    n_infosets: tuple
    simulated_games: int
    simulated_mean: float
    exact_value: float
    standard_error: float


def _fail(game: Game, node: int | None, msg: str):
    where = "" if node is None else f" at node {node} ({game.tree.history[node] or 'root'})"
    raise GameCheckError(f"{game.name}{where}: {msg}")


def _check_structure(game: Game) -> None:
    t = game.tree
    n = t.n_nodes
    arrays = dict(kind=t.kind, player=t.player, parent=t.parent, child_start=t.child_start,
                  num_children=t.num_children, board=t.board, fold_value=t.fold_value,
                  showdown_stake=t.showdown_stake)
    for name, arr in arrays.items():
        if np.shape(arr) != (n,):
            _fail(game, None, f"tree.{name} has shape {np.shape(arr)}, expected ({n},)")
    if len(t.action) != n or len(t.history) != n:
        _fail(game, None, "tree.action / tree.history must have one entry per node")
    if t.parent[0] != -1:
        _fail(game, 0, "the root must have parent -1")
    h1, h2 = game.num_hands
    if game.deal.ndim != 3 or game.deal.shape[1:] != (h1, h2) or game.showdown.shape != game.deal.shape:
        _fail(game, None, f"deal and showdown must have shape (B, {h1}, {h2}), got {game.deal.shape} and "
                          f"{game.showdown.shape}")
    n_boards = game.deal.shape[0]
    for k in range(n):
        kind = t.kind[k]
        if kind not in (CHANCE, DECISION, TERMINAL):
            _fail(game, k, f"unknown kind {kind}")
        if not 0 <= t.board[k] < n_boards:
            _fail(game, k, f"board {t.board[k]} out of range 0..{n_boards - 1}")
        kids = t.children(k)
        if kind == TERMINAL:
            if len(kids):
                _fail(game, k, "a terminal node has children")
            if t.fold_value[k] != 0 and t.showdown_stake[k] != 0:
                _fail(game, k, "a terminal is a fold or a showdown, not both")
            continue
        if not len(kids):
            _fail(game, k, "a non-terminal node has no children")
        if kids.start <= k or kids.stop > n:
            _fail(game, k, "children must follow their parent (breadth-first numbering)")
        if np.any(t.parent[kids.start:kids.stop] != k):
            _fail(game, k, "children's parent pointers do not point back")
        if kind == DECISION:
            if t.player[k] not in (0, 1):
                _fail(game, k, f"decision node with player {t.player[k]}")
            if np.any(t.board[kids.start:kids.stop] != t.board[k]):
                _fail(game, k, "a decision changes the board; only chance nodes may")
        elif t.fold_value[k] != 0 or t.showdown_stake[k] != 0:
            _fail(game, k, "only terminal nodes carry payoffs")


def _check_chance(game: Game) -> None:
    t = game.tree
    if np.any(game.deal < 0) or not np.all(np.isfinite(game.deal)):
        _fail(game, None, "deal has negative or non-finite entries")
    if abs(game.deal[0].sum() - 1.0) > 1e-9:
        _fail(game, None, f"deal[0] (the private deal) sums to {game.deal[0].sum()!r}, not 1")
    if not np.all(np.isin(game.showdown, (-1.0, 0.0, 1.0))):
        _fail(game, None, "showdown entries must be -1, 0 or +1")
    if t.board[0] != 0:
        _fail(game, 0, "the root must have board 0")
    for k in np.flatnonzero(t.kind == CHANCE):
        kids = t.children(k)
        total = game.deal[t.board[kids.start:kids.stop]].sum(axis=0)
        err = np.abs(total - game.deal[t.board[k]]).max()
        if err > 1e-12:
            _fail(game, int(k), f"the chance outcomes do not partition the deal mass (max error {err:.3g})")


def _check_values(game: Game, rng: np.random.Generator, max_terminals: int) -> None:
    t = game.tree
    h1, h2 = game.num_hands
    terms = t.terminal_nodes
    if terms.size > max_terminals:
        terms = rng.choice(terms, size=max_terminals, replace=False)
    for node in terms:
        node = int(node)
        deal = game.deal[t.board[node]]
        u = np.zeros((h1, h2))
        for i, j in zip(*np.nonzero(deal)):
            u[i, j] = game.payoff(node, int(i), int(j))
        r1, r2 = rng.random(h1), rng.random(h2)
        v1 = np.asarray(game.values(node, 0, r2))
        v2 = np.asarray(game.values(node, 1, r1))
        want1 = (deal * u) @ r2
        want2 = -((deal * u).T @ r1)
        scale = 1.0 + np.abs(u).max()
        if v1.shape != (h1,) or np.abs(v1 - want1).max() > 1e-12 * scale:
            _fail(game, node, "values(node, 0, r2) disagrees with the rule-level payoff")
        if v2.shape != (h2,) or np.abs(v2 - want2).max() > 1e-12 * scale:
            _fail(game, node, "values(node, 1, r1) disagrees with the rule-level payoff")
        if abs(r1 @ v1 + r2 @ v2) > 1e-12 * scale:
            _fail(game, node, "terminal values are not zero-sum")


def _simulate(game: Game, rng: np.random.Generator, n_games: int):
    t = game.tree
    h2 = game.num_hands[1]
    flat = game.deal[0].ravel()
    deals = rng.choice(flat.size, size=n_games, p=flat / flat.sum())
    payoffs = np.empty(n_games)
    cache: dict = {}
    for g in range(n_games):
        i, j = divmod(int(deals[g]), h2)
        node = 0
        while t.kind[node] != TERMINAL:
            kids = t.children(node)
            if t.kind[node] == CHANCE:
                w = game.deal[t.board[kids.start:kids.stop], i, j]
                if w.sum() <= 0:
                    _fail(game, node, f"no chance outcome is possible for hands ({i}, {j})")
                node = kids.start + int(rng.choice(len(kids), p=w / w.sum()))
            else:
                node = kids.start + int(rng.integers(len(kids)))
        key = (node, i, j)
        if key not in cache:
            cache[key] = game.payoff(node, i, j)
            b = t.board[node]
            via_arrays = t.fold_value[node] + t.showdown_stake[node] * game.showdown[b, i, j]
            if abs(via_arrays - cache[key]) > 1e-12 * (1 + abs(cache[key])):
                _fail(game, node, f"payoff for hands ({i}, {j}) is {cache[key]!r} by the rules but "
                                  f"{via_arrays!r} by fold_value/showdown_stake/showdown")
        payoffs[g] = cache[key]
    return payoffs


def check_game(game: Game, n_games: int = 20000, seed: int = 0, max_terminals: int = 200) -> GameCheckReport:
    """Check that ``game`` implements the interface of :mod:`games.core.tree` consistently (see the module
    docstring for the list of checks).

    Parameters
    ----------
    game : Game
    n_games : int, default 20000
        Games to simulate with uniformly random play.
    seed : int, default 0
    max_terminals : int, default 200
        At most this many terminal nodes (chosen at random) are checked exhaustively against the rule-level
        payoff.

    Returns
    -------
    GameCheckReport

    Raises
    ------
    GameCheckError
        On the first violated invariant.
    """
    from games.core.best_response import expected_value
    from games.core.policy import Policy

    rng = np.random.default_rng(seed)
    _check_structure(game)
    _check_chance(game)
    _check_values(game, rng, max_terminals)
    payoffs = _simulate(game, rng, int(n_games))
    exact = expected_value(game, Policy.uniform(game))
    mean = float(payoffs.mean())
    se = float(payoffs.std(ddof=1) / np.sqrt(payoffs.size)) if payoffs.size > 1 else np.inf
    if abs(mean - exact) > 5 * se + 1e-12:
        raise GameCheckError(f"{game.name}: simulated mean payoff {mean:.6f} under uniform play differs from the "
                             f"exact value {exact:.6f} by more than 5 standard errors ({se:.2g})")
    t = game.tree
    return GameCheckReport(
        name=game.name,
        n_nodes=t.n_nodes,
        n_terminals=int((t.kind == TERMINAL).sum()),
        n_chance=int((t.kind == CHANCE).sum()),
        n_infosets=(game.num_infosets(0), game.num_infosets(1)),
        simulated_games=int(n_games),
        simulated_mean=mean,
        exact_value=float(exact),
        standard_error=se,
    )

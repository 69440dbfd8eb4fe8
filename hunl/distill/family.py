"""Random HUNL river endgames solved by DCFR, as a :class:`rulelearn.family.GameFamily` (``"hunl_river"``).

Endgame ``k`` of the stream ``seed`` is :meth:`hunl.distill.sampler.EndgameSampler.sample` ``(seed, k)``; it is
solved by :func:`hunl.solver.solve.solve_endgame` (Discounted CFR by default, Brown & Sandholm 2019) until the
exploitability is at most ``target_pct_pot`` percent of the pot or ``iterations`` iterations have run, and its
average strategy is stored in float16 in the combo layout described in :class:`HoldemRiverFamily`. Every stored
figure (exploitability, value) is computed from the *stored* strategy (rounded to float16 and renormalised, as
:meth:`HoldemRiverFamily.policy_array` rebuilds it), so reloading a game reproduces them exactly; the solver's
own figure is kept beside them.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping

import numpy as np

from games.core import exploitability as core_exploitability
from games.core.compilation import compiling
from hunl.distill.sampler import EndgameSampler
from hunl.poker.cards import COMBO_LABELS, NUM_COMBOS
from hunl.solver.game import HoldemEndgame
from hunl.solver.settings import SolverSettings
from hunl.solver.solve import solve_endgame
from hunl.solver.tree import BetSizes
from rulelearn.validation import STRATEGY_ATOL, check_int

__all__ = ["DEFAULT_SOLVER", "HoldemRiverFamily", "combo_policy", "edge_policy"]

_ALGORITHMS = ("dcfr", "cfr+", "cfr")


def combo_policy(game: HoldemEndgame, probs) -> np.ndarray:
    """Edge-layout policy probabilities -> combo layout.

    Parameters
    ----------
    game : HoldemEndgame
    probs : array_like of float, shape (N, Hm)
        Edge layout of :class:`games.core.policy.Policy`.

    Returns
    -------
    numpy.ndarray of float64, shape (N, 1326)
        ``out[n, c]``: for a node ``n`` whose parent is a decision node of player ``p``, the probability that
        ``p`` holding combo ``c`` takes the action into ``n``; 0 for combos outside ``p``'s range, for the root
        and for nodes below chance nodes.
    """
    p_arr = np.asarray(probs, dtype=np.float64)
    out = np.zeros((game.tree.n_nodes, NUM_COMBOS))
    for p in (0, 1):
        edges = game.tree.action_edges(p)[0]
        out[np.ix_(edges, game.combos[p])] = p_arr[edges, :game.num_hands[p]]
    return out


def edge_policy(game: HoldemEndgame, policy) -> np.ndarray:
    """Combo-layout policy (e.g. float16 from a database) -> edge-layout probabilities, renormalised.

    Parameters
    ----------
    game : HoldemEndgame
    policy : array_like, shape (N, 1326)
        As returned by :func:`combo_policy`.

    Returns
    -------
    numpy.ndarray of float64, shape (N, Hm)
        Every information set's probabilities divided by their sum (float64), so that rounding never leaves a
        row off 1; a row summing to 0 becomes uniform. Rows the edge layout does not use are 1 (and 0 beyond a
        player's hands).

    Raises
    ------
    ValueError
        If ``policy`` has the wrong shape, a negative or non-finite entry.
    """
    pol = np.asarray(policy)
    t = game.tree
    if pol.shape != (t.n_nodes, NUM_COMBOS):
        raise ValueError(f"policy must have shape (n_nodes, 1326) = ({t.n_nodes}, {NUM_COMBOS}), got {pol.shape}")
    out = np.ones((t.n_nodes, game.max_hands))
    for p in (0, 1):
        edges, starts, node_of_edge = t.action_edges(p)
        hp = game.num_hands[p]
        block = pol[np.ix_(edges, game.combos[p])].astype(np.float64)
        if not np.all(np.isfinite(block)) or np.any(block < 0):
            raise ValueError(f"policy has negative or non-finite probabilities for player {p + 1}")
        sums = np.add.reduceat(block, starts, axis=0)[node_of_edge]
        counts = np.diff(np.append(starts, edges.size))[node_of_edge]
        block = np.where(sums > 0, block / np.where(sums > 0, sums, 1.0), 1.0 / counts[:, None])
        out[edges, :hp] = block
        out[edges, hp:] = 0.0
    return out


def _bet_sizes(value) -> BetSizes:
    if isinstance(value, BetSizes):
        return value
    if isinstance(value, Mapping):
        try:
            return BetSizes(**value)
        except TypeError as exc:
            raise ValueError(f"bet_sizes: {exc}") from None
    raise TypeError(f"bet_sizes must be a BetSizes or a mapping with bets/raises/all_in, got {value!r}")


#: The solver settings of the family by default: DCFR to 0.1% of the pot, at most 1,000 iterations.
DEFAULT_SOLVER = SolverSettings("dcfr", 1000, 0.1)
#: Family parameters that set the solver (the names a database manifest records) -> SolverSettings fields.
_SOLVER_PARAMS = {"iterations": "max_iterations", "target_pct_pot": "target_pct_pot", "algorithm": "algorithm"}
_SAMPLER_PARAMS = tuple(f.name for f in dataclasses.fields(EndgameSampler) if f.init)


class HoldemRiverFamily:
    """Random HUNL river (or turn) endgames solved by DCFR: the game family ``"hunl_river"``.

    The family is its sampler and its solver settings. It is built from them, or from flat keyword parameters as a
    database manifest records them (:meth:`params`), which replace fields of the defaults.

    Parameters
    ----------
    sampler : EndgameSampler, optional
        Which endgames (default ``EndgameSampler()``, random river endgames).
    solver : SolverSettings, optional
        How each is solved (default :data:`DEFAULT_SOLVER`). ``target_pct_pot`` must be set: a game is
        ``verified`` when its stored strategy is within it.
    **params
        Fields of :class:`hunl.distill.sampler.EndgameSampler` (``street``, ``pot``, ``spr``, ``range_models``,
        ...; ``bet_sizes`` may be a mapping with ``bets``, ``raises``, ``all_in``), and ``iterations`` (maximum
        solver iterations per endgame), ``target_pct_pot`` (stop at this exploitability, NashConv / 2, in percent
        of the starting pot) and ``algorithm`` (``"dcfr"``, ``"cfr+"`` or ``"cfr"``).

    Raises
    ------
    ValueError
        On a bad sampler or solver parameter, or a target that is not a positive percentage.
    TypeError
        On an unknown parameter, or ``bet_sizes`` neither a :class:`hunl.solver.tree.BetSizes` nor a mapping.

    Notes
    -----
    Database columns, one row per endgame (``N`` nodes of the common tree, ``A`` root actions):

    ``game_id`` int64, ``seed`` int64, ``verified`` bool (stored exploitability <= ``target_pct_pot``), ``board``
    (5,) int8 (4 on the turn), ``pot`` and ``stack`` float64 (chips), ``weights`` (2, 1326) float32 (the ranges,
    each summing to 1; the solved game is built from exactly these float32 weights), ``policy`` (N, 1326)
    float16 (the average strategy in the combo layout of :func:`combo_policy`), ``exploitability_chips``,
    ``exploitability_pct_pot``, ``exploitability_mbb`` (mbb/g), ``value_chips`` (player 1's expected payoff,
    counting the chips both put in before the endgame) and ``best_response_value_1``/``_2`` (each player's payoff
    when he best-responds to the other; chips) of the stored strategy, float64,
    ``solver_exploitability_pct_pot`` (the solver's own float32 strategy), ``iterations`` int64, ``seconds``
    (wall time of the endgame: sampling, set-up, solve and checks; numba's one-off compilation excluded) and
    ``solve_seconds`` float64,
    ``range_model_1`` and ``range_model_2`` (str).

    Learners see the ranges (``G, 2, 1326``) and player 1's strategy at the root (``G, 1326, A``); combos outside
    player 1's range play the first action (check), as cards a player is never dealt do in the bet game.

    Pass ``family_params=family.params()`` to :meth:`rulelearn.data.database.SolutionDatabase.generate` so that
    ``SolutionDatabase.family()`` rebuilds this family rather than the defaults. ``street="turn"`` works
    (e.g. with the parameters of :meth:`hunl.distill.sampler.EndgameSampler.turn`), but its tree has about 8,000
    nodes, so the ``policy`` column takes about 22 MB per endgame: fine for tens of turn endgames, not for
    thousands.
    """

    name = "hunl_river"

    def __init__(self, sampler: EndgameSampler | None = None, solver: SolverSettings | None = None, **params):
        unknown = sorted(set(params) - set(_SAMPLER_PARAMS) - set(_SOLVER_PARAMS))
        if unknown:
            raise TypeError(f"HoldemRiverFamily got unknown parameters {unknown}; it takes the EndgameSampler "
                            f"fields and {', '.join(_SOLVER_PARAMS)}")
        sampled = {k: v for k, v in params.items() if k in _SAMPLER_PARAMS}
        if "bet_sizes" in sampled:
            sampled["bet_sizes"] = _bet_sizes(sampled["bet_sizes"])
        base = EndgameSampler() if sampler is None else sampler
        self.sampler = dataclasses.replace(base, **sampled) if sampled else base
        solving = {_SOLVER_PARAMS[k]: v for k, v in params.items() if k in _SOLVER_PARAMS}
        settings = DEFAULT_SOLVER if solver is None else solver
        self.solver = settings.replace(**solving) if solving else settings
        if self.solver.target_pct_pot is None or self.solver.target_pct_pot <= 0:
            raise ValueError(f"target_pct_pot must be a positive percentage of the pot, got "
                             f"{self.solver.target_pct_pot!r}")

    def __repr__(self) -> str:
        return f"HoldemRiverFamily(sampler={self.sampler!r}, solver={self.solver!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, HoldemRiverFamily) and (self.sampler, self.solver) == (other.sampler, other.solver)

    __hash__ = None

    @property
    def iterations(self) -> int:
        """Maximum solver iterations per endgame."""
        return self.solver.max_iterations

    @property
    def target_pct_pot(self) -> float:
        """The exploitability target (% of the pot) and verification threshold."""
        return self.solver.target_pct_pot

    @property
    def algorithm(self) -> str:
        return self.solver.algorithm

    def __getattr__(self, name):
        """The sampler's parameters read as the family's (``family.street``, ``family.bet_sizes``, ...)."""
        if name in _SAMPLER_PARAMS and "sampler" in self.__dict__:
            return getattr(self.sampler, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ protocol attributes
    @property
    def hand_labels(self) -> list[str]:
        """The 1,326 combos (``"2s2h"`` ... ``"AdAc"``, :data:`hunl.poker.cards.COMBO_LABELS`)."""
        return list(COMBO_LABELS)

    @property
    def action_labels(self) -> list[str]:
        """Player 1's first actions: ``"check"``, ``"bet 0.5 pot"``, ``"bet 1 pot"``, ``"all-in"``."""
        return list(self.sampler.root_actions)

    @property
    def action_values(self) -> list[float]:
        """Sizes as fractions of the pot; all-in (``spr`` pots, varying by game) is given the geometric mean of
        the ``spr`` range."""
        out = []
        for a in self.action_labels:
            if a.startswith("bet "):
                out.append(float(a.split()[1]))
            elif a == "all-in":
                out.append(math.sqrt(self.spr[0] * self.spr[1]))
            else:
                out.append(0.0)
        return out

    @property
    def player_names(self) -> list[str]:
        return ["P1 (out of position)", "P2 (button)"]

    @property
    def n_nodes(self) -> int:
        """Nodes of the common betting tree (``N`` of the ``policy`` column)."""
        return self.sampler.n_nodes

    def config(self) -> dict:
        """The sampler's parameters and the solver's (JSON; the solver's under the names of :meth:`params`)."""
        return dict(self.sampler.config(), iterations=self.iterations, target_pct_pot=self.target_pct_pot,
                    algorithm=self.algorithm)

    def params(self) -> dict:
        """JSON keyword arguments that rebuild this family (``family_params`` of a database)."""
        return self.config()

    # ------------------------------------------------------------------ solving
    def solve_one(self, seed: int, k: int) -> dict:
        """Sample, solve and check endgame ``k`` of the stream ``seed``; one row of :meth:`solve_range`."""
        t0 = time.perf_counter()
        with compiling() as compiled:  # numba's one-off compilation is not the endgame's time
            e = self.sampler.sample(seed, k)
            w32 = e.weights.astype(np.float32)
            game = self._build(e.board, w32, e.pot, e.stack)
            sol = solve_endgame(game, self.solver)
            stored = combo_policy(game, sol.result.policy.probs).astype(np.float16)
            res = core_exploitability(game, edge_policy(game, stored))
        pct = 100.0 * res.exploitability / game.pot
        return {
            "game_id": int(k),
            "seed": int(seed),
            "verified": bool(pct <= self.target_pct_pot),
            "board": e.board.astype(np.int8),
            "pot": e.pot,
            "stack": e.stack,
            "weights": w32,
            "policy": stored,
            "exploitability_chips": res.exploitability,
            "best_response_value_1": res.best_response_values[0],
            "best_response_value_2": res.best_response_values[1],
            "exploitability_pct_pot": pct,
            "exploitability_mbb": 1000.0 * res.exploitability / self.big_blind,
            "value_chips": res.policy_values[0],
            "solver_exploitability_pct_pot": sol.exploitability_pct_pot,
            "iterations": sol.iterations,
            "seconds": time.perf_counter() - t0 - compiled.seconds,
            "solve_seconds": sol.seconds,
            "range_model_1": e.range_models[0],
            "range_model_2": e.range_models[1],
        }

    def solve_range(self, seed: int, start: int, stop: int) -> dict[str, np.ndarray]:
        """Sample and solve endgames ``start .. stop-1`` of the stream ``seed`` (columns in the class notes).

        Raises
        ------
        ValueError
            If ``seed`` is negative or ``start .. stop`` is not a nonempty range of nonnegative ids.
        """
        for name, v in (("seed", seed), ("start", start), ("stop", stop)):
            check_int(name, v, 0)
        if stop <= start:
            raise ValueError(f"stop must be larger than start, got start={start!r}, stop={stop!r}")
        rows = [self.solve_one(int(seed), k) for k in range(int(start), int(stop))]
        dtypes = {"game_id": np.int64, "seed": np.int64, "verified": bool, "board": np.int8, "weights": np.float32,
                  "policy": np.float16, "iterations": np.int64, "range_model_1": str, "range_model_2": str}
        return {name: np.array([r[name] for r in rows], dtype=dtypes.get(name, np.float64)) for name in rows[0]}

    # ------------------------------------------------------------------ reading stored games
    def _build(self, board, weights, pot, stack) -> HoldemEndgame:
        return HoldemEndgame([int(c) for c in board], np.asarray(weights, dtype=np.float64), pot=float(pot),
                             stack=float(stack), bet_sizes=self.bet_sizes, raise_cap=self.raise_cap,
                             big_blind=self.big_blind)

    def game(self, columns: dict[str, np.ndarray], i: int) -> HoldemEndgame:
        """The endgame of row ``i`` of loaded database columns, exactly as it was solved.

        Raises
        ------
        ValueError
            If a needed column (``board``, ``weights``, ``pot``, ``stack``) is missing or ``i`` out of range.
        """
        _need(columns, ("board", "weights", "pot", "stack"))
        n = len(columns["pot"])
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise ValueError(f"i must be a row index in -{n}..{n - 1}, got {i!r}")
        return self._build(columns["board"][i], columns["weights"][i], columns["pot"][i], columns["stack"][i])

    def policy_array(self, columns: dict[str, np.ndarray], i: int, game: HoldemEndgame | None = None) -> np.ndarray:
        """The stored strategy of row ``i`` in the edge layout of :class:`games.core.policy.Policy`.

        Parameters
        ----------
        columns : dict of numpy.ndarray
            Loaded database columns.
        i : int
            Row.
        game : HoldemEndgame, optional
            ``self.game(columns, i)`` if already built.

        Returns
        -------
        numpy.ndarray of float64, shape (N, Hm)
            Float16 probabilities renormalised per information set (:func:`edge_policy`); ``Policy(game,
            out)`` is valid.
        """
        _need(columns, ("policy",))
        g = self.game(columns, i) if game is None else game
        return edge_policy(g, columns["policy"][i])

    def ranges(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Both players' ranges, shape ``(G, 2, 1326)`` float64, each row summing to 1."""
        _need(columns, ("weights",))
        w = np.asarray(columns["weights"], dtype=np.float64)
        return w / w.sum(axis=-1, keepdims=True)

    def strategies(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Player 1's stored strategy at the root, shape ``(G, 1326, A)`` float64 (renormalised like
        :meth:`policy_array`); combos outside his range check."""
        _need(columns, ("policy",))
        a = len(self.action_labels)
        s = np.asarray(columns["policy"][:, 1:1 + a, :], dtype=np.float64).transpose(0, 2, 1)
        sums = s.sum(axis=-1, keepdims=True)
        out = np.divide(s, sums, out=np.zeros_like(s), where=sums > 0)
        out[..., 0] = np.where(sums[..., 0] > 0, out[..., 0], 1.0)
        return out

    def player1_exploitability(self, columns: dict[str, np.ndarray], strategies: np.ndarray) -> np.ndarray:
        """Player 1's exploitability (chips) of playing ``strategies`` at the root and the stored strategy
        everywhere else.

        It is ``v - u``: ``u`` is player 1's payoff when player 2 best-responds
        (:func:`games.core.best_response.exploitability`: ``-best_response_values[1]``), and ``v`` estimates the
        game value by the middle of the bracket the stored solution gives,
        ``-best_response_value_2 <= value <= best_response_value_1``, so ``|v - value|`` is at most the stored
        exploitability (NashConv / 2). Hence the stored strategies score exactly their stored
        ``exploitability_chips``, no strategy scores below ``-exploitability_chips``, and the error of the score
        is at most ``exploitability_chips`` (``target_pct_pot`` of the pot for verified games).

        Parameters
        ----------
        columns : dict of numpy.ndarray
            Loaded database columns (``board``, ``weights``, ``pot``, ``stack``, ``policy``,
            ``best_response_value_1``, ``best_response_value_2``).
        strategies : array_like, shape (G, 1326, A)
            Player 1's root strategies; rows of combos outside his range are ignored.

        Returns
        -------
        numpy.ndarray of float64, shape (G,)

        Raises
        ------
        ValueError
            On a wrong shape, or a row of a combo in player 1's range that is not a probability distribution.
        """
        _need(columns, ("policy", "best_response_value_1", "best_response_value_2"))
        s = np.asarray(strategies, dtype=np.float64)
        value = 0.5 * (np.asarray(columns["best_response_value_1"], dtype=np.float64)
                       - np.asarray(columns["best_response_value_2"], dtype=np.float64))
        g_count, a = value.size, len(self.action_labels)
        if s.shape != (g_count, NUM_COMBOS, a):
            raise ValueError(f"strategies must have shape (G, 1326, A) = ({g_count}, {NUM_COMBOS}, {a}), "
                             f"got {s.shape}")
        out = np.empty(g_count)
        for i in range(g_count):
            game = self.game(columns, i)
            probs = self.policy_array(columns, i, game)
            rows = s[i, game.combos[0]]
            if not np.all(np.isfinite(rows)) or np.any(rows < 0) or np.any(
                    np.abs(rows.sum(axis=1) - 1.0) > STRATEGY_ATOL):
                raise ValueError(f"strategies[{i}] is not a probability distribution on every combo of player "
                                 "1's range")
            probs[1:1 + a, :game.num_hands[0]] = rows.T
            res = core_exploitability(game, probs)
            out[i] = value[i] + res.best_response_values[1]
        return out


def _need(columns, names) -> None:
    if not isinstance(columns, Mapping):
        raise TypeError(f"columns must be a dict of arrays, got {type(columns).__name__}")
    missing = [n for n in names if n not in columns]
    if missing:
        raise ValueError(f"columns lacks {missing} (load the database with these columns)")

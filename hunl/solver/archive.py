"""Save a solved HUNL spot to one file, load it back without solving, and resume solving it.

An archive is the solver-state file of :mod:`games.core.checkpoint` (one ``.npz``: regrets, average weights,
predictive regrets, 16-bit scales, node locks, iteration count, algorithm and schedule, convergence log) whose
header's ``extra`` holds what rebuilds the game::

    {"kind": "hunl-endgame", "spot": spot_to_dict(spot)}

:func:`load_solution` rebuilds the :class:`~hunl.solver.spot.Spot` and its
:class:`~hunl.solver.game.HoldemEndgame` (in the saved storage dtype), checks that the tree and the storage layout
have the saved sizes (``ValueError`` naming the file otherwise: a different code version or abstraction), restores
the solver and returns an :class:`~hunl.solver.solve.EndgameSolution` (strategy, exploitability recomputed from the
restored state, ``write_outputs`` for browsing and distillation). :func:`resume_solution` continues the solve up to
new limits with the same algorithm and schedule; iterations after the resume are bitwise those of an
uninterrupted run.

The spot is stored by :func:`spot_to_dict` / :func:`spot_from_dict`: the spot file of
:meth:`hunl.solver.spot.Spot.to_dict` (board, pot, stack, big blind, ranges as text or 1,326 weights, the bet sizes
of every street and player as text, the tree thresholds, rake and solver settings) plus the spot's source and kind.

:func:`combo_locks` writes node locks (:mod:`games.core.locks`) in poker terms: a node by its action history and
hands by combo, hand class or any range string.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from games.core.cfr import solve_cfr
from games.core.checkpoint import load_state, save_state
from hunl.poker.ranges import parse_range
from hunl.solver.settings import ALGORITHMS, SolverSettings
from hunl.solver.spot import UNCAPPED, Spot

__all__ = ["ARCHIVE_KIND", "combo_locks", "load_archive", "load_solution", "read_locks_file", "resume_solution",
           "save_solution", "spot_from_dict", "spot_of_game", "spot_to_dict"]

#: The ``extra.kind`` of a HUNL archive's header.
ARCHIVE_KIND = "hunl-endgame"
_STREETS = ("flop", "turn", "river")


# ---------------------------------------------------------------------- the spot as a dictionary
def spot_to_dict(spot: Spot) -> dict:
    """A JSON-ready dictionary that :func:`spot_from_dict` turns back into an equal spot: the spot file
    (:meth:`~hunl.solver.spot.Spot.to_dict`: sizes as text, ranges as their text or as 1,326 weights -- exact, floats
    round-trip through JSON) plus its ``source`` and ``kind``.

    Parameters
    ----------
    spot : hunl.solver.spot.Spot
        The spot to store.

    Returns
    -------
    dict
        ``{"spot": spot.to_dict(), "raise_cap": int or None, "source": str or None, "kind": str}``; the
        ``raise_cap`` entry keeps ``None`` (no cap), which the spot file writes as
        :data:`~hunl.solver.spot.UNCAPPED`.

    Raises
    ------
    TypeError
        If ``spot`` is not a :class:`~hunl.solver.spot.Spot`.
    """
    if not isinstance(spot, Spot):
        raise TypeError(f"spot must be a Spot, got {type(spot).__name__}")
    return {"spot": spot.to_dict(), "raise_cap": spot.raise_cap, "source": spot.source, "kind": spot.kind}


def spot_from_dict(data: dict) -> Spot:
    """The spot of :func:`spot_to_dict` (validated by :func:`hunl.solver.spot_files.parse_spot`).

    Parameters
    ----------
    data : dict
        A dictionary of :func:`spot_to_dict` (e.g. read back from JSON): ``"spot"`` (required), and optionally
        ``"raise_cap"``, ``"source"`` and ``"kind"`` (default ``"spot"``).

    Returns
    -------
    hunl.solver.spot.Spot
        The validated spot, with the stored raise cap, source and kind.

    Raises
    ------
    ValueError
        If a key is missing or a field breaks a rule of the spot-file schema.
    """
    from hunl.solver.spot_files import parse_spot

    try:
        spot = parse_spot(data["spot"], source=data.get("source") or "<archive>")
    except KeyError as exc:
        raise ValueError(f"spot dictionary: missing key {exc}") from None
    return spot.replace(raise_cap=data.get("raise_cap", spot.raise_cap), source=data.get("source"),
                        kind=data.get("kind", "spot"))


def spot_of_game(game, settings: SolverSettings | None = None, name: str = "endgame") -> Spot:
    """A :class:`~hunl.solver.spot.Spot` that rebuilds ``game`` (a :class:`~hunl.solver.game.HoldemEndgame`):
    its board, ranges, pot, stack, big blind, bet sizes, raise cap, all-in and merging thresholds, rake and suit
    isomorphism.

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
        The endgame (chips: pot, stack and big blind are taken from it).
    settings : SolverSettings, optional
        Solver settings for the spot (default ``SolverSettings()``); their
        ``isomorphism`` is replaced by whether ``game`` uses suit isomorphism.
    name : str, default "endgame"
        The spot's name (letters, digits, ``_.-``).

    Returns
    -------
    hunl.solver.spot.Spot
        The spot (ranges as 1,326 weights per player); a raise cap of :data:`~hunl.solver.spot.UNCAPPED` or
        more becomes ``None``.

    Raises
    ------
    ValueError
        If ``name`` is not a valid spot name, or another field breaks a rule of
        :class:`~hunl.solver.spot.Spot`.
    """
    cfg = game.config
    settings = settings or SolverSettings()
    settings = settings.replace(isomorphism=bool(game.betting.symmetries.shape[0] > 1))
    cap = int(cfg.raise_cap)
    return Spot(name=name, board=tuple(game.board), pot=game.pot, stack=cfg.stack, ranges=game.weights,
                big_blind=game.big_blind, flop_sizes=cfg.flop, turn_sizes=cfg.turn, river_sizes=cfg.river,
                raise_cap=None if cap >= UNCAPPED else cap, add_allin_threshold=cfg.add_allin_threshold,
                force_allin_threshold=cfg.force_allin_threshold, merging_threshold=cfg.merging_threshold,
                rake_rate=game.rake_rate, rake_cap=game.rake_cap, solver=settings)


def _settings_of(solution) -> SolverSettings:
    name = solution.result.config.name
    return SolverSettings(algorithm=name if name in ALGORITHMS else "dcfr",
                          compressed=bool(solution.result.engine.compressed))


# ---------------------------------------------------------------------- save, load, resume
def save_solution(solution, path, spot: Spot | None = None) -> Path:
    """Write a solved endgame (:class:`~hunl.solver.solve.EndgameSolution`) and its spot to one ``.npz`` archive.

    Parameters
    ----------
    solution : EndgameSolution
    path : path-like
        The archive (written as named; parent directories are created).
    spot : Spot, optional
        The spot solved (default: ``solution.spot``, else one rebuilt from the game by :func:`spot_of_game`
        with the solution's algorithm).

    Returns
    -------
    pathlib.Path
    """
    spot = spot if spot is not None else solution.spot
    if spot is None:
        spot = spot_of_game(solution.game, _settings_of(solution))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_state(path, solution.result.state(), extra={"kind": ARCHIVE_KIND, "spot": spot_to_dict(spot)})


def load_archive(path):
    """The spot, its rebuilt game and the solver state of an archive, checked against each other.

    Parameters
    ----------
    path : path-like
        An archive written by :func:`save_solution`.

    Returns
    -------
    spot : Spot
    game : HoldemEndgame
    state : games.core.checkpoint.SolverState

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        Naming the file: not a HUNL archive, or the rebuilt game's node count, storage size or dtype differ from
        the saved ones.
    """
    state, extra = load_state(path)
    if not isinstance(extra, dict) or extra.get("kind") != ARCHIVE_KIND or "spot" not in extra:
        raise ValueError(f"{path}: a solver state file, but not a HUNL endgame archive (no spot in its header)")
    try:
        spot = spot_from_dict(extra["spot"])
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: the saved spot is invalid: {exc}") from None
    game = spot.game(dtype=state.dtype)
    state.check_game(game, str(path))
    return spot, game, state


def load_solution(path, threads: int | None = None):
    """Re-open a saved solve without solving: an :class:`~hunl.solver.solve.EndgameSolution` as fresh from
    :func:`~hunl.solver.solve.solve_endgame` (strategy, exploitability recomputed from the restored state, the
    saved convergence log and iteration count; ``solution.spot`` set).

    Parameters
    ----------
    path : path-like
        An archive written by :func:`save_solution`.
    threads : int, optional
        Threads of the solver run that restores the state and recomputes the exploitability (default: the
        saved spot's ``solver.threads``).

    Returns
    -------
    EndgameSolution
        With ``spot`` the saved spot and ``memory_estimate_mb`` the game's memory estimate for the saved
        storage mode and ``threads`` (MiB).

    Raises
    ------
    FileNotFoundError
        As :func:`load_archive`.
    ValueError
        As :func:`load_archive`; also if ``threads`` is not an integer >= 1 (from
        :func:`games.core.cfr.solve_cfr`).
    """
    from hunl.solver.solve import endgame_solution

    spot, game, state = load_archive(path)
    threads = spot.threads if threads is None else threads
    result = solve_cfr(game, resume=state, iterations=max(state.iteration, 1), check_every=1, threads=threads)
    estimate = game.memory_estimate(compressed=state.compressed, threads=threads) / 2**20
    return endgame_solution(game, result, estimate, spot=spot)


def resume_solution(path, progress: bool = False, max_memory_mb: float | None = None, **changes):
    """Continue a saved solve with the same algorithm and schedule.

    Parameters
    ----------
    path : path-like
        An archive of :func:`save_solution`.
    progress : bool, default False
    max_memory_mb : float, optional
        See :func:`~hunl.solver.solve.solve_endgame`.
    **changes
        New solver settings for the run (``max_iterations`` -- the total, counting the saved iterations --,
        ``target_pct_pot``, ``check_every``, ``threads``); ``None`` values are ignored.

    Returns
    -------
    EndgameSolution
        With ``spot`` (its settings updated by ``changes``).

    Raises
    ------
    FileNotFoundError, ValueError
        As :func:`load_archive`; a change of ``algorithm`` or ``compressed`` (the schedule and storage are the
        saved ones).
    """
    from hunl.solver.solve import solve_endgame

    spot, game, state = load_archive(path)
    changes = {k: v for k, v in changes.items() if v is not None}
    spot = spot.replace(**changes)
    solution = solve_endgame(game, spot.solver, progress=progress, max_memory_mb=max_memory_mb, resume=state)
    return dataclasses.replace(solution, spot=spot)


# ---------------------------------------------------------------------- locks in poker terms
def combo_locks(game, locks: dict) -> dict:
    """Node locks (:mod:`games.core.locks`) from poker terms.

    Parameters
    ----------
    game : HoldemEndgame
    locks : dict
        ``{node: {hands: probs}}``: ``node`` a node id or action history (``"check/bet 250"``, ``""`` the root);
        ``hands`` a combo (``"AsKh"``), a hand class (``"AKo"``, ``"QQ"``) or any range string
        (:func:`hunl.poker.ranges.parse_range`; only its combos with positive weight count); ``probs`` the
        strategy of those hands, one probability per action of the node in the tree's order. Later entries of a
        node override earlier ones for the combos they share.

    Returns
    -------
    dict
        ``{node id: (n_actions, H_q) array}`` with NaN columns for free hands, for ``locks=`` of
        :func:`~hunl.solver.solve.solve_endgame` (validated there).

    Raises
    ------
    ValueError
        If a node is unknown or not a decision node, a hand string is malformed or names no combo of the acting
        player's range, or a strategy has the wrong length.
    """
    t = game.tree
    out = {}
    for key, table in locks.items():
        try:
            n = int(key) if isinstance(key, (int, np.integer)) else int(t.node(key))
        except (KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"locks: no node {key!r} ({exc})") from None
        q = int(t.player[n]) if 0 <= n < t.n_nodes else -1
        if q not in (0, 1):
            raise ValueError(f"locks: node {key!r} is not a decision node")
        a = int(t.num_children[n])
        block = out.setdefault(n, np.full((a, game.num_hands[q]), np.nan))
        combos = game.combos[q]
        for hands, probs in table.items():
            w = parse_range(str(hands), board=game.board)
            sel = np.flatnonzero(w[combos] > 0)
            if sel.size == 0:
                raise ValueError(f"locks[{key!r}]: {hands!r} names no combo of player {q + 1}'s range")
            p = np.asarray(probs, dtype=np.float64)
            if p.shape != (a,):
                raise ValueError(f"locks[{key!r}][{hands!r}]: one probability per action ({a}: "
                                 f"{', '.join(t.action[c] for c in t.children(n))}) expected, got shape {p.shape}")
            block[:, sel] = p[:, None]
    return out


def read_locks_file(game, path) -> dict:
    """Node locks from a JSON or TOML file in the form of :func:`combo_locks`: one table per node, keyed by the
    action history (``""`` or ``"root"`` for the root), mapping hands (combo, hand class or range string) to one
    probability per action, e.g. in TOML::

        ["root"]
        "KK,77" = [1.0, 0.0, 0.0]

        ["check/bet 500"]
        KK = [0.0, 0.3, 0.7, 0.0]

    Parameters
    ----------
    game : hunl.solver.game.HoldemEndgame
        The endgame the locks are for (its tree and ranges).
    path : path-like
        The locks file: TOML if its suffix is ``.toml`` (any case), JSON otherwise.

    Returns
    -------
    dict
        As :func:`combo_locks`.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ValueError
        Naming the file: unreadable, not a table of tables, or a lock :func:`combo_locks` rejects.
    """
    try:  # Python >= 3.11
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such locks file")
    try:
        text = path.read_text()
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: unreadable locks file: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{path}: locks must be a table per node (action history) of hands -> probabilities")
    try:
        return combo_locks(game, {("" if k == "root" else k): v for k, v in data.items()})
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None

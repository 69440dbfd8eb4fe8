"""Save and restore the state of a CFR solve, to resume it later or re-open a solution without solving again.

A :class:`SolverState` is everything :func:`games.core.cfr.solve_cfr` needs to continue a run exactly where it
stopped: the accumulated regrets, the average-strategy weights, the last instantaneous regrets (predictive CFR),
the per-node scales of 16-bit storage, the node locks, the iteration count, the algorithm (its
:class:`~games.core.cfr.CFRConfig`: the discount and averaging schedule depend only on the iteration number, so
iterations ``t + 1 ..`` after a resume are those of an uninterrupted run) and the convergence log. Resuming at
iteration ``k`` and running to ``N`` gives bitwise the iterates of a run straight to ``N`` (same game, same
dtype, any thread count).

File format (:func:`save_state`, :func:`load_state`): one numpy ``.npz`` archive (``numpy.savez_compressed``)
holding

``header``
    0-d unicode array: a JSON object with ``format`` (:data:`FORMAT`), ``version`` (:data:`VERSION`),
    ``config`` (the CFRConfig's fields; infinite exponents as the strings ``"inf"``/``"-inf"``), ``iteration``,
    ``compressed``, ``predictive``, ``dtype`` (the storage dtype), ``n_nodes`` and ``layout_size`` (checked
    against the game on resume), ``seconds`` (solve time so far) and ``extra`` (the caller's JSON-ready
    dictionary: a HUNL archive puts the spot and its settings there, :mod:`hunl.solver.archive`).
``regret``, ``avg``
    ``(layout_size,)``: storage dtype, or int16 and uint16 with ``compressed``.
``pred``
    ``(layout_size,)`` with ``predictive``, else ``(1,)``; storage dtype.
``rscale``, ``ascale``
    ``(n_nodes,)`` per-node scales with ``compressed``, else ``(1,)``; storage dtype.
``lock_nodes``, ``lock_starts``, ``lock_values``
    The node locks in :meth:`games.core.locks.NodeLocks.flat` form (int64, int64, float64; empty without locks).
``log_iterations``, ``log_exploitability``, ``log_seconds``
    The convergence log (int64, float64, float64).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.core.tree import Game

__all__ = ["FORMAT", "VERSION", "SolverState", "load_state", "save_state"]

#: The ``format`` field of a state file's header.
FORMAT = "rulelearn.solver-state"
#: The version of the state file layout written by :func:`save_state`.
VERSION = 1
_ARRAYS = ("regret", "avg", "pred", "rscale", "ascale", "lock_nodes", "lock_starts", "lock_values",
           "log_iterations", "log_exploitability", "log_seconds")


@dataclass(frozen=True, eq=False)
class SolverState:
    """The complete state of a CFR run after ``iteration`` iterations (see the module docstring).

    Attributes
    ----------
    config : CFRConfig
        The algorithm and its schedule.
    iteration : int
        Iterations run.
    compressed, predictive : bool
        Storage mode of the engine.
    dtype : str
        The game's storage dtype (``"float32"`` or ``"float64"``).
    n_nodes, layout_size : int
        Size of the game's tree and of its storage layout (:class:`games.core.layout.TreeLayout`).
    regret, avg, pred, rscale, ascale : numpy.ndarray
        The engine's arrays (:class:`games.core.engine.Engine`), copies.
    lock_nodes, lock_starts, lock_values : numpy.ndarray
        Node locks, :meth:`games.core.locks.NodeLocks.flat` form (empty without locks).
    log_iterations, log_exploitability, log_seconds : numpy.ndarray
        The convergence log so far (exploitability in chips, seconds since the start of the first run).
    seconds : float
        Solve time so far (all runs), seconds.
    """

    config: object
    iteration: int
    compressed: bool
    predictive: bool
    dtype: str
    n_nodes: int
    layout_size: int
    regret: np.ndarray
    avg: np.ndarray
    pred: np.ndarray
    rscale: np.ndarray
    ascale: np.ndarray
    lock_nodes: np.ndarray
    lock_starts: np.ndarray
    lock_values: np.ndarray
    log_iterations: np.ndarray
    log_exploitability: np.ndarray
    log_seconds: np.ndarray
    seconds: float

    @classmethod
    def from_engine(cls, engine, config, iteration: int, log_iterations=(), log_exploitability=(),
                    log_seconds=(), seconds: float = 0.0) -> SolverState:
        """Copy the state of ``engine`` (:class:`games.core.engine.Engine`) after ``iteration`` iterations."""
        if engine.locks is None:
            nodes, starts, values = np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        else:
            nodes, starts, values = engine.locks.flat()
        return cls(config=config, iteration=int(iteration), compressed=engine.compressed,
                   predictive=engine.predictive, dtype=str(engine.dtype), n_nodes=int(engine.game.tree.n_nodes),
                   layout_size=int(engine.layout.size), regret=engine.regret.copy(), avg=engine.avg.copy(),
                   pred=engine.pred.copy(), rscale=engine.rscale.copy(), ascale=engine.ascale.copy(),
                   lock_nodes=nodes, lock_starts=starts, lock_values=values,
                   log_iterations=np.asarray(log_iterations, dtype=np.int64),
                   log_exploitability=np.asarray(log_exploitability, dtype=np.float64),
                   log_seconds=np.asarray(log_seconds, dtype=np.float64), seconds=float(seconds))

    def locks(self, game: Game):
        """The state's node locks for ``game`` (:class:`games.core.locks.NodeLocks`, validated), or ``None``."""
        from games.core.locks import NodeLocks

        if self.lock_nodes.size == 0:
            return None
        return NodeLocks.from_flat(game, self.lock_nodes, self.lock_starts, self.lock_values)

    def check_game(self, game: Game, source: str = "the solver state") -> None:
        """Raise ``ValueError`` (naming ``source``) unless ``game`` has the tree size, storage layout size and
        storage dtype the state was made for."""
        from games.core.engine import layout_of

        n, size = int(game.tree.n_nodes), int(layout_of(game).size)
        dt = str(np.dtype(game.storage_dtype))
        if n != self.n_nodes or size != self.layout_size:
            raise ValueError(f"{source}: the state was saved for a tree of {self.n_nodes} nodes and "
                             f"{self.layout_size} storage entries; the game rebuilt has {n} nodes and {size} "
                             "entries (a different game, bet abstraction or code version)")
        if dt != self.dtype:
            raise ValueError(f"{source}: the state's storage dtype is {self.dtype}, the game's is {dt}")

    def restore(self, engine) -> None:
        """Copy the arrays into ``engine`` (made for the same game, storage mode and locks).

        Raises
        ------
        ValueError
            If the engine's storage mode, array shapes or dtypes differ from the state's.
        """
        if engine.compressed != self.compressed or engine.predictive != self.predictive:
            raise ValueError(f"resume: the state is compressed={self.compressed}, predictive={self.predictive}; "
                             f"the engine compressed={engine.compressed}, predictive={engine.predictive}")
        for name in ("regret", "avg", "pred", "rscale", "ascale"):
            dst, src = getattr(engine, name), getattr(self, name)
            if dst.shape != src.shape or dst.dtype != src.dtype:
                raise ValueError(f"resume: state array {name} is {src.dtype}{list(src.shape)}, the engine's "
                                 f"{dst.dtype}{list(dst.shape)}")
            dst[...] = src


def _config_dict(config) -> dict:
    out = {}
    for f in dataclasses.fields(config):
        v = getattr(config, f.name)
        if isinstance(v, float) and not math.isfinite(v):
            v = "inf" if v > 0 else "-inf"
        out[f.name] = v
    return out


def _config_from(d: dict):
    from games.core.cfr import CFRConfig

    d = {k: (float(v) if v in ("inf", "-inf") else v) for k, v in d.items()}
    return CFRConfig(**d)


def save_state(path, state: SolverState, extra: dict | None = None) -> Path:
    """Write ``state`` (and a JSON-ready ``extra`` dictionary) to one ``.npz`` file (format in the module
    docstring). The file is written to ``path`` as given (numpy appends ``.npz`` only when no suffix is
    given; here the name is kept exactly).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (replaced if it exists; its directory must exist).
    state : SolverState
        The state, e.g. :meth:`SolverState.from_engine`; its config must be a dataclass
        (:class:`~games.core.cfr.CFRConfig`).
    extra : dict, optional
        JSON-serialisable data stored in the header (default ``{}``), returned by :func:`load_state`.

    Returns
    -------
    pathlib.Path
        ``path`` as a ``Path``.

    Raises
    ------
    ValueError
        If ``extra`` is not JSON-serialisable (or the header holds a NaN, e.g. in ``state.seconds``; the
        message still names ``extra``).
    OSError
        If the file cannot be written.
    """
    header = {"format": FORMAT, "version": VERSION, "config": _config_dict(state.config),
              "iteration": state.iteration, "compressed": state.compressed, "predictive": state.predictive,
              "dtype": state.dtype, "n_nodes": state.n_nodes, "layout_size": state.layout_size,
              "seconds": state.seconds, "extra": extra or {}}
    try:
        text = json.dumps(header, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"extra: not JSON-serialisable ({exc})") from None
    path = Path(path)
    arrays = {name: getattr(state, name) for name in _ARRAYS}
    with open(path, "wb") as fh:
        np.savez_compressed(fh, header=np.array(text), **arrays)
    return path


def load_state(path) -> tuple[SolverState, dict]:
    """Read a file written by :func:`save_state`.

    Parameters
    ----------
    path : str or os.PathLike
        The state file (``.npz``, read without pickles).

    Returns
    -------
    state : SolverState
        The saved state: its config rebuilt as a :class:`~games.core.cfr.CFRConfig` (``"inf"``/``"-inf"``
        back to floats), the arrays as stored (storage dtype, or int16/uint16 with ``compressed``; not yet
        checked against a game: see :meth:`SolverState.check_game`).
    extra : dict
        The ``extra`` dictionary saved with it.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        Naming the file: not a state file (not an ``.npz`` archive, a damaged or truncated one, a single ``.npy``
        array, no header or a header that is not a JSON object), another format version, a header lacking a
        field or with a config field :class:`~games.core.cfr.CFRConfig` does not know, or arrays missing or
        inconsistent with the header.
    """
    import zipfile

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such solver state file")
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):            # a single .npy array
            raise ValueError("a single array, not an archive")
        with z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: not a solver state file (.npz): {exc}") from None
    if "header" not in data:
        raise ValueError(f"{path}: not a solver state file (no header)")
    try:
        header = json.loads(str(data["header"]))
    except ValueError as exc:
        raise ValueError(f"{path}: unreadable header: {exc}") from None
    if not isinstance(header, dict):
        raise ValueError(f"{path}: not a solver state file (its header is not a JSON object)")
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}: not a solver state file (format {header.get('format')!r}, expected {FORMAT!r})")
    if header.get("version") != VERSION:
        raise ValueError(f"{path}: state file version {header.get('version')!r}; this code reads version "
                         f"{VERSION}")
    missing = [k for k in _ARRAYS if k not in data]
    if missing:
        raise ValueError(f"{path}: arrays missing: {missing}")
    lacking = [k for k in ("layout_size", "n_nodes", "predictive", "compressed", "config", "iteration", "dtype",
                           "seconds", "extra") if k not in header]
    if lacking:
        raise ValueError(f"{path}: the header lacks {lacking}")
    size, n = int(header["layout_size"]), int(header["n_nodes"])
    expect = {"regret": size, "avg": size, "pred": size if header["predictive"] else 1,
              "rscale": n if header["compressed"] else 1, "ascale": n if header["compressed"] else 1}
    for name, m in expect.items():
        if data[name].shape != (m,):
            raise ValueError(f"{path}: array {name} has shape {data[name].shape}, the header says ({m},)")
    try:
        config = _config_from(header["config"])
    except (TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"{path}: the header's solver config: {exc}") from None
    state = SolverState(config=config, iteration=int(header["iteration"]),
                        compressed=bool(header["compressed"]), predictive=bool(header["predictive"]),
                        dtype=str(header["dtype"]), n_nodes=n, layout_size=size, seconds=float(header["seconds"]),
                        **{k: data[k] for k in _ARRAYS})
    return state, header["extra"]

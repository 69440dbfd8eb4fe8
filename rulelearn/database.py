"""Solution databases: solved game instances in Parquet shards, generated in parallel and resumable.

Layout of a database directory::

    manifest.json                       family name and config, seed, format version
    games-000000000-000000250.parquet   games 0 .. 249 (one row per game)
    ...

Game ``k`` depends only on ``(seed, k)``. A shard is written to a temporary file and renamed into place only when
all its games are solved and verified, so a run killed at any moment leaves only complete shards; a restart
computes the game ids not yet covered by a shard and solves exactly those (nothing lost, nothing duplicated).
Array columns are stored as fixed-size lists with their shape in the field metadata.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from rulelearn.family import GameFamily, load_family

__all__ = ["SolutionDatabase", "GenerationReport", "FORMAT_VERSION"]

FORMAT_VERSION = 1
_MANIFEST = "manifest.json"


@dataclass(frozen=True)
class GenerationReport:
    """What a call to :meth:`SolutionDatabase.generate` did.

    Attributes
    ----------
    n_games : int
        Games requested (ids ``0 .. n_games-1``).
    n_solved : int
        Games solved by this call (the rest were already stored).
    n_unverified : int
        Games stored by this call whose solution failed verification (flagged, excluded by default on load).
    seconds : float
        Wall time of the call.
    workers : int
        Worker processes used.
    """

    n_games: int
    n_solved: int
    n_unverified: int
    seconds: float
    workers: int

    @property
    def games_per_second(self) -> float:
        """Throughput of this call (0 when nothing was solved)."""
        return self.n_solved / self.seconds if self.n_solved and self.seconds > 0 else 0.0


def _init_worker() -> None:  # pragma: no cover - runs in worker processes
    try:
        import numba

        numba.set_num_threads(1)
    except Exception:
        pass


def _solve_task(family: GameFamily, seed: int, start: int, stop: int):  # pragma: no cover - worker
    return start, stop, family.solve_range(seed, start, stop)


def _to_table(columns: dict[str, np.ndarray]) -> pa.Table:
    arrays, fields = [], []
    for name, col in columns.items():
        col = np.asarray(col)
        if col.ndim == 1:
            arr = pa.array(col.tolist() if col.dtype.kind in "OU" else col)
            fields.append(pa.field(name, arr.type))
        else:
            flat = np.ascontiguousarray(col.reshape(col.shape[0], -1))
            arr = pa.FixedSizeListArray.from_arrays(pa.array(flat.reshape(-1)), flat.shape[1])
            fields.append(pa.field(name, arr.type, metadata={"shape": json.dumps(list(col.shape[1:]))}))
        arrays.append(arr)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _column_to_numpy(table: pa.Table, name: str) -> np.ndarray:
    field = table.schema.field(name)
    col = table.column(name).combine_chunks()
    if pa.types.is_fixed_size_list(field.type):
        shape = tuple(json.loads(field.metadata[b"shape"]))
        return col.flatten().to_numpy(zero_copy_only=False).reshape((len(col),) + shape)
    return col.to_numpy(zero_copy_only=False)


class SolutionDatabase:
    """A directory of solved game instances of one game family.

    Parameters
    ----------
    path : str or os.PathLike
        Directory; created on first :meth:`generate`.

    Examples
    --------
    >>> db = SolutionDatabase("data/betgame")                                    # doctest: +SKIP
    >>> db.generate(load_family("betgame"), n_games=2000, seed=0)               # doctest: +SKIP
    >>> games = db.load()                                                       # doctest: +SKIP
    """

    def __init__(self, path):
        self.path = Path(path)

    # ------------------------------------------------------------------ metadata
    @property
    def manifest(self) -> dict | None:
        """The manifest (family, config, seed), or ``None`` for a database not yet created."""
        f = self.path / _MANIFEST
        return json.loads(f.read_text()) if f.exists() else None

    def family(self) -> GameFamily:
        """The game family recorded in the manifest.

        Raises
        ------
        FileNotFoundError
            If the database has no manifest.
        """
        m = self.manifest
        if m is None:
            raise FileNotFoundError(f"{self.path} is not a solution database (no {_MANIFEST})")
        return load_family(m["family"], **m.get("family_params", {}))

    def shards(self) -> list[tuple[int, int, Path]]:
        """Complete shards as ``(first_id, stop_id, path)``, sorted by first id."""
        out = []
        for f in self.path.glob("games-*-*.parquet"):
            _, a, b = f.stem.split("-")
            out.append((int(a), int(b), f))
        return sorted(out)

    def stored_ids(self) -> np.ndarray:
        """Sorted ids of all stored games, shape ``(n,)`` int64 (from the shard names)."""
        spans = [np.arange(a, b) for a, b, _ in self.shards()]
        return np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return int(sum(b - a for a, b, _ in self.shards()))

    def missing_ranges(self, n_games: int, shard_size: int) -> list[tuple[int, int]]:
        """Id ranges in ``0 .. n_games-1`` not yet stored, split into pieces of at most ``shard_size``."""
        covered = np.zeros(n_games, dtype=bool)
        for a, b, _ in self.shards():
            covered[a:min(b, n_games)] = True
        out, k = [], 0
        while k < n_games:
            if covered[k]:
                k += 1
                continue
            stop = k
            while stop < n_games and not covered[stop] and stop - k < shard_size:
                stop += 1
            out.append((k, stop))
            k = stop
        return out

    # ------------------------------------------------------------------ generation
    def _prepare(self, family: GameFamily, seed: int, family_params: dict) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        want = {"format": FORMAT_VERSION, "family": family.name, "family_params": family_params,
                "config": family.config(), "seed": int(seed)}
        have = self.manifest
        if have is None:
            tmp = self.path / (_MANIFEST + ".tmp")
            tmp.write_text(json.dumps(want, indent=2))
            os.replace(tmp, self.path / _MANIFEST)
        elif {k: have.get(k) for k in want} != want:
            diff = {k: (have.get(k), want[k]) for k in want if have.get(k) != want[k]}
            raise ValueError(
                f"{self.path} holds a different database ({diff} as stored vs requested); "
                "use another directory or the stored seed and game parameters"
            )
        for stale in self.path.glob("*.parquet.tmp"):
            stale.unlink()

    def _write_shard(self, start: int, stop: int, columns: dict[str, np.ndarray]) -> int:
        ids = np.asarray(columns["game_id"])
        if not np.array_equal(ids, np.arange(start, stop)):
            raise RuntimeError(f"family returned game ids {ids[:3]}... for the range {start}..{stop}")
        final = self.path / f"games-{start:09d}-{stop:09d}.parquet"
        tmp = final.with_suffix(".parquet.tmp")
        pq.write_table(_to_table(columns), tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        return int(np.count_nonzero(~np.asarray(columns["verified"], dtype=bool)))

    def generate(self, family: GameFamily | str, n_games: int, seed: int = 0, shard_size: int = 250,
                 workers: int | None = None, progress: bool = True, family_params: dict | None = None
                 ) -> GenerationReport:
        """Solve games ``0 .. n_games-1`` that are not stored yet, in parallel, and store them.

        Parameters
        ----------
        family : GameFamily or str
            The family, or its registry name (then ``family_params`` are passed to it).
        n_games : int
            Total number of games the database should hold (ids ``0 .. n_games-1``).
        seed : int, default 0
            Seed of the game stream; fixed for a database (recorded in the manifest).
        shard_size : int, default 250
            Games per shard (one worker task; a kill loses at most the shards in flight).
        workers : int, optional
            Processes; default all cores (``os.cpu_count()``). ``1`` solves in this process.
        progress : bool, default True
            Show a progress bar (rate and ETA).
        family_params : dict, optional
            Keyword arguments of the family's constructor, recorded so that :meth:`family` can rebuild it.

        Returns
        -------
        GenerationReport

        Raises
        ------
        ValueError
            If ``n_games`` or ``shard_size`` is not positive, or the directory holds a database of another family,
            config or seed.
        RuntimeError
            If another process is generating into the same directory.
        """
        if int(n_games) != n_games or n_games < 1:
            raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
        if int(shard_size) != shard_size or shard_size < 1:
            raise ValueError(f"shard_size must be a positive integer, got {shard_size!r}")
        params = dict(family_params or {})
        fam = load_family(family, **params) if isinstance(family, str) else family
        self._prepare(fam, seed, params)
        t0 = time.perf_counter()
        with open(self.path / ".lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(f"another process is generating into {self.path}") from None
            tasks = self.missing_ranges(int(n_games), int(shard_size))
            todo = sum(b - a for a, b in tasks)
            n_workers = max(1, min(workers or os.cpu_count() or 1, len(tasks) or 1))
            unverified = 0
            bar = tqdm(total=todo, unit="game", desc=f"solving {fam.name}", disable=not progress or todo == 0,
                       smoothing=0.1)
            try:
                if n_workers == 1:
                    for a, b in tasks:
                        unverified += self._write_shard(a, b, fam.solve_range(seed, a, b))
                        bar.update(b - a)
                else:
                    import multiprocessing as mp

                    ctx = mp.get_context("spawn")  # numba's threading layers are not all fork-safe
                    with ProcessPoolExecutor(n_workers, mp_context=ctx, initializer=_init_worker) as pool:
                        futures = [pool.submit(_solve_task, fam, seed, a, b) for a, b in tasks]
                        try:
                            for fut in as_completed(futures):
                                a, b, cols = fut.result()
                                unverified += self._write_shard(a, b, cols)
                                bar.update(b - a)
                        except BaseException:
                            for f in futures:
                                f.cancel()
                            raise
            finally:
                bar.close()
        return GenerationReport(int(n_games), todo, unverified, time.perf_counter() - t0, n_workers)

    # ------------------------------------------------------------------ reading
    def load(self, n_games: int | None = None, columns: list[str] | None = None,
             verified_only: bool = True) -> dict[str, np.ndarray]:
        """Read stored games, sorted by id.

        Parameters
        ----------
        n_games : int, optional
            Only games with id ``< n_games``.
        columns : list of str, optional
            Column subset (``game_id`` and ``verified`` are always read).
        verified_only : bool, default True
            Drop games whose solution failed verification.

        Returns
        -------
        dict of str to numpy.ndarray
            Each column with shape ``(G, ...)``.

        Raises
        ------
        FileNotFoundError
            If the database holds no shard.
        """
        shards = [s for s in self.shards() if n_games is None or s[0] < n_games]
        if not shards:
            raise FileNotFoundError(f"no solved games in {self.path}")
        cols = None if columns is None else sorted(set(columns) | {"game_id", "verified"})
        table = pa.concat_tables([pq.read_table(p, columns=cols) for _, _, p in shards])
        out = {name: _column_to_numpy(table, name) for name in table.column_names}
        keep = np.ones(len(out["game_id"]), dtype=bool)
        if n_games is not None:
            keep &= out["game_id"] < n_games
        if verified_only:
            keep &= out["verified"].astype(bool)
        order = np.argsort(out["game_id"][keep], kind="stable")
        return {k: v[keep][order] for k, v in out.items()}

    def to_pandas(self, n_games: int | None = None):
        """The database as a :class:`pandas.DataFrame` (array columns as lists), one row per game."""
        shards = [p for a, _, p in self.shards() if n_games is None or a < n_games]
        df = pa.concat_tables([pq.read_table(p) for p in shards]).to_pandas()
        df = df.sort_values("game_id").reset_index(drop=True)
        return df if n_games is None else df[df["game_id"] < n_games]

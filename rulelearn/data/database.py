"""Solution databases: solved game instances in checksummed Parquet shards, generated in parallel, resumable.

Layout of a database directory (format 3)::

    _manifest.json                      family name and config, seed, format version, and per shard its row
                                        count, size in bytes and sha256 (recorded before the shard appears)
    games-000000000-000000250.parquet   games 0 .. 249 (one row per game); its Parquet metadata holds its own
                                        record: range, family, config, seed and a checksum of its contents
    ...
    .games-000000250-000000500.parquet.tmp   a shard being written (hidden)
    .lock                               held by the process generating into the directory

The directory is a plain Parquet dataset: names starting with ``_`` or ``.`` are skipped by Parquet readers, so
``pandas.read_parquet(path)``, ``pyarrow.dataset.dataset(path)`` and ``dask.dataframe.read_parquet(path)`` read
the shards directly (unchecked; :meth:`SolutionDatabase.load` and :meth:`SolutionDatabase.to_dask` check them).
Formats 1 (a ``manifest.json`` without checksums) and 2 (shards without their own record) are still read; the
next :meth:`SolutionDatabase.generate` upgrades the manifest (after validating the shards) and writes new shards
in format 3.

Generation. Game ``k`` depends only on ``(seed, k)``. A worker (a local process, or a Dask worker) solves one
shard, checks it, encodes it as Parquet bytes and returns them with their sha256; only the generating process
writes to the directory: it writes the bytes to a hidden temporary file, fsyncs it, records the checksum in the
manifest, then renames the file into place. A run killed at any moment therefore leaves only complete, recorded
shards (a temporary file whose checksum was already recorded is renamed into place by the next run); a restart
solves exactly the game ids not covered by a shard. The workers need no access to the database directory.

Integrity. Nothing is read that cannot be checked. Every shard read by :meth:`~SolutionDatabase.load`,
:meth:`~SolutionDatabase.to_pandas`, :meth:`~SolutionDatabase.to_dask` and :meth:`~SolutionDatabase.verify` is
checked: size and sha256 against the manifest, readable Parquet footer, its own record (range and database),
``stop - start`` rows, ids exactly ``start .. stop-1``, no null value, no NaN in any floating column of a
verified game, the same columns as the other shards; and the directory is checked for shards missing from the
manifest, shards the manifest lists that are gone, overlapping shards and foreign Parquet files (which a reader
of the directory would mix in). Any failure raises :class:`CorruptShardError` naming every bad file and what is
wrong; a missing (while shards are present) or unreadable manifest raises :class:`CorruptManifestError` naming
it. Nothing is skipped silently. :meth:`~SolutionDatabase.generate` refuses to extend such a database unless
``repair=True``: then a missing or unreadable manifest is rebuilt, every shard the manifest does not vouch for is
checked against its own record and content checksum (an intact one is recorded again, not re-solved), and
exactly the shards that fail are deleted and solved again. Foreign files are never deleted.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from rulelearn.data.executors import make_executor
from rulelearn.data.shards import (
    _LEGACY_MANIFEST,
    _REQUIRED,
    FORMAT_VERSION,
    MANIFEST,
    REPAIR_HINT,
    CorruptManifestError,
    CorruptShardError,
    ShardDirectory,
    ShardPayload,
    _Bad,
    _read_shard,
    encode_shard,
    shard_name,
    tables_to_numpy,
)
from rulelearn.family import GameFamily, load_family
from rulelearn.validation import check_int

__all__ = ["SolutionDatabase", "GenerationReport", "DatabaseCheck", "CorruptManifestError", "CorruptShardError",
           "FORMAT_VERSION", "MANIFEST", "shard_name"]


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
        Wall time of the call, checks of the stored shards and writing included.
    workers : int
        Worker processes (local) or worker threads (Dask) used.
    backend : str
        ``"serial"``, ``"processes"`` or ``"dask"``.
    repaired : tuple of str
        Shards found bad, deleted and solved again (``repair=True``).
    adopted : tuple of str
        Shards the manifest did not vouch for (unrecorded, or the manifest was missing or unreadable) that passed
        the check against their own embedded record and content checksum, and were recorded again
        (``repair=True``).
    manifest_rebuilt : bool
        The manifest was missing or unreadable and was written anew (``repair=True``; an unreadable one is kept
        beside it as ``_manifest.json.broken``).
    problems : dict of str to str
        What was wrong with each shard of ``repaired``.
    """

    n_games: int
    n_solved: int
    n_unverified: int
    seconds: float
    workers: int
    backend: str = "processes"
    repaired: tuple[str, ...] = ()
    adopted: tuple[str, ...] = ()
    manifest_rebuilt: bool = False
    problems: dict = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        """Throughput of this call (0 when nothing was solved)."""
        return self.n_solved / self.seconds if self.n_solved and self.seconds > 0 else 0.0


@dataclass(frozen=True)
class DatabaseCheck:
    """Result of :meth:`SolutionDatabase.verify`.

    Attributes
    ----------
    path : str
        The database directory.
    n_shards : int
        Shard files examined.
    n_games : int
        Games in the shards that passed.
    n_unverified : int
        Of those, games whose solution failed verification (stored, flagged).
    n_checksummed : int
        Shards whose sha256 was compared with the manifest (all of them from format 2 on).
    problems : dict of str to str
        File name -> what is wrong (empty when the database is sound).
    seconds : float
        Wall time of the check.
    """

    path: str
    n_shards: int
    n_games: int
    n_unverified: int
    n_checksummed: int
    problems: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems



def _solve_shard(family: GameFamily, identity: dict, start: int, stop: int) -> ShardPayload:  # pragma: no cover
    """The task a worker runs: solve games ``start .. stop-1`` and encode them with the database's identity."""
    return encode_shard(family.solve_range(identity["seed"], start, stop), start, stop, identity)


class SolutionDatabase(ShardDirectory):
    """A directory of solved game instances of one game family (see the module notes for layout and checks).

    Parameters
    ----------
    path : str or os.PathLike
        Directory; created on first :meth:`generate`.

    Examples
    --------
    >>> db = SolutionDatabase("data/betgame")                                    # doctest: +SKIP
    >>> db.generate("betgame", n_games=100_000, seed=0)                         # all local cores  # doctest: +SKIP
    >>> db.generate("betgame", n_games=200_000, scheduler="tcp://10.0.0.5:8786")  # a Dask cluster # doctest: +SKIP
    >>> games = db.load()                                                       # doctest: +SKIP
    >>> db.verify().ok                                                          # doctest: +SKIP
    True
    >>> import dask.dataframe as dd; dd.read_parquet(db.path)                   # the shards, unchecked  # doctest: +SKIP
    """


    def family(self) -> GameFamily:
        """The game family recorded in the manifest.

        Raises
        ------
        FileNotFoundError
            If the directory holds neither a manifest nor a shard.
        CorruptManifestError
            If the manifest is missing (while shards are present) or unreadable.
        ValueError
            If the family rebuilt from the recorded name and parameters does not have the recorded config (a
            database generated from a family object whose parameters were not recorded).
        """
        m = self.require_manifest()
        family = load_family(m["family"], **m.get("family_params", {}))
        config = json.loads(json.dumps(family.config()))
        if m.get("config") is not None and config != m["config"]:
            raise ValueError(f"{self.path}: the family {m['family']!r} rebuilt from the recorded parameters "
                             f"{m.get('family_params', {})} has config {config}, but the database records "
                             f"{m['config']}; load it with the family object it was generated with")
        return family

    def __len__(self) -> int:
        return int(sum(b - a for a, b, _ in self.shards()))

    # ------------------------------------------------------------------ integrity
    def verify(self, strict: bool = True) -> DatabaseCheck:
        """Check every shard in full (see the module notes) and the directory's consistency with the manifest.

        Parameters
        ----------
        strict : bool, default True
            Raise :class:`CorruptShardError` if anything is wrong; otherwise return the problems in the result.

        Returns
        -------
        DatabaseCheck

        Raises
        ------
        FileNotFoundError
            If the directory holds neither a manifest nor a shard.
        CorruptManifestError
            If the manifest is missing (while shards are present) or unreadable: it is named, and no shard is
            trusted without it.
        CorruptShardError
            With ``strict=True``, if any shard is bad; it names every bad file and what is wrong (foreign Parquet
            files in the directory included).
        """
        t0 = time.perf_counter()
        manifest = self.require_manifest()
        shards, records, problems, _ = self._scan(manifest)
        identity = self.identity(manifest)
        n_games = n_unverified = n_sum = 0
        for a, b, f in shards:
            if f.name in problems:
                continue
            record = records.get(f.name)
            try:
                table = _read_shard(f, a, b, record, identity=identity)
            except _Bad as exc:
                problems[f.name] = str(exc)
                continue
            n_sum += record is not None
            n_games += b - a
            n_unverified += int(np.count_nonzero(~table.column("verified").to_numpy(zero_copy_only=False)))
        if problems and strict:
            raise CorruptShardError(self.path, problems, REPAIR_HINT)
        return DatabaseCheck(str(self.path), len(shards), n_games, n_unverified, n_sum, dict(sorted(problems.items())),
                             time.perf_counter() - t0)

    def _params_of(self, family: GameFamily) -> dict:
        """The constructor parameters to record for a family object given without them: those of the existing
        manifest (a resumed database keeps its record), else ``family.params()`` where the family has it."""
        try:
            have = self.manifest
        except CorruptManifestError:
            have = None
        if have is not None:
            return dict(have.get("family_params", {}))
        own = getattr(family, "params", None)
        return dict(own()) if callable(own) else {}

    def _prepare(self, family: GameFamily, seed: int, family_params: dict, repair: bool) -> tuple[dict, bool, bool]:
        """Create or check the manifest (under the lock); returns it in the current format, whether it was format 1,
        and whether it was rebuilt (missing or unreadable while shards are present; ``repair`` only)."""
        want = json.loads(json.dumps({"format": FORMAT_VERSION, "family": family.name, "family_params": family_params,
                                      "config": family.config(), "seed": int(seed)}))
        try:
            have = self.manifest
        except CorruptManifestError as exc:
            if not repair:
                raise
            os.replace(exc.path, exc.path.with_name(exc.path.name + ".broken"))  # kept for inspection
            (self.path / _LEGACY_MANIFEST).unlink(missing_ok=True)
            have = None
        if have is None:
            present = sorted(f.name for f in self.path.glob("games-*.parquet"))
            if present and not repair:
                raise CorruptManifestError(self.path / MANIFEST, f"missing while {len(present)} shard(s) are "
                                           "present: their checksums are gone, so none is trusted")
            manifest = dict(want, shards={})
            self._write_manifest(manifest)
            return manifest, False, bool(present)
        if have.get("format") not in (1, 2, FORMAT_VERSION):
            raise ValueError(f"{self.path} has database format {have.get('format')!r}; this version of rulelearn "
                             f"reads formats 1 to {FORMAT_VERSION}")
        diff = {k: (have.get(k), want[k]) for k in want if k != "format" and have.get(k) != want[k]}
        if diff:
            raise ValueError(
                f"{self.path} holds a different database ({diff} as stored vs requested); "
                "use another directory or the stored seed and game parameters"
            )
        return dict(want, shards=dict(have.get("shards", {}))), have.get("format") == 1, False

    def generate(self, family: GameFamily | str, n_games: int, seed: int = 0, shard_size: int = 250,
                 workers: int | None = None, progress: bool = True, family_params: dict | None = None,
                 scheduler=None, repair: bool = False) -> GenerationReport:
        """Solve games ``0 .. n_games-1`` that are not stored yet, in parallel, and store them.

        The stored shards are checked first (sizes, sha256, footers, row counts, ids). A format-1 database is
        upgraded to format 2 (checksums recorded) once its shards pass.

        Parameters
        ----------
        family : GameFamily or str
            The family, or its registry name (then ``family_params`` are passed to it).
        n_games : int
            Total number of games the database should hold (ids ``0 .. n_games-1``).
        seed : int, default 0
            Seed of the game stream; fixed for a database (recorded in the manifest).
        shard_size : int, default 250
            Games per shard (one worker task; a kill loses at most the shards in flight). The manifest holds one
            record per shard and is rewritten after each, so for millions of games use a few thousand per shard.
        workers : int, optional
            Local processes; default all cores (``os.cpu_count()``). ``1`` solves in this process. Ignored when
            ``scheduler`` is given.
        progress : bool, default True
            Show a progress bar (games, rate and ETA).
        family_params : dict, optional
            Keyword arguments of the family's constructor, recorded so that :meth:`family` can rebuild it. When
            ``family`` is an object and this is not given: the parameters the manifest already records (resuming),
            else the family's own ``params()`` if it has that method, else none.
        scheduler : None or str or distributed.Client or distributed.deploy.Cluster, optional
            Solve on a Dask cluster instead of local processes: its scheduler address (``"tcp://host:8786"``),
            a connected ``Client`` or a ``Cluster``. The workers need the family's code (``rulelearn`` and the
            game package) installed, not the database directory: they return the encoded shards to this
            process, which writes them.
        repair : bool, default False
            Instead of raising :class:`CorruptShardError` or :class:`CorruptManifestError`: rebuild a missing or
            unreadable manifest; check every shard the manifest does not vouch for against its own embedded record
            and content checksum, and record again those that pass (``GenerationReport.adopted``); delete the
            others and solve their games again (``GenerationReport.repaired``). Foreign files are never deleted.

        Returns
        -------
        GenerationReport

        Raises
        ------
        ValueError
            If ``n_games`` or ``shard_size`` is not a positive integer, ``workers`` is not a positive integer, or
            the directory holds a database of another family, config or seed.
        CorruptShardError
            If a stored shard is bad and ``repair`` is false, or the directory holds foreign Parquet files (a
            ``ValueError``; it names the files).
        CorruptManifestError
            If the manifest is unreadable, or missing while shards are present, and ``repair`` is false (a
            ``ValueError``; it names the file).
        TypeError
            If ``scheduler`` is not an address, ``Client`` or ``Cluster``.
        ImportError
            If ``scheduler`` is given and ``dask.distributed`` is not installed.
        RuntimeError
            If another process is generating into the same directory, the family returned a bad shard, or the
            Dask scheduler cannot be reached.
        """
        check_int("n_games", n_games, 1)
        check_int("shard_size", shard_size, 1)
        make_executor(workers, scheduler)  # validate workers / scheduler before touching the directory
        params = dict(family_params or {})
        if family_params is None and not isinstance(family, str):
            params = self._params_of(family)
        fam = load_family(family, **params) if isinstance(family, str) else family
        t0 = time.perf_counter()
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(f"another process is generating into {self.path}") from None
            foreign = self.foreign_files()
            if foreign:  # never deleted, not even by repair: this database did not write them
                raise CorruptShardError(self.path, {name: "not a shard of this database" for name in foreign},
                                        "Move them out of the database directory (Parquet readers of the directory "
                                        "would read them with the shards); --repair never deletes them")
            manifest, legacy, rebuilt = self._prepare(fam, seed, params, repair)
            self._recover_temporaries(manifest)
            problems, adopted = self._check_stored(manifest, legacy, repair)
            repaired: tuple[str, ...] = ()
            if problems:
                if not repair:
                    raise CorruptShardError(self.path, problems, REPAIR_HINT)
                for name in problems:  # delete the file, then its record: a kill in between stays detectable
                    (self.path / name).unlink(missing_ok=True)
                    manifest["shards"].pop(name, None)
                repaired = tuple(sorted(problems))
            if legacy or repaired or adopted:
                self._write_manifest(manifest)
                if legacy:
                    (self.path / _LEGACY_MANIFEST).unlink(missing_ok=True)
            tasks = self.missing_ranges(int(n_games), int(shard_size))
            todo = sum(b - a for a, b in tasks)
            unverified = 0
            executor = make_executor(workers, scheduler, n_tasks=len(tasks))
            if not tasks:
                return GenerationReport(int(n_games), 0, 0, time.perf_counter() - t0, 0, executor.name, repaired,
                                        tuple(adopted), rebuilt, dict(sorted(problems.items())))
            identity = self.identity(manifest)
            with executor as ex, tqdm(total=todo, unit="game", desc=f"solving {fam.name} on {ex.description}",
                                      disable=not progress, smoothing=0.05) as bar:
                for payload in ex.imap_unordered(_solve_shard, [(fam, identity, a, b) for a, b in tasks]):
                    self._commit(payload, manifest)
                    unverified += payload.n_unverified
                    bar.update(payload.stop - payload.start)
            try:  # make the renames durable
                fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError:  # pragma: no cover - platforms without directory fsync
                pass
        return GenerationReport(int(n_games), todo, unverified, time.perf_counter() - t0, ex.workers, ex.name,
                                repaired, tuple(adopted), rebuilt, dict(sorted(problems.items())))

    # ------------------------------------------------------------------ reading
    def column_names(self) -> list[str]:
        """The columns of the stored games (from the first shard's Parquet schema).

        Raises
        ------
        FileNotFoundError
            If the database holds no shard.
        """
        shards = self.shards()
        if not shards:
            raise FileNotFoundError(f"no solved games in {self.path}")
        return list(pq.read_schema(shards[0][2]).names)

    def load(self, n_games: int | None = None, columns: list[str] | None = None,
             verified_only: bool = True, ids=None) -> dict[str, np.ndarray]:
        """Read stored games, sorted by id, checking every shard read.

        Parameters
        ----------
        n_games : int, optional
            Only games with id ``< n_games`` (only their shards are read and checked).
        columns : list of str, optional
            Column subset (``game_id`` and ``verified`` are always read).
        verified_only : bool, default True
            Drop games whose solution failed verification.
        ids : array_like of int, optional
            Only these game ids (only the shards holding them are read and checked): large columns, such as a
            turn endgame's strategies, can then be read a few games at a time.

        Returns
        -------
        dict of str to numpy.ndarray
            Each column with shape ``(G, ...)``.

        Raises
        ------
        FileNotFoundError
            If the database holds no shard.
        CorruptManifestError
            If the manifest is missing (while shards are present) or unreadable: without it no shard can be
            checked, so nothing is returned.
        CorruptShardError
            If a shard read is bad or a foreign Parquet file is in the directory (see the module notes); it names
            every bad file and what is wrong.
        """
        cols = None if columns is None else sorted(set(columns) | set(_REQUIRED))
        wanted = None if ids is None else np.asarray(ids, dtype=np.int64).ravel()
        if wanted is not None and wanted.size == 0:
            raise ValueError("ids must hold at least one game id")
        # each shard already cut to ids < n_games and in ids (_read_tables), and freed once copied
        out = tables_to_numpy(self._read_tables(n_games, cols, ids=wanted)[0])
        keep = out["verified"].astype(bool) if verified_only else np.ones(len(out["game_id"]), dtype=bool)
        if keep.all() and np.all(np.diff(out["game_id"]) > 0):   # the usual case: no copy of GBs of strategies
            return out
        order = np.flatnonzero(keep)[np.argsort(out["game_id"][keep], kind="stable")]
        return {k: v[order] for k, v in out.items()}

    def to_pandas(self, n_games: int | None = None):
        """The database as a :class:`pandas.DataFrame` (array columns as lists), one row per game, shards checked.

        Raises
        ------
        FileNotFoundError, CorruptManifestError, CorruptShardError
            As :meth:`load`.
        """
        df = pa.concat_tables(self._read_tables(n_games, None)[0]).to_pandas()
        df = df.sort_values("game_id").reset_index(drop=True)
        return df if n_games is None else df[df["game_id"] < n_games].reset_index(drop=True)

    def to_dask(self, n_games: int | None = None, columns: list[str] | None = None):
        """The database as a lazy ``dask.dataframe.DataFrame``, one partition per shard, in id order.

        Every shard is checked first, as by :meth:`load` (this reads each file once, here). The frame itself is
        ``dask.dataframe.read_parquet`` of the checked shard files; reading the directory directly
        (``dd.read_parquet(db.path)``) gives the same rows, unchecked.

        Parameters
        ----------
        n_games : int, optional
            Only games with id ``< n_games``.
        columns : list of str, optional
            Column subset.

        Returns
        -------
        dask.dataframe.DataFrame
            Array columns hold one numpy array per row (flattened; their shapes are in the Parquet field
            metadata ``shape``).

        Raises
        ------
        ImportError
            If ``dask.dataframe`` is not installed (``pip install "rulelearn[dask]"``).
        FileNotFoundError, CorruptShardError
            As :meth:`load`.
        """
        try:
            import dask.dataframe as dd
        except ImportError as exc:
            raise ImportError("to_dask needs dask.dataframe: pip install \"rulelearn[dask]\"") from exc
        _, paths = self._read_tables(n_games, None if columns is None else sorted(set(columns) | set(_REQUIRED)),
                                     keep=False)
        df = dd.read_parquet([str(p) for p in paths], columns=columns)
        if n_games is not None:
            df = df[df["game_id"] < n_games]
        return df


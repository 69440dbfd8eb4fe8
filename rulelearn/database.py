"""Solution databases: solved game instances in checksummed Parquet shards, generated in parallel, resumable.

Layout of a database directory (format 2)::

    _manifest.json                      family name and config, seed, format version, and per shard its row
                                        count, size in bytes and sha256 (recorded before the shard appears)
    games-000000000-000000250.parquet   games 0 .. 249 (one row per game)
    ...
    .games-000000250-000000500.parquet.tmp   a shard being written (hidden)
    .lock                               held by the process generating into the directory

The directory is a plain Parquet dataset: names starting with ``_`` or ``.`` are skipped by Parquet readers, so
``pandas.read_parquet(path)``, ``pyarrow.dataset.dataset(path)`` and ``dask.dataframe.read_parquet(path)`` read
the shards directly (unchecked; :meth:`SolutionDatabase.load` and :meth:`SolutionDatabase.to_dask` check them).
Format 1 (a ``manifest.json`` without checksums) is still read, with the checksum test skipped, and is upgraded
to format 2 by the next :meth:`SolutionDatabase.generate` (which first validates its shards).

Generation. Game ``k`` depends only on ``(seed, k)``. A worker (a local process, or a Dask worker) solves one
shard, checks it, encodes it as Parquet bytes and returns them with their sha256; only the generating process
writes to the directory: it writes the bytes to a hidden temporary file, fsyncs it, records the checksum in the
manifest, then renames the file into place. A run killed at any moment therefore leaves only complete, recorded
shards (a temporary file whose checksum was already recorded is renamed into place by the next run); a restart
solves exactly the game ids not covered by a shard. The workers need no access to the database directory.

Integrity. Every shard read by :meth:`~SolutionDatabase.load`, :meth:`~SolutionDatabase.to_pandas`,
:meth:`~SolutionDatabase.to_dask` and :meth:`~SolutionDatabase.verify` is checked: size and sha256 against the
manifest, readable Parquet footer, ``stop - start`` rows, ids exactly ``start .. stop-1``, no null value, no NaN
in any floating column of a verified game, the same columns as the other shards; and the directory is checked for
shards missing from the manifest, shards the manifest lists that are gone, and overlapping shards. Any failure
raises :class:`CorruptShardError` naming every bad file and what is wrong; nothing is skipped silently.
:meth:`~SolutionDatabase.generate` refuses to extend a database with a bad shard unless ``repair=True``, which
deletes exactly the bad shards and solves their ranges again.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from rulelearn.executors import make_executor
from rulelearn.family import GameFamily, load_family

__all__ = ["SolutionDatabase", "GenerationReport", "DatabaseCheck", "CorruptShardError", "FORMAT_VERSION",
           "MANIFEST", "shard_name"]

#: Version of the directory layout written by this module (1: ``manifest.json`` without checksums).
FORMAT_VERSION = 2
#: Name of the manifest (leading ``_``: Parquet dataset readers skip it).
MANIFEST = "_manifest.json"
_LEGACY_MANIFEST = "manifest.json"
_SHARD = re.compile(r"^games-(\d{9})-(\d{9})\.parquet$")
_REQUIRED = ("game_id", "verified")
_PARQUET_OPTIONS = {"compression": "zstd"}  # 20% smaller than snappy and faster to write for these columns


def shard_name(start: int, stop: int) -> str:
    """File name of the shard holding games ``start .. stop-1``: ``games-{start:09d}-{stop:09d}.parquet``."""
    return f"games-{int(start):09d}-{int(stop):09d}.parquet"


class CorruptShardError(ValueError):
    """One or more shards of a solution database are damaged, missing or unexpected.

    Parameters
    ----------
    directory : str or os.PathLike
        The database directory.
    problems : dict of str to str
        File name -> what is wrong with it.
    hint : str, optional
        What to do about it, appended to the message.

    Attributes
    ----------
    directory : pathlib.Path
    problems : dict of str to str
    """

    def __init__(self, directory, problems: dict[str, str], hint: str = ""):
        self.directory = Path(directory)
        self.problems = dict(sorted(problems.items()))
        listing = "; ".join(f"{name}: {why}" for name, why in self.problems.items())
        super().__init__(f"{len(self.problems)} corrupt shard(s) in {self.directory}: {listing}"
                         + (f". {hint}" if hint else ""))

    @property
    def names(self) -> list[str]:
        """File names of the bad shards, sorted."""
        return list(self.problems)


_REPAIR_HINT = ("Run `rulelearn generate --repair` (or SolutionDatabase.generate(..., repair=True)) to delete "
                "exactly these shards and solve their games again")


class _Bad(Exception):
    """Internal: what is wrong with one shard."""


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
    """

    n_games: int
    n_solved: int
    n_unverified: int
    seconds: float
    workers: int
    backend: str = "processes"
    repaired: tuple[str, ...] = ()

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


@dataclass(frozen=True)
class _ShardPayload:
    """A solved shard as it travels from a worker to the writing process."""

    start: int
    stop: int
    data: bytes  # the Parquet file
    sha256: str
    n_unverified: int

    def record(self) -> dict:
        return {"rows": self.stop - self.start, "bytes": len(self.data), "sha256": self.sha256}


# ---------------------------------------------------------------------------------------------- Arrow encoding
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
    field_ = table.schema.field(name)
    col = table.column(name).combine_chunks()
    if pa.types.is_fixed_size_list(field_.type):
        shape = tuple(json.loads(field_.metadata[b"shape"]))
        return col.flatten().to_numpy(zero_copy_only=False).reshape((len(col),) + shape)
    return col.to_numpy(zero_copy_only=False)


def _check_table(table: pa.Table, start: int, stop: int) -> None:
    """Raise :class:`_Bad` unless ``table`` holds games ``start .. stop-1`` with no null and no NaN where verified."""
    if table.num_rows != stop - start:
        raise _Bad(f"{table.num_rows} rows, {stop - start} expected")
    for name in _REQUIRED:
        if name not in table.column_names:
            raise _Bad(f"no {name!r} column")
    for name in table.column_names:
        col = table.column(name)
        if col.null_count:
            raise _Bad(f"{col.null_count} null value(s) in column {name!r}")
    ids = table.column("game_id").to_numpy()
    expected = np.arange(start, stop, dtype=np.int64)
    if ids.shape != expected.shape or not np.array_equal(ids, expected):
        bad = int(np.flatnonzero(ids != expected)[0]) if ids.shape == expected.shape else 0
        raise _Bad(f"game ids are not exactly {start}..{stop - 1} (row {bad} holds id {int(ids[bad])})")
    if not pa.types.is_boolean(table.schema.field("verified").type):
        raise _Bad(f"column 'verified' has type {table.schema.field('verified').type}, bool expected")
    verified = table.column("verified").to_numpy(zero_copy_only=False).astype(bool)
    for name in table.column_names:
        typ = table.schema.field(name).type
        values_type = typ.value_type if pa.types.is_fixed_size_list(typ) else typ
        if not pa.types.is_floating(values_type):
            continue
        col = table.column(name).combine_chunks()
        values = (col.flatten() if pa.types.is_fixed_size_list(typ) else col).to_numpy(zero_copy_only=False)
        nan_rows = np.isnan(values.reshape(table.num_rows, -1)).any(axis=1) & verified
        if nan_rows.any():
            raise _Bad(f"NaN in column {name!r} of verified game {int(ids[np.flatnonzero(nan_rows)[0]])}")


def _encode_shard(columns: dict[str, np.ndarray], start: int, stop: int) -> _ShardPayload:
    """Check a solved shard and encode it as Parquet bytes with their sha256 (runs in the worker)."""
    table = _to_table(columns)
    try:
        _check_table(table, start, stop)
    except _Bad as exc:
        raise RuntimeError(f"the game family returned a bad shard for games {start}..{stop - 1}: {exc}") from None
    strings = [f.name for f in table.schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=strings or False, **_PARQUET_OPTIONS)
    data = sink.getvalue().to_pybytes()
    n_unverified = int(np.count_nonzero(~np.asarray(columns["verified"], dtype=bool)))
    return _ShardPayload(int(start), int(stop), data, hashlib.sha256(data).hexdigest(), n_unverified)


def _solve_shard(family: GameFamily, seed: int, start: int, stop: int) -> _ShardPayload:  # pragma: no cover
    """The task a worker runs: solve games ``start .. stop-1`` and encode them."""
    return _encode_shard(family.solve_range(seed, start, stop), start, stop)


def _read_shard(path: Path, start: int, stop: int, record: dict | None, columns: list[str] | None = None,
                full: bool = True) -> pa.Table:
    """Read and check one shard; raise :class:`_Bad` saying what is wrong.

    With ``full=False`` only the bytes (size, sha256), the footer, the row count and the ids are checked.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _Bad(f"unreadable file ({exc.strerror or exc})") from None
    if record is not None:
        want = int(record.get("bytes", -1))
        if want >= 0 and len(data) != want:
            raise _Bad(f"truncated: {len(data)} of {want} bytes" if len(data) < want
                       else f"{len(data)} bytes, the manifest recorded {want}")
        digest = hashlib.sha256(data).hexdigest()
        if digest != record.get("sha256"):
            raise _Bad(f"sha256 mismatch (file {digest[:16]}..., manifest {str(record.get('sha256'))[:16]}...): "
                       "its contents changed after it was written")
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise _Bad(f"unreadable Parquet footer ({exc})") from None
    if pf.metadata.num_rows != stop - start:
        raise _Bad(f"{pf.metadata.num_rows} rows, {stop - start} expected")
    names = pf.schema_arrow.names
    if not full:
        columns = ["game_id"]
    if columns is not None:
        lacking = [c for c in columns if c not in names]
        if lacking:
            raise _Bad(f"no column(s) {lacking}")
    try:
        table = pf.read(columns=columns)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise _Bad(f"unreadable data ({exc})") from None
    if full:
        _check_table(table, start, stop)
    else:
        ids = table.column("game_id").to_numpy()
        if not np.array_equal(ids, np.arange(start, stop)):
            raise _Bad(f"game ids are not exactly {start}..{stop - 1}")
    return table


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------- the database
class SolutionDatabase:
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

    def __init__(self, path):
        self.path = Path(path)

    # ------------------------------------------------------------------ metadata
    @property
    def manifest(self) -> dict | None:
        """The manifest (format, family, config, seed, shard checksums), or ``None`` for a database not yet created.

        Reads ``_manifest.json``, or a format-1 ``manifest.json``.
        """
        for name in (MANIFEST, _LEGACY_MANIFEST):
            f = self.path / name
            if f.exists():
                return json.loads(f.read_text())
        return None

    def family(self) -> GameFamily:
        """The game family recorded in the manifest.

        Raises
        ------
        FileNotFoundError
            If the database has no manifest.
        """
        m = self.manifest
        if m is None:
            raise FileNotFoundError(f"{self.path} is not a solution database (no {MANIFEST})")
        return load_family(m["family"], **m.get("family_params", {}))

    def shards(self) -> list[tuple[int, int, Path]]:
        """Shard files as ``(first_id, stop_id, path)``, sorted by first id (from the names; unchecked)."""
        out = []
        for f in self.path.glob("games-*.parquet"):
            m = _SHARD.match(f.name)
            if m and int(m.group(1)) < int(m.group(2)):
                out.append((int(m.group(1)), int(m.group(2)), f))
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

    def _scan(self, manifest: dict | None = None):
        """Shard files, their manifest records and directory-level problems.

        The directory is listed *before* the manifest is read: the writer records a shard before renaming it
        into place, so every listed shard of a format-2 database has a record. Returns ``(shards, records,
        problems, checksummed)`` where ``shards`` is ``[(start, stop, path)]`` of well-named files, ``records``
        the manifest's shard records, ``problems`` a dict name -> reason, and ``checksummed`` whether the
        manifest records checksums (format >= 2).
        """
        listed = sorted(self.path.glob("games-*.parquet"))
        if manifest is None:
            manifest = self.manifest or {}
        records = manifest.get("shards", {})
        checksummed = manifest.get("format", 1) >= 2
        problems, shards = {}, []
        for f in listed:
            m = _SHARD.match(f.name)
            if not m or int(m.group(1)) >= int(m.group(2)):
                problems[f.name] = "not a shard name (games-{start:09d}-{stop:09d}.parquet with start < stop)"
                continue
            if checksummed and f.name not in records:
                problems[f.name] = "not recorded in the manifest (no checksum): not written by generate"
            shards.append((int(m.group(1)), int(m.group(2)), f))
        shards.sort()
        reach, holder = 0, None
        for a, b, f in shards:  # shards already found bad do not count (they are to be deleted)
            if f.name in problems:
                continue
            if a < reach:
                problems[f.name] = f"overlaps {holder}"
                continue
            reach, holder = b, f.name
        names = {f.name for _, _, f in shards}
        for name in records:
            if name in names or name in problems:
                continue
            # in flight (recorded, not yet renamed) if the temporary file exists; renamed since the listing if
            # the final file exists now (check the temporary file first: the rename removes it)
            if (self.path / f".{name}.tmp").exists() or (self.path / name).exists():
                continue
            problems[name] = "listed in the manifest but the file is missing"
        return shards, records, problems, checksummed

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
            If the directory is not a solution database (no manifest).
        CorruptShardError
            With ``strict=True``, if any shard is bad; it names every bad file and what is wrong.
        """
        t0 = time.perf_counter()
        if self.manifest is None:
            raise FileNotFoundError(f"{self.path} is not a solution database (no {MANIFEST})")
        shards, records, problems, _ = self._scan()
        n_games = n_unverified = n_sum = 0
        for a, b, f in shards:
            if f.name in problems:
                continue
            record = records.get(f.name)
            try:
                table = _read_shard(f, a, b, record)
            except _Bad as exc:
                problems[f.name] = str(exc)
                continue
            n_sum += record is not None
            n_games += b - a
            n_unverified += int(np.count_nonzero(~table.column("verified").to_numpy(zero_copy_only=False)))
        if problems and strict:
            raise CorruptShardError(self.path, problems, _REPAIR_HINT)
        return DatabaseCheck(str(self.path), len(shards), n_games, n_unverified, n_sum, dict(sorted(problems.items())),
                             time.perf_counter() - t0)

    def _read_tables(self, n_games: int | None, columns: list[str] | None, keep: bool = True
                     ) -> tuple[list[pa.Table], list[Path]]:
        """Checked tables and paths of the shards holding ids ``< n_games``; raise :class:`CorruptShardError` if
        any is bad. With ``keep=False`` the shards are only checked and no table is returned.
        """
        shards, records, problems, _ = self._scan()

        def relevant(name: str) -> bool:
            m = _SHARD.match(name)
            return n_games is None or m is None or int(m.group(1)) < n_games

        problems = {k: v for k, v in problems.items() if relevant(k)}
        shards = [s for s in shards if n_games is None or s[0] < n_games]
        if not shards and not problems:
            raise FileNotFoundError(f"no solved games in {self.path}")
        tables, schema, first = [], None, None
        for a, b, f in shards:
            if f.name in problems:
                continue
            try:
                table = _read_shard(f, a, b, records.get(f.name), columns)
            except _Bad as exc:
                problems[f.name] = str(exc)
                continue
            if schema is None:
                schema, first = table.schema, f.name
            elif not table.schema.equals(schema, check_metadata=True):
                problems[f.name] = f"columns differ from {first}: {table.schema.names} vs {schema.names}"
                continue
            if keep:
                tables.append(table)
        if problems:
            raise CorruptShardError(self.path, problems, _REPAIR_HINT)
        return tables, [f for _, _, f in shards]

    # ------------------------------------------------------------------ generation
    def _write_manifest(self, manifest: dict) -> None:
        _write_atomic(self.path / MANIFEST, json.dumps(manifest, indent=1).encode())

    def _prepare(self, family: GameFamily, seed: int, family_params: dict) -> tuple[dict, bool]:
        """Create or check the manifest (under the lock); returns it in format 2 and whether it was format 1."""
        want = {"format": FORMAT_VERSION, "family": family.name, "family_params": family_params,
                "config": family.config(), "seed": int(seed)}
        have = self.manifest
        if have is None:
            manifest = dict(want, shards={})
            self._write_manifest(manifest)
            return manifest, False
        if have.get("format") not in (1, FORMAT_VERSION):
            raise ValueError(f"{self.path} has database format {have.get('format')!r}; this version of rulelearn "
                             f"reads formats 1 to {FORMAT_VERSION}")
        diff = {k: (have.get(k), want[k]) for k in want if k != "format" and have.get(k) != want[k]}
        if diff:
            raise ValueError(
                f"{self.path} holds a different database ({diff} as stored vs requested); "
                "use another directory or the stored seed and game parameters"
            )
        return dict(want, shards=dict(have.get("shards", {}))), have.get("format") == 1

    def _recover_temporaries(self, manifest: dict) -> None:
        """Rename into place a shard killed between its manifest record and its rename; delete other temporaries."""
        records = manifest["shards"]
        for tmp in [*self.path.glob(".games-*.parquet.tmp"), *self.path.glob("games-*.parquet.tmp")]:
            name = tmp.name.lstrip(".")[: -len(".tmp")]
            final, record = self.path / name, records.get(name)
            if record is not None and not final.exists():
                data = tmp.read_bytes()
                if len(data) == record.get("bytes") and hashlib.sha256(data).hexdigest() == record.get("sha256"):
                    os.replace(tmp, final)
                    continue
                records.pop(name)  # the commit never completed: its games will be solved again
                self._write_manifest(manifest)
            tmp.unlink()
        for stale in (MANIFEST + ".tmp", _LEGACY_MANIFEST + ".tmp"):
            (self.path / stale).unlink(missing_ok=True)

    def _check_stored(self, manifest: dict, adopt: bool) -> dict[str, str]:
        """Check the stored shards before extending the database; returns the problems found.

        Checks sizes and checksums, footers, row counts and ids (the other checks were made by the worker before
        the checksum was taken). With ``adopt`` (a format-1 database), unrecorded shards are checked in full and
        their checksums recorded.
        """
        shards, records, problems, _ = self._scan(dict(manifest, format=1 if adopt else FORMAT_VERSION))
        for a, b, f in shards:
            if f.name in problems:
                continue
            record = records.get(f.name)
            try:
                _read_shard(f, a, b, record, full=record is None)
            except _Bad as exc:
                problems[f.name] = str(exc)
                continue
            if record is None:  # format 1: adopt the checked shard
                data = f.read_bytes()
                records[f.name] = {"rows": b - a, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        return problems

    def _commit(self, payload: _ShardPayload, manifest: dict) -> None:
        """Write a solved shard: hidden temporary file, fsync, manifest record, rename into place."""
        name = shard_name(payload.start, payload.stop)
        if hashlib.sha256(payload.data).hexdigest() != payload.sha256:
            raise RuntimeError(f"shard {name} arrived damaged from its worker (sha256 mismatch)")
        tmp = self.path / f".{name}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(payload.data)
            fh.flush()
            os.fsync(fh.fileno())
        manifest["shards"][name] = payload.record()
        self._write_manifest(manifest)
        os.replace(tmp, self.path / name)

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
            Keyword arguments of the family's constructor, recorded so that :meth:`family` can rebuild it.
        scheduler : None or str or distributed.Client or distributed.deploy.Cluster, optional
            Solve on a Dask cluster instead of local processes: its scheduler address (``"tcp://host:8786"``),
            a connected ``Client`` or a ``Cluster``. The workers need the family's code (``rulelearn`` and the
            game package) installed, not the database directory: they return the encoded shards to this
            process, which writes them.
        repair : bool, default False
            If stored shards are bad, delete exactly those and solve their games again (reported in
            ``GenerationReport.repaired``) instead of raising :class:`CorruptShardError`.

        Returns
        -------
        GenerationReport

        Raises
        ------
        ValueError
            If ``n_games`` or ``shard_size`` is not a positive integer, ``workers`` is not a positive integer, or
            the directory holds a database of another family, config or seed.
        CorruptShardError
            If a stored shard is bad and ``repair`` is false (a ``ValueError``; it names the files).
        TypeError
            If ``scheduler`` is not an address, ``Client`` or ``Cluster``.
        ImportError
            If ``scheduler`` is given and ``dask.distributed`` is not installed.
        RuntimeError
            If another process is generating into the same directory, the family returned a bad shard, or the
            Dask scheduler cannot be reached.
        """
        if isinstance(n_games, bool) or int(n_games) != n_games or n_games < 1:
            raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
        if isinstance(shard_size, bool) or int(shard_size) != shard_size or shard_size < 1:
            raise ValueError(f"shard_size must be a positive integer, got {shard_size!r}")
        make_executor(workers, scheduler)  # validate workers / scheduler before touching the directory
        params = dict(family_params or {})
        fam = load_family(family, **params) if isinstance(family, str) else family
        t0 = time.perf_counter()
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(f"another process is generating into {self.path}") from None
            manifest, legacy = self._prepare(fam, seed, params)
            self._recover_temporaries(manifest)
            problems = self._check_stored(manifest, adopt=legacy)
            repaired: tuple[str, ...] = ()
            if problems:
                if not repair:
                    raise CorruptShardError(self.path, problems, _REPAIR_HINT)
                for name in problems:  # delete the file, then its record: a kill in between stays detectable
                    (self.path / name).unlink(missing_ok=True)
                    manifest["shards"].pop(name, None)
                repaired = tuple(sorted(problems))
            if legacy or repaired:
                self._write_manifest(manifest)
                if legacy:
                    (self.path / _LEGACY_MANIFEST).unlink(missing_ok=True)
            tasks = self.missing_ranges(int(n_games), int(shard_size))
            todo = sum(b - a for a, b in tasks)
            unverified = 0
            executor = make_executor(workers, scheduler, n_tasks=len(tasks))
            if not tasks:
                return GenerationReport(int(n_games), 0, 0, time.perf_counter() - t0, 0, executor.name, repaired)
            with executor as ex, tqdm(total=todo, unit="game", desc=f"solving {fam.name} on {ex.description}",
                                      disable=not progress, smoothing=0.05) as bar:
                for payload in ex.imap_unordered(_solve_shard, [(fam, int(seed), a, b) for a, b in tasks]):
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
                                repaired)

    # ------------------------------------------------------------------ reading
    def load(self, n_games: int | None = None, columns: list[str] | None = None,
             verified_only: bool = True) -> dict[str, np.ndarray]:
        """Read stored games, sorted by id, checking every shard read.

        Parameters
        ----------
        n_games : int, optional
            Only games with id ``< n_games`` (only their shards are read and checked).
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
        CorruptShardError
            If a shard read is bad (see the module notes); it names every bad file and what is wrong.
        """
        cols = None if columns is None else sorted(set(columns) | set(_REQUIRED))
        table = pa.concat_tables(self._read_tables(n_games, cols)[0])
        out = {name: _column_to_numpy(table, name) for name in table.column_names}
        keep = np.ones(len(out["game_id"]), dtype=bool)
        if n_games is not None:
            keep &= out["game_id"] < n_games
        if verified_only:
            keep &= out["verified"].astype(bool)
        order = np.argsort(out["game_id"][keep], kind="stable")
        return {k: v[keep][order] for k, v in out.items()}

    def to_pandas(self, n_games: int | None = None):
        """The database as a :class:`pandas.DataFrame` (array columns as lists), one row per game, shards checked.

        Raises
        ------
        FileNotFoundError, CorruptShardError
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

"""The on-disk format of a solution database: checksummed Parquet shards and their manifest.

:class:`ShardDirectory` lists, checks, reads and commits the shards of one directory (the layout and the checks
are described in :mod:`rulelearn.data.database`); the functions below encode a solved shard as Parquet bytes in a
worker, and read and check one shard. Nothing here solves a game.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["FORMAT_VERSION", "MANIFEST", "REPAIR_HINT", "CorruptShardError", "ShardDirectory", "ShardPayload",
           "column_to_numpy", "encode_shard", "shard_name"]

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


REPAIR_HINT = ("Run `rulelearn generate --repair` (or SolutionDatabase.generate(..., repair=True)) to delete "
                "exactly these shards and solve their games again")


class _Bad(Exception):
    """Internal: what is wrong with one shard."""



@dataclass(frozen=True)
class ShardPayload:
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


def column_to_numpy(table: pa.Table, name: str) -> np.ndarray:
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


def encode_shard(columns: dict[str, np.ndarray], start: int, stop: int) -> ShardPayload:
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
    return ShardPayload(int(start), int(stop), data, hashlib.sha256(data).hexdigest(), n_unverified)


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


# ---------------------------------------------------------------------------------------------- a directory
class ShardDirectory:
    """The shards and manifest of one database directory: listing, checking, reading and committing them.

    Parameters
    ----------
    path : str or os.PathLike
    """

    def __init__(self, path):
        self.path = Path(path)

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
            raise CorruptShardError(self.path, problems, REPAIR_HINT)
        return tables, [f for _, _, f in shards]

    def _write_manifest(self, manifest: dict) -> None:
        _write_atomic(self.path / MANIFEST, json.dumps(manifest, indent=1).encode())

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

    def _commit(self, payload: ShardPayload, manifest: dict) -> None:
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


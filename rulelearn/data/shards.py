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

__all__ = ["FORMAT_VERSION", "MANIFEST", "REPAIR_HINT", "SHARD_METADATA", "CorruptManifestError", "CorruptShardError",
           "ShardDirectory", "ShardPayload", "column_to_numpy", "columns_digest", "content_digest", "encode_shard",
           "shard_name",
           "tables_to_numpy", "write_atomic"]

#: Version of the directory layout written by this module (1: ``manifest.json`` without checksums; 2: checksums
#: in the manifest; 3: each shard also carries its own identity and content checksum, :data:`SHARD_METADATA`).
FORMAT_VERSION = 3
#: Key of the shard's own record in its Parquet (Arrow schema) metadata: JSON with ``format``, ``start``,
#: ``stop``, ``family``, ``family_params``, ``config``, ``seed`` and ``content_sha256`` (:func:`content_digest`).
SHARD_METADATA = b"rulelearn.shard"
#: The keys of a shard's record that name the database it belongs to (compared with the manifest).
_IDENTITY = ("family", "family_params", "config", "seed")
#: Name of the manifest (leading ``_``: Parquet dataset readers skip it).
MANIFEST = "_manifest.json"
_LEGACY_MANIFEST = "manifest.json"
_SHARD = re.compile(r"^games-(\d{9})-(\d{9})\.parquet$")
_REQUIRED = ("game_id", "verified")
_PARQUET_OPTIONS = {"compression": "zstd"}  # 20% smaller than snappy and faster to write for these columns


def shard_name(start: int, stop: int) -> str:
    """File name of the shard holding games ``start .. stop-1``: ``games-{start:09d}-{stop:09d}.parquet``.

    Parameters
    ----------
    start : int
        Id of the shard's first game (``>= 0``).
    stop : int
        One past the id of its last game.

    Returns
    -------
    str
        The file name, e.g. ``"games-000000000-000001000.parquet"``; the ids are zero-padded to nine digits (a
        larger id gives more digits, a name the directory listing does not recognise as a shard).

    Raises
    ------
    TypeError, ValueError
        If ``start`` or ``stop`` cannot be converted by ``int`` (a float is truncated, not rejected).
    """
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


REPAIR_HINT = ("Run `rulelearn generate --repair` (or SolutionDatabase.generate(..., repair=True)) to check these "
               "shards against their own embedded checksums, keep the intact ones and solve the games of the others "
               "again")
MANIFEST_HINT = ("Run `rulelearn generate --repair` with the database's --game, --games and --seed (or "
                 "SolutionDatabase.generate(..., repair=True)) to rebuild it from the shards, each checked against "
                 "its own embedded checksum")


class CorruptManifestError(ValueError):
    """The manifest of a solution database is missing (while shards are present) or unreadable.

    Parameters
    ----------
    path : str or os.PathLike
        The manifest file.
    why : str
        What is wrong with it.
    hint : str, optional
        What to do about it.

    Attributes
    ----------
    path : pathlib.Path
    """

    def __init__(self, path, why: str, hint: str = MANIFEST_HINT):
        self.path = Path(path)
        super().__init__(f"{self.path}: {why}" + (f". {hint}" if hint else ""))


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


def _array_field(field_: pa.Field) -> tuple[tuple[int, ...], np.dtype] | None:
    """``(shape, dtype)`` of one row of an array column (its shape stored in the field's metadata), else ``None``."""
    if not pa.types.is_fixed_size_list(field_.type):
        return None
    return tuple(json.loads(field_.metadata[b"shape"])), np.dtype(field_.type.value_type.to_pandas_dtype())


def column_to_numpy(table: pa.Table, name: str, out: np.ndarray | None = None) -> np.ndarray:
    """Column ``name`` of ``table`` as one array of shape ``(rows, ...)`` (an array column with the shape
    stored in its field's metadata), copied chunk by chunk into the result (``out``, if given, for an array
    column): no combined Arrow copy of a column of many shards (GBs for turn endgames' strategies).

    Parameters
    ----------
    table : pyarrow.Table
        A table written by this module (array columns are fixed-size lists with their row shape in the field's
        metadata).
    name : str
        The column to read.
    out : numpy.ndarray, optional
        For an array column: the array to fill, shape ``(table.num_rows,) + row shape``; ignored for a scalar
        column. Default: a new array.

    Returns
    -------
    numpy.ndarray
        Shape ``(table.num_rows,)`` for a scalar column (Arrow's conversion: e.g. int64, bool, object for
        strings), ``(table.num_rows,) + row shape`` for an array column, of the dtype of its values (e.g.
        float16 or float32). ``out`` itself when given for an array column.

    Raises
    ------
    KeyError
        If ``table`` has no column ``name``.
    ValueError
        If ``out`` does not have the shape of the column.
    """
    array = _array_field(table.schema.field(name))
    if array is None:
        return table.column(name).to_numpy()
    shape, dtype = array
    out = np.empty((table.num_rows,) + shape, dtype=dtype) if out is None else out
    at = 0
    for chunk in table.column(name).chunks:
        n = len(chunk)
        if n:
            out[at:at + n] = chunk.flatten().to_numpy(zero_copy_only=False).reshape((n,) + shape)
        at += n
    return out


def tables_to_numpy(tables: list[pa.Table]) -> dict[str, np.ndarray]:
    """The rows of ``tables`` (same schema), in order, as one array per column (:func:`column_to_numpy`).

    ``tables`` is emptied as it is read: each table is freed once its rows are copied, so the peak is the
    arrays plus one table, not the arrays plus every table (GBs for turn endgames' strategies).

    Parameters
    ----------
    tables : list of pyarrow.Table
        Tables with the schema of the first (e.g. the checked shards of a database); emptied in place.

    Returns
    -------
    dict of str to numpy.ndarray
        Column name -> the column's rows of all tables, in order, shape ``(total rows, ...)`` (see
        :func:`column_to_numpy` for the shapes and dtypes); keys in the order of the first table's schema.

    Raises
    ------
    ValueError
        If ``tables`` is empty.
    KeyError
        If a later table lacks a column of the first.
    """
    if not tables:
        raise ValueError("tables must hold at least one table")
    schema, n = tables[0].schema, sum(t.num_rows for t in tables)
    arrays = {f.name: a for f in schema if (a := _array_field(f)) is not None}
    out = {name: np.empty((n,) + shape, dtype=dtype) for name, (shape, dtype) in arrays.items()}
    pieces = {f.name: [] for f in schema if f.name not in arrays}
    at = 0
    while tables:
        t = tables.pop(0)
        for name in arrays:
            column_to_numpy(t, name, out=out[name][at:at + t.num_rows])
        for name, got in pieces.items():
            got.append(column_to_numpy(t, name))
        at += t.num_rows
        del t
        pa.default_memory_pool().release_unused()   # Arrow's allocator keeps freed pages
    for name, got in pieces.items():
        out[name] = np.concatenate(got)
    return {f.name: out[f.name] for f in schema}


def _check_ids(ids: np.ndarray, start: int, stop: int) -> None:
    """Raise :class:`_Bad` unless ``ids`` are exactly ``start .. stop-1``."""
    expected = np.arange(start, stop, dtype=np.int64)
    if ids.shape != expected.shape or not np.array_equal(ids, expected):
        bad = int(np.flatnonzero(ids != expected)[0]) if ids.shape == expected.shape else 0
        raise _Bad(f"game ids are not exactly {start}..{stop - 1} (row {bad} holds id {int(ids[bad])})")


def _check_table(table: pa.Table, start: int, stop: int, whole: bool = True) -> None:
    """Raise :class:`_Bad` unless ``table`` holds games ``start .. stop-1`` with no null and no NaN where verified
    (``whole=False``: a batch of a shard, whose row count and ids the caller checks once for the whole shard)."""
    if whole and table.num_rows != stop - start:
        raise _Bad(f"{table.num_rows} rows, {stop - start} expected")
    for name in _REQUIRED:
        if name not in table.column_names:
            raise _Bad(f"no {name!r} column")
    for name in table.column_names:
        col = table.column(name)
        if col.null_count:
            raise _Bad(f"{col.null_count} null value(s) in column {name!r}")
    ids = table.column("game_id").to_numpy()
    if whole:
        _check_ids(ids, start, stop)
    if not pa.types.is_boolean(table.schema.field("verified").type):
        raise _Bad(f"column 'verified' has type {table.schema.field('verified').type}, bool expected")
    verified = table.column("verified").to_numpy(zero_copy_only=False).astype(bool)
    for name in table.column_names:
        typ = table.schema.field(name).type
        values_type = typ.value_type if pa.types.is_fixed_size_list(typ) else typ
        if not pa.types.is_floating(values_type):
            continue
        at = 0
        for chunk in table.column(name).chunks:   # chunk by chunk, a few rows at a time: no copy of the column
            n = len(chunk)
            values = (chunk.flatten() if pa.types.is_fixed_size_list(typ) else chunk).to_numpy(zero_copy_only=False)
            values = values.reshape(n, -1)
            step = max(1, (1 << 24) // max(1, values.shape[1]))
            for a in range(0, n, step):
                nan_rows = np.isnan(values[a:a + step]).any(axis=1) & verified[at + a:at + a + step]
                if nan_rows.any():
                    game = int(ids[at + a + np.flatnonzero(nan_rows)[0]])
                    raise _Bad(f"NaN in column {name!r} of verified game {game}")
            at += n


def content_digest(table: pa.Table) -> str:
    """sha256 of a table's decoded contents: column names, Arrow types and values in a canonical byte form.

    It does not depend on the Parquet encoding (compression, page layout, pyarrow version), only on the
    values, so a shard re-encoded unchanged keeps its digest and a shard whose values were edited does not.

    Parameters
    ----------
    table : pyarrow.Table
        A shard's table (array columns as fixed-size lists).

    Returns
    -------
    str
        The sha256 as 64 hexadecimal digits (the ``content_sha256`` of a shard's own record,
        :data:`SHARD_METADATA`).
    """
    h = hashlib.sha256()
    for name in table.column_names:
        typ = table.schema.field(name).type
        # a list's child field is renamed by a Parquet round trip ("item" -> "element"): name only its value type
        text = (f"fixed_size_list<{typ.value_type}>[{typ.list_size}]" if pa.types.is_fixed_size_list(typ)
                else str(typ))
        h.update(f"{len(name)}:{name}:{text}:{table.num_rows}:".encode())
        col = table.column(name).combine_chunks()
        values = (col.flatten() if pa.types.is_fixed_size_list(typ) else col).to_numpy(zero_copy_only=False)
        if values.dtype.kind in "OUS":
            h.update(json.dumps([None if v is None else str(v) for v in values]).encode())
        else:
            h.update(np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")).view(np.uint8))  # no copy
    return h.hexdigest()


def columns_digest(columns: dict[str, np.ndarray]) -> str:
    """:func:`content_digest` of loaded columns (e.g. :meth:`rulelearn.data.database.SolutionDatabase.load`): the
    same games give the same digest, whatever shards they were read from.

    Parameters
    ----------
    columns : dict of str to numpy.ndarray
        Columns of equal length ``n``; array columns of shape ``(n, ...)``.

    Returns
    -------
    str
        The sha256 as 64 hexadecimal digits.
    """
    return content_digest(_to_table(columns))


def shard_record(table: pa.Table) -> dict | None:
    """The shard's own record (:data:`SHARD_METADATA`) from its schema metadata, or ``None`` (before format 3).

    Raises
    ------
    ValueError
        If the record is present but not a JSON object.
    """
    meta = table.metadata if isinstance(table, pa.Schema) else table.schema.metadata
    raw = (meta or {}).get(SHARD_METADATA)
    if raw is None:
        return None
    record = json.loads(raw)
    if not isinstance(record, dict):
        raise ValueError("the shard's own record is not a JSON object")
    return record


def encode_shard(columns: dict[str, np.ndarray], start: int, stop: int, identity: dict | None = None
                 ) -> ShardPayload:
    """Check a solved shard and encode it as Parquet bytes with their sha256 (runs in the worker).

    ``identity`` (family, family_params, config, seed) is stored in the shard's own record with its range and
    :func:`content_digest`, so that the shard can be checked without the manifest.

    Parameters
    ----------
    columns : dict of str to numpy.ndarray
        Column name -> one row per game, shape ``(stop - start, ...)`` (an array column keeps its row shape).
        Must hold ``game_id`` (exactly ``start .. stop-1``) and ``verified`` (bool); no null, and no NaN in a
        float column of a verified game.
    start : int
        Id of the shard's first game.
    stop : int
        One past the id of its last game.
    identity : dict, optional
        The database's ``family``, ``family_params``, ``config`` and ``seed`` (JSON-serialisable), stored in
        the shard's own record.

    Returns
    -------
    ShardPayload
        The range, the Parquet bytes (zstd), their sha256 and the number of games not verified.

    Raises
    ------
    RuntimeError
        If the shard fails a check: wrong row count or ids, a missing ``game_id`` or ``verified`` column, a
        ``verified`` column not of type bool, a null value, or a NaN in a verified game.
    """
    table = _to_table(columns)
    try:
        _check_table(table, start, stop)
    except _Bad as exc:
        raise RuntimeError(f"the game family returned a bad shard for games {start}..{stop - 1}: {exc}") from None
    own = {"format": FORMAT_VERSION, "start": int(start), "stop": int(stop), **(identity or {}),
           "content_sha256": content_digest(table)}
    table = table.replace_schema_metadata({SHARD_METADATA: json.dumps(own, sort_keys=True)})
    strings = [f.name for f in table.schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=strings or False, **_PARQUET_OPTIONS)
    data = sink.getvalue().to_pybytes()
    n_unverified = int(np.count_nonzero(~np.asarray(columns["verified"], dtype=bool)))
    return ShardPayload(int(start), int(stop), data, hashlib.sha256(data).hexdigest(), n_unverified)


def _rows_of(table: pa.Table, n_games: int | None, wanted: np.ndarray | None) -> pa.Table:
    """The rows of ``table`` whose ``game_id`` is ``< n_games`` and in ``wanted`` (sorted ids); the table itself
    when it has no other row, so that nothing is copied."""
    if n_games is None and wanted is None:
        return table
    ids = table.column("game_id").to_numpy()
    keep = np.ones(ids.size, dtype=bool)
    if n_games is not None:
        keep &= ids < n_games
    if wanted is not None:
        keep &= np.isin(ids, wanted)
    return table if keep.all() else table.filter(pa.array(keep))


#: Decoded bytes per batch when a shard is read (:func:`_read_checked`).
_BATCH_BYTES = 64 << 20


def _read_checked(pf: pq.ParquetFile, columns: list[str] | None, start: int, stop: int, n_games: int | None,
                  wanted: np.ndarray | None) -> pa.Table:
    """The rows of games ``start .. stop-1`` of ``pf`` (only those ``< n_games`` and in ``wanted``), each batch of
    rows checked (:func:`_check_table`) as it is decoded.

    Batches of about 64 MiB decoded: ``ParquetFile.read`` of a shard of 50 turn endgames (1 GB of float16
    strategies) peaks at about 5.5 GB, its batches at a few hundred MB, and only the chosen rows are kept.
    """
    md = pf.metadata
    per_row = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups)) / max(1, md.num_rows)
    batch = int(min(1 << 16, max(1, _BATCH_BYTES // max(1.0, per_row))))
    kept, schema, ids = [], None, []
    for b in pf.iter_batches(batch_size=batch, columns=columns):
        t = pa.Table.from_batches([b])
        schema = t.schema if schema is None else schema
        _check_table(t, start, stop, whole=False)
        ids.append(t.column("game_id").to_numpy())
        t = _rows_of(t, n_games, wanted)
        if t.num_rows:
            kept.append(t)
    ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
    if ids.size != stop - start:
        raise _Bad(f"{ids.size} rows, {stop - start} expected")
    _check_ids(ids, start, stop)
    return pa.concat_tables(kept) if kept else schema.empty_table()


def _read_shard(path: Path, start: int, stop: int, record: dict | None, columns: list[str] | None = None,
                full: bool = True, identity: dict | None = None, self_check: bool = False,
                n_games: int | None = None, wanted: np.ndarray | None = None) -> pa.Table:
    """Read and check one shard; raise :class:`_Bad` saying what is wrong.

    ``record`` is the manifest's record of the shard (size and sha256, compared first) or ``None``. The shard's
    own record (format 3 on) must name the range ``start .. stop-1`` and, when ``identity`` (the manifest's
    family, family_params, config and seed) is given, the same database. With ``self_check`` the shard must also
    match its own content checksum (all columns are read): the check of a shard the manifest does not vouch for.
    With ``full=False`` only the bytes, the footer, the row count and the ids are checked. With ``n_games`` or
    ``wanted`` (sorted ids) only the rows of games ``< n_games`` and in ``wanted`` are returned (all are checked).
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
    try:
        own = shard_record(pf.schema_arrow)
    except ValueError as exc:
        raise _Bad(f"unreadable own record ({exc})") from None
    if own is not None:
        if (own.get("start"), own.get("stop")) != (start, stop):
            raise _Bad(f"its own record says games {own.get('start')}..{own.get('stop')} (exclusive), not its name's")
        for key in _IDENTITY if identity is not None else ():
            if key in own and own[key] != identity.get(key):
                raise _Bad(f"written for another database ({key} {own[key]!r}, this database's {identity.get(key)!r})")
    if self_check:
        if own is None or "content_sha256" not in own:
            raise _Bad("no record in the manifest and no checksum of its own (written before format 3): it cannot "
                       "be checked")
        columns, full = None, True
    names = pf.schema_arrow.names
    if not full:
        columns = ["game_id"]
    if columns is not None:
        lacking = [c for c in columns if c not in names]
        if lacking:
            raise _Bad(f"no column(s) {lacking}")
    if full and not self_check:
        try:
            return _read_checked(pf, columns, start, stop, n_games, wanted).replace_schema_metadata(None)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise _Bad(f"unreadable data ({exc})") from None
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
    if self_check and content_digest(table) != own["content_sha256"]:
        raise _Bad("content checksum mismatch (its own record): its values changed after it was written")
    return _rows_of(table, n_games, wanted).replace_schema_metadata(None)


def _file_record(path: Path, start: int, stop: int) -> dict:
    """The manifest's record of a shard file: rows, bytes and sha256."""
    data = path.read_bytes()
    return {"rows": stop - start, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temporary file beside it, synced, renamed over it.

    The temporary file is ``<path>.tmp`` in the same directory; it is overwritten if it exists, and left
    behind if the write fails. An existing file at ``path`` is replaced.

    Parameters
    ----------
    path : pathlib.Path
        The file to write (a ``Path``: a ``str`` has no ``with_name``); its directory must exist.
    data : bytes
        The whole content of the file.

    Raises
    ------
    OSError
        If the temporary file cannot be written or synced, or cannot be renamed over ``path`` (``path`` is
        then unchanged).
    """
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
        """The manifest (format, family, config, seed, shard checksums), or ``None`` when there is none.

        Reads ``_manifest.json``, or a format-1 ``manifest.json``.

        Raises
        ------
        CorruptManifestError
            If the manifest cannot be read, is not JSON (e.g. truncated), or lacks its keys.
        """
        for name in (MANIFEST, _LEGACY_MANIFEST):
            f = self.path / name
            if not f.exists():
                continue
            try:
                manifest = json.loads(f.read_bytes().decode("utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise CorruptManifestError(f, f"unreadable manifest ({exc})") from None
            lacking = [k for k in ("format", "family", "seed") if not isinstance(manifest, dict) or k not in manifest]
            if lacking or not isinstance(manifest.get("shards", {}), dict):
                raise CorruptManifestError(f, f"not a solution-database manifest (no {lacking or ['shards']})")
            return manifest
        return None

    def identity(self, manifest: dict | None = None) -> dict | None:
        """The manifest's family, family_params, config and seed (what each shard's own record must match)."""
        m = self.manifest if manifest is None else manifest
        if m is None:
            return None
        return {"family": m.get("family"), "family_params": m.get("family_params", {}), "config": m.get("config"),
                "seed": m.get("seed")}

    def require_manifest(self) -> dict:
        """The manifest; raise when there is none.

        Raises
        ------
        CorruptManifestError
            If the directory holds shards but no manifest (their checksums are gone: nothing can be trusted), or
            the manifest is unreadable.
        FileNotFoundError
            If the directory holds neither.
        """
        m = self.manifest
        if m is not None:
            return m
        if self.shards() or list(self.path.glob("games-*.parquet")):
            raise CorruptManifestError(self.path / MANIFEST, "missing: the shards' checksums are gone, so no shard "
                                       "is read unchecked")
        raise FileNotFoundError(f"{self.path} is not a solution database (no {MANIFEST} and no shard)")

    def foreign_files(self) -> list[str]:
        """Parquet files in the directory (or below it) that are not shards: a Parquet reader of the directory
        (``pandas.read_parquet(path)``) would read them with the shards. Relative paths, sorted."""
        out = []
        for f in self.path.rglob("*.parquet"):
            rel = f.relative_to(self.path)
            if any(part.startswith(("_", ".")) for part in rel.parts):
                continue  # skipped by Parquet dataset readers
            if len(rel.parts) > 1 or not rel.name.startswith("games-"):
                out.append(str(rel))
        return sorted(out)

    def shards(self) -> list[tuple[int, int, Path]]:
        """Shard files as ``(first_id, stop_id, path)``, sorted by first id (from the names; unchecked)."""
        out = []
        for f in self.path.glob("games-*.parquet"):
            m = _SHARD.match(f.name)
            if m and int(m.group(1)) < int(m.group(2)):
                out.append((int(m.group(1)), int(m.group(2)), f))
        return sorted(out)

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
            manifest = self.require_manifest() if listed else (self.manifest or {})
        records = manifest.get("shards", {})
        checksummed = manifest.get("format", 1) >= 2
        problems, shards = {}, []
        for name in self.foreign_files():
            problems[name] = ("not a shard of this database; Parquet readers of the directory (pandas.read_parquet) "
                              "would read it with the shards: move it out of the directory")
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

    def _read_tables(self, n_games: int | None, columns: list[str] | None, keep: bool = True,
                     ids: np.ndarray | None = None) -> tuple[list[pa.Table], list[Path]]:
        """Checked tables and paths of the shards holding ids ``< n_games`` (and, with ``ids``, one of those ids);
        raise :class:`CorruptShardError` if any is bad. With ``keep=False`` the shards are only checked and no table
        is returned.

        Each kept table holds only the rows of the ids asked for (``< n_games``, in ``ids``), cut as soon as its
        shard is read and checked: 100 held-out turn endgames spread over every shard of 50 then hold 100
        strategies in memory, not the whole database's (22 MB each).
        """
        manifest = self.require_manifest()
        shards, records, problems, _ = self._scan(manifest)
        identity = self.identity(manifest)
        wanted = None if ids is None else np.unique(np.asarray(ids, dtype=np.int64))

        def holds(a: int, b: int) -> bool:
            if n_games is not None and a >= n_games:
                return False
            return wanted is None or bool(np.searchsorted(wanted, b) > np.searchsorted(wanted, a))

        def relevant(name: str) -> bool:
            m = _SHARD.match(name)
            return m is None or holds(int(m.group(1)), int(m.group(2)))

        problems = {k: v for k, v in problems.items() if relevant(k)}
        shards = [s for s in shards if holds(s[0], s[1])]
        if not shards and not problems:
            raise FileNotFoundError(f"no solved games in {self.path}")
        tables, schema, first = [], None, None
        for a, b, f in shards:
            if f.name in problems:
                continue
            try:
                table = _read_shard(f, a, b, records.get(f.name), columns, identity=identity,
                                    n_games=n_games if keep else None, wanted=wanted if keep else None)
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
                pa.default_memory_pool().release_unused()   # the shard's decoded batches: GBs for turn endgames
        if problems:
            raise CorruptShardError(self.path, problems, REPAIR_HINT)
        return tables, [f for _, _, f in shards]

    def _write_manifest(self, manifest: dict) -> None:
        write_atomic(self.path / MANIFEST, json.dumps(manifest, indent=1).encode())

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

    def _check_stored(self, manifest: dict, legacy: bool, repair: bool = False) -> tuple[dict[str, str], list[str]]:
        """Check the stored shards before extending the database; returns ``(problems, adopted)``.

        Checks sizes and checksums, footers, row counts and ids (the other checks were made by the worker before
        the checksum was taken). With ``legacy`` (a format-1 database, no checksums anywhere), unrecorded shards
        are checked in full and their checksums recorded. With ``repair``, a shard that the manifest does not
        vouch for (unrecorded, or not matching its record) is checked against its own record and content
        checksum instead, and recorded again if it passes (``adopted``); the others stay problems.
        """
        shards, records, problems, _ = self._scan(dict(manifest, format=1 if legacy else FORMAT_VERSION))
        identity = self.identity(manifest)
        adopted = []
        for a, b, f in shards:
            name = f.name
            record = records.get(name)
            if name in problems and not (repair and record is None and problems[name].startswith("not recorded")):
                continue
            if record is not None or legacy:
                try:
                    _read_shard(f, a, b, record, full=record is None, identity=identity)
                except _Bad as exc:
                    problems[name] = str(exc)
                else:
                    if record is None:  # format 1: adopt the checked shard
                        records[name] = _file_record(f, a, b)
                    continue
            if not repair:
                continue
            try:  # the manifest does not vouch for this shard: its own record decides
                _read_shard(f, a, b, None, identity=identity, self_check=True)
            except _Bad as own:
                problems[name] = f"{problems[name]}; {own}" if record is not None else str(own)
                continue
            problems.pop(name, None)
            records[name] = _file_record(f, a, b)
            adopted.append(name)
        # an adopted shard must not overlap a shard that is kept
        spans = sorted((a, b, f.name) for a, b, f in shards if f.name not in problems)
        for a, b, name in spans:
            clash = next((other for c, d, other in spans if other != name and c < b and a < d
                          and other not in problems and (other not in adopted or other < name)), None)
            if name in adopted and clash is not None:
                adopted.remove(name)
                records.pop(name, None)
                problems[name] = f"overlaps {clash}"
        return problems, sorted(adopted)

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


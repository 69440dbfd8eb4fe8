"""The solution database: determinism, verification, resume after a kill, manifest checks, shard integrity."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import betgame
from games.betgame.family import BetGameFamily, sample_game
from rulelearn.cli import main
from rulelearn.data.database import (
    FORMAT_VERSION,
    MANIFEST,
    CorruptManifestError,
    CorruptShardError,
    SolutionDatabase,
    shard_name,
)
from rulelearn.data.distributions import pmf_to_cdf
from rulelearn.data.executors import PoolExecutor, SerialExecutor, make_executor

ARRAYS = ("pmf1", "pmf2", "probs", "strategy", "call_probability", "value")


def test_generate_load_and_reuse(tmp_path):
    db = SolutionDatabase(tmp_path / "db")
    family = BetGameFamily()
    report = db.generate(family, 30, seed=3, shard_size=8, workers=1, progress=False)
    assert report.n_solved == 30 and report.n_unverified == 0 and report.backend == "serial"
    assert [(a, b) for a, b, _ in db.shards()] == [(0, 8), (8, 16), (16, 24), (24, 30)]
    cols = db.load()
    assert np.array_equal(cols["game_id"], np.arange(30))
    assert cols["strategy"].shape == (30, 10, 31) and cols["probs"].shape == (30, 10, 10)
    assert np.all(cols["verified"]) and np.all(cols["nash_conv"] <= 1e-9) and set(cols["status"]) == {"Optimal"}
    # stored games are the stream's games, and their solutions are equilibria of them
    x1, x2, probs = sample_game(3, 17)
    assert np.array_equal(cols["pmf1"][17], x1) and np.array_equal(cols["probs"][17], probs)
    assert np.allclose(cols["cdf2"][17], pmf_to_cdf(probs.sum(axis=0)))
    conv = betgame.nash_conv(cols["probs"], cols["strategy"], cols["call_probability"])
    assert np.all(conv <= 1e-9)
    assert np.allclose(betgame.expected_payoff(cols["probs"], cols["strategy"], cols["call_probability"]),
                       cols["value"], atol=1e-9)
    # reuse: nothing to do; extension: only the new ids
    assert db.generate(family, 30, seed=3, workers=1, progress=False).n_solved == 0
    assert db.generate(family, 45, seed=3, shard_size=8, workers=1, progress=False).n_solved == 15
    assert np.array_equal(db.load()["game_id"], np.arange(45))
    assert len(db.load(n_games=20)["game_id"]) == 20
    # chosen ids: only the shards holding them are read, the rows are those games, in id order
    some = db.load(ids=[33, 2, 17, 3], columns=["strategy"])
    assert list(some["game_id"]) == [2, 3, 17, 33]
    assert np.array_equal(some["strategy"], db.load()["strategy"][[2, 3, 17, 33]])
    assert "probs" not in some and "probs" in db.column_names()
    # each shard read is cut to the chosen rows at once (a turn database's strategies are 22 MB a game)
    tables, paths = db._read_tables(20, ["game_id", "verified", "strategy"], ids=np.array([2, 3, 17, 33]))
    assert [t.num_rows for t in tables] == [2, 1] and len(paths) == 2
    assert [t.column("game_id").to_pylist() for t in tables] == [[2, 3], [17]]
    assert sum(t.num_rows for t in db._read_tables(20, ["game_id", "verified"])[0]) == 20
    bad = tmp_path / "db" / db.shards()[-1][2].name  # a corrupt shard no chosen id lives in is not read
    bad.write_bytes(b"junk")
    assert list(db.load(ids=[0, 9])["game_id"]) == [0, 9]
    with pytest.raises(CorruptShardError):
        db.load(ids=[44])
    with pytest.raises(ValueError, match="ids"):
        db.load(ids=[])
    db.generate(family, 45, seed=3, shard_size=8, workers=1, progress=False, repair=True)
    df = db.to_pandas()
    assert len(df) == 45 and list(df["game_id"]) == list(range(45))
    # every shard's size and sha256 are in the manifest; verify() checks them all
    records = db.manifest["shards"]
    assert sorted(records) == sorted(f.name for _, _, f in db.shards())
    for _, _, f in db.shards():
        assert records[f.name]["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    check = db.verify()
    assert check.ok and check.n_games == 45 and check.n_shards == 6 and check.n_checksummed == 6


def test_directory_is_a_parquet_dataset(tmp_path):
    """pandas and pyarrow read the database directory directly: the manifest and temporaries are skipped."""
    db = SolutionDatabase(tmp_path)
    db.generate(BetGameFamily(), 12, seed=1, shard_size=5, workers=1, progress=False)
    (tmp_path / ".games-000000012-000000020.parquet.tmp").write_bytes(b"a shard being written")
    df = pd.read_parquet(tmp_path).sort_values("game_id")
    assert list(df["game_id"]) == list(range(12))
    ref = db.to_pandas()
    assert np.array_equal(np.stack(df["strategy"].to_numpy()), np.stack(ref["strategy"].to_numpy()))
    assert np.array_equal(db.load(verified_only=False)["value"], ref["value"].to_numpy())


def test_manifest_mismatch_is_refused(tmp_path):
    db = SolutionDatabase(tmp_path)
    db.generate(BetGameFamily(), 4, seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="seed"):
        db.generate(BetGameFamily(), 4, seed=2, workers=1, progress=False)
    with pytest.raises(ValueError, match="config"):
        db.generate(BetGameFamily(n_cards=5), 4, seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="n_games"):
        db.generate(BetGameFamily(), 0, seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="shard_size"):
        db.generate(BetGameFamily(), 4, seed=1, shard_size=0, workers=1, progress=False)
    with pytest.raises(ValueError, match="workers"):
        db.generate(BetGameFamily(), 4, seed=1, workers=0, progress=False)
    with pytest.raises(TypeError, match="scheduler"):
        db.generate(BetGameFamily(), 4, seed=1, scheduler=8786, progress=False)
    with pytest.raises(FileNotFoundError):
        SolutionDatabase(tmp_path / "empty").load()
    with pytest.raises(FileNotFoundError):
        SolutionDatabase(tmp_path / "empty").verify()


def test_make_executor_choices():
    assert isinstance(make_executor(1), SerialExecutor)
    assert isinstance(make_executor(4, n_tasks=1), SerialExecutor)
    pool = make_executor(3, n_tasks=2)
    assert isinstance(pool, PoolExecutor) and pool.workers == 2
    with pytest.raises(ValueError, match="workers"):
        make_executor(-1)
    with pytest.raises(ValueError, match="workers"):
        PoolExecutor(1)
    with pytest.raises(ValueError, match="scheduler"):
        make_executor(scheduler="  ")


def test_missing_dask_is_a_clear_error(monkeypatch, small_db, tmp_path):
    """Dask is optional: without it the Dask paths say which extra to install (the default paths still work)."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r"rulelearn\[dask\]"):
        SolutionDatabase(tmp_path).generate(BetGameFamily(), 3, scheduler="tcp://127.0.0.1:8786", progress=False)
    with pytest.raises(ImportError, match=r"rulelearn\[dask\]"):
        SolutionDatabase(small_db).to_dask()
    assert len(SolutionDatabase(small_db).load()["game_id"]) > 0


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    path = tmp_path / "db"
    n, shard = 2000, 25
    script = textwrap.dedent(f"""
        from games.betgame.family import BetGameFamily
        from rulelearn.data.database import SolutionDatabase
        if __name__ == "__main__":
            SolutionDatabase({str(path)!r}).generate(BetGameFamily(), {n}, seed=5, shard_size={shard},
                                                     workers=2, progress=False)
    """)
    runner = tmp_path / "run.py"
    runner.write_text(script)
    proc = subprocess.Popen([sys.executable, str(runner)], start_new_session=True)
    db = SolutionDatabase(path)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None and len(db.shards()) < 3:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(db)
    assert 0 < partial < n, "the run must be killed mid-way for this test to mean anything"
    assert db.verify().ok  # a killed run leaves only complete, recorded shards
    (path / "games-000099999-000100000.parquet.tmp").write_bytes(b"half-written")  # format-1 temporary
    (path / ".games-000099998-000099999.parquet.tmp").write_bytes(b"half-written")
    report = db.generate(BetGameFamily(), n, seed=5, shard_size=shard, workers=2, progress=False)
    assert report.n_solved == n - partial and report.backend == "processes"
    assert not list(path.glob("*.tmp"))
    cols = db.load()
    assert np.array_equal(cols["game_id"], np.arange(n))  # nothing lost, nothing twice
    # identical to a clean run with another shard size in one process
    clean = SolutionDatabase(tmp_path / "clean")
    clean.generate(BetGameFamily(), 200, seed=5, shard_size=64, workers=1, progress=False)
    ref = clean.load()
    for key in ARRAYS:
        assert np.allclose(cols[key][:200], ref[key], atol=1e-12), key


# ------------------------------------------------------------------------------------------------ integrity
@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    """A sound database of 14 games in shards of 5 (read-only; copy before damaging)."""
    path = tmp_path_factory.mktemp("small") / "db"
    SolutionDatabase(path).generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False)
    return path


def _copy(src: Path, dst: Path) -> SolutionDatabase:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".lock"))
    return SolutionDatabase(dst)


def _rewrite(db: SolutionDatabase, name: str, table: pa.Table) -> None:
    """Replace a shard *and* its manifest record, as a buggy writer would: the checksum then matches."""
    pq.write_table(table, db.path / name)
    data = (db.path / name).read_bytes()
    m = json.loads((db.path / MANIFEST).read_text())
    m["shards"][name] = {"rows": table.num_rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (db.path / MANIFEST).write_text(json.dumps(m))


def _problems(db: SolutionDatabase) -> dict:
    with pytest.raises(CorruptShardError) as info:
        db.load()
    err = info.value
    assert isinstance(err, ValueError)
    for name in err.problems:
        assert name in str(err)
    assert db.verify(strict=False).problems == err.problems
    with pytest.raises(CorruptShardError):
        db.verify()
    return err.problems


def test_truncated_and_altered_shards_are_named(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    a, c = shard_name(0, 5), shard_name(10, 14)
    data = (db.path / a).read_bytes()
    (db.path / a).write_bytes(data[: len(data) // 2])
    flipped = bytearray((db.path / c).read_bytes())
    flipped[len(flipped) // 3] ^= 0xFF
    (db.path / c).write_bytes(bytes(flipped))
    problems = _problems(db)
    assert set(problems) == {a, c}
    assert problems[a].startswith("truncated") and "sha256 mismatch" in problems[c]
    # only the shards read are checked: games 5..9 are sound, but n_games=10 also needs the truncated shard
    with pytest.raises(CorruptShardError, match=a):
        db.load(n_games=10)
    # generate refuses and names them, on the API and on the command line
    with pytest.raises(CorruptShardError, match="repair"):
        db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False)


def test_repair_re_solves_exactly_the_bad_ranges(small_db, tmp_path, capsys):
    db = _copy(small_db, tmp_path / "db")
    ref = SolutionDatabase(small_db).load()
    bad = db.path / shard_name(5, 10)
    bad.write_bytes(bad.read_bytes()[:-9])  # the footer is gone
    assert main(["generate", "--games", "14", "--seed", "11", "--shard-size", "5", "--db", str(db.path),
                 "--quiet", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert shard_name(5, 10) in err and "truncated" in err and "--repair" in err
    assert main(["generate", "--games", "14", "--seed", "11", "--shard-size", "5", "--db", str(db.path),
                 "--quiet", "--workers", "1", "--repair"]) == 0
    out = capsys.readouterr().out
    assert "repaired 1 bad shard" in out and shard_name(5, 10) in out and "solved 5 " in out
    cols = db.load()
    assert np.array_equal(cols["game_id"], np.arange(14))
    for key in ARRAYS:
        assert np.allclose(cols[key], ref[key], atol=1e-12), key
    assert db.verify().ok


def test_missing_unrecorded_and_overlapping_shards_are_named(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    (db.path / shard_name(0, 5)).unlink()  # recorded, gone
    shutil.copy(db.path / shard_name(5, 10), db.path / shard_name(8, 13))  # unrecorded, overlapping
    (db.path / "games-7-9.parquet").write_bytes(b"")  # not a shard name
    problems = _problems(db)
    assert set(problems) == {shard_name(0, 5), shard_name(8, 13), "games-7-9.parquet"}
    assert "missing" in problems[shard_name(0, 5)] and "not recorded" in problems[shard_name(8, 13)]
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert set(report.repaired) == set(problems) and report.n_solved == 5
    assert np.array_equal(db.load()["game_id"], np.arange(14)) and db.verify().ok


def test_structural_checks_hold_even_when_the_checksum_matches(small_db, tmp_path):
    """Row count, ids, NaN in a verified game and nulls are checked on their own, not only via the checksum."""
    name = shard_name(5, 10)
    table = pq.read_table(small_db / name)
    ids = table.column("game_id").to_numpy().copy()
    ids[2] = 99
    value = table.column("value").to_numpy().copy()
    value[3] = np.nan
    cases = {
        "4 rows, 5 expected": table.slice(0, 4),
        "game ids are not exactly 5..9 (row 2 holds id 99)": table.set_column(0, "game_id", pa.array(ids)),
        "NaN in column 'value' of verified game 8": table.set_column(
            table.schema.get_field_index("value"), "value", pa.array(value)),
        "1 null value(s) in column 'iterations'": table.set_column(
            table.schema.get_field_index("iterations"), "iterations",
            pa.array([1, None, 3, 4, 5], type=pa.int64())),
        "no 'verified' column": table.drop_columns(["verified"]),
    }
    for k, (why, bad) in enumerate(cases.items()):
        db = _copy(small_db, tmp_path / f"db{k}")
        _rewrite(db, name, bad)
        assert _problems(db) == {name: why}
    # an unverified game may hold NaN (a failed solve is stored, flagged)
    db = _copy(small_db, tmp_path / "unverified")
    flags = table.column("verified").to_numpy(zero_copy_only=False).copy()
    flags[3] = False
    _rewrite(db, name, table.set_column(table.schema.get_field_index("value"), "value", pa.array(value))
             .set_column(table.schema.get_field_index("verified"), "verified", pa.array(flags)))
    check = db.verify()
    assert check.ok and check.n_unverified == 1
    assert 8 not in db.load()["game_id"] and np.isnan(db.load(verified_only=False)["value"][8])


@pytest.mark.parametrize("batch_bytes", [1, 3_000])
def test_shards_read_in_batches_are_checked_and_cut_whole(small_db, tmp_path, monkeypatch, batch_bytes):
    """A shard is decoded in batches of rows (rulelearn.data.shards._read_checked: a shard of turn endgames is GBs
    decoded at once): with one game a batch or a few, every column read is the same as in one piece, the rows
    asked for are the same, and a fault in any batch is reported as for the whole shard."""
    from rulelearn.data import shards

    whole = SolutionDatabase(small_db).load()
    monkeypatch.setattr(shards, "_BATCH_BYTES", batch_bytes)
    db = SolutionDatabase(small_db)
    cols = db.load()
    assert cols.keys() == whole.keys() and all(np.array_equal(cols[k], whole[k]) for k in cols)
    some = db.load(ids=[13, 0, 6, 7], columns=["strategy", "value"])
    assert list(some["game_id"]) == [0, 6, 7, 13]
    assert np.array_equal(some["strategy"], whole["strategy"][[0, 6, 7, 13]])
    name = shard_name(5, 10)
    table = pq.read_table(small_db / name)
    ids = table.column("game_id").to_numpy().copy()
    ids[4] = 99
    value = table.column("value").to_numpy().copy()
    value[4] = np.nan
    cases = {"game ids are not exactly 5..9 (row 4 holds id 99)": table.set_column(0, "game_id", pa.array(ids)),
             "NaN in column 'value' of verified game 9": table.set_column(
                 table.schema.get_field_index("value"), "value", pa.array(value)),
             "4 rows, 5 expected": table.slice(0, 4)}
    for k, (why, bad) in enumerate(cases.items()):
        broken = _copy(small_db, tmp_path / f"db{k}")
        _rewrite(broken, name, bad)
        assert _problems(broken) == {name: why}
        with pytest.raises(CorruptShardError, match="not exactly|NaN|rows"):   # not read only for other games
            broken.load(ids=[5])


def test_tables_to_numpy_frees_each_table_and_keeps_the_rows(small_db):
    """load's conversion: the shards' tables become one array per column in order, each table dropped from the list
    once copied (the peak is the arrays plus one shard), as the column-by-column conversion of their concatenation."""
    from rulelearn.data.shards import column_to_numpy, tables_to_numpy

    tables = [pq.read_table(f) for _, _, f in SolutionDatabase(small_db).shards()]
    joined = pa.concat_tables(tables)
    expected = {name: column_to_numpy(joined, name) for name in joined.column_names}
    out = tables_to_numpy(tables)
    assert tables == [] and list(out) == list(expected)
    for name, v in expected.items():
        assert out[name].dtype == v.dtype and out[name].shape == v.shape and np.array_equal(out[name], v), name
    with pytest.raises(ValueError, match="tables"):
        tables_to_numpy([])


@dataclass(frozen=True)
class _BrokenFamily(BetGameFamily):
    """Returns shifted game ids or NaN in a verified game: the worker must refuse to encode the shard."""

    fault: str = "ids"

    def solve_range(self, seed, start, stop):
        cols = super().solve_range(seed, start, stop)
        if self.fault == "ids":
            cols["game_id"] = cols["game_id"] + 1
        else:
            cols["strategy"][1, 0, 0] = np.nan
        return cols


@pytest.mark.parametrize("fault, message", [("ids", "game ids"), ("nan", "NaN in column 'strategy'")])
def test_bad_shards_from_a_family_are_never_written(tmp_path, fault, message):
    db = SolutionDatabase(tmp_path)
    with pytest.raises(RuntimeError, match=message):
        db.generate(_BrokenFamily(fault=fault), 3, workers=1, progress=False)
    assert db.shards() == [] and not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_format_1_database_is_read_then_upgraded(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    m = json.loads((db.path / MANIFEST).read_text())
    (db.path / MANIFEST).unlink()
    legacy = {k: v for k, v in m.items() if k != "shards"} | {"format": 1}
    (db.path / "manifest.json").write_text(json.dumps(legacy))
    assert db.manifest["format"] == 1
    check = db.verify()
    assert check.ok and check.n_checksummed == 0 and check.n_games == 14
    report = db.generate(BetGameFamily(), 20, seed=11, shard_size=5, workers=1, progress=False)
    assert report.n_solved == 6
    assert not (db.path / "manifest.json").exists() and db.manifest["format"] == FORMAT_VERSION
    assert db.manifest["shards"][shard_name(0, 5)] == m["shards"][shard_name(0, 5)]
    assert db.verify().n_checksummed == 5
    # a format-1 shard with a broken footer is still detected (no checksum to compare)
    db2 = _copy(small_db, tmp_path / "db2")
    (db2.path / MANIFEST).unlink()
    (db2.path / "manifest.json").write_text(json.dumps(legacy))
    (db2.path / shard_name(10, 14)).write_bytes(b"PAR1" + b"\0" * 50)
    assert "unreadable Parquet footer" in _problems(db2)[shard_name(10, 14)]


def test_shard_recorded_but_not_renamed_is_rolled_forward(small_db, tmp_path):
    """A run killed between the manifest record and the rename: readers see the shard as in flight; the next
    generate renames it into place instead of solving it again."""
    db = _copy(small_db, tmp_path / "db")
    name = shard_name(10, 14)
    os.replace(db.path / name, db.path / f".{name}.tmp")
    assert len(db.load()["game_id"]) == 10  # in flight: not part of this snapshot, not an error
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False)
    assert report.n_solved == 0 and (db.path / name).exists() and db.verify().ok
    # a temporary whose bytes do not match the record is discarded and its games are solved again
    flipped = bytearray((db.path / name).read_bytes())
    flipped[100] ^= 1
    (db.path / name).unlink()
    (db.path / f".{name}.tmp").write_bytes(bytes(flipped))
    assert db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False).n_solved == 4
    assert db.verify().ok


@pytest.fixture(scope="module")
def reference_bytes(small_db):
    return {f.name: f.read_bytes() for _, _, f in SolutionDatabase(small_db).shards()}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_truncation_or_byte_change_is_detected(small_db, reference_bytes, data):
    """Property: truncating a shard anywhere, or changing any one byte, is reported for exactly that shard."""
    name = data.draw(st.sampled_from(sorted(reference_bytes)))
    original = reference_bytes[name]
    if data.draw(st.booleans()):
        damaged = original[: data.draw(st.integers(0, len(original) - 1))]
    else:
        pos = data.draw(st.integers(0, len(original) - 1))
        damaged = original[:pos] + bytes([original[pos] ^ data.draw(st.integers(1, 255))]) + original[pos + 1:]
    with tempfile.TemporaryDirectory() as tmp:
        db = _copy(small_db, Path(tmp) / "db")
        (db.path / name).write_bytes(damaged)
        problems = _problems(db)
        assert list(problems) == [name]
        assert problems[name].startswith("truncated") or problems[name].startswith("sha256 mismatch")


# ------------------------------------------------------------------------------------- manifest and recovery
def _edit_values(path: Path) -> None:
    """Change one stored value and write the shard back, keeping its metadata (as a careless edit would)."""
    table = pq.read_table(path)
    value = table.column("value").to_numpy().copy()
    value[1] += 0.25
    pq.write_table(table.set_column(table.schema.get_field_index("value"), "value", pa.array(value)), path)


def test_a_missing_manifest_is_named_and_nothing_is_read_unchecked(small_db, tmp_path, capsys):
    db = _copy(small_db, tmp_path / "db")
    (db.path / MANIFEST).unlink()
    _edit_values(db.path / shard_name(5, 10))  # would load silently if shards were trusted without checksums
    for call in (db.load, db.verify, db.to_pandas, db.family):
        with pytest.raises(CorruptManifestError, match=f"{MANIFEST}: missing") as info:
            call()
        assert "--repair" in str(info.value)
    with pytest.raises(CorruptManifestError, match="missing while 3 shard"):
        db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False)
    args = ["generate", "--games", "14", "--seed", "11", "--shard-size", "5", "--db", str(db.path), "--quiet",
            "--workers", "1"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert MANIFEST in err and "--repair" in err
    # repair rebuilds the manifest: the intact shards are checked against their own checksums and kept, the
    # edited one is solved again
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert report.manifest_rebuilt and report.adopted == (shard_name(0, 5), shard_name(10, 14))
    assert report.repaired == (shard_name(5, 10),) and report.n_solved == 5
    ref = SolutionDatabase(small_db).load()
    cols = db.load()
    for key in ARRAYS:
        assert np.array_equal(cols[key], ref[key]), key
    assert db.verify().ok and db.verify().n_checksummed == 3


def test_a_broken_manifest_is_named_and_set_aside_by_repair(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    text = (db.path / MANIFEST).read_text()
    (db.path / MANIFEST).write_text(text[: len(text) // 2])  # truncated
    with pytest.raises(CorruptManifestError, match=f"{MANIFEST}: unreadable manifest"):
        db.load()
    with pytest.raises(CorruptManifestError, match=MANIFEST):
        db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False)
    (db.path / MANIFEST).write_text("[1, 2]")
    with pytest.raises(CorruptManifestError, match="not a solution-database manifest"):
        db.verify()
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert report.n_solved == 0 and len(report.adopted) == 3 and report.manifest_rebuilt
    assert (db.path / (MANIFEST + ".broken")).read_text() == "[1, 2]"
    assert db.verify().ok


def test_repair_checks_unrecorded_shards_instead_of_deleting_them(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    m = json.loads((db.path / MANIFEST).read_text())
    del m["shards"][shard_name(10, 14)]  # the record is lost, the shard is intact
    (db.path / MANIFEST).write_text(json.dumps(m))
    assert "not recorded" in _problems(db)[shard_name(10, 14)]
    mtime = (db.path / shard_name(10, 14)).stat().st_mtime_ns
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert report.adopted == (shard_name(10, 14),) and report.repaired == () and report.n_solved == 0
    assert (db.path / shard_name(10, 14)).stat().st_mtime_ns == mtime and db.verify().ok


def test_a_shard_of_another_database_is_not_adopted(small_db, tmp_path):
    other = tmp_path / "other"
    SolutionDatabase(other).generate(BetGameFamily(), 5, seed=12, shard_size=5, workers=1, progress=False)
    db = _copy(small_db, tmp_path / "db")
    shutil.copy(other / shard_name(0, 5), db.path / shard_name(0, 5))
    assert shard_name(0, 5) in _problems(db)
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert report.repaired == (shard_name(0, 5),) and report.n_solved == 5
    assert "written for another database (seed 12" in report.problems[shard_name(0, 5)]
    assert np.array_equal(db.load()["value"], SolutionDatabase(small_db).load()["value"])


def test_shards_written_before_format_3_stay_loadable(small_db, tmp_path):
    """A format-2 shard (no record of its own) is checked by the manifest's sha256; without the manifest it cannot
    be checked, and repair says so and solves it again."""
    db = _copy(small_db, tmp_path / "db")
    name = shard_name(5, 10)
    _rewrite(db, name, pq.read_table(db.path / name).replace_schema_metadata(None))
    ref = SolutionDatabase(small_db).load()
    assert np.array_equal(db.load()["value"], ref["value"]) and db.verify().ok
    (db.path / MANIFEST).unlink()
    report = db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=True)
    assert report.repaired == (name,) and len(report.adopted) == 2
    assert np.array_equal(db.load()["value"], ref["value"])


def test_foreign_parquet_files_are_reported_and_never_deleted(small_db, tmp_path):
    db = _copy(small_db, tmp_path / "db")
    pd.DataFrame({"x": [1, 2]}).to_parquet(db.path / "notes.parquet")
    (db.path / "part").mkdir()
    pd.DataFrame({"x": [3]}).to_parquet(db.path / "part" / "more.parquet")
    pd.DataFrame({"x": [4]}).to_parquet(db.path / "_scratch.parquet")  # skipped by Parquet readers: ignored
    problems = _problems(db)
    assert set(problems) == {"notes.parquet", "part/more.parquet"}
    assert "pandas.read_parquet" in problems["notes.parquet"]
    for repair in (False, True):
        with pytest.raises(CorruptShardError, match="never deletes"):
            db.generate(BetGameFamily(), 14, seed=11, shard_size=5, workers=1, progress=False, repair=repair)
    assert (db.path / "notes.parquet").exists() and (db.path / "part" / "more.parquet").exists()


def test_each_shard_carries_its_own_record(small_db):
    from rulelearn.data.shards import SHARD_METADATA, content_digest

    db = SolutionDatabase(small_db)
    for a, b, f in db.shards():
        table = pq.read_table(f)
        own = json.loads(table.schema.metadata[SHARD_METADATA])
        assert (own["start"], own["stop"], own["seed"], own["family"]) == (a, b, 11, "betgame")
        assert own["config"] == db.manifest["config"] and own["format"] == FORMAT_VERSION
        assert own["content_sha256"] == content_digest(table.replace_schema_metadata(None))


def test_loaded_columns_have_the_digest_of_their_shard(small_db):
    """columns_digest of a shard's loaded columns is the digest its own record carries; another value, another
    digest."""
    from rulelearn.data.shards import SHARD_METADATA, columns_digest

    db = SolutionDatabase(small_db)
    a, b, f = db.shards()[0]
    own = json.loads(pq.read_table(f).schema.metadata[SHARD_METADATA])
    cols = db.load(b)
    assert a == 0 and columns_digest(cols) == own["content_sha256"]
    cols["game_id"] = cols["game_id"] + 1
    assert columns_digest(cols) != own["content_sha256"]


def test_family_with_another_config_than_recorded_is_refused(tmp_path):
    db = SolutionDatabase(tmp_path)
    db.generate(BetGameFamily(hand_law="log-uniform"), 3, seed=0, workers=1, progress=False)
    with pytest.raises(ValueError, match="rebuilt from the recorded parameters"):
        db.family()
    db2 = SolutionDatabase(tmp_path / "b")
    db2.generate("betgame", 3, seed=0, workers=1, progress=False, family_params={"hand_law": "log-uniform"})
    assert db2.family().hand_law == "log-uniform"

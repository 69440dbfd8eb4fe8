"""Generating a solution database on a Dask cluster: same shards as the local backends, resume across backends,
a worker killed mid-run loses no finished game, and the database reads back with dask.dataframe."""

import os
import signal
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from games.betgame.family import BetGameFamily  # noqa: E402
from rulelearn.cli import main  # noqa: E402
from rulelearn.data.database import SolutionDatabase  # noqa: E402

ARRAYS = ("pmf1", "pmf2", "probs", "cdf1", "cdf2", "strategy", "call_probability", "value", "nash_conv")


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes with one thread each (their nannies restart a killed worker)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


def _reference(tmp_path, n, seed):
    db = SolutionDatabase(tmp_path / "reference")
    db.generate(BetGameFamily(), n, seed=seed, shard_size=64, workers=1, progress=False)
    return db.load(verified_only=False)


def _assert_same_games(cols, ref):
    assert np.array_equal(cols["game_id"], ref["game_id"])
    for key in ("pmf1", "pmf2", "probs"):  # the games themselves: bit for bit
        assert np.array_equal(cols[key], ref[key]), key
    for key in ARRAYS:  # their solutions: the same LP, solved in another process
        assert np.allclose(cols[key], ref[key], atol=1e-12, equal_nan=True), key
    assert np.array_equal(cols["verified"], ref["verified"])


def test_dask_writes_the_same_database(client, tmp_path):
    db = SolutionDatabase(tmp_path / "db")
    report = db.generate(BetGameFamily(), 120, seed=6, shard_size=16, scheduler=client, progress=False)
    assert report.backend == "dask" and report.workers == 2 and report.n_solved == 120
    assert [(a, b) for a, b, _ in db.shards()][-2:] == [(96, 112), (112, 120)]
    assert db.verify().ok and db.verify().n_checksummed == 8
    cols = db.load(verified_only=False)
    _assert_same_games(cols, _reference(tmp_path, 120, 6))
    # read back with dask: checked (to_dask) and directly from the directory (a plain Parquet dataset)
    lazy = db.to_dask()
    assert lazy.npartitions == 8
    df = lazy.compute()
    assert list(df["game_id"]) == list(range(120))
    assert np.array_equal(np.stack(df["strategy"].to_numpy()).reshape(-1, 10, 31), cols["strategy"])
    direct = dd.read_parquet(db.path).compute().sort_values("game_id")
    assert np.array_equal(direct["value"].to_numpy(), cols["value"])
    assert list(db.to_dask(n_games=50, columns=["game_id", "value"]).compute().columns) == ["game_id", "value"]
    assert len(db.to_dask(n_games=50)) == 50


def test_resume_across_backends(cluster, tmp_path, capsys):
    """Start on the local pool, continue on Dask (by scheduler address, from the command line), finish in-process."""
    path = tmp_path / "db"
    db = SolutionDatabase(path)
    assert db.generate(BetGameFamily(), 40, seed=8, shard_size=10, workers=2, progress=False).backend == "processes"
    args = ["generate", "--games", "100", "--seed", "8", "--shard-size", "10", "--db", str(path), "--quiet"]
    assert main([*args, "--scheduler", cluster.scheduler_address]) == 0
    out = capsys.readouterr().out
    assert "solved 60 " in out and "on 2 Dask worker threads" in out
    report = db.generate(BetGameFamily(), 130, seed=8, shard_size=10, workers=1, progress=False)
    assert report.n_solved == 30
    _assert_same_games(db.load(verified_only=False), _reference(tmp_path, 130, 8))
    assert db.verify().ok


def test_bad_scheduler_is_refused(tmp_path):
    with pytest.raises(TypeError, match="scheduler"):
        SolutionDatabase(tmp_path).generate(BetGameFamily(), 5, scheduler=object(), progress=False)
    assert not (tmp_path / "_manifest.json").exists()  # refused before touching the directory


def test_worker_killed_mid_run_loses_no_finished_game(client, tmp_path):
    n, shard = 500, 10
    db = SolutionDatabase(tmp_path / "db")
    pids = client.run(os.getpid)
    assert len(pids) == 2
    outcome = {}

    def run():
        try:
            outcome["report"] = db.generate(BetGameFamily(), n, seed=9, shard_size=shard, scheduler=client,
                                            progress=False)
        except BaseException as exc:  # pragma: no cover - reported below
            outcome["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.time() + 60
    while time.time() < deadline and thread.is_alive() and len(db.shards()) < 4:
        time.sleep(0.005)
    finished = dict(db.manifest["shards"])  # every shard finished before the kill, with its checksum
    os.kill(sorted(pids.values())[0], signal.SIGKILL)
    thread.join(120)
    assert not thread.is_alive() and "error" not in outcome, outcome.get("error")
    assert 0 < len(finished) < n // shard, "the worker must be killed mid-run for this test to mean anything"
    assert outcome["report"].n_solved == n
    cols = db.load(verified_only=False)
    assert np.array_equal(cols["game_id"], np.arange(n))  # every id exactly once
    records = db.manifest["shards"]
    for name, record in finished.items():  # shards finished before the kill are kept as they were
        assert records[name] == record
    assert db.verify().ok
    _assert_same_games(cols, _reference(tmp_path, n, 9))
    # the cluster replaced the killed worker
    deadline = time.time() + 30
    while time.time() < deadline and len(client.nthreads()) < 2:
        time.sleep(0.1)
    assert len(client.nthreads()) == 2

"""The solution database: determinism, verification, resume after a kill, manifest checks."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from games import betgame
from games.betgame.family import BetGameFamily, sample_game
from rulelearn.database import SolutionDatabase
from rulelearn.distributions import pmf_to_cdf


def test_generate_load_and_reuse(tmp_path):
    db = SolutionDatabase(tmp_path / "db")
    family = BetGameFamily()
    report = db.generate(family, 30, seed=3, shard_size=8, workers=1, progress=False)
    assert report.n_solved == 30 and report.n_unverified == 0
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
    df = db.to_pandas()
    assert len(df) == 45 and list(df["game_id"]) == list(range(45))


def test_manifest_mismatch_is_refused(tmp_path):
    db = SolutionDatabase(tmp_path)
    db.generate(BetGameFamily(), 4, seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="seed"):
        db.generate(BetGameFamily(), 4, seed=2, workers=1, progress=False)
    with pytest.raises(ValueError, match="config"):
        db.generate(BetGameFamily(n_cards=5), 4, seed=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="n_games"):
        db.generate(BetGameFamily(), 0, seed=1, workers=1, progress=False)
    with pytest.raises(FileNotFoundError):
        SolutionDatabase(tmp_path / "empty").load()


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    path = tmp_path / "db"
    n, shard = 2000, 25
    script = textwrap.dedent(f"""
        from games.betgame.family import BetGameFamily
        from rulelearn.database import SolutionDatabase
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
    (path / "games-000099999-000100000.parquet.tmp").write_bytes(b"half-written")
    report = db.generate(BetGameFamily(), n, seed=5, shard_size=shard, workers=2, progress=False)
    assert report.n_solved == n - partial
    assert not list(path.glob("*.tmp"))
    cols = db.load()
    assert np.array_equal(cols["game_id"], np.arange(n))  # nothing lost, nothing twice
    # identical to a clean run with another shard size in one process
    clean = SolutionDatabase(tmp_path / "clean")
    clean.generate(BetGameFamily(), 200, seed=5, shard_size=64, workers=1, progress=False)
    ref = clean.load()
    for key in ("pmf1", "pmf2", "probs", "strategy", "call_probability", "value"):
        assert np.allclose(cols[key][:200], ref[key], atol=1e-12), key

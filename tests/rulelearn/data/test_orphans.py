"""No worker process outlives a killed generating run (issue 12, item 6)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, parent pid)`` of a process, or ``None`` when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1])


def _children(pid: int) -> set[int]:
    out = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None and st[1] == pid:
                out.add(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")  # a zombie has ended; only its exit status is left


def test_no_worker_outlives_a_sigkilled_generate(tmp_path):
    cmd = [sys.executable, "-m", "rulelearn", "generate", "--games", "20000", "--shard-size", "50",
           "--workers", "2", "--quiet", "--db", str(tmp_path / "db")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 180
        workers: set[int] = set()
        # wait until both pool workers are solving (the first shard is on disk)
        while time.time() < deadline and proc.poll() is None:
            workers |= _children(proc.pid)
            if len(list((tmp_path / "db").glob("games-*.parquet"))) >= 1 and len(workers) >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None and len(workers) >= 2, "the run must be killed while its workers work"
        workers |= _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: no cleanup runs, the workers are not signalled
        proc.wait()
        deadline = time.time() + 10
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), [w for w in workers if _alive(w)]
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the group, should the test fail
        except ProcessLookupError:
            pass

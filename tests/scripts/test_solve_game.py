"""scripts/solve_game.py: text and JSON output, plots, errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "solve_game.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_leduc_dcfr_json():
    proc = _run("leduc", "dcfr", "--target", "1e-3", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"value", "exploitability", "iterations", "seconds", "compile_seconds"} <= set(out)
    assert out["exploitability"] <= 1e-3
    assert out["exploitability"] == pytest.approx(out["nash_conv"] / 2)
    assert out["value"] == pytest.approx(-0.0856, abs=2e-3)
    assert out["converged"] is True


def test_lp_text_output():
    proc = _run("kuhn", "lp")
    assert proc.returncode == 0, proc.stderr
    assert "-0.055555555556" in proc.stdout and "exploitability" in proc.stdout


def test_plot(tmp_path):
    png = tmp_path / "conv.png"
    proc = _run("betgame", "cfr+", "--iterations", "200", "--plot", str(png), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, message", [
    (("chess", "lp"), "unknown game 'chess'"),
    (("kuhn", "fictitious"), "unknown method 'fictitious'"),
    (("kuhn", "dcfr", "--gamma", "-1"), "gamma must be finite and >= 0"),
    (("kuhn", "lp", "--plot", "x.png"), "--plot needs an iterative method"),
])
def test_errors(args, message):
    proc = _run(*args)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_an_unwritable_plot_fails_before_solving(tmp_path):
    """--plot in a missing or read-only directory is refused before the solve (which would be lost)."""
    import os

    cases = [(str(tmp_path / "missing" / "x.png"), "--plot: the directory"),
             (str(tmp_path), "--plot must be a file name")]
    if os.geteuid() == 0:  # root ignores permission bits; /proc refuses new files
        cases.append(("/proc/x.png", "--plot: cannot write"))
    for path, message in cases:
        proc = _run("leduc", "cfr", "--iterations", "100000", "--plot", path, "--no-progress")
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert "iterations" not in proc.stdout

"""scripts/hunl_report.py: the saved pipeline results re-render docs/HUNL.md as it is, and clear errors."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "hunl_report.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_saved_results_render_the_doc_as_committed(tmp_path):
    doc = tmp_path / "HUNL.md"
    stale = (ROOT / "docs" / "HUNL.md").read_text().replace("<!--v:total_min-->", "<!--v:total_min-->99", 1)
    doc.write_text(stale)
    proc = _run("docs/hunl_results.json", "--doc", str(doc))
    assert proc.returncode == 0, proc.stderr
    assert doc.read_text() == (ROOT / "docs" / "HUNL.md").read_text()


def test_missing_files_are_named(tmp_path):
    proc = _run(str(tmp_path / "none.json"))
    assert proc.returncode == 2 and "results: no such file" in proc.stderr
    proc = _run("docs/hunl_results.json", "--doc", str(tmp_path / "none.md"))
    assert proc.returncode == 2 and "--doc: no such file" in proc.stderr

"""rulelearn.report.helptext: docstrings as plain --help text."""

import subprocess
import sys
from pathlib import Path

import pytest

from rulelearn.report.helptext import help_text

ROOT = Path(__file__).resolve().parents[3]


def test_markup_is_removed_and_text_kept():
    doc = ("Run ``pushfold``; see :func:`a.b.run` and :py:class:`~a.b.Job`.\n\nUsage::\n\n    python x.py --n 3\n\n"
           "::\n\n    python y.py\n")
    out = help_text(doc)
    assert out == "Run pushfold; see a.b.run and a.b.Job.\n\nUsage:\n\n    python x.py --n 3\n\n    python y.py"


def test_plain_text_is_unchanged():
    assert help_text("Solve a game: 3 steps.\n\n* one\n* two") == "Solve a game: 3 steps.\n\n* one\n* two"


def test_not_a_string():
    with pytest.raises(TypeError, match="doc must be a string"):
        help_text(None)


@pytest.mark.parametrize("script", ["rule_cards.py", "reproduce.py", "pushfold.py"])
def test_script_help_has_no_markup(script):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--help"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "``" not in proc.stdout and ":func:" not in proc.stdout and "\n::\n" not in proc.stdout

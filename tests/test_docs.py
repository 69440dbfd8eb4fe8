"""The examples in the docstrings run and print what they claim; the imports of every code example in README.md
and docs/*.md resolve (the layout's paths stay true)."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["games.betgame", "games.betgame.lp"]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
_IMPORT = re.compile(r"^(from [\w.]+ import [\w, ()]+|import [\w.]+)\s*(#.*)?$", re.MULTILINE)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_doc_examples_import(path):
    imports = [m.group(1) for block in _BLOCK.findall(path.read_text()) for m in _IMPORT.finditer(block)]
    for line in imports:
        exec(line, {})  # noqa: S102 - the docs' own import lines

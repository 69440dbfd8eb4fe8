"""The examples in the docstrings run and print what they claim; the imports of every code example in README.md
and docs/*.md resolve (the layout's paths stay true); every link to a section of a doc names a heading it has."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = ["games.betgame", "games.betgame.lp"]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
_LINK = re.compile(r"\]\(([^)#\s]*)#([^)\s]+)\)")
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


def heading_anchors(text: str) -> set:
    """The anchors GitHub gives the headings of a Markdown text: lower case, punctuation but ``-`` and ``_``
    dropped, spaces as ``-``; a repeated heading gets ``-1``, ``-2``, ... (headings inside code fences are not
    headings)."""
    seen, out = {}, set()
    for h in re.findall(r"^#{1,6} (.*)$", re.sub(r"```.*?```", "", text, flags=re.DOTALL), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", h.replace("`", "").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_heading_anchors_follow_github():
    text = "# Rule cards: a few rules\n## The flop with the summary's `turn` card\n```\n# not a heading\n```\n# Rule cards: a few rules\n"
    assert heading_anchors(text) == {"rule-cards-a-few-rules", "the-flop-with-the-summarys-turn-card",
                                     "rule-cards-a-few-rules-1"}


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_section_links_resolve(path):
    broken = []
    for target, anchor in _LINK.findall(path.read_text()):
        doc = path if not target else path.parent / target
        if not doc.exists() or anchor not in heading_anchors(doc.read_text()):
            broken.append(f"{target}#{anchor}")
    assert not broken, f"{path.name}: links to missing sections: {broken}"

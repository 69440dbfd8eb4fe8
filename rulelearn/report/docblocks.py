"""Docs whose numbers are written by code: marked values and blocks, markdown tables, the machine's CPU model.

A doc is a template. ``<!--v:key-->...<!--/v-->`` holds one number and ``<!--block:key-->`` ...
``<!--/block:key-->`` one table or list; a run replaces their contents (:func:`render` when the run produces every
key the doc marks, :func:`write_blocks` when several runs each write some blocks of one doc). Benchmarks write
whole sections between their own start and end markers (:func:`write_section`).
"""

from __future__ import annotations

import platform
import re
import subprocess
from pathlib import Path

import pandas as pd

__all__ = ["cpu_model", "current_blocks", "markdown_table", "render", "replace_blocks", "write_blocks",
           "write_section"]

_VALUE = re.compile(r"<!--v:([\w.-]+)-->(.*?)<!--/v-->", re.DOTALL)
_BLOCK = re.compile(r"(<!--block:([\w.-]+)-->\n)(.*?)(<!--/block:\2-->)", re.DOTALL)


def render(doc: str, values: dict[str, str], blocks: dict[str, str]) -> str:
    """Replace every marked value and block of ``doc``.

    Parameters
    ----------
    doc : str
        The doc's text: values marked ``<!--v:key-->...<!--/v-->``, blocks ``<!--block:key-->`` (followed by
        a newline) ... ``<!--/block:key-->``.
    values : dict of str to str
        Key -> the text of each marked value (e.g. a formatted number).
    blocks : dict of str to str
        Key -> the contents of each marked block (e.g. a markdown table); trailing newlines are replaced by
        one.

    Returns
    -------
    str
        The doc with the contents between every pair of markers replaced (the markers kept); keys of
        ``values`` and ``blocks`` the doc does not mark are ignored.

    Raises
    ------
    KeyError
        If the doc marks a key that ``values`` or ``blocks`` does not hold (a stale doc).
    """
    missing = sorted(
        {m.group(1) for m in _VALUE.finditer(doc)} - set(values)
        | {m.group(2) for m in _BLOCK.finditer(doc)} - set(blocks)
    )
    if missing:
        raise KeyError(f"the doc marks keys this run did not produce: {missing}")
    doc = _VALUE.sub(lambda m: f"<!--v:{m.group(1)}-->{values[m.group(1)]}<!--/v-->", doc)
    return replace_blocks(doc, blocks)


def current_blocks(doc: str, prefix: str = "") -> dict[str, str]:
    """The contents of the blocks of ``doc`` whose keys start with ``prefix`` (to keep blocks another run
    writes when :func:`render` must see every key).

    Parameters
    ----------
    doc : str
        A doc with blocks marked ``<!--block:key-->`` (followed by a newline) ... ``<!--/block:key-->``.
    prefix : str, default ""
        Keep the keys that start with it (the default keeps all).

    Returns
    -------
    dict of str to str
        Key -> the block's contents, from after the opening marker's newline to the closing marker (so
        usually ending in a newline; empty for an empty block). A key marked twice keeps its last block.
    """
    return {m.group(2): m.group(3) for m in _BLOCK.finditer(doc) if m.group(2).startswith(prefix)}


def replace_blocks(doc: str, blocks: dict[str, str], append_missing: bool = False) -> str:
    """Replace the blocks of ``doc`` named in ``blocks`` (others stay); with ``append_missing``, blocks the
    doc does not mark yet are appended at its end.

    Parameters
    ----------
    doc : str
        A doc with blocks marked ``<!--block:key-->`` (followed by a newline) ... ``<!--/block:key-->``.
    blocks : dict of str to str
        Key -> the new contents of the block; trailing newlines are replaced by exactly one.
    append_missing : bool, default False
        Append a block (after a blank line, with its markers) for each key of ``blocks`` that ``doc`` does
        not mark; otherwise such keys are ignored.

    Returns
    -------
    str
        The new doc; values (``<!--v:...-->``) and other text are unchanged.
    """
    if append_missing:
        for key in blocks:
            if f"<!--block:{key}-->" not in doc:
                doc = doc.rstrip("\n") + f"\n\n<!--block:{key}-->\n<!--/block:{key}-->\n"
    return _BLOCK.sub(lambda m: m.group(1) + blocks[m.group(2)].rstrip("\n") + "\n" + m.group(4)
                      if m.group(2) in blocks else m.group(0), doc)


def write_blocks(path, blocks: dict[str, str], title: str = "# Rules\n") -> None:
    r"""Replace the blocks of the doc at ``path`` named in ``blocks``; append the ones it lacks (a missing
    file starts as ``title``).

    Parameters
    ----------
    path : str or os.PathLike
        The Markdown doc, rewritten in place (created if missing; its directory must exist).
    blocks : dict of str to str
        Key -> the new contents of the block (see :func:`replace_blocks`).
    title : str, default ``"# Rules\n"``
        The text of a new doc, before the appended blocks.

    Raises
    ------
    OSError
        If the doc cannot be read or written.
    """
    path = Path(path)
    doc = path.read_text() if path.exists() else title
    path.write_text(replace_blocks(doc, blocks, append_missing=True))


def write_section(path, text: str, start: str, end: str, title: str = "") -> None:
    """Replace the section of the doc at ``path`` between the markers ``start`` and ``end`` (``text`` includes
    them), or append it (a missing file starts as ``title``).

    Parameters
    ----------
    path : str or os.PathLike
        The Markdown doc, rewritten in place (created if missing; its directory must exist).
    text : str
        The new section, starting with ``start`` and ending with ``end``.
    start, end : str
        The section's markers, e.g. ``"<!-- bench_hunl:start -->"`` and ``"<!-- bench_hunl:end -->"``. The
        old section runs from the first ``start`` to the first ``end`` after it, both included; if the doc
        lacks either, ``text`` is appended after a blank line, with a final newline.
    title : str, default ""
        The text of a new doc.

    Raises
    ------
    OSError
        If the doc cannot be read or written.
    ValueError
        If the doc has ``start`` but its only ``end`` comes before it (a damaged section: replacing from there
        would duplicate or drop text).
    """
    path = Path(path)
    old = path.read_text() if path.exists() else title
    a = old.find(start)
    b = old.find(end, a + len(start)) if a >= 0 else -1
    if a >= 0 and b < 0 and end in old:
        raise ValueError(f"{path}: the marker {end!r} comes before {start!r}, not after it")
    if a >= 0 and b >= 0:
        new = old[:a] + text + old[b + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(new)


def markdown_table(table, formats: dict[str, str] | None = None, right=None) -> str:
    """A GitHub markdown table.

    Parameters
    ----------
    table : pandas.DataFrame or (header, rows)
        A frame, or a header (sequence of str) and rows (sequences of cells).
    formats : dict of str to str, optional
        Column name -> format spec (e.g. ``".4f"``); other cells print with ``str``, missing values (None, NaN)
        as empty cells (``| |``).
    right : iterable of str, optional
        Right-aligned columns; default the numeric columns of a frame (none for header and rows).

    Returns
    -------
    str
        The table, ending in a newline.
    """
    if isinstance(table, pd.DataFrame):
        columns = [str(c) for c in table.columns]
        cells = [[table[c].iloc[i] for c in table.columns] for i in range(len(table))]
        if right is None:
            right = [str(c) for c in table.columns if pd.api.types.is_numeric_dtype(table[c])]
    else:
        header, rows = table
        columns, cells = [str(c) for c in header], [list(r) for r in rows]
    formats, right = formats or {}, set(right or ())
    lines = [_row(columns), "|" + "|".join("---:" if c in right else "---" for c in columns) + "|"]
    for row in cells:
        out = []
        for c, x in zip(columns, row):
            missing = x is None or (not isinstance(x, str) and pd.isna(x))
            out.append("" if missing else format(x, formats[c]) if c in formats else str(x))
        lines.append(_row(out))
    return "\n".join(lines) + "\n"


def _row(cells) -> str:
    """``| a | b |``; an empty cell is ``| |``."""
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def cpu_model() -> str:
    """The CPU model from ``lscpu`` (or ``platform.processor()``)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"

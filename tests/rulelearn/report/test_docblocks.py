"""rulelearn.report.docblocks: marked values and blocks, markdown tables, benchmark sections."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rulelearn.report.docblocks import markdown_table, render, write_blocks, write_section


def test_render_replaces_markers_and_refuses_stale_keys():
    doc = "a <!--v:x-->old<!--/v--> b\n<!--block:t-->\nold table\n<!--/block:t-->\nend\n"
    new = render(doc, {"x": "0.123"}, {"t": "| a |\n"})
    assert new == "a <!--v:x-->0.123<!--/v--> b\n<!--block:t-->\n| a |\n<!--/block:t-->\nend\n"
    assert render(new, {"x": "0.123"}, {"t": "| a |\n"}) == new
    with pytest.raises(KeyError, match="x"):
        render(doc, {}, {"t": ""})


def test_markdown_table_from_a_frame_or_rows():
    table = markdown_table(pd.DataFrame({"rep": ["cdf"], "emd": [0.12345]}), {"emd": ".3f"})
    assert table == "| rep | emd |\n|---|---:|\n| cdf | 0.123 |\n"
    missing = markdown_table(pd.DataFrame({"a": ["x"], "b": [np.nan]}), right=())
    assert missing == "| a | b |\n|---|---|\n| x | |\n"
    rows = markdown_table((["k", "v"], [("a", 1), ("b", "")]), right=["v"])
    assert rows == "| k | v |\n|---|---:|\n| a | 1 |\n| b | |\n"


def test_write_blocks_replaces_and_appends(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text("# Doc\n\n<!--block:a-->\nold\n<!--/block:a-->\n")
    write_blocks(path, {"a": "new\n", "b": "more"})
    assert path.read_text() == "# Doc\n\n<!--block:a-->\nnew\n<!--/block:a-->\n\n<!--block:b-->\nmore\n<!--/block:b-->\n"


def test_write_section_between_markers(tmp_path):
    path = tmp_path / "b.md"
    write_section(path, "<!-- s -->\none\n<!-- /s -->", "<!-- s -->", "<!-- /s -->", title="# B\n")
    write_section(path, "<!-- s -->\ntwo\n<!-- /s -->", "<!-- s -->", "<!-- /s -->")
    assert path.read_text() == "# B\n\n<!-- s -->\ntwo\n<!-- /s -->\n"


def test_write_section_reads_the_end_after_the_start(tmp_path):
    path = tmp_path / "b.md"
    path.write_text("intro <!-- /s --> mentioned\n<!-- s -->\nold\n<!-- /s -->\nafter\n")
    write_section(path, "<!-- s -->\nnew\n<!-- /s -->", "<!-- s -->", "<!-- /s -->")
    assert path.read_text() == "intro <!-- /s --> mentioned\n<!-- s -->\nnew\n<!-- /s -->\nafter\n"
    path.write_text("<!-- /s -->\n<!-- s -->\nold, its end lost\n")
    with pytest.raises(ValueError, match="comes before"):
        write_section(path, "<!-- s -->\nnew\n<!-- /s -->", "<!-- s -->", "<!-- /s -->")
    assert path.read_text() == "<!-- /s -->\n<!-- s -->\nold, its end lost\n"

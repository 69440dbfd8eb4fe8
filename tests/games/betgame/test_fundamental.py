"""The bet game's fundamental-rules study end to end on a small database: tables, figure and doc blocks."""

from __future__ import annotations

from games.betgame.fundamental import FundamentalJob, run_fundamental_study
from rulelearn.data.database import SolutionDatabase


def test_fundamental_study_writes_its_blocks(tmp_path):
    SolutionDatabase(tmp_path / "db").generate("betgame", n_games=400, workers=1, progress=False)
    doc = tmp_path / "RULES.md"
    job = FundamentalJob(db=str(tmp_path / "db"), games=400, out=str(tmp_path / "out"),
                         figure=str(tmp_path / "fig.png"), doc=str(doc))
    assert run_fundamental_study(job) == 0
    text = doc.read_text()
    for block in ("fundamental-setup", "paper-rules", "found-rules"):
        assert f"<!--block:{block}-->" in text
    assert "| 80-20 rule, as stated | if your hand beats more than 20% and at most 80% of P2's range" in text
    assert "P(P1 holds <= card)" in text and (tmp_path / "fig.png").stat().st_size > 5000
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"paper_rules.csv", "found_rules.csv",
                                                               "by_share_beaten.csv"}

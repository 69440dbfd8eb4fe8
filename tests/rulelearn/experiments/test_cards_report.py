"""scripts/rule_cards.py betgame (rulelearn.experiments.cards_report.run_group_cards) end to end on a small
database: the card, its files, and a frontier cache that a database solved again at the same path does not reuse."""

import json
import shutil

from rulelearn.data.database import SolutionDatabase
from rulelearn.experiments.cards_report import GroupCardJob, run_group_cards
from rulelearn.family import load_family


def _job(tmp_path):
    return GroupCardJob(db=str(tmp_path / "db"), games=200, seeds=(0,), max_leaves=3, card_leaves=2,
                        max_fit_games=60, out=str(tmp_path / "out"), figure=str(tmp_path / "frontier.png"), doc=None,
                        cards=str(tmp_path / "cards"))


def test_group_cards_end_to_end_and_the_frontier_cache(tmp_path, capsys):
    family = load_family("betgame")
    SolutionDatabase(tmp_path / "db").generate(family, 200, seed=0, workers=1, progress=False)
    job = _job(tmp_path)
    run_group_cards(job)
    first = capsys.readouterr().out
    assert "reusing" not in first and "rules," in first and "cost: " in first
    card = json.loads((tmp_path / "out" / "betgame_card.json").read_text())
    assert card["sections"] and (tmp_path / "frontier.png").stat().st_size > 10_000

    run_group_cards(job)                                   # same database, same settings: the cache
    assert "reusing" in capsys.readouterr().out

    shutil.rmtree(tmp_path / "db")                         # other games at the same path: measured again
    SolutionDatabase(tmp_path / "db").generate(family, 200, seed=1, workers=1, progress=False)
    run_group_cards(job)
    assert "reusing" not in capsys.readouterr().out

"""The command line: the main job end to end on a small database, and clear errors."""

import numpy as np

from rulelearn.cli import main


def test_demo_end_to_end(tmp_path, capsys):
    db, out = tmp_path / "db", tmp_path / "out"
    code = main(["demo", "--games", "250", "--db", str(db), "--out", str(out), "--quiet", "--workers", "1",
                 "--max-depth", "3"])
    text = capsys.readouterr().out
    assert code == 0
    assert "1-NN, input EMD" in text and "k-medoids k=15" in text and "cluster-then-tree" in text
    assert "Most prominent rules" in text and "share of P2's range beaten" in text
    assert (out / "error_vs_depth.png").stat().st_size > 10_000
    assert (out / "canonical_games.png").stat().st_size > 10_000
    curve = np.genfromtxt(out / "error_vs_depth.csv", delimiter=",", names=True, dtype=None, encoding=None)
    assert set(curve["depth"]) == {1, 2, 3} and np.all(curve["exploitability"] >= 0)
    # the second run reuses the database
    assert main(["demo", "--games", "250", "--db", str(db), "--out", str(out), "--quiet", "--workers", "1",
                 "--max-depth", "2"]) == 0
    assert "this run solved 0" in capsys.readouterr().out
    assert main(["rules", "--db", str(db), "--depth", "2"]) == 0
    assert "rules of a depth-2 tree" in capsys.readouterr().out


def test_cli_reports_errors(tmp_path, capsys):
    db = tmp_path / "db"
    assert main(["generate", "--games", "3", "--db", str(db), "--quiet", "--workers", "1"]) == 0
    assert main(["generate", "--games", "3", "--db", str(db), "--seed", "9", "--quiet"]) == 2
    assert "seed" in capsys.readouterr().err
    assert main(["generate", "--games", "3", "--db", str(tmp_path / "x"), "--game", "chess", "--quiet"]) == 2
    assert "unknown game family" in capsys.readouterr().err


def test_rules_prints_a_rule_card(tmp_path, capsys):
    import json

    from rulelearn.cli import main
    from rulelearn.rules.cards import CardCondition, CardCost, CardRule, CardSection, Quantity, RuleCard

    q = (Quantity("x", "share", "x is more than {t}", "x is at most {t}"),)
    card = RuleCard("A card", (CardSection("s", (CardRule((CardCondition("x", ">", 0.7),), "bet", (0.0, 1.0), 0.5),
                                                 CardRule((CardCondition("x", "<=", 0.7),), "check", (1.0, 0.0),
                                                          0.5))),), q, CardCost(0.04, 0.01, "chips", 10))
    path = tmp_path / "card.json"
    path.write_text(json.dumps(card.to_dict()))
    assert main(["rules", "--card", str(path)]) == 0
    out = capsys.readouterr().out
    assert "if x is more than 70%: bet" in out and "0.04 chips" in out
    assert main(["rules", "--card", str(tmp_path / "missing.json")]) == 2

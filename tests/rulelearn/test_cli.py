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

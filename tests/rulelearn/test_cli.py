"""The command line: the main job end to end on a small database, and clear errors."""

import numpy as np
import pytest

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


def read_only_dir(tmp_path):
    """A directory no file can be created in: a chmod 555 one, or for root (who ignores permission bits) a path
    on /proc."""
    import os

    if os.geteuid() == 0:
        return "/proc/rulelearn-test"
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    return str(ro / "db")


def test_bad_options_fail_before_any_work(tmp_path, capsys):
    """Each error names its option, and nothing is solved or created first (issue 12, item 5)."""
    db, out = tmp_path / "db", tmp_path / "out"
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory")
    base = ["--db", str(db), "--out", str(out), "--quiet", "--workers", "1"]
    cases = [
        (["demo", "--games", "250", "--max-depth", "0", *base], "--max-depth must be an integer >= 1"),
        (["demo", "--games", "3", *base], "--games must be at least 19"),
        (["demo", "--games", "250", "--quiet", "--db", str(a_file), "--out", str(out)], "--db must be a directory"),
        (["demo", "--games", "250", "--quiet", "--db", str(db), "--out", str(a_file)], "--out must be a directory"),
        (["demo", "--games", "250", "--quiet", "--db", str(a_file / "db"), "--out", str(out)],
         "--db: cannot create the directory"),
        (["demo", "--games", "250", "--quiet", "--db", read_only_dir(tmp_path), "--out", str(out)],
         "--db: cannot write"),
        (["generate", "--games", "5", "--quiet", "--db", str(a_file)], "--db must be a directory"),
        (["generate", "--games", "5", "--quiet", "--db", str(db), "--workers", "0"], "--workers must be"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert not db.exists() and not out.exists(), argv


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


def test_rules_card_without_a_name_prints_the_summary_cards_from_any_directory(tmp_path, monkeypatch, capsys):
    """``rulelearn rules --card`` prints every card of HEADLINE_CARDS, each with its title and cost, and finds
    the shipped cards from another working directory; an unknown name is an error naming --card."""
    import json

    from rulelearn.cli import HEADLINE_CARDS, _card_path, main

    titles = [json.loads(_card_path(name).read_text())["title"] for name in HEADLINE_CARDS]
    monkeypatch.chdir(tmp_path)                            # no docs/cards here
    assert main(["rules", "--card"]) == 0
    out = capsys.readouterr().out
    positions = [out.find(t) for t in titles]
    assert -1 not in positions and positions == sorted(positions), positions
    assert len(set(titles)) == len(titles) and out.count("cost: ") == len(HEADLINE_CARDS)
    assert main(["rules", "--card", "river", "--markdown"]) == 0
    assert capsys.readouterr().out.startswith("**Cost: ")
    assert main(["rules", "--card", "no-such-card"]) == 2
    err = capsys.readouterr().err
    assert "--card" in err and "no-such-card" in err


def test_rules_out_writes_each_card_as_markdown_and_a_one_page_figure(tmp_path, capsys):
    """``rulelearn rules --card NAME --out DIR`` writes ``DIR/NAME.md`` (the card's Markdown) and, for a hold'em
    card, the PNG of its one-page figure; the bet game's card gets Markdown only; --out without --card is an error
    naming --out."""
    import json

    from rulelearn.cli import _card_path, main
    from rulelearn.rules.cards import RuleCard

    out = tmp_path / "cards"
    assert main(["rules", "--card", "river-moved-all", "betgame", "--out", str(out)]) == 0
    for name in ("river-moved-all", "betgame"):
        card = RuleCard.from_dict(json.loads(_card_path(name).read_text()))
        assert (out / f"{name}.md").read_text() == card.without_default_copies().to_markdown()
    # the river card's two facing rules that play the "otherwise" mix are not printed; the bet game's card has none
    assert "18 rules, 44 conditions." in (out / "river-moved-all.md").read_text()
    assert (out / "betgame.md").read_text() == RuleCard.from_dict(json.loads(_card_path("betgame").read_text())).to_markdown()
    png = (out / "river-moved-all_card.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    assert not (out / "betgame_card.png").exists()
    assert "river-moved-all_card.png" in capsys.readouterr().out
    assert main(["rules", "--out", str(out)]) == 2
    assert "--out" in capsys.readouterr().err


def test_the_example_endgame_is_on_the_first_street_a_card_plays():
    """A river card's figure is drawn on a river board, a turn card's on a turn board, a flop card's on a flop
    board; a card without hold'em streets is refused, naming meta['streets']."""
    import json

    from hunl.distill.card_figure import example_for
    from rulelearn.cli import _card_path
    from rulelearn.rules.cards import RuleCard

    for name, n_board in (("river-moved-all", 5), ("turn-moved-all", 4), ("flop", 3)):
        card = RuleCard.from_dict(json.loads(_card_path(name).read_text()))
        assert len(example_for(card).board) == n_board
    bet = RuleCard.from_dict(json.loads(_card_path("betgame").read_text()))
    with pytest.raises(ValueError, match="streets"):
        example_for(bet)


def test_every_card_figure_entry_names_a_function():
    """CARD_FIGURES names each game's card-page function by ``module:function``; each imports and is callable."""
    import importlib

    from rulelearn.cli import CARD_FIGURES

    for spec in CARD_FIGURES.values():
        module, function = spec.split(":")
        assert callable(getattr(importlib.import_module(module), function))


def test_a_closed_pipe_ends_the_command_quietly():
    """``rulelearn rules --card | head`` : the reader closes the pipe before the card is printed; the command stops
    with status 141 (128 + SIGPIPE) and no traceback, as other command-line tools do."""
    import subprocess
    import sys

    code = "import sys; from rulelearn.cli import main; sys.exit(main(['rules', '--card', 'betgame']))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the interpreter has even imported rulelearn
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err

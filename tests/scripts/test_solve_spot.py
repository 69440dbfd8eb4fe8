"""scripts/solve_spot.py, hunl.solver.output: an end-to-end run, the four files, the long table vs the solver."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from games.core.tree import DECISION
from hunl.poker.cards import COMBO_CARDS, COMBO_LABELS, HAND_CLASS, HAND_CLASS_LABELS, NUM_COMBOS, parse_combo
from hunl.solver.libratus import ENV_VAR
from hunl.solver.output import first_decision_figure, strategy_frame, write_outputs, write_strategy_json
from hunl.solver.solve import solve_endgame
from hunl.solver.spot_files import parse_spot

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "solve_spot.py"

RIVER = {
    "name": "tiny_river", "board": "Ks7d2c9h4s", "pot": 1000, "stack": 3000,
    "ranges": {"oop": "KK,AK,77,QJs,65s:0.5", "ip": "QQ,AQs,98s,K9s,JTs"},
    "bet_sizes": {"raise_cap": 1, "river": {"bets": [0.5], "raises": [1.0], "all_in": True}},
    "solver": {"max_iterations": 30},
}
TURN = {
    "name": "tiny_turn", "board": "Qh9h4c2d", "pot": 600, "stack": 1200,
    "ranges": {"oop": "AQs,99,Ah5h,JTs", "ip": "KK,QJs,Th8h"},
    "bet_sizes": {"raise_cap": 0, "turn": {"bets": [0.75], "raises": [], "all_in": False},
                  "river": {"bets": [1.0], "raises": [], "all_in": False}},
}

FLOP = {
    "name": "tiny_flop", "board": "Qh9h4c", "pot": 600, "stack": 900,
    "ranges": {"oop": "AQs,99", "ip": "KK,QJs"},
    "bet_sizes": {"raise_cap": 0, **{street: {"bets": [1.0], "raises": [], "all_in": False}
                                     for street in ("flop", "turn", "river")}},
}


@pytest.fixture(autouse=True)
def _no_env_override(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)


def _cli():
    spec = importlib.util.spec_from_file_location("solve_spot_cli", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spot_file(tmp_path, data, fmt="json") -> Path:
    path = tmp_path / f"{data['name']}.{fmt}"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def river_solution():
    return solve_endgame(parse_spot(RIVER).game(dtype="float64"), iterations=30)


@pytest.fixture(scope="module")
def turn_solution():
    return solve_endgame(parse_spot(TURN).game(dtype="float64"), iterations=10)


# ---------------------------------------------------------------------- end to end
def test_cli_end_to_end_json(tmp_path):
    spot = _spot_file(tmp_path, RIVER)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(SCRIPT), str(spot), "--json", "--out", str(out),
                           "--iterations", "40", "--algorithm", "cfr+", "--check-every", "10"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)                      # exactly one JSON object, nothing else on stdout
    assert isinstance(result, dict)
    required = ("exploitability_chips", "exploitability_pct_pot", "pot", "iterations", "seconds",
                "compile_seconds", "peak_memory_mb")
    assert set(required) <= set(result)
    assert result["pot"] == 1000.0 and result["iterations"] == 40 and result["algorithm"] == "cfr+"
    assert result["exploitability_pct_pot"] == pytest.approx(100 * result["exploitability_chips"] / 1000)
    assert result["log"]["iterations"] == [10, 20, 30, 40]
    assert "tiny_river" in proc.stderr and "Ks7d2c9h4s" in proc.stderr     # progress and messages on stderr
    files = {name: out / name for name in ("strategy.parquet", "strategy.json", "summary.json",
                                           "first_decision.png")}
    assert all(p.is_file() for p in files.values())
    assert result["files"]["parquet"] == str(files["strategy.parquet"])
    assert files["first_decision.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads(files["summary.json"].read_text())
    assert summary["exploitability_chips"] == result["exploitability_chips"]
    assert summary["compile_seconds"] == result["compile_seconds"] >= 0
    assert summary["spot"]["name"] == "tiny_river" and summary["spot"]["raise_cap"] == 1
    table = pd.read_parquet(files["strategy.parquet"])
    decisions = int(np.count_nonzero(parse_spot(RIVER).game().tree.kind == DECISION))
    assert table["node"].nunique() == decisions
    sums = table.groupby(["node", "combo"], observed=True)["probability"].sum()
    np.testing.assert_allclose(sums, 1.0, atol=1e-5)


def test_cli_default_out_dir_text_output_quiet_and_no_plot(tmp_path, capsys):
    spot = _spot_file(tmp_path, RIVER, fmt="json")
    cli = _cli()
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert cli.main([str(spot), "--quiet", "--no-plot", "--iterations", "5", "--dtype", "float64",
                         "--raise-cap", "0"]) == 0
    finally:
        os.chdir(cwd)
    captured = capsys.readouterr()
    assert captured.err == ""                             # --quiet: no progress, no messages
    assert "exploitability" in captured.out and "% of the pot" in captured.out
    out = tmp_path / "data" / "spots" / "tiny_river"
    assert (out / "strategy.parquet").is_file() and not (out / "first_decision.png").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["iterations"] == 5 and summary["spot"]["raise_cap"] == 0


@pytest.mark.parametrize("changes, message", [
    ({"pot": -5}, "pot must be a positive number of chips"),
    ({"ranges": {"oop": "KK,AKz", "ip": "QQ"}}, "ranges.oop: range token 'AKz'"),
    ({"ranges": {"oop": "KsKh", "ip": "QQ"}}, "ranges.oop: every combo of the range 'KsKh' holds a card"),
    ({"stack": 3000, "starting_stack": 3000}, "give exactly one of stack"),
    ({"bet_sizes": {"river": {"bets": [0.5], "size": 2}}}, "bet_sizes.river.size: unknown key 'size'"),
])
def test_cli_errors_exit_2_with_the_field(tmp_path, capsys, changes, message):
    data = {**RIVER, **changes}
    spot = _spot_file(tmp_path, data)
    with pytest.raises(SystemExit) as info:
        _cli().main([str(spot), "--json", "--out", str(tmp_path / "o")])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"error: {spot}: " in captured.err and message in captured.err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("option, message", [
    (["--iterations", "0"], "--iterations must be an integer >= 1"),
    (["--raise-cap", "-1"], "--raise-cap must be an integer >= 0"),
    (["--target-pct-pot", "-0.5"], "--target-pct-pot must be a percentage >= 0"),
    (["--check-every", "0"], "--check-every must be an integer >= 1"),
])
def test_cli_bad_option_values(tmp_path, capsys, option, message):
    spot = _spot_file(tmp_path, RIVER)
    with pytest.raises(SystemExit) as info:
        _cli().main([str(spot), "--quiet", *option])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_cli_missing_file_and_bad_option(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        _cli().main([str(tmp_path / "nope.toml")])
    assert info.value.code == 2 and "not found" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        _cli().main([str(tmp_path / "nope.toml"), "--algorithm", "cfr"])
    assert info.value.code == 2 and "invalid choice: 'cfr'" in capsys.readouterr().err


def test_cli_libratus_name(tmp_path, capsys):
    assert _cli().main(["subgame4", "--iterations", "3", "--json", "--quiet", "--no-plot",
                        "--out", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["spot"], result["board"], result["pot"], result["stack"]) == \
        ("subgame4", "JsKs5cQs7d", 3750.0, 20_000 - 3750 / 2)
    table = pd.read_parquet(tmp_path / "strategy.parquet")
    root = table[table["node"] == 0]
    assert list(root["action"].cat.remove_unused_categories().unique()) == \
        ["check", "bet 1875", "bet 3750", "all-in"]


# ---------------------------------------------------------------------- the long table
def _check_table_against_solution(solution, table):
    game = solution.game
    t = game.tree
    decisions = np.flatnonzero(t.kind == DECISION)
    assert sorted(table["node"].unique()) == decisions.tolist()
    assert table["probability"].dtype == np.float32
    # probabilities sum to 1 per (node, combo)
    sums = table.groupby(["node", "combo"], observed=True)["probability"].sum()
    np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-5)
    for node, rows in table.groupby("node", sort=True):
        p = int(t.player[node])
        assert (rows["player"] == p).all()
        assert (rows["history"] == t.history[node]).all()
        street = "turn" if game.betting.street[node] == 4 else "river"
        assert (rows["street"] == street).all()
        actions = [t.action[c] for c in t.children(node)]
        strat = solution.node_strategy(node)             # (1326, A), NaN off the range
        combos = np.array([parse_combo(c) for c in rows["combo"].astype(str)])
        acts = rows["action_index"].to_numpy()
        assert [actions[a] for a in acts] == rows["action"].astype(str).tolist()
        np.testing.assert_allclose(rows["probability"].to_numpy(), strat[combos, acts], rtol=0, atol=1e-6)
        classes = np.array(HAND_CLASS_LABELS)[HAND_CLASS[combos]]
        assert (rows["hand_class"].astype(str).to_numpy() == classes).all()
        # every combo of the acting player's range that can be dealt on this node's board, each action once
        board = game.boards[t.board[node]]
        expected = {k for k in game.combos[p].tolist() if not set(COMBO_CARDS[k].tolist()) & set(board)}
        assert set(combos.tolist()) == expected
        assert len(rows) == len(expected) * len(actions)


def test_parquet_matches_node_strategy_river(tmp_path, river_solution):
    files = write_outputs(river_solution, tmp_path, plot=False)
    _check_table_against_solution(river_solution, pd.read_parquet(files.parquet))


def test_parquet_matches_node_strategy_turn_small_row_groups(tmp_path, turn_solution):
    from hunl.solver.output import write_strategy_parquet

    path = write_strategy_parquet(turn_solution, tmp_path / "s.parquet", rows_per_group=500)
    import pyarrow.parquet as pq

    assert pq.ParquetFile(path).num_row_groups > 10
    table = pd.read_parquet(path)
    _check_table_against_solution(turn_solution, table)
    # both streets present (the river nodes' missing combos are checked above), same as the in-memory table
    assert set(table["street"].astype(str)) == {"turn", "river"}
    assert table.equals(strategy_frame(turn_solution))


def test_strategy_json(tmp_path, river_solution, turn_solution):
    path = write_strategy_json(river_solution, tmp_path / "r.json")
    data = json.loads(path.read_text())
    t = river_solution.game.tree
    assert [n["node"] for n in data["nodes"]] == np.flatnonzero(t.kind == DECISION).tolist()
    for node in data["nodes"]:
        strat = river_solution.node_strategy(node["node"])
        assert node["actions"] == [t.action[c] for c in t.children(node["node"])]
        for label, probs in node["strategy"].items():
            np.testing.assert_allclose(probs, strat[parse_combo(label)], atol=5e-5 + 1e-12)
            assert all(round(x, 4) == x for x in probs)
    # turn endgame: turn-street nodes only unless full
    game = turn_solution.game
    turn_nodes = [n for n in np.flatnonzero(game.tree.kind == DECISION) if game.betting.street[n] == 4]
    part = json.loads(write_strategy_json(turn_solution, tmp_path / "t.json").read_text())
    assert [n["node"] for n in part["nodes"]] == turn_nodes
    assert part["nodes_written"].startswith("turn street")
    full = json.loads(write_strategy_json(turn_solution, tmp_path / "f.json", full=True).read_text())
    assert len(full["nodes"]) == int(np.count_nonzero(game.tree.kind == DECISION))
    river_node = next(n for n in full["nodes"] if n["street"] == "river")
    river_card = river_node["history"].split("/")
    card = next(tok for tok in river_card if len(tok) == 2 and tok[1] in "shdc")
    assert not any(card in label for label in river_node["strategy"])


def test_a_flop_endgame_names_its_three_streets(tmp_path):
    """Each row's street is its node's (the table once called the flop "turn"), and the JSON holds the flop's
    nodes only unless full."""
    solution = solve_endgame(parse_spot(FLOP).game(dtype="float64"), iterations=1)
    game = solution.game
    decisions = np.flatnonzero(game.tree.kind == DECISION)
    names = {3: "flop", 4: "turn", 5: "river"}
    table = strategy_frame(solution)
    expected = table["node"].map({int(n): names[int(game.betting.street[n])] for n in decisions})
    assert (table["street"].astype(str) == expected).all()
    assert set(table["street"].astype(str)) == {"flop", "turn", "river"}
    part = json.loads(write_strategy_json(solution, tmp_path / "f.json").read_text())
    assert [n["node"] for n in part["nodes"]] == [int(n) for n in decisions if game.betting.street[n] == 3]
    assert {n["street"] for n in part["nodes"]} == {"flop"} and part["nodes_written"].startswith("flop street")


# ---------------------------------------------------------------------- the heatmap
def test_heatmap_cells_are_range_weighted_means(river_solution):
    import matplotlib.pyplot as plt

    fig = first_decision_figure(river_solution)
    game = river_solution.game
    t = game.tree
    actions = [t.action[c] for c in t.children(0)]
    panels = [ax for ax in fig.axes if ax.images and ax.get_title()]
    assert len(panels) == len(actions)
    strat = river_solution.node_strategy(0)
    w = game.weights[0]
    for a, ax in enumerate(panels):
        assert ax.get_title().startswith(actions[a])
        shown = np.ma.filled(ax.images[0].get_array().astype(float), np.nan)
        # independent: loop over the grid cells and their combos
        for cell in range(169):
            ks = [k for k in range(NUM_COMBOS) if HAND_CLASS[k] == cell and w[k] > 0]
            r, c = divmod(cell, 13)
            if not ks:
                assert np.isnan(shown[r, c]), HAND_CLASS_LABELS[cell]
            else:
                want = sum(w[k] * strat[k, a] for k in ks) / sum(w[k] for k in ks)
                assert shown[r, c] == pytest.approx(want, abs=1e-12), HAND_CLASS_LABELS[cell]
        texts = {txt.get_text() for txt in ax.texts}
        assert {"AKs", "AKo", "KK", "22", "32s"} <= texts
    assert "Ks7d2c9h4s" in fig._suptitle.get_text() and "pot 1000" in fig._suptitle.get_text()
    assert "exploitability" in fig._suptitle.get_text()
    plt.close(fig)


def test_combo_labels_in_table_are_known(river_solution):
    table = strategy_frame(river_solution, nodes=[0])
    assert set(table["node"]) == {0}
    assert set(table["combo"].astype(str)) <= set(COMBO_LABELS)
    with pytest.raises(ValueError, match="is not a decision node"):
        terminal = int(np.flatnonzero(river_solution.game.tree.kind != DECISION)[0])
        strategy_frame(river_solution, nodes=[terminal])


def test_an_unwritable_out_fails_before_solving(tmp_path, capsys):
    """--out naming a file (or a read-only place) is refused before the solve, whose result would be lost."""
    import os

    spot = _spot_file(tmp_path, RIVER)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    cases = [(a_file, "--out must be a directory"), (a_file / "sub", "--out: cannot create the directory")]
    if os.geteuid() == 0:
        cases.append(("/proc/rulelearn-spot", "--out: cannot write"))
    for out, message in cases:
        with pytest.raises(SystemExit) as info:
            _cli().main([str(spot), "--json", "--out", str(out)])
        assert info.value.code == 2
        captured = capsys.readouterr()
        assert message in captured.err and "game " not in captured.err and captured.out == ""


def test_cli_print_tree_prints_the_lines_without_solving(tmp_path, capsys):
    # pot 1000, 3000 behind, bets 50% or all-in (3000), pot raises (facing 500: the pot after calling is 2000,
    # raise to 500 + 2000 = 2500), one raise: the root has check, bet 500, all-in; after a check IP has check,
    # bet 500, all-in; a bet of 500 meets fold, call, raise to 2500, all-in; each raise or all-in bet meets fold,
    # call. 1 + 3 + 3 + 2 * 4 + 4 * 2 + 2 * 2 = 27 nodes; 10 decisions, 17 terminals.
    spot = _spot_file(tmp_path, RIVER)
    assert _cli().main([str(spot), "--print-tree", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "27 nodes: 10 decisions, 17 terminals, 0 chance" in out and "17 river lines:" in out
    assert "  OOP check / IP bet 500 / OOP raise to 2500 / IP call\n" in out
    assert "  OOP check / IP bet 500 / OOP raise to 3000 (all-in) / IP call\n" in out
    assert "  OOP bet 3000 (all-in) / IP fold\n" in out
    assert not (tmp_path / "out").exists()  # nothing solved or written
    assert _cli().main([str(spot), "--print-tree", "--max-depth", "1"]) == 0
    assert "  OOP bet 500 / ...\n" in capsys.readouterr().out

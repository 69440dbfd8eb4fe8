"""scripts/solve_spot.py --save / --resume / --load: a saved solve resumed through the CLI equals a straight one,
and a loaded one writes the same strategy table without solving."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from hunl.solver.archive import load_solution

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "solve_spot.py"
RIVER = {
    "name": "tiny_river", "board": "Ks7d2c9h4s", "pot": 1000, "stack": 3000,
    "ranges": {"oop": "KK,AK,77,QJs,65s:0.5", "ip": "QQ,AQs,98s,K9s,JTs"},
    "bet_sizes": {"raise_cap": 1, "river": {"bets": [0.5], "raises": [1.0], "all_in": True}},
    "solver": {"max_iterations": 30, "check_every": 5},
}


@pytest.fixture(scope="module")
def cli():
    spec = importlib.util.spec_from_file_location("solve_spot_cli_archive", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(cli, capsys, args):
    code = cli.main([*args, "--quiet", "--no-plot", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_save_resume_load_through_the_cli(tmp_path, cli, capsys):
    spot = tmp_path / "river.json"
    spot.write_text(json.dumps(RIVER))
    archive = tmp_path / "river.npz"
    code, first = _run(cli, capsys, [str(spot), "--iterations", "12", "--save", str(archive),
                                     "--out", str(tmp_path / "a"), "--dtype", "float64"])
    assert code == 0 and first["iterations"] == 12 and archive.is_file()
    code, resumed = _run(cli, capsys, ["--resume", str(archive), "--iterations", "30", "--out", str(tmp_path / "b")])
    assert code == 0 and resumed["iterations"] == 30
    assert resumed["log"]["iterations"] == [5, 10, 12, 17, 22, 27, 30]
    code, straight = _run(cli, capsys, [str(spot), "--out", str(tmp_path / "c"), "--dtype", "float64"])
    assert straight["iterations"] == 30
    assert resumed["exploitability_chips"] == straight["exploitability_chips"]
    assert load_solution(archive).iterations == 30                     # saved again over the archive
    code, loaded = _run(cli, capsys, ["--load", str(archive), "--out", str(tmp_path / "d")])
    assert code == 0 and loaded["iterations"] == 30
    assert loaded["exploitability_chips"] == straight["exploitability_chips"]
    a = pd.read_parquet(tmp_path / "c" / "strategy.parquet")
    b = pd.read_parquet(tmp_path / "d" / "strategy.parquet")
    np.testing.assert_array_equal(a["probability"].to_numpy(), b["probability"].to_numpy())


@pytest.mark.parametrize("args,match", [
    ([], "exactly one of SPOT"),
    (["--load", "x.npz", "--iterations", "5"], "--load writes"),
    (["--resume", "missing.npz"], "no such"),
    (["--resume", "x.npz", "--raise-cap", "2"], "raise_cap cannot change"),
    (["--load", "x.npz", "--dtype", "float64"], "--dtype"),
])
def test_cli_archive_errors(tmp_path, cli, capsys, args, match):
    with pytest.raises(SystemExit) as exc:
        cli.main([a if not a.endswith(".npz") else str(tmp_path / a) for a in args] + ["--quiet"])
    assert exc.value.code == 2
    assert match in capsys.readouterr().err


def test_locks_file_through_the_cli_is_played_and_saved(tmp_path, cli, capsys):
    spot = tmp_path / "river.json"
    spot.write_text(json.dumps(RIVER))
    locks = tmp_path / "locks.toml"
    locks.write_text('["root"]\n"KK,77" = [1.0, 0.0, 0.0]\n\n["check/bet 500"]\nKK = [0.0, 0.3, 0.7, 0.0]\n')
    archive = tmp_path / "locked.npz"
    code, rec = _run(cli, capsys, [str(spot), "--locks", str(locks), "--save", str(archive), "--out",
                                   str(tmp_path / "o"), "--dtype", "float64"])
    assert code == 0
    sol = load_solution(archive)
    assert sol.result.locks is not None and len(sol.result.locks) == 2
    table = pd.read_parquet(tmp_path / "o" / "strategy.parquet")
    root = table[(table["history"] == "") & table["combo"].astype(str).str.match(r"^K.K.$|^7.7.$")]
    got = root.pivot_table(index="combo", columns="action_index", values="probability", observed=True)
    np.testing.assert_array_equal(got.to_numpy(), np.tile([1.0, 0.0, 0.0], (len(got), 1)))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"root": {"22": [1, 0, 0]}}))
    with pytest.raises(SystemExit):
        cli.main([str(spot), "--locks", str(bad), "--quiet", "--no-plot", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert "bad.json" in err and "names no combo" in err

"""Batch solving over boards (hunl.solver.batch): board sets, suit-isomorphism classes, per-board rows, resuming."""

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hunl.poker.cards import parse_cards
from hunl.poker.ranges import parse_range
from hunl.solver import batch as B
from hunl.solver.solve import solve_endgame
from hunl.solver.spot_files import parse_spot, read_spot_data

ROOT = Path(__file__).resolve().parents[3]
RIVER = ROOT / "examples" / "spots" / "river_small.toml"
FAST = {"max_iterations": 60, "target_pct_pot": None, "check_every": 60}


def _images(board) -> set:
    """Every board a suit permutation maps ``board`` to (brute force)."""
    out = set()
    for perm in itertools.permutations(range(4)):
        out.add(tuple(sorted(4 * (c // 4) + perm[c % 4] for c in board)))
    return out


# ------------------------------------------------------------------------------------------ isomorphism classes
def test_iso_class_counts_match_the_known_figures():
    # 1,755 strategically different flops (PioSOLVER, GTO Wizard); classes cover every board exactly once
    reps, sizes = B._iso_classes(3)
    assert reps.shape[0] == 1755 and sizes.sum() == math.comb(52, 3)
    reps, sizes = B._iso_classes(4)
    assert reps.shape[0] == 16432 and sizes.sum() == math.comb(52, 4)


def test_iso_class_sizes_are_the_orbit_sizes():
    reps, sizes = B._iso_classes(3)
    rng = np.random.default_rng(3)
    for i in rng.choice(reps.shape[0], size=40, replace=False):
        assert len(_images(reps[i])) == sizes[i]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True),
       st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True))
def test_canonical_key_is_equal_exactly_for_isomorphic_boards(a, b):
    ka, kb = B.canonical_boards(np.array([a, b]))
    assert (ka == kb) == (tuple(sorted(b)) in _images(a))


# ------------------------------------------------------------------------------------------ board specifications
def test_turns_of_a_flop_merge_the_swapped_suits():
    # Td9d6h: only the spade/club swap fixes the flop, so the 13 spade turns pair with the 13 club turns;
    # the 11 remaining diamonds and 12 hearts stay alone: 13 + 11 + 12 = 36 classes of 49 cards
    bs = B.parse_boards("turns:Td9d6h", 4, ranges=np.ones((2, 1326)))
    assert len(bs) == 36 and sum(bs.weights) == 49
    assert sorted(bs.weights).count(2.0) == 13
    assert all(b[:3] == parse_cards("Td9d6h") for b in bs.boards)


def test_random_boards_are_distinct_seeded_and_sized():
    a = B.parse_boards("random:50", 4, seed=7)
    assert len(a) == 50 and len({tuple(sorted(b)) for b in a.boards}) == 50
    assert all(len(set(b)) == 4 for b in a.boards)
    assert a.boards == B.parse_boards("random:50", 4, seed=7).boards
    assert a.boards != B.parse_boards("random:50", 4, seed=8).boards


def test_iso_sample_is_distinct_classes():
    bs = B.parse_boards("iso:100", 3, seed=2)
    keys = B.canonical_boards(np.array(bs.boards))
    assert len(bs) == 100 and np.unique(keys).size == 100 and set(bs.weights) == {1.0}
    full = B.parse_boards("iso", 3)
    assert len(full) == 1755 and sum(full.weights) == 22100


def test_board_list_and_file(tmp_path):
    bs = B.parse_boards("QsJh2h8d, Ah7c2d5s", 4)
    assert bs.texts == ["QsJh2h8d", "Ah7c2d5s"]
    f = tmp_path / "boards.txt"
    f.write_text("# turns\nQsJh2h8d\nAh7c2d5s  # a comment\n")
    assert B.parse_boards(f"@{f}", 4).texts == bs.texts


@pytest.mark.parametrize("spec, match", [
    ("random:0", "positive integer"), ("random:x", "positive integer"), ("iso:99999", "only 1,755"),
    ("QsJh2h", "4 cards"), ("QsJh2h8d,QsJh2h8d", "listed twice"), ("QsQs2h8d", "repeats"),
    ("turns:Td9d6h", "turn template"), ("", "non-empty"),
])
def test_bad_board_specs_name_the_rule(spec, match):
    n = 3 if spec.startswith(("iso", "turns")) else 4
    with pytest.raises(ValueError, match=match):
        B.parse_boards(spec, n)


def test_iso_needs_suit_symmetric_ranges():
    w = np.stack([parse_range("AhKh"), parse_range("QQ")])
    with pytest.raises(ValueError, match="suit-symmetric"):
        B.parse_boards("iso:10", 3, ranges=w)


# ------------------------------------------------------------------------------------------ solving and resuming
def test_a_board_row_matches_a_direct_solve():
    data, path = read_spot_data(RIVER)
    data = dict(data, solver=dict(data["solver"], **{k: v for k, v in FAST.items() if v is not None},
                                  target_pct_pot=None))
    board = parse_cards("Ks7d2c9h5s")
    row = B.solve_board(data, path.parent, board)
    spot = parse_spot(dict(data, board="Ks7d2c9h5s"), base_dir=path.parent)
    sol = solve_endgame(spot.game(), spot.solver)
    assert row["ev_oop"] == pytest.approx(spot.pot / 2 + sol.value_chips, abs=1e-6)
    assert row["ev_oop"] + row["ev_ip"] == pytest.approx(spot.pot)
    assert row["exploitability_pct_pot"] == pytest.approx(sol.exploitability_pct_pot, rel=1e-9)
    oop = [k for k in row if k.startswith("oop ")]
    ip = [k for k in row if k.startswith("ip after check: ")]
    assert oop and ip
    assert sum(row[k] for k in oop) == pytest.approx(1.0) and sum(row[k] for k in ip) == pytest.approx(1.0)
    # the OOP frequency of checking, by hand from the root strategy and the range weights
    probs = sol.node_strategy(0)
    w = spot.ranges[0]
    live = w > 0
    assert row["oop check"] == pytest.approx(float(w[live] @ probs[live, 0] / w[live].sum()), abs=1e-6)


def test_run_batch_resumes_and_refuses_another_template(tmp_path):
    out = tmp_path / "batch"
    spec = "Ks7d2c9h5s,Ks7d2c9h3d,Ks7d2c9hJc"
    rep = B.run_batch(RIVER, spec, out, workers=1, overrides=FAST, progress=False, plot=False)
    assert rep.solved == 3 and rep.boards == 3
    table = rep.table
    assert list(table["board"]) == ["Ks7d2c9h5s", "Ks7d2c9h3d", "Ks7d2c9hJc", "mean"]
    assert table["ev_oop_pct_pot"].iloc[-1] == pytest.approx(table["ev_oop_pct_pot"].iloc[:3].mean())
    for f in ("csv", "parquet", "markdown"):
        assert rep.files[f].is_file()
    # a kill after two boards: only the missing board is solved again, the report is unchanged
    (out / "boards" / "Ks7d2c9h3d.json").unlink()
    again = B.run_batch(RIVER, spec, out, workers=1, overrides=FAST, progress=False, plot=False)
    assert again.solved == 1
    cols = [c for c in table.columns if c not in ("seconds", "compile_seconds")]  # wall-clock times
    assert again.table[cols].equals(table[cols])
    # nothing left to do
    assert B.run_batch(RIVER, spec, out, workers=1, overrides=FAST, progress=False, plot=False).solved == 0
    # other settings in the same directory are refused, not mixed
    with pytest.raises(ValueError, match="another template"):
        B.run_batch(RIVER, spec, out, workers=1, overrides=dict(FAST, max_iterations=61), progress=False,
                    plot=False)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["boards"] == spec.split(",")


def test_a_board_the_template_cannot_use_is_refused_before_solving(tmp_path):
    # the river template's OOP range is all kings and sevens etc.; a board is fine, but a 4-card board is not
    with pytest.raises(ValueError, match="5 cards"):
        B.run_batch(RIVER, "Ks7d2c9h", tmp_path / "b", workers=1, progress=False)
    assert not (tmp_path / "b").exists()


@pytest.mark.slow
def test_command_line_runs_and_prints(tmp_path):
    out = tmp_path / "cli"
    cmd = [sys.executable, str(ROOT / "scripts" / "batch_solve.py"), str(RIVER), "--boards", "random:2",
           "--out", str(out), "--workers", "2", "--iterations", "40", "--json", "--quiet", "--no-plot"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    rec = json.loads(res.stdout)
    assert rec["boards"] == 2 and rec["solved"] == 2
    assert (out / "report.md").is_file() and rec["mean"]["board"] == "mean"


def test_a_dask_cluster_gives_the_same_rows_as_local_solving(tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = "Ks7d2c9h5s,Ks7d2c9h3d"
    local = B.run_batch(RIVER, spec, tmp_path / "local", workers=1, overrides=FAST, progress=False, plot=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        remote = B.run_batch(RIVER, spec, tmp_path / "dask", scheduler=client, overrides=FAST, progress=False,
                             plot=False)
    assert remote.solved == 2
    cols = [c for c in local.table.columns if c not in ("seconds", "compile_seconds")]
    assert remote.table[cols].equals(local.table[cols])

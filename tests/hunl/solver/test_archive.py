"""HUNL archives (save, load without solving, resume bitwise) and node locks on river and turn spots, checked
against the locked sequence-form LP and the best response of games.core.best_response."""

import json

import numpy as np
import pytest

from games.core import best_response, solve_lp
from hunl.solver.archive import (
    combo_locks,
    load_archive,
    load_solution,
    resume_solution,
    save_solution,
    spot_from_dict,
    spot_of_game,
    spot_to_dict,
)
from hunl.solver.output import write_outputs
from hunl.solver.solve import solve_endgame
from hunl.solver.spot_files import parse_spot

RIVER = {
    "name": "tiny_river", "board": "Ks7d2c9h4s", "pot": 1000, "stack": 3000,
    "ranges": {"oop": "KK,AK,77,QJs,65s:0.5", "ip": "QQ,AQs,98s,K9s,JTs"},
    "bet_sizes": {"raise_cap": 1, "river": {"bets": [0.5], "raises": [1.0], "all_in": True}},
    "solver": {"max_iterations": 30},
}
TURN = {
    "name": "tiny_turn", "board": "Ks7d2d4d", "pot": 600, "stack": 900,
    "ranges": {"oop": "AA,77,QJs,T9s,A5s", "ip": "KK,AK,T9s,87s,QQ"},
    "bet_sizes": {"raise_cap": 0, "turn": {"bets": [0.75], "raises": [], "all_in": False},
                  "river": {"bets": [1.0], "raises": [], "all_in": True}},
    "solver": {"max_iterations": 40, "compressed": True, "algorithm": "dcfr-reset"},
}


def assert_same_spot(a, b):
    assert spot_to_dict(a) == spot_to_dict(b)
    np.testing.assert_array_equal(a.ranges, b.ranges)


@pytest.mark.parametrize("data", [RIVER, TURN], ids=["river", "turn"])
def test_spot_dictionary_round_trips_exactly(data):
    spot = parse_spot(data).replace(allin_threshold=0.125, raise_cap=None)
    back = spot_from_dict(json.loads(json.dumps(spot_to_dict(spot))))
    assert_same_spot(spot, back)
    assert back.game().tree.n_nodes == spot.game().tree.n_nodes


def test_save_load_gives_the_solution_back_and_writes_outputs(tmp_path):
    spot = parse_spot(RIVER)
    sol = solve_endgame(spot.game(dtype="float64"), spot.solver)
    path = save_solution(sol, tmp_path / "sub" / "river.npz", spot=spot)
    back = load_solution(path)
    assert_same_spot(back.spot, spot)
    np.testing.assert_array_equal(back.result.strategy, sol.result.strategy)
    assert back.exploitability_chips == sol.exploitability_chips      # recomputed from the restored state
    assert back.iterations == 30 and back.algorithm == "dcfr"
    np.testing.assert_array_equal(back.result.log_exploitability, sol.result.log_exploitability)
    files = write_outputs(back, tmp_path / "out", spot=back.spot, plot=False)
    summary = json.loads(files.summary.read_text())
    assert summary["iterations"] == 30 and summary["exploitability_chips"] == pytest.approx(sol.exploitability_chips)
    np.testing.assert_array_equal(back.node_strategy("bet 500"), sol.node_strategy("bet 500"))


def test_save_without_a_spot_rebuilds_it_from_the_game(tmp_path):
    spot = parse_spot(TURN).replace(isomorphism=True)
    game = spot.game()
    assert game.betting.symmetries.shape[0] > 1                          # the isomorphic tree is saved as such
    sol = solve_endgame(game, spot.solver.replace(max_iterations=5))
    back = load_solution(save_solution(sol, tmp_path / "t.npz"))
    np.testing.assert_array_equal(back.result.strategy, sol.result.strategy)
    assert back.spot.isomorphism and back.spot.compressed
    np.testing.assert_array_equal(spot_of_game(game).ranges, spot.ranges)


# pcfr+ and cfr+ resume on two threads after a first run on one; compressed storage resumes on one thread: its
# threaded traversal is compared with one thread by a slow test of test_engine, and this test alone would compile
# it in the default run (about 100 s on a cold numba cache)
@pytest.mark.xdist_group("threaded-solver")  # with test_game's thread test: one worker compiles the threaded traversal
@pytest.mark.parametrize("algorithm,compressed,threads", [("dcfr-reset", True, 1), ("pcfr+", False, 2),
                                                          ("cfr+", False, 2)])
def test_resume_continues_bitwise_on_a_turn_spot(tmp_path, algorithm, compressed, threads):
    spot = parse_spot(TURN).replace(algorithm=algorithm, compressed=compressed, check_every=7)
    game = spot.game()
    full = solve_endgame(game, spot.solver.replace(max_iterations=40))
    part = solve_endgame(game, spot.solver.replace(max_iterations=17))
    path = save_solution(part, tmp_path / "turn.npz", spot=spot)
    res = resume_solution(path, max_iterations=40, threads=threads)
    assert res.iterations == 40 and res.spot.max_iterations == 40
    np.testing.assert_array_equal(res.result.engine.regret, full.result.engine.regret)
    np.testing.assert_array_equal(res.result.engine.avg, full.result.engine.avg)
    np.testing.assert_array_equal(res.result.strategy, full.result.strategy)
    assert res.exploitability_chips == full.exploitability_chips
    with pytest.raises(ValueError, match="same algorithm"):
        resume_solution(path, algorithm="dcfr" if algorithm != "dcfr" else "cfr+")


def _rewrite_spot(src, dst, **changes):
    with np.load(src) as z:
        data = {k: z[k] for k in z.files}
    header = json.loads(str(data["header"]))
    header["extra"]["spot"].update(changes)
    data["header"] = np.array(json.dumps(header))
    with open(dst, "wb") as fh:
        np.savez(fh, **data)
    return dst


def test_archive_of_another_tree_is_refused_naming_the_file(tmp_path):
    spot = parse_spot(RIVER)
    path = save_solution(solve_endgame(spot.game(), spot.solver.replace(max_iterations=3)), tmp_path / "r.npz",
                         spot=spot)
    bad = _rewrite_spot(path, tmp_path / "changed.npz", raise_cap=3)
    with pytest.raises(ValueError, match=r"changed\.npz.*nodes"):
        load_solution(bad)
    plain = tmp_path / "plain.npz"
    with np.load(path) as z:
        data = {k: z[k] for k in z.files}
    header = json.loads(str(data["header"]))
    header["extra"] = {}
    data["header"] = np.array(json.dumps(header))
    with open(plain, "wb") as fh:
        np.savez(fh, **data)
    with pytest.raises(ValueError, match="not a HUNL endgame archive"):
        load_archive(plain)


# ---------------------------------------------------------------------- node locks on HUNL spots
@pytest.fixture(scope="module")
def river():
    return parse_spot(RIVER).game(dtype="float64")


def test_combo_locks_by_class_and_combo(river):
    locks = combo_locks(river, {"": {"KK": [0.0, 0.5, 0.5], "AhKh": [1.0, 0.0, 0.0]}})
    block = locks[0]
    labels = river.hand_labels(0)
    locked = [labels[h] for h in np.flatnonzero(~np.isnan(block[0]))]
    assert sorted(locked) == sorted([lab for lab in labels if lab[0] == "K" and lab[2] == "K"] + ["AhKh"])
    np.testing.assert_array_equal(block[:, labels.index("AhKh")], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="names no combo"):
        combo_locks(river, {"": {"22": [1.0, 0.0, 0.0]}})
    with pytest.raises(ValueError, match="one probability per action"):
        combo_locks(river, {"": {"KK": [1.0, 0.0]}})
    with pytest.raises(ValueError, match="no node"):
        combo_locks(river, {"check/raise": {"KK": [1.0, 0.0]}})


def test_locked_river_solve_matches_the_locked_lp(river, tmp_path):
    # out of position never bets his sets and always bets ace-king; facing a bet after checking, KK calls 30% and
    # raises 70%
    locks = combo_locks(river, {"": {"KK,77": [1.0, 0.0, 0.0], "AK": [0.0, 1.0, 0.0]},
                                "check/bet 500": {"KK": [0.0, 0.3, 0.7, 0.0]}})
    sol = solve_endgame(river, "dcfr", iterations=3000, target_pct_pot=0.002, check_every=10, locks=locks)
    ex = sol.result.exploitability
    assert sol.result.converged
    lp = solve_lp(river, locks=locks)
    assert sol.value_chips == pytest.approx(lp.value, abs=ex.nash_conv + 1e-6)
    assert abs(solve_lp(river).value - lp.value) > 1.0                 # the locks matter
    # the lock is exact in the returned strategy (combo view: NaN off the range)
    root = sol.node_strategy("")
    kk = [i for i, lab in enumerate(river.hand_labels(0)) if lab[0] == "K" and lab[2] == "K"]
    np.testing.assert_array_equal(root[river.combos[0][kk]], np.tile([1.0, 0.0, 0.0], (len(kk), 1)))
    # saved and loaded with its locks; the reloaded exploitability is the restricted game's again
    back = load_solution(save_solution(sol, tmp_path / "locked.npz", spot=parse_spot(RIVER)))
    assert back.result.locks.same_as(sol.result.locks)
    assert back.exploitability_chips == sol.exploitability_chips


def test_locking_a_whole_player_on_the_river_gives_the_best_response_value(river):
    t = river.tree
    rng = np.random.default_rng(5)
    h = river.num_hands[1]
    locks = {int(n): rng.dirichlet(np.ones(int(t.num_children[n])), size=h).T for n in t.decision_nodes(1)}
    sol = solve_endgame(river, "dcfr", iterations=3000, target_pct_pot=1e-4, check_every=10, locks=locks)
    br = best_response(river, sol.result.policy, 0)                     # the unlocked player's best response
    assert sol.result.converged
    assert sol.value_chips == pytest.approx(br.value, abs=1e-6 * river.pot + sol.exploitability_chips * 2)

"""Saving and resuming a CFR run: save at iteration k, load, continue to N = an uninterrupted run to N, bitwise."""

import numpy as np
import pytest

from games.core import solve_cfr
from games.core.checkpoint import load_state, save_state
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem


@pytest.fixture(scope="module")
def leduc():
    return LeducHoldem()


@pytest.mark.parametrize("method,compressed", [("dcfr", False), ("dcfr-reset", False), ("cfr+", False),
                                               ("pcfr+", False), ("cfr", False), ("dcfr", True),
                                               ("dcfr-reset", True)])
def test_resume_from_a_file_equals_an_uninterrupted_run(leduc, tmp_path, method, compressed):
    # 70 iterations cross dcfr-reset's average restarts at 16 and 64: the schedule must follow the global count
    full = solve_cfr(leduc, method, iterations=70, check_every=9, compressed=compressed)
    part = solve_cfr(leduc, method, iterations=23, check_every=9, compressed=compressed)
    path = save_state(tmp_path / "state.npz", part.state(), extra={"note": "leduc"})
    state, extra = load_state(path)
    assert extra == {"note": "leduc"} and state.iteration == 23 and state.config == part.config
    res = solve_cfr(leduc, resume=state, iterations=70, check_every=9)
    assert res.iterations == 70 and res.config == full.config
    for name in ("regret", "avg", "pred", "rscale", "ascale"):
        np.testing.assert_array_equal(getattr(res.engine, name), getattr(full.engine, name), err_msg=name)
    np.testing.assert_array_equal(res.strategy, full.strategy)
    assert res.exploitability == full.exploitability
    # the log continues the saved one: checks at 9, 18, 23 (the save), then every 9 from there
    np.testing.assert_array_equal(res.log_iterations, [9, 18, 23, 32, 41, 50, 59, 68, 70])
    np.testing.assert_array_equal(res.log_exploitability[:3], part.log_exploitability)
    assert res.seconds >= part.seconds


def test_resume_keeps_the_locks_and_refuses_others(leduc, tmp_path):
    t = leduc.tree
    n = int(t.decision_nodes(1)[2])
    h = leduc.num_hands[1]
    locks = {n: np.vstack([np.full(h, 0.25), np.full(h, 0.75)] + [np.zeros(h)] * (t.num_children[n] - 2))}
    full = solve_cfr(leduc, "dcfr", iterations=40, check_every=40, locks=locks)
    part = solve_cfr(leduc, "dcfr", iterations=15, check_every=15, locks=locks)
    state, _ = load_state(save_state(tmp_path / "s.npz", part.state()))
    res = solve_cfr(leduc, resume=state, iterations=40, check_every=40)
    assert res.locks is not None and res.locks.same_as(full.locks)
    np.testing.assert_array_equal(res.strategy, full.strategy)
    other = {n: locks[n][::-1] if t.num_children[n] == 2 else np.roll(locks[n], 1, axis=0)}
    with pytest.raises(ValueError, match="locks differ"):
        solve_cfr(leduc, resume=state, iterations=40, locks=other)


def test_resume_with_nothing_left_to_do_returns_the_saved_solution(leduc):
    part = solve_cfr(leduc, "cfr+", iterations=12, check_every=12)
    res = solve_cfr(leduc, resume=part.state(), iterations=10)
    assert res.iterations == 12
    np.testing.assert_array_equal(res.strategy, part.strategy)
    assert res.exploitability == part.exploitability
    # a target the saved run already met: converged without iterating
    res = solve_cfr(leduc, resume=part.state(), iterations=100, target=part.log_exploitability[-1])
    assert res.converged and res.iterations == 12


def test_resume_refuses_another_game_schedule_or_storage(leduc, tmp_path):
    state = solve_cfr(leduc, "dcfr", iterations=3, check_every=3).state()
    with pytest.raises(ValueError, match="tree of 465 nodes"):
        solve_cfr(KuhnPoker(), resume=state)
    with pytest.raises(ValueError, match="same algorithm and schedule"):
        solve_cfr(leduc, "cfr+", resume=state)
    with pytest.raises(ValueError, match="same algorithm and schedule"):
        solve_cfr(leduc, resume=state, alpha=2.0)
    with pytest.raises(ValueError, match="compressed"):
        solve_cfr(leduc, resume=state, compressed=True)
    with pytest.raises(ValueError, match="SolverState"):
        solve_cfr(leduc, resume="state.npz")


def test_bad_state_files_raise(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such"):
        load_state(tmp_path / "missing.npz")
    bad = tmp_path / "bad.npz"
    bad.write_text("not a zip")
    with pytest.raises(ValueError, match="bad.npz"):
        load_state(bad)
    other = tmp_path / "other.npz"
    np.savez(other, header=np.array('{"format": "something else"}'))
    with pytest.raises(ValueError, match="not a solver state file"):
        load_state(other)
    with pytest.raises(ValueError, match="JSON"):
        save_state(tmp_path / "x.npz", solve_cfr(KuhnPoker(), iterations=2).state(), extra={"x": object()})


def test_damaged_state_files_are_value_errors_naming_the_file(tmp_path):
    """A truncated archive, a single array, a header that is not an object, one lacking a field or with a config
    field the solver does not know: each a ValueError naming the file, not an exception from the reader."""
    import json

    good = tmp_path / "good.npz"
    save_state(good, solve_cfr(KuhnPoker(), iterations=2).state())
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    single = tmp_path / "single.npz"
    with open(single, "wb") as fh:
        np.save(fh, np.zeros(3))
    with np.load(good) as z:
        data = {k: z[k] for k in z.files}
    header = json.loads(str(data["header"]))
    cases = {"truncated": (truncated, "not a solver state file"), "single": (single, "single array")}
    for name, new_header, match in (("list", [1, 2], "not a JSON object"),
                                    ("lacking", {k: v for k, v in header.items() if k != "n_nodes"}, "lacks"),
                                    ("config", {**header, "config": {**header["config"], "colour": 1}},
                                     "solver config")):
        path = tmp_path / f"{name}.npz"
        np.savez(path, **{**data, "header": np.array(json.dumps(new_header))})
        cases[name] = (path, match)
    for path, match in cases.values():
        with pytest.raises(ValueError, match=match) as exc:
            load_state(path)
        assert path.name in str(exc.value)
    assert load_state(good)[0].iteration == 2

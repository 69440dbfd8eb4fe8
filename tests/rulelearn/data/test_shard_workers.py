"""Persistent worker processes (rulelearn.data.executors.ShardWorkers): answers in worker order, and a worker that
dies raises in the caller instead of leaving it waiting forever."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.data.executors import ShardWorkers


def test_workers_answer_in_order():
    with ShardWorkers(importlib.import_module, [("math",), ("cmath",)]) as pool:
        got = pool.ask("sqrt", 4.0)
    assert got[0] == 2.0 and got[1] == 2.0 + 0j and isinstance(got[1], complex)


def test_a_worker_that_dies_while_answering_raises():
    with ShardWorkers(importlib.import_module, [("math",), ("os",)]) as pool:
        with pytest.raises(RuntimeError, match=r"worker process 1 of 2 died \(exit code 3"):
            _kill_second(pool)


def _kill_second(pool):
    # worker 0 (math) answers floor(2.5); worker 1 (os) runs os._exit(3)
    for c, msg in zip(pool.conns, (("floor", 2.5), ("_exit", 3))):
        c.send(msg)
    return [pool._recv(k) for k in range(len(pool.conns))]


def test_a_worker_that_dies_while_starting_raises():
    # the last worker dies while building its state, after the first is ready (the case that used to hang: the
    # parent still held the last worker's end of its pipe)
    with pytest.raises(RuntimeError, match=r"worker process 1 of 2 died \(exit code 5"):
        ShardWorkers(exec, [("pass",), ("import os; os._exit(5)",)])


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 200), workers=st.integers(1, 12))
def test_deal_gives_every_position_once_round_robin(n, workers):
    from rulelearn.data.executors import deal

    parts = deal(n, workers)
    assert len(parts) == min(n, workers) and all(p.size for p in parts)
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(n))
    assert max(p.size for p in parts) - min(p.size for p in parts) <= 1
    assert all(np.all(np.diff(p) == len(parts)) for p in parts)


def test_deal_rejects_empty_work():
    from rulelearn.data.executors import deal

    with pytest.raises(ValueError, match="n must be"):
        deal(0, 2)
    with pytest.raises(ValueError, match="workers must be"):
        deal(3, 0)

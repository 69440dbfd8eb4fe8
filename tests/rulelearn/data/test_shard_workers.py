"""Persistent worker processes (rulelearn.data.executors.ShardWorkers): answers in worker order, and a worker that
dies raises in the caller instead of leaving it waiting forever."""

import importlib

import pytest

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

"""Numba's one-off compilation is timed apart from the work and announced once (issue 12, item 8)."""

import io
import time

import numpy as np
import pytest
from numba import njit

import games.core.cfr as cfr
import games.core.compilation as compilation
from games.core.compilation import NOTICE, compiling
from games.kuhn import KuhnPoker


@pytest.fixture
def fresh_process(monkeypatch):
    """As if nothing had been announced in this process yet."""
    monkeypatch.setattr(compilation, "_announced", False)


def _new_kernel():
    """A kernel nobody has compiled (a new function object each call, no disk cache)."""

    @njit(cache=False)
    def twice(x):
        return 2 * x

    return twice


def test_a_compilation_is_timed_and_announced_once_per_process(fresh_process):
    first, second = _new_kernel(), _new_kernel()
    out = io.StringIO()
    t0 = time.perf_counter()
    with compiling(stream=out) as timer:
        assert first(21) == 42
    wall = time.perf_counter() - t0
    assert timer.compilations == 1 and 0.0 < timer.seconds <= wall
    text = out.getvalue()
    assert text.startswith(NOTICE + "\n") and f"compiled in {timer.seconds:.1f} s" in text

    out = io.StringIO()
    with compiling(stream=out) as timer:
        assert second(1.5) == 3.0
    assert timer.compilations == 1 and timer.seconds > 0.0
    assert out.getvalue() == ""  # the notice is written once per process

    with compiling(stream=out) as timer:
        first(2)  # compiled already: no compilation, nothing to subtract
    assert timer.compilations == 0 and timer.seconds == 0.0 and out.getvalue() == ""


def test_nested_compilations_count_once(fresh_process):
    """A kernel's callees compile inside its own compilation: the outermost event alone is timed."""
    inner = _new_kernel()

    @njit(cache=False)
    def outer(x):
        return inner(x) + 1

    with compiling(announce=False) as timer:
        assert outer(1) == 3
    assert timer.compilations == 1
    assert compilation._announced is False  # announce=False writes nothing and leaves the notice for later


def test_cfr_seconds_exclude_the_compilation(monkeypatch):
    """A slow first call (as a compilation is) lands in compile_seconds, not in seconds."""
    delay = 1.0
    real = cfr._compile

    def slow_compile(engine, params):
        time.sleep(delay)
        return real(engine, params) + delay

    monkeypatch.setattr(cfr, "_compile", slow_compile)
    t0 = time.perf_counter()
    res = cfr.solve_cfr(KuhnPoker(), "dcfr", iterations=10)
    wall = time.perf_counter() - t0
    assert res.compile_seconds >= delay
    assert res.seconds + res.compile_seconds <= wall
    # ten Kuhn iterations take milliseconds; the one-second compilation would put seconds above 1 if counted
    assert res.seconds < delay
    assert np.all(res.log_seconds <= res.seconds)


def test_a_solve_that_compiles_says_so_on_stderr(fresh_process, monkeypatch, capsys):
    from games.core.engine import Engine

    kernel, real = _new_kernel(), Engine.iterate

    def iterate(self, *args):
        kernel(1)  # compiles on the first call, as the solver kernels do on a first run
        return real(self, *args)

    monkeypatch.setattr(Engine, "iterate", iterate)
    res = cfr.solve_cfr(KuhnPoker(), "dcfr", iterations=3)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert NOTICE in captured.err and "compiled in" in captured.err
    assert res.compile_seconds > 0.0


def test_the_solver_kernels_compile_once_per_state_type():
    """The kernels are called with typed arguments, never numba literals: a constant such as ``MODE_CFR`` passed
    as a literal compiles the whole traversal again for each value (a cold run compiled it three times per state
    type, 356 s instead of 123 s on the bench_compile spot). After a DCFR solve (kernels called from
    ``run_iterations``) and a best response (``traverse`` called from Python), no kernel of the traversal has a
    literal-typed signature, and ``traverse`` one signature per state type."""
    from numba.core.dispatcher import Dispatcher

    import games.core.traversal as traversal

    res = cfr.solve_cfr(KuhnPoker(), "dcfr", iterations=5)
    assert 0.0 <= res.exploitability.exploitability < 0.1
    kernels = {name: f for name, f in vars(traversal).items() if isinstance(f, Dispatcher)}
    assert {"traverse", "run_iterations", "_subtree", "_forward", "_backward", "_strategy"} <= set(kernels)
    for name, kernel in kernels.items():
        for sig in kernel.signatures:
            assert "Literal" not in str(sig), (name, sig)
    # one signature per state type and threading mode (argument 4: None for one thread, bool for several)
    state_types = {(str(sig[4]), str(sig[7])) for sig in traversal.traverse.signatures}
    assert len(traversal.traverse.signatures) == len(state_types)


def test_a_serial_traversal_does_not_compile_the_threaded_branch():
    """On one thread the kernels get ``parallel=None`` and numba prunes ``traverse``'s threaded branch before
    typing it: a serial run never compiles ``_items_parallel`` (46 of the 99 s a cold state type took,
    docs/BENCHMARKS.md "Compiling the solver's kernels"). An uncached copy of ``traverse`` compiled for the serial
    signature of a Kuhn solve must not reference it; the same copy for ``parallel`` typed bool must."""
    from numba import njit as jit
    from numba import types

    import games.core.traversal as traversal

    cfr.solve_cfr(KuhnPoker(), "dcfr", iterations=2, threads=1)
    sig = traversal.traverse.signatures[0]
    serial = tuple(types.none if i == 4 else a for i, a in enumerate(sig))
    assert serial in [tuple(s) for s in traversal.traverse.signatures]  # the solve ran with parallel=None
    copy = jit(cache=False)(traversal.traverse.py_func)  # inspectable: not loaded from the cache
    copy.compile(serial)
    ir = copy.inspect_llvm(serial)
    assert "_subtree" in ir and "_items_parallel" not in ir

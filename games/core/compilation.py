"""Numba's one-off compilation: timed apart from the work, and announced the first time it happens.

The solver kernels are compiled by numba on their first call and cached on disk (``cache=True``), so only the
first run on a machine (or after an upgrade) compiles them: tens of seconds, minutes on a busy machine. A later
process loads them from the cache in about half a second. :func:`compiling` marks a block whose numba compilation
must not count as work: it measures the seconds spent compiling inside the block (numba's ``numba:compile``
events, outermost ones only; loading from the cache is not compilation), and when a compilation starts, it
writes :data:`NOTICE` on standard error once per process, so that a first run does not look hung, and the
seconds it took when the block ends.

>>> with compiling() as timer:
...     pass
>>> timer.seconds
0.0
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

from numba.core import event

__all__ = ["NOTICE", "CompileTimer", "compiling"]

#: Written on standard error when a process first compiles kernels inside :func:`compiling`.
NOTICE = ("compiling solver kernels with numba (once: they are cached on disk for later runs; this can take a "
          "minute or more)...")

_lock = threading.Lock()
_announced = False


class CompileTimer(event.Listener):
    """Listener for numba's ``numba:compile`` events: seconds spent in the outermost compilations.

    Attributes
    ----------
    seconds : float
        Wall time of the outermost compilations seen so far (a kernel's callees compile inside it).
    compilations : int
        Number of outermost compilations seen.
    announced : bool
        Whether this timer wrote :data:`NOTICE`.
    """

    def __init__(self, stream=None, announce: bool = True):
        self.seconds = 0.0
        self.compilations = 0
        self.announced = False
        self._stream = stream
        self._announce = announce
        self._depth = 0
        self._t0 = 0.0

    def on_start(self, ev) -> None:
        if self._depth == 0:
            self._t0 = time.perf_counter()
            self.compilations += 1
            if self._announce:
                self._notice()
        self._depth += 1

    def on_end(self, ev) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._t0

    def _notice(self) -> None:
        global _announced
        with _lock:
            if _announced:
                return
            _announced = True
        self.announced = True
        stream = sys.stderr if self._stream is None else self._stream
        print(NOTICE, file=stream, flush=True)


@contextmanager
def compiling(stream=None, announce: bool = True):
    """Time (and announce) numba's compilation inside the block.

    Parameters
    ----------
    stream : file, optional
        Where the notice goes (default: ``sys.stderr`` at the time of writing).
    announce : bool, default True
        Write :data:`NOTICE` when a compilation starts (once per process) and the seconds it took at the end.

    Yields
    ------
    CompileTimer
        Its ``seconds`` hold the compilation time once the block has ended.
    """
    timer = CompileTimer(stream, announce)
    with event.install_listener("numba:compile", timer):
        yield timer
    if timer.announced:
        stream = sys.stderr if stream is None else stream
        print(f"compiled in {timer.seconds:.1f} s; later runs load the cached kernels", file=stream, flush=True)

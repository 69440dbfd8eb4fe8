"""The project's one place for parallel work: independent tasks (in this process, a local process pool, or a Dask
cluster) and persistent workers that keep state between calls.

Independent tasks. :class:`rulelearn.data.database.SolutionDatabase` and the rule frontier
(:mod:`rulelearn.experiments.frontier`) hand an executor a module-level function and a list of argument tuples and
consume the results *in completion order*, so a finished task is used as soon as it finishes, whichever backend
ran it. The executors know nothing about games or shards.

- :class:`SerialExecutor`: this process, in order (``workers=1``; debugging and tests).
- :class:`PoolExecutor`: a :class:`concurrent.futures.ProcessPoolExecutor` with ``spawn`` workers (numba's
  threading layers are not all fork-safe), each limited to one numba thread; an optional ``initializer`` sends
  shared data to each worker once.
- :class:`DaskExecutor`: a ``dask.distributed`` cluster, given by its scheduler address, a ``Client`` or a
  ``Cluster``. Dask is an optional dependency (``pip install "rulelearn[dask]"``), imported only here and only
  when this backend is chosen. The scheduler re-runs the tasks of a worker that dies (including finished tasks
  whose results were still held by that worker and not yet gathered), so a killed worker costs time, not results.

Persistent workers. :class:`ShardWorkers` starts one ``spawn`` process per part of the work; each builds its
state once (e.g. a share of the training endgames with their precomputed leaves, :mod:`hunl.distill.optimal_leaves`)
and answers calls on it until closed, so only small messages travel per iteration.

Orphans. A local worker process never outlives the process that started it: each one calls
:func:`watch_parent` first, which asks Linux to kill it when its parent dies (``prctl(PR_SET_PDEATHSIG)``) and,
on every platform, polls its parent's pid from a daemon thread. A killed ``rulelearn generate`` (even with
``SIGKILL``, which runs no cleanup) therefore leaves no worker running; its finished shards are on disk already.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from rulelearn.validation import check_int

__all__ = ["DaskExecutor", "PoolExecutor", "SerialExecutor", "ShardWorkers", "deal", "import_distributed",
           "limit_numba_threads", "make_executor", "release_memory", "watch_parent"]

#: Seconds between two checks of a worker's parent (the fallback where the kernel does not signal its death).
PARENT_POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def limit_numba_threads() -> None:
    """One numba thread in this process: for worker processes, which are the parallelism themselves (this avoids
    oversubscribing the cores)."""
    try:
        import numba

        numba.set_num_threads(1)
    except Exception:  # pragma: no cover - numba missing or already configured
        pass


def watch_parent(parent_pid: int, interval: float = PARENT_POLL_SECONDS) -> None:
    """End this (worker) process as soon as the process ``parent_pid`` that started it is gone.

    On Linux the kernel sends this process ``SIGKILL`` when its parent dies (``prctl(PR_SET_PDEATHSIG)``); on
    every platform a daemon thread also polls ``os.getppid()`` every ``interval`` seconds (a child is re-parented
    when its parent dies). A worker has nothing to clean up: only the parent writes results. (The kernel's signal
    follows the thread that started the worker; the pools here start their workers from the thread that uses
    them, which outlives them.)

    Parameters
    ----------
    parent_pid : int
        The pid of the parent process, as the parent saw itself (``os.getpid()`` there).
    interval : float
        Seconds between polls.
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the poll below still works
            pass
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)

    def poll() -> None:  # pragma: no cover - runs until the process ends
        while True:
            time.sleep(interval)
            if os.getppid() != parent_pid:
                os._exit(1)

    threading.Thread(target=poll, name="watch-parent", daemon=True).start()


def _call_single_threaded(fn: Callable, args: tuple) -> Any:  # pragma: no cover - runs on Dask workers
    limit_numba_threads()
    return fn(*args)


def _init_pool_worker(initializer, initargs, parent_pid: int) -> None:  # pragma: no cover - in worker processes
    watch_parent(parent_pid)
    limit_numba_threads()
    if initializer is not None:
        initializer(*initargs)


def import_distributed():
    """Import ``dask.distributed`` or explain how to install it.

    Raises
    ------
    ImportError
        If Dask's distributed scheduler is not installed.
    """
    try:
        import distributed
    except ImportError as exc:
        raise ImportError(
            "the Dask backend needs dask.distributed, which is not installed; "
            "install the optional extra with: pip install \"rulelearn[dask]\""
        ) from exc
    return distributed


class SerialExecutor:
    """Run tasks one after another in this process.

    Parameters
    ----------
    initializer : callable, optional
        Called with ``initargs`` once, on entering (as each worker of a :class:`PoolExecutor` would).
    initargs : tuple

    Attributes
    ----------
    workers : int
        Always 1.
    description : str
        ``"1 process"``.
    """

    name = "serial"

    def __init__(self, initializer: Callable | None = None, initargs: tuple = ()):
        self.workers = 1
        self.description = "1 process"
        self._initializer, self._initargs = initializer, tuple(initargs)

    def __enter__(self) -> SerialExecutor:
        if self._initializer is not None:
            self._initializer(*self._initargs)
        return self

    def __exit__(self, *exc) -> None:
        return None

    def imap_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator[Any]:
        """Yield ``fn(*args)`` for each argument tuple, in order."""
        for args in tasks:
            yield fn(*args)


class PoolExecutor:
    """Run tasks in a pool of local ``spawn`` processes with one numba thread each.

    Parameters
    ----------
    workers : int
        Number of processes, at least 2 (use :class:`SerialExecutor` for one).
    initializer : callable, optional
        A module-level function each worker calls with ``initargs`` when it starts (e.g. to keep data that every
        task needs, sent once per worker rather than once per task).
    initargs : tuple

    Raises
    ------
    ValueError
        If ``workers < 2``.
    """

    name = "processes"

    def __init__(self, workers: int, initializer: Callable | None = None, initargs: tuple = ()):
        self.workers = check_int("workers", workers, 2)
        self.description = f"{self.workers} processes"
        self._initializer, self._initargs = initializer, tuple(initargs)
        self._pool = None

    def __enter__(self) -> PoolExecutor:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                         initializer=_init_pool_worker,
                                         initargs=(self._initializer, self._initargs, os.getpid()))
        return self

    def __exit__(self, *exc) -> None:
        # on an error or interrupt, drop the queued tasks; the ones running finish (a shard takes well under 1 s)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None

    def imap_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator[Any]:
        """Yield ``fn(*args)`` for each argument tuple, in completion order.

        Raises
        ------
        Exception
            Whatever a task raised (the remaining queued tasks are cancelled).
        """
        from concurrent.futures import as_completed

        futures = [self._pool.submit(fn, *args) for args in tasks]
        try:
            for fut in as_completed(futures):
                yield fut.result()
        finally:
            for f in futures:
                f.cancel()


class DaskExecutor:
    """Run tasks on a ``dask.distributed`` cluster and gather their results in completion order.

    Parameters
    ----------
    scheduler : str or distributed.Client or distributed.deploy.Cluster
        A scheduler address such as ``"tcp://10.0.0.5:8786"`` (a client is opened and closed here), an existing
        ``Client`` (used as is, left open), or a ``Cluster`` such as a ``LocalCluster`` (a client is opened on it).

    Attributes
    ----------
    workers : int
        Worker threads in the cluster when the executor was entered (the cluster may grow or shrink later).
    description : str
        E.g. ``"dask tcp://127.0.0.1:8786, 2 workers"``.

    Raises
    ------
    ImportError
        If ``dask.distributed`` is not installed.
    TypeError
        If ``scheduler`` is none of the accepted types.
    RuntimeError
        On entering, if the scheduler at the given address cannot be reached.
    ValueError
        If ``scheduler`` is an empty string.

    Notes
    -----
    Each task gets a unique key, so a rerun never reuses a result cached by the cluster. Results are released
    as soon as they are consumed. If a worker dies, the scheduler reassigns its tasks, including finished ones
    whose results it still held; a task is given up only after it killed ``distributed.scheduler.allowed-failures``
    workers (default 3), and that error is raised here.
    """

    name = "dask"

    def __init__(self, scheduler):
        distributed = import_distributed()
        if isinstance(scheduler, str):
            if not scheduler.strip():
                raise ValueError("scheduler must be a Dask scheduler address such as 'tcp://host:8786', got ''")
        elif not isinstance(scheduler, (distributed.Client, distributed.deploy.Cluster)):
            raise TypeError(
                "scheduler must be None (local process pool), a Dask scheduler address such as "
                f"'tcp://host:8786', a distributed.Client or a distributed Cluster; got {type(scheduler).__name__}"
            )
        self._scheduler = scheduler
        self._client = None
        self._owned = False
        self._futures = []
        self.workers = 0
        self.description = "dask"

    def __enter__(self) -> DaskExecutor:
        distributed = import_distributed()
        if isinstance(self._scheduler, distributed.Client):
            self._client, self._owned = self._scheduler, False
        else:
            try:
                self._client, self._owned = distributed.Client(self._scheduler), True
            except OSError as exc:  # includes connection timeouts
                raise RuntimeError(f"cannot reach the Dask scheduler at {self._scheduler!r}: {exc}") from exc
        self.workers = int(sum(self._client.nthreads().values()))
        self.description = f"dask {self._client.scheduler.address}, {self.workers} worker threads"
        return self

    def __exit__(self, *exc) -> None:
        pending = [f for f in self._futures if not f.done()]
        if pending:  # the consumer stopped early (an error or an interrupt): free the cluster
            self._client.cancel(pending)
        self._futures = []
        if self._owned:
            self._client.close()
        self._client = None

    def imap_unordered(self, fn: Callable, tasks: Iterable[tuple]) -> Iterator[Any]:
        """Yield ``fn(*args)`` for each argument tuple, in completion order, computed on the cluster.

        Raises
        ------
        Exception
            Whatever a task raised, or ``distributed.KilledWorker`` if a task kept killing workers (the
            remaining tasks are cancelled).
        """
        distributed = import_distributed()
        run = uuid.uuid4().hex[:12]
        name = getattr(fn, "__name__", "task").strip("_")
        futures = [self._client.submit(_call_single_threaded, fn, args, key=f"rulelearn-{name}-{run}-{k}",
                                       pure=False)
                   for k, args in enumerate(tasks)]
        self._futures = futures
        try:
            # Each result is fetched here, one future at a time, not by ``as_completed(..., with_results=True)``:
            # that gathers in the background in batches, and releasing a future already consumed while a batch
            # holding it is in flight could leave the last result never delivered (an intermittent hang seen in
            # CI, 2026-11-29: the scheduler held the result, the client waited).
            for fut in distributed.as_completed(futures):
                result = fut.result()
                fut.release()
                yield result
        finally:
            self._client.cancel([f for f in futures if not f.done()])


def make_executor(workers: int | None = None, scheduler=None, n_tasks: int | None = None,
                  initializer: Callable | None = None, initargs: tuple = ()):
    """Choose the executor for ``workers`` / ``scheduler`` (not yet entered).

    Parameters
    ----------
    workers : int, optional
        Local processes when ``scheduler`` is ``None``; default all cores (``os.cpu_count()``), capped at
        ``n_tasks``. ``1`` runs in this process. Ignored with a scheduler (the cluster decides).
    scheduler : None or str or distributed.Client or distributed.deploy.Cluster
        ``None`` for local processes; otherwise a Dask cluster (see :class:`DaskExecutor`).
    n_tasks : int, optional
        Number of tasks, to avoid starting idle processes.
    initializer : callable, optional
        Run once per local worker (or once in this process) with ``initargs``; see :class:`PoolExecutor`.
    initargs : tuple

    Returns
    -------
    SerialExecutor or PoolExecutor or DaskExecutor

    Raises
    ------
    ValueError
        If ``workers`` is given and is not a positive integer, or an ``initializer`` is given with a scheduler.
    """
    workers = check_int("workers", workers, 1, allow_none=True)
    if scheduler is not None:
        if initializer is not None:
            raise ValueError("an initializer runs in local workers only; it cannot be combined with a scheduler")
        return DaskExecutor(scheduler)
    n = int(workers or os.cpu_count() or 1)
    if n_tasks is not None:
        n = min(n, max(1, int(n_tasks)))
    if n == 1:
        return SerialExecutor(initializer, initargs)
    return PoolExecutor(n, initializer, initargs)


def _serve(conn, factory: Callable, args: tuple, parent_pid: int) -> None:  # pragma: no cover - in a worker
    watch_parent(parent_pid)
    limit_numba_threads()
    state = factory(*args)
    conn.send("ready")
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            break
        conn.send(getattr(state, msg[0])(*msg[1:]))
    conn.close()


def release_memory() -> None:
    """Return freed heap memory to the operating system (``malloc_trim`` of glibc; nothing elsewhere).

    A worker that builds large state from many short-lived arrays (features read endgame after endgame) keeps the
    freed blocks in its heap; on glibc about as much again as it holds, enough for two such workers to run a
    24 GB machine out of memory. Call it after each large temporary is dropped.
    """
    import gc

    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    """glibc's ``malloc_trim``, or None (found once per process)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:  # pragma: no cover - no C library to load
        return None
    return getattr(libc, "malloc_trim", None)


def deal(n: int, workers: int) -> list[np.ndarray]:
    """Positions ``0 .. n-1`` dealt round-robin into ``min(workers, n)`` parts (at least one): each part an
    int64 array, ``parts[k] = [k, k + w, k + 2w, ...]``, so work listed in blocks of unequal cost (e.g. river
    endgames, then turn endgames) is shared evenly by :class:`ShardWorkers`.

    Parameters
    ----------
    n : int
        Number of positions (e.g. training endgames), ``n >= 1``.
    workers : int
        Number of parts wanted, ``workers >= 1``; at most ``n`` parts are made.

    Returns
    -------
    list of numpy.ndarray of int64
        ``w = min(workers, n)`` arrays; ``parts[k]`` holds the positions ``k, k + w, k + 2w, ... < n``.
        Together they hold every position once.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``workers < 1``, or either is not an integer.
    """
    n, workers = check_int("n", n, 1), check_int("workers", workers, 1)
    k = min(workers, n)
    return [np.arange(i, n, k, dtype=np.int64) for i in range(k)]


class ShardWorkers:
    """Persistent workers, each owning the state ``factory(*args)`` built once for its part of the work.

    Parameters
    ----------
    factory : callable
        A module-level class or function building a worker's state from one entry of ``parts``.
    parts : sequence of tuple
        One argument tuple per worker.
    local : bool, default False
        Build one state from ``parts[0]`` in this process instead (no worker processes; ``parts`` must then hold
        exactly one entry).

    Notes
    -----
    Each worker is a ``spawn`` process with one numba thread; :meth:`ask` sends the same small message to all and
    returns their answers in worker order, so results do not depend on timing. Use as a context manager (or call
    :meth:`close`).

    Raises
    ------
    ValueError
        If ``parts`` is empty, or holds several entries with ``local``.
    RuntimeError
        If a worker fails to start, or dies while building its state or answering (:meth:`ask`).
    """

    def __init__(self, factory: Callable, parts, local: bool = False):
        parts = [tuple(p) for p in parts]
        if not parts or (local and len(parts) != 1):
            raise ValueError("ShardWorkers needs one argument tuple per worker (exactly one when local)")
        self.procs, self.conns, self.local = [], [], None
        if local:
            self.local = factory(*parts[0])
            return
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        for args in parts:
            a, b = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(b, factory, args, os.getpid()), daemon=True)
            proc.start()
            b.close()             # the worker holds the other end alone: its death ends the pipe (EOFError)
            self.procs.append(proc)
            self.conns.append(a)
        try:
            for k in range(len(self.conns)):
                if self._recv(k) != "ready":  # pragma: no cover
                    raise RuntimeError("a worker process failed to start")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> ShardWorkers:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def ask(self, method: str, *args) -> list:
        """``state.<method>(*args)`` of every worker, in worker order."""
        if self.local is not None:
            return [getattr(self.local, method)(*args)]
        for c in self.conns:
            c.send((method, *args))
        return [self._recv(k) for k in range(len(self.conns))]

    def _recv(self, k: int):
        """Worker ``k``'s answer; a worker that died (killed for memory, say) raises instead of hanging."""
        try:
            return self.conns[k].recv()
        except (EOFError, ConnectionResetError):
            proc = self.procs[k]
            proc.join(timeout=5)
            raise RuntimeError(f"worker process {k} of {len(self.procs)} died (exit code {proc.exitcode}; -9 is a "
                               "kill, e.g. by the kernel when memory runs out)") from None

    def close(self) -> None:
        """Stop the worker processes (waiting up to 10 s each)."""
        for c in self.conns:
            try:
                c.send(("stop",))
            except OSError:  # a worker that died
                pass
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():  # pragma: no cover
                proc.terminate()
        self.procs, self.conns = [], []

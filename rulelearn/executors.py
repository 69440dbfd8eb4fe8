"""Where independent tasks run: in this process, in a local process pool (the default), or on a Dask cluster.

:class:`rulelearn.database.SolutionDatabase` hands one of these executors a module-level function and a list of
argument tuples (one per shard) and consumes the results *in completion order*, so a finished task is stored as
soon as it finishes, whichever backend ran it. The executors know nothing about games or shards.

- :class:`SerialExecutor`: this process, in order (``workers=1``; debugging and tests).
- :class:`PoolExecutor`: a :class:`concurrent.futures.ProcessPoolExecutor` with ``spawn`` workers (numba's
  threading layers are not all fork-safe), each limited to one numba thread.
- :class:`DaskExecutor`: a ``dask.distributed`` cluster, given by its scheduler address, a ``Client`` or a
  ``Cluster``. Dask is an optional dependency (``pip install "rulelearn[dask]"``), imported only here and only
  when this backend is chosen. The scheduler re-runs the tasks of a worker that dies (including finished tasks
  whose results were still held by that worker and not yet gathered), so a killed worker costs time, not results.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["DaskExecutor", "PoolExecutor", "SerialExecutor", "import_distributed", "make_executor"]


def _limit_numba_threads() -> None:
    """One numba thread per worker: the workers are the parallelism (avoids oversubscribing the cores)."""
    try:
        import numba

        numba.set_num_threads(1)
    except Exception:  # pragma: no cover - numba missing or already configured
        pass


def _call_single_threaded(fn: Callable, args: tuple) -> Any:  # pragma: no cover - runs on Dask workers
    _limit_numba_threads()
    return fn(*args)


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

    Attributes
    ----------
    workers : int
        Always 1.
    description : str
        ``"1 process"``.
    """

    name = "serial"

    def __init__(self):
        self.workers = 1
        self.description = "1 process"

    def __enter__(self) -> SerialExecutor:
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

    Raises
    ------
    ValueError
        If ``workers < 2``.
    """

    name = "processes"

    def __init__(self, workers: int):
        if int(workers) != workers or workers < 2:
            raise ValueError(f"workers must be an integer >= 2 for a process pool, got {workers!r}")
        self.workers = int(workers)
        self.description = f"{self.workers} processes"
        self._pool = None

    def __enter__(self) -> PoolExecutor:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                         initializer=_limit_numba_threads)
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
            for fut, result in distributed.as_completed(futures, with_results=True):
                fut.release()
                yield result
        finally:
            self._client.cancel([f for f in futures if not f.done()])


def make_executor(workers: int | None = None, scheduler=None, n_tasks: int | None = None):
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

    Returns
    -------
    SerialExecutor or PoolExecutor or DaskExecutor

    Raises
    ------
    ValueError
        If ``workers`` is given and is not a positive integer.
    """
    if workers is not None and (isinstance(workers, bool) or int(workers) != workers or workers < 1):
        raise ValueError(f"workers must be a positive integer or None (all cores), got {workers!r}")
    if scheduler is not None:
        return DaskExecutor(scheduler)
    n = int(workers or os.cpu_count() or 1)
    if n_tasks is not None:
        n = min(n, max(1, int(n_tasks)))
    return SerialExecutor() if n == 1 else PoolExecutor(n)

"""Settings for the whole test run.

Under pytest-xdist (the default ``-n auto`` of ``pyproject.toml``) every core already runs a worker process, so
each worker's numba kernels run on one thread: two workers with two numba threads each would oversubscribe a
2-core machine, and every solve of a large enough game would also compile the solver's threaded branch
(``games.core.traversal._items_parallel``, about 46 s per state type on a cold cache). Tests of the threaded
solver pass ``threads=2`` explicitly: its partitioning and merging run as in production, on one thread. A run
with ``-n 0`` keeps numba's default thread count. Set before any test module imports numba.
"""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")

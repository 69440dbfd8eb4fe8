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


def pytest_collection_modifyitems(config, items):
    """Lift pytest-timeout's per-test limit (``timeout`` in ``pyproject.toml``) from tests marked slow that set
    none themselves: they run by hand (``pytest -m slow``), and some (the full preflop equity table build) take
    longer than a hung default test is allowed to."""
    import pytest

    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(0))

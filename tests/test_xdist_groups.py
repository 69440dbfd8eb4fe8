"""The test run's xdist groups take effect (pyproject.toml: ``--dist loadgroup``).

The threaded solver's tests and the modules with an expensive module fixture carry an ``xdist_group`` so that one
worker compiles the threaded traversal and builds each fixture once; pytest-xdist marks a grouped test by adding
``@group`` to its node id. If a pytest or pytest-xdist release stops doing that, the groups are silently ignored
and the run takes minutes longer: this test fails instead.
"""

from __future__ import annotations

import os

import pytest


@pytest.mark.xdist_group("threaded-solver")
def test_a_grouped_test_runs_in_its_group(request):
    if not os.environ.get("PYTEST_XDIST_WORKER") or not request.config.getvalue("loadgroup"):
        pytest.skip("not distributed by group (pytest -n 0, or another --dist)")
    assert request.node.nodeid.endswith("@threaded-solver")

"""The test run's per-test limit (pyproject.toml: pytest-timeout's ``timeout``) and its exemption of slow tests.

A hung test (a Dask result never delivered) once held CI until its 90-minute limit; with the limit it fails with
every thread's stack. Tests marked slow run by hand and some take longer than the limit, so the root conftest lifts
it from them.
"""

from __future__ import annotations

import pytest

from tests.conftest import pytest_collection_modifyitems


def test_the_default_run_has_a_per_test_limit(request):
    assert float(request.config.getini("timeout")) == 600
    assert request.config.getini("timeout_method") == "signal"


class _Item:
    """The part of a pytest item the hook reads and writes."""

    def __init__(self, *marks):
        self.own_marks = list(marks)

    def get_closest_marker(self, name):
        return next((m for m in self.own_marks if m.name == name), None)

    def add_marker(self, marker):
        self.own_marks.append(marker.mark)


def test_slow_tests_lose_the_limit_unless_they_set_their_own():
    plain = _Item()
    slow = _Item(pytest.mark.slow.mark)
    slow_with_own = _Item(pytest.mark.slow.mark, pytest.mark.timeout(30).mark)
    pytest_collection_modifyitems(None, [plain, slow, slow_with_own])
    assert plain.get_closest_marker("timeout") is None
    assert slow.get_closest_marker("timeout").args == (0,)
    assert slow_with_own.get_closest_marker("timeout").args == (30,)

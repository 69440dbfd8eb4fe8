"""The examples in the docstrings run and print what they claim."""

import doctest
import importlib

import pytest

MODULES = ["games.betgame", "games.betgame.lp"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0

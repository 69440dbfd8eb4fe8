"""Every public function (named in its module's ``__all__``) of rulelearn, games and hunl has a numpydoc docstring:
one that takes parameters documents them in a ``Parameters`` section."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

PACKAGES = ("rulelearn", "games", "hunl")


def public_functions():
    """``(module name, function name, function)`` of every function listed in a module's ``__all__`` and defined
    there (re-exports are checked where they are defined)."""
    out = []
    for pkg in PACKAGES:
        root = importlib.import_module(pkg)
        for info in pkgutil.walk_packages(root.__path__, pkg + "."):
            mod = importlib.import_module(info.name)
            for name in getattr(mod, "__all__", ()):
                obj = getattr(mod, name, None)
                if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
                    out.append((mod.__name__, name, obj))
    return out


def bare(functions) -> list[str]:
    """The functions of ``functions`` that take parameters and have no numpydoc ``Parameters`` section (the
    heading and its underline)."""
    return [f"{m}.{n}" for m, n, f in functions
            if inspect.signature(f).parameters and "\nParameters\n----------\n" not in (inspect.getdoc(f) or "")]


def test_public_functions_document_their_parameters():
    functions = public_functions()
    assert ("games.core.sequence_lp", "build_sequence_form") in {(m, n) for m, n, _ in functions}
    missing = bare(functions)
    assert not missing, f"public functions with parameters and no Parameters section: {missing}"


def test_parameters_in_prose_only_are_bare():
    def prose_only(x):
        """Only a summary, ``x`` in prose.

        More prose about ``x``.
        """

    def full(x):
        """A summary.

        Parameters
        ----------
        x : int
        """

    def no_parameters():
        """Only a summary."""

    assert bare([("m", "prose_only", prose_only), ("m", "full", full), ("m", "none", no_parameters)]) == ["m.prose_only"]

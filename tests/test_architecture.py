"""The layout's rules, checked on the source (docs/ARCHITECTURE.md):

* imports point down only: scripts and benchmarks -> hunl -> games -> rulelearn (a package imports its own layer
  and the ones below it, never one above);
* no module imports a private name (``_name``) or a private module of another package; scripts and benchmarks
  import no private name (but a benchmark of the private kernels of the one module it measures), and reach no
  other script through ``sys.path``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Layers, lowest first: a package may import its own layer and the ones before it.
LAYERS = ("rulelearn", "games", "hunl")
LIBRARY = LAYERS
ENTRY_POINTS = ("scripts", "benchmarks")
#: Entry points that may import private names of the one module they measure: (file, module).
MEASURES_PRIVATE = {("benchmarks/bench_evaluator.py", "hunl.poker.evaluator")}  # the 5/6-card kernels


def _sources(*tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (ROOT / top).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_package(name: str) -> bool:
    return (ROOT / Path(*name.split(".")) / "__init__.py").exists()


def _package_of(module: str) -> str:
    """The package a module belongs to: the module itself if it is a package, else its parent."""
    return module if _is_package(module) else module.rpartition(".")[0]


def _imports(path: Path):
    """``(line, imported module, imported name or None)`` for every import of ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    me = _module_name(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                anchor = _package_of(me).split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                yield node.lineno, base, alias.name


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def test_imports_point_down_only():
    bad = []
    for path in _sources(*LIBRARY):
        layer = LAYERS.index(_module_name(path).split(".")[0])
        for line, module, _ in _imports(path):
            top = module.split(".")[0]
            if top in LAYERS and LAYERS.index(top) > layer:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module} (a layer above)")
            if top in ENTRY_POINTS:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module} (an entry point)")
    assert not bad, "\n".join(bad)


def _is_module(name: str) -> bool:
    path = ROOT / Path(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _what(module: str, name: str | None) -> tuple[str, str]:
    """``(dotted name imported, package that owns it)`` of ``from module import name`` (or ``import module``)."""
    if name is not None and _is_module(f"{module}.{name}"):
        module, name = f"{module}.{name}", None
    return (module if name is None else f"{module}.{name}"), _package_of(module)


def test_no_private_name_crosses_a_package():
    bad = []
    for path in _sources(*LIBRARY, *ENTRY_POINTS):
        me = _module_name(path)
        entry = me.split(".")[0] in ENTRY_POINTS
        for line, module, name in _imports(path):
            if module.split(".")[0] not in LAYERS:
                continue
            dotted, owner = _what(module, name)
            private = [p for p in dotted.split(".") if _private(p)]
            if (str(path.relative_to(ROOT)), module) in MEASURES_PRIVATE:
                continue
            if private and (entry or owner != _package_of(me)):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {private[0]} ({dotted}) from package {owner}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("top", ENTRY_POINTS)
def test_entry_points_do_not_reach_each_other(top):
    """No script imports another script or edits ``sys.path`` to do so."""
    names = {p.stem for p in _sources(*ENTRY_POINTS)}
    bad = []
    for path in _sources(top):
        text = path.read_text()
        if "sys.path" in text:
            bad.append(f"{path.relative_to(ROOT)} edits sys.path")
        for line, module, _ in _imports(path):
            if module.split(".")[0] in names:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports the script {module}")
    assert not bad, "\n".join(bad)


def test_the_checker_resolves_names():
    """The rules' helpers: what is private, which package owns a module or a name."""
    assert _private("_kernels") and not _private("__future__") and not _private("kernels")
    assert _package_of("games.core.best_response") == "games.core" and _package_of("games.core") == "games.core"
    assert _what("games.core", "_kernels") == ("games.core._kernels", "games.core")
    assert _what("games.core.best_response", "_evaluator") == ("games.core.best_response._evaluator", "games.core")
    assert _what("hunl", None) == ("hunl", "hunl")

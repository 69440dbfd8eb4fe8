"""Shared by the benchmark scripts: the machine's CPU model, and writing one marked section of docs/BENCHMARKS.md."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"


def cpu_model() -> str:
    """The CPU model from ``lscpu`` (or ``platform.processor()``)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown"


def write_section(text: str, start: str, end: str, path: Path = BENCHMARKS_MD) -> None:
    """Replace the section between the markers ``start`` and ``end`` (``text`` includes them), or append it."""
    old = path.read_text() if path.exists() else "# Benchmarks\n\nFigures measured on this project's machine.\n"
    if start in old and end in old:
        new = old[: old.index(start)] + text + old[old.index(end) + len(end):]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(new)

"""Render the numbers of a ``scripts/hunl_pipeline.py`` run into ``docs/HUNL.md`` (marked values and tables).

Usage (the pipeline renders the doc itself with ``--doc``; this re-renders it from a saved run)::

    python scripts/hunl_report.py data/hunl/results.json

The rendering is :func:`hunl.distill.report.render_doc`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hunl.distill.report import render_doc

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    res = json.loads(Path(args[0]).read_text())
    path = ROOT / "docs" / "HUNL.md"  # the pipeline writes docs/hunl_results.json beside it
    path.write_text(render_doc(path.read_text(), res))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Render the numbers of a ``scripts/hunl_pipeline.py`` run into ``docs/HUNL.md`` (marked values and tables).

Usage (the pipeline renders the doc itself with ``--doc``; this re-renders it from a saved run)::

    python scripts/hunl_report.py data/hunl/results.json [--doc docs/HUNL.md]

The rendering is :func:`hunl.distill.report.render_doc`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hunl.distill.report import render_doc

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Render the results of a scripts/hunl_pipeline.py run (its results.json) into the marked "
                    "values and tables of docs/HUNL.md.")
    parser.add_argument("results", help="results JSON of a pipeline run (e.g. data/hunl/results.json)")
    parser.add_argument("--doc", default=str(ROOT / "docs" / "HUNL.md"),
                        help="Markdown page to render into (default docs/HUNL.md)")
    args = parser.parse_args(argv)
    results, doc = Path(args.results), Path(args.doc)
    for name, path in (("results", results), ("--doc", doc)):
        if not path.is_file():
            parser.error(f"{name}: no such file {str(path)!r}")
    doc.write_text(render_doc(doc.read_text(), json.loads(results.read_text())))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

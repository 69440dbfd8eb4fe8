#!/usr/bin/env python
"""Print the exact heads-up push/fold chart at a stack, and the rule cards with their cost in mbb/g.

Usage::

    python scripts/pushfold.py --stack 10 [--ante A] [--small-blind B] [--method lp|dcfr]
                               [--hands classes|combos] [--rules stored|beam|mip] [--max-rules N]
                               [--thresholds] [--json]

See ``python scripts/pushfold.py --help`` and docs/PREFLOP.md.
"""

from __future__ import annotations

import sys

from hunl.preflop.cli import main

if __name__ == "__main__":
    sys.exit(main())

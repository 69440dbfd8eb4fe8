#!/usr/bin/env python
"""Generate a solution database of random bet games (resumable; see ``rulelearn generate --help``).

Examples::

    python scripts/generate_db.py --games 100000 --db data/betgame                  # all local cores
    python scripts/generate_db.py --games 100000 --scheduler tcp://10.0.0.5:8786    # a Dask cluster
    python scripts/generate_db.py --games 100000 --repair       # re-solve shards found corrupt or truncated

Killed at any time, it resumes where it stopped; the same database can be continued on either backend.
"""

import sys

from rulelearn.cli import main

if __name__ == "__main__":
    sys.exit(main(["generate", *sys.argv[1:]]))

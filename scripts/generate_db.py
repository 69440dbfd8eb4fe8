#!/usr/bin/env python
"""Generate a solution database of random bet games (resumable; see ``rulelearn generate --help``).

Example: ``python scripts/generate_db.py --games 100000 --db data/betgame``
"""

import sys

from rulelearn.cli import main

if __name__ == "__main__":
    sys.exit(main(["generate", *sys.argv[1:]]))

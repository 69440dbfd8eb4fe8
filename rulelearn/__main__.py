"""``python -m rulelearn``: the command line of :mod:`rulelearn.cli`."""

import sys

from rulelearn.cli import main

if __name__ == "__main__":
    sys.exit(main())

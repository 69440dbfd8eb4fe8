"""Published figures the exact results are checked against (tests and docs/PREFLOP.md), with their sources.

Heads-up push/fold charts: HoldemResources.net (HRC), "HeadsUp Push/Fold Nash Equilibrium" charts. Conventions
from HoldemResources.net, "Using the Nash Charts" (holdemresources.net/h/poker-theory/hune/usage.html): each cell
is "the highest effective stack size in big blinds where a hand can be pushed or called"; "20+" means every stack
of 20 bb or less; "*" marks hands with gaps in their pushing strategies (63s is pushed "between 7.1 and 5.1bb,
and stacks below 2.3bb"); the effective stack is counted before posting the blinds; no ante. The values were read
from the copy of the charts at diateforno1987.netlify.app/nash-chart-poker (the same pusher chart is at
nistjeclaediccanduc.netlify.app/nash-poker-shove-chart). The copy holds the whole pusher chart and the caller
chart's rows A to 8 plus the first four cells of row 7. Grid layout as :mod:`hunl.poker.cards`: rows and columns
A..2, suited hands above the diagonal, offsuit below.
"""

from __future__ import annotations

__all__ = ["HRC_CALL", "HRC_PUSH", "HRC_SOURCE"]


def _cells(text: str) -> tuple[str, ...]:
    """The whitespace-separated cells of a chart typed row by row."""
    return tuple(text.split())


#: Where the HRC charts were read.
HRC_SOURCE = ("HoldemResources.net HeadsUp Push/Fold Nash charts (conventions: holdemresources.net/h/poker-theory/"
              "hune/usage.html; values read from the copy at diateforno1987.netlify.app/nash-chart-poker)")

#: The HRC pusher chart, 169 cells in grid-cell order.
HRC_PUSH = _cells("""
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 19.9 19.3
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 16.3 13.5 12.7
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 18.6 14.7 13.5 10.6 8.5
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 11.9 10.5 7.7 6.5
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 14.4 6.9 4.9 3.7
20+ 18.0 13.0 13.3 17.5 20+ 20+ 20+ 20+ 18.8 10.1 2.7 2.5
20+ 16.1 10.3 8.5 9.0 10.8 14.7 20+ 20+ 20+ 13.9 2.5 2.1
20+ 15.1 9.6 6.5 5.7 5.2 7.0 10.7 20+ 20+ 16.3 * 2.0
20+ 14.2 8.9 6.0 4.1 3.5 3.0 2.6 2.4 20+ 20+ * 2.0
20+ 13.1 7.9 5.4 3.8 2.7 2.3 2.1 2.0 2.1 20+ * 1.8
20+ 12.2 7.5 5.0 3.4 2.5 1.9 1.8 1.7 1.8 1.6 20+ 1.7
20+ 11.6 7.0 4.6 2.9 2.2 1.8 1.6 1.5 1.5 1.4 1.4 20+
""")

#: The HRC caller chart: rows A to 8 and the first four cells of row 7 (95 cells, grid-cell order).
HRC_CALL = _cells("""
20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+ 20+
20+ 20+ 20+ 20+ 20+ 20+ 17.6 15.2 14.3 13.2 12.1 11.4 10.7
20+ 20+ 20+ 20+ 20+ 16.1 13.0 10.5 9.9 8.9 8.4 7.8 7.2
20+ 20+ 19.5 20+ 18.0 13.4 10.6 8.8 7.0 6.9 6.1 5.8 5.6
20+ 20+ 15.3 12.7 20+ 11.5 9.3 7.4 6.3 5.2 5.2 4.8 4.5
20+ 17.1 11.7 9.5 8.4 20+ 8.2 7.0 5.8 5.0 4.3 4.1 3.9
20+ 13.8 9.7 7.6 6.6 6.0 20+ 6.5 5.6 4.8 4.1 3.6 3.5
20+ 12.4 8.0 6.4
""")

assert len(HRC_PUSH) == 169 and len(HRC_CALL) == 95

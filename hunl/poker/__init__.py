"""Hold'em itself: cards and combos, the solver range syntax, and hand ranking.

* :mod:`hunl.poker.cards` -- cards, the 1,326 combos, boards, the 13x13 hand grid;
* :mod:`hunl.poker.ranges` -- the range syntax (``"AA,KQs,T9s-76s,A5o+,AsKh,QQ:0.5"``), parse and print;
* :mod:`hunl.poker.evaluator` -- a numba 7-card hand evaluator and the strength order of all combos on a board.
"""

"""Heads-up no-limit hold'em (HUNL) postflop endgames.

* :mod:`hunl.cards` -- cards, the 1,326 combos, boards, the 13x13 hand grid;
* :mod:`hunl.ranges` -- the solver range syntax (``"AA,KQs,T9s-76s,A5o+,AsKh,QQ:0.5"``), parse and print;
* :mod:`hunl.evaluator` -- a numba 7-card hand evaluator and the strength order of all combos on a board;
* :mod:`hunl.tree` -- betting trees for turn and river endgames (pot-fraction bets and raises, all-in, caps);
* :mod:`hunl.game` -- :class:`HoldemEndgame`, the endgame as a game of the solver core (:mod:`games.core`) with the
  O(n) sorted showdown and float32 storage;
* :mod:`hunl.solver` -- :func:`solve_endgame` (DCFR or CFR+) with exploitability in chips, % of pot and mbb/g;
* :mod:`hunl.libratus` -- the four Libratus endgames (Brown & Sandholm 2019);
* :mod:`hunl.spot`, :mod:`hunl.output` -- spot files and the strategy tables/heatmap of ``scripts/solve_spot.py``.

Distillation (``scripts/hunl_pipeline.py``, docs/HUNL.md):

* :mod:`hunl.random_endgames`, :mod:`hunl.family` -- random river/turn endgames and the ``"hunl_river"`` family
  that solves them into a solution database;
* :mod:`hunl.features` -- equity against a range, range percentile, equity deciles, E[HS], E[HS^2];
  :mod:`hunl.abstraction` -- card-abstraction encoders with their encoding error;
* :mod:`hunl.actions` -- ordered action classes shared by all trees; :mod:`hunl.decisions` -- decisions as
  feature rows; :mod:`hunl.distill` -- per-street trees and self-play; :mod:`hunl.optimal_leaves` -- leaf
  strategies of least exploitability (CFR-BR); :mod:`hunl.evaluate` -- exploitability and EV inside endgames;
  :mod:`hunl.fundamental` -- rules with coverage and cost; :mod:`hunl.pipeline` -- the parallel steps.
"""

from hunl.distill import CheckCall, DistilledPolicy, EquityThreshold, UniformRandom, play
from hunl.evaluate import PolicyEvaluation, evaluate_policy
from hunl.family import HoldemRiverFamily
from hunl.game import HoldemEndgame
from hunl.optimal_leaves import optimise_leaves
from hunl.random_endgames import EndgameSampler
from hunl.libratus import ENDGAMES, LibratusEndgame, load_endgame
from hunl.ranges import check_range, format_range, parse_range
from hunl.solver import EndgameSolution, solve_endgame
from hunl.tree import LIBRATUS_SIZES, BetSizes, TreeConfig, build_tree

__all__ = [
    "ENDGAMES",
    "LIBRATUS_SIZES",
    "BetSizes",
    "CheckCall",
    "DistilledPolicy",
    "EndgameSampler",
    "EquityThreshold",
    "HoldemRiverFamily",
    "PolicyEvaluation",
    "UniformRandom",
    "evaluate_policy",
    "optimise_leaves",
    "play",
    "EndgameSolution",
    "HoldemEndgame",
    "LibratusEndgame",
    "TreeConfig",
    "build_tree",
    "check_range",
    "format_range",
    "load_endgame",
    "parse_range",
    "solve_endgame",
]

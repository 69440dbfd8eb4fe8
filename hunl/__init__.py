"""Heads-up no-limit hold'em (HUNL) postflop endgames, in three subpackages:

* :mod:`hunl.poker` -- cards, ranges, hand ranking;
* :mod:`hunl.solver` -- betting trees, the endgame as a game of the solver core (:mod:`games.core`), DCFR, the
  Libratus endgames, spot files and outputs;
* :mod:`hunl.distill` -- random endgames and the ``"hunl_river"`` family, interpretable features, distilled
  per-street trees, optimal leaves, what a policy costs, rules, the pipeline.

The main public names are re-exported here.
"""

from hunl.distill.cost import PolicyEvaluation, evaluate_policy
from hunl.distill.family import HoldemRiverFamily
from hunl.distill.optimal_leaves import optimise_leaves
from hunl.distill.policy import CheckCall, DistilledPolicy, EquityThreshold, UniformRandom, play
from hunl.distill.sampler import EndgameSampler
from hunl.poker.ranges import check_range, format_range, parse_range
from hunl.solver.game import HoldemEndgame
from hunl.solver.libratus import ENDGAMES, LibratusEndgame, load_endgame
from hunl.solver.settings import SolverSettings
from hunl.solver.solve import EndgameSolution, solve_endgame
from hunl.solver.tree import LIBRATUS_SIZES, BetSizes, StreetSizes, TreeConfig, build_tree

__all__ = [
    "ENDGAMES",
    "LIBRATUS_SIZES",
    "BetSizes",
    "StreetSizes",
    "CheckCall",
    "DistilledPolicy",
    "EndgameSampler",
    "EndgameSolution",
    "EquityThreshold",
    "HoldemEndgame",
    "HoldemRiverFamily",
    "LibratusEndgame",
    "PolicyEvaluation",
    "SolverSettings",
    "TreeConfig",
    "UniformRandom",
    "build_tree",
    "check_range",
    "evaluate_policy",
    "format_range",
    "load_endgame",
    "optimise_leaves",
    "parse_range",
    "play",
    "solve_endgame",
]

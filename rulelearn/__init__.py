"""rulelearn: distil game-theoretic solutions into human-readable rules and measure what they cost.

Game-agnostic layer: random private-information distributions, representations, earth mover's distances,
EMD-aware learners, rule extraction, and the solution database.
"""

__version__ = "0.1.0"

"""How an endgame is solved: one :class:`SolverSettings` shared by spot files (:mod:`hunl.solver.spot`), the
``hunl_river`` family (:mod:`hunl.distill.family`) and :func:`hunl.solver.solve.solve_endgame`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rulelearn.validation import check_int, check_real

__all__ = ["ALGORITHMS", "SolverSettings"]

#: Algorithms of the CFR family an endgame can be solved with (:data:`games.core.VARIANTS`).
ALGORITHMS = ("dcfr", "dcfr-reset", "pcfr+", "cfr+", "cfr")


@dataclass(frozen=True)
class SolverSettings:
    """The algorithm and stopping rule of an endgame solve.

    Parameters
    ----------
    algorithm : {"dcfr", "dcfr-reset", "pcfr+", "cfr+", "cfr"}, default "dcfr"
        DCFR uses alpha = 1.5, beta = 0, gamma = 2 (Brown & Sandholm 2019); ``"dcfr-reset"`` postflop-solver's
        schedule (alpha 1.5, beta 0 -- negative regrets halved --, gamma 3, the average restarted at every power of 4); ``"pcfr+"``
        predictive CFR+ (Farina, Kroer & Sandholm 2021); CFR+ regret matching+, alternating updates and linear
        averaging (:data:`games.core.cfr.VARIANTS`). Case and surrounding spaces are ignored.
    max_iterations : int, default 1000
        Iterations at most.
    target_pct_pot : float or None, default None
        Stop once the exploitability (NashConv / 2) is at most this percentage of the pot (e.g. 0.1).
    check_every : int or None, default None
        Measure the exploitability every this many iterations (default: about 20 checks over the run, at least
        every 10 iterations with a target; each check costs about one and a half iterations).

    Raises
    ------
    ValueError
        On an unknown algorithm, ``max_iterations`` or ``check_every`` not a positive integer, or a negative or
        non-finite target, ``threads`` not a positive integer, ``compressed`` with ``"pcfr+"``; the message names
        the field as a spot file does (``solver.max_iterations``).
    """

    algorithm: str = "dcfr"
    max_iterations: int = 1000
    target_pct_pot: float | None = None
    check_every: int | None = None
    threads: int | None = None
    isomorphism: bool = True
    compressed: bool = False

    def __post_init__(self):
        algo = self.algorithm.strip().lower() if isinstance(self.algorithm, str) else self.algorithm
        if algo not in ALGORITHMS:
            raise ValueError(f"solver.algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        object.__setattr__(self, "algorithm", algo)
        object.__setattr__(self, "max_iterations", check_int("solver.max_iterations", self.max_iterations, 1))
        if self.target_pct_pot is not None:
            try:
                target = check_real("solver.target_pct_pot", self.target_pct_pot, 0.0)
            except ValueError:
                raise ValueError(f"solver.target_pct_pot must be a percentage >= 0, got {self.target_pct_pot!r}"
                                 ) from None
            object.__setattr__(self, "target_pct_pot", target)
        object.__setattr__(self, "check_every", check_int("solver.check_every", self.check_every, 1,
                                                          allow_none=True))
        object.__setattr__(self, "threads", check_int("solver.threads", self.threads, 1, allow_none=True))
        for key in ("isomorphism", "compressed"):
            if not isinstance(getattr(self, key), bool):
                raise ValueError(f"solver.{key} must be true or false, got {getattr(self, key)!r}")
        if self.compressed and algo == "pcfr+":
            raise ValueError("solver.compressed cannot be combined with solver.algorithm = 'pcfr+' (predictive "
                             "regrets are kept in float)")

    def replace(self, **changes) -> SolverSettings:
        """A copy with ``changes`` (validated)."""
        return dataclasses.replace(self, **changes)

    def check_every_for_run(self) -> int:
        """The check interval of a run: :attr:`check_every`, or the automatic one (see the class notes)."""
        if self.check_every is not None:
            return self.check_every
        return int(min(max(1, self.max_iterations // 20), 10 if self.target_pct_pot is not None
                       else self.max_iterations))

    def to_dict(self) -> dict:
        """The settings as a spot file's ``solver`` table."""
        return dataclasses.asdict(self)

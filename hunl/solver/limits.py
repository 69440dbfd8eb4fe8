"""Bounds on an endgame's chip amounts that keep its arithmetic exact and finite.

Every bet is rounded to whole chips (:mod:`hunl.solver.tree`) and held in float64, which represents every integer
up to ``2**53`` exactly: so the pot plus both stacks behind, the most chips an endgame can move, must be at most
:data:`MAX_CHIPS` = ``2**53`` (about 9.0e15). Then every contribution, pot and payoff is an exact whole number of
chips, and the solver's float32 values (largest 3.4e38) stay finite: a regret sums at most one payoff range per
iteration, ``2**54`` chips, far below that after any number of iterations one could run. A bet or raise size is a
fraction of the pot of at most :data:`MAX_POT_FRACTION` (a larger one is all-in anyway), so that
``fraction * pot`` is finite before it is capped by the stack; and the big blind is at least
:data:`MIN_BIG_BLIND` chips, so that any amount in big blinds or mbb/g is finite.

A pot of ``1e300`` chips (which once wrote NaN into a summary) or ``1e39`` (which overflowed float32 and gave an
exploitability of -1.27e30 chips) is therefore refused when the endgame is built.
"""

from __future__ import annotations

import math

__all__ = ["MAX_CHIPS", "MAX_POT_FRACTION", "MIN_BIG_BLIND", "check_big_blind", "check_chips", "check_rake"]

#: Largest pot plus both stacks behind, in chips: float64 holds every whole number of chips up to it exactly.
MAX_CHIPS = 2.0 ** 53
#: Largest bet or raise size, in fractions of the pot.
MAX_POT_FRACTION = 2.0 ** 20
#: Smallest big blind, in chips: 1000 * MAX_CHIPS / MIN_BIG_BLIND (mbb/g of the largest amount) is finite.
MIN_BIG_BLIND = 2.0 ** -30


def check_chips(pot: float, stack: float, pot_name: str = "pot", stack_name: str = "stack") -> None:
    """Check that ``pot + 2 * stack`` (the most chips an endgame moves) is at most :data:`MAX_CHIPS`.

    ``pot`` and ``stack`` are finite numbers already checked for sign.

    Parameters
    ----------
    pot : float
        Chips in the pot at the start of the endgame (> 0).
    stack : float
        Chips behind each player (>= 0).
    pot_name, stack_name : str
        Names of the two amounts in error messages (e.g. the spot-file fields).

    Raises
    ------
    ValueError
        Naming ``pot_name`` (and ``stack_name`` when the stack is what exceeds the bound): ``pot`` above
        :data:`MAX_CHIPS`, or ``pot + 2 * stack`` above it.
    """
    if pot > MAX_CHIPS:
        raise ValueError(f"{pot_name} must be at most 2**53 = {MAX_CHIPS:.4g} chips (the largest whole number of "
                         f"chips float64 holds exactly), got {pot!r}")
    if pot + 2.0 * stack > MAX_CHIPS:
        raise ValueError(f"{pot_name} + 2 * {stack_name} must be at most 2**53 = {MAX_CHIPS:.4g} chips (every "
                         f"chip amount exact in float64), got {pot!r} + 2 * {stack!r}")


def check_big_blind(big_blind, name: str = "big_blind") -> float:
    """Return the big blind as a float after checking it is a finite number in ``[MIN_BIG_BLIND, MAX_CHIPS]``.

    Parameters
    ----------
    big_blind : float
        The big blind, in chips (anything ``float()`` converts, except a bool).
    name : str, default "big_blind"
        Parameter name used in error messages.

    Returns
    -------
    float
        ``float(big_blind)``, in chips.

    Raises
    ------
    ValueError
        Naming ``name``: ``big_blind`` is a bool, not convertible to float, NaN, or outside
        ``[MIN_BIG_BLIND, MAX_CHIPS]`` (2**-30 to 2**53 chips).
    """
    try:
        bb = float(big_blind)
    except (TypeError, ValueError):
        bb = math.nan
    if isinstance(big_blind, bool) or not (MIN_BIG_BLIND <= bb <= MAX_CHIPS):
        raise ValueError(f"{name} must be a positive number of chips in [2**-30, 2**53] (so that amounts in big "
                         f"blinds stay finite), got {big_blind!r}")
    return bb


def check_rake(rate, cap, rate_name: str = "rake_rate", cap_name: str = "rake_cap") -> tuple[float, float]:
    """Return ``(rate, cap)`` as floats after checking the rake: ``rate`` a number in ``[0, 1)`` (a fraction of
    the pot), ``cap`` a number of chips ``>= 0`` (``inf`` for no cap).

    Parameters
    ----------
    rate : float
        Rake rate, a fraction of the pot in ``[0, 1)`` (anything ``float()`` converts, except a bool).
    cap : float
        Most chips raked at one terminal, ``>= 0``; ``inf`` for no cap.
    rate_name, cap_name : str
        Names of the two values in error messages (e.g. ``"rake.rate"`` of a spot file).

    Returns
    -------
    rate : float
        The rake rate (fraction of the pot).
    cap : float
        The rake cap (chips; ``inf`` for no cap).

    Raises
    ------
    ValueError
        Naming ``rate_name`` or ``cap_name`` and the broken rule: a bool, a value not convertible to float or
        NaN, a rate outside ``[0, 1)``, or a negative cap.
    """
    out = []
    for value, name in ((rate, rate_name), (cap, cap_name)):
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = math.nan
        if isinstance(value, bool) or math.isnan(x):
            raise ValueError(f"{name} must be a number, got {value!r}")
        out.append(x)
    if not 0.0 <= out[0] < 1.0:
        raise ValueError(f"{rate_name} must be in [0, 1) (a fraction of the pot), got {rate!r}")
    if not out[1] >= 0.0:
        raise ValueError(f"{cap_name} must be >= 0 chips (inf for no cap), got {cap!r}")
    return out[0], out[1]

"""The one place HiGHS solver instances are made: silent from their first call.

HiGHS writes a two-line banner ("Running HiGHS ...") to standard output the first time an instance logs anything
in a process, and ``highspy.Highs()`` itself logs (its constructor installs the Python callbacks), before any
option could be set. A command that prints JSON on standard output must not carry that banner, so every solver
here is made by :func:`quiet_highs`: ``output_flag`` and ``log_to_console`` are off before the instance makes its
first logging call, and nothing of HiGHS reaches standard output or standard error.

>>> h = quiet_highs()
>>> h.getOptionValue("output_flag")[1]
False
"""

from __future__ import annotations

import highspy

__all__ = ["quiet_highs", "silence"]


class _QuietHighs(highspy.Highs):
    """``highspy.Highs`` whose logging is switched off before its constructor installs the callbacks (the first
    call that logs)."""

    def enableCallbacks(self):  # noqa: N802 - highspy's name
        silence(self)
        super().enableCallbacks()


def silence(h) -> None:
    """Switch a HiGHS instance's output off (again, e.g. after ``h.resetOptions()``, which switches it on).

    Sets the options ``output_flag`` and ``log_to_console`` to ``False``; the statuses HiGHS returns are not
    checked.

    Parameters
    ----------
    h : highspy.Highs
        The instance, changed in place.
    """
    h.setOptionValue("output_flag", False)
    h.setOptionValue("log_to_console", False)


def quiet_highs(threads: int = 1, **options) -> highspy.Highs:
    """A new HiGHS instance that never writes to the console.

    Parameters
    ----------
    threads : int, default 1
        HiGHS's ``threads`` option (the callers parallelise over processes, not inside a solve).
    **options
        Further HiGHS options, set in order (e.g. ``presolve="off"``).

    Returns
    -------
    highspy.Highs
    """
    h = _QuietHighs()
    silence(h)  # also for highspy versions whose constructor installs no callback
    h.setOptionValue("threads", int(threads))
    for key, value in options.items():
        h.setOptionValue(key, value)
    return h

"""Wall and CPU time of the named stages of a long run, printed as it goes."""

from __future__ import annotations

import os
import time

__all__ = ["Stages", "cpu_seconds"]


def cpu_seconds() -> float:
    """CPU time of this process, its threads and its finished children (worker processes), seconds."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Stages:
    """Run named stages, printing and recording the wall time and CPU time of each.

    Parameters
    ----------
    style : {"clock", "indent"}, default "clock"
        ``"clock"``: ``[12:00:00] name ...`` then ``[12:00:05] name: 5.0 s wall, 9.8 s CPU``;
        ``"indent"``: ``== name`` then ``   name: 5.0 s``.

    Attributes
    ----------
    seconds, cpu : dict of str to float
        Wall and CPU seconds per stage, in the order run.
    """

    def __init__(self, style: str = "clock"):
        if style not in ("clock", "indent"):
            raise ValueError(f"style must be 'clock' or 'indent', got {style!r}")
        self.style = style
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def run(self, name: str, fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` as the stage ``name``; returns its result."""
        clock = self.style == "clock"
        print(f"[{time.strftime('%H:%M:%S')}] {name} ..." if clock else f"== {name}", flush=True)
        t0, c0 = time.perf_counter(), cpu_seconds()
        out = fn(*args, **kwargs)
        self.seconds[name] = time.perf_counter() - t0
        self.cpu[name] = cpu_seconds() - c0
        if clock:
            print(f"[{time.strftime('%H:%M:%S')}] {name}: {self.seconds[name]:.1f} s wall, "
                  f"{self.cpu[name]:.1f} s CPU", flush=True)
        else:
            print(f"   {name}: {self.seconds[name]:.1f} s", flush=True)
        return out

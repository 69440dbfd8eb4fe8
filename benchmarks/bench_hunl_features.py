#!/usr/bin/env python
"""Benchmark the interpretable hand features and card abstractions and write their section of docs/BENCHMARKS.md.

Usage::

    python benchmarks/bench_hunl_features.py              # writes the bench_hunl_features section
    python benchmarks/bench_hunl_features.py --no-write

Measured on random boards and random weight vectors (each weight uniform on [0, 1]):

1. :func:`hunl.distill.features.equity`, :func:`~hunl.distill.features.range_percentile` and
   :func:`~hunl.distill.features.equity_histogram` on a batch of K = 1 and K = 64 weight vectors, board already
   sorted (cached) -- the per-call cost a distillation loop pays -- as the median over ``--boards`` boards of the
   best of ``--repeat`` calls. The river equity is compared with a dense 1,326 x 1,326 win/tie matrix product
   (numpy, matrix built beforehand and not timed).
2. Per-board set-up (first call on a new board: the strength sort of the board, or of the 48 river boards of a
   turn) and :func:`~hunl.distill.features.ehs` on a new turn board (48 uniform-range sweeps).
3. :class:`hunl.distill.abstraction.CardAbstraction` ``fit`` on a turn board: E[HS] 1-D k-means and potential-aware
   EMD k-medians.

Timings are wall-clock on a machine that other jobs may share; the load average is recorded.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from hunl.distill import features
from hunl.distill.abstraction import CardAbstraction
from hunl.poker.cards import COMBO_CARDS, NUM_COMBOS
from hunl.poker.evaluator import combo_strengths
from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_hunl_features:start -->", "<!-- bench_hunl_features:end -->"


BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"

def _best(fn, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _clear_caches() -> None:
    for f in (features._showdowns, features._uniform_equity, features._river_hs, features._uniform_equity_order):
        f.cache_clear()


def _dense_river(board) -> tuple[np.ndarray, np.ndarray]:
    """Win + tie/2 matrix and compatibility matrix of a river board (the O(n^2) reference)."""
    s = combo_strengths(board).astype(np.int64)
    live = s >= 0
    cards = COMBO_CARDS.astype(np.int64)
    share = (cards[:, None, 0] == cards[None, :, 0]) | (cards[:, None, 0] == cards[None, :, 1]) | \
            (cards[:, None, 1] == cards[None, :, 0]) | (cards[:, None, 1] == cards[None, :, 1])
    compat = (~share & live[:, None] & live[None, :]).astype(np.float64)
    score = compat * (0.5 * (np.sign(s[:, None] - s[None, :]) + 1.0))
    return score, compat


def measure(n_boards: int, repeat: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    rivers = [tuple(int(c) for c in rng.choice(52, 5, replace=False)) for _ in range(n_boards)]
    turns = [tuple(int(c) for c in rng.choice(52, 4, replace=False)) for _ in range(n_boards)]
    w1 = rng.random(NUM_COMBOS)
    w64 = rng.random((64, NUM_COMBOS))
    features.equity(rivers[0], w64)                        # compile / load the numba cache
    features.equity_histogram(turns[0], w1)
    CardAbstraction("potential", n_buckets=4, random_state=0).fit(turns[0])
    rows = {}

    def per_board(name, boards, fn):
        times = []
        for b in boards:
            fn(b)                                          # board set-up cached
            times.append(_best(lambda b=b: fn(b), repeat))
        rows[name] = statistics.median(times)

    per_board("river equity, K=1", rivers, lambda b: features.equity(b, w1))
    per_board("river equity, K=64", rivers, lambda b: features.equity(b, w64))
    per_board("river range_percentile, K=64", rivers, lambda b: features.range_percentile(b, w64))
    dense = [_dense_river(b) for b in rivers]
    times = []
    for score, compat in dense:
        with np.errstate(invalid="ignore", divide="ignore"):            # 0 / 0 on combos holding a board card
            times.append(_best(lambda s=score, c=compat: (w64 @ s.T) / (w64 @ c.T), repeat))
    rows["river equity, K=64, dense 1326x1326 matmul (reference)"] = statistics.median(times)
    per_board("turn equity, K=1", turns, lambda b: features.equity(b, w1))
    per_board("turn equity, K=64", turns, lambda b: features.equity(b, w64))
    per_board("turn range_percentile, K=64", turns, lambda b: features.range_percentile(b, w64))
    per_board("turn equity_histogram (deciles), K=1", turns, lambda b: features.equity_histogram(b, w1))
    per_board("turn equity_histogram (deciles), K=64", turns[: max(2, n_boards // 3)],
              lambda b: features.equity_histogram(b, w64))

    def cold(name, boards, fn):
        times = []
        for b in boards:
            _clear_caches()
            t0 = time.perf_counter()
            fn(b)
            times.append(time.perf_counter() - t0)
        rows[name] = statistics.median(times)

    cold("set-up of a new river board (sort) + equity K=1", rivers, lambda b: features.equity(b, w1))
    cold("set-up of a new turn board (48 sorts) + equity K=1", turns, lambda b: features.equity(b, w1))
    cold("ehs + ehs2 of a new turn board", turns, lambda b: (features.ehs(b), features.ehs2(b)))
    cold("CardAbstraction('ehs', 50).fit, new turn board", turns,
         lambda b: CardAbstraction("ehs", n_buckets=50).fit(b))
    cold("CardAbstraction('potential', 50).fit, new turn board", turns[: max(2, n_boards // 3)],
         lambda b: CardAbstraction("potential", n_buckets=50, random_state=0).fit(b))
    return rows


def render(rows: dict, args, load: tuple, cpu_s: float, wall_s: float) -> str:
    lines = [
        START,
        "## HUNL interpretable features and card abstractions",
        "",
        (f"`python benchmarks/bench_hunl_features.py --boards {args.boards} --repeat {args.repeat}` on "
        f"{cpu_model()} ({os.cpu_count()} logical CPUs), Python {platform.python_version()}, numba single "
        f"thread. Load average before / after the run: {load[0]:.2f} / {load[1]:.2f} (shared machine); "
        f"CPU time {cpu_s:.1f} s over {wall_s:.1f} s wall."),
        "",
        ("Median over random boards of the best of the repeats; K = number of weight vectors in one call. "
        "Equity is O(n) per weight vector and river board after one sort per board (cached): "
        "no 1,326 x 1,326 matrix."),
        "",
        "| operation | time (ms) |",
        "|---|---:|",
    ]
    lines += [f"| {name} | {1e3 * t:.3f} |" for name, t in rows.items()]
    lines += ["", END]
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--boards", type=int, default=12, help="random boards per street")
    ap.add_argument("--repeat", type=int, default=5, help="calls per board; the best counts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    rows = measure(args.boards, args.repeat, args.seed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    text = render(rows, args, (load0, os.getloadavg()[0]), cpu, wall)
    print(text)
    if not args.no_write:
        write_section(BENCHMARKS_MD, text, START, END)


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Benchmark the preflop push/fold pipeline and write the speed section of docs/PREFLOP.md.

Usage::

    python benchmarks/bench_preflop.py              # writes the bench_preflop section of docs/PREFLOP.md
    python benchmarks/bench_preflop.py --no-write --matchups 20 --no-build

Measured:

1. Per matchup (one thread, the same random canonical matchups for each method): brute force with the
   project's 7-card evaluator (:func:`hunl.poker.evaluator.evaluate_many` on all 1,712,304 boards), the incremental
   exhaustive kernel and the fast rank-multiset + flush-correction kernel (:mod:`hunl.preflop.boards`).
2. The whole table: ``build_equity_table`` from nothing into a temporary file on all threads.
3. Solving: the class game by LP (one stack, and the 241-stack sweep), the combo game by LP, DCFR to 0.01 mbb/g
   on both; and fitting one band's rule card by the MILP.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from rulelearn.report.docblocks import cpu_model, write_section

DOC = Path(__file__).resolve().parents[1] / "docs" / "PREFLOP.md"
START, END = "<!-- bench_preflop:start -->", "<!-- bench_preflop:end -->"


def _brute(row) -> tuple[int, int]:
    from hunl.poker.evaluator import evaluate_many

    h, v = row[:2], row[2:]
    rest = np.array([c for c in range(52) if c not in row], dtype=np.int8)
    b = rest[np.array(list(itertools.combinations(range(48), 5)), dtype=np.int8)]
    sh = evaluate_many(np.concatenate([b, np.broadcast_to(h.astype(np.int8), (b.shape[0], 2))], axis=1))
    sv = evaluate_many(np.concatenate([b, np.broadcast_to(v.astype(np.int8), (b.shape[0], 2))], axis=1))
    return int((sh > sv).sum()), int((sh == sv).sum())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matchups", type=int, default=40, help="sample matchups for the per-matchup timings")
    ap.add_argument("--no-build", action="store_true", help="skip timing the full table build")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)

    import numba

    from hunl.preflop.boards import matchup_counts
    from hunl.preflop.equity_build import build_equity_table
    from hunl.preflop.matchups import NUM_MATCHUPS, canonical_matchups
    from hunl.preflop.rules import fit_rule_card
    from hunl.preflop.solve import solve_pushfold, solve_stacks

    threads = numba.get_num_threads()
    rows = canonical_matchups()[np.random.default_rng(0).choice(NUM_MATCHUPS, args.matchups, replace=False)]
    rows = rows.astype(np.int64)
    matchup_counts(rows[:2])
    matchup_counts(rows[:2], method="exhaustive")
    numba.set_num_threads(1)
    t = time.perf_counter()
    fast = matchup_counts(rows)
    t_fast = (time.perf_counter() - t) / len(rows)
    t = time.perf_counter()
    exh = matchup_counts(rows, method="exhaustive")
    t_exh = (time.perf_counter() - t) / len(rows)
    n_brute = min(5, len(rows))
    t = time.perf_counter()
    brute = np.array([_brute(r) for r in rows[:n_brute]])
    t_brute = (time.perf_counter() - t) / n_brute
    numba.set_num_threads(threads)
    assert np.array_equal(fast, exh) and np.array_equal(fast[:n_brute], brute)

    build = None
    if not args.no_build:
        with tempfile.TemporaryDirectory() as tmp:
            rep = build_equity_table(Path(tmp) / "equity.npz", progress=False)
            build = rep.seconds

    solve_pushfold(10.0)
    solve_pushfold(10.0, method="dcfr")
    lp = solve_pushfold(10.0)
    cfr = solve_pushfold(10.0, method="dcfr", target_mbb=0.01)
    t = time.perf_counter()
    combo_lp = solve_pushfold(10.0, hands="combos")
    combo_cfr = solve_pushfold(10.0, method="dcfr", hands="combos", target_mbb=0.01)
    t_combo = time.perf_counter() - t
    from hunl.preflop import solve as solve_module

    solve_module._SWEEPS.clear()                      # time the sweep, not the process cache
    t = time.perf_counter()
    sweep = solve_stacks()
    t_sweep = time.perf_counter() - t
    t = time.perf_counter()
    fit = fit_rule_card(sweep, 0, (8.0, 10.0), time_limit=120)
    t_fit = time.perf_counter() - t

    lines = [
        START,
        (f"Measured by `python benchmarks/bench_preflop.py` on {cpu_model()} ({threads} numba threads; the machine "
        "was shared with other jobs, so figures are upper bounds)."),
        "",
        "| task | time |",
        "|---|---:|",
        (f"| one matchup, brute force with the 7-card evaluator (`evaluate_many` on 1,712,304 boards x 2 hands), "
        f"1 thread | {1000 * t_brute:.0f} ms |"),
        f"| one matchup, exhaustive incremental kernel, 1 thread | {1000 * t_exh:.1f} ms |",
        f"| one matchup, rank-multiset + flush-correction kernel, 1 thread | {1000 * t_fast:.2f} ms |",
    ]
    if build is not None:
        lines.append(f"| the whole table: 47,008 matchups (`python scripts/build_preflop_equity.py`), {threads} "
                     f"threads | {build:.1f} s |")
    lines += [
        f"| class game, LP at 10 bb (HiGHS, build + solve + certify) | {1000 * lp.seconds:.0f} ms |",
        (f"| class game, DCFR at 10 bb to {cfr.exploitability_mbb:.4f} mbb/g ({cfr.iterations} iterations) | "
        f"{1000 * cfr.seconds:.0f} ms |"),
        f"| combo game (1,326 hands), LP at 10 bb | {combo_lp.seconds:.1f} s |",
        (f"| combo game, DCFR at 10 bb to {combo_cfr.exploitability_mbb:.4f} mbb/g ({combo_cfr.iterations} "
        f"iterations) | {combo_cfr.seconds:.1f} s |"),
        f"| charts: class LP at all 241 stacks 1-25 bb | {t_sweep:.1f} s |",
        f"| one rule card (SB, 8-10 bb): beam search + MILP ({fit.status}) | {t_fit:.1f} s |",
        "",
        (f"Per matchup the fast kernel is {t_exh / t_fast:.0f}x the exhaustive one and {t_brute / t_fast:.0f}x "
        f"brute force; the {args.matchups} sample matchups agree exactly across the kernels (and the first "
        f"{n_brute} with brute force). Combo game total {t_combo:.1f} s."),
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(DOC, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Seconds to play a HUNL rule card in one endgame, on the starting ranges and on the player's own range.

:func:`hunl.distill.policy.play` of the shipped river cards (``docs/cards/river.json``: starting ranges;
``docs/cards/river-own.json``: ``ranges="own"``) in random river endgames (:meth:`hunl.distill.sampler.EndgameSampler`
defaults) and random turn endgames (``EndgameSampler.turn(max_combos=150)``, the turn database's sampler), one
process, one numba thread: a starting-range card computes each board's features once for all its nodes; an
own-range card is played depth by depth, each node with the range its own earlier actions leave, so its features
are computed per distinct range. Reports the median and the maximum over ``--games`` endgames (the first call,
which compiles, is left out) and writes the section ``bench_hunl_cards`` of docs/BENCHMARKS.md unless
``--no-write``.

    python benchmarks/bench_hunl_cards.py                 # 10 river and 10 turn endgames
    python benchmarks/bench_hunl_cards.py --games 3 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_hunl_cards:start -->", "<!-- bench_hunl_cards:end -->"
ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS_MD = ROOT / "docs" / "BENCHMARKS.md"
CARDS = {"starting ranges (river.json)": "river.json", "own range (river-own.json)": "river-own.json"}


def run(games: int, seed: int) -> dict:
    from hunl.distill.cards import CardPolicy
    from hunl.distill.policy import play
    from hunl.distill.sampler import EndgameSampler
    from rulelearn.rules.cards import RuleCard

    cards = {name: CardPolicy(RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f).read_text())))
             for name, f in CARDS.items()}
    out = {}
    for street, sampler in (("river", EndgameSampler()), ("turn", EndgameSampler.turn(max_combos=150))):
        endgames = [sampler.game(sampler.sample(seed, k)) for k in range(games + 1)]
        nodes = [g.tree.n_nodes for g in endgames[1:]]
        for name, policy in cards.items():
            times = []
            for k, g in enumerate(endgames):
                t0 = time.perf_counter()
                play(g, policy)
                if k:                                  # the first call compiles
                    times.append(time.perf_counter() - t0)
            out[(street, name)] = {"median": statistics.median(times), "max": max(times),
                                   "nodes": statistics.median(nodes)}
    return out


def render(result: dict, games: int, seed: int, load: tuple) -> str:
    rows = ["| endgames | card | public nodes (median) | seconds per endgame, median | max |", "|---|---|---:|---:|---:|"]
    for (street, name), r in result.items():
        rows.append(f"| {street} | {name} | {r['nodes']:,.0f} | {r['median']:.3f} | {r['max']:.3f} |")
    return "\n".join([
        START, "## Playing a rule card", "",
        f"`python benchmarks/bench_hunl_cards.py --games {games} --seed {seed}`: `hunl.distill.policy.play` of each "
        f"card in {games} random endgames of each street (sampler defaults; turn: `EndgameSampler.turn(max_combos="
        f"150)`), one process, one numba thread, first call left out. CPU: {cpu_model()}; load average "
        f"{load[0]:.1f} at the start, {load[1]:.1f} at the end (the machine is shared).", "", *rows, "",
        "A starting-range card reads each board's features once for all its nodes; an own-range card is played "
        "depth by depth on the ranges its own actions leave, one feature computation per distinct range.", END])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    load0 = os.getloadavg()[0]
    result = run(a.games, a.seed)
    text = render(result, a.games, a.seed, (load0, os.getloadavg()[0]))
    print(text)
    if not a.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

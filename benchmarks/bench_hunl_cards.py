#!/usr/bin/env python
"""Seconds to play a HUNL rule card in one endgame, on the starting ranges and on the player's own range, and to
score the played policy.

:func:`hunl.distill.policy.play` of the shipped river cards (``docs/cards/river.json``: starting ranges;
``docs/cards/river-own.json``: ``ranges="own"``; ``docs/cards/river-own-bluff.json``: the same with the derived
quantity ``bluff_ratio``) in random river endgames (:meth:`hunl.distill.sampler.EndgameSampler`
defaults), random turn endgames (``EndgameSampler.turn(max_combos=150)``, the turn database's sampler) and random
flop endgames (``EndgameSampler.flop(max_combos=100)``, those of ``rule_cards.py flop``; ``--flop-games``), one
process, one numba thread: a starting-range card computes each board's features once for all its nodes; an
own-range card is played depth by depth, each node with the range its own earlier actions leave, so its features
are computed per distinct range. *Scoring* is :func:`hunl.distill.cost.evaluate_policy` of the played policy
against a reference (the uniform policy here; the held-out runs use the DCFR solution): its exploitability and its
expected value in both seats, the step every held-out endgame repeats for each policy. Reports the median and the
maximum over ``--games`` endgames (the first call, which compiles, is left out) and writes the section
``bench_hunl_cards`` of docs/BENCHMARKS.md unless ``--no-write``.

    python benchmarks/bench_hunl_cards.py                 # 10 river, 10 turn and 2 flop endgames
    python benchmarks/bench_hunl_cards.py --games 3 --flop-games 1 --no-write
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
CARDS = {"starting ranges (river.json)": "river.json", "own range (river-own.json)": "river-own.json",
         "own range, bluffs against value (river-own-bluff.json)": "river-own-bluff.json"}


def run(games: int, seed: int, flop_games: int = 2) -> dict:
    from games.core import Policy
    from hunl.distill.cards import CardPolicy
    from hunl.distill.cost import evaluate_policy
    from hunl.distill.policy import play
    from hunl.distill.sampler import EndgameSampler
    from rulelearn.rules.cards import RuleCard

    cards = {name: CardPolicy(RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f).read_text())))
             for name, f in CARDS.items()}
    out = {}
    streets = (("river", EndgameSampler(), games), ("turn", EndgameSampler.turn(max_combos=150), games),
               ("flop", EndgameSampler.flop(max_combos=100), flop_games))
    for street, sampler, n in streets:
        if n < 1:
            continue
        endgames = [sampler.game(sampler.sample(seed, k)) for k in range(n + 1)]
        nodes = [g.tree.n_nodes for g in endgames[1:]]
        references = [Policy.uniform(g) for g in endgames]
        for name, policy in cards.items():
            times, scoring = [], []
            for k, g in enumerate(endgames):
                t0 = time.perf_counter()
                played = play(g, policy)
                t1 = time.perf_counter()
                evaluate_policy(g, played, references[k])
                if k:                                  # the first call compiles
                    times.append(t1 - t0)
                    scoring.append(time.perf_counter() - t1)
            out[(street, name)] = {"median": statistics.median(times), "max": max(times),
                                   "score": statistics.median(scoring), "nodes": statistics.median(nodes)}
    return out


def render(result: dict, games: int, seed: int, load: tuple, flop_games: int = 2) -> str:
    rows = ["| endgames | card | public nodes (median) | seconds per endgame, median | max | scoring, median |",
            "|---|---|---:|---:|---:|---:|"]
    for (street, name), r in result.items():
        rows.append(f"| {street} | {name} | {r['nodes']:,.0f} | {r['median']:.3f} | {r['max']:.3f} "
                    f"| {r['score']:.3f} |")
    return "\n".join([
        START, "## Playing a rule card", "",
        f"`python benchmarks/bench_hunl_cards.py --games {games} --flop-games {flop_games} --seed {seed}`: "
        f"`hunl.distill.policy.play` of each card in {games} random river and turn endgames and {flop_games} flop "
        f"endgames (river: sampler defaults; turn: `EndgameSampler.turn(max_combos=150)`; flop: "
        f"`EndgameSampler.flop(max_combos=100)`; the river cards play the earlier streets with their nearest "
        f"street's rules), one process, one numba thread, first call left out; *scoring*: "
        f"`hunl.distill.cost.evaluate_policy` of the played policy against the uniform policy (exploitability and "
        f"EV in both seats). CPU: {cpu_model()}; load average {load[0]:.1f} at the start, {load[1]:.1f} at the end "
        f"(the machine is shared).", "", *rows, "",
        "A starting-range card reads each board's features once for all its nodes; an own-range card is played "
        "depth by depth on the ranges its own actions leave, one feature computation per distinct range; both "
        "read the card's rules once per street and decision type for a chunk of nodes.", END])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--flop-games", type=int, default=2, help="flop endgames (about 40 s each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    load0 = os.getloadavg()[0]
    result = run(a.games, a.seed, a.flop_games)
    text = render(result, a.games, a.seed, (load0, os.getloadavg()[0]), a.flop_games)
    print(text)
    if not a.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Seconds and memory of the searches over a finished card: reading the rule of every information set
(:func:`hunl.distill.optimal_leaves.endgame_leaves`, the start of CFR-BR leaves, pruning and the plain-mix search)
and one try of the threshold search (:class:`hunl.distill.threshold_search.SplitWorkers`: the rules read again
from stored designs where a moved threshold can change them, and one best-response pass), per endgame.

Two pairs of cards (:data:`CARD_SETS`): played at random (``docs/cards/river-moved.json``,
``turn-own-pruned-plain.json``) and in hand order (``river-ordered-all.json``, ``turn-ordered.json``). For each, the
river card in random river endgames (sampler defaults), the turn card beside it in random turn endgames
(``EndgameSampler.turn(max_combos=150)``), and the river card moving beside the fixed turn card in the same turn
endgames (the search over river and turn endgames); one process, one numba thread; the first endgame
(compilation) is left out of the times.
*Peak MiB*: the largest Python-tracked allocation (``tracemalloc``, numpy included) while reading one endgame's
rules, which :func:`~hunl.distill.optimal_leaves.endgame_features` keeps to one chunk of nodes' features at a time.
Writes the section ``bench_card_search`` of docs/BENCHMARKS.md unless ``--no-write``.

    python benchmarks/bench_card_search.py                 # 8 river and 3 turn endgames
    python benchmarks/bench_card_search.py --games 3 --turn-games 1 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from rulelearn.report.docblocks import cpu_model, write_section

START, END = "<!-- bench_card_search:start -->", "<!-- bench_card_search:end -->"
ROOT = Path(__file__).resolve().parents[1]
#: The card pairs measured, by how their rules play: (river card, turn card) of ``docs/cards``. In hand order, a
#: rule's mix goes to the hands by their place among the hands it covers, read again at every try.
CARD_SETS = {"at random": ("river-moved", "turn-own-pruned-plain"),
             "in hand order": ("river-ordered-all", "turn-ordered")}
BENCHMARKS_MD = ROOT / "docs" / "BENCHMARKS.md"


def _card(name: str):
    from rulelearn.rules.cards import RuleCard

    return RuleCard.from_dict(json.loads((ROOT / "docs" / "cards" / f"{name}.json").read_text()))


def run(games: int, turn_games: int, seed: int) -> dict:
    from hunl.distill.sampler import EndgameSampler

    out = {}
    for kind, (river_name, turn_name) in CARD_SETS.items():
        river, turn = _card(river_name), _card(turn_name)
        for street, sampler, n, card, fixed in (("river", EndgameSampler(), games, river, None),
                                                ("turn", EndgameSampler.turn(max_combos=150), turn_games, turn,
                                                 {5: river}),
                                                ("turn, the river card moving", EndgameSampler.turn(max_combos=150),
                                                 turn_games, river, {4: turn})):
            if n >= 1:
                out[kind, street] = _measure(card, fixed, sampler, n, seed)
    return out


def _measure(card, fixed, sampler, n: int, seed: int) -> dict:
    """Seconds and peak memory of reading ``card``'s rules (``fixed``: the other street's card) and of one try of
    the threshold search, in the endgames ``1 .. n`` of ``sampler`` (endgame 0 compiles and is left out)."""
    from hunl.distill.cards import CardPolicy, CompositeCard
    from hunl.distill.optimal_leaves import endgame_leaves
    from hunl.distill.threshold_search import SplitWorkers, card_splits, move_split, split_moves

    model = CardPolicy(card) if fixed is None else CompositeCard(CardPolicy(card), fixed)
    split = card_splits(card)[0]
    tries = [move_split(card, split, v) for v in split_moves(card, split)]
    leaves, per_try, peak, nodes = [], [], [], []
    for k in range(n + 1):
        g = sampler.game(sampler.sample(seed, k))
        tracemalloc.start()
        t0 = time.perf_counter()
        endgame_leaves(model, g)
        t1 = time.perf_counter()
        peak.append(tracemalloc.get_traced_memory()[1] / 2 ** 20)
        tracemalloc.stop()
        with SplitWorkers(card, [g], fixed) as pool:
            t2 = time.perf_counter()
            pool.exploitabilities(tries)
            t3 = time.perf_counter()
        if k:                                        # the first endgame compiles
            leaves.append(t1 - t0)
            per_try.append((t3 - t2) / len(tries))
            nodes.append(g.tree.n_nodes)
    return {"leaves": statistics.median(leaves), "try": statistics.median(per_try),
            "peak": max(peak[1:]), "nodes": statistics.median(nodes), "n": n,
            "save": _state_save_seconds(card, tries[0])}


def _state_save_seconds(card, moved, repeat: int = 20) -> float:
    """Median seconds of one state save of the threshold search (``rule_cards.py thresholds``) searching ``card``:
    the state after a split (the card moved, the card the sweep started from, the best card so far), JSON,
    written whole with fsync and renamed."""
    from hunl.distill.threshold_search import SearchState, ThresholdJob

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "card.json"
        path.write_text(json.dumps(card.to_dict()))
        save = SearchState(ThresholdJob(card=str(path), out=str(Path(tmp) / "out.json"))).saver("thresholds")
        times = []
        for i in range(repeat):
            state = {"sweep": 0, "split": i + 1, "card": moved.to_dict(), "sweep_card": card.to_dict(),
                     "best": 7.5, "moved": True, "log": [8.0], "kept": card.to_dict()}
            t0 = time.perf_counter()
            save(state)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def render(result: dict, games: int, turn_games: int, seed: int, load: tuple) -> str:
    rows = ["| cards | endgames | public nodes (median) | reading every rule, s (median) | peak MiB (max) "
            "| one try of the threshold search, s (median) | its state saved after a split, s (median) |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for (kind, street), r in result.items():
        rows.append(f"| {kind} | {r['n']} {street} | {r['nodes']:,.0f} | {r['leaves']:.3f} | {r['peak']:.0f} | "
                    f"{r['try']:.4f} | {r['save']:.4f} |")
    return "\n".join([
        START, "## Searching a finished card", "",
        f"`python benchmarks/bench_card_search.py --games {games} --turn-games {turn_games} --seed {seed}`: "
        "`hunl.distill.optimal_leaves.endgame_leaves` of a river card in random river endgames and "
        "of a turn card beside it in random turn endgames (`EndgameSampler.turn("
        "max_combos=150)`; last row: the river card moving, the turn card fixed), and one try of "
        "`hunl.distill.threshold_search.SplitWorkers` (a moved threshold: the rules read again from the stored "
        "designs for the decisions between the old and the new threshold, one best-response pass) in the same "
        "endgames, for two pairs of cards: played at random (`river-moved`, `turn-own-pruned-plain`) and in hand "
        "order (`river-ordered-all`, `turn-ordered`: each mixed rule's mix given to its hands by their place among "
        "the hands it covers, found again at every try); one process, "
        f"one numba thread, the first endgame left out. CPU: {cpu_model()}; load average {load[0]:.1f} at the "
        f"start, {load[1]:.1f} at the end.", "", *rows, "",
        "A try costs a fraction of reading the rules: the threshold search reads each endgame's features once per "
        "sweep and then only re-reads the rules where a move can change them, which is what makes a sweep over 400 "
        "river and 100 turn endgames 2-5 minutes on 2 processes. After each split (2-4 tries in each of the "
        "training endgames) the search saves its state so that a killed run resumes "
        "(`hunl.distill.threshold_search.SearchState`: three cards as JSON, written with fsync and renamed); "
        "the last column is that save. It depends on the card's size, not on the number of endgames: about 1 ms "
        "against a split's 2-4 tries in each of 400 training river endgames (seconds) in a real search. In hand "
        "order a try also finds the places of the moving card's hands among the hands each of its rules covers "
        "(the fixed card's once), and the hands of rules played at random read their rule's mix directly "
        "(`hunl.distill.optimal_leaves._fill_probs`), so a card at random pays nothing for hand orders.", END])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=8, help="river endgames")
    ap.add_argument("--turn-games", type=int, default=3, help="turn endgames")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args(argv)
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    load0 = os.getloadavg()[0]
    result = run(a.games, a.turn_games, a.seed)
    text = render(result, a.games, a.turn_games, a.seed, (load0, os.getloadavg()[0]))
    print(text)
    if not a.no_write:
        write_section(BENCHMARKS_MD, text, START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The solver engine on turn and flop endgames: suit isomorphism against the full expansion, 16-bit compressed
storage against float32, the memory estimate against the allocation, flop trees end to end."""

from __future__ import annotations

import numpy as np
import pytest

from games.core import solve_cfr
from games.core.engine import Engine, estimate_memory
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes

ONE = BetSizes(bets=(1.0,), raises=(), all_in=False)
# turn board with two suits (clubs, hearts) absent: river cards of those suits are interchangeable
TURN = "Ks7d2d4d"
T1, T2 = "AA,77,QJs,T9s,A5s", "KK,AK,T9s,87s,QQ"


def turn_spot(**kw):
    args = dict(pot=100, stack=100, bet_sizes=ONE, raise_cap=0, dtype="float64")
    args.update(kw)
    return HoldemEndgame(TURN, [T1, T2], **args)


def test_isomorphic_turn_tree_is_smaller_and_gives_the_same_iterates():
    full, iso = turn_spot(), turn_spot(isomorphism=True)
    assert iso.tree.n_nodes < full.tree.n_nodes
    a = solve_cfr(full, "dcfr", iterations=40, check_every=40)
    b = solve_cfr(iso, "dcfr", iterations=40, check_every=40)
    # the same game, the same iterates: values and exploitability to float rounding
    assert b.value == pytest.approx(a.value, abs=1e-6 * full.pot)
    assert b.exploitability.exploitability == pytest.approx(a.exploitability.exploitability, abs=1e-6 * full.pot)
    assert a.exploitability.exploitability > 1e-4 * full.pot        # not converged: the comparison has teeth


def test_isomorphic_flop_tree_gives_the_same_values_as_the_full_one():
    kw = dict(pot=60, stack=60, bet_sizes=ONE, raise_cap=0, dtype="float64")
    full = HoldemEndgame("Td9d6h", ["AA,T9s,87s", "KK,QJs,66"], **kw)
    iso = HoldemEndgame("Td9d6h", ["AA,T9s,87s", "KK,QJs,66"], isomorphism=True, **kw)
    assert iso.tree.n_nodes < full.tree.n_nodes
    a = solve_cfr(full, "dcfr", iterations=12, check_every=12)
    b = solve_cfr(iso, "dcfr", iterations=12, check_every=12)
    assert b.value == pytest.approx(a.value, abs=1e-6 * full.pot)
    assert b.exploitability.exploitability == pytest.approx(a.exploitability.exploitability, abs=1e-6 * full.pot)
    # zero sum: the two players' best-response values bound the game value from both sides
    br = a.exploitability
    assert br.nash_conv >= -1e-9 * full.pot


def test_compressed_storage_reaches_the_target_as_float32_does_on_a_libratus_river():
    # postflop-solver's use of compression: large river spots. Libratus subgame 4 to 0.1% of the pot with DCFR
    # (1.5, 0, 2): the 16-bit run needs at most 30% more iterations and ends within 0.02% of the pot of the target.
    # (Small spots and schedules that keep negative regrets, beta > 0, lose more: docs/BENCHMARKS.md.)
    from hunl.solver.libratus import load_endgame
    from hunl.solver.tree import LIBRATUS_SIZES
    e = load_endgame("subgame4")
    g = HoldemEndgame(e.board, e.normalised_reach(), pot=e.pot, stack=e.stack_remaining, bet_sizes=LIBRATUS_SIZES,
                      raise_cap=1000, big_blind=e.big_blind)
    target = 1e-3 * g.pot
    ref = solve_cfr(g, "dcfr", iterations=2000, target=target, check_every=10)
    comp = solve_cfr(g, "dcfr", iterations=2000, target=target, check_every=10, compressed=True)
    assert comp.engine.regret.dtype == np.int16 and comp.engine.avg.dtype == np.uint16
    assert ref.exploitability.exploitability <= target
    assert comp.exploitability.exploitability <= target + 2e-4 * g.pot
    assert comp.iterations <= 1.3 * ref.iterations


@pytest.mark.slow  # the only default-run test that would compile the threaded traversal for compressed storage (~100 s)
def test_compressed_storage_is_deterministic_across_threads():
    g = turn_spot(dtype="float32")
    a = solve_cfr(g, "dcfr", iterations=25, check_every=25, compressed=True, threads=1)
    b = solve_cfr(g, "dcfr", iterations=25, check_every=25, compressed=True, threads=2)
    np.testing.assert_array_equal(a.engine.avg, b.engine.avg)
    np.testing.assert_array_equal(a.engine.regret, b.engine.regret)


def test_compressed_and_predictive_do_not_mix():
    with pytest.raises(ValueError, match="compressed"):
        Engine(turn_spot(dtype="float32"), predictive=True, compressed=True)


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_memory_estimate_is_what_the_engine_allocates(compressed, threads):
    g = turn_spot(dtype="float32", isomorphism=True)
    e = Engine(g, n_threads=threads, compressed=compressed)
    est = estimate_memory(g, n_threads=e.n_threads, compressed=compressed)
    assert 0.9 * e.memory_bytes() <= est <= 1.1 * e.memory_bytes()


def test_compressed_storage_halves_the_state():
    g = turn_spot(dtype="float32", isomorphism=True)
    a, b = Engine(g), Engine(g, compressed=True)
    assert b.regret.nbytes + b.avg.nbytes == (a.regret.nbytes + a.avg.nbytes) // 2

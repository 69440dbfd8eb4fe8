"""The compiled policy check (:func:`games.core.policy.check_edge_probs`) against the numpy reference it
replaced: the same array returned bit for bit, or the same error message (its sum to 1e-14), on random valid and
broken policies of games with equal and unequal hand counts."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core import Policy
from games.core.policy import _node_name, check_edge_probs
from games.core.tree import DECISION
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
from rulelearn.validation import STRATEGY_ATOL


def reference_check(game, probs, name="policy"):
    """The numpy implementation of the check before it was compiled (fancy-indexed blocks, ``reduceat``)."""
    t = game.tree
    arr = np.array(probs, dtype=np.float64, copy=True)
    want = (t.n_nodes, game.max_hands)
    if arr.shape != want:
        raise ValueError(f"{name} must have shape (n_nodes, max_hands) = {want}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} contains NaN or infinite entries (first at {bad})")
    for p in (0, 1):
        hp = game.num_hands[p]
        edges, starts, _ = t.action_edges(p)
        if edges.size == 0:
            continue
        block = arr[edges, :hp]
        if np.any(block < 0):
            e, h = (int(v) for v in np.argwhere(block < 0)[0])
            n = int(t.parent[edges[e]])
            raise ValueError(
                f"{name} has a negative probability {float(block[e, h])!r} at {_node_name(game, n)}, "
                f"player {p + 1}, hand {game.hand_labels(p)[h]!r}, action {t.action[edges[e]]!r}"
            )
        sums = np.add.reduceat(block, starts, axis=0)
        bad = np.abs(sums - 1.0) > STRATEGY_ATOL
        if np.any(bad):
            k, h = (int(v) for v in np.argwhere(bad)[0])
            n = int(t.parent[edges[starts[k]]])
            raise ValueError(
                f"{name} is not normalised at {_node_name(game, n)}, player {p + 1}, hand "
                f"{game.hand_labels(p)[h]!r}: the action probabilities sum to {float(sums[k, h])!r}, not 1 "
                f"(tolerance {STRATEGY_ATOL:g})"
            )
        arr[edges, hp:] = 0.0
    nondecision_children = t.kind[t.parent[1:]] != DECISION
    arr[1:][nondecision_children] = 1.0
    arr[0] = 1.0
    return arr


@pytest.fixture(scope="module")
def games():
    river = HoldemEndgame("Ks7d2c4h9s", ["AA,KK,77,AK,KQs", "KK,QQ,JJ,AK,KQ,QJs,T9s,87s,J8s"], pot=100, stack=200,
                          bet_sizes=BetSizes(bets=(0.5, 1.0), raises=(1.0,), all_in=True), raise_cap=1)
    assert river.num_hands[0] != river.num_hands[1]         # the unused columns of the smaller player are reset
    return {"kuhn": KuhnPoker(), "leduc": LeducHoldem(), "river": river}


def _outcome(check, game, probs):
    try:
        return check(game, probs)
    except ValueError as exc:
        return str(exc)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["kuhn", "leduc", "river"]),
       fault=st.sampled_from(["none", "negative", "two negatives", "scaled", "tiny", "nan", "inf", "garbage"]))
def test_compiled_check_equals_the_numpy_reference(games, seed, name, fault):
    game = games[name]
    rng = np.random.default_rng(seed)
    probs = Policy.random(game, rng).probs.copy()
    used = np.zeros(probs.shape[0], bool)                       # unused entries are reset, whatever they hold
    for q in (0, 1):
        eq = game.tree.action_edges(q)[0]
        used[eq] = True
        probs[eq, game.num_hands[q]:] = rng.random()
    probs[~used] = rng.random((int((~used).sum()), probs.shape[1]))
    p = int(rng.integers(2))
    edges, starts, node_of_edge = game.tree.action_edges(p)
    e = int(rng.integers(edges.size))
    h = int(rng.integers(game.num_hands[p]))
    if fault == "negative":
        probs[edges[e], h] = -rng.random()
    elif fault == "two negatives":                             # the first in row-major order is named
        probs[edges[e], h] = -0.25
        probs[edges[rng.integers(edges.size)], rng.integers(game.num_hands[p])] = -0.75
    elif fault == "scaled":
        k = node_of_edge[e]
        end = starts[k + 1] if k + 1 < starts.size else edges.size
        probs[edges[starts[k]:end], h] *= 1.0 + rng.choice([-1, 1]) * rng.uniform(2 * STRATEGY_ATOL, 0.5)
    elif fault == "tiny":                                      # inside the tolerance: accepted by both
        probs[edges[e], h] += STRATEGY_ATOL / 4
    elif fault == "nan":
        probs[rng.integers(probs.shape[0]), rng.integers(probs.shape[1])] = np.nan
    elif fault == "inf":
        probs[rng.integers(probs.shape[0]), rng.integers(probs.shape[1])] = -np.inf
    elif fault == "garbage":                                   # many faults at once
        probs[rng.random(probs.shape) < 0.3] = rng.normal()
    got = _outcome(check_edge_probs, game, probs)
    want = _outcome(reference_check, game, probs)
    if isinstance(want, str):                                   # a sum may differ in its last bit (rounding order)
        assert isinstance(got, str)
        number = re.compile(r"sum to (\S+), not 1")
        assert number.sub("", got) == number.sub("", want)
        if number.search(want):
            assert float(number.search(got)[1]) == pytest.approx(float(number.search(want)[1]), rel=1e-14)
    else:
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        np.testing.assert_array_equal(got, want)
    if fault in ("none", "tiny"):
        assert isinstance(got, np.ndarray)
    elif fault in ("negative", "two negatives", "scaled", "nan", "inf"):
        assert isinstance(got, str)


def test_the_check_copies_and_leaves_its_input_alone(games):
    game = games["river"]
    probs = Policy.random(game, 0).probs.copy()
    p = int(np.argmin(game.num_hands))
    probs[game.tree.action_edges(p)[0], -1] = 7.0              # unused for the player with fewer hands
    before = probs.copy()
    out = check_edge_probs(game, probs)
    np.testing.assert_array_equal(probs, before)
    assert out is not probs and not np.shares_memory(out, probs)
    assert np.all(out[game.tree.action_edges(p)[0], -1] == 0.0)
    with pytest.raises(ValueError, match="must have shape"):
        check_edge_probs(game, probs[:, :-1])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(["kuhn", "leduc", "river"]))
def test_layout_conversions_equal_the_fancy_index_reference(games, seed, name):
    """Engine.from_edges / to_edges (compiled copies) against the fancy-indexed numpy they replaced, in the
    game's storage dtype (float32 for hold'em), both ways."""
    from games.core.best_response import engine_for

    game = games[name]
    eng, t = engine_for(game), game.tree
    pol = Policy.random(game, seed)
    table = eng.from_edges(pol.probs)
    want_table = np.zeros(eng.layout.size, dtype=eng.dtype)
    want_probs = np.ones((t.n_nodes, game.max_hands))
    for p, off in enumerate(eng.layout.edge_index(t, game.num_hands)):
        edges, hp = t.action_edges(p)[0], int(game.num_hands[p])
        want_table[off[:, None] + np.arange(hp)] = pol.probs[edges, :hp]
        want_probs[edges, :hp] = want_table[off[:, None] + np.arange(hp)]
        want_probs[edges, hp:] = 0.0
    assert table.dtype == eng.dtype
    np.testing.assert_array_equal(table, want_table)
    np.testing.assert_array_equal(eng.to_edges(table), want_probs)

"""The ten data representations of Section 4 (and the 'beats' extension)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.data.distributions import marginals, random_deal, random_simplex, uniform_deal
from rulelearn.features.representations import (
    PAPER_REPRESENTATIONS,
    REPRESENTATIONS,
    Representation,
    represent,
    sample_actions,
    share_beaten,
)


def ranges_of(probs):
    return np.stack(marginals(probs), axis=-2)


def test_paper_example_inputs():
    r = ranges_of(uniform_deal(10)[None])
    data = represent(r)
    assert np.allclose(data.X[0], np.tile(np.arange(1, 11) / 10, 2))
    assert data.feature_names[17] == "P(P2 holds <= 8)"
    pdf = represent(r, features="pdf")
    assert np.allclose(pdf.X[0], 0.1) and pdf.feature_names[0] == "P(P1 holds 1)"


ALL = tuple(REPRESENTATIONS.values()) + (Representation("cdf", "beats"), Representation("pdf", "index", beats=True))


@pytest.mark.parametrize("rep", ALL, ids=lambda r: r.name)
def test_shapes_and_round_trip(rep):
    rng = np.random.default_rng(0)
    _, _, probs = random_deal(10, rng, 7)
    ranges = ranges_of(probs)
    strategies = rng.dirichlet(np.ones(31), size=(7, 10))
    data = rep.transform(ranges, strategies)
    if rep.output == "sampled":  # the target is the sampled action as a pure strategy
        assert data.Y.shape == (70, 31) and np.array_equal(data.Y, np.eye(31)[data.sampled_action])
        strategies = np.eye(31)[data.sampled_action.reshape(7, 10)]
        assert rep.transform(ranges).Y is None and rep.transform(ranges).sampled_action is None
    else:
        assert data.sampled_action is None
    n_extra = 1 + rep.beats
    if rep.per_hand is None:
        assert data.X.shape == (7, 20) and data.Y.shape == (7, 10, 31)
    else:
        assert data.X.shape == (70, 20 + n_extra) and data.Y.shape == (70, 31)
        assert np.array_equal(data.game_index, np.repeat(np.arange(7), 10))
        # the 21st feature
        extra = data.X[:, 20].reshape(7, 10)
        cdf1 = np.cumsum(ranges[:, 0], axis=-1)
        cdf2 = np.cumsum(ranges[:, 1], axis=-1)
        if rep.per_hand == "index":
            assert np.array_equal(extra, np.tile(np.arange(1, 11), (7, 1))) and data.integer_features[20]
            assert data.feature_names[20] == "hand"  # the default hand noun
            assert rep.transform(ranges, hand_noun="card").feature_names[20] == "card"
        elif rep.per_hand == "cdf":
            assert np.allclose(extra, cdf1)
        else:
            assert np.allclose(extra[:, 0], 0) and np.allclose(extra[:, 1:], cdf2[:, :-1])
        if rep.beats:
            assert np.allclose(data.X[:, 21].reshape(7, 10), share_beaten(ranges))
            assert data.feature_names[21] == "share of P2's range beaten"
        # the 20 game features are the same as the whole-game representation's, repeated per hand
        whole = Representation(rep.features).transform(ranges).X
        assert np.array_equal(data.X[:, :20], np.repeat(whole, 10, axis=0))
    assert np.allclose(rep.assemble(data.Y, 7), strategies)
    assert len(data.feature_names) == data.X.shape[1]


def test_bad_input():
    with pytest.raises(ValueError, match="features"):
        Representation("log")
    with pytest.raises(ValueError, match="per_hand"):
        Representation("cdf", "hand")
    with pytest.raises(ValueError, match="ranges"):
        represent(np.ones((2, 2, 5)))
    with pytest.raises(ValueError, match="strategies must have shape"):
        represent(ranges_of(uniform_deal(10)[None]), np.ones((1, 9, 31)) / 31)


def test_registry_follows_the_papers_numbering():
    assert sorted(REPRESENTATIONS) == list(range(1, 11))
    assert [REPRESENTATIONS[k].name for k in range(1, 7)] == [
        "cdf", "pdf", "cdf-card", "pdf-card", "cdf-card-cdf", "pdf-card-cdf"]
    for k in range(7, 11):  # 7-10 are 3-6 with one sampled bet as the output
        rep = REPRESENTATIONS[k]
        base = REPRESENTATIONS[k - 4]
        assert (rep.features, rep.per_hand, rep.output) == (base.features, base.per_hand, "sampled")
        assert rep.label.startswith(f"{k}: ") and rep.label.endswith("one sampled bet")
    for k, rep in REPRESENTATIONS.items():
        assert rep.paper_number == k
    assert REPRESENTATIONS[5].label == "5: cdfs + card's cdf -> the card's strategy"
    assert REPRESENTATIONS[1].label == "1: cdfs -> strategy of every card"
    assert Representation("cdf", "beats").paper_number is None
    assert set(PAPER_REPRESENTATIONS) == {REPRESENTATIONS[k] for k in range(1, 7)}
    assert len({r.name for r in ALL}) == len(ALL)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 12), st.integers(1, 6))
def test_share_beaten_against_brute_force(seed, d, g):
    """The share of player 2's range below each card of player 1, against a double loop over the cards."""
    rng = np.random.default_rng(seed)
    _, _, probs = random_deal(d, rng, g)
    ranges = ranges_of(probs)
    brute = np.zeros((g, d))
    for game in range(g):
        for mine in range(d):
            for theirs in range(d):
                if theirs < mine:
                    brute[game, mine] += ranges[game, 1, theirs]
    np.testing.assert_allclose(share_beaten(ranges), brute, atol=1e-15)
    # available on every per-hand representation, as its own representation or as an extra feature
    for rep in (Representation("cdf", "beats"), Representation("pdf", "index", beats=True),
                Representation("cdf", "cdf", beats=True), Representation("pdf", "cdf", "sampled", beats=True)):
        np.testing.assert_allclose(rep.transform(ranges).X[:, -1], brute.reshape(-1), atol=1e-15)


def test_sampled_actions_are_deterministic_and_follow_the_strategy():
    rng = np.random.default_rng(0)
    strat = random_simplex(31, rng, size=(1, 4))
    strat[0, 1] = 0
    strat[0, 1, [0, 7, 30]] = [0.2, 0.5, 0.3]
    strat[0, 2] = np.eye(31)[30]  # pure, on the last action
    many = np.repeat(strat, 40_000, axis=0)
    a = sample_actions(many, seed=3)
    assert a.shape == (40_000, 4) and a.dtype == np.int64
    assert np.array_equal(a, sample_actions(many, seed=3))  # deterministic given the seed
    assert not np.array_equal(a, sample_actions(many, seed=4))
    assert np.all(np.take_along_axis(many, a[..., None], -1) > 0)  # never an action of probability 0
    assert np.all(a[:, 2] == 30)
    for h in range(4):
        freq = np.bincount(a[:, h], minlength=31) / a.shape[0]
        sigma = np.sqrt(strat[0, h] * (1 - strat[0, h]) / a.shape[0])
        assert np.all(np.abs(freq - strat[0, h]) <= 5 * sigma + 1e-12)
    # a game's draw depends on its id, not on the other games of the batch
    ids = np.arange(100, 140)
    perm = rng.permutation(40)
    S = random_simplex(31, rng, size=(40, 4))
    assert np.array_equal(sample_actions(S, 7, ids)[perm], sample_actions(S[perm], 7, ids[perm]))


def test_sampled_representation_uses_the_game_ids():
    rng = np.random.default_rng(2)
    _, _, probs = random_deal(10, rng, 6)
    S = random_simplex(31, rng, size=(6, 10))
    rep = REPRESENTATIONS[9]
    ids = np.array([5, 3, 8, 13, 21, 34])
    data = rep.transform(ranges_of(probs), S, game_ids=ids)
    assert np.array_equal(data.sampled_action, sample_actions(S, rep.seed, ids).reshape(-1))
    other = Representation("cdf", "cdf", output="sampled", seed=1).transform(ranges_of(probs), S, game_ids=ids)
    assert not np.array_equal(other.sampled_action, data.sampled_action)


def test_new_options_reject_bad_input():
    with pytest.raises(ValueError, match="output"):
        Representation("cdf", "index", output="argmax")
    with pytest.raises(ValueError, match="beats=True"):
        Representation("cdf", None, beats=True)
    with pytest.raises(ValueError, match="beats=True"):
        Representation("cdf", "beats", beats=True)
    with pytest.raises(ValueError, match="seed"):
        Representation("cdf", "index", output="sampled", seed=-1)
    with pytest.raises(ValueError, match="game_ids"):
        sample_actions(np.ones((2, 3, 4)) / 4, 0, game_ids=[1, 2, 3])
    with pytest.raises(ValueError, match="probability rows"):
        sample_actions(np.ones((2, 3, 4)), 0)
    with pytest.raises(ValueError, match="2 players"):
        share_beaten(np.ones((2, 1, 4)) / 4)

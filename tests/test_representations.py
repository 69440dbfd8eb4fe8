"""The six data representations of Section 4 (and the 'beats' extension)."""

import numpy as np
import pytest

from rulelearn.distributions import marginals, random_deal, uniform_deal
from rulelearn.representations import PAPER_REPRESENTATIONS, Representation, represent


def ranges_of(probs):
    return np.stack(marginals(probs), axis=-2)


def test_paper_example_inputs():
    r = ranges_of(uniform_deal(10)[None])
    data = represent(r)
    assert np.allclose(data.X[0], np.tile(np.arange(1, 11) / 10, 2))
    assert data.feature_names[17] == "P(P2 holds <= 8)"
    pdf = represent(r, features="pdf")
    assert np.allclose(pdf.X[0], 0.1) and pdf.feature_names[0] == "P(P1 holds 1)"


@pytest.mark.parametrize("rep", PAPER_REPRESENTATIONS + (Representation("cdf", "beats"),), ids=lambda r: r.name)
def test_shapes_and_round_trip(rep):
    rng = np.random.default_rng(0)
    _, _, probs = random_deal(10, rng, 7)
    ranges = ranges_of(probs)
    strategies = rng.dirichlet(np.ones(31), size=(7, 10))
    data = rep.transform(ranges, strategies)
    if rep.per_hand is None:
        assert data.X.shape == (7, 20) and data.Y.shape == (7, 10, 31)
    else:
        assert data.X.shape == (70, 21) and data.Y.shape == (70, 31)
        assert np.array_equal(data.game_index, np.repeat(np.arange(7), 10))
        # the 21st feature
        extra = data.X[:, 20].reshape(7, 10)
        cdf1 = np.cumsum(ranges[:, 0], axis=-1)
        cdf2 = np.cumsum(ranges[:, 1], axis=-1)
        if rep.per_hand == "index":
            assert np.array_equal(extra, np.tile(np.arange(1, 11), (7, 1))) and data.integer_features[20]
            assert data.feature_names[20] == "card"
        elif rep.per_hand == "cdf":
            assert np.allclose(extra, cdf1)
        else:
            assert np.allclose(extra[:, 0], 0) and np.allclose(extra[:, 1:], cdf2[:, :-1])
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

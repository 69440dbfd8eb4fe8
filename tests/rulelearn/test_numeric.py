"""rulelearn.numeric: the weighted quantile against its definition, and its input checks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulelearn.numeric import weighted_quantile, weighted_quantile_index


def _by_definition(values, weights, q):
    """inf {x in values : weight of the values <= x >= q * total}, one candidate at a time (no sorting)."""
    v, w = np.asarray(values, float), np.asarray(weights, float)
    total = w.sum()
    return min(x for x in v if w[v <= x].sum() >= q * total * (1 - 1e-12))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(0, 4)), min_size=1, max_size=12).filter(
    lambda xs: sum(w for _, w in xs) > 0), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]))
def test_weighted_quantile_is_the_lower_quantile(pairs, q):
    values, weights = [float(v) for v, _ in pairs], [float(w) for _, w in pairs]
    assert weighted_quantile(values, weights, q) == _by_definition(values, weights, q)
    assert values[weighted_quantile_index(values, weights, q)] == weighted_quantile(values, weights, q)


def test_the_lower_median_and_ties():
    assert weighted_quantile([1, 2, 3, 4], [1, 1, 1, 1], 0.5) == 2      # lower median
    assert weighted_quantile([3, 1, 2], [0, 0, 5], 0.5) == 2
    assert weighted_quantile_index([2, 1, 2], [1, 1, 1], 0.5) == 0      # equal values: the first
    assert weighted_quantile([7, 9], [1, 1], 0.0) == 7


@pytest.mark.parametrize("values, weights, q, match", [
    ([], [], 0.5, "values must hold at least one value"),
    ([1.0, np.nan], [1, 1], 0.5, "values must be finite"),
    ([1, 2], [1, 1, 1], 0.5, r"weights must have one entry per value \(2\), got 3"),
    ([1, 2], [1, -1], 0.5, "weights must be finite and non-negative"),
    ([1, 2], [1, np.inf], 0.5, "weights must be finite and non-negative"),
    ([1, 2], [0, 0], 0.5, "weights must have a positive sum"),
    ([1, 2], [1, 1], 1.5, r"q must be in \[0, 1\], got 1.5"),
    ([1, 2], [1, 1], np.nan, r"q must be in \[0, 1\]"),
])
def test_bad_input_names_the_parameter(values, weights, q, match):
    with pytest.raises(ValueError, match=match):
        weighted_quantile(values, weights, q)

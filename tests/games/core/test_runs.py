"""games.core.runs.finite: records as JSON can hold them."""

import json
import math

import numpy as np

from games.core.runs import finite


def test_non_finite_numbers_become_null_wherever_they_are():
    record = {"a": np.float32("nan"), "b": (1.0, float("inf")), "c": np.array([1.5, np.nan]), "d": np.int64(3),
              "e": "text", "f": None, "g": np.bool_(True), "h": [{"x": -math.inf}]}
    out = finite(record)
    assert out == {"a": None, "b": [1.0, None], "c": [1.5, None], "d": 3, "e": "text", "f": None, "g": True,
                   "h": [{"x": None}]}
    assert json.loads(json.dumps(out, allow_nan=False)) == out


def test_finite_values_are_kept():
    assert finite({"v": 0.25, "n": 7, "s": [1, 2.5]}) == {"v": 0.25, "n": 7, "s": [1, 2.5]}
    assert type(finite(np.float64(0.5))) is float and finite(np.float64(0.5)) == 0.5

"""Random card design rows for the card tests: both streets, every decision type, values spread over each
quantity's grid of round thresholds, a few NaN."""

from __future__ import annotations

import numpy as np

from hunl.distill.cards import CARD_FEATURES
from hunl.distill.quantities import feature_grid


def design_rows(n: int, seed: int) -> np.ndarray:
    """``(n, len(CARD_FEATURES))`` float64 rows: each quantity uniform over a little below 0 to 1.2 times its
    grid's largest threshold; street 4 or 5, facing and in position 0 or 1; 5% of the entries NaN."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, len(CARD_FEATURES)))
    for j, f in enumerate(CARD_FEATURES):
        grid = feature_grid(f)
        hi = 1.0 if grid is None else float(np.max(grid)) * 1.2
        X[:, j] = rng.uniform(-0.1 * hi, hi, n)
    X[:, CARD_FEATURES.index("street")] = rng.choice([4.0, 5.0], n)
    X[:, CARD_FEATURES.index("facing")] = rng.choice([0.0, 1.0], n)
    X[:, CARD_FEATURES.index("in_position")] = rng.choice([0.0, 1.0], n)
    X[rng.random(X.shape) < 0.05] = np.nan
    return X

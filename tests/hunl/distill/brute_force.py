"""Slow, independent references for the distillation tests: pairwise showdowns instead of the feature kernels."""

from __future__ import annotations

import numpy as np

from hunl.poker.cards import COMBO_CARDS
from hunl.poker.evaluator import combo_strengths


def range_percentile(game, player: int, weights) -> np.ndarray:
    """Share of ``weights`` (a range over ``player``'s hands of a river ``game``) each of its hands beats, pair by
    pair: ties count half, combos sharing a card are left out. NaN where no compatible combo has weight."""
    strength = combo_strengths(game.boards[0]).astype(np.int64)
    combos = game.combos[player]
    hp = game.num_hands[player]
    cards = [set(COMBO_CARDS[c].tolist()) for c in combos[:hp]]
    out = np.full(hp, np.nan)
    for i in range(hp):
        num = den = 0.0
        for j in range(hp):
            if cards[i] & cards[j]:
                continue
            si, sj = strength[combos[i]], strength[combos[j]]
            num += weights[j] * ((si > sj) + 0.5 * (si == sj))
            den += weights[j]
        if den > 0:
            out[i] = num / den
    return out

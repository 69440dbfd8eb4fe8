"""The decision-tree route to push/fold rules: a CART tree on hand features and the stack, read as rules.

Rows are (stack, hand class) pairs of a band; features are the hand features of
:data:`hunl.preflop.clauses.HAND_FEATURES` (pair, suited, high card, low card, gap, rank total) and the stack;
the label is whether the equilibrium plays the hand (probability >= 1/2); each row is weighted by what a mistake
with it costs: the absolute difference of the two actions' counterfactual values against the equilibrium
opponent (bb, already weighted by the chance of holding the hand). A scikit-learn classification tree grows
best-first (``max_leaf_nodes``) and the largest tree with at most ``max_rules`` "play" leaves is kept; its leaves
print through the project's rule machinery (:func:`rulelearn.rules.conditions.extract_rules`). Cost is measured exactly
as for the rule cards (:func:`hunl.preflop.rules.strategy_cost`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from hunl.poker.cards import NUM_CLASSES
from hunl.preflop.charts import PLAY_AT
from hunl.preflop.clauses import FEATURE_NAMES, HAND_FEATURES
from hunl.preflop.solve import StackSweep

__all__ = ["TreeCard", "fit_tree_card"]

_NAMES = FEATURE_NAMES + ("stack (bb)",)
_INTEGER = (True,) * len(FEATURE_NAMES) + (False,)


def _rows(stacks: np.ndarray) -> np.ndarray:
    feats = np.tile(HAND_FEATURES.astype(np.float64), (stacks.size, 1))
    return np.column_stack([feats, np.repeat(stacks, NUM_CLASSES)])


@dataclass(frozen=True, eq=False)
class TreeCard:
    """A fitted tree and its "play" leaves as rules.

    Attributes
    ----------
    player : int
        0 (SB pushes) or 1 (BB calls).
    band : tuple of (float, float)
    tree : sklearn.tree.DecisionTreeClassifier
    rules : tuple of str
        The conditions of each leaf that plays, e.g. ``"high card >= 12"`` (ranks 0 = deuce .. 12 = ace).
    """

    player: int
    band: tuple
    tree: DecisionTreeClassifier
    rules: tuple

    def predict(self, stacks) -> np.ndarray:
        """``(S, 169)`` float64: 1.0 where the tree plays the hand at that stack."""
        s = np.asarray(stacks, dtype=np.float64)
        return self.tree.predict(_rows(s)).reshape(s.size, NUM_CLASSES).astype(np.float64)

    def lines(self) -> list[str]:
        """One line per playing leaf, then "fold the rest"."""
        act = ("push", "call")[self.player]
        return [f"{act} if {r}" for r in self.rules] + ["fold the rest"]


def _weights(sweep: StackSweep, rows: np.ndarray, player: int) -> np.ndarray:
    from hunl.preflop.game import PushFoldGame

    g = PushFoldGame(1.0, sweep.ante, small_blind=sweep.small_blind)
    d, w = g.deal[0], g.deal[1] - g.deal[3]
    out = []
    for k in rows:
        s = float(sweep.stacks[k])
        bb, sb = min(1.0 + sweep.ante, s), min(sweep.small_blind + sweep.ante, s)
        if player == 0:
            c = sweep.call[k]
            diff = bb * (d @ (1.0 - c)) + s * (w @ c) + sb * d.sum(axis=1)     # push minus fold, per SB hand
        else:
            p = sweep.push[k]
            diff = bb * (p @ d) - s * (p @ w)                                   # what calling saves the BB
        out.append(np.abs(diff))
    return np.concatenate(out)


def fit_tree_card(sweep: StackSweep, player: int, band, max_rules: int = 5, rows=None,
                  max_leaves: int = 40) -> TreeCard:
    """Fit the tree baseline on one band (see the module docstring).

    Parameters
    ----------
    sweep : StackSweep
    player : int
        0 (SB pushes) or 1 (BB calls).
    band : tuple of (float, float)
    max_rules : int, default 5
        Most leaves that play.
    rows : array_like of int, optional
        Sweep rows (default :func:`hunl.preflop.rules.band_rows`).
    max_leaves : int, default 40
        Largest tree tried.

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1.
    """
    from hunl.preflop.rules import band_rows
    from rulelearn.rules.conditions import extract_rules

    if player not in (0, 1):
        raise ValueError(f"player must be 0 (SB) or 1 (BB), got {player!r}")
    rows = band_rows(sweep, band) if rows is None else np.asarray(rows, dtype=np.intp)
    stacks = sweep.stacks[rows]
    x = _rows(stacks)
    probs = (sweep.push if player == 0 else sweep.call)[rows]
    y = (probs >= PLAY_AT).ravel().astype(int)
    weight = _weights(sweep, rows, player) + 1e-12
    best = None
    for leaves in range(2, max_leaves + 1):
        if np.unique(y).size < 2:
            tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(x, y, sample_weight=weight)
        else:
            tree = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(x, y, sample_weight=weight)
        t = tree.tree_
        values = t.value[:, 0, :] / t.value[:, 0, :].sum(axis=1, keepdims=True)
        classes = list(tree.classes_)
        play_col = classes.index(1) if 1 in classes else None
        leaves_ok = extract_rules(tree, values, _NAMES, _INTEGER)
        playing = [r for r in leaves_ok if play_col is not None and r.strategy[play_col] > 0.5]
        if len(playing) > max_rules:
            break
        rules = tuple(" and ".join(str(c) for c in r.conditions) or "always" for r in playing)
        best = TreeCard(player, (float(band[0]), float(band[1])), tree, rules)
        if np.unique(y).size < 2 or t.node_count < 2 * leaves - 1:
            break                                   # the tree stopped growing
    return best

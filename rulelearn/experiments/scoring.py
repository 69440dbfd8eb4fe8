"""Scores of a learned policy on held-out games: strategy EMD, player 1's exploitability and R^2.

"Exploitability" in these scores and in the experiments' tables is player 1's exploitability (the game value
minus his payoff against a best response, chips: :meth:`rulelearn.family.GameFamily.player1_exploitability`), the
papers' measure; it is not NashConv / 2 (:func:`games.core.exploitability`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from sklearn.metrics import r2_score

from rulelearn.data.splits import SolvedGames
from rulelearn.features.distance import output_emd

__all__ = ["PolicyScore", "held_out_scores", "r2", "score_policy"]


@dataclass(frozen=True)
class PolicyScore:
    """How far a learned policy is from equilibrium on held-out games.

    Attributes
    ----------
    learner : str
        Name of the learner (e.g. ``"tree depth 4"``).
    representation : str
        Data representation (e.g. ``"cdf-card"``).
    size : int
        What a person memorises, in ``size_unit``.
    size_unit : str
        ``"rules"``, ``"medoids"``, ``"games"`` or ``"strategies"``.
    emd : float
        Mean output EMD (Algorithm 2) to the equilibrium strategies, in ``[0, 1]``.
    exploitability_mean, exploitability_median, exploitability_max : float
        Player 1's exploitability (game value minus best-response payoff), in chips, over the held-out games.
    n_games : int
        Number of held-out games.
    """

    learner: str
    representation: str
    size: int
    size_unit: str
    emd: float
    exploitability_mean: float
    exploitability_median: float
    exploitability_max: float
    n_games: int

    def as_row(self) -> dict:
        """The score as a flat dict (a table row)."""
        return asdict(self)


def score_policy(learner: str, representation: str, size: tuple[int, str], predicted, truth,
                 exploitability) -> PolicyScore:
    """Score predicted strategies against the equilibrium strategies of the same games.

    Parameters
    ----------
    learner, representation : str
    size : (int, str)
        ``model_size`` of the learner.
    predicted, truth : array_like of float, shape ``(G, d, B)``
    exploitability : array_like of float, shape ``(G,)``
        Exploitability of each predicted strategy, in chips.

    Returns
    -------
    PolicyScore
    """
    pred = np.asarray(predicted, dtype=np.float64)
    true = np.asarray(truth, dtype=np.float64)
    if pred.shape != true.shape:
        raise ValueError(f"predicted and truth must have the same shape, got {pred.shape} and {true.shape}")
    e = np.asarray(exploitability, dtype=np.float64)
    if e.shape != (pred.shape[0],):
        raise ValueError(f"exploitability must have shape ({pred.shape[0]},), got {e.shape}")
    return PolicyScore(learner, representation, int(size[0]), str(size[1]), float(np.mean(output_emd(pred, true))),
                       float(e.mean()), float(np.median(e)), float(e.max()), int(pred.shape[0]))


def held_out_scores(games: SolvedGames, pred: np.ndarray, truth: np.ndarray) -> dict:
    """Mean output EMD of ``pred`` to ``truth`` and player 1's exploitability (mean, median, max; chips) in
    the held-out ``games``.

    Parameters
    ----------
    games : SolvedGames
        The held-out games (e.g. ``games.subset(split.test)``); their family scores ``pred``
        (:meth:`SolvedGames.player1_exploitability`).
    pred : numpy.ndarray of float, shape ``(G, d, B)``
        Player 1's predicted strategy in each of the ``G`` games (rows over ``B`` actions sum to 1).
    truth : numpy.ndarray of float, shape ``(G, d, B)``
        The games' equilibrium strategies.

    Returns
    -------
    dict
        Keys ``emd`` (mean output EMD, Algorithm 2, in ``[0, 1]``), ``exploitability``,
        ``exploitability_median``, ``exploitability_max`` (player 1's exploitability over the games, chips);
        each a float.

    Raises
    ------
    ValueError
        If ``pred`` or ``truth`` contains NaN, has fewer than 2 dimensions or fewer than 2 actions, or their
        shapes do not broadcast; if the family rejects ``pred`` (e.g. a wrong shape); or if ``games`` is
        empty.
    """
    expl = games.player1_exploitability(pred)
    return {"emd": float(np.mean(output_emd(pred, truth))), "exploitability": float(expl.mean()),
            "exploitability_median": float(np.median(expl)), "exploitability_max": float(expl.max())}


def r2(pred: np.ndarray, truth: np.ndarray, per_hand: bool, multioutput: str = "uniform_average") -> float:
    """scikit-learn's regression ``score`` (R^2, by default the uniform average over outputs) of raw action
    probabilities, per hand or per game; ``multioutput="variance_weighted"`` pools the outputs (1 - total
    SSE / total variance).

    Parameters
    ----------
    pred : numpy.ndarray of float, shape ``(G, ..., B)``
        Predicted strategies, e.g. ``(G, d, B)``: ``B`` action probabilities per hand.
    truth : numpy.ndarray of float, shape of ``pred``
        The equilibrium strategies.
    per_hand : bool
        ``True``: one sample per (game, hand), ``B`` outputs; ``False``: one sample per game, all its action
        probabilities as outputs.
    multioutput : {"uniform_average", "variance_weighted"}, default "uniform_average"
        scikit-learn's ``multioutput`` of :func:`sklearn.metrics.r2_score`.

    Returns
    -------
    float
        R^2, at most 1 (1 for an exact prediction; NaN, with a warning, for fewer than two samples). An
        output whose truth is constant scores 1 if predicted exactly and 0 otherwise (scikit-learn's
        ``force_finite``).

    Raises
    ------
    ValueError
        If ``pred`` does not have as many samples as ``truth`` once reshaped, or ``multioutput`` is not one
        of scikit-learn's values.
    TypeError
        If ``multioutput="raw_values"`` with more than one output (a float cannot hold the array).
    """
    b = truth.shape[-1]
    shape = (-1, b) if per_hand else (truth.shape[0], -1)
    return float(r2_score(truth.reshape(shape), pred.reshape(shape), multioutput=multioutput))

"""The HUNL distillation pipeline's parallel steps: decision rows of solved endgames, and scoring policies in them.

Both steps work on chunks of stored endgames (columns of a ``"hunl_river"`` solution database, see
:class:`hunl.distill.family.HoldemRiverFamily`) so that they run unchanged in this process, in local worker processes or
on a Dask cluster (:func:`rulelearn.data.executors.make_executor`); a worker needs the code, not the database.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hunl.distill.cost import evaluate_policy
from hunl.distill.decisions import DecisionRows, decision_rows
from hunl.distill.policy import (
    CheckCall,
    EquityThreshold,
    UniformRandom,
    concat_rows,
    needs_solution,
    play_beside_solution,
    thin_rows,
)

__all__ = ["BASELINES", "BASELINES_VERSION", "take", "rows_task", "evaluate_task", "EndgameScores", "collect_rows", "score_policies"]

#: The baselines every distilled policy is compared with.
BASELINES = {"uniform random": UniformRandom(), "always check/call": CheckCall(),
             "equity threshold": EquityThreshold()}
#: Version of the baselines' play, kept beside cached baseline scores (2: check/call and the equity threshold read
#: the starting ranges, so nodes after actions they never take are no longer played uniformly).
BASELINES_VERSION = 2


def take(columns: dict, ids) -> dict:
    """The rows ``ids`` (positions) of a database's columns.

    Parameters
    ----------
    columns : dict of str to array_like
        A database's columns (e.g. of :meth:`rulelearn.data.database.SolutionDatabase.load`), all of the same
        length ``n``.
    ids : array_like of int, shape ``(m,)``
        Positions (0 to ``n - 1``, not game ids) of the rows to take, in the order wanted.

    Returns
    -------
    dict of str to numpy.ndarray
        The same keys, each column's rows ``ids`` (length ``m``).
    """
    ids = np.asarray(ids, dtype=np.int64)
    return {k: np.asarray(v)[ids] for k, v in columns.items()}


def rows_task(family, columns: dict, ranges: str = "start", max_rows: int | None = None, streets=None
              ) -> tuple[int, int, DecisionRows]:
    """Decision rows (:func:`hunl.distill.decisions.decision_rows`) of every endgame in ``columns``, concatenated, with the
    first endgame's id and the number of endgames; with ``max_rows``, about that many of each endgame's rows
    (:func:`hunl.distill.policy.thin_rows`, seeded by the endgame's id); with ``streets``, only the decisions on
    those streets (thinned after the selection).

    The task :func:`collect_rows` runs on a chunk of endgames.

    Parameters
    ----------
    family : hunl.distill.family.HoldemRiverFamily
        The family of the database (rebuilds each endgame and its stored strategy from the columns).
    columns : dict of str to numpy.ndarray
        Columns of the endgames (``game_id``, ``board``, ``weights``, ``pot``, ``stack`` and ``policy``), one
        row per endgame; at least one endgame.
    ranges : {"start", "node", "own"}, default "start"
        The ranges the range features read (:data:`hunl.distill.decisions.RANGE_MODES`).
    max_rows : int, optional
        About this many rows of each endgame; default all.
    streets : sequence of int, optional
        Only the decisions on these streets (3 flop, 4 turn, 5 river); default all.

    Returns
    -------
    first : int
        The ``game_id`` of the first endgame of ``columns``.
    n : int
        The number of endgames of ``columns``.
    rows : hunl.distill.decisions.DecisionRows
        Their decision rows, endgame after endgame in the order of ``columns``.

    Raises
    ------
    ValueError
        If a needed column is missing, ``ranges`` is not one of the modes or ``max_rows < 1``.
    IndexError
        If ``columns`` holds no endgame.
    """
    out = []
    n = len(columns["game_id"])
    for i in range(n):
        game = family.game(columns, i)
        rows = decision_rows(game, family.policy_array(columns, i, game), ranges=ranges, streets=streets)
        out.append(rows if max_rows is None else thin_rows(rows, max_rows, seed=int(columns["game_id"][i])))
    return int(columns["game_id"][0]), n, concat_rows(out)


def collect_rows(family, columns: dict, executor, chunk: int = 25, progress=None,
                 ranges: str = "start", max_rows: int | None = None, streets=None) -> DecisionRows:
    """:func:`rows_task` over all endgames of ``columns`` in chunks, on ``executor`` (``imap_unordered``).

    The chunks' rows are concatenated in the order of ``columns``, whatever order they finish in.

    Parameters
    ----------
    family : hunl.distill.family.HoldemRiverFamily
        The family of the database (rebuilds each endgame and its stored strategy from the columns).
    columns : dict of str to numpy.ndarray
        Columns of the endgames (with ``game_id`` and ``policy``), one row per endgame.
    executor : SerialExecutor or PoolExecutor or DaskExecutor
        Entered executor of :func:`rulelearn.data.executors.make_executor`.
    chunk : int, default 25
        Endgames per task.
    progress : tqdm.tqdm, optional
        Progress bar (anything with ``update(n)``), advanced by each chunk's number of endgames.
    ranges : {"start", "node", "own"}, default "start"
        The ranges the range features read (:data:`hunl.distill.decisions.RANGE_MODES`).
    max_rows : int, optional
        About this many rows of each endgame (:func:`hunl.distill.policy.thin_rows`); default all.
    streets : sequence of int, optional
        Only the decisions on these streets (3 flop, 4 turn, 5 river); default all.

    Returns
    -------
    hunl.distill.decisions.DecisionRows
        The decision rows of every endgame of ``columns``.

    Raises
    ------
    ValueError
        If ``columns`` holds no endgame, ``ranges`` is not one of the modes or ``max_rows < 1``.
    """
    n = len(columns["game_id"])
    tasks = [(family, take(columns, np.arange(a, min(a + chunk, n))), ranges, max_rows, streets)
             for a in range(0, n, chunk)]
    parts = []
    for first, count, rows in executor.imap_unordered(rows_task, tasks):
        parts.append((first, rows))
        if progress is not None:
            progress.update(count)
    # completion order varies; the result must not: the chunks go back in the order of ``columns``
    place = {int(columns["game_id"][a]): k for k, a in enumerate(range(0, n, chunk))}
    parts.sort(key=lambda x: place[x[0]])
    return concat_rows(r for _, r in parts)


@dataclass(frozen=True)
class EndgameScores:
    """Scores of several policies in several endgames.

    Attributes
    ----------
    game_id : numpy.ndarray of int64, shape ``(G,)``
    policies : tuple of str, length ``P``
    exploitability_pct_pot, ev_pct_pot : numpy.ndarray of float64, shape ``(G, P)``
        Exploitability and EV against the stored (DCFR) solution, percent of the pot
        (:func:`hunl.distill.cost.evaluate_policy`).
    exploitability_mbb, ev_mbb : numpy.ndarray of float64, shape ``(G, P)``
        The same in mbb/g.
    reference_pct_pot : numpy.ndarray of float64, shape ``(G,)``
        The stored solution's own exploitability, percent of the pot.
    """

    game_id: np.ndarray
    policies: tuple
    exploitability_pct_pot: np.ndarray
    ev_pct_pot: np.ndarray
    exploitability_mbb: np.ndarray
    ev_mbb: np.ndarray
    reference_pct_pot: np.ndarray

    @staticmethod
    def concat(parts) -> EndgameScores:
        parts = list(parts)
        order = np.argsort(np.concatenate([p.game_id for p in parts]), kind="stable")
        f = lambda name: np.concatenate([getattr(p, name) for p in parts])[order]  # noqa: E731
        return EndgameScores(f("game_id"), parts[0].policies, f("exploitability_pct_pot"), f("ev_pct_pot"),
                             f("exploitability_mbb"), f("ev_mbb"), f("reference_pct_pot"))


def evaluate_task(family, columns: dict, choosers: dict, reference: bool = True) -> EndgameScores:
    """Play every chooser (``{name: chooser}``, see :func:`hunl.distill.policy.play`) in every endgame of ``columns`` and
    score it against the stored solution; with ``reference`` false the stored solution is not read (``columns``
    need no ``policy``) and the EV and reference fields are NaN. An :class:`hunl.distill.policy.OnStreets`
    chooser plays its streets and the stored solution the others (it needs ``reference``).

    The task :func:`score_policies` runs on a chunk of endgames.

    Parameters
    ----------
    family : hunl.distill.family.HoldemRiverFamily
        The family of the database (rebuilds each endgame and its stored strategy from the columns).
    columns : dict of str to numpy.ndarray
        Columns of the endgames (``game_id``, ``board``, ``weights``, ``pot``, ``stack``, and ``policy`` with
        ``reference``), one row per endgame.
    choosers : dict of str to chooser
        ``{name: chooser}``: the policies to score (:func:`hunl.distill.policy.play_beside_solution`).
    reference : bool, default True
        Read the stored solution: score the EV against it and its own exploitability.

    Returns
    -------
    EndgameScores
        ``G`` = the endgames of ``columns`` (in their order), ``P`` = the choosers (in their order):
        exploitability (NashConv / 2) and EV against the stored solution in % of the pot and mbb/g, and the
        stored solution's own exploitability (% of the pot).

    Raises
    ------
    ValueError
        If ``reference`` is false and a chooser needs the stored solution
        (:func:`hunl.distill.policy.needs_solution`), a needed column is missing, or a chooser plays an
        invalid policy (:func:`hunl.distill.cost.evaluate_policy`).
    """
    if not reference and any(needs_solution(c) for c in choosers.values()):
        raise ValueError("choosers: an OnStreets policy plays the stored solution, so reference must be true")
    names = tuple(choosers)
    g = len(columns["game_id"])
    ex = np.zeros((g, len(names)))
    ev = np.zeros((g, len(names)))
    exm = np.zeros((g, len(names)))
    evm = np.zeros((g, len(names)))
    ref = np.full(g, np.nan)
    for i in range(g):
        game = family.game(columns, i)
        probs = family.policy_array(columns, i, game) if reference else None
        if reference:
            ref[i] = evaluate_policy(game, probs).exploitability_pct_pot
        played = play_beside_solution(game, choosers, probs)
        for j, name in enumerate(names):
            e = evaluate_policy(game, played[name], probs)
            ex[i, j], ev[i, j], exm[i, j], evm[i, j] = (e.exploitability_pct_pot, e.ev_pct_pot,
                                                        e.exploitability_mbb, e.ev_mbb)
    return EndgameScores(np.asarray(columns["game_id"], dtype=np.int64), names, ex, ev, exm, evm, ref)


def score_policies(family, columns: dict, choosers: dict, executor, chunk: int = 10, progress=None,
                   reference: bool = True) -> EndgameScores:
    """:func:`evaluate_task` over all endgames of ``columns`` in chunks, on ``executor``.

    Parameters
    ----------
    family : hunl.distill.family.HoldemRiverFamily
        The family of the database (rebuilds each endgame and its stored strategy from the columns).
    columns : dict of str to numpy.ndarray
        Columns of the endgames, one row per endgame (with ``policy`` unless ``reference`` is false).
    choosers : dict of str to chooser
        The policies to score, ``{name: chooser}`` (see :func:`hunl.distill.policy.play`).
    executor : SerialExecutor or PoolExecutor or DaskExecutor
        Entered executor of :func:`rulelearn.data.executors.make_executor`.
    chunk : int, default 10
        Endgames per task.
    progress : tqdm.tqdm, optional
        Progress bar (anything with ``update(n)``), advanced by each chunk's number of endgames.
    reference : bool, default True
        Score against the stored solution; false: do not read it (EV and reference fields NaN).

    Returns
    -------
    EndgameScores
        Exploitability and EV of every chooser (columns in the order of ``choosers``) in every endgame, in %
        of the pot and mbb/g, rows sorted by game id.

    Raises
    ------
    ValueError
        If ``columns`` holds no endgame, or ``reference`` is false and a chooser plays the stored solution
        (:class:`hunl.distill.policy.OnStreets`).
    """
    n = len(columns["game_id"])
    tasks = [(family, take(columns, np.arange(a, min(a + chunk, n))), choosers, reference)
             for a in range(0, n, chunk)]
    parts = []
    for s in executor.imap_unordered(evaluate_task, tasks):
        parts.append(s)
        if progress is not None:
            progress.update(len(s.game_id))
    return EndgameScores.concat(parts)

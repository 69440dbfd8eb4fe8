"""Plain mixes chosen by what they cost: the printed strategies of a card's rules.

A card prints each rule's strategy as a plain mix ("call 2 in 3, fold 1 in 3",
:func:`rulelearn.rules.plain.plain_fractions`). :func:`hunl.distill.cards.fit_card` optimises the rules'
strategies for exploitability (CFR-BR over the rules) and, by default, prints the nearest plain mix of each. The
rounding is not free: each rule moves by up to the rounding tolerance, and the moves add up where a best response
finds them (a river card of 20 rules loses about a third of a percent of the pot on its training endgames).

:func:`plain_by_exploitability` chooses among the plain mixes instead: rule by rule, most covered first, every
plain mix within ``radius`` of the rule's optimised strategy is played with the other rules held at their current
mixes, and the one with the least mean exploitability over the training endgames is kept (coordinate descent over
a finite set; each try is one best-response pass per endgame, :meth:`hunl.distill.optimal_leaves.LeafWorkers.
exploitabilities`). The result is never worse on the training endgames than the nearest mixes it starts from.
"""

from __future__ import annotations

import numpy as np

from rulelearn.rules.plain import PLAIN_DENOMINATORS, plain_mixes_near
from rulelearn.validation import check_int

__all__ = ["orders_by_exploitability", "plain_by_exploitability"]


def _descent(pool, tables: dict, key, target, used, radius: float, order, sweeps: int, denominators, progress: bool,
             resume: dict | None, save, codes, try_orders: bool, polar=None) -> tuple[np.ndarray, np.ndarray, list]:
    """The coordinate descent of :func:`plain_by_exploitability` and :func:`orders_by_exploitability`: rule by rule,
    every plain mix within ``radius`` of ``target`` -- and with ``try_orders`` in every hand order -- is tried with
    the other rules held, and the cheapest kept. ``codes``: the rows' hand orders (``None``: the pool's model's,
    not changed); ``polar``, a ``(n_leaves,)`` mask of the rows that may also play the polar order (code 2)."""
    from tqdm.auto import tqdm

    if not np.isfinite(radius) or radius <= 0:
        raise ValueError(f"radius must be a positive number, got {radius!r}")
    sweeps = check_int("sweeps", sweeps, 1)
    cur = np.array(tables[key], dtype=np.float64, copy=True)
    target = np.asarray(target, dtype=np.float64)
    used = np.asarray(used, dtype=bool)
    if target.shape != cur.shape or used.shape != cur.shape:
        raise ValueError(f"target and used must have the shape {cur.shape} of tables[{key!r}], got "
                         f"{target.shape} and {used.shape}")
    code = None if codes is None else np.array(codes, dtype=np.int64, copy=True)
    if code is not None and code.shape != (cur.shape[0],):
        raise ValueError(f"codes must have one hand order code per row ({cur.shape[0]}), got shape {code.shape}")
    order = np.arange(cur.shape[0]) if order is None else np.asarray(order, dtype=np.int64)
    polar = np.zeros(cur.shape[0], dtype=bool) if polar is None else np.asarray(polar, dtype=bool)
    if polar.shape != (cur.shape[0],):
        raise ValueError(f"polar must have one entry per row ({cur.shape[0]}), got shape {polar.shape}")

    def score(many, many_codes):
        return pool.exploitabilities(many) if code is None else pool.exploitabilities(
            many, codes=[{key: c} for c in many_codes])

    first_sweep, first_row, changed = 0, 0, False
    if resume is not None:                 # the sweep and row where the saved search stood
        cur = np.array(resume["table"], dtype=np.float64).reshape(cur.shape)
        if code is not None:
            code = np.array(resume["codes"], dtype=np.int64)
        best, log = float(resume["best"]), [float(x) for x in resume["log"]]
        first_sweep, first_row, changed = int(resume["sweep"]), int(resume["row"]), bool(resume["changed"])
    else:
        best = float(score([{**tables, key: cur}], [code])[0])
        log = [best]
    for sweep in range(first_sweep, sweeps):
        start = first_row if sweep == first_sweep else 0
        changed = changed if sweep == first_sweep else False
        for i in tqdm(range(start, order.size), disable=not progress, total=order.size, initial=start,
                      desc="hand orders and plain mixes" if try_orders else "plain mixes", unit="rule", leave=False):
            r = order[i]
            allowed = used[r] if used[r].any() else np.ones(cur.shape[1], dtype=bool)
            mixes = [cur[r]] + [c for c in plain_mixes_near(target[r], radius, allowed, denominators)
                                if not np.allclose(c, cur[r])]
            tries, try_codes = [], []
            for o in (((0, 1, -1, 2) if polar[r] else (0, 1, -1)) if try_orders else (None,)):
                for m in mixes:
                    pure = np.count_nonzero(m > 1e-12) <= 1
                    if o is not None and pure and o != 0:
                        continue           # a pure mix plays alike in every order: tried once, at random
                    if (o is None or o == code[r]) and m is mixes[0]:
                        continue           # the current row
                    t = cur.copy()
                    t[r] = m
                    tries.append({**tables, key: t})
                    if o is not None:
                        c = code.copy()
                        c[r] = o
                        try_codes.append(c)
                    else:
                        try_codes.append(code)
            if tries:
                values = score(tries, try_codes)
                k = int(np.argmin(values))
                if values[k] < best - 1e-9:
                    cur, best, changed = tries[k][key], float(values[k]), True
                    code = try_codes[k]
            if save is not None:
                save({"sweep": sweep, "row": i + 1, "table": cur.tolist(), "best": best, "log": log,
                      "changed": changed, **({} if code is None else {"codes": code.tolist()})})
        log.append(best)
        if not changed:
            break
    return cur, code, log


def plain_by_exploitability(pool, tables: dict, key, target, used, radius: float, order=None, sweeps: int = 1,
                            denominators=PLAIN_DENOMINATORS, progress: bool = False, resume: dict | None = None,
                            save=None) -> tuple[np.ndarray, list]:
    """The plain mixes of leaf table ``key`` with the least mean training exploitability near ``target``.

    Parameters
    ----------
    pool : hunl.distill.optimal_leaves.LeafWorkers
        The training endgames, with the leaf (rule) each information set reads.
    tables : dict
        ``{leaf key: (n_leaves, 4) float64}``, every table the pool's policy plays; ``tables[key]`` holds the
        starting plain mixes (e.g. the nearest ones, :func:`hunl.distill.cards.plain_table`).
    key
        The table whose rows are chosen; the others stay as given (e.g. a fixed card of another street).
    target : array_like, shape ``(n_leaves, 4)``
        The optimised strategies (class probabilities of check/call, bet small, bet big, all-in; each row a
        distribution) the plain mixes may depart from by at most ``radius`` in every class.
    used : array_like of bool, shape ``(n_leaves, 4)``
        The classes a row may give positive probability (e.g. those the equilibrium plays in the rule's
        decisions).
    radius : float
        Largest change of a class probability from ``target``, > 0.
    order : array_like of int, optional
        The rows in the order they are visited (default ``0 .. n_leaves - 1``); e.g. most covered first.
    sweeps : int, default 1
        Passes over the rows; stops early after a pass that changes nothing.
    denominators : sequence of int, default :data:`rulelearn.rules.plain.PLAIN_DENOMINATORS`
    progress : bool, default False
        Show a progress bar (rows).
    resume : dict, optional
        A state passed to ``save`` by an earlier run of the same search (same pool, tables and settings): the
        search goes on from it and returns what the uninterrupted search would have.
    save : callable, optional
        Called with the search's state (a JSON-serialisable dict) after each row is tried, e.g. to write it to
        disk so that a killed search resumes.

    Returns
    -------
    table : numpy.ndarray of float64, shape ``(n_leaves, 4)``
        Plain mixes: for each row its starting mix or one within ``radius`` of ``target``.
    log : list of float
        Mean exploitability over the pool's endgames (NashConv / 2, % of the pot): of the starting mixes, then
        after each pass.

    Raises
    ------
    ValueError
        If ``radius`` is not positive, ``sweeps < 1``, or ``target`` or ``used`` do not have the shape of
        ``tables[key]``.
    """
    table, _, log = _descent(pool, tables, key, target, used, radius, order, sweeps, denominators, progress, resume,
                             save, None, False)
    return table, log


def orders_by_exploitability(pool, tables: dict, key, target, used, radius: float, codes=None, order=None,
                             sweeps: int = 1, denominators=PLAIN_DENOMINATORS, progress: bool = False,
                             resume: dict | None = None, save=None, polar=None) -> tuple[np.ndarray, np.ndarray, list]:
    """:func:`plain_by_exploitability` with each rule's hand order chosen too: every plain mix within ``radius`` of
    the rule's target is tried played at random, by hand order from the best hands, and from the weakest
    (:mod:`hunl.distill.hand_order`), and for the rules ``polar`` marks polar too (value bets from the best hands,
    bluffs from the weakest), and the cheapest of all is kept.

    Parameters
    ----------
    pool : hunl.distill.optimal_leaves.LeafWorkers
        The training endgames; the places of the hands in their rules' orders are those of its model's leaves.
    tables, key, target, used, radius, order, sweeps, denominators, progress
        As :func:`plain_by_exploitability`.
    codes : array_like of int, shape ``(n_leaves,)``, optional
        The rows' starting hand orders (:func:`hunl.distill.hand_order.order_codes`); default all at random.
    resume, save
        As :func:`plain_by_exploitability` (the state holds the codes too).
    polar : array_like of bool, shape ``(n_leaves,)``, optional
        The rows that may also play the polar order (``"polar"``: meant for rules of decisions not facing a bet,
        whose passive class is a check); default none.

    Returns
    -------
    table : numpy.ndarray of float64, shape ``(n_leaves, 4)``
    codes : numpy.ndarray of int64, shape ``(n_leaves,)``
        Each row's hand order: 0 at random, 1 the best hands first, -1 the weakest first, 2 polar; 0 for a pure
        mix.
    log : list of float
        Mean exploitability over the pool's endgames (% of the pot): the start, then after each pass.

    Raises
    ------
    ValueError
        As :func:`plain_by_exploitability`, or if ``codes`` or ``polar`` does not give one entry per row.
    """
    start = np.zeros(np.asarray(tables[key]).shape[0], dtype=np.int64) if codes is None else codes
    table, code, log = _descent(pool, tables, key, target, used, radius, order, sweeps, denominators, progress,
                                resume, save, start, True, polar)
    code[(table > 1e-12).sum(axis=1) <= 1] = 0
    return table, code, log

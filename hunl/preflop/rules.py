"""Rule cards for push/fold and what they cost: at most five named hand sets per stack band, in mbb/g.

A *rule card* (:class:`RuleCard`) is, for one player and one band of stacks, a union of at most five clauses
(:mod:`hunl.preflop.clauses`): "from 8 to 10 bb push any pair, any ace, any king, Q2s+, offsuit hands with a
ten or better and an 8+ kicker; fold the rest". Played as written at every stack of the band, it is a pure
strategy whose **cost** is measured against the exact solution by best response (:mod:`hunl.preflop.values`):

* the SB's card: ``v(S) - min_c u(card, c)``, what the SB loses against a BB who best-responds to the card;
* the BB's card: ``max_p u(p, card) - v(S)``, what the BB loses against an SB who best-responds;

with ``v(S)`` the game value at stack ``S`` (the LP's). Costs are in mbb/g (1000 x bb per hand), averaged over
the band's 0.1 bb stacks (and their maximum). The profile of both cards has exploitability (NashConv / 2,
:mod:`games.core.best_response`) equal to the mean of the two.

Fitting (:func:`fit_rule_card`): the card of least mean cost among all cards of at most ``max_rules`` candidate
clauses, found exactly by a mixed-integer program (:mod:`hunl.preflop.rule_mip`, HiGHS; within a reported gap
if its time limit runs out), started from a heuristic card: beam search over the candidate clauses (the
``beam`` cheapest cards of each size are each extended by every clause, up to ``max_rules`` clauses), then
local search on the cheapest card (replace or drop one clause at a time while that lowers the cost). The
objective is the exact mean cost itself, not a proxy. The heuristic alone (``method="beam"``) is fast but can
be far from the optimum (on 20-25 bb it finds a BB card costing 25 mbb/g where the MIP proves 2.5 optimal).

Baselines measured the same way (:func:`band_reports`):

* the exact chart read as players read it: a hand is played iff the stack is at most its threshold
  (:func:`hunl.preflop.charts.threshold_strategy`; mixes rounded, gaps ignored);
* the Sklansky-Chubukov numbers as a push chart (:mod:`hunl.preflop.sklansky`);
* a decision tree on hand features and the stack with at most five push (or call) leaves
  (:mod:`hunl.preflop.tree_rules`), the project's tree learner route.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from hunl.poker.cards import HAND_CLASS, NUM_CLASSES
from hunl.preflop.charts import hand_thresholds, threshold_strategy
from hunl.preflop.clauses import candidate_clauses
from hunl.preflop.solve import StackSweep
from hunl.preflop.values import StackValues

__all__ = [
    "ACTIONS",
    "DEFAULT_BANDS",
    "BandReport",
    "Cost",
    "FittedCard",
    "RuleCard",
    "band_reports",
    "band_rows",
    "fit_rule_card",
    "strategy_cost",
]

#: Stack bands (bb) of the rule cards: ``lo <= stack < hi``, the last band including its top.
DEFAULT_BANDS = ((1.0, 2.0), (2.0, 3.0), (3.0, 4.0), (4.0, 5.0), (5.0, 6.5), (6.5, 8.0), (8.0, 10.0),
                 (10.0, 12.5), (12.5, 15.0), (15.0, 20.0), (20.0, 25.0))
#: The aggressive action of each player.
ACTIONS = ("push", "call")


def band_rows(sweep: StackSweep, band, last: bool | None = None) -> np.ndarray:
    """Rows of the sweep with ``lo <= stack < hi`` (``<= hi`` when ``last``, default: when ``hi`` is the top of
    the sweep).

    Parameters
    ----------
    sweep : StackSweep
    band : tuple of (float, float)
        ``(lo, hi)``, stacks in big blinds (compared to 1e-9).
    last : bool, optional
        Include ``hi`` itself; default: if ``hi`` is at least the largest stack of the sweep.

    Returns
    -------
    numpy.ndarray of int64, shape (R,)
        Increasing row indices into ``sweep.stacks`` (and ``sweep.push``/``sweep.call``), R >= 1.

    Raises
    ------
    ValueError
        If the band holds no stack of the sweep.
    """
    lo, hi = float(band[0]), float(band[1])
    s = sweep.stacks
    if last is None:
        last = hi >= s[-1] - 1e-9
    keep = (s >= lo - 1e-9) & ((s <= hi + 1e-9) if last else (s < hi - 1e-9))
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        raise ValueError(f"band {lo:g}-{hi:g} bb holds no stack of the sweep")
    return rows


@dataclass(frozen=True, eq=False)
class Cost:
    """The cost of a strategy over a band of stacks.

    Attributes
    ----------
    stacks : numpy.ndarray of float64, shape (S,)
    loss : numpy.ndarray of float64, shape (S,)
        The player's loss against a best response, relative to the game value (bb per hand, >= 0).
    """

    stacks: np.ndarray
    loss: np.ndarray

    @property
    def mean_mbb(self) -> float:
        """Mean loss over the band (mbb/g)."""
        return 1000.0 * float(self.loss.mean())

    @property
    def max_mbb(self) -> float:
        """Largest loss over the band (mbb/g)."""
        return 1000.0 * float(self.loss.max())


def _losses(sweep: StackSweep, rows: np.ndarray, player: int, strategies) -> np.ndarray:
    """Loss (bb) of each strategy at each band stack: strategies (..., S, 169) or (..., 169) -> (..., S)."""
    sv = StackValues(sweep.stacks[rows], sweep.ante, sweep.small_blind)
    v = sweep.value[rows]
    if player == 0:
        return v - sv.sb_guaranteed(strategies)
    return sv.bb_conceded(strategies) - v


def strategy_cost(sweep: StackSweep, player: int, strategy, rows) -> Cost:
    """The cost of a class strategy on some rows of the sweep.

    Parameters
    ----------
    sweep : StackSweep
    player : int
        0 (the SB's push probabilities) or 1 (the BB's call probabilities).
    strategy : array_like of float, shape (S, 169) or (169,)
        Probabilities per band stack (or one vector for all of them).
    rows : array_like of int, shape (S,)
        Rows of the sweep (e.g. :func:`band_rows`).

    Raises
    ------
    ValueError
        If ``player`` is not 0 or 1, or the shapes disagree.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 (SB) or 1 (BB), got {player!r}")
    rows = np.asarray(rows, dtype=np.intp)
    st = np.asarray(strategy, dtype=np.float64)
    if st.shape not in ((NUM_CLASSES,), (rows.size, NUM_CLASSES)):
        raise ValueError(f"strategy must have shape (169,) or ({rows.size}, 169), got {st.shape}")
    loss = _losses(sweep, rows, player, st)
    return Cost(sweep.stacks[rows].copy(), np.maximum(np.asarray(loss, dtype=np.float64), 0.0))


@dataclass(frozen=True)
class RuleCard:
    """At most a few clauses: play (push or call) exactly the hands in their union, fold the rest.

    Attributes
    ----------
    player : int
        0 for the SB (push), 1 for the BB (call).
    band : tuple of (float, float)
        The stacks (bb) the card is meant for.
    clauses : tuple of HandSet
    """

    player: int
    band: tuple
    clauses: tuple

    def members(self) -> np.ndarray:
        """``(169,)`` bool: the hand classes the card plays."""
        out = np.zeros(NUM_CLASSES, dtype=bool)
        for c in self.clauses:
            out |= c.members()
        return out

    def strategy(self) -> np.ndarray:
        """``(169,)`` float64: 1.0 for the hands played, 0.0 for the rest."""
        return self.members().astype(np.float64)

    def range_text(self) -> str:
        """The hands played, in solver range syntax (``"22+,A2+,K2s+,..."``); ``"-"`` for none."""
        from hunl.poker.ranges import format_range

        return format_range(self.members()[HAND_CLASS].astype(np.float64)) or "-"

    def lines(self) -> list[str]:
        """The card in words: one line per clause, then what to do with the rest."""
        act = ACTIONS[self.player]
        if not self.clauses:
            return [f"{act} nothing: fold every hand"]
        return [f"{act} {c}" for c in self.clauses] + ["fold the rest"]

    def __str__(self) -> str:
        who = "SB" if self.player == 0 else "BB"
        return f"{who}, {self.band[0]:g}-{self.band[1]:g} bb: " + "; ".join(self.lines())


@dataclass(frozen=True, eq=False)
class FittedCard:
    """A rule card fitted to a band, with its cost and how it was found.

    Attributes
    ----------
    card : RuleCard
    cost : Cost
        Its cost at each stack of the band.
    method : str
        ``"mip"`` (optimal over the candidate clauses, or within ``gap_mbb`` of it) or ``"beam"``.
    status : str
        ``"Optimal"``, ``"Time limit reached"`` (MIP) or ``"heuristic"`` (beam search).
    gap_mbb : float or None
        MIP only: the cost is within this of the best card of the grammar (mbb/g); 0 when proven optimal.
    seconds : float
    """

    card: RuleCard
    cost: Cost
    method: str
    status: str
    gap_mbb: float | None
    seconds: float


def fit_rule_card(sweep: StackSweep, player: int, band, max_rules: int = 5, candidates=None,
                  rows=None, beam: int = 8, method: str = "mip", time_limit: float = 60.0) -> FittedCard:
    """The rule card of least mean cost over a band.

    Parameters
    ----------
    sweep : StackSweep
        Exact solutions at the band's stacks.
    player : int
        0 (SB pushes) or 1 (BB calls).
    band : tuple of (float, float)
        ``(lo, hi)`` in bb (see :func:`band_rows`).
    max_rules : int, default 5
        Most clauses on the card.
    candidates : list of HandSet, optional
        Default :func:`hunl.preflop.clauses.candidate_clauses`.
    rows : array_like of int, optional
        Sweep rows to score on (default :func:`band_rows` of the band).
    beam : int, default 8
        Cards of each size kept by the beam search (1: plain greedy selection).
    method : {"mip", "beam"}, default "mip"
        ``"beam"``: beam search and local search only (about a second). ``"mip"``: then the exact MILP of
        :mod:`hunl.preflop.rule_mip`, started from the beam's card (seconds to ``time_limit``).
    time_limit : float, default 60
        MIP only: seconds before HiGHS returns its best card and the remaining gap.

    Returns
    -------
    FittedCard

    Raises
    ------
    ValueError
        If ``max_rules`` is not a positive integer, ``player`` is not 0 or 1, or ``method`` is unknown.
    """
    if isinstance(max_rules, bool) or int(max_rules) != max_rules or max_rules < 1:
        raise ValueError(f"max_rules must be a positive integer, got {max_rules!r}")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 (SB) or 1 (BB), got {player!r}")
    if method not in ("mip", "beam"):
        raise ValueError(f"method must be 'mip' or 'beam', got {method!r}")
    t0 = time.perf_counter()
    cands = candidate_clauses() if candidates is None else list(candidates)
    rows = band_rows(sweep, band) if rows is None else np.asarray(rows, dtype=np.intp)
    members = np.array([c.members() for c in cands])                       # (K, 169)

    sv = StackValues(sweep.stacks[rows], sweep.ante, sweep.small_blind)
    v = float(sweep.value[rows].mean())

    def mean_cost(sets: np.ndarray) -> np.ndarray:
        x = np.atleast_2d(sets).astype(np.float64)
        out = v - sv.mean_sb_guaranteed(x) if player == 0 else sv.mean_bb_conceded(x) - v
        return out if np.ndim(sets) == 2 else out[0]

    def union(idx) -> np.ndarray:
        out = np.zeros(NUM_CLASSES, dtype=bool)
        for k in idx:
            out |= members[k]
        return out

    # beam search: keep the `beam` cheapest cards of each size, extend each by every candidate clause
    empty = float(mean_cost(np.zeros(NUM_CLASSES, dtype=bool)))
    beams = [((), np.zeros(NUM_CLASSES, dtype=bool), empty)]
    best_idx, best = (), empty
    for _ in range(int(max_rules)):
        sets = np.concatenate([u | members for _, u, _ in beams])           # (B * K, 169)
        costs = mean_cost(sets)
        order = np.argsort(costs, kind="stable")
        nxt, seen = [], set()
        for flat in order:
            b, k = divmod(int(flat), len(cands))
            idx = tuple(sorted(beams[b][0] + (k,)))
            key = sets[flat].tobytes()
            if k in beams[b][0] or key in seen:
                continue
            seen.add(key)
            nxt.append((idx, sets[flat], float(costs[flat])))
            if len(nxt) == int(beam):
                break
        if not nxt:
            break
        beams = nxt
        if beams[0][2] < best - 1e-15:
            best_idx, best = beams[0][0], beams[0][2]
    chosen = list(best_idx)
    for _ in range(10):                       # local search: replace or drop one clause at a time
        improved = False
        for pos in range(len(chosen)):
            others = union(chosen[:pos] + chosen[pos + 1:])
            drop = float(mean_cost(others))
            if drop <= best + 1e-15:
                chosen.pop(pos)
                best = drop
                improved = True
                break
            costs = mean_cost(others | members)
            k = int(np.argmin(costs))
            if costs[k] < best - 1e-15:
                chosen[pos] = k
                best = float(costs[k])
                improved = True
        if not improved:
            break
    status, gap = "heuristic", None
    if method == "mip":
        from hunl.preflop.rule_mip import optimal_clauses

        res = optimal_clauses(sweep, rows, player, members, max_rules, start=chosen, time_limit=time_limit)
        if float(mean_cost(union(res.chosen))) <= best + 1e-12:
            chosen = list(res.chosen)
        status, gap = res.status, res.gap_mbb
    chosen.sort()
    card = RuleCard(player, (float(band[0]), float(band[1])), tuple(cands[k] for k in chosen))
    return FittedCard(card, strategy_cost(sweep, player, card.strategy(), rows), method, status, gap,
                      time.perf_counter() - t0)


@dataclass(frozen=True, eq=False)
class BandReport:
    """Rule cards of both players for one band, with their costs and the baselines' (see the module docstring).

    Attributes
    ----------
    band : tuple of (float, float)
    rows : numpy.ndarray of int
        Sweep rows of the band.
    fits : tuple of (FittedCard, FittedCard)
        The SB's push card and the BB's call card, with their costs.
    chart_costs : tuple of (Cost, Cost)
        The exact 0.1 bb chart read by thresholds.
    sklansky_cost : Cost
        The SB pushing by Sklansky-Chubukov numbers.
    tree_cards : tuple or None
        ``(TreeCard, TreeCard)`` of :mod:`hunl.preflop.tree_rules`, if computed.
    tree_costs : tuple or None
        Their costs.
    """

    band: tuple
    rows: np.ndarray
    fits: tuple
    chart_costs: tuple
    sklansky_cost: Cost
    tree_cards: tuple | None = None
    tree_costs: tuple | None = None

    @property
    def cards(self) -> tuple:
        """``(SB card, BB card)``."""
        return tuple(f.card for f in self.fits)

    @property
    def card_costs(self) -> tuple:
        """``(SB card's Cost, BB card's Cost)``."""
        return tuple(f.cost for f in self.fits)

    @property
    def profile_exploitability_mbb(self) -> float:
        """Exploitability (NashConv / 2) of the two cards played together, mean over the band (mbb/g)."""
        return 0.5 * (self.card_costs[0].mean_mbb + self.card_costs[1].mean_mbb)


def band_reports(sweep: StackSweep, bands=DEFAULT_BANDS, max_rules: int = 5, trees: bool = True,
                 progress: bool = False, method: str = "mip", time_limit: float = 60.0) -> list[BandReport]:
    """Rule cards and baselines for every band (see the module docstring).

    Parameters
    ----------
    sweep : StackSweep
        Must cover the bands (e.g. :func:`hunl.preflop.solve.solve_stacks` with its default 1-25 bb grid).
    bands : sequence of (float, float), default :data:`DEFAULT_BANDS`
    max_rules : int, default 5
    trees : bool, default True
        Also fit the decision-tree baseline.
    progress : bool, default False
        A tqdm bar over the bands.
    method, time_limit
        As :func:`fit_rule_card`.
    """
    from hunl.preflop.sklansky import sklansky_chubukov

    sc = sklansky_chubukov(sweep.ante, sweep.small_blind)
    chart = [np.array([np.inf if t.always else (np.nan if t.threshold is None else t.threshold)
                       for t in hand_thresholds(sweep, p)]) for p in (0, 1)]
    it = bands
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(bands, desc="rule cards", unit="band", dynamic_ncols=True)
    out = []
    for band in it:
        rows = band_rows(sweep, band)
        stacks = sweep.stacks[rows]
        fitted = tuple(fit_rule_card(sweep, p, band, max_rules, rows=rows, method=method, time_limit=time_limit)
                       for p in (0, 1))
        chart_costs = tuple(strategy_cost(sweep, p, threshold_strategy(chart[p], stacks), rows) for p in (0, 1))
        sk = strategy_cost(sweep, 0, threshold_strategy(sc, stacks), rows)
        tree_cards = tree_costs = None
        if trees:
            from hunl.preflop.tree_rules import fit_tree_card

            tree_cards = tuple(fit_tree_card(sweep, p, band, max_rules, rows=rows) for p in (0, 1))
            tree_costs = tuple(strategy_cost(sweep, p, t.predict(stacks), rows) for p, t in enumerate(tree_cards))
        out.append(BandReport((float(band[0]), float(band[1])), rows, fitted, chart_costs, sk, tree_cards,
                              tree_costs))
    return out


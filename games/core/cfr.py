"""The CFR family -- vanilla CFR, CFR+, Discounted CFR and predictive CFR+ -- as parameters of one loop.

Counterfactual regret minimisation (Zinkevich et al. 2007; notation as in Bertsimas & Paskov 2022, Section
2.3): at every information set ``I = (public node, hand)`` of player ``i`` the instantaneous regret of action
``a`` on iteration ``t`` is ``r^t(I, a) = v_i(I, a) - v_i(I)``, the difference of counterfactual values (the
opponent's and chance's reach are inside ``v``); the next strategy is regret matching on the accumulated regret
``R^t``; the output is the average strategy weighted by the player's own reach. Here one pass over the flattened
public tree updates every hand at once (range vectors, as in DeepStack and postflop solvers), compiled with numba.

One loop, four knobs (:class:`CFRConfig`):

``alternating``
    Update player 1, then player 2 against player 1's new strategy (Tammelin 2014), instead of both players
    simultaneously against the same profile.
``regret_matching_plus``
    Regret matching+ (Tammelin 2014; Bowling et al. 2015): accumulated regrets are clipped at 0 after each
    update. Equivalent to discounting negative regrets by 0 every iteration.
``alpha``, ``beta``
    Discounted CFR (Brown & Sandholm 2019): after iteration ``t`` positive accumulated regrets are multiplied by
    ``t^alpha / (t^alpha + 1)`` and negative ones by ``t^beta / (t^beta + 1)``. ``None`` (or ``inf``) means no
    discount; ``beta = -inf`` zeroes negative regrets (as regret matching+ does).
``gamma``, ``averaging_delay``, ``average_reset``
    Iteration ``t`` contributes to the average strategy with weight ``(t - delay)^gamma`` (0 for ``t <= delay``):
    ``gamma = 0`` is CFR's uniform average, ``gamma = 1`` linear averaging (CFR+; Tammelin 2014 proposes a delay,
    in practice delay-free linear averaging is used), ``gamma = 2`` DCFR's default. With ``average_reset = k``
    the average restarts at every power of ``k`` (iteration ``t`` then weighs ``(t - k^j + 1)^gamma`` with ``k^j``
    the last power of ``k`` at most ``t``): the schedule of postflop-solver, which forgets the early iterates.
``predictive``
    Predictive regret matching (Farina, Kroer & Sandholm 2021): the strategy is regret matching on the
    accumulated regret plus the last instantaneous regret (the prediction of the next one). With regret
    matching+ this is PCFR+.

The named variants (:data:`VARIANTS`):

===============  =========  ===  ==========  =====  ====  =====  =============
variant          alternate  RM+  predictive  alpha  beta  gamma  average reset
===============  =========  ===  ==========  =====  ====  =====  =============
``cfr``          no         no   no          --     --    0      --
``cfr+``         yes        yes  no          --     --    1      --
``dcfr``         yes        no   no          1.5    0     2      --
``dcfr-reset``   yes        no   no          1.5    0     3      powers of 4
``pcfr+``        yes        yes  yes         --     --    2      --
===============  =========  ===  ==========  =====  ====  =====  =============

``dcfr`` is Brown & Sandholm's recommended setting and the default. ``dcfr-reset`` is postflop-solver's schedule
(negative regrets halved each iteration, as ``beta = 0`` gives, cubic weights, the average restarted at powers of
4). ``pcfr+`` is Farina et al.'s PCFR+ with quadratic averaging.

Parameter ranges (validated, ``ValueError`` otherwise):

* ``alpha`` in ``[0, inf]`` or ``None``. A negative alpha makes the factor ``t^alpha / (t^alpha + 1)`` fall
  below 1/2 and tend to 0, so positive regrets would be forgotten ever faster; Brown & Sandholm's discounting
  keeps the factor rising towards 1, which needs ``alpha >= 0``.
* ``beta`` in ``[-inf, inf]`` or ``None``; no ordering with ``alpha`` is required (``beta > alpha``, discounting
  negative regrets less than positive ones, is a legal if unusual choice). It must be ``None`` when
  ``regret_matching_plus`` is set, which already fixes negative regrets to 0.
* ``gamma`` finite and ``>= 0`` (a negative gamma would weight early, poor iterations most).
* ``averaging_delay`` an integer ``>= 0``; ``average_reset`` ``None`` or an integer ``>= 2`` (not both a delay
  and a reset).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from games.core.best_response import ExploitabilityResult, result_from_values
from games.core.checkpoint import SolverState
from games.core.compilation import compiling
from games.core.engine import Engine
from games.core.policy import Policy
from games.core.tree import Game

__all__ = ["VARIANTS", "CFRConfig", "CFRResult", "solve_cfr", "variant"]


def _check_real(name: str, value, allow_none: bool = True) -> float | None:
    if value is None:
        if allow_none:
            return None
        raise ValueError(f"{name} must be a number, got None")
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if math.isnan(v):
        raise ValueError(f"{name} must not be NaN")
    return v


@dataclass(frozen=True)
class CFRConfig:
    """Parameters of the CFR loop (see the module docstring for their meaning, ranges and sources).

    Parameters
    ----------
    alpha : float or None, default None
        Positive-regret discount exponent; ``None`` or ``inf``: no discount.
    beta : float or None, default None
        Negative-regret discount exponent; ``None`` or ``inf``: no discount; ``-inf``: clip at 0.
    gamma : float, default 0
        Average-strategy weight exponent.
    regret_matching_plus : bool, default False
        Clip accumulated regrets at 0 (CFR+).
    alternating : bool, default False
        Alternating instead of simultaneous updates.
    averaging_delay : int, default 0
        Iterations ``t <= averaging_delay`` do not enter the average.
    average_reset : int or None, default None
        Restart the average at every power of this base (postflop-solver uses 4).
    predictive : bool, default False
        Predictive regret matching (PCFR+ with ``regret_matching_plus``).
    name : str, default "custom"
        A label for logs and results.

    Raises
    ------
    ValueError
        If a parameter is out of range (see the module docstring).
    """

    alpha: float | None = None
    beta: float | None = None
    gamma: float = 0.0
    regret_matching_plus: bool = False
    alternating: bool = False
    averaging_delay: int = 0
    average_reset: int | None = None
    predictive: bool = False
    name: str = "custom"

    def __post_init__(self):
        alpha = _check_real("alpha", self.alpha)
        if alpha is not None and alpha < 0:
            raise ValueError(f"alpha must be >= 0 (or None / inf for no discount of positive regrets), got {alpha!r}")
        if alpha == math.inf:
            alpha = None
        beta = _check_real("beta", self.beta)
        if beta == math.inf:
            beta = None
        if self.regret_matching_plus and beta is not None:
            raise ValueError("regret_matching_plus=True already sets negative regrets to 0; leave beta=None "
                             f"(got beta={beta!r})")
        gamma = _check_real("gamma", self.gamma, allow_none=False)
        if not (0.0 <= gamma < math.inf):
            raise ValueError(f"gamma must be finite and >= 0, got {gamma!r}")
        delay = self.averaging_delay
        if isinstance(delay, bool) or int(delay) != delay or delay < 0:
            raise ValueError(f"averaging_delay must be an integer >= 0, got {delay!r}")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "averaging_delay", int(delay))
        reset = self.average_reset
        if reset is not None:
            if isinstance(reset, bool) or int(reset) != reset or reset < 2:
                raise ValueError(f"average_reset must be None or an integer >= 2, got {reset!r}")
            if delay:
                raise ValueError("average_reset and averaging_delay cannot both be set")
            object.__setattr__(self, "average_reset", int(reset))
        object.__setattr__(self, "predictive", bool(self.predictive))
        object.__setattr__(self, "regret_matching_plus", bool(self.regret_matching_plus))
        object.__setattr__(self, "alternating", bool(self.alternating))

    def _kernel_params(self):
        def kind(x, neg_inf_kind):
            if x is None:
                return 0.0, 1
            if x == -math.inf:
                return 0.0, neg_inf_kind
            return float(x), 0

        alpha, alpha_kind = kind(self.alpha, 2)
        if self.regret_matching_plus:
            beta, beta_kind = 0.0, 2
        else:
            beta, beta_kind = kind(self.beta, 2)
        return (alpha, alpha_kind, beta, beta_kind, self.gamma, self.averaging_delay, self.average_reset or 0,
                self.alternating)


#: The named members of the family.
VARIANTS = {
    "cfr": CFRConfig(name="cfr"),
    "cfr+": CFRConfig(regret_matching_plus=True, alternating=True, gamma=1.0, name="cfr+"),
    "dcfr": CFRConfig(alpha=1.5, beta=0.0, gamma=2.0, alternating=True, name="dcfr"),
    "dcfr-reset": CFRConfig(alpha=1.5, beta=0.0, gamma=3.0, alternating=True, average_reset=4, name="dcfr-reset"),
    "pcfr+": CFRConfig(regret_matching_plus=True, predictive=True, alternating=True, gamma=2.0, name="pcfr+"),
}


def variant(method, **overrides) -> CFRConfig:
    """A :class:`CFRConfig` from a variant name (``"cfr"``, ``"cfr+"``, ``"dcfr"``) or a config, with fields
    overridden (e.g. ``variant("dcfr", alpha=2.0)``).

    Parameters
    ----------
    method : str or CFRConfig
        A key of :data:`VARIANTS` (``"cfr"``, ``"cfr+"``, ``"dcfr"``, ``"dcfr-reset"``, ``"pcfr+"``; case and
        surrounding spaces are ignored), or a config used as is.
    **overrides
        Fields of :class:`CFRConfig` to replace (``alpha``, ``beta``, ``gamma``, ...); the config is checked
        again. ``name`` is kept unless overridden.

    Returns
    -------
    CFRConfig
        The named (or given) config itself without overrides, else a new one.

    Raises
    ------
    ValueError
        For an unknown name, an unknown field or an out-of-range value (e.g. ``beta`` with
        ``regret_matching_plus``).
    TypeError
        If an override cannot be converted (e.g. ``averaging_delay=None``).
    """
    if isinstance(method, CFRConfig):
        config = method
    else:
        key = str(method).strip().lower()
        if key not in VARIANTS:
            raise ValueError(f"unknown CFR variant {method!r}; choose one of {', '.join(VARIANTS)}")
        config = VARIANTS[key]
    if not overrides:
        return config
    fields = {f.name for f in dataclasses.fields(CFRConfig)}
    unknown = set(overrides) - fields
    if unknown:
        raise ValueError(f"unknown CFR parameter(s) {sorted(unknown)}; known: {sorted(fields)}")
    return dataclasses.replace(config, **overrides)


@dataclass(frozen=True, eq=False)
class CFRResult:
    """Outcome of :func:`solve_cfr`.

    Attributes
    ----------
    game : Game
        The game solved.
    strategy : numpy.ndarray, shape ``(S,)``
        The average strategy profile (weighted as the config says), the approximate equilibrium, in the solver's
        storage layout (per decision node and acting hand, :class:`games.core.layout.TreeLayout`), the game's
        storage dtype (float32 or float64). Computed from the engine's average weights when first read, so a
        run that only needs values, exploitability or a resumable state never holds it: it is as large as the
        regrets (527 MiB on the flop spot of ``benchmarks/bench_hunl.py``).
    current_strategy : numpy.ndarray, shape ``(S,)``
        The last iterate's strategy profile, same layout and dtype (computed from the engine when first read).
    exploitability : ExploitabilityResult
        Best-response values, NashConv and exploitability (NashConv / 2) of the average strategy, chips.
    iterations : int
        Iterations run.
    seconds : float
        Wall time in seconds, exploitability checks included, numba's one-off compilation excluded.
    compile_seconds : float
        Wall time spent compiling (or loading from numba's cache) the solver's kernels before the run.
    converged : bool
        True when ``target`` was given and reached.
    target : float or None
        The target exploitability in chips.
    config : CFRConfig
        The parameters used.
    log_iterations : numpy.ndarray of int64, shape ``(L,)``
        Iteration counts at which the exploitability of the average policy was measured.
    log_exploitability : numpy.ndarray of float64, shape ``(L,)``
        Exploitability (NashConv / 2, chips) at those iterations.
    log_seconds : numpy.ndarray of float64, shape ``(L,)``
        Wall time since the start at those iterations.
    engine : Engine
        The solver state (regrets and average weights), for resuming or further evaluation.

    Notes
    -----
    With node locks (``engine.locks``) the exploitability is that of the restricted game: the locked player's
    best response keeps his locked hands' strategy (:mod:`games.core.locks`).
    """

    game: Game
    exploitability: ExploitabilityResult
    iterations: int
    seconds: float
    compile_seconds: float
    converged: bool
    target: float | None
    config: CFRConfig
    log_iterations: np.ndarray
    log_exploitability: np.ndarray
    log_seconds: np.ndarray
    engine: Engine

    @property
    def value(self) -> float:
        """Player 1's expected payoff under ``policy`` in chips (an estimate of the game value)."""
        return self.exploitability.policy_values[0]

    @cached_property
    def strategy(self) -> np.ndarray:
        return self.engine.strategies("average")

    @cached_property
    def policy(self) -> Policy:
        """The average strategy as a :class:`Policy` (edge layout, ``(N, Hm)`` float64)."""
        return Policy(self.game, self.engine.to_edges(self.strategy))

    @cached_property
    def current_strategy(self) -> np.ndarray:
        return self.engine.strategies("current")

    @cached_property
    def current_policy(self) -> Policy:
        """The last iterate as a :class:`Policy`."""
        return Policy(self.game, self.engine.to_edges(self.current_strategy))

    @property
    def locks(self):
        """The node locks of the solve (:class:`games.core.locks.NodeLocks`), or ``None``."""
        return self.engine.locks

    def state(self) -> SolverState:
        """The solver state after the run (copies), to save (:func:`games.core.checkpoint.save_state`) or to
        resume from (``solve_cfr(..., resume=state)``)."""
        return SolverState.from_engine(self.engine, self.config, self.iterations, self.log_iterations,
                                       self.log_exploitability, self.log_seconds, self.seconds)

    def node_strategy(self, node) -> np.ndarray:
        """``(H_p, n_actions)``: the average strategy at a decision node (rows = the actor's hands)."""
        t = self.game.tree
        n = t.node(node)
        p = int(t.player[n])
        if p not in (0, 1):
            raise ValueError(f"node {n} ({t.history[n] or 'root'}) is not a decision node")
        h = self.game.num_hands[p]
        a = int(t.num_children[n])
        off = int(self.engine.layout.offset[n])
        return self.strategy[off:off + a * h].reshape(a, h).T.copy()


def _compile(engine: Engine, params) -> float:
    """Compile (or load from numba's cache) the kernels a run uses; seconds spent. A compilation (the first run on
    a machine) is announced on standard error (:func:`games.core.compilation.compiling`)."""
    t0 = time.perf_counter()
    with compiling():
        engine.iterate(0, 0, params)
        engine.exploitability_chips()
    engine.regret[:] = 0
    engine.avg[:] = 0
    engine.pred[:] = 0
    engine.rscale[:] = 1
    engine.ascale[:] = 1
    return time.perf_counter() - t0


def solve_cfr(game: Game, method=None, iterations: int = 1000, target: float | None = None,
              check_every: int = 1, progress: bool = False, threads: int | None = None,
              compressed: bool | None = None, locks=None, resume: SolverState | None = None,
              **overrides) -> CFRResult:
    """Approximate a Nash equilibrium with a member of the CFR family.

    Parameters
    ----------
    game : Game
        Any game implementing the interface of :mod:`games.core.tree`.
    method : str or CFRConfig, optional
        ``"cfr"``, ``"cfr+"``, ``"dcfr"``, ``"dcfr-reset"``, ``"pcfr+"`` or a :class:`CFRConfig`; default
        ``"dcfr"``, or the resumed state's config.
    iterations : int, default 1000
        Maximum number of iterations in total (a resumed run counts the state's iterations: it continues from
        ``resume.iteration`` up to ``iterations``, and runs none when the state is already there).
    target : float, optional
        Stop as soon as the exploitability (NashConv / 2, chips) of the average policy is at most ``target``.
    check_every : int, default 1
        Measure the exploitability every this many iterations (and at the last one); each measurement is one
        entry of the log. 1 logs every iteration.
    progress : bool, default False
        Show a tqdm progress bar (rate, ETA, current exploitability) on stderr.
    threads : int, optional
        Threads for the independent subtrees below the root's chance nodes (default: numba's thread count for
        games large enough to gain from them, else 1). Results do not depend on it.
    compressed : bool, optional
        16-bit storage of regrets and average weights with a scale per decision node (half the memory; see
        :class:`games.core.engine.Engine`). Default False, or the resumed state's mode.
    locks : mapping or NodeLocks, optional
        Node locks (:func:`games.core.locks.check_locks`): the locked hands play the given strategy at the given
        nodes, the rest is solved (the restricted game; its exploitability is reported). A resumed run keeps the
        state's locks.
    resume : SolverState, optional
        Continue a run (:meth:`CFRResult.state`, :func:`games.core.checkpoint.load_state`) on the same game:
        the same algorithm and schedule, storage mode and locks; the log and ``seconds`` continue the state's.
        Iterations ``resume.iteration + 1 ..`` are bitwise those of an uninterrupted run.
    **overrides
        Fields of :class:`CFRConfig` to override, e.g. ``alpha=2.0``.

    Returns
    -------
    CFRResult

    Raises
    ------
    ValueError
        Unknown method, out-of-range parameters, ``iterations < 1``, ``check_every < 1``, a negative/NaN
        ``target``, invalid locks; with ``resume``: a game of another size or dtype, another algorithm or
        schedule, another storage mode or other locks than the state's.

    Examples
    --------
    >>> from games.kuhn import KuhnPoker
    >>> res = solve_cfr(KuhnPoker(), "dcfr", iterations=2000, target=1e-4)
    >>> res.converged, round(res.value, 2)
    (True, -0.06)
    """
    if resume is not None:
        if not isinstance(resume, SolverState):
            raise ValueError(f"resume must be a SolverState, got {type(resume).__name__}")
        resume.check_game(game, "resume")
        config = resume.config if method is None and not overrides else variant(
            resume.config if method is None else method, **overrides)
        if dataclasses.replace(config, name="") != dataclasses.replace(resume.config, name=""):
            raise ValueError(f"resume: the state was solved with {resume.config}; a resumed run must use the same "
                             f"algorithm and schedule, got {config}")
        config = resume.config
        if compressed is not None and bool(compressed) != resume.compressed:
            raise ValueError(f"resume: compressed={compressed!r} but the state was saved with "
                             f"compressed={resume.compressed}")
        compressed = resume.compressed
        saved_locks = resume.locks(game)
        if locks is not None:
            from games.core.locks import check_locks

            given = check_locks(game, locks)
            if (saved_locks is None and given is not None) or (saved_locks is not None
                                                                and not saved_locks.same_as(given)):
                raise ValueError("resume: locks differ from the state's (a resumed run keeps the saved locks; "
                                 "leave locks=None)")
        locks = saved_locks
    else:
        config = variant("dcfr" if method is None else method, **overrides)
        compressed = bool(compressed)
    if isinstance(iterations, bool) or int(iterations) != iterations or iterations < 1:
        raise ValueError(f"iterations must be an integer >= 1, got {iterations!r}")
    if isinstance(check_every, bool) or int(check_every) != check_every or check_every < 1:
        raise ValueError(f"check_every must be an integer >= 1, got {check_every!r}")
    if target is not None:
        target = _check_real("target", target)
        if target < 0:
            raise ValueError(f"target exploitability must be >= 0 chips, got {target!r}")
    iterations, check_every = int(iterations), int(check_every)
    params = config._kernel_params()
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads or threads < 1):
        raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
    engine = Engine(game, predictive=config.predictive, n_threads=threads, compressed=compressed, locks=locks)
    compile_seconds = _compile(engine, params)
    log_it, log_ex, log_s = [], [], []
    done, before = 0, 0.0
    br = None
    converged = False
    if resume is not None:
        resume.restore(engine)
        done, before = resume.iteration, resume.seconds
        log_it, log_ex, log_s = (list(resume.log_iterations), list(resume.log_exploitability),
                                 list(resume.log_seconds))
        if target is not None and log_it and log_it[-1] == done and log_ex[-1] <= target:
            converged = True
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=iterations, initial=min(done, iterations), unit="it", desc=f"{config.name} {game.name}",
                   dynamic_ncols=True)
    start = time.perf_counter() - before
    try:
        while done < iterations and not converged:
            step = min(check_every, iterations - done)
            engine.iterate(done, step, params)
            done += step
            expl, br, _ = engine.exploitability_chips()
            log_it.append(done)
            log_ex.append(expl)
            log_s.append(time.perf_counter() - start)
            if bar is not None:
                bar.update(step)
                bar.set_postfix(exploitability=f"{expl:.3g}", refresh=False)
            if target is not None and expl <= target:
                converged = True
                break
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    if br is None:  # a resumed run with nothing left to do
        br = engine.best_response_values()
    values = engine.policy_values()
    value = float(values[0])
    return CFRResult(
        game=game,
        exploitability=result_from_values(game, br, value, values=values),
        iterations=done,
        seconds=seconds,
        compile_seconds=compile_seconds,
        converged=converged,
        target=target,
        config=config,
        log_iterations=np.asarray(log_it, dtype=np.int64),
        log_exploitability=np.asarray(log_ex, dtype=np.float64),
        log_seconds=np.asarray(log_s, dtype=np.float64),
        engine=engine,
    )

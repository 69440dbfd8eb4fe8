"""The main job (``rulelearn demo``): train every learner on a solution database, score it on held-out games,
print the table and the most prominent rules, and plot test error against tree depth.

Game-agnostic: everything game-specific comes from the :class:`~rulelearn.family.GameFamily` (through
:class:`~rulelearn.data.splits.SolvedGames`). Every score is the mean output EMD (Algorithm 2, in ``[0, 1]``) and
player 1's exploitability (chips; the bet game's pot is 1 chip) on held-out games.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rulelearn.data.database import SolutionDatabase
from rulelearn.data.splits import SolvedGames, Split, split_games
from rulelearn.experiments.scoring import PolicyScore, score_policy
from rulelearn.experiments.trees import tree_sweep
from rulelearn.family import GameFamily, load_family
from rulelearn.features.representations import PAPER_REPRESENTATIONS, Representation
from rulelearn.learners import ClusterThenTree, EMDKMedoids, EMDNearestNeighbors, StrategyTree
from rulelearn.learners.model import StrategyModel
from rulelearn.report.plots import plot_depth_curve, plot_strategies
from rulelearn.rules.formatting import describe_strategy, format_rule
from rulelearn.validation import check_int, check_output_dir, check_real

__all__ = ["ALL_REPRESENTATIONS", "TEST_FRACTION", "DemoJob", "LearnerSpec", "default_learners", "depth_curve",
           "evaluate", "format_scores", "minimum_games", "run_demo", "solve_or_load"]

#: The paper's six representations and the "share of the opponent's range beaten" extension.
ALL_REPRESENTATIONS = PAPER_REPRESENTATIONS + (Representation("cdf", "beats"),)


@dataclass(frozen=True)
class LearnerSpec:
    """A named learner with its representation."""

    name: str
    learner: object
    representation: Representation


def default_learners(seed: int = 0) -> list[LearnerSpec]:
    """The learners of the papers, each with the representation it is reported with.

    Parameters
    ----------
    seed : int or None, default 0
        ``random_state`` of the k-medoids and cluster-then-tree learners (not checked here: scikit-learn's
        ``check_random_state`` checks it when they are fitted).

    Returns
    -------
    list of LearnerSpec
        Fifteen unfitted learners, in the order of the demo's table: k-medoids with ``k = 1`` (one strategy
        for all games), 1-NN and k-medoids with ``k = 5, 10, 15`` (input EMD), two cluster-then-tree learners
        with ``k = 5`` (tree on the medoids; tree of depth 3 on the members), all on the whole cdf
        (``Representation("cdf", None)``); a tree of depth 4 for each of :data:`ALL_REPRESENTATIONS`; a tree
        of depth 8 on the whole cdf.
    """
    whole = Representation("cdf", None)
    specs = [
        LearnerSpec("one strategy (k-medoids k=1)", EMDKMedoids(1, random_state=seed), whole),
        LearnerSpec("1-NN, input EMD", EMDNearestNeighbors(1), whole),
    ]
    specs += [LearnerSpec(f"k-medoids k={k}, input EMD", EMDKMedoids(k, random_state=seed), whole)
              for k in (5, 10, 15)]
    specs += [
        LearnerSpec("cluster-then-tree k=5 (on medoids)", ClusterThenTree(5, random_state=seed), whole),
        LearnerSpec("cluster-then-tree k=5 (on members, depth 3)",
                    ClusterThenTree(5, max_depth=3, tree_on="members", random_state=seed), whole),
    ]
    specs += [LearnerSpec("tree depth 4", StrategyTree(4), rep) for rep in ALL_REPRESENTATIONS]
    specs += [LearnerSpec("tree depth 8", StrategyTree(8), whole)]
    return specs



def evaluate(games: SolvedGames, specs: list[LearnerSpec], split: Split) -> list[tuple[PolicyScore, StrategyModel]]:
    """Fit every learner on the training games and score it on the test games.

    Parameters
    ----------
    games : SolvedGames
        The loaded solution database.
    specs : list of LearnerSpec
    split : Split

    Returns
    -------
    list of (PolicyScore, StrategyModel)
        In the order of ``specs``.
    """
    ranges, strategies = games.ranges, games.strategies
    test = games.subset(split.test)
    out = []
    for spec in specs:
        model = StrategyModel.for_games(games, spec.learner, spec.representation)
        model.fit(ranges[split.train], strategies[split.train])
        pred = model.predict(ranges[split.test])
        score = score_policy(spec.name, spec.representation.name, model.model_size, pred,
                             strategies[split.test], test.player1_exploitability(pred))
        out.append((score, model))
    return out


def depth_curve(games: SolvedGames, split: Split, depths=range(1, 13),
                representations=ALL_REPRESENTATIONS) -> pd.DataFrame:
    """Test error of trees by depth for each representation (the paper's Figures 4a and 6a).

    One tree of the largest depth is grown per representation and cut at each depth
    (:func:`rulelearn.experiments.trees.predict_by_depth`).

    Parameters
    ----------
    games : SolvedGames
        The loaded solution database.
    split : Split
        Train/test row indices into ``games``: the trees are fitted on ``split.train`` and scored on
        ``split.test``.
    depths : iterable of int, default ``range(1, 13)``
        Depth limits (the root is depth 0); the largest must be at least 1.
    representations : iterable of Representation, default :data:`ALL_REPRESENTATIONS`
        One tree each.

    Returns
    -------
    pandas.DataFrame
        Columns ``representation``, ``depth``, ``rules`` (leaves), ``emd``, ``exploitability`` (mean, chips).
        One row per (representation, depth), representations in the given order, depths increasing; ``emd`` is
        the mean output EMD (Algorithm 2, in ``[0, 1]``) and ``exploitability`` player 1's mean exploitability
        on the test games.

    Raises
    ------
    ValueError
        If ``depths`` is empty or holds a negative or non-integer value, or its largest value is 0
        (scikit-learn's ``max_depth`` must be at least 1).
    """
    reps = dict(enumerate(representations, start=1))
    sweep = tree_sweep(games, split, reps, depths=depths, r2=False)
    keep = ["representation", "depth", "rules", "emd", "exploitability"]
    return sweep.rename(columns={"leaves": "rules"})[keep]


def format_scores(scores: list[PolicyScore]) -> str:
    """A fixed-width table: learner, representation, size, EMD, exploitability mean/median/max (chips).

    Parameters
    ----------
    scores : list of PolicyScore
        One per learner, printed in this order (as from :func:`evaluate`).

    Returns
    -------
    str
        Two header lines, a rule of dashes and one line per score, without a final newline: the learner's
        name, the representation's name, the size with its unit (e.g. ``"4 rules"``), the mean output EMD
        (Algorithm 2, in ``[0, 1]``) and player 1's exploitability on the held-out games (chips): mean, median
        and maximum, four decimals each. Names longer than their columns (44 and 13 characters) are not cut
        and shift the rest of their line.
    """
    head = (f"{'learner':<44} {'repr.':<13} {'size':>14} {'EMD':>7}   "
            f"{'exploitability (chips)':>24}\n{'':<44} {'':<13} {'':>14} {'':>7}   "
            f"{'mean':>8}{'median':>8}{'max':>8}")
    lines = [head, "-" * len(head.splitlines()[0])]
    for s in scores:
        size = f"{s.size} {s.size_unit}"
        lines.append(f"{s.learner:<44} {s.representation:<13} {size:>14} {s.emd:7.4f}   "
                     f"{s.exploitability_mean:8.4f}{s.exploitability_median:8.4f}{s.exploitability_max:8.4f}")
    return "\n".join(lines)


#: Share of the demo's games held out for scoring.
TEST_FRACTION = 0.2


def minimum_games(specs: list[LearnerSpec] | None = None, test_fraction: float = TEST_FRACTION) -> int:
    """The fewest games the demo can learn from: every learner's clusters need as many training games, and at
    least one game is held out.

    Parameters
    ----------
    specs : list of LearnerSpec, optional
        The learners (default :func:`default_learners`); a learner's ``n_clusters`` attribute (1 if it has
        none) is the number of training games it needs.
    test_fraction : float, default :data:`TEST_FRACTION`
        Share of the games held out, as in :func:`~rulelearn.data.splits.split_games`; in ``(0, 1)``.

    Returns
    -------
    int
        The least ``n`` greater than the largest ``n_clusters`` with ``round(n * test_fraction) >= 1``
        held-out games and ``n - round(n * test_fraction)`` training games at least the largest
        ``n_clusters`` (19 for the default learners and fraction).

    Raises
    ------
    TypeError, ValueError
        If a learner's ``n_clusters`` cannot be converted by ``int``.
    ValueError
        If ``test_fraction`` is not in ``(0, 1)`` (0 or 1 would never end the search).
    """
    test_fraction = check_real("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    specs = default_learners() if specs is None else specs
    need = max([1] + [int(getattr(spec.learner, "n_clusters", 1)) for spec in specs])
    n = need + 1
    while n - round(n * test_fraction) < need or round(n * test_fraction) < 1:
        n += 1
    return n


@dataclass(frozen=True)
class DemoJob:
    """What ``rulelearn demo`` and ``rulelearn generate`` run (their options; see ``rulelearn demo --help``).

    The numbers are checked on construction, naming their option; the paths by :meth:`check_paths`, before any
    game is solved.

    Raises
    ------
    ValueError
        If ``games``, ``shard_size`` or ``workers`` is not a positive integer, ``seed`` is negative, or
        ``max_depth`` is below 1.
    """

    game: str = "betgame"
    games: int = 2000
    seed: int = 0
    db: str = "data/betgame"
    workers: int | None = None
    quiet: bool = False
    out: str = "data/demo"
    max_depth: int = 12
    shard_size: int = 250
    scheduler: str | None = None
    repair: bool = False

    def __post_init__(self):
        check_int("--games", self.games, 1)
        check_int("--seed", self.seed, 0)
        check_int("--workers", self.workers, 1, allow_none=True)
        check_int("--max-depth", self.max_depth, 1)
        check_int("--shard-size", self.shard_size, 1)

    def check_paths(self, out: bool = True) -> None:
        """Check that the database directory (and with ``out`` the output directory) can be written.

        Raises
        ------
        ValueError
            Naming ``--db`` or ``--out``: a path that is a file, lies below a file, or is not writable.
        """
        check_output_dir("--db", self.db)
        if out:
            check_output_dir("--out", self.out)


def solve_or_load(job: DemoJob) -> tuple[GameFamily, SolutionDatabase]:
    """Generate (or reuse) the solution database of ``job`` and print what was done.

    Parameters
    ----------
    job : DemoJob
        Its ``game`` (a family's registry name, or a ``module:attribute`` path; built with its default
        parameters), ``games``, ``seed``, ``db``, ``workers``, ``shard_size``, ``scheduler``, ``repair`` and
        ``quiet`` (no progress bar) are used.

    Returns
    -------
    family : GameFamily
        The family ``load_family(job.game)``.
    db : SolutionDatabase
        The database at ``job.db``, holding (at least) games ``0 .. job.games-1``; those that failed
        verification are stored flagged, and a warning on standard error counts those of this run.

    Raises
    ------
    ValueError
        If ``--db`` cannot be written (checked first), ``job.game`` names no family (see
        :func:`~rulelearn.family.load_family`), or as :meth:`SolutionDatabase.generate` (e.g. the directory
        holds a database of another family, config or seed; :class:`~rulelearn.data.shards.CorruptShardError`
        and :class:`~rulelearn.data.shards.CorruptManifestError` are ``ValueError`` subclasses).
    RuntimeError, TypeError, ImportError
        As :meth:`SolutionDatabase.generate` (another process generating into the directory, a bad shard from
        the family, an unreachable or invalid Dask scheduler, Dask not installed).
    """
    job.check_paths(out=False)
    family = load_family(job.game)
    db = SolutionDatabase(job.db)
    report = db.generate(family, job.games, seed=job.seed, workers=job.workers, progress=not job.quiet,
                         shard_size=job.shard_size, scheduler=job.scheduler, repair=job.repair)
    if report.manifest_rebuilt:
        print(f"rebuilt the manifest of {db.path} from its shards")
    if report.adopted:
        print(f"kept {len(report.adopted)} shard(s) that passed the check against their own checksums: "
              f"{', '.join(report.adopted)}")
    if report.repaired:
        print(f"repaired {len(report.repaired)} bad shard(s) (deleted and solved again): "
              + "; ".join(f"{name} ({why})" for name, why in report.problems.items()))
    stored = len(db)
    workers = "Dask worker threads" if report.backend == "dask" else "workers"
    print(f"solution database {db.path}: {stored} games stored; this run solved {report.n_solved} "
          f"in {report.seconds:.1f} s ({report.games_per_second:.0f} games/s on {report.workers} {workers}), "
          f"{report.n_unverified} failed verification"
          + (" (NashConv > 1e-9)" if family.name == "betgame" else ""))
    if report.n_unverified:
        print(f"warning: {report.n_unverified} game(s) of this run failed verification; they are stored flagged "
              "(column 'verified') and left out of load()", file=sys.stderr)
    return family, db


def run_demo(job: DemoJob) -> int:
    """The main job: solve or load, train and score every learner, print the table and rules, plot; returns 0.

    Parameters
    ----------
    job : DemoJob
        The options of ``rulelearn demo``; the learners' seed and the train/test split's seed are
        ``job.seed``, the depth curve runs to ``job.max_depth``.

    Returns
    -------
    int
        0. The table is printed; ``error_vs_depth.csv``, ``error_vs_depth.png``, ``scores.csv`` and
        ``canonical_games.png`` are written to ``job.out`` (created if needed).

    Raises
    ------
    ValueError
        Before any game is solved: fewer games than :func:`minimum_games`, or ``--db`` / ``--out`` not
        writable. After solving: fewer verified games loaded than :func:`minimum_games`; or as
        :func:`solve_or_load`.
    RuntimeError, TypeError, ImportError
        As :func:`solve_or_load`.
    """
    t0 = time.perf_counter()
    least = minimum_games()
    if job.games < least:
        raise ValueError(f"--games must be at least {least} for the demo (its k-medoids learners need that many "
                         f"training games after {TEST_FRACTION:.0%} are held out), got {job.games}")
    job.check_paths()
    family, db = solve_or_load(job)
    games = SolvedGames(family, db.load(n_games=job.games))
    if len(games) < least:
        raise ValueError(f"only {len(games)} of the {job.games} games in {db.path} are verified; the demo needs "
                         f"{least}")
    split = split_games(len(games), TEST_FRACTION, job.seed)
    print(f"learning from {len(split.train)} training games, scoring on {len(split.test)} held-out games\n")

    results = evaluate(games, default_learners(job.seed), split)
    scores = [s for s, _ in results]
    print("EMD: mean strategy distance to the equilibrium (Algorithm 2, 0 = identical, 1 = maximal).")
    print("Exploitability: game value minus the policy's payoff against a best response, in chips "
          "(the pot is 1 chip).\n")
    print(format_scores(scores))

    labels, values = list(family.action_labels), list(family.action_values)
    hands, noun = games.hand_labels, games.hand_noun
    by_name = {(s.learner, s.representation): m for s, m in results}
    beats = by_name[("tree depth 4", "cdf-beats")]
    print(f"\nMost prominent rules (depth-4 tree on the share of the opponent's range your {noun} beats;"
          " the rules covering most situations):")
    for rule in sorted(beats.rules(), key=lambda r: -r.coverage)[:6]:
        print("  " + format_rule(rule, labels, hands, noun, action_values=values))
    c2t = by_name[("cluster-then-tree k=5 (on medoids)", "cdf")]
    print("\nCluster-then-tree: five canonical games and the rules that pick one (Section 4.4):")
    for rule in c2t.rules():
        cond = " and ".join(str(c) for c in rule.conditions) or "always"
        print(f"  if {cond}:\n      {describe_strategy(rule.strategy, labels, hands, noun, action_values=values)}")

    out = Path(job.out)
    out.mkdir(parents=True, exist_ok=True)
    curve = depth_curve(games, split, depths=range(1, job.max_depth + 1))
    curve.to_csv(out / "error_vs_depth.csv", index=False)
    plot_depth_curve(curve, out / "error_vs_depth.png",
                     title=f"Decision trees on {len(split.train)} solved {family.name} games, "
                           f"scored on {len(split.test)} held-out games")
    pd.DataFrame([s.as_row() for s in scores]).to_csv(out / "scores.csv", index=False)
    medoids = c2t.learner_.kmedoids_
    plot_strategies(medoids.medoid_targets_, out / "canonical_games.png",
                    titles=[f"canonical game {k + 1}" for k in range(len(medoids.medoid_indices_))],
                    action_labels=labels, hand_labels=hands, hand_noun=noun,
                    suptitle="Player 1's equilibrium strategy in the five canonical (medoid) games")
    best = curve.loc[curve["exploitability"].idxmin()]
    print(f"\nError vs depth: {out / 'error_vs_depth.png'} (table {out / 'error_vs_depth.csv'}); lowest mean "
          f"exploitability {best['exploitability']:.4f} chips with representation {best['representation']} at "
          f"depth {int(best['depth'])} ({int(best['rules'])} rules).")
    print(f"Strategies of the canonical games: {out / 'canonical_games.png'}. Scores: {out / 'scores.csv'}.")
    print(f"Finished in {time.perf_counter() - t0:.0f} s.")
    return 0

"""EMD-exact learners at full scale (issue 5): 1-NN, k-medoids and EMD-criterion trees on the bet-game database.

Run from the repository root::

    python benchmarks/bench_learners.py                 # writes its section of docs/BENCHMARKS.md
    python benchmarks/bench_learners.py --quick         # small sizes, prints only (a smoke test)

Data: the verified games among the first 100,000 of the solution database ``--db`` (default ``data/betgame100k``,
solved and stored first if it does not exist; ``--generate`` also fills the gaps of an existing one). The first
80,000 by id train, the others (up to 20,000) test.

Targets: exact 1-NN under the input EMD, 80,000 training and 20,000 test games, in under 60 s; k-medoids with
k = 15 on 20,000 games in under 60 s. Also: the search strategies behind the 1-NN (our pruned index, compiled
brute force, scikit-learn's KD- and ball trees with the Manhattan metric), and the fit time of trees whose split
criterion is exactly the output EMD against depth (3-20), with scikit-learn's squared error and absolute error for
reference.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from datetime import date
from pathlib import Path

import numpy as np

from rulelearn.report.docblocks import cpu_model, write_section

BENCHMARKS_MD = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- bench_learners:start -->", "<!-- bench_learners:end -->"
LOAD_START = os.getloadavg()[0]


def machine() -> str:
    from importlib.metadata import version

    import numba
    import sklearn

    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu_model()}, {os.cpu_count()} cores, {mem:.0f} GiB; Python {platform.python_version()}, "
            f"numpy {np.__version__}, numba {numba.__version__} ({numba.get_num_threads()} threads), "
            f"scikit-learn {sklearn.__version__}, kmedoids {version('kmedoids')}")


def peak_rss_gib() -> float:
    """Peak resident memory of this process so far: ``VmHWM`` (``ru_maxrss`` survives ``exec`` on Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 2**20  # KiB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


class Timer:
    """Wall and CPU seconds of a block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def load_games(db_path: Path, n_games: int, workers: int | None, generate: bool) -> tuple[dict, float]:
    """The verified games with id ``< n_games`` of the database.

    The database is only written to (games solved and stored, resumably) if it does not exist yet or ``generate``
    is set: it may be shared, and extending it would change what others load.
    """
    from rulelearn.data.database import SolutionDatabase
    from rulelearn.family import load_family

    db = SolutionDatabase(db_path)
    with Timer() as t:
        if generate or not any(db_path.glob("*.parquet")):
            db.generate(load_family("betgame"), n_games, seed=0, workers=workers, progress=False)
        cols = db.load(n_games=n_games, columns=["probs", "strategy", "value"])
    return cols, t.wall


def bench_knn(family, cols, n_train: int, n_test: int, sk_queries: int) -> dict:
    from sklearn.neighbors import BallTree, KDTree

    from rulelearn.features.distance import output_emd
    from rulelearn.features.representations import Representation
    from rulelearn.learners import EMDNearestNeighbors
    from rulelearn.learners.l1 import l1_nearest

    ranges, strategies = family.ranges(cols), family.strategies(cols)
    X = Representation("cdf").transform(ranges).X
    tr, te = slice(0, n_train), slice(n_train, n_train + n_test)
    EMDNearestNeighbors().fit(X[:50], strategies[:50]).kneighbors(X[50:60])  # compile
    l1_nearest(X[:50], X[50:60])
    with Timer() as t_fit:
        knn = EMDNearestNeighbors().fit(X[tr], strategies[tr])
    with Timer() as t_query:
        dist, idx = knn.kneighbors(X[te])
        pred = knn.Y_[idx[:, 0]]
    with Timer() as t_brute:
        bdist, bidx = l1_nearest(np.ascontiguousarray(X[tr]), np.ascontiguousarray(X[te]))
    exact = bool(np.array_equal(bidx[:, 0], idx[:, 0]) and np.allclose(bdist[:, 0] * knn._scale, dist[:, 0]))
    out = {"n_train": n_train, "n_test": n_test, "fit_s": t_fit.wall, "query_s": t_query.wall,
           "query_cpu": t_query.cpu, "total_s": t_fit.wall + t_query.wall, "brute_s": t_brute.wall,
           "brute_cpu": t_brute.cpu, "exact": exact, "refined": float(knn.index_.n_refined_.mean()),
           "emd": float(np.mean(output_emd(pred, strategies[te]))),
           "expl": float(np.mean(family.exploitability({k: v[te] for k, v in cols.items()}, pred)))}
    q = X[te][:sk_queries]
    for name, cls in (("kd", KDTree), ("ball", BallTree)):
        with Timer() as t_build:
            tree = cls(X[tr], metric="manhattan")
        with Timer() as t_q:
            _, sk_idx = tree.query(q, k=1)
        out[f"{name}_build_s"] = t_build.wall
        out[f"{name}_query_s"] = t_q.wall * n_test / sk_queries
        out[f"{name}_agree"] = float(np.mean(sk_idx[:, 0] == idx[:sk_queries, 0]))
    out["sk_queries"] = sk_queries
    return out


def _kmedoids_child(X: np.ndarray, strategies: np.ndarray, k: int) -> dict:
    """Runs in a fresh process, so that its peak memory is that of k-medoids (plus imports and data)."""
    from rulelearn.learners import EMDKMedoids
    from rulelearn.learners.kmedoids import AUTO_BUILD_MAX
    from rulelearn.learners.l1 import l1_pairwise

    EMDKMedoids(2, random_state=0).fit(X[:100], strategies[:100])  # compile
    with Timer() as t_matrix:
        D = l1_pairwise(X)
    matrix_gib = D.nbytes / 2**30
    del D
    with Timer() as t_fit:
        km = EMDKMedoids(k, random_state=0).fit(X, strategies)
    return {"n": X.shape[0], "k": k, "matrix_s": t_matrix.wall, "fit_s": t_fit.wall, "fit_cpu": t_fit.cpu,
            "matrix_gib": matrix_gib, "rss_gib": peak_rss_gib(), "inertia": km.inertia_,
            "objective": km.objective_, "init": "BUILD" if X.shape[0] <= AUTO_BUILD_MAX else "random"}


def bench_kmedoids(family, cols, n_games: int, k: int) -> dict:
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    from rulelearn.features.representations import Representation

    X = Representation("cdf").transform(family.ranges(cols)[:n_games]).X
    strategies = family.strategies(cols)[:n_games]
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(_kmedoids_child, X, strategies, k).result()


def bench_trees(family, cols, n_train: int, n_test: int, depths, numbers, sk_depths, mae_games: int) -> list:
    from sklearn.tree import DecisionTreeRegressor

    from rulelearn.features.distance import output_emd
    from rulelearn.features.representations import REPRESENTATIONS
    from rulelearn.learners import StrategyTree

    ranges, strategies = family.ranges(cols), family.strategies(cols)
    tr, te = slice(0, n_train), slice(n_train, n_train + n_test)
    StrategyTree(2, criterion="emd").fit(np.random.rand(40, 3), np.random.dirichlet(np.ones(4), 40))  # compile
    rows = []

    def row(rep, train, criterion, depth, t, leaves, train_emd, test_emd, n_rows=None):
        return {"number": rep.paper_number, "name": rep.name, "rows": n_rows or train.X.shape[0],
                "outputs": int(np.prod(train.Y.shape[1:-1])) * (train.Y.shape[-1] - 1), "criterion": criterion,
                "depth": depth, "seconds": t.wall, "cpu": t.cpu, "leaves": leaves, "train_emd": train_emd,
                "test_emd": test_emd}

    for number in numbers:
        rep = REPRESENTATIONS[number]
        train = rep.transform(ranges[tr], strategies[tr])
        test_x = rep.transform(ranges[te]).X
        for criterion, ds in (("emd", depths), ("squared_error", sk_depths)):
            for depth in ds:
                with Timer() as t:
                    tree = StrategyTree(depth, criterion=criterion).fit(train.X, train.Y)
                pred = rep.assemble(tree.predict(test_x), n_test)
                train_pred = rep.assemble(tree.predict(train.X), n_train)
                name = "emd (ours)" if criterion == "emd" else "squared error (scikit-learn)"
                rows.append(row(rep, train, name, depth, t, tree.model_size[0],
                                float(np.mean(output_emd(train_pred, strategies[tr]))),
                                float(np.mean(output_emd(pred, strategies[te])))))
        if mae_games:  # scikit-learn's absolute error (the same criterion) on a subset, against ours
            m = mae_games * (1 if rep.per_hand is None else strategies.shape[1])
            cum = np.cumsum(train.Y[:m], axis=-1)[..., :-1].reshape(m, -1)
            with Timer() as t_sk:
                sk = DecisionTreeRegressor(max_depth=5, criterion="absolute_error").fit(train.X[:m], cum)
            with Timer() as t_ours:
                ours = StrategyTree(5, criterion="emd").fit(train.X[:m], train.Y[:m])
            sk_loss = float(np.abs(sk.predict(train.X[:m]) - cum).mean())  # = mean EMD (equal output weights)
            rows.append(row(rep, train, "absolute error (scikit-learn), subset", 5, t_sk, int(sk.get_n_leaves()),
                            sk_loss, np.nan, m))
            rows.append(row(rep, train, "emd (ours), same subset", 5, t_ours, ours.model_size[0],
                            ours.training_loss_, np.nan, m))
    return rows


def render(data_s: float, knn: dict, km: dict, trees: list, command: str, n_games: int, limit: int, db: str) -> str:
    met_knn = "met" if knn["total_s"] < 60 else "**not met**"
    met_km = "met" if km["fit_s"] < 60 else "**not met**"
    tree_lines = []
    for r in trees:
        emd = "" if np.isnan(r["train_emd"]) else f"{r['train_emd']:.4f}"
        test = "" if np.isnan(r["test_emd"]) else f"{r['test_emd']:.4f}"
        tree_lines.append(f"| {r['number']} `{r['name']}` | {r['rows']:,} x {r['outputs']} | {r['criterion']} | "
                          f"{r['depth']} | **{r['seconds']:.1f} s** ({r['cpu']:.1f} s CPU) | {r['leaves']:,} | "
                          f"{emd} | {test} |")
    trees_md = "\n".join(tree_lines)
    return f"""{START}
## EMD-exact learners at full scale (issue 5)

Command: `{command}` · Machine: {machine()} · Date: {date.today().isoformat()}

Load average at start: {LOAD_START:.1f}. The machine is shared: wall times on a loaded machine are upper bounds;
"CPU" is the process's CPU time summed over its threads, so an idle 2-core machine needs between CPU / 2 and CPU
of wall time. Data: the {n_games:,} verified games among the first {limit:,} of the bet-game database `{db}`
(read in {data_s:.0f} s; games whose solution failed verification are left out), the first {knn['n_train']:,} by
id train, the other {knn['n_test']:,} test.

| measurement | figure | target |
|---|---|---|
| exact 1-NN under the input EMD, {knn['n_train']:,} training / {knn['n_test']:,} test games (`EMDNearestNeighbors`, pruned index: fit + all queries) | **{knn['total_s']:.1f} s** (queries {knn['query_s']:.1f} s wall, {knn['query_cpu']:.1f} s CPU; {knn['refined']:.0f} exact distances per query on average) | < 60 s ({met_knn}) |
| the same by compiled brute force (every distance) | {knn['brute_s']:.1f} s ({knn['brute_cpu']:.1f} s CPU); same neighbours: {'yes' if knn['exact'] else '**no**'} | |
| scikit-learn `KDTree(metric="manhattan")`, extrapolated from {knn['sk_queries']:,} queries | {knn['kd_query_s']:.0f} s (+ {knn['kd_build_s']:.1f} s build); same neighbour {100 * knn['kd_agree']:.1f}% | |
| scikit-learn `BallTree(metric="manhattan")`, extrapolated likewise | {knn['ball_query_s']:.0f} s (+ {knn['ball_build_s']:.1f} s build); same neighbour {100 * knn['ball_agree']:.1f}% | |
| 1-NN test error | mean output EMD {knn['emd']:.4f}, mean exploitability {knn['expl']:.4f} chips | |
| k-medoids, k = {km['k']}, {km['n']:,} games (`EMDKMedoids`: float32 L1 matrix + FasterPAM from a {km['init']} start, exact float64 objective) | **{km['fit_s']:.1f} s** ({km['fit_cpu']:.1f} s CPU; the matrix alone {km['matrix_s']:.1f} s) | < 60 s ({met_km}) |
| its memory | matrix {km['matrix_gib']:.2f} GiB; peak RSS of the k-medoids process {km['rss_gib']:.2f} GiB (Python, imports and data included) | |
| its objective | mean input EMD to the medoid {km['inertia']:.5f} (total {km['objective']:.2f}) | |

Why the 1-NN does not use scikit-learn's trees: the cdf vectors have intrinsic dimension 18, where KD- and ball
trees prune little (they are slower than brute force here). Our index
(`rulelearn/learners/_l1.py`) filters with a lower bound instead: the L1 distance between the sums of 8 feature
groups is at most the L1 distance, so after a vectorised pass over those bounds only the training games whose
bound does not exceed the best distance found are refined exactly. Its neighbours equal the brute-force argmin,
ties to the lower index (tests/test_learners.py).

### Trees whose split criterion is the output EMD

`StrategyTree(criterion="emd")` (`rulelearn/learners/emd_tree.py`): an exact absolute-error (L1) tree on
cumulative strategies, i.e. on the EMD itself; its training loss is the mean training EMD. Fit times per depth
(each row is a separate fit; `StrategyTree.at_depth` cuts one depth-20 fit into every shallower tree for free).
Train / test EMD are the mean output EMD of the tree's strategies to the equilibrium strategies of the training /
test games (for the subset rows: the training loss on the subset's own targets). scikit-learn's absolute-error
tree, the same criterion, is timed on a subset for comparison (it grows the same tree up to the choice between
equally good splits, which it makes at random and we by index -- tests/test_learners.py; with one-hot targets
such ties are common, hence the small difference for representation 9);
its squared error on cumulative strategies (the Cramér distance between cdfs, not the EMD; the default of
`StrategyTree`) at full scale for reference. Representation 9 has sampled bets (one-hot targets) as outputs.

| representation | rows x outputs | criterion | depth | fit time | leaves | train EMD | test EMD |
|---|---|---|---|---|---|---|---|
{trees_md}
{END}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=ROOT / "data" / "betgame100k")
    parser.add_argument("--workers", type=int, default=None, help="workers for solving missing games")
    parser.add_argument("--generate", action="store_true",
                        help="solve and store the missing games of an existing database (a new one is always filled)")
    parser.add_argument("--quick", action="store_true", help="small sizes, print only")
    args = parser.parse_args(argv)
    from rulelearn.family import load_family

    if args.quick:
        n_train, n_test, km_n, depths, sk_depths, mae, sk_q = 3_200, 800, 2_000, (3, 5, 10), (5,), 400, 200
    else:
        n_train, n_test, km_n, depths, sk_depths, mae, sk_q = 80_000, 20_000, 20_000, (3, 5, 10, 20), (10, 20), \
            4_000, 1_000
    family = load_family("betgame")
    limit = n_train + n_test
    cols, data_s = load_games(args.db, limit, args.workers, args.generate)
    n_games = len(cols["game_id"])
    n_test = min(n_test, n_games - n_train)  # the database leaves out games whose solution failed verification
    print(f"data: {n_games} games in {data_s:.1f} s", flush=True)
    km = bench_kmedoids(family, cols, km_n, 15)
    print("k-medoids:", km, flush=True)
    knn = bench_knn(family, cols, n_train, n_test, sk_q)
    print("1-NN:", knn, flush=True)
    trees = bench_trees(family, cols, n_train, n_test, depths, (1, 5, 9), sk_depths, mae)
    for r in trees:
        print(r, flush=True)
    command = "python benchmarks/bench_learners.py" + (" --quick" if args.quick else "")
    try:
        db = str(args.db.resolve().relative_to(ROOT))
    except ValueError:
        db = str(args.db)
    text = render(data_s, knn, km, trees, command, n_games, limit, db)
    if args.quick:
        print(text)
    else:
        write_section(BENCHMARKS_MD, text, START, END)
        print(f"wrote the bench_learners section of {Path('docs/BENCHMARKS.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

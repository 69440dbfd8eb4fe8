"""Batch solving: one spot template over many boards, and the aggregate report (range-level frequencies and EV by
board).

A *template* is a spot file (:mod:`hunl.solver.spot_files`) whose board is replaced by each board of a
:class:`BoardSet`; everything else -- pot, stack, ranges, bet sizes, solver settings -- is the template's. Range
strings follow the solver convention that combos holding a board card are not dealt (so ``"AA"`` is three combos
on an ace-high board); weight lists (1,326 numbers) get the same treatment here.

Boards (:func:`parse_boards`, the ``--boards`` option of ``scripts/batch_solve.py``):

``random:N``
    ``N`` distinct boards drawn uniformly (seeded) among all boards with the template's number of cards, weight 1
    each.
``iso`` / ``iso:N``
    The suit-isomorphic classes of boards with the template's number of cards (1,755 flops, 16,432 turns,
    134,459 rivers), each weighted by its number of boards (flop ``AsKsQs`` stands for 4 boards); ``iso:N``
    takes ``N`` of them by systematic sampling with probability proportional to that weight (sorted by class,
    evenly spaced points of the cumulative weight from a seeded start), which makes the sample self-weighting:
    each drawn class gets weight 1. Needs suit-symmetric ranges (all range strings are).
``turns:FLOP``
    Every turn card on a flop (turn templates), suit-isomorphic turn boards merged (weights = boards merged).
``Ks7d2c9h,QsJh2h8d,...`` or ``@FILE``
    A list of boards, comma separated or one per line in a file, weight 1 each.

Storage and resuming (:func:`run_batch`): the output directory holds ``manifest.json`` (the template, its hash
and the board list) and one ``boards/<board>.json`` per solved board, written atomically (temporary file, then
rename) by the parent process as each board finishes. A run that is killed loses only the boards being solved;
running the same command again solves only the boards without a result. A directory that holds a batch of
another template (a different hash) is refused rather than mixed. ``report.csv``, ``report.parquet``,
``report.md`` and ``report.png`` are rewritten at the end of every run from every stored board of the current
board set.

Per-board row (:data:`COLUMNS` first, then the frequency columns): exploitability (% of the pot, mbb/g),
iterations, seconds (of the solve; numba's compilation or cache loading apart, ``compile_seconds``), each
player's EV (chips of the starting pot each expects to win: ``ev_oop + ev_ip = pot``),
and the range-level frequency of each action at the first decision (``oop check``, ``oop bet 40``, ...) and at
the in-position player's decision after a check (``ip after check: bet 40``, ...): the share of the player's
range (combo weights) taking the action. PioSOLVER's and GTO Wizard's aggregate reports show the same figures by
flop.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hunl.poker.cards import board_conflicts, check_board, format_cards
from hunl.solver.spot_files import parse_spot, read_spot_data
from hunl.solver.tree import STREETS
from rulelearn.data.shards import write_atomic
from rulelearn.validation import check_int

__all__ = [
    "COLUMNS",
    "BatchReport",
    "BoardSet",
    "canonical_boards",
    "parse_boards",
    "read_batch",
    "run_batch",
    "solve_board",
    "write_report",
]

#: Columns of every per-board row, before the frequency columns.
COLUMNS = ("board", "weight", "exploitability_pct_pot", "exploitability_mbb", "iterations", "seconds",
           "compile_seconds", "converged", "ev_oop", "ev_ip", "ev_oop_pct_pot", "hands_oop", "hands_ip", "nodes")
#: Format of ``manifest.json`` and the board files.
FORMAT = 1
_STREET_OF_CARDS = {v: k for k, v in STREETS.items()}


# ---------------------------------------------------------------------------------------------- boards
@dataclass(frozen=True)
class BoardSet:
    """Boards to solve a template on.

    Attributes
    ----------
    boards : tuple of tuple of int
        Each board's card indices (:mod:`hunl.poker.cards`), all of the same length.
    weights : tuple of float
        Weight of each board in the aggregate (number of boards it stands for, or 1).
    spec : str
        The specification it was built from (``"random:50"``).
    """

    boards: tuple
    weights: tuple
    spec: str

    def __len__(self) -> int:
        return len(self.boards)

    @property
    def texts(self) -> list[str]:
        """The boards as strings (``"QsJh2h8d"``)."""
        return [format_cards(b) for b in self.boards]


def _suit_perms() -> np.ndarray:
    return np.array(list(itertools.permutations(range(4))), dtype=np.int64)


def canonical_boards(boards: np.ndarray) -> np.ndarray:
    """A suit-isomorphism class key of each board (boards as unordered card sets).

    Parameters
    ----------
    boards : numpy.ndarray of int, shape ``(B, k)``
        Card indices (``4 * rank + suit``).

    Returns
    -------
    numpy.ndarray of int64, shape ``(B,)``
        The smallest base-52 code of the sorted cards over the 24 permutations of the suits: two boards have the
        same key exactly when a suit permutation maps one onto the other.
    """
    b = np.asarray(boards, dtype=np.int64)
    if b.ndim != 2:
        raise ValueError(f"boards must have shape (B, k), got {b.shape}")
    best = None
    weights = 52 ** np.arange(b.shape[1] - 1, -1, -1, dtype=np.int64)
    for perm in _suit_perms():
        mapped = np.sort(4 * (b // 4) + perm[b % 4], axis=1)
        code = mapped @ weights
        best = code if best is None else np.minimum(best, code)
    return best


def _all_boards(k: int) -> np.ndarray:
    return np.array(list(itertools.combinations(range(52), k)), dtype=np.int64)


def _iso_classes(k: int) -> tuple[np.ndarray, np.ndarray]:
    """One representative board (the first in card order, written highest card first) of every suit-isomorphism class of ``k`` cards, and the
    class sizes, ordered by class key."""
    boards = _all_boards(k)
    keys = canonical_boards(boards)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return boards[first][:, ::-1], counts.astype(np.float64)  # highest card first, as boards are written


def _symmetric(ranges: np.ndarray) -> bool:
    from hunl.solver.tree import suit_symmetries

    return suit_symmetries((), ranges).shape[0] == 24


def parse_boards(spec: str, n_cards: int, seed: int = 0, ranges: np.ndarray | None = None) -> BoardSet:
    """The boards of a ``--boards`` specification (see the module notes).

    Parameters
    ----------
    spec : str
        ``"random:N"``, ``"iso"``, ``"iso:N"``, ``"turns:FLOP"``, a comma-separated list of boards, or
        ``"@FILE"`` (one board per line; ``#`` starts a comment).
    n_cards : {3, 4, 5}
        Cards of the template's board.
    seed : int, default 0
        Seed of ``random:N`` and of the sampling start of ``iso:N``.
    ranges : numpy.ndarray, shape ``(2, 1326)``, optional
        The template's ranges before board removal; ``iso`` and ``turns`` need them to be suit-symmetric.

    Returns
    -------
    BoardSet

    Raises
    ------
    ValueError
        ``boards: ...`` naming the rule: an unknown form, a count that is not a positive integer or exceeds the
        boards there are, a board of the wrong size or with a bad or repeated card, a board listed twice,
        ``turns:`` with a template that is not a turn spot, or iso merging with ranges that are not suit-symmetric.
    FileNotFoundError
        If ``@FILE`` does not exist.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"boards must be a non-empty string such as 'random:50', got {spec!r}")
    spec = spec.strip()
    n_cards = int(n_cards)
    if n_cards not in _STREET_OF_CARDS:
        raise ValueError(f"n_cards must be 3, 4 or 5, got {n_cards}")
    seed = check_int("seed", seed, 0)
    head, _, arg = spec.partition(":")
    head = head.lower()

    def count(text: str, limit: int) -> int:
        try:
            n = int(text)
        except ValueError:
            raise ValueError(f"boards: {spec!r}: the count after ':' must be a positive integer") from None
        if n < 1:
            raise ValueError(f"boards: {spec!r}: the count after ':' must be a positive integer")
        if n > limit:
            raise ValueError(f"boards: {spec!r}: asks for {n} boards, but there are only {limit:,}")
        return n

    def need_symmetric() -> None:
        if ranges is not None and not _symmetric(ranges):
            raise ValueError(f"boards: {spec!r} merges suit-isomorphic boards, which needs suit-symmetric ranges; "
                             "the template's ranges give different weights to suit-isomorphic combos (list the "
                             "boards or use random:N)")

    if head == "random":
        total = math.comb(52, n_cards)
        n = count(arg, total)
        rng = np.random.default_rng(seed)
        chosen: dict = {}
        while len(chosen) < n:
            b = tuple(sorted(rng.choice(52, size=n_cards, replace=False).tolist(), reverse=True))
            chosen.setdefault(b, None)
        return BoardSet(tuple(chosen), (1.0,) * n, spec)
    if head == "iso":
        need_symmetric()
        reps, sizes = _iso_classes(n_cards)
        if not arg:
            return BoardSet(tuple(tuple(map(int, b)) for b in reps), tuple(sizes.tolist()), spec)
        n = count(arg, reps.shape[0])
        cum = np.cumsum(sizes)
        step = cum[-1] / n
        start = np.random.default_rng(seed).uniform(0.0, step)
        points = start + step * np.arange(n)
        idx = np.searchsorted(cum, points, side="right")
        idx = np.unique(np.minimum(idx, reps.shape[0] - 1))  # a class heavier than the step is drawn once
        return BoardSet(tuple(tuple(map(int, b)) for b in reps[idx]), (1.0,) * idx.size, spec)
    if head == "turns":
        if n_cards != 4:
            raise ValueError(f"boards: {spec!r}: turns:FLOP needs a turn template (4-card board), the template "
                             f"has {n_cards} cards")
        need_symmetric()
        try:
            flop = check_board(arg, min_cards=3, max_cards=3, name="flop")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"boards: {spec!r}: {exc}") from None
        boards = np.array([flop + (c,) for c in range(52) if c not in flop], dtype=np.int64)  # flop, then turn
        keys = canonical_boards(boards)
        _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        order = np.sort(first)
        size = dict(zip(first.tolist(), counts.tolist()))
        return BoardSet(tuple(tuple(map(int, boards[i])) for i in order),
                        tuple(float(size[i]) for i in order.tolist()), spec)
    if spec.startswith("@"):
        path = Path(spec[1:])
        if not path.is_file():
            raise FileNotFoundError(f"boards: board file {str(path)!r} not found")
        items = []
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                items.extend(x for x in line.replace(",", " ").split() if x)
    else:
        items = [x.strip() for x in spec.split(",") if x.strip()]
    boards, seen = [], set()
    for text in items:
        try:
            b = check_board(text, min_cards=n_cards, max_cards=n_cards, name="board")
        except (ValueError, TypeError) as exc:
            hint = f" (the template's board has {n_cards} cards)" if "cards" in str(exc) else ""
            raise ValueError(f"boards: {text!r}: {exc}{hint}") from None
        key = tuple(sorted(b))
        if key in seen:
            raise ValueError(f"boards: {text!r} is listed twice")
        seen.add(key)
        boards.append(b)
    if not boards:
        raise ValueError(f"boards: {spec!r} lists no board")
    return BoardSet(tuple(boards), (1.0,) * len(boards), spec)


# ---------------------------------------------------------------------------------------------- one board
def _template_ranges(data: dict, base_dir) -> np.ndarray | None:
    """The template's ranges before board removal (None when they cannot be read without a board)."""
    from hunl.poker.ranges import parse_range

    ranges = data.get("ranges")
    if not isinstance(ranges, dict):
        return None
    out = []
    for key in ("oop", "ip"):
        v = ranges.get(key)
        if isinstance(v, str):
            out.append(parse_range(v))
        elif isinstance(v, (list, tuple)) and len(v) == 1326:
            out.append(np.asarray(v, dtype=np.float64))
        else:
            return None
    return np.stack(out)


def _on_board(data: dict, board: tuple) -> dict:
    """The template with ``board``; weight lists get zero weight on combos holding a board card."""
    d = dict(data)
    d["board"] = format_cards(board)
    if isinstance(d.get("ranges"), dict):
        ranges = dict(d["ranges"])
        dead = board_conflicts(board)
        for key, v in ranges.items():
            if isinstance(v, (list, tuple)) and len(v) == 1326:
                w = np.asarray(v, dtype=np.float64).copy()
                w[dead] = 0.0
                ranges[key] = w
        d["ranges"] = ranges
    return d


def _frequencies(solution, spot, node: int, prefix: str) -> dict:
    from games.core.tree import DECISION

    game = solution.game
    t = game.tree
    if node < 0 or t.kind[node] != DECISION:
        return {}
    p = int(t.player[node])
    probs = solution.node_strategy(node)                      # (1326, A), NaN outside the range
    w = spot.ranges[p]
    live = np.isfinite(probs[:, 0]) & (w > 0)
    freq = (w[live] @ probs[live]) / w[live].sum()
    labels = [t.action_labels[t.action_id[c]] for c in range(t.child_start[node],
                                                            t.child_start[node] + t.num_children[node])]
    return {f"{prefix}{lab}": float(f) for lab, f in zip(labels, freq)}


def _check_child(game) -> int:
    t = game.tree
    for c in range(t.child_start[0], t.child_start[0] + t.num_children[0]):
        if t.action_labels[t.action_id[c]] == "check":
            return int(c)
    return -1


def solve_board(data: dict, base_dir, board: tuple, weight: float = 1.0, dtype: str = "float32") -> dict:
    """Solve the template ``data`` on ``board`` and return its report row (see the module notes).

    Parameters
    ----------
    data : dict
        The template spot file's content (:func:`hunl.solver.spot_files.read_spot_data`).
    base_dir : str or os.PathLike or None
        Directory of the template (range files are relative to it).
    board : tuple of int
        The board.
    weight : float
        The board's weight in the aggregate.
    dtype : {"float32", "float64"}

    Returns
    -------
    dict
        The row: :data:`COLUMNS`, then ``"oop <action>"`` and ``"ip after check: <action>"`` frequencies (0..1).

    Raises
    ------
    ValueError
        If the template is not a valid spot on this board (the message names the board and the field).
    """
    from hunl.solver.solve import solve_endgame

    text = format_cards(board)
    spot = parse_spot(_on_board(data, board), source=f"board {text}", base_dir=base_dir,
                      default_name=str(data.get("name", "batch")))
    game = spot.game(dtype=dtype)
    sol = solve_endgame(game, spot.solver)
    half = spot.pot / 2.0
    row = {
        "board": text, "weight": float(weight),
        "exploitability_pct_pot": sol.exploitability_pct_pot, "exploitability_mbb": sol.exploitability_mbb,
        "iterations": sol.iterations, "seconds": round(sol.seconds, 4),
        "compile_seconds": round(sol.compile_seconds, 4), "converged": bool(sol.result.converged),
        "ev_oop": half + sol.value_chips, "ev_ip": half - sol.value_chips,
        "ev_oop_pct_pot": 100.0 * (half + sol.value_chips) / spot.pot,
        "hands_oop": int(game.num_hands[0]), "hands_ip": int(game.num_hands[1]), "nodes": int(game.tree.n_nodes),
    }
    row.update(_frequencies(sol, spot, 0, "oop "))
    row.update(_frequencies(sol, spot, _check_child(game), "ip after check: "))
    return row


def _solve_task(data, base_dir, board, weight, dtype):  # pragma: no cover - runs in worker processes
    return solve_board(data, base_dir, tuple(board), weight, dtype)


# ---------------------------------------------------------------------------------------------- the run
@dataclass(frozen=True)
class BatchReport:
    """What :func:`run_batch` did and wrote.

    Attributes
    ----------
    directory : pathlib.Path
    boards : int
        Boards in the board set.
    solved : int
        Boards solved by this run (the rest were on disk).
    seconds : float
        Wall time of this run.
    table : pandas.DataFrame
        One row per board of the set with a stored result, then the weighted-mean row ``board = "mean"``.
    files : dict of str to pathlib.Path
        ``csv``, ``parquet``, ``markdown`` and (unless ``plot=False``) ``figure``.
    """

    directory: Path
    boards: int
    solved: int
    seconds: float
    table: object
    files: dict


def _hash(data: dict, dtype: str) -> str:
    blob = json.dumps({"template": data, "dtype": dtype}, sort_keys=True, default=_jsonable)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _jsonable(x):
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.integer, np.floating)):
        return x.item()
    raise TypeError(f"not JSON-serialisable: {type(x).__name__}")


def _atomic_json(path: Path, obj) -> None:
    write_atomic(path, json.dumps(obj, indent=1, default=_jsonable).encode())


def read_batch(out_dir) -> tuple[dict, dict]:
    """The manifest and the stored rows (board text -> row) of a batch directory.

    Parameters
    ----------
    out_dir : str or os.PathLike
        A batch directory of :func:`run_batch` (``manifest.json`` and ``boards/<board>.json``).

    Returns
    -------
    manifest : dict
        The content of ``manifest.json`` (``format``, ``hash``, ``template``, ``template_path``, ``dtype``,
        ``boards``, ``weights``, ``spec``, ``seed``).
    rows : dict
        ``{board text: row}``: the per-board rows (:data:`COLUMNS` and the frequency columns; EVs in chips) of
        the board files whose ``hash`` is the manifest's; files of another hash are skipped.

    Raises
    ------
    FileNotFoundError
        If the directory has no ``manifest.json``.
    ValueError
        If the manifest or a board file is not valid JSON (the message names the file).
    """
    out = Path(out_dir)
    path = out / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(f"{out}: no batch here (manifest.json missing)")
    try:
        manifest = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc}); delete the directory to start again") from None
    rows = {}
    for f in sorted((out / "boards").glob("*.json")):
        try:
            rec = json.loads(f.read_text())
        except json.JSONDecodeError:  # a file is written whole or not at all; this one is not ours
            raise ValueError(f"{f}: not valid JSON; delete it to solve that board again") from None
        if rec.get("hash") == manifest.get("hash"):
            rows[rec["row"]["board"]] = rec["row"]
    return manifest, rows


def run_batch(template, boards: str, out_dir, seed: int = 0, workers: int | None = None, scheduler=None,
              overrides: dict | None = None, dtype: str = "float32", plot: bool = True,
              progress: bool = True) -> BatchReport:
    """Solve a spot template on every board of ``boards`` and write the aggregate report; resumable.

    Parameters
    ----------
    template : str or os.PathLike
        A ``.toml`` or ``.json`` spot file; its board only fixes the number of cards (flop, turn or river).
    boards : str
        Board specification (:func:`parse_boards`).
    out_dir : str or os.PathLike
        Batch directory (see the module notes); created if missing.
    seed : int, default 0
        Seed of ``random:N`` / ``iso:N``.
    workers : int, optional
        Local processes (default: all cores, at most one per board); ``1`` solves in this process.
    scheduler : str or distributed.Client, optional
        A Dask cluster instead of local processes (:class:`rulelearn.data.executors.DaskExecutor`).
    overrides : dict, optional
        Solver settings replacing the template's (``{"max_iterations": 500, "target_pct_pot": 0.3}``).
    dtype : {"float32", "float64"}
    plot : bool, default True
        Draw ``report.png``.
    progress : bool, default True
        A progress bar on stderr (boards, rate, ETA).

    Returns
    -------
    BatchReport

    Raises
    ------
    ValueError
        A bad template, board specification or override (see :func:`parse_boards`,
        :func:`hunl.solver.spot_files.parse_spot`), a board on which the template is invalid (checked for every
        board before solving), or an output directory holding a batch of another template.
    RuntimeError
        If another process is running a batch in the same directory.
    """
    from tqdm.auto import tqdm

    from rulelearn.data.executors import make_executor

    data, path = read_spot_data(template)
    data = dict(data)
    if overrides:
        solver = dict(data.get("solver") or {})
        solver.update({k: v for k, v in overrides.items() if v is not None})
        data["solver"] = solver
    base_dir = str(path.parent)
    first = parse_spot(data, source=str(path), base_dir=base_dir, default_name=path.stem)
    board_set = parse_boards(boards, len(first.board), seed, _template_ranges(data, base_dir))
    for b in board_set.boards:  # every board valid before any work starts
        parse_spot(_on_board(data, b), source=f"{path} on board {format_cards(b)}", base_dir=base_dir,
                   default_name=path.stem)
    make_executor(workers, scheduler)  # validate workers / scheduler before touching the directory
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out_dir: {out} is a file, not a directory")
    (out / "boards").mkdir(parents=True, exist_ok=True)
    digest = _hash(data, dtype)
    t0 = time.perf_counter()
    with open(out / ".lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another process is running a batch in {out}") from None
        mpath = out / "manifest.json"
        if mpath.exists():
            old, _ = read_batch(out)
            if old.get("hash") != digest:
                raise ValueError(f"out_dir: {out} holds a batch of another template or settings (hash "
                                 f"{old.get('hash')} != {digest}); choose another directory or delete it")
        _atomic_json(mpath, {"format": FORMAT, "hash": digest, "template": data, "template_path": str(path),
                             "dtype": dtype, "boards": board_set.texts, "weights": list(board_set.weights),
                             "spec": board_set.spec, "seed": seed})
        _, stored = read_batch(out)
        todo = [(b, w) for b, w in zip(board_set.boards, board_set.weights) if format_cards(b) not in stored]
        solved = 0
        if todo:
            executor = make_executor(workers, scheduler, n_tasks=len(todo))
            tasks = [(data, base_dir, b, w, dtype) for b, w in todo]
            with executor as ex, tqdm(total=len(board_set), initial=len(board_set) - len(todo), unit="board",
                                      desc=f"solving {len(todo)} boards on {ex.description}",
                                      disable=not progress, file=sys.stderr, smoothing=0.1) as bar:
                for row in ex.imap_unordered(_solve_task, tasks):
                    _atomic_json(out / "boards" / f"{row['board']}.json", {"format": FORMAT, "hash": digest,
                                                                             "row": row})
                    solved += 1
                    bar.update(1)
                    bar.set_postfix_str(f"{row['board']} {row['exploitability_pct_pot']:.2f}% pot")
        _, stored = read_batch(out)
        rows = [stored[t] for t in board_set.texts if t in stored]
        table, files = write_report(rows, out, plot=plot, title=f"{path.stem} on {board_set.spec}")
    return BatchReport(out, len(board_set), solved, time.perf_counter() - t0, table, files)


# ---------------------------------------------------------------------------------------------- the report
def _table(rows: list[dict]):
    import pandas as pd

    df = pd.DataFrame(rows)
    freq = [c for c in df.columns if c not in COLUMNS]
    oop = [c for c in freq if c.startswith("oop ")]
    ip = [c for c in freq if not c.startswith("oop ")]
    df[freq] = df[freq].fillna(0.0)
    df = df[list(COLUMNS) + oop + ip]
    w = df["weight"].to_numpy(dtype=float)
    mean = {"board": "mean", "weight": float(w.sum())}
    for c in df.columns[2:]:
        if c == "converged":
            mean[c] = bool(df[c].all())
        else:
            mean[c] = float(np.average(df[c].to_numpy(dtype=float), weights=w))
    return pd.concat([df, pd.DataFrame([mean])], ignore_index=True), oop, ip


def write_report(rows: list[dict], out_dir, plot: bool = True, title: str = "batch"):
    """Write ``report.csv``, ``report.parquet``, ``report.md`` and ``report.png`` from per-board rows.

    Parameters
    ----------
    rows : list of dict
        Rows of :func:`solve_board`.
    out_dir : str or os.PathLike
    plot : bool, default True
    title : str

    Returns
    -------
    table : pandas.DataFrame
        The rows and the weighted-mean row (``board = "mean"``; frequencies, EV and exploitability averaged with
        the board weights).
    files : dict of str to pathlib.Path

    Raises
    ------
    ValueError
        If ``rows`` is empty.
    """
    if not rows:
        raise ValueError("rows: no solved board to report")
    out = Path(out_dir)
    table, oop, ip = _table(rows)
    files = {"csv": out / "report.csv", "parquet": out / "report.parquet", "markdown": out / "report.md"}
    table.to_csv(files["csv"], index=False)
    table.to_parquet(files["parquet"], index=False)
    files["markdown"].write_text(_markdown(table, oop, ip, title))
    if plot:
        files["figure"] = _figure(table.iloc[:-1], oop, title, out / "report.png")
    return table, files


def _markdown(table, oop, ip, title: str) -> str:
    body = table.iloc[:-1]
    mean = table.iloc[-1]
    lines = [f"# {title}", "",
             f"{len(body)} boards (total weight {mean['weight']:g}); weighted means: OOP EV "
             f"{mean['ev_oop_pct_pot']:.1f}% of the pot, exploitability {mean['exploitability_pct_pot']:.3f}% of the "
             f"pot ({mean['exploitability_mbb']:.1f} mbb/g).", ""]
    head = ["board", "weight", "OOP EV % pot", "expl. % pot"] + oop + ip
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for _, r in table.iterrows():
        cells = [str(r["board"]), f"{r['weight']:g}", f"{r['ev_oop_pct_pot']:.1f}",
                 f"{r['exploitability_pct_pot']:.3f}"] + [f"{100 * r[c]:.0f}%" for c in oop + ip]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _figure(body, oop, title: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hunl.solver.output import save_png

    order = np.argsort(-body["ev_oop_pct_pot"].to_numpy(dtype=float), kind="stable")
    b = body.iloc[order]
    x = np.arange(len(b))
    width = max(6.0, 0.22 * len(b) + 2.0)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(width, 6.5), sharex=True,
                                   gridspec_kw={"height_ratios": [3, 2]})
    bottom = np.zeros(len(b))
    cmap = plt.get_cmap("viridis")
    for k, c in enumerate(oop):
        vals = b[c].to_numpy(dtype=float)
        ax1.bar(x, vals, bottom=bottom, width=0.85, label=c.removeprefix("oop "),
                color=cmap(k / max(1, len(oop) - 1)))
        bottom += vals
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("share of OOP's range")
    ax1.set_title(f"{title}: OOP's first action by board")
    ax1.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    ev = b["ev_oop_pct_pot"].to_numpy(dtype=float)
    ax2.bar(x, ev, width=0.85, color="tab:blue")
    mean = float(np.average(ev, weights=b["weight"].to_numpy(dtype=float)))
    ax2.axhline(mean, color="black", lw=1, ls="--", label=f"weighted mean {mean:.1f}%")
    ax2.set_ylabel("OOP EV, % of pot")
    ax2.legend(loc="upper right", fontsize=8)
    ax2.set_xticks(x)
    ax2.set_xticklabels(b["board"], rotation=90, fontsize=7, family="monospace")
    fig.tight_layout()
    save_png(fig, path)
    plt.close(fig)
    return path

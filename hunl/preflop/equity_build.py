"""Build the preflop equity table once: 47,008 matchups x 1,712,304 boards, resumable, with a progress bar.

The matchups (:func:`hunl.preflop.matchups.canonical_matchups`) are cut into chunks of ``chunk_size``; each
finished chunk is saved to ``<out>.parts/chunk_NNNNN.npy`` (written to a temporary name, then renamed, so a
kill never leaves a half-written chunk). A restart reads the finished chunks back and computes only the rest,
so no work is lost or done twice. When every chunk is there, the table (with its class-level sums) is written to
``out`` and the parts directory is removed. A ``meta.json`` in the parts directory records the chunk size and
kernel; a restart with other settings is refused rather than mixing chunks.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hunl.preflop.boards import METHODS, matchup_counts
from hunl.preflop.equity import DEFAULT_PATH, EquityTable
from hunl.preflop.matchups import canonical_matchups

__all__ = ["BuildReport", "build_equity_table"]


@dataclass(frozen=True)
class BuildReport:
    """Outcome of :func:`build_equity_table`.

    Attributes
    ----------
    path : pathlib.Path
        The table written.
    matchups : int
        Canonical matchups in the table (47,008).
    computed, reused : int
        Matchups computed by this run, and read back from chunks of an interrupted run.
    seconds : float
        Wall time of this run.
    threads : int
        Numba threads used.
    method : str
        The kernel (:data:`hunl.preflop.boards.METHODS`).
    """

    path: Path
    matchups: int
    computed: int
    reused: int
    seconds: float
    threads: int
    method: str


def _parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def _chunk_path(parts: Path, k: int) -> Path:
    return parts / f"chunk_{k:05d}.npy"


def build_equity_table(out=DEFAULT_PATH, chunk_size: int = 500, threads: int | None = None,
                       method: str = "fast", progress: bool = True, max_chunks: int | None = None) -> BuildReport:
    """Compute the exact equity table and write it to ``out`` (resumable; see the module docstring).

    Parameters
    ----------
    out : str or pathlib.Path, default the packaged ``hunl/preflop/data/equity.npz``
    chunk_size : int, default 500
        Matchups per saved chunk (a kill loses at most one chunk of work).
    threads : int, optional
        Numba threads (default: numba's default, all cores).
    method : {"fast", "exhaustive"}, default "fast"
    progress : bool, default True
        A tqdm bar on stderr (matchups done, rate, ETA).
    max_chunks : int, optional
        Stop after computing this many chunks (for tests of resumption); the table is written only when all
        chunks exist.

    Returns
    -------
    BuildReport

    Raises
    ------
    ValueError
        On a non-positive ``chunk_size`` or ``threads``, an unknown ``method``, or an existing parts directory
        made with another chunk size or method.
    """
    if isinstance(chunk_size, bool) or int(chunk_size) != chunk_size or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    import numba

    if threads is not None:
        if isinstance(threads, bool) or int(threads) != threads or threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads!r}")
        numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
    n_threads = numba.get_num_threads()
    start = time.perf_counter()
    out = Path(out)
    parts = _parts_dir(out)
    parts.mkdir(parents=True, exist_ok=True)
    meta = {"chunk_size": int(chunk_size), "method": method}
    meta_path = parts / "meta.json"
    if meta_path.exists():
        old = json.loads(meta_path.read_text())
        if old != meta:
            raise ValueError(f"{parts} holds chunks made with {old}; this run asks for {meta}. Use the same "
                             "settings, or delete the directory to start over")
    else:
        meta_path.write_text(json.dumps(meta))

    cards = canonical_matchups()
    m = cards.shape[0]
    n_chunks = -(-m // int(chunk_size))
    bounds = [(k * chunk_size, min(m, (k + 1) * chunk_size)) for k in range(n_chunks)]
    done = [k for k in range(n_chunks) if _chunk_path(parts, k).exists()]
    reused = sum(bounds[k][1] - bounds[k][0] for k in done)
    todo = [k for k in range(n_chunks) if k not in set(done)]
    if max_chunks is not None:
        todo = todo[: int(max_chunks)]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=m, initial=reused, unit="matchup", desc="preflop equities", dynamic_ncols=True,
                   smoothing=0.1)
    computed = 0
    try:
        for k in todo:
            lo, hi = bounds[k]
            counts = matchup_counts(cards[lo:hi], method=method)
            path = _chunk_path(parts, k)
            tmp = path.with_name(path.stem + ".tmp.npy")
            np.save(tmp, counts)
            tmp.replace(path)
            computed += hi - lo
            if bar is not None:
                bar.update(hi - lo)
    finally:
        if bar is not None:
            bar.close()
    if all(_chunk_path(parts, k).exists() for k in range(n_chunks)):
        counts = np.concatenate([np.load(_chunk_path(parts, k)) for k in range(n_chunks)])
        if counts.shape != (m, 2):
            raise RuntimeError(f"the chunks in {parts} hold {counts.shape[0]} matchups, expected {m}")
        EquityTable.from_counts(cards, counts[:, 0], counts[:, 1]).save(out)
        shutil.rmtree(parts)
    return BuildReport(out, m, computed, reused, time.perf_counter() - start, n_threads, method)

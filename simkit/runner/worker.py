"""The one function a worker runs: play a chunk, check its columns, write its files.

Module-level and importable, so loky and Dask can pickle it by reference. A task
carries everything the chunk needs (mode name, parameters, the cell's data, seeds,
paths); a worker writes its own files (atomically) and returns only a few numbers,
so the parent's memory does not grow with the number of games.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.watch import watch_parent  # noqa: F401  (shared by every pool; re-exported)

WORKER_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


@dataclass(frozen=True)
class ChunkTask:
    out: str
    mode: str
    params: dict[str, Any]
    data: Any
    root_seed: int
    chunk_id: int
    n_games: int
    outputs: tuple[str, ...]
    files: dict[str, str]  # table -> path relative to out
    constants: dict[str, Any]  # experiment_id, cell, root_seed, chunk_id, parameters, overrides
    meta: dict[str, Any]  # file metadata shared by every table of the chunk
    parent: tuple[str, int] | None = (
        None  # (host, pid) of the run: a local worker ends when it ends
    )
    inputs: dict[str, str] | None = None  # strategy file -> the sha256 its cell id was made of


@dataclass(frozen=True)
class ChunkDone:
    cell: str
    chunk_id: int
    n_games: int
    key_sum: int
    rows: dict[str, int]
    seconds: float
    pid: int
    peak_rss_mb: float  # the worker process's peak resident memory so far (Linux; 0 elsewhere)
    sizes: dict[str, int] | None = None  # table -> bytes of the file written (the manifest's)


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM: unlike getrusage's maxrss, not inherited through fork)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


_MODES: dict[str, Any] = {}  # this process's modes, looked up once (get_mode re-imports providers)


def _mode(name: str):
    if name not in _MODES:
        from simkit.modes import get_mode

        _MODES[name] = get_mode(name)
    return _MODES[name]


def pin_threads() -> None:
    """One numba/OpenMP thread per worker: parallelism comes from the workers themselves."""
    for key, value in WORKER_ENV.items():
        os.environ.setdefault(key, value)


def run_task(task: ChunkTask) -> ChunkDone:
    pin_threads()
    watch_parent(task.parent)
    from simkit.lake import LakeError, build_table, write_chunk

    start = time.perf_counter()
    if task.inputs:  # a file edited since the spec was read would be pooled under the old id
        from strategies.files import strategy_digest

        for path, digest in task.inputs.items():
            if strategy_digest(path) != digest:
                raise LakeError(
                    f"{path}: this strategy file changed while the run played it; rerun the "
                    "spec (the new content is a new cell, never pooled with the old one)"
                )
    mode = _mode(task.mode)
    tables = mode.run_chunk(
        task.params, task.data, task.root_seed, task.chunk_id, task.n_games, frozenset(task.outputs)
    )
    where = f"mode '{task.mode}' chunk {task.chunk_id} of cell {task.constants.get('cell')}"
    if "summary" not in tables:
        raise LakeError(f"{where}: run_chunk returned no 'summary' table")
    built = {}
    for table in task.outputs:
        columns = tables.get(table)
        if columns is None:
            raise LakeError(f"{where}: run_chunk returned no '{table}' table")
        if "game_index" not in columns:
            raise LakeError(f"{where}: table '{table}' has no 'game_index' column")
        built[table] = build_table(task.constants, columns)
    summary = tables["summary"]
    if len(summary["game_index"]) != task.n_games:
        raise LakeError(
            f"{where}: {len(summary['game_index'])} summary rows for {task.n_games} games"
        )
    key = np.asarray(summary[mode.key_metric])
    key_sum = int(key.sum(dtype=np.int64))
    if key.size and (key.min() < 0 or key.max() > 1):
        raise LakeError(f"{where}: key metric '{mode.key_metric}' must be 0 or 1")
    meta = {
        **task.meta,
        "n_games": task.n_games,
        "key_metric": mode.key_metric,
        "key_sum": key_sum,
        "cell": task.constants["cell"],
        "chunk_id": task.chunk_id,
    }
    write_chunk(Path(task.out), task.files, built, meta, stats_columns=task.constants)
    return ChunkDone(
        cell=task.constants["cell"],
        chunk_id=task.chunk_id,
        n_games=task.n_games,
        key_sum=key_sum,
        rows={t: b.num_rows for t, b in built.items()},
        seconds=time.perf_counter() - start,
        pid=os.getpid(),
        peak_rss_mb=peak_rss_mb(),
        sizes={t: os.stat(Path(task.out) / rel).st_size for t, rel in task.files.items()},
    )

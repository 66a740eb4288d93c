"""Spec -> chunks -> workers -> lake: the experiment runner.

Seeds: chunk ``k`` of every cell is played from ``SeedSequence(root_seed).spawn(..)[k]``
(and its children for games), so cells share random numbers chunk by chunk (paired
comparisons) and a chunk's rows depend only on (cell, root seed, k, games in it): the
lake is identical whatever ``--jobs``, backend or finishing order. Finished chunks found in
the lake are skipped, so a rerun completes an interrupted run.
"""

from __future__ import annotations

import math
import os
import platform
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.seeds import chunk_sizes
from simkit.core.stats import Z95, wilson_interval
from simkit.errors import UserError
from simkit.lake import (
    CHUNK_RE,
    MANIFEST,
    LakeError,
    LakeIndex,
    LakeLock,
    Manifest,
    chunk_relpath,
    redo_problems,
    remove_temporaries,
    scan,
    settle_temporaries,
)
from simkit.modes import get_mode
from simkit.runner.fanout import Fanout
from simkit.runner.overrides import apply_overrides
from simkit.runner.progress import Progress, progress_enabled
from simkit.runner.spec import Cell, Spec
from simkit.runner.worker import ChunkDone, ChunkTask

MANIFEST_EVERY = 2.0  # seconds between manifest saves while chunks finish
PACKAGES = (
    "numpy",
    "numba",
    "pyarrow",
    "polars",
    "pandas",
    "joblib",
    "dask",
    "distributed",
    "simkit",
)


class RunFailed(UserError):
    """The run stopped before finishing (worker died, interrupted); finished chunks are kept."""

    exit_code = 1


class DeadlinePassed(TimeoutError):
    """run_experiment(deadline=...) stopped before a chunk that would end after the deadline
    (the slowest chunk so far is the estimate); finished chunks are kept."""


@dataclass
class CellResult:
    cell: str
    label: str
    games: int
    key_sum: int
    chunks: int
    half_width: float
    stop: str  # games | target | max_games

    @property
    def rate(self) -> float:
        return self.key_sum / self.games if self.games else 0.0


@dataclass
class RunResult:
    out: Path
    experiment_id: str
    chunks_written: int
    chunks_skipped: int
    games_written: int
    games_skipped: int
    seconds: float
    cells: list[CellResult] = field(default_factory=list)
    worker_seconds: float = 0.0  # time spent inside chunk tasks (playing and writing), summed
    worker_peak_rss_mb: float = 0.0  # largest peak RSS any worker reported

    @property
    def games_per_second(self) -> float:
        return self.games_written / self.seconds if self.seconds > 0 else 0.0


def run_experiment(
    spec: Spec,
    out: str | Path | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    force: bool = False,
    target_ci: float | None = None,
    quiet: bool = False,
    security: str | None = None,
    deadline: float | None = None,
) -> RunResult:
    """Run (or complete) ``spec`` into the lake ``out`` (default results/<name>).
    ``deadline``: a time.perf_counter() value; no chunk starts that would end after it (the
    slowest chunk so far is the estimate): DeadlinePassed is raised instead."""
    spec = spec.with_target(target_ci)
    fan = Fanout(
        jobs, backend, scheduler, security
    )  # validates the flags before anything is touched
    out = Path(out) if out is not None else Path("results") / spec.name
    _check_out(out)
    start = time.perf_counter()
    with LakeLock(out):
        _check_out(out)  # again under the lock: another run may have filled the folder meanwhile
        manifest = Manifest.load(out)
        check_compatible(manifest, spec, out, force)
        record = _record(manifest, spec)
        index = scan(out, manifest)
        redone = redo_problems(index, own_files(spec, index))
        index.raise_problems()
        remove_temporaries(index)
        if redone:  # a chunk is one unit: one cut off between its tables is written again
            print(
                f"simkit: note: {len(redone)} incomplete or truncated chunk file(s) removed and "
                f"their chunks redone (first: {redone[0]})",
                file=sys.stderr,
            )
        _sync_chunks(record, index, spec)
        # "incomplete" until finish() says otherwise: a run that dies without a word (SIGKILL,
        # full disk) leaves a manifest that tells the truth, never one still marked "running"
        record["status"] = "incomplete"
        manifest.save()
        run = _Run(spec, out, manifest, record, index, fan)
        run.deadline = deadline
        try:
            unit = get_mode(spec.mode).extra.get("row_unit", "games")
            with fan, Progress(progress_enabled(quiet), spec.name, unit=unit) as bar:
                run.bar = bar
                cells = run.execute()
        except KeyboardInterrupt:
            settle_temporaries(out)
            run.finish("interrupted")
            raise
        except UserError:
            settle_temporaries(out)
            run.finish("failed")
            raise
        except Exception as exc:
            settle_temporaries(out)
            run.finish("failed")
            if type(exc).__name__ in ("TerminatedWorkerError", "KilledWorker", "BrokenProcessPool"):
                raise RunFailed(
                    f"a worker died ({type(exc).__name__}); {run.written} chunk(s) of this run "
                    f"are kept: rerun the same command to complete the rest"
                ) from None
            raise
        run.finish("complete")
    return RunResult(
        out=out,
        experiment_id=spec.experiment_id,
        chunks_written=run.written,
        chunks_skipped=run.skipped,
        games_written=run.games_written,
        games_skipped=run.games_skipped,
        seconds=time.perf_counter() - start,
        cells=cells,
        worker_seconds=run.worker_seconds,
        worker_peak_rss_mb=run.worker_peak_rss_mb,
    )


def own_files(spec: Spec, index: LakeIndex) -> dict[str, str]:
    """Relative path -> table of every chunk file this spec writes that the lake's index names
    (only chunk ids that appear in the lake: the set stays small whatever the sizing)."""
    chunks: dict[str, set[int]] = {}
    for p in index.problems:
        m = CHUNK_RE.match(p.relpath.rsplit("/", 1)[-1])
        if m:
            chunks.setdefault(m.group("cell"), set()).add(int(m.group("chunk")))
    own = {}
    for c in spec.cells:
        for k in chunks.get(c.cell_id, ()):
            for t in spec.outputs:
                own[chunk_relpath(t, c.partition, c.cell_id, k)] = t
    return own


def _check_out(out: Path) -> None:
    from simkit.core.atomic import check_name
    from simkit.core.owned import check_folder_outside_lakes

    check_name(out)
    check_folder_outside_lakes(out)
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UserError(f"--out {out}: {parent} is not a folder")
            break
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a folder")
    if out.is_dir() and not (out / MANIFEST).is_file():
        visible = [p for p in out.iterdir() if not p.name.startswith(".")]
        if visible and not (out / MANIFEST).is_file():  # (a run may have saved it meanwhile)
            raise UserError(
                f"--out {out}: not empty and not a simkit "
                f"lake (no {MANIFEST}); choose another folder"
            )


def check_compatible(manifest: Manifest, spec: Spec, out: Path, force: bool) -> None:
    """Refuse to add an experiment to a lake that holds another one, unless forced."""
    if spec.experiment_id in manifest.experiments or not manifest.experiments:
        return
    diffs = []
    for exp_id, exp in manifest.experiments.items():
        what = []
        if exp.get("engine_version") != spec.engine_version:
            what.append(f"engine version {exp.get('engine_version')} vs {spec.engine_version}")
        if exp.get("data_hash") != spec.data_hash:
            what.append(f"data pack {exp.get('data_hash')} vs {spec.data_hash}")
        for label, sizing in (
            ("it was", (exp.get("spec") or {}).get("resized_from") and exp["spec"].get("games")),
            ("this run is", spec.resized_from and spec.games),
        ):
            if sizing:
                what.append(f"{label} resized with --games {sizing}")
        if not what:
            what.append("a different spec")
        diffs.append(f"'{exp_id}' ({', '.join(what)})")
    if not force:
        raise LakeError(
            f"--out {out}: holds experiment {'; '.join(diffs)}, "
            f"this run is '{spec.experiment_id}': refusing to "
            "mix them (use another --out, or --force to add it)"
        )


def _record(manifest: Manifest, spec: Spec) -> dict[str, Any]:
    now = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    rec = manifest.experiments.setdefault(
        spec.experiment_id, {"created": now, "chunks": {}, "runs": []}
    )
    rec.update(
        {
            "experiment_id": spec.experiment_id,
            "name": spec.name,
            "description": spec.description,
            "mode": spec.mode,
            "key_metric": get_mode(spec.mode).key_metric,
            "root_seed": spec.root_seed,
            "chunk_size": spec.chunk_size,
            "engine_version": spec.engine_version,
            "data_hash": spec.data_hash,
            "data": spec.data_path,
            "spec": spec.to_json(),
            "spec_text": spec.text,
            "outputs": list(spec.outputs),
            "partition_by": list(spec.partition_by),
            "cells": {
                c.cell_id: {
                    "index": c.index,
                    "params": c.params,
                    "overrides": c.overrides,
                    "data_hash": c.data_hash,
                    "partition": [list(p) for p in c.partition],
                    **({"inputs": c.inputs} if c.inputs else {}),
                }
                for c in spec.cells
            },
            "updated": now,
        }
    )
    rec["runs"].append(
        {
            "started": now,
            "git_commit": git_commit(),
            "packages": package_versions(),
            "python": platform.python_version(),
            "host": platform.node(),
            "sizing": {
                "games": spec.games,
                "target_ci": spec.target_ci,
                "min_games": spec.min_games,
                "max_games": spec.max_games,
            },
        }
    )
    rec["git_commit"] = rec["runs"][-1]["git_commit"]
    rec["packages"] = rec["runs"][-1]["packages"]
    return rec


def _sync_chunks(record: dict[str, Any], index: LakeIndex, spec: Spec) -> None:
    """The manifest's chunk list is what the lake really holds for this experiment's cells."""
    cells = {c.cell_id for c in spec.cells}
    sizes: dict[tuple[str, int], dict[str, dict[str, int]]] = {}
    for f in index.files:
        sizes.setdefault((f.cell, f.chunk_id), {})[f.table] = {"rows": f.rows, "bytes": f.size}
    record["chunks"] = {
        f"{f.cell}:{f.chunk_id}": {
            "n_games": f.n_games,
            "key_sum": f.meta.get("key_sum"),
            "files": sizes[(f.cell, f.chunk_id)],
        }
        for f in index.files
        if f.table == "summary" and f.cell in cells
    }


def git_commit() -> str:
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def package_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def half_width(successes: int, games: int) -> float:
    if games == 0:
        return math.inf
    lo, hi = wilson_interval(successes, games)
    return (hi - lo) / 2


def next_chunk_count(
    games: int, successes: int, chunks: int, target: float, chunk: int, max_chunks: int
) -> int:
    """Chunks a cell should have after this round, from its results so far (deterministic).

    The games a Wilson interval of half-width ``target`` needs at the current rate
    (Agresti-Coull smoothed), at least one more chunk and at most twice as many.
    """
    p = (successes + 2) / (games + 4)
    need = math.ceil(1.05 * Z95 * Z95 * p * (1 - p) / (target * target))
    want = math.ceil(need / chunk)
    return int(min(max(want, chunks + 1), 2 * chunks, max_chunks))


class _Run:
    def __init__(
        self, spec: Spec, out: Path, manifest: Manifest, record: dict, index: LakeIndex, fan: Fanout
    ):
        self.spec, self.out, self.manifest, self.record, self.fan = spec, out, manifest, record, fan
        self.bar: Progress | None = None
        self.deadline: float | None = None
        self._slowest = 0.0  # seconds of the slowest chunk so far (the deadline's estimate)
        self.written = self.skipped = self.games_written = self.games_skipped = 0
        self.worker_seconds = 0.0
        self.worker_peak_rss_mb = 0.0
        self._saved = time.perf_counter()
        self.stats: dict[tuple[str, int], tuple[int, int]] = {}
        self._finished: set[tuple[str, int, int]] = (
            set()
        )  # (cell, chunk, games) complete in the lake
        self._planned: set[tuple[str, int]] = set()
        self._data = {
            c.cell_id: apply_overrides(spec.data, c.overrides) if spec.data is not None else None
            for c in spec.cells
        }
        self._types = _column_types(spec)
        summary = {(f.cell, f.chunk_id, f.n_games): f for f in index.files if f.table == "summary"}
        present = {(f.cell, f.chunk_id, f.n_games, f.table) for f in index.files}
        for (cell, k, n), f in summary.items():
            if all((cell, k, n, t) in present for t in spec.outputs):
                self._finished.add((cell, k, n))
                self.stats[(cell, k)] = (n, int(f.meta["key_sum"]))

    # -- planning ------------------------------------------------------------------------
    def execute(self) -> list[CellResult]:
        if self.spec.games is not None:
            return self._fixed()
        return self._target()

    def _fixed(self) -> list[CellResult]:
        sizes = chunk_sizes(self.spec.games, self.spec.chunk_size)
        self._run_chunks([(c, k, n) for k, n in enumerate(sizes) for c in self.spec.cells])
        return [self._cell_result(c, len(sizes), "games") for c in self.spec.cells]

    def _target(self) -> list[CellResult]:
        spec = self.spec
        chunk = spec.chunk_size
        max_chunks = math.ceil(spec.max_games / chunk)
        counts = {c.cell_id: min(math.ceil(spec.min_games / chunk), max_chunks) for c in spec.cells}
        active = list(spec.cells)
        results: dict[str, CellResult] = {}
        while active:
            self._run_chunks(
                [(c, k, self._size(k)) for c in active for k in range(counts[c.cell_id])]
            )
            still = []
            for c in active:
                games, succ = self._totals(c.cell_id, counts[c.cell_id])
                hw = half_width(succ, games)
                if hw <= spec.target_ci or counts[c.cell_id] >= max_chunks:
                    results[c.cell_id] = self._cell_result(
                        c, counts[c.cell_id], "target" if hw <= spec.target_ci else "max_games"
                    )
                else:
                    counts[c.cell_id] = next_chunk_count(
                        games, succ, counts[c.cell_id], spec.target_ci, chunk, max_chunks
                    )
                    still.append(c)
            active = still
        return [results[c.cell_id] for c in spec.cells]

    def _size(self, k: int) -> int:
        return min(self.spec.chunk_size, self.spec.max_games - k * self.spec.chunk_size)

    def _totals(self, cell: str, chunks: int) -> tuple[int, int]:
        games = succ = 0
        for k in range(chunks):
            n, s = self.stats[(cell, k)]
            games += n
            succ += s
        return games, succ

    def _cell_result(self, c: Cell, chunks: int, stop: str) -> CellResult:
        games, succ = self._totals(c.cell_id, chunks)
        return CellResult(
            cell=c.cell_id,
            label=c.label(),
            games=games,
            key_sum=succ,
            chunks=chunks,
            half_width=half_width(succ, games),
            stop=stop,
        )

    # -- running ----------------------------------------------------------------------------
    def _run_chunks(self, planned: list[tuple[Cell, int, int]]) -> None:
        """Run the planned chunks that are not in the lake yet (each chunk is planned once)."""
        todo, found = [], []
        for c, k, n in planned:
            if (c.cell_id, k) in self._planned:
                continue  # planned in an earlier precision round
            self._planned.add((c.cell_id, k))
            (found if (c.cell_id, k, n) in self._finished else todo).append((c, k, n))
        self.skipped += len(found)
        self.games_skipped += sum(n for _, _, n in found)
        if self.bar is not None:
            skipped = sum(n for _, _, n in found)
            self.bar.add_total(sum(n for _, _, n in todo) + skipped, already_done=skipped)
        for done in self.fan.imap(self._tasks(todo)):
            self._done(done)

    def _tasks(self, todo: list[tuple[Cell, int, int]]) -> Iterator[ChunkTask]:
        spec = self.spec
        meta = {
            "format": "simkit-lake/1",
            "experiment_id": spec.experiment_id,
            "mode": spec.mode,
            "engine_version": spec.engine_version,
            "base_data_hash": spec.data_hash,
            "root_seed": spec.root_seed,
            "chunk_size": spec.chunk_size,
            "git_commit": self.record["git_commit"],
        }
        parent = None if self.fan.scheduler else (socket.gethostname(), os.getpid())
        for c, k, n in todo:
            if self.deadline is not None:
                now = time.perf_counter()
                if now + self._slowest > self.deadline:
                    raise DeadlinePassed(
                        f"stopped at the time limit after {self.games_written:,} games "
                        f"(the next chunk would end {now + self._slowest - self.deadline:.1f} s "
                        "past it)"
                    )
            constants = {
                "experiment_id": spec.experiment_id,
                "cell": c.cell_id,
                "root_seed": np.int64(spec.root_seed),
                "chunk_id": np.int32(k),
            }
            for name, value in {**c.params, **c.overrides}.items():
                constants[name] = self._types[name](value) if name in self._types else value
            yield ChunkTask(
                out=str(self.out),
                mode=spec.mode,
                params=c.params,
                data=self._data[c.cell_id],
                root_seed=spec.root_seed,
                chunk_id=k,
                n_games=n,
                outputs=spec.outputs,
                files={t: chunk_relpath(t, c.partition, c.cell_id, k) for t in spec.outputs},
                constants=constants,
                meta={**meta, "data_hash": c.data_hash},
                parent=parent,
                inputs=c.inputs,
            )

    def _done(self, done: ChunkDone) -> None:
        self.stats[(done.cell, done.chunk_id)] = (done.n_games, done.key_sum)
        self._finished.add((done.cell, done.chunk_id, done.n_games))
        self.record["chunks"][f"{done.cell}:{done.chunk_id}"] = {
            "n_games": done.n_games,
            "key_sum": done.key_sum,
            "seconds": round(done.seconds, 4),
            "files": {t: {"rows": done.rows[t], "bytes": b} for t, b in (done.sizes or {}).items()},
        }
        self.worker_seconds += done.seconds
        self._slowest = max(self._slowest, done.seconds)
        self.worker_peak_rss_mb = max(self.worker_peak_rss_mb, done.peak_rss_mb)
        self.written += 1
        self.games_written += done.n_games
        if self.bar is not None:
            self.bar.advance(done.n_games)
        if time.perf_counter() - self._saved > MANIFEST_EVERY:
            self._save()

    def _save(self) -> None:
        self.record["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        self.manifest.save()
        self._saved = time.perf_counter()

    def finish(self, status: str) -> None:
        self.record["status"] = status
        self.record["runs"][-1].update(
            {"status": status, "chunks_written": self.written, "games_written": self.games_written}
        )
        try:
            self._save()
        except OSError as exc:  # never hide the original error behind this one
            print(f"simkit: warning: could not update {MANIFEST}: {exc}", file=sys.stderr)


def _column_types(spec: Spec) -> dict[str, Any]:
    """One storage type per parameter column for the whole experiment (files must agree)."""
    types: dict[str, Any] = {}
    for c in spec.cells:
        for name, value in {**c.params, **c.overrides}.items():
            if isinstance(value, int) and not isinstance(value, bool):
                wide = abs(value) >= 2**31 or types.get(name) is np.int64
                types[name] = np.int64 if wide else np.int32
    return types

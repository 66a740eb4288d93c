"""Reading a lake: every file checked against the manifest (:func:`scan`), what the
manifest says it holds (:func:`coverage`), and the leftovers of interrupted writes
(simkit.lake).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simkit.lake.files import (
    CHUNK_RE,
    MANIFEST,
    MANIFEST_TEMP_RE,
    META_KEY,
    TEMP_RE,
    LakeError,
    parse_partition,
    value_text,
)
from simkit.lake.manifest import Manifest

# -- reading and checking ---------------------------------------------------------------


@dataclass(frozen=True)
class ChunkFile:
    relpath: str
    table: str
    cell: str
    chunk_id: int
    rows: int
    meta: dict[str, Any]
    schema: pa.Schema | None = None
    size: int = 0  # bytes on disk

    @property
    def n_games(self) -> int:
        return int(self.meta["n_games"])


@dataclass
class Problem:
    relpath: str
    kind: str  # foreign | corrupt | misplaced | incomplete
    detail: str

    def __str__(self) -> str:
        return f"{self.relpath}: {self.kind} ({self.detail})"


@dataclass
class LakeIndex:
    root: Path
    files: list[ChunkFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    temporaries: list[str] = field(default_factory=list)

    def tables(self) -> list[str]:
        return sorted({f.table for f in self.files})

    def select(
        self, table: str, experiment: str | None = None, cells: Iterable[str] | None = None
    ) -> list[ChunkFile]:
        wanted = set(cells) if cells is not None else None
        return [
            f
            for f in sorted(self.files, key=lambda f: f.relpath)
            if f.table == table
            and (experiment is None or f.meta.get("experiment_id") == experiment)
            and (wanted is None or f.cell in wanted)
        ]

    def paths(
        self, table: str, experiment: str | None = None, cells: Iterable[str] | None = None
    ) -> list[Path]:
        return [self.root / f.relpath for f in self.select(table, experiment, cells)]

    def raise_problems(self, limit: int = 5) -> None:
        if self.problems:
            shown = "; ".join(str(p) for p in self.problems[:limit])
            more = f"; and {len(self.problems) - limit} more" if len(self.problems) > limit else ""
            raise LakeError(
                f"lake {self.root}: {len(self.problems)} bad file(s), not read: {shown}{more} "
                f"(delete them, or check with 'simkit experiment verify {self.root}')"
            )


def scan(root: str | Path, manifest: Manifest | None = None, deep: bool = False) -> LakeIndex:
    """Find every chunk file and check it; problems are collected, never silently read.

    Checks each footer (readable, simkit metadata, name/table/partition agree, known
    experiment and cell with the manifest's engine version and data hash, row count).
    ``deep`` also reads every page (checksums) and recounts the key metric.
    """
    root = Path(root)
    manifest = manifest if manifest is not None else Manifest.load(root)
    index = LakeIndex(root=root)
    if not root.is_dir():
        return index
    for entry in sorted(root.iterdir()):
        if entry.is_file():
            if entry.suffix == ".parquet":
                index.problems.append(
                    Problem(entry.name, "foreign", "a Parquet file outside any table folder")
                )
            continue
        if entry.name.startswith("."):
            continue
        for dirpath, dirnames, filenames in os.walk(entry):
            dirnames.sort()
            for name in sorted(filenames):
                rel = Path(dirpath, name).relative_to(root).as_posix()
                if TEMP_RE.match(name):
                    index.temporaries.append(rel)
                    continue
                _check_file(root, rel, entry.name, name, manifest, deep, index)
    _check_complete(index, manifest)
    return index


def _check_file(
    root: Path, rel: str, table: str, name: str, manifest: Manifest, deep: bool, index: LakeIndex
) -> None:
    m = CHUNK_RE.match(name)
    if not m:
        index.problems.append(Problem(rel, "foreign", "not a chunk-<cell>-<chunk>.parquet file"))
        return
    try:
        md = pq.read_metadata(root / rel)
    except Exception as exc:  # noqa: BLE001 - any unreadable footer is a corrupt file
        index.problems.append(Problem(rel, "corrupt", f"unreadable Parquet footer: {exc}"))
        return
    raw = (md.metadata or {}).get(META_KEY.encode())
    try:
        meta = json.loads(raw) if raw is not None else None
    except ValueError:
        meta = None
    if not isinstance(meta, dict) or "cell" not in meta:
        index.problems.append(Problem(rel, "foreign", "no simkit metadata"))
        return
    cell, chunk = m.group("cell"), int(m.group("chunk"))
    if meta.get("cell") != cell or meta.get("chunk_id") != chunk or meta.get("table") != table:
        index.problems.append(
            Problem(rel, "corrupt", "metadata names another cell, chunk or table")
        )
        return
    if md.num_rows != meta.get("rows"):
        index.problems.append(
            Problem(rel, "corrupt", f"{md.num_rows} rows, metadata says {meta.get('rows')}")
        )
        return
    exp = manifest.experiments.get(meta.get("experiment_id", ""))
    if exp is None:
        index.problems.append(
            Problem(
                rel, "foreign", f"experiment '{meta.get('experiment_id')}' is not in {MANIFEST}"
            )
        )
        return
    cell_rec = exp.get("cells", {}).get(cell)
    if cell_rec is None:
        index.problems.append(
            Problem(rel, "foreign", f"cell {cell} is not in experiment '{meta['experiment_id']}'")
        )
        return
    for key, rec in (
        ("engine_version", exp.get("engine_version")),
        ("data_hash", cell_rec.get("data_hash")),
    ):
        if meta.get(key) != rec:
            index.problems.append(
                Problem(rel, "foreign", f"{key} {meta.get(key)!r}, manifest says {rec!r}")
            )
            return
    if parse_partition(rel) != {k: value_text(v) for k, v in cell_rec.get("partition", [])}:
        index.problems.append(
            Problem(rel, "misplaced", "its folders do not match the cell's parameters")
        )
        return
    if deep:
        try:
            data = pq.read_table(root / rel, page_checksum_verification=True)
        except Exception as exc:  # noqa: BLE001
            index.problems.append(Problem(rel, "corrupt", f"unreadable data: {exc}"))
            return
        wrong = _row_keys_problem(data, meta, cell, chunk, exp, table)
        if wrong:
            index.problems.append(Problem(rel, "corrupt", wrong))
            return
        key = meta.get("key_metric")
        if table == "summary" and key and key in data.column_names:
            total = int(
                np.asarray(data.column(key).to_numpy(zero_copy_only=False), dtype=np.int64).sum()
            )
            if total != meta.get("key_sum"):
                index.problems.append(
                    Problem(
                        rel,
                        "corrupt",
                        f"{key} sums to {total}, metadata says {meta.get('key_sum')}",
                    )
                )
                return
    index.files.append(
        ChunkFile(
            relpath=rel,
            table=table,
            cell=cell,
            chunk_id=chunk,
            rows=md.num_rows,
            meta=meta,
            schema=md.schema.to_arrow_schema(),
            size=os.stat(root / rel).st_size,
        )
    )


def unified_schema(files: Iterable[ChunkFile]) -> pa.Schema:
    """One schema for files of a table: integer columns take the widest type any file has.

    The contract asks modes for fixed dtypes; a mode that narrows integers per chunk still
    reads back (upcast), while columns that disagree otherwise are an error, not a guess.
    """
    fields: dict[str, pa.Field] = {}
    for f in files:
        for fld in f.schema:
            old = fields.get(fld.name)
            if old is None or old.type == fld.type:
                fields.setdefault(fld.name, fld)
            elif (
                pa.types.is_integer(old.type)
                and pa.types.is_integer(fld.type)
                and pa.types.is_signed_integer(old.type) == pa.types.is_signed_integer(fld.type)
            ):
                if fld.type.bit_width > old.type.bit_width:
                    fields[fld.name] = fld
            else:
                raise LakeError(
                    f"column '{fld.name}' is {old.type} in some files and {fld.type} in {f.relpath}"
                )
    return pa.schema(list(fields.values()))


def _row_keys_problem(
    data: pa.Table, meta: dict, cell: str, chunk: int, exp: dict, table: str
) -> str | None:
    """What is wrong with a file's key columns, row by row (None: every row is this chunk's).

    Every row must carry the file's experiment, cell, chunk and the experiment's root seed;
    game indices lie in 0..n_games-1, and the summary holds each game once, in order. A file
    rewritten with another chunk's rows (same footer) fails here."""
    n = int(meta.get("n_games", -1))
    want = {
        "experiment_id": meta.get("experiment_id"),
        "cell": cell,
        "chunk_id": chunk,
        "root_seed": exp.get("root_seed"),
    }
    for name, value in want.items():
        if name not in data.column_names:
            return f"no '{name}' column"
        col = data.column(name)
        bad = col.to_numpy(zero_copy_only=False) != value if col.null_count == 0 else None
        if bad is None or bool(np.any(bad)):
            first = int(np.flatnonzero(bad)[0]) if bad is not None else 0
            return (
                f"row {first}: {name} {col[first].as_py()!r}, the file and manifest say {value!r}"
            )
    if "game_index" not in data.column_names:
        return "no 'game_index' column"
    gi = np.asarray(data.column("game_index").to_numpy(zero_copy_only=False), dtype=np.int64)
    if table == "summary":
        if gi.size != n or not np.array_equal(gi, np.arange(n)):
            return f"game_index is not 0..{n - 1} in order (each game of the chunk once)"
    elif gi.size and (gi.min() < 0 or gi.max() >= n):
        return f"game_index outside 0..{n - 1}"
    return None


def _check_complete(index: LakeIndex, manifest: Manifest) -> None:
    """An event table file whose chunk has no summary file was cut off mid-chunk."""
    summaries = {(f.cell, f.chunk_id, f.n_games) for f in index.files if f.table == "summary"}
    keep = []
    for f in index.files:
        if f.table != "summary" and (f.cell, f.chunk_id, f.n_games) not in summaries:
            index.problems.append(
                Problem(f.relpath, "incomplete", "its chunk has no summary file; rerun the spec")
            )
        else:
            keep.append(f)
    index.files = keep


# -- what the manifest says the lake holds ------------------------------------------------


@dataclass
class Coverage:
    """One experiment's files compared with its manifest: what is missing or changed."""

    experiment: str
    status: str
    games_expected: int | None  # None: sized by a precision target and not finished
    games_present: int
    chunks_expected: int | None
    chunks_present: int
    issues: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # "cell:chunk" listed or planned, absent

    @property
    def complete(self) -> bool:
        return not self.issues

    @property
    def games_missing(self) -> int | None:
        if self.games_expected is None:
            return None
        return max(self.games_expected - self.games_present, 0)

    def describe(self) -> str:
        """How much is there, in a few words ('4,000 of 6,000 games (2 of 3 chunks)')."""
        if self.games_expected is None:
            return f"{self.games_present:,} games in {self.chunks_present} chunk(s), total unknown"
        return (
            f"{self.games_present:,} of {self.games_expected:,} games "
            f"({self.chunks_present} of {self.chunks_expected} chunks)"
        )

    def summary(self, limit: int = 3) -> str:
        shown = "; ".join(self.issues[:limit])
        more = f"; and {len(self.issues) - limit} more" if len(self.issues) > limit else ""
        return f"{shown}{more}"


def _planned_chunks(record: Mapping[str, Any]) -> dict[int, int] | None:
    """chunk id -> games every cell of a fixed-size experiment has (None: a precision target)."""
    spec = record.get("spec") or {}
    games, chunk = spec.get("games"), record.get("chunk_size")
    if not isinstance(games, int) or not isinstance(chunk, int) or chunk < 1:
        return None
    from simkit.core.seeds import chunk_sizes

    return dict(enumerate(chunk_sizes(games, chunk)))


def coverage(index: LakeIndex, manifest: Manifest, experiment: str) -> Coverage:
    """Compare the files of ``experiment`` with its manifest record.

    Issues: the run's status is not "complete"; a chunk the manifest lists (or a fixed-size
    spec plans) has no file, or fewer tables than the experiment writes; a file's rows or
    size differ from what the manifest recorded; a file of the experiment's cells that the
    manifest does not list."""
    rec = manifest.experiments[experiment]
    cells = set(rec.get("cells", {}))
    outputs = list(rec.get("outputs") or ["summary"])
    listed: dict[tuple[str, int], dict] = {}
    for key, entry in (rec.get("chunks") or {}).items():
        cell, _, k = key.rpartition(":")
        if cell in cells:
            listed[(cell, int(k))] = entry
    files: dict[tuple[str, int], dict[str, ChunkFile]] = {}
    for f in index.files:
        if f.cell in cells and f.meta.get("experiment_id") == experiment:
            files.setdefault((f.cell, f.chunk_id), {})[f.table] = f
    issues: list[str] = []
    missing: list[str] = []
    status = str(rec.get("status", "unknown"))
    if status != "complete":
        issues.append(f"manifest status '{status}' (the run did not finish)")
    planned = _planned_chunks(rec)
    expected_keys: dict[tuple[str, int], int] = {
        k: int(e.get("n_games", 0)) for k, e in listed.items()
    }
    if planned is not None:
        for cell in cells:
            for k, n in planned.items():
                expected_keys.setdefault((cell, k), n)
    present_games = present_chunks = 0
    for key in sorted(expected_keys):
        cell, k = key
        have = files.get(key, {})
        name = f"{cell}:{k}"
        absent = [t for t in outputs if t not in have]
        if absent:
            missing.append(name)
            where = "listed in the manifest" if key in listed else "planned by the spec"
            issues.append(f"chunk {k} of cell {cell} ({where}): no {', '.join(absent)} file")
            continue
        entry = listed.get(key)
        if entry is None:
            issues.append(f"chunk {k} of cell {cell}: its files are not in the manifest")
        else:
            n = entry.get("n_games")
            if have["summary"].n_games != n or have["summary"].rows != n:
                issues.append(
                    f"{have['summary'].relpath}: {have['summary'].rows} rows, "
                    f"the manifest says {n} games"
                )
            for t, rec_f in (entry.get("files") or {}).items():
                f = have.get(t)
                if f is not None and (f.rows != rec_f.get("rows") or f.size != rec_f.get("bytes")):
                    issues.append(
                        f"{f.relpath}: {f.rows} rows / {f.size} bytes, the manifest recorded "
                        f"{rec_f.get('rows')} rows / {rec_f.get('bytes')} bytes (changed since)"
                    )
        present_games += have["summary"].n_games
        present_chunks += 1
    for key in sorted(set(files) - set(expected_keys)):
        issues.append(f"chunk {key[1]} of cell {key[0]}: its files are not in the manifest")
        present_games += files[key]["summary"].n_games if "summary" in files[key] else 0
        present_chunks += 1
    known = planned is not None or status == "complete"
    return Coverage(
        experiment=experiment,
        status=status,
        games_expected=sum(expected_keys.values()) if known else None,
        games_present=present_games,
        chunks_expected=len(expected_keys) if known else None,
        chunks_present=present_chunks,
        issues=issues,
        missing=missing,
    )


# -- leftovers of interrupted writes ----------------------------------------------------


def remove_temporaries(index: LakeIndex) -> int:
    """Delete leftovers of interrupted writes (only while holding the lock)."""
    temps = list(index.temporaries)
    if index.root.is_dir():
        temps += [p.name for p in index.root.iterdir() if MANIFEST_TEMP_RE.match(p.name)]
    for rel in temps:
        (index.root / rel).unlink(missing_ok=True)
    return len(temps)


def _writer_alive(name: str) -> bool:
    """Whether the process a chunk temporary's name records (``.NAME.tmp-PID-…``) still runs
    (this process never counts: it is not writing while it cleans up)."""
    try:
        pid = int(name.rsplit(".tmp-", 1)[1].split("-", 1)[0])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another account's process: leave its file
        return True
    try:  # an ended child its parent has not reaped yet (a zombie) writes nothing more
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):  # no /proc (macOS): alive as far as we can tell
        return True


def settle_temporaries(root: Path, timeout: float = 10.0) -> int:
    """After a run stopped its workers (interrupt, failure): wait for every writer named in a
    chunk temporary to end, then delete the temporaries. A worker stopped mid-write leaves
    its ``.chunk-*.tmp-*`` file; this run, not the next one, clears it. A writer still alive
    after ``timeout`` keeps its file (the next run removes it, under the lock). Returns the
    number removed."""
    deadline = time.monotonic() + timeout
    removed = 0
    while True:
        temps = [
            Path(dirpath, name)
            for dirpath, _, names in os.walk(root)
            for name in names
            if TEMP_RE.match(name)
        ]
        alive = [p for p in temps if _writer_alive(p.name)]
        for p in temps:
            if p not in alive:
                p.unlink(missing_ok=True)
                removed += 1
        if not alive or time.monotonic() > deadline:
            return removed
        time.sleep(0.05)


def redo_problems(index: LakeIndex, own: Mapping[str, str]) -> list[Problem]:
    """Delete this run's own incomplete or corrupt chunk files so they are written again.

    ``own`` maps every relative path this experiment writes to its table; a problem file at
    one of those paths that is incomplete (killed between a chunk's tables) or corrupt
    (truncated) is removed from the index and from disk. Foreign and misplaced files are
    never touched. Returns the problems removed (to report them)."""
    redo, keep = [], []
    for p in index.problems:
        (redo if p.kind in ("incomplete", "corrupt") and p.relpath in own else keep).append(p)
    for p in redo:
        (index.root / p.relpath).unlink(missing_ok=True)
    index.problems = keep
    return redo

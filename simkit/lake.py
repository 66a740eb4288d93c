"""The result lake: a hive-partitioned Parquet dataset plus manifest.json.

Layout (schema and rules: experiments/README.md)::

    OUT/manifest.json                       experiments, cells, chunks, versions
    OUT/.lock                               flock()ed while a run writes (holds its pid and host)
    OUT/<table>/<key>=<value>/.../chunk-<cell>-<chunk>.parquet

One file per (table, cell, chunk), zstd-compressed, every row carrying
``experiment_id, cell, root_seed, chunk_id, game_index`` and the cell's parameters; the
file's key-value metadata ("simkit", JSON) records engine version, data hashes, git
commit, row count and key-metric total. Files are written under a hidden temporary name
and renamed when complete, so a reader never sees half a file; :func:`scan` checks every
file's footer against the manifest and reports foreign or corrupt files instead of
reading them.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from simkit.errors import UserError

LAKE_FORMAT = "simkit-lake/1"
MANIFEST = "manifest.json"
LOCK = ".lock"
META_KEY = "simkit"
# cell ids: 20 hex digits (80 bits; lakes written before had 10, still read)
CHUNK_RE = re.compile(r"^chunk-(?P<cell>[0-9a-f]{10}(?:[0-9a-f]{10})?)-(?P<chunk>\d{6,})\.parquet$")
TEMP_RE = re.compile(r"^\.chunk-.*\.tmp-.*$")
MANIFEST_TEMP_RE = re.compile(r"^\.manifest\.json\.tmp-.*$")
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
ROW_GROUP = 1 << 20
KEY_COLUMNS = ("experiment_id", "cell", "root_seed", "chunk_id", "game_index")


class LakeError(UserError):
    """A lake that cannot be used as asked (bad files, another experiment, locked)."""


# -- paths --------------------------------------------------------------------------


def value_text(value: Any) -> str:
    """How a parameter value is spelled in a folder name (before URI encoding)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _segment(value: Any) -> str:
    return quote(value_text(value), safe="-_.,+")


def partition_dir(partition: Iterable[tuple[str, Any]]) -> str:
    """'vs=shoggoth/force=infantry%3D2' (values URI-encoded, as hive readers decode them)."""
    return "/".join(f"{_segment(k)}={_segment(v)}" for k, v in partition)


def chunk_name(cell_id: str, chunk_id: int) -> str:
    return f"chunk-{cell_id}-{chunk_id:06d}.parquet"


def chunk_relpath(
    table: str, partition: Iterable[tuple[str, Any]], cell_id: str, chunk_id: int
) -> str:
    parts = [table, partition_dir(partition), chunk_name(cell_id, chunk_id)]
    return "/".join(p for p in parts if p)


def parse_partition(relpath: str) -> dict[str, str]:
    """The key=value folders of a relative file path (decoded)."""
    out = {}
    for seg in relpath.split("/")[1:-1]:
        key, eq, value = seg.partition("=")
        if eq:
            out[unquote(key)] = unquote(value)
    return out


# -- writing ------------------------------------------------------------------------


def constant_column(value: Any, n: int) -> pa.Array:
    """A column holding one value n times, cheap to build and to store."""
    if isinstance(value, np.generic):
        return pa.array(np.full(n, value, dtype=value.dtype))
    if isinstance(value, str):
        return pa.DictionaryArray.from_arrays(
            np.zeros(n, dtype=np.int8), pa.array([value], pa.string())
        )
    if isinstance(value, bool):
        return pa.array(np.full(n, value, dtype=bool))
    if isinstance(value, int):
        return pa.array(np.full(n, value, dtype=np.int64 if abs(value) >= 2**31 else np.int32))
    if isinstance(value, float):
        return pa.array(np.full(n, value, dtype=np.float64))
    raise TypeError(f"cannot store {value!r} as a column")


def build_table(constants: Mapping[str, Any], columns: Mapping[str, np.ndarray]) -> pa.Table:
    """Key columns, game_index, the cell's parameters, then the mode's other columns."""
    n = len(next(iter(columns.values()))) if columns else 0
    for name in constants:
        if name in columns:
            raise LakeError(
                f"the mode writes a column '{name}' that is also a parameter or key column"
            )
    keys = [k for k in constants if k in KEY_COLUMNS]
    order = (
        keys
        + [k for k in columns if k == "game_index"]
        + [k for k in constants if k not in KEY_COLUMNS]
        + [k for k in columns if k != "game_index"]
    )
    arrays = []
    for name in order:
        if name in constants:
            arrays.append(constant_column(constants[name], n))
            continue
        values = np.asarray(columns[name])
        if values.ndim != 1 or values.size != n:
            raise LakeError(f"column '{name}' has shape {values.shape}, expected ({n},)")
        arrays.append(pa.array(values))
    # Columns without nulls are declared non-nullable: the writer then skips definition
    # levels (measured: a third less time per row for the combat mode).
    schema = pa.schema(
        [
            pa.field(name, arr.type, nullable=arr.null_count > 0)
            for name, arr in zip(order, arrays, strict=True)
        ]
    )
    return pa.Table.from_arrays(arrays, schema=schema)


def write_parquet(
    path: Path, table: pa.Table, meta: Mapping[str, Any], stats_columns: Iterable[str] | None = None
) -> None:
    """Write one Parquet file atomically: a hidden temporary name, then rename.

    Strings are dictionary-encoded; numbers are plain + zstd (their dictionary pass cost
    more than it saved: 6.3 bytes/row either way for the combat mode). Min/max statistics
    are kept for ``stats_columns`` (keys and parameters, for filter pushdown) only.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    strings = [
        f.name for f in table.schema if pa.types.is_string(f.type) or pa.types.is_dictionary(f.type)
    ]
    stats = (
        [c for c in stats_columns if c in table.column_names] if stats_columns is not None else True
    )
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        if os.path.lexists(path) and not path.is_file():
            raise LakeError(f"{path}: exists and is not a regular file; refusing to replace it")
        # store_schema=False: strings come back as plain strings (Parquet dictionary
        # encoding keeps them small on disk), not as Arrow dictionaries/categoricals.
        with pq.ParquetWriter(
            tmp,
            table.schema,
            compression=COMPRESSION,
            compression_level=COMPRESSION_LEVEL,
            use_dictionary=strings or False,
            write_statistics=stats,
            store_schema=False,
            write_page_checksum=True,
        ) as writer:
            writer.write_table(table, row_group_size=ROW_GROUP)
            writer.add_key_value_metadata({META_KEY: json.dumps(meta, sort_keys=True)})
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # the data is on disk before the name says the file is complete
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):  # disk full, permission, ...: one line naming the file
            from simkit.core.atomic import describe_os_error

            reason = (
                describe_os_error(exc, path)
                if exc.errno
                else f"{path}: {str(exc).splitlines()[0][:200]}"
            )
            raise LakeError(f"cannot write {reason}") from None
        raise


def write_chunk(
    root: Path,
    files: Mapping[str, str],
    tables: Mapping[str, pa.Table],
    meta: Mapping[str, Any],
    stats_columns: Iterable[str] | None = None,
) -> None:
    """All tables of one chunk; the summary file is renamed last (it marks the chunk done)."""
    order = sorted(files, key=lambda t: (t == "summary", t))
    stats = list(stats_columns) + ["game_index"] if stats_columns is not None else None
    for table in order:
        tmeta = {**meta, "table": table, "rows": tables[table].num_rows}
        write_parquet(root / files[table], tables[table], tmeta, stats)


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


# -- manifest ----------------------------------------------------------------------------


@dataclass
class Manifest:
    root: Path
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)
    format: str = LAKE_FORMAT

    @classmethod
    def load(cls, root: str | Path) -> Manifest:
        root = Path(root)
        path = root / MANIFEST
        if not path.is_file():
            return cls(root=root)
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise LakeError(f"{path}: not valid JSON: {exc}") from None
        if not isinstance(obj, dict) or obj.get("format") != LAKE_FORMAT:
            raise LakeError(
                f"{path}: not a simkit lake manifest (format "
                f"{obj.get('format') if isinstance(obj, dict) else None!r}, "
                f"expected {LAKE_FORMAT!r})"
            )
        validate_manifest(obj, path)
        return cls(root=root, experiments=obj.get("experiments", {}), format=obj["format"])

    def exists(self) -> bool:
        return (self.root / MANIFEST).is_file()

    def save(self) -> None:
        payload = json.dumps(
            {"format": self.format, "experiments": self.experiments},
            indent=1,
            sort_keys=True,
            default=_json_default,
        )
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".{MANIFEST}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            with open(tmp, "wb") as fh:
                fh.write(payload.encode() + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.root / MANIFEST)
        except BaseException:
            tmp.unlink(missing_ok=True)  # a full disk leaves the old manifest, never a temporary
            raise


# The manifest's schema: the fields readers rely on and their JSON types (others are free).
_INT, _STR, _DICT, _LIST = (int,), (str,), (dict,), (list,)
EXPERIMENT_SCHEMA: dict[str, tuple[type, ...]] = {
    "experiment_id": _STR,
    "name": _STR,
    "mode": _STR,
    "key_metric": _STR,
    "root_seed": _INT,
    "chunk_size": _INT,
    "engine_version": _INT,
    "data_hash": _STR,
    "status": _STR,
    "outputs": _LIST,
    "partition_by": _LIST,
    "spec": _DICT,
    "cells": _DICT,
    "chunks": _DICT,
    "runs": _LIST,
}
CELL_SCHEMA = {"params": _DICT, "overrides": _DICT, "data_hash": _STR, "partition": _LIST}
CHUNK_SCHEMA = {"n_games": _INT, "key_sum": (int, type(None)), "files": _DICT}
STATUSES = ("complete", "incomplete", "interrupted", "failed", "running")
CHUNK_KEY_RE = re.compile(r"^[0-9a-f]{10}(?:[0-9a-f]{10})?:\d+$")


def _type_name(types: tuple[type, ...]) -> str:
    return {int: "a whole number", str: "a string", dict: "an object", list: "a list"}[types[0]]


def _check_fields(obj: Mapping, schema: Mapping, where: str, path: Path) -> None:
    for key, types in schema.items():
        if key in obj:
            v = obj[key]
            if not isinstance(v, types) or (types == _INT and isinstance(v, bool)):
                raise LakeError(
                    f"{path}: field '{where}{key}' must be {_type_name(types)}, got {v!r:.60}"
                )


def validate_manifest(obj: Any, path: Path) -> None:
    """Check a loaded manifest against its schema; a wrong type is one line naming the field."""
    exps = obj.get("experiments", {})
    if not isinstance(exps, dict):
        raise LakeError(f"{path}: field 'experiments' must be an object, got {exps!r:.60}")
    for eid, exp in exps.items():
        if not isinstance(exp, dict):
            raise LakeError(f"{path}: field 'experiments.{eid}' must be an object")
        _check_fields(exp, EXPERIMENT_SCHEMA, f"experiments.{eid}.", path)
        if "status" in exp and exp["status"] not in STATUSES:
            raise LakeError(
                f"{path}: field 'experiments.{eid}.status' must be one of "
                f"{', '.join(STATUSES)}, got {exp['status']!r:.60}"
            )
        for cid, cell in exp.get("cells", {}).items():
            if not isinstance(cell, dict):
                raise LakeError(f"{path}: field 'experiments.{eid}.cells.{cid}' must be an object")
            _check_fields(cell, CELL_SCHEMA, f"experiments.{eid}.cells.{cid}.", path)
            for item in cell.get("partition", []):
                if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                    raise LakeError(
                        f"{path}: field 'experiments.{eid}.cells.{cid}.partition' must hold "
                        f"[name, value] pairs, got {item!r:.60}"
                    )
        for key, entry in exp.get("chunks", {}).items():
            if not CHUNK_KEY_RE.match(key):
                raise LakeError(
                    f"{path}: field 'experiments.{eid}.chunks' has key {key!r:.60}, "
                    f"expected '<cell>:<chunk>'"
                )
            if not isinstance(entry, dict):
                raise LakeError(f"{path}: field 'experiments.{eid}.chunks.{key}' must be an object")
            _check_fields(entry, CHUNK_SCHEMA, f"experiments.{eid}.chunks.{key}.", path)


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    raise TypeError(f"not JSON serialisable: {obj!r}")


# -- lock ------------------------------------------------------------------------------


class LakeLock:
    """One writer at a time: an exclusive ``flock`` on OUT/.lock, taken atomically.

    The kernel releases the lock when its holder dies (even by SIGKILL), so a dead
    writer's lock never needs clearing by hand, and two runs starting at the same moment
    cannot both hold it. The file records the holder's pid and host for the message.
    """

    def __init__(self, root: Path, what: str = "lake"):
        self.path = Path(root) / LOCK
        self.what = what
        self.held = False
        self._fd: int | None = None

    def __enter__(self) -> LakeLock:
        import fcntl
        import socket

        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(100):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                holder = _read_holder(self.path)
                raise LakeError(
                    f"{self.path.parent}: another run ({holder}) is writing this {self.what}; "
                    f"wait for it to finish"
                ) from None
            # the file we locked is still the one at the path (not unlinked by a releasing holder)
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n{socket.gethostname()}\n{time.time():.0f}\n".encode())
            except OSError as exc:  # a full disk: one line naming the lock file
                from simkit.core.atomic import describe_os_error

                self.path.unlink(missing_ok=True)
                os.close(fd)
                raise LakeError(f"cannot write {describe_os_error(exc, self.path)}") from None
            self._fd = fd
            self.held = True
            return self
        raise LakeError(f"{self.path}: cannot take the lake's lock")

    def __exit__(self, *exc) -> None:
        if self.held and self._fd is not None:
            try:
                self.path.unlink(
                    missing_ok=True
                )  # while still locked: a waiter re-checks the inode
            finally:
                os.close(self._fd)
                self._fd = None
                self.held = False


def _read_holder(path: Path) -> str:
    try:
        parts = path.read_text().split()
    except (OSError, UnicodeDecodeError):
        parts = []
    if len(parts) >= 2:
        return f"pid {parts[0]} on {parts[1]}"
    return f"pid {parts[0]}" if parts else "pid unknown"


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

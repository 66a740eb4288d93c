"""The lake's names, paths and file writing: one Parquet file per (table, cell, chunk),
written under a hidden temporary name and renamed when complete (simkit.lake).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterable, Mapping
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

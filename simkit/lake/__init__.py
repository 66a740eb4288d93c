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

Modules: files (names, paths, writing), manifest (manifest.json, the lock), index (reading
and checking, coverage, leftovers of interrupted writes); every name is re-exported here,
and ``simkit.lake.X`` is the import path the rest of simkit uses.
"""

from __future__ import annotations

import pyarrow.parquet as pq  # noqa: F401  (tests patch lake.pq.ParquetWriter)

from simkit.lake.files import (  # noqa: F401
    CHUNK_RE,
    COMPRESSION,
    COMPRESSION_LEVEL,
    KEY_COLUMNS,
    LAKE_FORMAT,
    LOCK,
    MANIFEST,
    MANIFEST_TEMP_RE,
    META_KEY,
    ROW_GROUP,
    TEMP_RE,
    LakeError,
    _segment,
    build_table,
    chunk_name,
    chunk_relpath,
    constant_column,
    parse_partition,
    partition_dir,
    value_text,
    write_chunk,
    write_parquet,
)
from simkit.lake.index import (  # noqa: F401
    ChunkFile,
    Coverage,
    LakeIndex,
    Problem,
    _check_complete,
    _check_file,
    _planned_chunks,
    _row_keys_problem,
    _writer_alive,
    coverage,
    redo_problems,
    remove_temporaries,
    scan,
    settle_temporaries,
    unified_schema,
)
from simkit.lake.manifest import (  # noqa: F401
    CELL_SCHEMA,
    CHUNK_KEY_RE,
    CHUNK_SCHEMA,
    EXPERIMENT_SCHEMA,
    STATUSES,
    LakeLock,
    Manifest,
    _check_fields,
    _json_default,
    _read_holder,
    _type_name,
    validate_manifest,
)

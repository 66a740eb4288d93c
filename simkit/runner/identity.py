"""A cell's identity: the hash of everything that makes its results (mode, parameters,
data overrides, data and engine versions, the content of every strategy file it names),
so a changed input is a new cell, never pooled with the old rows (simkit.runner.spec).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from strategies.overrides import split_spec

CELL_ID_HEX = 20


def cell_identity(
    mode: str,
    params: dict[str, Any],
    overrides: dict[str, Any],
    data_hash: str,
    root_seed: int,
    chunk_size: int,
    engine_version: int,
    extra: dict[str, Any] | None = None,
) -> str:
    """A cell's id: the hash of everything that decides its rows.

    ``data_hash`` is the content hash of the data pack with the cell's overrides (every
    ``--set``, reading and world draw is one); ``params`` name strategy files by content
    (:func:`identity_params`); ``extra`` holds any further input as a JSON-able mapping.
    An empty ``extra`` leaves the id as it was before it existed."""
    ident = {
        "mode": mode,
        "params": params,
        "overrides": overrides,
        "data_hash": data_hash,
        "root_seed": root_seed,
        "chunk_size": chunk_size,
        "engine_version": engine_version,
    }
    if extra:
        ident["extra"] = extra
    # 80 bits: no two cells of any grid the limits allow share an id (40 bits collided
    # in a 2,000,000-cell grid)
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:CELL_ID_HEX]


def strategy_file_refs(value: Any) -> list[str]:
    """The strategy files a parameter value names: ``file:PATH`` tokens, and a search
    player's rollout policy or opponent models when they are paths
    (``search:policy=PATH.toml``, ``opponents=``, ``oop_model=``)."""
    refs: list[str] = []
    map_strategy_file_refs(value, lambda ref: refs.append(ref) or ref)
    return refs


def map_strategy_file_refs(value: Any, change) -> Any:
    """``value`` with every strategy file it names replaced by ``change(path)`` (the same
    tokens as :func:`strategy_file_refs`); other values come back as they are."""
    if not isinstance(value, str):
        return value
    tokens = []
    for token in value.split(","):
        token = token.strip()
        if token.startswith("file:"):
            tokens.append("file:" + change(token[5:].strip()))
            continue
        if token.startswith("learned:"):  # a learned player's weights file
            tokens.append("learned:" + change(token[8:].strip()))
            continue
        head, *parts = split_spec(token)
        for i, part in enumerate(parts):
            key, eq, val = part.partition("=")
            named = key.strip() in ("policy", "opponents", "oop_model")  # search players' policies
            val = val.strip()
            if eq and named and val.startswith("learned:"):
                parts[i] = f"{key}=learned:{change(val[8:].strip())}"
            elif eq and named and (val.endswith(".toml") or "/" in val):
                parts[i] = f"{key}={change(val)}"
        tokens.append(":".join([head, *parts]))
    return ",".join(tokens) if tokens != [t.strip() for t in value.split(",")] else value


def resolve_strategy_files(value: Any, base_dir: Path | None) -> Any:
    """Strategy file paths in a spec resolve against the spec's folder, as its ``data``
    does: the same spec names the same files from any current folder."""
    if base_dir is None:
        return value
    return map_strategy_file_refs(
        value, lambda ref: ref if Path(ref).is_absolute() else str(base_dir / ref)
    )


def identity_params(params: dict[str, Any], digests: dict[str, str]) -> dict[str, Any]:
    """The parameters as a cell id hashes them: a strategy file by its content's sha256,
    never its path (the same file under another name, or from another clone, is the same
    cell; an edited file is a new one)."""
    return {
        k: map_strategy_file_refs(v, lambda ref: f"sha256:{digests[ref]}")
        for k, v in params.items()
    }


def input_files(params: dict[str, Any]) -> dict[str, str]:
    """path -> sha256 of the content of every strategy file the cell's parameters name."""
    from strategies.files import strategy_digest

    return {
        ref: strategy_digest(ref) for value in params.values() for ref in strategy_file_refs(value)
    }

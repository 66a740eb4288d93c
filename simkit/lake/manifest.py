"""manifest.json (what the lake holds, validated on load) and the lake's lock
(simkit.lake).
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.lake.files import LAKE_FORMAT, LOCK, MANIFEST, LakeError

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

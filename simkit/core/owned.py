"""Never overwrite what simkit did not write: an ownership record per output folder.

The mechanism `simkit demo` uses for its folder (``.simkit-demo.json``), for every command
that writes a named file (``report --out``, ``odds --out``, ``board show --out``): each
folder holds ``.simkit-owned.json``, mapping the name of each file simkit wrote there to
the sha256 of what it wrote. A file that exists is replaced only if the record names it
with its current content (simkit wrote it and nobody changed it since), or with
``--force``. Outputs inside a result lake (its table folders, or names a lake reserves at
its top) are refused: a stray file there makes the lake unreadable.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from simkit.core.atomic import OutputError, atomic_write_bytes

OWNED = ".simkit-owned.json"
LAKE_MANIFEST = "manifest.json"
LAKE_RESERVED = (LAKE_MANIFEST, ".lock")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_record(folder: Path, name: str = OWNED) -> dict:
    """The ownership record of ``folder`` ({} when there is none or it is unreadable)."""
    try:
        obj = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj if isinstance(obj, dict) else {}


def owned_files(folder: Path) -> dict[str, str]:
    files = read_record(folder).get("files", {})
    return files if isinstance(files, dict) else {}


def lake_around(path: Path) -> Path | None:
    """The result lake ``path`` would be written into (None: not inside one)."""
    path = Path(os.path.abspath(path))
    for parent in path.parents:
        if (parent / LAKE_MANIFEST).is_file():
            if parent != path.parent or path.suffix == ".parquet" or path.name in LAKE_RESERVED:
                return parent
            return None  # beside the manifest: e.g. LAKE/report.html, which readers ignore
    return None


def check_folder_outside_lakes(path: Path, flag: str = "--out") -> None:
    """Refuse an output folder inside a result lake (below the folder of its manifest): the
    lake's readers would find its files and refuse the lake. The lake itself is fine."""
    path = Path(os.path.abspath(path))
    for parent in path.parents:
        if (parent / LAKE_MANIFEST).is_file():
            raise OutputError(
                f"{flag} {path}: inside the result lake {parent} (its files would make the "
                "lake unreadable); choose a folder outside it"
            )


def check_replace(path: Path, force: bool = False, flag: str = "--out") -> None:
    """Refuse (one line) to write ``path`` inside a lake, or over a file simkit did not write
    there (or that changed since), unless ``force``."""
    path = Path(path)
    lake = lake_around(path)
    if lake is not None:
        raise OutputError(
            f"{flag} {path}: inside the result lake {lake} (a file there makes the lake "
            f"unreadable); write it beside the lake instead, e.g. {lake / path.name}"
            if path.suffix != ".parquet" and path.name not in LAKE_RESERVED
            else f"{flag} {path}: inside the result lake {lake}; choose a path outside it"
        )
    if force or not os.path.lexists(path) or not path.is_file():
        return  # (a folder, device or FIFO is refused by simkit.core.atomic.check_target)
    if owned_files(path.parent).get(path.name) != sha256(path):
        raise OutputError(
            f"{flag} {path}: exists and was not written by simkit (or was changed since); "
            "refusing to replace it: choose another name, or --force to replace it"
        )


def remember(path: Path) -> None:
    """Record that simkit wrote ``path`` (its current content)."""
    path = Path(path)
    record = read_record(path.parent)
    files = record.get("files") if isinstance(record.get("files"), dict) else {}
    files[path.name] = sha256(path)
    record["files"] = files
    atomic_write_bytes(path.parent / OWNED, json.dumps(record, indent=1).encode())


def write_owned(path: Path, payload: bytes, force: bool = False, flag: str = "--out") -> None:
    """check_replace, write atomically, remember: the one way a command writes a named file."""
    check_replace(path, force, flag)
    atomic_write_bytes(path, payload, flag)
    remember(path)

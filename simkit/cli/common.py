"""Options and helpers shared by every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from simkit.core.atomic import atomic_write_bytes as _atomic_write_bytes
from simkit.datapack import AuzData, load_pack

DataOption = Annotated[
    Path | None, typer.Option("--data", help="Data pack folder (default: the shipped pack).")
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object instead of a table.")
]


def data_pack(path: Path | None) -> AuzData:
    return load_pack(path)


def print_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=None, default=float))


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write via a unique temporary file and rename (simkit.core.atomic): a failed run never
    leaves half a file or a temporary, and a target that is not a regular file is refused."""
    _atomic_write_bytes(path, payload)

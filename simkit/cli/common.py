"""Options and helpers shared by every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from simkit.datapack import AuzData, load_pack

DataOption = Annotated[Path | None, typer.Option("--data", help="Data pack folder (default: the shipped pack).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")]


def data_pack(path: Path | None) -> AuzData:
    return load_pack(path)


def print_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=None, default=float))


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write via a temporary file and rename, so a failed run never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(payload)
    tmp.replace(path)

"""Options and helpers shared by every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from simkit.core.atomic import atomic_write_bytes as _atomic_write_bytes
from simkit.datapack import AuzData, load_pack
from simkit.runner.oneshot import parse_sets, typed_value  # noqa: F401  (the CLI's names)

DataOption = Annotated[
    Path | None, typer.Option("--data", help="Data pack folder (default: the shipped pack).")
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object instead of a table.")
]


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="PATH=VALUE: change one data pack value for this run (repeatable), e.g. "
        "units.artillery.cost=4, mythos.dholes.amount=2, reading.servitor_placement=temple; "
        "`simkit data overrides` lists the paths.",
    ),
]
ReadingOption = Annotated[
    list[str] | None,
    typer.Option(
        "--reading",
        help="NAME=OPTION: a reading of an open rule text (repeatable; `simkit data readings`).",
    ),
]


def data_pack(path: Path | None, sets: list[str] | None = None) -> AuzData:
    """The pack in ``path`` with the ``--set`` overrides applied."""
    data = load_pack(path)
    overrides = parse_sets(sets)
    if overrides:
        from simkit.runner.overrides import apply_overrides

        data = apply_overrides(data, overrides)
    return data


def print_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=None, default=float))


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write via a unique temporary file and rename (simkit.core.atomic): a failed run never
    leaves half a file or a temporary, and a target that is not a regular file is refused."""
    _atomic_write_bytes(path, payload)

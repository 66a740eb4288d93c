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


def typed_value(text: str):
    """A --set VALUE as TOML would read it: true/false, a whole number, a number, else text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_sets(sets: list[str] | None, readings: list[str] | None = None) -> dict:
    """``--set PATH=VALUE`` and ``--reading NAME=OPTION`` as validated data overrides; a
    path given twice is refused. Every mistake is one line naming the path."""
    from simkit.errors import UserError
    from simkit.runner.overrides import check_override

    out: dict = {}
    for flag, items, prefix in (("--set", sets, ""), ("--reading", readings, "reading.")):
        for item in items or ():
            path, sep, value = item.partition("=")
            path = prefix + path.strip()
            if not sep or path == prefix:
                raise UserError(
                    f"{flag} expects {'NAME=OPTION' if prefix else 'PATH=VALUE'}, got {item!r}"
                )
            if path in out:
                raise UserError(f"{flag}: '{path}' is given twice")
            try:
                out[path] = check_override(path, typed_value(value))
            except UserError as exc:
                raise UserError(f"{flag} {item}: {exc}") from None
    return out


def print_json(obj) -> None:
    typer.echo(json.dumps(obj, indent=None, default=float))


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Write via a unique temporary file and rename (simkit.core.atomic): a failed run never
    leaves half a file or a temporary, and a target that is not a regular file is refused."""
    _atomic_write_bytes(path, payload)

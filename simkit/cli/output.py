"""The one output contract of every command's ``--json``.

Each command prints exactly one JSON object: ``{"command": ..., "inputs": {...}, ...}``
where ``inputs`` echoes what the command was asked (as structure: a force is a mapping
of unit counts, ``--seen`` a list of card numbers, paths strings) and the other keys are
the result. Values are plain JSON: numpy scalars become numbers, tuples and sets lists,
NaN and infinities ``null`` (never the bare ``NaN`` that strict parsers reject), and a
result that is naturally a list sits under a key, never as the whole output.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import typer

EMITTED = False  # set once a command printed its object (simkit.cli.main: no second object)


def jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON values (recursively); NaN/inf -> None."""
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, np.generic):
        return jsonable(obj.item())
    if isinstance(obj, np.ndarray):
        return [jsonable(x) for x in obj.tolist()]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, dt.datetime | dt.date):
        return obj.isoformat()
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        items = sorted(obj, key=str) if isinstance(obj, set | frozenset) else obj
        return [jsonable(x) for x in items]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(dataclasses.asdict(obj))
    if hasattr(obj, "to_dicts"):  # a polars DataFrame: its rows
        return jsonable(obj.to_dicts())
    if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a pandas DataFrame: its rows
        return jsonable(obj.to_dict(orient="records"))
    try:  # pandas NA and friends
        if obj != obj:
            return None
    except (TypeError, ValueError):
        pass
    return str(obj)


def dumps(command: str, inputs: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    body = {"command": command, "inputs": jsonable(dict(inputs))}
    for key, value in jsonable(dict(result)).items():
        if key not in body:
            body[key] = value
    return json.dumps(body, allow_nan=False)


def emit(command: str, inputs: Mapping[str, Any], result: Mapping[str, Any]) -> None:
    """Print the one JSON object of ``command`` (its inputs echoed, then its result)."""
    global EMITTED
    typer.echo(dumps(command, inputs, result))
    EMITTED = True


def force_mapping(force: tuple[int, ...]) -> dict[str, int]:
    """A force (counts per stack) as {unit name: count} for the units present."""
    from simkit.names import STACKS

    return {STACKS[s]: int(n) for s, n in enumerate(force) if n}


def old_ones_list(old_ones: tuple[int, ...]) -> list[str]:
    from simkit.names import OLD_ONES

    return [OLD_ONES[t] for t in old_ones]

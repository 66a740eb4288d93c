"""The checks of an experiment spec's values, each failing with one UserError that names
the file, the table and the key (simkit.runner.spec runs them before any work starts).
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

from simkit.errors import UserError, control_char_message, first_control_char
from simkit.modes import Mode
from simkit.runner.overrides import check_override

MAX_CELLS = 20_000  # grid cells per spec (checked before any cell is built)


class _Where:
    def __init__(self, file: str):
        self.file = file

    def error(self, where: str, message: str) -> UserError:
        return UserError(f"{self.file}: {where}: {message}" if where else f"{self.file}: {message}")


def _refuse_control_chars(w: _Where, value: Any, where: str) -> None:
    """A control character in any key or string of a spec (TOML lets ``\\u0000`` through):
    in a name, a strategy or a value alike it is refused where it stands."""
    if isinstance(value, dict):
        for key, item in value.items():
            at = f"{where}.{key}" if where else str(key)
            bad = first_control_char(str(key))
            if bad is not None:
                raise w.error(f"key {at!r}", control_char_message(bad[1]))
            _refuse_control_chars(w, item, at)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _refuse_control_chars(w, item, f"{where}[{i}]")
    elif isinstance(value, str):
        bad = first_control_char(value)
        if bad is not None:
            table, _, key = where.rpartition(".")
            at = f"[{table}] {key}" if table and "." not in table else where
            raise w.error(at, f"{control_char_message(bad[1])}; use a plain name or value")


def _string(w: _Where, table: dict, key: str, default: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise w.error(f"[experiment] {key}", f"must be a string, got {value!r}")
    return value


def _int(w: _Where, table: dict, key: str, default: int | None, lo: int, hi: int) -> int | None:
    value = table.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise w.error(f"[experiment] {key}", f"must be a whole number, got {value!r}")
    if value < lo or value > hi:
        what = "a positive whole number" if lo == 1 else f"a whole number in {lo}..{hi}"
        raise w.error(f"[experiment] {key}", f"must be {what}, got {value}")
    return value


def _grid_values(w: _Where, table: str, key: str, value: Any) -> list:
    where = f"[{table}] {key}"
    if isinstance(value, dict):
        return _generated(w, where, value)
    if not isinstance(value, list):
        raise w.error(where, f"must be a list of values (one per grid point), got {value!r}")
    if not value:
        raise w.error(where, "is an empty list: the grid would have no cells")
    if len({json.dumps(v, sort_keys=True) for v in value}) != len(value):
        raise w.error(where, "lists a value twice")
    return list(value)


def _generated(w: _Where, where: str, spec: dict) -> list:
    """{ round_robin = [...], seats = N, distinct = true }: every seat assignment, comma-joined."""
    allowed = {"round_robin", "seats", "distinct"}
    for k in spec:
        if k not in allowed:
            raise w.error(
                where,
                f"unknown key '{k}' in a generated grid (expected: {', '.join(sorted(allowed))})",
            )
    pool = spec.get("round_robin")
    seats = spec.get("seats")
    if not isinstance(pool, list) or not pool or not all(isinstance(p, str) for p in pool):
        raise w.error(where, "round_robin must be a non-empty list of strategy names")
    if isinstance(seats, bool) or not isinstance(seats, int) or seats < 1:
        raise w.error(where, f"seats must be a positive whole number, got {seats!r}")
    distinct = spec.get("distinct", True)
    if not isinstance(distinct, bool):
        raise w.error(where, f"distinct must be true or false, got {distinct!r}")
    if distinct and seats > len(pool):
        raise w.error(
            where, f"{seats} seats need at least {seats} distinct strategies, got {len(pool)}"
        )
    n = math.perm(len(pool), seats) if distinct else len(pool) ** seats
    if n > MAX_CELLS:
        raise w.error(
            where,
            f"{len(pool)} strategies over {seats} seats make {n:,} grid values, more than "
            f"{MAX_CELLS:,} cells; use fewer seats or strategies",
        )
    combos = (
        itertools.permutations(pool, seats) if distinct else itertools.product(pool, repeat=seats)
    )
    return [",".join(c) for c in combos]


def _check_keys(
    w: _Where, mode: Mode, params: dict, grid: dict, overrides: dict, override_grid: dict
) -> None:
    grid = {k: v for k, v in grid.items() if k != "world_point"}  # [worlds], checked there
    for table, keys in (("params", params), ("grid", grid)):
        for key in keys:
            if key not in mode.params:
                raise w.error(
                    f"[{table}] {key}",
                    f"mode '{mode.name}': unknown parameter '{key}' "
                    f"(expected: {', '.join(sorted(mode.params))})",
                )
    for key in set(params) & set(grid):
        raise w.error(f"[grid] {key}", "is also set in [params]: give it in one table")
    for key in set(overrides) & set(override_grid):
        raise w.error(f"[override_grid] {key}", "is also set in [overrides]: give it in one table")
    # each value alone, so the message names the table, key and position
    for key, value in params.items():
        try:
            mode.params[key].check(mode.name, key, value)
        except UserError as exc:
            raise w.error(f"[params] {key}", str(exc)) from None
    for key, values in grid.items():
        for i, value in enumerate(values):
            try:
                mode.params[key].check(mode.name, key, value)
            except UserError as exc:
                raise w.error(f"[grid] {key}[{i}]", str(exc)) from None
    for table, items in (
        ("overrides", {k: [v] for k, v in overrides.items()}),
        ("override_grid", override_grid),
    ):
        for key, values in items.items():
            for value in values:
                try:
                    check_override(key, value)
                except UserError as exc:
                    raise w.error(f"[{table}] {key}", str(exc)) from None

"""Experiment specs: a TOML file -> a validated plan of cells (see experiments/README.md).

Everything is checked here, before any work starts: unknown tables and keys, the mode
name, every parameter value of every cell (strategy/policy names through the mode's
``Param`` checks), data overrides, sizes. A mistake raises UserError naming the file,
the table and the key.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import simkit
from simkit.errors import UserError, control_char_message, first_control_char
from simkit.modes import Mode, get_mode
from simkit.runner.identity import (  # noqa: F401  (re-exported: simkit.runner.spec.X)
    CELL_ID_HEX,
    cell_identity,
    identity_params,
    input_files,
    map_strategy_file_refs,
    resolve_strategy_files,
    strategy_file_refs,
)
from simkit.runner.overrides import apply_overrides, check_override, override_hash
from simkit.runner.spec_checks import (  # noqa: F401  (re-exported: simkit.runner.spec.X)
    MAX_CELLS,
    _check_keys,
    _generated,
    _grid_values,
    _int,
    _refuse_control_chars,
    _string,
    _Where,
)
from simkit.runner.worlds import MAX_WORLDS, check_sources, world_overrides

TABLES = ("experiment", "params", "grid", "overrides", "override_grid", "readings", "worlds")
WORLD_KEYS = ("count", "sources", "per_source")
EXPERIMENT_KEYS = {
    "name": "experiment name (default: the file name)",
    "description": "free text",
    "mode": "simulation mode (simkit.modes)",
    "root_seed": "root of every chunk's SeedSequence",
    "chunk_size": "games per chunk (default: the mode's)",
    "games": "games per cell",
    "target_ci": "95% half-width of the key metric at which a cell stops",
    "min_games": "games per cell before the first precision check (target_ci)",
    "max_games": "games per cell at most (target_ci)",
    "outputs": 'tables to write, e.g. ["summary", "moves"]',
    "data": "data pack folder (relative to the spec; default: the shipped pack)",
    "partition_by": "columns that name the lake's folders (default: the grid keys)",
    "design": 'how [override_grid] makes cells: "grid" (every combination, default) or '
    '"one_at_a_time" (the pack\'s own values, then each listed value alone)',
}
DESIGNS = ("grid", "one_at_a_time")
MAX_PARTITION_KEYS = 3
MAX_SEED = 2**63 - 1
DEFAULT_MAX_GAMES = 10_000_000
MAX_CHUNK_SIZE = 5_000_000  # games per chunk: one chunk's tables are held in a worker's memory
MAX_CHUNKS = 1_000_000  # chunks per experiment (cells x chunks per cell, at most)


@dataclass(frozen=True)
class Cell:
    """One point of the grid: a full, validated parameter set plus data overrides."""

    index: int
    params: dict[str, Any]
    overrides: dict[str, Any]
    cell_id: str  # content hash: same cell, same chunks, same rows
    data_hash: str  # effective data (pack hash with the overrides)
    partition: tuple[tuple[str, Any], ...]
    inputs: dict[str, str] = field(default_factory=dict)  # strategy file -> content sha256

    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.partition) or self.cell_id


@dataclass(frozen=True)
class Spec:
    path: str
    name: str
    description: str
    mode: str
    root_seed: int
    chunk_size: int
    games: int | None
    target_ci: float | None
    min_games: int
    max_games: int
    outputs: tuple[str, ...]
    data_path: str | None
    partition_by: tuple[str, ...]
    params: dict[str, Any]
    grid: dict[str, list]
    overrides: dict[str, Any]
    override_grid: dict[str, list]
    text: str
    engine_version: int
    data_hash: str
    design: str = "grid"
    world_sources: tuple[str, ...] = ()  # [worlds] sources (the grid's "world" is the count)
    # `experiment run --games N`: the spec's own sizing ({"games": ..., "target_ci": ...});
    # N then enters every cell's id (its own cells and experiment, never pooled with the
    # spec's full run)
    resized_from: dict[str, Any] | None = None
    cells: tuple[Cell, ...] = field(default=())
    experiment_id: str = ""
    data: Any = field(default=None, repr=False, compare=False)  # the loaded pack (before overrides)

    def identity(self) -> dict[str, Any]:
        """What decides the rows (sizes, outputs and wording do not): hashed into the id."""
        return {
            "name": self.name,
            "mode": self.mode,
            "root_seed": self.root_seed,
            "chunk_size": self.chunk_size,
            "engine_version": self.engine_version,
            "data_hash": self.data_hash,
            "partition_by": list(self.partition_by),
            "cells": [c.cell_id for c in self.cells],
        }

    def with_target(self, target_ci: float | None) -> Spec:
        """The same experiment sized by a precision target instead (``--target-ci``)."""
        if target_ci is None:
            return self
        if not 0 < target_ci < 0.5:
            raise UserError(f"--target-ci must be between 0 and 0.5, got {target_ci}")
        from dataclasses import replace

        return replace(self, target_ci=float(target_ci), games=None)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "description": self.description,
            "mode": self.mode,
            "root_seed": self.root_seed,
            "chunk_size": self.chunk_size,
            "games": self.games,
            "target_ci": self.target_ci,
            "min_games": self.min_games,
            "max_games": self.max_games,
            "outputs": list(self.outputs),
            "data": self.data_path,
            "partition_by": list(self.partition_by),
            "params": self.params,
            "grid": self.grid,
            "overrides": self.overrides,
            "override_grid": self.override_grid,
            "design": self.design,
            "world_sources": list(self.world_sources),
            **({"resized_from": self.resized_from} if self.resized_from else {}),
        }


def load_spec(
    path: str | Path, sets: dict[str, Any] | None = None, games: int | None = None
) -> Spec:
    """The spec in ``path``; ``sets`` (``--set``/``--reading`` overrides) join its
    [overrides] for every cell (a key its [override_grid] varies is refused). ``games``
    (``experiment run --games N``) plays N games per cell instead of the spec's sizing; N
    then enters every cell's id, so the resized run is an experiment of its own (its lake
    is refused as the full run's, and a full run refuses its lake without --force)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such experiment spec")
    try:
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid TOML: {exc}") from None
    if sets:
        if not isinstance(raw.get("overrides", {}), dict):
            raise UserError(f"{path}: 'overrides' must be a table [overrides]")
        grid = raw.get("override_grid", {})
        for key in sets:
            if isinstance(grid, dict) and key in grid:
                raise UserError(f"--set {key}: the spec's [override_grid] varies it")
            name = key.removeprefix("reading.")
            if key.startswith("reading.") and name in raw.get("readings", {}):
                raise UserError(f"--reading {name}: the spec's [readings] sets it")
        raw["overrides"] = {**raw.get("overrides", {}), **sets}
        text += "\n# simkit experiment run --set\n" + "".join(
            f"# {k} = {v!r}\n" for k, v in sets.items()
        )
    resized = None
    if games is not None:
        if isinstance(games, bool) or not isinstance(games, int) or games < 1:
            raise UserError(f"--games must be a positive whole number, got {games!r}")
        exp = raw.get("experiment")
        if isinstance(exp, dict) and not (exp.get("games") == games and "target_ci" not in exp):
            resized = {"games": exp.get("games"), "target_ci": exp.get("target_ci")}
            raw["experiment"] = {
                k: v for k, v in exp.items() if k not in ("target_ci", "min_games", "max_games")
            }
            raw["experiment"]["games"] = games
            text += f"\n# simkit experiment run --games {games}\n"
    return parse_spec(
        raw,
        str(path),
        text=text,
        base_dir=path.parent,
        default_name=path.stem,
        resized_from=resized,
    )


def parse_spec(
    raw: dict[str, Any],
    file: str = "<spec>",
    text: str = "",
    base_dir: Path | None = None,
    default_name: str = "experiment",
    resized_from: dict[str, Any] | None = None,
) -> Spec:
    w = _Where(file)
    _refuse_control_chars(w, raw, "")
    for table in raw:
        if table not in TABLES:
            raise w.error("", f"unknown table [{table}] (expected: {', '.join(TABLES)})")
        if not isinstance(raw[table], dict):
            raise w.error("", f"'{table}' must be a table [{table}]")
    exp = raw.get("experiment")
    if exp is None:
        raise w.error("", "missing table [experiment]")
    for key in exp:
        if key not in EXPERIMENT_KEYS:
            raise w.error(
                "[experiment]", f"unknown key '{key}' (expected: {', '.join(EXPERIMENT_KEYS)})"
            )
    if "mode" not in exp:
        raise w.error("[experiment]", "missing key 'mode'")
    if not isinstance(exp["mode"], str):
        raise w.error("[experiment] mode", f"must be a string, got {exp['mode']!r}")
    try:
        mode = get_mode(exp["mode"])
    except UserError as exc:
        raise w.error("[experiment] mode", str(exc)) from None

    name = _string(w, exp, "name", default_name)
    bad = first_control_char(name)
    if bad is not None:
        raise w.error("[experiment] name", f"{control_char_message(bad[1])}; use a plain name")
    if not name or any(ch in name for ch in "/\\") or name.startswith("."):
        raise w.error("[experiment] name", f"must be a plain name (no slashes), got {name!r}")
    root_seed = _int(w, exp, "root_seed", None, 0, MAX_SEED)
    if root_seed is None:
        raise w.error("[experiment]", "missing key 'root_seed' (seeds are data: give one)")
    default_chunk = mode.extra.get("default_chunk_size", mode.extra.get("chunk_size", 1000))
    chunk_size = _int(w, exp, "chunk_size", int(default_chunk), 1, MAX_CHUNK_SIZE)
    games = _int(w, exp, "games", None, 1, 10**13)
    target = exp.get("target_ci")
    if target is not None and (
        isinstance(target, bool) or not isinstance(target, int | float) or not 0 < target < 0.5
    ):
        raise w.error(
            "[experiment] target_ci", f"must be a number between 0 and 0.5, got {target!r}"
        )
    if games is None and target is None:
        raise w.error("[experiment]", "give 'games' (per cell) or 'target_ci'")
    if games is not None and target is not None:
        raise w.error("[experiment]", "give 'games' or 'target_ci', not both")
    min_games = _int(w, exp, "min_games", chunk_size, 1, 10**13)
    max_games = _int(w, exp, "max_games", DEFAULT_MAX_GAMES, 1, 10**13)
    if max_games < min_games:
        raise w.error(
            "[experiment] max_games", f"must be >= min_games ({min_games}), got {max_games}"
        )
    outputs = _outputs(w, exp, mode)

    data_path = exp.get("data")
    if data_path is not None and not isinstance(data_path, str):
        raise w.error("[experiment] data", f"must be a folder name, got {data_path!r}")
    data = _load_data(w, mode, data_path, base_dir)

    params = {k: resolve_strategy_files(v, base_dir) for k, v in raw.get("params", {}).items()}
    grid = {
        k: [resolve_strategy_files(x, base_dir) for x in _grid_values(w, "grid", k, v)]
        for k, v in raw.get("grid", {}).items()
    }
    overrides = dict(raw.get("overrides", {}))
    override_grid = {
        k: _grid_values(w, "override_grid", k, v) for k, v in raw.get("override_grid", {}).items()
    }
    for name, option in raw.get("readings", {}).items():
        key = f"reading.{name}"
        if key in overrides or key in override_grid:
            raise w.error(f"[readings] {name}", f"is also set as '{key}': give it in one table")
        overrides[key] = option
    world_sources: tuple[str, ...] = ()
    if "worlds" in raw:
        world_sources = _worlds(w, raw["worlds"], params, grid)
    design = exp.get("design", "grid")
    if design not in DESIGNS:
        raise w.error("[experiment] design", f"must be one of {', '.join(DESIGNS)}, got {design!r}")
    n_cells = math.prod(len(v) for v in grid.values()) * (
        1 + sum(len(v) for v in override_grid.values())
        if design == "one_at_a_time"
        else math.prod(len(v) for v in override_grid.values())
    )
    if n_cells > MAX_CELLS:
        raise w.error(
            "[grid]/[override_grid]",
            f"{n_cells:,} cells, more than the {MAX_CELLS:,} cells a spec "
            f"may have; split the grid over several specs",
        )
    per_cell = math.ceil((games if games is not None else max_games) / chunk_size)
    if n_cells * per_cell > MAX_CHUNKS:
        raise w.error(
            "[experiment] games",
            f"{n_cells:,} cells x {per_cell:,} chunks = {n_cells * per_cell:,} "
            f"chunks, more than {MAX_CHUNKS:,}; use fewer games or a larger chunk_size",
        )
    _check_keys(w, mode, params, grid, overrides, override_grid)
    if design == "one_at_a_time" and (data is None or not override_grid):
        raise w.error(
            "[experiment] design",
            "one_at_a_time needs an [override_grid] and a mode that loads the AuZtralia data pack",
        )

    varying = [k for k, v in grid.items() if len(v) > 1 and k != "world_point"] + [
        k for k, v in override_grid.items() if len(v) > 1
    ]
    hint = [k for k in mode.extra.get("partition_hint", ()) if k in varying]
    default_parts = tuple((hint + [k for k in varying if k not in hint])[:MAX_PARTITION_KEYS])
    partition_by = exp.get("partition_by", list(default_parts))
    if not isinstance(partition_by, list) or not all(isinstance(k, str) for k in partition_by):
        raise w.error(
            "[experiment] partition_by", f"must be a list of column names, got {partition_by!r}"
        )
    known = set(params) | set(grid) | set(overrides) | set(override_grid) | set(mode.params)
    for k in partition_by:
        if k not in known:
            raise w.error(
                "[experiment] partition_by",
                f"unknown column '{k}' (expected one of: {', '.join(sorted(known))})",
            )

    spec = Spec(
        path=file,
        name=name,
        description=_string(w, exp, "description", ""),
        mode=mode.name,
        root_seed=root_seed,
        chunk_size=chunk_size,
        games=games,
        target_ci=float(target) if target is not None else None,
        min_games=min_games,
        max_games=max_games,
        outputs=outputs,
        data_path=data_path,
        partition_by=tuple(partition_by),
        params=params,
        grid=grid,
        overrides=overrides,
        override_grid=override_grid,
        text=text,
        engine_version=int(simkit.ENGINE_VERSION),
        data_hash=getattr(data, "hash", "none"),
        design=design,
        world_sources=world_sources,
        resized_from=resized_from,
        data=data,
    )
    cells = _cells(w, spec, mode, data)
    spec = _replace(spec, cells=cells)
    digest = hashlib.sha256(json.dumps(spec.identity(), sort_keys=True).encode()).hexdigest()
    return _replace(spec, experiment_id=f"{name}-{digest[:8]}")


def _worlds(w: _Where, table: dict, params: dict, grid: dict) -> tuple[str, ...]:
    """[worlds] count = N, sources = [...]: the grid gains world = 0..N-1."""
    for key in table:
        if key not in WORLD_KEYS:
            raise w.error("[worlds]", f"unknown key '{key}' (expected: {', '.join(WORLD_KEYS)})")
    count = table.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_WORLDS:
        raise w.error("[worlds] count", f"must be a whole number 1..{MAX_WORLDS}, got {count!r}")
    sources = table.get("sources")
    if not isinstance(sources, list):
        raise w.error("[worlds] sources", f"must be a list of source names, got {sources!r}")
    try:
        sources = check_sources(sources)
    except UserError as exc:
        raise w.error("[worlds] sources", str(exc)) from None
    for key in ("world", "world_source", "unknown"):
        if key in params or key in grid:
            raise w.error(
                "[worlds]", f"sets '{key}' for every cell: do not give it in [params] or [grid]"
            )
    per_source = table.get("per_source", 0)
    if (
        isinstance(per_source, bool)
        or not isinstance(per_source, int)
        or not 0 <= per_source <= count
    ):
        raise w.error(
            "[worlds] per_source", f"must be a whole number 0..count ({count}), got {per_source!r}"
        )
    # the joint worlds (every source varies) and, with per_source = K, K worlds per source in
    # which that source alone varies (how much of the band each source explains)
    points = [("all", k) for k in range(count)]
    points += [(s, k) for s in sources for k in range(per_source)] if len(sources) > 1 else []
    grid["world_point"] = points  # expanded into world_source and world by _points
    return sources


def _replace(spec: Spec, **kw) -> Spec:
    from dataclasses import replace

    return replace(spec, **kw)


def _outputs(w: _Where, exp: dict, mode: Mode) -> tuple[str, ...]:
    outputs = exp.get("outputs", ["summary"])
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        raise w.error("[experiment] outputs", f"must be a list of table names, got {outputs!r}")
    for out in outputs:
        if out not in mode.outputs:
            raise w.error(
                "[experiment] outputs",
                f"mode '{mode.name}' cannot write '{out}' "
                f"(available: {', '.join(sorted(mode.outputs))})",
            )
    return tuple(["summary"] + sorted(set(outputs) - {"summary"}))


def _load_data(w: _Where, mode: Mode, data_path: str | None, base_dir: Path | None):
    if mode.extra.get("data", "auztralia") != "auztralia":
        return None
    from simkit.datapack import load_pack

    folder = None
    if data_path is not None:
        folder = Path(data_path)
        if not folder.is_absolute() and base_dir is not None:
            folder = base_dir / folder
    try:
        return load_pack(folder)
    except UserError as exc:
        raise w.error("[experiment] data", str(exc)) from None


def _points(spec: Spec, data) -> list[dict[str, Any]]:
    """The grid points: every combination of [grid], times every combination of
    [override_grid] (design "grid") or, for design "one_at_a_time", the pack's own values of
    the override keys and then each listed value alone (every cell sets every key, so the
    lake has one column per key and the baseline cell is the one at the pack's values)."""
    grid = [
        dict(zip(spec.grid, combo, strict=True)) for combo in itertools.product(*spec.grid.values())
    ]
    for g in grid:  # [worlds]: one grid value names (world_source, world)
        if "world_point" in g:
            g["world_source"], g["world"] = g.pop("world_point")
    if spec.design == "one_at_a_time":
        from simkit.runner.overrides import pack_value

        base = {k: check_override(k, pack_value(data, k)) for k in spec.override_grid}
        over = [dict(base)]
        for key, values in spec.override_grid.items():
            over += [
                {**base, key: check_override(key, v)}
                for v in values
                if check_override(key, v) != base[key]
            ]
    else:
        over = [
            dict(zip(spec.override_grid, combo, strict=True))
            for combo in itertools.product(*spec.override_grid.values())
        ]
    return [{**g, **o} for g in grid for o in over]


def _cells(w: _Where, spec: Spec, mode: Mode, data) -> tuple[Cell, ...]:
    cells = []
    seen: dict[str, int] = {}
    for index, point in enumerate(_points(spec, data)):
        given = {**spec.params, **{k: point[k] for k in point if k not in spec.override_grid}}
        overrides = {**spec.overrides, **{k: point[k] for k in spec.override_grid}}
        if spec.world_sources:  # the world's draws; a value the spec sets itself wins
            ws = given["world_source"]
            varied = spec.world_sources if ws == "all" else (ws,)
            drawn = world_overrides(data, given["world"], varied)
            overrides = {**drawn, **overrides}
            given["unknown"] = "prior" if "unknown_mythos" in varied else "blank"
        overrides = {k: check_override(k, v) for k, v in sorted(overrides.items())}
        where = (
            "cell {" + ", ".join(f"{k}={v!r}" for k, v in point.items()) + "}"
            if point
            else "[params]"
        )
        try:
            params = mode.validate(given)
            cell_data = apply_overrides(data, overrides) if data is not None else None
            check = mode.extra.get("check")
            if check is not None:
                check(params, cell_data)
        except UserError as exc:
            raise w.error(where, str(exc)) from None
        data_hash = override_hash(spec.data_hash, overrides)
        try:
            inputs = input_files(params)
        except UserError as exc:
            raise w.error(where, str(exc)) from None
        cell_id = cell_identity(
            spec.mode,
            identity_params(params, inputs),
            overrides,
            data_hash,
            spec.root_seed,
            spec.chunk_size,
            spec.engine_version,
            extra={"games": spec.games} if spec.resized_from else None,
        )
        if cell_id in seen:
            raise w.error(
                where, f"is the same cell as cell {seen[cell_id]} (after defaults are filled in)"
            )
        seen[cell_id] = index
        partition = tuple(
            (k, params[k] if k in params else overrides[k]) for k in spec.partition_by
        )
        cells.append(
            Cell(
                index=index,
                params=params,
                overrides=overrides,
                cell_id=cell_id,
                data_hash=data_hash,
                partition=partition,
                inputs=inputs,
            )
        )
    return tuple(cells)

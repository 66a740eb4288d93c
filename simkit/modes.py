"""Simulation modes: the contract between the experiment runner and the engines.

A mode turns (parameters, data pack, chunk seed) into a table of result rows. The
runner (simkit.runner) knows nothing about any game: it validates an experiment's
parameters against ``Mode.params``, gives each chunk its own seed, and writes the
columns ``run_chunk`` returns. Engines register their modes here.

Seeds: game ``g`` of chunk ``c`` under root seed ``r`` is played with
its address (r, c, g) (simkit.game.streams), so any game can be replayed alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit.errors import UserError


@dataclass(frozen=True)
class Param:
    """One parameter of a mode: its type, allowed values or range, and default."""

    kind: type  # int, float, str or bool
    default: Any = None
    choices: Sequence[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""

    def check(self, mode: str, key: str, value: Any) -> Any:
        ok = isinstance(value, self.kind) and not (self.kind is int and isinstance(value, bool))
        if self.kind is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise UserError(
                f"mode '{mode}': parameter '{key}' must be {self.kind.__name__}, got {value!r}"
            )
        if self.choices is not None and value not in self.choices:
            raise UserError(
                f"mode '{mode}': parameter '{key}' must be one of "
                f"{', '.join(map(str, self.choices))}, got {value!r}"
            )
        if self.minimum is not None and value < self.minimum:
            raise UserError(
                f"mode '{mode}': parameter '{key}' must be >= {self.minimum}, got {value!r}"
            )
        if self.maximum is not None and value > self.maximum:
            raise UserError(
                f"mode '{mode}': parameter '{key}' must be <= {self.maximum}, got {value!r}"
            )
        return value


# run_chunk(params, data, root_seed, chunk_id, n_games, outputs) -> {table name: {column: array}}
# The "summary" table has one row per game and must contain "game_index" (0..n-1 within the chunk);
# other tables (e.g. "combats", "moves") are optional event rows, also carrying "game_index".
RunChunk = Callable[
    [Mapping[str, Any], Any, int, int, int, frozenset], dict[str, dict[str, np.ndarray]]
]


@dataclass(frozen=True)
class Mode:
    name: str
    params: Mapping[str, Param]
    run_chunk: RunChunk
    key_metric: str  # a 0/1 summary column whose rate --target-ci watches
    outputs: frozenset = frozenset({"summary"})  # tables the mode can produce
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def validate(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Fill defaults and check every value; unknown keys are errors naming the key."""
        out = {}
        for key in params:
            if key not in self.params:
                raise UserError(
                    f"mode '{self.name}': unknown parameter '{key}' "
                    f"(expected: {', '.join(sorted(self.params))})"
                )
        for key, spec in self.params.items():
            value = params.get(key, spec.default)
            if value is None:
                raise UserError(f"mode '{self.name}': parameter '{key}' is required")
            out[key] = spec.check(self.name, key, value)
        return out


_MODES: dict[str, Mode] = {}
_PROVIDERS = (
    "simkit.combat.mode",
    "simkit.game.modes",
    "simkit.revenge.modes",
)  # modules that register modes on import


def register(mode: Mode) -> Mode:
    _MODES[mode.name] = mode
    return mode


def get_mode(name: str) -> Mode:
    load_all()
    if name not in _MODES:
        raise UserError(f"unknown mode '{name}' (available: {', '.join(sorted(_MODES))})")
    return _MODES[name]


def available() -> list[str]:
    load_all()
    return sorted(_MODES)


PROVIDERS_ENV = (
    "SIMKIT_MODE_PROVIDERS"  # more modules that register modes, comma-separated (plugins, tests)
)


def load_all() -> None:
    import importlib
    import os

    extra = tuple(m.strip() for m in os.environ.get(PROVIDERS_ENV, "").split(",") if m.strip())
    for module in _PROVIDERS + extra:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if not (exc.name and module.startswith(exc.name)):  # a provider not built yet
                raise

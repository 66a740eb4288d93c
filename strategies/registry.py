"""Strategies by name: ``get("economist")``, ``parse("hunter,economist:army_min=3")``.

A spec is a registered name, optionally followed by ``:field=value`` overrides of the
strategy's frozen parameters (numbers, or ``+``-joined numbers for tuple fields).
"""

from __future__ import annotations

from dataclasses import fields, replace

from simkit.errors import UserError
from strategies.human import PLAYERS, HeuristicParams

REGISTRY: dict[str, type[HeuristicParams]] = {cls.name: cls for cls in PLAYERS}


def available() -> list[str]:
    return list(REGISTRY)


def get(name: str) -> HeuristicParams:
    key = name.strip().lower()
    if key not in REGISTRY:
        raise UserError(f"unknown strategy '{name}' (available: {', '.join(REGISTRY)})")
    return REGISTRY[key]()


def parse_one(spec: str) -> HeuristicParams:
    name, *overrides = spec.strip().split(":")
    strategy = get(name)
    known = {f.name: f for f in fields(strategy)}
    changes = {}
    for item in overrides:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or key not in known:
            raise UserError(f"strategy '{name}': unknown parameter '{item}' (expected one of: {', '.join(known)})")
        current = getattr(strategy, key)
        try:
            if isinstance(current, tuple):
                value = tuple(float(x) for x in text.split("+"))
            elif isinstance(current, str):
                value = text
            elif isinstance(current, int):
                value = int(text)
            else:
                value = float(text)
        except ValueError:
            raise UserError(f"strategy '{name}': parameter '{key}' got '{text}'") from None
        changes[key] = value
    out = replace(strategy, **changes) if changes else strategy
    out.lower()  # validates combat policies and vector lengths now, not mid-run
    return out


def parse(text: str) -> list[HeuristicParams]:
    """Comma-separated strategy specs (one per player, or one for all)."""
    parts = [t for t in text.split(",") if t.strip()]
    if not parts:
        raise UserError("--strategies names no strategy")
    return [parse_one(t) for t in parts]

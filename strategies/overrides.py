"""``name:field=value:...`` strategy specs: overrides of a frozen parameter set."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from simkit.errors import UserError


def with_overrides(strategy: Any, overrides: list[str], label: str) -> Any:
    """``strategy`` with each ``field=value`` applied (numbers, text, or ``+``-joined
    numbers for tuple fields); errors name ``label`` (e.g. "strategy 'hunter'")."""
    # field order, for the message; internal fields are filled in by the code, not typed
    known = [f.name for f in fields(strategy) if f.init and not f.metadata.get("internal")]
    changes = {}
    for item in overrides:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or key not in known:
            raise UserError(
                f"{label}: unknown parameter '{item}' (expected one of: {', '.join(known)})"
            )
        current = getattr(strategy, key)
        try:
            if isinstance(current, tuple):
                value = tuple(float(x) for x in text.split("+"))
            elif isinstance(current, str):
                value = text
            elif isinstance(current, float):
                value = float(text)
            else:
                value = int(text)
        except ValueError:
            raise UserError(f"{label}: parameter '{key}' got '{text}'") from None
        changes[key] = value
    return replace(strategy, **changes) if changes else strategy

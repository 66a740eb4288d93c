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


def split_spec(spec: str) -> list[str]:
    """``name:key=value:...`` split on ':' -- except the ':' of a ``file:`` or ``learned:``
    value (``search:policy=learned:gen2.toml:rollouts=4``)."""
    out: list[str] = []
    for token in spec.split(":"):
        if out and out[-1].rstrip().endswith(("=learned", "=file")):
            out[-1] += ":" + token
        else:
            out.append(token)
    return out

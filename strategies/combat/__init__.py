"""Combat policies: damage allocation and withdrawal, parsed from user text."""

from __future__ import annotations

from simkit.errors import UserError
from simkit.names import unit_id
from strategies.combat.allocation import Cheapest, OptimalAllocation, Protect, Spread
from strategies.combat.withdrawal import Never, OptimalTable, OptimalWithdrawal, Threshold

ALLOCATION_POLICIES = ("cheapest", "spread", "protect:UNIT[+UNIT]", "optimal")
WITHDRAW_POLICIES = (
    "never",
    "optimal",
    "value",
    "table",
    "table-value",
    "sanity:N",
    "units:N",
    "lost:N",
)


def parse_allocation(text: str):
    """'cheapest' | 'spread' | 'optimal' | 'protect:artillery+armoured_train'."""
    text = text.strip().lower()
    if text == "cheapest":
        return Cheapest()
    if text == "spread":
        return Spread()
    if text == "optimal":
        return OptimalAllocation()
    if text.startswith("protect:") and len(text) > 8:
        return Protect(tuple(sorted({unit_id(t) for t in text[8:].split("+")})))
    raise UserError(
        f"unknown --allocate policy '{text}' (expected one of: {', '.join(ALLOCATION_POLICIES)})"
    )


def parse_withdrawal(text: str, destroy_value: float | None = None):
    """'never' | 'optimal' | 'value' | 'table' | 'table-value' | thresholds such as
    'sanity:1,lost:2'.

    Thresholds may also be written 'sanity=1+lost=2' (inside a strategy spec).
    optimal/value count cards (exact solver only); table/table-value are the optimal
    withdraw table for a player who does not (any method, and the game engine)."""
    text = text.strip().lower()
    if text == "never":
        return Never()
    if text == "optimal":
        return OptimalWithdrawal("p_destroy", destroy_value)
    if text == "value":
        return OptimalWithdrawal("value", destroy_value)
    if text == "table":
        return OptimalTable("p_destroy", destroy_value)
    if text == "table-value":
        return OptimalTable("value", destroy_value)
    fields = {"sanity": -1, "units": -1, "lost": -1}
    # 'sanity=1+lost=2' is the same, spelled to fit inside a strategy spec (hunter:withdraw=...)
    for part in text.replace("+", ",").replace("=", ":").split(","):
        key, _, num = part.partition(":")
        key = key.strip()
        if key not in fields or not num.strip().isdigit():
            raise UserError(
                f"unknown --withdraw policy '{part}' "
                f"(expected one of: {', '.join(WITHDRAW_POLICIES)})"
            )
        fields[key] = int(num)
    return Threshold(fields["sanity"], fields["units"], fields["lost"])

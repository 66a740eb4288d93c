"""A fight from user text: :class:`Combat`, its force and Old Ones parsed, the policies
named, and the arrays the kernels play (:func:`combat_arrays`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.seen import parse_card_numbers, remaining_cards
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.low import combat_layout as C
from simkit.names import (
    AIRSHIP,
    NUM_STACKS,
    OLD_ONES,
    OUTPOST,
    PORT,
    STACKS,
    UNITS,
    old_one_id,
    personality_name,
    unit_id,
)
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.allocation import Cheapest
from strategies.combat.withdrawal import Never

MAX_UNITS = 99  # units per stack any method accepts (a typo guard: the box holds a few dozen)


@dataclass(frozen=True)
class Combat:
    """One fight: a force (units per stack) against the Old Ones in one hex."""

    force: tuple[int, ...]  # count per stack, simkit.names.STACKS order
    old_ones: tuple[int, ...]  # Old One type ids, one per tile
    old_one_damage: tuple[int, ...] = ()  # damage already on each tile
    old_one_capacity: tuple[int, ...] = ()  # override the data pack's capacity per tile
    port_defence: bool = False  # everything fights, no withdrawal
    port_strength: int = 0  # Revenge port token in the fight (0: none)
    personalities: tuple[str, ...] = ()
    extra_sanity: int = 0

    @classmethod
    def parse(cls, force: str, vs: str | list[str], old_one_damage: int = 0, **kw) -> Combat:
        """Build from CLI text: force 'infantry=2,airship=1', vs 'shoggoth' or 'zombie,zombie'."""
        return cls(
            force=parse_force(force),
            old_ones=parse_old_ones(vs),
            old_one_damage=(old_one_damage,) if old_one_damage else (),
            **kw,
        )

    def describe(self) -> str:
        units = ", ".join(f"{n} {STACKS[s]}" for s, n in enumerate(self.force) if n)
        if self.port_strength:
            units += f", port (strength {self.port_strength})"
        return f"{units or 'nothing'} vs {' + '.join(OLD_ONES[t] for t in self.old_ones)}"


def parse_force(text: str) -> tuple[int, ...]:
    counts = [0] * NUM_STACKS
    named: dict[int, str] = {}
    if not text.strip():
        raise UserError("--force is empty (expected e.g. 'infantry=2,artillery=1')")
    for part in text.split(","):
        if not part.strip():
            continue
        name, eq, num = part.partition("=")
        if not eq:
            name, num = name, "1"
        s = unit_id(name)
        if s == PORT:
            raise UserError(
                "the port is not a unit: use --port-strength N for a Revenge port defence"
            )
        num = num.strip()
        if not num.lstrip("-").isdigit():
            raise UserError(f"count for '{name.strip()}' must be a whole number, got '{num}'")
        if int(num) < 0:
            raise UserError(f"count for '{name.strip()}' must not be negative, got {num}")
        if int(num) > MAX_UNITS:
            raise UserError(f"count for '{name.strip()}' must be at most {MAX_UNITS}, got {num}")
        if s in named:
            raise UserError(
                f"--force names '{STACKS[s]}' twice ('{named[s]}' and '{name.strip()}'): give each "
                f"unit once with its count"
            )
        named[s] = name.strip()
        counts[s] += int(num)
    return tuple(counts)


def parse_old_ones(vs: str | list[str]) -> tuple[int, ...]:
    items = [vs] if isinstance(vs, str) else list(vs)
    types_ = [old_one_id(tok) for item in items for tok in item.split(",") if tok.strip()]
    if not types_:
        raise UserError("--vs names no Old One (expected e.g. 'shoggoth' or 'zombie,zombie')")
    if len(types_) > C.MAX_OLD_ONES:
        raise UserError(f"at most {C.MAX_OLD_ONES} Old Ones can share a hex, got {len(types_)}")
    return tuple(types_)


def combat_arrays(combat: Combat, data: AuzData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lower a Combat to (st0, mx, mx_cost) for the kernels; validates against the pack."""
    force = list(combat.force) + [0] * (NUM_STACKS - len(combat.force))
    if combat.port_strength:
        force[PORT] = 1
    if sum(force) == 0:
        raise UserError("the force is empty: name at least one unit (or a port strength)")
    personalities = {personality_name(p) for p in combat.personalities}
    for p in personalities:
        if p not in data.personalities:
            raise UserError(f"personality '{p}' is not in the data pack ({data.path})")
    st = np.zeros(C.STATE_SIZE, dtype=np.int64)
    mx = np.zeros(C.MATCHUP_SIZE, dtype=np.int64)
    cost = data.unit_cost.astype(np.float64).copy()
    capacity = data.unit_capacity.copy()
    for p in personalities:
        spec = data.personalities[p]
        if spec["effect"] == "unit_capacity":
            capacity[spec["unit"]] = spec["amount"]
    if combat.port_strength:
        capacity[PORT] = combat.port_strength
    for s in range(NUM_STACKS):
        st[C.COUNT + s] = force[s]
        mx[C.CAPACITY + s] = capacity[s]
        mx[C.HITBIT + s] = s if s < len(UNITS) else 0  # outposts and ports fight as Infantry
        mx[C.TAKES_PURPLE + s] = 0 if s == AIRSHIP else 1
        mx[C.GROUP + s] = (
            C.GROUP_AIRSHIPS
            if s == AIRSHIP
            else C.GROUP_NONE
            if s in (OUTPOST, PORT)
            else C.GROUP_OTHERS
        )
    # "if you have no Units when your Port is attacked, the Port fights as Infantry"
    mx[C.PORT_FIGHTS] = 1 if sum(force[: len(UNITS)]) == 0 else 0
    port_sanity = 0
    if combat.port_strength:
        port_sanity = (
            data.port["sanity_strength_4"]
            if combat.port_strength >= data.port["strength_normal"]
            else data.port["sanity_strength_2"]
        )
    st[C.SANITY] = data.sanity_per_combat + port_sanity + combat.extra_sanity
    n_oo = len(combat.old_ones)
    damage = list(combat.old_one_damage) + [
        combat.old_one_damage[0] if len(combat.old_one_damage) == 1 else 0
    ] * (n_oo - len(combat.old_one_damage))
    caps = list(combat.old_one_capacity) or [int(data.old_one_capacity[t]) for t in combat.old_ones]
    if len(caps) != n_oo or len(damage) != n_oo:
        raise UserError("give one Old One damage / capacity per Old One, or one for all")
    for i in range(C.MAX_OLD_ONES):
        mx[C.OO_TYPE + i] = combat.old_ones[i] if i < n_oo else -1
        mx[C.OO_CAPACITY + i] = caps[i] if i < n_oo else 0
        if i < n_oo:
            if not 0 <= damage[i] < caps[i]:
                raise UserError(
                    f"--old-one-damage must be 0..{caps[i] - 1} for "
                    f"{OLD_ONES[combat.old_ones[i]]}, got {damage[i]}"
                )
            st[C.OO_DAMAGE + i] = damage[i]
    mx[C.CAN_WITHDRAW] = 0 if (combat.port_defence or combat.port_strength) else 1
    if "bombardier_milligan" in personalities:
        mx[C.MILLIGAN] = data.personalities["bombardier_milligan"].get("amount", 1)
    mx[C.JONES] = 1 if "corporal_jones" in personalities else 0
    st[C.OUTCOME] = C.ONGOING
    return st, mx, cost


def available_cards(data: AuzData, seen: tuple[int, ...]) -> np.ndarray:
    """Cards still in the deck after the discard pile ``seen`` (card numbers)."""
    return remaining_cards(data.card_ids, seen)


def parse_seen(text: str | None) -> tuple[int, ...]:
    return parse_card_numbers(text)


def policies(allocate=None, withdraw=None):
    """Policy objects from objects, user text or None (cheapest-first, never withdraw)."""
    allocate = parse_allocation(allocate) if isinstance(allocate, str) else (allocate or Cheapest())
    withdraw = parse_withdrawal(withdraw) if isinstance(withdraw, str) else (withdraw or Never())
    return allocate, withdraw

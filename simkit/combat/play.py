"""A combat played on given cards, in order (:func:`play_cards`: tests and replays)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.combat.exact import _table_array, withdraw_table_for
from simkit.combat.parse import Combat, combat_arrays, policies
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import play_script
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.names import NUM_STACKS, STACKS


@dataclass(frozen=True)
class CombatEnd:
    """Where a scripted combat ended (see :func:`play_cards`)."""

    outcome: str
    units: dict[str, int]
    lost: dict[str, int]
    sanity: int
    old_one_damage: tuple[int, ...]
    cards: int
    port_hits: int
    damage_left: tuple[int, ...]  # damage staying on each surviving Old One (-1: destroyed)


def play_cards(
    combat: Combat, data: AuzData, cards: list[int], allocate=None, withdraw=None
) -> CombatEnd:
    """Resolve a combat with the given card numbers drawn in that order (for tests and replays)."""
    allocate, withdraw = policies(allocate, withdraw)
    st, mx, cost = combat_arrays(combat, data)
    wd_table = _table_array(withdraw_table_for(combat, data, allocate, withdraw, st, mx, cost))
    start = st.copy()
    script = np.array([data.card_index(c) for c in cards], dtype=np.int64)
    if script.size == 0:
        raise UserError("play_cards needs at least one card")
    alloc, wd = allocate.lower(), withdraw.lower()
    kit = combat_kit(data, mx, cost, script, alloc, wd, wd_table, data.port["flip_threshold"])
    play_script(kit, st, script)
    force = st[C.COUNT : C.COUNT + NUM_STACKS]
    return CombatEnd(
        outcome=C.OUTCOME_NAMES[st[C.OUTCOME]],
        units={STACKS[s]: int(force[s]) for s in range(NUM_STACKS) if start[C.COUNT + s]},
        lost={STACKS[s]: int(st[C.LOST + s]) for s in range(NUM_STACKS) if st[C.LOST + s]},
        sanity=int(st[C.SANITY]),
        old_one_damage=tuple(int(st[C.OO_DAMAGE + i]) for i in range(len(combat.old_ones))),
        cards=int(st[C.CARDS]),
        port_hits=int(st[C.PORT_HITS]),
        damage_left=tuple(damage_left(combat, data, st)),
    )


def damage_left(combat: Combat, data: AuzData, st: np.ndarray) -> list[int]:
    """After combat, damage stays on surviving Old Ones, except Zombies, which heal (-1:
    destroyed)."""
    out = []
    for i, t in enumerate(combat.old_ones):
        dmg = int(st[C.OO_DAMAGE + i])
        cap = (
            combat.old_one_capacity[i] if combat.old_one_capacity else int(data.old_one_capacity[t])
        )
        out.append(-1 if dmg >= cap else (0 if data.old_one_heals[t] else dmg))
    return out

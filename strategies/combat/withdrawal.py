"""When to withdraw: a jitted decision before each card, dispatched on an id."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_table_lookup import table_decision

NEVER, THRESHOLD, OPTIMAL, TABLE = 0, 1, 2, 3


@nb.njit(cache=True, inline="always")
def withdraw_decision(policy_id, params, table, st, mx):
    """STAY or a WITHDRAW_* option for the state before the next card.

    THRESHOLD params: [sanity_at_most, units_at_most, lost_at_least]; -1 disables one.
    TABLE params: [tag of the matchup's table in ``table``] (simkit.kernels.combat_table).
    """
    if policy_id == TABLE:
        return table_decision(table, np.int64(params[0]), st)
    if policy_id != THRESHOLD:
        return C.STAY
    units = 0
    lost = 0
    for s in range(C.NUM_STACKS):
        if mx[C.GROUP + s] != C.GROUP_NONE:
            units += st[C.COUNT + s]
            lost += st[C.LOST + s]
    if params[0] >= 0 and st[C.SANITY] <= params[0]:
        return C.WITHDRAW_ALL
    if params[1] >= 0 and units <= params[1]:
        return C.WITHDRAW_ALL
    if params[2] >= 0 and lost >= params[2]:
        return C.WITHDRAW_ALL
    return C.STAY


@nb.njit(cache=True, inline="always")
def asks_before_cards(policy_id):
    """Whether withdraw_decision can be anything but STAY (the draw loop skips it if not)."""
    return (policy_id == TABLE) | (policy_id == THRESHOLD)


@nb.njit(cache=True, inline="always")
def jones_decision(outcome_if_resolved):
    """Corporal Jones (fixed policies): leave before a card that would defeat us."""
    return outcome_if_resolved == C.DEFEAT


@dataclass(frozen=True)
class Never:
    """Fight until the Old Ones are destroyed or we are defeated."""

    name = "never"

    def lower(self) -> tuple[int, np.ndarray]:
        return NEVER, np.full(3, -1.0)


@dataclass(frozen=True)
class Threshold:
    """Withdraw everything once sanity, units left or units lost cross a line."""

    sanity_at_most: int = -1
    units_at_most: int = -1
    lost_at_least: int = -1
    name = "threshold"

    def lower(self) -> tuple[int, np.ndarray]:
        return THRESHOLD, np.array(
            [self.sanity_at_most, self.units_at_most, self.lost_at_least], dtype=np.float64
        )


@dataclass(frozen=True)
class OptimalWithdrawal:
    """Backward induction over the exact state space (see simkit.combat.exact)."""

    objective: str = "p_destroy"  # or "value"
    destroy_value: float | None = None
    name = "optimal"

    def lower(self) -> tuple[int, np.ndarray]:
        return OPTIMAL, np.full(3, -1.0)


@dataclass(frozen=True)
class OptimalTable:
    """The optimal withdraw table: exact for a player who does not count cards (each
    draw independent, with the deck's proportions); see simkit.combat.table. Games
    solve it at the start of every combat."""

    objective: str = "p_destroy"  # or "value"
    destroy_value: float | None = None
    name = "table"

    def lower(self) -> tuple[int, np.ndarray]:
        return TABLE, np.array([0.0, -1.0, -1.0])  # tag 0: a table solved on its own

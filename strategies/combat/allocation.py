"""Where purple damage cubes go: one jitted choice per cube, dispatched on an id.

Each policy is a frozen parameter set that lowers to ``(policy_id, params)``;
the kernel calls :func:`choose_stack` once per cube, so one compiled kernel
serves every policy (dispatch on an integer, not on a function object).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from simkit.kernels.low import combat_layout as C

CHEAPEST, SPREAD, PROTECT, OPTIMAL = 0, 1, 2, 3


@nb.njit(cache=True, inline="always")
def choose_stack(policy_id, params, st, mx, mx_cost):
    """Stack that takes the next purple cube, or -1 if no stack can take it."""
    best, best_key0, best_key1 = -1, 0.0, 0.0
    for s in range(C.NUM_STACKS):
        if st[C.COUNT + s] == 0 or mx[C.TAKES_PURPLE + s] == 0:
            continue
        cost = mx_cost[s]
        if policy_id == SPREAD:
            # avoid eliminating a unit while some stack can still soak a cube
            key0 = 1.0 if st[C.DAMAGE + s] + 1 >= mx[C.CAPACITY + s] else 0.0
        elif policy_id == PROTECT:
            key0 = 1.0 if (int(params[0]) >> s) & 1 else 0.0
        else:  # CHEAPEST (and the fallback order for OPTIMAL, which the exact solver replaces)
            key0 = 0.0
        if best == -1 or key0 < best_key0 or (key0 == best_key0 and cost < best_key1):
            best, best_key0, best_key1 = s, key0, cost
    return best


@dataclass(frozen=True)
class Cheapest:
    """Cubes go on the stack whose units are cheapest in Gold (the port last)."""

    name = "cheapest"

    def lower(self) -> tuple[int, np.ndarray]:
        return CHEAPEST, np.zeros(1)


@dataclass(frozen=True)
class Spread:
    """Cubes go where they eliminate nobody if possible, cheapest first."""

    name = "spread"

    def lower(self) -> tuple[int, np.ndarray]:
        return SPREAD, np.zeros(1)


@dataclass(frozen=True)
class Protect:
    """Cheapest first, but the protected stacks only when nothing else can take a cube."""

    stacks: tuple[int, ...]
    name = "protect"

    def lower(self) -> tuple[int, np.ndarray]:
        return PROTECT, np.array([float(sum(1 << s for s in self.stacks))])


@dataclass(frozen=True)
class OptimalAllocation:
    """Every split of each card's cubes is tried (exact method only)."""

    name = "optimal"

    def lower(self) -> tuple[int, np.ndarray]:
        return OPTIMAL, np.zeros(1)

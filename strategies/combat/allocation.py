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
def stack_key(policy_id, params, st, mx, s):
    """The first sort key of stack s (lower takes the cube first; then the cheaper unit,
    then the lower stack). Only SPREAD's reads the state."""
    if policy_id == SPREAD:
        # avoid eliminating a unit while some stack can still soak a cube
        return 1.0 if st[C.DAMAGE + s] + 1 >= mx[C.CAPACITY + s] else 0.0
    if policy_id == PROTECT:
        return 1.0 if (int(params[0]) >> s) & 1 else 0.0
    return 0.0  # CHEAPEST (and the fallback order for OPTIMAL, which the exact solver replaces)


@nb.njit(cache=True, inline="always")
def first_of(policy_id, params, st, mx, mx_cost, skip):
    """The stack that sorts first among those that take purple cubes, have units and are
    not in the bit set ``skip``; -1 if none."""
    best, best_key0, best_key1 = -1, 0.0, 0.0
    for s in range(C.NUM_STACKS):
        if st[C.COUNT + s] == 0 or mx[C.TAKES_PURPLE + s] == 0 or (skip >> s) & 1:
            continue
        cost = mx_cost[s]
        key0 = stack_key(policy_id, params, st, mx, s)
        if best == -1 or key0 < best_key0 or (key0 == best_key0 and cost < best_key1):
            best, best_key0, best_key1 = s, key0, cost
    return best


@nb.njit(cache=True, inline="always")
def choose_stack(policy_id, params, st, mx, mx_cost):
    """Stack that takes the next purple cube, or -1 if no stack can take it."""
    return first_of(policy_id, params, st, mx, mx_cost, 0)


ORDER_END = 15  # closes a packed stack order (stacks are 0..6, four bits each)


@nb.njit(cache=True, inline="always")
def stack_order(policy_id, params, st, mx, mx_cost):
    """The order choose_stack takes stacks in, packed four bits a stack (first in the
    lowest bits, ORDER_END after the last), for a policy whose order is fixed for the
    whole fight (every one but SPREAD, whose order follows the damage; -1 for it). Then
    choose_stack is the first stack of the order that still has units (first_with_units),
    without comparing costs per cube. ``st``: the fight's start (every stack that can
    ever take a cube has units in it)."""
    if policy_id == SPREAD:
        return np.int64(-1)
    order = np.int64(0)
    taken = 0
    pos = 0
    for _ in range(C.NUM_STACKS):
        s = first_of(policy_id, params, st, mx, mx_cost, taken)
        if s < 0:
            break
        taken |= 1 << s
        order |= np.int64(s) << (4 * pos)
        pos += 1
    return order | (np.int64(ORDER_END) << (4 * pos))


@nb.njit(cache=True, inline="always")
def first_with_units(order, st):
    """choose_stack from a stack_order: its first stack that still has units, or -1."""
    while (order & 15) != ORDER_END:
        s = order & 15
        if st[C.COUNT + s] > 0:
            return s
        order >>= 4
    return -1


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

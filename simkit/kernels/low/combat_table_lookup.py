"""Looking up the optimal withdraw table (solved by simkit.kernels.combat_table).

A leaf module (no combat imports) so the withdrawal policies in strategies/combat can
read the table without an import cycle.
"""

import numpy as np

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.hashtable import EMPTY, _slot
from simkit.kernels.low.jit import kernel

COL_DECISION, COL_ROW = 2, 3
TABLE_COLS = 4


def new_withdraw_table(max_states: int) -> np.ndarray:
    """An empty table for up to ``max_states`` states (at least twice as many slots)."""
    slots = 1 << max(4, int(2 * max_states - 1).bit_length())
    return np.full((slots, TABLE_COLS), EMPTY, dtype=np.int64)


EMPTY_TABLE = np.full((1, TABLE_COLS), EMPTY, dtype=np.int64)


TAG_SHIFT = 31  # key2 bits above this name the matchup, so one table can hold many


@kernel(inline="always")
def state_keys(st, tag):
    """Two keys naming everything the future of a combat depends on, deck aside.

    8 bits per stack (count < 32, damage < 8) fill key1; sanity (< 64), Old One damage
    (< 64 each) and Corporal Jones fill key2's low 31 bits, ``tag`` (which matchup's
    table, see combat_table.TableCache) the rest. The ranges hold with room to spare for
    every pack the loader accepts (MAX_FORCE 12 units per stack, capacities < 8).
    """
    k1 = 0
    for s in range(C.NUM_STACKS):
        k1 = (k1 << 5) | min(st[C.COUNT + s], 31)
        k1 = (k1 << 3) | min(st[C.DAMAGE + s], 7)
    k2 = min(st[C.SANITY], 63)
    for i in range(C.MAX_OLD_ONES):
        k2 = (k2 << 6) | min(st[C.OO_DAMAGE + i], 63)
    k2 = (k2 << 1) | st[C.JONES_USED]
    return k1, k2 | (tag << TAG_SHIFT)


@kernel(inline="always")
def table_decision(table, tag, st):
    """The option table ``tag`` stores for state st (STAY if the state is not in it)."""
    k1, k2 = state_keys(st, tag)
    d = table[_slot(table, k1, k2), COL_DECISION]
    return C.STAY if d == EMPTY else d

"""One withdraw-table memo for many starting forces of the same matchup.

The optimal withdraw table (combat_table.py) values a combat state by its future alone:
(stack counts and damage, sanity, Old One damage) against one matchup (Old Ones, costs,
objective, card probabilities). Many starting forces against the same Old Ones pass
through the same states (3 Infantry that lose one are where 2 Infantry start), so one
memo solved for all of them does each state's work once. Here every state is solved as in
:func:`simkit.kernels.combat_table.table_node` (the same expander, in its SHARED mode:
the same resolution, values and ties); the differences:

- the memo keeps its states across roots (``ctx_i[CTX_STATES]`` is not reset);
- ``flags[row]`` is 1 if the state or any state explored below it (through every option,
  as a table solved for that state alone explores them) withdraws: a root with flag 0 has
  a table that never withdraws;
- the card classes are those of the unit types present in each state (one grouping per
  hit mask, :func:`group_by_mask`), not of the starting force: cards that do the same to
  the units still fighting lead to the same state, so the values are the same (up to
  rounding) and a force's lost unit types cost no work.

Overflow (ctx_i[CTX_OVERFLOW]): 1 when ``values`` is full (the stored states stay valid:
each is stored only after all of its children, so the caller grows the buffers with
:func:`rehash` and solves the root again), 2 when a fight is deeper than the buffers.
"""

import numba as nb

from simkit.kernels.combat import NO_NRT
from simkit.kernels.combat_exact import CTX_OVERFLOW
from simkit.kernels.combat_table import (
    OVERFLOW_DEPTH,
    OVERFLOW_VALUES,
    SHARED,
    group_cards,
    table_node,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_table_lookup import COL_DECISION, TABLE_COLS
from simkit.kernels.low.hashtable import _slot

__all__ = ["OVERFLOW_DEPTH", "OVERFLOW_VALUES", "MASKS", "group_by_mask", "solve_shared"]

MASKS = 1 << 5  # hit masks: one bit per unit type (simkit.kernels.combat.present_mask)


@nb.njit(cache=True)
def group_by_mask(kit, weight, memo):
    """For every hit mask m: the classes of cards that do the same in this matchup to the
    unit types in m, as group_deck makes them (memo.reps[m, k] a card of class k,
    memo.probs[m, k] its share of ``weight``, memo.n_classes[m] the class count)."""
    for m in range(MASKS):
        memo.n_classes[m] = group_cards(kit, weight, m, memo.reps[m], memo.probs[m])


@nb.njit(cache=True)
def solve_shared(st0, kit, memo):
    """Solve the combat starting at st0 (after start_combat) into the memo (table_node,
    SHARED); the root's row, or -1 (ctx_i[CTX_OVERFLOW] says why). ctx_i[CTX_STATES]
    counts the memo's states."""
    memo.ctx_i[CTX_OVERFLOW] = 0
    return table_node(SHARED, st0, kit, memo)


@nb.njit(**NO_NRT)
def rehash(table, slots_used, n, new_table, new_slots_used):
    """Move the memo's n states into a larger (empty) table; their rows stay."""
    for r in range(n):
        old = slots_used[r]
        slot = _slot(new_table, table[old, 0], table[old, 1])
        for j in range(TABLE_COLS):
            new_table[slot, j] = table[old, j]
        new_slots_used[r] = slot


@nb.njit(**NO_NRT)
def add_withdrawing(table, slots_used, start, end, lookup):
    """Copy the entries of rows start..end-1 that withdraw into ``lookup`` (a table the
    Monte Carlo kernels read: a state it lacks is STAY); returns how many were copied."""
    n = 0
    for r in range(start, end):
        old = slots_used[r]
        if table[old, COL_DECISION] > C.STAY:
            slot = _slot(lookup, table[old, 0], table[old, 1])
            for j in range(TABLE_COLS):
                lookup[slot, j] = table[old, j]
            n += 1
    return n

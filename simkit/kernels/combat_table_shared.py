"""One withdraw-table memo for many starting forces of the same matchup.

The optimal withdraw table (combat_table.py) values a combat state by its future alone:
(stack counts and damage, sanity, Old One damage) against one matchup (Old Ones, costs,
objective, card probabilities). Many starting forces against the same Old Ones pass
through the same states (3 Infantry that lose one are where 2 Infantry start), so one
memo solved for all of them does each state's work once. Here every state is solved as in
:func:`simkit.kernels.combat_table.table_node` (the same resolution, values and ties);
the differences:

- the memo keeps its states across roots (``ctx_i[CTX_STATES]`` is not reset), and a
  child already in the memo is read before any recursion is set up;
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

from simkit.kernels.combat import (
    NO_NRT,
    apply_card,
    card_effect,
    check_end,
    copy_into,
    finish,
    has_withdrawable,
    jones_available,
    place_cubes,
    present_mask,
    withdraw,
)
from simkit.kernels.combat_exact import (
    CARDS,
    CTX_ALLOC,
    CTX_OVERFLOW,
    CTX_STATES,
    LEAVE_DONE,
    LEAVE_SKIP,
    NV,
    keep_better,
    leave,
    policy_split,
    set_objective,
    step_delta,
    terminal_into,
)
from simkit.kernels.combat_table import SELF_LOOP_ONLY, same_effect
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_table_lookup import COL_DECISION, COL_ROW, TABLE_COLS, state_keys
from simkit.kernels.low.hashtable import EMPTY, _slot

OVERFLOW_VALUES, OVERFLOW_DEPTH = 1, 2
MASKS = 1 << 5  # hit masks: one bit per unit type (simkit.kernels.combat.present_mask)


@nb.njit(**NO_NRT)
def group_by_mask(mx, card_hits, card_purple, card_sanity, card_airship, weight, reps, probs, n):
    """For every hit mask m: the classes of cards that do the same in this matchup to the
    unit types in m, as group_deck makes them (reps[m, k] a card of class k, probs[m, k]
    its share of ``weight``, n[m] the class count)."""
    total = 0.0
    for c in range(weight.size):
        total += weight[c]
    for m in range(MASKS):
        count = 0
        for k in range(probs.shape[1]):
            probs[m, k] = 0.0
        for c in range(weight.size):
            if weight[c] <= 0:
                continue
            k = 0
            while k < count and not same_effect(
                card_hits, card_purple, card_sanity, card_airship, reps[m, k], c, mx, m
            ):
                k += 1
            if k == count:
                reps[m, count] = c
                count += 1
            probs[m, k] += weight[c] / total
        n[m] = count


@nb.njit(**NO_NRT)
def shared_node(
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    reps,
    probs,
    n_classes,
    alloc_params,
    ctx_i,
    ctx_f,
    table,
    slots_used,
    values,
    flags,
    sbuf,
    vbuf,
    ibuf,
):
    """Row of ``values`` holding the optimal future value of state ``st`` (solved into the
    memo if it is not there yet); -1 on overflow. Same arguments as table_node (tag 0)
    but the card classes per hit mask (reps[mask, k], probs[mask, k] for k <
    n_classes[mask], see group_by_mask), plus ``flags`` (int8, one per row)."""
    if ctx_i[CTX_OVERFLOW] != 0:
        return -1
    k1, k2 = state_keys(st, 0)
    slot = _slot(table, k1, k2)
    if table[slot, 0] != EMPTY:
        return table[slot, COL_ROW]
    d = st[C.CARDS]
    if d >= sbuf.shape[0]:
        ctx_i[CTX_OVERFLOW] = OVERFLOW_DEPTH
        return -1
    here, after, scratch = sbuf[d, 0], sbuf[d, 1], sbuf[d, 2]
    best, v, w = vbuf[d, 0], vbuf[d, 1], vbuf[d, 2]
    dmg = ibuf[d, 0, : C.MAX_OLD_ONES]
    split_row = ibuf[d, 1:2, : C.NUM_STACKS]
    best_option = -1
    below = 0
    for option in range(4):
        if option != C.STAY and (mx[C.CAN_WITHDRAW] == 0 or not has_withdrawable(st, mx)):
            continue
        how = leave(here, st, mx, mx_cost, option, ctx_i, ctx_f, v)
        if how == LEAVE_SKIP:
            continue
        if how == LEAVE_DONE:
            best_option = keep_better(v, best, best_option, option, ctx_i)
            continue
        for k in range(NV):
            v[k] = 0.0
        p_self = 0.0
        mask = present_mask(here, mx)
        rep = reps[mask]
        prob = probs[mask]
        for k in range(n_classes[mask]):
            copy_into(after, here)
            after[C.CARDS] += 1
            p, s_loss, a = card_effect(
                after, mx, card_hits, card_purple, card_sanity, card_airship, rep[k], dmg
            )
            policy_split(after, mx, mx_cost, p, ctx_i[CTX_ALLOC], alloc_params, scratch, split_row)
            for s in range(C.NUM_STACKS):
                place_cubes(after, mx, s, split_row[0, s])
            outcome = check_end(after, mx, apply_card(after, mx, dmg, s_loss, a))
            if outcome == C.DEFEAT and jones_available(here, mx):
                copy_into(after, here)
                after[C.CARDS] += 1
                after[C.JONES_USED] = 1
                withdraw(after, mx, C.WITHDRAW_ALL)
                outcome = C.WITHDRAW
            if outcome != C.ONGOING:
                finish(after, mx, outcome)
                terminal_into(w, after, here, mx_cost, ctx_i, ctx_f)
            else:
                a1, a2 = state_keys(after, 0)
                if a1 == k1 and a2 == k2 and after[C.PORT_HITS] == here[C.PORT_HITS]:
                    p_self += prob[k]
                    continue
                child = _slot(table, a1, a2)
                if table[child, 0] != EMPTY:  # solved before: no recursion to set up
                    row = table[child, COL_ROW]
                else:
                    row = shared_node(
                        after,
                        mx,
                        mx_cost,
                        card_hits,
                        card_purple,
                        card_sanity,
                        card_airship,
                        reps,
                        probs,
                        n_classes,
                        alloc_params,
                        ctx_i,
                        ctx_f,
                        table,
                        slots_used,
                        values,
                        flags,
                        sbuf,
                        vbuf,
                        ibuf,
                    )
                    if row < 0:
                        return -1
                below |= flags[row]
                copy_into(w, values[row])
                step_delta(w, here, after, mx_cost)
                set_objective(w, ctx_i, ctx_f)
            for j in range(NV):
                v[j] += prob[k] * w[j]
        if p_self >= SELF_LOOP_ONLY:
            finish(here, mx, C.STALEMATE)
            terminal_into(v, here, st, mx_cost, ctx_i, ctx_f)
        elif p_self > 0.0:
            v[CARDS] += p_self
            for k in range(NV):
                v[k] /= 1.0 - p_self
        set_objective(v, ctx_i, ctx_f)
        best_option = keep_better(v, best, best_option, option, ctx_i)
    index = ctx_i[CTX_STATES]
    if index >= values.shape[0]:
        ctx_i[CTX_OVERFLOW] = OVERFLOW_VALUES
        return -1
    copy_into(values[index], best)
    flags[index] = 1 if (below != 0) | (best_option > C.STAY) else 0
    slot = _slot(table, k1, k2)
    table[slot, 0] = k1
    table[slot, 1] = k2
    table[slot, COL_DECISION] = best_option
    table[slot, COL_ROW] = index
    slots_used[index] = slot
    ctx_i[CTX_STATES] = index + 1
    return index


@nb.njit(**NO_NRT)
def solve_shared(
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    reps,
    probs,
    n_classes,
    alloc_params,
    ctx_i,
    ctx_f,
    table,
    slots_used,
    values,
    flags,
    sbuf,
    vbuf,
    ibuf,
):
    """Solve the combat starting at st0 (after start_combat) into the memo; the root's row,
    or -1 (ctx_i[CTX_OVERFLOW] says why). ctx_i[CTX_STATES] counts the memo's states."""
    ctx_i[CTX_OVERFLOW] = 0
    return shared_node(
        st0,
        mx,
        mx_cost,
        card_hits,
        card_purple,
        card_sanity,
        card_airship,
        reps,
        probs,
        n_classes,
        alloc_params,
        ctx_i,
        ctx_f,
        table,
        slots_used,
        values,
        flags,
        sbuf,
        vbuf,
        ibuf,
    )


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

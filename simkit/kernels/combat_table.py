"""The optimal withdraw table: exact backward induction over combat states alone.

The exact solver (combat_exact.py) keys every node on the deck composition too, which
is exact for a player who counts every card but far too large to solve inside a game
(hundreds of thousands of states for a mixed force). This solver treats each draw as
independent, with the probabilities of the deck it is given (the full deck, or what is
left after cards already seen): the exact optimum for a player who does not count
cards. Its state space is only (stack counts and damage, sanity, Old One damage), so a
game solves one table at the start of every combat in well under a millisecond.

A card that changes nothing (no hits, cubes, sanity or airship damage that land) leads
back to the same state; the recursion solves that self-loop in closed form:
V = (sum over the other cards of p * W + p_self * one card) / (1 - p_self).

The table is an open-addressing hash table (simkit.kernels.low.hashtable layout) with
columns (key1, key2, decision, row); ``withdraw_decision`` looks states up in it, so the
Monte Carlo kernel, the exact solver (to price the table policy under the real deck)
and the game engine all play the same table.
"""

import numba as nb
import numpy as np

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
    withdraw,
)
from simkit.kernels.combat_exact import (
    CARDS,
    CTX_ALLOC,
    CTX_OBJECTIVE,
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
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_table_lookup import COL_DECISION, COL_ROW, TABLE_COLS, state_keys
from simkit.kernels.low.hashtable import EMPTY, _slot, table_get, table_put

DEPTH = 512  # recursion depth bound: every step that is not a self-loop makes progress
SELF_LOOP_ONLY = 1.0 - 1e-12


@nb.njit(**NO_NRT)
def clear_table(table, slots_used, n):
    for r in range(n):
        for k in range(TABLE_COLS):
            table[slots_used[r], k] = EMPTY


@nb.njit(**NO_NRT)
def table_node(
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    rep,
    prob,
    alloc_params,
    ctx_i,
    ctx_f,
    tag,
    table,
    slots_used,
    values,
    sbuf,
    vbuf,
    ibuf,
):
    """Row of ``values`` holding the optimal future value of state ``st`` (before a
    withdrawal decision and the next draw); -1 once the buffers are exhausted.

    prob[k]: probability that the next card is of class k, card number rep[k] (independent
    draws; see group_deck). The
    allocation is the fixed policy ctx_i[CTX_ALLOC]; Corporal Jones follows the Monte
    Carlo kernel's rule (leave before a card that would defeat the force).
    """
    if ctx_i[CTX_OVERFLOW] != 0:
        return -1
    k1, k2 = state_keys(st, tag)
    slot = _slot(table, k1, k2)
    if table[slot, 0] != EMPTY:
        return table[slot, COL_ROW]
    d = st[C.CARDS]
    if d >= sbuf.shape[0]:
        ctx_i[CTX_OVERFLOW] = 1
        return -1
    here, after, scratch = sbuf[d, 0], sbuf[d, 1], sbuf[d, 2]
    best, v, w = vbuf[d, 0], vbuf[d, 1], vbuf[d, 2]
    dmg = ibuf[d, 0, : C.MAX_OLD_ONES]
    split_row = ibuf[d, 1:2, : C.NUM_STACKS]
    best_option = -1
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
        for k in range(prob.size):
            if prob[k] == 0.0:
                continue
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
                a1, a2 = state_keys(after, tag)
                if a1 == k1 and a2 == k2 and after[C.PORT_HITS] == here[C.PORT_HITS]:
                    p_self += prob[k]
                    continue
                row = table_node(
                    after,
                    mx,
                    mx_cost,
                    card_hits,
                    card_purple,
                    card_sanity,
                    card_airship,
                    rep,
                    prob,
                    alloc_params,
                    ctx_i,
                    ctx_f,
                    tag,
                    table,
                    slots_used,
                    values,
                    sbuf,
                    vbuf,
                    ibuf,
                )
                if row < 0:
                    return -1
                copy_into(w, values[row])
                step_delta(w, here, after, mx_cost)
                set_objective(w, ctx_i, ctx_f)
            for j in range(NV):
                v[j] += prob[k] * w[j]
        if p_self >= SELF_LOOP_ONLY:
            # no card can change anything: a stalemate, as play_combat ends it
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
        ctx_i[CTX_OVERFLOW] = 1
        return -1
    copy_into(values[index], best)
    slot = _slot(table, k1, k2)
    table[slot, 0] = k1
    table[slot, 1] = k2
    table[slot, COL_DECISION] = best_option
    table[slot, COL_ROW] = index
    slots_used[index] = slot
    ctx_i[CTX_STATES] = index + 1
    return index


@nb.njit(**NO_NRT)
def solve_table(
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    rep,
    prob,
    alloc_params,
    ctx_i,
    ctx_f,
    tag,
    table,
    slots_used,
    values,
    sbuf,
    vbuf,
    ibuf,
):
    """Fill ``table`` under ``tag`` for the combat starting at st0 (after start_combat);
    returns the root row or -1 (buffers too small: this tag's entries are then removed
    again and must not be used). ``table`` needs room for values.shape[0] more states.
    """
    ctx_i[CTX_OVERFLOW] = 0
    ctx_i[CTX_STATES] = 0
    row = table_node(
        st0,
        mx,
        mx_cost,
        card_hits,
        card_purple,
        card_sanity,
        card_airship,
        rep,
        prob,
        alloc_params,
        ctx_i,
        ctx_f,
        tag,
        table,
        slots_used,
        values,
        sbuf,
        vbuf,
        ibuf,
    )
    if row < 0:
        clear_table(table, slots_used, ctx_i[CTX_STATES])
        ctx_i[CTX_STATES] = 0
    return row


@nb.njit(cache=True, inline="always")
def same_effect(card_hits, card_purple, card_sanity, card_airship, a, b, mx, force_mask):
    """Do cards a and b do the same thing to every Old One type in this matchup?"""
    for i in range(C.MAX_OLD_ONES):
        t = mx[C.OO_TYPE + i]
        if t < 0:
            continue
        if (card_hits[a, t] & force_mask) != (card_hits[b, t] & force_mask):
            return False
        if (
            card_purple[a, t] != card_purple[b, t]
            or card_sanity[a, t] != card_sanity[b, t]
            or card_airship[a, t] != card_airship[b, t]
        ):
            return False
    return True


@nb.njit(**NO_NRT)
def group_deck(st0, mx, card_hits, card_purple, card_sanity, card_airship, weight, rep, prob):
    """Group cards by what they do in this matchup: rep[k] = a card of class k,
    prob[k] = its share of ``weight`` (cards per card number). Returns the class count;
    prob[k] = 0 past it."""
    force_mask = 0
    for s in range(C.NUM_STACKS):
        if st0[C.COUNT + s] > 0 and mx[C.HITBIT + s] >= 0:
            force_mask |= 1 << mx[C.HITBIT + s]
    n = 0
    total = 0.0
    for c in range(weight.size):
        total += weight[c]
    for k in range(prob.size):
        prob[k] = 0.0
    for c in range(weight.size):
        if weight[c] <= 0:
            continue
        k = 0
        while k < n and not same_effect(
            card_hits, card_purple, card_sanity, card_airship, rep[k], c, mx, force_mask
        ):
            k += 1
        if k == n:
            rep[n] = c
            n += 1
        prob[k] += weight[c] / total
    return n


# -- a cache of solved tables: a game engine meets the same matchups again and again ------
SIG_SIZE = C.STATE_SIZE + C.MATCHUP_SIZE + C.NUM_STACKS + 4
CACHE_MATCHUPS, CACHE_ENTRIES = 0, 1  # cache_i: matchups cached, table entries in use
SIG_OFFSET = 1 << 20  # makes every signature entry non-negative for hashing


@nb.njit(**NO_NRT)
def table_signature(st0, mx, mx_cost, alloc_params, ctx_i, ctx_f, sig):
    """Everything a table depends on, as integers (the cache compares it exactly)."""
    k = 0
    for j in range(C.STATE_SIZE):
        sig[k] = st0[j]
        k += 1
    for j in range(C.MATCHUP_SIZE):
        sig[k] = mx[j]
        k += 1
    for s in range(C.NUM_STACKS):
        sig[k] = np.int64(round(mx_cost[s] * 4096.0))
        k += 1
    sig[k] = ctx_i[CTX_ALLOC]
    sig[k + 1] = ctx_i[CTX_OBJECTIVE]
    sig[k + 2] = np.int64(round(alloc_params[0] * 4096.0))
    sig[k + 3] = np.int64(round(ctx_f[0] * 4096.0))


@nb.njit(cache=True, inline="always")
def signature_keys(sig):
    """Two independent 62-bit hashes of a signature (FNV-style)."""
    h1 = np.uint64(0xCBF29CE484222325)
    h2 = np.uint64(0x9E3779B97F4A7C15)
    for j in range(sig.size):
        x = np.uint64(sig[j] + SIG_OFFSET)
        h1 = (h1 ^ x) * np.uint64(0x100000001B3)
        h2 = (h2 ^ x) * np.uint64(0xC2B2AE3D27D4EB4F)
        h2 ^= h2 >> np.uint64(29)
    return np.int64(h1 >> np.uint64(2)), np.int64(h2 >> np.uint64(2))


@nb.njit(**NO_NRT)
def reset_cache(table, sig_keys, sig_rows, cache_i):
    for i in range(table.shape[0]):
        for k in range(TABLE_COLS):
            table[i, k] = EMPTY
    for i in range(sig_rows.size):
        sig_keys[i, 0] = EMPTY
        sig_keys[i, 1] = EMPTY
        sig_rows[i] = EMPTY
    cache_i[CACHE_MATCHUPS] = 0
    cache_i[CACHE_ENTRIES] = 0


@nb.njit(**NO_NRT)
def cached_table(
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    weight,
    rep,
    prob,
    alloc_params,
    ctx_i,
    ctx_f,
    table,
    slots_used,
    values,
    sbuf,
    vbuf,
    ibuf,
    sigs,
    sig_keys,
    sig_rows,
    sig,
    cache_i,
):
    """Tag of the solved table for the combat starting at st0 (solved on a miss), or -1
    if it outgrew the buffers.

    Every cached matchup's entries share ``table`` under their own tag. When it or the
    signature store is full, everything is dropped and filled again: a table is a
    function of its signature alone, so results never depend on what was cached.
    """
    table_signature(st0, mx, mx_cost, alloc_params, ctx_i, ctx_f, sig)
    h1, h2 = signature_keys(sig)
    mid = table_get(sig_keys, sig_rows, h1, h2)
    if mid != EMPTY:
        same = True
        for j in range(SIG_SIZE):
            if sigs[mid, j] != sig[j]:
                same = False
                break
        if same:
            return mid
    if (
        cache_i[CACHE_MATCHUPS] >= sigs.shape[0]
        or cache_i[CACHE_ENTRIES] + values.shape[0] > table.shape[0] // 2
    ):
        reset_cache(table, sig_keys, sig_rows, cache_i)
        mid = EMPTY
    tag = cache_i[CACHE_MATCHUPS]
    group_deck(st0, mx, card_hits, card_purple, card_sanity, card_airship, weight, rep, prob)
    row = solve_table(
        st0,
        mx,
        mx_cost,
        card_hits,
        card_purple,
        card_sanity,
        card_airship,
        rep,
        prob,
        alloc_params,
        ctx_i,
        ctx_f,
        tag,
        table,
        slots_used,
        values,
        sbuf,
        vbuf,
        ibuf,
    )
    if row < 0:
        return -1
    cache_i[CACHE_ENTRIES] += ctx_i[CTX_STATES]
    cache_i[CACHE_MATCHUPS] = tag + 1
    if mid == EMPTY:  # (a hash collision with another signature keeps the first one cached)
        for j in range(SIG_SIZE):
            sigs[tag, j] = sig[j]
        table_put(sig_keys, sig_rows, h1, h2, tag)
    return tag

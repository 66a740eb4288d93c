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
    present_mask,
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
from simkit.kernels.low.combat_kit import CombatKit
from simkit.kernels.low.combat_table_lookup import (
    COL_DECISION,
    COL_ROW,
    EMPTY_TABLE,
    TABLE_COLS,
    state_keys,
)
from simkit.kernels.low.hashtable import EMPTY, _slot, table_get, table_put

DEPTH = 512  # recursion depth bound: every step that is not a self-loop makes progress
SELF_LOOP_ONLY = 1.0 - 1e-12


@nb.njit(**NO_NRT)
def clear_table(table, slots_used, n):
    for r in range(n):
        for k in range(TABLE_COLS):
            table[slots_used[r], k] = EMPTY


# The expander's modes (a literal argument: numba compiles one specialisation per mode).
# PER_FORCE: one table for one starting force, its card classes in memo row 0.
# SHARED: one memo for many forces of a matchup (simkit.kernels.combat_table_shared):
# card classes per hit mask of the units still fighting, and memo.flags.
PER_FORCE, SHARED = 0, 1
OVERFLOW_VALUES, OVERFLOW_DEPTH = 1, 2  # ctx_i[CTX_OVERFLOW]: values full; a fight too deep


@nb.njit(cache=True)
def table_node(mode, st, kit, memo):
    """Row of memo.values holding the optimal future value of state ``st`` (before a
    withdrawal decision and the next draw), solved into the table if it is not there yet;
    -1 once the buffers are exhausted (ctx_i[CTX_OVERFLOW] says why).

    Draws are independent: the next card is of class k (card number reps[mask, k]) with
    probability probs[mask, k], k < n_classes[mask] (mask 0 per force; the present unit
    types' hit mask when SHARED, see group_by_mask). The allocation is the fixed policy
    ctx_i[CTX_ALLOC]; Corporal Jones follows the Monte Carlo kernel's rule (leave before a
    card that would defeat the force). SHARED also keeps flags[row]: 1 if the state or any
    state explored below it (through every option) withdraws.
    """
    ctx_i, ctx_f = memo.ctx_i, memo.ctx_f
    if ctx_i[CTX_OVERFLOW] != 0:
        return -1
    table, values, tag = memo.table, memo.values, memo.tag
    k1, k2 = state_keys(st, tag)
    slot = _slot(table, k1, k2)
    if table[slot, 0] != EMPTY:
        return table[slot, COL_ROW]
    d = st[C.CARDS]
    sbuf, vbuf, ibuf = memo.sbuf, memo.vbuf, memo.ibuf
    if d >= sbuf.shape[0]:
        ctx_i[CTX_OVERFLOW] = OVERFLOW_DEPTH
        return -1
    mx, mx_cost = kit.mx, kit.mx_cost
    here, after, scratch = sbuf[d, 0], sbuf[d, 1], sbuf[d, 2]
    best, v, w = vbuf[d, 0], vbuf[d, 1], vbuf[d, 2]
    dmg = ibuf[d, 0, : C.MAX_OLD_ONES]
    split_row = ibuf[d, 1:2, : C.NUM_STACKS]
    # the card arrays in locals: a StructRef field read is a reference count (NRT) each
    hits, purple = kit.card_hits, kit.card_purple
    sanity, airship = kit.card_sanity, kit.card_airship
    best_option = -1
    below = 0
    for option in range(4):
        if option != C.STAY and (mx[C.CAN_WITHDRAW] == 0 or not has_withdrawable(st, mx)):
            continue
        how = leave(here, st, mx, option)
        if how == LEAVE_SKIP:
            continue
        if how == LEAVE_DONE:
            terminal_into(v, here, st, mx_cost, ctx_i, ctx_f)
            best_option = keep_better(v, best, best_option, option, ctx_i)
            continue
        for k in range(NV):
            v[k] = 0.0
        p_self = 0.0
        mask = present_mask(here, mx) if mode == SHARED else 0
        rep = memo.reps[mask]
        prob = memo.probs[mask]
        for k in range(memo.n_classes[mask]):
            copy_into(after, here)
            after[C.CARDS] += 1
            p, s_loss, a = card_effect(after, mx, hits, purple, sanity, airship, rep[k], dmg)
            policy_split(after, kit, p, ctx_i[CTX_ALLOC], scratch, split_row)
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
                child = _slot(table, a1, a2)
                if table[child, 0] != EMPTY:  # solved before: no recursion to set up
                    row = table[child, COL_ROW]
                else:
                    row = table_node(mode, after, kit, memo)
                    if row < 0:
                        return -1
                if mode == SHARED:
                    below |= memo.flags[row]
                copy_into(w, values[row])
                step_delta(w, here, after, mx_cost)
                set_objective(w, ctx_i, ctx_f)
            for j in range(NV):
                v[j] += prob[k] * w[j]
        if p_self >= SELF_LOOP_ONLY:
            # no card can change anything: a stalemate, as the draw loop (combat.play_one) ends it
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
    if mode == SHARED:
        memo.flags[index] = 1 if (below != 0) | (best_option > C.STAY) else 0
    slot = _slot(table, k1, k2)
    table[slot, 0] = k1
    table[slot, 1] = k2
    table[slot, COL_DECISION] = best_option
    table[slot, COL_ROW] = index
    memo.slots_used[index] = slot
    ctx_i[CTX_STATES] = index + 1
    return index


@nb.njit(cache=True)
def solve_table(st0, kit, memo):
    """Fill memo.table under memo.tag for the combat starting at st0 (after start_combat),
    card classes in memo row 0 (group_deck); returns the root row or -1 (buffers too
    small: this tag's entries are then removed again and must not be used). The table
    needs room for memo.values.shape[0] more states.
    """
    ctx_i = memo.ctx_i
    ctx_i[CTX_OVERFLOW] = 0
    ctx_i[CTX_STATES] = 0
    row = table_node(PER_FORCE, st0, kit, memo)
    if row < 0:
        clear_table(memo.table, memo.slots_used, ctx_i[CTX_STATES])
        ctx_i[CTX_STATES] = 0
    return row


@nb.njit(cache=True, inline="always")
def same_effect(kit, a, b, force_mask):
    """Do cards a and b do the same thing to every Old One type in this matchup (hits
    counted for the unit types in ``force_mask`` only)?"""
    mx = kit.mx
    card_hits, card_purple = kit.card_hits, kit.card_purple
    card_sanity, card_airship = kit.card_sanity, kit.card_airship
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


@nb.njit(cache=True)
def group_cards(kit, weight, force_mask, rep, prob):
    """Group cards by what they do in this matchup to the unit types in ``force_mask``:
    rep[k] = a card of class k, prob[k] = its share of ``weight`` (cards per card number).
    Returns the class count; prob[k] = 0 past it."""
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
        while k < n and not same_effect(kit, rep[k], c, force_mask):
            k += 1
        if k == n:
            rep[n] = c
            n += 1
        prob[k] += weight[c] / total
    return n


@nb.njit(cache=True)
def group_deck(st0, kit, weight, memo):
    """The card classes of the force at st0 into memo row 0 (reps, probs, n_classes):
    the PER_FORCE table's classes."""
    mx = kit.mx
    force_mask = 0
    for s in range(C.NUM_STACKS):
        if st0[C.COUNT + s] > 0 and mx[C.HITBIT + s] >= 0:
            force_mask |= 1 << mx[C.HITBIT + s]
    memo.n_classes[0] = group_cards(kit, weight, force_mask, memo.reps[0], memo.probs[0])
    return memo.n_classes[0]


@nb.njit(cache=True)
def table_solver_kit(cards, mx, mx_cost, alloc_id, alloc_params, flip_threshold):
    """A CombatKit for table solves from jitted code (the game engine): ``cards`` has the
    four card arrays (the game's Static), the matchup and the fixed allocation. A table
    solve reads no deck, withdrawal or play buffers: they share one placeholder array."""
    unused = np.zeros(1, dtype=np.int64)
    return CombatKit(
        cards.card_hits,
        cards.card_purple,
        cards.card_sanity,
        cards.card_airship,
        unused,
        mx,
        mx_cost,
        alloc_id,
        alloc_params,
        0,
        alloc_params[:0],
        0,
        alloc_params[:0],
        EMPTY_TABLE,
        flip_threshold,
        unused,
        unused,
        unused,
        unused,
        unused,
        unused,
        unused,
    )


# -- a cache of solved tables: a game engine meets the same matchups again and again ------
SIG_SIZE = C.STATE_SIZE + C.MATCHUP_SIZE + C.NUM_STACKS + 4
CACHE_MATCHUPS, CACHE_ENTRIES = 0, 1  # cache_i: matchups cached, table entries in use
SIG_OFFSET = 1 << 20  # makes every signature entry non-negative for hashing


@nb.njit(cache=True)
def table_signature(st0, kit, memo, sig):
    """Everything a table depends on, as integers (the cache compares it exactly)."""
    mx, mx_cost, alloc_params = kit.mx, kit.mx_cost, kit.alloc_params
    ctx_i, ctx_f = memo.ctx_i, memo.ctx_f
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


@nb.njit(cache=True)
def cached_table(st0, kit, memo, cache):
    """Tag of the solved table for the combat starting at st0 (solved on a miss), or -1
    if it outgrew the buffers; cards drawn with cache.weight per card number.

    Every cached matchup's entries share memo.table under their own tag. When it or the
    signature store is full, everything is dropped and filled again: a table is a
    function of its signature alone, so results never depend on what was cached.
    """
    ctx_i, sig, cache_i = memo.ctx_i, cache.sig, cache.cache_i
    table_signature(st0, kit, memo, sig)
    h1, h2 = signature_keys(sig)
    mid = table_get(cache.sig_keys, cache.sig_rows, h1, h2)
    if mid != EMPTY:
        same = True
        for j in range(SIG_SIZE):
            if cache.sigs[mid, j] != sig[j]:
                same = False
                break
        if same:
            return mid
    if (
        cache_i[CACHE_MATCHUPS] >= cache.sigs.shape[0]
        or cache_i[CACHE_ENTRIES] + memo.values.shape[0] > memo.table.shape[0] // 2
    ):
        reset_cache(memo.table, cache.sig_keys, cache.sig_rows, cache_i)
        mid = EMPTY
    tag = cache_i[CACHE_MATCHUPS]
    group_deck(st0, kit, cache.weight, memo)
    memo.tag = tag
    row = solve_table(st0, kit, memo)
    if row < 0:
        return -1
    cache_i[CACHE_ENTRIES] += ctx_i[CTX_STATES]
    cache_i[CACHE_MATCHUPS] = tag + 1
    if mid == EMPTY:  # (a hash collision with another signature keeps the first one cached)
        for j in range(SIG_SIZE):
            cache.sigs[tag, j] = sig[j]
        table_put(cache.sig_keys, cache.sig_rows, h1, h2, tag)
    return tag

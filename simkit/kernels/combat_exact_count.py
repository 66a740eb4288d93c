"""How many nodes the exact solver would need, counted without solving: a cheap screen.

:func:`simkit.kernels.combat_exact.node_value` stores one node per reachable (deck
composition, combat state) and gives up once it needs more than its state budget; an
attempt that fails pays for the whole budget. :func:`count_nodes` walks the same nodes in
the same way (the same withdrawal options, draws, reshuffles, stalemates and fixed
allocation) but carries no values, so it learns that a matchup will not fit for a part of
that price. It handles what the odds table asks (a fixed allocation policy, a fixed
withdraw policy or the optimal-withdrawal search, no Corporal Jones); anything else is
the caller's to leave to the solver.
"""

import numba as nb

from simkit.kernels.combat import (
    NO_NRT,
    apply_card,
    card_effect,
    check_end,
    combatants,
    copy_into,
    has_withdrawable,
    place_cubes,
    withdraw,
)
from simkit.kernels.combat_exact import policy_split, rest_key
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.deck import composition_key
from simkit.kernels.low.hashtable import EMPTY, table_get, table_put
from strategies.combat.withdrawal import withdraw_decision

COUNT_MORE, COUNT_DEEP = -1, -2  # past the limit; a fight deeper than the buffers


@nb.njit(**NO_NRT)
def count_nodes(
    st,
    comp,
    full,
    place,
    st0,
    mx,
    mx_cost,
    cls_hits,
    cls_purple,
    cls_sanity,
    cls_airship,
    alloc_id,
    alloc_params,
    wd_id,
    wd_params,
    wd_table,
    optimal_wd,
    keys,
    rows,
    count,
    limit,
    sbuf,
    ibuf,
    cbuf,
):
    """Add the nodes reachable from (st, comp) that are not in ``keys`` yet to the count
    (count[0]); returns 0, or COUNT_MORE once the count passes ``limit``, or COUNT_DEEP if
    a fight is deeper than the buffers (then the solver overflows too; not a count).
    Arguments as node_value's; ``optimal_wd``: explore every withdrawal option (the
    optimal-withdrawal solve) instead of the fixed policy wd_id."""
    k1 = composition_key(comp, place)
    k2 = rest_key(st, st0, mx)
    if table_get(keys, rows, k1, k2) != EMPTY:
        return 0
    if count[0] >= limit:
        return COUNT_MORE
    table_put(keys, rows, k1, k2, count[0])
    count[0] += 1
    d = st[C.CARDS]
    if d >= sbuf.shape[0]:
        return COUNT_DEEP
    here, after, scratch = sbuf[d, 0], sbuf[d, 1], sbuf[d, 2]
    dmg = ibuf[d, 0, : C.MAX_OLD_ONES]
    split_row = ibuf[d, 1:2, : C.NUM_STACKS]
    reshuffled = cbuf[d]
    explore = optimal_wd & (mx[C.CAN_WITHDRAW] != 0)
    fixed_option = C.STAY
    if mx[C.CAN_WITHDRAW] != 0 and not explore:
        fixed_option = withdraw_decision(wd_id, wd_params, wd_table, st, mx)
    for option in range(4):
        if explore:
            if option != C.STAY and not has_withdrawable(st, mx):
                continue
        elif option != fixed_option:
            continue
        copy_into(here, st)  # leave(): everyone gone ends the fight, nobody to move skips
        if option != C.STAY:
            if not withdraw(here, mx, option):
                continue
            if combatants(here, mx) == 0:
                continue
        deck = comp
        total = 0
        for c in range(comp.size):
            total += comp[c]
        if total == 0:
            if here[C.RESHUFFLES] > 0 and here[C.PROGRESS] == 0:
                continue  # a stalemate
            copy_into(reshuffled, full)
            deck = reshuffled
            here[C.RESHUFFLES] += 1
            here[C.PROGRESS] = 0
        for c in range(deck.size):
            if deck[c] == 0:
                continue
            deck[c] -= 1
            p, s_loss, a = card_effect(
                here, mx, cls_hits, cls_purple, cls_sanity, cls_airship, c, dmg
            )
            policy_split(here, mx, mx_cost, p, alloc_id, alloc_params, scratch, split_row)
            copy_into(after, here)
            after[C.CARDS] += 1
            for s in range(C.NUM_STACKS):
                place_cubes(after, mx, s, split_row[0, s])
            short = apply_card(after, mx, dmg, s_loss, a)
            if check_end(after, mx, short) == C.ONGOING:
                found = count_nodes(
                    after,
                    deck,
                    full,
                    place,
                    st0,
                    mx,
                    mx_cost,
                    cls_hits,
                    cls_purple,
                    cls_sanity,
                    cls_airship,
                    alloc_id,
                    alloc_params,
                    wd_id,
                    wd_params,
                    wd_table,
                    optimal_wd,
                    keys,
                    rows,
                    count,
                    limit,
                    sbuf,
                    ibuf,
                    cbuf,
                )
                if found < 0:
                    deck[c] += 1
                    return found
            deck[c] += 1
    return 0

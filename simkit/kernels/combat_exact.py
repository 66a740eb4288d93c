"""Exact combat odds: backward induction over (deck composition, combat state).

Cards that do the same thing in a matchup are grouped into classes; a node is the
state before a draw plus how many cards of each class are left. Every node's value
is a vector of *future* quantities (from that node to the end of combat), so the
memo never depends on history:

    V[OBJ]            objective the optimal policy maximises
    V[OUT + o]        probability of each outcome o (win, win_and_defeat, defeat, withdraw)
    V[CARDS]          expected cards still to draw
    V[LOST + s]       expected units of stack s still to lose
    V[GOLD]           expected Gold value still to lose
    V[FLIP]           probability the (Revenge) port flips to strength 2
    V[HIST + k]       probability that k more units (port excluded) are lost

Decisions (withdrawal before a draw, cube allocation, Corporal Jones) are either a
fixed policy (shared with the Monte Carlo kernel) or chosen to maximise V[OBJ].
The same card_effect / apply_card / check_end / finish functions resolve cards.

One expander, :func:`exact_node`, walks the nodes in two modes (a literal argument, so
numba compiles each mode apart): VALUE solves (:func:`node_value`), COUNT only counts the
nodes a solve would store (:func:`count_nodes`, simkit.kernels.combat_exact_count). A
kernel takes the fight's CombatKit (simkit.kernels.low.combat_kit) and the solve's
ExactMemo (simkit.kernels.combat_memo).
"""

import numba as nb
import numpy as np

from simkit.kernels.combat import (
    LOST_HIST,
    absorbable,
    apply_card,
    card_effect,
    check_end,
    combatants,
    copy_into,
    finish,
    has_withdrawable,
    jones_available,
    place_cubes,
    port_flipped,
    resolve_by_policy,
    withdraw,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.deck import composition_key
from simkit.kernels.low.hashtable import EMPTY, table_get, table_put
from strategies.combat.allocation import OPTIMAL as ALLOC_OPTIMAL
from strategies.combat.allocation import choose_stack
from strategies.combat.withdrawal import OPTIMAL as WD_OPTIMAL
from strategies.combat.withdrawal import jones_decision, withdraw_decision

OBJ = 0
OUT = 1
CARDS = OUT + C.NUM_OUTCOMES
LOST = CARDS + 1
GOLD = LOST + C.NUM_STACKS
FLIP = GOLD + 1
HIST = FLIP + 1
NV = HIST + LOST_HIST

# ctx_i: integer settings of one solve
CTX_ALLOC, CTX_WD, CTX_OBJECTIVE, CTX_FLIP_THRESHOLD, CTX_OVERFLOW, CTX_STATES = 0, 1, 2, 3, 4, 5
# ctx_f: float settings
CTXF_DESTROY_VALUE = 0
OBJ_P_DESTROY, OBJ_VALUE = 0, 1
TIE = 1e-12


@nb.njit(cache=True, inline="always")
def rest_key(st, st0, mx):
    """Mixed-radix index of everything but the deck that the future depends on."""
    key = 0
    for s in range(C.NUM_STACKS):
        if st0[C.COUNT + s] > 0:
            key = key * (st0[C.COUNT + s] + 1) + st[C.COUNT + s]
            key = key * mx[C.CAPACITY + s] + st[C.DAMAGE + s]
    key = key * (st0[C.SANITY] + 1) + st[C.SANITY]
    for i in range(C.MAX_OLD_ONES):
        if mx[C.OO_TYPE + i] >= 0:
            key = key * (mx[C.OO_CAPACITY + i] + 1) + min(
                st[C.OO_DAMAGE + i], mx[C.OO_CAPACITY + i]
            )
    # what the stalemate rule needs: still on the first deck (0), or on a fresh deck with
    # (2) or without (1) a change since the reshuffle
    key = key * 3 + (0 if st[C.RESHUFFLES] == 0 else 1 + st[C.PROGRESS])
    key = key * 2 + st[C.JONES_USED]
    return key


@nb.njit(cache=True, inline="always")
def set_objective(v, ctx_i, ctx_f):
    p_destroy = v[OUT + C.WIN] + v[OUT + C.WIN_AND_DEFEAT]
    if ctx_i[CTX_OBJECTIVE] == OBJ_VALUE:
        v[OBJ] = ctx_f[CTXF_DESTROY_VALUE] * p_destroy - v[GOLD]
    else:
        v[OBJ] = p_destroy


@nb.njit(cache=True, inline="always")
def better(a, b, ctx_i):
    """Is vector a strictly preferred to b?

    Ties in the objective go to the line that loses less Gold (P(destroy) objective),
    then to the one that draws fewer cards: a fight that cannot gain anything is left.
    """
    if a[OBJ] > b[OBJ] + TIE:
        return True
    if a[OBJ] < b[OBJ] - TIE:
        return False
    if ctx_i[CTX_OBJECTIVE] == OBJ_P_DESTROY:
        if a[GOLD] < b[GOLD] - TIE:
            return True
        if a[GOLD] > b[GOLD] + TIE:
            return False
    return a[CARDS] < b[CARDS] - TIE


@nb.njit(cache=True, inline="always")
def keep_better(v, best, best_option, option, ctx_i):
    """The option to keep after valuing ``option`` at v (best holds the kept value)."""
    if best_option < 0 or better(v, best, ctx_i):
        copy_into(best, v)
        return option
    return best_option


LEAVE_SKIP, LEAVE_DONE, LEAVE_DRAW = 0, 1, 2


@nb.njit(cache=True, inline="always")
def leave(here, st, mx, option):
    """Apply a withdrawal option to a copy of st in ``here``: LEAVE_SKIP (nobody of that
    group to leave), LEAVE_DONE (everyone left: ``here`` is the finished fight) or
    LEAVE_DRAW."""
    copy_into(here, st)
    if option == C.STAY:
        return LEAVE_DRAW
    if not withdraw(here, mx, option):
        return LEAVE_SKIP
    if combatants(here, mx) == 0:
        finish(here, mx, C.WITHDRAW)
        return LEAVE_DONE
    return LEAVE_DRAW


@nb.njit(cache=True, inline="always")
def step_delta(v, before, after, mx_cost):
    """Add what happened between two states (cards, losses) to a future-value vector."""
    units = 0
    for s in range(C.NUM_STACKS):
        d = after[C.LOST + s] - before[C.LOST + s]
        v[LOST + s] += d
        v[GOLD] += d * mx_cost[s]
        if s != C.PORT_STACK:
            units += d
    v[CARDS] += after[C.CARDS] - before[C.CARDS]
    if units > 0:  # shift the loss histogram; the last bin collects "that many or more"
        last = LOST_HIST - 1
        tail = 0.0
        for j in range(max(last - units, 0), LOST_HIST):
            tail += v[HIST + j]
        for k in range(last - 1, -1, -1):
            v[HIST + k] = v[HIST + k - units] if k - units >= 0 else 0.0
        v[HIST + last] = tail


@nb.njit(cache=True)
def terminal(st_end, before, mx_cost, ctx_i, ctx_f):
    """Value of a finished combat, relative to the node state ``before``."""
    v = np.zeros(NV)
    terminal_into(v, st_end, before, mx_cost, ctx_i, ctx_f)
    return v


@nb.njit(cache=True, inline="always")
def terminal_into(v, st_end, before, mx_cost, ctx_i, ctx_f):
    for k in range(NV):
        v[k] = 0.0
    v[OUT + st_end[C.OUTCOME]] = 1.0
    v[HIST] = 1.0
    v[FLIP] = 1.0 if port_flipped(st_end, ctx_i[CTX_FLIP_THRESHOLD]) else 0.0
    step_delta(v, before, st_end, mx_cost)
    set_objective(v, ctx_i, ctx_f)


@nb.njit(cache=True, inline="always")
def policy_split(st, kit, n, alloc_id, scratch, split):
    """Cubes per stack (into split[0]) that the fixed allocation policy alloc_id (with the
    kit's parameters) would place."""
    copy_into(scratch, st)
    for s in range(C.NUM_STACKS):
        split[0, s] = 0
    for _ in range(n):
        s = choose_stack(alloc_id, kit.alloc_params, scratch, kit.mx, kit.mx_cost)
        if s < 0:
            break
        place_cubes(scratch, kit.mx, s, 1)
        split[0, s] += 1


@nb.njit(cache=True, inline="always")
def all_splits(st, mx, n, rows):
    """Every way to share n purple cubes among the stacks that can take them.

    Writes one split per row of ``rows`` (cubes per stack) and returns how many;
    -1 if ``rows`` is too small (the caller reports it).
    """
    elig = rows[rows.shape[0] - 1, :]  # the last two rows are scratch space
    k = 0
    total_room = 0
    for s in range(C.NUM_STACKS):
        if mx[C.TAKES_PURPLE + s] != 0 and st[C.COUNT + s] > 0:
            elig[k] = s
            total_room += absorbable(st, mx, s)
            k += 1
    n = min(n, total_room)
    if k == 0:
        for s in range(C.NUM_STACKS):
            rows[0, s] = 0
        return 1
    # odometer over the cubes given to the first k-1 eligible stacks
    split = rows[rows.shape[0] - 2, :]
    for j in range(C.NUM_STACKS):
        split[j] = 0
    found = 0
    while True:
        used = 0
        for j in range(k - 1):
            used += split[j]
        last = n - used
        if 0 <= last <= absorbable(st, mx, elig[k - 1]):
            if found >= rows.shape[0] - 2:
                return -1
            for s in range(C.NUM_STACKS):
                rows[found, s] = 0
            for j in range(k - 1):
                rows[found, elig[j]] = split[j]
            rows[found, elig[k - 1]] = last
            found += 1
        j = 0
        while j < k - 1:
            split[j] += 1
            if split[j] <= min(absorbable(st, mx, elig[j]), n):
                break
            split[j] = 0
            j += 1
        if j >= k - 1:
            break
    return found


# The expander's modes (a literal argument: numba compiles one specialisation per mode and
# folds the tests on it). VALUE solves; COUNT walks the same nodes carrying no values.
VALUE, COUNT = 0, 1
COUNT_MORE, COUNT_DEEP = -1, -2  # COUNT: past the limit; a fight deeper than the buffers


@nb.njit(cache=True)
def exact_node(mode, st, comp, kit, memo):
    """Expand the node (state ``st`` before a withdrawal decision and the next draw, cards
    ``comp`` left by class) with the fight's CombatKit (class card arrays) and ExactMemo.

    VALUE: the row of memo.values holding its value (-1 once the state budget is
    exhausted, ctx_i[CTX_OVERFLOW] says why); features[row] = (sanity, units left, total
    Old One damage, cards drawn), so the policy can be summarised in words.
    COUNT: add the nodes not in memo.keys yet to ctx_i[CTX_STATES]; 0, or COUNT_MORE once
    the count passes memo.limit, or COUNT_DEEP if a fight is deeper than the buffers (then
    the solver overflows too). It covers what the odds table asks (a fixed allocation, a
    fixed or the optimal withdrawal); Corporal Jones only ends fights, so adds no node.
    """
    ctx_i, ctx_f = memo.ctx_i, memo.ctx_f
    if mode == VALUE and ctx_i[CTX_OVERFLOW] != 0:
        return -1
    mx, mx_cost = kit.mx, kit.mx_cost
    keys, rows = memo.keys, memo.rows
    k1 = composition_key(comp, memo.place)
    k2 = rest_key(st, memo.st0, mx)
    found = table_get(keys, rows, k1, k2)
    if found != EMPTY:
        return found if mode == VALUE else 0
    if mode == COUNT:  # counted before its children (a count needs no values)
        if ctx_i[CTX_STATES] >= memo.limit:
            return COUNT_MORE
        table_put(keys, rows, k1, k2, ctx_i[CTX_STATES])
        ctx_i[CTX_STATES] += 1
    d = st[C.CARDS]
    sbuf, vbuf, ibuf = memo.sbuf, memo.vbuf, memo.ibuf
    if d >= sbuf.shape[0]:
        if mode == COUNT:
            return COUNT_DEEP
        ctx_i[CTX_OVERFLOW] = 1  # a fight longer than the buffers (many reshuffles): too large
        return -1
    here, after, scratch = sbuf[d, 0], sbuf[d, 1], sbuf[d, 2]
    best, v, vc, w = vbuf[d, 0], vbuf[d, 1], vbuf[d, 2], vbuf[d, 3]
    dmg = ibuf[d, 0, : C.MAX_OLD_ONES]
    split_row = ibuf[d, 1:2, : C.NUM_STACKS]
    reshuffled = memo.cbuf[d]
    # the card arrays in locals: a StructRef field read is a reference count (NRT) each
    hits, purple = kit.card_hits, kit.card_purple
    sanity, airship = kit.card_sanity, kit.card_airship
    best_option = -1
    optimal_wd = (ctx_i[CTX_WD] == WD_OPTIMAL) & (mx[C.CAN_WITHDRAW] != 0)
    fixed_option = C.STAY
    if mx[C.CAN_WITHDRAW] != 0 and not optimal_wd:
        fixed_option = withdraw_decision(ctx_i[CTX_WD], kit.wd_params, kit.wd_table, st, mx)
    for option in range(4):
        if optimal_wd:
            if option != C.STAY and not has_withdrawable(st, mx):
                continue
        elif option != fixed_option:
            continue
        how = leave(here, st, mx, option)
        if how == LEAVE_SKIP:
            continue
        if how == LEAVE_DONE:
            if mode == VALUE:
                terminal_into(v, here, st, mx_cost, ctx_i, ctx_f)
                best_option = keep_better(v, best, best_option, option, ctx_i)
            continue
        # --- draw the next card ------------------------------------------
        deck = comp
        total = 0
        for c in range(comp.size):
            total += comp[c]
        if total == 0:
            if here[C.RESHUFFLES] > 0 and here[C.PROGRESS] == 0:
                if mode == VALUE:  # a whole deck changed nothing: a stalemate, as in play
                    finish(here, mx, C.STALEMATE)
                    terminal_into(v, here, st, mx_cost, ctx_i, ctx_f)
                    best_option = keep_better(v, best, best_option, option, ctx_i)
                continue
            copy_into(reshuffled, memo.full)
            deck = reshuffled
            here[C.RESHUFFLES] += 1
            here[C.PROGRESS] = 0
            for c in range(deck.size):
                total += deck[c]
        if mode == VALUE:
            for k in range(NV):
                v[k] = 0.0
        for c in range(deck.size):
            if deck[c] == 0:
                continue
            prob = deck[c] / total
            deck[c] -= 1
            p, s_loss, a = card_effect(here, mx, hits, purple, sanity, airship, c, dmg)
            if mode == VALUE and ctx_i[CTX_ALLOC] == ALLOC_OPTIMAL and p > 0:
                splits = memo.split_buf[d]
                n_splits = all_splits(here, mx, p, splits)
                if n_splits < 0:
                    ctx_i[CTX_OVERFLOW] = 2  # more splits than the buffer holds
                    return -1
            else:
                policy_split(here, kit, p, ctx_i[CTX_ALLOC], scratch, split_row)
                splits = split_row
                n_splits = 1
            for r in range(n_splits):
                copy_into(after, here)
                after[C.CARDS] += 1
                for s in range(C.NUM_STACKS):
                    place_cubes(after, mx, s, splits[r, s])
                short = apply_card(after, mx, dmg, s_loss, a)
                outcome = check_end(after, mx, short)
                if outcome != C.ONGOING:
                    if mode == VALUE:
                        finish(after, mx, outcome)
                        terminal_into(w, after, here, mx_cost, ctx_i, ctx_f)
                else:
                    row = exact_node(mode, after, deck, kit, memo)
                    if row < 0:
                        deck[c] += 1
                        return row
                    if mode == VALUE:
                        copy_into(w, memo.values[row])
                        step_delta(w, here, after, mx_cost)
                        set_objective(w, ctx_i, ctx_f)
                if mode == VALUE and (r == 0 or better(w, vc, ctx_i)):
                    copy_into(vc, w)
            # Corporal Jones: withdraw everything after seeing the card, before it resolves.
            if mode == VALUE and jones_available(here, mx):
                copy_into(after, here)
                after[C.CARDS] += 1
                after[C.JONES_USED] = 1
                withdraw(after, mx, C.WITHDRAW_ALL)
                finish(after, mx, C.WITHDRAW)
                terminal_into(w, after, here, mx_cost, ctx_i, ctx_f)
                if ctx_i[CTX_WD] == WD_OPTIMAL:
                    take = better(w, vc, ctx_i)
                else:  # the Monte Carlo kernel's rule: peek with the fixed allocation
                    copy_into(scratch, here)
                    take = jones_decision(jones_peek(scratch, kit, c, dmg, ctx_i[CTX_ALLOC]))
                if take:
                    copy_into(vc, w)
            deck[c] += 1
            if mode == VALUE:
                for k in range(NV):
                    v[k] += prob * vc[k]
        if mode == VALUE:
            set_objective(v, ctx_i, ctx_f)
            best_option = keep_better(v, best, best_option, option, ctx_i)
    if mode == COUNT:
        return 0
    return store_node(st, kit, memo, k1, k2, best, best_option)


@nb.njit(cache=True, inline="always")
def jones_peek(scratch, kit, c, dmg, alloc_id):
    """resolve_by_policy on the kit's cards: would card c defeat the force?"""
    return resolve_by_policy(
        scratch,
        kit.mx,
        kit.mx_cost,
        kit.card_hits,
        kit.card_purple,
        kit.card_sanity,
        kit.card_airship,
        c,
        dmg,
        alloc_id,
        kit.alloc_params,
    )


@nb.njit(cache=True, inline="always")
def store_node(st, kit, memo, k1, k2, best, best_option):
    """Store a solved node's value, decision and features; its row (-1 if memo is full)."""
    ctx_i, mx = memo.ctx_i, kit.mx
    index = ctx_i[CTX_STATES]
    if index >= memo.values.shape[0]:
        ctx_i[CTX_OVERFLOW] = 1
        return -1
    copy_into(memo.values[index], best)
    memo.decisions[index] = best_option
    features = memo.features
    features[index, 0] = st[C.SANITY]
    features[index, 1] = combatants(st, mx) - (
        st[C.COUNT + C.PORT_STACK] if mx[C.PORT_FIGHTS] != 0 else 0
    )
    oo = 0
    for i in range(C.MAX_OLD_ONES):
        oo += st[C.OO_DAMAGE + i]
    features[index, 2] = oo
    features[index, 3] = st[C.CARDS]
    table_put(memo.keys, memo.rows, k1, k2, index)
    ctx_i[CTX_STATES] = index + 1
    return index


@nb.njit(cache=True)
def node_value(st, comp, kit, memo):
    """The row of memo.values holding the value of the root ``st`` (exact_node, VALUE)."""
    return exact_node(VALUE, st, comp, kit, memo)


@nb.njit(cache=True)
def count_nodes(st, comp, kit, memo):
    """Count the nodes reachable from ``st`` into memo.ctx_i[CTX_STATES] (exact_node,
    COUNT): 0, COUNT_MORE or COUNT_DEEP."""
    return exact_node(COUNT, st, comp, kit, memo)

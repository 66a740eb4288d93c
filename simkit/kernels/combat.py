"""AuZtralia combat resolution ("Resolving Combat", base rules + Revenge ports/outposts).

Resolution is split from chance: :func:`card_effect` reads one drawn card,
:func:`apply_card` changes the state, :func:`check_end` / :func:`finish` close the
combat. The Monte Carlo loop here and the exact solver in combat_exact.py call
exactly these functions. State layout: simkit/kernels/low/combat_layout.py.
"""

import numba as nb
import numpy as np

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.deck import draw_card, refill_full
from strategies.combat.allocation import SPREAD, choose_stack
from strategies.combat.withdrawal import jones_decision, withdraw_decision

# The Monte Carlo loop is compiled with _nrt=False: numba's reference counting of
# array arguments around every inlined helper call blocks LLVM from keeping array
# metadata in registers (measured: 38 ns -> 6 ns per card effect). Such kernels
# must not allocate, so callers pass in every work buffer.
NO_NRT = {"cache": True, "_nrt": False}
NUM_UNIT_BITS = 5
LOST_HIST = 16  # histogram bins for units lost in one combat (last bin: that many or more)


@nb.njit(cache=True, inline="always")
def copy_into(dst, src):
    """dst[:len(src)] = src without a temporary (usable in no-NRT kernels)."""
    for k in range(src.size):
        dst[k] = src[k]


@nb.njit(cache=True, inline="always")
def present_mask(st, mx):
    """Bit mask of the unit types fighting now (the card's hit symbols are matched to it).
    The Port token hits only where it fights (mx[PORT_FIGHTS])."""
    mask = 0
    for s in range(C.NUM_STACKS):
        if (
            st[C.COUNT + s] > 0
            and mx[C.HITBIT + s] >= 0
            and (s != C.PORT_STACK or mx[C.PORT_FIGHTS] != 0)
        ):
            mask |= 1 << mx[C.HITBIT + s]
    return mask


@nb.njit(cache=True, inline="always")
def combatants(st, mx):
    """Units still in the fight (a Port token that only takes cubes is not one)."""
    n = 0
    for s in range(C.NUM_STACKS):
        if s != C.PORT_STACK or mx[C.PORT_FIGHTS] != 0:
            n += st[C.COUNT + s]
    return n


@nb.njit(cache=True, inline="always")
def absorbable(st, mx, s):
    """Cubes stack s can still take before its last unit is gone."""
    return st[C.COUNT + s] * mx[C.CAPACITY + s] - st[C.DAMAGE + s]


@nb.njit(cache=True, inline="always")
def old_one_alive(st, mx, i):
    # bitwise &, not `and`: numba compiles the short-circuit form to a much slower branch
    return (mx[C.OO_TYPE + i] >= 0) & (st[C.OO_DAMAGE + i] < mx[C.OO_CAPACITY + i])


@nb.njit(cache=True, inline="always")
def place_cubes(st, mx, s, n):
    """Put n cubes on stack s one at a time; a full stack loses its top unit. Returns how
    many were placed (any: the fight has changed, st[PROGRESS])."""
    placed = 0
    while placed < n and st[C.COUNT + s] > 0:
        st[C.DAMAGE + s] += 1
        st[C.PROGRESS] = 1
        placed += 1
        if s == C.PORT_STACK:
            st[C.PORT_HITS] += 1
        if st[C.DAMAGE + s] >= mx[C.CAPACITY + s]:
            st[C.COUNT + s] -= 1
            st[C.LOST + s] += 1
            st[C.DAMAGE + s] = 0
    return placed


@nb.njit(cache=True, inline="always")
def popcount5(x):
    x = (x & 0x15) + ((x >> 1) & 0x05)  # pairs of bits (unit bits 0..4)
    return (x & 0x03) + ((x >> 2) & 0x03) + ((x >> 4) & 0x01)


@nb.njit(cache=True, inline="always")
def card_effect(st, mx, card_hits, card_purple, card_sanity, card_airship, c, dmg_out):
    """What card c does: damage per Old One (into dmg_out) and (purple, sanity, airship) taken.

    Several Old Ones share the card: each takes the hits of its own row, and what
    each row inflicts is added once per living Old One (multiplied by their number).
    mx[EXTRA_PURPLE] more purple cubes come with every card (Revenge Mythos, else 0).
    """
    mask = present_mask(st, mx)
    p = 0
    s_loss = 0
    a = 0
    for i in range(C.MAX_OLD_ONES):
        dmg_out[i] = 0
        if not old_one_alive(st, mx, i):
            continue
        t = mx[C.OO_TYPE + i]
        dmg_out[i] = popcount5(np.int64(card_hits[c, t]) & mask)
        p += card_purple[c, t]
        s_loss += card_sanity[c, t]
        a += card_airship[c, t]
    return p + mx[C.EXTRA_PURPLE], s_loss, a


@nb.njit(cache=True, inline="always")
def apply_card(st, mx, dmg, sanity_loss, airship_damage):
    """Apply everything but the purple cubes; return True if sanity ran short (defeat)."""
    for i in range(C.MAX_OLD_ONES):
        st[C.OO_DAMAGE + i] += dmg[i]
        if dmg[i] > 0:
            st[C.PROGRESS] = 1
    if sanity_loss > 0:
        st[C.PROGRESS] = 1
    place_cubes(st, mx, C.AIRSHIP_STACK, airship_damage)
    short = sanity_loss > st[C.SANITY]
    st[C.SANITY] = max(st[C.SANITY] - sanity_loss, 0)
    return short


@nb.njit(cache=True, inline="always")
def place_purple_by_policy(st, mx, mx_cost, n, alloc_id, alloc_params):
    while n > 0:
        s = choose_stack(alloc_id, alloc_params, st, mx, mx_cost)
        if s < 0:
            return
        # Only SPREAD looks at damage; the others keep choosing s until its stack is
        # gone, so the cubes it can absorb go on together (same result, fewer choices).
        k = 1 if alloc_id == SPREAD else min(n, absorbable(st, mx, s))
        place_cubes(st, mx, s, k)
        n -= k


@nb.njit(cache=True, inline="always")
def check_end(st, mx, sanity_short):
    all_dead = True
    for i in range(C.MAX_OLD_ONES):
        if old_one_alive(st, mx, i):
            all_dead = False
    if (
        mx[C.PORT_JOINS] != 0
        and mx[C.PORT_FIGHTS] == 0
        and st[C.COUNT + C.PORT_STACK] > 0
        and combatants(st, mx) == 0
    ):
        mx[C.PORT_FIGHTS] = 1  # reading port_as_infantry: the token fights on as Infantry
    defeated = sanity_short | (combatants(st, mx) == 0)
    if all_dead:
        return C.WIN_AND_DEFEAT if defeated else C.WIN
    return C.DEFEAT if defeated else C.ONGOING


@nb.njit(cache=True, inline="always")
def finish(st, mx, outcome):
    """End of Combat Resolution: damaged units die on defeat, otherwise all heal (or,
    with mx[KEEP_DAMAGE], keep their damage for the caller to carry on).

    The port is not a unit of the force: it is lost only by being knocked down to
    nothing or by Old Ones left standing (the caller's business), never by this rule.
    """
    defeated = (outcome == C.DEFEAT) | (outcome == C.WIN_AND_DEFEAT)
    keep = (mx[C.KEEP_DAMAGE] != 0) & (outcome != C.DEFEAT) & (outcome != C.WIN_AND_DEFEAT)
    for s in range(C.NUM_STACKS):
        if defeated and s != C.PORT_STACK and st[C.DAMAGE + s] > 0 and st[C.COUNT + s] > 0:
            st[C.COUNT + s] -= 1
            st[C.LOST + s] += 1
        if not keep or st[C.COUNT + s] == 0:
            st[C.DAMAGE + s] = 0
    st[C.OUTCOME] = outcome


@nb.njit(cache=True, inline="always")
def port_flipped(st, flip_threshold):
    """Revenge: a port that survives (Old Ones gone) after taking enough damage flips to 2."""
    won = (st[C.OUTCOME] == C.WIN) | (st[C.OUTCOME] == C.WIN_AND_DEFEAT)
    return won & (st[C.COUNT + C.PORT_STACK] > 0) & (st[C.PORT_HITS] >= flip_threshold)


@nb.njit(cache=True, inline="always")
def withdraw(st, mx, option):
    """Take a withdrawal group home undamaged; return True if anything left."""
    moved = False
    for s in range(C.NUM_STACKS):
        g = mx[C.GROUP + s]
        if g == C.GROUP_NONE or st[C.COUNT + s] == 0:
            continue
        if (
            option == C.WITHDRAW_ALL
            or (option == C.WITHDRAW_AIRSHIPS and g == C.GROUP_AIRSHIPS)
            or (option == C.WITHDRAW_OTHERS and g == C.GROUP_OTHERS)
        ):
            st[C.COUNT + s] = 0
            st[C.DAMAGE + s] = 0
            moved = True
    if moved:
        st[C.PROGRESS] = 1
    return moved


@nb.njit(cache=True, inline="always")
def start_combat(st, mx):
    """Effects before the first card (Bombardier Milligan); returns the outcome so far."""
    if mx[C.MILLIGAN] > 0 and st[C.COUNT + 2] > 0:  # 2 = artillery
        first = -1
        for i in range(C.MAX_OLD_ONES):
            if old_one_alive(st, mx, i):
                first = mx[C.OO_TYPE + i]
                break
        for i in range(C.MAX_OLD_ONES):
            if old_one_alive(st, mx, i) and mx[C.OO_TYPE + i] == first:
                st[C.OO_DAMAGE + i] += mx[C.MILLIGAN]
    return check_end(st, mx, False)


@nb.njit(cache=True, inline="always")
def resolve_by_policy(
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    c,
    dmg,
    alloc_id,
    alloc_params,
):
    """Resolve card c with a fixed allocation policy; return the outcome."""
    p, s_loss, a = card_effect(st, mx, card_hits, card_purple, card_sanity, card_airship, c, dmg)
    place_purple_by_policy(st, mx, mx_cost, p, alloc_id, alloc_params)
    short = apply_card(st, mx, dmg, s_loss, a)
    return check_end(st, mx, short)


@nb.njit(cache=True, inline="always")
def has_withdrawable(st, mx):
    for s in range(C.NUM_STACKS):
        if mx[C.GROUP + s] != C.GROUP_NONE and st[C.COUNT + s] > 0:
            return True
    return False


@nb.njit(cache=True, inline="always")
def jones_available(st, mx):
    """Corporal Jones can pull the whole force out (an Outpost or Port never leaves)."""
    if mx[C.JONES] == 0 or st[C.JONES_USED] != 0 or mx[C.CAN_WITHDRAW] == 0:
        return False
    for s in range(C.NUM_STACKS):
        if mx[C.GROUP + s] == C.GROUP_NONE and st[C.COUNT + s] > 0:
            return False
    return has_withdrawable(st, mx)


@nb.njit(**NO_NRT)
def play_combat(
    rng,
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    deck,
    n_left,
    alloc_id,
    alloc_params,
    wd_id,
    wd_params,
    wd_table,
    scratch,
    dmg,
    script,
):
    """Play one combat to its end on ``st`` drawing from ``deck[:n_left]``; return n_left
    after it. "If the deck of Old One cards is exhausted, shuffle the discard pile to make
    a fresh deck": when a whole fresh deck has been drawn without changing the fight
    (st[PROGRESS] still 0), no card ever will, and the combat ends as a STALEMATE. That
    rule also bounds every fight (each pass that changes something uses up damage
    capacity, sanity or units).

    A non-empty ``script`` replaces chance: the k-th card drawn is script[k] (tests and
    replays), read as the first ``n_left`` cards and then whole decks of
    card_hits.shape[0] cards (so reshuffles and stalemates fall where they would);
    running past its end stops the combat as a withdrawal.
    """
    full = card_hits.shape[0]
    outcome = start_combat(st, mx)
    while outcome == C.ONGOING:
        if mx[C.CAN_WITHDRAW] != 0:
            option = withdraw_decision(wd_id, wd_params, wd_table, st, mx)
            if option != C.STAY and withdraw(st, mx, option) and combatants(st, mx) == 0:
                outcome = C.WITHDRAW
                break
        if n_left == 0 and st[C.RESHUFFLES] > 0 and st[C.PROGRESS] == 0:
            outcome = C.STALEMATE
            break
        if script.size > 0 and st[C.CARDS] >= script.size:
            withdraw(st, mx, C.WITHDRAW_ALL)
            outcome = C.WITHDRAW
            break
        if n_left == 0:
            n_left = full if script.size > 0 else refill_full(deck)
            st[C.RESHUFFLES] += 1
            st[C.PROGRESS] = 0
        if script.size > 0:
            c = script[st[C.CARDS]]
            n_left -= 1
        else:
            c, n_left = draw_card(rng, deck, n_left)
        st[C.CARDS] += 1
        if jones_available(st, mx):
            copy_into(scratch, st)
            peek = resolve_by_policy(
                scratch,
                mx,
                mx_cost,
                card_hits,
                card_purple,
                card_sanity,
                card_airship,
                c,
                dmg,
                alloc_id,
                alloc_params,
            )
            if jones_decision(peek):
                st[C.JONES_USED] = 1
                withdraw(st, mx, C.WITHDRAW_ALL)
                outcome = C.WITHDRAW
                break
        outcome = resolve_by_policy(
            st,
            mx,
            mx_cost,
            card_hits,
            card_purple,
            card_sanity,
            card_airship,
            c,
            dmg,
            alloc_id,
            alloc_params,
        )
    finish(st, mx, outcome)
    return n_left


@nb.njit(**NO_NRT)
def simulate_combats(
    rng,
    n_games,
    st0,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    start_deck,
    alloc_id,
    alloc_params,
    wd_id,
    wd_params,
    wd_table,
    flip_threshold,
    out_outcomes,
    out_lost,
    out_lost_hist,
    out_cards,
    work_deck,
    work_st,
    work_scratch,
    work_dmg,
    no_script,
):
    """Monte Carlo: ``n_games`` independent combats from st0, each from a fresh deck.

    Accumulates into out_outcomes[NUM_OUTCOMES], out_lost[7] (units lost per stack),
    out_lost_hist[LOST_HIST] (units lost per combat, port excluded) and
    out_cards[3] = (sum of cards drawn, sum of squares, port flips).
    work_*: buffers sized like the deck, the state (twice) and MAX_OLD_ONES;
    no_script: an empty int64 array.
    """
    st = work_st
    n_start = start_deck.size
    copy_into(work_deck, start_deck)
    for _ in range(n_games):
        # Drawn cards stay inside deck[:n_start] (swapped past n_left), so resetting the
        # count restores the deck; only a reshuffle (the whole deck back) needs a copy.
        if st[C.RESHUFFLES] > 0:
            copy_into(work_deck, start_deck)
        copy_into(st, st0)
        play_combat(
            rng,
            st,
            mx,
            mx_cost,
            card_hits,
            card_purple,
            card_sanity,
            card_airship,
            work_deck,
            n_start,
            alloc_id,
            alloc_params,
            wd_id,
            wd_params,
            wd_table,
            work_scratch,
            work_dmg,
            no_script,
        )
        outcome = st[C.OUTCOME]
        out_outcomes[outcome] += 1
        units = 0
        for s in range(C.NUM_STACKS):
            out_lost[s] += st[C.LOST + s]
            if s != C.PORT_STACK:
                units += st[C.LOST + s]
        out_lost_hist[min(units, LOST_HIST - 1)] += 1
        out_cards[0] += st[C.CARDS]
        out_cards[1] += st[C.CARDS] * st[C.CARDS]
        if port_flipped(st, flip_threshold):
            out_cards[2] += 1


@nb.njit(cache=True)
def play_script(
    rng,
    st,
    mx,
    mx_cost,
    card_hits,
    card_purple,
    card_sanity,
    card_airship,
    script,
    alloc_id,
    alloc_params,
    wd_id,
    wd_params,
    wd_table,
):
    """Resolve a combat on ``st`` with the cards drawn in the order ``script``.

    ``rng`` is never drawn from (the script decides every draw); it only keeps one
    compiled play_combat for chance and scripts alike.
    """
    deck = np.zeros(1, dtype=np.int64)
    play_combat(
        rng,
        st,
        mx,
        mx_cost,
        card_hits,
        card_purple,
        card_sanity,
        card_airship,
        deck,
        script.size,
        alloc_id,
        alloc_params,
        wd_id,
        wd_params,
        wd_table,
        st.copy(),
        np.zeros(C.MAX_OLD_ONES, dtype=np.int64),
        script,
    )

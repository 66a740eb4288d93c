"""Last Aurora: Project Athena - a convoy fighting one Automated Turret (Phase 4: Fire Weapons).

Chance is separate from resolution: :func:`advance` plays every deterministic part of
the fight (round start, choosing and paying for the next shot, the turret's Ambush, the
Grenade) until an Outcome card must be flipped; :func:`resolve_card` applies one flipped
card. The Monte Carlo loop (:func:`simulate`) and the exact solver (:func:`solve_exact`)
call exactly these two functions, so they cannot disagree about the rules.

Outcome card encoding: ``card_result[card, rating - 1]`` is MISS / HIT / JAM and
``card_damage[card, rating - 1]`` the damage value of a HIT (0 otherwise).

State ``st`` (int64[STATE_SIZE]). The first NUM_TRACKED slots are the quantities whose
expected final value the solvers report; the rest only steer the fight:

    DESTROYED        0/1 the turret is destroyed
    AMMO, CHARGED, HALF   tokens left: Ammo, Charged Batteries, Half-Discharged Batteries
    AMBUSHES         turret attacks on the convoy so far (damage = Detection row x this)
    SHOTS            weapon shots fired
    JAMS             weapons damaged by a jam (unusable for the rest of the game)
    JAMS_IGNORED     jam symbols ignored thanks to a Cyborg
    GRENADES_THROWN  0/1
    GRENADE_DAMAGE   damage the convoy took from the Grenade's jam check
    CARDS            Outcome cards flipped
    ROUND            rounds begun
    INTACT           bit w set: weapon w is undamaged
    USED             bit w set: weapon w already fired in this round's step
    TURRET_DAMAGE    damage on the turret (stays 0 unless damage accumulates, a variant)
    GRENADE          Grenades held (0/1)
    STEP             where in the round the fight is (S_*)
    PENDING          the flipped card is for: weapon w >= 0, PENDING_GRENADE,
                     PENDING_AMBUSH, or -1 (no card awaited)

Matchup ``mx`` (int64[MATCHUP_SIZE]): settings fixed for one fight, see M_* below.
"""

import numba as nb
import numpy as np

from simkit.kernels.low.deck import composition_key, draw_card, refill_full
from simkit.kernels.low.hashtable import EMPTY, table_get, table_put

# Outcome card results
MISS, HIT, JAM = 0, 1, 2
# What a weapon shot costs
COST_AMMO, COST_CHARGED, COST_HALF = 0, 1, 2
# When a weapon fires: a location's weapon during Gather Resources (before the Ambush),
# a convoy weapon in the Convoys Fire step of Phase 4
PHASE_GATHER, PHASE_FIRE = 0, 1
# When the Grenade is thrown in the Convoys Fire step: before or after the weapons
USE_FIRST, USE_LAST = 0, 1
# advance() results
DONE, DRAW = 0, 1
MAX_WEAPONS = 8

# -- state layout -------------------------------------------------------------------
DESTROYED, AMMO, CHARGED, HALF, AMBUSHES, SHOTS, JAMS, JAMS_IGNORED = 0, 1, 2, 3, 4, 5, 6, 7
GRENADES_THROWN, GRENADE_DAMAGE, CARDS, ROUND = 8, 9, 10, 11
NUM_TRACKED = 12
INTACT, USED, TURRET_DAMAGE, GRENADE, STEP, PENDING = 12, 13, 14, 15, 16, 17
STATE_SIZE = 18
TRACKED_NAMES = (
    "destroyed",
    "ammo",
    "charged",
    "half",
    "ambushes",
    "shots",
    "jams",
    "jams_ignored",
    "grenades_thrown",
    "grenade_damage",
    "cards",
    "rounds",
)

PENDING_GRENADE = MAX_WEAPONS
PENDING_AMBUSH = MAX_WEAPONS + 1
# round steps, in order
S_START, S_GATHER, S_AMBUSH, S_GRENADE_FIRST, S_FIRE, S_GRENADE_LAST = 0, 1, 2, 3, 4, 5
NUM_STEPS = 6

# -- matchup layout -----------------------------------------------------------------
M_NUM_WEAPONS = 0
M_DEFENSE = 1
M_ACCUMULATE = 2  # 1: a weak hit stays on the turret (not the rules: a what-if)
M_AMBUSH_DRAWS = 3  # 1: each turret attack flips (uses up) one Outcome card
M_CYBORG = 4  # 1: a Cyborg is in the Active Zone
M_CYBORG_GRENADE = 5  # 1: the Cyborg also ignores the Grenade's jam check
M_GRENADE_RATING = 6
M_GRENADE_DAMAGE = 7
M_GRENADE_SELF_DAMAGE = 8
M_GRENADE_USE = 9  # USE_FIRST | USE_LAST
M_MAX_ROUNDS = 10  # 0: fight until the turret falls or the convoy cannot attack
M_TWO_HALF = 11  # 1: two Half-Discharged may pay for a Charged (not the rules)
M_FLIP = 12  # 1: a Half cost may be paid by flipping a Charged Battery
M_PREFER_FLIP = 13  # 1: pay a Half cost by flipping a Charged even if a Half is held
W_RATING = 14  # + w: weapon rating (1-based row of the Outcome card)
W_COST = W_RATING + MAX_WEAPONS  # + w: COST_*
W_PHASE = W_COST + MAX_WEAPONS  # + w: PHASE_*
ORDER = W_PHASE + MAX_WEAPONS  # + k: k-th weapon to fire (priority), -1 past the end
MATCHUP_SIZE = ORDER + MAX_WEAPONS

# exact-solver context ctx[...]
CTX_STATES, CTX_OVERFLOW = 0, 1


# -- batteries and ammo ------------------------------------------------------------
@nb.njit(cache=True)
def can_pay(st, mx, cost):
    """Nuclear Batteries: a Charged cost needs a Charged token; a Half cost a Half token
    or a Charged token to flip. Two Halves never pay a Charged (unless M_TWO_HALF)."""
    if cost == COST_AMMO:
        return st[AMMO] > 0
    if cost == COST_CHARGED:
        return st[CHARGED] > 0 or (mx[M_TWO_HALF] != 0 and st[HALF] >= 2)
    return st[HALF] > 0 or (mx[M_FLIP] != 0 and st[CHARGED] > 0)


@nb.njit(cache=True)
def pay(st, mx, cost):
    """Spend one token of ``cost`` (the caller checked can_pay)."""
    if cost == COST_AMMO:
        st[AMMO] -= 1
    elif cost == COST_CHARGED:
        if st[CHARGED] > 0:
            st[CHARGED] -= 1  # discard the Charged token
        else:
            st[HALF] -= 2
    else:
        flip = mx[M_FLIP] != 0 and st[CHARGED] > 0 and (st[HALF] == 0 or mx[M_PREFER_FLIP] != 0)
        if flip:
            st[CHARGED] -= 1  # flip it over: it stays as a Half-Discharged token
            st[HALF] += 1
        else:
            st[HALF] -= 1  # discard a Half-Discharged token


# -- the turret ---------------------------------------------------------------------
@nb.njit(cache=True)
def hit_turret(st, mx, damage):
    """Hit: damage >= Defense destroys the turret, otherwise it receives no damage."""
    if mx[M_ACCUMULATE] != 0:
        st[TURRET_DAMAGE] = min(st[TURRET_DAMAGE] + damage, mx[M_DEFENSE])
        if st[TURRET_DAMAGE] >= mx[M_DEFENSE]:
            st[DESTROYED] = 1
    elif damage >= mx[M_DEFENSE]:
        st[DESTROYED] = 1


@nb.njit(cache=True)
def grenade_useful(st, mx):
    """Throw the Grenade only if it destroys the turret (or, with accumulation, adds damage)."""
    if st[GRENADE] == 0:
        return False
    if mx[M_ACCUMULATE] != 0:
        return True
    return mx[M_GRENADE_DAMAGE] >= mx[M_DEFENSE]


@nb.njit(cache=True)
def next_weapon(st, mx, phase):
    """First weapon in priority order that fires in ``phase``: undamaged, unused, payable."""
    for k in range(mx[M_NUM_WEAPONS]):
        w = mx[ORDER + k]
        if w < 0:
            break
        if mx[W_PHASE + w] != phase:
            continue
        bit = np.int64(1) << w
        if (st[INTACT] & bit) == 0 or (st[USED] & bit) != 0:
            continue
        if can_pay(st, mx, mx[W_COST + w]):
            return w
    return -1


@nb.njit(cache=True)
def can_attack(st, mx):
    """Has the convoy anything left to attack the turret with (in a fresh round)?"""
    for w in range(mx[M_NUM_WEAPONS]):
        if (st[INTACT] >> w) & 1 and can_pay(st, mx, mx[W_COST + w]):
            return True
    return grenade_useful(st, mx)


@nb.njit(cache=True)
def fire(st, mx, w):
    pay(st, mx, mx[W_COST + w])
    st[USED] |= np.int64(1) << w
    st[SHOTS] += 1
    st[PENDING] = w


@nb.njit(cache=True)
def throw_grenade(st, mx):
    """Grenade: 2 damage to the turret, then an Outcome card is revealed for its jam check."""
    st[GRENADE] = 0
    st[GRENADES_THROWN] += 1
    hit_turret(st, mx, mx[M_GRENADE_DAMAGE])
    st[PENDING] = PENDING_GRENADE


@nb.njit(cache=True)
def fire_next(st, mx, phase, then):
    """Fire the next weapon of ``phase`` (True: its card is awaited), else go on to step
    ``then``."""
    w = next_weapon(st, mx, phase)
    if w >= 0:
        fire(st, mx, w)
        return True
    st[STEP] = then
    return False


# -- the two shared functions: deterministic progress, and one flipped card ---------
@nb.njit(cache=True)
def advance(st, mx):
    """Play on until an Outcome card must be flipped (DRAW) or the fight is over (DONE).

    One round: [start] -> Gather Resources shots from a location's weapon -> Ambush
    (the turret fires) -> Grenade if thrown first -> each undamaged weapon once ->
    Grenade if thrown last.
    """
    while True:
        if st[DESTROYED] != 0:
            return DONE
        s = st[STEP]
        if s == S_START:
            if mx[M_MAX_ROUNDS] > 0:
                if st[ROUND] >= mx[M_MAX_ROUNDS]:
                    return DONE
            elif not can_attack(st, mx):
                return DONE
            st[ROUND] += 1
            st[USED] = 0
            st[STEP] = S_GATHER
        elif s == S_GATHER:
            if fire_next(st, mx, PHASE_GATHER, S_AMBUSH):
                return DRAW
        elif s == S_AMBUSH:
            st[AMBUSHES] += 1
            st[STEP] = S_GRENADE_FIRST
            if mx[M_AMBUSH_DRAWS] != 0:
                st[PENDING] = PENDING_AMBUSH
                return DRAW
        elif s == S_GRENADE_FIRST:
            st[STEP] = S_FIRE
            if mx[M_GRENADE_USE] == USE_FIRST and grenade_useful(st, mx):
                throw_grenade(st, mx)
                return DRAW
        elif s == S_FIRE:
            if fire_next(st, mx, PHASE_FIRE, S_GRENADE_LAST):
                return DRAW
        else:
            st[STEP] = S_START
            if mx[M_GRENADE_USE] == USE_LAST and grenade_useful(st, mx):
                throw_grenade(st, mx)
                return DRAW


@nb.njit(cache=True)
def resolve_card(st, mx, result_row, damage_row):
    """Apply one flipped Outcome card (its rows by weapon rating) to the pending draw."""
    pend = st[PENDING]
    st[PENDING] = -1
    st[CARDS] += 1
    if pend == PENDING_AMBUSH:
        return  # the turret's card only says where the damage goes
    if pend == PENDING_GRENADE:
        if result_row[mx[M_GRENADE_RATING] - 1] == JAM:
            if mx[M_CYBORG] != 0 and mx[M_CYBORG_GRENADE] != 0:
                st[JAMS_IGNORED] += 1
            else:
                st[GRENADE_DAMAGE] += mx[M_GRENADE_SELF_DAMAGE]
        return
    w = pend
    r = mx[W_RATING + w] - 1
    result = result_row[r]
    if result == HIT:
        hit_turret(st, mx, damage_row[r])
    elif result == JAM:
        # The Cyborg works during the Fire Weapons phase only, not for a location's weapon.
        if mx[M_CYBORG] != 0 and mx[W_PHASE + w] == PHASE_FIRE:
            st[JAMS_IGNORED] += 1
        else:
            st[INTACT] &= ~(np.int64(1) << w)
            st[JAMS] += 1


# -- Monte Carlo --------------------------------------------------------------------
@nb.njit(cache=True)
def play_fight(rng, st, mx, card_result, card_damage, deck, n_left):
    """Play one fight on ``st``, drawing from deck[:n_left]; return n_left after it."""
    while advance(st, mx) == DRAW:
        if n_left == 0:
            n_left = refill_full(deck)  # the discard pile is shuffled back in
        c, n_left = draw_card(rng, deck, n_left)
        resolve_card(st, mx, card_result[c], card_damage[c])
    return n_left


@nb.njit(cache=True)
def simulate(
    rng, n_games, st0, mx, card_result, card_damage, start_deck, out_sum, out_sq, out_hist
):
    """``n_games`` independent fights from st0, each from the same starting deck.

    Accumulates out_sum / out_sq [NUM_TRACKED] (final value of each tracked slot and its
    square) and out_hist[k] = fights with k turret attacks (last bin: k or more).
    """
    deck = np.empty(card_result.shape[0], dtype=np.int64)
    st = st0.copy()
    n_start = start_deck.size
    last = out_hist.size - 1
    for _ in range(n_games):
        st[:] = st0
        deck[:n_start] = start_deck
        play_fight(rng, st, mx, card_result, card_damage, deck, n_start)
        for i in range(NUM_TRACKED):
            out_sum[i] += st[i]
            out_sq[i] += st[i] * st[i]
        out_hist[min(st[AMBUSHES], last)] += 1


# -- exact: memoised expectation over deck compositions ------------------------------
@nb.njit(cache=True)
def rest_key(st, st0, mx):
    """Mixed-radix index of everything but the deck that the rest of the fight depends on."""
    n_w = mx[M_NUM_WEAPONS]
    key = st[DESTROYED]
    key = key * (st0[AMMO] + 1) + st[AMMO]
    key = key * (st0[CHARGED] + 1) + st[CHARGED]
    key = key * (st0[HALF] + st0[CHARGED] + 1) + st[HALF]
    key = key * (np.int64(1) << n_w) + st[INTACT]
    key = key * (np.int64(1) << n_w) + st[USED]
    key = key * (mx[M_DEFENSE] + 1) + min(st[TURRET_DAMAGE], mx[M_DEFENSE])
    key = key * 2 + st[GRENADE]
    key = key * NUM_STEPS + st[STEP]
    key = key * (MAX_WEAPONS + 3) + st[PENDING] + 1
    if mx[M_MAX_ROUNDS] > 0:  # without a round limit the round number changes nothing
        key = key * (mx[M_MAX_ROUNDS] + 1) + st[ROUND]
    return key


@nb.njit(cache=True)
def add_edge(v, p, before, after, child_v, has_child):
    """v += p * (what changed from ``before`` to ``after`` + the child's future value).

    v[:NUM_TRACKED] are expected future changes of the tracked slots; v[NUM_TRACKED + k]
    the probability of k more turret attacks (last bin: k or more).
    """
    for i in range(NUM_TRACKED):
        v[i] += p * (after[i] - before[i])
        if has_child:
            v[i] += p * child_v[i]
    shift = after[AMBUSHES] - before[AMBUSHES]
    n_bins = v.size - NUM_TRACKED
    last = n_bins - 1
    if has_child:
        for j in range(n_bins):
            k = min(j + shift, last)
            v[NUM_TRACKED + k] += p * child_v[NUM_TRACKED + j]
    else:
        v[NUM_TRACKED + min(shift, last)] += p


@nb.njit(cache=True)
def solve_exact(st_root, comp_root, classes, st0, mx, cards, table, values, ctx, max_depth):
    """Expected future of ``st_root`` (a state waiting for a card) over every draw order.

    Depth-first over (deck composition by outcome class, state) with an explicit stack
    and a memo (the hash table ``table`` = (keys, rows) of hashtable.new_table -> row of
    ``values``). ``classes`` = (rep, full, place) per outcome class: one card of it, its
    cards in the whole deck (an empty deck is refilled with them), its place value in
    composition keys; ``comp_root``: cards left per class; ``cards`` = (card_result,
    card_damage). Returns the root's row, or -1 if ``values`` ran out of rows
    (ctx[CTX_OVERFLOW] = 1) or a path needed more than ``max_depth`` draws (= 2).
    """
    rep, full, place = classes
    card_result, card_damage = cards
    keys, rows = table
    n_cls = full.size
    nv = values.shape[1]
    sbuf = np.empty((max_depth, STATE_SIZE), dtype=np.int64)
    cbuf = np.empty((max_depth, n_cls), dtype=np.int64)
    vbuf = np.zeros((max_depth, nv))
    nextc = np.zeros(max_depth, dtype=np.int64)
    pbuf = np.zeros(max_depth)
    k1buf = np.zeros(max_depth, dtype=np.int64)
    k2buf = np.zeros(max_depth, dtype=np.int64)
    child = np.empty(STATE_SIZE, dtype=np.int64)
    dummy = np.zeros(nv)

    sbuf[0, :] = st_root
    cbuf[0, :] = comp_root
    if cbuf[0].sum() == 0:
        cbuf[0, :] = full
    k1buf[0] = composition_key(cbuf[0], place)
    k2buf[0] = rest_key(st_root, st0, mx)
    row = table_get(keys, rows, k1buf[0], k2buf[0])
    if row != EMPTY:
        return row
    d = 0
    while True:
        c = nextc[d]
        while c < n_cls and cbuf[d, c] == 0:
            c += 1
        if c < n_cls:
            nextc[d] = c + 1
            total = cbuf[d].sum()
            p = cbuf[d, c] / total
            child[:] = sbuf[d]
            resolve_card(child, mx, card_result[rep[c]], card_damage[rep[c]])
            if advance(child, mx) == DONE:
                add_edge(vbuf[d], p, sbuf[d], child, dummy, False)
                continue
            cbuf[d + 1, :] = cbuf[d]
            cbuf[d + 1, c] -= 1
            if total == 1:
                cbuf[d + 1, :] = full  # the next draw reshuffles the discard pile back in
            k1 = composition_key(cbuf[d + 1], place)
            k2 = rest_key(child, st0, mx)
            row = table_get(keys, rows, k1, k2)
            if row != EMPTY:
                add_edge(vbuf[d], p, sbuf[d], child, values[row], True)
                continue
            if d + 1 >= max_depth:  # the caller's bound on draws was wrong: refuse, never overrun
                ctx[CTX_OVERFLOW] = 2
                return -1
            d += 1
            sbuf[d, :] = child
            nextc[d] = 0
            vbuf[d, :] = 0.0
            pbuf[d] = p
            k1buf[d] = k1
            k2buf[d] = k2
        else:
            n = ctx[CTX_STATES]
            if n >= values.shape[0]:
                ctx[CTX_OVERFLOW] = 1
                return -1
            values[n, :] = vbuf[d]
            table_put(keys, rows, k1buf[d], k2buf[d], n)
            ctx[CTX_STATES] = n + 1
            if d == 0:
                return n
            d -= 1
            add_edge(vbuf[d], pbuf[d + 1], sbuf[d], sbuf[d + 1], values[n], True)

"""The Attack action (base rules, Action: Attack): the force, the range, the Time Point
cost, flipping face-down tiles (Empty ones are removed) with the option to withdraw,
then combat (simkit.kernels.game_combat.fight).

Range: the lowest off-rail range in the force (Billy Kneebone adds to units that have
one), counted from the clear network (W.dist, not through Old Ones); an all-Airship force
may fly over Old Ones; a force with an Armoured Train reaches only hexes joined to the
clear network by the player's own track.
"""

from simkit.kernels.game_combat import fight
from simkit.kernels.game_oop import after_attack
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import (
    airship_dist,
    atlach_nacha_pays,
    fallback_force,
    flip_tile,
    in_range,
    is_revenge_like,
    log_event,
    range_bonus,
    reach_of,
    tiles_in_hex,
    unit_reach,
    within_reach,
)
from simkit.kernels.low.jit import kernel
from strategies.human.policy import plan_attack, withdraw_after_flip


@kernel
def find_attack_witness(S, X, W, p):
    """1 if some single unit type in the Barracks can attack some hex, remembering that
    (unit, hex) pair in W.ctx as the engine's legal default; else 0. Needs W.dist."""
    count = 0
    W.ctx[L.CTX_FALLBACK_UNIT] = -1
    W.ctx[L.CTX_FALLBACK_HEX] = -1
    pl = X.pl
    air = pl[p, L.P_UNITS + L.AIRSHIP] > 0
    # the loop's arrays and the range bonus, read once: in_range and unit_reach took S, X and
    # W (two reference counts a field read) for every Old One hex and unit type
    hex_blocked, neighbors, edge_owner, clear, dist = (
        X.hex_blocked,
        S.neighbors,
        X.edge_owner,
        W.clear,
        W.dist,
    )
    unit_range = S.unit_range
    bonus = range_bonus(S, X, p)
    for h in range(hex_blocked.size):
        if not hex_blocked[h]:
            continue
        ok_u = -1
        for u in range(L.NUM_UNITS):
            if pl[p, L.P_UNITS + u] > 0:
                reach = reach_of(unit_range, bonus, u)
                if within_reach(neighbors, edge_owner, clear, hex_blocked, dist, p, h, reach):
                    ok_u = u
                    break
        if ok_u >= 0:
            W.ctx[L.CTX_FALLBACK_UNIT] = ok_u
            W.ctx[L.CTX_FALLBACK_HEX] = h
            return 1
    if air:
        # an all-Airship force may trace through Old Ones
        airship_dist(S, X, W, p)
        reach = unit_reach(S, X, p, L.AIRSHIP)
        for h in range(X.hex_blocked.size):
            if X.hex_blocked[h] and W.dist2[h] >= 0 and W.dist2[h] <= reach:
                W.ctx[L.CTX_FALLBACK_UNIT] = L.AIRSHIP
                W.ctx[L.CTX_FALLBACK_HEX] = h
                return 1
    return count


@kernel
def force_valid(S, X, W, p, h):
    """Check the strategy's force (W.force) and target hex h; fills W.dist2 for airships."""
    total = 0
    reach = 1 << 20
    air_only = True
    for u in range(L.NUM_UNITS):
        k = W.force[u]
        if k < 0 or k > X.pl[p, L.P_UNITS + u]:
            return False
        if k > 0:
            total += k
            reach = min(reach, unit_reach(S, X, p, u))
            if u != L.AIRSHIP:
                air_only = False
    if total == 0 or h < 0 or h >= X.hex_blocked.size or not X.hex_blocked[h]:
        return False
    if air_only:
        airship_dist(S, X, W, p)
    return in_range(S, X, W, p, h, reach, air_only)


@kernel
def attack_tp(W):
    """Distinct types among Infantry, Armoured Cars and Artillery; at least one."""
    k = 0
    for u in (L.INFANTRY, L.ARMOURED_CAR, L.ARTILLERY):
        if W.force[u] > 0:
            k += 1
    return max(k, 1)


@kernel
def attack_action(rngs, S, X, W, p):
    """Send an expeditionary force against a hex with Old One tiles. Returns the TP."""
    for u in range(L.NUM_UNITS):
        W.force[u] = 0
    h = plan_attack(rngs[L.RNG_SEAT + p], S, X, W, p)
    if not force_valid(S, X, W, p, h):
        from_strategy = h
        h = fallback_force(X, W, p)
        if X.g[L.G_FORCED_BOX] > 0:  # a look-ahead chose Attack; its policy planned none
            X.g[L.G_FORCED_FALLBACKS] += 1
        else:
            log_event(X, L.EV_ILLEGAL, X.pl[p, L.P_TIME], p, L.DEC_ATTACK, from_strategy, 0, 0, 0)
            X.g[L.G_ILLEGAL] += 1
            X.pl[p, L.P_ILLEGAL] += 1
    tp = attack_tp(W)
    if is_revenge_like(X) and X.g[L.G_EXTRA_TIME] > 0 and atlach_nacha_pays(S, X, p):
        tp += X.g[L.G_EXTRA_TIME]  # Atlach-Nacha (Mythos)
        X.g[L.G_EXTRA_TIME] = 0
    bits = 0
    sent = 0
    for u in range(L.NUM_UNITS):
        if W.force[u] > 0:
            bits |= 1 << u
            sent += W.force[u]
    n = tiles_in_hex(X, h, W.tiles2)
    X.g[L.G_KILL_MASK] = 0
    log_event(X, L.EV_ATTACK, X.pl[p, L.P_TIME], p, h, bits, sent, n, tp)
    flipped = False
    for j in range(n):
        i = W.tiles2[j]
        if not X.tile_up[i]:
            flip_tile(S, X, i, p)
            flipped = True
    if not X.hex_blocked[h]:
        return tp  # only Empty tiles: removed, nothing to fight
    if X.g[L.G_MODE] == L.MODE_REVENGE and tiles_in_hex(X, h, W.tiles2) == 0:
        after_attack(X, h, p)  # an empty Spawn tile: removed, 1 VP
        return tp
    if flipped and withdraw_after_flip(rngs[L.RNG_SEAT + p], S, X, W, p, h):
        log_event(X, L.EV_WITHDRAW_FLIP, X.pl[p, L.P_TIME], p, h, 0, 0, 0, 0)
        return tp
    fight(rngs, S, X, W, p, h, False)
    if X.g[L.G_MODE] == L.MODE_REVENGE:
        after_attack(X, h, p)
    return tp

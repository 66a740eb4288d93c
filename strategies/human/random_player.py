"""The uniformly random legal player (fuzzing): every choice uniform among the legal
options the engine offers. It never needs the engine's fallback (tests check that)."""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import airship_dist, in_range, unit_reach
from simkit.kernels.low.game_outpost import can_buy_outpost, outpost_site
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform


@kernel
def below(rng, n):
    return int(uniform(rng) * n)


@kernel
def choose_action(rng, S, X, W, p):
    n = 0
    for b in range(L.NUM_BOXES):
        if W.legal[b]:
            n += 1
    k = below(rng, n)
    for b in range(L.NUM_BOXES):
        if W.legal[b]:
            if k == 0:
                return b
            k -= 1
    return L.BOX_RETRIEVE


@kernel
def random_display_slot(rng, X, or_none):
    """A uniformly random displayed slot; with ``or_none``, -1 is one more equal choice."""
    n = 1 if or_none else 0
    for j in range(X.display.size):
        if X.display[j] >= 0:
            n += 1
    k = below(rng, n)
    for j in range(X.display.size):
        if X.display[j] >= 0:
            if k == 0:
                return j
            k -= 1
    return -1


@kernel
def pick_cycle(rng, S, X, W, p):
    """Revenge: keep the display (-1) or send any displayed card to the pile's bottom."""
    return random_display_slot(rng, X, True)


@kernel
def pick_recruit(rng, S, X, W, p):
    """A display slot, or -1 (pay to look at two from the pile) when that is possible."""
    gold_ok = X.pl[p, L.P_RES + L.GOLD] >= S.r[L.R_RECRUIT_DRAW_GOLD]
    can_draw = X.g[L.G_PERS_POS] < X.g[L.G_PERS_SIZE] and gold_ok
    return random_display_slot(rng, X, can_draw)


@kernel
def pick_drawn(rng, S, X, W, p, a, b):
    W.choice[0] = below(rng, 2) if b >= 0 else 0
    n = 1
    for j in range(X.display.size):
        if X.display[j] >= 0:
            n += 1
    k = below(rng, n) - 1
    W.choice[1] = -1
    for j in range(X.display.size):
        if X.display[j] >= 0:
            if k == 0:
                W.choice[1] = j
            k -= 1


@kernel
def pick_unit(rng, S, X, W, p):
    """A uniformly random affordable unit (Revenge / Mythos Solo: or only an Outpost, when
    one can be placed, as one more option)."""
    gold = X.pl[p, L.P_RES + L.GOLD]
    n = 0
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0 and S.unit_cost[u] <= gold:
            n += 1
    if can_buy_outpost(S, X, p, gold) and outpost_site(S, X, W, p, -1) >= 0:
        if below(rng, n + 1) == n:
            W.choice[0] = L.OUTPOST_STACK
            W.choice[1] = 1
            return
    k = below(rng, n)
    W.choice[0] = -1
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0 and S.unit_cost[u] <= gold:
            if k == 0:
                W.choice[0] = u
            k -= 1
    u = W.choice[0]
    W.choice[1] = 1
    if (
        u == L.INFANTRY
        and gold >= 2 * S.unit_cost[u]
        and X.g[L.G_SUPPLY + u] >= 2
        and below(rng, 2) == 1
    ):
        W.choice[1] = 2


@kernel
def pick_trade(rng, S, X, W, p):
    coal = X.pl[p, L.P_RES + L.COAL]
    iron = X.pl[p, L.P_RES + L.IRON]
    for j in range(2):
        sub = below(rng, 4)
        if sub == L.EXPORT_COAL and coal == 0:
            sub = L.IMPORT_COAL
        if sub == L.EXPORT_IRON and iron == 0:
            sub = L.IMPORT_IRON
        coal += 1 if sub == L.IMPORT_COAL else (-1 if sub == L.EXPORT_COAL else 0)
        iron += 1 if sub == L.IMPORT_IRON else (-1 if sub == L.EXPORT_IRON else 0)
        W.choice[j] = sub


@kernel
def plan_attack(rng, S, X, W, p):
    """A uniformly random attackable hex, then a random non-empty set of the unit types
    that reach it (each type with a random number of its units)."""
    normal = 0
    for h in range(X.hex_blocked.size):
        if X.hex_blocked[h] and _types_reaching(S, X, W, p, h, False) != 0:
            normal += 1
    air = normal == 0
    if air:
        airship_dist(S, X, W, p)
        for h in range(X.hex_blocked.size):
            if X.hex_blocked[h] and _types_reaching(S, X, W, p, h, True) != 0:
                normal += 1
        if normal == 0:
            return -1
    k = below(rng, normal)
    target = -1
    for h in range(X.hex_blocked.size):
        if X.hex_blocked[h] and _types_reaching(S, X, W, p, h, air) != 0:
            if k == 0:
                target = h
                break
            k -= 1
    if target < 0:
        return -1
    bits = _types_reaching(S, X, W, p, target, air)
    chosen = 0
    while chosen == 0:
        for u in range(L.NUM_UNITS):
            if (bits >> u) & 1 and below(rng, 2) == 1:
                chosen |= 1 << u
    for u in range(L.NUM_UNITS):
        W.force[u] = 1 + below(rng, X.pl[p, L.P_UNITS + u]) if (chosen >> u) & 1 else 0
    return target


@kernel
def _types_reaching(S, X, W, p, h, air):
    bits = 0
    for u in range(L.NUM_UNITS):
        if X.pl[p, L.P_UNITS + u] > 0 and (not air or u == L.AIRSHIP):
            if in_range(S, X, W, p, h, unit_reach(S, X, p, u), air):
                bits |= 1 << u
    return bits


@kernel
def pick_reveal(rng, S, X, W, p):
    n = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0 and not X.tile_up[i]:
            n += 1
    k = below(rng, n)
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0 and not X.tile_up[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@kernel
def pick_free_unit(rng, S, X, W, p):
    n = 0
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0:
            n += 1
    k = below(rng, n)
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0:
            if k == 0:
                return u
            k -= 1
    return -1

"""Revenge Mythos cards played as turn cards (by the Old One player on its turn, or
flipped in Mythos Solo): which apply now, and their effects (game_layout MYTH_* ids,
simkit.game.mythos EFFECTS): 0 place_tiles_near_port, 1 extra_time_next_combat, 2 blight_farms,
4 move_closest_old_one, 5 remove_rails, 6 level3_at_temple, 8 remove_recent_unit,
9 destroy_airship, 12 block_action_boxes, 13 level3_near_port, 14 take_trophy. The combat
cards (3, 7, 10, 11) are in simkit.kernels.game_mythos_combat. Readings the rules leave
open are ASSUMED and listed in mythos_cards.csv and GAME-DATA.md: 8 removes the unit of
the target's (else the next seat's) latest Buy Military, the OOP scoring it; 14 takes the
highest-VP tile a player destroyed alone back to the hex it died in, face up (the holder's
tile VP become VP tokens of the same value, as the card says), and does nothing when that
hex has no room or holds a Port, an Outpost or an un-blighted Farm.

Also the Old One tile helpers the OOP's Place action shares (put_tile, take_oop_tile,
take_unused_tile).
"""

from simkit.kernels.game_combat import oop_unit_vp
from simkit.kernels.game_defence import count_in_hex, resolve_revenge_fights
from simkit.kernels.game_old_ones import movers_exist
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import OUTBACK, nearest_field
from simkit.kernels.low.game_common import flip_tile, log_event, now, occupy, refresh_blocked
from simkit.kernels.low.jit import kernel

COMBAT_EFFECTS = (
    L.MYTH_COMBAT_DAMAGE_AND_SANITY,
    L.MYTH_PORT_COMBAT_EXTRA_DAMAGE,  # played during combats:
    L.MYTH_TEMPLE_ATTACK_EXTRA_CAPACITY,
    L.MYTH_GHOUL_JOINS_COMBAT,
)  # game_mythos_combat


@kernel
def effect_implemented(e):
    """Every effect type of simkit.game.mythos.EFFECTS is implemented (game_layout MYTH_*)."""
    return 0 <= e < L.MYTH_NUM_EFFECTS


@kernel
def has_resources(X, h):
    for r in range(L.NUM_RES):
        if X.hx[h, L.H_RES + r] > 0:
            return True
    return False


@kernel
def put_tile(S, X, t, h, up):
    X.tile_hex[t] = h
    X.tile_state[t] = L.TILE_BOARD
    X.tile_up[t] = False
    occupy(X, h)
    log_event(X, L.EV_TEMPLE_TILE, now(X), -1, t, h, S.tile_type[t] if up else -2, 1, 0)
    if up:
        flip_tile(S, X, t, -1)


@kernel
def take_oop_tile(X, lv):
    """Next tile of the OOP's drawn supply of level lv (0-based), -1 if none."""
    if X.g[L.G_OOP_LEFT + lv] <= 0 or X.stack_top[lv] >= X.stack_size[lv]:
        return -1
    t = X.stacks[lv, X.stack_top[lv]]
    X.stack_top[lv] += 1
    X.g[L.G_OOP_LEFT + lv] -= 1
    return t


@kernel
def take_unused_tile(X, lv):
    """A random unused tile of level lv (0-based): from the shuffled stack's end."""
    if X.stack_size[lv] <= X.stack_top[lv] + X.g[L.G_OOP_LEFT + lv]:
        return -1
    X.stack_size[lv] -= 1
    return X.stacks[lv, X.stack_size[lv]]


@kernel
def mythos_applicable(S, X, W, c, target_p):
    e = S.myth_effect[c]
    lv = S.myth_level[c]
    if e == L.MYTH_PLACE_TILES_NEAR_PORT:
        return X.g[L.G_OOP_LEFT + max(lv, 1) - 1] > 0 or take_unused_ok(X, max(lv, 1) - 1)
    if e == L.MYTH_EXTRA_TIME_NEXT_COMBAT:
        return True
    if e == L.MYTH_BLIGHT_FARMS:
        return blight_candidate(S, X) >= 0
    if e == L.MYTH_MOVE_CLOSEST_OLD_ONE:
        return movers_exist(S, X, -1)
    if e == L.MYTH_REMOVE_RAILS:
        return X.pl[target_p, L.P_TRACKS] > 0
    if e == L.MYTH_LEVEL3_AT_TEMPLE:
        return take_unused_ok(X, 2) and temple_near(S, X, W, target_p) >= 0
    if e == L.MYTH_DESTROY_AIRSHIP:
        for p in range(X.g[L.G_NUM_PLAYERS]):
            if X.pl[p, L.P_UNITS + L.AIRSHIP] > 0:
                return True
        return False
    if e == L.MYTH_BLOCK_ACTION_BOXES:
        for p in range(X.g[L.G_NUM_PLAYERS]):
            if X.pl[p, L.P_HQ] > 0:
                return True
        return False
    if e == L.MYTH_LEVEL3_NEAR_PORT:
        if not take_unused_ok(X, 2):
            return False
        if S.r[L.R_READ + L.READ_SERVITOR_PLACEMENT] == L.SERVITOR_PLACEMENT_TEMPLE:
            return temple_near(S, X, W, target_p) >= 0  # read like Dark Young
        for h in range(X.hx.shape[0]):
            if (
                X.hx[h, L.H_SPAWN] >= 0
                and count_in_hex(X, h) < L.MAX_IN_HEX
                and X.port_dist[target_p, h] >= 0
            ):
                return True
        return False  # no Spawn tile with room (always so in Mythos Solo): nothing happens
    if e == L.MYTH_REMOVE_RECENT_UNIT:
        return shambler_victim(X, target_p) >= 0
    if e == L.MYTH_TAKE_TROPHY:
        return trophy_tile(S, X) >= 0
    return False  # combat cards (COMBAT_EFFECTS) are played in combat only


@kernel
def shambler_victim(X, target_p):
    """Dimensional Shambler: a seat whose latest Buy Military unit is still in its Barracks
    (target_p first), -1 if none."""
    for k in range(X.g[L.G_NUM_PLAYERS]):
        q = (target_p + k) % X.g[L.G_NUM_PLAYERS]
        u = X.pl[q, L.P_LAST_BUY] - 1
        if u >= 0 and X.pl[q, L.P_UNITS + u] > 0:
            return q
    return -1


@kernel
def trophy_tile(S, X):
    """Yog-Sothoth: the highest-VP Old One tile a player holds (destroyed alone) that can go
    back face up to the hex it was destroyed in (room left, no Port, Outpost or un-blighted
    Farm there), -1 if none."""
    best = -1
    for i in range(X.tile_hex.size):
        if X.tile_holder[i] < 0 or X.tile_state[i] != L.TILE_KILLED:
            continue
        h = X.tile_last_hex[i]
        if h < 0 or count_in_hex(X, h) >= L.MAX_IN_HEX or X.hx[h, L.H_PORT_OWNER] >= 0:
            continue
        if X.hx[h, L.H_OUTPOST] >= 0 or X.hex_farm[h] == 1:
            continue
        if best < 0 or S.tile_vp[i] > S.tile_vp[best]:
            best = i
    return best


@kernel
def take_unused_ok(X, lv):
    return X.stack_size[lv] > X.stack_top[lv] + X.g[L.G_OOP_LEFT + lv]


@kernel
def blight_candidate(S, X):
    """An un-blighted Farm next to a face-up Old One (lowest hex), -1 none."""
    for h in range(X.hex_farm.size):
        if X.hex_farm[h] != 1:
            continue
        for k in range(6):
            m = S.neighbors[h, k]
            if m < 0:
                continue
            for i in range(X.tile_hex.size):
                if X.tile_hex[i] == m and X.tile_up[i] and S.tile_type[i] >= 0:
                    return h
    return -1


@kernel
def dist2_to_mask(S, W):
    """W.dist2 = steps to the nearest hex of W.mask (the strategies' memo of W.dist2,
    CTX_S_DIST2, is stale after it)."""
    nearest_field(S.hex_dist, W.mask, W.dist2)
    W.ctx[L.CTX_S_DIST2] = 0


@kernel
def temple_near(S, X, W, target_p):
    """Dark Young's Temple: "if more than one Temple, use the one closest to your
    Port/Outpost" (solo notes) -- the face-up Temple with room nearest target_p's Port or
    any of its Outposts, straight over the map. Overwrites W.mask, W.dist2."""
    n = X.hx.shape[0]
    for h in range(n):
        W.mask[h] = X.hx[h, L.H_PORT_OWNER] == target_p or X.hx[h, L.H_OUTPOST] == target_p
    dist2_to_mask(S, W)
    best = -1
    best_d = 1 << 40
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        if (
            h >= 0
            and X.tile_up[i]
            and S.tile_type[i] == L.TEMPLE
            and count_in_hex(X, h) < L.MAX_IN_HEX
        ):
            d = W.dist2[h]
            if d >= 0 and d < best_d:
                best_d = d
                best = h
    return best


@kernel
def play_mythos(rngs, S, X, W, c, target_p, how, tp_paid):
    """Resolve Mythos card c (it leaves the hand) against seat target_p; ``how`` and
    ``tp_paid`` go to the log (MYTHOS_PLAYED by the OOP, MYTHOS_FLIPPED in Mythos Solo).
    Returns True if the game ended."""
    X.mythos_hand[c] = 0
    X.g[L.G_MYTHOS_PLAYED] += 1
    e = S.myth_effect[c]
    amount = S.myth_amount[c]
    lv = max(S.myth_level[c], 1) - 1
    n = X.hx.shape[0]
    actor = target_p
    detail = -1
    if e == L.MYTH_REMOVE_RECENT_UNIT and shambler_victim(X, target_p) >= 0:
        actor = shambler_victim(X, target_p)
        detail = X.pl[actor, L.P_LAST_BUY] - 1
    elif e == L.MYTH_TAKE_TROPHY and trophy_tile(S, X) >= 0:
        detail = trophy_tile(S, X)
        actor = X.tile_holder[detail]
    log_event(X, L.EV_MYTHOS, now(X), actor, c, how, detail, tp_paid, e)
    if e == L.MYTH_PLACE_TILES_NEAR_PORT:
        port = X.pl[target_p, L.P_PORT]
        for _ in range(amount):
            t = take_oop_tile(X, lv)
            if t < 0:
                t = take_unused_tile(X, lv)
            if t < 0:
                break
            best = -1
            best_d = 1 << 40
            for h in range(n):
                if S.hex_terrain[h] != OUTBACK or X.hex_blocked[h] or X.hx[h, L.H_PORT_OWNER] >= 0:
                    continue
                if X.hx[h, L.H_FARM_OWNER] >= 0 or X.hx[h, L.H_OUTPOST] >= 0 or h == port:
                    continue
                if has_resources(X, h):  # "the closest empty Outback hex": no tokens either
                    continue
                d = X.port_dist[target_p, h]
                if d >= 0 and d < best_d:
                    best_d = d
                    best = h
            if best < 0:
                X.tile_state[t] = L.TILE_ASIDE
                break
            put_tile(S, X, t, best, False)
    elif e == L.MYTH_EXTRA_TIME_NEXT_COMBAT:
        X.g[L.G_EXTRA_TIME] += amount
        X.g[L.G_EXTRA_TIME_SEAT] = target_p  # reading "target": only this seat pays
    elif e == L.MYTH_BLIGHT_FARMS:
        for _ in range(amount):
            h = blight_candidate(S, X)
            if h < 0:
                break
            X.hex_farm[h] = 2
            X.hex_target[h] = False
            X.g[L.G_FARMS_BLIGHTED] += 1
            log_event(
                X, L.EV_BLIGHT, now(X), X.hx[h, L.H_FARM_OWNER], h, X.hx[h, L.H_FARM_KIND], 0, 0, 0
            )
    elif e == L.MYTH_MOVE_CLOSEST_OLD_ONE:
        return byakhee(rngs, S, X, W, amount)
    elif e == L.MYTH_REMOVE_RAILS:
        removed = 0
        while removed < amount and X.pl[target_p, L.P_TRACKS] > 0:
            # the target's link farthest from its Port (reading "nearest_port": the
            # nearest, which cuts the most of the network)
            near = S.r[L.R_READ + L.READ_RAILS_REMOVED] == L.RAILS_REMOVED_NEAREST_PORT
            bh = -1
            bk = -1
            bd = -1
            for h in range(n):
                for k in range(6):
                    if X.edge_owner[h, k] == target_p:
                        d = X.port_dist[target_p, h]
                        if near:
                            d = (1 << 30) - d if d >= 0 else 0
                        if d > bd:
                            bd = d
                            bh = h
                            bk = k
            if bh < 0:
                break
            m = S.neighbors[bh, bk]
            X.edge_owner[bh, bk] = -1
            X.edge_owner[m, (bk + 3) % 6] = -1
            X.pl[target_p, L.P_TRACKS] -= 1
            removed += 1
    elif e == L.MYTH_LEVEL3_AT_TEMPLE:
        h = temple_near(S, X, W, target_p)
        t = take_unused_tile(X, 2)
        if h >= 0 and t >= 0:
            put_tile(S, X, t, h, True)
    elif e == L.MYTH_DESTROY_AIRSHIP:
        q = -1
        for p in range(X.g[L.G_NUM_PLAYERS]):
            if X.pl[p, L.P_UNITS + L.AIRSHIP] > 0 and (q < 0 or p == target_p):
                q = p
        if q >= 0:
            X.pl[q, L.P_UNITS + L.AIRSHIP] -= 1
            X.pl[q, L.P_LOST + L.AIRSHIP] += 1
            X.g[L.G_SUPPLY + L.AIRSHIP] += 1
            vp = oop_unit_vp(S, X, L.AIRSHIP)
            X.g[L.G_OOP_VP] += vp
            X.g[L.G_OOP_VP_UNITS] += vp
    elif e == L.MYTH_BLOCK_ACTION_BOXES:
        for p in range(X.g[L.G_NUM_PLAYERS]):
            for _ in range(amount):
                if X.pl[p, L.P_HQ] <= 0:
                    break
                best = L.BOX_RAIL
                for b in range(L.NUM_BOXES):
                    if b != L.BOX_RETRIEVE and X.pl[p, L.P_BOX + b] > X.pl[p, L.P_BOX + best]:
                        best = b
                X.pl[p, L.P_HQ] -= 1
                X.pl[p, L.P_BOX + best] += 1
    elif e == L.MYTH_LEVEL3_NEAR_PORT:
        if S.r[L.R_READ + L.READ_SERVITOR_PLACEMENT] == L.SERVITOR_PLACEMENT_TEMPLE:
            h = temple_near(S, X, W, target_p)  # reading "temple": as Dark Young
            t = take_unused_tile(X, 2)
            if h >= 0 and t >= 0:
                put_tile(S, X, t, h, True)
            return X.g[L.G_OVER] != 0
        t = take_unused_tile(X, 2)
        if t >= 0:
            best = -1
            best_d = 1 << 40
            for h in range(n):
                if X.hx[h, L.H_SPAWN] >= 0 and count_in_hex(X, h) < L.MAX_IN_HEX:
                    d = X.port_dist[target_p, h] * 8 + count_in_hex(X, h)
                    if X.port_dist[target_p, h] >= 0 and d < best_d:
                        best_d = d
                        best = h
            if best >= 0:
                put_tile(S, X, t, best, True)
            else:
                X.tile_state[t] = L.TILE_ASIDE
    elif e == L.MYTH_REMOVE_RECENT_UNIT:
        q = shambler_victim(X, target_p)
        if q >= 0:
            u = X.pl[q, L.P_LAST_BUY] - 1
            X.pl[q, L.P_LAST_BUY] = 0
            X.pl[q, L.P_UNITS + u] -= 1
            X.pl[q, L.P_LOST + u] += 1
            X.g[L.G_SUPPLY + u] += 1
            vp = oop_unit_vp(S, X, u)  # "Includes those destroyed by Mythos cards"
            X.g[L.G_OOP_VP] += vp
            X.g[L.G_OOP_VP_UNITS] += vp
    elif e == L.MYTH_TAKE_TROPHY:
        i = trophy_tile(S, X)
        if i >= 0:
            q = X.tile_holder[i]
            vp = S.tile_vp[i]
            X.pl[q, L.P_TILE_VP] -= vp
            X.pl[q, L.P_VP_TOKENS] += vp  # "gains VP tokens to the same value"
            X.tile_holder[i] = -1
            if S.r[L.R_READ + L.READ_YOG_SOTHOTH_TILE] == L.YOG_SOTHOTH_TILE_REMOVED:
                X.tile_state[i] = L.TILE_ASIDE  # reading "removed": the tile leaves the game
            else:
                put_tile(S, X, i, X.tile_last_hex[i], True)
    return X.g[L.G_OVER] != 0


@kernel
def byakhee(rngs, S, X, W, amount):
    """The face-up Old One closest to a Port/Outpost moves ``amount`` hexes towards it."""
    n = X.hx.shape[0]
    for h in range(n):
        W.mask[h] = X.hex_target[h] and X.hex_farm[h] != 1
    dist2_to_mask(S, W)
    best = -1
    best_d = 1 << 40
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        t = S.tile_type[i]
        if h < 0 or not X.tile_up[i] or t < 0 or t == L.TEMPLE or not S.type_moves[t]:
            continue
        d = W.dist2[h]
        if d > 0 and d < best_d:
            best_d = d
            best = i
    if best < 0:
        return False
    for _ in range(amount):
        h = X.tile_hex[best]
        if W.dist2[h] <= 0:
            break
        step = -1
        for k in range(6):
            m = S.neighbors[h, k]
            if m >= 0 and W.dist2[m] == W.dist2[h] - 1 and count_in_hex(X, m) < L.MAX_IN_HEX:
                step = m
                break
        if step < 0:
            break
        X.tile_hex[best] = step
        occupy(X, step)
        refresh_blocked(X, h)
        X.g[L.G_OO_MOVES] += 1
        log_event(X, L.EV_MOVE, now(X), -1, best, h, step, -1, S.tile_type[best])
        if X.hex_farm[step] == 1:
            X.hex_farm[step] = 2
            X.hex_target[step] = False
            X.g[L.G_FARMS_BLIGHTED] += 1
            log_event(
                X,
                L.EV_BLIGHT,
                now(X),
                X.hx[step, L.H_FARM_OWNER],
                step,
                X.hx[step, L.H_FARM_KIND],
                0,
                0,
                0,
            )
            break
    return resolve_revenge_fights(rngs, S, X, W)

"""The Old Ones' turn (base rules, Activating the Old Ones, Revelations, Movement).

One turn: the purple disc moves one space; on an illuminated space the top Revelation
card is resolved; then, if a face-up Old One can move, two Old One cards are drawn and
resolved one at a time (simkit.kernels.low.movement.movement_phase, compass rule); then
Ports with Old Ones on them are defended in player order, and a lost Port ends the game.

Revenge hook: an Old One *player* would replace :func:`old_ones_turn` by its own action
choice (place / reveal / move four cards / summon, Mythos cards) on the same arrays;
:func:`movement_check` (with ``n_cards`` = 4 and a chooser policy) and
:func:`resolve_ports` are the pieces it reuses. Mythos Solo (game_mythos_solo) plays this
turn and then flips a Mythos card.
"""

from simkit.kernels.game_combat import add_damage, kill_tile, port_defence, tile_damage
from simkit.kernels.game_defence import resolve_revenge_fights
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import (
    draw_oo_card,
    draw_personality,
    flip_tile,
    has_effect,
    is_revenge_like,
    log_event,
    now,
    occupy,
    refresh_blocked,
)
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.movement import CHOOSE_COMPASS, movement_phase


@kernel
def movers_exist(S, X, only):
    """A face-up Old One on the board that can move (never a Temple); ``only`` >= 0
    restricts the check to that tile."""
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] < 0 or not X.tile_up[i] or (only >= 0 and i != only):
            continue
        t = S.tile_type[i]
        if t >= 0 and t != L.TEMPLE and S.type_moves[t]:
            return True
    return False


@kernel
def blight_or_save(S, X, W, h):
    """Farm h was just entered by Old Ones. Alanza Castro's owner deals her damage to each
    arrival; if they all die the farm is saved. Returns 1 if the farm stays blighted."""
    owner = X.hx[h, L.H_FARM_OWNER]
    guard = has_effect(S, X, owner, L.EFF_FARM_GUARD) if owner >= 0 else 0
    if guard > 0:
        all_dead = True
        for i in range(X.tile_hex.size):
            if X.tile_hex[i] == h and W.hex_before[i] != h:
                add_damage(X, i, owner, guard)
                if tile_damage(X, i) >= S.tile_cap[i]:
                    kill_tile(S, X, i)
                else:
                    all_dead = False
        if all_dead:
            X.hex_farm[h] = 1
            X.hex_target[h] = True
            X.g[L.G_CASTRO_SAVES] += 1
            log_event(X, L.EV_FARM_SAVED, now(X), owner, h, 0, 0, 0, 0)
            return 0
    log_event(X, L.EV_BLIGHT, now(X), owner, h, X.hx[h, L.H_FARM_KIND], 0, 0, 0)
    return 1


@kernel
def move_with_card(rngs, S, X, W, c, only):
    """Resolve Old One card c for movement, base rule (compass, no stop at Farms)."""
    move_with_card_policy(rngs, S, X, W, c, only, CHOOSE_COMPASS, False, True)


@kernel
def move_with_card_policy(rngs, S, X, W, c, only, policy, stop_at_farm, fresh):
    """Resolve Old One card c for movement (all face-up Old Ones, or tile ``only``).
    policy: simkit.kernels.low.movement CHOOSE_* (base: CHOOSE_COMPASS); stop_at_farm: Revenge;
    fresh: c is the first card of its movement check (False: the stops of the earlier
    cards of the same check still hold, W.stopped)."""
    # the loops' arrays, read once: a field read inside a loop costs two reference counts
    # a tile or hex (the per-hex reads were most of a movement card's reference counting)
    tile_hex, tile_up, face, hex_before = X.tile_hex, X.tile_up, W.face, W.hex_before
    hex_farm, farm_before, g = X.hex_farm, W.farm_before, X.g
    T = tile_hex.size
    for i in range(T):
        face[i] = tile_up[i] & (tile_hex[i] >= 0) & ((only < 0) | (i == only))
        hex_before[i] = tile_hex[i]
    n = hex_farm.size
    for h in range(n):
        farm_before[h] = hex_farm[h]
    W.card1[0] = c
    kit = W.move_kit  # over S.neighbors, X.hex_target, ..., W.cand6 (game_state.to_refs)
    blighted = movement_phase(kit, W.card1, policy, rngs[L.RNG_MOVE], stop_at_farm, fresh)
    g[L.G_MOVE_CARDS] += 1
    for i in range(T):
        a = hex_before[i]
        b = tile_hex[i]
        if a != b:
            g[L.G_OO_MOVES] += 1
            refresh_blocked(X, a)
            occupy(X, b)
            log_event(X, L.EV_MOVE, now(X), -1, i, a, b, c, S.tile_type[i])
    if blighted > 0:
        for h in range(n):
            if farm_before[h] == 1 and hex_farm[h] == 2:
                g[L.G_FARMS_BLIGHTED] += blight_or_save(S, X, W, h)


@kernel
def resolve_ports(rngs, S, X, W):
    """Defend every Port with Old Ones on it, in player order. True if one was lost
    (the game is then over). Mythos Solo: Revenge Ports and Outposts
    (simkit.kernels.game_defence)."""
    if is_revenge_like(X):
        return resolve_revenge_fights(rngs, S, X, W)
    for p in range(X.g[L.G_NUM_PLAYERS]):
        h = X.pl[p, L.P_PORT]
        if h >= 0 and X.hex_blocked[h]:
            if port_defence(rngs, S, X, W, p):
                X.pl[p, L.P_PORT_LOST] = 1
                X.g[L.G_OVER] = 1
                X.g[L.G_END_REASON] = L.END_PORT
                X.g[L.G_PORT_LOST_BY] = p
                X.g[L.G_END_TIME] = now(X)
                log_event(X, L.EV_PORT_LOST, now(X), p, h, 0, 0, 0, 0)
                return True
    return False


@kernel
def movement_check(rngs, S, X, W, only, n_cards):
    """Draw n_cards Old One cards for movement if anything can move, then fight at
    Ports. True if the game ended."""
    if not movers_exist(S, X, only):
        return False
    for _ in range(n_cards):
        c = draw_oo_card(rngs, X)
        move_with_card(rngs, S, X, W, c, only)
    return resolve_ports(rngs, S, X, W)


@kernel
def lowest_face_down(X):
    """Face-down tile in the lowest-numbered hex (lowest index), -1 if none."""
    best = -1
    best_h = 1 << 40
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        if h >= 0 and not X.tile_up[i] and h < best_h:
            best = i
            best_h = h
    return best


@kernel
def assassinate(S, X):
    """Remove the two rightmost Personalities, move the rest right, draw two to the left."""
    D = S.r[L.R_DISPLAY]
    a = X.display[D - 1]
    b = X.display[D - 2] if D >= 2 else -1
    gone = min(D, 2)
    for j in range(D - 1, gone - 1, -1):
        X.display[j] = X.display[j - gone]
    for j in range(gone - 1, -1, -1):
        X.display[j] = draw_personality(X)
    log_event(X, L.EV_ASSASSINATE, now(X), -1, a, b, 0, 0, 0)


@kernel
def temple_tiles(S, X, W):
    """A level-3 tile (level 2 when they run out) face up on every face-up Temple,
    lowest-numbered hex first."""
    # one pass over the tiles, then an insertion sort by (hex, tile): a Temple or two, where
    # a scan of every tile for every hex cost 1.8% of a search game
    tile_hex, tile_up, tile_type, tiles = X.tile_hex, X.tile_up, S.tile_type, W.tiles
    m = 0
    for i in range(tile_hex.size):
        if tile_hex[i] >= 0 and tile_up[i] and tile_type[i] == L.TEMPLE:
            j = m
            while j > 0 and tile_hex[tiles[j - 1]] > tile_hex[i]:
                tiles[j] = tiles[j - 1]
                j -= 1
            tiles[j] = i
            m += 1
    for j in range(m):
        h = X.tile_hex[W.tiles[j]]
        if h < 0:
            continue
        lv = 2 if X.stack_top[2] < X.stack_size[2] else 1
        if X.stack_top[lv] >= X.stack_size[lv]:
            break
        t = X.stacks[lv, X.stack_top[lv]]
        X.stack_top[lv] += 1
        X.tile_hex[t] = h
        X.tile_state[t] = L.TILE_BOARD
        occupy(X, h)
        log_event(X, L.EV_TEMPLE_TILE, now(X), -1, t, h, S.tile_type[t], 0, 0)
        flip_tile(S, X, t, -1)


@kernel
def revelation(rngs, S, X, W, card):
    """Resolve one Revelation card. True if the game ended (a Port fell)."""
    kind = S.rev_kind[card]
    detail = -1
    if kind == L.REV_REVEAL or kind == L.REV_REVEAL_SIX:
        detail = lowest_face_down(X)
    log_event(X, L.EV_REVELATION, now(X), -1, kind, card, detail, 0, 0)
    benefit = S.rev_benefit[card]
    if benefit >= 0:  # "Benefits on the Revelation cards apply to all players except the Old Ones"
        for p in range(X.g[L.G_NUM_PLAYERS]):
            if benefit == L.BENEFIT_VP:
                X.pl[p, L.P_VP_TOKENS] += S.rev_benefit_amount[card]
            else:
                X.pl[p, L.P_RES + benefit] += S.rev_benefit_amount[card]
    if kind == L.REV_REVEAL or kind == L.REV_REVEAL_SIX:
        if detail >= 0:
            t = flip_tile(S, X, detail, -1)
            if kind == L.REV_REVEAL_SIX and t >= 0:
                return movement_check(rngs, S, X, W, detail, S.r[L.R_REVEAL_CARDS])
    elif kind == L.REV_ASSASSINATE:
        assassinate(S, X)
    elif kind == L.REV_TEMPLES:
        temple_tiles(S, X, W)
    return False


@kernel
def old_ones_turn(rngs, S, X, W):
    """The purple disc moves one space and the Old Ones act (base game)."""
    g = X.g
    g[L.G_OO_TIME] += 1
    g[L.G_ARRIVALS] += 1
    g[L.G_OO_ARRIVAL] = g[L.G_ARRIVALS]
    g[L.G_OO_TURNS] += 1
    t = g[L.G_OO_TIME]
    illum = S.illuminated[t] if t < S.illuminated.size else False
    log_event(X, L.EV_OO_TURN, t, -1, t, 1 if illum else 0, 0, 0, 0)
    if illum and g[L.G_REV_POS] < g[L.G_REV_SIZE]:
        card = X.rev_deck[g[L.G_REV_POS]]
        g[L.G_REV_POS] += 1
        if revelation(rngs, S, X, W, card):
            return
    movement_check(rngs, S, X, W, -1, S.r[L.R_MOVE_CARDS])

"""What heuristic players see and the sub-decisions they share (jitted, read-only).

A heuristic player is a parameter vector (simkit.kernels.low.game_layout HP_* slots) plus a
short choose-action function (economist.py, hunter.py, ...). The mechanics every one of
them needs live here: where to aim railways, which hex to mine or farm, what to buy,
which Old Ones to attack with what. They read the state and the engine's turn context
(W.clear, W.dist, W.legal, W.ctx) and only write their own scratch (W.dist2, W.mask,
W.vals, W.choice, W.force). Face-down tiles are judged by level only (no peeking).
"""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import nearest_field
from simkit.kernels.low.game_common import (
    ensure_dist,
    joined_by_rail,
    range_bonus,
    reach_of,
    unit_capacity,
)
from simkit.kernels.low.game_outpost import can_buy_outpost, outpost_site
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform

FAR = 1 << 20


# -- small predicates ------------------------------------------------------------------------


@kernel
def ok(S, X, W, p, box):
    """Legal now and the re-use surcharge within this player's budget."""
    return _ok(W.legal, X.pl, X.params, S.r[L.R_SURCHARGE], p, box)


@kernel(nrt=False)  # the fields are read in ok's one block (simkit.kernels.low.jit)
def _ok(legal, pl, params, per_cube, p, box):
    return legal[box] and pl[p, L.P_BOX + box] * per_cube <= params[p, L.HP_MAX_SURCHARGE]


@kernel
def units_home(X, p):
    n = 0
    for u in range(L.NUM_UNITS):
        n += X.pl[p, L.P_UNITS + u]
    return n


@kernel
def cubes_out(X, p):
    n = 0
    for b in range(L.NUM_BOXES):
        n += X.pl[p, L.P_BOX + b]
    return n


@kernel
def should_retrieve(X, p):
    """HQ at or below the player's threshold and cubes waiting in the boxes."""
    return X.pl[p, L.P_HQ] <= X.params[p, L.HP_RETRIEVE_HQ] and cubes_out(X, p) > 0


@kernel
def farm_kinds_available(S, X, W, p):
    """Farm kinds the player could place now (a site and a piece left for each)."""
    k = 0
    for kind in range(L.NUM_FARM_KINDS):
        if (
            W.ctx[L.CTX_FARM_SITES + kind] > 0
            and X.pl[p, L.P_FARMS + kind] < S.r[L.R_FARMS_PER_KIND]
        ):
            k += 1
    return k


@kernel
def can_build(S, X, W, p):
    """A railway action is legal and affordable; returns the box to use (-1 none):
    the 2-TP box when it has a buildable side, else the 3-TP box."""
    if X.pl[p, L.P_TRACKS] >= S.r[L.R_TRACKS]:
        return -1
    if ok(S, X, W, p, L.BOX_RAIL):
        return L.BOX_RAIL
    if ok(S, X, W, p, L.BOX_RAIL_HILLS):
        return L.BOX_RAIL_HILLS
    return -1


@kernel
def threat_distance(S, X, W, p):
    """Hexes between p's Port and the nearest face-up Old One that moves (FAR if none)."""
    return _nearest(S, X, p, True, FAR)


@kernel
def garrison_need(S, X, W, p):
    """Units the player wants at home: HP_ARMY_MIN once past HP_ARMY_FROM, plus HP_THREAT_W
    per point of damage capacity left on awake Old Ones within HP_THREAT_RANGE of the Port."""
    need = X.params[p, L.HP_ARMY_MIN] if X.pl[p, L.P_TIME] >= X.params[p, L.HP_ARMY_FROM] else 0.0
    rng_ = X.params[p, L.HP_THREAT_RANGE]
    hp = 0.0
    # the loop's arrays, read once (a field read inside it costs two reference counts a tile)
    tile_hex, tile_up, tile_type, tile_cap = X.tile_hex, X.tile_up, S.tile_type, S.tile_cap
    port_dist, tile_dmg = X.port_dist, X.tile_dmg
    for i in range(tile_hex.size):
        h = tile_hex[i]
        t = tile_type[i]
        if h >= 0 and tile_up[i] and t >= 0 and t != L.TEMPLE and 0 <= port_dist[p, h] <= rng_:
            left = tile_cap[i]
            for q in range(L.MAX_PLAYERS):
                left -= tile_dmg[i, q]
            hp += left
    return need + X.params[p, L.HP_THREAT_W] * hp


@kernel
def want_army(S, X, W, p):
    """Fewer units at home than the garrison the player wants."""
    return units_home(X, p) < garrison_need(S, X, W, p)


# -- Old Ones, as far as a player knows them ------------------------------------------------


@kernel
def moves_face_up(S, X, i):
    """Old One tile i is face-up and moves (a Temple never does)."""
    t = S.tile_type[i]
    return bool(X.tile_up[i]) and t >= 0 and t != L.TEMPLE and bool(S.type_moves[t])


@kernel
def _nearest(S, X, target, face_up, none):
    """Hexes from target's Port to the nearest tile on the map that is face-up and moves
    (face_up) or face-down (not face_up); ``none`` when there is none."""
    best = none
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        wanted = moves_face_up(S, X, i) if face_up else not X.tile_up[i]
        if h < 0 or not wanted:
            continue
        d = X.port_dist[target, h]
        if 0 <= d < best:
            best = d
    return best


@kernel
def nearest_to_port(S, X, target, face_up):
    """_nearest, 10 when there is none (the learned players' feature scale)."""
    return _nearest(S, X, target, face_up, 10)


@kernel
def public_old_ones_vp(S, X):
    """The Old Ones' VP as a player can count them now: face-up tiles at face value,
    face-down ones at their level's mean (base game: times R_UNREVEALED_MULT), the
    blighted farms, and (Revenge) the Old One player's VP tokens."""
    revenge = X.g[L.G_MODE] == L.MODE_REVENGE
    mult = 1.0 if revenge else float(S.r[L.R_UNREVEALED_MULT])
    vp = 0.0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0:
            vp += S.tile_vp[i] if X.tile_up[i] else mult * S.level_vp[S.tile_level[i]]
    blight = S.r[L.R_REV_BLIGHT_VP] if revenge else S.r[L.R_BLIGHT_VP]
    for h in range(X.hex_farm.size):
        if X.hex_farm[h] == 2:
            vp += blight
    if revenge:
        vp += X.g[L.G_OOP_VP]
    return vp


@kernel
def _within_two(neighbors, a, b):
    if a == b:
        return True
    for k in range(6):
        m = neighbors[a, k]
        if m < 0:
            continue
        if m == b:
            return True
        for j in range(6):
            if neighbors[m, j] == b:
                return True
    return False


@kernel
def farms_at_risk(S, X, p):
    """p's un-blighted farms within two hexes of an Old One tile that may move to them
    (face-up and moving, or in Revenge face-down: the Old One player moves those too)."""
    revenge = X.g[L.G_MODE] == L.MODE_REVENGE
    n = 0
    for f in range(X.hex_farm.size):
        if X.hex_farm[f] != 1 or X.hx[f, L.H_FARM_OWNER] != p:
            continue
        for i in range(X.tile_hex.size):
            h = X.tile_hex[i]
            may_move = moves_face_up(S, X, i) if X.tile_up[i] else revenge
            if h >= 0 and may_move and _within_two(S.neighbors, h, f):
                n += 1
                break
    return n


@kernel
def hex_estimate(S, X, p, h, force_bits, out):
    """Expected fight against hex h with unit types ``force_bits``: out = (cards to
    destroy everything, purple cubes per card, sanity per card, airship hits per card,
    VP gained + denied to the Old Ones). Face-down tiles count as their level's mix."""
    cards = 0.0
    purple = 0.0
    sanity = 0.0
    air = 0.0
    value = 0.0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] != h:
            continue
        hits = 0.0
        if X.tile_up[i]:
            t = S.tile_type[i]
            if t < 0:
                continue
            hp = S.tile_cap[i]
            for q in range(L.MAX_PLAYERS):
                hp -= X.tile_dmg[i, q]
            for u in range(L.NUM_UNITS):
                if (force_bits >> u) & 1:
                    hits += S.hit_rate[t, u]
            purple += S.harm_rate[t, 0]
            sanity += S.harm_rate[t, 1]
            air += S.harm_rate[t, 2]
            value += 2.0 * S.tile_vp[i]
        else:
            lv = S.tile_level[i]
            hp = S.level_cap[lv]
            for u in range(L.NUM_UNITS):
                if (force_bits >> u) & 1:
                    hits += S.level_hit[lv, u]
            purple += S.level_harm[lv, 0]
            sanity += S.level_harm[lv, 1]
            air += S.level_harm[lv, 2]
            value += 3.0 * S.level_vp[lv]
        need = hp / max(hits, 0.05)
        cards = max(cards, need)
    out[0] = cards
    out[1] = purple
    out[2] = sanity
    out[3] = air
    out[4] = value


@kernel(nrt=False)  # its caller reads the fields once for every hex it asks about
def usable_force(unit_range, bonus, pl, neighbors, edge_owner, clear, hex_blocked, dist, p, h):
    """Unit-type bits of player p's Barracks that can reach hex h together (the force's
    range is its lowest: Trains only join when h is on the rail network); ``bonus``: p's
    range bonus (range_bonus), ``dist``: W.dist, ``clear``: W.clear of p's turn."""
    bits = 0
    rail = joined_by_rail(neighbors, edge_owner, clear, p, h)
    for u in range(L.NUM_UNITS):
        if pl[p, L.P_UNITS + u] == 0:
            continue
        reach = reach_of(unit_range, bonus, u)
        if reach == 0 and not rail:
            continue
        if hex_blocked[h] and (rail if reach <= 0 else (dist[h] >= 0) & (dist[h] <= reach)):
            bits |= 1 << u
    return bits


@kernel
def fight_score(S, X, W, p, h, bits, ratio):
    """Expected value per card of attacking h with every unit of ``bits`` (<= 0: not worth
    it: too many cards, not enough units to soak the damage, or sanity runs out)."""
    est = W.vals  # 5 float slots of strategy scratch
    hex_estimate(S, X, p, h, bits, est)
    cards = est[0]
    if cards > 10.0:
        return 0.0
    soak = 0.0
    for u in range(L.NUM_UNITS):
        if (bits >> u) & 1 and u != L.AIRSHIP:
            soak += X.pl[p, L.P_UNITS + u] * unit_capacity(S, X, p, u)
    if soak < ratio * est[1] * cards or est[2] * cards > 2.5:
        return 0.0
    if (bits >> L.AIRSHIP) & 1 and est[3] * cards > X.pl[p, L.P_UNITS + L.AIRSHIP] * unit_capacity(
        S, X, p, L.AIRSHIP
    ):
        return 0.0
    return est[4] / (cards + 1.0)


@kernel
def plan_attack_heuristic(S, X, W, p):
    """Best target by fight_score within the player's radius and rules (HP_ATK_*);
    fills W.force with every unit of the chosen types. Returns the hex or -1."""
    ratio = X.params[p, L.HP_ATK_RATIO]
    radius = X.params[p, L.HP_ATK_RADIUS]
    facedown = X.params[p, L.HP_ATK_FACEDOWN] > 0
    best = -1
    best_score = 0.0
    best_bits = 0
    # the loop's arrays, read once: a field read inside it costs two reference counts a hex
    # (usable_force's eleven reads a hex were a sixth of a rollout's reference counts)
    hex_blocked, port_dist, tile_hex, tile_up = X.hex_blocked, X.port_dist, X.tile_hex, X.tile_up
    unit_range, pl, neighbors, edge_owner = S.unit_range, X.pl, S.neighbors, X.edge_owner
    clear, dist = W.clear, W.dist
    bonus = range_bonus(S, X, p)
    for h in range(hex_blocked.size):
        if not hex_blocked[h]:
            continue
        if radius >= 0 and (port_dist[p, h] < 0 or port_dist[p, h] > radius):
            continue
        bits = usable_force(
            unit_range, bonus, pl, neighbors, edge_owner, clear, hex_blocked, dist, p, h
        )
        if bits == 0:
            continue
        if not facedown:  # the scan of every tile only where face-down hexes are skipped
            down = False
            for i in range(tile_hex.size):
                if tile_hex[i] == h and not tile_up[i]:
                    down = True
                    break
            if down:
                continue
        score = fight_score(S, X, W, p, h, bits, ratio)
        if score > best_score:
            best, best_score, best_bits = h, score, bits
    for u in range(L.NUM_UNITS):
        W.force[u] = X.pl[p, L.P_UNITS + u] if (best_bits >> u) & 1 else 0
    return best


@kernel
def withdraw_if_bad(S, X, W, p, h):
    """After the flip: stay only if the revealed fight still looks worth it."""
    bits = 0
    for u in range(L.NUM_UNITS):
        if W.force[u] > 0:
            bits |= 1 << u
    return fight_score(S, X, W, p, h, bits, X.params[p, L.HP_ATK_RATIO]) <= 0.0


# -- economy ---------------------------------------------------------------------------------


@kernel
def resource_weight(X, p, r):
    if r == L.PHOSPHATE:
        return 4.0
    if r == L.GOLD:
        return 1.0
    return 1.5 if X.pl[p, L.P_RES + r] < 2 else 0.7


@kernel
def best_mine(X, W, p):
    """(candidate index, value) of the best (hex, resource) among W.cand_h/cand_k[:n]."""
    best = -1
    best_v = 0.0
    for h in range(X.hex_farm.size):
        if not W.clear[h]:
            continue
        for r in range(L.NUM_RES):
            v = X.hx[h, L.H_RES + r] * resource_weight(X, p, r)
            if v > best_v:
                best_v = v
                best = h * L.NUM_RES + r
    return best, best_v


@kernel
def pick_mine_heuristic(X, W, p, n):
    best = 0
    best_v = -1.0
    for c in range(n):
        v = X.hx[W.cand_h[c], L.H_RES + W.cand_k[c]] * resource_weight(X, p, W.cand_k[c])
        if v > best_v:
            best, best_v = c, v
    return best


@kernel
def rail_goal(S, X, W, p):
    """The hex a heuristic player extends its railway towards: the best value (resources,
    farm sites, Old Ones in attack reach) per hex of distance from the clear network."""
    ensure_dist(S, X, W, p)
    wr = X.params[p, L.HP_RAIL_RES]
    wf = X.params[p, L.HP_RAIL_FARM]
    wo = X.params[p, L.HP_RAIL_OLDONE]
    best = -1
    best_v = 0.0
    for h in range(X.hex_farm.size):
        d = W.dist[h]
        if d < 1:
            continue
        v = 0.0
        if X.hex_blocked[h]:
            v = wo * 2.0
        else:
            empty = X.hx[h, L.H_PORT_OWNER] < 0 and X.hx[h, L.H_FARM_OWNER] < 0
            for r in range(L.NUM_RES):
                if X.hx[h, L.H_RES + r] > 0:
                    v += wr * X.hx[h, L.H_RES + r] * resource_weight(X, p, r)
                    empty = False
            if empty:
                for kind in range(L.NUM_FARM_KINDS):
                    if (S.hex_farms[h] >> kind) & 1 and X.pl[p, L.P_FARMS + kind] < S.r[
                        L.R_FARMS_PER_KIND
                    ]:
                        v += wf
        v = v / (1.0 + d)
        if v > best_v:
            best, best_v = h, v
    return best


@kernel
def pick_track_toward(rng, S, X, W, p, n):
    """Candidate side whose far hex is closest to the rail goal (new ground first); a
    random candidate when there is no goal. The goal and its distance field are kept for
    the second track of the same action."""
    if W.ctx[L.CTX_S_DIST2] != L.DIST2_GOAL:
        goal = rail_goal(S, X, W, p)
        if goal < 0:
            return int(uniform(rng) * n)
        for h in range(W.mask.size):
            W.mask[h] = False
        W.mask[goal] = True
        nearest_field(S.hex_dist, W.mask, W.dist2)
        W.ctx[L.CTX_S_DIST2] = L.DIST2_GOAL
        W.ctx[L.CTX_S_GOAL] = goal
    best = 0
    best_v = FAR
    for c in range(n):
        m = S.neighbors[W.cand_h[c], W.cand_k[c]]
        d = W.dist2[m] if W.dist2[m] >= 0 else FAR // 2
        v = 2 * d + (1 if W.clear[m] else 0)
        if v < best_v:
            best, best_v = c, v
    return best


@kernel
def pick_farm_heuristic(S, X, W, p, n):
    """Farm site among W.hexes[:n]: far from Old One tiles (HP_FARM_SAFE) or near the Port."""
    if X.params[p, L.HP_FARM_SAFE] > 0:
        if W.ctx[L.CTX_S_DIST2] != L.DIST2_OLD_ONES:
            any_oo = False
            for h in range(W.mask.size):
                W.mask[h] = X.hex_blocked[h]
                any_oo |= X.hex_blocked[h]
            if not any_oo:
                return 0
            nearest_field(S.hex_dist, W.mask, W.dist2)
            W.ctx[L.CTX_S_DIST2] = L.DIST2_OLD_ONES
        best = 0
        best_v = -1
        for c in range(n):
            v = W.dist2[W.hexes[c]]
            v = FAR if v < 0 else v
            if v > best_v:
                best, best_v = c, v
        return best
    best = 0
    best_v = FAR
    for c in range(n):
        v = X.port_dist[p, W.hexes[c]]
        if 0 <= v < best_v:
            best, best_v = c, v
    return best


@kernel
def pick_unit_heuristic(S, X, W, p):
    """Unit with the best preference weight per square root of its Gold; a type not yet in
    the Barracks counts 2.5x (each type on a card is one hit, whatever the numbers).
    Infantry comes in pairs when affordable. Revenge / Mythos Solo: an Outpost alone
    (OUTPOST_STACK) in the case described below."""
    gold = X.pl[p, L.P_RES + L.GOLD]
    best = -1
    best_v = -1.0
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] <= 0 or S.unit_cost[u] > gold:
            continue
        v = X.params[p, L.HP_UNIT_W + u] / max(S.unit_cost[u], 1) ** 0.5
        if X.pl[p, L.P_UNITS + u] == 0:
            v *= 2.5
        if v > best_v:
            best, best_v = u, v
    W.choice[0] = best
    W.choice[1] = 1
    if best == L.INFANTRY and gold >= 2 * S.unit_cost[best] and X.g[L.G_SUPPLY + best] >= 2:
        W.choice[1] = 2
    # Revenge / Mythos Solo: only an Outpost when the Barracks already hold two units, the
    # Gold does not stretch to the unit and an Outpost, and an Old One is near a site
    reach = int(X.params[p, L.HP_OUTPOST])
    if (
        reach > 0
        and best >= 0
        and can_buy_outpost(S, X, p, gold)
        and gold < S.unit_cost[best] * W.choice[1] + S.unit_cost_f[L.OUTPOST_STACK]
    ):
        units = 0
        for u in range(L.NUM_UNITS):
            units += X.pl[p, L.P_UNITS + u]
        if units >= 2 and outpost_site(S, X, W, p, reach) >= 0:
            W.choice[0] = L.OUTPOST_STACK
            W.choice[1] = 1


@kernel
def pick_trade_heuristic(S, X, W, p):
    """Import the scarcer of Coal and Iron while railways are still wanted; otherwise
    export surplus for Gold."""
    want_rail = X.pl[p, L.P_TRACKS] < S.r[L.R_TRACKS] - 1
    if X.pl[p, L.P_RES + L.GOLD] < 3 and want_army(S, X, W, p):
        want_rail = False  # Gold for the garrison first
    coal = X.pl[p, L.P_RES + L.COAL]
    iron = X.pl[p, L.P_RES + L.IRON]
    for j in range(2):
        if want_rail and (coal < 3 or iron < 3):
            if coal <= iron:
                W.choice[j] = L.IMPORT_COAL
                coal += 1
            else:
                W.choice[j] = L.IMPORT_IRON
                iron += 1
        elif coal > 1 or (not want_rail and coal > 0):
            W.choice[j] = L.EXPORT_COAL
            coal -= 1
        elif iron > 1 or (not want_rail and iron > 0):
            W.choice[j] = L.EXPORT_IRON
            iron -= 1
        else:
            W.choice[j] = L.IMPORT_COAL if coal <= iron else L.IMPORT_IRON


@kernel
def personality_wish(S, X, p, card):
    if card < 0:
        return -1.0
    return X.params[p, L.HP_PERS_W + S.pers_effect[card]]


@kernel
def best_display_slot(S, X, p):
    best = -1
    best_v = 0.0
    for j in range(X.display.size):
        v = personality_wish(S, X, p, X.display[j])
        if v > best_v:
            best, best_v = j, v
    return best, best_v


@kernel
def pick_recruit_heuristic(S, X, W, p):
    best, v = best_display_slot(S, X, p)
    if best >= 0:
        return best
    for j in range(X.display.size - 1, -1, -1):
        if X.display[j] >= 0:
            return j
    return -1


@kernel
def pick_cycle_heuristic(S, X, W, p):
    """Revenge: send the least wanted displayed Personality to the bottom of the pile when
    the strategy does not want it at all and nothing on display is much wanted."""
    worst, worst_w, best_w = -1, 1e18, -1e18
    for j in range(X.display.size):
        c = X.display[j]
        if c >= 0:
            w = personality_wish(S, X, p, c)
            best_w = max(best_w, w)
            if w < worst_w:
                worst, worst_w = j, w
    if worst >= 0 and worst_w <= 0.0 and best_w < 1.0:
        return worst
    return -1


@kernel
def pick_drawn_heuristic(S, X, W, p, a, b):
    W.choice[0] = 1 if personality_wish(S, X, p, b) > personality_wish(S, X, p, a) else 0
    W.choice[1] = -1


@kernel
def pick_reveal_heuristic(S, X, W, p):
    """Agent Davies: the face-down tile farthest from the own Port (revealed Old Ones
    score single, not double, but start walking)."""
    best = -1
    best_d = -1
    for i in range(X.tile_hex.size):
        h = X.tile_hex[i]
        if h >= 0 and not X.tile_up[i] and X.port_dist[p, h] > best_d:
            best, best_d = i, X.port_dist[p, h]
    return best


@kernel
def pick_free_unit_heuristic(S, X, W, p):
    """Captain Flounder: the most expensive unit still in the supply that the player likes."""
    best = -1
    best_v = -1.0
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0:
            v = S.unit_cost[u] * (0.5 + X.params[p, L.HP_UNIT_W + u])
            if v > best_v:
                best, best_v = u, v
    return best

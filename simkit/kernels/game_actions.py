"""A player's turn: which actions are legal, and the eight actions (base rules, Available
Actions). The engine owns legality: every strategy answer is checked here; a refused
answer is counted (G_ILLEGAL, logged as EV_ILLEGAL) and replaced by a legal default.

Turn context (written before the strategy is asked, see turn_context):
    W.clear   the player's clear rail network (joined to the Port, free of Old Ones)
    W.dist    off-rail steps from it, not through Old Ones (-1 unreachable), when the player
              has units: for every hex their longest range reaches (game_common.ensure_reach);
              game_common.ensure_dist completes it to every hex
    W.legal   legal action boxes; W.ctx facts (what exists, an attack witness)
Strategies may write W.dist2, W.mask, W.vals, W.choice and W.force only (and call
ensure_dist).
"""

from simkit.kernels.game_attack import attack_action, find_attack_witness
from simkit.kernels.game_sites import (
    ALL_MASK,
    CHEAP_MASK,
    farm_candidates,
    mine_candidates,
    refresh_network,
    scan_sites,
    surcharge,
    track_candidates,
)
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import lay_track
from simkit.kernels.low.game_common import (
    cycle_display,
    display_count,
    ensure_reach,
    flip_tile,
    is_revenge_like,
    log_event,
    take_from_display,
)
from simkit.kernels.low.game_outpost import (
    can_buy_outpost,
    maybe_outpost,
    outpost_site,
    place_outpost,
)
from simkit.kernels.low.jit import kernel
from strategies.human.policy import (
    choose_action,
    pick_cycle,
    pick_drawn,
    pick_farm,
    pick_free_unit,
    pick_mine,
    pick_recruit,
    pick_reveal,
    pick_track,
    pick_trade,
    pick_unit,
)


@kernel
def illegal(X, p, decision, value):
    if X.g[L.G_FORCED_BOX] > 0:  # a look-ahead chose the action its policy would not take
        X.g[L.G_FORCED_FALLBACKS] += 1
        return
    X.g[L.G_ILLEGAL] += 1
    X.pl[p, L.P_ILLEGAL] += 1
    log_event(X, L.EV_ILLEGAL, X.pl[p, L.P_TIME], p, decision, value, 0, 0, 0)


@kernel
def legal_pick(X, p, decision, c, n):
    """The strategy's pick c among n candidates, or candidate 0 if c is none of them."""
    if c < 0 or c >= n:
        illegal(X, p, decision, c)
        return 0
    return c


# -- legality ------------------------------------------------------------------------------


@kernel
def turn_context(S, X, W, p):
    """Compute W.clear, W.ctx and W.legal for player p's turn (W.dist when p has units)."""
    pl = X.pl
    r = S.r
    ctx = W.ctx
    for k in range(ctx.size):
        ctx[k] = 0
    ctx[L.CTX_PLAYER] = p
    units = 0
    for u in range(L.NUM_UNITS):
        units += pl[p, L.P_UNITS + u]
    if units > 0:
        ensure_reach(S, X, W, p)
        ctx[L.CTX_ATTACK_TARGETS] = find_attack_witness(S, X, W, p)
    else:
        refresh_network(S, X, W, p)
    scan_sites(S, X, W, p)

    hq = pl[p, L.P_HQ]
    gold = pl[p, L.P_RES + L.GOLD]
    for b in range(L.NUM_BOXES):
        W.legal[b] = (hq > 0) & (gold >= surcharge(S, X, p, b))
    tracks_left = pl[p, L.P_TRACKS] < r[L.R_TRACKS]
    has_ci = (pl[p, L.P_RES + L.COAL] > 0) & (pl[p, L.P_RES + L.IRON] > 0)
    W.legal[L.BOX_RAIL] &= tracks_left & has_ci & (ctx[L.CTX_RAIL_CHEAP] > 0)
    W.legal[L.BOX_RAIL_HILLS] &= tracks_left & has_ci & (ctx[L.CTX_RAIL_ALL] > 0)
    W.legal[L.BOX_MINE] &= ctx[L.CTX_MINE_SITES] > 0
    can_draw = (X.g[L.G_PERS_POS] < X.g[L.G_PERS_SIZE]) & (
        gold >= surcharge(S, X, p, L.BOX_RECRUIT) + r[L.R_RECRUIT_DRAW_GOLD]
    )
    W.legal[L.BOX_RECRUIT] &= (display_count(X) > 0) | can_draw
    buy = False
    for u in range(L.NUM_UNITS):
        if X.g[L.G_SUPPLY + u] > 0 and gold >= surcharge(S, X, p, L.BOX_MILITARY) + S.unit_cost[u]:
            buy = True
    W.legal[L.BOX_MILITARY] &= buy
    farm_ok = False
    for kind in range(L.NUM_FARM_KINDS):
        if ctx[L.CTX_FARM_SITES + kind] > 0:
            farm_ok = True
    W.legal[L.BOX_FARM] &= farm_ok
    W.legal[L.BOX_ATTACK] &= ctx[L.CTX_ATTACK_TARGETS] > 0
    W.legal[L.BOX_RETRIEVE] = True


# -- actions ------------------------------------------------------------------------------


@kernel
def build_railway(rngs, S, X, W, p, box):
    """Spend 1 Coal + 1 Iron and lay up to two tracks, each joined to the network."""
    pl = X.pl
    pl[p, L.P_RES + L.COAL] -= 1
    pl[p, L.P_RES + L.IRON] -= 1
    mask = CHEAP_MASK if box == L.BOX_RAIL else ALL_MASK
    for j in range(S.r[L.R_TRACKS_PER_BUILD]):
        if pl[p, L.P_TRACKS] >= S.r[L.R_TRACKS]:
            break
        if j > 0:
            refresh_network(S, X, W, p)
        n = track_candidates(S, X, W, p, mask)
        if n == 0:
            break
        c = legal_pick(X, p, L.DEC_TRACK, pick_track(rngs[L.RNG_SEAT + p], S, X, W, p, n), n)
        h = W.cand_h[c]
        k = W.cand_k[c]
        lay_track(S.neighbors, X.edge_owner, h, k, p)
        W.ctx[L.CTX_DIST_OK] = 0  # the network grew: attack distances are stale
        pl[p, L.P_TRACKS] += 1
        log_event(X, L.EV_TRACK, pl[p, L.P_TIME], p, h, k, S.neighbors[h, k], 0, 0)
    return S.r[L.R_TP + box]


@kernel
def mine(rngs, S, X, W, p):
    """Take every token of one resource type from a hex on the clear network."""
    n = mine_candidates(X, W)
    c = legal_pick(X, p, L.DEC_MINE, pick_mine(rngs[L.RNG_SEAT + p], S, X, W, p, n), n)
    h = W.cand_h[c]
    res = W.cand_k[c]
    amount = X.hx[h, L.H_RES + res]
    X.hx[h, L.H_RES + res] = 0
    X.pl[p, L.P_RES + res] += amount
    if res == L.PHOSPHATE:
        X.pl[p, L.P_RES + L.GOLD] += S.r[L.R_PHOS_GOLD]
        X.pl[p, L.P_GOLD_EARNED] += S.r[L.R_PHOS_GOLD]
    log_event(X, L.EV_MINE, X.pl[p, L.P_TIME], p, h, res, amount, 0, 0)
    return S.r[L.R_TP + L.BOX_MINE]


@kernel
def gain_personality(rngs, S, X, W, p, card, slot, other):
    """Player p takes Personality ``card``; one-use effects happen now."""
    X.pl[p, L.P_PERS] |= 1 << card
    X.pl[p, L.P_PERS_VP] += S.pers_vp[card]
    log_event(X, L.EV_RECRUIT, X.pl[p, L.P_TIME], p, card, slot, other, 0, 0)
    eff = S.pers_effect[card]
    if eff == L.EFF_REVEAL:
        for _ in range(S.pers_amount[card]):
            first = -1  # the first face-down tile: the legal default
            for j in range(X.tile_hex.size):
                if X.tile_hex[j] >= 0 and not X.tile_up[j]:
                    first = j
                    break
            if first < 0:
                break
            i = pick_reveal(rngs[L.RNG_SEAT + p], S, X, W, p)
            if i < 0 or i >= X.tile_hex.size or X.tile_hex[i] < 0 or X.tile_up[i]:
                illegal(X, p, L.DEC_REVEAL, i)
                i = first
            log_event(X, L.EV_PERSONALITY, X.pl[p, L.P_TIME], p, card, i, 0, 0, 0)
            flip_tile(S, X, i, p)
    elif eff == L.EFF_FREE_UNIT:
        for _ in range(S.pers_amount[card]):
            first = -1  # the first unit type left in the supply: the legal default
            for v in range(L.NUM_UNITS):
                if X.g[L.G_SUPPLY + v] > 0:
                    first = v
                    break
            if first < 0:
                break
            u = pick_free_unit(rngs[L.RNG_SEAT + p], S, X, W, p)
            if u < 0 or u >= L.NUM_UNITS or X.g[L.G_SUPPLY + u] <= 0:
                illegal(X, p, L.DEC_FREE_UNIT, u)
                u = first
            X.g[L.G_SUPPLY + u] -= 1
            X.pl[p, L.P_UNITS + u] += 1
            log_event(X, L.EV_PERSONALITY, X.pl[p, L.P_TIME], p, card, u, 0, 0, 0)


@kernel
def recruit(rngs, S, X, W, p):
    """Take a Personality from the display (the line shifts right, a new card enters on
    the left), or pay 1 Gold, look at the top two of the pile, keep one, put the other
    back on top, and optionally swap the kept card with one in the display. Revenge:
    before that, the player may move one displayed card to the bottom of the pile. Mythos
    Solo (FAQ: "Can I pay a Gold to refresh the Personalities on display? Yes."): the
    player may instead pay to send the whole display to the bottom and deal a new one."""
    g = X.g
    D = S.r[L.R_DISPLAY]
    if g[L.G_MODE] == L.MODE_REVENGE and g[L.G_PERS_POS] < g[L.G_PERS_SIZE]:
        # Revenge: first, optionally move one displayed card to the bottom of the pile
        j = pick_cycle(rngs[L.RNG_SEAT + p], S, X, W, p)
        if 0 <= j < D and X.display[j] >= 0:
            card = cycle_display(X, j)
            log_event(X, L.EV_REVENGE, X.pl[p, L.P_TIME], p, L.RV_CYCLE, card, j, 0, 0)
        elif j != -1:
            illegal(X, p, L.DEC_RECRUIT, 300 + j)
    elif (
        g[L.G_MODE] == L.MODE_MYTHOS_SOLO
        and g[L.G_PERS_POS] < g[L.G_PERS_SIZE]
        and X.pl[p, L.P_RES + L.GOLD] >= S.r[L.R_REFRESH_GOLD]
    ):
        # the same wish (a different display), granted the solo way: a paid refresh
        j = pick_cycle(rngs[L.RNG_SEAT + p], S, X, W, p)
        if 0 <= j < D and X.display[j] >= 0:
            X.pl[p, L.P_RES + L.GOLD] -= S.r[L.R_REFRESH_GOLD]
            for _ in range(D):
                if X.display[D - 1] >= 0 and g[L.G_PERS_POS] < g[L.G_PERS_SIZE]:
                    cycle_display(X, D - 1)
            log_event(
                X, L.EV_REVENGE, X.pl[p, L.P_TIME], p, L.RV_REFRESH, S.r[L.R_REFRESH_GOLD], 0, 0, 0
            )
        elif j != -1:
            illegal(X, p, L.DEC_RECRUIT, 300 + j)
    gold_ok = X.pl[p, L.P_RES + L.GOLD] >= S.r[L.R_RECRUIT_DRAW_GOLD]
    can_draw = (g[L.G_PERS_POS] < g[L.G_PERS_SIZE]) & gold_ok
    slot = pick_recruit(rngs[L.RNG_SEAT + p], S, X, W, p)
    ok = (slot == -1 and can_draw) or (0 <= slot < D and X.display[slot] >= 0)
    if not ok:
        illegal(X, p, L.DEC_RECRUIT, slot)
        slot = -1
        for j in range(D - 1, -1, -1):
            if X.display[j] >= 0:
                slot = j
                break
    if slot >= 0:
        card = take_from_display(X, slot)
        gain_personality(rngs, S, X, W, p, card, slot, -1)
        return S.r[L.R_TP + L.BOX_RECRUIT]
    X.pl[p, L.P_RES + L.GOLD] -= S.r[L.R_RECRUIT_DRAW_GOLD]
    a = X.pers_deck[g[L.G_PERS_POS]]
    g[L.G_PERS_POS] += 1
    b = -1
    if g[L.G_PERS_POS] < g[L.G_PERS_SIZE]:
        b = X.pers_deck[g[L.G_PERS_POS]]
        g[L.G_PERS_POS] += 1
    W.choice[0] = 0
    W.choice[1] = -1
    pick_drawn(rngs[L.RNG_SEAT + p], S, X, W, p, a, b)
    keep = W.choice[0]
    swap = W.choice[1]
    if keep != 0 and (keep != 1 or b < 0):
        illegal(X, p, L.DEC_RECRUIT, 100 + keep)
        keep = 0
    if swap != -1 and not (0 <= swap < D and X.display[swap] >= 0):
        illegal(X, p, L.DEC_RECRUIT, 200 + swap)
        swap = -1
    card = a if keep == 0 else b
    back = b if keep == 0 else a
    if back >= 0:
        g[L.G_PERS_POS] -= 1
        X.pers_deck[g[L.G_PERS_POS]] = back
    if swap >= 0:
        c2 = X.display[swap]
        X.display[swap] = card
        card = c2
    gain_personality(rngs, S, X, W, p, card, -1, back)
    return S.r[L.R_TP + L.BOX_RECRUIT]


@kernel
def buy_military(rngs, S, X, W, p, extra_gold):
    """One unit for its Gold cost, or one or two Infantry at one Gold each; Revenge /
    Mythos Solo: or only an Outpost (the strategy answers OUTPOST_STACK), or a unit and
    an Outpost for 2 more Gold (game_outpost.maybe_outpost)."""
    W.choice[0] = -1
    W.choice[1] = 1
    pick_unit(rngs[L.RNG_SEAT + p], S, X, W, p)
    u = W.choice[0]
    cnt = W.choice[1]
    gold = X.pl[p, L.P_RES + L.GOLD]
    if u == L.OUTPOST_STACK and cnt == 1 and can_buy_outpost(S, X, p, gold):
        h = outpost_site(S, X, W, p, -1)
        if h >= 0:
            place_outpost(S, X, p, h, extra_gold)
            return S.r[L.R_TP + L.BOX_MILITARY]
    ok = (
        (0 <= u < L.NUM_UNITS)
        and cnt >= 1
        and (cnt == 1 or (u == L.INFANTRY and cnt <= S.r[L.R_MAX_INFANTRY]))
    )
    if ok:
        ok = X.g[L.G_SUPPLY + u] >= cnt and gold >= S.unit_cost[u] * cnt
    if not ok:
        illegal(X, p, L.DEC_BUY, u)
        cnt = 1
        u = -1
        for v in range(L.NUM_UNITS):
            if X.g[L.G_SUPPLY + v] > 0 and gold >= S.unit_cost[v]:
                u = v
                break
    cost = S.unit_cost[u] * cnt
    X.pl[p, L.P_RES + L.GOLD] -= cost
    X.g[L.G_SUPPLY + u] -= cnt
    X.pl[p, L.P_UNITS + u] += cnt
    X.pl[p, L.P_LAST_BUY] = u + 1
    log_event(X, L.EV_BUY, X.pl[p, L.P_TIME], p, u, cnt, cost + extra_gold, 0, 0)
    if is_revenge_like(X):
        maybe_outpost(S, X, W, p)
    return S.r[L.R_TP + L.BOX_MILITARY]


@kernel
def trade_one(S, X, p, sub):
    """One Import/Export sub-action; False if it cannot be done."""
    if sub == L.IMPORT_COAL:
        X.pl[p, L.P_RES + L.COAL] += 1
    elif sub == L.IMPORT_IRON:
        X.pl[p, L.P_RES + L.IRON] += 1
    elif sub == L.EXPORT_COAL or sub == L.EXPORT_IRON:
        res = L.COAL if sub == L.EXPORT_COAL else L.IRON
        if X.pl[p, L.P_RES + res] <= 0:
            return False
        X.pl[p, L.P_RES + res] -= 1
        X.pl[p, L.P_RES + L.GOLD] += 1
        X.pl[p, L.P_GOLD_EARNED] += 1
    elif sub != L.TRADE_NONE:
        return False
    return True


@kernel
def trade(rngs, S, X, W, p):
    """Two Import/Export sub-actions in any combination."""
    W.choice[0] = L.TRADE_NONE
    W.choice[1] = L.TRADE_NONE
    pick_trade(rngs[L.RNG_SEAT + p], S, X, W, p)
    a = W.choice[0]
    b = W.choice[1] if S.r[L.R_TRADE_SUBS] > 1 else L.TRADE_NONE
    if not trade_one(S, X, p, a):
        illegal(X, p, L.DEC_TRADE, a)
        a = L.TRADE_NONE
    if not trade_one(S, X, p, b):
        illegal(X, p, L.DEC_TRADE, b)
        b = L.TRADE_NONE
    log_event(X, L.EV_TRADE, X.pl[p, L.P_TIME], p, a, b, 0, 0, 0)
    return S.r[L.R_TP + L.BOX_TRADE]


@kernel
def place_farm(X, p, h, kind):
    """Player p's Farm of ``kind`` on hex h (un-blighted: an Old One target)."""
    X.hx[h, L.H_FARM_OWNER] = p
    X.hx[h, L.H_FARM_KIND] = kind
    X.hex_farm[h] = 1
    X.hex_target[h] = True
    X.pl[p, L.P_FARMS + kind] += 1
    log_event(X, L.EV_FARM, X.pl[p, L.P_TIME], p, h, kind, 0, 0, 0)


@kernel
def farm(rngs, S, X, W, p):
    """Up to one Farm of each kind on empty connected hexes; TP = farms placed, +1 Gold each."""
    placed = 0
    for kind in range(L.NUM_FARM_KINDS):
        if X.pl[p, L.P_FARMS + kind] >= S.r[L.R_FARMS_PER_KIND]:
            continue
        n = farm_candidates(S, X, W, kind)
        if n == 0:
            continue
        c = pick_farm(rngs[L.RNG_SEAT + p], S, X, W, p, kind, n)
        if c == -1:
            continue
        if c < -1 or c >= n:
            illegal(X, p, L.DEC_FARM, c)
            continue
        place_farm(X, p, W.hexes[c], kind)
        placed += 1
    if placed == 0:  # the action needs at least one farm: the engine places the first site
        illegal(X, p, L.DEC_FARM, -1)
        for kind in range(L.NUM_FARM_KINDS):
            if (
                X.pl[p, L.P_FARMS + kind] < S.r[L.R_FARMS_PER_KIND]
                and farm_candidates(S, X, W, kind) > 0
            ):
                place_farm(X, p, W.hexes[0], kind)
                placed = 1
                break
    gold = placed * S.r[L.R_FARM_GOLD]
    X.pl[p, L.P_RES + L.GOLD] += gold
    X.pl[p, L.P_GOLD_EARNED] += gold
    return placed


@kernel
def retrieve(S, X, p):
    """All cubes from the action boxes back to the HQ (the one used for this action too).
    With an empty HQ it costs two Time Points."""
    pl = X.pl
    tp = S.r[L.R_TP + L.BOX_RETRIEVE] if pl[p, L.P_HQ] > 0 else S.r[L.R_RETRIEVE_EMPTY]
    back = 0
    for b in range(L.NUM_BOXES):
        back += pl[p, L.P_BOX + b]
        pl[p, L.P_BOX + b] = 0
    pl[p, L.P_HQ] += back
    log_event(X, L.EV_RETRIEVE, pl[p, L.P_TIME], p, back, tp, 0, 0, 0)
    return tp


@kernel
def player_turn(rngs, S, X, W, p):
    """Player p (the active player) takes one action. Returns the Time Points spent."""
    pl = X.pl
    turn_context(S, X, W, p)
    if X.g[L.G_FORCED_BOX] > 0:  # chosen outside the strategy (simkit.game.search)
        box = X.g[L.G_FORCED_BOX] - 1
    else:
        box = choose_action(rngs[L.RNG_SEAT + p], S, X, W, p)
    if box < 0 or box >= L.NUM_BOXES or not W.legal[box]:
        illegal(X, p, L.DEC_ACTION, box)
        box = L.BOX_RETRIEVE
    extra = 0
    row = log_event(X, L.EV_ACTION, pl[p, L.P_TIME], p, box, 0, 0, 0, 0)
    if box != L.BOX_RETRIEVE or pl[p, L.P_HQ] > 0:
        extra = surcharge(S, X, p, box)
        pl[p, L.P_RES + L.GOLD] -= extra
        pl[p, L.P_HQ] -= 1
        pl[p, L.P_BOX + box] += 1
    if box == L.BOX_RAIL or box == L.BOX_RAIL_HILLS:
        tp = build_railway(rngs, S, X, W, p, box)
    elif box == L.BOX_MINE:
        tp = mine(rngs, S, X, W, p)
    elif box == L.BOX_RECRUIT:
        tp = recruit(rngs, S, X, W, p)
    elif box == L.BOX_MILITARY:
        tp = buy_military(rngs, S, X, W, p, extra)
    elif box == L.BOX_TRADE:
        tp = trade(rngs, S, X, W, p)
    elif box == L.BOX_FARM:
        tp = farm(rngs, S, X, W, p)
    elif box == L.BOX_ATTACK:
        tp = attack_action(rngs, S, X, W, p)
    else:
        tp = retrieve(S, X, p)
    pl[p, L.P_TIME] += tp
    X.g[L.G_ARRIVALS] += 1
    pl[p, L.P_ARRIVAL] = X.g[L.G_ARRIVALS]
    pl[p, L.P_ACTIONS] += 1
    X.g[L.G_ACTIONS] += 1
    X.g[L.G_FORCED_BOX] = 0
    if row >= 0:
        X.log[row, 4] = tp
        X.log[row, 5] = extra
        X.log[row, 6] = pl[p, L.P_TIME]
    return tp

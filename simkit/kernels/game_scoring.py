"""End of the Game scoring (base rules) and the one summary row per game.

Players: 2 VP per un-blighted Farm, 3 per Phosphate, Personality bonuses, VP of Old One
tiles taken alone, VP tokens from shared kills. Old Ones: face value for each revealed
tile on the board, double for each un-revealed one, 1 per blighted farm. Highest total
wins; the Old Ones win any tie with them; tied players share the victory.
"""

from simkit.kernels.game_oop import revenge_oop_vp
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import log_event, player_vp
from simkit.kernels.low.jit import kernel

OLD_ONES_BIT = 1 << L.MAX_PLAYERS


@kernel
def old_ones_vp(S, X, out3):
    """out3 = (revealed, unrevealed, blighted) VP of the Old Ones; returns the total."""
    rev = 0
    unrev = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0:
            if X.tile_up[i]:
                rev += S.tile_vp[i]
            else:
                unrev += S.tile_vp[i] * S.r[L.R_UNREVEALED_MULT]
    blighted = 0
    for h in range(X.hex_farm.size):
        if X.hex_farm[h] == 2:
            blighted += 1
    out3[0] = rev
    out3[1] = unrev
    out3[2] = blighted * S.r[L.R_BLIGHT_VP]
    return out3[0] + out3[1] + out3[2]


@kernel
def winners(player_totals, n_players, oo_total):
    """Bit mask of the winners: bit p for players, OLD_ONES_BIT for the Old Ones."""
    best = -1 << 40
    for p in range(n_players):
        best = max(best, player_totals[p])
    if oo_total >= best:
        return OLD_ONES_BIT
    mask = 0
    for p in range(n_players):
        if player_totals[p] == best:
            mask |= 1 << p
    return mask


@kernel
def summarize(S, X, W, out):
    """Score the game and fill one summary row (game_layout.SUMMARY_COLUMNS) into out."""
    g = X.g
    nplay = g[L.G_NUM_PLAYERS]
    for k in range(out.size):
        out[k] = 0
    for k in range(L.MAX_PLAYERS * L.S_PLAYER_STRIDE):
        out[L.S_PLAYER0 + k] = -1
    src = W.dmg_before  # 4+ int64 scratch
    totals = W.choice  # 8 int64 scratch
    best = -1
    for p in range(nplay):
        base = L.S_PLAYER0 + p * L.S_PLAYER_STRIDE
        # 5 sources need 5 slots: use W.cand6 (6 int64)
        tot = player_vp(S, X, p, W.cand6)
        totals[p] = tot
        best = max(best, tot)
        out[base + L.SUM_P_STRATEGY] = X.sid[p]
        out[base + L.SUM_P_LISTED] = W.seat_perm[p]
        out[base + L.SUM_P_VP] = tot
        out[base + L.SUM_P_VP_FARMS] = W.cand6[0]
        out[base + L.SUM_P_VP_PHOSPHATE] = W.cand6[1]
        out[base + L.SUM_P_VP_PERSONALITIES] = W.cand6[2]
        out[base + L.SUM_P_VP_TILES] = W.cand6[3]
        out[base + L.SUM_P_VP_TOKENS] = W.cand6[4]
        farms = 0
        blighted = 0
        for h in range(X.hex_farm.size):
            if X.hx[h, L.H_FARM_OWNER] == p:
                farms += 1
                if X.hex_farm[h] == 2:
                    blighted += 1
        out[base + L.SUM_P_FARMS] = farms
        out[base + L.SUM_P_FARMS_BLIGHTED] = blighted
        out[base + L.SUM_P_TRACKS] = X.pl[p, L.P_TRACKS]
        out[base + L.SUM_P_GOLD] = X.pl[p, L.P_RES + L.GOLD]
        out[base + L.SUM_P_COMBATS] = X.pl[p, L.P_COMBATS]
        out[base + L.SUM_P_COMBATS_WON] = X.pl[p, L.P_COMBATS_WON]
        lost = 0
        for u in range(L.NUM_UNITS):
            lost += X.pl[p, L.P_LOST + u]
        out[base + L.SUM_P_UNITS_LOST] = lost
        out[base + L.SUM_P_KILLS] = X.pl[p, L.P_KILLS]
        out[base + L.SUM_P_SHARED_KILLS] = X.pl[p, L.P_SHARED]
        out[base + L.SUM_P_PORT_LOST] = X.pl[p, L.P_PORT_LOST]
        out[base + L.SUM_P_ACTIONS] = X.pl[p, L.P_ACTIONS]
        out[base + L.SUM_P_ILLEGAL] = X.pl[p, L.P_ILLEGAL]
        out[base + L.SUM_P_TIME] = X.pl[p, L.P_TIME]
        out[L.S_FARMS_BUILT] += farms
        log_event(
            X,
            L.EV_SCORE,
            g[L.G_OO_TIME],
            p,
            tot,
            W.cand6[0],
            W.cand6[1],
            W.cand6[3] + W.cand6[4],
            W.cand6[2],
        )
    if g[L.G_MODE] == L.MODE_REVENGE:
        oo = revenge_oop_vp(S, X, src)
    else:
        oo = old_ones_vp(S, X, src)
    log_event(X, L.EV_SCORE, g[L.G_OO_TIME], -1, oo, src[0], src[1], src[2], 0)
    mask = winners(totals, nplay, oo)
    out[L.S_NUM_PLAYERS] = nplay
    out[L.S_MODE] = g[L.G_MODE]
    out[L.S_DIFFICULTY] = g[L.G_DIFFICULTY]
    out[L.S_WINNERS_MASK] = mask
    if mask == OLD_ONES_BIT:
        out[L.S_WINNER] = -1
    else:
        w = -2
        count = 0
        for p in range(nplay):
            if (mask >> p) & 1:
                count += 1
                w = p
        out[L.S_WINNER] = w if count == 1 else -2
    out[L.S_OLD_ONES_WIN] = 1 if mask == OLD_ONES_BIT else 0
    out[L.S_HUMANS_WIN] = 0 if mask == OLD_ONES_BIT else 1
    out[L.S_END_REASON] = g[L.G_END_REASON]
    out[L.S_END_TIME] = g[L.G_END_TIME]
    out[L.S_PORT_LOST_BY] = g[L.G_PORT_LOST_BY]
    out[L.S_PORTS_LOST] = 1 if g[L.G_PORT_LOST_BY] >= 0 else 0
    out[L.S_FARMS_BLIGHTED] = g[L.G_FARMS_BLIGHTED]
    out[L.S_OO_VP] = oo
    out[L.S_OO_VP_REVEALED] = src[0]
    out[L.S_OO_VP_UNREVEALED] = src[1]
    out[L.S_OO_VP_BLIGHTED] = src[2]
    out[L.S_BEST_PLAYER_VP] = best
    out[L.S_COMBATS] = g[L.G_COMBATS]
    out[L.S_COMBATS_WON] = g[L.G_COMBATS_WON]
    out[L.S_PORT_COMBATS] = g[L.G_PORT_COMBATS]
    out[L.S_OO_TURNS] = g[L.G_OO_TURNS]
    out[L.S_ACTIONS] = g[L.G_ACTIONS]
    out[L.S_OO_MOVES] = g[L.G_OO_MOVES]
    out[L.S_MOVE_CARDS] = g[L.G_MOVE_CARDS]
    out[L.S_REVEALED] = g[L.G_REVEALED]
    out[L.S_RESHUFFLES] = g[L.G_RESHUFFLES]
    out[L.S_CASTRO_SAVES] = g[L.G_CASTRO_SAVES]
    out[L.S_ILLEGAL] = g[L.G_ILLEGAL]
    out[L.S_VIOLATIONS] = g[L.G_VIOLATIONS]
    out[L.S_FIRST_VIOLATION] = g[L.G_FIRST_VIOLATION]
    out[L.S_LOG_OVERFLOW] = g[L.G_LOG_OVERFLOW]
    down = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0:
            t = S.tile_type[i]
            if not X.tile_up[i]:
                down += 1
            if t >= 0:
                out[L.S_REMAINING + t] += 1
    for t in range(L.NUM_OLD_ONE_TYPES):
        out[L.S_KILLED + t] = g[L.G_KILLED + t]
    out[L.S_FACE_DOWN_LEFT] = down

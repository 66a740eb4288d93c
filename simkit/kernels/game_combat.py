"""Combat glue: a fight in a hex through simkit.kernels.combat.play (the draw loop), with the
game's persistent Old One deck, and what it leaves behind (base rules, Resolving Combat).

Damage is kept per tile and per player (tile_dmg) so shared kills can split the VP;
the cubes that mark it come out of the player's HQ (tile_cubes; damage beyond the cubes
left is the rules' "replace five cubes with a disc"). Cubes go home when the tile dies,
or after the fight for Zombies, which heal.
"""

from simkit.kernels.combat import Chance, play
from simkit.kernels.game_mythos_combat import combat_mythos
from simkit.kernels.game_withdraw import withdraw_table_tag
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.combat_kit import KitView
from simkit.kernels.low.game_common import (
    atlach_nacha_pays,
    has_effect,
    is_revenge_like,
    log_event,
    now,
    remove_tile,
    tiles_in_hex,
    unit_capacity,
)
from simkit.kernels.low.jit import kernel
from strategies.combat.withdrawal import TABLE as WD_TABLE
from strategies.combat.withdrawal import THRESHOLD as WD_THRESHOLD


@kernel
def add_damage(X, i, p, amount):
    """Player p inflicts ``amount`` damage on tile i (cubes from p's HQ as far as they go)."""
    if amount <= 0:
        return
    X.tile_dmg[i, p] += amount
    cubes = min(amount, X.pl[p, L.P_HQ])
    X.pl[p, L.P_HQ] -= cubes
    X.tile_cubes[i, p] += cubes
    X.pl[p, L.P_ON_TILES] += cubes


@kernel
def release_cubes(X, i):
    """Every damage cube on tile i back to its owner's HQ; the damage is gone."""
    for q in range(L.MAX_PLAYERS):
        c = X.tile_cubes[i, q]
        X.pl[q, L.P_HQ] += c
        X.pl[q, L.P_ON_TILES] -= c
        X.tile_cubes[i, q] = 0
        X.tile_dmg[i, q] = 0


@kernel
def tile_damage(X, i):
    total = 0
    for q in range(L.MAX_PLAYERS):
        total += X.tile_dmg[i, q]
    return total


@kernel
def kill_tile(S, X, i):
    """Destroying Old Ones: the only damager takes the tile; several split its VP equally,
    the remainder to the one who did most damage (tied: split evenly if possible, else
    not awarded)."""
    vp = S.tile_vp[i]
    n = 0
    most = 0
    mask = 0
    for q in range(L.MAX_PLAYERS):
        d = X.tile_dmg[i, q]
        if d > 0:
            n += 1
            mask |= 1 << q
            most = max(most, d)
    actor = -1
    X.tile_last_hex[i] = X.tile_hex[i]
    if n == 1:
        for q in range(L.MAX_PLAYERS):
            if X.tile_dmg[i, q] > 0:
                actor = q
                X.pl[q, L.P_TILE_VP] += vp
                X.pl[q, L.P_KILLS] += 1
                X.tile_holder[i] = q  # the tile is kept as a trophy (Yog-Sothoth may take it back)
    elif n > 1:
        share = vp // n
        rem = vp - share * n
        top = 0
        for q in range(L.MAX_PLAYERS):
            if X.tile_dmg[i, q] > 0:
                X.pl[q, L.P_VP_TOKENS] += share
                X.pl[q, L.P_SHARED] += 1
                if X.tile_dmg[i, q] == most:
                    top += 1
        if rem > 0 and rem % top == 0:
            for q in range(L.MAX_PLAYERS):
                if X.tile_dmg[i, q] == most:
                    X.pl[q, L.P_VP_TOKENS] += rem // top
    X.g[L.G_KILL_MASK] |= mask
    t = S.tile_type[i]
    if t >= 0:
        X.g[L.G_KILLED + t] += 1
    log_event(X, L.EV_KILL, now(X), actor, i, t, vp, mask, 0)
    release_cubes(X, i)
    remove_tile(X, i, L.TILE_KILLED)


@kernel
def prepare_combat(S, X, W, p, tiles, n, port_defence, h):
    """Fill W.cst / W.cmx for player p's force (W.force) against tiles[:n] (at most 4) in
    hex h. Revenge: p's Port token (port defence, strength > 0) and p's Outpost in h join
    as the PORT / OUTPOST stacks (fight as Infantry, never withdraw)."""
    st = W.cst
    mx = W.cmx
    for k in range(st.size):
        st[k] = 0
    for k in range(mx.size):
        mx[k] = 0
    for s in range(C.NUM_STACKS):
        st[C.COUNT + s] = W.force[s] if s < L.NUM_UNITS else 0
        mx[C.CAPACITY + s] = unit_capacity(S, X, p, s)
        mx[C.HITBIT + s] = s if s < L.NUM_UNITS else 0
        mx[C.TAKES_PURPLE + s] = 0 if s == C.AIRSHIP_STACK else 1
        if s == C.AIRSHIP_STACK:
            mx[C.GROUP + s] = C.GROUP_AIRSHIPS
        elif s < L.NUM_UNITS:
            mx[C.GROUP + s] = C.GROUP_OTHERS
        else:
            mx[C.GROUP + s] = C.GROUP_NONE
        W.mx_cost[s] = S.unit_cost_f[s]
    m = min(n, C.MAX_OLD_ONES)
    for j in range(C.MAX_OLD_ONES):
        if j < m:
            i = tiles[j]
            mx[C.OO_TYPE + j] = S.tile_type[i]
            mx[C.OO_CAPACITY + j] = S.tile_cap[i]
            st[C.OO_DAMAGE + j] = tile_damage(X, i)
        else:
            mx[C.OO_TYPE + j] = -1
            mx[C.OO_CAPACITY + j] = 0
        W.dmg_before[j] = st[C.OO_DAMAGE + j]
    mx[C.CAN_WITHDRAW] = 0 if port_defence else 1
    mx[C.MILLIGAN] = has_effect(S, X, p, L.EFF_AUTO_DAMAGE)
    mx[C.JONES] = 1 if has_effect(S, X, p, L.EFF_JONES) > 0 else 0
    st[C.SANITY] = S.r[L.R_SANITY]
    if is_revenge_like(X):
        if port_defence and X.pl[p, L.P_PORT_STRENGTH] > 0:
            strength = X.pl[p, L.P_PORT_STRENGTH]
            st[C.COUNT + C.PORT_STACK] = 1
            mx[C.CAPACITY + C.PORT_STACK] = strength
            # the token starts every combat undamaged (End of Combat Resolution removes
            # its cubes); "if you have no Units when your Port is attacked, the Port
            # fights as Infantry" -- decided now, when the attack begins
            units = 0
            for u in range(L.NUM_UNITS):
                units += W.force[u]
            mx[C.PORT_FIGHTS] = 1 if units == 0 else 0
            mx[C.PORT_JOINS] = (
                S.r[L.R_READ + L.READ_PORT_AS_INFANTRY] == L.PORT_AS_INFANTRY_WHEN_UNITS_GONE
            )
            st[C.SANITY] += (
                S.port_rev[L.PR_SANITY_4]
                if strength >= S.port_rev[L.PR_STRENGTH_NORMAL]
                else S.port_rev[L.PR_SANITY_2]
            )
        if h >= 0 and X.hx[h, L.H_OUTPOST] == p:
            st[C.COUNT + L.OUTPOST_STACK] = 1
        # "no damage is healed between attacks": a turn's later fights start with the
        # damage the earlier ones left (W.dmg_carry, kept by game_defence; else zero)
        mx[C.KEEP_DAMAGE] = 1
        for u in range(L.NUM_UNITS):
            if st[C.COUNT + u] > 0:
                st[C.DAMAGE + u] = min(W.dmg_carry[p, u], mx[C.CAPACITY + u] - 1)
    st[C.OUTCOME] = C.ONGOING
    return m


@kernel
def fight_view(S, X, W, alloc_id, wd_id):
    """The combat kernels' KitView of a game fight: the game's cards, its persistent Old One
    deck (X.oo_deck) and the matchup prepare_combat left in W; no paired play, so the
    second policy is the first and the tape and second deck are empty."""
    return KitView(
        S.card_hits,
        S.card_purple,
        S.card_sanity,
        S.card_airship,
        W.no_script,
        W.cmx,
        W.mx_cost,
        alloc_id,
        W.alloc_params,
        wd_id,
        W.wd_params,
        wd_id,
        W.wd_params,
        W.wt_table,
        S.port_rev[L.PR_FLIP_THRESHOLD],
        X.oo_deck,
        W.no_script,
        W.cst,
        W.scratch,
        W.scratch,
        W.dmg,
        W.no_script,
    )


@kernel
def oop_unit_vp(S, X, s):
    """OOP VP for one eliminated unit of combat stack s (Revenge; alt ruleset table)."""
    if X.g[L.G_RULESET] == L.RULES_ALT:
        return S.unit_oop_vp_alt[s]
    return S.unit_oop_vp[s]


@kernel
def remove_outpost(S, X, h):
    """Outpost in h eliminated: the OOP scores it (Revenge, Scoring for OOP)."""
    q = X.hx[h, L.H_OUTPOST]
    if q < 0:
        return
    X.hx[h, L.H_OUTPOST] = -1
    X.pl[q, L.P_OUTPOSTS] -= 1
    X.hex_target[h] = X.hx[h, L.H_PORT_OWNER] >= 0 or X.hex_farm[h] == 1
    vp = oop_unit_vp(S, X, L.OUTPOST_STACK)
    X.g[L.G_OOP_VP] += vp
    X.g[L.G_OOP_VP_UNITS] += vp
    X.g[L.G_OUTPOSTS_LOST] += 1


@kernel
def revenge_losses(S, X, W, p, h):
    """After a Revenge fight: OOP VP per unit eliminated; a lost Outpost leaves the map."""
    st = W.cst
    for u in range(L.NUM_UNITS):
        vp = st[C.LOST + u] * oop_unit_vp(S, X, u)
        X.g[L.G_OOP_VP] += vp
        X.g[L.G_OOP_VP_UNITS] += vp
    if h >= 0 and X.hx[h, L.H_OUTPOST] == p and st[C.LOST + L.OUTPOST_STACK] > 0:
        remove_outpost(S, X, h)


@kernel
def fight(rngs, S, X, W, p, h, port_defence):
    """Resolve combat between player p's force (W.force, already out of nothing: the
    Barracks still hold it) and the Old Ones in hex h. Returns the combat outcome.

    Port defence: everything in the Barracks fights (the caller fills W.force), no
    withdrawal, no Time Points. Afterwards losses go back to the supply, damage stays
    on surviving Old Ones (Zombies heal), destroyed Old Ones are scored.
    """
    n = tiles_in_hex(X, h, W.tiles2)
    X.g[L.G_KILL_MASK] = 0
    if X.g[L.G_EXTRA_TIME] > 0 and atlach_nacha_pays(S, X, p):
        # Atlach-Nacha: "you must pay 1 extra Time when the next Combat occurs" -- any
        # combat; an attack has already added it to its own TP (game_attack), so this is a
        # defence: the defender's disc moves on
        X.pl[p, L.P_TIME] += X.g[L.G_EXTRA_TIME]
        X.g[L.G_ARRIVALS] += 1
        X.pl[p, L.P_ARRIVAL] = X.g[L.G_ARRIVALS]
        X.g[L.G_EXTRA_TIME] = 0
    m = prepare_combat(S, X, W, p, W.tiles2, n, port_defence, h)
    W.alloc_params[0] = X.params[p, L.SP_ALLOC_ARG]
    W.wd_params[0] = X.params[p, L.SP_WD_SANITY]
    W.wd_params[1] = X.params[p, L.SP_WD_UNITS]
    W.wd_params[2] = X.params[p, L.SP_WD_LOST]
    if is_revenge_like(X):
        m = combat_mythos(rngs, S, X, W, p, h, port_defence, m)
    wd_id = int(X.params[p, L.SP_WD_ID])
    if wd_id == WD_TABLE and not port_defence:
        tag = withdraw_table_tag(S, X, W, p, m, W.cst)
        if tag >= 0:
            W.wd_params[0] = tag
        else:  # the table outgrew its buffers: the strategy's thresholds (if any) decide
            wd_id = WD_THRESHOLD
            X.g[L.G_TABLE_FALLBACKS] += 1
    v = fight_view(S, X, W, int(X.params[p, L.SP_ALLOC]), wd_id)
    n_left = play(v, W.cst, Chance(rngs[L.RNG_DECK], X.g[L.G_DECK_LEFT]))
    X.g[L.G_RESHUFFLES] += W.cst[C.RESHUFFLES]
    X.g[L.G_DECK_DRAWN] += W.cst[C.CARDS]
    X.g[L.G_DECK_LEFT] = n_left
    st = W.cst
    lost = 0
    for u in range(L.NUM_UNITS):
        k = st[C.LOST + u]
        lost += k
        X.pl[p, L.P_UNITS + u] -= k
        X.pl[p, L.P_LOST + u] += k
        X.g[L.G_SUPPLY + u] += k
    if is_revenge_like(X):
        revenge_losses(S, X, W, p, h)
    outcome = st[C.OUTCOME]
    for j in range(m):
        i = W.tiles2[j]
        d = st[C.OO_DAMAGE + j]
        if (
            d >= W.cmx[C.OO_CAPACITY + j]
        ):  # the capacity of this combat (Formless Spawn may raise it)
            add_damage(X, i, p, d - W.dmg_before[j])
            kill_tile(S, X, i)
        else:
            add_damage(X, i, p, min(d, S.tile_cap[i] - 1) - W.dmg_before[j])
            if S.tile_type[i] >= 0 and S.type_heals[S.tile_type[i]]:
                release_cubes(X, i)
    won = (outcome == C.WIN) | (outcome == C.WIN_AND_DEFEAT)
    if outcome == C.STALEMATE:
        X.g[L.G_STALEMATES] += 1
    X.g[L.G_COMBATS] += 1
    X.pl[p, L.P_COMBATS] += 1
    if won:
        X.g[L.G_COMBATS_WON] += 1
        X.pl[p, L.P_COMBATS_WON] += 1
    if port_defence:
        X.g[L.G_PORT_COMBATS] += 1
    t = X.pl[p, L.P_TIME] if not port_defence else now(X)
    log_event(X, L.EV_COMBAT, t, p, h, outcome, st[C.CARDS], lost, 1 if port_defence else 0)
    return outcome


@kernel
def port_defence(rngs, S, X, W, p):
    """Old Ones on p's Port: everything in the Barracks fights. Returns True if the Port
    is lost (Old Ones still on it afterwards)."""
    h = X.pl[p, L.P_PORT]
    for u in range(L.NUM_UNITS):
        W.force[u] = X.pl[p, L.P_UNITS + u]
    fight(rngs, S, X, W, p, h, True)
    return X.hex_blocked[h]

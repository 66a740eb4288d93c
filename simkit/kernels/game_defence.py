"""Revenge of the Old Ones Ports and Outposts under attack (revenge-of-the-old-ones-rules.txt,
Attack on a Port, Outposts), shared by the Revenge game (an Old One player) and Mythos Solo.

Order of the fights after a movement (FAQ "Resolve all combats"): every Port with Old Ones
on it in seat order, then the Outposts in the order the Old One player chooses (the
rules: "the Old One player decides the order the combats will take place"); the Port
fight comes first when one player's Port and Outpost are both reached (FAQ). "No damage
is healed between attacks": a player's units that survive one fight carry their damage
into that player's next fight of the same turn (W.dmg_carry); all heal after the last.

Ruleset revenge-alt (alt translation): up to 3 units join an Outpost, Port damage is
removed when the Port survives, and "if an Outpost takes damage that forces a retreat,
it is eliminated": a fight at an Outpost that ends in defeat (sanity ran out, even if
the Old Ones died on the same card) removes the Outpost, damaged or not. In the rulebook
only a damaged Outpost is lost in that case (the base rule: damaged units die when the
force must retreat).
"""

from simkit.kernels.game_combat import fight, oop_unit_vp, remove_outpost
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import clear_network
from simkit.kernels.low.game_common import log_event, now, oop_refused
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.port import port_flips
from strategies.old_ones import policy


@kernel
def count_in_hex(X, h):
    k = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] == h:
            k += 1
    return k


@kernel
def carry_damage(W, p):
    """After one of p's fights: the damage its surviving units keep for the next fight
    of this turn (the combat kept it: combat_layout KEEP_DAMAGE)."""
    st = W.cst
    for u in range(L.NUM_UNITS):
        if st[C.COUNT + u] > 0:
            W.dmg_carry[p, u] = st[C.DAMAGE + u]
        elif W.force[u] > 0:  # all lost or withdrawn (withdrawn units go home undamaged)
            W.dmg_carry[p, u] = 0


@kernel
def revenge_port_defence(rngs, S, X, W, p):
    """Old Ones on p's Port: everything in the Barracks and the Port token fight. True if
    the Port is lost (10 VP to the OOP): base rules, "if, after End of Combat Resolution,
    any Old Ones remain on your Port hex, you lose your Port" -- a knocked-out token whose
    attackers all died does not lose it. A surviving strength-4 Port that took
    flip_threshold+ damage flips to 2; the token's cubes are removed after every combat."""
    h = X.pl[p, L.P_PORT]
    for u in range(L.NUM_UNITS):
        W.force[u] = X.pl[p, L.P_UNITS + u]
    fight(rngs, S, X, W, p, h, True)
    carry_damage(W, p)
    st = W.cst
    strength = X.pl[p, L.P_PORT_STRENGTH]
    # reading "token_destroyed": a token knocked out loses the Port even when the same card
    # destroyed the last attacker (a base-game Port, strength 0, has no token to knock out)
    knocked_out = (
        S.r[L.R_READ + L.READ_PORT_LOSS] == L.PORT_LOSS_TOKEN_DESTROYED
        and strength > 0
        and st[C.PORT_HITS] >= strength
    )
    if count_in_hex(X, h) > 0 or knocked_out:
        X.g[L.G_OOP_VP] += S.port_rev[L.PR_OOP_VP]
        return True
    # the Port survived; a strength-4 token flips (the rule: simkit.kernels.low.port)
    if port_flips(
        strength >= S.port_rev[L.PR_STRENGTH_NORMAL],
        st[C.PORT_HITS],
        S.port_rev[L.PR_FLIP_THRESHOLD],
    ):
        log_event(X, L.EV_REVENGE, now(X), p, L.RV_PORT_FLIP, h, 0, 0, 0)
        X.pl[p, L.P_PORT_STRENGTH] = S.port_rev[L.PR_STRENGTH_WEAK]
        X.g[L.G_PORT_FLIPS] += 1
    return False


@kernel
def outpost_defence(rngs, S, X, W, h):
    """Old Ones reached an Outpost: its owner fights at once, free, with the Barracks (alt
    ruleset: up to 3 units; units joined to the Port by the network only). FAQ: the
    Barracks go on to the Outpost only if they won at the Port first: after a lost Port
    fight this turn the Outpost fights alone."""
    p = X.hx[h, L.H_OUTPOST]
    clear_network(S.neighbors, X.edge_owner, p, X.pl[p, L.P_PORT], X.hex_old_ones, W.clear, W.queue)
    W.ctx[L.CTX_DIST_OK] = 0
    joined = False
    for k in range(6):
        m = S.neighbors[h, k]
        if m >= 0 and X.edge_owner[h, k] == p and W.clear[m]:
            joined = True
    joined = joined and X.pl[p, L.P_PORT_LOST] == 0
    cap = 1 << 20 if X.g[L.G_RULESET] != L.RULES_ALT else 3
    for u in range(L.NUM_UNITS):
        W.force[u] = 0
    if joined:
        for u in (L.ARMOURED_TRAIN, L.ARTILLERY, L.ARMOURED_CAR, L.INFANTRY, L.AIRSHIP):
            k = min(X.pl[p, L.P_UNITS + u], cap)
            W.force[u] = k
            cap -= k
    X.g[L.G_OUTPOST_COMBATS] += 1
    log_event(X, L.EV_REVENGE, now(X), p, L.RV_OUTPOST_FIGHT, h, 0, 0, 0)
    outcome = fight(rngs, S, X, W, p, h, False)
    carry_damage(W, p)
    if X.hx[h, L.H_OUTPOST] != p:
        log_event(
            X,
            L.EV_REVENGE,
            now(X),
            p,
            L.RV_OUTPOST_LOST,
            h,
            oop_unit_vp(S, X, L.OUTPOST_STACK),
            0,
            0,
        )
        return
    lost = count_in_hex(X, h) > 0  # Old Ones still standing on it: the Outpost is overrun
    # alt translation: an Outpost that would have to retreat is eliminated
    lost = lost or (X.g[L.G_RULESET] == L.RULES_ALT and outcome == C.WIN_AND_DEFEAT)
    if lost:
        log_event(
            X,
            L.EV_REVENGE,
            now(X),
            p,
            L.RV_OUTPOST_LOST,
            h,
            oop_unit_vp(S, X, L.OUTPOST_STACK),
            0,
            0,
        )
        remove_outpost(S, X, h)


@kernel
def resolve_revenge_fights(rngs, S, X, W):
    """Every Port, then every Outpost, with Old Ones on it; all are fought (FAQ). The
    Outposts go in the Old One player's order (strategies.old_ones.policy; Mythos Solo:
    hex order).
    True if a Port fell (the game is over)."""
    ended = False
    for p in range(X.g[L.G_NUM_PLAYERS]):
        for u in range(L.NUM_UNITS):
            W.dmg_carry[p, u] = 0
    for p in range(X.g[L.G_NUM_PLAYERS]):
        h = X.pl[p, L.P_PORT]
        if h >= 0 and count_in_hex(X, h) > 0:
            if revenge_port_defence(rngs, S, X, W, p):
                X.pl[p, L.P_PORT_LOST] = 1
                if not ended:
                    X.g[L.G_PORT_LOST_BY] = p
                ended = True
                log_event(X, L.EV_PORT_LOST, now(X), p, h, 0, 0, 0, 0)
    k = 0
    for h in range(X.hx.shape[0]):
        if X.hx[h, L.H_OUTPOST] >= 0 and count_in_hex(X, h) > 0:
            W.hexes[k] = h
            k += 1
    oop_orders = S.r[L.R_READ + L.READ_OUTPOST_ORDER] == L.OUTPOST_ORDER_OOP_CHOICE
    if k > 1 and X.g[L.G_MODE] == L.MODE_REVENGE and oop_orders:
        # "the Old One player decides the order": it names the next fight, one at a time
        for a in range(k - 1):
            b = policy.next_outpost_fight(rngs[L.RNG_OOP], S, X, W.hexes, a, k)
            if not a <= b < k:
                oop_refused(X, L.DEC_OOP_OUTPOST_ORDER, b)
                b = a
            t = W.hexes[a]
            W.hexes[a] = W.hexes[b]
            W.hexes[b] = t
    for j in range(k):
        h = W.hexes[j]
        if X.hx[h, L.H_OUTPOST] >= 0 and count_in_hex(X, h) > 0:
            outpost_defence(rngs, S, X, W, h)
    for p in range(X.g[L.G_NUM_PLAYERS]):  # the turn's fights are over: everyone heals
        for u in range(L.NUM_UNITS):
            W.dmg_carry[p, u] = 0
    if ended:
        X.g[L.G_OVER] = 1
        X.g[L.G_END_REASON] = L.END_PORT
        X.g[L.G_END_TIME] = now(X)
    return ended

"""Combat Mythos cards: played by the Old One player during a combat, off-turn too
(revenge-of-the-old-ones-rules.txt, Mythos Cards: "Cards with a Combat symbol can be
played in Combat (i.e. off-turn), but will move the OOP disc on the Time Track if there
is a TP cost. The only cards that can be played after the OOP reaches Time Point 53 are
the Combat cards with 0 TP cost"). In Mythos Solo a flipped combat card waits in
X.mythos_hand until the next combat it applies to (solo notes: "when the next Combat
occurs", Deep Ones "at your Port", Formless Spawn "when you next attack a Temple") and is
then applied without a choice and without a TP cost.

:func:`combat_mythos` runs after the combat is set up (W.cst / W.cmx filled by
game_combat.prepare_combat) and before the first Old One card: every card takes effect
at the start of the combat (a simplification: the rules let the OOP play it at any
moment of the combat). Effects (game_layout MYTH_* ids, amount = the card's):

 3 combat_damage_and_sanity (Baoht Zuqqa-Mogg): `amount` purple damage, placed by the
   human's own allocation rule (FAQ: the human places Mythos damage), and `amount`
   Sanity lost. Revenge: only when the human is "clearly not retreating": a fight that
   cannot be left (Port defence), or one where the human's withdrawal rule still says
   stay on the state after the card's damage.
 7 port_combat_extra_damage (Deep Ones, effect ASSUMED): in a Port defence every Old One
   card brings `amount` more purple cubes (combat_layout EXTRA_PURPLE).
10 temple_attack_extra_capacity (Formless Spawn, effect ASSUMED): in a human attack on a
   hex with a Temple, the (first) Temple needs `amount` more damage to die in this
   combat; damage beyond its printed capacity minus one is not kept afterwards.
11 ghoul_joins_combat (Ghoul): a random Zombie from the unused tiles joins the Old Ones
   (face up, on the hex: if it survives it stays there; assumed), and the human loses one
   Infantry in the combat (the OOP scores it). Needs an Infantry in the fight, a free
   Old One slot (4 per combat) and an unused Zombie.

The Old One player plays a card that applies with probability X.oop_params[OP_COMBAT_MYTHOS]
(one draw per card that applies).
"""

from simkit.kernels.combat import copy_into, place_cubes
from simkit.kernels.game_withdraw import stays_in
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import advance_disc, log_event, now, occupy
from simkit.kernels.low.jit import kernel
from strategies.combat.allocation import choose_stack
from strategies.old_ones import policy


@kernel
def unused_zombie(S, X, take):
    """An unused Zombie tile (not on the board, not in the OOP's drawn supply), -1 if none;
    with ``take`` it leaves the stack."""
    for lv in range(3):
        lo = X.stack_top[lv] + X.g[L.G_OOP_LEFT + lv]
        for j in range(X.stack_size[lv] - 1, lo - 1, -1):
            t = X.stacks[lv, j]
            if S.tile_type[t] == L.ZOMBIE:
                if take:
                    last = X.stack_size[lv] - 1
                    X.stacks[lv, j] = X.stacks[lv, last]
                    X.stacks[lv, last] = t
                    X.stack_size[lv] -= 1
                return t
    return -1


@kernel
def temple_slot(mx, m):
    for j in range(m):
        if mx[C.OO_TYPE + j] == L.TEMPLE:
            return j
    return -1


@kernel
def takes_purple(st, mx):
    for s in range(C.NUM_STACKS):
        if st[C.COUNT + s] > 0 and mx[C.TAKES_PURPLE + s] != 0:
            return True
    return False


@kernel
def baoht(st, mx, W, alloc_id, amount):
    """`amount` purple cubes by the human's allocation rule, `amount` Sanity lost."""
    for _ in range(amount):
        s = choose_stack(alloc_id, W.alloc_params, st, mx, W.mx_cost)
        if s < 0:
            break
        place_cubes(st, mx, s, 1)
    st[C.SANITY] = max(st[C.SANITY] - amount, 0)


@kernel
def combat_mythos(rngs, S, X, W, p, h, port_defence, m):
    """Play the combat Mythos cards that apply to the fight of seat p in hex h whose
    Old Ones fill W.tiles2[:m]; returns the new number of Old Ones in the fight."""
    g = X.g
    solo = g[L.G_MODE] == L.MODE_MYTHOS_SOLO
    st = W.cst
    mx = W.cmx
    attack = (not port_defence) and X.hx[h, L.H_OUTPOST] != p
    alloc_id = int(X.params[p, L.SP_ALLOC])
    for c in range(S.myth_effect.size):
        if X.mythos_hand[c] == 0 or S.myth_combat[c] == 0:
            continue
        e = S.myth_effect[c]
        amount = S.myth_amount[c]
        ok = False
        if e == L.MYTH_COMBAT_DAMAGE_AND_SANITY:
            ok = takes_purple(st, mx)
        elif e == L.MYTH_PORT_COMBAT_EXTRA_DAMAGE:
            ok = port_defence
        elif e == L.MYTH_TEMPLE_ATTACK_EXTRA_CAPACITY:
            ok = attack and temple_slot(mx, m) >= 0
        elif e == L.MYTH_GHOUL_JOINS_COMBAT:
            ok = (
                m < C.MAX_OLD_ONES
                and st[C.COUNT + L.INFANTRY] > 0
                and unused_zombie(S, X, False) >= 0
            )
        if not ok:
            continue
        cost = 0
        if not solo:
            cost = S.myth_tp[c]
            if cost > 0 and g[L.G_OO_TIME] + cost > S.r[L.R_END]:
                continue
            if not policy.play_combat_mythos(rngs[L.RNG_OOP], X):
                continue
            if e == L.MYTH_COMBAT_DAMAGE_AND_SANITY and mx[C.CAN_WITHDRAW] != 0:
                # "clearly not retreating": the human's rule stays even after the card
                copy_into(W.scratch, st)
                baoht(W.scratch, mx, W, alloc_id, amount)
                if not stays_in(S, X, W, p, m, W.scratch):
                    continue
        X.mythos_hand[c] = 0
        if cost > 0:
            advance_disc(X, cost)
        g[L.G_MYTHOS_PLAYED] += 1
        g[L.G_MYTHOS_COMBAT] += 1
        detail = -1
        if e == L.MYTH_COMBAT_DAMAGE_AND_SANITY:
            baoht(st, mx, W, alloc_id, amount)
        elif e == L.MYTH_PORT_COMBAT_EXTRA_DAMAGE:
            mx[C.EXTRA_PURPLE] += amount
        elif e == L.MYTH_TEMPLE_ATTACK_EXTRA_CAPACITY:
            j = temple_slot(mx, m)
            mx[C.OO_CAPACITY + j] += amount
            detail = W.tiles2[j]
        elif e == L.MYTH_GHOUL_JOINS_COMBAT:
            t = unused_zombie(S, X, True)
            X.tile_hex[t] = h
            X.tile_state[t] = L.TILE_BOARD
            X.tile_up[t] = True
            occupy(X, h)
            W.tiles2[m] = t
            mx[C.OO_TYPE + m] = L.ZOMBIE
            mx[C.OO_CAPACITY + m] = S.tile_cap[t]
            st[C.OO_DAMAGE + m] = 0
            W.dmg_before[m] = 0
            m += 1
            detail = t
            for _ in range(amount):
                if st[C.COUNT + L.INFANTRY] <= 0:
                    break
                st[C.COUNT + L.INFANTRY] -= 1
                st[C.LOST + L.INFANTRY] += 1
                if st[C.COUNT + L.INFANTRY] == 0:
                    st[C.DAMAGE + L.INFANTRY] = 0
        log_event(X, L.EV_MYTHOS, now(X), p, c, L.MYTHOS_COMBAT, detail, cost, e)
    return m

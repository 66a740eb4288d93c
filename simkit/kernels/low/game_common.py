"""Small helpers every game phase uses: the event log, Old One tiles per hex, the
personality display, the Old One deck. Layout: simkit/kernels/low/game_layout.py.

Kernels here and in every game_*.py module never allocate: callers own every buffer
(the containers S, X, W of simkit.kernels.game_state). They take StructRefs, which need
numba's runtime (NRT) to read a field, so unlike simkit/kernels/combat.py they are not
compiled with _nrt=False (the draw loop there reads its CombatKit once into a KitView).
The predicates the players ask per hex and per unit are split the same way: a one-block
wrapper reads the fields (numba prunes the reference counts of a single block) and an
array-only ``@kernel(nrt=False)`` body does the work (simkit.kernels.low.jit says why).
"""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import (
    attack_distance,
    attack_distance_within,
    extend_attack_distance,
)
from simkit.kernels.low.deck import draw_card, refill_full
from simkit.kernels.low.jit import kernel


@kernel
def log_event(X, kind, time, actor, a, b, c, d, e):
    """Append one row to the event log (no-op unless logging is on); returns the row or -1."""
    return _log_row(X.g, X.log, kind, time, actor, a, b, c, d, e)


@kernel(nrt=False)  # the fields are read in log_event's one block (simkit.kernels.low.jit)
def _log_row(g, lg, kind, time, actor, a, b, c, d, e):
    if g[L.G_LOG_ON] == 0:
        return -1
    n = g[L.G_LOG_N]
    if n >= lg.shape[0]:
        g[L.G_LOG_OVERFLOW] = 1
        return -1
    lg[n, 0] = kind
    lg[n, 1] = time
    lg[n, 2] = actor
    lg[n, 3] = a
    lg[n, 4] = b
    lg[n, 5] = c
    lg[n, 6] = d
    lg[n, 7] = e
    g[L.G_LOG_N] = n + 1
    return n


@kernel
def is_revenge_like(X):
    """Revenge Ports and Outposts are in play (Revenge, Mythos Solo)."""
    return X.g[L.G_MODE] == L.MODE_REVENGE or X.g[L.G_MODE] == L.MODE_MYTHOS_SOLO


@kernel
def atlach_nacha_pays(S, X, p):
    """Atlach-Nacha's "You must pay 1 extra Time when the next Combat occurs": seat p pays
    at its combat under the reading "next_combat" (whoever fights next), only if the card
    was played against p under "target" (readings.toml atlach_nacha_payer)."""
    if S.r[L.R_READ + L.READ_ATLACH_NACHA_PAYER] == L.ATLACH_NACHA_PAYER_TARGET:
        return X.g[L.G_EXTRA_TIME_SEAT] == p
    return True


@kernel
def now(X):
    """The purple disc's space (the time of Old One events)."""
    return X.g[L.G_OO_TIME]


@kernel
def tiles_in_hex(X, h, out):
    """Old One tiles on the board in hex h, ascending tile index, into out; returns the count."""
    n = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] == h:
            out[n] = i
            n += 1
    return n


@kernel
def refresh_blocked(X, h):
    """hex_old_ones[h] = an Old One tile (face up or down) is in h; hex_blocked[h] = that,
    or a Spawn tile (Revenge: it blocks railways and can be attacked, but an empty one
    does not block tracing a path)."""
    if h < 0:
        return
    old_ones = False
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] == h:
            old_ones = True
            break
    X.hex_old_ones[h] = old_ones
    X.hex_blocked[h] = old_ones or X.hx[h, L.H_SPAWN] >= 0


@kernel
def occupy(X, h):
    """An Old One tile has just been put in (or moved into) hex h."""
    X.hex_old_ones[h] = True
    X.hex_blocked[h] = True


@kernel
def remove_tile(X, i, state):
    """Take tile i off the board (killed, removed Empty tile...)."""
    h = X.tile_hex[i]
    X.tile_hex[i] = -1
    X.tile_state[i] = state
    refresh_blocked(X, h)


@kernel
def flip_tile(S, X, i, actor):
    """Turn tile i face up; an Empty tile is removed from play. Returns its type (-1 Empty)."""
    X.tile_up[i] = True
    X.g[L.G_REVEALED] += 1
    t = S.tile_type[i]
    log_event(X, L.EV_FLIP, now(X), actor, i, X.tile_hex[i], t, 0, 0)
    if t < 0:
        remove_tile(X, i, L.TILE_REMOVED)
    return t


@kernel
def draw_oo_card(rngs, X):
    """One Old One card from the game's persistent deck (reshuffled when exhausted)."""
    g = X.g
    if g[L.G_DECK_LEFT] == 0:
        g[L.G_DECK_LEFT] = refill_full(X.oo_deck)
        g[L.G_RESHUFFLES] += 1
    c, n_left = draw_card(rngs[L.RNG_DECK], X.oo_deck, g[L.G_DECK_LEFT])
    g[L.G_DECK_LEFT] = n_left
    g[L.G_DECK_DRAWN] += 1
    return c


# -- the Personality display ---------------------------------------------------------------


@kernel
def draw_personality(X):
    """Top card of the Personality draw pile, or -1 if it is empty."""
    g = X.g
    if g[L.G_PERS_POS] >= g[L.G_PERS_SIZE]:
        return -1
    c = X.pers_deck[g[L.G_PERS_POS]]
    g[L.G_PERS_POS] += 1
    return c


@kernel
def take_from_display(X, slot):
    """Remove the card in ``slot``; the cards left of it move right to fill the gap and a
    new card is drawn into slot 0 (the left end). Returns the card taken."""
    d = X.display
    card = d[slot]
    for j in range(slot, 0, -1):
        d[j] = d[j - 1]
    d[0] = draw_personality(X)
    return card


@kernel
def advance_disc(X, k):
    """The Old One player's purple disc moves k spaces (TP spent) and lands on top."""
    g = X.g
    g[L.G_OO_TIME] += k
    g[L.G_ARRIVALS] += 1
    g[L.G_OO_ARRIVAL] = g[L.G_ARRIVALS]


@kernel
def cycle_display(X, slot):
    """Revenge (Personalities): the card in ``slot`` goes to the bottom of the draw pile
    and the display is refilled as when a card is taken. Needs a non-empty pile."""
    card = take_from_display(X, slot)
    g = X.g
    pos, size = g[L.G_PERS_POS], g[L.G_PERS_SIZE]
    for k in range(pos - 1, size - 1):  # the pile pers_deck[pos:size] moves up one place
        X.pers_deck[k] = X.pers_deck[k + 1]
    X.pers_deck[size - 1] = card
    g[L.G_PERS_POS] = pos - 1
    return card


@kernel
def display_count(X):
    n = 0
    for j in range(X.display.size):
        if X.display[j] >= 0:
            n += 1
    return n


# -- players ------------------------------------------------------------------------------


@kernel
def has_effect(S, X, p, effect):
    """Amount of the first owned Personality with ``effect`` (0 if none)."""
    return owned_effect(S.pers_effect, S.pers_amount, X.pl[p, L.P_PERS], effect)


@kernel(nrt=False)
def owned_effect(pers_effect, pers_amount, owned, effect):
    """has_effect on arrays: ``owned`` is the player's Personality bit set."""
    for c in range(pers_effect.size):
        if (owned >> c) & 1 and pers_effect[c] == effect:
            return max(pers_amount[c], 1)
    return 0


@kernel
def unit_capacity(S, X, p, s):
    """Damage capacity of combat stack s for player p (Proust, Krupp)."""
    cap = S.unit_cap[s]
    owned = X.pl[p, L.P_PERS]
    for c in range(S.pers_effect.size):
        if (owned >> c) & 1 and S.pers_effect[c] == L.EFF_UNIT_CAPACITY and S.pers_unit[c] == s:
            cap = max(cap, S.pers_amount[c])
    return cap


@kernel
def unit_reach(S, X, p, u):
    """Off-rail range of unit u for player p (Billy Kneebone adds to units that have one)."""
    return reach_of(S.unit_range, range_bonus(S, X, p), u)


@kernel
def range_bonus(S, X, p):
    """What player p's Personalities add to the range of every unit that has one (see
    reach_of): read once for a loop over hexes or units."""
    return owned_effect(S.pers_effect, S.pers_amount, X.pl[p, L.P_PERS], L.EFF_RANGE_BONUS)


@kernel(nrt=False)
def reach_of(unit_range, bonus, u):
    """Off-rail range of unit type u with the owner's range ``bonus`` (range_bonus), which
    only units that have an off-rail range get: Armoured Trains (0) stay rail-bound."""
    reach = unit_range[u]
    if reach > 0:
        reach += bonus
    return reach


@kernel
def on_rail(S, X, W, p, h):
    """Hex h is joined by p's own track to a hex of the clear network (Armoured Trains)."""
    return joined_by_rail(S.neighbors, X.edge_owner, W.clear, p, h)


@kernel(nrt=False)
def joined_by_rail(neighbors, edge_owner, clear, p, h):
    """on_rail on arrays."""
    for k in range(6):
        m = neighbors[h, k]
        if m >= 0 and edge_owner[h, k] == p and clear[m]:
            return True
    return False


@kernel
def in_range(S, X, W, p, h, reach, airship_only):
    """Can a force of lowest range ``reach`` attack hex h? W.dist/W.clear must be current;
    an all-Airship force uses W.dist2 (filled by the caller with the fly-over field)."""
    dist = W.dist2 if airship_only else W.dist
    return within_reach(S.neighbors, X.edge_owner, W.clear, X.hex_blocked, dist, p, h, reach)


@kernel(nrt=False)
def within_reach(neighbors, edge_owner, clear, hex_blocked, dist, p, h, reach):
    """in_range on arrays."""
    if not hex_blocked[h]:
        return False
    if reach <= 0:
        return joined_by_rail(neighbors, edge_owner, clear, p, h)
    d = dist[h]
    return (d >= 0) & (d <= reach)


@kernel
def ensure_dist(S, X, W, p):
    """W.dist = off-rail steps from p's clear network (not through Old Ones) to every hex,
    computed at most once per turn (and again after the network changed); a field
    ensure_reach left at its depth is finished, not searched again."""
    ok = W.ctx[L.CTX_DIST_OK]
    if ok == 1:
        return
    if ok >= 2:
        extend_attack_distance(S.neighbors, X.hex_old_ones, ok - 2, W.dist, W.queue)
    else:
        attack_distance(
            S.neighbors,
            X.edge_owner,
            p,
            X.pl[p, L.P_PORT],
            X.hex_old_ones,
            False,
            W.dist,
            W.queue,
            W.clear,
        )
    W.ctx[L.CTX_DIST_OK] = 1


@kernel
def reach_depth(S, X, p):
    """The longest off-rail range among p's units (0: none, or Armoured Trains only)."""
    bonus = range_bonus(S, X, p)
    depth = 0
    for u in range(L.NUM_UNITS):
        if X.pl[p, L.P_UNITS + u] > 0:
            depth = max(depth, reach_of(S.unit_range, bonus, u))
    return depth


@kernel
def ensure_reach(S, X, W, p):
    """W.dist (and W.clear) as ensure_dist leaves them for every hex p's units can reach
    this turn, -1 beyond: what the turn's attack checks read (in_range with a unit's reach),
    for less than the whole field, which only the railway goal wants (a turn in six)."""
    ok = W.ctx[L.CTX_DIST_OK]
    depth = reach_depth(S, X, p)
    if ok == 1 or (ok >= 2 and ok - 2 >= depth):
        return
    attack_distance_within(
        S.neighbors,
        X.edge_owner,
        p,
        X.pl[p, L.P_PORT],
        X.hex_old_ones,
        depth,
        W.dist,
        W.queue,
        W.clear,
    )
    W.ctx[L.CTX_DIST_OK] = 2 + depth


@kernel
def airship_dist(S, X, W, p):
    """W.dist2 = off-rail steps from p's clear network for an all-Airship force, which may
    fly over Old Ones (W.mask receives the clear network; the strategies' memo of W.dist2,
    CTX_S_DIST2, is stale after it)."""
    W.ctx[L.CTX_S_DIST2] = 0
    attack_distance(
        S.neighbors,
        X.edge_owner,
        p,
        X.pl[p, L.P_PORT],
        X.hex_old_ones,
        True,
        W.dist2,
        W.queue,
        W.mask,
    )


@kernel
def oop_refused(X, decision, value):
    """The Old One player's strategy answered outside the legal options (DEC_OOP_*): count
    it (G_ILLEGAL, as for a human seat) and log it; the caller plays the legal default."""
    X.g[L.G_ILLEGAL] += 1
    log_event(X, L.EV_ILLEGAL, now(X), -1, decision, value, 0, 0, 0)


@kernel
def fallback_force(X, W, p):
    """The turn's fallback attack (simkit.kernels.game_attack.find_attack_witness): every unit of
    CTX_FALLBACK_UNIT into W.force; returns CTX_FALLBACK_HEX. The engine plays it when an
    Attack has no valid plan; the learned player names it itself."""
    for u in range(L.NUM_UNITS):
        W.force[u] = 0
    u = W.ctx[L.CTX_FALLBACK_UNIT]
    W.force[u] = X.pl[p, L.P_UNITS + u]
    return W.ctx[L.CTX_FALLBACK_HEX]


@kernel
def player_vp(S, X, p, out5):
    """out5 = (farms, phosphate, personalities, tiles, tokens) VP of player p; returns the
    total (End of the Game scoring, simkit.kernels.game_scoring; the learned player reads it)."""
    farms = 0
    for h in range(X.hex_farm.size):
        if X.hx[h, L.H_FARM_OWNER] == p and X.hex_farm[h] == 1:
            farms += 1
    out5[0] = farms * S.r[L.R_FARM_VP]
    out5[1] = X.pl[p, L.P_RES + L.PHOSPHATE] * S.r[L.R_PHOS_VP]
    out5[2] = X.pl[p, L.P_PERS_VP]
    out5[3] = X.pl[p, L.P_TILE_VP]
    out5[4] = X.pl[p, L.P_VP_TOKENS]
    return out5[0] + out5[1] + out5[2] + out5[3] + out5[4]

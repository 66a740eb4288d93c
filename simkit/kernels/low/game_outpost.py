"""Revenge Outposts bought with the Buy Military action (revenge-of-the-old-ones-rules.txt,
4) Outposts): "When you buy a Military Unit you can pay an additional two Gold to also
place an Outpost. Alternatively you can purchase an Outpost without purchasing other
Units, but you must still use the Buy Military action." An Outpost goes on an empty hex
of the owner's rail network (no Old One, Spawn tile, Port, Farm, Outpost or resource
token) and must be placed when bought. MAX_OUTPOSTS per player.

Strategies ask :func:`outpost_site` (where one would go); the engine places it with
:func:`place_outpost`. Used by Revenge and Mythos Solo.
"""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import clear_network, nearest_field
from simkit.kernels.low.game_common import is_revenge_like, log_event
from simkit.kernels.low.jit import kernel

# per player: the rules speak of "both their Outposts"; the box's 8 tiles (units.toml
# outpost.box_count, S.r[R_OUTPOST_SUPPLY]) are one supply for every human
MAX_OUTPOSTS = 2


@kernel
def can_buy_outpost(S, X, p, gold_left):
    """Revenge-like game, fewer than MAX_OUTPOSTS placed and ``gold_left`` pays for one."""
    placed = 0
    for q in range(X.g[L.G_NUM_PLAYERS]):
        placed += X.pl[q, L.P_OUTPOSTS]
    return (
        is_revenge_like(X)
        and X.pl[p, L.P_OUTPOSTS] < MAX_OUTPOSTS
        and placed < S.r[L.R_OUTPOST_SUPPLY]  # the box's tiles are shared (units.toml)
        and gold_left >= S.unit_cost_f[L.OUTPOST_STACK]
    )


@kernel
def outpost_site(S, X, W, p, reach):
    """The empty hex of p's clear rail network nearest an Old One tile, no farther than
    ``reach`` hexes from one (reach < 0: any distance, and any empty hex of the network
    when no Old One is on the map). -1 if none. Overwrites W.dist2, W.clear, W.mask."""
    n = X.hx.shape[0]
    any_ = False
    for h in range(n):
        W.mask[h] = False
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0:
            W.mask[X.tile_hex[i]] = True
            any_ = True
    if not any_ and reach >= 0:
        return -1
    if any_:
        nearest_field(S.hex_dist, W.mask, W.dist2)
    W.ctx[L.CTX_S_DIST2] = 0
    clear_network(S.neighbors, X.edge_owner, p, X.pl[p, L.P_PORT], X.hex_old_ones, W.clear, W.queue)
    W.ctx[L.CTX_DIST_OK] = 0
    best = -1
    best_d = reach + 1 if reach >= 0 else 1 << 40
    for h in range(n):
        if (
            not W.clear[h]
            or X.hex_blocked[h]
            or X.hx[h, L.H_PORT_OWNER] >= 0
            or X.hx[h, L.H_FARM_OWNER] >= 0
        ):
            continue
        if X.hx[h, L.H_OUTPOST] >= 0:
            continue
        empty = True
        for r in range(L.NUM_RES):
            if X.hx[h, L.H_RES + r] > 0:
                empty = False
        if not empty:
            continue
        d = W.dist2[h] if any_ else 1
        if d < 0:
            d = 1 << 30  # no way to an Old One: still a site when any distance will do
        if 0 < d < best_d:
            best_d = d
            best = h
    return best


@kernel
def place_outpost(S, X, p, h, extra_gold):
    """p pays for an Outpost and places it on h (logged as a purchase)."""
    cost = int(S.unit_cost_f[L.OUTPOST_STACK])
    X.pl[p, L.P_RES + L.GOLD] -= cost
    X.hx[h, L.H_OUTPOST] = p
    X.hex_target[h] = True
    X.pl[p, L.P_OUTPOSTS] += 1
    X.g[L.G_OUTPOSTS_BUILT] += 1
    log_event(X, L.EV_BUY, X.pl[p, L.P_TIME], p, L.OUTPOST_STACK, 1, cost + extra_gold, h, 0)


@kernel
def maybe_outpost(S, X, W, p):
    """After buying a unit: +2 Gold for an Outpost on the empty hex of p's network nearest
    an Old One, when that is within HP_OUTPOST hexes (0: never)."""
    reach = int(X.params[p, L.HP_OUTPOST])
    if reach <= 0 or not can_buy_outpost(S, X, p, X.pl[p, L.P_RES + L.GOLD]):
        return
    h = outpost_site(S, X, W, p, reach)
    if h >= 0:
        place_outpost(S, X, p, h, 0)

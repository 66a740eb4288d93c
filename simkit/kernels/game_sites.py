"""Where a player may build this turn: the sides a track may cross, the mine and farm sites
(the candidates a strategy chooses among), and the flags turn_context
(simkit.kernels.game_actions) reads to say which action boxes are legal. W.clear, the
player's clear rail network, must be current.

The per-hex predicates are one-block wrappers over array-only bodies compiled without
reference counts (``@kernel(nrt=False)``, simkit.kernels.low.jit): they run for every hex
of every turn of every rollout.
"""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import can_build_track, clear_network
from simkit.kernels.low.jit import kernel

CHEAP_MASK = 0b11011  # every terrain but Hills (simkit.board.rails.CHEAP_BOX)
ALL_MASK = 0b11111


# -- candidates ------------------------------------------------------------------------------


@kernel
def track_candidates(S, X, W, p, mask):
    """Sides the player may build across now (W.clear must be current) into W.cand_h/cand_k."""
    return _track_candidates(
        S.neighbors, X.edge_owner, W.clear, X.hex_blocked, S.hex_terrain, mask, W.cand_h, W.cand_k
    )


@kernel(nrt=False)
def _track_candidates(neighbors, edge_owner, clear, hex_blocked, hex_terrain, mask, cand_h, cand_k):
    n = 0
    for h in range(clear.size):
        if not clear[h]:
            continue
        for k in range(6):
            if can_build_track(neighbors, edge_owner, clear, hex_blocked, hex_terrain, mask, h, k):
                cand_h[n] = h
                cand_k[n] = k
                n += 1
    return n


@kernel
def mine_candidates(X, W):
    """(hex, resource) pairs on the clear network with tokens, into W.cand_h/cand_k."""
    n = 0
    for h in range(X.hex_farm.size):
        if W.clear[h]:
            for r in range(L.NUM_RES):
                if X.hx[h, L.H_RES + r] > 0:
                    W.cand_h[n] = h
                    W.cand_k[n] = r
                    n += 1
    return n


@kernel
def farm_site(S, X, W, h, kind):
    """Farm of ``kind`` may go in h: on the clear network, the farm type allowed there, and
    "the hex must be empty, it cannot contain any other pieces apart from Railway tracks"
    (no resources, Port, Farm, Old One, and in Revenge no Spawn tile or Outpost)."""
    return _farm_site(W.clear, S.hex_farms, X.hx, X.hex_blocked, h, kind)


@kernel(nrt=False)
def _farm_site(clear, hex_farms, hx, hex_blocked, h, kind):
    if not clear[h] or ((hex_farms[h] >> kind) & 1) == 0:
        return False
    if hx[h, L.H_PORT_OWNER] >= 0 or hx[h, L.H_FARM_OWNER] >= 0 or hex_blocked[h]:
        return False
    if hx[h, L.H_OUTPOST] >= 0:
        return False
    for r in range(L.NUM_RES):
        if hx[h, L.H_RES + r] > 0:
            return False
    return True


@kernel
def farm_candidates(S, X, W, kind):
    return _farm_candidates(W.clear, S.hex_farms, X.hx, X.hex_blocked, kind, W.hexes)


@kernel(nrt=False)
def _farm_candidates(clear, hex_farms, hx, hex_blocked, kind, hexes):
    n = 0
    for h in range(clear.size):
        if _farm_site(clear, hex_farms, hx, hex_blocked, h, kind):
            hexes[n] = h
            n += 1
    return n


@kernel
def refresh_network(S, X, W, p):
    clear_network(S.neighbors, X.edge_owner, p, X.pl[p, L.P_PORT], X.hex_old_ones, W.clear, W.queue)


@kernel
def surcharge(S, X, p, box):
    return X.pl[p, L.P_BOX + box] * S.r[L.R_SURCHARGE]


@kernel
def scan_sites(S, X, W, p):
    """W.ctx existence flags for farm sites (per kind), mine sites and buildable sides
    (2-TP and 3-TP box), in one pass over the clear network, stopping when all are found."""
    ctx = W.ctx
    pl = X.pl
    gold = pl[p, L.P_RES + L.GOLD]
    placeable = pl[p, L.P_HQ] > 0
    want_farms = 0
    if placeable and gold >= surcharge(S, X, p, L.BOX_FARM):
        for kind in range(L.NUM_FARM_KINDS):
            if pl[p, L.P_FARMS + kind] < S.r[L.R_FARMS_PER_KIND]:
                want_farms |= 1 << kind
    farms = 0
    # parts that cannot make their box legal this turn count as found (flag left 0)
    mine_ = 0 if placeable and gold >= surcharge(S, X, p, L.BOX_MINE) else 2
    rails = (
        placeable
        & (pl[p, L.P_RES + L.COAL] > 0)
        & (pl[p, L.P_RES + L.IRON] > 0)
        & (pl[p, L.P_TRACKS] < S.r[L.R_TRACKS])
    )
    cheap = 0 if rails and gold >= surcharge(S, X, p, L.BOX_RAIL) else 2
    allb = 0 if rails and gold >= surcharge(S, X, p, L.BOX_RAIL_HILLS) else 2
    # the loop's arrays, read once: a field read inside it costs two reference counts a hex
    clear, hx, neighbors, terrain = W.clear, X.hx, S.neighbors, S.hex_terrain
    edge_owner, hex_blocked, hex_farms = X.edge_owner, X.hex_blocked, S.hex_farms
    for h in range(clear.size):
        if not clear[h]:
            continue
        if mine_ == 0:
            for r in range(L.NUM_RES):
                if hx[h, L.H_RES + r] > 0:
                    mine_ = 1
        if farms != want_farms:
            for kind in range(L.NUM_FARM_KINDS):
                if (want_farms >> kind) & 1 and _farm_site(
                    clear, hex_farms, hx, hex_blocked, h, kind
                ):
                    farms |= 1 << kind
        if cheap == 0 or allb == 0:
            for k in range(6):
                if can_build_track(
                    neighbors, edge_owner, clear, hex_blocked, terrain, ALL_MASK, h, k
                ):
                    if allb == 0:
                        allb = 1
                    m = neighbors[h, k]
                    if (
                        cheap == 0
                        and (CHEAP_MASK >> terrain[h]) & 1
                        and (CHEAP_MASK >> terrain[m]) & 1
                    ):
                        cheap = 1
        if mine_ > 0 and farms == want_farms and cheap > 0 and allb > 0:
            break
    for kind in range(L.NUM_FARM_KINDS):
        ctx[L.CTX_FARM_SITES + kind] = (farms >> kind) & 1
    ctx[L.CTX_MINE_SITES] = 1 if mine_ == 1 else 0
    ctx[L.CTX_RAIL_CHEAP] = 1 if cheap == 1 else 0
    ctx[L.CTX_RAIL_ALL] = 1 if allb == 1 else 0

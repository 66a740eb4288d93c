"""Every decision the engine asks of the Old One player (Revenge), dispatched on the kind
in X.oop_params[OP_KIND] (0 heuristic, 1 random legal, 2 learned: its action by
strategies.old_ones.learned, every other decision the heuristic's; see strategies/old_ones).

The engine (simkit.kernels.game_oop, game_defence, game_mythos_combat) lists the legal
options, asks here, checks the answer and counts a refusal (G_ILLEGAL, EV_ILLEGAL with
the DEC_OOP_* code) before playing a legal default. These functions never change the
state; ``rng`` is the Old One player's stream (game_layout.RNG_OOP).
"""

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import nearest_field
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform
from strategies.old_ones.learned import KIND_LEARNED, best_action, oop_features, port_defence

KIND_HEURISTIC, KIND_RANDOM = 0, 1


@kernel
def is_random(X):
    return X.oop_params[L.OP_KIND] == KIND_RANDOM


@kernel
def below(rng, n):
    return int(uniform(rng) * n)


@kernel
def weakest_port(S, X):
    """The human whose Port looks easiest to take (Port strength + units' capacity)."""
    best = 0
    best_v = 1 << 40
    for p in range(X.g[L.G_NUM_PLAYERS]):
        v = port_defence(S, X, p)
        if v < best_v:
            best_v = v
            best = p
    return best


@kernel
def pick_target(rng, S, X):
    """The human seat this turn aims at (Mythos targets, placing and revealing near it)."""
    if X.oop_params[L.OP_TARGET_WEAK] > 0 or is_random(X):
        return weakest_port(S, X)
    return below(rng, X.g[L.G_NUM_PLAYERS])


@kernel
def mythos_score(S, X, c):
    """How much a heuristic OOP wants Mythos card c (farm-biased players like blighting)."""
    e = S.myth_effect[c]
    if not 0 <= e < L.MYTH_NUM_EFFECTS:  # a card the engine cannot play
        return -1.0
    if e == L.MYTH_BLANK:  # no effect: kept only when Summon offers nothing else
        return 0.0
    v = 1.0 + 0.5 * S.myth_tp[c]
    if S.myth_combat[c] != 0:
        v += 1.0 * X.oop_params[L.OP_COMBAT_MYTHOS]  # free to play in a fight, off-turn
    if X.oop_params[L.OP_FARM_BIAS] > 0 and e == L.MYTH_BLIGHT_FARMS:
        v += 3.0
    if X.oop_params[L.OP_TARGET_WEAK] > 0 and (
        e == L.MYTH_MOVE_CLOSEST_OLD_ONE
        or e == L.MYTH_LEVEL3_NEAR_PORT
        or e == L.MYTH_PLACE_TILES_NEAR_PORT
    ):
        v += 2.0
    return v


@kernel
def choose_mythos(rng, S, X, cards, n):
    """Index into cards[:n] (the Mythos cards playable now) of the one to play, or -1: play
    none. Asked every turn, also when n is 0 (the wish to play is drawn first)."""
    want = X.oop_params[L.OP_PLAY_MYTHOS]
    if not (want > 0 and uniform(rng) < want):
        return -1
    best = -1
    best_v = 0.0
    for j in range(n):
        v = uniform(rng) if is_random(X) else mythos_score(S, X, cards[j])
        if v > best_v:
            best_v = v
            best = j
    return best


@kernel
def choose_action(rng, S, X, W, legal, up, down, hand, n_levels):
    """The action (OOP_PLACE / REVEAL / MOVE / SUMMON) among legal[:4], -1 if none is legal.
    ``up``: face-up movers, ``down``: face-down tiles on the map, ``hand``: Mythos cards held,
    ``n_levels``: tile levels that may be placed."""
    prm = X.oop_params
    if prm[L.OP_KIND] == KIND_LEARNED:
        oop_features(S, X, up, down, hand, n_levels, weakest_port(S, X), W.learn_feats)
        return best_action(X, legal, W.learn_feats)
    if is_random(X):
        k = 0
        for a in range(4):
            k += int(legal[a])
        if k == 0:
            return -1
        r = below(rng, k)
        for a in range(4):
            if legal[a]:
                if r == 0:
                    return a
                r -= 1
        return -1
    if legal[L.OOP_MOVE] and up >= prm[L.OP_MOVE_MIN]:
        return L.OOP_MOVE
    if legal[L.OOP_PLACE] and down < prm[L.OP_DOWN_MAX]:
        return L.OOP_PLACE
    if legal[L.OOP_REVEAL] and up < prm[L.OP_FACE_UP_MIN]:
        return L.OOP_REVEAL
    if legal[L.OOP_SUMMON] and hand < prm[L.OP_HAND_MIN]:
        return L.OOP_SUMMON
    for a in (L.OOP_MOVE, L.OOP_REVEAL, L.OOP_PLACE, L.OOP_SUMMON):
        if legal[a]:
            return a
    return -1


@kernel
def pick_place_level(rng, X, levels, n):
    """Index into levels[:n] (0-based tile levels that may be placed and have a site,
    ascending) of the level to place: the highest, or a random one."""
    if is_random(X):
        return below(rng, n)
    return n - 1


@kernel
def pick_site(rng, S, X, W, n, target_p):
    """Index into W.hexes[:n] (the legal sites) of the hex to place on: nearest an
    un-blighted Farm (farm-biased), nearest target_p's Port, or random."""
    prm = X.oop_params
    if n <= 0:
        return -1
    farm_bias = prm[L.OP_FARM_BIAS] > 0 and not is_random(X)
    if farm_bias:  # the distance to the nearest un-blighted Farm (W.dist2)
        any_farm = False
        for h in range(X.hex_farm.size):
            W.mask[h] = X.hex_farm[h] == 1
            any_farm = any_farm or W.mask[h]
        if any_farm:
            nearest_field(S.hex_dist, W.mask, W.dist2)
            W.ctx[L.CTX_S_DIST2] = 0  # the engine's memo of dist2 is stale now
        else:
            farm_bias = False
    if is_random(X) or prm[L.OP_TARGET_WEAK] <= 0:
        return below(rng, n)
    best = 0
    best_d = 1 << 40
    for j in range(n):
        h = W.hexes[j]
        if farm_bias:
            d = W.dist2[h] if W.dist2[h] >= 0 else 1 << 20
        else:
            d = X.port_dist[target_p, h]
            if d < 0:
                d = 1 << 20
        if d < best_d:
            best_d = d
            best = j
    return best


@kernel
def pick_reveal(rng, S, X, tiles, n, target_p):
    """Index into tiles[:n] (face-down tiles on the map, which the OOP may look at) of the
    tile to flip: a mover first, near target_p's Port; or random."""
    best = -1
    best_v = -1e18
    for j in range(n):
        i = tiles[j]
        if is_random(X):
            v = uniform(rng)
        else:
            t = S.tile_type[i]
            v = 0.0
            if t >= 0 and t != L.TEMPLE and S.type_moves[t]:
                v += 100.0 + S.tile_vp[i]
            elif t >= 0:
                v += 10.0
            d = X.port_dist[target_p, X.tile_hex[i]]
            v -= d if d >= 0 else 50
        if v > best_v:
            best_v = v
            best = j
    return best


@kernel
def keep_summoned(rng, S, X, cards, n):
    """Summon: index into cards[:n] (the Mythos cards drawn, n >= 1) of the one to keep."""
    kept = -1
    kept_v = -1e18
    for j in range(n):
        v = uniform(rng) if is_random(X) else mythos_score(S, X, cards[j]) + 1e-3 * uniform(rng)
        if v > kept_v:
            kept_v = v
            kept = j
    return kept


@kernel
def outpost_threat(S, X, h):
    """Damage capacity of the Old Ones standing on Outpost h (the heuristic's ordering key)."""
    v = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] == h:
            v += S.tile_cap[i]
    return v


@kernel
def next_outpost_fight(rng, S, X, hexes, a, k):
    """Which of the Outposts hexes[a:k] under attack is fought next (an index in a..k-1):
    "the Old One player decides the order": the strongest attack first (it wears the
    defenders down), or random."""
    if is_random(X):
        return a + below(rng, k - a)
    b = a
    for j in range(a + 1, k):
        if outpost_threat(S, X, hexes[j]) > outpost_threat(S, X, hexes[b]):
            b = j
    return b


@kernel
def play_combat_mythos(rng, X):
    """Whether to play a combat Mythos card that applies to this fight."""
    return uniform(rng) < X.oop_params[L.OP_COMBAT_MYTHOS]

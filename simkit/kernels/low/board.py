"""Board kernels: hex distance fields, survey setup, port placement, railways.

Layout shared with simkit/kernels/low/movement.py and the full-game engine (plain arrays,
``-1`` is the only sentinel):

    neighbors[h, k]     int32 [n_hex, 6]  hex index next to h in compass direction k+1
                                          (k = 0..5 clockwise; -1 off the map)
    hex_q, hex_r        int64 [n_hex]     axial coordinates (for "most direct route")
    hex_terrain         int64 [n_hex]     simkit.board.TERRAINS index
    hex_level           int64 [n_hex]     Old One level mark 1..3, -1 none
    edge_owner[h, k]    int64 [n_hex, 6]  player whose track crosses side k of h, -1 none;
                                          always equal to edge_owner[neighbors[h, k], (k+3)%6]
    hex_blocked         bool  [n_hex]     an Old One tile (face up or down) is in the hex
    dist, queue         int32 [n_hex]     caller-owned scratch (no allocation in hot loops)
    hex_dist[a, b]      int32 [n_hex, n_hex] steps from a to b, every hex crossable, FAR if
                                          none (all_pairs_distances; nearest_field reads it)

Hex indices run 0..n_hex-1 in ascending printed hex number, so "lowest-numbered hex"
is "lowest index". Chance is separate from resolution: the survey and port kernels take
pre-drawn arrays or an explicit ``np.random.Generator`` and use only ``uniform(rng)``.
"""

import numpy as np

from simkit.kernels.low.jit import define_kit, kernel
from simkit.kernels.low.rand import uniform

NUM_DIRS = 6
COASTAL, OUTBACK, HILLS, FARMLAND, DESERT = 0, 1, 2, 3, 4
NUM_RESOURCES = 4  # coal, iron, gold, phosphate
SURVEY_POSITIONS = 7  # 0 = the survey hex itself, 1..6 = compass directions
MAX_LEVEL = 3
PORT_MIN_DISTANCE = 3  # "no Port within two hexes of another Port"
PORT_RANDOM, PORT_FIRST = 0, 1


# -- distances --------------------------------------------------------------------------


@kernel(nrt=False)
def distance_field(neighbors, target_mask, dist, queue):
    """Multi-source BFS: dist[h] = steps from h to the nearest target, -1 if none reachable.

    Every hex may be crossed (Old Ones ignore terrain and pieces). Returns the number of
    hexes reached. ``dist`` and ``queue`` are int32 scratch of length n_hex.
    """
    tail = sources(neighbors, target_mask, dist, queue)
    return spread(neighbors, dist, queue, tail, None, ANY_DEPTH)


FAR = 1 << 30  # hex_dist's "no path" (larger than any sum of steps, so min() passes over it)


def all_pairs_distances(neighbors):
    """hex_dist[a, b] = steps from a to b over the whole map (every hex may be crossed, as
    for distance_field), ``FAR`` when b cannot be reached from a. int32 [n_hex, n_hex]."""
    n = neighbors.shape[0]
    out = np.empty((n, n), dtype=np.int32)
    mask = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    for a in range(n):
        mask[a] = True
        distance_field(neighbors, mask, out[a], queue)
        mask[a] = False
    out[out < 0] = FAR
    return out


@kernel(nrt=False)
def nearest_field(hex_dist, target_mask, dist):
    """distance_field's result read from the map's all-pairs table: dist[h] = steps from h
    to the nearest target, -1 if none is reachable. Returns the number of hexes reached.

    The same numbers as the breadth-first search (a shortest path is a shortest path), for
    less: a row minimum per target, which LLVM vectorises, instead of a queue walk with a
    branch per side (0.44 against 0.52 us for 16 targets, far less for the few targets most
    fields have; docs/engine-speed.md). Old One movement and the strategies' fields ask
    this many times a game; the attack distances (which may not cross Old Ones) still search.
    """
    open_field(dist)
    for t in range(dist.size):
        if target_mask[t]:
            add_target(hex_dist, t, dist)
    return close_field(dist)


@kernel(inline="always")
def open_field(dist):
    """Start a table field: no target yet (every hex FAR)."""
    for h in range(dist.size):
        dist[h] = FAR


@kernel(inline="always")
def add_target(hex_dist, t, dist):
    """Let hex t be a target of the field being built."""
    for h in range(dist.size):
        dist[h] = min(dist[h], hex_dist[t, h])  # no branch: LLVM vectorises it


@kernel(inline="always")
def close_field(dist):
    """Finish a table field: FAR becomes -1 (unreachable). Returns the hexes reached."""
    unreached = 0
    for h in range(dist.size):
        far = dist[h] >= FAR
        unreached += far
        dist[h] = -1 if far else dist[h]  # a select, not a branch
    return dist.size - unreached


@kernel(inline="always")
def sources(neighbors, mask, dist, queue):
    """dist 0 and queued for the hexes of ``mask``, -1 for the others. Returns how many."""
    tail = 0
    for h in range(neighbors.shape[0]):
        if mask[h]:
            dist[h] = 0
            queue[tail] = h
            tail += 1
        else:
            dist[h] = -1
    return tail


ANY_DEPTH = -1  # spread's depth: no limit


@kernel(inline="always")
def spread(neighbors, dist, queue, tail, blocked, depth):
    """Breadth-first from the ``tail`` sources in queue (dist 0; every other hex -1).
    A hex of ``blocked`` is reached but not crossed; ``None``: every hex may be crossed.
    ``depth`` >= 0 stops at that many steps: the hexes farther stay -1
    (extend_attack_distance finishes such a field). Returns the queue's length."""
    head = 0
    while head < tail:
        h = queue[head]
        head += 1
        d = dist[h] + 1
        if depth >= 0 and d > depth:
            break  # the queue holds the hexes in order of distance: the rest are as far
        if blocked is not None:
            if blocked[h]:
                continue
        for k in range(NUM_DIRS):
            m = neighbors[h, k]
            if m >= 0 and dist[m] < 0:
                dist[m] = d
                queue[tail] = m
                tail += 1
    return tail


@kernel
def hex_distance(hex_q, hex_r, a, b):
    """Straight-line hex distance between hexes a and b (axial coordinates)."""
    dq = hex_q[a] - hex_q[b]
    dr = hex_r[a] - hex_r[b]
    ds = dq + dr
    return (abs(dq) + abs(dr) + abs(ds)) // 2


# -- setup: survey tiles --------------------------------------------------------------


@kernel
def shuffle_prefix(rng, values, n):
    """Fisher-Yates shuffle of values[:n] in place using only uniform(rng)."""
    for i in range(n - 1, 0, -1):
        j = int(uniform(rng) * (i + 1))
        t = values[i]
        values[i] = values[j]
        values[j] = t


@kernel
def draw_from_stacks(stacks, stack_top, stack_size, level):
    """Top tile of the stack for ``level``, or of the next level up if it ran out; -1 if none.

    stacks[l, :] holds the tile ids of level l+1 in draw order, stack_top[l] the next one.
    """
    lvl = level
    while lvl <= MAX_LEVEL:
        s = lvl - 1
        if stack_top[s] < stack_size[s]:
            tile = stacks[s, stack_top[s]]
            stack_top[s] += 1
            return tile
        lvl += 1
    return -1


SURVEY_FIELDS = (
    "neighbors",
    "hex_terrain",
    "hex_level",
    "survey_hex",
    "tile_resource",
    "tile_old_one",
    "tile_level",
    "stacks",
    "stack_top",
    "stack_size",
    "hex_resource",
    "hex_tile",
    "hex_spawn",
    "hex_marks",
    "tile_set_aside",
)


SurveyKitType, SurveyKit = define_kit("SurveyKit", SURVEY_FIELDS, __name__)


def survey_kit(**arrays) -> SurveyKit:
    """A SurveyKit sharing ``arrays`` (every SURVEY_FIELDS name, not copied: the stacks and
    the outputs are changed in place)."""
    if set(arrays) != set(SURVEY_FIELDS):
        raise TypeError(f"a SurveyKit needs exactly the fields {', '.join(SURVEY_FIELDS)}")
    return _survey_kit(tuple(arrays[name] for name in SURVEY_FIELDS))


@kernel
def _survey_kit(t):
    return SurveyKit(*t)


@kernel
def place_survey(kit, survey_tile, revenge):
    """Base setup step 6 (or Revenge step 4) for a pre-drawn survey.

    survey_tile[i]          survey tile id drawn for the i-th survey hex

    The kit's fields:
    survey_hex[i]           hex index of the i-th survey hex, processed in this order
    tile_resource[t, p, r]  resource r tokens at position p of survey tile t
    tile_old_one[t, p]      1 if position p of tile t marks an Old One
    tile_level[x]           level 1..3 of Old One tile x
    stacks, stack_top, stack_size: the shuffled Old One tile stacks (see draw_from_stacks)

    Outputs (all pre-filled by the caller): hex_resource[n, 4] counts, hex_tile[n] Old One
    tile id or -1, hex_spawn[n] -1 / 0 Normal / 1 Dangerous (Revenge), hex_marks[n] how
    many survey tiles marked the hex for an Old One, tile_set_aside[x] 1 if tile x was
    replaced by an upgrade. Rules applied: resources never on Coastal; Old Ones never on
    Hills or Coastal and only on hexes with a level mark; the tile matches the mark; a
    marked hex that already holds a tile gets one tile of the next level up instead (the
    replaced tile is set aside); a level-3 tile is never upgraded (the new one is not
    placed); an empty stack gives a tile of the next level up; nothing above level 3.
    """
    hex_level, hex_marks, hex_tile = kit.hex_level, kit.hex_marks, kit.hex_tile
    stacks, stack_top, stack_size = kit.stacks, kit.stack_top, kit.stack_size
    for i in range(kit.survey_hex.size):
        centre = kit.survey_hex[i]
        t = survey_tile[i]
        for p in range(SURVEY_POSITIONS):
            h = centre if p == 0 else kit.neighbors[centre, p - 1]
            if h < 0:
                continue
            terrain = kit.hex_terrain[h]
            if terrain != COASTAL:
                for r in range(NUM_RESOURCES):
                    kit.hex_resource[h, r] += kit.tile_resource[t, p, r]
            if (
                kit.tile_old_one[t, p] == 0
                or terrain == COASTAL
                or terrain == HILLS
                or hex_level[h] < 1
            ):
                continue
            hex_marks[h] += 1
            if revenge:
                kit.hex_spawn[h] = 0 if hex_marks[h] == 1 else 1
                continue
            old = hex_tile[h]
            if old < 0:
                hex_tile[h] = draw_from_stacks(stacks, stack_top, stack_size, hex_level[h])
            elif kit.tile_level[old] < MAX_LEVEL:
                new = draw_from_stacks(stacks, stack_top, stack_size, kit.tile_level[old] + 1)
                if new >= 0:
                    kit.tile_set_aside[old] = 1
                    hex_tile[h] = new


@kernel
def random_survey_setup(rng, kit, order, revenge):
    """Shuffle the survey tiles (order = 0..T-1 on entry; the first len(survey_hex) are
    dealt to the survey hexes) and the Old One stacks (stacks[l, :stack_size[l]]), then
    place_survey. simkit.board.setup_board calls this, so a seed gives the same setup
    from Python and from inside an engine loop."""
    shuffle_prefix(rng, order, order.size)
    for lv in range(kit.stacks.shape[0]):
        shuffle_prefix(rng, kit.stacks[lv], kit.stack_size[lv])
    place_survey(kit, order[: kit.survey_hex.size], revenge)


# -- setup: ports ----------------------------------------------------------------------


@kernel
def legal_port_mask(hex_q, hex_r, hex_port, port_hex, out):
    """out[h] = True where a Port may go now: a port-symbol hex with no placed Port (port_hex,
    -1 = not placed) within two hexes by the most direct route. Returns the count."""
    count = 0
    for h in range(hex_port.size):
        ok = hex_port[h]
        if ok:
            for j in range(port_hex.size):
                p = port_hex[j]
                if p >= 0 and hex_distance(hex_q, hex_r, h, p) < PORT_MIN_DISTANCE:
                    ok = False
                    break
        out[h] = ok
        if ok:
            count += 1
    return count


@kernel
def place_ports(rng, hex_q, hex_r, hex_port, num_players, policy, port_hex, mask):
    """Setup step 14: players num_players-1 down to 0 each place a Port.

    policy PORT_RANDOM picks uniformly among legal hexes, PORT_FIRST the lowest-numbered.
    port_hex[num_players] is filled with hex indices; returns the first player (in
    placement order) left without a legal hex, or -1 if every Port was placed.
    """
    for j in range(port_hex.size):
        port_hex[j] = -1
    for player in range(num_players - 1, -1, -1):
        count = legal_port_mask(hex_q, hex_r, hex_port, port_hex, mask)
        if count == 0:
            return player
        pick = 0 if policy == PORT_FIRST else int(uniform(rng) * count)
        for h in range(mask.size):
            if mask[h]:
                if pick == 0:
                    port_hex[player] = h
                    break
                pick -= 1
    return -1


# -- railways --------------------------------------------------------------------------


@kernel(nrt=False)
def clear_network(neighbors, edge_owner, player, port, hex_blocked, out, queue):
    """out[h] = True if h is joined to ``player``'s Port by their own track along a path
    whose every hex (the Port and h included) is free of Old Ones. Returns the count."""
    n = neighbors.shape[0]
    for h in range(n):
        out[h] = False
    if port < 0 or hex_blocked[port]:
        return 0
    out[port] = True
    queue[0] = port
    head = 0
    tail = 1
    while head < tail:
        h = queue[head]
        head += 1
        for k in range(NUM_DIRS):
            m = neighbors[h, k]
            if m >= 0 and edge_owner[h, k] == player and not out[m] and not hex_blocked[m]:
                out[m] = True
                queue[tail] = m
                tail += 1
    return tail


@kernel(nrt=False)
def can_build_track(neighbors, edge_owner, clear, hex_no_build, hex_terrain, terrain_mask, h, k):
    """May a track be laid across side k of hex h (towards neighbors[h, k]) now?

    clear          the player's clear network (clear_network), which includes the Port
    hex_no_build   True where an Old One tile or (Revenge) a Spawn tile lies
    terrain_mask   bit t set = terrain t allowed by the chosen action box; both hexes the
                   track joins must be allowed (the engine picks the box)
    """
    m = neighbors[h, k]
    if m < 0 or edge_owner[h, k] >= 0:
        return False
    if not clear[h] or hex_no_build[m] or hex_no_build[h]:
        return False
    if (terrain_mask >> hex_terrain[h]) & 1 == 0 or (terrain_mask >> hex_terrain[m]) & 1 == 0:
        return False
    return True


@kernel
def lay_track(neighbors, edge_owner, h, k, player):
    """Record ``player``'s track across side k of h on both hexes (no legality check)."""
    m = neighbors[h, k]
    edge_owner[h, k] = player
    edge_owner[m, (k + 3) % NUM_DIRS] = player


@kernel(nrt=False)
def attack_distance(
    neighbors, edge_owner, player, port, hex_blocked, airship_only, dist, queue, clear
):
    """Off-rail steps from the player's clear network (or Port) to every hex, -1 unreachable.

    Sources (distance 0) are the jump-off hexes of clear_network. A hex with an Old One
    can be reached (it is a target) but not crossed, unless ``airship_only``. ``clear`` is
    bool scratch that receives the clear network. Returns the number of hexes reached.
    """
    clear_network(neighbors, edge_owner, player, port, hex_blocked, clear, queue)
    tail = sources(neighbors, clear, dist, queue)
    if airship_only:
        return spread(neighbors, dist, queue, tail, None, ANY_DEPTH)
    return spread(neighbors, dist, queue, tail, hex_blocked, ANY_DEPTH)


@kernel(nrt=False)
def attack_distance_within(
    neighbors, edge_owner, player, port, hex_blocked, depth, dist, queue, clear
):
    """attack_distance for the hexes within ``depth`` off-rail steps (the others -1): what a
    force whose longest range is ``depth`` can need. ``clear`` receives the whole network."""
    clear_network(neighbors, edge_owner, player, port, hex_blocked, clear, queue)
    tail = sources(neighbors, clear, dist, queue)
    return spread(neighbors, dist, queue, tail, hex_blocked, depth)


@kernel(nrt=False)
def extend_attack_distance(neighbors, hex_blocked, depth, dist, queue):
    """Finish a field attack_distance_within stopped at ``depth``: its hexes at that depth are
    the next sources, so every hex gets the distance attack_distance gives it."""
    tail = 0
    for h in range(neighbors.shape[0]):
        if dist[h] == depth:
            queue[tail] = h
            tail += 1
    return spread(neighbors, dist, queue, tail, hex_blocked, ANY_DEPTH)


@kernel(nrt=False)
def attackable(
    neighbors,
    edge_owner,
    player,
    port,
    hex_blocked,
    force_range,
    airship_only,
    out,
    dist,
    queue,
    clear,
):
    """out[h] = True for hexes with an Old One the force can attack. Returns the count.

    force_range is the lowest off-rail range in the force. Range 0 (an Armoured Train in
    the force) reaches only hexes on the rail network: an Old One hex joined by the
    player's own track to a clear jump-off hex.
    """
    attack_distance(
        neighbors, edge_owner, player, port, hex_blocked, airship_only, dist, queue, clear
    )
    count = 0
    for h in range(neighbors.shape[0]):
        ok = False
        if hex_blocked[h]:
            if force_range > 0:
                ok = dist[h] >= 0 and dist[h] <= force_range
            else:
                for k in range(NUM_DIRS):
                    m = neighbors[h, k]
                    if m >= 0 and edge_owner[h, k] == player and clear[m]:
                        ok = True
                        break
        out[h] = ok
        if ok:
            count += 1
    return count

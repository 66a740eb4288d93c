"""Old One movement ("Movement of Old Ones", base rules; "Move Old Ones", Revenge).

The arrays of one movement check travel together in a :class:`MoveKit` (a numba
StructRef: one pointer per call, see simkit.kernels.game_state for why not a tuple); its
fields use the layout of simkit/kernels/low/board.py, plus:

    hex_target   bool  [n_hex]  a Port, an un-blighted Farm or (Revenge) an Outpost
    hex_farm     int64 [n_hex]  0 no farm, 1 un-blighted farm, 2 blighted farm
    mover_hex    int64 [m]      hex of Old One tile i, -1 = not on the board
    mover_moves  bool  [m]      tile i moves on this card (face up, its type circled on the
                                card, and not a Temple: see movers_for_card)
    mover_stopped bool [m]      tile i reached a Port/Outpost this phase and moves no more
    mover_type   int64 [m]      Old One type of tile i; mover_face_up bool [m]
    card_moves   bool [cards, types]  the types a movement card circles; card_compass,
                                card_rotation int64 [cards]; type_moves bool [types]
    hex_dist     int32 [n_hex, n_hex]  the map's all-pairs steps (board.all_pairs_distances)
    dist, port_dist int32 [n_hex], before int64 [m], cand int64 [6]: scratch

A card's compass number is 1..6 (direction index compass-1) and its rotation +1
(clockwise) or -1 (anticlockwise). Scalars (a card's compass, the policy, the rng) are
arguments; the kit's arrays are shared with the caller, not copied.

One card moves every mover one hex at once from the same distance field; farms entered
are blighted after all of them moved, so two arrivals blight a farm once. Combat is not
resolved here: the engine reads who stands on a Port/Outpost after the whole phase.
Damage cubes are kept by the engine per tile (index i), so they travel with the tile.

Revenge ("you choose which hex to move to"): the Old One player's choice is an integer
policy dispatched inside numba (one compiled kernel for every policy), see
:func:`choose_step`. An engine that wants its own rule calls :func:`step_candidates`.
"""

import functools

import numpy as np

from simkit.kernels.low.board import (
    NUM_DIRS,
    add_target,
    all_pairs_distances,
    close_field,
    nearest_field,
    open_field,
)
from simkit.kernels.low.jit import define_kit, kernel
from simkit.kernels.low.rand import uniform
from simkit.names import TEMPLE

# Revenge chooser policies (int ids; params unused so far, kept for future policies).
CHOOSE_COMPASS = 0  # the base rule: the card's compass number and rotation
CHOOSE_RANDOM = 1  # uniform among eligible hexes (uniform(rng))
CHOOSE_PORTS = 2  # the eligible hex closest to a Port/Outpost; ties by the compass rule
CHOOSE_LOWEST = 3  # the eligible hex with the lowest number

KIT_FIELDS = (
    "neighbors",
    "hex_dist",
    "card_moves",
    "card_compass",
    "card_rotation",
    "type_moves",
    "hex_target",
    "hex_farm",
    "mover_hex",
    "mover_type",
    "mover_face_up",
    "mover_moves",
    "mover_stopped",
    "dist",
    "port_dist",
    "before",
    "cand",
)


MoveKitType, MoveKit = define_kit("MoveKit", KIT_FIELDS, __name__)


def new_kit(neighbors, hex_target, hex_farm, mover_hex, **arrays) -> MoveKit:
    """A MoveKit sharing these arrays (the kernels change hex_target, hex_farm, mover_hex,
    mover_moves and mover_stopped in place); ``arrays`` names any other KIT_FIELDS to
    share. The rest are made: scratch, movers that all move and are face up, no cards
    (the card tables and mover types are read by movement_phase only)."""
    n, m = neighbors.shape[0], mover_hex.size
    made = {
        "card_moves": np.zeros((0, 0), dtype=np.bool_),
        "card_compass": np.zeros(0, dtype=np.int64),
        "card_rotation": np.zeros(0, dtype=np.int64),
        "type_moves": np.zeros(0, dtype=np.bool_),
        "mover_type": np.zeros(m, dtype=np.int64),
        "mover_face_up": np.ones(m, dtype=np.bool_),
        "mover_moves": np.ones(m, dtype=np.bool_),
        "mover_stopped": np.zeros(m, dtype=np.bool_),
        "dist": np.zeros(n, dtype=np.int32),
        "port_dist": np.zeros(n, dtype=np.int32),
        "before": np.zeros(m, dtype=np.int64),
        "cand": np.zeros(NUM_DIRS, dtype=np.int64),
        "hex_dist": None,  # the map's all-pairs table (one per map) unless given
    }
    given = dict(neighbors=neighbors, hex_target=hex_target, hex_farm=hex_farm, mover_hex=mover_hex)
    unknown = set(arrays) - set(made)
    if unknown:
        raise TypeError(f"not a MoveKit field: {', '.join(sorted(unknown))}")
    fields = {**made, **arrays, **given}
    if fields["hex_dist"] is None:  # the engine passes its own: no table made for it here
        fields["hex_dist"] = _map_distances(np.asarray(neighbors, dtype=np.int32).tobytes(), n)
    return _kit(tuple(fields[name] for name in KIT_FIELDS))


@functools.lru_cache(maxsize=8)
def _map_distances(neighbors: bytes, n: int) -> np.ndarray:
    """A map's all-pairs table, made once per neighbour table and shared by its kits (the
    kernels only read it; a read-only flag would make numba compile them again)."""
    return all_pairs_distances(np.frombuffer(neighbors, dtype=np.int32).reshape(n, NUM_DIRS).copy())


@kernel
def _kit(t):
    return MoveKit(*t)


@kernel
def step_candidates(neighbors, dist, h, out):
    """Hexes one step closer to the nearest target on a shortest route, in compass order.

    out[j] = direction index (0..5) of candidate j. Returns the count (0 when h is a
    target or no target can be reached).
    """
    d = dist[h]
    count = 0
    if d <= 0:
        return 0
    for k in range(NUM_DIRS):
        m = neighbors[h, k]
        if m >= 0 and dist[m] == d - 1:
            out[count] = k
            count += 1
    return count


@kernel
def compass_step(neighbors, dist, h, compass, rotation):
    """Direction index of the step the compass rule gives, or -1 (no step).

    Start at the card's direction; if that hex is not on an equal shortest route, turn
    ``rotation`` (+1 clockwise, -1 anticlockwise) until the first one that is.
    """
    d = dist[h]
    if d <= 0:
        return -1
    k = compass - 1
    for _ in range(NUM_DIRS):
        m = neighbors[h, k]
        if m >= 0 and dist[m] == d - 1:
            return k
        k = (k + rotation) % NUM_DIRS
    return -1


@kernel
def choose_step(policy, rng, neighbors, dist, port_dist, h, compass, rotation, cand):
    """Direction index the Old One player picks among the eligible hexes (-1 = none).

    port_dist: distance field to Ports/Outposts only (used by CHOOSE_PORTS; pass ``dist``
    otherwise). cand: int scratch of length >= 6.
    """
    count = step_candidates(neighbors, dist, h, cand)
    if count == 0:
        return -1
    if count == 1 or policy == CHOOSE_COMPASS:
        return compass_step(neighbors, dist, h, compass, rotation)
    if policy == CHOOSE_RANDOM:
        return cand[int(uniform(rng) * count)]
    if policy == CHOOSE_LOWEST:
        best = cand[0]
        for j in range(1, count):
            if neighbors[h, cand[j]] < neighbors[h, best]:
                best = cand[j]
        return best
    # CHOOSE_PORTS: smallest distance to a Port/Outpost; unreachable counts as far;
    # ties: the first in compass-rule order.
    best = -1
    best_d = 1 << 30
    k = compass - 1
    for _ in range(NUM_DIRS):
        m = neighbors[h, k]
        if m >= 0 and dist[m] == dist[h] - 1:
            pd = port_dist[m] if port_dist[m] >= 0 else (1 << 29)
            if pd < best_d:
                best_d = pd
                best = k
        k = (k + rotation) % NUM_DIRS
    return best


@kernel
def _arrive(kit, stop_at_farm, i, h, k):
    m = kit.neighbors[h, k]
    kit.mover_hex[i] = m
    if kit.hex_target[m] and kit.hex_farm[m] != 1:
        kit.mover_stopped[i] = True  # a Port or an Outpost: no further than this
    elif kit.hex_farm[m] == 1 and stop_at_farm:
        kit.mover_stopped[i] = True


@kernel
def _blight(kit):
    """Blight every un-blighted farm a mover entered on this card (once per farm)."""
    blighted = 0
    for i in range(kit.mover_hex.size):
        h = kit.mover_hex[i]
        if h >= 0 and h != kit.before[i] and kit.hex_farm[h] == 1:
            kit.hex_farm[h] = 2
            kit.hex_target[h] = False
            blighted += 1
    return blighted


@kernel
def movement_card(kit, compass, rotation, policy, rng, stop_at_farm):
    """Resolve one movement card for the movers with kit.mover_moves set. Returns the
    number of farms blighted.

    policy CHOOSE_COMPASS is the base rule (``rng`` unused); another CHOOSE_* id is the
    Old One player's choice among the eligible hexes (Revenge). stop_at_farm: Revenge's
    "if a Farm ... is reached, that Old One stops moving" (for the rest of the phase);
    False in the base game.
    """
    neighbors, dist, mover_hex = kit.neighbors, kit.dist, kit.mover_hex
    nearest_field(kit.hex_dist, kit.hex_target, dist)
    if policy == CHOOSE_PORTS:
        _port_field(kit.hex_dist, kit.hex_target, kit.hex_farm, kit.port_dist)
    for i in range(mover_hex.size):
        kit.before[i] = mover_hex[i]
    for i in range(mover_hex.size):
        h = mover_hex[i]
        if h < 0 or not kit.mover_moves[i] or kit.mover_stopped[i]:
            continue
        if policy == CHOOSE_COMPASS:
            k = compass_step(neighbors, dist, h, compass, rotation)
        else:
            k = choose_step(
                policy, rng, neighbors, dist, kit.port_dist, h, compass, rotation, kit.cand
            )
        if k >= 0:
            _arrive(kit, stop_at_farm, i, h, k)
    return _blight(kit)


@kernel(nrt=False)
def _port_field(hex_dist, hex_target, hex_farm, port_dist):
    """port_dist = distance field to the targets that are not farms (Ports, Outposts)."""
    open_field(port_dist)
    for t in range(port_dist.size):
        if hex_target[t] and hex_farm[t] != 1:
            add_target(hex_dist, t, port_dist)
    close_field(port_dist)


@kernel
def movers_for_card(kit, card):
    """kit.mover_moves[i] = tile i moves on this card: face up, its type circled on the
    card, a type that moves at all, and never a Temple. Returns how many move."""
    count = 0
    for i in range(kit.mover_type.size):
        t = kit.mover_type[i]
        ok = (
            t >= 0
            and t != TEMPLE
            and kit.mover_face_up[i]
            and kit.card_moves[card, t]
            and kit.type_moves[t]
        )
        kit.mover_moves[i] = ok
        if ok:
            count += 1
    return count


@kernel
def movement_phase(kit, cards, policy, rng, stop_at_farm, fresh):
    """Resolve the pre-drawn ``cards`` (indices, in draw order; 2 in the base game, 6 for
    a reveal-and-draw-six, 4 for a Revenge Move action), all or part of one movement check.

    ``fresh`` starts a new check (mover_stopped is cleared); False continues the one in
    progress, so a Revenge Old One that stopped at a Farm, Port or Outpost stays stopped
    for the rest of its Move action. policy CHOOSE_COMPASS gives the base rule. Returns
    the number of farms blighted. Afterwards the engine resolves combat at every
    Port/Outpost with a mover on it (mover_stopped marks the tiles that arrived at one).
    """
    if fresh:
        for i in range(kit.mover_stopped.size):
            kit.mover_stopped[i] = False
    blighted = 0
    for j in range(cards.size):
        c = cards[j]
        if movers_for_card(kit, c) == 0:
            continue
        blighted += movement_card(
            kit, kit.card_compass[c], kit.card_rotation[c], policy, rng, stop_at_farm
        )
    return blighted

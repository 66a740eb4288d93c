"""Python-side railways: validated wrappers over simkit/kernels/low/board.py.

A network is the edge table ``edge_owner[n_hex, 6]`` (player id or -1), shared by all
players (one track per hex side). The engine calls the kernels directly; these helpers
check arguments and allocate scratch for tools and tests.
"""

from __future__ import annotations

import numpy as np

from simkit.board.model import TERRAINS, Board
from simkit.errors import UserError
from simkit.kernels.low import board as K

ALL_TERRAINS = (1 << len(TERRAINS)) - 1
# Base rules, Build Railway: the 2-TP box builds in Coastal and Outback hexes, the 3-TP
# box in all three. Farmland/Desert (Western map) are not covered by our texts: allowed
# by both boxes here until a user's rulebook says otherwise (assumed).
CHEAP_BOX = ALL_TERRAINS & ~(1 << K.HILLS)


def empty_network(board: Board) -> np.ndarray:
    """A fresh edge_owner table with no track."""
    return np.full((board.num_hexes, K.NUM_DIRS), -1, dtype=np.int64)


def _mask(board: Board, values, name: str) -> np.ndarray:
    if values is None:
        return np.zeros(board.num_hexes, dtype=bool)
    arr = np.asarray(values)
    if arr.dtype != bool:  # a list of hex indices
        mask = np.zeros(board.num_hexes, dtype=bool)
        mask[arr.astype(np.int64)] = True
        return mask
    if arr.shape != (board.num_hexes,):
        raise UserError(f"{name} must have one entry per hex ({board.num_hexes})")
    return arr


def clear_hexes(
    board: Board, edges: np.ndarray, player: int, port: int, old_ones=None
) -> np.ndarray:
    """Bool mask: joined to the player's Port by their own track, path free of Old Ones."""
    out = np.zeros(board.num_hexes, dtype=bool)
    queue = np.zeros(board.num_hexes, dtype=np.int32)
    K.clear_network(
        board.neighbors, edges, player, port, _mask(board, old_ones, "old_ones"), out, queue
    )
    return out


def build_track(
    board: Board,
    edges: np.ndarray,
    player: int,
    port: int,
    h: int,
    k: int,
    old_ones=None,
    spawns=None,
    terrain_mask: int = ALL_TERRAINS,
) -> None:
    """Lay the player's track across side k of hex h, or raise UserError saying why not."""
    blocked = _mask(board, old_ones, "old_ones")
    no_build = blocked | _mask(board, spawns, "spawns")
    clear = clear_hexes(board, edges, player, port, blocked)
    if not K.can_build_track(
        board.neighbors, edges, clear, no_build, board.hex_terrain, terrain_mask, h, k
    ):
        m = board.neighbors[h, k]
        why = (
            "no hex on that side"
            if m < 0
            else "that side already has a track"
            if edges[h, k] >= 0
            else "the hex is not joined to the Port by a path clear of Old Ones"
            if not clear[h]
            else "an Old One or Spawn tile is in the way"
            if no_build[m] or no_build[h]
            else "the action box does not allow that terrain"
        )
        raise UserError(
            f"cannot build from hex {board.hex_number[h]} towards compass {k + 1}: {why}"
        )
    K.lay_track(board.neighbors, edges, h, k, player)


def attack_targets(
    board: Board,
    edges: np.ndarray,
    player: int,
    port: int,
    old_ones,
    force_range: int,
    airship_only: bool = False,
) -> np.ndarray:
    """Hex indices with an Old One that a force of this (lowest) range can attack."""
    blocked = _mask(board, old_ones, "old_ones")
    n = board.num_hexes
    out = np.zeros(n, dtype=bool)
    K.attackable(
        board.neighbors,
        edges,
        player,
        port,
        blocked,
        force_range,
        airship_only,
        out,
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=bool),
    )
    return np.flatnonzero(out)


def attack_distances(
    board: Board,
    edges: np.ndarray,
    player: int,
    port: int,
    old_ones=None,
    airship_only: bool = False,
) -> np.ndarray:
    """Off-rail distance of every hex from the player's clear network (-1 unreachable)."""
    n = board.num_hexes
    dist = np.zeros(n, dtype=np.int32)
    K.attack_distance(
        board.neighbors,
        edges,
        player,
        port,
        _mask(board, old_ones, "old_ones"),
        airship_only,
        dist,
        np.zeros(n, dtype=np.int32),
        np.zeros(n, dtype=bool),
    )
    return dist

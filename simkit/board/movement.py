"""Python-side Old One movement: allocation and argument checks over
simkit/kernels/low/movement.py."""

from __future__ import annotations

import numpy as np

from simkit.board.model import Board
from simkit.errors import UserError
from simkit.kernels.low import movement as M
from simkit.kernels.low.board import distance_field

POLICIES = {
    "compass": M.CHOOSE_COMPASS,
    "random": M.CHOOSE_RANDOM,
    "ports": M.CHOOSE_PORTS,
    "lowest": M.CHOOSE_LOWEST,
}


def distances(neighbors: np.ndarray, targets) -> np.ndarray:
    """dist[h] to the nearest target (bool mask or list of hex indices), -1 unreachable."""
    n = neighbors.shape[0]
    mask = np.asarray(targets)
    if mask.dtype != bool:
        idx = mask.astype(np.int64)
        mask = np.zeros(n, dtype=bool)
        mask[idx] = True
    dist = np.zeros(n, dtype=np.int32)
    distance_field(neighbors, mask, dist, np.zeros(n, dtype=np.int32))
    return dist


def move_card(
    board: Board | np.ndarray,
    hex_target,
    hex_farm,
    mover_hex,
    mover_moves,
    compass: int,
    rotation: int,
    *,
    policy: str = "compass",
    rng: np.random.Generator | None = None,
    stop_at_farm: bool = False,
    mover_stopped=None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Resolve one movement card on copies of the inputs.

    Returns (new mover_hex, new hex_farm, farms blighted). ``board`` may be a Board or a
    neighbors table. policy: compass (base rule) or a Revenge chooser (random, ports, lowest).
    """
    neighbors = board.neighbors if isinstance(board, Board) else np.asarray(board, dtype=np.int32)
    n = neighbors.shape[0]
    if compass not in range(1, 7):
        raise UserError(f"compass must be 1..6, got {compass}")
    if rotation not in (1, -1):
        raise UserError(f"rotation must be +1 (clockwise) or -1 (anticlockwise), got {rotation}")
    if policy not in POLICIES:
        raise UserError(f"unknown movement policy '{policy}' (expected: {', '.join(POLICIES)})")
    target = np.array(hex_target, dtype=bool)
    farm = np.zeros(n, dtype=np.int64) if hex_farm is None else np.array(hex_farm, dtype=np.int64)
    movers = np.array(mover_hex, dtype=np.int64)
    moves = (
        np.ones(movers.size, dtype=bool)
        if mover_moves is None
        else np.array(mover_moves, dtype=bool)
    )
    stopped = (
        np.zeros(movers.size, dtype=bool)
        if mover_stopped is None
        else np.array(mover_stopped, dtype=bool)
    )
    if policy != "compass" and rng is None:
        raise UserError(f"movement policy '{policy}' needs an rng")
    kit = M.new_kit(neighbors, target, farm, movers, mover_moves=moves, mover_stopped=stopped)
    blighted = M.movement_card(
        kit,
        compass,
        rotation,
        POLICIES[policy],
        np.random.default_rng(0) if rng is None else rng,  # the compass rule draws nothing
        stop_at_farm,
    )
    return movers, farm, int(blighted)

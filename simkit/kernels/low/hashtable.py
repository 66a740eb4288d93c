"""A game-neutral open-addressing hash table on numpy arrays, for numba kernels.

Maps a pair of non-negative int64 keys to a row number. About ten times faster
than numba's typed.Dict with tuple keys in the exact solvers' inner loop.
"""

import numpy as np

from simkit.kernels.low.jit import kernel

EMPTY = -1


def new_table(max_items: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys[slots, 2], rows[slots]) with at least twice max_items slots (a power of two)."""
    slots = 1 << max(4, int(2 * max_items - 1).bit_length())
    return np.full((slots, 2), EMPTY, dtype=np.int64), np.full(slots, EMPTY, dtype=np.int64)


@kernel(inline="always")
def _slot(keys, k1, k2):
    mask = keys.shape[0] - 1
    h = (np.uint64(k1) * np.uint64(0x9E3779B97F4A7C15)) ^ (
        np.uint64(k2) * np.uint64(0xC2B2AE3D27D4EB4F)
    )
    h ^= h >> np.uint64(31)
    i = np.int64(h & np.uint64(mask))
    while keys[i, 0] != EMPTY and (keys[i, 0] != k1 or keys[i, 1] != k2):
        i = (i + 1) & mask
    return i


@kernel(inline="always")
def table_get(keys, rows, k1, k2):
    """Row stored for (k1, k2), or EMPTY."""
    return rows[_slot(keys, k1, k2)]


@kernel(inline="always")
def table_put(keys, rows, k1, k2, row):
    i = _slot(keys, k1, k2)
    keys[i, 0] = k1
    keys[i, 1] = k2
    rows[i] = row

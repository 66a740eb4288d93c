"""Seeds as data: fixed-size chunks, each with its own spawned SeedSequence."""

from __future__ import annotations

import numpy as np


def chunk_sizes(total: int, chunk: int) -> list[int]:
    """Split ``total`` items into chunks of ``chunk`` (the last may be smaller)."""
    full, rest = divmod(total, chunk)
    return [chunk] * full + ([rest] if rest else [])


def chunk_generators(seed: int, n_chunks: int) -> list[np.random.Generator]:
    """One independent Generator per chunk, identical whatever runs them or in what order."""
    return [np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(n_chunks)]


def chunk_key(root: int, chunk: int) -> np.ndarray:
    """The 128-bit key (uint64[2]) of one chunk of games, from ``SeedSequence(root,
    spawn_key=(chunk,))``. The game kernels hash it with each game's index into that
    game's chance streams (simkit.kernels.low.rand.seed_game_streams), so a chunk costs
    one SeedSequence, not one per game, and any game is still addressable alone.

    >>> chunk_key(7, 0).dtype, chunk_key(7, 0).shape
    (dtype('uint64'), (2,))
    >>> bool((chunk_key(7, 0) != chunk_key(7, 1)).any())
    True
    """
    return np.random.SeedSequence(root, spawn_key=(chunk,)).generate_state(2, np.uint64)

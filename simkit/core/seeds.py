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


def game_seed(root: int, chunk: int, game: int) -> np.random.SeedSequence:
    """The seed of one game, addressable directly: (root seed, chunk id, game index).

    Equal to ``SeedSequence(root).spawn(...)[chunk].spawn(...)[game]``, so a runner
    can seed chunks by spawning and a replay can rebuild any single game.
    """
    return np.random.SeedSequence(root, spawn_key=(chunk, game))


def game_generator(root: int, chunk: int, game: int) -> np.random.Generator:
    return np.random.default_rng(game_seed(root, chunk, game))

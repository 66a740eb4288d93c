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


def game_streams(rng: np.random.Generator | int) -> tuple[np.random.Generator, ...]:
    """The named chance streams of one game (game_layout.RNG_*), spawned from its Generator.

    One child per purpose (setup, Old One deck, movement, Mythos deck, the Old One player,
    each human seat), so what one seat's strategy draws never shifts another's cards.

    >>> a, b = game_streams(7), game_streams(np.random.default_rng(7))
    >>> len(a), a[1].random() == b[1].random()
    (10, True)
    """
    from simkit.kernels.low.game_layout import NUM_STREAMS

    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return tuple(rng.spawn(NUM_STREAMS))

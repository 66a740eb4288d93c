"""A game's chance in named streams (simkit.kernels.low.game_layout RNG_*).

A game is addressed by (root seed, chunk, game index). Its streams are one uint64
[NUM_STREAMS, 4] array of xoshiro256** states (simkit.kernels.low.rand), seeded inside
the kernel from the chunk's key and the game's index, so ``Engine.play_many`` seeds a
whole chunk without Python work per game and ``game_streams((root, chunk, game))``
rebuilds any one of them here, identically.
"""

from __future__ import annotations

import numpy as np

from simkit.core.seeds import chunk_key
from simkit.kernels.low.game_layout import NUM_STREAMS
from simkit.kernels.low.rand import STREAM_WORDS, seed_game_streams, seed_stream

GameSeed = int | tuple[int, int, int] | np.random.Generator


def new_streams() -> np.ndarray:
    """An unseeded stream array (simkit.kernels.low.rand.seed_game_streams seeds it)."""
    return np.zeros((NUM_STREAMS, STREAM_WORDS), dtype=np.uint64)


def stream_key(seed: GameSeed) -> tuple[np.ndarray, int]:
    """(chunk key, game index) of a game. ``seed``: its address (root, chunk, game) as
    the runner numbers games; an int ``s``, short for (s, 0, 0); or a Generator, which
    gives the key (two draws) of a one-off game."""
    if isinstance(seed, np.random.Generator):
        return seed.integers(0, 2**64, size=2, dtype=np.uint64), 0
    root, chunk, game = (seed, 0, 0) if isinstance(seed, (int, np.integer)) else seed
    return chunk_key(int(root), int(chunk)), int(game)


def game_streams(seed: GameSeed) -> np.ndarray:
    """The named chance streams of one game (game_layout.RNG_*), one row each.

    One stream per purpose (setup, Old One deck, movement, Mythos deck, the Old One player,
    each human seat), so what one seat's strategy draws never shifts another's cards.

    >>> a, b = game_streams(7), game_streams((7, 0, 0))
    >>> a.shape, bool((a == b).all()), bool((game_streams((7, 0, 1)) != a).all())
    ((9, 4), True, True)
    """
    rngs = new_streams()
    seed_game_streams(rngs, *stream_key(seed))
    return rngs


def single_stream(seed: int) -> np.ndarray:
    """One stream (uint64[4]) from a 64-bit seed: the search's re-deals and rollouts."""
    s = np.zeros(STREAM_WORDS, dtype=np.uint64)
    seed_stream(s, np.uint64(seed))
    return s

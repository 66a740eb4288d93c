"""Chance inside the kernels: one primitive, ``uniform(rng)``, for two kinds of source.

- a ``np.random.Generator`` (combat Monte Carlo, board setup called from Python):
  ``uniform(rng)`` is ``rng.random()``, so those results do not move;
- a **game stream**: one row of a uint64 ``[NUM_STREAMS, 4]`` array, the state of a
  xoshiro256** generator (Blackman & Vigna). A game's streams are seeded inside the
  kernel from the game's address, with no Python work per game: SplitMix64 hashes
  (chunk key, game index, stream index) into each stream's starting state, the seeding
  the xoshiro authors recommend. So every (chunk, game, stream) starts from its own
  hashed state, a game is replayable alone, and what one stream draws never shifts
  another (simkit.game.streams names the streams).

Why not numpy Generators per game: spawning nine and passing them into the jitted
engine cost ~300 us a game (SeedSequence spawning, 54 ctypes casts and the floating
point state calls), more than the engine spent on most of the game itself.
"""

import numpy as np
from numba.core import types
from numba.extending import overload

from simkit.kernels.low.jit import kernel

STREAM_WORDS = 4  # uint64 words of one xoshiro256** state

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_DOUBLE = 1.0 / 9007199254740992.0  # 2**-53


@kernel(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel(inline="always")
def mix64(z):
    """SplitMix64's finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@kernel(inline="always")
def next_u64(s):
    """The next 64 bits of the xoshiro256** state ``s`` (uint64[4], updated in place)."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@kernel(inline="always")
def next_double(s):
    """A double in [0, 1) from the top 53 bits of the next output."""
    return np.float64(next_u64(s) >> np.uint64(11)) * _DOUBLE


@kernel
def seed_stream(s, z):
    """Fill the state ``s`` with four SplitMix64 outputs started at ``z``."""
    for k in range(STREAM_WORDS):
        z = z + _GOLDEN
        s[k] = mix64(z)
    if s[0] == 0 and s[1] == 0 and s[2] == 0 and s[3] == 0:  # the one forbidden state
        s[0] = _GOLDEN


@kernel
def seed_game_streams(rngs, key, game):
    """Seed every stream of one game: ``key`` (uint64[2], its chunk's key from
    simkit.core.seeds.chunk_key) and ``game`` (its index in the chunk)."""
    base = mix64(mix64(key[0] + _GOLDEN) ^ key[1])
    base = mix64(base ^ (np.uint64(game) * _M1 + _GOLDEN))
    for k in range(rngs.shape[0]):
        seed_stream(rngs[k], mix64(base ^ (np.uint64(k + 1) * _M2)))


@kernel
def fill_u64(s, out):
    """out[:] = the next outputs of the stream ``s`` (seeds drawn from a stream)."""
    for k in range(out.size):
        out[k] = next_u64(s)


@kernel
def fill_uniform(s, out):
    """out[:] = the next doubles of the stream ``s`` (tests and replays read a stream)."""
    for k in range(out.size):
        out[k] = next_double(s)


def uniform(rng):
    """A double in [0, 1) from ``rng`` (a Generator or a game stream)."""
    if isinstance(rng, np.random.Generator):
        return rng.random()
    out = np.empty(1)
    fill_uniform(rng, out)
    return float(out[0])


@overload(uniform, inline="always")
def _uniform_jit(rng):
    if isinstance(rng, types.NumPyRandomGeneratorType):
        return lambda rng: rng.random()
    if isinstance(rng, types.Array) and rng.dtype == types.uint64 and rng.ndim == 1:
        return lambda rng: next_double(rng)
    return None

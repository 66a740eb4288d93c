"""The game's chance streams (simkit.kernels.low.rand): the generator is xoshiro256** and
the seeding SplitMix64, checked against an independent pure-Python reference; streams are
reproducible from a game's address and independent of each other."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.core.seeds import chunk_key
from simkit.game.streams import game_streams, new_streams, single_stream
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.rand import fill_u64, fill_uniform, seed_game_streams, seed_stream, uniform

MASK = (1 << 64) - 1


def ref_xoshiro(state, n):
    """xoshiro256** as published by Blackman & Vigna (reference C, in Python ints)."""
    s = [int(x) for x in state]

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & MASK

    out = []
    for _ in range(n):
        out.append((rotl((s[1] * 5) & MASK, 7) * 9) & MASK)
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


def ref_splitmix(z, n):
    out = []
    for _ in range(n):
        z = (z + 0x9E3779B97F4A7C15) & MASK
        x = z
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(x ^ (x >> 31))
    return out


def test_the_generator_is_xoshiro256starstar():
    s = np.array([1, 2, 3, 4], dtype=np.uint64)
    got = np.empty(8, dtype=np.uint64)
    fill_u64(s, got)
    expected = ref_xoshiro([1, 2, 3, 4], 8)
    assert expected[:2] == [11520, 0]  # the published first outputs for state {1, 2, 3, 4}
    assert [int(x) for x in got] == expected


def test_a_stream_is_seeded_with_four_splitmix64_outputs():
    s = np.zeros(4, dtype=np.uint64)
    seed_stream(s, np.uint64(12345))
    assert [int(x) for x in s] == ref_splitmix(12345, 4)
    np.testing.assert_array_equal(single_stream(12345), s)


def test_doubles_are_the_top_53_bits():
    s = single_stream(9)
    raw = ref_xoshiro(s.copy(), 1000)
    got = np.empty(1000)
    fill_uniform(s, got)
    np.testing.assert_array_equal(got, np.array([x >> 11 for x in raw]) * 2.0**-53)
    assert 0.0 <= got.min() and got.max() < 1.0


def test_uniform_reads_a_generator_or_a_stream():
    assert uniform(np.random.default_rng(3)) == np.random.default_rng(3).random()
    a, b = single_stream(4), single_stream(4)
    assert uniform(a) == uniform(b) and uniform(a) != uniform(single_stream(5))


def test_a_games_streams_depend_only_on_its_address():
    a = game_streams((2026, 3, 17))
    b = new_streams()
    seed_game_streams(b, chunk_key(2026, 3), 17)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (L.NUM_STREAMS, 4)
    for other in [(2026, 3, 18), (2026, 4, 17), (2027, 3, 17)]:
        assert not np.isin(game_streams(other), a).any()  # no word shared with a neighbour
    assert len({tuple(row) for row in a}) == L.NUM_STREAMS  # every stream its own state


@pytest.mark.parametrize("pair", [("stream", 0, 1), ("stream", 1, 5), ("game", 0, 1)])
def test_neighbouring_streams_are_uncorrelated(pair):
    """Draws of two streams of one game, or one stream of two neighbouring games, show
    no correlation and no shared run (|r| < 5 / sqrt(n): fails for related streams)."""
    n = 20000
    kind, i, j = pair
    if kind == "stream":
        g = game_streams((1, 0, 0))
        x, y = g[i], g[j]
    else:
        x, y = game_streams((1, 0, i))[L.RNG_DECK], game_streams((1, 0, j))[L.RNG_DECK]
    u, v = np.empty(n), np.empty(n)
    fill_uniform(x, u)
    fill_uniform(y, v)
    assert abs(np.corrcoef(u, v)[0, 1]) < 5 / np.sqrt(n)
    assert abs(np.corrcoef(u[1:], v[:-1])[0, 1]) < 5 / np.sqrt(n)
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert np.intersect1d(u, v).size == 0

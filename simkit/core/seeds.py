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

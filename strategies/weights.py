"""A learned player's weights in its parameter vector (strategies.human.learned,
strategies.old_ones.LearnedOOP); the weights files are read by strategies.files."""

from __future__ import annotations

import numpy as np

from simkit.errors import UserError


def put_weights(v, at: int, weights: tuple, shape: tuple[int, int], who: str, choices: str):
    """v with a learned player's weights (choice-major, ``shape`` = (choices, features))
    written from slot ``at``; ``who`` and ``choices`` name the player and its choices."""
    w = np.asarray(weights, dtype=np.float64)
    if w.size != shape[0] * shape[1]:
        raise UserError(
            f"{who}: {w.size} weights, expected {shape[0]} {choices} x {shape[1]} features"
        )
    v[at : at + w.size] = w
    return v

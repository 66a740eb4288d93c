"""Group interchangeable cards into outcome classes for exact draw-loop solvers."""

from __future__ import annotations

import numpy as np


def group_cards(effects: np.ndarray, available: np.ndarray | None = None):
    """Cards with identical effect rows are interchangeable for an exact solver.

    effects: [n_cards, k] integer rows describing what a card does in this matchup.
    available: bool [n_cards], the cards still in the deck (default: all).
    Returns (representative card per class, class count in the full deck,
    class count among the available cards, place values for composition keys).
    """
    effects = np.ascontiguousarray(effects)
    _, rep, inverse = np.unique(effects, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_classes = rep.size
    full = np.bincount(inverse, minlength=n_classes).astype(np.int64)
    avail = (
        full
        if available is None
        else np.bincount(inverse[available], minlength=n_classes).astype(np.int64)
    )
    place = np.cumprod(np.concatenate(([1], full[:-1] + 1))).astype(np.int64)
    return rep.astype(np.int64), full, avail, place

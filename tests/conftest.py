"""Shared fixtures: the shipped pack and small decks cut from it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simkit.datapack import AuzData, load_pack


@pytest.fixture(scope="session")
def pack() -> AuzData:
    return load_pack()


def small_deck(data: AuzData, cards: list[int]) -> AuzData:
    """The pack with only the given card indices in the Old One deck."""
    idx = np.asarray(cards)
    return dataclasses.replace(
        data, deck_size=idx.size, card_ids=data.card_ids[idx], card_hits=data.card_hits[idx],
        card_purple=data.card_purple[idx], card_sanity=data.card_sanity[idx],
        card_airship=data.card_airship[idx], card_moves=data.card_moves[idx],
        card_compass=data.card_compass[idx], card_rotation=data.card_rotation[idx])


def custom_deck(data: AuzData, rows: list[dict[int, tuple[int, int, int, int]]]) -> AuzData:
    """A deck written out card by card: each card maps Old One type -> (hit mask, purple, sanity, airship)."""
    n = len(rows)
    hits = np.zeros((n, 6), dtype=np.uint8)
    purple = np.zeros((n, 6), dtype=np.int64)
    sanity = np.zeros_like(purple)
    airship = np.zeros_like(purple)
    for c, row in enumerate(rows):
        for t, (h, p, s, a) in row.items():
            hits[c, t], purple[c, t], sanity[c, t], airship[c, t] = h, p, s, a
    return dataclasses.replace(
        data, deck_size=n, card_ids=np.arange(1, n + 1), card_hits=hits, card_purple=purple,
        card_sanity=sanity, card_airship=airship, card_moves=np.zeros((n, 6), dtype=bool),
        card_compass=np.ones(n, dtype=np.int64), card_rotation=np.ones(n, dtype=np.int64))

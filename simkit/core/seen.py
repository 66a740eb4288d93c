"""Card counting input: the discard pile a user types (``--seen 3,17``) and the cards
still in the deck after it. Errors name the cards as ``noun`` (e.g. "card")."""

from __future__ import annotations

import numpy as np

from simkit.errors import UserError


def parse_card_numbers(text: str | None, noun: str = "card") -> tuple[int, ...]:
    """'3, 17' -> (3, 17); anything but whole numbers stops with a UserError."""
    out = []
    for tok in (text or "").split(","):
        tok = tok.strip()
        if not tok:
            continue
        if not tok.isdigit():
            raise UserError(f"--seen takes {noun} numbers separated by commas, got '{tok}'")
        out.append(int(tok))
    return tuple(out)


def remaining_cards(card_ids: np.ndarray, seen: tuple[int, ...], noun: str = "card") -> np.ndarray:
    """bool [cards]: still in the deck after the discard pile ``seen`` (printed numbers)."""
    mask = np.ones(card_ids.size, dtype=bool)
    for cid in seen:
        hits = np.flatnonzero(card_ids == cid)
        if hits.size == 0:
            raise UserError(
                f"--seen names {noun} {cid}, which is not in the deck "
                f"(cards {card_ids.min()}..{card_ids.max()})"
            )
        if not mask[hits[0]]:
            raise UserError(f"--seen names {noun} {cid} twice")
        mask[hits[0]] = False
    return mask

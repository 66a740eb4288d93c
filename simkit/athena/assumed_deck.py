"""Rebuild the *assumed* Outcome deck of the default Athena data pack.

The real Outcome card faces are not in any text we have. This writes a stand-in deck
from a handful of per-rating counts (the whole design, below). Each card gets a fixed
"quality" (card 1 worst, card N best) and, for every weapon rating, the worst cards
jam, the next miss, then hits of rising damage. Because the counts move monotonically
with the rating, a card never gets worse for a better weapon: a card that jams a
rating-4 weapon jams every weapon, a rating-1 hit is also a hit (at least as strong)
for rating 2..4. Run from the repository root to rewrite the CSV:

    .venv/bin/python -m simkit.athena.assumed_deck

Users with the real deck type its cards into a copy of the pack instead.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

NUM_CARDS = 20
# Cards (of 20) per result for each weapon rating: jam, miss, hit 1, hit 2, hit 3.
RATING_COUNTS = {
    1: (4, 8, 6, 2, 0),
    2: (3, 6, 6, 4, 1),
    3: (2, 5, 5, 6, 2),
    4: (1, 4, 4, 7, 4),
}
SOURCE = "simkit/athena/assumed_deck.py (per-rating counts; monotone in rating)"
OUT = Path(__file__).resolve().parent.parent / "data" / "athena" / "outcome_cards.csv"


def card_row(quality: int, rating: int) -> tuple[str, int]:
    """Result and damage of the card with this quality rank (0 = worst) for a rating."""
    edge = 0
    labels = ("jam", "miss", "hit", "hit", "hit")
    for k, n in enumerate(RATING_COUNTS[rating]):
        edge += n
        if quality < edge:
            return labels[k], max(k - 1, 0)
    raise ValueError(quality)


def check_design() -> None:
    for rating, counts in RATING_COUNTS.items():
        assert sum(counts) == NUM_CARDS, rating
    for r in range(1, len(RATING_COUNTS)):  # monotone: no card is worse for a better weapon
        for k in range(1, 5):
            assert sum(RATING_COUNTS[r + 1][:k]) <= sum(RATING_COUNTS[r][:k]), (r, k)


def build_csv() -> str:
    check_design()
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["card", "rating", "result", "damage", "provenance", "source"])
    for card in range(1, NUM_CARDS + 1):
        for rating in RATING_COUNTS:
            result, damage = card_row(card - 1, rating)
            out.writerow([card, rating, result, damage, "assumed", SOURCE])
    return buf.getvalue()


if __name__ == "__main__":
    OUT.write_text(build_csv(), encoding="utf-8")
    print(f"wrote {OUT}")

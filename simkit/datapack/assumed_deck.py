"""The *assumed* 40-card Old One deck of the default data pack, and how it is built.

The real card faces are not public. This script writes a stand-in deck whose
per-row symbol frequencies follow every rule of thumb the base rulebook states
("Effectiveness of Units", "Movement Rates"). The targets below are the whole
design; the only other input is a fixed seed that decides which cards carry
which symbols. Run it from the repository root:

    python tools/build_assumed_deck.py

and it rewrites simkit/data/auztralia/old_one_cards.csv and
old_one_card_rows.csv. Users with the real deck should type their own cards
into a copy of the pack instead (see simkit/data/auztralia/README.md).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

SEED = 20261130
NUM_CARDS = 40
UNITS = ("infantry", "armoured_car", "artillery", "armoured_train", "airship")
OLD_ONES = ("zombie", "mi_go", "shoggoth", "cthulhu", "temple", "loyalist")

# Cards (of 40) on which each unit's symbol appears in each Old One's row.
# "Good" ~ 22-26, "weak" ~ 6-10, "never" = 0.
HIT_TARGETS = {
    #            inf ac  art trn air
    "zombie": (24, 24, 14, 14, 6),  # inf+AC good; airships poor vs Zombies
    "mi_go": (24, 22, 14, 14, 12),  # inf+AC good vs Mi-go
    "shoggoth": (10, 10, 24, 24, 14),  # art+train good; inf+AC weaker
    "cthulhu": (8, 8, 22, 22, 12),  # art+train good; inf+AC weaker
    "temple": (24, 0, 24, 14, 10),  # inf+art good; AC never hurts Temples
    "loyalist": (26, 26, 26, 26, 24),  # all units good vs Loyalists
}

# Damage symbol on each row: (1 purple, 2 purple, sanity, airship, nothing); sums to 40.
DAMAGE_TARGETS = {
    "zombie": (14, 0, 8, 4, 14),
    "mi_go": (10, 0, 8, 14, 8),  # Airships vulnerable to Mi-go
    "shoggoth": (12, 4, 10, 6, 8),
    "cthulhu": (10, 6, 14, 4, 6),
    "temple": (6, 0, 14, 4, 16),
    "loyalist": (18, 2, 0, 6, 14),  # Loyalists never cost Sanity
}

# Cards showing each Old One in a movement circle: Zombies slow, Mi-go fast,
# the rest average; Temples never move.
MOVE_TARGETS = {
    "zombie": 8,
    "mi_go": 24,
    "shoggoth": 14,
    "cthulhu": 14,
    "temple": 0,
    "loyalist": 14,
}

SOURCE = "tools/build_assumed_deck.py (frequency targets from the base rules' rules of thumb)"


def build(seed: int = SEED) -> tuple[list[dict], list[dict]]:
    """Return (card rows, card x Old One rows) of the assumed deck."""
    rng = np.random.default_rng(seed)
    compass = np.resize(np.arange(1, 7), NUM_CARDS)
    rng.shuffle(compass)
    rotation = np.where(rng.random(NUM_CARDS) < 0.5, "cw", "ccw")
    cards = [
        {
            "card": i + 1,
            "compass": int(compass[i]),
            "rotation": str(rotation[i]),
            "provenance": "assumed",
            "source": SOURCE,
        }
        for i in range(NUM_CARDS)
    ]
    rows = []
    for old_one in OLD_ONES:
        hits = [[] for _ in range(NUM_CARDS)]
        for unit, count in zip(UNITS, HIT_TARGETS[old_one], strict=True):
            for card in rng.permutation(NUM_CARDS)[:count]:
                hits[card].append(unit)
        symbols = np.repeat(np.arange(5), DAMAGE_TARGETS[old_one])
        assert symbols.size == NUM_CARDS, old_one
        rng.shuffle(symbols)
        moves = np.zeros(NUM_CARDS, dtype=bool)
        moves[rng.permutation(NUM_CARDS)[: MOVE_TARGETS[old_one]]] = True
        for i in range(NUM_CARDS):
            kind = int(symbols[i])
            rows.append(
                {
                    "card": i + 1,
                    "old_one": old_one,
                    "hits": "+".join(u for u in UNITS if u in hits[i]) or "none",
                    "purple": {0: 1, 1: 2}.get(kind, 0),
                    "sanity": int(kind == 2),
                    "airship": int(kind == 3),
                    "moves": int(moves[i]),
                    "provenance": "assumed",
                    "source": SOURCE,
                }
            )
    return cards, rows


def deck_arrays(seed: int = SEED) -> dict[str, np.ndarray]:
    """The assumed deck drawn with ``seed`` as AuzData card arrays (SEED: the shipped deck)."""
    cards, rows = build(seed)
    n, kinds = len(cards), len(OLD_ONES)
    hits = np.zeros((n, kinds), dtype=np.uint8)
    purple = np.zeros((n, kinds), dtype=np.int64)
    sanity, airship = np.zeros_like(purple), np.zeros_like(purple)
    moves = np.zeros((n, kinds), dtype=bool)
    for r in rows:
        c, t = r["card"] - 1, OLD_ONES.index(r["old_one"])
        hits[c, t] = sum(1 << UNITS.index(u) for u in r["hits"].split("+") if u != "none")
        purple[c, t], sanity[c, t], airship[c, t], moves[c, t] = (
            r["purple"],
            r["sanity"],
            r["airship"],
            r["moves"],
        )
    return dict(
        card_ids=np.array([c["card"] for c in cards], dtype=np.int64),
        card_hits=hits,
        card_purple=purple,
        card_sanity=sanity,
        card_airship=airship,
        card_moves=moves,
        card_compass=np.array([c["compass"] for c in cards], dtype=np.int64),
        card_rotation=np.array([1 if c["rotation"] == "cw" else -1 for c in cards], dtype=np.int64),
    )


def write(out_dir: Path) -> None:
    cards, rows = build()
    for name, table in (("old_one_cards.csv", cards), ("old_one_card_rows.csv", rows)):
        with open(out_dir / name, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(table[0]))
            writer.writeheader()
            writer.writerows(table)


if __name__ == "__main__":
    write(Path(__file__).resolve().parent.parent / "data" / "auztralia")

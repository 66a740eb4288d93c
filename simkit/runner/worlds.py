"""Worlds: claims that hold over plausible content.

A world is one seeded redraw of the values nobody states (the data pack's ``assumed``
values and the printed cards whose text is unknown), each within its stated range and the
rules of thumb, plus a draw of every reading. A spec's ``[worlds]`` table asks for
``count`` worlds and names the ``sources`` to vary; every world is a cell parameter
(``world``) with its draws as data overrides, so the manifest records each world's values,
each world is its own lake cell, and every world plays the same game seeds (paired).

    >>> from simkit.runner.worlds import SOURCES, world_overrides
    >>> sorted(SOURCES)[:3]
    ['deck_faces', 'mythos_amounts', 'readings']
    >>> world_overrides(None, 3, ["unit_costs"])["units.artillery.cost"] in (2.0, 3.0, 4.0)
    True

The ranges (the shipped values sit inside each):

- ``unit_costs``: the Gold cost of each unit whose cost is assumed, one step either way of
  the shipped value, never below 2 (Infantry, 1 Gold, is the cheapest: rules).
- ``tile_values``: the Old One types' VP and damage capacity within the bounds
  experiments/sensitivity_tile_values.toml states (Zombie capacity and Cthulhu VP are
  external and stay; Major Old Ones keep capacity 6+; Mi-go and Loyalists stay above the
  Zombie's VP).
- ``deck_faces``: the assumed Old One deck redrawn with another seed, the same
  rules-of-thumb targets (simkit/datapack/assumed_deck.py).
- ``mythos_amounts``: each Mythos card's assumed amount, in its effect's range
  (simkit.game.mythos.PRIOR_AMOUNTS; 1-2 for counts).
- ``tp_costs``: each Mythos card's assumed TP cost, 0-2 for turn cards (the rules: cards
  cost 0, 1 or 2), 0-1 for combat cards.
- ``unknown_mythos``: the 14 cards no text names, drawn per world from the public effect
  kinds (``unknown = "prior"``).
- ``readings``: every reading (readings.toml) drawn uniformly among its options.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L

WORLD_SEED = 0x3017_D5  # the worlds' own stream: source s of world w draws from (seed, w, s)
MAX_WORLDS = 10_000

# unit: (shipped assumed cost, lowest, highest)
_UNIT_COSTS = {
    "armoured_car": (2, 4),
    "artillery": (2, 4),
    "armoured_train": (3, 5),
    "airship": (3, 5),
}
# override key: the values a world may take (sensitivity_tile_values.toml's bounds)
_TILE_VALUES = {
    "old_ones.mi_go.vp": (2, 3),
    "old_ones.mi_go.damage_capacity": (2, 3, 4),
    "old_ones.loyalist.vp": (2, 3),
    "old_ones.loyalist.damage_capacity": (2, 3, 4),
    "old_ones.temple.vp": (2, 3, 4),
    "old_ones.temple.damage_capacity": (3, 4, 5),
    "old_ones.shoggoth.vp": (4, 5, 6),
    "old_ones.shoggoth.damage_capacity": (6, 7),
    "old_ones.cthulhu.damage_capacity": (10, 12, 14),
}
_MYTHOS_AMOUNTS = {
    "blight_farms": (1, 2),
    "port_combat_extra_damage": (1, 1),
    "temple_attack_extra_capacity": (1, 2),
    "remove_recent_unit": (1, 1),
}

SOURCES = {
    "unit_costs": "the Gold cost of every unit whose cost is assumed, one step either way",
    "tile_values": "Old One VP and damage capacity within the sensitivity bounds",
    "deck_faces": "the assumed Old One deck redrawn with the same rules-of-thumb targets",
    "mythos_amounts": "each Mythos card's assumed amount within its effect's range",
    "tp_costs": "each Mythos card's assumed TP cost (turn cards 0-2, combat cards 0-1)",
    "unknown_mythos": "the 14 unnamed Mythos cards drawn from the public effect kinds",
    "readings": "every reading of an open rule text, uniformly among its options",
}


def check_sources(sources: Iterable[Any]) -> tuple[str, ...]:
    out = []
    for s in sources:
        if s not in SOURCES:
            raise UserError(f"unknown world source {s!r} (expected one of: {', '.join(SOURCES)})")
        if s in out:
            raise UserError(f"world source {s!r} is named twice")
        out.append(s)
    if not out:
        raise UserError("a world varies at least one source (sources = [...])")
    return tuple(out)


def world_overrides(data, world: int, sources: Iterable[str]) -> dict[str, Any]:
    """The data overrides of world ``world`` for the named sources (``data``: the loaded
    pack, for the Mythos cards' provenance; None: the shipped pack)."""
    out: dict[str, Any] = {}
    for s in check_sources(sources):
        rng = np.random.default_rng([WORLD_SEED, int(world), list(SOURCES).index(s)])
        if s == "unit_costs":
            for unit, (lo, hi) in _UNIT_COSTS.items():
                out[f"units.{unit}.cost"] = float(rng.integers(lo, hi + 1))
        elif s == "tile_values":
            for key, values in _TILE_VALUES.items():
                out[key] = int(values[int(rng.integers(len(values)))])
        elif s == "deck_faces":
            out["deck.assumed_seed"] = int(rng.integers(1, 2**31))
        elif s in ("mythos_amounts", "tp_costs"):
            out.update(_mythos_draws(data, s, rng))
        elif s == "readings":
            for name, options in L.READINGS:
                out[f"reading.{name}"] = options[int(rng.integers(len(options)))]
        # unknown_mythos: the cell plays unknown = "prior" with its world (the Engine draws)
    return out


def _mythos_draws(data, source: str, rng: np.random.Generator) -> dict[str, Any]:
    from simkit.game.arrays import mythos_deck
    from simkit.game.mythos import EFFECTS, PRIOR_AMOUNTS, load_mythos

    deck = load_mythos() if data is None else mythos_deck(data)
    out: dict[str, Any] = {}
    for i, card in enumerate(deck.names):
        if deck.unknown[i]:
            continue  # unknown cards are the unknown_mythos source
        if source == "mythos_amounts" and deck.amount_assumed[i]:
            lo, hi = {**PRIOR_AMOUNTS, **_MYTHOS_AMOUNTS}.get(EFFECTS[int(deck.effect[i])], (1, 1))
            out[f"mythos.{card}.amount"] = int(rng.integers(lo, hi + 1))
        if source == "tp_costs" and deck.tp_assumed[i]:
            out[f"mythos.{card}.tp_cost"] = int(rng.integers(0, 2 if deck.combat[i] else 3))
    return out


def source_fields(source: str) -> list[str]:
    """The pack values a source redraws: override paths, or the files and rows to type in."""
    if source == "deck_faces":
        return ["old_one_cards.csv", "old_one_card_rows.csv (the 40 Old One card faces)"]
    if source == "unknown_mythos":
        from simkit.game.mythos import load_mythos

        deck = load_mythos()
        return [
            f"mythos_cards.csv: {n}" for n, u in zip(deck.names, deck.unknown, strict=True) if u
        ]
    return sorted(world_overrides(None, 0, [source]))

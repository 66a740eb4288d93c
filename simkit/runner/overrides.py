"""Data overrides: change a few data pack values for one experiment cell.

Keys name a value the way the pack files do, and values keep the pack's units:

    units.<unit>.<field>      cost (Gold), damage_capacity, range, box_count, oop_vp, oop_vp_alt
    old_ones.<type>.<field>   damage_capacity, vp, moves, heals_after_combat, causes_sanity_loss
                              (damage_capacity and vp set the type's combat value and move every
                              Old One tile of that type, old_one_tiles.csv, by the same step, so
                              they reach the game modes too; a pack whose tiles of a type all
                              carry the type's value, as the shipped one, gets exactly the value)
    port.<field>              strength_normal, strength_weak, flip_threshold,
                              sanity_strength_4, sanity_strength_2, oop_vp
    combat.sanity_per_combat
    reading.<name>            a reading of an open rule text (readings.toml), e.g. temple
    mythos.<card>.<field>     effect, tp_cost, amount, level, combat of one Mythos card
                              (mythos_cards.csv; the full game's Revenge and Mythos Solo)
    deck.assumed_seed         redraw the assumed Old One deck with another seed (the same
                              rules-of-thumb targets; only for a pack holding the shipped deck)

The pack is copied (dataclasses.replace; the loaded pack is never changed) and gets a new
``hash``: the base hash and the sorted overrides hashed together, so the lake records both
the override and the effective data it ran on.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.names import OLD_ONES, PORT, STACKS, UNITS

_UNIT_FIELDS = {
    "cost": ("unit_cost", float, 0),
    "damage_capacity": ("unit_capacity", int, 1),
    "range": ("unit_range", int, 0),
    "box_count": ("unit_box_count", int, 0),
    "oop_vp": ("unit_oop_vp", int, 0),
    "oop_vp_alt": ("unit_oop_vp_alt", int, 0),
}
_OLD_ONE_FIELDS = {
    "damage_capacity": ("old_one_capacity", int, 1),
    "vp": ("old_one_vp", int, 0),
    "moves": ("old_one_moves", bool, None),
    "heals_after_combat": ("old_one_heals", bool, None),
    "causes_sanity_loss": ("old_one_sanity", bool, None),
}
_TILE_FIELDS = {"damage_capacity": "tile_capacity", "vp": "tile_vp"}  # the tiles' own columns
_PORT_FIELDS = (
    "strength_normal",
    "strength_weak",
    "flip_threshold",
    "sanity_strength_4",
    "sanity_strength_2",
    "oop_vp",
)
OVERRIDE_PATTERNS = (
    "units.<unit>.<" + "|".join(_UNIT_FIELDS) + ">",
    "old_ones.<type>.<" + "|".join(_OLD_ONE_FIELDS) + ">",
    "port.<" + "|".join(_PORT_FIELDS) + ">",
    "combat.sanity_per_combat",
    "reading.<name>",
    "mythos.<card>.<effect|tp_cost|amount|level|combat>",
    "deck.assumed_seed",
    "card.<number>.<old one>.<hits|purple|sanity|airship>",
)
# One Old One combat card's face for one Old One: the units that hit ('+'-joined, or
# 'none'), the purple cubes, the Sanity lost and the damage to an Airship (the columns of
# old_one_card_rows.csv, with its bounds)
_CARD_FIELDS = {
    "hits": "card_hits",
    "purple": "card_purple",
    "sanity": "card_sanity",
    "airship": "card_airship",
}
# Mythos card fields: (kind, lowest, highest), as mythos_cards.csv bounds them
_MYTHOS_FIELDS = {
    "effect": (str, None, None),
    "tp_cost": (int, 0, 2),
    "amount": (int, 0, 9),
    "level": (int, 0, 3),
    "combat": (int, 0, 1),
}


MAX_OVERRIDE = 10_000  # the data pack's own bound on a value (simkit.datapack.MAX_VALUE)


def _value(key: str, value: Any, kind: type, minimum: float | None) -> Any:
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
    if not ok:
        raise UserError(f"override '{key}' must be {kind.__name__}, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"override '{key}' must be a finite number, got {value!r}")
    top = 2**63 - 1 if key == "deck.assumed_seed" else MAX_OVERRIDE  # a seed, or a pack value
    if not isinstance(value, bool) and abs(value) > top:
        raise UserError(f"override '{key}' must be at most {top}, got {value!r}")
    if minimum is not None and value < minimum:
        raise UserError(f"override '{key}' must be >= {minimum}, got {value!r}")
    return value


def check_override(key: str, value: Any) -> Any:
    """Validate one override; returns the normalised value (ints become floats for costs)."""
    parts = key.split(".")
    if parts[0] == "units" and len(parts) == 3:
        if parts[1] not in UNITS + ("outpost",):
            raise UserError(
                f"override '{key}': unknown unit '{parts[1]}' "
                f"(expected one of: {', '.join(UNITS)}, outpost)"
            )
        if parts[2] not in _UNIT_FIELDS:
            raise UserError(
                f"override '{key}': unknown unit field '{parts[2]}' "
                f"(expected one of: {', '.join(_UNIT_FIELDS)})"
            )
        _, kind, lo = _UNIT_FIELDS[parts[2]]
        return _value(key, value, kind, lo)
    if parts[0] == "old_ones" and len(parts) == 3:
        if parts[1] not in OLD_ONES:
            raise UserError(
                f"override '{key}': unknown Old One '{parts[1]}' "
                f"(expected one of: {', '.join(OLD_ONES)})"
            )
        if parts[2] not in _OLD_ONE_FIELDS:
            raise UserError(
                f"override '{key}': unknown Old One field '{parts[2]}' "
                f"(expected one of: {', '.join(_OLD_ONE_FIELDS)})"
            )
        _, kind, lo = _OLD_ONE_FIELDS[parts[2]]
        return _value(key, value, kind, lo)
    if parts[0] == "port" and len(parts) == 2:
        if parts[1] not in _PORT_FIELDS:
            raise UserError(
                f"override '{key}': unknown port field '{parts[1]}' "
                f"(expected one of: {', '.join(_PORT_FIELDS)})"
            )
        return _value(key, value, int, 0)
    if key == "combat.sanity_per_combat":
        return _value(key, value, int, 0)
    if key == "deck.assumed_seed":
        return _value(key, value, int, 0)
    if parts[0] == "card" and len(parts) == 4:
        if not parts[1].isdigit() or int(parts[1]) < 1:
            raise UserError(f"override '{key}': the card number must be 1 or more")
        if parts[2] not in OLD_ONES:
            raise UserError(
                f"override '{key}': unknown Old One '{parts[2]}' "
                f"(expected one of: {', '.join(OLD_ONES)})"
            )
        if parts[3] not in _CARD_FIELDS:
            raise UserError(
                f"override '{key}': unknown card field '{parts[3]}' "
                f"(expected one of: {', '.join(_CARD_FIELDS)})"
            )
        if parts[3] == "hits":
            tokens = [t.strip() for t in str(value).split("+") if t.strip()]
            if tokens == ["none"]:
                return "none"
            bad = [t for t in tokens if t not in UNITS]
            if not tokens or bad:
                raise UserError(
                    f"override '{key}': hits are '+'-joined units or 'none', got {value!r} "
                    f"(units: {', '.join(UNITS)})"
                )
            return "+".join(u for u in UNITS if u in tokens)
        value = _value(key, value, int, 0)
        if value > 9:
            raise UserError(f"override '{key}' must be at most 9, got {value!r}")
        return value
    if parts[0] == "reading" and len(parts) == 2:
        from simkit.game.readings import check_reading

        try:
            return check_reading(parts[1], value)
        except UserError as exc:
            raise UserError(f"override '{key}': {exc}") from None
    if parts[0] == "mythos" and len(parts) == 3:
        if parts[2] not in _MYTHOS_FIELDS:
            raise UserError(
                f"override '{key}': unknown Mythos card field '{parts[2]}' "
                f"(expected one of: {', '.join(_MYTHOS_FIELDS)})"
            )
        kind, lo, hi = _MYTHOS_FIELDS[parts[2]]
        if kind is str:
            from simkit.game.mythos import EFFECTS

            if value not in EFFECTS:
                raise UserError(
                    f"override '{key}': unknown effect {value!r} "
                    f"(expected one of: {', '.join(EFFECTS)})"
                )
            return value
        value = _value(key, value, int, lo)
        if value > hi:
            raise UserError(f"override '{key}' must be at most {hi}, got {value!r}")
        return value
    raise UserError(f"unknown override '{key}' (expected one of: {', '.join(OVERRIDE_PATTERNS)})")


def override_hash(base_hash: str, overrides: Mapping[str, Any]) -> str:
    if not overrides:
        return base_hash
    text = json.dumps(
        {"base": base_hash, "overrides": dict(sorted(overrides.items()))}, sort_keys=True
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def apply_overrides(data: AuzData, overrides: Mapping[str, Any]) -> AuzData:
    """A copy of ``data`` with the overrides applied (validated here too)."""
    if not overrides:
        return data
    changes: dict[str, Any] = {}

    def array(name: str) -> np.ndarray:
        if name not in changes:
            changes[name] = getattr(data, name).copy()
        return changes[name]

    port = dict(data.port)
    names = None  # the pack's Mythos card names, read at the first mythos.* key
    for key, raw in sorted(overrides.items()):
        value = check_override(key, raw)
        parts = key.split(".")
        if parts[0] == "units":
            array(_UNIT_FIELDS[parts[2]][0])[STACKS.index(parts[1])] = value
        elif parts[0] == "old_ones":
            t = OLD_ONES.index(parts[1])
            attr, _, lo = _OLD_ONE_FIELDS[parts[2]]
            step = value - getattr(data, attr)[t]
            array(attr)[t] = value
            if parts[2] in _TILE_FIELDS:  # the full game reads the tiles' own values
                tiles = array(_TILE_FIELDS[parts[2]])
                tiles[data.tile_type == t] = np.maximum(
                    getattr(data, _TILE_FIELDS[parts[2]])[data.tile_type == t] + step, lo
                )
        elif parts[0] == "port":
            port[parts[1]] = value
            # load_pack stores these port values in the port row of the unit arrays too
            if parts[1] == "strength_normal":
                array("unit_capacity")[PORT] = value
            if parts[1] == "oop_vp":
                array("unit_cost")[PORT] = float(value)
                array("unit_oop_vp")[PORT] = value
                array("unit_oop_vp_alt")[PORT] = value
        elif parts[0] == "card":
            if "deck.assumed_seed" in overrides:
                raise UserError(
                    f"override '{key}' and 'deck.assumed_seed' together: the redraw would "
                    "replace the card; give one of them"
                )
            c, t = _card_index(data, key, parts), OLD_ONES.index(parts[2])
            arr = array(_CARD_FIELDS[parts[3]])
            if parts[3] == "hits":
                mask = 0
                for u in [] if value == "none" else value.split("+"):
                    mask |= 1 << UNITS.index(u)
                if parts[2] == "temple" and mask & (1 << UNITS.index("armoured_car")):
                    raise UserError(f"override '{key}': Armoured Cars can never damage Temples")
                arr[c, t] = mask
            else:
                if parts[3] == "sanity" and value and not data.old_one_sanity[t]:
                    raise UserError(f"override '{key}': {parts[2]} never causes Sanity loss")
                arr[c, t] = value
        elif key == "deck.assumed_seed":
            from simkit.datapack.assumed_deck import SEED, deck_arrays

            shipped = deck_arrays(SEED)
            if not all(np.array_equal(getattr(data, k), v) for k, v in shipped.items()):
                raise UserError(
                    "override 'deck.assumed_seed' redraws the shipped assumed deck; "
                    "this pack holds another deck (your own cards?)"
                )
            changes.update(deck_arrays(value))
        elif parts[0] == "reading":
            chosen = dict(changes.get("readings", data.readings))
            chosen[parts[1]] = value
            changes["readings"] = tuple(sorted(chosen.items()))
        elif parts[0] == "mythos":
            if names is None:  # read the pack's cards once per call, not once per key
                from simkit.game.arrays import mythos_deck

                names = mythos_deck(data).names
            if parts[1] not in names:
                raise UserError(
                    f"override '{key}': no Mythos card '{parts[1]}' in the pack "
                    f"(cards: {', '.join(names)})"
                )
            kept = [
                m for m in changes.get("mythos_set", data.mythos_set) if m[:2] != tuple(parts[1:])
            ]
            changes["mythos_set"] = tuple(sorted([*kept, (parts[1], parts[2], value)]))
        else:
            changes["sanity_per_combat"] = value
    if port["strength_weak"] > port["strength_normal"]:
        raise UserError("override: 'port.strength_weak' must not exceed 'port.strength_normal'")
    if port != data.port:
        changes["port"] = port
    return dataclasses.replace(data, hash=override_hash(data.hash, overrides), **changes)


def _card_index(data: AuzData, key: str, parts: list[str]) -> int:
    ids = [int(i) for i in data.card_ids]
    if int(parts[1]) not in ids:
        raise UserError(f"override '{key}': no card {parts[1]} in the deck (cards 1-{len(ids)})")
    return ids.index(int(parts[1]))


def pack_value(data: AuzData, key: str) -> Any:
    """The value ``key`` has in ``data`` itself (the baseline of a sensitivity sweep)."""
    parts = key.split(".")
    if parts[0] == "units" and len(parts) == 3 and parts[2] in _UNIT_FIELDS:
        attr, kind, _ = _UNIT_FIELDS[parts[2]]
        return kind(getattr(data, attr)[STACKS.index(parts[1])])
    if parts[0] == "old_ones" and len(parts) == 3 and parts[2] in _OLD_ONE_FIELDS:
        attr, kind, _ = _OLD_ONE_FIELDS[parts[2]]
        return kind(getattr(data, attr)[OLD_ONES.index(parts[1])])
    if parts[0] == "port" and len(parts) == 2 and parts[1] in _PORT_FIELDS:
        return int(data.port[parts[1]])
    if key == "combat.sanity_per_combat":
        return int(data.sanity_per_combat)
    if key == "deck.assumed_seed":
        from simkit.datapack.assumed_deck import SEED

        return SEED
    if parts[0] == "card" and len(parts) == 4 and parts[3] in _CARD_FIELDS:
        check_override(key, 0 if parts[3] != "hits" else "none")
        c, t = _card_index(data, key, parts), OLD_ONES.index(parts[2])
        v = int(getattr(data, _CARD_FIELDS[parts[3]])[c, t])
        if parts[3] != "hits":
            return v
        return "+".join(u for i, u in enumerate(UNITS) if v >> i & 1) or "none"
    if parts[0] == "reading" and len(parts) == 2:
        from simkit.game.readings import check_reading, load_readings

        readings = load_readings(data.path)
        if parts[1] not in readings:
            check_reading(parts[1], None)  # raises, naming the known readings
        return dict(data.readings).get(parts[1], readings[parts[1]].default)
    if parts[0] == "mythos" and len(parts) == 3 and parts[2] in _MYTHOS_FIELDS:
        from simkit.game.arrays import mythos_deck

        deck = mythos_deck(data)
        if parts[1] not in deck.names:
            raise UserError(f"override '{key}': no Mythos card '{parts[1]}' in the pack")
        i = deck.names.index(parts[1])
        if parts[2] == "effect":
            from simkit.game.mythos import EFFECTS

            return EFFECTS[int(deck.effect[i])]
        return int(getattr(deck, parts[2])[i])
    raise UserError(
        f"unknown override key '{key}' (expected one of: {', '.join(OVERRIDE_PATTERNS)})"
    )

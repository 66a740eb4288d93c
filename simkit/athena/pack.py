"""Load and validate a Last Aurora: Project Athena data pack into typed numpy arrays.

A pack is a folder of TOML and CSV files (format: simkit/data/athena/README.md). Every
value carries a provenance tag; loading checks structure, types, ranges and the hard
rules the rulebook states, and returns an immutable :class:`AthenaData` whose ``hash``
changes exactly when a value that can change a result changes. Every error names the
file, and where there is one the row and the field.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.packfiles import PROVENANCE_TAGS, ProvenanceReader
from simkit.errors import DataPackError
from simkit.kernels.athena import (
    COST_AMMO,
    COST_CHARGED,
    COST_HALF,
    HIT,
    JAM,
    MISS,
    PHASE_FIRE,
    PHASE_GATHER,
)

DEFAULT_PACK = Path(__file__).resolve().parent.parent / "data" / "athena"
RESULTS = {"miss": MISS, "hit": HIT, "jam": JAM}
COSTS = {"ammo": COST_AMMO, "charged_battery": COST_CHARGED, "half_battery": COST_HALF}
PHASES = {"gather_resources": PHASE_GATHER, "fire_weapons": PHASE_FIRE}
RESOURCES = ("ammo", "fuel", "food", "charged_battery", "half_battery", "none")
MAX_RATING = 9

# Interpretation switches (pack.toml [interpretation]); each may be overridden per run.
INTERPRETATION_KEYS = (
    "ambush_draws_card",
    "turret_damage_accumulates",
    "cyborg_ignores_grenade_jam",
)
# Battery spending switches (batteries.toml); likewise.
BATTERY_KEYS = ("two_half_for_charged", "flip_charged_for_half", "prefer_flip")


@dataclass(frozen=True, eq=False)
class AthenaData:
    """One validated Athena data pack as struct-of-arrays."""

    path: str
    name: str
    hash: str
    provenance: dict[str, int]
    num_ratings: int
    # Outcome deck, row i = i-th card of outcome_cards.csv, column r = weapon rating r + 1
    card_ids: np.ndarray  # int64 [card], the numbers users type for --seen
    card_result: np.ndarray  # int64 [card, rating]: MISS / HIT / JAM
    card_damage: np.ndarray  # int64 [card, rating]: damage value of a HIT, else 0
    # Automated Turret tokens
    turret_number: np.ndarray  # int64 [turret], as printed on token and space
    turret_defense: np.ndarray  # int64 [turret]
    turret_reward: tuple[str, ...]  # resource shown on the turret's space
    turret_reward_amount: np.ndarray  # int64 [turret]
    # Detection Level Track, row 0 = bottom row (where every token starts)
    track_damage: np.ndarray  # int64 [level]: turret damage per attack
    track_aurora: np.ndarray  # int64 [level]: Aurora advance on a Level 3 Scan
    track_fame: np.ndarray  # int64 [level]: end-of-game Fame
    # weapon kinds
    weapon_names: tuple[str, ...]
    weapon_cost: np.ndarray  # int64 [kind]: COST_*
    weapon_phase: np.ndarray  # int64 [kind]: PHASE_*
    # items
    grenade_damage: int
    grenade_self_damage: int
    grenade_rating: int
    cyborg_ignores_jam: bool
    # switches (interpretation and battery spending); see INTERPRETATION_KEYS, BATTERY_KEYS
    switches: dict[str, bool]
    # battery exchange rules (informational: nothing in a turret fight trades)
    exchange: dict[str, bool]

    @property
    def deck_size(self) -> int:
        return int(self.card_ids.size)

    def card_index(self, card_id: int) -> int:
        hits = np.flatnonzero(self.card_ids == card_id)
        if hits.size == 0:
            raise KeyError(card_id)
        return int(hits[0])

    def weapon_kind(self, name: str) -> int:
        return self.weapon_names.index(name)


def load_athena_pack(path: str | Path | None = None) -> AthenaData:
    """Read, validate and hash the pack in ``path`` (default: the shipped pack)."""
    root = Path(path) if path is not None else DEFAULT_PACK
    if not root.is_dir():
        raise DataPackError(str(root), "not a folder")
    rd = ProvenanceReader(root)

    pack = rd.toml("pack.toml")
    meta = pack.get("pack", {})
    if meta.get("game") != "athena":
        raise DataPackError("pack.toml", '[pack] game must be "athena"')
    name = str(meta.get("name", root.name))
    deck = rd.section("pack.toml", pack, "deck")
    deck_size = rd.value("pack.toml", deck, "deck", "size", int, 1, 1000)
    num_ratings = rd.value("pack.toml", deck, "deck", "ratings", int, 1, MAX_RATING)
    interp = rd.section("pack.toml", pack, "interpretation")
    switches = {
        k: rd.value("pack.toml", interp, "interpretation", k, bool) for k in INTERPRETATION_KEYS
    }
    for extra in interp:
        if extra not in INTERPRETATION_KEYS:
            raise DataPackError(
                "pack.toml",
                f"unknown interpretation '{extra}' (expected: {', '.join(INTERPRETATION_KEYS)})",
            )

    cards = _read_cards(rd, deck_size, num_ratings)
    turrets = _read_turrets(rd)
    track = _read_track(rd)
    weapons = _read_weapons(rd)
    battery_switches, exchange = _read_batteries(rd)
    switches.update(battery_switches)
    items = _read_items(rd, num_ratings)

    digest = hashlib.sha256(json.dumps(rd.values, sort_keys=True, default=str).encode()).hexdigest()
    return AthenaData(
        path=str(root),
        name=name,
        hash=digest[:16],
        provenance=dict(rd.tags),
        num_ratings=num_ratings,
        **cards,
        **turrets,
        **track,
        **weapons,
        **items,
        switches=switches,
        exchange=exchange,
    )


def _read_cards(rd: ProvenanceReader, deck_size: int, num_ratings: int) -> dict[str, Any]:
    name = "outcome_cards.csv"
    rows = rd.csv(name, ("card", "rating", "result", "damage", "provenance", "source"))
    cells: dict[int, dict[int, tuple[int, int]]] = {}
    for line, row in rows:
        cid = rd.cell_int(name, line, row, "card", 1)
        rating = rd.cell_int(name, line, row, "rating", 1, num_ratings)
        text = row["result"].strip().lower()
        if text not in RESULTS:
            raise DataPackError(
                name, f"expected hit, jam or miss, got {text!r}", row=line, field="result"
            )
        damage = rd.cell_int(name, line, row, "damage", 0, 99)
        if text == "hit" and damage < 1:
            raise DataPackError(
                name, "a hit needs a damage value of at least 1", row=line, field="damage"
            )
        if text != "hit" and damage != 0:
            raise DataPackError(
                name, f"a {text} carries no damage value (write 0)", row=line, field="damage"
            )
        by_rating = cells.setdefault(cid, {})
        if rating in by_rating:
            raise DataPackError(
                name, f"card {cid} has two rows for rating {rating}", row=line, field="rating"
            )
        by_rating[rating] = (RESULTS[text], damage)
        rd.row_tag(name, line, row, 2)
        rd.values[f"{name}:{cid}:{rating}"] = by_rating[rating]
    if len(cells) != deck_size:
        raise DataPackError(
            name, f"deck has {len(cells)} cards but pack.toml declares deck.size = {deck_size}"
        )
    ids = sorted(cells)
    result = np.zeros((len(ids), num_ratings), dtype=np.int64)
    damage = np.zeros_like(result)
    for i, cid in enumerate(ids):
        for r in range(1, num_ratings + 1):
            if r not in cells[cid]:
                raise DataPackError(name, f"card {cid} has no row for rating {r}")
            result[i, r - 1], damage[i, r - 1] = cells[cid][r]
    return dict(card_ids=np.array(ids, dtype=np.int64), card_result=result, card_damage=damage)


def _array(rd: ProvenanceReader, file: str, table: dict, key: str) -> list[dict]:
    items = table.get(key)
    if not isinstance(items, list) or not items or not all(isinstance(x, dict) for x in items):
        raise DataPackError(file, f"needs at least one [[{key}]] table")
    return items


def _read_turrets(rd: ProvenanceReader) -> dict[str, Any]:
    name = "turrets.toml"
    numbers, defense, reward, amount = [], [], [], []
    for i, t in enumerate(_array(rd, name, rd.toml(name), "turret"), start=1):
        num = t.get("number")
        if not isinstance(num, int) or isinstance(num, bool) or num < 1:
            raise DataPackError(
                name, f"'number' must be a whole number >= 1, got {num!r}", row=i, field="number"
            )
        if num in numbers:
            raise DataPackError(name, f"duplicate turret number {num}", row=i, field="number")
        numbers.append(num)
        defense.append(rd.value(name, t, f"turret {num}", "defense", int, 1, 99, row=i))
        reward.append(rd.value(name, t, f"turret {num}", "reward", str, choices=RESOURCES, row=i))
        amount.append(rd.value(name, t, f"turret {num}", "reward_amount", int, 0, 9, row=i))
    return dict(
        turret_number=np.array(numbers, dtype=np.int64),
        turret_defense=np.array(defense, dtype=np.int64),
        turret_reward=tuple(reward),
        turret_reward_amount=np.array(amount, dtype=np.int64),
    )


def _read_track(rd: ProvenanceReader) -> dict[str, Any]:
    name = "detection_track.toml"
    damage, aurora, fame = [], [], []
    for i, row in enumerate(_array(rd, name, rd.toml(name), "level"), start=1):
        level = row.get("level")
        if level != i - 1 or isinstance(level, bool):
            raise DataPackError(
                name,
                f"levels must count up from 0 (bottom row) in order; expected {i - 1}, "
                f"got {level!r}",
                row=i,
                field="level",
            )
        damage.append(rd.value(name, row, f"level {level}", "turret_damage", int, 0, 99, row=i))
        aurora.append(rd.value(name, row, f"level {level}", "aurora_advance", int, 0, 99, row=i))
        fame.append(rd.value(name, row, f"level {level}", "end_fame", int, 0, 99, row=i))
    if damage[0] != 0:
        raise DataPackError(
            name,
            "the bottom row (level 0) deals no turret damage (rules: Phase 4, Ambush)",
            row=1,
            field="turret_damage",
        )
    return dict(
        track_damage=np.array(damage, dtype=np.int64),
        track_aurora=np.array(aurora, dtype=np.int64),
        track_fame=np.array(fame, dtype=np.int64),
    )


def _read_weapons(rd: ProvenanceReader) -> dict[str, Any]:
    name = "weapons.toml"
    table = rd.toml(name)
    if not table:
        raise DataPackError(name, "names no weapon")
    names, cost, phase = [], [], []
    for kind, entry in table.items():
        if (
            not isinstance(entry, dict)
            or kind != kind.lower()
            or not kind.replace("_", "").isalnum()
        ):
            raise DataPackError(name, f"[{kind}]: weapon names are lower_snake_case sections")
        names.append(kind)
        cost.append(COSTS[rd.value(name, entry, kind, "cost", str, choices=tuple(COSTS))])
        phase.append(PHASES[rd.value(name, entry, kind, "phase", str, choices=tuple(PHASES))])
    return dict(
        weapon_names=tuple(names),
        weapon_cost=np.array(cost, dtype=np.int64),
        weapon_phase=np.array(phase, dtype=np.int64),
    )


def _read_batteries(rd: ProvenanceReader) -> tuple[dict[str, bool], dict[str, bool]]:
    name = "batteries.toml"
    table = rd.toml(name)
    charged = rd.section(name, table, "charged_cost")
    half = rd.section(name, table, "half_cost")
    exchange_t = rd.section(name, table, "exchange")
    if rd.value(name, charged, "charged_cost", "discard_charged", bool) is not True:
        raise DataPackError(
            name,
            "'charged_cost.discard_charged' must be true: the engine pays a Charged cost "
            "by discarding a Charged token (rules: Nuclear Batteries)",
        )
    switches = {
        "two_half_for_charged": rd.value(
            name, charged, "charged_cost", "two_half_for_charged", bool
        ),
        "flip_charged_for_half": rd.value(name, half, "half_cost", "flip_charged", bool),
        "prefer_flip": rd.value(name, half, "half_cost", "prefer_flip", bool),
    }
    if rd.value(name, half, "half_cost", "discard_half", bool) is not True:
        raise DataPackError(
            name, "'half_cost.discard_half' must be true (rules: Nuclear Batteries)"
        )
    exchange = {
        k: rd.value(name, exchange_t, "exchange", k, bool)
        for k in ("trade_half_for_charged", "two_half_into_charged")
    }
    return switches, exchange


def _read_items(rd: ProvenanceReader, num_ratings: int) -> dict[str, Any]:
    name = "items.toml"
    table = rd.toml(name)
    grenade = rd.section(name, table, "grenade")
    cyborg = rd.section(name, table, "cyborg")
    return dict(
        grenade_damage=rd.value(name, grenade, "grenade", "damage", int, 0, 99),
        grenade_self_damage=rd.value(name, grenade, "grenade", "self_damage_on_jam", int, 0, 99),
        grenade_rating=rd.value(name, grenade, "grenade", "rating", int, 1, num_ratings),
        cyborg_ignores_jam=rd.value(name, cyborg, "cyborg", "ignores_jam", bool),
    )


def provenance_shares(data: AthenaData) -> dict[str, float]:
    total = sum(data.provenance.values()) or 1
    return {tag: data.provenance.get(tag, 0) / total for tag in PROVENANCE_TAGS}

"""Load and validate an AuZtralia data pack into typed numpy arrays.

A pack is a folder of TOML and CSV files (see simkit/data/auztralia/README.md).
Every value carries a provenance tag; loading checks structure, types, ranges and
the hard rules ("never" statements), and returns an immutable :class:`AuzData`
whose ``hash`` changes exactly when a value that can change a result changes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.packfiles import PROVENANCE_TAGS, ProvenanceReader
from simkit.errors import DataPackError
from simkit.names import NUM_OLD_ONES, NUM_STACKS, OLD_ONES, PERSONALITIES, STACKS, UNITS

DEFAULT_PACK = Path(__file__).resolve().parent.parent / "data" / "auztralia"
PACK_FILES = (
    "pack.toml",
    "units.toml",
    "old_ones.toml",
    "revenge.toml",
    "personalities.toml",
    "old_one_cards.csv",
    "old_one_card_rows.csv",
    "old_one_tiles.csv",
)
_UNIT_FIELDS = ("cost", "damage_capacity", "range", "box_count", "oop_vp", "oop_vp_alt")
_OLD_ONE_FIELDS = ("damage_capacity", "vp", "moves", "heals_after_combat", "causes_sanity_loss")
MAX_DECK = 1000  # cards in the Old One deck at most
MAX_VALUE = 10_000  # any count, cost, capacity or VP in the pack at most (a typo guard)
_PORT_FIELDS = (
    "strength_normal",
    "strength_weak",
    "flip_threshold",
    "sanity_strength_4",
    "sanity_strength_2",
    "oop_vp",
)


@dataclass(frozen=True, eq=False)
class AuzData:
    """One validated data pack as struct-of-arrays. Index by simkit.names ids."""

    path: str
    name: str
    hash: str
    provenance: dict[str, int]
    sanity_per_combat: int
    deck_size: int
    # units, indexed by simkit.names.STACKS (the port row holds port values)
    unit_cost: np.ndarray  # float64, gold
    unit_capacity: np.ndarray  # int64, damage capacity
    unit_range: np.ndarray  # int64, off-rail range
    unit_box_count: np.ndarray  # int64
    unit_oop_vp: np.ndarray  # int64, Revenge rulebook
    unit_oop_vp_alt: np.ndarray  # int64, alternative translation
    # Old One types, indexed by simkit.names.OLD_ONES
    old_one_capacity: np.ndarray
    old_one_vp: np.ndarray
    old_one_moves: np.ndarray  # bool
    old_one_heals: np.ndarray  # bool
    old_one_sanity: np.ndarray  # bool: can cause sanity loss
    # cards, row i = i-th card of old_one_cards.csv
    card_ids: np.ndarray  # int64, the numbers users type for --seen
    card_hits: np.ndarray  # uint8 [card, old_one]: bit u = unit u hits
    card_purple: np.ndarray  # int64 [card, old_one]
    card_sanity: np.ndarray  # int64 [card, old_one]
    card_airship: np.ndarray  # int64 [card, old_one]
    card_moves: np.ndarray  # bool  [card, old_one]
    card_compass: np.ndarray  # int64 1..6
    card_rotation: np.ndarray  # int64 +1 clockwise, -1 anticlockwise
    # Old One tiles (setup / Revenge draws); tile_type -1 = empty tile
    tile_level: np.ndarray
    tile_type: np.ndarray
    tile_count: np.ndarray
    tile_capacity: np.ndarray
    tile_vp: np.ndarray
    # Revenge ports
    port: dict[str, int]
    personalities: dict[str, dict[str, Any]] = field(default_factory=dict)
    # overrides the full game reads (simkit.runner.overrides): reading choices
    # ((name, option), ...) and Mythos card values ((card, field, value), ...)
    readings: tuple = ()
    mythos_set: tuple = ()

    def card_index(self, card_id: int) -> int:
        hits = np.flatnonzero(self.card_ids == card_id)
        if hits.size == 0:
            raise KeyError(card_id)
        return int(hits[0])


def load_pack(path: str | Path | None = None) -> AuzData:
    """Read, validate and hash the pack in ``path`` (default: the shipped pack)."""
    root = Path(path) if path is not None else DEFAULT_PACK
    if not root.is_dir():
        raise DataPackError(str(root), "not a folder")
    rd = ProvenanceReader(root)

    pack = rd.toml("pack.toml")
    meta = rd.section("pack.toml", pack, "pack")
    if meta.get("game") != "auztralia":
        raise DataPackError("pack.toml", '[pack] game must be "auztralia"')
    name = str(meta.get("name", root.name))
    deck_size = rd.value(
        "pack.toml", rd.section("pack.toml", pack, "deck"), "deck", "size", int, 1, MAX_DECK
    )
    sanity = rd.value(
        "pack.toml",
        rd.section("pack.toml", pack, "combat"),
        "combat",
        "sanity_per_combat",
        int,
        0,
        99,
    )

    units = rd.toml("units.toml")
    u = {
        f: np.zeros(NUM_STACKS, dtype=np.float64 if f == "cost" else np.int64) for f in _UNIT_FIELDS
    }
    for i, unit in enumerate(STACKS[:-1]):  # every stack but the port
        if unit not in units:
            raise DataPackError("units.toml", f"missing section [{unit}]")
        for f in _UNIT_FIELDS:
            kind = (int, float) if f == "cost" else int
            lo = 1 if f in ("damage_capacity",) else 0
            u[f][i] = rd.value("units.toml", units[unit], unit, f, kind, lo, MAX_VALUE)
    for extra in units:
        if extra not in STACKS:
            raise DataPackError(
                "units.toml", f"unknown unit section [{extra}] (expected: {', '.join(STACKS[:-1])})"
            )

    revenge = rd.toml("revenge.toml")
    port_table = rd.section("revenge.toml", revenge, "port")
    port = {
        f: rd.value("revenge.toml", port_table, "port", f, int, 0, MAX_VALUE) for f in _PORT_FIELDS
    }
    if port["strength_weak"] > port["strength_normal"]:
        raise DataPackError(
            "revenge.toml", "'port.strength_weak' must not exceed 'port.strength_normal'"
        )
    u["damage_capacity"][-1] = port["strength_normal"]
    u["cost"][-1] = float(port["oop_vp"])  # losing a port costs what it gives the OOP
    u["oop_vp"][-1] = u["oop_vp_alt"][-1] = port["oop_vp"]

    old = rd.toml("old_ones.toml")
    o = {
        f: np.zeros(
            NUM_OLD_ONES,
            dtype=bool if f in ("moves", "heals_after_combat", "causes_sanity_loss") else np.int64,
        )
        for f in _OLD_ONE_FIELDS
    }
    for i, kind in enumerate(OLD_ONES):
        if kind not in old:
            raise DataPackError("old_ones.toml", f"missing section [{kind}]")
        for f in _OLD_ONE_FIELDS:
            typ = bool if o[f].dtype == bool else int
            o[f][i] = rd.value(
                "old_ones.toml",
                old[kind],
                kind,
                f,
                typ,
                1 if f == "damage_capacity" else None,
                None if typ is bool else MAX_VALUE,
            )
    for extra in old:
        if extra not in OLD_ONES:
            raise DataPackError(
                "old_ones.toml",
                f"unknown Old One section [{extra}] (expected: {', '.join(OLD_ONES)})",
            )

    cards = _read_cards(rd, deck_size, o["causes_sanity_loss"])
    tiles = _read_tiles(rd)
    personalities = _read_personalities(rd)

    digest = hashlib.sha256(json.dumps(rd.values, sort_keys=True, default=str).encode()).hexdigest()
    return AuzData(
        path=str(root),
        name=name,
        hash=digest[:16],
        provenance=dict(rd.tags),
        sanity_per_combat=sanity,
        deck_size=deck_size,
        unit_cost=u["cost"],
        unit_capacity=u["damage_capacity"],
        unit_range=u["range"],
        unit_box_count=u["box_count"],
        unit_oop_vp=u["oop_vp"],
        unit_oop_vp_alt=u["oop_vp_alt"],
        old_one_capacity=o["damage_capacity"],
        old_one_vp=o["vp"],
        old_one_moves=o["moves"],
        old_one_heals=o["heals_after_combat"],
        old_one_sanity=o["causes_sanity_loss"],
        **cards,
        **tiles,
        port=port,
        personalities=personalities,
    )


def _read_cards(
    rd: ProvenanceReader, deck_size: int, causes_sanity: np.ndarray
) -> dict[str, np.ndarray]:
    meta_name, rows_name = "old_one_cards.csv", "old_one_card_rows.csv"
    meta = rd.csv(meta_name, ("card", "compass", "rotation", "provenance", "source"))
    ids: list[int] = []
    compass, rotation = [], []
    for line, row in meta:
        cid = rd.cell_int(meta_name, line, row, "card", 1)
        if cid in ids:
            raise DataPackError(meta_name, f"duplicate card number {cid}", row=line, field="card")
        ids.append(cid)
        compass.append(rd.cell_int(meta_name, line, row, "compass", 1, 6))
        rot = row["rotation"].strip().lower()
        if rot not in ("cw", "ccw"):
            raise DataPackError(
                meta_name, f"expected cw or ccw, got {rot!r}", row=line, field="rotation"
            )
        rotation.append(1 if rot == "cw" else -1)
        rd.row_tag(meta_name, line, row, 2)
        rd.values[f"{meta_name}:{cid}"] = (compass[-1], rotation[-1])
    if len(ids) != deck_size:
        raise DataPackError(
            meta_name, f"deck has {len(ids)} cards but pack.toml declares deck.size = {deck_size}"
        )

    n = len(ids)
    index = {cid: i for i, cid in enumerate(ids)}
    hits = np.zeros((n, NUM_OLD_ONES), dtype=np.uint8)
    purple = np.zeros((n, NUM_OLD_ONES), dtype=np.int64)
    sanity = np.zeros_like(purple)
    airship = np.zeros_like(purple)
    moves = np.zeros((n, NUM_OLD_ONES), dtype=bool)
    seen = np.zeros((n, NUM_OLD_ONES), dtype=bool)
    cols = (
        "card",
        "old_one",
        "hits",
        "purple",
        "sanity",
        "airship",
        "moves",
        "provenance",
        "source",
    )
    for line, row in rd.csv(rows_name, cols):
        cid = rd.cell_int(rows_name, line, row, "card", 1)
        if cid not in index:
            raise DataPackError(
                rows_name, f"card {cid} is not in {meta_name}", row=line, field="card"
            )
        kind = row["old_one"].strip()
        if kind not in OLD_ONES:
            raise DataPackError(rows_name, f"unknown Old One {kind!r}", row=line, field="old_one")
        c, t = index[cid], OLD_ONES.index(kind)
        if seen[c, t]:
            raise DataPackError(
                rows_name, f"card {cid} has two rows for {kind}", row=line, field="old_one"
            )
        seen[c, t] = True
        mask = 0
        text = row["hits"].strip()
        for token in [] if text in ("", "none") else text.split("+"):
            if token.strip() not in UNITS:
                raise DataPackError(
                    rows_name,
                    f"unknown unit {token!r} (expected: {', '.join(UNITS)})",
                    row=line,
                    field="hits",
                )
            mask |= 1 << UNITS.index(token.strip())
        hits[c, t] = mask
        purple[c, t] = rd.cell_int(rows_name, line, row, "purple", 0, 9)
        sanity[c, t] = rd.cell_int(rows_name, line, row, "sanity", 0, 9)
        airship[c, t] = rd.cell_int(rows_name, line, row, "airship", 0, 9)
        moves[c, t] = bool(rd.cell_int(rows_name, line, row, "moves", 0, 1))
        # Hard rules: "never" statements of the base rulebook.
        if kind == "temple" and mask & (1 << UNITS.index("armoured_car")):
            raise DataPackError(
                rows_name, "Armoured Cars can never damage Temples", row=line, field="hits"
            )
        if sanity[c, t] and not causes_sanity[t]:
            raise DataPackError(
                rows_name,
                f"{kind} never causes Sanity loss (old_ones.toml)",
                row=line,
                field="sanity",
            )
        rd.row_tag(rows_name, line, row, 5)
        rd.values[f"{rows_name}:{cid}:{kind}"] = (
            mask,
            int(purple[c, t]),
            int(sanity[c, t]),
            int(airship[c, t]),
            bool(moves[c, t]),
        )
    missing = np.argwhere(~seen)
    if missing.size:
        c, t = missing[0]
        raise DataPackError(rows_name, f"card {ids[c]} has no row for {OLD_ONES[t]}")
    return dict(
        card_ids=np.array(ids, dtype=np.int64),
        card_hits=hits,
        card_purple=purple,
        card_sanity=sanity,
        card_airship=airship,
        card_moves=moves,
        card_compass=np.array(compass, dtype=np.int64),
        card_rotation=np.array(rotation, dtype=np.int64),
    )


def _read_tiles(rd: ProvenanceReader) -> dict[str, np.ndarray]:
    name = "old_one_tiles.csv"
    cols: dict[str, list[int]] = {k: [] for k in ("level", "type", "count", "capacity", "vp")}
    for line, row in rd.csv(
        name, ("level", "old_one", "count", "damage_capacity", "vp", "provenance", "source")
    ):
        kind = row["old_one"].strip()
        if kind != "empty" and kind not in OLD_ONES:
            raise DataPackError(
                name, f"unknown Old One {kind!r} (or 'empty')", row=line, field="old_one"
            )
        cols["level"].append(rd.cell_int(name, line, row, "level", 1, 3))
        cols["type"].append(-1 if kind == "empty" else OLD_ONES.index(kind))
        cols["count"].append(rd.cell_int(name, line, row, "count", 0))
        cols["capacity"].append(
            rd.cell_int(name, line, row, "damage_capacity", 0 if kind == "empty" else 1)
        )
        cols["vp"].append(rd.cell_int(name, line, row, "vp", 0))
        rd.row_tag(name, line, row, 4)
        rd.values[f"{name}:{line}"] = tuple(v[-1] for v in cols.values())
    return {f"tile_{k}": np.array(v, dtype=np.int64) for k, v in cols.items()}


def _read_personalities(rd: ProvenanceReader) -> dict[str, dict[str, Any]]:
    table = rd.toml("personalities.toml")
    out = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise DataPackError(
                "personalities.toml",
                f"[{name}] must be a section (a table), got {type(entry).__name__}",
            )
        if name not in PERSONALITIES:
            raise DataPackError(
                "personalities.toml",
                f"unknown personality [{name}] (the engine models: {', '.join(PERSONALITIES)})",
            )
        spec = {"effect": rd.value("personalities.toml", entry, name, "effect", str)}
        if "unit" in entry:
            unit = rd.value("personalities.toml", entry, name, "unit", str)
            if unit not in UNITS:
                raise DataPackError("personalities.toml", f"'{name}.unit' is not a unit: {unit!r}")
            spec["unit"] = UNITS.index(unit)
        if "amount" in entry:
            spec["amount"] = rd.value("personalities.toml", entry, name, "amount", int, 1)
        out[name] = spec
    return out


def provenance_shares(data: AuzData) -> dict[str, float]:
    total = sum(data.provenance.values())
    return {tag: data.provenance.get(tag, 0) / total for tag in PROVENANCE_TAGS}

"""Load and validate the full-game rule numbers: game.toml, revelations.csv, solo.toml.

These files sit beside the combat data pack (simkit/data/auztralia/) and are read here,
not by simkit.datapack. Every value carries a provenance tag; mistakes raise
DataPackError naming the file, row and field.
"""

from __future__ import annotations

import csv
import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.core.packfiles import read_text
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS
from simkit.errors import DataPackError
from simkit.kernels.low import game_layout as L
from simkit.names import UNITS

CARD_TAGS = (*PROVENANCE_TAGS, "unknown")  # "unknown": a printed card whose text is not public
GAME_FILE, REV_FILE, SOLO_FILE = "game.toml", "revelations.csv", "solo.toml"
_TP_KEYS = ("rail", "rail_hills", "mine", "recruit", "military", "trade", None, None, "retrieve")
_EFFECTS = {name: i for i, name in enumerate(L.EFFECT_NAMES)}


@dataclass(frozen=True, eq=False)
class GameRules:
    """The numbers of one rules pack as arrays the kernels take."""

    path: str
    hash: str
    provenance: dict[str, int]
    r: np.ndarray  # int64 [R_SIZE] (simkit.kernels.low.game_layout R_*)
    illuminated: np.ndarray  # bool [MAX_TIME]
    rev_card: np.ndarray  # int64 [n] printed card numbers
    rev_level: np.ndarray  # int64 [n] 1..3
    rev_kind: np.ndarray  # int64 [n] REV_*
    rev_benefit: np.ndarray  # int64 [n] BENEFIT_* given to every human player, -1 none
    rev_benefit_amount: np.ndarray  # int64 [n]
    pers_names: tuple[str, ...]  # Personality deck, index = card id
    pers_effect: np.ndarray  # int64 [n] EFF_*
    pers_unit: np.ndarray  # int64 [n] unit id or -1
    pers_amount: np.ndarray  # int64 [n]
    pers_vp: np.ndarray  # int64 [n]
    pers_one_use: np.ndarray  # bool [n]
    solo_levels: dict[str, tuple[int, int, int]]  # difficulty -> (coal, iron, gold)
    solo_default: str
    solo_start: int
    revenge_start: dict[str, tuple[int, int, int]]  # ruleset (RULESET_NAMES) -> (coal, iron, gold)

    def start_resources(self, mode: str, difficulty: str | None = None) -> tuple[int, int, int]:
        if mode == "solo":
            return self.solo_levels[difficulty or self.solo_default]
        return (
            int(self.r[L.R_START_COAL]),
            int(self.r[L.R_START_IRON]),
            int(self.r[L.R_START_GOLD]),
        )


class _Toml:
    def __init__(self, root: Path, name: str, tags: dict[str, int], values: dict[str, Any]):
        self.name, self.tags, self.values = name, tags, values
        text = read_text(root, name)  # UTF-8 (a BOM dropped), one line naming the file otherwise
        try:
            self.doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise DataPackError(name, f"not valid TOML: {exc}") from None

    def section(self, *keys: str) -> dict:
        node = self.doc
        for k in keys:
            node = node.get(k) if isinstance(node, dict) else None
            if not isinstance(node, dict):
                raise DataPackError(self.name, f"missing section [{'.'.join(keys)}]")
        return node

    def value(
        self,
        table: dict,
        where: str,
        key: str,
        kind: type,
        lo: int | None = None,
        hi: int | None = None,
        default: Any = None,
    ) -> Any:
        full = f"{where}.{key}"
        if key not in table:
            if default is not None:
                return default
            raise DataPackError(self.name, f"missing value '{full}'", field=full)
        entry = table[key]
        if not isinstance(entry, dict) or "value" not in entry:
            raise DataPackError(
                self.name,
                f"'{full}' must be {{ value = ..., provenance = ..., source = ... }}",
                field=full,
            )
        tag = entry.get("provenance")
        if tag not in CARD_TAGS:
            raise DataPackError(
                self.name,
                f"unknown provenance tag {tag!r} (expected one of: {', '.join(CARD_TAGS)})",
                field=f"{full}.provenance",
            )
        val = entry["value"]
        ok = isinstance(val, kind) and not (kind is int and isinstance(val, bool))
        if not ok:
            raise DataPackError(
                self.name, f"'{full}' must be {kind.__name__}, got {val!r}", field=full
            )
        if kind is int and ((lo is not None and val < lo) or (hi is not None and val > hi)):
            rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise DataPackError(self.name, f"'{full}' must be {rng}, got {val}", field=full)
        n = len(val) if isinstance(val, list) else 1
        self.tags[tag] = self.tags.get(tag, 0) + n
        self.values[f"{self.name}:{full}"] = val
        return val


def load_rules(path: str | Path | None = None) -> GameRules:
    """Read and validate game.toml, revelations.csv and solo.toml from ``path``
    (default: the shipped pack folder)."""
    root = Path(path) if path is not None else DEFAULT_PACK
    if not root.is_dir():
        raise DataPackError(str(root), "not a folder")
    tags: dict[str, int] = {}
    values: dict[str, Any] = {}
    t = _Toml(root, GAME_FILE, tags, values)
    r = np.zeros(L.R_SIZE, dtype=np.int64)

    time = t.section("time")
    r[L.R_OO_START] = t.value(time, "time", "old_one_start", int, 1, L.MAX_TIME - 2)
    r[L.R_END] = t.value(time, "time", "end", int, 2, L.MAX_TIME - 1)
    if r[L.R_END] <= r[L.R_OO_START]:
        raise DataPackError(
            GAME_FILE, "'time.end' must be after 'time.old_one_start'", field="time.end"
        )
    for n in range(1, L.MAX_PLAYERS + 1):
        r[L.R_START_SPACE + n - 1] = t.value(
            time, "time", f"start_{n}", int, 0, int(r[L.R_OO_START]) - 1
        )
    illum = t.value(time, "time", "illuminated", list)
    illuminated = np.zeros(L.MAX_TIME, dtype=bool)
    for s in illum:
        if not isinstance(s, int) or isinstance(s, bool) or not r[L.R_OO_START] < s <= r[L.R_END]:
            raise DataPackError(
                GAME_FILE,
                f"'time.illuminated' spaces must be whole numbers in "
                f"{r[L.R_OO_START] + 1}..{r[L.R_END]}, got {s!r}",
                field="time.illuminated",
            )
        illuminated[s] = True

    act = t.section("actions")
    for box, key in enumerate(_TP_KEYS):
        if key is not None:
            r[L.R_TP + box] = t.value(act, "actions", key, int, 1, 9)
    r[L.R_RETRIEVE_EMPTY] = t.value(act, "actions", "retrieve_empty_hq", int, 1, 9)
    r[L.R_RECRUIT_DRAW_GOLD] = t.value(act, "actions", "recruit_draw_gold", int, 0, 99)
    r[L.R_REFRESH_GOLD] = t.value(act, "actions", "display_refresh_gold", int, 0, 99)
    r[L.R_SURCHARGE] = t.value(act, "actions", "surcharge_per_cube", int, 0, 99)
    r[L.R_TRADE_SUBS] = t.value(act, "actions", "trade_subactions", int, 1, 2)
    r[L.R_TRACKS_PER_BUILD] = t.value(act, "actions", "tracks_per_build", int, 1, 8)
    r[L.R_MAX_INFANTRY] = t.value(act, "actions", "max_infantry_per_buy", int, 1, 9)
    r[L.R_FARM_GOLD] = t.value(act, "actions", "farm_gold", int, 0, 99)
    r[L.R_PHOS_GOLD] = t.value(act, "actions", "phosphate_gold", int, 0, 99)

    pieces = t.section("pieces")
    r[L.R_CUBES] = t.value(pieces, "pieces", "cubes", int, 1, 999)
    r[L.R_TRACKS] = t.value(pieces, "pieces", "tracks", int, 0, 999)
    r[L.R_FARMS_PER_KIND] = t.value(pieces, "pieces", "farms_per_kind", int, 0, 999)
    r[L.R_DISPLAY] = t.value(pieces, "pieces", "display", int, 1, 16)

    start = t.section("start")
    r[L.R_START_COAL] = t.value(start, "start", "coal", int, 0, 999)
    r[L.R_START_IRON] = t.value(start, "start", "iron", int, 0, 999)
    r[L.R_START_GOLD] = t.value(start, "start", "gold", int, 0, 999)

    oo = t.section("old_ones")
    r[L.R_MOVE_CARDS] = t.value(oo, "old_ones", "movement_cards", int, 0, 8)
    r[L.R_REVEAL_CARDS] = t.value(oo, "old_ones", "reveal_draw_cards", int, 0, 8)

    sc = t.section("scoring")
    r[L.R_FARM_VP] = t.value(sc, "scoring", "farm_vp", int, 0, 99)
    r[L.R_PHOS_VP] = t.value(sc, "scoring", "phosphate_vp", int, 0, 99)
    r[L.R_BLIGHT_VP] = t.value(sc, "scoring", "blighted_farm_vp", int, 0, 99)
    r[L.R_UNREVEALED_MULT] = t.value(sc, "scoring", "unrevealed_multiplier", int, 0, 9)
    r[L.R_REV_PER_LEVEL] = t.value(t.section("revelations"), "revelations", "per_level", int, 0, 99)

    rev = t.section("revenge")
    for lv in range(3):
        r[L.R_OOP_TILES + lv] = t.value(rev, "revenge", f"oop_tiles_level_{lv + 1}", int, 0, 99)
    r[L.R_REV_BLIGHT_VP] = t.value(rev, "revenge", "blighted_farm_vp", int, 0, 99)
    revenge_start = {
        name: tuple(
            t.value(rev, "revenge", f"{prefix}start_{k}", int, 0, 999)
            for k in ("coal", "iron", "gold")
        )
        for name, prefix in zip(L.RULESET_NAMES, ("", "alt_"), strict=True)
    }

    pers = _personalities(t)
    revs = _revelations(root, tags, values, int(r[L.R_REV_PER_LEVEL]))
    solo = _solo(root, tags, values)
    digest = hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[
        :16
    ]
    return GameRules(
        path=str(root),
        hash=digest,
        provenance=tags,
        r=r,
        illuminated=illuminated,
        revenge_start=revenge_start,
        **revs,
        **pers,
        **solo,
    )


def _personalities(t: _Toml) -> dict[str, Any]:
    table = t.doc.get("personalities", {})
    if not isinstance(table, dict):
        raise DataPackError(
            GAME_FILE, "[personalities] must be a table of [personalities.NAME] sections"
        )
    names, eff, unit, amount, vp, one = [], [], [], [], [], []
    for name, entry in table.items():
        where = f"personalities.{name}"
        if not isinstance(entry, dict):
            raise DataPackError(GAME_FILE, f"[{where}] must be a section", field=where)
        e = t.value(entry, where, "effect", str)
        if e not in _EFFECTS:
            raise DataPackError(
                GAME_FILE,
                f"unknown effect {e!r} (expected one of: {', '.join(L.EFFECT_NAMES)})",
                field=f"{where}.effect",
            )
        unknown = (
            isinstance(entry.get("effect"), dict) and entry["effect"].get("provenance") == "unknown"
        )
        if (e == "none") != unknown:
            raise DataPackError(
                GAME_FILE,
                f"'{where}.effect': a card of unknown text has effect \"none\" with "
                'provenance "unknown", and only such a card',
                field=f"{where}.effect",
            )
        u = -1
        if "unit" in entry:
            uname = t.value(entry, where, "unit", str)
            if uname not in UNITS:
                raise DataPackError(
                    GAME_FILE,
                    f"'{where}.unit' is not a unit: {uname!r} "
                    f"(expected one of: {', '.join(UNITS)})",
                    field=f"{where}.unit",
                )
            u = UNITS.index(uname)
        if e == "unit_capacity" and u < 0:
            raise DataPackError(
                GAME_FILE, f"'{where}' (unit_capacity) needs a unit", field=f"{where}.unit"
            )
        names.append(name)
        eff.append(_EFFECTS[e])
        unit.append(u)
        amount.append(t.value(entry, where, "amount", int, 0, 99, default=1))
        vp.append(t.value(entry, where, "vp", int, 0, 99, default=0))
        one.append(bool(t.value(entry, where, "one_use", bool, default=False)))
    if len(names) > L.MAX_PERSONALITIES:
        raise DataPackError(
            GAME_FILE, f"at most {L.MAX_PERSONALITIES} personalities, got {len(names)}"
        )
    size = t.value(t.section("pieces"), "pieces", "personality_deck", int, 1, 999, default=0)
    if size and len(names) != size:
        raise DataPackError(
            GAME_FILE,
            f"{len(names)} [personalities.*] sections, but pieces.personality_deck says the "
            f'printed deck has {size} (add a section with effect "none", provenance '
            '"unknown" for each card whose text you do not have)',
            field="pieces.personality_deck",
        )
    return dict(
        pers_names=tuple(names),
        pers_effect=np.array(eff, dtype=np.int64),
        pers_unit=np.array(unit, dtype=np.int64),
        pers_amount=np.array(amount, dtype=np.int64),
        pers_vp=np.array(vp, dtype=np.int64),
        pers_one_use=np.array(one, dtype=bool),
    )


def _revelations(
    root: Path, tags: dict[str, int], values: dict[str, Any], per_level: int
) -> dict[str, Any]:
    lines = read_text(root, REV_FILE).splitlines()
    body = [
        (i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if not body:
        raise DataPackError(REV_FILE, "empty file (no header)")
    reader = csv.reader([ln for _, ln in body])
    header = [c.strip() for c in next(reader)]
    cols = ("card", "level", "kind", "benefit", "provenance", "source")
    for c in cols:
        if c not in header:
            raise DataPackError(REV_FILE, f"missing column '{c}' (header: {','.join(header)})")
    idx = {c: header.index(c) for c in header}
    cards, levels, kinds, ben_kinds, ben_amounts, seen = [], [], [], [], [], set()
    for (line, _), cells in zip(body[1:], reader, strict=True):
        if len(cells) != len(header):
            raise DataPackError(
                REV_FILE, f"expected {len(header)} fields, got {len(cells)}", row=line
            )

        def cell(c, cells=cells):
            return cells[idx[c]].strip()

        try:
            card, level = int(cell("card")), int(cell("level"))
        except ValueError:
            bad = "card" if not cell("card").lstrip("-").isdigit() else "level"
            raise DataPackError(
                REV_FILE, f"expected a whole number, got {cell(bad)!r}", row=line, field=bad
            ) from None
        if card < 1 or card in seen:
            raise DataPackError(
                REV_FILE, f"card number must be >= 1 and unique, got {card}", row=line, field="card"
            )
        if level not in (1, 2, 3):
            raise DataPackError(REV_FILE, f"expected 1..3, got {level}", row=line, field="level")
        kind = cell("kind")
        if kind not in L.REV_NAMES:
            raise DataPackError(
                REV_FILE,
                f"unknown kind {kind!r} (expected one of: {', '.join(L.REV_NAMES)})",
                row=line,
                field="kind",
            )
        ben_kind, ben_amount = _benefit(cell("benefit"), line)
        tag = cell("provenance")
        if tag not in PROVENANCE_TAGS:
            raise DataPackError(
                REV_FILE,
                f"unknown provenance tag {tag!r} (expected one of: {', '.join(PROVENANCE_TAGS)})",
                row=line,
                field="provenance",
            )
        tags[tag] = tags.get(tag, 0) + 3
        seen.add(card)
        cards.append(card)
        levels.append(level)
        kinds.append(L.REV_NAMES.index(kind))
        ben_kinds.append(ben_kind)
        ben_amounts.append(ben_amount)
        values[f"{REV_FILE}:{card}"] = (level, kind, cell("benefit"))
    for lv in (1, 2, 3):
        have = levels.count(lv)
        if have < per_level:
            raise DataPackError(
                REV_FILE,
                f"level {lv} has {have} cards but game.toml draws "
                f"revelations.per_level = {per_level}",
            )
    return dict(
        rev_card=np.array(cards, dtype=np.int64),
        rev_level=np.array(levels, dtype=np.int64),
        rev_kind=np.array(kinds, dtype=np.int64),
        rev_benefit=np.array(ben_kinds, dtype=np.int64),
        rev_benefit_amount=np.array(ben_amounts, dtype=np.int64),
    )


def _benefit(text: str, line: int) -> tuple[int, int]:
    """A Revelation card's player benefit: 'none' or KIND:AMOUNT (KIND one of
    L.BENEFIT_NAMES, AMOUNT a whole number 1..9), given to every human player."""
    if text == "none":
        return -1, 0
    kind, colon, amount = text.partition(":")
    if (
        not colon
        or kind not in L.BENEFIT_NAMES
        or not amount.isdigit()
        or not 1 <= int(amount) <= 9
    ):
        raise DataPackError(
            REV_FILE,
            f"expected 'none' or KIND:AMOUNT (KIND one of {', '.join(L.BENEFIT_NAMES)}, "
            f"AMOUNT 1..9), got {text!r}",
            row=line,
            field="benefit",
        )
    return L.BENEFIT_NAMES.index(kind), int(amount)


def _solo(root: Path, tags: dict[str, int], values: dict[str, Any]) -> dict[str, Any]:
    t = _Toml(root, SOLO_FILE, tags, values)
    solo = t.section("solo")
    start = t.value(solo, "solo", "start_space", int, 0, 21)
    levels = {}
    diff = t.section("difficulty")
    for name, entry in diff.items():
        where = f"difficulty.{name}"
        if not isinstance(entry, dict):
            raise DataPackError(SOLO_FILE, f"[{where}] must be a section", field=where)
        levels[name] = tuple(
            t.value(entry, where, k, int, 0, 999) for k in ("coal", "iron", "gold")
        )
    if not levels:
        raise DataPackError(SOLO_FILE, "no [difficulty.NAME] sections")
    default = t.value(solo, "solo", "default", str)
    if default not in levels:
        raise DataPackError(
            SOLO_FILE,
            f"'solo.default' names {default!r}, not a difficulty (have: {', '.join(levels)})",
            field="solo.default",
        )
    return dict(solo_levels=levels, solo_default=default, solo_start=start)

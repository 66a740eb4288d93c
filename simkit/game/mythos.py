"""Mythos cards as data: an effect type the engine implements plus its parameters.

Every effect type below is implemented (simkit.kernels.game_oop on the Old One player's
turn, simkit.kernels.game_mythos_combat during combats); Mythos Solo flips the same cards
(simkit.kernels.game_mythos_solo).

The loader validates ``mythos_cards.csv`` (errors name file, row and field) and
lowers it to integer arrays a numba engine can read: ``effect`` ids index
:data:`EFFECTS`, so adding a card of an existing type needs no code.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simkit.core.packfiles import read_text
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS
from simkit.errors import DataPackError
from simkit.kernels.low import game_layout as L

FILE = "mythos_cards.csv"
PUBLIC_TAGS = ("rules", "external")  # a value read off the printed game, not inferred or assumed
# content modes (GameSpec.content): "assumed" plays every card in the pack with its
# assumed text; "rules" plays the cards whose effect and amount are public text, the others
# as blanks (the deck keeps its printed 30 cards either way; a reading of a detail the
# text leaves open, such as where a tile goes, is a switch: simkit.game.readings)
CONTENT_MODES = ("assumed", "rules")
# what a card with provenance "unknown" does (GameSpec.unknown): "blank" has no effect (the
# public-content baseline); "prior" draws, per world, an effect kind of the public cards
# with an amount and TP cost in their assumed ranges (PRIOR below)
UNKNOWN_MODES = ("blank", "prior")
UNKNOWN_TAG = "unknown"  # a printed card whose text no source gives
CARD_TAGS = (*PROVENANCE_TAGS, UNKNOWN_TAG)
PRIOR_SEED = 0x5EED_3017  # the prior's own stream; a world's draw is (PRIOR_SEED, world)
# the prior's assumed ranges per public effect kind: amounts drawn uniformly in [lo, hi];
# turn cards cost 0-2 TP (the rules: cards cost 0, 1 or 2), combat cards 0 (as the shipped)
PRIOR_AMOUNTS = {
    "place_tiles_near_port": (1, 2),
    "extra_time_next_combat": (1, 2),
    "move_closest_old_one": (1, 2),
    "remove_rails": (1, 2),
    "level3_at_temple": (1, 1),
    "destroy_airship": (1, 1),
    "ghoul_joins_combat": (1, 1),
    "block_action_boxes": (1, 1),
    "level3_near_port": (1, 1),
    "take_trophy": (1, 1),
    "combat_damage_and_sanity": (1, 1),
}

# Effect types; the engine dispatches on the index (game_layout MYTH_* constants, defined
# once there with what each does). "amount"/"level" mean what each says.
EFFECTS = L.MYTHOS_EFFECTS
COLUMNS = (
    "card",
    "effect",
    "tp_cost",
    "combat",
    "amount",
    "level",
    "known_text",
    "effect_provenance",
    "amount_provenance",
    "tp_provenance",
    "source",
)


@dataclass(frozen=True, eq=False)
class MythosDeck:
    names: tuple[str, ...]
    effect: np.ndarray  # int64 index into EFFECTS
    tp_cost: np.ndarray  # int64 0..2 (the rules: cards cost 0, 1 or 2 TP)
    combat: np.ndarray  # bool: may be played during combat, off-turn
    amount: np.ndarray  # int64
    level: np.ndarray  # int64 (0: not used by the effect)
    provenance: dict[str, int]
    public: np.ndarray  # bool: effect and amount are the printed text (rules or external)
    unknown: np.ndarray  # bool: a printed card whose text is unknown (provenance unknown)
    effect_public: np.ndarray  # bool: the effect kind is public (its amount may be assumed)
    amount_assumed: np.ndarray  # bool: amount_provenance is "assumed" (a world may redraw it)
    tp_assumed: np.ndarray  # bool: tp_provenance is "assumed"
    declared_size: int = 0  # pack.toml [mythos] size (0: not declared)

    @property
    def size(self) -> int:
        return len(self.names)


def load_mythos(pack_dir: str | Path | None = None) -> MythosDeck:
    root = Path(pack_dir) if pack_dir is not None else DEFAULT_PACK
    path = root / FILE
    if not path.is_file():
        raise DataPackError(FILE, f"missing file (looked in {root})")
    tags: Counter[str] = Counter()
    names, effect, tp, combat, amount, level, public = [], [], [], [], [], [], []
    unknown: list[bool] = []
    effect_public: list[bool] = []
    amount_assumed: list[bool] = []
    tp_assumed: list[bool] = []
    import io

    with io.StringIO(read_text(root, FILE), newline="") as fh:  # UTF-8, a BOM dropped
        reader = csv.DictReader(fh)
        for col in COLUMNS:
            if col not in (reader.fieldnames or []):
                raise DataPackError(FILE, f"missing column '{col}'")
        for line, row in enumerate(reader, start=2):
            if None in row or any(row[c] is None for c in COLUMNS):
                raise DataPackError(FILE, "wrong number of fields", row=line)
            name = row["card"].strip()
            if not name or name in names:
                raise DataPackError(
                    FILE, f"empty or duplicate card name {name!r}", row=line, field="card"
                )
            kind = row["effect"].strip()
            if kind not in EFFECTS:
                raise DataPackError(
                    FILE,
                    f"unknown effect {kind!r} (expected one of: {', '.join(EFFECTS)})",
                    row=line,
                    field="effect",
                )
            values = {}
            for col, lo, hi in (
                ("tp_cost", 0, 2),
                ("combat", 0, 1),
                ("amount", 0, 9),
                ("level", 0, 3),
            ):
                text = row[col].strip()
                if not text.isdigit() or not lo <= int(text) <= hi:
                    raise DataPackError(
                        FILE,
                        f"expected a whole number {lo}..{hi}, got {text!r}",
                        row=line,
                        field=col,
                    )
                values[col] = int(text)
            for col in ("effect_provenance", "amount_provenance", "tp_provenance"):
                tag = row[col].strip()
                if tag not in CARD_TAGS:
                    raise DataPackError(
                        FILE,
                        f"unknown provenance tag {tag!r} (expected one of: {', '.join(CARD_TAGS)})",
                        row=line,
                        field=col,
                    )
                tags[tag] += 1
            is_unknown = row["effect_provenance"].strip() == UNKNOWN_TAG
            if is_unknown != (kind == "blank"):
                raise DataPackError(
                    FILE,
                    "a card of unknown text has effect 'blank' and effect_provenance "
                    "'unknown', and only such a card",
                    row=line,
                    field="effect",
                )
            unknown.append(is_unknown)
            effect_public.append(row["effect_provenance"].strip() in PUBLIC_TAGS)
            amount_assumed.append(row["amount_provenance"].strip() == "assumed")
            tp_assumed.append(row["tp_provenance"].strip() == "assumed")
            names.append(name)
            public.append(
                all(
                    row[c].strip() in PUBLIC_TAGS
                    for c in ("effect_provenance", "amount_provenance")
                )
            )
            effect.append(EFFECTS.index(kind))
            tp.append(values["tp_cost"])
            combat.append(bool(values["combat"]))
            amount.append(values["amount"])
            level.append(values["level"])
    if not names:
        raise DataPackError(FILE, "no Mythos cards")
    size = declared_size(root)
    if size and len(names) != size:
        raise DataPackError(
            FILE,
            f"{len(names)} cards, but pack.toml [mythos] size says the printed deck has {size} "
            "(add a row with provenance 'unknown' for each card whose text you do not have)",
        )
    return MythosDeck(
        tuple(names),
        np.array(effect, dtype=np.int64),
        np.array(tp, dtype=np.int64),
        np.array(combat, dtype=bool),
        np.array(amount, dtype=np.int64),
        np.array(level, dtype=np.int64),
        dict(tags),
        np.array(public, dtype=bool),
        np.array(unknown, dtype=bool),
        np.array(effect_public, dtype=bool),
        np.array(amount_assumed, dtype=bool),
        np.array(tp_assumed, dtype=bool),
        size,
    )


def declared_size(root: Path) -> int:
    """pack.toml [mythos] size of the pack in ``root`` (0 if it declares none)."""
    import tomllib

    path = root / "pack.toml"
    if not path.is_file():
        return 0
    try:
        entry = tomllib.loads(read_text(root, "pack.toml")).get("mythos", {}).get("size")
    except tomllib.TOMLDecodeError:
        return 0  # simkit.datapack.load_pack reports a broken pack.toml
    value = entry.get("value") if isinstance(entry, dict) else entry
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 200:
        raise DataPackError("pack.toml", f"[mythos] size must be 1..200, got {value!r}")
    return value


def with_values(deck: MythosDeck, changes) -> MythosDeck:
    """A copy of ``deck`` with (card, field, value) overrides (simkit.runner.overrides
    mythos.<card>.<field>); a card given an effect is no longer unknown."""
    if not changes:
        return deck
    arrays = {
        k: getattr(deck, k).copy()
        for k in ("effect", "tp_cost", "combat", "amount", "level", "unknown")
    }
    for card, name, value in changes:
        i = deck.names.index(card)
        if name == "effect":
            arrays["effect"][i] = EFFECTS.index(value)
            arrays["unknown"][i] = value == "blank"
        elif name == "combat":
            arrays["combat"][i] = bool(value)
        else:
            arrays[name][i] = value
    return replace(deck, **arrays)


def played_cards(deck: MythosDeck, content: str, unknown: str, world: int) -> dict[str, np.ndarray]:
    """What each printed card does in a game: the engine's myth_* arrays.

    content "rules": a card whose effect or amount is not public is played as a blank;
    "assumed": every card as the pack gives it. A card of unknown text is a blank, or with
    unknown "prior" a draw of the world ``world`` (the same draw for every game of it)."""
    effect = deck.effect.copy()
    tp, combat, amount, level = (
        deck.tp_cost.copy(),
        deck.combat.copy(),
        deck.amount.copy(),
        deck.level.copy(),
    )
    blank = EFFECTS.index("blank")
    if content == "rules":
        effect[~deck.public] = blank
    elif unknown == "prior":
        kinds = prior_kinds(deck)
        rng = np.random.default_rng([PRIOR_SEED, int(world)])
        for i in np.flatnonzero(deck.unknown):
            kind, lv, is_combat = kinds[int(rng.integers(len(kinds)))]
            lo, hi = PRIOR_AMOUNTS.get(kind, (1, 1))
            effect[i] = EFFECTS.index(kind)
            amount[i] = int(rng.integers(lo, hi + 1))
            level[i] = lv
            combat[i] = is_combat
            tp[i] = 0 if is_combat else int(rng.integers(0, 3))
    return {
        "myth_effect": effect.astype(np.int64),
        "myth_tp": tp.astype(np.int64),
        "myth_combat": combat.astype(np.int64),
        "myth_amount": amount.astype(np.int64),
        "myth_level": level.astype(np.int64),
    }


def prior_kinds(deck: MythosDeck) -> list[tuple[str, int, bool]]:
    """The effect kinds of the cards whose effect is public text (their amounts may be
    assumed), each once (kind, level, combat), in card order: what an unknown card may be
    under the prior."""
    seen: dict[str, tuple[str, int, bool]] = {}
    for i in np.flatnonzero(deck.effect_public & ~deck.unknown):
        kind = EFFECTS[int(deck.effect[i])]
        seen.setdefault(kind, (kind, int(deck.level[i]), bool(deck.combat[i])))
    return list(seen.values())

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.packfiles import read_text
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS
from simkit.errors import DataPackError
from simkit.kernels.low import game_layout as L

FILE = "mythos_cards.csv"
PUBLIC_TAGS = ("rules", "external")  # a value read off the printed game, not inferred or assumed
# content modes (GameSpec.content): "assumed" plays every card in the pack; "rules" only the
# cards whose effect and amount are public text (an assumed reading of a detail the text
# leaves open, such as where a tile goes, stays)
CONTENT_MODES = ("assumed", "rules")

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
                if tag not in PROVENANCE_TAGS:
                    raise DataPackError(
                        FILE,
                        f"unknown provenance tag {tag!r} (expected one of: "
                        f"{', '.join(PROVENANCE_TAGS)})",
                        row=line,
                        field=col,
                    )
                tags[tag] += 1
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
    return MythosDeck(
        tuple(names),
        np.array(effect, dtype=np.int64),
        np.array(tp, dtype=np.int64),
        np.array(combat, dtype=bool),
        np.array(amount, dtype=np.int64),
        np.array(level, dtype=np.int64),
        dict(tags),
        np.array(public, dtype=bool),
    )

"""Old One card faces as a player reads them, and ``--seen`` by face as well as by number.

A card's face for one Old One type is its row: the units that score a hit, then its purple
cubes, sanity loss and damage to Airships, e.g. ``I+AC+T/a1`` (Infantry, Armoured Cars and
Armoured Trains hit; one damage to an Airship) or ``-/s1`` (no hit, one sanity lost).
``simkit data deck`` prints every card's number and faces. In ``--seen`` a face is written
``OLDONE:FACE`` (``zombie:I+AC+T/a1``); it names the lowest-numbered card not yet seen whose
row for that Old One matches. Cards with the same row do exactly the same against that Old
One, so for a fight against that type alone any of them gives the same odds; against several
types, name the card by number.
"""

from __future__ import annotations

import numpy as np

from simkit.errors import UserError
from simkit.names import OLD_ONES, UNITS, old_one_id

UNIT_CODES = (
    "I",
    "AC",
    "Ar",
    "T",
    "Ai",
)  # infantry, armoured_car, artillery, armoured_train, airship


def face(data, card: int, old_one: int) -> str:
    """The face of the card at index ``card`` (not its number) for Old One type ``old_one``."""
    bits = int(data.card_hits[card, old_one])
    hits = "+".join(code for u, code in enumerate(UNIT_CODES) if bits >> u & 1) or "-"
    mods = [
        f"{k}{int(v)}"
        for k, v in (
            ("p", data.card_purple[card, old_one]),
            ("s", data.card_sanity[card, old_one]),
            ("a", data.card_airship[card, old_one]),
        )
        if int(v)
    ]
    return "/".join([hits, *mods])


def _canonical(text: str) -> str:
    """A typed face in canonical form (unit codes in UNIT_CODES order, modifiers p, s, a)."""
    parts = [p.strip() for p in text.strip().split("/") if p.strip()]
    if not parts:
        raise UserError(f"--seen: empty card face in '{text}'")
    lookup = {c.lower(): c for c in UNIT_CODES}
    hits = []
    if parts[0] not in ("-", ""):
        for tok in parts[0].split("+"):
            code = lookup.get(tok.strip().lower())
            if code is None:
                raise UserError(
                    f"--seen: unknown unit '{tok.strip()}' in card face '{text}' "
                    f"(expected {', '.join(UNIT_CODES)}, e.g. 'zombie:I+AC/a1')"
                )
            hits.append(code)
    mods = {}
    for tok in parts[1:]:
        key, num = tok[:1].lower(), tok[1:]
        if key not in ("p", "s", "a") or not num.isdigit():
            raise UserError(
                f"--seen: bad modifier '{tok}' in card face '{text}' (expected p<N>, s<N> or a<N>)"
            )
        mods[key] = int(num)
    hit_text = "+".join(c for c in UNIT_CODES if c in hits) or "-"
    return "/".join([hit_text, *(f"{k}{mods[k]}" for k in ("p", "s", "a") if mods.get(k))])


def parse_seen(text: str | None, data) -> tuple[int, ...]:
    """``--seen`` as card numbers: each item a number ('17') or a face ('mi_go:I+Ar/s1')."""
    out: list[int] = []
    for tok in (text or "").split(","):
        tok = tok.strip()
        if not tok:
            continue
        if tok.isdigit():
            out.append(int(tok))
            continue
        if ":" not in tok:
            raise UserError(
                "--seen takes card numbers or faces OLDONE:FACE "
                f"(e.g. 'zombie:I+AC/a1'), got '{tok}'"
            )
        name, _, text_face = tok.partition(":")
        kind = old_one_id(name)
        want = _canonical(text_face)
        matches = [
            int(data.card_ids[i]) for i in range(data.card_ids.size) if face(data, i, kind) == want
        ]
        free = [c for c in matches if c not in out]
        if not free:
            raise UserError(
                f"--seen: no {'more ' if matches else ''}card with face '{want}' for "
                f"{OLD_ONES[kind]} in the deck (see `simkit data deck`)"
            )
        out.append(min(free))
    return tuple(out)


def deck_rows(data) -> list[dict]:
    """Every card: its number, compass and rotation (movement) and its face per Old One type."""
    rows = []
    for i in range(data.card_ids.size):
        rows.append(
            {
                "card": int(data.card_ids[i]),
                "compass": int(data.card_compass[i]),
                "rotation": "cw" if int(data.card_rotation[i]) > 0 else "ccw",
                "faces": {OLD_ONES[t]: face(data, i, t) for t in range(len(OLD_ONES))},
                "moves": {OLD_ONES[t]: bool(data.card_moves[i, t]) for t in range(len(OLD_ONES))},
            }
        )
    return rows


def face_counts(data, old_one: int) -> dict[str, int]:
    """How many cards show each face for one Old One type."""
    faces = [face(data, i, old_one) for i in range(data.card_ids.size)]
    uniq, n = np.unique(faces, return_counts=True)
    return dict(zip(uniq.tolist(), n.tolist(), strict=True))


__all__ = ["UNIT_CODES", "UNITS", "deck_rows", "face", "face_counts", "parse_seen"]

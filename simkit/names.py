"""Canonical rulebook names (lower snake case) and the aliases users may type.

The integer ids here are the array indices every kernel uses; they never change
meaning (changing them is an ENGINE_VERSION bump).
"""

from __future__ import annotations

import re

from simkit.errors import UserError

# Combat stacks. The first five are the military unit types that appear as hit
# symbols on Old One cards (bit i of a card's hit mask = unit i). Outposts and
# Ports fight "as Infantry" (Revenge) and so hit with bit 0.
UNITS = ("infantry", "armoured_car", "artillery", "armoured_train", "airship")
STACKS = UNITS + ("outpost", "port")
INFANTRY, ARMOURED_CAR, ARTILLERY, ARMOURED_TRAIN, AIRSHIP, OUTPOST, PORT = range(7)
NUM_UNITS = len(UNITS)
NUM_STACKS = len(STACKS)

OLD_ONES = ("zombie", "mi_go", "shoggoth", "cthulhu", "temple", "loyalist")
ZOMBIE, MI_GO, SHOGGOTH, CTHULHU, TEMPLE, LOYALIST = range(6)
NUM_OLD_ONES = len(OLD_ONES)

# How a combat ends (the kernels' outcome codes, simkit.kernels.low.combat_layout), each as
# (plain name, what it means for the fight): the one wording of the CLI help, the report's
# legend and the web calculator (simkit.serve.calc.OUTCOMES).
OUTCOME_TEXT = {
    "win": (
        "Destroyed",
        "every Old One is destroyed and your force still stands; damaged units heal",
    ),
    "win_and_defeat": (
        "Destroyed, force defeated",
        "the card that destroys the Old One also defeats your force (Sanity runs out or "
        "no unit is left): you score the kill, your damaged units are lost",
    ),
    "defeat": (
        "Defeated",
        "Sanity ran out or every unit fell before the Old One did: it survives; a defeat "
        "can leave units alive (undamaged ones go home, damaged ones are lost)",
    ),
    "withdraw": (
        "Withdrew",
        "you pulled out under the withdraw rule: the units that leave go home undamaged, "
        "the Old One survives",
    ),
    "stalemate": (
        "Stalemate",
        "a whole pass of the deck changed nothing, so the fight can never end",
    ),
}


# Plain words for the column and parameter names a lake or odds table carries: the one
# mapping every report heading, table header, axis and CLI summary uses (raw names stay in
# the data and in each section's "identifiers" details line).
METRIC_TEXT = {
    "old_ones_win": "Old Ones win",
    "humans_win": "humans win",
    "destroyed": "Old One destroyed",
    "p_destroy": "P(destroy)",
    "win": "win",
    "gold_lost": "Gold lost",
    "units_lost": "units lost",
    "cards": "cards drawn",
    "oo_vp": "Old One VP",
    "best_player_vp": "best human VP",
    "ports_lost": "Ports lost",
    "on_map": "tiles on the map",
    "revealed": "revealed tiles",
    "unrevealed": "unrevealed tiles (doubled)",
    "blighted": "blighted farms",
    "units": "units and Outposts",
    "ports": "Ports",
    "total": "total",
}
KEY_TEXT = {
    "vs": "Old One",
    "oop": "Old One player",
    "humans": "humans",
    "players": "players",
    "strategies": "strategies",
    "strategy": "strategy",
    "difficulty": "difficulty",
    "force": "force",
    "allocate": "allocation",
    "withdraw": "withdrawal",
    "ruleset": "ruleset",
    "content": "content",
    "personalities": "personalities",
    "seen": "cards seen",
}
OLD_ONE_TEXT = {
    "zombie": "Zombie",
    "mi_go": "Mi-Go",
    "shoggoth": "Shoggoth",
    "cthulhu": "Cthulhu",
    "temple": "Temple",
    "loyalist": "Loyalist",
}
UNIT_TEXT = {
    "infantry": "Infantry",
    "armoured_car": "Armoured Car",
    "artillery": "Artillery",
    "armoured_train": "Armoured Train",
    "airship": "Airship",
    "outpost": "Outpost",
    "port": "Port",
}


def label(name: object) -> str:
    """A column, metric or grid key in plain words: 'old_ones_win' -> 'Old Ones win',
    'vs' -> 'Old One', 'vp_blighted' -> 'blighted farms'; a name it does not know loses its
    underscores (dotted data keys such as 'units.artillery.cost' are kept as typed)."""
    text = str(name)
    if text in METRIC_TEXT:
        return METRIC_TEXT[text]
    if text in KEY_TEXT:
        return KEY_TEXT[text]
    if text.startswith("vp_"):  # a VP source column: the source's name
        return METRIC_TEXT.get(text[3:], text[3:].replace("_", " "))
    if text in OLD_ONE_TEXT:
        return OLD_ONE_TEXT[text]
    if text in UNIT_TEXT:
        return UNIT_TEXT[text]
    return text if "." in text else text.replace("_", " ")


def outcome_label(key: str) -> str:
    """A combat outcome code's plain name ('win_and_defeat' -> 'Destroyed, force defeated')."""
    return OUTCOME_TEXT[key][0] if key in OUTCOME_TEXT else label(key)


def value_label(key: str, value: object) -> str:
    """A grid value as a reader reads it: Old Ones by their names ('mi_go' -> 'Mi-Go'),
    everything else as typed."""
    text = str(value)
    if key == "vs":
        return " + ".join(OLD_ONE_TEXT.get(t.strip(), t.strip()) for t in text.split(","))
    return text


def outcome_help() -> str:
    """The outcome names as one help paragraph: 'win: ...; defeat: ...'."""
    return "; ".join(f"{key} ({name}): {text}" for key, (name, text) in OUTCOME_TEXT.items())


PERSONALITIES = ("alexander_proust", "boris_krupp", "bombardier_milligan", "corporal_jones")

_EXTRA_ALIASES = {
    "armored_car": "armoured_car",
    "car": "armoured_car",
    "armored_train": "armoured_train",
    "train": "armoured_train",
    "migo": "mi_go",
    "mi-go": "mi_go",
    "zeppelin": "airship",
    "proust": "alexander_proust",
    "krupp": "boris_krupp",
    "milligan": "bombardier_milligan",
    "jones": "corporal_jones",
    "corp_jones": "corporal_jones",
}


def _normalise(token: str) -> str:
    token = token.strip().lower()
    token = re.sub(r"[\s\-.]+", "_", token)
    return token.replace("armored", "armoured")


def _lookup(token: str, names: tuple[str, ...], what: str) -> int:
    key = _normalise(token)
    candidates = [key, _EXTRA_ALIASES.get(key, key)]
    if key.endswith("ies"):
        candidates.append(key[:-3] + "y")
    if key.endswith("s"):
        candidates.append(key[:-1])
    for cand in candidates:
        cand = _EXTRA_ALIASES.get(cand, cand)
        if cand in names:
            return names.index(cand)
    raise UserError(f"unknown {what} '{token}' (expected one of: {', '.join(names)})")


def unit_id(token: str) -> int:
    """Index of a military unit (or outpost/port) from a user-typed name."""
    return _lookup(token, STACKS, "unit")


def old_one_id(token: str) -> int:
    """Index of an Old One type from a user-typed name."""
    return _lookup(token, OLD_ONES, "Old One")


def personality_name(token: str) -> str:
    return PERSONALITIES[_lookup(token, PERSONALITIES, "personality")]

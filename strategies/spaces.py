"""The tunable parameter space of every strategy family, declared once.

A space maps each field of a strategy's frozen parameter set to the values a tuner may
try: :class:`Real` and :class:`Integer` ranges, :class:`Choice` among listed values, and
:class:`Vector` for tuple fields (one real range per entry). Subclasses (economist,
hunter, ...) share their family's space; only their defaults differ. ``simkit tune``
samples from these spaces (simkit.tune), and ``file:`` strategy specs are checked
against them.

    >>> from strategies.spaces import space_of
    >>> from strategies.human.balanced import Balanced
    >>> len(space_of(Balanced())) >= 18
    True
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.movement import CHOOSE_COMPASS, CHOOSE_PORTS


@dataclass(frozen=True)
class Real:
    low: float
    high: float


@dataclass(frozen=True)
class Integer:
    low: int
    high: int


@dataclass(frozen=True)
class Choice:
    options: tuple


@dataclass(frozen=True)
class Vector:
    size: int
    low: float
    high: float


Dimension = Real | Integer | Choice | Vector

# Human players (strategies.human.base.HeuristicParams; each field documented in
# simkit.kernels.low.game_layout HP_*). The ranges hold every shipped default with room.
HUMAN_SPACE: dict[str, Dimension] = {
    "rail_res": Real(0.0, 3.0),
    "rail_farm": Real(0.0, 3.0),
    "rail_oldone": Real(0.0, 3.0),
    "army_min": Integer(0, 6),
    "army_from": Integer(0, 45),
    "atk_ratio": Real(0.5, 4.0),
    "atk_radius": Integer(-1, 10),
    "atk_facedown": Integer(0, 1),
    "farm_safe": Integer(0, 1),
    "unit_w": Vector(L.NUM_UNITS, 0.0, 2.0),
    "retrieve_hq": Integer(0, 5),
    "max_surcharge": Integer(0, 4),
    "farm_min": Integer(1, 3),
    "atk_from": Integer(0, 45),
    "pers_w": Vector(len(L.EFFECT_NAMES), 0.0, 2.0),
    "threat_w": Real(0.0, 2.0),
    "threat_range": Integer(1, 10),
    "outpost": Integer(0, 8),
    "allocate": Choice(("spread", "cheapest")),
    "withdraw": Choice(("sanity:0,lost:3", "sanity:1,lost:2", "sanity:0", "table-value", "table")),
}

# The Old One player (strategies.old_ones.OOPParams; simkit.kernels.low.game_layout OP_*).
# 'kind' (heuristic or random) is the strategy's identity, not a tunable.
OOP_SPACE: dict[str, Dimension] = {
    "move_policy": Choice((CHOOSE_PORTS, CHOOSE_COMPASS)),
    "face_up_min": Integer(0, 6),
    "down_max": Integer(0, 8),
    "hand_min": Integer(0, 6),
    "play_mythos": Real(0.0, 1.0),
    "target_weak": Integer(0, 1),
    "farm_bias": Integer(0, 1),
    "move_min": Integer(1, 5),
    "combat_mythos": Real(0.0, 1.0),
}


def space_of(strategy: Any) -> dict[str, Dimension]:
    """The declared space of ``strategy``'s family (human or Old One player): the family's
    class names it (``space``), so this module imports no family and no family's files."""
    space = getattr(type(strategy), "space", None)
    if not isinstance(space, dict):
        raise UserError(f"no parameter space for {type(strategy).__name__}")
    names = {f.name for f in fields(strategy)}
    missing = [k for k in space if k not in names]
    if missing:  # a space naming a field the dataclass lost would tune nothing
        raise AssertionError(
            f"space names fields {missing} that {type(strategy).__name__} does not have"
        )
    return space


def check_value(name: str, dim: Dimension, value: Any, label: str) -> Any:
    """``value`` for field ``name`` if the space admits it (UserError naming it if not)."""

    def bad(expected: str):
        return UserError(f"{label}: field '{name}' must be {expected}, got {value!r}")

    if isinstance(dim, Choice):
        if value not in dim.options:
            raise bad("one of " + ", ".join(repr(o) for o in dim.options))
        return value
    if isinstance(dim, Vector):
        if (
            not isinstance(value, (list, tuple))
            or len(value) != dim.size
            or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and dim.low <= x <= dim.high
                for x in value
            )
        ):
            raise bad(f"{dim.size} numbers in {dim.low}..{dim.high}")
        return tuple(float(x) for x in value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad(f"a number in {dim.low}..{dim.high}")
    if isinstance(dim, Integer):
        if value != int(value) or not dim.low <= value <= dim.high:
            raise bad(f"a whole number in {dim.low}..{dim.high}")
        return int(value)
    if not dim.low <= value <= dim.high or value != value:
        raise bad(f"a number in {dim.low}..{dim.high}")
    return float(value)

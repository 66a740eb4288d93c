"""The event log's schema: named fields per event kind, read by the replay printer
(simkit.game.replay) and the event tables (simkit.game.tables).

A kernel log row is int64 ``(kind, time, actor, a, b, c, d, e)`` (game_layout LOG_W, EV_*);
what ``a`` .. ``e`` mean depends on the kind, and is written down once here.

    >>> from simkit.kernels.low import game_layout as L
    >>> ev = event(np.array([L.EV_COMBAT, 30, 1, 17, 0, 6, 2, 0]))
    >>> (ev.kind, ev.time, ev.actor, ev.hex, ev.outcome, ev.cards, ev.units_lost, ev.port_defence)
    (11, 30, 1, 17, 0, 6, 2, 0)
    >>> column(L.EV_MOVE, "to_hex")
    5
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from simkit.kernels.low import game_layout as L

HEAD = ("kind", "time", "actor")  # columns 0, 1, 2 of every row
# kind -> names of a, b, c, d, e (fewer: the rest unused, always 0)
SCHEMA: dict[int, tuple[str, ...]] = {
    L.EV_SETUP: ("hex", "start_space", "strategy", "listed"),  # hex: the seat's Port, -1 none
    L.EV_ACTION: ("box", "tp", "surcharge", "time_after"),
    L.EV_TRACK: ("hex", "side", "other_hex"),
    L.EV_MINE: ("hex", "resource", "amount"),
    L.EV_RECRUIT: ("card", "slot", "returned"),  # slot -1: the draw pile
    L.EV_BUY: ("unit", "count", "gold", "hex"),  # unit: stacks order; hex: an Outpost's
    L.EV_TRADE: ("sub1", "sub2"),
    L.EV_FARM: ("hex", "farm_kind"),
    L.EV_ATTACK: ("hex", "force", "units", "tiles"),  # force: unit bit mask
    L.EV_FLIP: ("tile", "hex", "old_one"),  # actor -1: the Old Ones; old_one -1 Empty
    L.EV_WITHDRAW_FLIP: ("hex",),
    L.EV_COMBAT: (
        "hex",
        "outcome",
        "cards",
        "units_lost",
        "port_defence",
    ),  # outcome: combat_layout
    L.EV_KILL: ("tile", "old_one", "vp", "players"),  # actor -1: shared by the players mask
    L.EV_RETRIEVE: ("cubes", "tp"),
    L.EV_OO_TURN: ("space", "illuminated"),
    L.EV_REVELATION: ("rev_kind", "card", "detail"),
    L.EV_MOVE: ("tile", "from_hex", "to_hex", "card", "old_one"),
    L.EV_BLIGHT: ("hex", "farm_kind"),  # actor: the farm's owner
    L.EV_PORT_LOST: ("hex",),
    L.EV_ASSASSINATE: ("card", "card2"),
    L.EV_PERSONALITY: ("card", "detail"),  # detail: tile revealed / unit taken
    L.EV_END: ("reason", "space"),
    L.EV_ILLEGAL: ("decision", "value"),
    L.EV_TEMPLE_TILE: ("tile", "hex", "old_one", "placed"),  # old_one -2: face down
    L.EV_FARM_SAVED: ("hex", "tile"),
    # humans: total, farms, phosphate, Old One tiles + tokens, personalities; the Old Ones
    # (actor -1): total, revealed (Revenge: on the map), unrevealed, blighted
    L.EV_SCORE: ("total", "part1", "part2", "part3", "part4"),
    L.EV_MYTHOS: ("card", "how", "detail", "tp", "effect"),  # how: MYTHOS_*; effect: MYTH_*
    L.EV_OOP_ACTION: ("action", "detail", "hex", "count"),  # action: OOP_*
    # what: RV_*; hex (RV_CYCLE: the Personality, RV_REFRESH: the Gold paid); vp (RV_CYCLE:
    # the display slot); shared: 1 for a Spawn tile shared after a shared kill
    L.EV_REVENGE: ("what", "hex", "vp", "shared"),
}
PAYLOAD_START = len(HEAD)
EVENTS = {
    kind: namedtuple(
        f"Event{kind}",
        HEAD + names + tuple(f"unused_{k}" for k in range(len(names), L.LOG_W - PAYLOAD_START)),
    )
    for kind, names in SCHEMA.items()
}
_RAW = namedtuple("EventRaw", HEAD + ("a", "b", "c", "d", "e"))


def column(kind: int, name: str) -> int:
    """The log column of field ``name`` of events of ``kind``."""
    if name in HEAD:
        return HEAD.index(name)
    try:
        return PAYLOAD_START + SCHEMA[kind].index(name)
    except (KeyError, ValueError):
        raise KeyError(f"event kind {kind} has no field {name!r}") from None


def event(row) -> tuple:
    """One log row as a named tuple of its kind's fields (plain ints)."""
    vals = [int(x) for x in row]
    return EVENTS.get(vals[0], _RAW)(*vals)


def fields(rows: np.ndarray, kind: int) -> dict[str, np.ndarray]:
    """The columns of log rows (all of one ``kind``) by field name."""
    out = {name: rows[:, i] for i, name in enumerate(HEAD)}
    for i, name in enumerate(SCHEMA[kind]):
        out[name] = rows[:, PAYLOAD_START + i]
    return out

"""The base rulebook's rules of thumb for Old One cards, as checkable statements.

A user's real deck is authoritative, so a broken rule of thumb is a warning from
``simkit data check`` (an error with ``--strict``); the shipped assumed deck must
keep all of them (tests/test_datapack.py).
"""

from __future__ import annotations

import numpy as np

from simkit.datapack import AuzData
from simkit.names import (
    AIRSHIP,
    ARMOURED_CAR,
    ARMOURED_TRAIN,
    ARTILLERY,
    CTHULHU,
    INFANTRY,
    LOYALIST,
    MI_GO,
    OLD_ONES,
    SHOGGOTH,
    TEMPLE,
    UNITS,
    ZOMBIE,
)


def hit_rates(data: AuzData) -> np.ndarray:
    """[unit, old_one] share of cards on which the unit's symbol appears."""
    bits = (data.card_hits[:, None, :] >> np.arange(len(UNITS))[None, :, None]) & 1
    return bits.mean(axis=0)


def rule_of_thumb_violations(data: AuzData) -> list[str]:
    """Every stated rule of thumb the deck breaks, as readable sentences."""
    f = hit_rates(data)
    out: list[str] = []

    def need(ok: bool, text: str) -> None:
        if not ok:
            out.append(text)

    for u in (INFANTRY, ARMOURED_CAR):
        for good in (ZOMBIE, MI_GO):
            for weak in (SHOGGOTH, CTHULHU):
                need(
                    f[u, good] > f[u, weak],
                    f"{UNITS[u]} should be better vs {OLD_ONES[good]} than vs {OLD_ONES[weak]}",
                )
    others = [u for u in range(len(UNITS)) if u not in (INFANTRY, ARTILLERY)]
    for u in (INFANTRY, ARTILLERY):
        need(
            f[u, TEMPLE] > f[others, TEMPLE].max(), f"{UNITS[u]} should be among the best vs temple"
        )
    for u in (ARTILLERY, ARMOURED_TRAIN):
        for t in (CTHULHU, SHOGGOTH):
            need(
                f[u, t] > max(f[INFANTRY, t], f[ARMOURED_CAR, t]),
                f"{UNITS[u]} should beat infantry and armoured cars vs {OLD_ONES[t]}",
            )
    airship_hits_rate = (data.card_airship > 0).mean(axis=0)
    need(
        airship_hits_rate[MI_GO] == airship_hits_rate.max() and airship_hits_rate[MI_GO] > 0,
        "airships should be most vulnerable to mi_go (airship damage most frequent on mi_go rows)",
    )
    need(
        f[AIRSHIP, ZOMBIE] == f[:, ZOMBIE].min() and f[AIRSHIP, ZOMBIE] == f[AIRSHIP].min(),
        "airships should be poor vs zombie (their lowest hit rate, and the lowest unit vs zombie)",
    )
    need(
        bool(np.all(f[:, LOYALIST] >= 0.5)),
        "all units should be good vs loyalist (hit on at least half the cards)",
    )
    need(not data.card_sanity[:, LOYALIST].any(), "loyalists never cause sanity loss")
    need(
        not (data.card_hits[:, TEMPLE] & (1 << ARMOURED_CAR)).any(),
        "armoured cars never damage temples",
    )
    moves = data.card_moves.mean(axis=0)
    movers = [t for t in range(len(OLD_ONES)) if data.old_one_moves[t]]
    average = [t for t in movers if t not in (ZOMBIE, MI_GO)]
    need(
        all(moves[ZOMBIE] < moves[t] < moves[MI_GO] for t in average),
        "movement: zombies should move least often and mi_go most often",
    )
    for t in range(len(OLD_ONES)):
        if not data.old_one_moves[t]:
            need(
                not data.card_moves[:, t].any(),
                f"{OLD_ONES[t]} never moves but has movement circles",
            )
    return out

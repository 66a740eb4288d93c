"""A slow, readable reference for turret fights: the rules as plain Python.

It shares nothing with the kernels but the firing-order policy, the constants and the
names of the tracked slots (the tally's order); tests enumerate every card order with
simkit.core.enumerate (exact fractions) through :func:`stepper` and check the fast exact
solver against it.

:func:`play` plays a whole fight from a given sequence of flipped Outcome cards and
returns the final tally, or None if the fight needs more cards than were given.
"""

from __future__ import annotations

from collections.abc import Sequence

from simkit.athena.fight import TurretFight, fire_order, switches
from simkit.athena.pack import AthenaData
from simkit.kernels.athena import (
    COST_AMMO,
    COST_CHARGED,
    HIT,
    JAM,
    PHASE_FIRE,
    PHASE_GATHER,
    TRACKED_NAMES,
)

TALLY = TRACKED_NAMES  # the tally, in the order of the kernel's tracked slots


class _NeedCard(Exception):
    pass


def play(fight: TurretFight, data: AthenaData, cards: Sequence[int]) -> tuple[int, ...] | None:
    rules = switches(fight, data)
    flips = iter(cards)
    t = dict.fromkeys(TALLY, 0)
    t["ammo"], t["charged"], t["half"] = fight.ammo, fight.charged, fight.half
    kinds = [data.weapon_kind(k) for k, _ in fight.weapons]
    rating = [r for _, r in fight.weapons]
    cost = [int(data.weapon_cost[k]) for k in kinds]
    phase = [int(data.weapon_phase[k]) for k in kinds]
    intact = [True] * len(fight.weapons)
    order = fire_order(fight, data)
    turret_damage = 0
    grenade = fight.grenade

    def flip(row: int) -> tuple[int, int]:
        try:
            card = next(flips)
        except StopIteration:
            raise _NeedCard from None
        t["cards"] += 1
        return int(data.card_result[card, row - 1]), int(data.card_damage[card, row - 1])

    def strike(damage: int) -> None:
        nonlocal turret_damage
        if rules["turret_damage_accumulates"]:
            turret_damage += damage
            if turret_damage >= fight.defense:
                t["destroyed"] = 1
        elif damage >= fight.defense:  # otherwise the turret receives no damage
            t["destroyed"] = 1

    def can_pay(c: int) -> bool:
        if c == COST_AMMO:
            return t["ammo"] > 0
        if c == COST_CHARGED:
            return t["charged"] > 0 or (rules["two_half_for_charged"] and t["half"] >= 2)
        return t["half"] > 0 or (rules["flip_charged_for_half"] and t["charged"] > 0)

    def pay(c: int) -> None:
        if c == COST_AMMO:
            t["ammo"] -= 1
        elif c == COST_CHARGED:
            if t["charged"] > 0:
                t["charged"] -= 1
            else:
                t["half"] -= 2
        elif t["half"] > 0 and not (
            rules["prefer_flip"] and rules["flip_charged_for_half"] and t["charged"] > 0
        ):
            t["half"] -= 1
        else:  # flip a Charged token over: it stays in the convoy as a Half-Discharged one
            t["charged"] -= 1
            t["half"] += 1

    def shoot(w: int) -> None:
        pay(cost[w])
        t["shots"] += 1
        result, damage = flip(rating[w])
        if result == HIT:
            strike(damage)
        elif result == JAM:
            if fight.cyborg and data.cyborg_ignores_jam and phase[w] == PHASE_FIRE:
                t["jams_ignored"] += 1
            else:
                intact[w] = False
                t["jams"] += 1

    def grenade_useful() -> bool:
        return grenade and (
            rules["turret_damage_accumulates"] or data.grenade_damage >= fight.defense
        )

    def throw() -> None:
        nonlocal grenade
        grenade = False
        t["grenades_thrown"] += 1
        strike(data.grenade_damage)
        result, _ = flip(data.grenade_rating)
        if result == JAM:
            if fight.cyborg and data.cyborg_ignores_jam and rules["cyborg_ignores_grenade_jam"]:
                t["jams_ignored"] += 1
            else:
                t["grenade_damage"] += data.grenade_self_damage

    def volley(which: int) -> None:
        for w in order:
            if t["destroyed"]:
                return
            if phase[w] == which and intact[w] and can_pay(cost[w]):
                shoot(w)

    try:
        while not t["destroyed"]:
            if fight.rounds:
                if t["rounds"] == fight.rounds:
                    break
            elif not (any(intact[w] and can_pay(cost[w]) for w in order) or grenade_useful()):
                break
            t["rounds"] += 1
            volley(PHASE_GATHER)  # a location's weapon, Gather Resources
            if t["destroyed"]:
                break
            t["ambushes"] += 1  # Phase 4, Ambush: the turret fires
            if rules["ambush_draws_card"]:
                flip(1)
            if fight.grenade_use == "first" and grenade_useful():
                throw()
            volley(PHASE_FIRE)  # Phase 4, Convoys Fire
            if not t["destroyed"] and fight.grenade_use == "last" and grenade_useful():
                throw()
    except _NeedCard:
        return None
    return tuple(t[k] for k in TALLY)


def stepper(fight: TurretFight, data: AthenaData):
    """(initial state, step) for simkit.core.enumerate.enumerate_outcomes.

    The state is the tuple of cards flipped so far; a step replays the fight with one
    more card. If the fight ends before any card, the initial state is its tally.
    """

    def step(state: tuple[int, ...], card: int):
        cards = state + (card,)
        return cards, play(fight, data, cards)

    return (), step

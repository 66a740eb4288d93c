"""The combat rules again, in plain readable Python: the slow reference.

Written from the rulebook ("Resolving Combat") without sharing code with the numba
kernels, so that tests can check the fast engine against it card by card and, with
simkit.core.enumerate, over every card order with exact fractions. It covers the
base rules with the cheapest-first allocation and threshold withdrawal; personality
effects are left to the kernel tests.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from simkit.datapack import AuzData
from simkit.names import AIRSHIP, NUM_UNITS, OUTPOST, PORT, STACKS


@dataclass(frozen=True)
class Fight:
    units: tuple[int, ...]  # per stack, simkit.names.STACKS order
    cubes: tuple[int, ...]  # damage cubes on each stack
    lost: tuple[int, ...]
    sanity: int
    old_one_damage: tuple[int, ...]


class ReferenceCombat:
    """step()/before_draw()/exhausted() callbacks for simkit.core.enumerate.enumerate_outcomes.

    Outcome keys are (outcome name, units lost per stack).
    """

    def __init__(
        self,
        data: AuzData,
        force: tuple[int, ...],
        old_ones: tuple[int, ...],
        capacity: dict[int, int] | None = None,
        sanity: int | None = None,
        withdraw_at_sanity: int = -1,
        can_withdraw: bool = True,
    ):
        self.data = data
        self.old_ones = old_ones
        self.capacity = [
            capacity[t] if capacity and t in capacity else int(data.old_one_capacity[t])
            for t in old_ones
        ]
        self.unit_capacity = [int(c) for c in data.unit_capacity]
        self.cost = [float(c) for c in data.unit_cost]
        self.start = Fight(
            units=tuple(force) + (0,) * (len(STACKS) - len(force)),
            cubes=(0,) * len(STACKS),
            lost=(0,) * len(STACKS),
            sanity=data.sanity_per_combat if sanity is None else sanity,
            old_one_damage=(0,) * len(old_ones),
        )
        self.withdraw_at_sanity = withdraw_at_sanity
        self.can_withdraw = can_withdraw
        # "If you have no Units when your Port is attacked, the Port fights as Infantry"
        self.port_fights = not any(self.start.units[s] for s in range(len(STACKS)) if s != PORT)

    # -- rules -------------------------------------------------------------
    def types_fighting(self, f: Fight) -> set[int]:
        """Unit types whose symbols count: Outposts fight as Infantry, and so does a Port
        that had no units beside it when the attack began."""
        kinds = {s for s in range(NUM_UNITS) if f.units[s] > 0}
        if f.units[OUTPOST] > 0:
            kinds.add(0)
        if f.units[PORT] > 0 and self.port_fights:
            kinds.add(0)
        return kinds

    def fighters(self, f: Fight) -> int:
        """Military units left in the combat (a Port token only when it fights)."""
        return sum(n for s, n in enumerate(f.units) if s != PORT or self.port_fights)

    def alive(self, f: Fight) -> list[int]:
        return [i for i in range(len(self.old_ones)) if f.old_one_damage[i] < self.capacity[i]]

    def step(self, f: Fight, card: int):
        """Resolve one Old One card; all of its results happen at once."""
        d = self.data
        kinds = self.types_fighting(f)
        alive = self.alive(f)
        damage = list(f.old_one_damage)
        purple = sanity_loss = airship_hits = 0
        for i in alive:  # each Old One is its own combat with the same card...
            t = self.old_ones[i]
            row_hits = {u for u in range(NUM_UNITS) if d.card_hits[card, t] >> u & 1}
            damage[i] += len(row_hits & kinds)
            purple += int(d.card_purple[card, t])  # ...so what it inflicts is counted per Old One
            sanity_loss += int(d.card_sanity[card, t])
            airship_hits += int(d.card_airship[card, t])
        units, cubes, lost = list(f.units), list(f.cubes), list(f.lost)

        def cube_on(s: int) -> None:
            cubes[s] += 1
            if cubes[s] >= self.unit_capacity[s]:  # the stack's top unit is eliminated
                units[s] -= 1
                lost[s] += 1
                cubes[s] = 0

        for _ in range(purple):
            choices = [s for s in range(len(STACKS)) if units[s] > 0 and s != AIRSHIP]
            if not choices:
                break
            cube_on(min(choices, key=lambda s: (self.cost[s], s)))
        for _ in range(airship_hits):
            if units[AIRSHIP] > 0:
                cube_on(AIRSHIP)
        short = sanity_loss > f.sanity
        f = Fight(
            tuple(units), tuple(cubes), tuple(lost), max(f.sanity - sanity_loss, 0), tuple(damage)
        )
        destroyed = not self.alive(f)
        defeated = short or self.fighters(replace(f, units=tuple(units))) == 0
        if destroyed or defeated:
            outcome = ("win_and_defeat" if defeated else "win") if destroyed else "defeat"
            f = self.end(f, defeated)
            return f, (outcome, f.lost)
        return f, None

    def end(self, f: Fight, defeated: bool) -> Fight:
        """End of Combat Resolution: on defeat every damaged unit dies; otherwise all heal."""
        units, lost = list(f.units), list(f.lost)
        if defeated:
            for s in range(len(STACKS)):
                if s != PORT and f.cubes[s] > 0 and units[s] > 0:
                    units[s] -= 1
                    lost[s] += 1
        return replace(f, units=tuple(units), lost=tuple(lost), cubes=(0,) * len(STACKS))

    def before_draw(self, f: Fight, remaining):
        """Withdraw everything once sanity is at or below the threshold (if allowed)."""
        if (
            self.can_withdraw
            and self.withdraw_at_sanity >= 0
            and f.sanity <= self.withdraw_at_sanity
        ):
            return self.end(f, False), ("withdraw", f.lost)
        return f, None

    def stalemate(self, f: Fight):
        """A whole fresh deck changed nothing: the fight can never end."""
        return ("stalemate", self.end(f, False).lost)

    def exhausted(self, f: Fight):
        """Past the enumeration's reshuffle limit (a test's bound, not a rule)."""
        raise AssertionError("the reference fight outlasted its reshuffle limit")

"""One convoy against one Automated Turret: the user's description, validated and lowered.

:class:`TurretFight` holds what the user typed; :func:`lower` checks it against a data
pack and turns it into the kernel's ``st0`` / ``mx`` arrays (simkit/kernels/athena.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.athena.pack import BATTERY_KEYS, INTERPRETATION_KEYS, AthenaData
from simkit.core.seen import parse_card_numbers, remaining_cards
from simkit.errors import UserError
from simkit.kernels import athena as K

GRENADE_USES = {"first": K.USE_FIRST, "last": K.USE_LAST}
ORDERS = ("best", "given")
MAX_AMMO = 30  # tokens of one kind the engine accepts (the exact solver's keys stay small)
MAX_ROUNDS = 50
VARIANT_KEYS = INTERPRETATION_KEYS + BATTERY_KEYS
COST_NAMES = {K.COST_AMMO: "ammo", K.COST_CHARGED: "charged_battery", K.COST_HALF: "half_battery"}
PHASE_NAMES = {K.PHASE_GATHER: "gather_resources", K.PHASE_FIRE: "fire_weapons"}


@dataclass(frozen=True)
class TurretFight:
    """A convoy inside one turret's perimeter, fighting it until it falls or nothing is left.

    weapons: (kind name, rating) per weapon. rounds: 0 = fight until the turret is
    destroyed or the convoy has nothing left to attack with; N = the convoy stays N
    rounds inside the perimeter (the turret attacks each of them while it stands).
    """

    weapons: tuple[tuple[str, int], ...]
    defense: int
    ammo: int = 0
    charged: int = 0
    half: int = 0
    detection: int = 0
    rounds: int = 0
    cyborg: bool = False
    grenade: bool = False
    grenade_use: str = "first"
    order: str = "best"
    turret: int | None = None
    seen: tuple[int, ...] = ()
    variants: tuple[tuple[str, bool], ...] = ()

    def describe(self) -> str:
        arms = " + ".join(f"{k}:{r}" for k, r in self.weapons)
        who = (
            f"turret {self.turret} (Defense {self.defense})"
            if self.turret
            else f"turret (Defense {self.defense})"
        )
        extras = [
            x
            for x, on in (("Cyborg", self.cyborg), (f"Grenade ({self.grenade_use})", self.grenade))
            if on
        ]
        return f"{arms} vs {who}; ammo {self.ammo}, charged {self.charged}, half {self.half}" + (
            f"; {', '.join(extras)}" if extras else ""
        )

    def without(self, item: str) -> TurretFight:
        from dataclasses import replace

        return replace(self, **{item: False})


def weapon_name(text: str) -> str:
    return text.strip().lower().replace("-", "_").replace(" ", "_")


def parse_weapons(text: str, data: AthenaData) -> tuple[tuple[str, int], ...]:
    """'cannon:3,energy_cannon:4' -> (('cannon', 3), ('energy_cannon', 4)), checked."""
    if not text or not text.strip():
        raise UserError("--weapons is empty (expected e.g. 'cannon:3,energy_cannon:4')")
    out = []
    for token in text.split(","):
        if not token.strip():
            continue
        kind, colon, rating = token.partition(":")
        name = weapon_name(kind)
        if name not in data.weapon_names:
            raise UserError(
                f"unknown weapon '{kind.strip()}' in --weapons (expected one of: "
                f"{', '.join(data.weapon_names)})"
            )
        if not colon:
            raise UserError(f"weapon '{token.strip()}' needs a rating, e.g. '{name}:3'")
        rating = rating.strip()
        if not rating.lstrip("-").isdigit():
            raise UserError(
                f"rating of weapon '{token.strip()}' must be a whole number, got '{rating}'"
            )
        if not 1 <= int(rating) <= data.num_ratings:
            raise UserError(
                f"rating of weapon '{token.strip()}' must be 1..{data.num_ratings} "
                f"(the Outcome card's rows), got {rating}"
            )
        out.append((name, int(rating)))
    if not out:
        raise UserError("--weapons names no weapon (expected e.g. 'cannon:3,energy_cannon:4')")
    if len(out) > K.MAX_WEAPONS:
        raise UserError(f"at most {K.MAX_WEAPONS} weapons, got {len(out)}")
    return tuple(out)


def parse_variants(items: list[str] | None) -> tuple[tuple[str, bool], ...]:
    out = []
    for item in items or []:
        key, eq, val = item.partition("=")
        key = key.strip()
        if key not in VARIANT_KEYS:
            raise UserError(
                f"unknown --variant '{key}' (expected one of: {', '.join(VARIANT_KEYS)})"
            )
        val = val.strip().lower()
        if not eq or val not in ("true", "false", "1", "0", "yes", "no"):
            raise UserError(f"--variant {key} needs =true or =false, got '{item}'")
        out.append((key, val in ("true", "1", "yes")))
    return tuple(out)


def parse_seen(text: str | None) -> tuple[int, ...]:
    return parse_card_numbers(text, "Outcome card")


def switches(fight: TurretFight, data: AthenaData) -> dict[str, bool]:
    out = dict(data.switches)
    out.update(dict(fight.variants))
    return out


def check(fight: TurretFight, data: AthenaData) -> None:
    """Every check on a fight that does not need the kernels."""
    for flag, val, hi in (
        ("--ammo", fight.ammo, MAX_AMMO),
        ("--charged", fight.charged, MAX_AMMO),
        ("--half", fight.half, MAX_AMMO),
        ("--rounds", fight.rounds, MAX_ROUNDS),
    ):
        if val < 0:
            raise UserError(f"{flag} must not be negative, got {val}")
        if val > hi:
            raise UserError(f"{flag} must be at most {hi}, got {val}")
    if fight.defense < 1:
        raise UserError(f"--defense must be at least 1, got {fight.defense}")
    if not 0 <= fight.detection < data.track_damage.size:
        raise UserError(
            f"--detection must be 0..{data.track_damage.size - 1} (rows of the Detection "
            f"Level Track, 0 = bottom), got {fight.detection}"
        )
    if fight.grenade_use not in GRENADE_USES:
        raise UserError(f"--grenade-use must be first or last, got '{fight.grenade_use}'")
    if fight.order not in ORDERS:
        raise UserError(f"--order must be best or given, got '{fight.order}'")
    if not fight.weapons:
        raise UserError("name at least one weapon")
    for kind, rating in fight.weapons:
        if kind not in data.weapon_names:
            raise UserError(
                f"unknown weapon '{kind}' (expected one of: {', '.join(data.weapon_names)})"
            )
        if not 1 <= rating <= data.num_ratings:
            raise UserError(
                f"rating of weapon '{kind}' must be 1..{data.num_ratings}, got {rating}"
            )
    for key, _ in fight.variants:
        if key not in VARIANT_KEYS:
            raise UserError(f"unknown variant '{key}' (expected one of: {', '.join(VARIANT_KEYS)})")
    available(fight, data)


def available(fight: TurretFight, data: AthenaData) -> np.ndarray:
    """Cards still in the Outcome deck (the rest are in the discard pile: --seen)."""
    return remaining_cards(data.card_ids, fight.seen, "Outcome card")


def shot_odds(data: AthenaData, rating: int, defense: int, accumulate: bool) -> tuple[float, float]:
    """(chance one shot destroys an undamaged turret (or mean damage, if damage accumulates),
    chance it jams) on a full deck: the static key of the 'best' firing order."""
    res = data.card_result[:, rating - 1]
    dmg = data.card_damage[:, rating - 1]
    hit = res == K.HIT
    score = (
        float(np.mean(np.where(hit, dmg, 0)))
        if accumulate
        else float(np.mean(hit & (dmg >= defense)))
    )
    return score, float(np.mean(res == K.JAM))


def fire_order(fight: TurretFight, data: AthenaData) -> list[int]:
    """Weapon indices in the order they fire within a step.

    'given': as typed. 'best': highest chance to destroy per shot first, then lowest
    jam chance, then as typed - a fixed policy both the exact and the Monte Carlo
    solvers play (it is not optimised per state).
    """
    idx = list(range(len(fight.weapons)))
    if fight.order == "given":
        return idx
    acc = switches(fight, data)["turret_damage_accumulates"]

    def key(w):
        score, jam = shot_odds(data, fight.weapons[w][1], fight.defense, acc)
        return (-score, jam, w)

    return sorted(idx, key=key)


def lower(fight: TurretFight, data: AthenaData) -> tuple[np.ndarray, np.ndarray]:
    """(st0, mx) for the kernels."""
    check(fight, data)
    sw = switches(fight, data)
    n = len(fight.weapons)
    st = np.zeros(K.STATE_SIZE, dtype=np.int64)
    st[K.AMMO], st[K.CHARGED], st[K.HALF] = fight.ammo, fight.charged, fight.half
    st[K.INTACT] = (1 << n) - 1
    st[K.GRENADE] = 1 if fight.grenade else 0
    st[K.STEP] = K.S_START
    st[K.PENDING] = -1
    mx = np.zeros(K.MATCHUP_SIZE, dtype=np.int64)
    mx[K.M_NUM_WEAPONS] = n
    mx[K.M_DEFENSE] = fight.defense
    mx[K.M_ACCUMULATE] = sw["turret_damage_accumulates"]
    mx[K.M_AMBUSH_DRAWS] = sw["ambush_draws_card"]
    mx[K.M_CYBORG] = 1 if (fight.cyborg and data.cyborg_ignores_jam) else 0
    mx[K.M_CYBORG_GRENADE] = sw["cyborg_ignores_grenade_jam"]
    mx[K.M_GRENADE_RATING] = data.grenade_rating
    mx[K.M_GRENADE_DAMAGE] = data.grenade_damage
    mx[K.M_GRENADE_SELF_DAMAGE] = data.grenade_self_damage
    mx[K.M_GRENADE_USE] = GRENADE_USES[fight.grenade_use]
    mx[K.M_MAX_ROUNDS] = fight.rounds
    mx[K.M_TWO_HALF] = sw["two_half_for_charged"]
    mx[K.M_FLIP] = sw["flip_charged_for_half"]
    mx[K.M_PREFER_FLIP] = sw["prefer_flip"]
    for w, (kind, rating) in enumerate(fight.weapons):
        k = data.weapon_kind(kind)
        mx[K.W_RATING + w] = rating
        mx[K.W_COST + w] = data.weapon_cost[k]
        mx[K.W_PHASE + w] = data.weapon_phase[k]
    mx[K.ORDER : K.ORDER + K.MAX_WEAPONS] = -1
    for pos, w in enumerate(fire_order(fight, data)):
        mx[K.ORDER + pos] = w
    return st, mx


def shot_bound(fight: TurretFight) -> int:
    """Most weapon shots a fight can have: every token spent (a flipped Charged pays twice)."""
    return fight.ammo + 2 * fight.charged + fight.half


def round_bound(fight: TurretFight) -> int:
    """Most rounds (and so turret attacks) a fight can have."""
    if fight.rounds > 0:
        return fight.rounds
    return shot_bound(fight) + (1 if fight.grenade else 0) + 1

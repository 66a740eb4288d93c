"""Turret-fight odds, exact (memoised over deck compositions) or Monte Carlo.

Both call the same kernels (simkit.kernels.athena.advance / resolve_card); the exact
solver groups interchangeable Outcome cards into classes first (simkit.core.classes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from simkit import ENGINE_VERSION
from simkit.athena.fight import (
    COST_NAMES,
    PHASE_NAMES,
    TurretFight,
    available,
    fire_order,
    lower,
    round_bound,
    shot_bound,
    switches,
)
from simkit.athena.pack import AthenaData
from simkit.core.classes import group_cards
from simkit.core.seeds import chunk_generators, chunk_sizes
from simkit.core.stats import mean_interval, wilson_interval
from simkit.errors import UserError
from simkit.kernels import athena as K
from simkit.kernels.low.hashtable import new_table

MC_CHUNK = 1 << 16  # fights per seeded chunk: results never depend on --jobs
STATE_BUDGET = 1 << 21  # exact-solver states before it gives up
MAX_SOLVER_BYTES = 512 << 20  # ...or before its memo (values + hash table) would pass this
FIRST_BUDGET = 1 << 14  # the solver starts small and retries 8x larger on overflow
MAX_BINS = 64  # turret-attack histogram bins (last: that many or more)

# name in the results -> tracked state slot
EXPECTED = {
    "rounds": K.ROUND,
    "turret_attacks": K.AMBUSHES,
    "shots": K.SHOTS,
    "cards": K.CARDS,
    "weapons_damaged": K.JAMS,
    "jams_ignored": K.JAMS_IGNORED,
    "grenades_thrown": K.GRENADES_THROWN,
    "grenade_self_damage": K.GRENADE_DAMAGE,
    "ammo_left": K.AMMO,
    "charged_left": K.CHARGED,
    "half_left": K.HALF,
}


class ExactTooLarge(UserError):
    """The fight needs more exact-solver states than the budget allows."""


@dataclass
class TurretOdds:
    """What one fight is expected to bring: P(destroy), damage, resources, jams."""

    method: str
    fight: TurretFight
    p_destroy: float
    means: dict[str, float]  # final expected values, EXPECTED names
    p_attacks: list[float]  # P(the turret attacks k times), last: k or more
    track_damage: list[int]  # damage per attack by Detection level
    data_hash: str
    interpretation: dict[str, bool]
    weapons: list[dict[str, Any]]
    reward: tuple[str, int] | None = None
    seed: int | None = None
    games: int | None = None
    ci95: dict[str, list[float]] | None = None
    states: int | None = None
    values: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def expected_damage_taken(self) -> float:
        return self.track_damage[self.fight.detection] * self.means["turret_attacks"]

    def p_attacked_in_round(self) -> list[float]:
        """P(the turret still attacks in round k+1) = P(at least k+1 attacks)."""
        tail = np.cumsum(self.p_attacks[::-1])[::-1]
        out = [float(x) for x in tail[1:]]
        while out and out[-1] < 1e-15:
            out.pop()
        return out

    def damage_by_detection(self) -> list[dict[str, Any]]:
        by_round = self.p_attacked_in_round()
        return [
            {
                "level": lvl,
                "damage_per_attack": d,
                "expected_damage": d * self.means["turret_attacks"],
                "expected_damage_by_round": [d * p for p in by_round],
            }
            for lvl, d in enumerate(self.track_damage)
        ]

    def headline(self) -> dict[str, float]:
        out = {"damage_taken": self.expected_damage_taken}
        out.update(self.means)
        if self.reward is not None:
            out["reward"] = self.p_destroy * self.reward[1]
        return out

    def to_json(self) -> dict[str, Any]:
        f = self.fight
        out: dict[str, Any] = {
            "method": self.method,
            "fight": f.describe(),
            "turret": {
                "number": f.turret,
                "defense": f.defense,
                "reward": (
                    {"resource": self.reward[0], "amount": self.reward[1]} if self.reward else None
                ),
            },
            "weapons": self.weapons,
            "resources": {"ammo": f.ammo, "charged": f.charged, "half": f.half},
            "detection": f.detection,
            "round_limit": f.rounds or None,
            "cyborg": f.cyborg,
            "grenade": f.grenade,
            "grenade_use": f.grenade_use,
            "order": f.order,
            "probabilities": {
                "destroy": self.p_destroy,
                "survives": 1.0 - self.p_destroy,
                "turret_attacks": self.p_attacks,
                "attacked_in_round": self.p_attacked_in_round(),
            },
            "expected": self.headline(),
            "damage_by_detection": self.damage_by_detection(),
            "interpretation": self.interpretation,
            "seed": self.seed,
            "engine_version": ENGINE_VERSION,
            "data_hash": self.data_hash,
        }
        if self.values:
            out["values"] = self.values
        if self.games is not None:
            out["games"] = self.games
            out["ci95"] = self.ci95
        if self.states is not None:
            out["states"] = self.states
        return out


def _n_bins(fight: TurretFight) -> int:
    return min(round_bound(fight) + 1, MAX_BINS)


def _weapons(fight: TurretFight, data: AthenaData) -> list[dict[str, Any]]:
    order = fire_order(fight, data)
    out = []
    for w, (kind, rating) in enumerate(fight.weapons):
        k = data.weapon_kind(kind)
        out.append(
            {
                "kind": kind,
                "rating": rating,
                "cost": COST_NAMES[int(data.weapon_cost[k])],
                "phase": PHASE_NAMES[int(data.weapon_phase[k])],
                "fires": order.index(w) + 1,
            }
        )
    return out


def _reward(fight: TurretFight, data: AthenaData) -> tuple[str, int] | None:
    if fight.turret is None:
        return None
    t = int(np.flatnonzero(data.turret_number == fight.turret)[0])
    return data.turret_reward[t], int(data.turret_reward_amount[t])


def turret_defense(data: AthenaData, number: int) -> int:
    hits = np.flatnonzero(data.turret_number == number)
    if hits.size == 0:
        raise UserError(
            f"--turret {number} is not in the data pack (turrets: "
            f"{', '.join(str(n) for n in data.turret_number)})"
        )
    return int(data.turret_defense[hits[0]])


def _result(
    method: str,
    fight: TurretFight,
    data: AthenaData,
    p_destroy: float,
    means: dict[str, float],
    p_attacks: list[float],
    **kw,
) -> TurretOdds:
    return TurretOdds(
        method=method,
        fight=fight,
        p_destroy=p_destroy,
        means=means,
        p_attacks=p_attacks,
        track_damage=[int(x) for x in data.track_damage],
        data_hash=data.hash,
        interpretation=switches(fight, data),
        weapons=_weapons(fight, data),
        reward=_reward(fight, data),
        **kw,
    )


# -- exact ------------------------------------------------------------------------
def card_classes(fight: TurretFight, data: AthenaData, mx: np.ndarray):
    """Group Outcome cards that do the same thing in this fight (group_cards' outputs)."""
    acc = bool(mx[K.M_ACCUMULATE])
    cols = []
    for r in sorted({rating for _, rating in fight.weapons}):
        res = data.card_result[:, r - 1]
        dmg = np.where(res == K.HIT, data.card_damage[:, r - 1], 0)
        cols += [res, np.minimum(dmg, fight.defense) if acc else (dmg >= fight.defense)]
    if fight.grenade:
        cols.append(data.card_result[:, data.grenade_rating - 1] == K.JAM)
    effects = np.stack(cols, axis=1).astype(np.int64)
    return group_cards(effects, available(fight, data))


def exact_odds(
    fight: TurretFight, data: AthenaData, state_budget: int = STATE_BUDGET
) -> TurretOdds:
    """Exact expectations over every order the Outcome deck can be drawn in."""
    st0, mx = lower(fight, data)
    rep, full, avail, place = card_classes(fight, data, mx)
    if int(np.prod((full + 1).astype(object))) >= 2**62:
        raise UserError(
            "this Outcome deck has too many distinct cards for the exact method; use --method mc"
        )
    n_bins = _n_bins(fight)
    st = st0.copy()
    nv = K.NUM_TRACKED + n_bins
    if K.advance(st, mx) == K.DONE:
        v = np.zeros(nv)
        v[K.NUM_TRACKED] = 1.0
        states = 0
    else:
        max_depth = (
            shot_bound(fight)
            + 1
            + (round_bound(fight) if switches(fight, data)["ambush_draws_card"] else 0)
            + 3
        )
        # a state costs one row of values and (at most) four hash-table slots of 3 int64
        state_budget = min(state_budget, MAX_SOLVER_BYTES // (8 * nv + 96))
        budget = min(FIRST_BUDGET, state_budget)
        while True:
            values = np.empty((budget, nv))
            ctx = np.zeros(2, dtype=np.int64)
            row = K.solve_exact(
                st,
                avail,
                (rep, full, place),
                st0,
                mx,
                (data.card_result, data.card_damage),
                new_table(budget),
                values,
                ctx,
                max_depth,
            )
            if row >= 0:
                v = values[row].copy()
                states = int(ctx[K.CTX_STATES])
                break
            if ctx[K.CTX_OVERFLOW] == 2:
                raise RuntimeError(f"exact solver: a fight needed more than {max_depth} draws")
            if budget >= state_budget:
                raise ExactTooLarge(
                    f"the exact method needs more than {state_budget:,} states for "
                    f"{fight.describe()}; use --method mc"
                )
            budget = min(budget * 8, state_budget)
    means = {name: float(st[slot] + v[slot]) for name, slot in EXPECTED.items()}
    hist = np.zeros(n_bins)
    for k in range(n_bins):
        hist[min(k + st[K.AMBUSHES], n_bins - 1)] += v[K.NUM_TRACKED + k]
    return _result(
        "exact",
        fight,
        data,
        float(st[K.DESTROYED] + v[K.DESTROYED]),
        means,
        [float(x) for x in hist],
        states=states,
    )


# -- Monte Carlo --------------------------------------------------------------------
def _mc_chunk(rng, n, st0, mx, data: AthenaData, start_deck, n_bins):
    out_sum = np.zeros(K.NUM_TRACKED, dtype=np.int64)
    out_sq = np.zeros(K.NUM_TRACKED, dtype=np.int64)
    out_hist = np.zeros(n_bins, dtype=np.int64)
    K.simulate(
        rng, n, st0, mx, data.card_result, data.card_damage, start_deck, out_sum, out_sq, out_hist
    )
    return out_sum, out_sq, out_hist


def monte_carlo_odds(
    fight: TurretFight, data: AthenaData, games: int, seed: int, jobs: int = 1
) -> TurretOdds:
    """Monte Carlo estimate with 95% intervals; identical for any ``jobs``."""
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    st0, mx = lower(fight, data)
    start_deck = np.flatnonzero(available(fight, data)).astype(np.int64)
    n_bins = _n_bins(fight)
    sizes = chunk_sizes(games, MC_CHUNK)
    rngs = chunk_generators(seed, len(sizes))
    if jobs == 1 or len(sizes) == 1:
        parts = [
            _mc_chunk(r, n, st0, mx, data, start_deck, n_bins)
            for r, n in zip(rngs, sizes, strict=True)
        ]
    else:
        from joblib import Parallel, delayed

        from simkit.core.watch import watched

        parts = Parallel(n_jobs=jobs)(
            delayed(watched(_mc_chunk))(r, n, st0, mx, data, start_deck, n_bins)
            for r, n in zip(rngs, sizes, strict=True)
        )
    total = sum(p[0] for p in parts)
    sq = sum(p[1] for p in parts)
    hist = sum(p[2] for p in parts)
    means = {name: float(total[slot]) / games for name, slot in EXPECTED.items()}
    ci: dict[str, list[float]] = {"destroy": list(wilson_interval(int(total[K.DESTROYED]), games))}
    for name, slot in EXPECTED.items():
        ci[name] = list(mean_interval(float(total[slot]), float(sq[slot]), games))
    d = int(data.track_damage[fight.detection])
    ci["damage_taken"] = [d * x for x in ci["turret_attacks"]]
    return _result(
        "mc",
        fight,
        data,
        float(total[K.DESTROYED]) / games,
        means,
        [float(x) / games for x in hist],
        seed=seed,
        games=games,
        ci95=ci,
    )


# -- what an item is worth ------------------------------------------------------------
VALUE_FIELDS = (
    "damage_taken",
    "grenade_self_damage",
    "turret_attacks",
    "weapons_damaged",
    "ammo_left",
    "charged_left",
    "half_left",
    "rounds",
)


def item_value(with_item: TurretOdds, without: TurretOdds) -> dict[str, float]:
    """Differences (with - without) in P(destroy) and the expectations that matter."""
    a, b = with_item.headline(), without.headline()
    out = {"p_destroy": with_item.p_destroy - without.p_destroy}
    for k in VALUE_FIELDS:
        out[k] = a[k] - b[k]
    if "reward" in a:
        out["reward"] = a["reward"] - b["reward"]
    if with_item.games is not None:
        n = with_item.games
        se = math.sqrt(
            with_item.p_destroy * (1 - with_item.p_destroy) / n
            + without.p_destroy * (1 - without.p_destroy) / n
        )
        out["p_destroy_se"] = se  # as if independent: conservative with a shared seed
    return out


def turret_odds(
    fight: TurretFight,
    data: AthenaData,
    method: str = "exact",
    games: int = 200_000,
    seed: int = 0,
    jobs: int = 1,
) -> TurretOdds:
    """Odds of ``fight``; with a Cyborg or a Grenade, also what each of them is worth."""

    def run(f: TurretFight) -> TurretOdds:
        if method == "exact":
            return exact_odds(f, data)
        if method == "mc":
            return monte_carlo_odds(f, data, games=games, seed=seed, jobs=jobs)
        raise UserError(f"--method must be exact or mc, got '{method}'")

    result = run(fight)
    for item in ("cyborg", "grenade"):
        if getattr(fight, item):
            result.values[item] = item_value(result, run(fight.without(item)))
    return result

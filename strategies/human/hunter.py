"""Early military hunter: buy a mixed force early, attack Old Ones while they sleep
(un-revealed tiles score double for the Old Ones), build rails towards them, and farm
only for the Gold the army needs. In combat it plays the optimal withdraw table
(strategies.combat, simkit.combat.table): leave when fighting on is worth less than
the Old Ones' VP times the chance to destroy them, minus the Gold at risk."""

from dataclasses import dataclass

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.jit import kernel
from strategies.human.base import HeuristicParams
from strategies.human.features import (
    best_mine,
    can_build,
    farm_kinds_available,
    ok,
    plan_attack_heuristic,
    should_retrieve,
    want_army,
)


@dataclass(frozen=True)
class Hunter(HeuristicParams):
    name = "hunter"
    rail_res: float = 0.6
    rail_farm: float = 0.4
    rail_oldone: float = 2.0
    army_min: int = 4
    army_from: int = 0
    atk_ratio: float = 1.2
    atk_radius: int = -1
    atk_facedown: int = 1
    farm_safe: int = 1
    unit_w: tuple = (1.0, 1.0, 1.2, 0.8, 0.6)
    farm_min: int = 1
    atk_from: int = 4
    max_surcharge: int = 2
    withdraw: str = "table-value"  # the optimal withdraw table (value objective), solved per combat


@kernel
def choose_action(rng, S, X, W, p):
    prm = X.params
    t = X.pl[p, L.P_TIME]
    if should_retrieve(X, p):
        return L.BOX_RETRIEVE
    # once the Old Ones walk, the Port needs its garrison before more hunting
    if t >= 20 and want_army(S, X, W, p) and ok(S, X, W, p, L.BOX_MILITARY):
        return L.BOX_MILITARY
    # fight whenever a target looks worth it
    if (
        t >= prm[p, L.HP_ATK_FROM]
        and ok(S, X, W, p, L.BOX_ATTACK)
        and plan_attack_heuristic(S, X, W, p) >= 0
    ):
        return L.BOX_ATTACK
    # the army first
    if want_army(S, X, W, p) and ok(S, X, W, p, L.BOX_MILITARY):
        return L.BOX_MILITARY
    # rails bring Old Ones into range
    box = can_build(S, X, W, p)
    if box >= 0 and X.pl[p, L.P_TRACKS] < 12:
        return box
    # Gold pays for units
    if farm_kinds_available(S, X, W, p) >= 1 and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    _, value = best_mine(X, W, p)
    if value >= 1.5 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    if ok(S, X, W, p, L.BOX_MILITARY):
        return L.BOX_MILITARY
    if ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    return L.BOX_RETRIEVE

"""Rail-and-farm economist: grow the railway towards resources and farm land, farm as
much as possible, keep a small garrison once the Old Ones stir, rarely fight."""

from dataclasses import dataclass

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.jit import kernel
from strategies.human.base import HeuristicParams
from strategies.human.features import (
    best_display_slot,
    best_mine,
    can_build,
    farm_kinds_available,
    ok,
    plan_attack_heuristic,
    should_retrieve,
    want_army,
)


@dataclass(frozen=True)
class Economist(HeuristicParams):
    name = "economist"
    rail_res: float = 1.0
    rail_farm: float = 1.5
    rail_oldone: float = 0.0
    army_min: int = 2
    army_from: int = 20
    atk_ratio: float = 2.0
    atk_radius: int = 3
    atk_facedown: int = 1
    farm_safe: int = 1
    unit_w: tuple = (1.0, 0.4, 0.8, 0.6, 0.2)
    farm_min: int = 2
    atk_from: int = 30


@kernel
def choose_action(rng, S, X, W, p):
    prm = X.params
    t = X.pl[p, L.P_TIME]
    if should_retrieve(X, p):
        return L.BOX_RETRIEVE
    # a garrison once the Old Ones are close to waking, bigger when they come near
    if want_army(S, X, W, p):
        if ok(S, X, W, p, L.BOX_MILITARY):
            return L.BOX_MILITARY
        if X.pl[p, L.P_RES + L.COAL] + X.pl[p, L.P_RES + L.IRON] > 0 and ok(
            S, X, W, p, L.BOX_TRADE
        ):
            return L.BOX_TRADE  # export for Gold
    # farms are VP and Gold: plant several at once
    kinds = farm_kinds_available(S, X, W, p)
    if kinds >= min(prm[p, L.HP_FARM_MIN], 3) and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    # more railway reaches more land and mines
    box = can_build(S, X, W, p)
    if box >= 0:
        return box
    _, value = best_mine(X, W, p)
    if value >= 2.0 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    short = X.pl[p, L.P_RES + L.COAL] == 0 or X.pl[p, L.P_RES + L.IRON] == 0
    if short and X.pl[p, L.P_TRACKS] < S.r[L.R_TRACKS] and ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    if kinds >= 1 and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    slot, wish = best_display_slot(S, X, p)
    if slot >= 0 and wish >= 1.0 and ok(S, X, W, p, L.BOX_RECRUIT):
        return L.BOX_RECRUIT
    if (
        t >= prm[p, L.HP_ATK_FROM]
        and ok(S, X, W, p, L.BOX_ATTACK)
        and plan_attack_heuristic(S, X, W, p) >= 0
    ):
        return L.BOX_ATTACK
    if value > 0.0 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    if ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    return L.BOX_RETRIEVE

"""Balanced: an economy first (railway, mines, farms) until the Old Ones are about to
wake, then an army and attacks on the targets with the best expected value, while
still farming whenever several farms fit in one action."""

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
class Balanced(HeuristicParams):
    name = "balanced"
    rail_res: float = 1.0
    rail_farm: float = 1.0
    rail_oldone: float = 0.5
    army_min: int = 3
    army_from: int = 16
    atk_ratio: float = 1.5
    atk_radius: int = -1
    atk_facedown: int = 1
    farm_safe: int = 1
    unit_w: tuple = (1.0, 0.8, 1.0, 0.7, 0.4)
    farm_min: int = 2
    atk_from: int = 16


@kernel
def choose_action(rng, S, X, W, p):
    prm = X.params
    t = X.pl[p, L.P_TIME]
    late = t >= prm[p, L.HP_ARMY_FROM]
    if should_retrieve(X, p):
        return L.BOX_RETRIEVE
    kinds = farm_kinds_available(S, X, W, p)
    if kinds >= min(prm[p, L.HP_FARM_MIN], 3) and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    if late:
        if want_army(S, X, W, p) and ok(S, X, W, p, L.BOX_MILITARY):
            return L.BOX_MILITARY
        if (
            t >= prm[p, L.HP_ATK_FROM]
            and ok(S, X, W, p, L.BOX_ATTACK)
            and plan_attack_heuristic(S, X, W, p) >= 0
        ):
            return L.BOX_ATTACK
    box = can_build(S, X, W, p)
    if box >= 0 and (not late or X.pl[p, L.P_TRACKS] < 16):
        return box
    _, value = best_mine(X, W, p)
    if value >= 2.0 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    if kinds >= 1 and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    slot, wish = best_display_slot(S, X, p)
    if slot >= 0 and wish >= 1.0 and ok(S, X, W, p, L.BOX_RECRUIT):
        return L.BOX_RECRUIT
    short = X.pl[p, L.P_RES + L.COAL] == 0 or X.pl[p, L.P_RES + L.IRON] == 0
    if short and ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    if late and ok(S, X, W, p, L.BOX_MILITARY):
        return L.BOX_MILITARY
    if value > 0.0 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    if ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    return L.BOX_RETRIEVE

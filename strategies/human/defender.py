"""Port defender: farm close to home, keep the Barracks strong enough to beat whatever
walks up to the Port (a lost Port ends the game for everyone), and strike Old Ones that
come within a few hexes of it."""

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
    threat_distance,
    want_army,
)


@dataclass(frozen=True)
class Defender(HeuristicParams):
    name = "defender"
    rail_res: float = 1.0
    rail_farm: float = 1.0
    rail_oldone: float = 0.0
    army_min: int = 3
    army_from: int = 12
    atk_ratio: float = 1.5
    atk_radius: int = 5
    atk_facedown: int = 1
    farm_safe: int = 0
    unit_w: tuple = (1.0, 0.6, 1.2, 1.0, 0.2)
    farm_min: int = 1
    atk_from: int = 0


@kernel
def choose_action(rng, S, X, W, p):
    prm = X.params
    if should_retrieve(X, p):
        return L.BOX_RETRIEVE
    # the closer and stronger the awake Old Ones, the bigger the garrison
    if want_army(S, X, W, p):
        if ok(S, X, W, p, L.BOX_MILITARY):
            return L.BOX_MILITARY
        if X.pl[p, L.P_RES + L.COAL] + X.pl[p, L.P_RES + L.IRON] > 0 and ok(
            S, X, W, p, L.BOX_TRADE
        ):
            return L.BOX_TRADE  # export for Gold
    threat = threat_distance(S, X, W, p)
    # strike what comes near the Port
    if (
        threat <= prm[p, L.HP_ATK_RADIUS]
        and ok(S, X, W, p, L.BOX_ATTACK)
        and plan_attack_heuristic(S, X, W, p) >= 0
    ):
        return L.BOX_ATTACK
    # home farms and a short railway
    if farm_kinds_available(S, X, W, p) >= 1 and ok(S, X, W, p, L.BOX_FARM):
        return L.BOX_FARM
    box = can_build(S, X, W, p)
    if box >= 0 and X.pl[p, L.P_TRACKS] < 14:
        return box
    _, value = best_mine(X, W, p)
    if value >= 1.5 and ok(S, X, W, p, L.BOX_MINE):
        return L.BOX_MINE
    if ok(S, X, W, p, L.BOX_TRADE) and X.pl[p, L.P_TRACKS] < 14:
        return L.BOX_TRADE
    if ok(S, X, W, p, L.BOX_MILITARY):
        return L.BOX_MILITARY
    if ok(S, X, W, p, L.BOX_TRADE):
        return L.BOX_TRADE
    return L.BOX_RETRIEVE

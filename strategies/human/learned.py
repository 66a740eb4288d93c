"""The learned player: a linear scoring of the action boxes, fitted to the search player's
choices (simkit.learn, ``simkit learn``) and played inside the jitted engine at heuristic
speed. ``learned:PATH`` names a weights file written by ``simkit learn``.

Each turn it computes the turn's features (``turn_features``: the same quantities the
heuristics decide on, scaled to about 0..1) and takes the legal box with the highest
``sum_f w[box, f] * feature[f]``. Its smaller decisions (site, units, target, withdraw)
are the heuristics', with the parameters of the file's ``base`` strategy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import fallback_force, player_vp
from simkit.kernels.low.jit import kernel
from strategies.human.base import HeuristicParams
from strategies.human.features import (
    best_display_slot,
    best_mine,
    farm_kinds_available,
    farms_at_risk,
    nearest_to_port,
    ok,
    plan_attack_heuristic,
    public_old_ones_vp,
    should_retrieve,
    units_home,
    want_army,
)
from strategies.weights import put_weights

LEARNED_SID = 6


@kernel
def turn_features(S, X, W, p, out):
    """out[:LEARN_NUM_FEATURES] = seat p's view of this turn (game_layout.LEARN_FEATURES)."""
    pl = X.pl
    out[0] = 1.0
    out[1] = pl[p, L.P_TIME] / 30.0
    out[2] = X.g[L.G_OO_TIME] / 30.0
    out[3] = pl[p, L.P_RES + L.COAL] / 5.0
    out[4] = pl[p, L.P_RES + L.IRON] / 5.0
    out[5] = pl[p, L.P_RES + L.GOLD] / 10.0
    out[6] = pl[p, L.P_RES + L.PHOSPHATE] / 5.0
    out[7] = pl[p, L.P_TRACKS] / 20.0
    out[8] = farm_kinds_available(S, X, W, p) / 3.0
    _, value = best_mine(X, W, p)
    out[9] = value / 5.0
    out[10] = 1.0 if want_army(S, X, W, p) else 0.0
    out[11] = 1.0 if W.legal[L.BOX_ATTACK] and plan_attack_heuristic(S, X, W, p) >= 0 else 0.0
    _, wish = best_display_slot(S, X, p)
    out[12] = wish / 2.0
    out[13] = 1.0 if should_retrieve(X, p) else 0.0
    out[14] = units_home(X, p) / 5.0
    out[15] = pl[p, L.P_HQ] / 10.0
    # the race: own VP, the Old Ones' as far as seen, and the lead that decides the game
    # (Revenge: the best human against the Old One player; base: p against the best rival)
    own = player_vp(S, X, p, W.cand6)
    oo = public_old_ones_vp(S, X)
    rival = oo
    revenge = X.g[L.G_MODE] == L.MODE_REVENGE
    lead_vp = own
    for q in range(X.g[L.G_NUM_PLAYERS]):
        if q != p:
            v = player_vp(S, X, q, W.cand6)
            if revenge:
                lead_vp = max(lead_vp, v)
            else:
                rival = max(rival, v)
    out[16] = own / 20.0
    out[17] = oo / 20.0
    out[18] = (lead_vp - rival) / 20.0
    # the threat: hexes from p's Port to the nearest mover and face-down tile (10: none)
    out[19] = nearest_to_port(S, X, p, True) / 10.0
    out[20] = nearest_to_port(S, X, p, False) / 10.0
    out[21] = farms_at_risk(S, X, p) / 5.0


@kernel
def choose_action(rng, S, X, W, p):
    feats = W.learn_feats
    turn_features(S, X, W, p, feats)
    best = L.BOX_RETRIEVE
    best_v = -1e300
    for b in range(L.NUM_BOXES):
        if not ok(S, X, W, p, b):
            continue
        v = 0.0
        for f in range(L.LEARN_NUM_FEATURES):
            v += X.params[p, L.HP_LEARN_W + b * L.LEARN_NUM_FEATURES + f] * feats[f]
        if v > best_v:
            best, best_v = b, v
    return best


@kernel
def plan_attack(S, X, W, p):
    """The heuristic's target; when it plans none (the learned scores chose Attack where
    the heuristic would not), the engine's fallback target of this turn with every unit of
    the fallback type, as the search's forced Attack plays it (game_attack.attack_action)."""
    h = plan_attack_heuristic(S, X, W, p)
    return h if h >= 0 else fallback_force(X, W, p)


@dataclass(frozen=True)
class Learned(HeuristicParams):
    """A weights file's policy: the base strategy's parameters plus the box weights."""

    name = "learned"
    sid = LEARNED_SID
    weights: tuple = ()  # NUM_BOXES * LEARN_NUM_FEATURES, box-major
    base: str = "balanced"  # the strategy whose parameters make the smaller decisions

    def lower(self) -> np.ndarray:
        shape = (L.NUM_BOXES, L.LEARN_NUM_FEATURES)
        return put_weights(
            super().lower(), L.HP_LEARN_W, self.weights, shape, "learned player", "boxes"
        )

"""The learned Old One player (Revenge): a linear scoring of the four actions (Place,
Reveal, Move, Summon), fitted to the Old One search's choices (``simkit learn --side oop``)
and played inside the jitted engine at heuristic speed. ``learned:PATH`` in the Old One
seat (``--oop learned:PATH``) names a weights file ``simkit learn`` writes.

Each turn it computes the turn's features (``oop_features``: quantities the heuristics
decide on, scaled to about 0..1, game_layout.OOP_LEARN_FEATURES) and takes the legal
action with the highest ``sum_f w[action, f] * feature[f]``. Its other decisions (the
Mythos card, the level, site and tile, movement) are the heuristics', with the
parameters of the file's ``base`` Old One strategy (default ``rusher``).

It reads only what the Old One player sees: the board, its hand, the face-down tiles on
the map (it may look at them) and the piles' sizes.
"""

from __future__ import annotations

from simkit.kernels.low import game_layout as L
from simkit.kernels.low.jit import kernel
from strategies.human.features import nearest_to_port

KIND_LEARNED = 2  # X.oop_params[OP_KIND] (strategies.old_ones.policy)
NF = L.OOP_LEARN_NUM_FEATURES


@kernel
def port_defence(S, X, p):
    """How hard seat p's Port looks to take: its strength plus its units' damage capacity."""
    v = X.pl[p, L.P_PORT_STRENGTH]
    for u in range(L.NUM_UNITS):
        v += X.pl[p, L.P_UNITS + u] * S.unit_cap[u]
    return v


@kernel
def oop_features(S, X, up, down, hand, n_levels, target, out):
    """out[:OOP_LEARN_NUM_FEATURES] = the Old One player's view of this turn. ``up``,
    ``down``, ``hand``, ``n_levels``: what the engine counted for the legal actions
    (simkit.kernels.game_oop.oop_legal_actions); ``target``: the weakest Port's seat."""
    g = X.g
    end = max(S.r[L.R_END], 1)
    humans_time = 1 << 20
    for p in range(g[L.G_NUM_PLAYERS]):
        humans_time = min(humans_time, X.pl[p, L.P_TIME])
    supply = 0
    tiles = 0
    for lv in range(3):
        supply += g[L.G_OOP_LEFT + lv]
        tiles += S.r[L.R_OOP_TILES + lv]
    out[0] = 1.0
    out[1] = up / 6.0
    out[2] = down / 12.0
    out[3] = hand / 4.0
    out[4] = n_levels / 3.0
    out[5] = g[L.G_OO_TIME] / end
    out[6] = humans_time / end
    out[7] = nearest_to_port(S, X, target, True) / 10.0
    out[8] = nearest_to_port(S, X, target, False) / 10.0
    out[9] = port_defence(S, X, target) / 20.0
    out[10] = g[L.G_DIFFICULTY] / 2.0
    out[11] = g[L.G_MYTHOS_LEFT] / max(X.mythos_deck.size, 1)
    out[12] = supply / max(tiles, 1)
    out[13] = g[L.G_FARMS_BLIGHTED] / 10.0


@kernel
def best_action(X, legal, feats):
    """The legal action (OOP_*) with the highest linear score, -1 if none is legal."""
    best = -1
    best_v = -1e300
    for a in range(L.NUM_OOP_ACTIONS):
        if not legal[a]:
            continue
        v = 0.0
        for f in range(NF):
            v += X.oop_params[L.OP_LEARN_W + a * NF + f] * feats[f]
        if v > best_v:
            best, best_v = a, v
    return best

"""Game setup (base rules, Setup 1-14) into the state arrays of game_layout.

Chance comes only from ``rngs[RNG_SETUP]`` (``random()``), in this order: seat shuffle, survey
tiles and Old One stacks (simkit.kernels.low.board.random_survey_setup), Revelation decks
(level 3, 2, 1), Personality deck, Ports (reverse player order). The Old One deck needs
no shuffle: simkit.kernels.low.deck draws uniformly from the cards left.

What to set up is one int64 row (:func:`setup_row`; slots SET_*), so setup_game and the
loops above it pass one array instead of eleven scalars.
"""

import numpy as np

from simkit.kernels.game_mythos_solo import mythos_solo_setup
from simkit.kernels.game_oop import revenge_setup
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import (
    PORT_RANDOM,
    SurveyKit,
    nearest_field,
    place_ports,
    random_survey_setup,
    shuffle_prefix,
)
from simkit.kernels.low.game_common import draw_personality, log_event, occupy
from simkit.kernels.low.jit import kernel

# setup_game's row: slots of the int64 array made by setup_row
SET_PLAYERS, SET_MODE, SET_START, SET_COAL, SET_IRON, SET_GOLD = 0, 1, 2, 3, 4, 5
SET_SHUFFLE, SET_DIFFICULTY, SET_RULESET, SET_LOG, SET_CHECKED = 6, 7, 8, 9, 10
SETUP_SIZE = 11


def setup_row(
    players,
    mode,
    start_space,
    coal,
    iron,
    gold,
    *,
    shuffle_seats=False,
    difficulty=-1,
    ruleset=0,
    log_on=False,
    checked=False,
) -> np.ndarray:
    """setup_game's row: the number of seats, the MODE_*, the Time Track start space, the
    starting Coal, Iron and Gold, a random seating, the DIFFICULTY_* (-1: none), the
    RULES_*, the event log on and the invariant checks on."""
    row = np.zeros(SETUP_SIZE, dtype=np.int64)
    row[SET_PLAYERS], row[SET_MODE], row[SET_START] = players, mode, start_space
    row[SET_COAL], row[SET_IRON], row[SET_GOLD] = coal, iron, gold
    row[SET_SHUFFLE], row[SET_DIFFICULTY], row[SET_RULESET] = shuffle_seats, difficulty, ruleset
    row[SET_LOG], row[SET_CHECKED] = log_on, checked
    return row


@kernel
def reset_state(S, X, W):
    """Every state array back to 'before setup' (no pieces anywhere)."""
    for k in range(X.g.size):
        X.g[k] = 0
    for p in range(X.pl.shape[0]):
        for k in range(X.pl.shape[1]):
            X.pl[p, k] = 0
    n = X.hx.shape[0]
    for h in range(n):
        for k in range(X.hx.shape[1]):
            X.hx[h, k] = 0
    for h in range(n):
        X.hx[h, L.H_FARM_OWNER] = -1
        X.hx[h, L.H_FARM_KIND] = -1
        X.hx[h, L.H_PORT_OWNER] = -1
        X.hx[h, L.H_SPAWN] = -1
        X.hx[h, L.H_OUTPOST] = -1
        X.hex_farm[h] = 0
        X.hex_target[h] = False
        X.hex_blocked[h] = False
        X.hex_old_ones[h] = False
        for k in range(6):
            X.edge_owner[h, k] = -1
        W.hex_tile[h] = -1
        W.hex_spawn[h] = -1
        W.hex_marks[h] = 0
        for r in range(L.NUM_RES):
            W.hex_res[h, r] = 0
    for i in range(X.tile_hex.size):
        X.tile_hex[i] = -1
        X.tile_up[i] = False
        X.tile_state[i] = L.TILE_STACK
        W.set_aside[i] = 0
        X.tile_holder[i] = -1
        X.tile_last_hex[i] = -1
        for p in range(L.MAX_PLAYERS):
            X.tile_dmg[i, p] = 0
            X.tile_cubes[i, p] = 0
    for lv in range(3):
        X.stack_top[lv] = 0
        X.stack_size[lv] = S.stack_size0[lv]
        for j in range(S.stacks0.shape[1]):
            X.stacks[lv, j] = S.stacks0[lv, j]
    for j in range(W.order.size):
        W.order[j] = j
    for j in range(X.display.size):
        X.display[j] = -1


@kernel
def setup_game(rngs, S, X, W, setup):
    """Set up one game as the row ``setup`` says (setup_row). The strategies per seat
    (X.sid, X.params) are given for seats in the order the caller listed them; with
    SET_SHUFFLE the seating is random (the first player is seat 0 after the shuffle, base
    Setup 13). W.seat_perm[seat] = the caller's index of the strategy in that seat."""
    num_players = setup[SET_PLAYERS]
    mode = setup[SET_MODE]
    start_space = setup[SET_START]
    difficulty = setup[SET_DIFFICULTY]
    ruleset = setup[SET_RULESET]
    reset_state(S, X, W)
    g = X.g
    g[L.G_NUM_PLAYERS] = num_players
    g[L.G_MODE] = mode
    g[L.G_DIFFICULTY] = difficulty
    g[L.G_LOG_ON] = setup[SET_LOG]
    g[L.G_CHECKED] = setup[SET_CHECKED]
    g[L.G_PORT_LOST_BY] = -1
    r = S.r

    # Setup 13: random first player = random seating of the strategies.
    for p in range(L.MAX_PLAYERS):
        W.seat_perm[p] = p
    if setup[SET_SHUFFLE] != 0:
        shuffle_prefix(rngs[L.RNG_SETUP], W.seat_perm, num_players)
    # permute sid/params in place by the permutation (selection into the free slots)
    for p in range(num_players):
        W.choice[p] = X.sid[p]
    for p in range(num_players):
        X.sid[p] = W.choice[W.seat_perm[p]]
    for k in range(L.NUM_PARAMS):
        for p in range(num_players):
            W.vals[p] = X.params[p, k]
        for p in range(num_players):
            X.params[p, k] = W.vals[W.seat_perm[p]]

    # Setup 4-6: survey, resources and Old One tiles.
    survey = SurveyKit(
        S.neighbors,
        S.hex_terrain,
        S.hex_level,
        S.survey_hex,
        S.survey_resource,
        S.survey_old_one,
        S.tile_level,
        X.stacks,
        X.stack_top,
        X.stack_size,
        W.hex_res,
        W.hex_tile,
        W.hex_spawn,
        W.hex_marks,
        W.set_aside,
    )  # the fields in SurveyKit's order (simkit.kernels.low.board.SURVEY_FIELDS)
    random_survey_setup(rngs[L.RNG_SETUP], survey, W.order, mode == L.MODE_REVENGE)
    n = X.hx.shape[0]
    for h in range(n):
        for res in range(L.NUM_RES):
            X.hx[h, L.H_RES + res] = W.hex_res[h, res]
        t = W.hex_tile[h]
        if t >= 0:
            X.tile_hex[t] = h
            X.tile_state[t] = L.TILE_BOARD
            occupy(X, h)
    for i in range(X.tile_hex.size):
        if W.set_aside[i] != 0:
            X.tile_state[i] = L.TILE_ASIDE
    # tiles drawn for an upgrade and then replaced are aside; the rest stay in the stacks

    # Setup 7: Revelation deck, level-3 cards at the bottom, level 1 on top.
    per = r[L.R_REV_PER_LEVEL]
    nrev = S.rev_level.size
    pos = 3 * per
    for lv in range(3, 0, -1):
        m = 0
        for c in range(nrev):
            if S.rev_level[c] == lv:
                W.tiles[m] = c
                m += 1
        shuffle_prefix(rngs[L.RNG_SETUP], W.tiles, m)
        pos -= per
        for j in range(per):
            X.rev_deck[pos + j] = W.tiles[j]
    g[L.G_REV_POS] = 0
    g[L.G_REV_SIZE] = 3 * per

    # Setup 8: Personality deck, five cards drawn into the display, left to right.
    npers = S.pers_effect.size
    for c in range(npers):
        X.pers_deck[c] = c
    shuffle_prefix(rngs[L.RNG_SETUP], X.pers_deck, npers)
    g[L.G_PERS_POS] = 0
    g[L.G_PERS_SIZE] = npers
    for j in range(r[L.R_DISPLAY]):
        X.display[j] = draw_personality(X)

    # Setup 9: the Old One deck (drawn uniformly from the cards left: no shuffle needed).
    for c in range(X.oo_deck.size):
        X.oo_deck[c] = c
    g[L.G_DECK_LEFT] = X.oo_deck.size

    # Setup 10-13: Time Track. Purple disc on 22 at the bottom; players stacked with the
    # first player on top (highest arrival stamp).
    g[L.G_OO_TIME] = r[L.R_OO_START]
    g[L.G_OO_ARRIVAL] = 0
    for u in range(L.NUM_UNITS):
        g[L.G_SUPPLY + u] = S.unit_supply[u]
    for p in range(num_players):
        X.pl[p, L.P_ACTIVE] = 1
        X.pl[p, L.P_TIME] = start_space
        X.pl[p, L.P_PREV_TIME] = start_space
        X.pl[p, L.P_ARRIVAL] = num_players - p
        X.pl[p, L.P_RES + L.COAL] = setup[SET_COAL]
        X.pl[p, L.P_RES + L.IRON] = setup[SET_IRON]
        X.pl[p, L.P_RES + L.GOLD] = setup[SET_GOLD]
        X.pl[p, L.P_HQ] = r[L.R_CUBES]
        X.pl[p, L.P_STRATEGY] = X.sid[p]
    g[L.G_ARRIVALS] = num_players

    # Setup 14: Ports in reverse player order, 3+ hexes apart.
    stuck = place_ports(
        rngs[L.RNG_SETUP],
        S.hex_q,
        S.hex_r,
        S.hex_port,
        num_players,
        PORT_RANDOM,
        W.port_hex,
        W.mask,
    )
    if stuck >= 0:
        g[L.G_OVER] = 1
        g[L.G_END_REASON] = L.END_ABORT
        return
    for p in range(num_players):
        h = W.port_hex[p]
        X.pl[p, L.P_PORT] = h
        X.hx[h, L.H_PORT_OWNER] = p
        X.hex_target[h] = True
        for m in range(n):
            W.mask[m] = m == h
        nearest_field(S.hex_dist, W.mask, W.dist2)
        for m in range(n):
            X.port_dist[p, m] = W.dist2[m]
    for p in range(num_players - 1, -1, -1):
        log_event(
            X,
            L.EV_SETUP,
            start_space,
            p,
            X.pl[p, L.P_PORT],
            start_space,
            X.sid[p],
            W.seat_perm[p],
            0,
        )
    if mode == L.MODE_REVENGE:
        revenge_setup(rngs, S, X, W, difficulty, ruleset)
    elif mode == L.MODE_MYTHOS_SOLO:
        mythos_solo_setup(rngs, S, X, W)

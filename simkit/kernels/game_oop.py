"""Revenge of the Old Ones: setup additions and the Old One *player's* turn
(revenge-of-the-old-ones-rules.txt). Elsewhere: Port / Outpost fights game_defence,
Outpost purchases game_outpost, Mythos turn cards game_mythos_cards, combat Mythos cards
game_mythos_combat, Mythos Solo game_mythos_solo (all in simkit.kernels).

One OOP turn = one action (1 TP): Place, Reveal, Move (four movement cards, the OOP picks
among eligible hexes, Old Ones stop at Farms) or Summon (draw three Mythos, keep one, two
to the bottom); before it the OOP may play one Mythos card (its TP cost moves the disc;
a card costing TP ends the turn, and the game loop gives the OOP its next turn at once if
its disc is still the lowest, so several cards in a row remain possible; only 0-TP turn
cards, of which the shipped data has none, are limited to one per turn).
Decisions follow X.oop_params (strategies/old_ones).

Every Mythos effect type (game_layout MYTH_* ids) is implemented. On the
OOP's turn (game_mythos_cards): 0 place_tiles_near_port, 1 extra_time_next_combat,
2 blight_farms, 4 move_closest_old_one, 5 remove_rails, 6 level3_at_temple,
8 remove_recent_unit, 9 destroy_airship, 12 block_action_boxes, 13 level3_near_port,
14 take_trophy. During combats, off-turn too (game_mythos_combat): 3 combat_damage_and_sanity,
7 port_combat_extra_damage, 10 temple_attack_extra_capacity, 11 ghoul_joins_combat.
"""

from simkit.kernels.game_defence import (  # noqa: F401  (re-exported: the fights live there)
    count_in_hex,
    outpost_defence,
    resolve_revenge_fights,
    revenge_port_defence,
)
from simkit.kernels.game_mythos_cards import (  # noqa: F401  (re-exported)
    COMBAT_EFFECTS,
    effect_implemented,
    mythos_applicable,
    play_mythos,
    put_tile,
    take_oop_tile,
    take_unused_tile,
)
from simkit.kernels.game_old_ones import move_with_card_policy, movers_exist
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import (
    advance_disc,
    draw_oo_card,
    draw_personality,
    flip_tile,
    log_event,
    now,
    oop_refused,
)
from simkit.kernels.low.game_outpost import MAX_OUTPOSTS, maybe_outpost  # noqa: F401  (re-exported)
from simkit.kernels.low.jit import kernel
from simkit.kernels.low.rand import uniform
from strategies.old_ones import policy


# -- setup -------------------------------------------------------------------------------------
@kernel
def revenge_setup(rngs, S, X, W, diff, ruleset):
    """After the base setup (survey with Spawn tiles, Ports): ``diff`` (DIFF_*) and
    ``ruleset`` (RULES_*); 2 Infantry and a Personality per human; Port
    tokens; the OOP's 9/6/4 tiles; the Mythos deck and a 3-card hand; purple disc at the
    bottom of the players' start space, awake."""
    g = X.g
    g[L.G_DIFFICULTY] = diff
    g[L.G_RULESET] = ruleset
    n = X.hx.shape[0]
    for h in range(n):
        X.hx[h, L.H_SPAWN] = W.hex_spawn[h]
        if W.hex_spawn[h] >= 0:
            X.hex_blocked[h] = True
    strength = 0
    if diff == L.DIFF_NORMAL:
        strength = S.port_rev[L.PR_STRENGTH_NORMAL]
    elif diff == L.DIFF_HARD:
        strength = S.port_rev[L.PR_STRENGTH_WEAK]
    human_extras(S, X, strength)
    # OOP's tiles: the next 9 / 6 / 4 (game.toml [revenge]) of the shuffled stacks (the rest
    # are "unused")
    for lv in range(3):
        g[L.G_OOP_LEFT + lv] = min(S.r[L.R_OOP_TILES + lv], X.stack_size[lv] - X.stack_top[lv])
    shuffle_mythos(rngs, S, X)
    for _ in range(3):
        c = mythos_draw(X)
        if c >= 0:
            X.mythos_hand[c] = 1
    # the purple disc starts with the players, at the bottom of the stack, awake
    g[L.G_OO_TIME] = X.pl[0, L.P_TIME]
    g[L.G_OO_ARRIVAL] = 0
    g[L.G_AWAKE] = 1


@kernel
def human_extras(S, X, strength):
    """Revenge Setup 3 and 5 (and Mythos Solo Setup 3-4): Port tokens of ``strength`` (0:
    base-game Ports), two Infantry and one Personality each, in turn order, the display
    refilled after each."""
    g = X.g
    g[L.G_PORT_START] = strength
    nplay = g[L.G_NUM_PLAYERS]
    for p in range(nplay):
        X.pl[p, L.P_PORT_STRENGTH] = strength
        take = min(2, g[L.G_SUPPLY + L.INFANTRY])
        X.pl[p, L.P_UNITS + L.INFANTRY] += take
        g[L.G_SUPPLY + L.INFANTRY] -= take
    D = S.r[L.R_DISPLAY]
    for p in range(nplay):
        best = -1
        best_w = -1e18
        for j in range(D):
            c = X.display[j]
            if c >= 0:
                w = X.params[p, L.HP_PERS_W + S.pers_effect[c]] + 1e-3 * S.pers_vp[c]
                if w > best_w:
                    best_w = w
                    best = j
        if best >= 0:
            c = X.display[best]
            X.pl[p, L.P_PERS] |= 1 << c
            X.pl[p, L.P_PERS_VP] += S.pers_vp[c]
            log_event(X, L.EV_RECRUIT, X.pl[p, L.P_TIME], p, c, best, -1, 0, 0)
            X.display[best] = draw_personality(X)


@kernel
def shuffle_mythos(rngs, S, X):
    """The Mythos deck, every printed card (what each does is the game's content mode:
    simkit.game.mythos.played_cards), shuffled, as the draw pile; nobody holds a card."""
    g = X.g
    nm = 0
    for c in range(S.myth_effect.size):
        X.mythos_hand[c] = 0
        X.mythos_deck[nm] = c
        nm += 1
    for j in range(nm - 1, 0, -1):
        k = int(uniform(rngs[L.RNG_MYTHOS]) * (j + 1))
        t = X.mythos_deck[j]
        X.mythos_deck[j] = X.mythos_deck[k]
        X.mythos_deck[k] = t
    g[L.G_MYTHOS_POS] = 0
    g[L.G_MYTHOS_LEFT] = nm


@kernel
def mythos_draw(X):
    g = X.g
    if g[L.G_MYTHOS_LEFT] <= 0:
        return -1
    nm = X.mythos_deck.size
    c = X.mythos_deck[g[L.G_MYTHOS_POS]]
    g[L.G_MYTHOS_POS] = (g[L.G_MYTHOS_POS] + 1) % nm
    g[L.G_MYTHOS_LEFT] -= 1
    return c


@kernel
def mythos_bottom(X, c):
    g = X.g
    nm = X.mythos_deck.size
    X.mythos_deck[(g[L.G_MYTHOS_POS] + g[L.G_MYTHOS_LEFT]) % nm] = c
    g[L.G_MYTHOS_LEFT] += 1


# -- helpers -----------------------------------------------------------------------------------
@kernel
def take_spawn(X, h, p, shared):
    """The (now empty) Spawn tile in h is removed. Alone, player p keeps it (1 VP at game
    end); "in the case of a shared victory, each participating player gains 1 VP token
    immediately and the tile is removed": ``shared`` is the bit mask of those players
    (0 or a single bit: p alone)."""
    if X.hx[h, L.H_SPAWN] < 0 or count_in_hex(X, h) > 0:
        return
    X.hx[h, L.H_SPAWN] = -1
    X.hex_blocked[h] = False
    X.g[L.G_SPAWNS_TAKEN] += 1
    if shared & (shared - 1) == 0:
        log_event(X, L.EV_REVENGE, X.pl[p, L.P_TIME], p, L.RV_SPAWN_TAKEN, h, 1, 0, 0)
        X.pl[p, L.P_SPAWNS] += 1
        X.pl[p, L.P_VP_TOKENS] += 1
        return
    for q in range(L.MAX_PLAYERS):
        if (shared >> q) & 1:
            log_event(X, L.EV_REVENGE, X.pl[p, L.P_TIME], q, L.RV_SPAWN_TAKEN, h, 1, shared, 0)
            X.pl[q, L.P_VP_TOKENS] += 1


@kernel
def place_legal(S, X, h, lv):
    """A tile of level lv may go on the Spawn tile in h (level rule, Dangerous +1)."""
    sp = X.hx[h, L.H_SPAWN]
    if sp < 0 or S.hex_level[h] < 1:
        return False
    return S.hex_level[h] + sp >= lv


@kernel
def place_sites(S, X, W, lv):
    """W.hexes[:k] = the hexes a level-lv tile may be placed on (empty Spawn tiles, or
    occupied ones when no empty one of the required level remains). Returns k."""
    n = X.hx.shape[0]
    k = 0
    for h in range(n):
        if place_legal(S, X, h, lv) and count_in_hex(X, h) == 0:
            W.hexes[k] = h
            k += 1
    if k > 0:
        return k
    for h in range(n):
        if place_legal(S, X, h, lv) and count_in_hex(X, h) < L.MAX_IN_HEX:
            W.hexes[k] = h
            k += 1
    return k


@kernel
def has_place_site(S, X, lv):
    """place_sites(S, X, W, lv) > 0, without listing them: the first legal hex answers
    (an empty Spawn tile is also one with room, so one scan covers both of its cases)."""
    for h in range(X.hx.shape[0]):
        if place_legal(S, X, h, lv) and count_in_hex(X, h) < L.MAX_IN_HEX:
            return True
    return False


@kernel
def place_levels(X, out3):
    """out3[lv] = 1 if a tile of level lv+1 may be taken now: from the largest set, or any
    lower level (rules: 'you may place the lower levels even if there are fewer left')."""
    g = X.g
    most = 0
    for lv in range(3):
        most = max(most, g[L.G_OOP_LEFT + lv])
    top = -1
    for lv in range(3):
        if most > 0 and g[L.G_OOP_LEFT + lv] == most:
            top = lv
    for lv in range(3):
        out3[lv] = 1 if (top >= 0 and lv <= top and g[L.G_OOP_LEFT + lv] > 0) else 0
    return top


# -- fights (simkit.kernels.game_defence) -------------------------------------------------
@kernel
def oop_move(rngs, S, X, W):
    policy = int(X.oop_params[L.OP_MOVE_POLICY])
    # "If a Farm/Port/Outpost is reached, that Old One stops moving": for the rest of
    # this Move action, so the four cards share one set of stops (W.stopped)
    for j in range(4):
        c = draw_oo_card(rngs, X)
        move_with_card_policy(rngs, S, X, W, c, -1, policy, True, j == 0)
    resolve_revenge_fights(rngs, S, X, W)


# -- human hooks -------------------------------------------------------------------------------
@kernel
def after_attack(X, h, p):
    """A human attack on h is over: an empty Spawn tile left there is removed, shared
    among the players who had damage on the Old Ones destroyed there (G_KILL_MASK)."""
    if X.hx[h, L.H_SPAWN] >= 0 and count_in_hex(X, h) == 0:
        take_spawn(X, h, p, X.g[L.G_KILL_MASK])


# -- the OOP's turn ----------------------------------------------------------------------------
@kernel
def face_counts(S, X, out2):
    """out2 = (face-up movers, face-down tiles) on the map."""
    up = 0
    down = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] < 0:
            continue
        if not X.tile_up[i]:
            down += 1
        else:
            t = S.tile_type[i]
            if t >= 0 and t != L.TEMPLE and S.type_moves[t]:
                up += 1
    out2[0] = up
    out2[1] = down


@kernel
def playable_mythos(S, X, W, target, cards):
    """cards[:k] = the Mythos cards in hand the OOP may play now (effect implemented,
    applicable, its TP cost fits before the end space). Returns k."""
    g = X.g
    k = 0
    for c in range(S.myth_effect.size):
        if X.mythos_hand[c] == 0 or not effect_implemented(S.myth_effect[c]):
            continue
        if g[L.G_OO_TIME] + S.myth_tp[c] > S.r[L.R_END]:
            continue
        if not mythos_applicable(S, X, W, c, target):
            continue
        cards[k] = c
        k += 1
    return k


@kernel
def place_choices(S, X, W, levels):
    """levels[:k] = the 0-based tile levels the OOP may place now that have a legal site,
    ascending. Returns k. (Every OOP turn asks this for its legal actions, so it only
    checks that a site exists; place_sites lists them once a level has been chosen.)"""
    lv_ok = W.cand6
    place_levels(X, lv_ok)  # fills lv_ok[:3] with the levels that may be taken
    k = 0
    for lv in range(3):
        if lv_ok[lv] == 1 and has_place_site(S, X, lv + 1):
            levels[k] = lv
            k += 1
    return k


@kernel
def forced_place_legal(S, X, W, levels, n, lv, h):
    """A look-ahead's Place (0-based level lv, hex h) is legal now: lv is one of the
    ``levels[:n]`` that may be placed and h one of its sites (place_sites fills W.hexes)."""
    ok = False
    for i in range(n):
        if levels[i] == lv:
            ok = True
    if not ok:
        return False
    m = place_sites(S, X, W, lv + 1)
    for i in range(m):
        if W.hexes[i] == h:
            return True
    return False


@kernel
def place_options(S, X, W, out):
    """out[:k] = every legal Place now as G_FORCED_PLACE's code less 1 (level index *
    PLACE_CODE + hex), by level then site. Returns k (a look-ahead's sub-choices)."""
    levels = W.choice
    n = place_choices(S, X, W, levels)
    k = 0
    for i in range(n):
        lv = levels[i]
        m = place_sites(S, X, W, lv + 1)
        for j in range(m):
            out[k] = lv * L.PLACE_CODE + W.hexes[j]
            k += 1
    return k


@kernel
def oop_legal_actions(S, X, W, legal):
    """legal[a] = OOP action a (OOP_PLACE / REVEAL / MOVE / SUMMON) may be taken now.
    Returns (face-up movers, face-down tiles on the map, Mythos cards in hand, the number
    of levels that may be placed; those levels are in W.choice)."""
    face_counts(S, X, W.dmg)
    up = W.dmg[0]
    down = W.dmg[1]
    n_levels = place_choices(S, X, W, W.choice)
    legal[L.OOP_PLACE] = n_levels > 0
    legal[L.OOP_REVEAL] = down > 0
    legal[L.OOP_MOVE] = up > 0 and movers_exist(S, X, -1)
    legal[L.OOP_SUMMON] = X.g[L.G_MYTHOS_LEFT] > 0
    hand = 0
    for c in range(S.myth_effect.size):
        hand += X.mythos_hand[c]
    return up, down, hand, n_levels


@kernel
def oop_turn(rngs, S, X, W):
    """The Old One player is the active player: at most one Mythos card, then one action.
    Each choice: the engine lists the legal options, strategies.old_ones.policy answers,
    the engine checks the answer (G_FORCED_OOP_ACTION: a look-ahead chose the action;
    G_FORCED_PLACE / G_FORCED_REVEAL its Place or Reveal, played when still legal)."""
    g = X.g
    rng = rngs[L.RNG_OOP]
    g[L.G_OO_TURNS] += 1
    forced = g[L.G_FORCED_OOP_ACTION] - 1
    forced_place = g[L.G_FORCED_PLACE] - 1  # -1: the strategy's level and site
    forced_reveal = g[L.G_FORCED_REVEAL] - 1  # -1: the strategy's tile
    g[L.G_FORCED_OOP_ACTION] = 0
    g[L.G_FORCED_PLACE] = 0
    g[L.G_FORCED_REVEAL] = 0
    nplay = g[L.G_NUM_PLAYERS]
    target = policy.pick_target(rng, S, X)
    if not 0 <= target < nplay:
        oop_refused(X, L.DEC_OOP_TARGET, target)
        target = 0
    log_event(X, L.EV_OO_TURN, g[L.G_OO_TIME], -1, g[L.G_OO_TIME], 0, 0, 0, 0)
    # a Mythos card (not after the disc has reached the end; its cost must fit)
    cards = W.cand_h
    k = playable_mythos(S, X, W, target, cards)
    j = policy.choose_mythos(rng, S, X, cards, k)  # asked also when forced: the same draws
    if j >= k or j < -1:
        oop_refused(X, L.DEC_OOP_MYTHOS, j)
        j = -1
    forced_card = g[L.G_FORCED_MYTHOS] - 2  # -1: none; -2: the strategy's (j)
    g[L.G_FORCED_MYTHOS] = 0
    if forced_card == -1:
        j = -1
    elif forced_card >= 0:
        chosen = -1
        for i in range(k):
            if cards[i] == forced_card:
                chosen = i
        if chosen < 0:
            g[L.G_FORCED_FALLBACKS] += 1  # not playable this turn: the strategy's card
        else:
            j = chosen
    if j >= 0:
        best = cards[j]
        cost = S.myth_tp[best]
        if cost > 0:
            advance_disc(X, cost)
        if play_mythos(rngs, S, X, W, best, target, L.MYTHOS_PLAYED, cost):
            return
        if cost > 0:
            return
    # one action
    legal = W.oop_legal
    up, down, hand, n_levels = oop_legal_actions(S, X, W, legal)
    if forced >= 0 and legal[forced]:
        action = forced
    else:
        if forced >= 0:
            g[L.G_FORCED_FALLBACKS] += 1  # the Mythos card made the chosen action illegal
        action = policy.choose_action(rng, S, X, W, legal, up, down, hand, n_levels)
        if action < 0 or action > 3 or not legal[action]:
            if action >= 0 or legal[0] or legal[1] or legal[2] or legal[3]:
                oop_refused(X, L.DEC_OOP_ACTION, action)
            action = -1
            for a in (L.OOP_MOVE, L.OOP_REVEAL, L.OOP_PLACE, L.OOP_SUMMON):
                if legal[a] and action < 0:
                    action = a
    advance_disc(X, 1)
    if action < 0:
        return
    g[L.G_OOP_ACTIONS + action] += 1
    if action == L.OOP_PLACE:
        levels = W.choice  # listed by oop_legal_actions; nothing has moved since
        n = n_levels
        j = policy.pick_place_level(rng, X, levels, n)
        if not 0 <= j < n:
            oop_refused(X, L.DEC_OOP_PLACE_LEVEL, j)
            j = n - 1
        place_lv = levels[j]
        m = place_sites(S, X, W, place_lv + 1)
        j = policy.pick_site(rng, S, X, W, m, target)  # asked also when forced: same draws
        if not 0 <= j < m:
            oop_refused(X, L.DEC_OOP_SITE, j)
            j = 0
        h = W.hexes[j]
        if forced_place >= 0:
            f_lv, f_h = divmod(forced_place, L.PLACE_CODE)
            if forced_place_legal(S, X, W, levels, n, f_lv, f_h):
                place_lv, h = f_lv, f_h
            else:
                g[L.G_FORCED_FALLBACKS] += 1  # the Mythos card changed the board: policy's
        t = take_oop_tile(X, place_lv)
        log_event(X, L.EV_OOP_ACTION, now(X), -1, L.OOP_PLACE, t, h, place_lv + 1, 0)
        if t >= 0 and h >= 0:
            put_tile(S, X, t, h, False)
    elif action == L.OOP_REVEAL:
        tiles = W.tiles
        n = 0
        for i in range(X.tile_hex.size):
            if X.tile_hex[i] >= 0 and not X.tile_up[i]:
                tiles[n] = i
                n += 1
        j = policy.pick_reveal(rng, S, X, tiles, n, target)
        if not 0 <= j < n:
            oop_refused(X, L.DEC_OOP_REVEAL, j)
            j = 0
        best = tiles[j]
        if forced_reveal >= 0:
            if X.tile_hex[forced_reveal] >= 0 and not X.tile_up[forced_reveal]:
                best = forced_reveal
            else:
                g[L.G_FORCED_FALLBACKS] += 1  # no longer face down on the map: policy's
        log_event(X, L.EV_OOP_ACTION, now(X), -1, L.OOP_REVEAL, best, X.tile_hex[best], 0, 0)
        flip_tile(S, X, best, -1)
    elif action == L.OOP_MOVE:
        log_event(X, L.EV_OOP_ACTION, now(X), -1, L.OOP_MOVE, -1, -1, 4, 0)
        oop_move(rngs, S, X, W)
    else:
        drawn = 0
        for _ in range(3):
            c = mythos_draw(X)
            if c < 0:
                break
            W.choice[drawn] = c
            drawn += 1
        kept = policy.keep_summoned(rng, S, X, W.choice, drawn) if drawn > 0 else -1
        if drawn > 0 and not 0 <= kept < drawn:
            oop_refused(X, L.DEC_OOP_SUMMON, kept)
            kept = 0
        for j in range(drawn):
            if j == kept:
                X.mythos_hand[W.choice[j]] = 1
            else:
                mythos_bottom(X, W.choice[j])
        log_event(
            X,
            L.EV_OOP_ACTION,
            now(X),
            -1,
            L.OOP_SUMMON,
            W.choice[kept] if drawn > 0 else -1,
            -1,
            drawn,
            0,
        )


@kernel
def revenge_oop_vp(S, X, out3):
    """out3 = (Old Ones on the map at face value, 0, R_REV_BLIGHT_VP per blighted Farm); returns
    the OOP total including the VP tokens from eliminations (units, Outposts, Ports)."""
    on_map = 0
    for i in range(X.tile_hex.size):
        if X.tile_hex[i] >= 0:
            on_map += S.tile_vp[i]
    blighted = 0
    for h in range(X.hex_farm.size):
        if X.hex_farm[h] == 2:
            blighted += 1
    out3[0] = on_map
    out3[1] = 0
    out3[2] = blighted * S.r[L.R_REV_BLIGHT_VP]
    return out3[0] + out3[2] + X.g[L.G_OOP_VP]

"""Revenge rules on constructed states: Summon keeps one, Mythos TP and timing, Port flip
4 -> 2, OOP VP on eliminations, outpost defence. Fights run on a scripted Old One deck
(conftest.scripted_engine), one constructed case per branch of a rule."""

import numpy as np
import pytest
from conftest import hits, mythos_card, put_old_one, revenge_position, scripted_engine

from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams
from simkit.kernels.game_oop import oop_turn, outpost_defence, revenge_port_defence
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.names import UNITS


@pytest.fixture(scope="module")
def eng():
    return Engine()


# -- constructed positions -------------------------------------------------------------------
# A scripted Old One deck (conftest.scripted_engine) makes every fight and move do exactly
# what the test needs; the assertions are what the rule text says happens.


def _clear_board(X):
    """No Old One tile on the map (Spawn tiles stay), no Mythos card in the OOP's hand."""
    X.mythos_hand[:] = 0
    X.tile_hex[:] = -1
    X.tile_state[X.tile_state == L.TILE_BOARD] = L.TILE_ASIDE
    X.hex_old_ones[:] = False
    X.hex_blocked[:] = X.hx[:, L.H_SPAWN] >= 0


def _empty(X, h):
    return (
        X.hx[h, L.H_SPAWN] < 0
        and X.hx[h, L.H_PORT_OWNER] < 0
        and X.hx[h, L.H_FARM_OWNER] < 0
        and X.hx[h, L.H_OUTPOST] < 0
        and X.hx[h, L.H_RES : L.H_RES + L.NUM_RES].sum() == 0
    )


def _farm(X, h, owner=0):
    X.hx[h, L.H_FARM_OWNER] = owner
    X.hx[h, L.H_FARM_KIND] = 0
    X.hex_farm[h] = 1
    X.hex_target[h] = True


def _open_hex(X):
    """The first hex with no piece and no Old One (an Outpost site off the rail network)."""
    return int(next(h for h in range(X.hx.shape[0]) if _empty(X, h) and not X.hex_blocked[h]))


def _barracks(X, p, **units):
    """p's Barracks hold exactly ``units`` (name -> count; the rest go back to the supply)."""
    for u, name in enumerate(UNITS):
        k = units.get(name, 0)
        X.g[L.G_SUPPLY + u] += X.pl[p, L.P_UNITS + u] - k
        X.pl[p, L.P_UNITS + u] = k


def _worn(eng, i, p=0):
    """Tile i one damage (player p's cubes) short of its capacity: the next hit destroys it."""
    from simkit.kernels.game_combat import add_damage

    add_damage(eng.X, i, p, int(eng.arrays.tile_cap[i]) - 1)


ZOMBIE_ROW = L.ZOMBIE


def test_summon_keeps_one_and_two_go_to_the_bottom(eng):
    X = revenge_position(eng)
    X.g[L.G_OOP_LEFT : L.G_OOP_LEFT + 3] = 0  # nothing to place, reveal or move
    X.mythos_hand[:] = 0
    X.oop_params[L.OP_PLAY_MYTHOS] = 0
    left = X.g[L.G_MYTHOS_LEFT]
    pos = X.g[L.G_MYTHOS_POS]
    top3 = [X.mythos_deck[(pos + j) % X.mythos_deck.size] for j in range(3)]
    t = X.g[L.G_OO_TIME]
    oop_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.g[L.G_OO_TIME] == t + 1
    assert X.g[L.G_OOP_ACTIONS + L.OOP_SUMMON] == 1
    assert X.mythos_hand.sum() == 1 and X.g[L.G_MYTHOS_LEFT] == left - 1
    kept = int(np.flatnonzero(X.mythos_hand)[0])
    assert kept in top3
    n = X.mythos_deck.size
    bottom = [
        X.mythos_deck[(X.g[L.G_MYTHOS_POS] + X.g[L.G_MYTHOS_LEFT] - 2 + j) % n] for j in range(2)
    ]
    assert sorted(bottom) == sorted(c for c in top3 if c != kept)


def test_mythos_costs_its_tp_and_ends_the_turn(eng):
    X = revenge_position(eng)
    X.mythos_hand[:] = 0
    c = mythos_card(eng, "extra_time_next_combat")  # Atlach-Nacha
    X.mythos_hand[c] = 1
    X.oop_params[L.OP_PLAY_MYTHOS] = 1.0
    t = X.g[L.G_OO_TIME]
    oop_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.mythos_hand[c] == 0 and X.g[L.G_MYTHOS_PLAYED] == 1
    assert X.g[L.G_OO_TIME] == t + eng.arrays.myth_tp[c]
    assert X.g[L.G_EXTRA_TIME] == eng.arrays.myth_amount[c]
    assert X.g[L.G_OOP_ACTIONS : L.G_OOP_ACTIONS + 4].sum() == 0  # the card was the turn


def test_mythos_not_played_past_the_end(eng):
    X = revenge_position(eng)
    X.mythos_hand[:] = 0
    c = mythos_card(eng, "block_action_boxes")  # Nyarlathotep, 2 TP
    assert eng.arrays.myth_tp[c] == 2
    X.mythos_hand[c] = 1
    X.oop_params[L.OP_PLAY_MYTHOS] = 1.0
    X.g[L.G_OO_TIME] = 52
    oop_turn(game_streams(0), eng.S, eng.X, eng.W)
    assert X.mythos_hand[c] == 1 and X.g[L.G_MYTHOS_PLAYED] == 0
    assert X.g[L.G_OO_TIME] == 53


def test_combat_cards_are_not_played_as_turn_cards(eng):
    X = revenge_position(eng)
    X.mythos_hand[:] = 0
    c = mythos_card(eng, "ghoul_joins_combat")
    X.mythos_hand[c] = 1
    X.oop_params[L.OP_PLAY_MYTHOS] = 1.0
    oop_turn(game_streams(0), eng.S, eng.X, eng.W)  # no face-up Old One: no fight this turn
    assert X.mythos_hand[c] == 1 and X.g[L.G_MYTHOS_PLAYED] == 0


def _port_attack(pack, card, worn=False, **units):
    """A Shoggoth on player 0's Port (strength 4), the Barracks holding ``units``, on a deck
    of that one card; ``worn``: the Shoggoth dies to the next hit. Returns (engine, state,
    Port lost?, OOP VP gained)."""
    eng = scripted_engine(pack, [{L.SHOGGOTH: card}])
    X = revenge_position(eng)
    _clear_board(X)
    _barracks(X, 0, **units)
    i = put_old_one(eng, int(X.pl[0, L.P_PORT]), L.SHOGGOTH)
    if worn:
        _worn(eng, i)
    vp0 = int(X.g[L.G_OOP_VP])
    lost = revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
    return eng, X, lost, int(X.g[L.G_OOP_VP]) - vp0


def test_a_lost_port_scores_10_vp_and_its_units_for_the_old_one_player(pack):
    """Scoring for OOP: '1 VP * Infantry / Armoured Car / Outpost' eliminated ... '10 VP Port
    destroyed'. Every card puts a cube on the force; nothing ever hits the Shoggoth."""
    eng, X, lost, vp = _port_attack(pack, (0, 1, 0, 0), infantry=1)  # no hit, 1 purple a card
    assert lost and eng.work.cst[C.LOST + L.INFANTRY] == 1
    assert vp == eng.arrays.port_rev[L.PR_OOP_VP] + eng.arrays.unit_oop_vp[L.INFANTRY] == 11


def test_a_port_that_survives_scores_only_the_units_it_lost(pack):
    """The Shoggoth dies to the first card, which also destroys the Airship (Airship damage
    'must still be assigned to an Airship'): 2 VP for it, no 10 VP, no damage on the Port."""
    airship = int(pack.unit_capacity[L.AIRSHIP])
    eng, X, lost, vp = _port_attack(
        pack, (hits(L.INFANTRY), 0, 0, airship), worn=True, infantry=1, airship=1
    )
    assert not lost and eng.work.cst[C.OUTCOME] == C.WIN
    assert eng.work.cst[C.LOST + L.AIRSHIP] == 1 and eng.work.cst[C.LOST + L.INFANTRY] == 0
    assert vp == eng.arrays.unit_oop_vp[L.AIRSHIP] == 2
    assert X.pl[0, L.P_PORT_STRENGTH] == 4


@pytest.mark.parametrize("purple, strength", [(2, 2), (1, 4)])
def test_a_port_that_survives_two_damage_flips_to_strength_2(pack, purple, strength):
    """'If your Port survives an attack, but took 2 or more damage, the Port token is flipped
    to Strength 2.' No units: the Port fights as Infantry, so its hit destroys the Shoggoth
    and it takes every purple cube of that card."""
    eng, X, lost, vp = _port_attack(pack, (hits(L.INFANTRY), purple, 0, 0), worn=True)
    assert not lost and vp == 0 and eng.work.cst[C.PORT_HITS] == purple
    assert X.pl[0, L.P_PORT_STRENGTH] == strength


def test_heroic_ports_have_no_token(eng):
    X = revenge_position(eng, difficulty=L.DIFF_HEROIC)
    assert X.pl[0, L.P_PORT_STRENGTH] == 0
    h = X.pl[0, L.P_PORT]
    put_old_one(eng, h, L.ZOMBIE)
    revenge_port_defence(game_streams(1), eng.S, eng.X, eng.W, 0)
    assert eng.work.cst[C.COUNT + L.PORT_STACK] == 0 and eng.work.cst[C.PORT_HITS] == 0


def _outpost_attack(pack, old_one, card, ruleset=L.RULES_REVENGE, worn=False):
    """Player 0's Outpost, off the rail network (it fights alone), attacked by ``old_one``
    on a deck of that one card. Returns (engine, state, hex, tile, TP spent, OOP VP gained)."""
    eng = scripted_engine(pack, [{old_one: card}])
    X = revenge_position(eng)
    X.g[L.G_RULESET] = ruleset
    _clear_board(X)
    h = _open_hex(X)
    X.hx[h, L.H_OUTPOST] = 0
    X.pl[0, L.P_OUTPOSTS] = 1
    X.hex_target[h] = True
    i = put_old_one(eng, h, old_one)
    if worn:
        _worn(eng, i)
    t, vp0 = int(X.pl[0, L.P_TIME]), int(X.g[L.G_OOP_VP])
    outpost_defence(game_streams(0), eng.S, eng.X, eng.W, h)
    return eng, X, h, i, int(X.pl[0, L.P_TIME]) - t, int(X.g[L.G_OOP_VP]) - vp0


def test_an_outpost_that_holds_costs_no_time_and_scores_nothing(pack):
    """Outposts: 'There is no Time Point or Gold cost for this defence. The Outpost fights as
    Infantry': every card's Infantry symbol is its hit, until the Shoggoth dies."""
    eng, X, h, i, tp, vp = _outpost_attack(pack, L.SHOGGOTH, (hits(L.INFANTRY), 0, 0, 0))
    assert tp == 0 and vp == 0 and eng.work.cst[C.OUTCOME] == C.WIN
    assert X.tile_state[i] == L.TILE_KILLED and X.pl[0, L.P_TILE_VP] == eng.arrays.tile_vp[i]
    assert X.hx[h, L.H_OUTPOST] == 0 and X.pl[0, L.P_OUTPOSTS] == 1 and X.hex_target[h]


def test_an_outpost_destroyed_in_its_defence_scores_for_the_old_one_player(pack):
    """'... and if destroyed the OOP gains' its VP (unit_oop_vp; the Revenge list says 1)."""
    eng, X, h, i, tp, vp = _outpost_attack(pack, L.SHOGGOTH, (0, 1, 0, 0))  # 1 purple a card
    assert tp == 0 and eng.work.cst[C.LOST + L.OUTPOST_STACK] == 1
    assert vp == eng.arrays.unit_oop_vp[L.OUTPOST_STACK] == 1
    assert X.hx[h, L.H_OUTPOST] < 0 and X.pl[0, L.P_OUTPOSTS] == 0 and not X.hex_target[h]
    assert X.g[L.G_OUTPOSTS_LOST] == 1 and X.tile_hex[i] == h


def _track(X, S, p, h, k):
    m = int(S.neighbors[h, k])
    X.edge_owner[h, k] = p
    X.edge_owner[m, (k + 3) % 6] = p
    X.pl[p, L.P_TRACKS] += 1
    return m


def test_an_outpost_can_be_bought_without_a_unit(eng):
    from simkit.kernels.game_actions import buy_military

    X = revenge_position(eng, oop="rusher")
    S = eng.arrays
    p = 0
    port = int(X.pl[p, L.P_PORT])
    site = -1
    for k in range(6):
        m = int(S.neighbors[port, k])
        if (
            m >= 0
            and not X.hex_blocked[m]
            and X.hx[m, L.H_RES : L.H_RES + L.NUM_RES].sum() == 0
            and X.hx[m, L.H_PORT_OWNER] < 0
        ):
            site = _track(X, S, p, port, k)
            break
    assert site >= 0
    far = int(np.flatnonzero((X.hx[:, L.H_SPAWN] < 0) & ~X.hex_blocked & (X.port_dist[p] == 3))[0])
    put_old_one(eng, far, L.ZOMBIE)
    X.params[p, L.HP_OUTPOST] = 6
    X.pl[p, L.P_RES + L.GOLD] = 2  # a unit and an Outpost would cost more
    units = X.pl[p, L.P_UNITS : L.P_UNITS + L.NUM_UNITS].copy()
    assert units.sum() >= 2
    tp = buy_military(game_streams(0), eng.S, eng.X, eng.W, p, 0)
    assert tp == eng.rules.r[L.R_TP + L.BOX_MILITARY]
    assert X.hx[site, L.H_OUTPOST] == p and X.pl[p, L.P_OUTPOSTS] == 1 and X.hex_target[site]
    assert (
        X.pl[p, L.P_RES + L.GOLD] == 0
        and (X.pl[p, L.P_UNITS : L.P_UNITS + L.NUM_UNITS] == units).all()
    )
    assert X.g[L.G_ILLEGAL] == 0 and X.pl[p, L.P_LAST_BUY] == 0
    # with Gold for both, the unit comes first and the Outpost is the +2 Gold extra
    X.hx[site, L.H_OUTPOST] = -1
    X.pl[p, L.P_OUTPOSTS] = 0
    X.pl[p, L.P_RES + L.GOLD] = 10
    buy_military(game_streams(0), eng.S, eng.X, eng.W, p, 0)
    assert (
        X.pl[p, L.P_UNITS : L.P_UNITS + L.NUM_UNITS].sum() > units.sum()
        and X.pl[p, L.P_OUTPOSTS] == 1
    )


@pytest.mark.parametrize(
    "ruleset, damaged, eliminated",
    [
        (L.RULES_REVENGE, False, False),  # an undamaged unit survives a defeat
        (L.RULES_REVENGE, True, True),  # a damaged one is destroyed (End of Combat Resolution)
        (L.RULES_ALT, False, True),  # alt: 'takes damage that forces a retreat, eliminated'
        (L.RULES_ALT, True, True),
    ],
)
def test_alt_translation_eliminates_an_outpost_that_would_retreat(
    eng, pack, ruleset, damaged, eliminated
):
    """revenge-alt: a fight at an Outpost that ends in defeat (Sanity ran out on the card that
    destroyed the last Old One) removes the Outpost; the rulebook keeps it unless damaged.
    The one card destroys the worn Zombie and costs one Sanity more than the fight has."""
    card = (hits(L.INFANTRY), 1 if damaged else 0, int(eng.arrays.r[L.R_SANITY]) + 1, 0)
    eng, X, h, i, tp, vp = _outpost_attack(pack, L.ZOMBIE, card, ruleset=ruleset, worn=True)
    assert eng.work.cst[C.OUTCOME] == C.WIN_AND_DEFEAT and X.tile_state[i] == L.TILE_KILLED
    assert (X.hx[h, L.H_OUTPOST] < 0) == eliminated
    assert X.g[L.G_OUTPOSTS_LOST] == eliminated and X.pl[0, L.P_OUTPOSTS] == (not eliminated)
    table = eng.arrays.unit_oop_vp_alt if ruleset == L.RULES_ALT else eng.arrays.unit_oop_vp
    assert vp == eliminated * table[L.OUTPOST_STACK]


def test_the_old_one_player_orders_the_outpost_fights_strongest_first(eng):
    from simkit.kernels.game_oop import resolve_revenge_fights

    X = revenge_position(eng, oop="rusher")
    free = np.flatnonzero((X.hx[:, L.H_SPAWN] < 0) & (X.hx[:, L.H_PORT_OWNER] < 0) & ~X.hex_blocked)
    weak, strong = int(free[0]), int(free[1])  # the weaker one has the lower hex index
    for h in (weak, strong):
        X.hx[h, L.H_OUTPOST] = 0
        X.hex_target[h] = True
    X.pl[0, L.P_OUTPOSTS] = 2
    put_old_one(eng, weak, L.ZOMBIE)
    put_old_one(eng, strong, L.SHOGGOTH)
    X.g[L.G_LOG_ON] = 1
    X.g[L.G_LOG_N] = 0
    resolve_revenge_fights(game_streams(2), eng.S, eng.X, eng.W)
    log = X.log[: X.g[L.G_LOG_N]]
    fights = [int(r[3]) for r in log if r[0] == L.EV_COMBAT]
    assert fights[:2] == [strong, weak] and X.g[L.G_OUTPOST_COMBATS] == 2


def test_units_carry_their_damage_into_the_next_fight_of_the_same_turn(eng):
    from simkit.kernels.game_combat import prepare_combat
    from simkit.kernels.game_oop import resolve_revenge_fights
    from simkit.kernels.low.game_common import tiles_in_hex

    X = revenge_position(eng)
    W = eng.work
    p = 0
    h = int(
        np.flatnonzero((X.hx[:, L.H_SPAWN] < 0) & (X.hx[:, L.H_PORT_OWNER] < 0) & ~X.hex_blocked)[0]
    )
    put_old_one(eng, h, L.ZOMBIE)
    W.force[:] = 0
    W.force[L.INFANTRY] = 2
    W.dmg_carry[p, L.INFANTRY] = 1  # left by an earlier fight this turn
    n = tiles_in_hex(eng.X, h, W.tiles2)
    prepare_combat(eng.S, eng.X, eng.W, p, W.tiles2, n, False, h)
    assert W.cst[C.DAMAGE + L.INFANTRY] == 1 and W.cmx[C.KEEP_DAMAGE] == 1
    # a turn's fights: afterwards every unit has healed (nothing is carried any more)
    put_old_one(eng, X.pl[p, L.P_PORT], L.SHOGGOTH)
    resolve_revenge_fights(game_streams(1), eng.S, eng.X, eng.W)
    assert W.dmg_carry.sum() == 0


@pytest.mark.parametrize(
    "airships, carried_in, airship_damage, kept",
    [
        (2, 0, 3, 1),  # one Airship destroyed, the other keeps its one cube
        (1, 1, 1, 0),  # the damaged Airship of an earlier fight is destroyed: nothing carried
    ],
)
def test_the_damage_carried_is_what_the_survivors_of_the_fight_kept(
    pack, airships, carried_in, airship_damage, kept
):
    """'No damage is healed between attacks': after a won Port fight the player's surviving
    units carry the damage they kept into the next fight of the turn, a lost stack none.
    The one card destroys the worn Shoggoth and damages only Airships."""
    eng = scripted_engine(pack, [{L.SHOGGOTH: (hits(L.INFANTRY), 0, 0, airship_damage)}])
    X = revenge_position(eng)
    _clear_board(X)
    _barracks(X, 0, infantry=1, airship=airships)
    _worn(eng, put_old_one(eng, int(X.pl[0, L.P_PORT]), L.SHOGGOTH))
    W = eng.work
    W.dmg_carry[:] = 0
    W.dmg_carry[0, L.AIRSHIP] = carried_in
    W.dmg_carry[0, L.INFANTRY] = 1  # the Infantry's cube from an earlier fight stays on it
    assert not revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
    assert W.cst[C.OUTCOME] == C.WIN
    assert W.dmg_carry[0, L.AIRSHIP] == kept and W.dmg_carry[0, L.INFANTRY] == 1
    assert W.cst[C.COUNT + L.AIRSHIP] == airships - 1


def test_cycling_the_display_sends_a_card_to_the_bottom_and_refills(eng):
    from simkit.kernels.low.game_common import cycle_display

    X = revenge_position(eng)
    pos, size = int(X.g[L.G_PERS_POS]), int(X.g[L.G_PERS_SIZE])
    before = sorted(X.pers_deck[pos:size].tolist() + [c for c in X.display.tolist() if c >= 0])
    top, j = int(X.pers_deck[pos]), 1
    card = int(X.display[j])
    assert cycle_display(eng.X, j) == card
    assert X.display[0] == top and X.pers_deck[size - 1] == card
    assert X.g[L.G_PERS_POS] == pos and X.g[L.G_PERS_SIZE] == size  # the pile keeps its length
    after = sorted(X.pers_deck[pos:size].tolist() + [c for c in X.display.tolist() if c >= 0])
    assert after == before  # no card lost or doubled


def test_a_player_wanting_nothing_on_display_cycles_before_recruiting(eng):
    from simkit.kernels.game_actions import recruit

    X = revenge_position(eng)
    p = 0
    X.params[p, L.HP_PERS_W : L.HP_PERS_W + len(L.EFFECT_NAMES)] = (
        0.0  # wants no Personality at all
    )
    X.g[L.G_LOG_ON] = 1
    X.g[L.G_LOG_N] = 0
    recruit(game_streams(0), eng.S, eng.X, eng.W, p)
    log = X.log[: X.g[L.G_LOG_N]]
    cycles = [r for r in log if r[0] == L.EV_REVENGE and r[3] == L.RV_CYCLE]
    assert len(cycles) == 1 and X.g[L.G_ILLEGAL] == 0
    # base games have no such option
    X.g[L.G_MODE] = L.MODE_BASE
    X.g[L.G_LOG_N] = 0
    recruit(game_streams(0), eng.S, eng.X, eng.W, p)
    assert not any(r[0] == L.EV_REVENGE for r in X.log[: X.g[L.G_LOG_N]])


def test_after_losing_its_port_fight_a_player_leaves_the_outpost_to_fight_alone(eng):
    forces = {}
    for port_lost in (0, 1):
        X = revenge_position(eng)
        S, p = eng.arrays, 0
        port = int(X.pl[p, L.P_PORT])
        k = next(
            k
            for k in range(6)
            if S.neighbors[port, k] >= 0
            and X.hx[S.neighbors[port, k], L.H_SPAWN] < 0
            and not X.hex_blocked[S.neighbors[port, k]]
        )
        h = _track(X, S, p, port, k)  # an Outpost one track from the Port
        X.hx[h, L.H_OUTPOST] = p
        X.pl[p, L.P_OUTPOSTS] = 1
        X.hex_target[h] = True
        put_old_one(eng, h, L.ZOMBIE)
        X.pl[p, L.P_PORT_LOST] = port_lost
        outpost_defence(game_streams(0), eng.S, eng.X, eng.W, h)
        forces[port_lost] = int(eng.work.force.sum())
    assert forces[0] > 0 and forces[1] == 0


# -- the rules-fidelity fixes, each on a constructed position ------------------------------
def test_an_old_one_that_reached_a_farm_stops_for_the_rest_of_the_move_action(pack):
    """Move Old Ones: 'If a Farm/Port/Outpost is reached, that Old One stops moving' -- for
    all four cards of the action, not just the card that brought it there."""
    eng = scripted_engine(pack, [{ZOMBIE_ROW: (0, 0, 0, 0)}], moves_zombies=True)
    X = revenge_position(eng, oop="rusher")
    S = eng.arrays
    _clear_board(X)
    far = np.min(np.where(X.port_dist[:2] >= 0, X.port_dist[:2], 99), axis=0) >= 4
    z = a = b = -1
    for cand in np.flatnonzero(far):
        if not _empty(X, cand):
            continue
        for k in range(6):
            m = int(S.neighbors[cand, k])
            if m < 0 or not _empty(X, m):
                continue
            nxt = [int(S.neighbors[m, j]) for j in range(6)]
            for q in nxt:
                if q >= 0 and q != cand and q not in S.neighbors[cand] and _empty(X, q) and far[q]:
                    z, a, b = int(cand), m, q
                    break
            if b >= 0:
                break
        if b >= 0:
            break
    assert b >= 0
    _farm(X, a)
    _farm(X, b)
    i = put_old_one(eng, z, L.ZOMBIE)
    from simkit.kernels.game_oop import oop_move

    oop_move(game_streams(0), eng.S, eng.X, eng.W)
    assert X.tile_hex[i] == a and X.hex_farm[a] == 2  # it reached the first Farm and blighted it
    assert X.hex_farm[b] == 1  # and went no further in this Move


def test_a_farm_may_not_go_on_an_outpost_hex(eng):
    """Farms: 'The hex must be empty, it cannot contain any other pieces apart from Railway
    tracks' -- an Outpost is a piece."""
    from simkit.kernels.game_sites import farm_site, refresh_network

    X = revenge_position(eng)
    S, p = eng.arrays, 0
    port = int(X.pl[p, L.P_PORT])
    site, kind = -1, -1
    for k in range(6):
        m = int(S.neighbors[port, k])
        if m >= 0 and _empty(X, m) and not X.hex_blocked[m] and S.hex_farms[m]:
            site = _track(X, S, p, port, k)
            kind = int(
                np.flatnonzero([(S.hex_farms[m] >> f) & 1 for f in range(L.NUM_FARM_KINDS)])[0]
            )
            break
    assert site >= 0
    refresh_network(eng.S, eng.X, eng.W, p)
    assert farm_site(eng.S, eng.X, eng.W, site, kind)
    X.hx[site, L.H_OUTPOST] = p
    assert not farm_site(eng.S, eng.X, eng.W, site, kind)


def test_an_empty_spawn_tile_does_not_block_the_path_of_an_attack(eng):
    """Spawn tiles block railways, but they are not Old Ones: a force traces its path past
    an empty one (an Old One in its place blocks it)."""
    from simkit.kernels.low.game_common import ensure_dist, in_range

    X = revenge_position(eng)
    S, W, p = eng.arrays, eng.work, 0
    _clear_board(X)
    X.hx[:, L.H_SPAWN] = -1
    X.hex_blocked[:] = False
    port = int(X.pl[p, L.P_PORT])
    step = target = -1
    for k in range(6):  # a straight line port - step - target: step is the only way
        m = int(S.neighbors[port, k])
        q = int(S.neighbors[m, k]) if m >= 0 else -1
        if q >= 0 and X.hx[m, L.H_PORT_OWNER] < 0 and X.hx[q, L.H_PORT_OWNER] < 0:
            step, target = m, q
            break
    assert target >= 0
    X.hx[step, L.H_SPAWN] = 0  # an empty Spawn tile in the way
    X.hex_blocked[step] = True
    put_old_one(eng, target, L.ZOMBIE)
    W.ctx[L.CTX_DIST_OK] = 0
    ensure_dist(eng.S, eng.X, eng.W, p)
    assert W.dist[target] == 2 and in_range(eng.S, eng.X, eng.W, p, target, 2, False)
    from simkit.kernels.low.game_common import refresh_blocked

    X.hx[step, L.H_SPAWN] = -1
    put_old_one(eng, step, L.ZOMBIE)  # an Old One there instead: no way past it
    refresh_blocked(eng.X, step)
    W.ctx[L.CTX_DIST_OK] = 0
    ensure_dist(eng.S, eng.X, eng.W, p)
    assert W.dist[target] != 2


def _spawn_hex_with_zombie(eng, X):
    h = int(np.flatnonzero((X.hx[:, L.H_SPAWN] >= 0) & (X.hx[:, L.H_PORT_OWNER] < 0))[0])
    i = put_old_one(eng, h, L.ZOMBIE)
    return h, i


def test_a_spawn_tile_under_a_shared_kill_gives_each_participant_a_vp_token(pack):
    """'In the case of a shared victory, each participating player gains 1 VP token
    immediately and the tile is removed.'"""
    from simkit.kernels.game_combat import add_damage, fight
    from simkit.kernels.game_oop import after_attack

    eng = scripted_engine(
        pack, [{ZOMBIE_ROW: (1 << L.INFANTRY, 0, 0, 0)}]
    )  # every card: Infantry hits
    X = revenge_position(eng)
    _clear_board(X)
    h, i = _spawn_hex_with_zombie(eng, X)
    cap = int(eng.arrays.tile_cap[i])
    add_damage(eng.X, i, 1, cap - 1)  # player 1 wore it down earlier
    tokens = X.pl[:2, L.P_VP_TOKENS].copy()
    spawns = X.pl[:2, L.P_SPAWNS].copy()
    vp = int(eng.arrays.tile_vp[i])
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 1
    assert fight(game_streams(0), eng.S, eng.X, eng.W, 0, h, False) == C.WIN
    after_attack(eng.X, h, 0)
    assert X.hx[h, L.H_SPAWN] == -1  # the tile is removed
    # each gets its share of the Old One (equal damage: the odd point is not awarded) + 1 token
    assert (X.pl[:2, L.P_VP_TOKENS] - tokens).tolist() == [vp // 2 + 1, vp // 2 + 1]
    assert (X.pl[:2, L.P_SPAWNS] == spawns).all()  # nobody keeps the tile itself


def test_a_spawn_tile_under_a_kill_alone_is_kept_by_the_attacker(pack):
    from simkit.kernels.game_combat import fight
    from simkit.kernels.game_oop import after_attack

    eng = scripted_engine(pack, [{ZOMBIE_ROW: (1 << L.INFANTRY, 0, 0, 0)}])
    X = revenge_position(eng)
    _clear_board(X)
    h, i = _spawn_hex_with_zombie(eng, X)
    spawns = int(X.pl[0, L.P_SPAWNS])
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 1
    while X.tile_hex[i] == h:
        fight(game_streams(0), eng.S, eng.X, eng.W, 0, h, False)
    after_attack(eng.X, h, 0)
    assert (
        X.hx[h, L.H_SPAWN] == -1 and X.pl[0, L.P_SPAWNS] == spawns + 1 and X.pl[1, L.P_SPAWNS] == 0
    )


def _lone_port(eng, X, p=0):
    """p's Barracks emptied: the Port token will fight alone."""
    for u in range(L.NUM_UNITS):
        X.g[L.G_SUPPLY + u] += X.pl[p, L.P_UNITS + u]
        X.pl[p, L.P_UNITS + u] = 0
    return int(X.pl[p, L.P_PORT])


def test_a_knocked_out_port_token_whose_attackers_all_died_keeps_the_port(pack):
    """Base rules: the Port is lost only if 'after End of Combat Resolution, any Old Ones
    remain on your Port hex'. Here one card destroys the Zombie and knocks the token out."""
    from simkit.kernels.game_combat import add_damage
    from simkit.kernels.game_oop import revenge_port_defence

    eng = scripted_engine(pack, [{ZOMBIE_ROW: (1 << L.INFANTRY, 2, 0, 0)}])
    X = revenge_position(eng, difficulty=L.DIFF_HARD)  # Port token at strength 2
    _clear_board(X)
    h = _lone_port(eng, X)
    i = put_old_one(eng, h, L.ZOMBIE)
    add_damage(eng.X, i, 1, int(eng.arrays.tile_cap[i]) - 1)
    vp0 = int(X.g[L.G_OOP_VP])
    lost = revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
    st = eng.work.cst
    assert st[C.OUTCOME] == C.WIN_AND_DEFEAT and st[C.COUNT + L.PORT_STACK] == 0
    assert not lost and X.g[L.G_OOP_VP] == vp0  # no 10 VP: the Port stands
    assert X.pl[0, L.P_PORT_STRENGTH] == 2


def test_a_port_token_starts_every_combat_undamaged(pack):
    """End of Combat Resolution removes the cubes: a Port that survived with one damage
    starts its next defence (a later turn) with none."""
    from simkit.kernels.game_combat import add_damage, prepare_combat
    from simkit.kernels.game_oop import revenge_port_defence
    from simkit.kernels.low.game_common import tiles_in_hex

    eng = scripted_engine(pack, [{ZOMBIE_ROW: (1 << L.INFANTRY, 1, 0, 0)}])
    for ruleset in (L.RULES_REVENGE, L.RULES_ALT):
        X = revenge_position(eng)
        X.g[L.G_RULESET] = ruleset
        _clear_board(X)
        h = _lone_port(eng, X)
        i = put_old_one(eng, h, L.ZOMBIE)
        add_damage(eng.X, i, 1, int(eng.arrays.tile_cap[i]) - 1)
        assert not revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
        assert eng.work.cst[C.PORT_HITS] == 1 and X.pl[0, L.P_PORT_STRENGTH] == 4
        put_old_one(eng, h, L.ZOMBIE)
        W = eng.work
        W.force[:] = 0
        prepare_combat(eng.S, eng.X, eng.W, 0, W.tiles2, tiles_in_hex(eng.X, h, W.tiles2), True, h)
        assert W.cst[C.COUNT + L.PORT_STACK] == 1 and W.cst[C.DAMAGE + L.PORT_STACK] == 0


def test_a_game_fight_that_no_card_can_change_ends_as_a_stalemate(pack):
    from simkit.kernels.game_combat import fight

    eng = scripted_engine(pack, [{ZOMBIE_ROW: (0, 0, 0, 0)}] * 3)
    X = revenge_position(eng)
    _clear_board(X)
    h = int(np.flatnonzero([_empty(X, k) for k in range(X.hx.shape[0])])[0])
    i = put_old_one(eng, h, L.ZOMBIE)
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 1
    assert fight(game_streams(0), eng.S, eng.X, eng.W, 0, h, False) == C.STALEMATE
    assert (
        X.g[L.G_STALEMATES] == 1
        and X.tile_hex[i] == h
        and eng.work.cst[C.LOST : C.LOST + 7].sum() == 0
    )


def test_atlach_nacha_charges_its_time_at_a_defence_too(eng):
    """'You must pay 1 extra Time when the next Combat occurs' -- of any kind."""
    X = revenge_position(eng)
    h = int(X.pl[0, L.P_PORT])
    put_old_one(eng, h, L.ZOMBIE)
    X.g[L.G_EXTRA_TIME] = 1
    t = int(X.pl[0, L.P_TIME])
    revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
    assert X.pl[0, L.P_TIME] == t + 1 and X.g[L.G_EXTRA_TIME] == 0


def test_the_content_switch_plays_only_public_texts_and_keeps_the_printed_deck(eng):
    """content = "rules": the deck keeps its 30 printed cards (Revenge Components), and a
    card whose effect or amount is assumed is played as a blank; "assumed" plays each card
    as the pack gives it."""
    from simkit.kernels.game_oop import shuffle_mythos
    from simkit.revenge.mythos import EFFECTS, load_mythos

    deck = load_mythos()
    names = deck.names
    try:
        eng._mode_args(make_spec("revenge", 2, "balanced", content="rules"))
        shuffle_mythos(game_streams(0), eng.S, eng.X)
        X = eng.state
        assert X.g[L.G_MYTHOS_LEFT] == 30
        active = sorted(
            names[c] for c in range(len(names)) if EFFECTS[eng.arrays.myth_effect[c]] != "blank"
        )
        assert active == [
            "atlach_nacha",
            "baoht_zuqqa_mogg",
            "dark_young",
            "flying_polyp",
            "ghoul",
            "servitor_of_the_outer_gods",
            "yog_sothoth",
        ]
    finally:
        eng._mode_args(make_spec("revenge", 2, "balanced"))
    shuffle_mythos(game_streams(0), eng.S, eng.X)
    assert eng.state.g[L.G_MYTHOS_LEFT] == 30
    assert np.array_equal(eng.arrays.myth_effect, deck.effect)


def test_summon_draws_from_the_printed_thirty_card_deck(eng):
    """Revenge Components: "30 Mythos cards"; the OOP "starts with 3 Mythos cards" (Setup),
    so 27 wait in the pile, every printed card among pile and hand, and Summon draws three."""
    X = revenge_position(eng)
    assert X.mythos_hand.sum() == 3 and X.g[L.G_MYTHOS_LEFT] == 27
    pile = [int(X.mythos_deck[(X.g[L.G_MYTHOS_POS] + j) % 30]) for j in range(27)]
    assert sorted(pile + list(np.flatnonzero(X.mythos_hand))) == list(range(30))


def test_the_outpost_tiles_in_the_box_are_one_supply_for_every_human(pack):
    """units.toml outpost.box_count (Revenge Components: 8 Outpost tiles) is read: with one
    tile in the box, a second human cannot place one while the first stands."""
    from simkit.kernels.low.game_outpost import can_buy_outpost
    from simkit.runner.overrides import apply_overrides

    for box, second_may in ((8, True), (1, False)):
        eng = Engine(data=apply_overrides(pack, {"units.outpost.box_count": box}))
        assert eng.arrays.r[L.R_OUTPOST_SUPPLY] == box
        X = revenge_position(eng)
        X.pl[0, L.P_OUTPOSTS] = 1  # seat 0 has placed one
        assert can_buy_outpost(eng.S, eng.X, 1, 10) == second_may
        assert can_buy_outpost(eng.S, eng.X, 0, 10) == second_may  # its own second one too

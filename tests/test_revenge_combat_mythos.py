"""Revenge Mythos cards played during combats (Baoht Zuqqa-Mogg, Deep Ones, Formless Spawn,
Ghoul: simkit.kernels.game_mythos_combat) and the turn cards Dimensional Shambler and
Yog-Sothoth, on constructed states; every card of the deck is played in whole games."""

import numpy as np
import pytest
from conftest import hits, mythos_card, put_old_one, revenge_position, scripted_engine

from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams
from simkit.kernels.combat import card_effect
from simkit.kernels.game_combat import add_damage, fight, kill_tile, prepare_combat
from simkit.kernels.game_mythos_combat import combat_mythos, unused_zombie
from simkit.kernels.game_oop import (
    effect_implemented,
    mythos_applicable,
    play_mythos,
    revenge_port_defence,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.game_common import tiles_in_hex
from simkit.revenge.mythos import EFFECTS, load_mythos
from strategies.combat.withdrawal import NEVER, TABLE, THRESHOLD


@pytest.fixture(scope="module")
def eng():
    return Engine()


def _setup(eng, seed=3, oop="rusher"):
    X = revenge_position(eng, seed, oop)
    X.mythos_hand[:] = 0
    X.oop_params[L.OP_COMBAT_MYTHOS] = 1.0
    X.params[:, L.SP_WD_ID] = NEVER
    return X


def _put(eng, h, ttype):
    return put_old_one(eng, h, ttype, never=(L.TILE_KILLED,))


def _open_hex(X):
    """A hex with no Spawn tile, Port, Old One or Outpost."""
    ok = (
        (X.hx[:, L.H_SPAWN] < 0)
        & (X.hx[:, L.H_PORT_OWNER] < 0)
        & (X.hx[:, L.H_OUTPOST] < 0)
        & ~X.hex_blocked
    )
    return int(np.flatnonzero(ok)[0])


def _start_fight(eng, p, h, port_defence):
    """Set the fight up as game_combat.fight does, up to the Mythos cards; returns m."""
    X, W = eng.state, eng.work
    n = tiles_in_hex(eng.X, h, W.tiles2)
    m = prepare_combat(eng.S, eng.X, eng.W, p, W.tiles2, n, port_defence, h)
    W.alloc_params[0] = X.params[p, L.SP_ALLOC_ARG]
    W.wd_params[:] = X.params[p, L.SP_WD_SANITY : L.SP_WD_LOST + 1]
    return m


def _port_fight_setup(eng, p=0, infantry=2):
    X = eng.state
    h = int(X.pl[p, L.P_PORT])
    X.g[L.G_SUPPLY + L.INFANTRY] += X.pl[p, L.P_UNITS + L.INFANTRY] - infantry
    X.pl[p, L.P_UNITS + L.INFANTRY] = infantry
    eng.work.force[:] = X.pl[p, L.P_UNITS : L.P_UNITS + L.NUM_UNITS]
    return h


# -- Baoht Zuqqa-Mogg ---------------------------------------------------------------------
def test_baoht_zuqqa_mogg_deals_damage_and_takes_sanity_in_a_port_defence(eng):
    X = _setup(eng)
    c = mythos_card(eng, "combat_damage_and_sanity")
    amount = int(eng.arrays.myth_amount[c])
    X.mythos_hand[c] = 1
    h = _port_fight_setup(eng)
    _put(eng, h, L.SHOGGOTH)
    m = _start_fight(eng, 0, h, True)
    st = eng.work.cst
    sanity0 = int(st[C.SANITY])
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m)
    assert X.mythos_hand[c] == 0 and X.g[L.G_MYTHOS_COMBAT] == 1 and X.g[L.G_MYTHOS_PLAYED] == 1
    assert st[C.SANITY] == sanity0 - amount
    assert (
        amount == 1 and st[C.DAMAGE : C.DAMAGE + C.NUM_STACKS].sum() == amount
    )  # capacities are >= 2


def test_baoht_zuqqa_mogg_waits_while_the_human_would_retreat(eng):
    X = _setup(eng)
    c = mythos_card(eng, "combat_damage_and_sanity")
    X.mythos_hand[c] = 1
    h = _open_hex(X)
    _put(eng, h, L.ZOMBIE)
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 2
    # a human who withdraws as soon as Sanity is at most 2: after the card it would leave
    X.params[0, L.SP_WD_ID] = THRESHOLD
    X.params[0, L.SP_WD_SANITY : L.SP_WD_LOST + 1] = (2, -1, -1)
    m = _start_fight(eng, 0, h, False)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, False, m)
    assert X.mythos_hand[c] == 1 and X.g[L.G_MYTHOS_COMBAT] == 0
    # a human who never withdraws is "clearly not retreating"
    X.params[0, L.SP_WD_ID] = NEVER
    m = _start_fight(eng, 0, h, False)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, False, m)
    assert X.mythos_hand[c] == 0 and X.g[L.G_MYTHOS_COMBAT] == 1


def test_baoht_zuqqa_mogg_asks_a_table_playing_human_its_withdraw_table(eng):
    X = _setup(eng)
    c = mythos_card(eng, "combat_damage_and_sanity")
    X.params[0, L.SP_WD_ID] = TABLE
    X.params[0, L.SP_WD_OBJECTIVE] = 1  # value: leave when the Gold at risk outweighs the VP
    # thresholds that would leave at once: a table player must not be asked by them
    X.params[0, L.SP_WD_SANITY : L.SP_WD_LOST + 1] = (3, -1, -1)
    played = {}
    for name, ttype, force in (
        ("strong", L.ZOMBIE, (3, 0, 0, 0, 0)),
        ("hopeless", L.CTHULHU, (1, 0, 0, 0, 0)),
    ):
        X.mythos_hand[c] = 1
        X.g[L.G_MYTHOS_COMBAT] = 0
        h = _open_hex(X)
        _put(eng, h, ttype)
        eng.work.force[:] = force
        m = _start_fight(eng, 0, h, False)
        combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, False, m)
        played[name] = X.g[L.G_MYTHOS_COMBAT] == 1
    # 3 Infantry stay against a Zombie even after the card; one Infantry leaves Cthulhu alone
    assert played == {"strong": True, "hopeless": False}


# -- Deep Ones ------------------------------------------------------------------------------
def test_deep_ones_add_purple_to_every_card_of_a_port_defence_only(eng):
    X = _setup(eng)
    c = mythos_card(eng, "port_combat_extra_damage")
    amount = int(eng.arrays.myth_amount[c])
    X.mythos_hand[c] = 1
    h = _open_hex(X)
    _put(eng, h, L.ZOMBIE)
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 2
    m = _start_fight(eng, 0, h, False)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, False, m)
    assert X.mythos_hand[c] == 1 and eng.work.cmx[C.EXTRA_PURPLE] == 0  # an attack: not a Port
    hp = _port_fight_setup(eng)
    _put(eng, hp, L.ZOMBIE)
    m = _start_fight(eng, 0, hp, True)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, hp, True, m)
    assert X.mythos_hand[c] == 0 and eng.work.cmx[C.EXTRA_PURPLE] == amount
    # every Old One card then brings `amount` more purple cubes
    st, mx, A = eng.work.cst, eng.work.cmx, eng.arrays
    dmg = np.zeros(C.MAX_OLD_ONES, dtype=np.int64)
    for card in range(A.card_hits.shape[0]):
        with_extra = card_effect(
            st, mx, A.card_hits, A.card_purple, A.card_sanity, A.card_airship, card, dmg
        )[0]
        mx[C.EXTRA_PURPLE] = 0
        plain = card_effect(
            st, mx, A.card_hits, A.card_purple, A.card_sanity, A.card_airship, card, dmg
        )[0]
        mx[C.EXTRA_PURPLE] = amount
        assert with_extra == plain + amount


# -- Formless Spawn -------------------------------------------------------------------------
def test_formless_spawn_makes_an_attacked_temple_harder_to_destroy(eng):
    X = _setup(eng)
    c = mythos_card(eng, "temple_attack_extra_capacity")
    amount = int(eng.arrays.myth_amount[c])
    X.mythos_hand[c] = 1
    h = _open_hex(X)
    i = _put(eng, h, L.TEMPLE)
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 2
    m = _start_fight(eng, 0, h, False)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, False, m)
    assert X.mythos_hand[c] == 0
    assert eng.work.cmx[C.OO_CAPACITY + 0] == eng.arrays.tile_cap[i] + amount
    # not in a fight without a Temple
    X2 = _setup(eng)
    X2.mythos_hand[c] = 1
    h2 = _open_hex(X2)
    _put(eng, h2, L.ZOMBIE)
    m = _start_fight(eng, 0, h2, False)
    combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h2, False, m)
    assert X2.mythos_hand[c] == 1


def _temple_attack(pack, card, formless_spawn):
    """One Infantry attacks a Temple one damage short of its printed capacity, on a deck of
    that one card, with or without Formless Spawn in the Old One player's hand. Returns
    (engine, state, tile, capacity, damage dealt in the fight)."""
    eng = scripted_engine(pack, [{L.TEMPLE: card}])
    X = _setup(eng)
    c = mythos_card(eng, "temple_attack_extra_capacity")
    X.mythos_hand[c] = formless_spawn
    h = _open_hex(X)
    i = _put(eng, h, L.TEMPLE)
    cap = int(eng.arrays.tile_cap[i])
    add_damage(eng.X, i, 0, cap - 1)  # player 0's earlier attacks (Temples do not heal)
    eng.work.force[:] = 0
    eng.work.force[L.INFANTRY] = 1
    X.pl[0, L.P_UNITS + L.INFANTRY] = 1
    fight(game_streams(0), eng.S, eng.X, eng.W, 0, h, False)
    assert X.mythos_hand[c] == 0  # the card was played in this fight (or never held)
    return eng, X, i, cap, int(eng.work.cst[C.OO_DAMAGE + 0])


def test_formless_spawn_temple_keeps_no_more_damage_than_its_printed_capacity_allows(pack):
    """The card's extra capacity lasts for the fight it was played in: a Temple that took
    its printed capacity in damage and survived keeps capacity - 1 (its next fight is an
    ordinary one). The one card hits once and destroys the lone Infantry (defeat)."""
    last_hit = (hits(L.INFANTRY), 2, 0, 0)
    eng, X, i, cap, dealt = _temple_attack(pack, last_hit, formless_spawn=False)
    assert dealt == cap and X.tile_state[i] == L.TILE_KILLED  # without the card it dies
    eng, X, i, cap, dealt = _temple_attack(pack, last_hit, formless_spawn=True)
    assert dealt == cap and eng.work.cst[C.OUTCOME] == C.DEFEAT
    assert X.tile_hex[i] >= 0 and X.tile_dmg[i].sum() == cap - 1
    # hits on every card and no damage to the force: it takes capacity + amount to destroy it
    amount = int(eng.arrays.myth_amount[mythos_card(eng, "temple_attack_extra_capacity")])
    eng, X, i, cap, dealt = _temple_attack(pack, (hits(L.INFANTRY), 0, 0, 0), True)
    assert X.tile_state[i] == L.TILE_KILLED and dealt == cap + amount


# -- Ghoul ----------------------------------------------------------------------------------
def test_ghoul_brings_an_unused_zombie_and_takes_an_infantry(eng):
    X = _setup(eng)
    c = mythos_card(eng, "ghoul_joins_combat")
    X.mythos_hand[c] = 1
    h = _port_fight_setup(eng, infantry=2)
    _put(eng, h, L.SHOGGOTH)
    zombie = unused_zombie(eng.S, eng.X, False)
    assert zombie >= 0 and X.tile_hex[zombie] < 0
    m = _start_fight(eng, 0, h, True)
    m2 = combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m)
    st, mx = eng.work.cst, eng.work.cmx
    assert m2 == m + 1 and mx[C.OO_TYPE + m] == L.ZOMBIE and eng.work.tiles2[m] == zombie
    assert X.tile_hex[zombie] == h and X.tile_up[zombie]
    assert st[C.COUNT + L.INFANTRY] == 1 and st[C.LOST + L.INFANTRY] == 1
    assert X.mythos_hand[c] == 0


def test_ghoul_infantry_is_scored_for_the_old_one_player(eng):
    X = _setup(eng)
    c = mythos_card(eng, "ghoul_joins_combat")
    X.mythos_hand[c] = 1
    h = _port_fight_setup(eng, infantry=2)
    _put(eng, h, L.SHOGGOTH)
    vp0 = int(X.g[L.G_OOP_VP])
    lost_port = revenge_port_defence(game_streams(4), eng.S, eng.X, eng.W, 0)
    st = eng.work.cst
    assert X.g[L.G_MYTHOS_COMBAT] == 1 and st[C.LOST + L.INFANTRY] >= 1
    units_vp = sum(int(st[C.LOST + u]) * int(eng.arrays.unit_oop_vp[u]) for u in range(L.NUM_UNITS))
    assert X.g[L.G_OOP_VP] - vp0 == units_vp + (10 if lost_port else 0)
    assert X.pl[0, L.P_UNITS + L.INFANTRY] == 2 - st[C.LOST + L.INFANTRY]


def test_ghoul_needs_an_infantry_and_an_unused_zombie(eng):
    X = _setup(eng)
    c = mythos_card(eng, "ghoul_joins_combat")
    X.mythos_hand[c] = 1
    h = _port_fight_setup(eng, infantry=0)
    _put(eng, h, L.SHOGGOTH)
    m = _start_fight(eng, 0, h, True)
    assert combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m) == m
    assert X.mythos_hand[c] == 1
    _port_fight_setup(eng, infantry=2)
    X.stack_size[:] = X.stack_top + X.g[L.G_OOP_LEFT : L.G_OOP_LEFT + 3]  # no unused tile left
    m = _start_fight(eng, 0, h, True)
    assert combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m) == m
    assert X.mythos_hand[c] == 1


# -- timing, TP, the strategy's parameter ----------------------------------------------------
def test_combat_cards_costing_tp_move_the_disc_and_stop_at_the_end(eng):
    c = mythos_card(eng, "port_combat_extra_damage")
    tp = eng.arrays.myth_tp
    old = int(tp[c])
    try:
        tp[c] = 1
        X = _setup(eng)
        X.mythos_hand[c] = 1
        h = _port_fight_setup(eng)
        _put(eng, h, L.ZOMBIE)
        X.g[L.G_OO_TIME] = 53
        m = _start_fight(eng, 0, h, True)
        combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m)
        assert X.mythos_hand[c] == 1 and X.g[L.G_OO_TIME] == 53  # only 0-TP cards once at 53
        X.g[L.G_OO_TIME] = 40
        combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m)
        assert X.mythos_hand[c] == 0 and X.g[L.G_OO_TIME] == 41
        tp[c] = 0
        X = _setup(eng)
        X.mythos_hand[c] = 1
        h = _port_fight_setup(eng)
        _put(eng, h, L.ZOMBIE)
        X.g[L.G_OO_TIME] = 53
        m = _start_fight(eng, 0, h, True)
        combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m)
        assert X.mythos_hand[c] == 0 and X.g[L.G_OO_TIME] == 53  # a 0-TP combat card still can
    finally:
        tp[c] = old


def test_an_old_one_player_who_never_plays_combat_cards_keeps_them(eng):
    X = _setup(eng)
    for e in ("combat_damage_and_sanity", "port_combat_extra_damage", "ghoul_joins_combat"):
        X.mythos_hand[mythos_card(eng, e)] = 1
    X.oop_params[L.OP_COMBAT_MYTHOS] = 0.0
    h = _port_fight_setup(eng)
    _put(eng, h, L.SHOGGOTH)
    m = _start_fight(eng, 0, h, True)
    assert combat_mythos(game_streams(0), eng.S, eng.X, eng.W, 0, h, True, m) == m
    assert X.mythos_hand.sum() == 3 and X.g[L.G_MYTHOS_COMBAT] == 0


# -- Dimensional Shambler, Yog-Sothoth -------------------------------------------------------
def test_dimensional_shambler_removes_the_latest_bought_unit_and_scores_it(eng):
    X = _setup(eng)
    c = mythos_card(eng, "remove_recent_unit")
    assert not mythos_applicable(eng.S, eng.X, eng.W, c, 1)  # nobody bought anything yet
    X.pl[1, L.P_UNITS + L.ARTILLERY] = 1
    X.g[L.G_SUPPLY + L.ARTILLERY] -= 1
    X.pl[1, L.P_LAST_BUY] = L.ARTILLERY + 1
    assert mythos_applicable(eng.S, eng.X, eng.W, c, 0)  # another seat's unit will do
    vp0 = int(X.g[L.G_OOP_VP])
    supply0 = int(X.g[L.G_SUPPLY + L.ARTILLERY])
    X.mythos_hand[c] = 1
    play_mythos(game_streams(0), eng.S, eng.X, eng.W, c, 0, L.MYTHOS_PLAYED, 1)
    assert X.pl[1, L.P_UNITS + L.ARTILLERY] == 0 and X.pl[1, L.P_LOST + L.ARTILLERY] == 1
    assert X.g[L.G_SUPPLY + L.ARTILLERY] == supply0 + 1 and X.pl[1, L.P_LAST_BUY] == 0
    assert X.g[L.G_OOP_VP] - vp0 == eng.arrays.unit_oop_vp[L.ARTILLERY]
    assert not mythos_applicable(eng.S, eng.X, eng.W, c, 1)


def test_yog_sothoth_returns_a_trophy_and_pays_its_holder_in_vp_tokens(eng):
    X = _setup(eng)
    c = mythos_card(eng, "take_trophy")
    assert not mythos_applicable(eng.S, eng.X, eng.W, c, 0)
    h = _open_hex(X)
    i = _put(eng, h, L.SHOGGOTH)
    X.tile_dmg[i, 1] = eng.arrays.tile_cap[i]
    kill_tile(eng.S, eng.X, i)
    vp = int(eng.arrays.tile_vp[i])
    assert X.tile_holder[i] == 1 and X.tile_last_hex[i] == h and X.pl[1, L.P_TILE_VP] == vp
    assert mythos_applicable(eng.S, eng.X, eng.W, c, 0)
    tokens0 = int(X.pl[1, L.P_VP_TOKENS])
    play_mythos(game_streams(0), eng.S, eng.X, eng.W, c, 0, L.MYTHOS_PLAYED, 1)
    assert (
        X.tile_hex[i] == h and X.tile_up[i] and X.tile_state[i] == L.TILE_BOARD and X.hex_blocked[h]
    )
    assert X.pl[1, L.P_TILE_VP] == 0 and X.pl[1, L.P_VP_TOKENS] == tokens0 + vp
    assert X.tile_holder[i] == -1 and not mythos_applicable(eng.S, eng.X, eng.W, c, 0)


def test_yog_sothoth_does_not_return_a_tile_onto_a_port(eng):
    X = _setup(eng)
    c = mythos_card(eng, "take_trophy")
    h = int(X.pl[0, L.P_PORT])
    i = _put(eng, h, L.ZOMBIE)
    X.tile_dmg[i, 0] = eng.arrays.tile_cap[i]
    kill_tile(eng.S, eng.X, i)
    assert X.tile_holder[i] == 0 and not mythos_applicable(eng.S, eng.X, eng.W, c, 0)


def test_shared_kills_leave_no_trophy(eng):
    X = _setup(eng)
    h = _open_hex(X)
    i = _put(eng, h, L.SHOGGOTH)
    X.tile_dmg[i, 0] = 1
    X.tile_dmg[i, 1] = eng.arrays.tile_cap[i]
    kill_tile(eng.S, eng.X, i)
    assert X.tile_holder[i] == -1


# -- the whole deck ---------------------------------------------------------------------------
def test_every_effect_type_is_implemented():
    assert all(effect_implemented(e) for e in range(len(EFFECTS)))


def test_every_card_of_the_deck_is_played_in_whole_games(eng):
    deck = load_mythos()
    played = set()
    combat_played = set()
    for k, (oop, humans) in enumerate(
        (("mythos", "balanced,hunter"), ("random", "random"), ("mythos", "random"))
    ):
        spec = make_spec("revenge", 2, humans, oop=oop)
        rows, logs = eng.play_many(spec, 77, k, 150, log=True, checked=True)
        assert rows[:, L.S_VIOLATIONS].sum() == 0 and rows[:, L.S_ILLEGAL].sum() == 0
        for lg in logs:
            for r in lg[lg[:, 0] == L.EV_MYTHOS]:
                played.add(deck.names[r[3]])
                if r[4] == L.MYTHOS_COMBAT:
                    combat_played.add(deck.names[r[3]])
    # every card of known text is played; a blank (unknown text) never is
    assert played == {n for n, u in zip(deck.names, deck.unknown, strict=True) if not u}
    assert combat_played == {n for n, c in zip(deck.names, deck.combat, strict=True) if c}

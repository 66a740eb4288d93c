"""Athena turret rules, card by card: the kernel and the readable reference on scripted decks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_athena import tiny_deck

import simkit.kernels.athena as K
from simkit.athena import TurretFight, exact_odds, load_athena_pack, lower
from simkit.athena.reference import TALLY, play

# Scripted deck: the card index says what it does for every rating (ratings 1..4 alike).
H1, H2, H3, MISS, JAM = 0, 1, 2, 3, 4
SCRIPT_DECK = ["h1 h1 h1 h1", "h2 h2 h2 h2", "h3 h3 h3 h3", "m m m m", "j j j j"]
NO_DRAW = (("ambush_draws_card", False),)


@pytest.fixture(scope="module")
def data():
    return tiny_deck(load_athena_pack(), SCRIPT_DECK)


def with_half_gun(data):
    """The pack plus a weapon kind that costs a Half-Discharged Battery (tests the flip rule)."""
    return dataclasses.replace(
        data,
        weapon_names=data.weapon_names + ("half_gun",),
        weapon_cost=np.append(data.weapon_cost, K.COST_HALF),
        weapon_phase=np.append(data.weapon_phase, K.PHASE_FIRE),
    )


def scripted(fight, data, cards):
    """Play with the kernel on a fixed card sequence; check the reference agrees; return the
    tally."""
    st, mx = lower(fight, data)
    it = iter(cards)
    while K.advance(st, mx) == K.DRAW:
        c = next(it)
        K.resolve_card(st, mx, data.card_result[c], data.card_damage[c])
    assert next(it, None) is None, "script has cards left over"
    tally = dict(zip(TALLY, (int(x) for x in st[: K.NUM_TRACKED]), strict=True))
    assert play(fight, data, list(cards)) == tuple(tally.values())
    return tally


def fight(**kw):
    kw.setdefault("variants", NO_DRAW)
    return TurretFight(**kw)


def test_hit_equal_to_defense_destroys_the_turret(data):
    t = scripted(fight(weapons=(("cannon", 2),), defense=2, ammo=1), data, [H2])
    assert t["destroyed"] == 1 and t["ammo"] == 0 and t["ambushes"] == 1


def test_hit_below_defense_leaves_no_damage_on_the_turret(data):
    t = scripted(fight(weapons=(("cannon", 2),), defense=2, ammo=2), data, [H1, H1])
    assert t["destroyed"] == 0 and t["ammo"] == 0 and t["ambushes"] == 2


def test_weak_hits_add_up_only_under_the_accumulate_variant(data):
    f = fight(
        weapons=(("cannon", 2),),
        defense=2,
        ammo=2,
        variants=NO_DRAW + (("turret_damage_accumulates", True),),
    )
    t = scripted(f, data, [H1, H1])
    assert t["destroyed"] == 1


def test_each_weapon_fires_once_per_step(data):
    t = scripted(fight(weapons=(("cannon", 3),), defense=3, ammo=3), data, [MISS, MISS, H3])
    assert t["rounds"] == 3 and t["ambushes"] == 3 and t["shots"] == 3 and t["destroyed"] == 1


def test_a_jam_damages_the_weapon_for_the_rest_of_the_game(data):
    f = fight(weapons=(("cannon", 3), ("weapon", 1)), defense=3, ammo=4, order="given")
    t = scripted(
        f, data, [JAM, MISS, MISS, MISS]
    )  # cannon jams in round 1; the other fires 3 times
    assert t["jams"] == 1 and t["shots"] == 4 and t["rounds"] == 3 and t["ammo"] == 0


def test_a_miss_does_nothing(data):
    t = scripted(fight(weapons=(("cannon", 1),), defense=1, ammo=1), data, [MISS])
    assert t["destroyed"] == 0 and t["jams"] == 0


def test_fight_stops_when_the_convoy_has_nothing_left_to_fire(data):
    t = scripted(fight(weapons=(("cannon", 3),), defense=3, ammo=1), data, [JAM])
    assert t["rounds"] == 1 and t["ambushes"] == 1 and t["ammo"] == 0


def test_fixed_rounds_keep_the_convoy_under_fire_after_its_ammo_is_gone(data):
    t = scripted(fight(weapons=(("cannon", 3),), defense=3, ammo=1, rounds=4), data, [MISS])
    assert t["rounds"] == 4 and t["ambushes"] == 4


def test_energy_weapon_spends_a_charged_battery_not_ammo(data):
    t = scripted(fight(weapons=(("energy_cannon", 4),), defense=3, ammo=2, charged=1), data, [MISS])
    assert t["charged"] == 0 and t["ammo"] == 2 and t["shots"] == 1


def test_two_half_batteries_never_pay_for_a_charged_one(data):
    t = scripted(fight(weapons=(("energy_cannon", 4),), defense=3, half=2), data, [])
    assert t["shots"] == 0 and t["half"] == 2


def test_two_half_for_charged_is_only_a_variant(data):
    f = fight(
        weapons=(("energy_cannon", 4),),
        defense=3,
        half=2,
        variants=NO_DRAW + (("two_half_for_charged", True),),
    )
    t = scripted(f, data, [MISS])
    assert t["shots"] == 1 and t["half"] == 0


def test_half_cost_discards_a_half_token_before_flipping_a_charged_one(data):
    d = with_half_gun(data)
    t = scripted(
        fight(weapons=(("half_gun", 2),), defense=3, charged=1, half=1), d, [MISS, MISS, MISS]
    )
    # round 1 discards the Half; round 2 flips the Charged (it stays as a Half); round 3 discards it
    assert t["shots"] == 3 and t["charged"] == 0 and t["half"] == 0


def test_flipping_a_charged_battery_leaves_a_half_discharged_one(data):
    d = with_half_gun(data)
    t = scripted(fight(weapons=(("half_gun", 2),), defense=2, charged=1), d, [H2])
    assert t["charged"] == 0 and t["half"] == 1 and t["destroyed"] == 1


def test_cyborg_ignores_a_convoy_weapons_jam(data):
    t = scripted(fight(weapons=(("cannon", 3),), defense=3, ammo=2, cyborg=True), data, [JAM, H3])
    assert t["jams"] == 0 and t["jams_ignored"] == 1 and t["destroyed"] == 1


def test_cyborg_does_not_help_a_locations_weapon(data):
    f = fight(weapons=(("location_weapon", 3),), defense=3, ammo=2, cyborg=True)
    t = scripted(f, data, [JAM])
    assert t["jams"] == 1 and t["jams_ignored"] == 0 and t["rounds"] == 1


def test_locations_weapon_fires_before_the_turret_attacks(data):
    t = scripted(fight(weapons=(("location_weapon", 3),), defense=3, ammo=1), data, [H3])
    assert t["destroyed"] == 1 and t["ambushes"] == 0


def test_grenade_destroys_a_defense_2_turret_and_its_jam_hurts_the_convoy(data):
    t = scripted(fight(weapons=(("cannon", 1),), defense=2, ammo=1, grenade=True), data, [JAM])
    assert t["destroyed"] == 1 and t["grenade_damage"] == 1 and t["shots"] == 0 and t["ammo"] == 1


def test_cyborg_ignores_the_grenades_jam_unless_switched_off(data):
    t = scripted(fight(weapons=(("cannon", 1),), defense=2, grenade=True, cyborg=True), data, [JAM])
    assert t["grenade_damage"] == 0 and t["jams_ignored"] == 1
    f = fight(
        weapons=(("cannon", 1),),
        defense=2,
        grenade=True,
        cyborg=True,
        variants=NO_DRAW + (("cyborg_ignores_grenade_jam", False),),
    )
    assert scripted(f, data, [JAM])["grenade_damage"] == 1


def test_grenade_is_kept_against_a_turret_it_cannot_destroy(data):
    t = scripted(fight(weapons=(("cannon", 3),), defense=3, ammo=1, grenade=True), data, [MISS])
    assert t["grenades_thrown"] == 0


def test_grenade_last_is_thrown_only_after_the_weapons_failed(data):
    f = fight(weapons=(("cannon", 2),), defense=2, ammo=2, grenade=True, grenade_use="last")
    assert scripted(f, data, [H2])["grenades_thrown"] == 0
    t = scripted(f, data, [MISS, MISS])
    assert t["grenades_thrown"] == 1 and t["destroyed"] == 1 and t["ammo"] == 1


def test_each_turret_attack_flips_an_outcome_card_by_default(data):
    f = TurretFight(weapons=(("cannon", 2),), defense=2, ammo=1)
    t = scripted(f, data, [JAM, H2])  # the first card only says where the damage lands
    assert t["cards"] == 2 and t["destroyed"] == 1 and t["jams"] == 0


def test_best_order_fires_the_likeliest_killer_first():
    data = load_athena_pack()
    f = TurretFight(
        weapons=(("weapon", 1), ("cannon", 4), ("energy_cannon", 3)), defense=2, ammo=2, charged=1
    )
    odds = exact_odds(f, data)
    assert [w["fires"] for w in odds.weapons] == [3, 1, 2]


def test_expected_damage_is_the_track_row_times_the_expected_turret_attacks():
    data = load_athena_pack()
    f = TurretFight(weapons=(("cannon", 3),), defense=2, ammo=2, detection=3)
    odds = exact_odds(f, data)
    assert data.track_damage[0] == 0
    assert odds.expected_damage_taken == pytest.approx(
        data.track_damage[3] * odds.means["turret_attacks"]
    )
    rows = odds.damage_by_detection()
    assert rows[0]["expected_damage"] == 0.0
    assert sum(rows[3]["expected_damage_by_round"]) == pytest.approx(odds.expected_damage_taken)

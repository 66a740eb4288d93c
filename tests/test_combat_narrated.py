"""Narrated combats: scripted card orders through the engine, with exact end states.

Cards are written out in each test; hit masks use the unit bits
infantry 1, armoured car 2, artillery 4, armoured train 8, airship 16.
"""

from __future__ import annotations

import pytest
from conftest import custom_deck

from simkit.combat import Combat, play_cards
from simkit.names import LOYALIST, MI_GO, SHOGGOTH, ZOMBIE

INF, CAR, ART, TRAIN, AIR = 1, 2, 4, 8, 16


def fight(force: str, vs: str, **kw) -> Combat:
    return Combat.parse(force, vs, **kw)


def test_two_symbols_destroy_a_zombie_while_a_cube_lands_on_infantry(pack):
    deck = custom_deck(
        pack,
        [
            {
                ZOMBIE: (INF, 1, 0, 0)
            },  # Infantry symbol: 1 damage; one purple cube -> cheapest stack (Infantry)
            {
                ZOMBIE: (ART | AIR, 0, 1, 0)
            },  # Artillery symbol (no Airship in the force): 1 damage -> destroyed; lose 1 Sanity
        ],
    )
    end = play_cards(fight("infantry=2,artillery=1", "zombie"), deck, [1, 2])
    assert end.outcome == "win"
    assert end.lost == {}  # not defeated: the damaged Infantry heals
    assert end.units == {"infantry": 2, "artillery": 1}
    assert end.sanity == 2
    assert end.old_one_damage == (2,)
    assert end.cards == 2


def test_two_cubes_eliminate_the_top_infantry_then_missing_sanity_defeats_and_kills_the_damaged(
    pack,
):
    deck = custom_deck(
        pack,
        [
            {
                MI_GO: (0, 2, 0, 0)
            },  # two cubes on the Infantry stack = its capacity: top unit eliminated
            {MI_GO: (INF, 0, 1, 0)},  # 1 damage to the Mi-go, Sanity 3 -> 2
            {MI_GO: (0, 1, 1, 0)},  # a cube on the last Infantry, Sanity 2 -> 1
            {MI_GO: (0, 0, 1, 0)},  # Sanity 1 -> 0
            {MI_GO: (0, 0, 1, 0)},  # Sanity needed, none left: defeated
        ],
    )
    end = play_cards(fight("infantry=2", "mi_go"), deck, [1, 2, 3, 4, 5])
    assert end.outcome == "defeat"
    assert end.lost == {
        "infantry": 2
    }  # one eliminated by cubes, the damaged one destroyed at the end
    assert end.units == {"infantry": 0}
    assert end.sanity == 0
    assert end.old_one_damage == (1,)
    assert end.damage_left == (1,)  # a Mi-go keeps its damage
    assert end.cards == 5


def test_two_zombies_share_the_card_take_the_same_damage_and_double_what_they_inflict(pack):
    deck = custom_deck(
        pack,
        [
            {
                ZOMBIE: (INF, 1, 0, 0)
            },  # each Zombie takes 1; 1 cube x 2 Zombies = 2 cubes on Infantry: one dies
            {ZOMBIE: (CAR, 0, 1, 0)},  # each Zombie takes 1 more: both destroyed; 1 Sanity x 2 lost
        ],
    )
    end = play_cards(fight("infantry=2,armoured_car=1", "zombie,zombie"), deck, [1, 2])
    assert end.outcome == "win"
    assert end.lost == {"infantry": 1}
    assert end.units == {"infantry": 1, "armoured_car": 1}
    assert end.old_one_damage == (2, 2)
    assert end.sanity == 1
    assert end.damage_left == (-1, -1)


def test_a_card_can_destroy_the_old_one_and_defeat_the_force_at_once(pack):
    deck = custom_deck(
        pack, [{ZOMBIE: (INF | ART, 1, 1, 0)}]
    )  # 2 damage kills; a cube; Sanity needed but none
    end = play_cards(fight("infantry=1,artillery=1", "zombie", extra_sanity=-3), deck, [1])
    assert end.outcome == "win_and_defeat"
    assert end.lost == {"infantry": 1}  # defeated: the unit carrying a cube is destroyed
    assert end.units == {"infantry": 0, "artillery": 1}
    assert end.damage_left == (-1,)


def test_purple_cubes_never_go_on_airships_and_airship_damage_only_hits_airships(pack):
    deck = custom_deck(
        pack,
        [
            {MI_GO: (0, 1, 0, 0)},  # cube must go on the Infantry, not the Airship
            {MI_GO: (0, 0, 0, 1)},  # airship damage: 1 cube on the Airship
            {MI_GO: (0, 0, 0, 1)},  # second airship damage: Airship eliminated
            {
                MI_GO: (INF, 1, 0, 0)
            },  # 1 damage to the Mi-go; second cube on Infantry: eliminated -> no units: defeat
        ],
    )
    end = play_cards(fight("infantry=1,airship=1", "mi_go"), deck, [1, 2, 3, 4])
    assert end.outcome == "defeat"
    assert end.lost == {"infantry": 1, "airship": 1}
    assert end.old_one_damage == (1,)


def test_withdrawing_saves_damaged_units_and_damage_stays_on_a_shoggoth_but_not_a_zombie(pack):
    deck = custom_deck(
        pack,
        [
            {SHOGGOTH: (INF, 0, 1, 0), ZOMBIE: (INF, 0, 1, 0)},  # 1 damage, Sanity 3 -> 2
            {
                SHOGGOTH: (0, 1, 1, 0),
                ZOMBIE: (0, 1, 1, 0),
            },  # a cube on Infantry, Sanity 2 -> 1: withdraw before the next card
            {SHOGGOTH: (0, 9, 0, 0), ZOMBIE: (0, 9, 0, 0)},  # never drawn
        ],
    )
    end = play_cards(fight("infantry=2", "shoggoth"), deck, [1, 2, 3], withdraw="sanity:1")
    assert end.outcome == "withdraw"
    assert end.lost == {}
    assert end.cards == 2
    assert end.damage_left == (1,)
    zombie = play_cards(fight("infantry=2", "zombie"), deck, [1, 2, 3], withdraw="sanity:1")
    assert zombie.outcome == "withdraw"
    assert zombie.damage_left == (0,)  # Zombies heal after combat


def test_loyalists_never_cost_sanity_and_every_unit_hits_them(pack):
    deck = custom_deck(pack, [{LOYALIST: (INF | CAR | ART, 0, 0, 0)}])
    end = play_cards(fight("infantry=1,armoured_car=1,artillery=1", "loyalist"), deck, [1])
    assert end.outcome == "win"
    assert end.sanity == 3


def test_an_outpost_beside_infantry_adds_no_second_infantry_hit(pack):
    deck = custom_deck(pack, [{MI_GO: (INF, 0, 0, 0)}, {MI_GO: (0, 0, 0, 0)}])
    end = play_cards(fight("infantry=1,outpost=1", "mi_go"), deck, [1, 2])
    assert end.old_one_damage == (1,)


def test_a_lone_revenge_port_fights_as_infantry_takes_cubes_and_adds_its_sanity(pack):
    deck = custom_deck(
        pack,
        [
            {ZOMBIE: (INF, 1, 1, 0)},  # the port hits as Infantry; the cube can only go on the port
            {
                ZOMBIE: (INF, 1, 0, 0)
            },  # second hit destroys the Zombie; the port took 2 damage in all
        ],
    )
    end = play_cards(Combat(force=(0,) * 7, old_ones=(ZOMBIE,), port_strength=4), deck, [1, 2])
    assert end.outcome == "win"
    assert end.port_hits == 2
    assert end.sanity == 3 + pack.port["sanity_strength_4"] - 1


def test_corporal_jones_leaves_before_a_card_that_would_defeat_the_force(pack):
    deck = custom_deck(pack, [{ZOMBIE: (0, 0, 1, 0)}])
    end = play_cards(
        fight("infantry=1", "zombie", extra_sanity=-3, personalities=("jones",)), deck, [1]
    )
    assert end.outcome == "withdraw"
    assert end.lost == {}
    without = play_cards(fight("infantry=1", "zombie", extra_sanity=-3), deck, [1])
    assert without.outcome == "defeat"


def test_bombardier_milligan_adds_one_damage_before_the_first_card_when_artillery_fights(pack):
    deck = custom_deck(pack, [{ZOMBIE: (ART, 0, 0, 0)}, {ZOMBIE: (ART, 0, 0, 0)}])
    end = play_cards(fight("artillery=1", "zombie", personalities=("milligan",)), deck, [1, 2])
    assert end.outcome == "win"
    assert end.cards == 1
    no_art = play_cards(fight("infantry=1", "zombie", personalities=("milligan",)), deck, [1, 2])
    assert no_art.old_one_damage == (0,)


@pytest.mark.parametrize(
    "personality,force,capacity",
    [("proust", "armoured_car=1", 3), ("krupp", "armoured_train=1", 4)],
)
def test_proust_and_krupp_raise_damage_capacity(pack, personality, force, capacity):
    deck = custom_deck(pack, [{MI_GO: (0, 1, 0, 0)}] * (capacity + 1))
    plain = play_cards(fight(force, "mi_go"), deck, list(range(1, capacity + 2)))
    boosted = play_cards(
        fight(force, "mi_go", personalities=(personality,)), deck, list(range(1, capacity + 2))
    )
    assert plain.cards == capacity - 1  # without the personality it dies one cube earlier
    assert boosted.cards == capacity  # the unit dies with the capacity-th cube
    assert boosted.outcome == "defeat"

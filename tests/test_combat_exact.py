"""The exact solver against brute-force enumeration of every card order (exact fractions)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import small_deck

from simkit.combat import Combat, exact_odds
from simkit.combat.reference import ReferenceCombat
from simkit.core.enumerate import enumerate_outcomes
from simkit.names import NUM_STACKS, STACKS, old_one_id
from strategies.combat.withdrawal import Threshold

# (force, Old Ones, deck cards) - small decks cut from the shipped deck so every order can be listed
CASES = [
    ("infantry=1", "zombie", [0, 1, 2, 3, 4, 5]),
    ("infantry=2,artillery=1", "mi_go", [3, 7, 11, 15, 19, 23]),
    ("infantry=1,airship=1", "mi_go", [2, 4, 6, 8, 10, 12]),
    ("artillery=1,armoured_train=1", "shoggoth", [0, 5, 10, 15, 20, 25]),
    ("armoured_car=1", "temple", [1, 2, 3, 5, 8]),  # AC never hurts a Temple: defeat or stall
    ("infantry=2", "zombie,zombie", [6, 7, 8, 9, 10, 11]),  # shared card, damage multiplied
    ("infantry=1,armoured_car=1", "zombie,loyalist", [12, 13, 14, 15, 16]),
]


def brute_force(
    data, force: str, vs: str, withdraw_at_sanity: int = -1, seen=(), max_reshuffles=40
):
    fight = Combat.parse(force, vs)
    ref = ReferenceCombat(data, fight.force, fight.old_ones, withdraw_at_sanity=withdraw_at_sanity)
    full = list(range(data.card_ids.size))
    start = [c for c in full if int(data.card_ids[c]) not in seen]
    return enumerate_outcomes(
        full,
        start,
        ref.start,
        ref.step,
        before_draw=ref.before_draw,
        max_reshuffles=max_reshuffles,
        on_exhausted=ref.exhausted,
        stalemate=ref.stalemate,
    )


def summarise(dist) -> tuple[dict[str, Fraction], list[Fraction]]:
    outcomes = {
        name: Fraction(0) for name in ("win", "win_and_defeat", "defeat", "withdraw", "stalemate")
    }
    lost = [Fraction(0)] * NUM_STACKS
    for (name, losses), p in dist.items():
        outcomes[name] += p
        for s in range(NUM_STACKS):
            lost[s] += p * losses[s]
    return outcomes, lost


def assert_same(exact, dist):
    outcomes, lost = summarise(dist)
    assert sum(outcomes.values()) == 1
    for name, p in outcomes.items():
        assert exact.outcomes[name] == pytest.approx(float(p), abs=1e-12), name
    for unit, expected in exact.expected_units_lost.items():
        assert expected == pytest.approx(float(lost[STACKS.index(unit)]), abs=1e-12), unit


@pytest.mark.parametrize("force,vs,cards", CASES)
def test_exact_equals_brute_force_over_every_card_order(pack, force, vs, cards):
    data = small_deck(pack, cards)
    exact = exact_odds(Combat.parse(force, vs), data)
    assert_same(exact, brute_force(data, force, vs))


def test_exact_equals_brute_force_with_a_withdraw_threshold(pack):
    data = small_deck(pack, [0, 9, 18, 27, 36, 39])
    exact = exact_odds(
        Combat.parse("infantry=2,artillery=1", "shoggoth"),
        data,
        withdraw=Threshold(sanity_at_most=1),
    )
    dist = brute_force(data, "infantry=2,artillery=1", "shoggoth", withdraw_at_sanity=1)
    assert_same(exact, dist)
    assert exact.outcomes["withdraw"] > 0  # the threshold really fires in this case


def test_exact_equals_brute_force_conditioned_on_seen_cards(pack):
    data = small_deck(pack, [0, 1, 2, 3, 4, 5, 6])
    seen = (int(data.card_ids[1]), int(data.card_ids[4]))
    exact = exact_odds(Combat.parse("infantry=1,armoured_car=1", "mi_go"), data, seen=seen)
    assert_same(exact, brute_force(data, "infantry=1,armoured_car=1", "mi_go", seen=seen))


def test_seen_cards_change_the_odds(pack):
    fight = Combat.parse("infantry=2", "zombie")
    fresh = exact_odds(fight, pack)
    # count the cards that hurt a Zombie with Infantry and pretend all of them are gone
    zombie = old_one_id("zombie")
    hitting = [int(pack.card_ids[c]) for c in range(40) if pack.card_hits[c, zombie] & 1][:10]
    counted = exact_odds(fight, pack, seen=tuple(hitting))
    assert counted.p_destroy < fresh.p_destroy


def test_reshuffle_is_exact_when_the_deck_runs_out(pack):
    # three cards that never hurt the force, at least one of which hurts a Shoggoth with
    # Artillery: six damage needs the discard pile shuffled back at least once
    shog = old_one_id("shoggoth")
    harmless = [
        c for c in range(40) if not (pack.card_sanity[c, shog] or pack.card_purple[c, shog])
    ]
    hitting = [c for c in harmless if pack.card_hits[c, shog] & 4]
    cards = [hitting[0]] + [c for c in harmless if c != hitting[0]][:2]
    data = small_deck(pack, cards)
    exact = exact_odds(Combat.parse("artillery=1", "shoggoth"), data)
    dist = brute_force(data, "artillery=1", "shoggoth")
    assert_same(exact, dist)
    assert exact.expected_cards > 3


def test_outcomes_sum_to_one_and_losses_histogram_is_a_distribution(pack):
    odds = exact_odds(Combat.parse("infantry=2,armoured_car=1", "mi_go"), pack)
    assert sum(odds.outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    assert sum(odds.p_units_lost) == pytest.approx(1.0, abs=1e-12)
    mean = sum(k * p for k, p in enumerate(odds.p_units_lost))
    assert mean == pytest.approx(sum(odds.expected_units_lost.values()), abs=1e-12)


def test_optimal_policy_leaves_at_once_a_fight_that_cannot_be_won(pack):
    # Armoured Cars can never damage a Temple: nothing to gain, so no card is drawn
    odds = exact_odds(Combat.parse("armoured_car=2", "temple"), pack, withdraw="optimal")
    assert odds.outcomes["withdraw"] == pytest.approx(1.0)
    assert odds.expected_cards == 0.0
    assert odds.extra["policy_rules"][0].startswith("withdraw before the first card")


def test_value_policy_trades_a_little_p_destroy_for_fewer_losses(pack):
    fight = Combat.parse("infantry=2,artillery=1", "mi_go")
    never, value = exact_odds(fight, pack), exact_odds(fight, pack, withdraw="value")
    assert value.p_destroy <= never.p_destroy
    assert value.expected_gold_lost < never.expected_gold_lost
    assert value.outcomes["withdraw"] > 0 and any(
        "withdraw" in line for line in value.extra["policy_rules"]
    )

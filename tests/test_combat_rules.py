"""Combat rules on scripted decks: the Revenge Port token's place in a fight, and fights
that can never end (stalemates). Each deck is written card by card (conftest.custom_deck),
so the rule text alone says what must happen."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import custom_deck

from simkit.combat import Combat, combat_arrays, exact_odds, monte_carlo_odds
from simkit.kernels.combat import play_script
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.names import OLD_ONES, PORT
from strategies.combat import parse_allocation
from strategies.combat.withdrawal import Never

ZOMBIE = OLD_ONES.index("zombie")
INFANTRY_BIT = 1 << 0


def _script(data, fight, cards, allocate="cheapest"):
    st, mx, cost = combat_arrays(fight, data)
    alloc_id, alloc_params = parse_allocation(allocate).lower()
    script = np.asarray(cards, dtype=np.int64)
    kit = combat_kit(
        data,
        mx,
        cost,
        script,
        (alloc_id, alloc_params),
        Never().lower(),
        np.zeros((1, 4), dtype=np.int64),
        data.port["flip_threshold"],
    )
    play_script(kit, st, script)
    return st, mx


def test_a_port_with_no_units_fights_as_infantry(pack):
    """'If you have no Units when your Port is attacked, the Port fights as Infantry.'"""
    data = custom_deck(pack, [{ZOMBIE: (INFANTRY_BIT, 0, 0, 0)}])
    st, mx = _script(
        data, Combat(force=(0,) * 7, old_ones=(ZOMBIE,), port_strength=4, port_defence=True), [0]
    )
    assert mx[C.PORT_FIGHTS] == 1
    assert st[C.OO_DAMAGE] == 1  # the Infantry symbol hit through the Port


def test_a_port_beside_units_does_not_fight_and_the_last_unit_lost_is_a_defeat(pack):
    """With Units present the token only takes cubes; when the last Unit is eliminated the
    player has 'no military units left in the combat' (Defeat), though the token stands."""
    data = custom_deck(pack, [{ZOMBIE: (0, 2, 0, 0)}, {ZOMBIE: (INFANTRY_BIT, 0, 0, 0)}])
    fight = Combat(
        force=(1, 0, 0, 0, 0, 0, 0), old_ones=(ZOMBIE,), port_strength=4, port_defence=True
    )
    st, mx = _script(data, fight, [0, 1], allocate="protect:port")
    assert mx[C.PORT_FIGHTS] == 0
    assert st[C.OUTCOME] == C.DEFEAT and st[C.CARDS] == 1  # over after the first card
    assert st[C.COUNT + PORT] == 1 and st[C.OO_DAMAGE] == 0  # the token stands; it never hit


def test_a_fight_no_card_can_change_is_a_stalemate_not_a_withdrawal(pack):
    """A whole fresh deck drawn without any effect: the fight can never end."""
    data = custom_deck(pack, [{ZOMBIE: (0, 0, 0, 0)}] * 4)
    fight = Combat.parse("airship=1", "zombie")
    exact = exact_odds(fight, data)
    assert exact.outcomes["stalemate"] == pytest.approx(1.0) and exact.outcomes["withdraw"] == 0.0
    mc = monte_carlo_odds(fight, data, games=200, seed=1)
    assert mc.outcomes["stalemate"] == 1.0 and mc.outcomes["withdraw"] == 0.0
    assert mc.expected_cards == pytest.approx(8.0)  # the deck, then one whole fresh deck


def test_a_fight_that_still_changes_plays_on_past_many_reshuffles(pack):
    """A stalemate needs a whole deck without effect; slow progress is not one."""
    rows = [{ZOMBIE: (0, 0, 0, 0)}] * 9 + [{ZOMBIE: (0, 0, 1, 0)}]  # one card in ten costs Sanity
    data = custom_deck(pack, rows)
    mc = monte_carlo_odds(Combat.parse("airship=1", "zombie"), data, games=2000, seed=2)
    assert mc.outcomes["defeat"] > 0.9 and mc.outcomes["withdraw"] == 0.0
    assert mc.expected_cards > 3 * 10  # well past three reshuffles

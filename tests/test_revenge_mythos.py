"""Mythos cards as data: the 16 named cards, no invented ones, clear errors."""

from __future__ import annotations

import shutil

import pytest

from simkit.datapack import DEFAULT_PACK
from simkit.errors import DataPackError
from simkit.revenge.mythos import EFFECTS, FILE, load_mythos

NAMED_IN_RULES = {
    "abhoth",
    "atlach_nacha",
    "azathoth",
    "baoht_zuqqa_mogg",
    "byakhee",
    "cthonian",
    "dark_young",
    "deep_ones",
    "dholes",
    "dimensional_shambler",
    "flying_polyp",
    "formless_spawn",
    "ghoul",
    "nyarlathotep",
    "servitor_of_the_outer_gods",
    "yog_sothoth",
}


def test_default_deck_is_exactly_the_sixteen_cards_the_rules_name():
    deck = load_mythos()
    assert set(deck.names) == NAMED_IN_RULES and deck.size == 16


def test_cards_whose_effect_the_rules_do_not_state_are_tagged_assumed():
    text = (DEFAULT_PACK / FILE).read_text()
    for card in ("deep_ones", "formless_spawn", "azathoth", "dimensional_shambler"):
        line = next(row for row in text.splitlines() if row.startswith(card + ","))
        assert ",assumed," in line and ("ASSUMED" in line or "assumed" in line)


def test_combat_cards_are_the_ones_played_during_combat():
    deck = load_mythos()
    combat = {n for n, c in zip(deck.names, deck.combat, strict=True) if c}
    assert {"ghoul", "baoht_zuqqa_mogg"} <= combat
    assert "nyarlathotep" not in combat
    assert deck.tp_cost.max() <= 2 and deck.tp_cost.min() >= 0


@pytest.mark.parametrize(
    "old,new,field",
    [
        ("ghoul,ghoul_joins_combat", "ghoul,eat_brains", "effect"),
        ("byakhee,move_closest_old_one,1,", "byakhee,move_closest_old_one,3,", "tp_cost"),
        (
            ',rules,rules,assumed,"Revenge rules, Additional '
            "Explanation; TP cost not stated; ASSUMED",
            ',rules,guess,assumed,"Revenge rules, Additional '
            "Explanation; TP cost not stated; ASSUMED",
            "amount_provenance",
        ),
    ],
)
def test_a_broken_mythos_row_names_its_row_and_field(tmp_path, old, new, field):
    pack = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, pack)
    path = pack / FILE
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(DataPackError) as err:
        load_mythos(pack)
    assert (
        FILE in str(err.value) and f"field '{field}'" in str(err.value) and "row " in str(err.value)
    )


def test_every_effect_type_is_used_or_documented():
    deck = load_mythos()
    assert {EFFECTS[e] for e in deck.effect} <= set(EFFECTS)

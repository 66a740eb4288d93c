"""Mythos cards as data: the printed 30, the 16 named cards, no invented ones, clear errors."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from simkit.datapack import DEFAULT_PACK
from simkit.errors import DataPackError
from simkit.game.mythos import played_cards, prior_kinds
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


def test_the_deck_has_the_printed_thirty_cards_sixteen_named_and_fourteen_unknown():
    """Revenge rules, Components: "30 Mythos cards"; the notes name 16. The other 14 are
    explicit rows of unknown text (effect blank), never invented."""
    deck = load_mythos()
    assert deck.size == 30 == deck.declared_size
    named = {n for n, u in zip(deck.names, deck.unknown, strict=True) if not u}
    assert named == NAMED_IN_RULES and int(deck.unknown.sum()) == 14
    assert all(EFFECTS[e] == "blank" for e in deck.effect[deck.unknown])


def test_a_deck_of_another_size_than_the_printed_one_is_refused(tmp_path):
    shutil.copytree(DEFAULT_PACK, tmp_path / "pack")
    path = tmp_path / "pack" / FILE
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(DataPackError, match="29 cards, but pack.toml \\[mythos\\] size says"):
        load_mythos(tmp_path / "pack")


def test_only_a_card_of_unknown_text_may_be_blank(tmp_path):
    shutil.copytree(DEFAULT_PACK, tmp_path / "pack")
    path = tmp_path / "pack" / FILE
    path.write_text(path.read_text().replace("abhoth,place_tiles_near_port", "abhoth,blank"))
    with pytest.raises(DataPackError, match="unknown text has effect 'blank'"):
        load_mythos(tmp_path / "pack")


def test_the_prior_draws_unknown_cards_from_the_public_effect_kinds_per_world():
    deck = load_mythos()
    kinds = {k for k, _, _ in prior_kinds(deck)}
    w1 = played_cards(deck, "assumed", "prior", 1)
    again = played_cards(deck, "assumed", "prior", 1)
    w2 = played_cards(deck, "assumed", "prior", 2)
    assert all(np.array_equal(w1[k], again[k]) for k in w1)  # a world is one fixed draw
    assert not np.array_equal(w1["myth_effect"], w2["myth_effect"])
    drawn = w1["myth_effect"][deck.unknown]
    assert {EFFECTS[e] for e in drawn} <= kinds and "blank" not in kinds
    known = ~deck.unknown
    assert np.array_equal(w1["myth_effect"][known], deck.effect[known])  # the 16 keep theirs
    assert set(w1["myth_tp"][deck.unknown]) <= {0, 1, 2}
    blank = played_cards(deck, "assumed", "blank", 1)["myth_effect"]
    assert all(EFFECTS[e] == "blank" for e in blank[deck.unknown])


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

"""Athena data pack: provenance on every value, validation errors naming file / row / field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simkit.athena import load_athena_pack
from simkit.athena.assumed_deck import build_csv
from simkit.athena.pack import DEFAULT_PACK
from simkit.errors import DataPackError


@pytest.fixture
def pack_copy(tmp_path) -> Path:
    dst = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, dst)
    return dst


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def error_of(path: Path) -> str:
    with pytest.raises(DataPackError) as exc:
        load_athena_pack(path)
    return str(exc.value)


def test_shipped_pack_loads_with_every_value_tagged():
    data = load_athena_pack()
    assert data.deck_size == 20 and data.num_ratings == 4 and data.turret_number.size == 5
    assert set(data.provenance) <= {"rules", "external", "inferred", "assumed"}
    assert data.provenance["assumed"] > data.provenance["rules"] > 0


def test_shipped_outcome_deck_is_what_the_documented_builder_writes():
    assert (DEFAULT_PACK / "outcome_cards.csv").read_text(encoding="utf-8") == build_csv()


def test_shipped_deck_is_never_worse_for_a_better_weapon():
    data = load_athena_pack()
    rank = {0: 1, 2: 0}  # miss above jam; hits ranked by damage below
    for c in range(data.deck_size):
        score = [
            10 + data.card_damage[c, r]
            if data.card_result[c, r] == 1
            else rank[int(data.card_result[c, r])]
            for r in range(data.num_ratings)
        ]
        assert score == sorted(score), c


def test_hash_changes_exactly_when_a_value_changes(pack_copy):
    base = load_athena_pack(pack_copy).hash
    assert load_athena_pack(pack_copy).hash == base
    edit(pack_copy / "turrets.toml", "defense = { value = 1,", "defense = { value = 2,")
    assert load_athena_pack(pack_copy).hash != base


def test_csv_bad_result_names_file_row_and_field(pack_copy):
    edit(pack_copy / "outcome_cards.csv", "1,1,jam,0", "1,1,boom,0")
    msg = error_of(pack_copy)
    assert "outcome_cards.csv: row 2: field 'result'" in msg and "boom" in msg


def test_csv_hit_without_damage_is_rejected(pack_copy):
    edit(pack_copy / "outcome_cards.csv", "20,4,hit,3", "20,4,hit,0")
    assert "outcome_cards.csv: row 81: field 'damage'" in error_of(pack_copy)


def test_csv_unknown_provenance_tag_is_rejected(pack_copy):
    edit(pack_copy / "outcome_cards.csv", "1,1,jam,0,assumed", "1,1,jam,0,guessed")
    assert "field 'provenance'" in error_of(pack_copy)


def test_card_missing_a_rating_row_is_rejected(pack_copy):
    path = pack_copy / "outcome_cards.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if not line.startswith("7,3,")) + "\n")
    assert "card 7 has no row for rating 3" in error_of(pack_copy)


def test_deck_size_must_match_the_cards(pack_copy):
    edit(pack_copy / "pack.toml", "size = { value = 20,", "size = { value = 21,")
    assert "deck.size = 21" in error_of(pack_copy)


def test_bottom_row_of_the_track_deals_no_damage(pack_copy):
    edit(
        pack_copy / "detection_track.toml",
        "turret_damage = { value = 0,",
        "turret_damage = { value = 1,",
    )
    msg = error_of(pack_copy)
    assert "detection_track.toml: row 1: field 'turret_damage'" in msg


def test_turret_defense_of_the_wrong_type_names_row_and_field(pack_copy):
    edit(pack_copy / "turrets.toml", "defense = { value = 3,", 'defense = { value = "three",')
    msg = error_of(pack_copy)
    assert "turrets.toml: row 4: field 'defense'" in msg and "three" in msg


def test_weapon_with_an_unknown_cost_is_rejected(pack_copy):
    edit(pack_copy / "weapons.toml", 'cost = { value = "ammo"', 'cost = { value = "gold"')
    msg = error_of(pack_copy)
    assert "weapons.toml" in msg and "'weapon.cost'" in msg and "gold" in msg


def test_value_without_a_source_is_rejected(pack_copy):
    edit(
        pack_copy / "items.toml",
        'rating = { value = 2, provenance = "assumed", source = "the rating',
        'rating = { value = 2, provenance = "assumed", source = "", x = "the rating',
    )
    assert "'grenade.rating'" in error_of(pack_copy)


def test_missing_battery_section_is_rejected(pack_copy):
    edit(pack_copy / "batteries.toml", "[exchange]", "[exchanges]")
    assert "batteries.toml" in error_of(pack_copy) and "[exchange]" in error_of(pack_copy)


def test_pack_for_another_game_is_rejected(pack_copy):
    edit(pack_copy / "pack.toml", 'game = "athena"', 'game = "auztralia"')
    assert "pack.toml" in error_of(pack_copy)


def test_invalid_toml_names_the_file(pack_copy):
    (pack_copy / "turrets.toml").write_text("[[turret]\n")
    assert "turrets.toml: not valid TOML" in error_of(pack_copy)


def test_user_pack_changes_the_answer(pack_copy):
    from simkit.athena import TurretFight, exact_odds

    fight = TurretFight(weapons=(("cannon", 3),), defense=2, ammo=2)
    before = exact_odds(fight, load_athena_pack(pack_copy)).p_destroy
    edit(pack_copy / "outcome_cards.csv", "20,3,hit,3", "20,3,jam,0")
    after = exact_odds(fight, load_athena_pack(pack_copy))
    assert after.p_destroy < before

"""The data pack: provenance, rules of thumb, and clear errors for broken packs."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from simkit.cli import main
from simkit.combat import Combat, exact_odds
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS, load_pack, provenance_shares
from simkit.datapack.thumbs import rule_of_thumb_violations


@pytest.fixture
def copy_pack(tmp_path) -> Path:
    dest = tmp_path / "pack"
    shutil.copytree(DEFAULT_PACK, dest)
    return dest


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, count))


def check(capsys, pack_dir) -> tuple[int, str]:
    code = main(["data", "check", str(pack_dir)])
    return code, capsys.readouterr().err.strip()


def test_shipped_pack_tags_every_value_and_keeps_every_rule_of_thumb(pack):
    assert set(pack.provenance) <= set(PROVENANCE_TAGS)
    assert sum(provenance_shares(pack).values()) == pytest.approx(1.0)
    assert rule_of_thumb_violations(pack) == []
    assert pack.card_ids.size == 40 and pack.deck_size == 40


def test_known_rule_values_are_tagged_rules_in_the_pack():
    units = (DEFAULT_PACK / "units.toml").read_text()
    assert re.search(r'\[infantry\]\ncost = \{ value = 1, provenance = "rules"', units)


def test_provenance_command_reports_shares(capsys):
    assert main(["data", "provenance", "--json"]) == 0
    shares = json.loads(capsys.readouterr().out)["shares"]
    assert set(shares) == set(PROVENANCE_TAGS) and shares["assumed"] > 0.5


def test_a_users_own_pack_changes_the_odds(copy_pack):
    edit(
        copy_pack / "units.toml",
        'damage_capacity = { value = 2, provenance = "rules"',
        'damage_capacity = { value = 3, provenance = "rules"',
    )
    fight = Combat.parse("infantry=1", "mi_go")
    assert (
        exact_odds(fight, load_pack(copy_pack)).p_destroy > exact_odds(fight, load_pack()).p_destroy
    )
    assert load_pack(copy_pack).hash != load_pack().hash


def test_changing_a_source_comment_keeps_the_hash(copy_pack):
    edit(copy_pack / "units.toml", "one Gold per unit", "one Gold each")
    assert load_pack(copy_pack).hash == load_pack().hash


@pytest.mark.parametrize(
    "file,old,new,expect",
    [
        (
            "old_one_card_rows.csv",
            "card,old_one,hits,purple,",
            "card,old_one,hits,cubes,",
            ["old_one_card_rows.csv", "missing column 'purple'"],
        ),
        (
            "units.toml",
            'provenance = "assumed", source = "not public; between',
            'provenance = "guess", source = "not public; between',
            ["units.toml", "'guess'", "armoured_car.cost"],
        ),
        (
            "old_one_card_rows.csv",
            "1,zombie,infantry+armoured_car+armoured_train,0,0,1,",
            "1,zombie,infantry+armoured_car+armoured_train,x,0,1,",
            ["row 2", "field 'purple'", "'x'"],
        ),
        (
            "old_one_card_rows.csv",
            "1,zombie,infantry+armoured_car+armoured_train,",
            "1,zombie,infantry+tank,",
            ["row 2", "field 'hits'", "'tank'"],
        ),
        ("old_ones.toml", "[loyalist]", "[dragon]", ["old_ones.toml"]),
        ("pack.toml", "size = { value = 40", "size = { value = 41", ["deck has 40 cards", "41"]),
        ("old_one_cards.csv", "1,4,ccw", "1,9,ccw", ["row 2", "field 'compass'"]),
    ],
)
def test_broken_pack_exits_2_with_one_line_naming_file_row_and_field(
    capsys, copy_pack, file, old, new, expect
):
    edit(copy_pack / file, old, new)
    code, err = check(capsys, copy_pack)
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    for part in expect:
        assert part in err


def test_armoured_cars_hitting_a_temple_is_rejected(capsys, copy_pack):
    rows = copy_pack / "old_one_card_rows.csv"
    lines = rows.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if ",temple," in line)
    parts = lines[i].split(",")
    parts[2] = "armoured_car"
    lines[i] = ",".join(parts)
    rows.write_text("\n".join(lines) + "\n")
    code, err = check(capsys, copy_pack)
    assert code == 2 and "Armoured Cars can never damage Temples" in err and f"row {i + 1}" in err


def test_a_smaller_deck_is_accepted_when_declared(capsys, copy_pack):
    edit(copy_pack / "pack.toml", "size = { value = 40", "size = { value = 39")
    cards = copy_pack / "old_one_cards.csv"
    cards.write_text("\n".join(cards.read_text().splitlines()[:-1]) + "\n")
    rows = copy_pack / "old_one_card_rows.csv"
    rows.write_text(
        "\n".join(line for line in rows.read_text().splitlines() if not line.startswith("40,"))
        + "\n"
    )
    code, _ = check(capsys, copy_pack)
    assert code == 0
    assert load_pack(copy_pack).card_ids.size == 39


def test_a_missing_card_row_is_named(capsys, copy_pack):
    rows = copy_pack / "old_one_card_rows.csv"
    rows.write_text(
        "\n".join(line for line in rows.read_text().splitlines() if not line.startswith("7,mi_go"))
        + "\n"
    )
    code, err = check(capsys, copy_pack)
    assert code == 2 and "card 7 has no row for mi_go" in err


def test_broken_rules_of_thumb_warn_and_fail_only_with_strict(capsys, copy_pack):
    rows = copy_pack / "old_one_card_rows.csv"
    text = rows.read_text()
    # give airships a hit on every Zombie row: they are no longer "poor against Zombies"
    fixed = []
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[1] == "zombie":
            hits = [h for h in parts[2].split("+") if h not in ("none", "airship")] + ["airship"]
            parts[2] = "+".join(hits)
        fixed.append(",".join(parts))
    rows.write_text("\n".join(fixed) + "\n")
    assert main(["data", "check", str(copy_pack)]) == 0
    assert "airships should be poor vs zombie" in capsys.readouterr().out
    assert main(["data", "check", str(copy_pack), "--strict"]) == 2

"""The full-game rule numbers (game.toml, revelations.csv, solo.toml): shipped values,
provenance on every value, and bad files stopped with one line naming file/row/field."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from simkit.datapack import DEFAULT_PACK
from simkit.errors import DataPackError
from simkit.game.config import load_rules
from simkit.game.streams import game_streams
from simkit.kernels.low import game_layout as L


@pytest.fixture()
def pack(tmp_path) -> Path:
    for name in ("game.toml", "revelations.csv", "solo.toml"):
        shutil.copy(DEFAULT_PACK / name, tmp_path / name)
    return tmp_path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_shipped_rules_values():
    r = load_rules()
    assert r.r[L.R_OO_START] == 22 and r.r[L.R_END] == 53
    assert r.r[L.R_TP + L.BOX_RAIL] == 2 and r.r[L.R_TP + L.BOX_RAIL_HILLS] == 3
    assert r.r[L.R_RETRIEVE_EMPTY] == 2 and r.r[L.R_CUBES] == 20 and r.r[L.R_TRACKS] == 20
    assert r.r[L.R_FARMS_PER_KIND] == 7 and r.r[L.R_DISPLAY] == 5
    assert (r.r[L.R_START_COAL], r.r[L.R_START_IRON], r.r[L.R_START_GOLD]) == (2, 2, 4)
    assert r.illuminated.sum() == 15 == 3 * r.r[L.R_REV_PER_LEVEL]
    assert r.solo_start == 1 and r.solo_default in r.solo_levels
    assert set(r.provenance) <= {"rules", "external", "inferred", "assumed", "unknown"}


def test_the_personality_deck_has_its_printed_size_and_invents_no_text():
    """Every printed Personality is a card: the 8 with public text keep their effects, the 5
    the rule texts name without one and the unnamed rest are explicit blanks (effect none,
    provenance unknown). 121 cards (base Components) - 40 Old One - 30 Revelation = 51."""
    r = load_rules()
    known = {
        "agent_davies",
        "alanza_castro",
        "alexander_proust",
        "billy_kneebone",
        "bombardier_milligan",
        "boris_krupp",
        "captain_flounder",
        "corporal_jones",
    }
    named = {"lt_singh", "juliet_verne", "desta_danger", "franz_neumann", "takanashi"}
    names = list(r.pers_names)
    assert len(names) == 121 - 40 - 30 == 51
    blank = {n for n, e in zip(names, r.pers_effect, strict=True) if e == 0}
    assert known == set(names) - blank
    assert named <= blank and len(blank) == 51 - 8
    doc = tomllib.loads((DEFAULT_PACK / "game.toml").read_text())
    for n in blank:
        assert doc["personalities"][n]["effect"]["provenance"] == "unknown", n


def test_a_personality_deck_of_another_size_than_declared_is_refused(tmp_path):
    shutil.copytree(DEFAULT_PACK, tmp_path / "pack")
    path = tmp_path / "pack" / "game.toml"
    text = path.read_text()
    path.write_text(
        text.replace("personality_deck = { value = 51", "personality_deck = { value = 52")
    )
    with pytest.raises(DataPackError, match="personality_deck says the printed deck has 52"):
        load_rules(tmp_path / "pack")


def test_no_revelation_benefit_is_invented():
    text = (DEFAULT_PACK / "revelations.csv").read_text()
    rows = [ln for ln in text.splitlines() if ln and not ln.startswith("#")][1:]
    assert rows and all(ln.split(",")[3] == "none" for ln in rows)


def test_every_value_has_provenance_and_source():
    for name in ("game.toml", "solo.toml"):
        doc = tomllib.loads((DEFAULT_PACK / name).read_text())

        def walk(node, where, name=name):
            if isinstance(node, dict) and "value" in node:
                assert node.get("provenance") in (
                    "rules",
                    "external",
                    "inferred",
                    "assumed",
                    "unknown",
                ), where
                assert node.get("source"), where
            elif isinstance(node, dict):
                for k, v in node.items():
                    walk(v, f"{where}.{k}")

        walk(doc, name)


@pytest.mark.parametrize(
    "file, old, new, message",
    [
        (
            "game.toml",
            'mine = { value = 1, provenance = "assumed"',
            'mine = { value = 0, provenance = "assumed"',
            "game.toml: field 'actions.mine': 'actions.mine' must be 1..9, got 0",
        ),
        (
            "game.toml",
            'end = { value = 53, provenance = "rules"',
            'end = { value = 53, provenance = "guess"',
            "game.toml: field 'time.end.provenance': unknown provenance tag 'guess'",
        ),
        (
            "game.toml",
            "illuminated = { value = [23,",
            "illuminated = { value = [3,",
            "game.toml: field 'time.illuminated'",
        ),
        (
            "game.toml",
            'effect = { value = "farm_guard"',
            'effect = { value = "fly"',
            "game.toml: field 'personalities.alanza_castro.effect': unknown effect 'fly'",
        ),
        (
            "game.toml",
            'unit = { value = "armoured_car"',
            'unit = { value = "tank"',
            "'personalities.alexander_proust.unit' is not a unit: 'tank'",
        ),
        (
            "revelations.csv",
            "1,1,reveal,none",
            "1,1,volcano,none",
            "revelations.csv: row 11: field 'kind': unknown kind 'volcano'",
        ),
        (
            "revelations.csv",
            "2,1,reveal,none",
            "2,1,reveal,+2 gold",
            "revelations.csv: row 12: field 'benefit'",
        ),
        (
            "revelations.csv",
            "3,1,reveal,none",
            "3,x,reveal,none",
            "revelations.csv: row 13: field 'level': expected a whole number",
        ),
        (
            "solo.toml",
            'default = { value = "normal"',
            'default = { value = "nightmare"',
            "solo.toml: field 'solo.default': 'solo.default' names 'nightmare'",
        ),
    ],
)
def test_bad_values_name_file_row_field(pack, file, old, new, message):
    edit(pack / file, old, new)
    with pytest.raises(DataPackError) as err:
        load_rules(pack)
    assert message in str(err.value)


def test_too_few_revelations_for_the_deck(pack):
    lines = (pack / "revelations.csv").read_text().splitlines()
    keep = [ln for ln in lines if ln.split(",")[1:2] != ["3"]]  # drop every level-3 card
    (pack / "revelations.csv").write_text("\n".join(keep) + "\n")
    with pytest.raises(DataPackError, match="level 3 has 0 cards"):
        load_rules(pack)


def test_missing_file(pack):
    (pack / "solo.toml").unlink()
    with pytest.raises(DataPackError, match="solo.toml: missing file"):
        load_rules(pack)


def test_not_toml(pack):
    (pack / "game.toml").write_text("[time\n")
    with pytest.raises(DataPackError, match="game.toml: not valid TOML"):
        load_rules(pack)


def test_a_revelation_benefit_typed_in_goes_to_every_human_player(pack):
    """'Benefits on the Revelation cards apply to all players except the Old Ones': the
    shipped deck has none (not public); a user's copy types them in as KIND:AMOUNT."""
    import numpy as np

    from simkit.game.engine import Engine, make_spec
    from simkit.kernels.game_old_ones import revelation
    from simkit.kernels.game_setup import setup_game, setup_row

    edit(pack / "revelations.csv", "1,1,reveal,none", "1,1,reveal,gold:2")
    rules = load_rules(pack)
    card = int(np.flatnonzero(rules.rev_card == 1)[0])
    assert rules.rev_benefit[card] == L.BENEFIT_GOLD and rules.rev_benefit_amount[card] == 2
    eng = Engine(rules=rules)
    spec = make_spec("base", 3, "balanced")
    mode, start, coal, iron, gold, diff, ruleset = eng._mode_args(spec)
    setup_game(
        game_streams(0),
        eng.S,
        eng.X,
        eng.W,
        setup_row(3, mode, start, coal, iron, gold, difficulty=diff, ruleset=ruleset),
    )
    before = eng.state.pl[:3, L.P_RES + L.GOLD].copy()
    oop_vp = int(eng.state.g[L.G_OOP_VP])
    revelation(game_streams(0), eng.S, eng.X, eng.W, card)
    assert (eng.state.pl[:3, L.P_RES + L.GOLD] - before).tolist() == [2, 2, 2]
    assert eng.state.g[L.G_OOP_VP] == oop_vp


def test_a_malformed_revelation_benefit_names_the_row_and_field(pack):
    edit(pack / "revelations.csv", "1,1,reveal,none", "1,1,reveal,gold:lots")
    with pytest.raises(
        DataPackError, match="row 11: field 'benefit': expected 'none' or KIND:AMOUNT"
    ):
        load_rules(pack)


def test_revenge_rule_numbers_come_from_the_pack(pack):
    """The OOP's 9/6/4 tiles, 3 VP per blighted farm and the start resources of both
    rulesets are game.toml [revenge] values, checked like the rest."""
    r = load_rules()
    assert (
        r.r[L.R_OOP_TILES : L.R_OOP_TILES + 3].tolist() == [9, 6, 4] and r.r[L.R_REV_BLIGHT_VP] == 3
    )
    assert r.revenge_start == {"revenge": (3, 3, 6), "revenge-alt": (3, 6, 6)}
    edit(
        pack / "game.toml", "oop_tiles_level_2 = { value = 6,", "oop_tiles_level_2 = { value = -1,"
    )
    with pytest.raises(
        DataPackError, match="game.toml: field 'revenge.oop_tiles_level_2': .* must be 0..99"
    ):
        load_rules(pack)
    edit(
        pack / "game.toml", "oop_tiles_level_2 = { value = -1,", "oop_tiles_level_2 = { value = 5,"
    )
    edit(pack / "game.toml", "alt_start_iron = {", "alt_start_irn = {")
    with pytest.raises(DataPackError, match="missing value 'revenge.alt_start_iron'"):
        load_rules(pack)
    edit(pack / "game.toml", "alt_start_irn = {", "alt_start_iron = {")
    assert load_rules(pack).r[L.R_OOP_TILES + 1] == 5

"""Valid but unusual inputs keep working: CRLF line ends, a BOM, unicode, large files, a
declared non-40-card deck, unicode and spaces in output paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from simkit.cli import main
from simkit.datapack import DEFAULT_PACK, load_pack

CSVS = ("old_one_cards.csv", "old_one_card_rows.csv", "old_one_tiles.csv")


def copy_pack(tmp_path: Path, name: str = "pack") -> Path:
    dst = tmp_path / name
    shutil.copytree(DEFAULT_PACK, dst)
    return dst


def test_crlf_and_bom_everywhere_load_to_the_same_pack(tmp_path):
    pack = copy_pack(tmp_path)
    for p in list(pack.glob("*.csv")) + list(pack.glob("*.toml")) + list(pack.glob("maps/*.csv")):
        text = p.read_text(encoding="utf-8").replace("\n", "\r\n")
        p.write_bytes(text.encode("utf-8-sig"))
    assert load_pack(pack).hash == load_pack().hash
    from simkit.game.config import load_rules
    from simkit.revenge.mythos import load_mythos

    assert load_rules(pack).hash == load_rules().hash
    assert load_mythos(pack).names == load_mythos().names
    from simkit.board import load_map

    assert load_map(pack / "maps" / "eastern.csv").hash == load_map("eastern").hash


def test_unicode_and_a_very_long_source_text_are_fine(tmp_path):
    pack = copy_pack(tmp_path)
    path = pack / "old_one_tiles.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].rsplit(",", 1)[0] + ',"źródło: polska edycja – ✓ ' + "ü" * 200_000 + '"'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert load_pack(pack).hash == load_pack().hash  # sources do not enter the hash


def test_a_map_with_thousands_of_comment_and_blank_lines_keeps_its_row_numbers(tmp_path, capsys):
    src = (DEFAULT_PACK / "maps" / "eastern.csv").read_text(encoding="utf-8").splitlines()
    padded = ["# note"] * 5000 + [""] * 5000 + src
    path = tmp_path / "big.csv"
    path.write_text("\n".join(padded) + "\n", encoding="utf-8")
    assert main(["board", "check", str(path)]) == 0
    header = next(i for i, ln in enumerate(padded) if ln.startswith("hex,"))
    cells = padded[header + 2].split(",")
    cells[1] = "x"
    padded[header + 2] = ",".join(cells)
    path.write_text("\n".join(padded) + "\n", encoding="utf-8")
    assert main(["board", "check", str(path)]) == 2
    assert f"row {header + 3}" in capsys.readouterr().err  # the line an editor shows


def test_a_declared_39_card_deck_works(tmp_path, capsys):
    pack = copy_pack(tmp_path)
    (pack / "pack.toml").write_text(
        (pack / "pack.toml").read_text().replace("value = 40,", "value = 39,")
    )
    for name in ("old_one_cards.csv", "old_one_card_rows.csv"):
        lines = (pack / name).read_text().splitlines()
        (pack / name).write_text(
            "\n".join([lines[0]] + [ln for ln in lines[1:] if not ln.startswith("40,")]) + "\n"
        )
    data = load_pack(pack)
    assert data.card_ids.size == 39
    capsys.readouterr()
    assert (
        main(
            [
                "combat",
                "--force",
                "infantry=1",
                "--vs",
                "zombie",
                "--method",
                "exact",
                "--data",
                str(pack),
                "--json",
            ]
        )
        == 0
    )
    obj = json.loads(capsys.readouterr().out)
    assert 0 <= obj["p_destroy"] <= 1


@pytest.mark.parametrize("name", ["wyniki ✓/ódds table.parquet", "spaces in name/o.parquet"])
def test_unicode_and_spaces_in_an_output_path(tmp_path, capsys, name):
    out = tmp_path / name
    assert main(["odds", "--max-per-type", "1", "--vs", "zombie", "--out", str(out)]) == 0
    assert out.is_file()
    # no temporary left (beside the file: only simkit's ownership record of it)
    assert sorted(p.name for p in out.parent.iterdir()) == sorted([out.name, ".simkit-owned.json"])


def test_a_seed_at_the_top_of_the_range_is_accepted(capsys):
    assert (
        main(
            [
                "combat",
                "--force",
                "infantry=1",
                "--vs",
                "zombie",
                "--method",
                "mc",
                "--games",
                "1000",
                "--seed",
                str(2**63 - 1),
                "--json",
            ]
        )
        == 0
    )

"""The README's main job runs end to end and leaves the files it promises."""

from __future__ import annotations

import pytest

from simkit.cli import main


@pytest.mark.slow  # the whole main job (odds table, 3,000-game lake, report): `make test` runs it
def test_demo_writes_odds_matchup_board_lake_and_report(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    for name in ("odds.parquet", "combat.json", "board.png", "lake/manifest.json", "report.html"):
        assert (out / name).exists(), name
    html = (out / "report.html").read_text()
    assert 'id="combat-odds"' in html and 'id="lake1"' in html  # sections numbered in order
    assert "report:" in capsys.readouterr().out
    # a second demo into the same folder replaces only what the first one wrote
    (out / "notes.txt").write_text("mine")
    assert main(["demo", "--out", str(out)]) == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]

"""Never overwrite what simkit did not write (issue 26, part 3).

report --out, odds --out and board show --out keep an ownership record beside what they
write (.simkit-owned.json: name -> sha256, the mechanism of `simkit demo`): a file simkit
wrote is replaced on a rerun, a foreign file (or one changed since) is refused in one line
unless --force, and an output inside a result lake is refused. In-process (simkit.cli.main).
"""

from __future__ import annotations

import json
from pathlib import Path

import fake_modes  # noqa: F401 - registers the 'test_recovery' mode
import pytest

from simkit.cli import main
from simkit.core.owned import OWNED, lake_around
from simkit.runner import load_spec, run_experiment

SPEC = """
[experiment]
name = "owned"
mode = "test_recovery"
root_seed = 5
chunk_size = 100
games = 100
"""


@pytest.fixture
def lake(tmp_path) -> Path:
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    out = tmp_path / "lake"
    run_experiment(load_spec(spec), out=out, quiet=True)
    return out


def run(capsys, *argv) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_report_refuses_a_foreign_file_and_replaces_its_own(lake, tmp_path, capsys):
    notes = tmp_path / "notes.html"
    notes.write_text("my notes")
    code, err = run(capsys, "report", lake, "--out", notes)
    assert code == 2 and "not written by simkit" in one_line(err) and "--force" in err
    assert notes.read_text() == "my notes"
    mine = tmp_path / "r.html"
    assert run(capsys, "report", lake, "--out", mine)[0] == 0
    assert json.loads((tmp_path / OWNED).read_text())["files"]["r.html"]
    assert run(capsys, "report", lake, "--out", mine)[0] == 0  # its own: replaced
    mine.write_text(mine.read_text() + "<!-- my edit -->")
    code, err = run(capsys, "report", lake, "--out", mine)
    assert code == 2 and "changed since" in one_line(err)
    assert run(capsys, "report", lake, "--out", notes, "--force")[0] == 0
    assert "my notes" not in notes.read_text()


def test_odds_refuses_a_foreign_parquet_before_computing(tmp_path, capsys):
    mine = tmp_path / "mine.parquet"
    mine.write_bytes(b"someone else's table")
    code, err = run(capsys, "odds", "--max-per-type", "1", "--vs", "zombie", "--out", mine)
    assert code == 2 and "mine.parquet" in one_line(err)
    assert mine.read_bytes() == b"someone else's table"


def test_board_show_refuses_a_foreign_png(tmp_path, capsys):
    png = tmp_path / "b.png"
    png.write_bytes(b"a photo")
    code, err = run(capsys, "board", "show", "--out", png)
    assert code == 2 and "b.png" in one_line(err)
    assert png.read_bytes() == b"a photo"


@pytest.mark.parametrize("rel", ["summary/r.html", "summary/x/r.html", "odds.parquet"])
def test_outputs_inside_a_lake_are_refused(lake, capsys, rel):
    target = lake / rel
    suffix = target.suffix or ".html"
    argv = (
        ("odds", "--max-per-type", "1", "--vs", "zombie", "--out", target)
        if suffix == ".parquet"
        else ("report", lake, "--out", target.with_suffix(".html"))
    )
    code, err = run(capsys, *argv)
    assert code == 2 and "inside the result lake" in one_line(err)
    assert run(capsys, "experiment", "verify", lake)[0] == 0  # the lake still reads


def test_a_report_beside_the_manifest_is_allowed(lake, capsys):
    assert lake_around(lake / "report.html") is None
    assert run(capsys, "report", lake, "--out", lake / "report.html")[0] == 0
    assert run(capsys, "experiment", "summary", lake)[0] == 0


@pytest.mark.parametrize("rel", ["summary/sub", "summary/p=1/deeper"])
def test_a_lake_or_study_folder_inside_a_lake_is_refused(lake, tmp_path, capsys, rel):
    spec = tmp_path / "s.toml"
    for argv in (
        ("experiment", "run", spec, "--out", lake / rel, "--quiet"),
        ("simulate", "--games", "10", "--out", lake / rel),
        ("tune", "--mode", "base", "--strategy", "balanced", "--out", lake / rel),
    ):
        code, err = run(capsys, *argv)
        assert code == 2 and "inside the result lake" in one_line(err), argv
    assert not (lake / rel).exists()
    assert run(capsys, "experiment", "verify", lake)[0] == 0

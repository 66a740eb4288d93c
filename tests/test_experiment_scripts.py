"""The scripts under experiments/ that turn lakes into tables work on every lake kind they
name (a base ladder has no difficulty levels; a Revenge ladder does)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from simkit import analysis
from simkit.runner import load_spec, run_experiment

ROOT = Path(__file__).resolve().parent.parent
LADDER = """
[experiment]
name = "ladder"
mode = "base"
root_seed = 4
chunk_size = 100
games = 100
outputs = ["summary"]
[params]
players = 2
[grid]
strategies = ["random", "balanced"]
"""


@pytest.fixture(scope="module")
def table():
    return runpy.run_path(str(ROOT / "experiments/skill_ladder_table.py"))


def test_skill_ladder_table_reads_a_base_ladder_without_difficulty(table, tmp_path, capsys):
    (tmp_path / "l.toml").write_text(LADDER)
    run_experiment(load_spec(tmp_path / "l.toml"), out=tmp_path / "lake", quiet=True)
    lake = analysis.open_lake(tmp_path / "lake")
    table["ladder"](lake)
    out = capsys.readouterr().out
    rows = [
        ln for ln in out.splitlines() if ln.startswith("| random") or ln.startswith("| balanced")
    ]
    assert len(rows) == 2 and all("| 100 |" in r for r in rows), out
    rates = analysis.win_rates(lake.scan(), by=["strategies"], metric="old_ones_win")
    for r in rates.to_dicts():
        assert f"{r['rate']:.3f}" in next(x for x in rows if x.startswith(f"| {r['strategies']}"))


def test_skill_ladder_table_names_a_tuned_file_by_its_name(table):
    assert table["short"]("balanced,file:a/b/tuned_x.toml") == "balanced,tuned:tuned_x"
    assert table["short"]("learned:strategies/l_2h.toml") == "learned:l_2h"

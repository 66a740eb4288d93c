"""The speed guard (benchmarks/check_figures.py): a figure fails at below half of the
README's value (or a time above twice), or when it was not measured; the README quotes
every figure the guard checks, so the two cannot drift apart."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location(
    "check_figures", ROOT / "benchmarks" / "check_figures.py"
)
guard = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guard)

RATE = {"name": "x_games_per_s", "value": 2000, "unit": "games/s", "command": "b.py"}
TIME = {"name": "x_compile_s", "value": 100, "unit": "s", "command": "b.py", "better": "lower"}


@pytest.mark.parametrize(
    "fig, value, expected",
    [
        (RATE, 2500.0, "ok"),
        (RATE, 1000.0, "ok"),  # exactly half still passes
        (RATE, 999.0, "slow"),
        (RATE, None, "missing"),
        (TIME, 150.0, "ok"),
        (TIME, 201.0, "slow"),
    ],
)
def test_a_figure_fails_only_below_half_or_when_missing(fig, value, expected):
    assert guard.verdict(fig, value) == expected


def test_lines_are_matched_by_name_and_fields(tmp_path):
    fig = dict(RATE, match={"oop": "rusher"})
    lines = [
        {"name": "x_games_per_s", "value": 3000, "oop": "rusher"},
        {"name": "x_games_per_s", "value": 100, "oop": "random"},
        {"name": "other", "value": 1},
    ]
    f = tmp_path / "r.jsonl"
    f.write_text("# bench_x.py\n" + "\n".join(json.dumps(x) for x in lines) + "\n")
    read = guard.read_lines([f])
    assert guard.measured(fig, read) == 3000.0
    assert guard.main([str(f)]) == 1  # the shipped figures are not all in this file
    results = guard.check(read, [fig, RATE])
    assert [v for _, _, v in results] == ["ok", "slow"]  # RATE alone reads the last line


def test_the_readme_quotes_every_guarded_figure():
    readme = (ROOT / "README.md").read_text()
    for fig in guard.load_figures():
        shown = f"{fig['value']:,}"
        assert re.search(rf"\b{re.escape(shown)}\b", readme), (fig["name"], shown)
        assert fig["command"] in readme, fig["command"]

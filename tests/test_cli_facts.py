"""Issue #27 item 6: facts the command line used to drop (each test fails on the old
behaviour). In-process with typer's CliRunner, small sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simkit.cli import _register, app

_register()
RUNNER = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
TUNED = "file:experiments/strategies/balanced_tuned_base_2p.toml"


def run(*args: str):
    result = RUNNER.invoke(app, list(args))
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.exception)
    return result


@pytest.fixture(scope="module")
def revenge_lake(tmp_path_factory):
    """20 Revenge games: a tuned file player beside the plain heuristic of its family."""
    out = tmp_path_factory.mktemp("facts") / "rv"
    import os

    here = os.getcwd()
    os.chdir(ROOT)  # the file: path is relative to the checkout, as a user types it
    try:
        text = run(
            "simulate",
            "--mode",
            "revenge",
            "--humans",
            "2",
            "--difficulty",
            "heroic",
            "--oop",
            "blighter",
            "--strategies",
            f"{TUNED},balanced",
            "--games",
            "20",
            "--out",
            str(out),
            "--quiet",
        ).stdout
        obj = json.loads(
            run(
                "simulate",
                "--mode",
                "revenge",
                "--humans",
                "2",
                "--difficulty",
                "heroic",
                "--oop",
                "blighter",
                "--strategies",
                f"{TUNED},balanced",
                "--games",
                "20",
                "--out",
                str(out),
                "--json",
            ).stdout
        )
    finally:
        os.chdir(here)
    return out, text, obj


def test_simulate_prints_difficulty_humans_and_oop(revenge_lake):
    _, text, _ = revenge_lake
    flat = " ".join(text.split())
    for fact in ("humans=2", "difficulty=heroic", "oop=blighter", "ruleset=revenge"):
        assert fact in flat, (fact, text)


def test_file_strategy_is_labelled_by_its_file(revenge_lake):
    """The seats table's engine name of a tuned file is its family ('balanced'); the rows
    per strategy name the file as listed, apart from the plain heuristic."""
    _, text, obj = revenge_lake
    names = {r["strategy"] for r in obj["per_strategy"]}
    assert names == {TUNED, "balanced"}, names
    assert sum(r["games"] for r in obj["per_strategy"]) == 40
    assert "balanced_tuned_base_2p.toml" in "".join(text.split())

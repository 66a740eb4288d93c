"""One CLI contract: every command's --json prints exactly one JSON object that echoes its
inputs as structure (no Python reprs, no bare NaN, no bare list); every --help has an
example; `simkit --version`. In-process with typer's CliRunner, small sizes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simkit.cli import _register, app

_register()
RUNNER = CliRunner()


def _no_constants(name):
    raise AssertionError(f"bare {name} in JSON output")


def invoke(*args: str) -> dict:
    """Run a command with --json; its stdout must be one JSON object (strict: no NaN)."""
    result = RUNNER.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    obj = json.loads(result.stdout, parse_constant=_no_constants)
    assert isinstance(obj, dict) and isinstance(obj.get("inputs"), dict)
    assert result.stdout.strip().count("\n") == 0  # one line, one object
    _walk(obj)
    return obj


def _walk(value) -> None:
    """No Python repr leaked into a string (tuples, enums, numpy types)."""
    if isinstance(value, dict):
        for v in value.values():
            _walk(v)
    elif isinstance(value, list):
        for v in value:
            _walk(v)
    elif isinstance(value, str):
        assert not value.startswith(("np.", "<", "(")) and "Method." not in value, value
    elif isinstance(value, float):
        assert math.isfinite(value)


def test_version():
    result = RUNNER.invoke(app, ["--version"])
    assert (
        result.exit_code == 0 and result.stdout.startswith("simkit ") and "engine" in result.stdout
    )


def _commands(cmd=None, path=()):
    import typer.main

    cmd = typer.main.get_command(app) if cmd is None else cmd
    for name, sub in getattr(cmd, "commands", {}).items():
        yield (*path, name), sub
        yield from _commands(sub, (*path, name))


def test_every_command_has_an_example_in_its_help():
    commands = list(_commands())
    assert len(commands) >= 18
    for path, _ in commands:
        result = RUNNER.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Example: simkit" in result.stdout, path


def test_no_help_text_loses_its_brackets_to_markup():
    """Rich reads '[word]' in a help text as a style tag and drops it ('[[player]]' printed
    as '[]'): every command's help prints its square brackets."""
    for path, _ in _commands():
        result = RUNNER.invoke(app, [*path, "--help"], terminal_width=200)
        assert "[]" not in result.stdout, path


def test_every_leaf_command_offers_json():
    for path, cmd in _commands():
        if getattr(cmd, "commands", None) and path != ("odds",):
            continue
        assert any("--json" in p.opts for p in cmd.params), path


def test_combat_echoes_the_force_as_a_mapping_and_seen_faces_as_card_numbers():
    from simkit.combat.faces import face
    from simkit.datapack import load_pack

    pack = load_pack()
    zombie_face = face(pack, 4, 0)  # the face of the fifth card against Zombies
    obj = invoke(
        "combat",
        "--force",
        "infantry=2,artillery=1",
        "--vs",
        "mi_go",
        "--seen",
        f"3,zombie:{zombie_face}",
        "--loss-games",
        "4000",
    )
    inputs = obj["inputs"]
    assert obj["command"] == "combat"
    assert inputs["force"] == {"infantry": 2, "artillery": 1} and inputs["vs"] == ["mi_go"]
    assert inputs["seen"][0] == 3 and len(inputs["seen"]) == 2 and inputs["method"] == "auto"
    seen_card = inputs["seen"][1]
    assert face(pack, pack.card_index(seen_card), 0) == zombie_face
    assert obj["p_destroy"] == pytest.approx(
        obj["outcomes"]["win"] + obj["outcomes"]["win_and_defeat"]
    )
    per_type = obj["losses"]["per_type"]
    assert (
        set(per_type) == {"infantry", "artillery"} and len(per_type["infantry"]) == 3
    )  # 0, 1 or 2 lost
    assert sum(r["p"] for r in per_type["infantry"]) == pytest.approx(1.0)
    assert sum(r["p"] for r in obj["losses"]["gold_lost"]) <= 1.0 + 1e-9


def test_odds_table_and_best(tmp_path):
    out = tmp_path / "odds.parquet"
    obj = invoke(
        "odds", "--max-per-type", "1", "--vs", "zombie", "--games", "500", "--out", str(out)
    )
    assert (
        obj["command"] == "odds"
        and obj["inputs"]["vs"] == ["zombie"]
        and obj["inputs"]["games"] == 500
    )
    assert obj["rows"] == 62 and out.is_file()
    best = invoke(
        "odds", "best", "--vs", "zombie", "--min-p", "0.5", "--table", str(out), "--top", "3"
    )
    assert best["inputs"]["min_p"] == 0.5 and 0 < len(best["mixes"]) <= 3
    assert all(isinstance(m["force"], dict) and m["p_destroy"] >= 0.5 for m in best["mixes"])


def test_data_and_board_commands(tmp_path):
    assert invoke("data", "check")["command"] == "data check"
    assert set(invoke("data", "provenance")["shares"]) >= {"assumed", "rules"}
    deck = invoke("data", "deck", "--vs", "zombie")
    assert deck["inputs"]["vs"] == ["zombie"] and len(deck["cards"]) == 40
    assert set(deck["cards"][0]["faces"]) == {"zombie"}
    assert invoke("board", "check", "eastern")["hexes"] > 0
    png = tmp_path / "b.png"
    shown = invoke("board", "show", "--out", str(png), "--players", "0")
    assert shown["inputs"]["out"] == str(png) and png.is_file()


def test_athena_commands():
    obj = invoke("athena", "turret", "--weapons", "cannon:3", "--ammo", "1", "--defense", "2")
    assert (
        obj["inputs"]["weapons"] == [{"kind": "cannon", "rating": "3"}]
        and obj["inputs"]["method"] == "exact"
    )
    assert invoke("athena", "check")["command"] == "athena check"


SPEC = """
[experiment]
name = "json_test"
mode = "combat"
root_seed = 1
chunk_size = 500
games = 500

[grid]
force = ["infantry=1", "infantry=2"]
vs = ["zombie"]
"""


def test_experiment_commands_and_report(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    checked = invoke("experiment", "check", str(spec))
    assert checked["inputs"]["spec"] == str(spec) and checked["cells"] == 2
    lake = tmp_path / "lake"
    ran = invoke("experiment", "run", str(spec), "--out", str(lake))
    assert ran["inputs"]["jobs"] == 1 and ran["games_written"] == 1000
    assert sorted(c["label"] for c in ran["cells"]) == ["force=infantry=1", "force=infantry=2"]
    assert invoke("experiment", "verify", str(lake))["ok"] is True
    summary = invoke("experiment", "summary", str(lake))
    assert summary["keys"] == ["force"] and len(summary["rows"]) == 2
    html = tmp_path / "r.html"
    rep = invoke("report", str(lake), "--out", str(html))
    assert rep["inputs"]["source"] == str(lake) and rep["sections"] == ["lake0"] and html.is_file()


def test_simulate_and_replay(tmp_path):
    out = tmp_path / "sim"
    obj = invoke(
        "simulate",
        "--games",
        "30",
        "--seed",
        "2",
        "--strategies",
        "economist,hunter",
        "--out",
        str(out),
    )
    assert (
        obj["inputs"]["params"]["strategies"] == "economist,hunter" and obj["inputs"]["seed"] == 2
    )
    assert obj["overall"]["games"] == 30 and {r["strategy"] for r in obj["per_strategy"]} == {
        "economist",
        "hunter",
    }
    assert [r["seat"] for r in obj["per_seat"]] == [0, 1]
    for r in obj["per_strategy"] + obj["per_seat"]:
        assert r["ci_low"] <= r["rate"] <= r["ci_high"]
    rep = invoke("replay", "--lake", str(out), "--game", "3")
    assert rep["inputs"]["seed"] == 2 and rep["inputs"]["lake"] == str(out) and rep["log"]


def test_jsonable_turns_nan_tuples_and_numpy_into_plain_json():
    import numpy as np

    from simkit.cli.output import dumps

    text = dumps(
        "x",
        {"force": (1, 2), "path": Path("a/b"), "n": np.int64(3)},
        {"value": float("nan"), "arr": np.array([1.5, np.inf]), "s": {"b", "a"}},
    )
    obj = json.loads(text, parse_constant=_no_constants)
    assert obj == {
        "command": "x",
        "inputs": {"force": [1, 2], "path": "a/b", "n": 3},
        "value": None,
        "arr": [1.5, None],
        "s": ["a", "b"],
    }

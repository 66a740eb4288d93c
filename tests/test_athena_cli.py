"""`simkit athena turret` / `check`: output contract."""

from __future__ import annotations

import json

from simkit import ENGINE_VERSION
from simkit.athena import load_athena_pack
from simkit.cli import main

ARGS = [
    "athena",
    "turret",
    "--weapons",
    "cannon:3,energy_cannon:4",
    "--ammo",
    "2",
    "--charged",
    "1",
    "--defense",
    "2",
    "--detection",
    "1",
]


def run_json(capsys, *extra):
    assert main(ARGS + list(extra) + ["--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1
    return json.loads(out)


def test_exact_json_has_method_probabilities_expectations_and_provenance(capsys):
    obj = run_json(capsys)
    assert obj["method"] == "exact" and obj["seed"] is None
    assert obj["engine_version"] == ENGINE_VERSION and obj["data_hash"] == load_athena_pack().hash
    assert 0 < obj["probabilities"]["destroy"] < 1
    assert abs(sum(obj["probabilities"]["turret_attacks"]) - 1) < 1e-12
    assert obj["expected"]["damage_taken"] == obj["expected"]["turret_attacks"] * 1
    assert [row["level"] for row in obj["damage_by_detection"]] == list(range(6))
    assert obj["states"] > 0 and "games" not in obj


def test_monte_carlo_json_has_games_seed_and_intervals(capsys):
    obj = run_json(capsys, "--method", "mc", "--games", "5000", "--seed", "11")
    assert obj["method"] == "mc" and obj["games"] == 5000 and obj["seed"] == 11
    lo, hi = obj["ci95"]["destroy"]
    assert lo <= obj["probabilities"]["destroy"] <= hi


def test_cyborg_and_grenade_each_get_a_value(capsys):
    obj = run_json(capsys, "--cyborg", "--grenade")
    assert set(obj["values"]) == {"cyborg", "grenade"}


def test_grenade_against_defense_2_makes_the_kill_certain(capsys):
    obj = run_json(capsys, "--grenade")
    assert obj["probabilities"]["destroy"] == 1.0 and obj["values"]["grenade"]["p_destroy"] > 0


def test_cyborg_saves_weapons_from_jams(capsys):
    obj = run_json(capsys, "--cyborg")
    assert (
        obj["values"]["cyborg"]["weapons_damaged"] < 0 and obj["expected"]["weapons_damaged"] == 0
    )


def test_turret_from_the_pack_gives_defense_and_reward(capsys):
    assert (
        main(
            ["athena", "turret", "--weapons", "cannon:3", "--ammo", "2", "--turret", "2", "--json"]
        )
        == 0
    )
    obj = json.loads(capsys.readouterr().out)
    assert obj["turret"] == {
        "number": 2,
        "defense": 2,
        "reward": {"resource": "half_battery", "amount": 1},
    }
    assert obj["expected"]["reward"] == obj["probabilities"]["destroy"]


def test_variant_is_applied_and_reported(capsys):
    obj = run_json(capsys, "--variant", "ambush_draws_card=false")
    assert obj["interpretation"]["ambush_draws_card"] is False


def test_table_output_names_the_fight(capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert "P(turret destroyed)" in out and "Detection" in out


def test_check_reports_provenance_shares(capsys):
    assert main(["athena", "check", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert abs(sum(obj["shares"].values()) - 1) < 1e-12 and obj["cards"] == 20

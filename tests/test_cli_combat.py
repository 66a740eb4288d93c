"""The combat and odds commands: output contracts, aliases, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from simkit.cli import main


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_output_has_the_documented_fields_and_outcomes_sum_to_one(capsys):
    code, out, _ = run(
        capsys, "combat", "--force", "infantry=2,artillery=1", "--vs", "mi_go", "--json"
    )
    assert code == 0
    obj = json.loads(out)
    for key in (
        "method",
        "outcomes",
        "p_destroy",
        "expected_units_lost",
        "expected_cards",
        "seed",
        "engine_version",
        "data_hash",
    ):
        assert key in obj
    assert set(obj["outcomes"]) == {"win", "win_and_defeat", "defeat", "withdraw", "stalemate"}
    assert sum(obj["outcomes"].values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("method", ["exact", "mc"])
def test_withdraw_table_is_played_by_both_methods_and_reported(capsys, method):
    games = ("--games", "20000") if method == "mc" else ()  # --method exact refuses --games
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=1,airship=1",
        "--vs",
        "mi_go",
        "--withdraw",
        "table-value",
        "--method",
        method,
        *games,
        "--json",
    )
    obj = json.loads(out)
    assert code == 0 and obj["method"] == method
    assert obj["table_states"] > 0 and obj["table_states_withdrawing"] > 0
    assert obj["outcomes"]["withdraw"] > 0
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=1,airship=1",
        "--vs",
        "mi_go",
        "--withdraw",
        "table-value",
        "--method",
        method,
        *games,
    )
    assert code == 0 and "withdraw table (value, no card counting)" in out


def test_monte_carlo_json_carries_games_and_intervals_per_outcome(capsys):
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=1",
        "--vs",
        "zombie",
        "--method",
        "mc",
        "--games",
        "50000",
        "--seed",
        "5",
        "--json",
    )
    obj = json.loads(out)
    assert code == 0 and obj["games"] == 50000 and obj["seed"] == 5
    for name in obj["outcomes"]:
        lo, hi = obj["ci95"][name]
        assert lo <= obj["outcomes"][name] <= hi


def test_plural_hyphenated_and_american_aliases_name_the_same_units(capsys):
    _, canonical, _ = run(
        capsys, "combat", "--force", "infantry=1,armoured_car=1", "--vs", "mi_go", "--json"
    )
    _, aliased, _ = run(
        capsys, "combat", "--force", "Infantry=1, armored-cars=1", "--vs", "Mi-Go", "--json"
    )
    assert json.loads(canonical)["outcomes"] == json.loads(aliased)["outcomes"]


def test_two_old_ones_can_be_given_as_a_list_or_repeated_flags(capsys):
    _, listed, _ = run(capsys, "combat", "--force", "infantry=2", "--vs", "zombie,zombie", "--json")
    _, repeated, _ = run(
        capsys, "combat", "--force", "infantry=2", "--vs", "zombie", "--vs", "zombie", "--json"
    )
    assert json.loads(listed)["outcomes"] == json.loads(repeated)["outcomes"]


@pytest.mark.parametrize(
    "args,token",
    [
        (["--force", "infantry=2,tank=1", "--vs", "zombie"], "tank"),
        (["--force", "infantry=2", "--vs", "dragon"], "dragon"),
        (["--force", "infantry=-1", "--vs", "zombie"], "-1"),
        (["--force", "infantry=1.5", "--vs", "zombie"], "1.5"),
        (["--force", "infantry=1", "--vs", "zombie", "--games", "0", "--method", "mc"], "--games"),
        (["--force", "infantry=1", "--vs", "zombie", "--seen", "99"], "99"),
        (["--force", "infantry=1", "--vs", "zombie", "--seen", "3,x"], "x"),
        (["--force", "infantry=1", "--vs", "zombie", "--withdraw", "sometimes"], "sometimes"),
        (["--force", "infantry=1", "--vs", "zombie", "--allocate", "random"], "random"),
        (["--force", "infantry=1", "--vs", "zombie", "--old-one-damage", "5"], "--old-one-damage"),
        (["--force", "infantry=1", "--vs", "zombie", "--personality", "einstein"], "einstein"),
        (
            ["--force", "infantry=1", "--vs", "zombie", "--method", "mc", "--withdraw", "optimal"],
            "exact",
        ),
        (["--force", "infantry=1", "--vs", "zombie", "--games", "abc"], "--games"),
        (["--force", "infantry=1", "--vs", "zombie", "--method", "fast"], "--method"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_token(capsys, args, token):
    code, out, err = run(capsys, "combat", *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and token in lines[0]
    assert "Traceback" not in err and out == ""


def test_python_dash_m_simkit_behaves_like_the_script():
    args = ["combat", "--force", "infantry=1", "--vs", "zombie", "--json"]
    module = subprocess.run([sys.executable, "-m", "simkit", *args], capture_output=True, text=True)
    script = subprocess.run(
        [str(__import__("pathlib").Path(sys.executable).with_name("simkit")), *args],
        capture_output=True,
        text=True,
    )
    assert module.returncode == script.returncode == 0
    assert module.stdout == script.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "simkit", "combat", "--force", "x=1", "--vs", "zombie"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_odds_table_covers_every_mix_and_best_lists_cheapest_first(capsys, tmp_path):
    out = tmp_path / "odds.parquet"
    code, text, _ = run(capsys, "odds", "--max-per-type", "1", "--vs", "zombie", "--out", str(out))
    assert code == 0 and out.exists()
    table = pd.read_parquet(out)
    assert len(table) == (2**5 - 1) * 2  # every non-empty 0/1 mix, x1 and x2 Zombies
    assert {"gold_cost", "tp_cost", "p_destroy", "p_destroy_value_policy", "method"} <= set(
        table.columns
    )
    assert table["p_destroy"].between(-1e-12, 1 + 1e-12).all()
    code, text, _ = run(
        capsys, "odds", "best", "--vs", "zombie", "--min-p", "0.9", "--table", str(out), "--json"
    )
    best = json.loads(text)["mixes"]
    assert code == 0 and best
    assert all(row["p_destroy"] >= 0.9 for row in best)
    assert [row["gold_cost"] for row in best] == sorted(row["gold_cost"] for row in best)
    # the interval survives into --json (equal to P(destroy) on exact rows)
    assert all(r["p_destroy_lo"] <= r["p_destroy"] <= r["p_destroy_hi"] for r in best)


def test_odds_refuses_a_missing_out_flag_without_writing(capsys, tmp_path):
    code, _, err = run(capsys, "odds", "--max-per-type", "1")
    assert code == 2 and "--out" in err


def test_auto_method_answers_exactly_when_the_matchup_fits(capsys):
    code, out, _ = run(capsys, "combat", "--force", "infantry=1", "--vs", "zombie", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["method"] == "exact" and "exact_skipped" not in obj


def test_auto_method_falls_back_to_monte_carlo_and_says_why(capsys):
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=2,artillery=1",
        "--vs",
        "shoggoth",
        "--state-budget",
        "1000",
        "--games",
        "20000",
        "--json",
    )
    obj = json.loads(out)
    assert code == 0 and obj["method"] == "mc" and obj["games"] == 20000
    assert (
        "--state-budget 1,000" in obj["exact_skipped"]
        and "exact was not tried" in obj["exact_skipped"]
    )
    assert obj["exact_estimate"] > 20 * 1000  # skipped by the cheap estimate, before any exact work


def test_auto_method_estimates_before_trying_exact_and_still_tries_when_the_estimate_fits(capsys):
    # the README's headline matchup: estimated far past the default budget, so no exact attempt
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=2,artillery=1,airship=1",
        "--vs",
        "shoggoth",
        "--games",
        "20000",
        "--loss-games",
        "0",
        "--json",
    )
    obj = json.loads(out)
    assert code == 0 and obj["method"] == "mc" and "exact was not tried" in obj["exact_skipped"]
    # within the estimate's reach the solver is tried and its own overflow message is kept
    code, out, _ = run(
        capsys,
        "combat",
        "--force",
        "infantry=2,artillery=1",
        "--vs",
        "mi_go",
        "--state-budget",
        "5000",
        "--games",
        "20000",
        "--loss-games",
        "0",
        "--json",
    )
    obj = json.loads(out)
    assert code == 0 and obj["method"] == "mc" and "5,000 states" in obj["exact_skipped"]


def test_exact_method_refuses_a_matchup_over_budget_with_one_line(capsys):
    code, out, err = run(
        capsys,
        "combat",
        "--force",
        "infantry=2,artillery=1",
        "--vs",
        "shoggoth",
        "--method",
        "exact",
        "--state-budget",
        "1000",
    )
    assert code == 2 and "--method mc" in err and len(err.strip().splitlines()) == 1


def test_withdraw_table_lists_its_withdraw_states_in_text_and_json(capsys):
    args = ["combat", "--force", "infantry=1,airship=1", "--vs", "mi_go"]
    args += ["--withdraw", "table-value", "--loss-games", "0"]
    code, out, _ = run(capsys, *args, "--json")
    obj = json.loads(out)
    rule = obj["withdraw_rule"]
    assert code == 0 and rule["columns"][0] == "Sanity 3"
    assert len(rule["withdraw_states"]) == obj["table_states_withdrawing"]
    first = rule["withdraw_states"][0]
    assert set(first) >= {"units", "damage", "sanity", "old_one_damage", "decision"}
    assert all(s["decision"].startswith("withdraw") for s in rule["withdraw_states"])
    code, out, _ = run(capsys, *args)
    assert code == 0 and "withdraw rule vs mi_go" in out and "Sanity 0" in out


def test_policies_in_json_are_structure_not_a_python_repr(capsys):
    code, out, _ = run(
        capsys, "combat", "--force", "infantry=2", "--vs", "mi_go", "--withdraw", "value",
        "--method", "exact", "--loss-games", "0", "--json",
    )  # fmt: skip
    obj = json.loads(out)
    assert obj["withdraw"] == {"name": "optimal", "objective": "value", "destroy_value": None}
    assert obj["allocate"] == {"name": "cheapest"}
    assert "{'" not in out


def test_seen_cards_are_echoed_in_the_text_output(capsys):
    code, out, _ = run(
        capsys, "combat", "--force", "infantry=2", "--vs", "zombie", "--seen", "3,17",
        "--loss-games", "0",
    )  # fmt: skip
    assert code == 0 and "cards seen (not in the deck): 3, 17" in out

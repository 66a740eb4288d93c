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


def test_alternating_best_response_starts_each_step_from_the_previous_winner(tmp_path):
    """Round 2's human step starts (its trial 0) from round 1's chosen humans, not from the
    defaults; likewise the Old One player's step."""
    import optuna

    from simkit.tune import TuneSpec, as_params, base_strategy, strategy_from_file

    abr = runpy.run_path(str(ROOT / "experiments/alternating_best_response.py"))
    args = abr["parse_args"](
        ["--out", str(tmp_path), "--rounds", "2", "--trials", "3", "--games-per-trial", "10"]
        + ["--leaders", "3", "--leader-games", "10", "--holdout-games", "10"]
        + ["--eval-games", "10", "--jobs", "1"]
    )
    steps = abr["run"](args)["steps"]
    assert [(s["round"], s["tuned"]) for s in steps[1:]] == [
        (1, "humans"),
        (1, "oop"),
        (2, "humans"),
        (2, "oop"),
    ]
    for side, role in (("humans", "human"), ("oop", "oop")):
        first = tmp_path / f"round1_{side}" / "strategy.toml"
        assert steps[3 if side == "humans" else 4]["start"] == f"file:{first}"
        winner = as_params(strategy_from_file(first, role), choice_index=True)
        study = optuna.load_study(
            study_name="tune", storage=f"sqlite:///{tmp_path / f'round2_{side}' / 'study.db'}"
        )
        trial0 = min(study.trials, key=lambda t: t.number)
        assert trial0.params == pytest.approx(winner)
    # the check can fail: round 1 chose something other than the defaults
    defaults = as_params(base_strategy(TuneSpec(mode="revenge", strategy="balanced")), True)
    assert defaults != as_params(
        strategy_from_file(tmp_path / "round1_humans" / "strategy.toml", "human"), True
    )

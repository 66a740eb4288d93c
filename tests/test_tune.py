"""simkit tune: declared parameter spaces, the study (resumable, same seed same choice),
the tuned strategy file and its use as a strategy spec everywhere."""

from __future__ import annotations

import tomllib
from dataclasses import fields

import numpy as np
import pytest

from simkit.errors import UserError
from simkit.kernels.low import game_layout as L
from simkit.tune import TuneSpec, read_strategy_file, run_tune, scores, strategy_from_file
from strategies.human import PLAYERS
from strategies.old_ones import OOP_PLAYERS, parse_oop
from strategies.registry import parse_one
from strategies.spaces import Vector, check_value, space_of

SMALL = dict(trials=3, games_per_trial=40, leaders=2, leader_games=60, holdout_games=80)


TUNABLE = [
    c for c in PLAYERS + OOP_PLAYERS if c.name != "random"
]  # the random players are baselines


@pytest.mark.parametrize("cls", TUNABLE, ids=lambda c: c.name)
def test_every_shipped_default_lies_inside_its_declared_space(cls):
    strategy = cls()
    space = space_of(strategy)
    names = {f.name for f in fields(strategy)}
    assert set(space) <= names
    for name, dim in space.items():
        value = getattr(strategy, name)
        if isinstance(dim, Vector):
            assert len(value) == dim.size
            assert all(dim.low <= x <= dim.high for x in value), name
        else:
            check_value(name, dim, value, cls.name)


def test_a_human_space_has_about_twenty_parameters():
    space = space_of(parse_one("balanced"))
    scalars = sum(d.size if isinstance(d, Vector) else 1 for d in space.values())
    assert len(space) >= 18 and scalars >= 25


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    out = tmp_path_factory.mktemp("tuned")
    spec = TuneSpec(mode="base", strategy="balanced", opponents=("economist",), seed=5, **SMALL)
    return spec, out, run_tune(spec, out)


def test_a_tuning_run_writes_a_strategy_file_with_its_evaluation(tuned):
    spec, out, record = tuned
    doc = tomllib.loads((out / "strategy.toml").read_text())
    assert doc["strategy"]["role"] == "human" and doc["strategy"]["base"] == "balanced"
    assert doc["tuning"]["opponents"] == ["economist"] and doc["tuning"]["seed"] == 5
    ev = doc["evaluation"]
    assert ev["trials"] == 3 and len(ev["leaders"]) == 2
    h = ev["holdout"]
    assert h["games"] == 80 and h["ci_low"] <= h["diff"] <= h["ci_high"]
    assert h["diff"] == pytest.approx(h["tuned"] - h["default"])


def test_the_first_trial_is_the_default_on_the_same_games(tuned):
    import optuna

    spec, out, record = tuned
    study = optuna.load_study(study_name="tune", storage=f"sqlite:///{out / 'study.db'}")
    first = study.trials[0]
    default = parse_one("balanced")
    assert (
        first.params["army_min"] == default.army_min
        and first.params["atk_ratio"] == default.atk_ratio
    )


def test_a_rerun_resumes_the_study_and_chooses_the_same(tuned):
    spec, out, record = tuned
    again = run_tune(spec, out)  # all trials done: nothing new is played in the study
    assert again["evaluation"]["trials"] == 3
    assert again["strategy"]["fields"] == record["strategy"]["fields"]


def test_a_rerun_with_other_settings_is_refused(tuned):
    spec, out, _ = tuned
    from dataclasses import replace

    with pytest.raises(UserError, match="other settings"):
        run_tune(replace(spec, seed=6), out)


def test_the_same_seed_gives_the_same_choice_in_a_new_folder(tuned, tmp_path):
    spec, _, record = tuned
    assert run_tune(spec, tmp_path / "again")["strategy"]["fields"] == record["strategy"]["fields"]


def test_a_tuned_file_is_a_strategy_spec_for_every_command(tuned):
    from simkit.game.engine import make_spec

    _, out, record = tuned
    strategy = parse_one(f"file:{out / 'strategy.toml'}")
    assert type(strategy).name == "balanced"
    for name, value in record["strategy"]["fields"].items():
        got = getattr(strategy, name)
        assert (list(got) if isinstance(got, tuple) else got) == value
    assert make_spec("base", 2, [f"file:{out}", "economist"]).players == 2
    from simkit.revenge.modes import REVENGE

    REVENGE.validate({"strategies": f"file:{out}"})  # specs accept it too


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '[strategy]\nrole = "human"\nbase = "balanced"\n[strategy.fields]\narmy_min = 99\n',
            "field 'army_min' must be a whole number in 0..6",
        ),
        (
            '[strategy]\nrole = "human"\nbase = "balanced"\n[strategy.fields]\nbanana = 1\n',
            "'strategy.fields.banana' is not a tunable field",
        ),
        ('[strategy]\nrole = "oop"\nbase = "rusher"\n[strategy.fields]\n', "use it with --oop"),
        ("not toml [", "not TOML"),
    ],
)
def test_a_bad_strategy_file_stops_with_one_line(tmp_path, text, message):
    path = tmp_path / "strategy.toml"
    path.write_text(text)
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        strategy_from_file(path, "human")


def test_an_old_one_player_file_plays_through_oop(tmp_path):
    path = tmp_path / "strategy.toml"
    path.write_text(
        '[strategy]\nrole = "oop"\nbase = "blighter"\n[strategy.fields]\nplay_mythos = 0.25\n'
    )
    oop = parse_oop(f"file:{path}")
    assert (
        type(oop).name == "blighter"
        and oop.play_mythos == 0.25
        and read_strategy_file(path)[0] == "oop"
    )


def _rows(winner, vps, oo_vp, listed):
    rows = np.zeros((len(winner), L.SUMMARY_SIZE), dtype=np.int64)
    col = {n: i for i, n in enumerate(L.SUMMARY_COLUMNS)}
    rows[:, col["num_players"]] = len(vps[0])
    rows[:, col["winner"]] = winner
    rows[:, col["oo_vp"]] = oo_vp
    for g, (v, li) in enumerate(zip(vps, listed, strict=True)):
        for p, (x, k) in enumerate(zip(v, li, strict=True)):
            rows[g, col[f"p{p}_vp"]] = x
            rows[g, col[f"p{p}_listed"]] = k
    return rows


def test_base_scores_follow_the_tuned_seat_wherever_it_sat():
    rows = _rows(winner=[1, 0], vps=[[10, 20], [30, 5]], oo_vp=[12, 40], listed=[[1, 0], [1, 0]])
    win = TuneSpec(mode="base", strategy="balanced", opponents=("economist",), objective="win")
    margin = TuneSpec(
        mode="base", strategy="balanced", opponents=("economist",), objective="margin"
    )
    assert scores(rows, win).tolist() == [1.0, 0.0]  # seat 1 held the tuned strategy
    assert scores(rows, margin).tolist() == [20 - 12, 5 - 40]

"""`simkit simulate` and `simkit replay`; the "base" and "solo" modes for the runner."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simkit import ENGINE_VERSION
from simkit.cli import main
from simkit.datapack import load_pack
from simkit.errors import UserError
from simkit.game.engine import Engine, make_spec
from simkit.kernels.low import game_layout as L
from simkit.modes import get_mode


def lake_table(out, table: str = "summary"):
    """A table of a simulate lake (simulate writes the experiment-run layout), in game order."""
    from simkit import analysis

    return (
        analysis.open_lake(out).scan(table).collect().sort(["chunk_id", "game_index"]).to_pandas()
    )


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim")
    code = main(
        [
            "simulate",
            "--games",
            "1200",
            "--seed",
            "9",
            "--strategies",
            "economist,hunter",
            "--out",
            str(out),
            "--tables",
            "summary,seats,combats,moves",
        ]
    )
    assert code == 0
    return out


def test_simulate_writes_one_row_per_game_and_per_seat(sim):
    summary = lake_table(sim)
    seats = lake_table(sim, "seats")
    assert len(summary) == 1200 and len(seats) == 2400
    cols = set(summary.columns)
    for c in (
        "game_index",
        "chunk_id",
        "winner",
        "old_ones_win",
        "end_reason",
        "end_time",
        "ports_lost",
        "farms_blighted",
        "oo_vp",
        "oo_vp_unrevealed",
        "combats",
        "combats_won",
        "p0_vp",
        "p0_vp_farms",
        "p0_vp_tokens",
        "p1_units_lost",
        "killed_cthulhu",
        "remaining_zombie",
    ):
        assert c in cols, c
    assert set(seats["strategy"]) == {"economist", "hunter"}
    manifest = json.loads((sim / "manifest.json").read_text())
    (record,) = manifest["experiments"].values()
    assert record["root_seed"] == 9 and record["engine_version"] == ENGINE_VERSION
    assert record["data_hash"] == load_pack().hash and record["mode"] == "base"
    (cell,) = record["cells"].values()
    assert cell["params"]["strategies"] == "economist,hunter"


def test_event_tables(sim):
    combats = lake_table(sim, "combats")
    moves = lake_table(sim, "moves")
    summary = lake_table(sim)
    assert len(combats) == summary["combats"].sum()
    assert len(moves) == summary["oo_moves"].sum()
    assert set(combats["outcome"].unique()) <= {0, 1, 2, 3}


def test_replay_rebuilds_a_row_of_simulate(sim, capsys):
    summary = lake_table(sim)
    row = summary[(summary.chunk_id == 1) & (summary.game_index == 37)].iloc[0]
    code, out, _ = run(
        capsys,
        "replay",
        "--seed",
        "9",
        "--chunk",
        "1",
        "--game",
        "37",
        "--strategies",
        "economist,hunter",
    )
    assert code == 0
    scores = [ln for ln in out.splitlines() if ln.startswith("score: P")]
    assert [int(ln.split(" VP")[0].split()[-1]) for ln in scores] == [row.p0_vp, row.p1_vp]
    assert f"score: Old Ones {row.oo_vp} VP" in out
    again = run(
        capsys,
        "replay",
        "--seed",
        "9",
        "--chunk",
        "1",
        "--game",
        "37",
        "--strategies",
        "economist,hunter",
    )[1]
    assert again == out


def test_results_do_not_depend_on_jobs(sim, tmp_path):
    assert (
        main(
            [
                "simulate",
                "--games",
                "1200",
                "--seed",
                "9",
                "--strategies",
                "economist,hunter",
                "--out",
                str(tmp_path),
                "--jobs",
                "2",
            ]
        )
        == 0
    )
    a = lake_table(sim).drop(columns=["experiment_id"])
    b = lake_table(tmp_path).drop(columns=["experiment_id"])
    assert a.equals(b)


def test_solo(tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "simulate",
        "--mode",
        "solo",
        "--games",
        "50",
        "--strategies",
        "defender",
        "--difficulty",
        "easy",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    t = lake_table(tmp_path)
    assert (t.num_players == 1).all() and (t["mode"] == L.MODE_SOLO).all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "5"], "parameter 'players' must be <= 4"),
        (["--strategies", "cheater"], "unknown strategy 'cheater'"),
        (["--strategies", "economist,hunter,defender"], "gives 3 strategies for 2 players"),
        (["--games", "0"], "--games must be positive"),
        (["--tables", "summary,gossip"], "unknown table 'gossip'"),
        (["--mode", "solo", "--players", "3"], "solo mode has exactly 1 player"),
        (["--mode", "solo", "--difficulty", "nightmare"], "parameter 'difficulty' must be one of"),
        (["--difficulty", "easy"], "--difficulty is for --mode solo"),
        (["--strategies", "economist:army_min=x"], "parameter 'army_min' got 'x'"),
        (["--strategies", "balanced:withdraw=optimal"], "counts every card"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, args, message):
    games = [] if "--games" in args else ["--games", "5"]  # a flag is given once (issue 26)
    code, out, err = run(capsys, "simulate", *games, "--out", str(tmp_path / "x"), *args)
    assert code == 2 and message in err and err.count("\n") == 1 and not out


def test_replay_bad_input(capsys):
    code, _, err = run(capsys, "replay", "--seed", "-1", "--game", "0")
    assert code == 2 and "must be >= 0" in err


# -- modes (the runner's contract) -----------------------------------------------------------


def test_modes_registered_with_a_0_1_key_metric():
    data = load_pack()
    for name, metric in (("base", "old_ones_win"), ("solo", "humans_win")):
        mode = get_mode(name)
        params = mode.validate({})
        out = mode.run_chunk(
            params, data, 5, 2, 30, frozenset({"summary", "seats", "combats", "moves"})
        )
        s = out["summary"]
        assert s["game_index"].tolist() == list(range(30))
        assert set(np.unique(s[mode.key_metric]).tolist()) <= {0, 1} and mode.key_metric == metric
        assert set(out) == {"summary", "seats", "combats", "moves"}
        assert all("game_index" in t for t in out.values())


def test_mode_rows_are_the_replayable_games():
    data = load_pack()
    mode = get_mode("base")
    params = mode.validate({"players": 3, "strategies": "hunter,balanced,economist"})
    s = mode.run_chunk(params, data, 123, 4, 10, frozenset({"summary"}))["summary"]
    eng = Engine()
    row, _ = eng.play((123, 4, 7), make_spec("base", 3, "hunter,balanced,economist"))
    assert (
        s["oo_vp"][7] == row[L.S_OO_VP]
        and s["p2_vp"][7] == row[L.S_PLAYER0 + 2 * L.S_PLAYER_STRIDE + L.SUM_P_VP]
    )


def test_mode_validation_checks_the_cell_as_a_whole():
    with pytest.raises(UserError, match="gives 2 strategies for 3 players"):
        get_mode("base").validate({"players": 3, "strategies": "hunter,balanced"})
    with pytest.raises(UserError, match="unknown parameter 'colour'"):
        get_mode("solo").validate({"colour": "red"})

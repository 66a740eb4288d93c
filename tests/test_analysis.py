"""simkit.analysis: rates with Wilson intervals, paired differences, per-strategy/seat, VP by
source."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from simkit import analysis
from simkit.core.stats import wilson_interval
from simkit.errors import UserError
from simkit.runner import load_spec, run_experiment

SWEEP = """
[experiment]
name = "sweep"
mode = "combat"
root_seed = 9
chunk_size = 2000
games = 6000
[params]
force = "infantry=2,armoured_car=1,artillery=1"
[grid]
vs = ["shoggoth", "cthulhu"]
[override_grid]
"units.artillery.cost" = [0.5, 3, 4]
"""


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "sweep.toml").write_text(SWEEP)
    run_experiment(load_spec(folder / "sweep.toml"), out=folder / "lake", quiet=True)
    return analysis.open_lake(folder / "lake")


def seats_frame() -> pl.DataFrame:
    """Two-seat games: 'a' wins 3 of 4 games, seat 0 wins 2 of 4."""
    return pl.DataFrame(
        {
            "game_index": [0, 0, 1, 1, 2, 2, 3, 3],
            "seat": [0, 1, 0, 1, 0, 1, 0, 1],
            "strategy": ["a", "b", "b", "a", "a", "b", "b", "a"],
            "win": [1, 0, 0, 1, 1, 0, 1, 0],
        }
    )


def test_win_rates_count_games_and_wins_with_wilson_intervals(sweep):
    df = analysis.win_rates(sweep.scan(), by=sweep.grid_keys, metric=sweep.key_metric)
    assert df.height == 6 and set(df["games"]) == {6000}
    raw = sweep.scan().group_by(sweep.grid_keys).agg(pl.col("destroyed").sum()).collect()
    assert df["wins"].sum() == raw["destroyed"].sum()
    lo, hi = wilson_interval(df["wins"].to_numpy(), df["games"].to_numpy())
    assert np.allclose(df["ci_low"], lo) and np.allclose(df["ci_high"], hi)
    assert ((df["ci_low"] <= df["rate"]) & (df["rate"] <= df["ci_high"])).all()


def test_lake_knows_its_grid_keys_and_key_metric(sweep):
    assert sweep.grid_keys == ["vs", "units.artillery.cost"] and sweep.key_metric == "destroyed"


def test_paired_difference_on_shared_seeds_is_exact_where_nothing_changes(sweep):
    df = analysis.paired_difference(
        sweep.scan(),
        {"units.artillery.cost": 3.0},
        metric="destroyed",
        within=["vs"],
        by=["vs", "units.artillery.cost"],
    )
    same = df.filter(pl.col("units.artillery.cost") == 4.0)  # cost 4 vs 3: same cards, same choices
    assert (same["diff"] == 0).all() and (same["half_width"] == 0).all()
    assert (same["independent_half_width"] > 0).all()


def test_paired_difference_is_tighter_than_independent_samples(sweep):
    df = analysis.paired_difference(
        sweep.scan(),
        {"units.artillery.cost": 3.0},
        metric="destroyed",
        within=["vs"],
        by=["vs", "units.artillery.cost"],
    )
    cheap = df.filter((pl.col("units.artillery.cost") == 0.5) & (pl.col("vs") == "shoggoth"))
    assert cheap["games"][0] == 6000 and cheap["diff"][0] < 0
    assert cheap["correlation"][0] > 0.1
    assert cheap["half_width"][0] < cheap["independent_half_width"][0]
    assert cheap["ci_low"][0] <= cheap["diff"][0] <= cheap["ci_high"][0]


def test_paired_difference_refuses_a_baseline_matching_several_rows_per_seed(sweep):
    with pytest.raises(UserError, match="more than one row"):
        analysis.paired_difference(sweep.scan(), {"units.artillery.cost": 3.0}, metric="destroyed")


def test_per_strategy_and_per_seat_rates():
    frame = seats_frame()
    strat = analysis.per_strategy(frame)
    assert dict(zip(strat["strategy"], strat["wins"], strict=True)) == {"a": 3, "b": 1}
    seat = analysis.per_seat(frame)
    assert dict(zip(seat["seat"], seat["rate"], strict=True)) == {0: 0.75, 1: 0.25}


def test_per_strategy_accepts_several_policy_columns(sweep):
    df = analysis.per_strategy(sweep.scan(), ("allocate", "withdraw"), metric="destroyed")
    assert df.height == 1 and df["games"][0] == 6 * 6000


def test_vp_by_source_gives_means_and_shares(sweep):
    df = analysis.vp_by_source(sweep.scan(), by=["vs"])
    assert {"vp_old_ones", "vp_oop_units", "vp_total", "share_old_ones", "share_oop_units"} <= set(
        df.columns
    )
    assert np.allclose(df["share_old_ones"] + df["share_oop_units"], 1.0)
    rows = sweep.scan().filter(pl.col("vs") == "cthulhu").collect()
    cth = df.filter(pl.col("vs") == "cthulhu")
    assert cth["vp_old_ones"][0] == pytest.approx(rows["vp_old_ones"].mean())


def test_pandas_on_request(sweep):
    df = analysis.win_rates(sweep.scan(), by=["vs"], metric="destroyed", pandas=True)
    assert isinstance(df, pd.DataFrame) and list(df["vs"]) == ["cthulhu", "shoggoth"]


def test_unknown_column_is_named():
    with pytest.raises(UserError, match="no column 'colour'"):
        analysis.win_rates(seats_frame(), by=["colour"])


def test_open_lake_refuses_a_folder_without_manifest(tmp_path):
    with pytest.raises(UserError, match="not a simkit lake"):
        analysis.open_lake(tmp_path)


def _narrowing_chunk(params, data, root_seed, chunk_id, n_games, outputs):
    """A mode breaking the fixed-dtype rule: chunk 1 needs int16 where chunk 0 fits int8."""
    score = np.full(n_games, 300 if chunk_id == 1 else 3)
    return {
        "summary": {
            "game_index": np.arange(n_games, dtype=np.int32),
            "win": np.ones(n_games, np.int8),
            "score": score.astype(np.int16 if chunk_id == 1 else np.int8),
        }
    }


def test_scan_reads_integer_columns_whose_width_differs_between_chunks(tmp_path):
    from simkit.modes import _MODES, Mode, register
    from simkit.runner import parse_spec

    register(
        Mode(
            name="test_narrow",
            params={},
            run_chunk=_narrowing_chunk,
            key_metric="win",
            extra={"data": None},
        )
    )
    try:
        raw = {"experiment": {"mode": "test_narrow", "root_seed": 1, "chunk_size": 10, "games": 20}}
        run_experiment(parse_spec(raw), out=tmp_path / "lake", quiet=True)
        rows = analysis.open_lake(tmp_path / "lake").scan().collect()
    finally:
        _MODES.pop("test_narrow", None)
    assert rows.schema["score"] == pl.Int16 and sorted(set(rows["score"])) == [3, 300]


def test_summary_command_prints_the_key_metric_per_cell(sweep, capsys):
    import json

    from simkit.cli import main

    assert main(["experiment", "summary", str(sweep.root), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["key_metric"] == "destroyed" and len(obj["rows"]) == 6
    assert all(r["ci_low"] <= r["rate"] <= r["ci_high"] for r in obj["rows"])


def test_vp_quantiles_are_observed_values_per_group_and_source():
    frame = pl.DataFrame(
        {
            "g": ["a"] * 5 + ["b"] * 3,
            "vp_x": [0, 1, 2, 3, 40, 5, 5, 6],
            "vp_y": [0, 0, 0, 0, 1, 2, 2, 2],
        }
    )
    q = analysis.vp_quantiles(frame, by=["g"], quantiles=(0.0, 0.5, 1.0))
    rows = {(r["g"], r["source"]): r for r in q.to_dicts()}
    assert list(q["source"][:2]) == ["x", "y"] and len(rows) == 4
    assert (
        rows[("a", "x")]["q50"] == 2
        and rows[("a", "x")]["q0"] == 0
        and rows[("a", "x")]["q100"] == 40
    )
    assert rows[("a", "x")]["mean"] == pytest.approx(46 / 5) and rows[("a", "y")][
        "scoring"
    ] == pytest.approx(0.2)
    assert rows[("b", "y")]["q50"] == 2 and rows[("b", "x")]["games"] == 3
    with pytest.raises(UserError):
        analysis.vp_quantiles(frame, quantiles=(1.5,), by=["g"])


def test_old_one_vp_sources_add_up_to_the_old_ones_total():
    from simkit.datapack import load_pack
    from simkit.revenge.modes import run_chunk

    params = {
        "humans": 2,
        "strategies": "balanced",
        "oop": "rusher",
        "difficulty": "hard",
        "ruleset": "revenge",
        "shuffle_seats": True,
        "map": "eastern",
        "checked": False,
    }
    summary = pl.DataFrame(
        run_chunk(params, load_pack(), 3, 0, 200, frozenset({"summary"}))["summary"]
    )
    parts = analysis.old_ones_vp_sources(summary).collect()
    sources = [c for c in parts.columns if c.startswith("vp_") and c != "vp_total"]
    assert sources == ["vp_on_map", "vp_blighted", "vp_units", "vp_ports"]
    assert (parts.select(pl.sum_horizontal(sources))[:, 0] == parts["vp_total"]).all()
    assert parts["vp_ports"].min() >= 0 and parts["vp_ports"].max() > 0
    assert set(parts["vp_ports"].unique()) <= {0, 10, 20, 30, 40}  # 10 per Port (rules)


def test_port_loss_by_site_and_blight_by_hex_are_wilson_rates_per_hex():
    ports = pl.DataFrame({"hex": [3, 3, 3, 8], "lost": [1, 0, 0, 1], "difficulty": ["hard"] * 4})
    df = analysis.port_loss_by_site(ports, by=["difficulty"])
    assert (
        df["hex"].to_list() == [3, 8]
        and df["games"].to_list() == [3, 1]
        and df["wins"].to_list() == [1, 1]
    )
    lo, hi = wilson_interval(1, 3)
    assert df["ci_low"][0] == pytest.approx(lo) and df["ci_high"][0] == pytest.approx(hi)
    farms = pl.DataFrame({"hex": [5, 5], "blighted": [1, 1]})
    assert analysis.blight_by_hex(farms)["rate"].to_list() == [1.0]
    with pytest.raises(UserError):
        analysis.blight_by_hex(ports)


def test_bradley_terry_ranks_the_strategy_that_outscores_the_others_first():
    from simkit.analysis import bradley_terry

    rows_seats, rows_summary = [], []
    rng = np.random.default_rng(0)
    strong = {"a": 0.8, "b": 0.5, "c": 0.2}  # chance to outscore a middling opponent
    g = 0
    for first in strong:
        for second in strong:
            if first == second:
                continue
            for _ in range(300):
                p = strong[first] / (strong[first] + strong[second])
                a_wins = rng.random() < p
                for listed, vp in ((0, 10 if a_wins else 5), (1, 5 if a_wins else 10)):
                    rows_seats.append(
                        {
                            "root_seed": 1,
                            "chunk_id": 0,
                            "game_index": g,
                            "cell": f"{first}{second}",
                            "listed": listed,
                            "vp": vp,
                        }
                    )
                rows_summary.append(
                    {
                        "root_seed": 1,
                        "chunk_id": 0,
                        "game_index": g,
                        "cell": f"{first}{second}",
                        "strategies": f"{first},{second}",
                    }
                )
                g += 1
    bt = bradley_terry(pl.DataFrame(rows_seats), pl.DataFrame(rows_summary), resamples=50)
    assert bt["strategy"].to_list() == ["a", "b", "c"]
    assert (bt["ci_low"] <= bt["rating"]).all() and (bt["rating"] <= bt["ci_high"]).all()
    assert abs(bt["rating"].sum()) < 1e-9 and (bt["games"] == 1200).all()


def _pair_frames(results: list[tuple[str, str, int, int]]):
    """Seats and summary frames of 2-seat games: (first, second, games, games first wins)."""
    seats, summary = [], []
    g = 0
    for first, second, games, first_wins in results:
        for k in range(games):
            keys = {"root_seed": 1, "chunk_id": 0, "game_index": g, "cell": f"{first}{second}"}
            win = k < first_wins
            seats += [{**keys, "listed": 0, "vp": 10 if win else 5}]
            seats += [{**keys, "listed": 1, "vp": 5 if win else 10}]
            summary.append({**keys, "strategies": f"{first},{second}"})
            g += 1
    return pl.DataFrame(seats), pl.DataFrame(summary)


def test_bradley_terry_elo_scale_recovers_known_ratings_with_intervals():
    from simkit.analysis import bradley_terry

    # true Elo +200, 0, -200: 200 points is odds sqrt(10) (0.7597), 400 is 10 (0.9091)
    seats, summary = _pair_frames(
        [("a", "b", 2000, 1519), ("b", "c", 2000, 1519), ("c", "a", 2000, 182)]
    )
    bt = bradley_terry(seats, summary, resamples=100, scale="elo")
    truth = {"a": 200.0, "b": 0.0, "c": -200.0}
    assert bt["strategy"].to_list() == ["a", "b", "c"]
    for r in bt.to_dicts():
        assert r["rating"] == pytest.approx(truth[r["strategy"]], abs=3.0)
        assert r["ci_low"] < truth[r["strategy"]] < r["ci_high"]
        assert 5.0 < (r["ci_high"] - r["ci_low"]) / 2 < 60.0  # about 2 x 13 Elo points
        assert r["games"] == 4000
    log = bradley_terry(seats, summary, resamples=100)
    assert (bt["rating"] / log["rating"]).to_list() == pytest.approx([400 / np.log(10)] * 3)
    with pytest.raises(UserError):
        bradley_terry(seats, summary, scale="percent")


def test_bradley_terry_sides_rates_old_one_players_and_human_tables_on_one_scale():
    """Revenge: each game compares its Old One player with its human table. Known Elo
    ratings (Old One players +300 and +100, tables -100 and -300) come back, so a
    difference within a side is the two players' strength against the same opponents."""
    from simkit.analysis import bradley_terry_sides

    truth = {"Old One: s": 300.0, "Old One: w": 100.0, "humans: x,x": -100.0, "humans: y,y": -300.0}
    rows = []
    for oop in ("s", "w"):
        for hum in ("x,x", "y,y"):
            diff = truth[f"Old One: {oop}"] - truth[f"humans: {hum}"]
            p = 1.0 / (1.0 + 10 ** (-diff / 400.0))
            wins = round(4000 * p)
            rows += [
                {"oop": oop, "strategies": hum, "old_ones_win": int(k < wins)} for k in range(4000)
            ]
    bt = bradley_terry_sides(pl.DataFrame(rows), resamples=50, scale="elo")
    assert bt["strategy"].to_list() == ["Old One: s", "Old One: w", "humans: x,x", "humans: y,y"]
    got = dict(zip(bt["strategy"], bt["rating"], strict=True))
    for label, rating in truth.items():
        assert got[label] == pytest.approx(rating, abs=8.0), label
    assert got["Old One: s"] - got["Old One: w"] == pytest.approx(200.0, abs=8.0)
    assert (bt["ci_low"] < bt["rating"]).all() and (bt["rating"] < bt["ci_high"]).all()
    assert (bt["games"] == 8000).all()
    with pytest.raises(UserError):
        bradley_terry_sides(pl.DataFrame(rows), scale="percent")


def test_bradley_terry_sides_reference_gives_each_difference_its_own_interval():
    """Relative to one player, that player reads 0 [0, 0] and another reads the difference
    of the two ratings, with an interval narrower than the two intervals side by side."""
    from simkit.analysis import bradley_terry_sides

    rng = np.random.default_rng(3)
    rows = []
    for oop, edge in (("s", 0.75), ("w", 0.65)):
        for hum in ("x", "y"):
            rows += [
                {"oop": oop, "strategies": hum, "old_ones_win": int(rng.random() < edge)}
                for _ in range(1500)
            ]
    frame = pl.DataFrame(rows)
    plain = bradley_terry_sides(frame, resamples=100, scale="elo")
    rel = bradley_terry_sides(frame, resamples=100, scale="elo", reference="Old One: w")
    by = {r["strategy"]: r for r in rel.to_dicts()}
    base = {r["strategy"]: r for r in plain.to_dicts()}
    assert by["Old One: w"]["rating"] == 0 and by["Old One: w"]["ci_low"] == 0
    diff = base["Old One: s"]["rating"] - base["Old One: w"]["rating"]
    assert by["Old One: s"]["rating"] == pytest.approx(diff)
    width = by["Old One: s"]["ci_high"] - by["Old One: s"]["ci_low"]
    side_by_side = base["Old One: s"]["ci_high"] - base["Old One: w"]["ci_low"]
    assert 0 < by["Old One: s"]["ci_low"] and width < side_by_side
    with pytest.raises(UserError, match="reference 'Old One: z'"):
        bradley_terry_sides(frame, reference="Old One: z")


def test_paired_elo_difference_is_what_bradley_terry_rates_the_same_games():
    """Two human tables on the same 3,000 deals against one Old One player: the paired Elo
    difference is the Bradley-Terry fit's difference of the two tables, and its paired
    interval (resampling deals) is narrower than the sides fit's (resampling games)."""
    from simkit.analysis import bradley_terry_sides
    from simkit.core.stats import paired_elo_difference

    # deals: both tables hold the Old Ones 1,700, only x 500, only y 300, neither 500
    counts = {(1, 1): 1700, (1, 0): 500, (0, 1): 300, (0, 0): 500}
    rows = []
    for (x_holds, y_holds), k in counts.items():
        for _ in range(k):
            rows.append({"oop": "o", "strategies": "x", "old_ones_win": 1 - x_holds})
            rows.append({"oop": "o", "strategies": "y", "old_ones_win": 1 - y_holds})
    point, lo, hi = paired_elo_difference(1700, 500, 300, 500)
    # x holds 2,200 of 3,000, y 2,000: 400/ln 10 x (logit 0.7333 - logit 0.6667)
    assert point == pytest.approx(400 / np.log(10) * np.log((2200 / 800) / (2000 / 1000)), abs=0.1)
    bt = bradley_terry_sides(pl.DataFrame(rows), resamples=100, scale="elo", reference="humans: y")
    x = bt.filter(pl.col("strategy") == "humans: x").to_dicts()[0]
    assert x["rating"] == pytest.approx(point, abs=1.0)
    assert lo < point < hi and hi - lo < x["ci_high"] - x["ci_low"]
    # the players' order is the sign; equal wins read 0; a bad count is refused
    assert paired_elo_difference(1700, 300, 500, 500)[0] == pytest.approx(-point)
    assert paired_elo_difference(10, 4, 4, 10)[0] == 0.0
    with pytest.raises(ValueError, match="counts"):
        paired_elo_difference(1, -1, 0, 0)
    # a player who won every deal rates finitely above one who lost some (not inf or nan)
    point, lo, hi = paired_elo_difference(4, 2, 0, 0)
    assert 0 <= lo < point < hi < 1e3

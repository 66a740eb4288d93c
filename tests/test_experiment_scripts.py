"""The scripts under experiments/ that turn lakes into tables work on every lake kind they
name (a base ladder has no difficulty levels; a Revenge ladder does)."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simkit import analysis
from simkit.errors import UserError
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


def test_skill_curve_runs_its_specs_and_tabulates_a_tiny_curve(tmp_path, capsys):
    """The curve's specs (three arms and the no-search reference, 1 and 2 rollouts, Normal only,
    2 games a cell) run into one lake each; the table reads them all, pairs the doubling on the
    same deals, and claims no convergence two games cannot support."""
    curve = runpy.run_path(str(ROOT / "experiments/skill_curve_revenge.py"))
    table = runpy.run_path(str(ROOT / "experiments/skill_curve_table.py"))
    plan = {("none", 0): 2, **{(arm, r): 2 for arm in curve["ARMS"] for r in (1, 2)}}
    done = curve["run"](
        tmp_path, plan=plan, budgets=(1, 2), difficulties=("normal",), rounds=1, log=lambda m: None
    )
    assert done
    assert len(list(tmp_path.glob("*/manifest.json"))) == 7
    assert (tmp_path / "specs" / "skill_curve_revenge_both_r2.toml").is_file()
    games, facts, notes = table["read"](tmp_path)
    assert notes == [] and games.height == 7 * 2
    short = table["short"]
    assert facts["players"]["both", 2] == (short(curve["human_search"](2)), curve["oop_search"](2))
    assert "policy=balanced_tuned_base_2p.toml:" in facts["players"]["both", 2][0]
    assert facts["players"]["oop", 1] == ("balanced", curve["oop_search"](1))
    # every cell plays the same two deals (paired): the same (chunk, game) keys everywhere
    keys = games.group_by("arm", "budget").agg(k=pl.struct(*table["KEYS"]).sort())
    assert keys["k"].n_unique() == 1
    assert table["main"]([str(tmp_path), "--figure", str(tmp_path / "c.png")]) == 0
    out = capsys.readouterr().out
    for arm in curve["ARMS"]:
        assert f"| {arm} | normal | 1 -> 2 |" in out, out
        assert f"| {arm} | normal | not shown at this sample size" in out, out
    assert "| none | normal | 0 (no search) |" in out
    assert "- games: Revenge, 2 humans, content assumed, ruleset revenge, data pack " in out
    assert (tmp_path / "c.png").stat().st_size > 10_000


def test_skill_curve_sized_run_plays_every_budget_of_its_arms_alike(tmp_path, capsys):
    """--arms/--games: every budget of the chosen arms at the same games a cell (the
    reference once), --budgets choosing them; the two options go together, --games is whole
    chunks and a budget a power of 2 (exit 2)."""
    curve = runpy.run_path(str(ROOT / "experiments/skill_curve_revenge.py"))
    plan = curve["sized_plan"](("oop", "none"), 1000)
    assert plan == {("none", 0): 1000, **{("oop", r): 1000 for r in curve["BUDGETS"]}}
    assert curve["sized_plan"](("oop",), 2000, (32,)) == {("oop", 32): 2000}
    bad = (
        ["--arms", "oop"],
        ["--games", "100"],
        ["--arms", "oop", "--games", "15"],
        ["--arms", "oop", "--games", "100", "--budgets", "24"],
        ["--arms", "oop", "--games", "100", "--budgets", "0"],
    )
    for argv in bad:
        assert curve["main"](["run", "--out", str(tmp_path / "x"), *argv]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_skill_curve_claims_convergence_only_inside_the_tolerance():
    table = runpy.run_path(str(ROOT / "experiments/skill_curve_table.py"))
    tight = {"diff": 0.005, "ci_low": -0.015, "ci_high": 0.019}
    wide = {"diff": 0.005, "ci_low": -0.03, "ci_high": 0.04}
    big = {"diff": 0.05, "ci_low": 0.04, "ci_high": 0.06}
    rows = [{"budget": 1, **big}, {"budget": 2, **tight}, {"budget": 4, **tight}]
    assert table["converged"](rows) == 2
    assert table["converged"]([{"budget": 1, **big}, {"budget": 2, **wide}]) is None
    # a later doubling that moves again undoes an earlier calm step
    assert table["converged"]([{"budget": 1, **tight}, {"budget": 2, **big}]) is None


def test_skill_curve_step_interval_stays_wide_when_no_pair_differs():
    """Ten paired games with the same result at both budgets: no move, but ten games cannot
    show a move under 2 points (the plain normal interval would be [0, 0])."""
    table = runpy.run_path(str(ROOT / "experiments/skill_curve_table.py"))
    games = pl.DataFrame(
        {
            "root_seed": [1] * 20,
            "chunk_id": [0] * 20,
            "game_index": list(range(10)) * 2,
            "arm": ["humans"] * 20,
            "difficulty": ["normal"] * 20,
            "budget": [1] * 10 + [2] * 10,
            "old_ones_win": [1, 0] * 10,
        }
    )
    (row,) = table["steps"](games).to_dicts()
    assert (row["games"], row["diff"]) == (10, 0.0)
    assert row["ci_low"] < -0.1 and row["ci_high"] > 0.1
    assert table["converged"]([row]) is None


def test_learned_vs_search_pairs_the_same_seeds_and_reports_the_difference():
    """The head-to-head plays the learned Old One player and the search on the same held-out
    seeds: its difference is the two rates' difference, inside its own interval."""
    script = runpy.run_path(str(ROOT / "experiments/learned_vs_search.py"))
    out = script["main"](
        ["--side", "oop", "--games", "6", "--rollouts", "1"]
        + ["--learned", str(ROOT / "experiments/strategies/learned_oop_revenge_2h_normal.toml")]
    )
    assert out["games"] == 6 and out["search"].startswith("search:rollouts=1")
    assert out["diff"] == pytest.approx(out["oop_win_learned"] - out["oop_win_search"], abs=1e-3)
    assert out["ci_low"] <= out["diff"] <= out["ci_high"]
    assert out["cpu_s_search"] > out["cpu_s_learned"]


def test_learned_vs_search_names_the_searchs_rollout_policy():
    """--search-policy makes the search roll out with the named player, and says so."""
    script = runpy.run_path(str(ROOT / "experiments/learned_vs_search.py"))
    learned = str(ROOT / "experiments/strategies/learned_oop_revenge_2h_normal.toml")
    argv = ["--side", "oop", "--games", "4", "--rollouts", "1", "--learned", learned]
    out = script["main"]([*argv, "--search-policy", f"learned:{learned}"])
    assert out["search"] == f"search:rollouts=1:policy=learned:{learned} (public model)"


@pytest.mark.parametrize("searched", ["mythos", "sites"])
def test_oop_search_choices_pairs_the_two_arms_on_the_same_seeds(searched):
    """Both arms are the same Old One search but for mythos=1 or sites=1, on the same seeds:
    the difference is the two rates' difference, inside its own interval."""
    script = runpy.run_path(str(ROOT / "experiments/oop_search_choices.py"))
    argv = ["--searched", searched, "--games", "4", "--rollouts", "1", "--jobs", "1"]
    out = script["main"](argv)
    assert out["games"] == 4 and out["arm_searched"] == out["arm_policy"] + f":{searched}=1"
    assert out["diff"] == pytest.approx(out["oop_win_searched"] - out["oop_win_policy"], abs=1e-3)
    assert out["ci_low"] <= out["diff"] <= out["ci_high"]


def _fake_learn_runs(runs: Path, made: dict, fitter: str = "advantage", prefix=None) -> None:
    """A learn run's folder per side and cell with generations whose held-out ratings are
    given: (side, humans, difficulty) -> [gen1 rating, gen2 rating, ...]. The folder is
    <prefix><side>_<H>h_<D>, the prefix "adv" for the advantage fitter unless given."""
    src = {
        "hum": ROOT / "experiments/strategies/learned_revenge_2h_normal.toml",
        "oop": ROOT / "experiments/strategies/learned_oop_revenge_2h_normal.toml",
    }
    for (side, h, d), ratings in made.items():
        if prefix is None:
            prefix = "adv" if fitter == "advantage" else ""
        folder = runs / f"{prefix}{side}_{h}h_{d}"
        folder.mkdir(parents=True)
        settings = {"side": "oop" if side == "oop" else "human", "mode": "revenge"}
        settings |= {"humans": "balanced", "oop": "rusher", "players": h, "difficulty": d}
        settings |= {"generations": 2, "games": 9, "rollouts": 8, "rate_games": 20, "seed": 5}
        settings |= {"fitter": fitter} if fitter != "logistic" else {}
        (folder / "learn.json").write_text(json.dumps({"settings": settings}))
        for k, r in enumerate(ratings, start=1):
            (folder / f"gen{k}.toml").write_text(src[side].read_text())
            (folder / f"gen{k}").mkdir()
            first = {"generation": 0, "old_ones_win": 0.5}
            rated = {"generation": k, "games": 20, "old_ones_win": r, "against": [first]}
            (folder / f"gen{k}" / "rating.json").write_text(json.dumps(rated))


def _fake_abr_runs(runs: Path, cells) -> None:
    """An alternating-best-response folder per cell: round 3's two strategy files (copies
    of the shipped Normal/2 pair, one field moved so each cell's files differ)."""
    for i, (h, d) in enumerate(cells):
        folder = runs / f"{h}h_{d}"
        for step, stem in (("humans", "abr_humans"), ("oop", "abr_oop")):
            text = (ROOT / f"experiments/strategies/{stem}_revenge_2h_normal.toml").read_text()
            (folder / f"round3_{step}").mkdir(parents=True)
            (folder / f"round3_{step}" / "strategy.toml").write_text(_moved(text, i))
        steps = [{"round": 3, "tuned": "oop", "oop_win": 0.6}]
        (folder / "trajectory.json").write_text(json.dumps({"eval_games": 40, "steps": steps}))


def _moved(text: str, i: int) -> str:
    """A strategy file with its first number after '= ' or '[' moved by 0.01 i (a new cell:
    simkit identifies cells by their files' content)."""
    m = re.search(r"(?m)^(?:[a-z_]+ = |weights = \[\s*\[)(-?\d+\.\d+)", text)
    return text[: m.start(1)] + f"{float(m[1]) + 0.01 * i}" + text[m.end(1) :]


def test_strong_play_made_here_picks_each_sides_best_generation(tmp_path):
    """The humans' best generation concedes the fewest Old One wins, the Old One player's
    wins the most; every shipped file's first line says how it was made."""
    script = runpy.run_path(str(ROOT / "experiments/strong_play_made_here.py"))
    made = {}
    for h, d in script["LEARN_SEEDS"]:
        made["hum", h, d] = [0.40, 0.30]  # generation 2 holds the Old Ones lower
        made["oop", h, d] = [0.80, 0.70]  # generation 1 wins more
    _fake_learn_runs(tmp_path / "learn", made)
    # a logistic run of the same seed at one cell: its generation 1 holds the Old Ones lowest
    _fake_learn_runs(tmp_path / "learn", {("hum", 2, "hard"): [0.20]}, fitter="logistic")
    co = {key: list(reversed(rates)) for key, rates in made.items()}  # the other generation
    _fake_learn_runs(tmp_path / "learn", co, prefix="co")
    _fake_abr_runs(tmp_path / "abr", script["CELLS"])
    (tmp_path / "exp" / "strategies").mkdir(parents=True)
    written = script["pick"](
        tmp_path / "learn", tmp_path / "abr", experiments=tmp_path / "exp", log=lambda m: None
    )
    assert len(written) == 4 * len(script["LEARN_SEEDS"]) + 2 * len(script["CELLS"])
    assert (tmp_path / "exp" / script["strategy_file"]("learned", "hum", 2, "normal")).is_file()
    assert not (tmp_path / "exp" / script["strategy_file"]("abr", "hum", 2, "normal")).exists()
    shipped = {
        (f, side): (tmp_path / "exp" / script["strategy_file"](f, side, 3, "hard")).read_text()
        for f in script["FAMILIES"]
        for side in ("hum", "oop")
    }
    hum, oop = shipped["learned", "hum"], shipped["learned", "oop"]
    assert hum.startswith("# Made by: simkit learn --mode revenge --oop rusher --players 3")
    assert "--difficulty hard" in hum.splitlines()[0] and "gen2 of 2" in hum.splitlines()[0]
    assert "--seed 5 --fitter advantage (gen2" in hum.splitlines()[0]
    assert "gen1 of 2" in oop.splitlines()[0] and "win 0.8000 over 20" in oop.splitlines()[0]
    assert oop.startswith("# Made by: simkit learn --side oop --humans balanced")
    two = (tmp_path / "exp" / script["strategy_file"]("learned", "hum", 2, "hard")).read_text()
    assert "--difficulty hard" in two and "--fitter" not in two.splitlines()[0]
    assert "gen1 of 1" in two.splitlines()[0] and "and the logistic run" in two.splitlines()[0]
    table = script["ratings_table"](tmp_path / "learn")
    assert "| 2 | hard | humans | logistic |" in table and "| 0.200 | - | - |" in table
    assert "| 3 | heroic | Old One | advantage |" in table and "| 0.800 | 0.700 | - |" in table
    co_hum, co_oop = shipped["co", "hum"].splitlines()[0], shipped["co", "oop"].splitlines()[0]
    assert "gen1 of 2" in co_hum and "the co-training run" in co_hum
    assert "gen2 of 2" in co_oop and "win 0.8000 over 20" in co_oop
    # the Old One player names the humans it learned against as shipped, not a run folder
    humans = "--humans learned:experiments/strategies/learned_co_revenge_3h_hard.toml "
    assert humans in co_oop
    abr = shipped["abr", "hum"].splitlines()[0]
    assert "alternating_best_response.py" in abr and "--humans 3 --difficulty hard" in abr


def test_strong_play_made_here_tabulates_every_pairing_on_the_same_deals(tmp_path):
    """Each cell's spec plays both families made here and at Normal/2; the table has every
    headline pairing's rates (the Normal/2 cell counts as both) and each pair made here
    minus made at Normal/2, paired on the same deals."""
    script = runpy.run_path(str(ROOT / "experiments/strong_play_made_here.py"))
    exp = tmp_path / "exp"
    (exp / "strategies").mkdir(parents=True)
    cells = [(h, d) for h in script["HUMANS"] for d in script["DIFFICULTIES"]]
    shipped = ROOT / "experiments" / "strategies"
    source = {  # a shipped file of each family and side
        ("learned", "hum"): shipped / "learned_revenge_2h_normal.toml",
        ("learned", "oop"): shipped / "learned_oop_revenge_2h_normal.toml",
        ("abr", "hum"): shipped / "abr_humans_revenge_2h_normal.toml",
        ("abr", "oop"): shipped / "abr_oop_revenge_2h_normal.toml",
        ("co", "hum"): shipped / "learned_adv_revenge_2h_normal.toml",
        ("co", "oop"): shipped / "learned_adv_oop_revenge_2h_normal.toml",
    }
    for family in script["FAMILIES"]:
        for side in ("hum", "oop"):
            home = source[family, side]
            for i, (h, d) in enumerate(cells):
                (exp / script["strategy_file"](family, side, h, d)).write_text(
                    _moved(home.read_text(), i)
                )
    script["run"](tmp_path / "out", games=4, base_dir=exp, log=lambda m: None)
    games = script["read"](tmp_path / "out")
    keys = games.group_by("humans", "difficulty", "pairing").agg(
        k=pl.struct("chunk_id", "game_index").sort()
    )
    assert keys["k"].n_unique() == 1  # the same deals everywhere
    # a cell other than Normal/2 plays 6 humans x 6 Old Ones; each labelled once
    hard3 = games.filter((pl.col("humans") == 3) & (pl.col("difficulty") == "hard"))
    assert hard3.height == 36 * 4 and hard3["pairing"].n_unique() == 36
    out = script["markdown"](games)
    for title in script["HEADLINE"]:
        assert f"| 2 | {title} |" in out and f"| 3 | {title} |" in out, out
    diff = out.split("difference")[1]
    for title in script["TITLE"].values():
        assert f"| 3 | heroic | {title} |" in diff
    assert "| 2 | normal |" not in diff  # at Normal/2 both are the same files
    rates = analysis.win_rates(
        games.filter(pl.col("pairing") == "ABR pair, made here"),
        by=["humans", "difficulty"],
        metric="old_ones_win",
    )
    rate = rates.filter((pl.col("humans") == 3) & (pl.col("difficulty") == "hard"))["rate"][0]
    row = next(ln for ln in out.splitlines() if ln.startswith("| 3 | ABR pair, made here |"))
    assert row.split("|")[4].strip().startswith(f"{rate:.3f}")


def test_learned_vs_search_gives_the_same_games_on_two_processes():
    script = runpy.run_path(str(ROOT / "experiments/learned_vs_search.py"))
    argv = ["--side", "oop", "--games", "5", "--rollouts", "1"]
    argv += ["--learned", str(ROOT / "experiments/strategies/learned_oop_revenge_2h_normal.toml")]
    one, two = script["main"](argv), script["main"]([*argv, "--jobs", "2"])
    for key in ("oop_win_learned", "oop_win_search", "diff", "ci_low", "ci_high"):
        assert one[key] == two[key], key
    # two batches (--first-game) are the same games as one run: their sums add up
    learned = argv[argv.index("--learned") :]
    head = script["main"](["--side", "oop", "--rollouts", "1", "--games", "3", *learned])
    tail = script["main"](
        ["--side", "oop", "--rollouts", "1", "--games", "2", "--first-game", "3", *learned]
    )
    for key in ("sum_diff", "sum_diff_sq"):
        assert head[key] + tail[key] == one[key], key
    assert 3 * head["oop_win_search"] + 2 * tail["oop_win_search"] == pytest.approx(
        5 * one["oop_win_search"], abs=1e-3
    )  # (the rates are rounded to 4 places)
    both = script["combine"]([tail, head])  # --combine: the two batches are the one run
    for key in ("games", "first_game", "oop_win_learned", "oop_win_search", "diff", "ci_low"):
        assert both[key] == one[key], key
    assert both["ci_high"] == one["ci_high"]
    with pytest.raises(ValueError, match="first_game: games 0-2 and 4-5 do not meet"):
        script["combine"]([head, {**tail, "first_game": 4}])
    with pytest.raises(ValueError, match="difficulty: 'hard'"):
        script["combine"]([head, {**tail, "difficulty": "hard"}])


def test_combining_batches_that_do_not_meet_exits_2_with_one_line(tmp_path, capsys):
    script = runpy.run_path(str(ROOT / "experiments/learned_vs_search.py"))
    batch = {"side": "oop", "learned": "x", "search": "s", "against": "balanced"}
    batch |= {"difficulty": "normal", "players": 2, "sum_diff": 1, "sum_diff_sq": 1}
    batch |= {"oop_win_learned": 0.5, "oop_win_search": 0.5, "cpu_s_learned": 1}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps({**batch, "games": 10, "first_game": 0, "cpu_s_search": 1}))
    b.write_text(json.dumps({**batch, "games": 10, "first_game": 5, "cpu_s_search": 1}))
    with pytest.raises(SystemExit) as exit_:
        script["main"](["--combine", str(a), str(b)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "games 0-9 and 5-14 do not meet" in err


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "experiments/strategies").glob("*.toml")),
    ids=lambda p: p.stem,
)
def test_every_shipped_strategy_file_plays_and_says_how_it_was_made(path):
    """A spec or a table names these files: each is a valid player of its seat, and its
    first line is the command that made it."""
    import tomllib

    from strategies.old_ones import parse_oop
    from strategies.registry import parse_one

    text = path.read_text()
    assert text.startswith("# Made by: "), text.splitlines()[0]
    doc = tomllib.loads(text)
    if "learned" in doc:
        oop = doc["learned"]["format"] == "simkit-learned-oop/1"
        spec = f"learned:{path}"
    else:
        oop = doc["strategy"]["role"] == "oop"
        spec = f"file:{path}"
    assert (parse_oop if oop else parse_one)(spec) is not None


def test_learn_signal_measures_saturation_and_the_fits_agreement(tmp_path):
    """Planted decisions: box 1 wins when feature 0 is high, box 2 when it is low, in half the
    games; in the other half every box lost every rollout (only the margin differs). The
    script counts that half, and the linear fit agrees with the search's pick far above a
    random legal box."""
    from simkit.kernels.low import game_layout as L

    rng = np.random.default_rng(3)
    n, boxes = 4000, len(L.BOX_NAMES)
    feats = rng.random((n, len(L.LEARN_FEATURES)))
    lost = np.arange(n) % 2 == 1
    values = np.full((n, boxes), np.nan)
    values[:, :3] = 0.3 + 0.02 * rng.random((n, 3))
    values[:, 1] += np.where(feats[:, 1] > 0.5, 0.4, 0.0)
    values[:, 2] += np.where(feats[:, 1] <= 0.5, 0.4, 0.0)
    values[lost, :3] = 1e-3 * rng.random((lost.sum(), 3))
    frame = {"game": np.arange(n) // 10, "seat": np.zeros(n, int)}
    frame["chosen"] = np.nanargmax(values, axis=1)
    frame |= {f"f_{k}": feats[:, i] for i, k in enumerate(L.LEARN_FEATURES)}
    frame |= {f"legal_{k}": np.isfinite(values[:, i]) for i, k in enumerate(L.BOX_NAMES)}
    frame |= {f"value_{k}": values[:, i] for i, k in enumerate(L.BOX_NAMES)}
    path = tmp_path / "decisions.parquet"
    pl.DataFrame(frame).write_parquet(path)
    script = runpy.run_path(str(ROOT / "experiments/learn_signal.py"))
    out = script["main"]([str(path)])
    assert out["decisions"] == n and out["legal_mean"] == 3.0
    assert out["all_lost"] == 0.5 and out["all_won"] == 0.0 and out["values"] == "win"
    assert out["agree"]["linear"] > 0.6 > 0.45 > out["agree"]["random"]
    # without the feature the values follow, the fit can only guess between boxes 1 and 2
    blind = script["main"]([str(path), "--without", "time"])
    assert blind["features"] == out["features"] - 1 == len(L.LEARN_FEATURES) - 1
    assert blind["agree"]["linear"] < 0.5 < out["agree"]["linear"]
    # the value given up: 0 for the search's own pick, most for a random legal box
    assert 0 <= out["regret"]["linear"] < blind["regret"]["linear"] < out["regret"]["random"]
    frame["value_rail"] = frame["value_rail"] * 10 - 3  # VP margins (--objective margin)
    pl.DataFrame(frame).write_parquet(path)
    out = script["main"]([str(path)])
    assert out["values"] == "margin" and out["all_lost"] is None and out["gap_over_2se"] is None


def test_learned_best_response_answers_the_player_kept_and_keeps_the_best(tmp_path, capsys):
    """One tiny round: the humans learn against the first Old One player with their search
    modelling it, the Old One player then learns against the humans kept, modelling them;
    each step keeps its best-rated candidate (the first policy among them), and a rerun
    resumes to the same trajectory."""
    import tomllib

    script = runpy.run_path(str(ROOT / "experiments/learned_best_response.py"))
    strategies = ROOT / "experiments/strategies"
    argv = ["--out", str(tmp_path / "lbr"), "--rounds", "1", "--generations", "1"]
    argv += ["--human-games", "2", "--oop-games", "2", "--rollouts", "1", "--rate-games", "6"]
    argv += ["--first-humans", str(strategies / "learned_co_revenge_2h_normal.toml")]
    argv += ["--first-oop", str(strategies / "learned_co_oop_revenge_2h_normal.toml")]
    steps = script["main"](argv)
    humans, oop = steps
    assert humans["faced"] == f"learned:{strategies / 'learned_co_oop_revenge_2h_normal.toml'}"
    assert oop["faced"] == humans["kept"]  # the Old One player answers the humans kept
    for step, sign in ((humans, -1), (oop, 1)):
        rates = [c["old_ones_win"] for c in step["candidates"]]
        best = max(range(len(rates)), key=lambda i: (sign * rates[i], -i))
        assert step["kept"] == step["candidates"][best]["player"]
        fit = tomllib.loads((Path(step["folder"]) / "gen1.toml").read_text())["learned"]["fit"]
        key = "oop_model" if step["side"] == "human" else "opponents"
        assert fit["search"].endswith(f":{key}={step['faced']}")
    assert script["main"](argv) == steps  # resumed: nothing recorded again, the same picks
    assert json.loads((tmp_path / "lbr" / "rounds.json").read_text()) == steps


def test_paired_players_pairs_each_player_with_the_first_on_the_same_seeds():
    """Each row's difference is its rate minus the first player's (same games), and the
    first player's own row differs by nothing."""
    script = runpy.run_path(str(ROOT / "experiments/paired_players.py"))
    strategies = ROOT / "experiments/strategies"
    rows = script["main"](
        ["--side", "human", "--games", "40", "--seed", "7", "balanced", "economist"]
        + ["--against", f"learned:{strategies / 'learned_co_oop_revenge_2h_normal.toml'}"]
    )
    first, other = rows
    assert first["minus_first"] == 0.0 == first["ci_low"] == first["ci_high"]
    assert other["minus_first"] == pytest.approx(
        other["old_ones_win"] - first["old_ones_win"], abs=1e-3
    )
    assert other["ci_low"] <= other["minus_first"] <= other["ci_high"]


@pytest.fixture(scope="module")
def metagame(tmp_path_factory):
    """The meta-game script and a tiny run of its three 2-human cells, over a population of
    the heuristics and three shipped files (two made at Normal/2, one for 3 humans)."""
    script = runpy.run_path(str(ROOT / "experiments/metagame_revenge.py"))
    tmp = tmp_path_factory.mktemp("metagame")
    exp, shipped = tmp / "exp", ROOT / "experiments/strategies"
    (exp / "strategies").mkdir(parents=True)
    for name in ("learned_revenge_2h_normal", "abr_oop_revenge_2h_normal"):
        (exp / "strategies" / f"{name}.toml").write_text((shipped / f"{name}.toml").read_text())
    (exp / "strategies/abr_humans_revenge_3h_hard.toml").write_text(
        (shipped / "abr_humans_revenge_3h_hard.toml").read_text()
    )
    cells = [(2, d) for d in script["DIFFICULTIES"]]
    script["run"](tmp / "out", games=6, cells=cells, base_dir=exp, log=lambda m: None)
    return script, exp, tmp / "out"


def test_metagame_plays_one_population_per_player_count_and_solves_each_cell(metagame):
    """A player count's population (the heuristics, the files made for it or at Normal/2) is
    the same at every level; every pair plays the same deals; the table's value is the
    equilibrium of the cell's win matrix and the step is the difference of two values."""
    script, exp, out = metagame
    hum2 = script["population"]("hum", 2, exp)
    assert hum2 == [
        *script["HUMAN_HEURISTICS"],
        "learned:strategies/learned_revenge_2h_normal.toml",
    ]
    assert "file:strategies/abr_humans_revenge_3h_hard.toml" in script["population"]("hum", 3, exp)
    assert (
        script["population"]("oop", 3, exp)[-1] == "file:strategies/abr_oop_revenge_2h_normal.toml"
    )
    hum, oop, wins = script["read_cell"](out / "metagame_2h_hard")
    short = script["short"]
    assert sorted(map(short, hum)) == sorted(map(short, hum2))
    assert sorted(map(short, oop)) == sorted(map(short, script["population"]("oop", 2, exp)))
    assert wins.shape == (5, 4, 6) and set(np.unique(wins)) <= {0.0, 1.0}
    from simkit.analysis import metagame as mg

    values = [
        mg.solve(mg.win_matrix(script["read_cell"](out / f"metagame_2h_{d}")[2]))
        for d in ("normal", "hard")
    ]
    table = script["table"](out, draws=20)
    assert f"| 2 | hard | 5 x 4 | 6 | **{values[1].value:.3f}** [" in table, table
    step = values[1].value - values[0].value
    assert (
        f"| 2 | normal -> hard | {values[0].value:.3f} | {values[1].value:.3f} | {step:+.3f} ["
        in table
    )


def test_metagame_rerun_plays_only_the_pairs_a_new_player_adds_on_the_same_deals(
    metagame, tmp_path
):
    """A file added to the population (one human, one Old One player) is played against every
    player of the other side, into lakes of its own, on the cell's deals: the cell reads as a
    fresh run of the grown population would, the first lake's games are untouched, a rerun
    adds nothing."""
    import shutil

    script, exp, _ = metagame
    shutil.copytree(exp, tmp_path / "exp")  # (a lake holds resolved paths: play it here)

    def play(out: str, log=lambda m: None, **games) -> None:
        script["run"](
            tmp_path / out, cells=[(2, "hard")], base_dir=tmp_path / "exp", log=log, **games
        )

    play("out", games=6)
    shipped = ROOT / "experiments/strategies"
    for name in ("learned_rf_revenge_2h_normal", "learned_co_oop_revenge_2h_normal"):
        (tmp_path / f"exp/strategies/{name}.toml").write_text(
            (shipped / f"{name}.toml").read_text()
        )
    cell = tmp_path / "out/metagame_2h_hard"
    first = {p: p.read_bytes() for p in cell.rglob("*.parquet")}  # its games
    said = []
    play("out", said.append, games=99)
    assert [p.name for p in script["cell_lakes"](cell)][1:] == sorted(
        p.name for p in tmp_path.glob("out/metagame_2h_hard+*")
    )
    assert len(said) == 2 and all("(1 new): +" in s for s in said), said
    assert {p: p.read_bytes() for p in cell.rglob("*.parquet")} == first
    hum, oop, wins = script["read_cell"](cell)
    assert wins.shape == (6, 5, 6)  # the cell's 6 deals, not --games 99
    play("fresh", games=6)
    fresh_hum, fresh_oop, fresh = script["read_cell"](tmp_path / "fresh/metagame_2h_hard")
    short = script["short"]
    order_h = [list(map(short, fresh_hum)).index(short(s)) for s in hum]
    order_o = [list(map(short, fresh_oop)).index(short(s)) for s in oop]
    np.testing.assert_array_equal(wins, fresh[np.ix_(order_h, order_o)])
    said.clear()
    play("out", said.append)
    assert said == []


def test_metagame_cell_with_a_pair_in_two_lakes_is_refused_in_one_line(metagame, tmp_path):
    import shutil

    script, exp, out = metagame
    shutil.copytree(out / "metagame_2h_hard", tmp_path / "metagame_2h_hard")
    shutil.copytree(out / "metagame_2h_hard", tmp_path / "metagame_2h_hard+hcopy")
    with pytest.raises(UserError, match=r"\+hcopy: .* against .* is also in "):
        script["read_cell"](tmp_path / "metagame_2h_hard")


def test_metagame_worlds_solve_each_worlds_core_players_anew(metagame, tmp_path):
    """The worlds run plays the players an equilibrium uses (weight FLOOR or more at some
    level) over redrawn content; each world's value is its own matrix game's."""
    script, exp, out = metagame
    hum = script["core_players"](out, 2, "hum", folder=exp)
    assert hum and set(hum) <= set(script["population"]("hum", 2, exp))
    script["run_worlds"](
        out, tmp_path / "w", count=2, games=4, counts=(2,), base_dir=exp, log=lambda m: None
    )
    values = script["world_values"](tmp_path / "w/metagame_worlds_2h")
    assert all(len(v) == 2 and ((0 <= v) & (v <= 1)).all() for v in values.values())
    row = script["worlds_table"](tmp_path / "w").splitlines()[-1]
    assert row.startswith("| 2 | 2 | ") and row.count(" of 2 |") == 2
    step = values["hard"] - values["normal"]
    assert f"above 0 in {int((step > 0).sum())} of 2 |" in row


def test_metagame_exploit_weights_the_searchs_paired_gains_by_the_mixture(metagame):
    script, exp, out = metagame
    res = script["exploit"](out, 2, "normal", "human", games=4, rollouts=1)
    assert res["search"].startswith(f"search:rollouts=1:policy={res['main']}")
    weights = [r["weight"] for r in res["rows"]]
    assert weights and sum(weights) == pytest.approx(1.0, abs=2e-3)
    minus = sum(r["weight"] * (r["search"] - r["main"]) for r in res["rows"])
    assert res["search_minus_main"] == pytest.approx(minus, abs=2e-3)
    assert res["ci_low"] <= res["search_minus_main"] <= res["ci_high"]


def test_metagame_mixture_file_is_a_sides_equilibrium_that_learn_reads_back(
    metagame, tmp_path, monkeypatch
):
    """`mixture` writes a side's equilibrium (players over the floor, rescaled) as a file
    `simkit learn --opponent-mixture` reads back: the same players and weights, the paths
    under the current folder relative to it."""
    from simkit.learn import read_mixture

    script, exp, out = metagame
    monkeypatch.chdir(exp)
    to = tmp_path / "eq.toml"
    argv = ["mixture", str(out), "--difficulty", "hard", "--side", "oop", "--to", str(to)]
    assert script["main"](argv) == 0
    eq = script["equilibrium"](out, 2, "hard", "oop")
    assert sum(w for _, w in eq) == pytest.approx(1.0) and all(w >= 0.05 for _, w in eq)
    back = json.loads(read_mixture(to, "human"))
    assert [s for s, _ in back] == [s.replace(f"{exp}/", "") for s, _ in eq]
    assert [w for _, w in back] == pytest.approx([w for _, w in eq], abs=1e-5)


def test_metagame_table_of_a_folder_without_its_lakes_is_one_line_and_exit_2(tmp_path, capsys):
    script = runpy.run_path(str(ROOT / "experiments/metagame_revenge.py"))
    assert script["main"](["table", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no meta-game lakes" in err and str(tmp_path) in err


def test_learn_fit_variance_refits_each_generation_its_halves_and_all(tmp_path, capsys):
    """The fit-variance script refits a run's decisions per generation, per half by game and
    all together (one JSON line each, halves splitting their generation's rows), and
    --fresh plays the all-generations refit against the first policy on other seeds."""
    from simkit.learn import LearnSettings, run

    out = tmp_path / "run"
    settings = LearnSettings(
        mode="revenge", side="oop", difficulty="hard", generations=2, games=4, rollouts=1,
        rate_games=4, seed=5, fitter="advantage",
    )  # fmt: skip
    run(settings, out)
    script = runpy.run_path(str(ROOT / "experiments/learn_fit_variance.py"))
    assert script["main"]([str(out), "--games", "4", "--alphas", "1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["decisions"], r["half"]) for r in rows] == [
        ("gen1", None), ("gen1", "A"), ("gen1", "B"),
        ("gen2", None), ("gen2", "A"), ("gen2", "B"), ("all", None),
    ]  # fmt: skip
    for k in (0, 3):
        assert rows[k]["rows"] == rows[k + 1]["rows"] + rows[k + 2]["rows"]
    assert rows[6]["rows"] == rows[0]["rows"] + rows[3]["rows"]
    assert all(0 <= r["old_ones_win"] <= 1 for r in rows)
    assert script["main"]([str(out), "--fresh", "3", "--fresh-games", "4"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert fresh["games"] == 4 and fresh["ci95"][0] <= fresh["diff"] <= fresh["ci95"][1]


def test_skill_curve_pairs_each_difficulty_step_on_the_same_deals():
    """The level step (Hard minus Normal) is counted on the deals both levels played: a deal
    only one level played does not count, and a level no game reached makes no step; a
    folder of one budget tabulates (no doubling, no convergence row)."""
    table = runpy.run_path(str(ROOT / "experiments/skill_curve_table.py"))
    wins = {"normal": [1, 0, 0, 1, 1], "hard": [1, 1, 0, 1]}  # deal 4 at Normal only
    games = pl.DataFrame(
        [
            {"arm": "both", "budget": 8, "difficulty": d, "root_seed": 1, "chunk_id": 0,
             "game_index": i, "old_ones_win": bool(w)}
            for d, ws in wins.items()
            for i, w in enumerate(ws)
        ]
    )  # fmt: skip
    rows = table["level_steps"](games).to_dicts()
    assert len(rows) == 1 and rows[0]["step"] == "normal -> hard"
    assert rows[0]["games"] == 4 and rows[0]["diff"] == 0.25
    assert rows[0]["ci_low"] < 0.25 < rows[0]["ci_high"]
    text = table["markdown"](games, {"players": {}}, [])  # one budget: no doubling to show
    assert "| both | 8 | normal -> hard | +0.250 [" in text


def test_skill_curve_table_reads_one_folder_a_level_as_one_curve(tmp_path, capsys):
    """A run per level (Normal in one folder, Hard in another, the same deals) tabulates as
    one curve with the level step paired on those deals; a folder given twice is refused
    with a line naming the cell, as its games would pair with themselves."""
    curve = runpy.run_path(str(ROOT / "experiments/skill_curve_revenge.py"))
    table = runpy.run_path(str(ROOT / "experiments/skill_curve_table.py"))
    for level in ("normal", "hard"):
        assert curve["run"](
            tmp_path / level, plan={("both", 1): 2}, budgets=(1,), difficulties=(level,),
            rounds=1, log=lambda m: None,
        )  # fmt: skip
    games, _, notes = table["read"](tmp_path / "normal", tmp_path / "hard")
    assert notes == [] and sorted(games["difficulty"].unique()) == ["hard", "normal"]
    (row,) = table["level_steps"](games).to_dicts()
    assert (row["step"], row["games"]) == ("normal -> hard", 2)
    assert table["main"]([str(tmp_path / "normal"), str(tmp_path / "hard")]) == 0
    assert "| both | 1 | normal -> hard |" in capsys.readouterr().out
    with pytest.raises(table["NotACurve"], match=r"both at normal, R = 1 is also in .*normal"):
        table["read"](tmp_path / "normal", tmp_path / "normal")
    assert table["main"]([str(tmp_path / "hard"), str(tmp_path / "hard")]) == 2
    assert "is also in" in capsys.readouterr().err
    assert table["main"]([str(tmp_path / "nothing")]) == 2


@pytest.mark.parametrize(
    ("side", "sign"),
    [("oop", 1), ("human", -1)],
)
def test_learned_vs_search_rates_the_learned_player_in_elo_from_its_own_wins(side, sign):
    """The Elo field is the learned player's rating minus the search's: more Old One wins
    for the learned Old One player rate it above its search; more Old One wins against
    learned humans rate them below theirs. Batches combine to the one run's reading."""
    script = runpy.run_path(str(ROOT / "experiments/learned_vs_search.py"))
    # 1,000 deals, the Old Ones' wins learned minus search +1 on 100 and -1 on 50 (sums 50
    # and 150): they win 300 against the learned player, 250 against the search
    got = script["elo_fields"](side, 1000, 50, 150, 300)
    logit_gap = np.log(0.3 / 0.7) - np.log(0.25 / 0.75)
    assert got["elo"] == pytest.approx(sign * 400 / np.log(10) * logit_gap, abs=0.5)
    assert got["elo_ci_low"] < got["elo"] < got["elo_ci_high"]
    batch = {"side": side, "learned": "x", "search": "s", "against": "a", "difficulty": "hard"}
    batch |= {"players": 2, "cpu_s_learned": 1, "cpu_s_search": 1}
    a = {**batch, "games": 600, "first_game": 0, "sum_diff": 30, "sum_diff_sq": 90}
    b = {**batch, "games": 400, "first_game": 600, "sum_diff": 20, "sum_diff_sq": 60}
    a |= {"oop_win_learned": 0.3, "oop_win_search": 0.25}
    b |= {"oop_win_learned": 0.3, "oop_win_search": 0.25}
    both = script["combine"]([a, b])
    for key in ("elo", "elo_ci_low", "elo_ci_high"):
        assert both[key] == got[key], key

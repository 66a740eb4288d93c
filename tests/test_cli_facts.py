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

    argv = ["simulate", "--mode", "revenge", "--humans", "2", "--difficulty", "heroic"]
    argv += ["--oop", "blighter", "--strategies", f"{TUNED},balanced", "--games", "20"]
    argv += ["--out", str(out)]
    here = os.getcwd()
    os.chdir(ROOT)  # the file: path is relative to the checkout, as a user types it
    try:
        text = run(*argv, "--quiet").stdout
        obj = json.loads(run(*argv, "--json").stdout)
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


@pytest.mark.parametrize(
    "where, culprit",
    [(("--chunk", "99", "--game", "5"), "--chunk 99"), (("--game", "5000"), "--game 5000")],
)
def test_replay_refuses_a_game_the_lake_never_played(revenge_lake, where, culprit):
    """The lake holds chunk 0 with games 0..19: chunk 99 or game 5000 would be rebuilt from
    the seed, but it is no row of the lake (it used to be replayed without a word)."""
    import bad_inputs as bi

    out, _, _ = revenge_lake
    code, stdout, err = bi.run_in_process(["replay", "--lake", str(out), *where])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and culprit in lines[0], (code, err)
    assert "0..19" in lines[0] or "chunk 0" in lines[0], lines[0]
    code, stdout, err = bi.run_in_process(["replay", "--lake", str(out), "--game", "19"])
    assert code == 0 and "Traceback" not in err, err


def test_progress_counts_its_own_unit_and_never_shows_0_of_0():
    import io

    from simkit.runner.progress import Progress

    buf = io.StringIO()
    with Progress(True, "odds table", unit="odds rows", file=buf) as bar:
        assert "0/0" not in bar.count_text() and "starting" in bar.count_text()
        bar._bar.refresh()
        bar.add_total(300)
        bar.advance(120)
        assert bar.count_text() == "120/300 odds rows"
        assert bar.rate_text().endswith("odds rows/s")
    text = buf.getvalue()
    assert "0/0" not in text and "games" not in text, text
    assert "120/300 odds rows" in text


def test_combat_lake_progress_counts_fights():
    from simkit.modes import get_mode

    assert get_mode("combat").extra["row_unit"] == "fights"


SMALL_GRID = """
[experiment]
name = "tiny_grid"
mode = "combat"
root_seed = 5
chunk_size = 1000
games = 2000
outputs = ["summary"]

[params]
allocate = "cheapest"
withdraw = "never"

[grid]
force = ["infantry=1", "infantry=2"]
vs = ["zombie"]
"""


def test_experiment_run_games_is_its_own_experiment(tmp_path):
    """`experiment run --games N` plays N per cell; N enters the cell ids (so the
    experiment id), the manifest records the spec's own sizing, and the spec's full run
    refuses the resized lake (never pooled with it)."""
    import bad_inputs as bi

    spec = tmp_path / "tiny.toml"
    spec.write_text(SMALL_GRID)
    lake = tmp_path / "lake"
    full = json.loads(run("experiment", "check", str(spec), "--json").stdout)
    small = json.loads(
        run("experiment", "run", str(spec), "--games", "300", "--out", str(lake), "--json").stdout
    )
    assert small["games_written"] == 600
    assert [c["games"] for c in small["cells"]] == [300, 300]
    assert small["resized_from"] == {"games": 2000, "target_ci": None}
    assert small["experiment_id"] != full["experiment_id"]
    manifest = json.loads((lake / "manifest.json").read_text())
    rec = manifest["experiments"][small["experiment_id"]]
    assert rec["spec"]["resized_from"]["games"] == 2000 and rec["spec"]["games"] == 300
    from simkit.runner import load_spec

    assert not set(rec["cells"]) & {c.cell_id for c in load_spec(spec).cells}
    summary = json.loads(run("experiment", "summary", str(lake), "--json").stdout)
    assert summary["resized_from"]["games"] == 2000
    assert "resized" in run("experiment", "summary", str(lake)).stdout
    code, out, err = bi.run_in_process(["experiment", "run", str(spec), "--out", str(lake)])
    assert code == 2 and "resized with --games 300" in err, err
    # the same N as the spec's own games is no resize: the spec's own experiment
    same = json.loads(run("experiment", "check", str(spec), "--json").stdout)
    again = json.loads(
        run(
            "experiment",
            "run",
            str(spec),
            "--games",
            "2000",
            "--out",
            str(tmp_path / "b"),
            "--json",
            "--quiet",
        ).stdout
    )
    assert again["experiment_id"] == same["experiment_id"] and again["resized_from"] is None


def test_experiment_run_games_refuses_bad_values(tmp_path):
    import bad_inputs as bi

    spec = tmp_path / "tiny.toml"
    spec.write_text(SMALL_GRID)
    for extra, culprit in (
        (["--games", "0"], "--games"),
        (["--games", "5", "--target-ci", "0.01"], "--games or --target-ci"),
    ):
        code, out, err = bi.run_in_process(
            ["experiment", "run", str(spec), "--out", str(tmp_path / "x"), *extra]
        )
        assert code == 2 and culprit in err and len(err.strip().splitlines()) == 1, err


def test_outcome_names_are_explained_in_help():
    text = " ".join(RUNNER.invoke(app, ["combat", "--help"], terminal_width=200).stdout.split())
    for key in ("win_and_defeat", "defeat", "withdraw", "stalemate"):
        assert f"{key} (" in text, key
    assert "a defeat can leave units alive" in text


def test_outcome_words_match_the_web_calculator():
    """One wording: the CLI and report read simkit.names.OUTCOME_TEXT, the web app its own
    copy (simkit.serve.calc.OUTCOMES, to import it once serve/ is free to change)."""
    from simkit.kernels.low import combat_layout as C
    from simkit.names import OUTCOME_TEXT
    from simkit.serve.calc import OUTCOMES

    assert OUTCOME_TEXT == OUTCOMES
    assert set(OUTCOME_TEXT) == set(C.OUTCOME_NAMES)


def test_combat_lake_report_explains_outcomes(tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(SMALL_GRID)
    lake = tmp_path / "lake"
    run("experiment", "run", str(spec), "--games", "200", "--out", str(lake), "--quiet")
    run("report", str(lake), "--out", str(tmp_path / "r.html"))
    html = (tmp_path / "r.html").read_text()
    assert 'class="outcome-legend"' in html
    assert "a defeat can leave units alive" in html


def test_one_cell_report_labels_rows_by_words_not_the_cell_hash(revenge_lake, tmp_path):
    """A simulate lake (one cell): its VP and ending tables said `cell=<hash>`."""
    out, _, _ = revenge_lake
    manifest = json.loads((out / "manifest.json").read_text())
    (cell,) = next(iter(manifest["experiments"].values()))["cells"]
    run("report", str(out), "--out", str(tmp_path / "r.html"))
    html = (tmp_path / "r.html").read_text()
    import re

    ids = " ".join(re.findall(r'<details class="ids">.*?</details>', html, re.S))
    shown = re.sub(r'<details class="ids">.*?</details>', "", html, flags=re.S)
    assert cell not in shown and cell[:8] not in shown  # words in the page ...
    assert cell in ids  # ... the hash only in the section's identifiers line
    assert "all games" in html

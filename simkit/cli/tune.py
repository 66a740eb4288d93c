"""`simkit tune`: search a strategy's declared parameters with optuna (simkit.tune)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from simkit.cli import app, validate
from simkit.cli.common import DataOption, JsonOption, ReadingOption, SetOption, parse_sets
from simkit.cli.output import emit
from simkit.errors import UserError


# The help text is given here rather than taken from the docstring: typer keeps a docstring's
# line breaks, and the example is one command line.
@app.command(
    "tune",
    help="Tune a strategy on common-random-number games; write OUT/strategy.toml.\n\n"
    "Example: simkit tune --mode base --strategy balanced --opponents balanced --trials 40 "
    "--games-per-trial 400 --seed 1 --out results/tuned_balanced",
)
def tune(
    mode: Annotated[str, typer.Option("--mode", help="base, revenge or mythos-solo.")],
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="The strategy to tune (a human name, or in Revenge an Old One player name; "
            "overrides and file: specs too). Its defaults are the first trial.",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", help="Folder for the study (study.db, resumable) and strategy.toml."),
    ],
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponents",
            help="base: the other seats' strategies; "
            "revenge: the Old One player (tuning humans) or the humans (tuning the OOP).",
        ),
    ] = None,
    difficulty: Annotated[
        str | None,
        typer.Option(
            "--difficulty", help="revenge: normal, hard or heroic; mythos-solo: a solo.toml level."
        ),
    ] = None,
    humans: Annotated[int, typer.Option("--humans", help="revenge: human players.")] = 2,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            help="win (the tuned side wins) or margin (its VP minus the best other side's).",
        ),
    ] = "win",
    trials: Annotated[
        int, typer.Option("--trials", help="Trials in the study (a rerun adds what is missing).")
    ] = 40,
    games_per_trial: Annotated[
        int,
        typer.Option("--games-per-trial", help="Games per trial (the same games for every trial)."),
    ] = 400,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", help="Root seed: training, leader and held-out games are its chunks 0, 1, 2."
        ),
    ] = 0,
    sampler: Annotated[
        str,
        typer.Option(
            "--sampler", help="cmaes (around the defaults) or tpe (the whole space); optuna."
        ),
    ] = "cmaes",
    leaders: Annotated[
        int, typer.Option("--leaders", help="Best trials played again before choosing.")
    ] = 5,
    leader_games: Annotated[
        int, typer.Option("--leader-games", help="Games for each leader (0: 4 x games per trial).")
    ] = 0,
    holdout_games: Annotated[
        int,
        typer.Option(
            "--holdout-games",
            help="Held-out games for the tuned-vs-default comparison (0: 4 x games per trial).",
        ),
    ] = 0,
    content: Annotated[
        str, typer.Option("--content", help="Mythos cards in play: assumed or rules.")
    ] = "assumed",
    rules: Annotated[
        str, typer.Option("--rules", help="revenge: revenge or revenge-alt.")
    ] = "revenge",
    jobs: Annotated[
        int, typer.Option("--jobs", help="Worker processes (results do not depend on it).")
    ] = 1,
    data: DataOption = None,
    sets: SetOption = None,
    readings: ReadingOption = None,
    json_out: JsonOption = False,
) -> None:
    """Tune a strategy on common-random-number games; write OUT/strategy.toml (``--help``: the
    decorator's help text, with an example)."""
    from simkit.revenge.mythos import CONTENT_MODES
    from simkit.tune import TuneSpec, describe, parse_opponents, run_tune

    if content not in CONTENT_MODES:
        raise UserError(
            f"unknown --content '{content}' (expected one of: {', '.join(CONTENT_MODES)})"
        )
    validate.jobs(jobs)
    validate.seed("--seed", seed)
    validate.out_dir(out)
    visible = [p for p in out.iterdir() if not p.name.startswith(".")] if out.is_dir() else []
    if visible and not (out / "study.db").exists():  # (a killed run's .lock is no file of yours)
        raise UserError(
            f"--out {out} holds other files and no tuning study: use an empty or new folder"
        )
    spec = TuneSpec(
        mode=mode,
        strategy=strategy,
        opponents=parse_opponents(opponents),
        difficulty=difficulty,
        humans=humans,
        objective=objective,
        trials=trials,
        games_per_trial=games_per_trial,
        seed=seed,
        sampler=sampler,
        leaders=leaders,
        leader_games=leader_games,
        holdout_games=holdout_games,
        content=content,
        ruleset=rules,
        overrides=tuple(sorted(parse_sets(sets, readings).items())),
    )
    tty = sys.stderr.isatty() and not json_out

    def progress(done: int, total: int, value: float) -> None:
        if tty:
            print(f"\rtrial {done}/{total}: {value:.4f}", end="", file=sys.stderr, flush=True)

    record = run_tune(
        spec, out, jobs=jobs, data_path=str(data) if data else None, on_trial=progress
    )
    if tty:
        print(file=sys.stderr)
    if json_out:
        emit("tune", {**spec.record(), "out": out, "jobs": jobs, "data": data}, record)
        return
    for line in describe(record):
        typer.echo(line)
    typer.echo(
        f"wrote {out / 'strategy.toml'} (play it with "
        f"--{'oop' if spec.role == 'oop' else 'strategies'} file:{out / 'strategy.toml'})"
    )

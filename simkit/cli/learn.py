"""`simkit learn`: expert iteration for the human players or the Old One player
(simkit.learn)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from simkit.cli import app, validate
from simkit.cli.common import JsonOption
from simkit.cli.output import emit
from simkit.errors import UserError


@app.command(
    "learn",
    help="Distil the search player into a learned player the engine plays at heuristic "
    "speed; write OUT/genK.toml per generation (resumable). --side human (the default) "
    "learns the human seats (play the file with --strategies learned:PATH); --side oop the "
    "Old One player of Revenge against --humans (play it with --oop learned:PATH).\n\n"
    "Example: simkit learn --mode base --players 2 --generations 3 --games 60 --rollouts 4 "
    "--seed 1 --out results/learned_base\n\n"
    "Example: simkit learn --side oop --players 2 --difficulty normal --generations 2 "
    "--games 60 --rollouts 4 --out results/learned_oop",
)
def learn(
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the generations (a rerun resumes it).")
    ],
    mode: Annotated[
        str | None,
        typer.Option("--mode", help="base or revenge (default: base; revenge for --side oop)."),
    ] = None,
    side: Annotated[
        str,
        typer.Option("--side", help="The seat learned: human, or oop (the Old One player)."),
    ] = "human",
    humans: Annotated[
        str,
        typer.Option("--humans", help="--side oop: the strategy of every human seat."),
    ] = "balanced",
    players: Annotated[
        int, typer.Option("--players", help="base: seats; revenge: human players.")
    ] = 2,
    difficulty: Annotated[
        str | None, typer.Option("--difficulty", help="revenge: normal, hard or heroic.")
    ] = None,
    oop: Annotated[
        str,
        typer.Option("--oop", help="--side human, revenge: the Old One player the humans face."),
    ] = "rusher",
    generations: Annotated[
        int, typer.Option("--generations", help="Generations (a rerun may add more).")
    ] = 2,
    games: Annotated[
        int, typer.Option("--games", help="Search games recorded per generation.")
    ] = 40,
    rollouts: Annotated[
        int,
        typer.Option("--rollouts", help="The search's rollouts per legal box (or Old One action)."),
    ] = 4,
    rate_games: Annotated[
        int,
        typer.Option("--rate-games", help="Held-out games rating each generation (paired)."),
    ] = 400,
    seed: Annotated[int, typer.Option("--seed", help="Root seed of every game.")] = 1,
    fitter: Annotated[
        str,
        typer.Option(
            "--fitter",
            help="logistic (the search's chosen box) or advantage (ridge on the search's value "
            "of every legal box over their mean; stronger, docs/strong-play.md).",
        ),
    ] = "logistic",
    first_policy: Annotated[
        str,
        typer.Option(
            "--first-policy",
            help="The first generation's rollout policy (default: balanced; rusher for --side "
            "oop), e.g. the previous step's learned file.",
        ),
    ] = "",
    opponent_model: Annotated[
        str,
        typer.Option(
            "--opponent-model",
            help="revenge: how the recorded search rolls out the other side (default: its "
            "public default, rusher or balanced). Naming the player the learned side faces "
            "(--oop or --humans) makes it a best response to that player; 'faced': each "
            "game's player of --opponent-mixture (a best response to the mixture).",
        ),
    ] = "",
    opponent_mixture: Annotated[
        Path | None,
        typer.Option(
            "--opponent-mixture",
            help="revenge: a mixture file (format simkit-mixture/1: a player table per "
            "player, each a spec and a weight; metagame_revenge.py mixture writes one) "
            "replacing --oop / --humans: each "
            "recorded game draws the player faced by weight, and each generation is rated "
            "against every player, weighted.",
        ),
    ] = None,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            help="The recorded search's objective: win (win share, the VP margin breaking "
            "ties) or margin (the VP margin over the best rival; more signal where the "
            "learned side rarely wins, docs/strong-play.md).",
        ),
    ] = "win",
    rollout_policy: Annotated[
        str,
        typer.Option(
            "--rollout-policy",
            help="Which generation the next search rolls out with: last (the previous one) "
            "or best (the best so far that beats the first policy on the held-out games, "
            "interval apart; else the first policy).",
        ),
    ] = "last",
    roll_in: Annotated[
        float,
        typer.Option(
            "--roll-in",
            help="Share of the learned side's recorded decisions (0 to 1) at which the game "
            "goes on with the rollout policy's own pick, when it is a learned file, instead "
            "of the search's (DAgger's roll-in: states the learned player reaches, still "
            "labelled by the search).",
        ),
    ] = 0.0,
    ridge_alpha: Annotated[
        float,
        typer.Option(
            "--ridge-alpha",
            help="The advantage fitter's ridge penalty (default 1; about 10000 keeps the "
            "fit's play steady from sample to sample, docs/strong-play.md).",
        ),
    ] = 1.0,
    candidates: Annotated[
        int,
        typer.Option(
            "--candidates",
            help="Choose each generation's fit by play: fit this many weight sets on the "
            "same labels (the fit on every training row and bootstrap resamples of its "
            "games), play each on --select-games selection games (seeds neither recorded "
            "nor rated on) and keep the best (1: the one fit).",
        ),
    ] = 1,
    select_games: Annotated[
        int,
        typer.Option(
            "--select-games", help="Selection games a candidate plays against each opponent."
        ),
    ] = 1000,
    keep_incumbent: Annotated[
        bool,
        typer.Option(
            "--keep-incumbent",
            help="From generation 2 on, the previous generation's player is one more "
            "candidate (gating by play: a generation that plays worse is not kept); each "
            "generation then selects on its own selection games.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Expert iteration (``--help``: the decorator's help text)."""
    from simkit.learn import LearnSettings, read_mixture, run

    validate.seed("--seed", seed)
    validate.out_dir(out)
    if side not in ("human", "oop"):
        raise UserError(f"--side must be human or oop, got '{side}'")
    mode = mode or ("revenge" if side == "oop" else "base")
    if side == "oop" and mode != "revenge":
        raise UserError("--side oop learns the Old One player: it takes --mode revenge")
    if mode == "base" and not 2 <= players <= 4 or mode == "revenge" and not 1 <= players <= 4:
        raise UserError(f"--players {players}: base takes 2-4 seats, revenge 1-4 humans")
    if difficulty is not None and mode != "revenge":
        raise UserError("--difficulty is for --mode revenge")
    visible = [p for p in out.iterdir() if not p.name.startswith(".")] if out.is_dir() else []
    if visible and not (out / "learn.json").exists():
        raise UserError(f"--out {out} holds other files and no learn run: use a new folder")
    settings = LearnSettings(
        mode=mode,
        players=players,
        difficulty=difficulty,
        oop=oop,
        generations=generations,
        games=games,
        rollouts=rollouts,
        rate_games=rate_games,
        seed=seed,
        side=side,
        humans=humans,
        fitter=fitter,
        first_policy=first_policy.strip(),
        opponent_model=opponent_model.strip(),
        objective=objective.strip(),
        rollout_policy=rollout_policy.strip(),
        roll_in=roll_in,
        ridge_alpha=ridge_alpha,
        candidates=candidates,
        select_games=select_games,
        incumbent=keep_incumbent,
        mixture=read_mixture(opponent_mixture, side) if opponent_mixture else "",
    )
    settings.check()  # every setting and strategy named: one line now, not mid-run
    tty = sys.stderr.isatty() and not json_out
    if tty:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("search games", total=games * generations)
            done = sum(games for k in range(1, generations + 1) if (out / f"gen{k}.toml").exists())
            bar.update(task, completed=done)
            ratings = run(settings, out, progress=lambda n: bar.advance(task, n))
    else:
        ratings = run(settings, out)
    if json_out:
        emit("learn", {"settings": settings.__dict__, "out": out}, {"generations": ratings})
        return
    for r in ratings:
        parts = [
            f"gen{r['generation']}: Old Ones win {r['old_ones_win']:.3f} "
            f"over {r['games']:,} held-out games"
            + (
                f" against each of the mixture's {len(r['faces'])} players, weighted"
                if "faces" in r
                else ""
            )
        ]
        for a in r["against"]:
            parts.append(
                f"vs {a['name']} {a['old_ones_win']:.3f}: {a['diff']:+.3f} "
                f"[{a['ci_low']:+.3f}, {a['ci_high']:+.3f}]"
            )
        typer.echo("; ".join(parts))
    last = out / f"gen{len(ratings)}.toml"
    flag = "--oop" if side == "oop" else "--strategies"
    typer.echo(f"wrote {last} (play it with {flag} learned:{last})")

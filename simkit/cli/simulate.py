"""`simkit simulate` (whole games into a one-cell lake) and `simkit replay` (one game, turn by
turn).

`simulate` is `simkit experiment run` of a one-cell spec built from its flags: OUT gets the
experiment-run layout (hive-partitioned chunk files, manifest.json with the spec, seeds,
engine version, data hash and git commit, the lake lock), so `simkit report OUT`,
`simkit experiment summary OUT` and `simkit replay --lake OUT` work on it, and rerunning
the same command completes an interrupted run. Game g of chunk c is played from its
address (seed, c, g) (chunks of 1,000 games; simkit.game.streams), so the rows are
identical for any --jobs and `simkit replay --seed S --chunk C --game G` rebuilds any row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simkit import views
from simkit.cli import app, validate
from simkit.cli.common import DataOption, JsonOption, ReadingOption, SetOption, parse_sets
from simkit.cli.output import emit
from simkit.errors import UserError
from simkit.names import label
from simkit.runner.oneshot import one_cell_spec

SETTING_ORDER = ("players", "humans", "strategies", "strategy", "oop", "difficulty", "ruleset")
QUIET_DEFAULTS = {"unknown": "blank", "world": 0, "world_source": "none", "checked": False}


def settings_line(params: dict, overrides: dict | None = None) -> str:
    """What was played, as typed: players or humans, strategies (file: paths in full), the Old
    One player, difficulty, rules, content, and any --set/--reading (defaults that change
    nothing, such as unknown=blank, are left out)."""
    keys = [k for k in SETTING_ORDER if k in params] + [k for k in params if k not in SETTING_ORDER]
    parts = []
    for k in keys:
        v = params[k]
        if QUIET_DEFAULTS.get(k, object()) == v:
            continue
        if k == "shuffle_seats":
            parts.append("seats shuffled" if v else "seats in the order given")
            continue
        parts.append(f"{k}={v}")
    parts += [f"{k}={v}" for k, v in (overrides or {}).items()]
    return "settings: " + ", ".join(parts)


def rate_rows(frame, by: list[str], metric: str) -> list[dict]:
    from simkit import analysis

    return analysis.win_rates(frame, by=by, metric=metric).sort(by).to_dicts()


@app.command(
    "simulate",
    epilog="Example: simkit simulate --mode revenge --humans 3 "
    "--difficulty hard --games 2000 --out results/rv",
)
def simulate(
    out: Annotated[Path, typer.Option("--out", help="Folder for the Parquet files.")],
    mode: Annotated[
        str, typer.Option("--mode", help="base, solo, revenge or mythos-solo.")
    ] = "base",
    players: Annotated[
        int | None, typer.Option("--players", help="Human players, 1-4 (default 2; solo: 1).")
    ] = None,
    humans: Annotated[
        int | None, typer.Option("--humans", help="Revenge: human players, 1-4 (default 2).")
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", help="Revenge: revenge or revenge-alt.")
    ] = None,
    oop: Annotated[
        str | None,
        typer.Option(
            "--oop",
            help="Revenge: Old One player strategy (rusher, blighter, mythos, random, search).",
        ),
    ] = None,
    games: Annotated[int, typer.Option("--games", help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Root seed (seeds are data).")] = 0,
    strategies: Annotated[
        str, typer.Option("--strategies", help="NAME[,NAME...]: one for all seats or one per seat.")
    ] = "balanced",
    difficulty: Annotated[
        str | None,
        typer.Option(
            "--difficulty",
            help="Solo / mythos-solo difficulty (solo.toml); revenge: normal, hard, heroic.",
        ),
    ] = None,
    tables: Annotated[
        str, typer.Option("--tables", help="Tables to write: summary,seats,combats,moves.")
    ] = "summary,seats",
    jobs: Annotated[
        int, typer.Option("--jobs", help="Worker processes (results do not depend on it).")
    ] = 1,
    fixed_seats: Annotated[
        bool,
        typer.Option(
            "--fixed-seats", help="Seat strategies in the order given (no random first player)."
        ),
    ] = False,
    checked: Annotated[
        bool, typer.Option("--checked", help="Check invariants after every turn.")
    ] = False,
    content: Annotated[
        str,
        typer.Option(
            "--content", help="Mythos cards in play: assumed (all) or rules (public texts only)."
        ),
    ] = "assumed",
    unknown: Annotated[
        str,
        typer.Option(
            "--unknown", help="Printed cards of unknown text: blank (no effect) or prior."
        ),
    ] = "blank",
    world: Annotated[
        int, typer.Option("--world", help="With --unknown prior: which world's draw.")
    ] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    data: DataOption = None,
    sets: SetOption = None,
    readings: ReadingOption = None,
    json: JsonOption = False,
) -> None:
    """Play whole games with heuristic (or random) players into a one-cell lake (the
    `experiment run` layout), then print the win rates per strategy and per seat."""
    from simkit.game.modes import BASE, SOLO
    from simkit.game.tables import TABLES

    validate.check_simulate(out=out, games=games, seed_=seed, jobs_=jobs)
    if mode not in ("base", "solo", "revenge", "mythos-solo"):
        raise UserError(
            f"unknown --mode '{mode}' (expected one of: base, solo, revenge, mythos-solo)"
        )
    if mode != "revenge" and (humans is not None or rules is not None or oop is not None):
        raise UserError("--humans, --rules and --oop are for --mode revenge")
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    if seed < 0:
        raise UserError(f"--seed must be >= 0, got {seed}")
    wanted = tuple(t.strip() for t in tables.split(",") if t.strip())
    for t in wanted:
        if t not in TABLES:
            raise UserError(f"unknown table '{t}' in --tables (expected: {', '.join(TABLES)})")
    if "summary" not in wanted:
        wanted = ("summary",) + wanted
    if mode == "revenge":
        from simkit.revenge.modes import REVENGE

        if players is not None and humans is not None and players != humans:
            raise UserError("give --humans (or --players) once")
        n_h = humans if humans is not None else (players if players is not None else 2)
        params = REVENGE.validate(
            {
                "humans": n_h,
                "strategies": strategies,
                "difficulty": difficulty or "normal",
                "ruleset": rules or "revenge",
                "oop": oop or "rusher",
                "shuffle_seats": not fixed_seats,
                "checked": checked,
                "content": content,
                "unknown": unknown,
                "world": world,
            }
        )
    elif mode in ("solo", "mythos-solo"):
        if players not in (None, 1):
            raise UserError(f"{mode} mode has exactly 1 player, got --players {players}")
        raw = {
            "strategy": strategies,
            **({"difficulty": difficulty} if difficulty else {}),
            "checked": checked,
            "content": content,
            "unknown": unknown,
            "world": world,
        }
        if mode == "solo":
            params = SOLO.validate(raw)
        else:
            from simkit.revenge.modes import MYTHOS_SOLO

            params = MYTHOS_SOLO.validate(raw)
    else:
        if difficulty is not None:
            raise UserError("--difficulty is for --mode solo")
        params = BASE.validate(
            {
                "players": 2 if players is None else players,
                "strategies": strategies,
                "shuffle_seats": not fixed_seats,
                "checked": checked,
                "content": content,
                "unknown": unknown,
                "world": world,
            }
        )
    from simkit import analysis
    from simkit.runner import run_experiment

    if mode in ("solo", "mythos-solo") and "seats" in wanted:
        # the one seat's result is the summary's humans_win; the lake cannot hold a seats table
        # whose 'strategy' column repeats the solo mode's 'strategy' parameter
        wanted = tuple(t for t in wanted if t != "seats")
    overrides = parse_sets(sets, readings)
    spec = one_cell_spec(mode, params, seed, games, wanted, data, overrides)
    result = run_experiment(spec, out=out, jobs=jobs, quiet=quiet or json)
    lake = analysis.open_lake(out, spec.experiment_id)
    metric = lake.key_metric
    overall = rate_rows(lake.scan(), ["cell"], metric)[0]
    per_strategy, per_seat = [], []
    if "seats" in wanted:
        seats = analysis.seat_strategies(lake.scan("seats"))
        per_strategy = rate_rows(seats, ["strategy"], "win")
        per_seat = rate_rows(seats, ["seat"], "win")
    if json:
        emit(
            "simulate",
            {
                "out": out,
                "mode": mode,
                "params": params,
                "games": games,
                "seed": seed,
                "tables": list(wanted),
                "jobs": jobs,
                "data": data,
                "set": overrides,
            },
            {
                "lake": out,
                "experiment_id": spec.experiment_id,
                "games_written": result.games_written,
                "games_skipped": result.games_skipped,
                "seconds": result.seconds,
                "key_metric": metric,
                "overall": overall,
                "per_strategy": per_strategy,
                "per_seat": per_seat,
            },
        )
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    speed = (
        f"{result.games_per_second:,.0f} games/s"
        if result.games_written
        else "all chunks found done"
    )
    console.print(
        f"{games:,} games ({mode}) in lake {out}, experiment "
        f"{spec.experiment_id}, in {result.seconds:.1f} s ({speed})",
        markup=False,
    )
    console.print(settings_line(params, overrides), markup=False)
    console.print(
        f"{label(metric)}: "
        f"{views.interval(overall['rate'], overall['ci_low'], overall['ci_high'], 4)} "
        "(95% interval)"
    )
    for title, key, rows in (
        ("win rate per strategy (each seat)", "strategy", per_strategy),
        ("win rate per seat (player index in the game)", "seat", per_seat),
    ):
        if not rows:
            continue
        table = Table(title=title)
        for col in (key, "seats", "wins", "rate", "95% interval"):
            table.add_column(
                col, justify="left" if col == key else "right", overflow="fold", no_wrap=False
            )
        for r in rows:
            table.add_row(
                str(r[key]),
                f"{r['games']:,}",
                f"{r['wins']:,}",
                f"{r['rate']:.4f}",
                views.bounds(r["ci_low"], r["ci_high"], 4),
            )
        console.print(table)
    console.print(f"report: simkit report {out} --out {out / 'report.html'}", markup=False)


def _lake_game(
    lake: Path,
    experiment: str | None,
    cell: str | None,
    seed: int | None,
    allow_incomplete: bool = False,
    chunk: int | None = None,
    game: int | None = None,
):
    """(mode, root seed, parameters) of one cell of a lake, from its manifest (checked against
    its files like every reader: an incomplete or changed lake is refused unless asked)."""
    from simkit import analysis

    lk = analysis.open_lake(lake, experiment, allow_incomplete=allow_incomplete)
    mode = str(lk.record.get("mode"))
    if mode not in ("base", "solo", "revenge", "mythos-solo"):
        raise UserError(
            f"--lake {lake}: mode '{mode}' has no turn-by-turn "
            "replay (base, solo, revenge, mythos-solo)"
        )
    cells = lk.cells
    if cell is None:
        if len(cells) != 1:
            raise UserError(
                f"--lake {lake}: {len(cells)} cells; name one "
                f"with --cell (one of: {', '.join(sorted(cells))})"
            )
        cell = next(iter(cells))
    if cell not in cells:
        raise UserError(f"--cell {cell}: not in {lake} (cells: {', '.join(sorted(cells))})")
    root = int(lk.record.get("root_seed", 0))
    if seed is not None and seed != root:
        raise UserError(f"--seed {seed} differs from the lake's root seed {root}; drop --seed")
    if chunk is not None and game is not None:
        check_in_lake(lake, lk.record.get("chunks") or {}, cell, chunk, game)
    return mode, root, dict(cells[cell]["params"])


def check_in_lake(lake: Path, chunks: dict, cell: str, chunk: int, game: int) -> None:
    """Refuse a --chunk/--game the lake never played (the seed would rebuild a game, but
    not one of its rows): one line naming the flag and what the lake holds."""
    have = {
        int(k): int(entry.get("n_games", 0))
        for key, entry in chunks.items()
        for c, _, k in [key.rpartition(":")]
        if c == cell and k.isdigit()
    }
    if chunk not in have:
        span = f"chunks 0..{max(have)}" if have else "no chunks"
        if len(have) == 1:
            span = f"chunk {next(iter(have))} only"
        elif have and len(have) != max(have) + 1:
            span = f"{len(have)} chunk(s) between 0 and {max(have)}"
        raise UserError(f"--chunk {chunk}: not in the lake {lake} (this cell holds {span})")
    if not 0 <= game < have[chunk]:
        raise UserError(
            f"--game {game}: chunk {chunk} of the lake {lake} holds games 0..{have[chunk] - 1}"
        )


@app.command("replay", epilog="Example: simkit replay --lake results/rv --chunk 0 --game 5")
def replay(
    game: Annotated[int, typer.Option("--game", help="Game index within the chunk.")],
    seed: Annotated[
        int | None, typer.Option("--seed", help="Root seed of the run (default: the lake's).")
    ] = None,
    lake: Annotated[
        Path | None,
        typer.Option(
            "--lake",
            help="A lake from simulate or experiment run: seed, mode "
            "and parameters come from its manifest.",
        ),
    ] = None,
    experiment: Annotated[
        str | None,
        typer.Option(
            "--experiment", help="With --lake: the experiment id (when it holds several)."
        ),
    ] = None,
    cell: Annotated[
        str | None,
        typer.Option("--cell", help="With --lake: the cell id (when the experiment has several)."),
    ] = None,
    chunk: Annotated[int, typer.Option("--chunk", help="Chunk id (simulate: game // 1000).")] = 0,
    mode: Annotated[
        str, typer.Option("--mode", help="base, solo, revenge or mythos-solo.")
    ] = "base",
    players: Annotated[
        int | None, typer.Option("--players", help="Human players, 1-4 (default 2).")
    ] = None,
    humans: Annotated[
        int | None, typer.Option("--humans", help="Revenge: human players (as --players).")
    ] = None,
    strategies: Annotated[
        str, typer.Option("--strategies", help="As given to simulate.")
    ] = "balanced",
    difficulty: Annotated[
        str | None, typer.Option("--difficulty", help="As given to simulate.")
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", help="Revenge: revenge or revenge-alt.")
    ] = None,
    oop: Annotated[
        str | None, typer.Option("--oop", help="Revenge: Old One player strategy.")
    ] = None,
    fixed_seats: Annotated[
        bool, typer.Option("--fixed-seats", help="As given to simulate.")
    ] = False,
    content: Annotated[
        str, typer.Option("--content", help="As given to simulate: assumed or rules.")
    ] = "assumed",
    data: DataOption = None,
    allow_incomplete: Annotated[
        bool,
        typer.Option(
            "--allow-incomplete",
            help="With --lake: accept a lake whose run did not finish or whose files changed.",
        ),
    ] = False,
    json: JsonOption = False,
) -> None:
    """Rebuild one game from its seed and print a readable turn-by-turn log (Revenge: the
    Old One player's actions and Mythos cards too)."""
    from simkit.game.engine import Engine, make_spec
    from simkit.game.modes import rules_for
    from simkit.game.replay import replay_text

    if lake is not None:
        mode, seed, params = _lake_game(
            lake, experiment, cell, seed, allow_incomplete, chunk=chunk, game=game
        )
        players = params.get("players")
        humans = params.get("humans")
        strategies = params.get("strategies", params.get("strategy", strategies))
        difficulty = params.get("difficulty")
        rules = params.get("ruleset")
        oop = params.get("oop")
        fixed_seats = not params.get("shuffle_seats", True)
        content = params.get("content", "assumed")
    if seed is None:
        raise UserError("give --seed (or --lake to read it from a lake's manifest)")
    validate.check_replay(seed_=seed, game=game, chunk=chunk)
    if seed < 0 or game < 0 or chunk < 0:
        raise UserError("--seed, --game and --chunk must be >= 0")
    if mode not in ("base", "solo", "revenge", "mythos-solo"):
        raise UserError(
            f"unknown --mode '{mode}' (expected one of: base, solo, revenge, mythos-solo)"
        )
    if mode != "revenge" and (humans is not None or rules is not None or oop is not None):
        raise UserError("--humans, --rules and --oop are for --mode revenge")
    if players is not None and humans is not None and players != humans:
        raise UserError("give --humans (or --players) once")
    from simkit.datapack import load_pack

    pack = load_pack(data)
    eng = Engine(data=pack, rules=rules_for(pack), data_path=data)
    n = 1 if mode in ("solo", "mythos-solo") else (humans or players or 2)
    spec = make_spec(
        mode,
        n,
        strategies,
        difficulty=difficulty,
        shuffle_seats=not fixed_seats,
        rules=eng.rules,
        ruleset=rules or "revenge",
        oop=oop or "rusher",
        content=content,
    )
    text = replay_text(eng, spec, seed, game, chunk)
    if json:
        emit(
            "replay",
            {
                "lake": lake,
                "experiment": experiment,
                "cell": cell,
                "seed": seed,
                "chunk": chunk,
                "game": game,
                "mode": mode,
                "players": n,
                "strategies": strategies,
                "difficulty": difficulty,
                "rules": rules,
                "oop": oop,
                "fixed_seats": fixed_seats,
                "content": content,
                "data": data,
            },
            {"log": text.splitlines()},
        )
        return
    typer.echo(text, nl=False)

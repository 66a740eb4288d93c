"""`simkit compare`: two data packs or two --set lists on the same game seeds, and the paired
difference of the headline metrics with 95% intervals (common random numbers: game g of
chunk c is the same deal in both runs, so the difference of the two rows is the effect of
the change alone, plus whatever chance the change itself moves)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simkit import views
from simkit.cli import app
from simkit.cli.common import DataOption, JsonOption, ReadingOption, SetOption, parse_sets
from simkit.cli.output import emit
from simkit.errors import UserError
from simkit.runner.oneshot import compare_params, paired_run


@app.command(
    "compare",
    epilog="Example: simkit compare --mode revenge --oop mythos --games 4000 "
    "--set-b reading.servitor_placement=temple",
)
def compare(
    mode: Annotated[str, typer.Option("--mode", help="base, solo, revenge or mythos-solo.")] = (
        "revenge"
    ),
    humans: Annotated[int, typer.Option("--humans", help="Revenge: human players.")] = 2,
    players: Annotated[int, typer.Option("--players", help="Base: players.")] = 2,
    strategies: Annotated[str, typer.Option("--strategies", help="Human strategies.")] = (
        "balanced"
    ),
    oop: Annotated[str, typer.Option("--oop", help="Revenge: Old One player strategy.")] = (
        "rusher"
    ),
    difficulty: Annotated[
        str | None, typer.Option("--difficulty", help="Revenge: normal, hard or heroic.")
    ] = None,
    rules: Annotated[str, typer.Option("--rules", help="revenge or revenge-alt.")] = "revenge",
    content: Annotated[str, typer.Option("--content", help="assumed or rules.")] = "assumed",
    unknown: Annotated[str, typer.Option("--unknown", help="blank or prior.")] = "blank",
    games: Annotated[int, typer.Option("--games", help="Games per side.")] = 2000,
    seed: Annotated[int, typer.Option("--seed", help="Root seed of both runs.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.")] = 1,
    data: DataOption = None,
    data_b: Annotated[
        Path | None, typer.Option("--data-b", help="Side B's data pack (default: --data).")
    ] = None,
    sets: SetOption = None,
    readings: ReadingOption = None,
    sets_b: Annotated[
        list[str] | None,
        typer.Option("--set-b", help="PATH=VALUE for side B only (on top of --set)."),
    ] = None,
    readings_b: Annotated[
        list[str] | None,
        typer.Option("--reading-b", help="NAME=OPTION for side B only (on top of --reading)."),
    ] = None,
    json: JsonOption = False,
) -> None:
    """Play side A (--data, --set, --reading) and side B (the same plus --data-b, --set-b,
    --reading-b) on the same seeds; print B - A for each headline metric, paired."""
    if games < 2:
        raise UserError(f"--games must be at least 2, got {games}")
    if not 0 <= seed < 2**63:
        raise UserError(f"--seed must be 0..2**63-1, got {seed}")
    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    side_a = parse_sets(sets, readings)
    side_b = {**side_a, **parse_sets(sets_b, readings_b)}
    pack_b = data_b if data_b is not None else data
    if side_a == side_b and pack_b == data:
        raise UserError("compare: side B is side A (give --set-b, --reading-b or --data-b)")
    params = compare_params(
        mode, humans, players, strategies, oop, difficulty, rules, content, unknown
    )
    results = paired_run(mode, params, seed, games, (data, side_a), (pack_b, side_b), jobs=jobs)
    inputs = {
        "mode": mode,
        "params": params,
        "games": games,
        "seed": seed,
        "data": data,
        "data_b": pack_b,
        "set_a": side_a,
        "set_b": side_b,
    }
    if json:
        emit("compare", inputs, {"metrics": results})
        return
    from rich.console import Console
    from rich.table import Table

    def label(over: dict, pack) -> str:
        text = ", ".join(f"{k}={v}" for k, v in over.items()) or "the pack's values"
        return text + (f" (data {pack})" if pack is not None else "")

    console = Console(highlight=False)
    console.print(f"A: {label(side_a, data)}", markup=False)
    console.print(f"B: {label(side_b, pack_b)}", markup=False)
    console.print(
        f"{mode}, {', '.join(f'{k}={v}' for k, v in params.items())}; {games:,} games per "
        f"side on the same seeds (root seed {seed})",
        markup=False,
    )
    table = Table(title="B - A, paired over the same games (95% interval)")
    for col in ("metric", "A", "B", "B - A", "95% interval"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for r in results:
        table.add_row(
            r["metric"],
            f"{r['a']:.4f}",
            f"{r['b']:.4f}",
            f"{r['difference']:+.4f}",
            views.bounds(r["ci_low"], r["ci_high"], 4, signed=True),
        )
    console.print(table)

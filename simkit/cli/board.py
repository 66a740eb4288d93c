"""`simkit board show|check`: draw a map (optionally set up) and validate map files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from simkit.cli import app, validate
from simkit.cli.common import DataOption, JsonOption, data_pack
from simkit.cli.output import emit
from simkit.errors import UserError

board_app = typer.Typer(
    no_args_is_help=True,
    help="Maps: draw a board or a setup, validate map files.",
    epilog="Example: simkit board show --setup-seed 4 --players 3 --out board.png",
)
app.add_typer(board_app, name="board")


@board_app.command(
    "show", epilog="Example: simkit board show --setup-seed 4 --players 3 --out board.png"
)
def show(
    out: Annotated[Path, typer.Option("--out", help="PNG file to write.")],
    map_name: Annotated[
        str, typer.Option("--map", help="Map name in the pack's maps/ folder, or a .csv path.")
    ] = "eastern",
    setup_seed: Annotated[
        int | None, typer.Option("--setup-seed", help="Also survey the board with this seed.")
    ] = None,
    players: Annotated[int, typer.Option(help="Ports to place with the setup (0 = none).")] = 4,
    revenge: Annotated[
        bool, typer.Option(help="Revenge setup: Spawn tiles instead of Old One tiles.")
    ] = False,
    reveal: Annotated[
        bool, typer.Option(help="Print the Old One type on face-down tiles.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace --out even if simkit did not write it (or it changed)."
        ),
    ] = False,
    data: DataOption = None,
    json: JsonOption = False,
) -> None:
    """Draw the map (terrain, numbers, ports, survey hexes, level marks) and, with
    --setup-seed, the resources, Old One tiles and Ports of that setup."""
    from simkit.board import load_map, load_survey_tiles, setup_board
    from simkit.board.draw import render_png

    validate.check_board_show(
        out=out, players=players, setup_seed=setup_seed, revenge=revenge, reveal=reveal
    )
    if out.suffix.lower() != ".png":
        raise UserError(f"--out must be a .png file, got {out}")
    from simkit.core.owned import check_replace, write_owned

    check_replace(out, force)
    if players < 0:
        raise UserError(f"--players must be 0..4, got {players}")
    board = load_map(map_name, data)
    setup = None
    title = None
    if setup_seed is not None:
        if setup_seed < 0:
            raise UserError(f"--setup-seed must be >= 0, got {setup_seed}")
        rng = np.random.default_rng(setup_seed)
        setup = setup_board(
            board,
            load_survey_tiles(data=data),
            data_pack(data),
            rng,
            revenge=revenge,
            num_players=players,
        )
        title = (
            f"{board.name}: {'Revenge ' if revenge else ''}setup "
            f"seed {setup_seed}, {players} players (map {board.hash})"
        )
    write_owned(out, render_png(board, setup, title=title, reveal=reveal), force)
    if json:
        emit(
            "board show",
            {
                "out": out,
                "map": map_name,
                "setup_seed": setup_seed,
                "players": players,
                "revenge": revenge,
                "reveal": reveal,
                "data": data,
            },
            {
                "wrote": out,
                "map_name": board.name,
                "map_hash": board.hash,
                "hexes": board.num_hexes,
            },
        )
        return
    typer.echo(f"wrote {out}")


@board_app.command("check", epilog="Example: simkit board check eastern --json")
def check(
    file: Annotated[Path, typer.Argument(help="Map CSV file (or a map name of the pack).")],
    data: DataOption = None,
    json: JsonOption = False,
) -> None:
    """Validate a map file: columns, values, rules (ports, level marks, sheep), adjacency."""
    from simkit.board import load_map
    from simkit.board.mapfile import survey_count_warning

    board = load_map(file, data)
    warnings = [w for w in (survey_count_warning(board),) if w]
    summary = {
        "map": board.path,
        "name": board.name,
        "hash": board.hash,
        "hexes": board.num_hexes,
        "coastal": int(board.coastal_hexes.size),
        "port_symbols": int(board.port_hexes.size),
        "survey": int(board.survey_hexes.size),
        "level_marks": int((board.hex_level > 0).sum()),
        "provenance": board.provenance,
        "warnings": warnings,
    }
    if json:
        emit("board check", {"file": file, "data": data}, summary)
        return
    typer.echo(
        f"{board.path}: ok ({board.num_hexes} hexes, {summary['port_symbols']} port symbols, "
        f"{summary['survey']} survey hexes, "
        f"{summary['level_marks']} level marks; hash {board.hash})"
    )
    for w in warnings:
        typer.echo(f"warning: {w}")

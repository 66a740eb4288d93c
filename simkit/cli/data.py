"""`simkit data check|provenance`: validate a data pack and show how sure its values are."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simkit.cli import app, validate
from simkit.cli.common import JsonOption, print_json
from simkit.datapack import PROVENANCE_TAGS, load_pack, provenance_shares
from simkit.datapack.thumbs import rule_of_thumb_violations
from simkit.errors import UserError

data_app = typer.Typer(no_args_is_help=True, help="Validate data packs and report provenance.")
app.add_typer(data_app, name="data")

PackArg = Annotated[Path | None, typer.Argument(help="Pack folder (default: the shipped pack).")]


@data_app.command("check")
def check(pack: PackArg = None, data: Annotated[Path | None, typer.Option("--data")] = None,
          strict: Annotated[bool, typer.Option(help="Broken rules of thumb are errors.")] = False,
          json: JsonOption = False) -> None:
    """Validate a pack: structure, types, ranges, hard rules; warn on rules of thumb."""
    d = load_pack(validate.check_pack_args(pack, data))
    if (Path(d.path) / "game.toml").is_file():  # the full-game files of the pack too
        from simkit.game.config import load_rules
        load_rules(d.path)
    warnings = rule_of_thumb_violations(d)
    if json:
        print_json({"pack": d.path, "name": d.name, "hash": d.hash, "cards": int(d.card_ids.size),
                    "warnings": warnings, "ok": not (strict and warnings)})
    else:
        typer.echo(f"{d.path}: ok ({d.card_ids.size} cards, hash {d.hash})")
        for w in warnings:
            typer.echo(f"warning: rule of thumb: {w}")
    if strict and warnings:
        raise UserError(f"{len(warnings)} rule(s) of thumb broken (--strict)")


@data_app.command("provenance")
def provenance(pack: PackArg = None, data: Annotated[Path | None, typer.Option("--data")] = None,
               json: JsonOption = False) -> None:
    """Share of the pack's values per provenance tag (rules, external, inferred, assumed)."""
    d = load_pack(validate.check_pack_args(pack, data))
    shares = provenance_shares(d)
    if json:
        print_json({"pack": d.path, "hash": d.hash, "counts": {t: d.provenance.get(t, 0) for t in PROVENANCE_TAGS},
                    "shares": shares})
        return
    table = Table(title=f"provenance of {d.name} ({d.hash})")
    table.add_column("tag")
    table.add_column("values", justify="right")
    table.add_column("share", justify="right")
    for tag in PROVENANCE_TAGS:
        table.add_row(tag, str(d.provenance.get(tag, 0)), f"{shares[tag]:.1%}")
    Console().print(table)

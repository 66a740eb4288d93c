"""`simkit data check|provenance`: validate a data pack and show how sure its values are."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simkit.cli import app, validate
from simkit.cli.common import JsonOption
from simkit.cli.output import emit
from simkit.datapack import PROVENANCE_TAGS, load_pack, provenance_shares
from simkit.datapack.thumbs import rule_of_thumb_violations
from simkit.errors import UserError

data_app = typer.Typer(
    no_args_is_help=True,
    help="Validate data packs, report provenance, list the deck.",
    epilog="Example: simkit data deck --vs zombie",
)
app.add_typer(data_app, name="data")

PackArg = Annotated[Path | None, typer.Argument(help="Pack folder (default: the shipped pack).")]


@data_app.command("check", epilog="Example: simkit data check --strict")
def check(
    pack: PackArg = None,
    data: Annotated[Path | None, typer.Option("--data")] = None,
    strict: Annotated[bool, typer.Option(help="Broken rules of thumb are errors.")] = False,
    json: JsonOption = False,
) -> None:
    """Validate a pack: structure, types, ranges, hard rules; warn on rules of thumb."""
    d = load_pack(validate.check_pack_args(pack, data))
    if (Path(d.path) / "game.toml").is_file():  # the full-game files of the pack too
        from simkit.game.config import load_rules

        load_rules(d.path)
    warnings = rule_of_thumb_violations(d)
    if json:
        emit(
            "data check",
            {"pack": pack or data, "strict": strict},
            {
                "pack": d.path,
                "name": d.name,
                "hash": d.hash,
                "cards": int(d.card_ids.size),
                "warnings": warnings,
                "ok": not (strict and warnings),
            },
        )
    else:
        typer.echo(f"{d.path}: ok ({d.card_ids.size} cards, hash {d.hash})")
        for w in warnings:
            typer.echo(f"warning: rule of thumb: {w}")
    if strict and warnings:
        raise UserError(f"{len(warnings)} rule(s) of thumb broken (--strict)")


@data_app.command("provenance", epilog="Example: simkit data provenance --rank results/worlds")
def provenance(
    pack: PackArg = None,
    data: Annotated[Path | None, typer.Option("--data")] = None,
    rank: Annotated[
        Path | None,
        typer.Option(
            "--rank",
            help="A worlds lake (spec [worlds] with per_source): list the assumed values in "
            "the order a publisher should type them in (most of the band first).",
        ),
    ] = None,
    json: JsonOption = False,
) -> None:
    """Share of the pack's values per provenance tag (rules, external, inferred, assumed)."""
    if rank is not None:
        _rank(rank, json)
        return
    d = load_pack(validate.check_pack_args(pack, data))
    shares = provenance_shares(d)
    if json:
        emit(
            "data provenance",
            {"pack": pack or data},
            {
                "pack": d.path,
                "hash": d.hash,
                "counts": {t: d.provenance.get(t, 0) for t in PROVENANCE_TAGS},
                "shares": shares,
            },
        )
        return
    table = Table(title=f"provenance of {d.name} ({d.hash})")
    table.add_column("tag")
    table.add_column("values", justify="right")
    table.add_column("share", justify="right")
    for tag in PROVENANCE_TAGS:
        table.add_row(tag, str(d.provenance.get(tag, 0)), f"{shares[tag]:.1%}")
    Console().print(table)


@data_app.command(
    "deck",
    epilog="Example: simkit data deck --vs zombie   "
    "(then: simkit combat ... --seen 'zombie:I+AC/a1,17')",
)
def deck(
    pack: PackArg = None,
    data: Annotated[Path | None, typer.Option("--data")] = None,
    vs: Annotated[
        list[str] | None, typer.Option(help="Only these Old One types' faces (default: all).")
    ] = None,
    json: JsonOption = False,
) -> None:
    """The Old One deck: every card's number, movement (compass, rotation) and its face per
    Old One type (the units that score a hit, p purple cubes, s sanity lost, a damage to
    Airships). `--seen` accepts a number or OLDONE:FACE."""
    from simkit.combat.faces import UNIT_CODES, deck_rows
    from simkit.names import OLD_ONES, old_one_id

    d = load_pack(pack or data)
    kinds = [
        OLD_ONES[old_one_id(t)] for item in (vs or []) for t in item.split(",") if t.strip()
    ] or list(OLD_ONES)
    rows = deck_rows(d)
    if json:
        emit(
            "data deck",
            {"pack": pack or data, "vs": kinds},
            {
                "pack": d.path,
                "hash": d.hash,
                "cards": [
                    {
                        **r,
                        "faces": {k: r["faces"][k] for k in kinds},
                        "moves": {k: r["moves"][k] for k in kinds},
                    }
                    for r in rows
                ],
                "unit_codes": dict(
                    zip(
                        UNIT_CODES,
                        ("infantry", "armoured_car", "artillery", "armoured_train", "airship"),
                        strict=True,
                    )
                ),
            },
        )
        return
    table = Table(title=f"Old One deck of {d.name} ({d.hash}): faces per Old One (* = moves)")
    table.add_column("card", justify="right")
    table.add_column("move")
    for k in kinds:
        table.add_column(k, overflow="fold")
    for r in rows:
        table.add_row(
            str(r["card"]),
            f"{r['compass']}{r['rotation']}",
            *(r["faces"][k] + ("*" if r["moves"][k] else "") for k in kinds),
        )
    Console().print(table)
    Console().print(
        "faces: the units that score a hit (I infantry, AC armoured car, Ar artillery, T armoured "
        "train, Ai airship; - none), then p<N> purple "
        "cubes, s<N> sanity lost, a<N> damage to Airships"
    )


@data_app.command("readings", epilog="Example: simkit data readings --json")
def readings_cmd(
    pack: PackArg = None,
    data: Annotated[Path | None, typer.Option("--data")] = None,
    json: JsonOption = False,
) -> None:
    """The readings of open rule texts: the text quoted, the options, the default (pick one
    with --reading NAME=OPTION, a spec's [readings] table or --set reading.NAME=OPTION)."""
    from simkit.game.readings import load_readings

    root = validate.check_pack_args(pack, data)
    if root is not None and not Path(root).is_dir():
        raise UserError(f"{root}: not a folder (a data pack is a folder)")
    readings = load_readings(root)
    if json:
        emit(
            "data readings",
            {"pack": pack or data},
            {
                "readings": [
                    {
                        "name": r.name,
                        "text": r.text,
                        "source": r.source,
                        "options": list(r.options),
                        "help": r.help,
                        "default": r.default,
                    }
                    for r in readings.values()
                ]
            },
        )
        return
    console = Console(highlight=False)
    for r in readings.values():
        console.print(f"[bold]{r.name}[/bold]  default: {r.default}")
        console.print(f'  "{r.text}"', markup=False)
        console.print(f"  options: {', '.join(r.options)}", markup=False)
        console.print(f"  {r.help}", markup=False)


@data_app.command("overrides", epilog="Example: simkit data overrides")
def overrides_cmd(json: JsonOption = False) -> None:
    """The value paths --set PATH=VALUE (and a spec's [overrides]) may change."""
    from simkit.runner.overrides import OVERRIDE_PATTERNS
    from simkit.runner.worlds import SOURCES

    if json:
        emit("data overrides", {}, {"paths": list(OVERRIDE_PATTERNS), "world_sources": SOURCES})
        return
    for p in OVERRIDE_PATTERNS:
        typer.echo(p)
    typer.echo("\nworld sources ([worlds] sources = [...]):")
    for name, what in SOURCES.items():
        typer.echo(f"  {name}: {what}")


def _rank(lake_dir: Path, json: bool) -> None:
    """data provenance --rank: the world sources by their share of the headline's band."""
    import numpy as np

    from simkit import analysis
    from simkit.report.worlds import source_shares, world_rates
    from simkit.runner.worlds import SOURCES, source_fields

    if not (lake_dir / "manifest.json").is_file():
        raise UserError(f"--rank {lake_dir}: not a lake (no manifest.json)")
    lake = analysis.open_lake(lake_dir)
    sources = list(lake.record.get("spec", {}).get("world_sources", []))
    shares = source_shares(world_rates(lake), sources) if sources else []
    if not shares:
        raise UserError(
            f"--rank {lake_dir}: not a worlds run with per-source worlds ([worlds] per_source)"
        )
    mean = {s: float(np.nanmean([r["share"] for r in shares if r["source"] == s])) for s in sources}
    ranked = sorted(sources, key=lambda s: -mean[s] if np.isfinite(mean[s]) else 0.0)
    rows = [
        {"source": s, "share": mean[s], "what": SOURCES[s], "fields": source_fields(s)}
        for s in ranked
    ]
    if json:
        emit("data provenance", {"rank": lake_dir}, {"experiment": lake.experiment, "rank": rows})
        return
    typer.echo(
        f"{lake.experiment}: the assumed values by their share of the {lake.key_metric} band "
        "(mean over difficulties); type in the first ones first"
    )
    for i, r in enumerate(rows, 1):
        typer.echo(f"{i}. {r['source']} ({r['share']:.0%}): {r['what']}")
        typer.echo(f"   {', '.join(r['fields'])}")

"""`simkit athena turret` (odds of a convoy against an Automated Turret) and
`simkit athena check`."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup
from typer.exceptions import TyperException

from simkit.athena import (
    TurretFight,
    TurretOdds,
    load_athena_pack,
    parse_seen,
    parse_variants,
    parse_weapons,
    provenance_shares,
    turret_defense,
    turret_odds,
)
from simkit.athena.pack import PROVENANCE_TAGS
from simkit.cli import app, validate
from simkit.cli.common import JsonOption
from simkit.cli.output import emit
from simkit.errors import UserError


class _AthenaGroup(TyperGroup):
    """Turns the parser's usage errors (e.g. '--ammo two') into UserError: one line, exit 2.

    simkit.cli.main catches them by importing ``click``, which typer >= 0.29 no longer
    installs (it vendors it), so without this they would end in a traceback.
    """

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TyperException as exc:
            if not hasattr(exc, "format_message"):
                raise
            raise UserError(exc.format_message()) from None


athena_app = typer.Typer(
    cls=_AthenaGroup,
    help="Last Aurora: Project Athena - convoys against Automated Turrets.",
    epilog="Example: simkit athena turret --weapons cannon:3,energy_cannon:4 --ammo 2 --defense 2",
)
app.add_typer(athena_app, name="athena")


@athena_app.callback(invoke_without_command=True)
def _athena(ctx: typer.Context) -> None:
    if ctx.invoked_subcommand is None:  # help, exit 0 (click's no_args_is_help exits via an error)
        typer.echo(ctx.get_help())
        raise typer.Exit(0)


AthenaDataOption = Annotated[
    Path | None,
    typer.Option(
        "--data", help="Athena data pack folder (default: the shipped pack, simkit/data/athena)."
    ),
]


class Method(StrEnum):
    exact = "exact"
    mc = "mc"


class GrenadeUse(StrEnum):
    first = "first"
    last = "last"


class Order(StrEnum):
    best = "best"
    given = "given"


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def _render(odds: TurretOdds) -> None:
    console = Console()
    f = odds.fight
    table = Table(title=f"{odds.fight.describe()}  [{odds.method}; Detection {f.detection}]")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    ci = odds.ci95 or {}
    if ci:
        table.add_column("95% interval", justify="right")

    def row(label: str, value: float, key: str | None = None) -> None:
        cells = [escape(label), _fmt(value)]
        if ci:
            cells.append(f"{_fmt(ci[key][0])} .. {_fmt(ci[key][1])}" if key in ci else "")
        table.add_row(*cells)

    row("P(turret destroyed)", odds.p_destroy, "destroy")
    row(
        f"damage taken from the turret (Detection {f.detection})",
        odds.expected_damage_taken,
        "damage_taken",
    )
    labels = {
        "turret_attacks": "turret attacks",
        "rounds": "rounds",
        "shots": "shots fired",
        "weapons_damaged": "weapons damaged (jams)",
        "jams_ignored": "jams ignored (Cyborg)",
        "grenade_self_damage": "damage from the Grenade's jam",
        "ammo_left": "Ammo left",
        "charged_left": "Charged Batteries left",
        "half_left": "Half-Discharged left",
        "cards": "Outcome cards flipped",
    }
    for key, label in labels.items():
        if key == "jams_ignored" and not f.cyborg:
            continue
        if key == "grenade_self_damage" and not f.grenade:
            continue
        row(f"E[{label}]", odds.means[key], key)
    if odds.reward is not None:
        row(f"E[reward: {odds.reward[0]}]", odds.p_destroy * odds.reward[1])
    console.print(table)

    track = Table(title="turret damage by Detection level (rows of the track, 0 = bottom)")
    track.add_column("level", justify="right")
    track.add_column("damage per attack", justify="right")
    track.add_column("expected damage", justify="right")
    track.add_column("expected damage in round 1, 2, ...")
    for entry in odds.damage_by_detection():
        track.add_row(
            str(entry["level"]),
            str(entry["damage_per_attack"]),
            _fmt(entry["expected_damage"]),
            ", ".join(f"{x:.3f}" for x in entry["expected_damage_by_round"]),
        )
    console.print(track)

    for item, value in odds.values.items():
        parts = [
            f"P(destroy) {value['p_destroy']:+.4f}",
            f"damage taken {value['damage_taken']:+.4f}",
            f"weapons damaged {value['weapons_damaged']:+.4f}",
            f"Ammo left {value['ammo_left']:+.4f}",
            f"Charged left {value['charged_left']:+.4f}",
        ]
        if item == "grenade":
            parts.append(f"Grenade jam damage {value['grenade_self_damage']:+.4f}")
        console.print(f"value of the {item.capitalize()}: " + ", ".join(parts))
    order = ", ".join(
        f"{w['fires']}. {w['kind']}:{w['rating']}"
        for w in sorted(odds.weapons, key=lambda w: w["fires"])
    )
    tail = (
        f"games {odds.games:,}, seed {odds.seed}" if odds.games else f"{odds.states:,} exact states"
    )
    console.print(f"[dim]firing order: {order}; {tail}; data {odds.data_hash}[/dim]")


def _weapon_pairs(text: str) -> list[tuple[str, str]]:
    """--weapons as (kind, rating) pairs, as typed (already validated by parse_weapons)."""
    out = []
    for item in text.split(","):
        kind, _, rating = item.strip().partition(":")
        if kind:
            out.append((kind.strip(), rating.strip()))
    return out


@athena_app.command(
    "turret",
    epilog="Example: simkit athena turret --weapons "
    "cannon:3,energy_cannon:4 --ammo 2 --defense 2 --json",
)
def turret_cmd(
    weapons: Annotated[
        str, typer.Option(help="Undamaged weapons KIND:RATING, e.g. 'cannon:3,energy_cannon:4'.")
    ],
    ammo: Annotated[int, typer.Option(help="Ammo tokens in the convoy.")] = 0,
    charged: Annotated[int, typer.Option(help="Charged Battery tokens.")] = 0,
    half: Annotated[int, typer.Option(help="Half-Discharged Battery tokens.")] = 0,
    defense: Annotated[int | None, typer.Option(help="The turret's Defense value.")] = None,
    turret: Annotated[
        int | None,
        typer.Option(help="Turret token number from the data pack (gives Defense and reward)."),
    ] = None,
    detection: Annotated[
        int, typer.Option(help="Your Detection level (track row, 0 = bottom).")
    ] = 0,
    rounds: Annotated[
        int,
        typer.Option(
            help="Rounds inside the perimeter (0: until the turret falls or nothing can fire)."
        ),
    ] = 0,
    method: Annotated[
        Method, typer.Option(help="exact (every card order) or mc (Monte Carlo).")
    ] = Method.exact,
    games: Annotated[int, typer.Option(help="Monte Carlo fights.")] = 200_000,
    seed: Annotated[int, typer.Option(help="Monte Carlo root seed.")] = 0,
    jobs: Annotated[
        int, typer.Option(help="Monte Carlo worker processes (results do not depend on it).")
    ] = 1,
    cyborg: Annotated[
        bool, typer.Option("--cyborg", help="A Cyborg in the Active Zone: jams are ignored.")
    ] = False,
    grenade: Annotated[
        bool, typer.Option("--grenade", help="Hold a Grenade (2 damage to the turret).")
    ] = False,
    grenade_use: Annotated[
        GrenadeUse,
        typer.Option(help="Throw the Grenade before (first) or after (last) the weapons."),
    ] = GrenadeUse.first,
    order: Annotated[
        Order, typer.Option(help="Firing order: best (highest chance to destroy first) or given.")
    ] = Order.best,
    seen: Annotated[
        str | None, typer.Option(help="Outcome cards already in the discard pile, e.g. '3,17'.")
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(help="Override an interpretation, e.g. ambush_draws_card=false (repeatable)."),
    ] = None,
    data: AthenaDataOption = None,
    json: JsonOption = False,
) -> None:
    """Odds a convoy destroys a turret with its ammo, batteries and undamaged weapons."""
    validate.check_turret(method=method.value, games=games, seed_=seed, jobs_=jobs)
    pack = load_athena_pack(data)
    arms = parse_weapons(weapons, pack)
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    if jobs <= 0:
        raise UserError(f"--jobs must be positive, got {jobs}")
    if turret is not None:
        if defense is not None:
            raise UserError("give --defense or --turret, not both")
        defense = turret_defense(pack, turret)
    if defense is None:
        raise UserError("give the turret's --defense (or --turret N from the data pack)")
    fight = TurretFight(
        weapons=arms,
        defense=defense,
        ammo=ammo,
        charged=charged,
        half=half,
        detection=detection,
        rounds=rounds,
        cyborg=cyborg,
        grenade=grenade,
        grenade_use=grenade_use.value,
        order=order.value,
        turret=turret,
        seen=parse_seen(seen),
        variants=parse_variants(variant),
    )
    odds = turret_odds(fight, pack, method=method.value, games=games, seed=seed, jobs=jobs)
    if json:
        emit(
            "athena turret",
            {
                "weapons": [{"kind": k, "rating": r} for k, r in _weapon_pairs(weapons)],
                "ammo": ammo,
                "charged": charged,
                "half": half,
                "defense": defense,
                "turret": turret,
                "detection": detection,
                "rounds": rounds,
                "method": method.value,
                "games": games,
                "seed": seed,
                "jobs": jobs,
                "cyborg": cyborg,
                "grenade": grenade,
                "grenade_use": grenade_use.value,
                "order": order.value,
                "seen": list(parse_seen(seen)),
                "variant": list(variant or []),
                "data": data,
            },
            odds.to_json(),
        )
    else:
        _render(odds)


@athena_app.command("check", epilog="Example: simkit athena check --json")
def check_cmd(data: AthenaDataOption = None, json: JsonOption = False) -> None:
    """Validate an Athena data pack and show how sure its values are."""
    pack = load_athena_pack(data)
    shares = provenance_shares(pack)
    if json:
        emit(
            "athena check",
            {"data": data},
            {
                "pack": pack.path,
                "name": pack.name,
                "hash": pack.hash,
                "cards": pack.deck_size,
                "counts": {t: pack.provenance.get(t, 0) for t in PROVENANCE_TAGS},
                "shares": shares,
            },
        )
        return
    typer.echo(
        f"{pack.path}: ok ({pack.deck_size} Outcome cards, {pack.turret_number.size} turrets, "
        f"{pack.track_damage.size} Detection levels, hash {pack.hash})"
    )
    typer.echo(", ".join(f"{t} {shares[t]:.1%}" for t in PROVENANCE_TAGS))

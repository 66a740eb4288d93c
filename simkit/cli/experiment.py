"""`simkit experiment run | check | verify | summary`: experiment specs into the result lake."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simkit import views
from simkit.cli import app
from simkit.cli.common import JsonOption, ReadingOption, SetOption, parse_sets
from simkit.cli.output import emit
from simkit.errors import UserError

experiment_app = typer.Typer(
    no_args_is_help=True,
    help="Experiment specs (experiments/*.toml) -> a Parquet result lake.",
    epilog="Example: simkit experiment run experiments/revenge_difficulty.toml --jobs 2",
)
app.add_typer(experiment_app, name="experiment")

SpecArg = Annotated[
    Path, typer.Argument(help="Experiment spec (TOML), e.g. experiments/combat_odds_grid.toml.")
]
LakeArg = Annotated[Path, typer.Argument(help="Result lake folder (the run's --out).")]
AllowIncompleteOption = Annotated[
    bool,
    typer.Option(
        "--allow-incomplete",
        help="Read a lake whose run did not finish (or whose files differ from its manifest); "
        "the output says how much is missing.",
    ),
]


def varying_labels(spec) -> dict[str, str]:
    """cell id -> 'key=value, ...' over every parameter and override that differs between the
    spec's cells (the partition keys alone can leave two cells looking identical)."""
    values: dict[str, set[str]] = {}
    worlds = bool(getattr(spec, "world_sources", ()))  # a world is named by its index
    for c in spec.cells:
        for k, v in (c.params if worlds else {**c.params, **c.overrides}).items():
            values.setdefault(k, set()).add(repr(v))
    order = [k for k in spec.grid if k != "world_point"] + list(spec.override_grid) + list(values)
    keys = [k for k in dict.fromkeys(order) if len(values.get(k, ())) > 1]
    return {
        c.cell_id: ", ".join(f"{k}={({**c.params, **c.overrides}).get(k, '-')}" for k in keys)
        or c.cell_id
        for c in spec.cells
    }


class Backend(StrEnum):
    loky = "loky"
    dask = "dask"


@experiment_app.command(
    "run",
    epilog="Example: simkit experiment run "
    "experiments/revenge_difficulty.toml --out results/rd --jobs 2",
)
def run_cmd(
    spec_file: SpecArg,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Worker processes (Dask: LocalCluster workers).")
    ] = 1,
    backend: Annotated[
        Backend, typer.Option(help="loky (this machine) or dask (a cluster).")
    ] = Backend.loky,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Dask scheduler address (default: a LocalCluster on 127.0.0.1)."),
    ] = None,
    security: Annotated[
        str | None,
        typer.Option(
            help="With --scheduler: a YAML file of distributed Security options (tls_ca_file, "
            "tls_client_cert, tls_client_key, require_encryption) for your cluster."
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Lake folder (default: results/<spec name>).")
    ] = None,
    target_ci: Annotated[
        float | None,
        typer.Option(help="Add chunks per cell until the key metric's 95% half-width is this."),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            help="Play N games per cell instead of the spec's sizing (a quick look at a big "
            "spec). N enters the cells' ids: the resized run is an experiment of its own, "
            "never pooled with the spec's full run.",
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Add to a lake built by another spec, engine or data version.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    sets: SetOption = None,
    readings: ReadingOption = None,
    json: JsonOption = False,
) -> None:
    """Run an experiment spec (or complete an interrupted run of it). --set and --reading
    change data for every cell (they enter the cells' ids: a new lake cell, never pooled)."""
    from simkit.runner import RunFailed, load_spec, run_experiment

    if games is not None and games < 1:
        raise UserError(f"--games must be positive, got {games}")
    if games is not None and target_ci is not None:
        raise UserError("give --games or --target-ci, not both")
    spec = load_spec(spec_file, parse_sets(sets, readings), games=games)
    try:
        result = run_experiment(
            spec,
            out=out,
            jobs=jobs,
            backend=backend.value,
            scheduler=scheduler,
            force=force,
            target_ci=target_ci,
            quiet=quiet,
            security=security,
        )
    except KeyboardInterrupt as exc:
        # one line and exit code 130 (SIGTERM: 143; simkit.cli.main reports UserErrors; typer
        # alone would return 0 here)
        code = getattr(exc, "exit_code", 130)
        what = "terminated (SIGTERM)" if code == 143 else "interrupted"
        err = RunFailed(
            f"{what}: finished chunks are kept; rerun the same command to complete the rest"
        )
        err.exit_code = code
        raise err from None
    labels = varying_labels(spec)
    from simkit.analysis import LEVEL_ORDER

    def grid_position(cell) -> tuple:
        """The cell's place in the grid, difficulty levels in play order (not as listed)."""
        key = []
        for k, values in spec.grid.items():
            v = cell.params.get(k)
            key.append(
                LEVEL_ORDER.get(v, 9)
                if k == "difficulty"
                else values.index(v)
                if v in values
                else 0
            )
        return (*key, cell.index)

    position = {c.cell_id: grid_position(c) for c in spec.cells}
    result.cells.sort(key=lambda c: position.get(c.cell, ()))
    if json:
        emit(
            "experiment run",
            {
                "spec": spec_file,
                "jobs": jobs,
                "backend": backend.value,
                "scheduler": scheduler,
                "out": out,
                "target_ci": target_ci,
                "games": games,
                "force": force,
            },
            {
                "out": result.out,
                "experiment_id": result.experiment_id,
                "resized_from": spec.resized_from,
                "chunks_written": result.chunks_written,
                "chunks_skipped": result.chunks_skipped,
                "games_written": result.games_written,
                "games_skipped": result.games_skipped,
                "seconds": result.seconds,
                "cells": [
                    {
                        "cell": c.cell,
                        "label": labels.get(c.cell, c.label),
                        "games": c.games,
                        "key_sum": c.key_sum,
                        "rate": c.rate,
                        "half_width": c.half_width,
                        "stop": c.stop,
                    }
                    for c in result.cells
                ],
            },
        )
        return
    console = Console()
    if len(result.cells) <= 40:
        table = Table(title=f"{result.experiment_id}: key metric per cell")
        for col in ("parameters", "games", "rate", "95% half-width", "stopped by"):
            table.add_column(
                col,
                justify="right" if col in ("games", "rate", "95% half-width") else "left",
                overflow="fold",
            )
        for c in result.cells:
            table.add_row(
                labels.get(c.cell, c.label),
                f"{c.games:,}",
                f"{c.rate:.4f}",
                f"{c.half_width:.4f}",
                c.stop,
            )
        console.print(table)
    from simkit.modes import get_mode

    unit = get_mode(spec.mode).extra.get("row_unit", "games")
    if spec.resized_from:
        console.print(resized_note(spec.resized_from, spec.games), markup=False)
    console.print(
        f"{result.chunks_written} chunk(s) written ({result.games_written:,} {unit}, "
        f"{result.games_per_second:,.0f} {unit}/s), {result.chunks_skipped} found done; "
        f"lake: {result.out}"
    )


def resized_note(resized_from: dict, games: int | None) -> str:
    """One line saying a run was resized with --games (its own cells, never pooled)."""
    asked = (
        f"{resized_from['games']:,} games per cell"
        if resized_from.get("games")
        else f"a 95% half-width of {resized_from.get('target_ci')}"
    )
    return (
        f"resized: {games:,} games per cell with --games (the spec asks for {asked}); "
        "its cells are its own, never pooled with the spec's full run"
    )


@experiment_app.command(
    "check", epilog="Example: simkit experiment check experiments/revenge_difficulty.toml --json"
)
def check_cmd(spec_file: SpecArg, json: JsonOption = False) -> None:
    """Validate a spec (mode, parameters, strategies, overrides, sizes) without running it."""
    import math

    from simkit.runner import load_spec

    spec = load_spec(spec_file)
    chunks = math.ceil(spec.games / spec.chunk_size) if spec.games else None
    info = {
        "experiment_id": spec.experiment_id,
        "mode": spec.mode,
        "cells": len(spec.cells),
        "root_seed": spec.root_seed,
        "chunk_size": spec.chunk_size,
        "games_per_cell": spec.games,
        "target_ci": spec.target_ci,
        "chunks_per_cell": chunks,
        "outputs": list(spec.outputs),
        "partition_by": list(spec.partition_by),
        "data_hash": spec.data_hash,
    }
    if json:
        emit("experiment check", {"spec": spec_file}, info)
        return
    sizing = (
        f"{spec.games:,} games per cell in {chunks} chunk(s)"
        if spec.games
        else f"until the 95% half-width is {spec.target_ci} "
        f"(at most {spec.max_games:,} games per cell)"
    )
    typer.echo(
        f"{spec_file}: ok: experiment {spec.experiment_id}, mode '{spec.mode}', {len(spec.cells)} "
        f"cell(s), {sizing}, chunks of {spec.chunk_size:,}, root seed {spec.root_seed}"
    )


@experiment_app.command("verify", epilog="Example: simkit experiment verify results/rd --deep")
def verify_cmd(
    lake: LakeArg,
    deep: Annotated[
        bool, typer.Option(help="Read every page (checksums) and recount the key metric.")
    ] = False,
    json: JsonOption = False,
) -> None:
    """Check every file of a lake against its manifest; bad files are listed (exit 2)."""
    from simkit.lake import Manifest, Problem, coverage, scan

    manifest = Manifest.load(lake)
    if not manifest.exists():
        raise UserError(f"{lake}: not a simkit lake (no manifest.json)")
    index = scan(lake, manifest, deep=deep)
    for exp in sorted(manifest.experiments):
        cov = coverage(index, manifest, exp)
        for issue in cov.issues:
            index.problems.append(Problem(exp, "missing", issue))
    if json:
        emit(
            "experiment verify",
            {"lake": lake, "deep": deep},
            {
                "files": len(index.files),
                "problems": [vars(p) for p in index.problems],
                "temporaries": index.temporaries,
                "ok": not index.problems,
            },
        )
    else:
        for p in index.problems:
            typer.echo(f"{p.kind}: {p.relpath}: {p.detail}")
        typer.echo(
            f"{lake}: {len(index.files)} good file(s), {len(index.problems)} problem(s), "
            f"{len(index.temporaries)} leftover temporary file(s)"
        )
    if index.problems:  # a UserError, not typer.Exit: simkit.cli.main returns its exit code
        raise UserError(f"{lake}: {len(index.problems)} bad file(s), first: {index.problems[0]}")


@experiment_app.command("summary", epilog="Example: simkit experiment summary results/rd --json")
def summary_cmd(
    lake: LakeArg,
    experiment: Annotated[
        str | None, typer.Option(help="Experiment id (when the lake holds several).")
    ] = None,
    allow_incomplete: AllowIncompleteOption = False,
    json: JsonOption = False,
) -> None:
    """Key-metric rate per cell with Wilson 95% intervals."""
    from simkit import analysis

    lk = analysis.open_lake(lake, experiment, allow_incomplete=allow_incomplete)
    by = lk.grid_keys or ["cell"]
    df = analysis.play_order(analysis.win_rates(lk.scan(), by=by, metric=lk.key_metric), by)
    expected = cell_games_expected(lk, by)
    if json:
        rows = df.to_dicts()
        if expected is not None:
            for r in rows:
                r["games_expected"] = expected.get(tuple(r[k] for k in by))
        cov = lk.coverage
        emit(
            "experiment summary",
            {"lake": lake, "experiment": experiment, "allow_incomplete": allow_incomplete},
            {
                "experiment_id": lk.experiment,
                "key_metric": lk.key_metric,
                "keys": by,
                "complete": cov.complete,
                "games_present": cov.games_present,
                "games_expected": cov.games_expected,
                "games_missing": cov.games_missing,
                "resized_from": (lk.record.get("spec") or {}).get("resized_from"),
                "issues": cov.issues,
                "rows": rows,
            },
        )
        return
    note = lk.missing_note()
    resized = (lk.record.get("spec") or {}).get("resized_from")
    table = Table(title=f"{lk.experiment}: {lk.key_metric}" + (" (INCOMPLETE)" if note else ""))
    cols = by + ["games"] + (["of"] if note and expected is not None else []) + ["rate"]
    for col in cols + ["95% interval"]:
        table.add_column(col, justify="left" if col in by else "right")
    for row in df.iter_rows(named=True):
        of = []
        if note and expected is not None:
            want = expected.get(tuple(row[k] for k in by))
            of = [f"{want:,}" if want is not None else "?"]
        table.add_row(
            *[str(row[c]) for c in by],
            f"{row['games']:,}",
            *of,
            f"{row['rate']:.4f}",
            views.bounds(row["ci_low"], row["ci_high"], 4),
        )
    Console().print(table)
    if resized:
        typer.echo(resized_note(resized, (lk.record.get("spec") or {}).get("games")))
    if note:
        typer.echo(note)


def cell_games_expected(lk, by: list[str]) -> dict[tuple, int] | None:
    """Games each row of a summary should hold (by its key values), from the manifest; None when
    unknown (a precision target whose run did not finish)."""
    from simkit.lake import _planned_chunks

    if lk.coverage.games_expected is None:
        return None
    planned = _planned_chunks(lk.record)
    per_cell: dict[str, int] = {}
    for key, entry in (lk.record.get("chunks") or {}).items():
        cell, _, _k = key.rpartition(":")
        if cell in lk.cells:
            per_cell[cell] = per_cell.get(cell, 0) + int(entry.get("n_games", 0))
    if planned is not None:
        per_cell = {c: max(per_cell.get(c, 0), sum(planned.values())) for c in lk.cells}
    out: dict[tuple, int] = {}
    for cell, n in per_cell.items():
        rec = lk.cells[cell]
        values = {**rec["params"], **rec["overrides"], "cell": cell}
        k = tuple(values.get(c) for c in by)
        out[k] = out.get(k, 0) + n
    return out

"""`simkit report RESULTS --out report.html`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simkit.cli import app, validate
from simkit.cli.common import JsonOption
from simkit.cli.output import emit
from simkit.core.owned import check_replace, write_owned
from simkit.errors import UserError


@app.command(
    "report", epilog="Example: simkit report results/revenge --out results/revenge/report.html"
)
def report_cmd(
    source: Annotated[
        list[Path],
        typer.Argument(
            help="A results folder (or one odds table); several make one report (a skill "
            "curve run a level per folder, say).",
            show_default=False,
        ),
    ],
    out: Annotated[Path, typer.Option(help="HTML file to write.")] = Path("report.html"),
    title: Annotated[str | None, typer.Option(help="Report title.")] = None,
    allow_incomplete: Annotated[
        bool,
        typer.Option(
            "--allow-incomplete",
            help="Report a lake whose run did not finish (or whose files differ from its "
            "manifest); the banner says how much is missing.",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace --out even if simkit did not write it (or it changed)."
        ),
    ] = False,
    my_force: Annotated[
        list[str] | None,
        typer.Option(
            "--my-force",
            help="Your own force for the combat odds heatmaps, as `simkit combat --force` "
            "takes it: 'infantry=2,artillery=1,airship=1' (repeatable; rows marked with a "
            "star, computed like the table's rows).",
        ),
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option(help="The data pack the odds table was made from (for --my-force)."),
    ] = None,
    json: JsonOption = False,
) -> None:
    """A self-contained HTML report (figures embedded; opens offline; prints to PDF)."""
    from simkit.report import build_report

    validate.out_file(out, (".html", ".htm"))
    if out.suffix.lower() not in (".html", ".htm"):
        raise UserError(f"--out must be an .html file, got {out}")
    for src in source:
        if not src.exists():
            raise UserError(f"{src}: no such results folder or odds table")
    check_replace(out, force)  # before any work: never over a file simkit did not write
    report = build_report(
        source, title, allow_incomplete, forces=my_force, data_path=str(data) if data else None
    )
    write_owned(out, report.html.encode(), force)
    if json:
        emit(
            "report",
            {
                "source": source[0] if len(source) == 1 else source,
                "out": out,
                "title": title,
                "allow_incomplete": allow_incomplete,
                "force": force,
                "my_force": my_force or [],
                "data": data,
            },
            {
                "wrote": out,
                "bytes": len(report.html.encode()),
                "sections": report.sections,
                "incomplete": report.missing,
            },
        )
        return
    for note in report.missing:
        typer.echo(f"warning: {note}", err=True)
    typer.echo(f"wrote {out} ({', '.join(report.sections)})")

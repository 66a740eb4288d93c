"""Look-ahead against the heuristics: does the search player beat the strategy it rolls out?

For a lake with a seats table whose ``strategies`` grid puts a ``search`` player in the
first listed seat of some cells: the first listed seat's win rate in every cell (Wilson
95%), and each cell minus the first cell of the grid, paired by game on shared seeds
(simkit.analysis.paired_difference; chance in named streams makes the cards and tiles
the same in both cells).
"""

from __future__ import annotations

import polars as pl

from simkit import analysis
from simkit.report.html import esc, table_html
from simkit.views import interval


def _first(spec: object) -> str:
    return str(spec).split(",")[0].strip()


def applies(lake: analysis.Lake) -> bool:
    if "strategies" not in lake.grid_keys or "seats" not in lake.record.get("outputs", []):
        return False
    values = lake.record.get("spec", {}).get("grid", {}).get("strategies", [])
    return isinstance(values, list) and any(_first(v).startswith("search") for v in values)


def _short(spec: str) -> str:
    out = []
    for part in str(spec).split(","):
        part = part.strip()
        if part.startswith("file:"):
            part = "tuned:" + part.rsplit("/", 1)[-1].removesuffix(".toml")
        elif part.startswith("search"):
            part = (
                "search("
                + ", ".join(
                    kv.rsplit("/", 1)[-1].removesuffix(".toml") for kv in part.split(":")[1:]
                )
                + ")"
            )
        out.append(part)
    return " vs ".join(out)


def section(lake: analysis.Lake, sid: str) -> str:
    seats = lake.scan("seats").filter(pl.col("listed") == 0)
    values = lake.record["spec"]["grid"]["strategies"]
    rates = analysis.win_rates(seats, by=["strategies"], metric="win").to_dicts()
    diffs = {
        r["strategies"]: r
        for r in analysis.paired_difference(
            seats, {"strategies": values[0]}, metric="win", by=["strategies"]
        ).to_dicts()
    }
    rows = []
    for r in sorted(rates, key=lambda r: values.index(r["strategies"])):
        d = diffs.get(r["strategies"])
        rows.append(
            [
                _short(r["strategies"]),
                str(r["games"]),
                interval(r["rate"], r["ci_low"], r["ci_high"]),
                "baseline"
                if d is None
                else interval(d["diff"], d["ci_low"], d["ci_high"], signed=True),
            ]
        )
    table = table_html(
        ["first seat vs the rest", "games", "first seat's win rate (95%)", "paired vs baseline"],
        rows,
        f"table-{sid}-lookahead",
        text_columns=(0,),
    )
    return (
        f'<section id="{sid}-lookahead"><h2>Look-ahead against the heuristics '
        f"({esc(lake.name)})</h2><p>The first listed seat's win rate (it must outscore every "
        f"other player and the Old Ones). <i>search(...)</i>: determinized Monte Carlo "
        f"look-ahead with its rollout budget and policy; <i>tuned:</i> a strategy tuned by "
        f"<code>simkit tune</code>. The last column is each cell minus the first cell on the "
        f"same games (shared seeds), with a paired 95% interval.</p>{table}</section>"
    )

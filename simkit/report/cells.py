"""How a game lake's cells are named and counted in the report: the row labels (grid keys in
plain words, a one-cell lake as "all games") and the win rates per cell.
"""

from __future__ import annotations

import polars as pl

from simkit import analysis
from simkit.names import label, value_label
from simkit.report.order import natural_sort
from simkit.views import interval, mean_interval

ONE_CELL = "which games"  # the row label column of a one-cell lake (no grid key varies)


def one_cell(frame, keys: list[str]):
    """A one-cell lake labelled "all games" instead of by its cell hash."""
    return frame.with_columns(pl.lit("all games").alias(ONE_CELL)) if keys == [ONE_CELL] else frame


def cell_label(row: dict, keys: list[str]) -> str:
    """'difficulty: hard, Old One player: rusher' (keys in plain words, simkit.names.label)."""
    if keys == [ONE_CELL]:
        return "all games"
    return ", ".join(f"{label(k)}: {shown_value(k, row[k])}" for k in keys) or "all games"


def pm(mean: float, half: float | None, digits: int = 2) -> str:
    """A mean with its 95% interval from the half-width: '12.34 [12.13, 12.55]'."""
    return mean_interval(mean, half, digits)


def with_interval(rate: float, low: float, high: float, digits: int = 3) -> str:
    return interval(rate, low, high, digits)


def grid_orders(lake: analysis.Lake) -> dict[str, list]:
    """Each grid key's values in the order the spec lists them (combat forces as written)."""
    grid = lake.record.get("spec", {}).get("grid", {}) or {}
    out = {}
    for k, values in grid.items():
        if isinstance(values, list):
            canon = [str(v).strip().lower() for v in values]
            out[k] = [*values, *canon]
    return out


ROW_KEYS = (
    "content",
)  # summary columns that label rows when they vary (e.g. rules vs assumed content)


def lake_keys(lake: analysis.Lake) -> list[str]:
    """The grid keys, plus any summary column of ROW_KEYS whose value varies between rows."""
    keys = list(lake.grid_keys)
    try:
        names = lake.scan().collect_schema().names()
    except analysis.LakeError:
        return keys
    for col in ROW_KEYS:
        if col in names and col not in keys:
            if lake.scan().select(pl.col(col).n_unique()).collect().item() > 1:
                keys.append(col)
    return keys


def rates_by_cell(lake: analysis.Lake, keys: list[str] | None = None) -> pl.DataFrame:
    keys = keys if keys is not None else (lake_keys(lake) or [ONE_CELL])
    scan = one_cell(lake.scan(), keys)
    return natural_sort(analysis.win_rates(scan, by=keys, metric=lake.key_metric), keys)


def shown_value(key: str, value: object) -> str:
    """A grid value in a table cell: forces as '3 Infantry + 1 Artillery', Old Ones by name."""
    if key == "force":
        from simkit.report.combat import force_text

        return force_text(str(value))
    return value_label(key, value)

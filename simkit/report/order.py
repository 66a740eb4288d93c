"""Row order shared by the report sections (games, board): grid keys, difficulty levels in
play order rather than alphabetically."""

from __future__ import annotations

import polars as pl

LEVEL_ORDER = {"easy": 0, "normal": 1, "hard": 2, "heroic": 3}  # difficulty levels, easiest first


def natural_sort(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Sort by the grid keys, difficulty levels in play order rather than alphabetically."""
    rows = df.to_dicts()
    rows.sort(key=lambda r: tuple(LEVEL_ORDER.get(r[k], 9) if k == "difficulty" else r[k] for k in keys))
    return pl.DataFrame(rows, schema=df.schema) if rows else df

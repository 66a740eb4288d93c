"""Row order and interval helpers shared by the report sections (games, board): grid keys,
difficulty levels in play order rather than alphabetically."""

from __future__ import annotations

import numpy as np
import polars as pl

from simkit import analysis

LEVEL_ORDER = analysis.LEVEL_ORDER  # difficulty levels, easiest first


def natural_sort(df: pl.DataFrame, keys: list[str], orders: dict | None = None) -> pl.DataFrame:
    """Sort by the grid keys, difficulty levels in play order rather than alphabetically."""
    return analysis.play_order(df, keys, orders)


def error_bars(rate, low, high) -> np.ndarray:
    """(2, n) distances from each rate to its interval ends, never negative (a Wilson
    interval at a rate of 0 or 1 can sit a rounding error inside it)."""
    rate, low, high = (np.asarray(a, dtype=float) for a in (rate, low, high))
    return np.clip(np.vstack([rate - low, high - rate]), 0.0, None)

"""How results are written for people: the one interval notation of the report, the CLI
summaries and the notebooks, and the one-line force labels with their Gold cost.

Every pair of bounds is shown as ``0.570 [0.530, 0.610]``: the estimate, then its 95%
interval in square brackets (Wilson for rates, paired bootstrap/normal for differences,
the normal interval of a mean). Ranges over worlds or quantiles use the same brackets, and
their column says what the bounds are.

    >>> interval(0.57, 0.53, 0.61)
    '0.570 [0.530, 0.610]'
    >>> interval(0.05, -0.01, 0.11, signed=True)
    '+0.050 [-0.010, +0.110]'
    >>> mean_interval(12.3, 0.25)
    '12.30 [12.05, 12.55]'
"""

from __future__ import annotations

import math
import re

from simkit.names import UNIT_TEXT, UNITS

INTERVAL_NOTE = "value [low, high]: the 95% interval"
# what a generated text may use for a pair of bounds: '[a, b]' only (tests scan for the rest)
OTHER_INTERVAL_FORMS = re.compile(
    r"(?<![\w.])[+-]?\d+(?:\.\d+)?\s*(?:-|–|\.\.|to)\s*[+-]?\d+\.\d+(?![\w.])"
    r"|±|\(\s*[+-]?\d+\.\d+\s*[-,]\s*[+-]?\d+\.\d+\s*\)"
)


def _num(x: float, digits: int, signed: bool) -> str:
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def bounds(low: float, high: float, digits: int = 3, signed: bool = False) -> str:
    """'[0.530, 0.610]'."""
    return f"[{_num(low, digits, signed)}, {_num(high, digits, signed)}]"


def interval(p: float, low: float, high: float, digits: int = 3, signed: bool = False) -> str:
    """'0.570 [0.530, 0.610]': an estimate and its 95% interval."""
    return f"{_num(p, digits, signed)} {bounds(low, high, digits, signed)}"


def mean_interval(mean: float, half: float | None, digits: int = 2) -> str:
    """A mean and its 95% interval from the half-width (the mean alone without one)."""
    if half is None or not math.isfinite(half):
        return f"{mean:.{digits}f}"
    return interval(mean, mean - half, mean + half, digits)


def force_label(counts, short: bool = False) -> str:
    """'2 Infantry + 1 Artillery' from counts per unit type in UNITS order (a mapping of unit
    name -> count also works)."""
    if isinstance(counts, dict):
        counts = [counts.get(u, 0) for u in UNITS]
    parts = [f"{int(n)} {UNIT_TEXT[u]}" for u, n in zip(UNITS, counts, strict=False) if n]
    return " + ".join(parts) or "no units"


def gold_cost(counts, unit_cost) -> float:
    """The Gold a force costs: count x the data pack's unit cost, summed."""
    return float(sum(int(n) * float(c) for n, c in zip(counts, unit_cost, strict=False)))

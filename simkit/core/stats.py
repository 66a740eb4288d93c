"""Interval estimates used wherever a rate is reported."""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval for a binomial proportion; works on scalars or arrays."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        hi = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    if np.ndim(lo) == 0:
        return float(lo), float(hi)
    return lo, hi


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation interval for a mean from its sum and sum of squares."""
    if n == 0:
        return 0.0, 0.0
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = z * np.sqrt(var / n)
    return float(mean - half), float(mean + half)

"""Interval estimates used wherever a rate is reported."""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054
ELO_POINTS = 400.0 / float(np.log(10.0))  # a log-odds of 1 in Elo points (400 = 10 to 1)


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


def paired_elo_difference(
    both: int, first_only: int, second_only: int, neither: int, resamples: int = 4000, seed: int = 0
) -> tuple[float, float, float]:
    """Elo points of player 1 minus player 2 from paired games against the same opponent:
    the counts of deals both won, only 1 won, only 2 won, neither won. The point is
    ELO_POINTS x (logit p1 - logit p2), what a Bradley-Terry fit of these games rates the
    two (the opponent's rating cancels), each rate with half a win and half a loss added
    (Haldane's correction: a clean sweep rates high, not infinite; a rate moves by less than
    1/n). The interval is the percentile bootstrap 95% over the deals, resampled as pairs
    (the pairing narrows it as in a paired difference). Returns (point, low, high)."""
    counts = np.array([both, first_only, second_only, neither], dtype=np.int64)
    n = int(counts.sum())
    if n == 0 or (counts < 0).any():
        raise ValueError(f"paired_elo_difference: counts {counts.tolist()} (need >= 0, some > 0)")

    def elo(c: np.ndarray) -> np.ndarray:
        w1, w2 = c[..., 0] + c[..., 1] + 0.5, c[..., 0] + c[..., 2] + 0.5
        return ELO_POINTS * (np.log(w1 / (n + 1 - w1)) - np.log(w2 / (n + 1 - w2)))

    boots = elo(np.random.default_rng(seed).multinomial(n, counts / n, size=resamples))
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return float(elo(counts)), float(lo), float(hi)

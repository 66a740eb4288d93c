"""The empirical meta-game between two sides' players, and its equilibrium.

Revenge is zero-sum in who wins: the Old One player (OOP) wins or the humans do. Play every
human player of a population against every OOP of another and ``a[i, j]`` is the OOP's win
rate when human player ``i`` meets OOP player ``j``. The matrix game's equilibrium (each
side's best *mixture* over its players, Nash/minimax) is what empirical game-theoretic
analysis and PSRO's meta-solver take as play within a population: at it neither side gains
by switching to any single player of the population, so its value is "strong, equal play"
restricted to the players there are. Outside the population a stronger player may still
gain; the value is only as strong as the population.

The value of an estimated matrix is a min-max over noisy entries, so its interval comes from
a bootstrap over the games. Every cell of the matrix plays the same deals (game ``k`` is the
same deal in every cell), so the games are resampled together, keeping that pairing: the
same resample serves two difficulties' values and their difference.

    >>> rps = np.array([[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [1.0, 0.0, 0.5]])
    >>> eq = solve(rps)
    >>> round(eq.value, 6), np.round(eq.humans, 6).tolist()
    (0.5, [0.333333, 0.333333, 0.333333])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.errors import UserError


@dataclass(frozen=True)
class Equilibrium:
    """The minimax value (the OOP's win rate) and each side's equilibrium mixture."""

    value: float
    humans: np.ndarray  # weights over rows: the humans minimise the OOP's win rate
    oop: np.ndarray  # weights over columns: the OOP maximises it


def _mixture(payoff: np.ndarray) -> tuple[float, np.ndarray]:
    """The column player's maximin mixture of ``payoff`` (rows minimise, columns maximise):
    maximise w subject to payoff @ q >= w for every row, q a probability vector."""
    from scipy.optimize import linprog

    rows, cols = payoff.shape
    c = np.zeros(cols + 1)
    c[-1] = -1.0  # maximise w
    a_ub = np.hstack([-payoff, np.ones((rows, 1))])  # w - payoff @ q <= 0
    a_eq = np.concatenate([np.ones(cols), [0.0]])[None, :]
    bounds = [(0.0, None)] * cols + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(rows), A_eq=a_eq, b_eq=[1.0], bounds=bounds)
    if res.status != 0:  # a finite matrix game always has a solution: this is a bug
        raise RuntimeError(f"metagame: the linear program failed ({res.message})")
    q = np.clip(res.x[:cols], 0.0, None)
    return float(res.x[-1]), q / q.sum()


def solve(a) -> Equilibrium:
    """The equilibrium of the zero-sum matrix game ``a`` (the OOP's win rate, humans by rows,
    OOP by columns): the OOP's maximin mixture, the humans' minimax one, and the value."""
    a = np.asarray(a, dtype=float)
    if a.ndim != 2 or 0 in a.shape or not np.isfinite(a).all():
        raise UserError(f"metagame: need a finite, non-empty matrix, got shape {a.shape}")
    value, oop = _mixture(a)
    neg_value, humans = _mixture(-a.T)  # the humans maximise the OOP's loss
    # the minimax theorem: both programs find the same value (up to the solver's tolerance)
    assert abs(value + neg_value) < 1e-6, (value, -neg_value)
    return Equilibrium(value=value, humans=humans, oop=oop)


def wins_by_pair(frame, metric: str = "old_ones_win") -> tuple[list[str], list[str], np.ndarray]:
    """(human specs, OOP specs, wins[i, j, k]) from a frame of games with ``strategies``,
    ``oop``, the deal keys (root_seed, chunk_id, game_index) and ``metric`` (the OOP's 0/1
    win): game k is the k-th deal in key order. Every pair must play the same deals."""
    import polars as pl

    from simkit.analysis import PAIR_KEYS

    df = frame.select("strategies", "oop", *PAIR_KEYS, metric).sort("strategies", "oop", *PAIR_KEYS)
    hum = sorted(df["strategies"].unique().to_list())
    oop = sorted(df["oop"].unique().to_list())
    deals = df.filter((pl.col("strategies") == hum[0]) & (pl.col("oop") == oop[0])).select(
        PAIR_KEYS
    )
    wins = np.empty((len(hum), len(oop), deals.height))
    seen = 0
    for (s, o), part in df.group_by("strategies", "oop", maintain_order=True):
        if not part.select(PAIR_KEYS).equals(deals):
            raise UserError(f"metagame: {s} against {o} did not play the same deals as the others")
        wins[hum.index(s), oop.index(o)] = part[metric].cast(pl.Float64).to_numpy()
        seen += 1
    if seen != len(hum) * len(oop):
        raise UserError(
            f"metagame: {seen} of {len(hum)} x {len(oop)} pairs played: not every human player"
            " met every Old One player"
        )
    return hum, oop, wins


def win_matrix(wins: np.ndarray) -> np.ndarray:
    """``wins[i, j, k]`` (the OOP's 0/1 win in game k of human i against OOP j) -> rates."""
    return np.asarray(wins, dtype=float).mean(axis=2)


def bootstrap_values(wins: np.ndarray, draws: int = 1000, seed: int = 0) -> np.ndarray:
    """The equilibrium value of ``draws`` bootstrap resamples of the games (the same game
    indices in every cell: the deals stay paired). Same seed, same values."""
    wins = np.asarray(wins, dtype=float)
    n_h, n_o, games = wins.shape
    weights = resample_weights(games, draws, seed)
    rates = (wins.reshape(n_h * n_o, games) @ weights).reshape(n_h, n_o, draws)
    return np.array([solve(rates[:, :, b]).value for b in range(draws)])


def resample_weights(games: int, draws: int, seed: int) -> np.ndarray:
    """(games, draws): column b counts how often each game is drawn in resample b, over
    ``games`` (so a matrix product gives the resample's mean). Two calls with the same
    arguments draw the same resamples: that pairs two matrices of the same deals."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, games, size=(draws, games))
    counts = np.zeros((games, draws))
    for b in range(draws):
        counts[:, b] = np.bincount(idx[b], minlength=games)
    return counts / games


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` percentile interval of bootstrap values."""
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)

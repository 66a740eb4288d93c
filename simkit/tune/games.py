"""The games a tuning trial plays and how they are scored (simkit.tune): every trial plays
the same games (common random numbers), scored per game for the objective; paired
differences between two candidates on those games.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from simkit.core.stats import Z95
from simkit.errors import UserError, stop_if_interrupted
from simkit.kernels.low import game_layout as L
from simkit.tune.spec import TuneSpec

_COL = {name: i for i, name in enumerate(L.SUMMARY_COLUMNS)}


def game_spec(spec: TuneSpec, candidate):
    from simkit.game.engine import make_spec

    opp = list(spec.opponents)
    if spec.mode == "base":
        if not opp:
            raise UserError("tune: --mode base needs --opponents (the other seats' strategies)")
        from strategies.registry import parse_one

        return make_spec(
            "base",
            1 + len(opp),
            [candidate] + [parse_one(o) for o in opp],
            shuffle_seats=True,
            content=spec.content,
        )
    if spec.mode == "mythos-solo":
        if opp:
            raise UserError(
                "tune: --mode mythos-solo has no opponents (the Mythos deck plays the Old Ones)"
            )
        return make_spec(
            "mythos-solo", 1, [candidate], difficulty=spec.difficulty, content=spec.content
        )
    if spec.role == "oop":
        humans = opp or ["balanced"]
        from strategies.registry import parse_one

        return make_spec(
            "revenge",
            spec.humans,
            [parse_one(h) for h in humans],
            difficulty=spec.difficulty,
            ruleset=spec.ruleset,
            oop=candidate,
            content=spec.content,
        )
    if len(opp) > 1:
        raise UserError(
            "tune: with a human strategy tuned in Revenge, --opponents names one Old One player"
        )
    from strategies.old_ones import parse_oop

    return make_spec(
        "revenge",
        spec.humans,
        [candidate],
        difficulty=spec.difficulty,
        ruleset=spec.ruleset,
        oop=parse_oop(opp[0] if opp else "rusher"),
        content=spec.content,
    )


def scores(rows: np.ndarray, spec: TuneSpec) -> np.ndarray:
    """The objective per game (float64 [games]): 1/0 wins or the VP margin."""
    n = rows.shape[0]
    oo_vp = rows[:, _COL["oo_vp"]].astype(np.float64)
    best = rows[:, _COL["best_player_vp"]].astype(np.float64)
    if spec.mode == "base":
        seats = int(rows[0, _COL["num_players"]]) if n else 0
        vp = np.stack([rows[:, _COL[f"p{p}_vp"]] for p in range(seats)], axis=1).astype(np.float64)
        listed = np.stack([rows[:, _COL[f"p{p}_listed"]] for p in range(seats)], axis=1)
        tuned = np.argmax(listed == 0, axis=1)  # the seat the tuned strategy sat in
        if spec.objective == "win":
            return (rows[:, _COL["winner"]] == tuned).astype(np.float64)
        others = np.where(listed == 0, -np.inf, vp).max(axis=1)
        return vp[np.arange(n), tuned] - np.maximum(others, oo_vp)
    if spec.role == "oop":
        return (
            rows[:, _COL["old_ones_win"]].astype(np.float64)
            if spec.objective == "win"
            else oo_vp - best
        )
    return (
        rows[:, _COL["humans_win"]].astype(np.float64) if spec.objective == "win" else best - oo_vp
    )


@cache
def _pack(data_path: str | None, overrides: tuple = ()):
    """The data pack (None: the shipped one) with the --set overrides, read once per
    process (every block of every trial plays on it)."""
    from simkit.datapack import load_pack
    from simkit.runner.overrides import apply_overrides

    return apply_overrides(load_pack(data_path), dict(overrides))


def _play_block(
    spec: TuneSpec, candidate, chunk: int, first: int, n: int, data_path: str | None
) -> np.ndarray:
    from simkit.game.modes import engine_for

    eng = engine_for(_pack(data_path, spec.overrides) if data_path or spec.overrides else None)
    rows, _ = eng.play_many(game_spec(spec, candidate), spec.seed, chunk, n, first_game=first)
    return scores(rows, spec)


class Evaluator:
    """Plays a candidate on a seed set, on ``jobs`` processes; the scores never depend on it."""

    BLOCK = 250  # games per task (fixed: which process plays a game never changes its seed)

    def __init__(self, spec: TuneSpec, jobs: int = 1, data_path: str | None = None):
        self.spec, self.jobs, self.data_path = spec, jobs, data_path
        self._pool = None

    def __enter__(self):
        if self.jobs > 1:
            from joblib import Parallel

            self._pool = Parallel(n_jobs=self.jobs, backend="loky").__enter__()
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.__exit__(*exc)
        self._pool = None

    def __call__(self, candidate, chunk: int) -> np.ndarray:
        n = self.spec.games(chunk)
        blocks = [(k, min(self.BLOCK, n - k)) for k in range(0, n, self.BLOCK)]
        if self._pool is None or len(blocks) == 1:
            parts = []
            for a, b in blocks:
                stop_if_interrupted()  # Ctrl-C stops the run even if something dropped it
                parts.append(_play_block(self.spec, candidate, chunk, a, b, self.data_path))
        else:
            from joblib import delayed

            from simkit.core.watch import watched

            parts = self._pool(
                delayed(watched(_play_block))(self.spec, candidate, chunk, a, b, self.data_path)
                for a, b in blocks
            )
        return np.concatenate(parts)


def paired(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Mean of x - y on shared games with a normal 95% interval."""
    d = x - y
    n = d.size
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n) if n > 1 else math.inf
    mean = float(d.mean())
    return {
        "games": int(n),
        "tuned": float(x.mean()),
        "default": float(y.mean()),
        "diff": mean,
        "ci_low": mean - half,
        "ci_high": mean + half,
    }

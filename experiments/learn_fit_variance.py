"""How much a learn run's fit, in play, varies with its sample: refit the advantage fitter on
same-distribution subsets of a run's recorded decisions and play each refit.

    .venv/bin/python experiments/learn_fit_variance.py RUN [--alphas 1 10000] [--games 2000]
    .venv/bin/python experiments/learn_fit_variance.py RUN --fresh 4242 --fresh-alpha 10000

RUN is a ``simkit learn`` folder (either side, the advantage fitter's data). The subsets: each
generation's decisions, its two halves by game (a seeded split), and every generation's
together; each is fitted on all its rows (no hold-out) at every ``--alphas`` ridge penalty
(``simkit learn --ridge-alpha``) and played in the learned side's seats on the run's own
held-out rating games against its opponent (a mixture: each player, weighted). One JSON line
per refit: ``decisions`` (genK, or all), ``half`` (A, B or null), ``rows``, ``alpha``,
``old_ones_win``.

Decisions recorded with the same rollout policy come from one distribution, so refits that
play far apart say the fit's play swings with its sample (docs/strong-play.md, "What stops
the learner"). A choice among refits made on the rating games is a selection; ``--fresh
SEED`` plays the every-generation refit at ``--fresh-alpha`` against the run's first policy
on SEED's held-out games instead (root SEED + simkit.learn.RATE_ROOT_OFFSET, seeds no learn
run with another seed rates on), paired and weighted: one JSON line with the difference and
its 95% interval.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

from simkit.learn import (
    LearnSettings,
    _advantage,
    decision_arrays,
    opponents,
    side_of,
    weighted_difference,
    weighted_rate,
    weights_text,
    wins_against_each,
)


def read_run(run: Path) -> tuple[LearnSettings, dict[str, pl.DataFrame]]:
    """The run's settings and each generation's decisions (genK -> frame)."""
    stamp = json.loads((run / "learn.json").read_text())["settings"]
    known = {f.name for f in dataclasses.fields(LearnSettings)}
    settings = LearnSettings(**{k: v for k, v in stamp.items() if k in known})
    frames, k = {}, 1
    while (run / f"gen{k}" / "decisions.parquet").exists():
        frames[f"gen{k}"] = pl.read_parquet(run / f"gen{k}" / "decisions.parquet")
        k += 1
    if not frames:
        raise SystemExit(f"learn_fit_variance.py: {run}: no gen1/decisions.parquet")
    return settings, frames


def subsets(frames: dict[str, pl.DataFrame], seed: int = 0):
    """(decisions, half, frame): each generation, its halves by game, and all together."""
    for name, frame in frames.items():
        yield name, None, frame
        games = np.unique(frame["game"].to_numpy())
        a = np.random.default_rng([seed, int(name[3:])]).permutation(games)[: len(games) // 2]
        half = frame["game"].is_in(a.tolist())
        yield name, "A", frame.filter(half)
        yield name, "B", frame.filter(~half)
    if len(frames) > 1:
        yield "all", None, together(frames)


def together(frames: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Every generation's decisions, in the columns a fit reads."""
    return pl.concat([f.select(pl.col("^(f|legal|value)_.*$")) for f in frames.values()])


def refit(settings: LearnSettings, frame: pl.DataFrame, alpha: float) -> np.ndarray:
    """The advantage fitter's weights on every row of ``frame``."""
    x, legal, values = decision_arrays(frame, side_of(settings.side))
    return _advantage(x, None, legal, values, alpha)


def played(eng, settings: LearnSettings, weights: np.ndarray, games: int, folder: Path):
    """The Old Ones' win in each rating game against each opponent, the refit in the
    learned side's seats."""
    path = folder / "refit.toml"
    path.write_text(weights_text(side_of(settings.side), weights, {"refit": True}))
    return wins_against_each(eng, settings, f"learned:{path}", games)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--alphas", nargs="+", type=float, default=[1.0, 10_000.0])
    ap.add_argument("--games", type=int, default=2000, help="rating games a refit")
    ap.add_argument("--fresh", type=int, help="play the all-generations refit on this seed")
    ap.add_argument("--fresh-alpha", type=float, default=10_000.0)
    ap.add_argument("--fresh-games", type=int, default=4000)
    a = ap.parse_args(argv)
    from simkit.game.engine import Engine

    settings, frames = read_run(a.run)
    eng, weights = Engine(), [w for _, w in opponents(settings)]
    with tempfile.TemporaryDirectory() as tmp:
        if a.fresh is not None:
            fresh = dataclasses.replace(settings, seed=a.fresh)
            weights_all = refit(settings, together(frames), a.fresh_alpha)
            mine = played(eng, fresh, weights_all, a.fresh_games, Path(tmp))
            first = wins_against_each(eng, fresh, settings.first, a.fresh_games)
            diff, low, high = weighted_difference(mine, first, weights)
            row = {
                "fresh_seed": a.fresh,
                "games": a.fresh_games,
                "alpha": a.fresh_alpha,
                "refit": weighted_rate(mine, settings),
                "first_policy": weighted_rate(first, settings),
                "diff": diff,
                "ci95": [low, high],
            }
            print(json.dumps(row), flush=True)
            return 0
        for name, half, frame in subsets(frames):
            for alpha in a.alphas:
                wins = played(eng, settings, refit(settings, frame, alpha), a.games, Path(tmp))
                win = weighted_rate(wins, settings)
                row = {"decisions": name, "half": half, "rows": frame.height, "alpha": alpha}
                print(json.dumps({**row, "old_ones_win": round(float(win), 4)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

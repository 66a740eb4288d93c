"""Tuning throughput: the wall time of `simkit tune` for a human strategy (the balanced
player's ~30 parameters in 20 fields) and an Old One player strategy, on 2 workers.

Goal (skill-ladder issue): a human strategy tuned in at most 10 minutes on 2 cores. The
run below is the size the closing note's figures come from: 120 trials x 300 games,
5 leaders x 1,200 games, 1,200 held-out games per side. Compile time is excluded: the
kernels are compiled (or loaded from the cache) by one warm-up game first.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit  # noqa: E402

from simkit.game.engine import Engine  # noqa: E402
from simkit.tune import TuneSpec, run_tune  # noqa: E402

TRIALS, GAMES = 120, 300


def main() -> None:
    Engine().play(
        __import__("numpy").random.default_rng(0), ["balanced", "balanced"]
    )  # warm the cache
    for name, spec in (
        (
            "tune_human_balanced_base_2p",
            TuneSpec(
                mode="base",
                strategy="balanced",
                opponents=("balanced",),
                trials=TRIALS,
                games_per_trial=GAMES,
                seed=11,
            ),
        ),
        (
            "tune_oop_rusher_revenge_normal",
            TuneSpec(
                mode="revenge",
                strategy="rusher",
                opponents=("balanced",),
                difficulty="normal",
                trials=TRIALS,
                games_per_trial=GAMES,
                seed=12,
            ),
        ),
    ):
        with tempfile.TemporaryDirectory() as tmp, Timer() as t:
            record = run_tune(spec, Path(tmp) / "study", jobs=2)
        h = record["evaluation"]["holdout"]
        games = TRIALS * GAMES + spec.leaders * spec.games(1) + 2 * spec.games(2)
        emit(
            f"{name}_wall",
            t.seconds,
            "s",
            trials=TRIALS,
            games=games,
            jobs=2,
            holdout_diff=round(h["diff"], 4),
            holdout_ci=[round(h["ci_low"], 4), round(h["ci_high"], 4)],
        )
        emit(f"{name}_games_per_s", games / t.seconds, "games/s", jobs=2)


if __name__ == "__main__":
    main()

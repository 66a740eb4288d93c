"""Revenge benchmark: compile time, then 2-, 3- and 4-human Revenge and Mythos Solo games/s
on one core (JSON lines). Engine.play_many plays a chunk in one kernel call."""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit  # noqa: E402


def main(n_games: int = 2000) -> None:
    t0 = time.perf_counter()
    from simkit.game.engine import Engine, make_spec

    eng = Engine()
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher")
    eng.play(np.random.default_rng(0), spec)
    emit(
        "revenge_compile",
        time.perf_counter() - t0,
        "s",
        note="first game; warm if the numba cache exists",
    )
    for oop in ("rusher", "random"):
        spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=oop)
        eng.play_many(spec, 1, 0, 50)
        t = time.perf_counter()
        eng.play_many(spec, 1, 1, n_games)
        dt = time.perf_counter() - t
        emit(
            "revenge_2p_games_per_s",
            n_games / dt,
            "games/s",
            oop=oop,
            humans="balanced",
            games=n_games,
            target=1000,
        )
    for humans in (3, 4):
        spec = make_spec("revenge", humans, "balanced", difficulty="normal", oop="rusher")
        eng.play_many(spec, 1, 0, 50)
        t = time.perf_counter()
        eng.play_many(spec, 1, 1, n_games // 2)
        emit(
            f"revenge_{humans}p_games_per_s",
            n_games / 2 / (time.perf_counter() - t),
            "games/s",
            oop="rusher",
            humans="balanced",
            games=n_games // 2,
        )
    spec = make_spec("mythos-solo", 1, "balanced", difficulty="normal")
    eng.play_many(spec, 1, 0, 50)
    t = time.perf_counter()
    eng.play_many(spec, 1, 1, n_games)
    dt = time.perf_counter() - t
    emit("mythos_solo_games_per_s", n_games / dt, "games/s", strategy="balanced", games=n_games)


if __name__ == "__main__":
    main()

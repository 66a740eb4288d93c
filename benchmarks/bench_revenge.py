"""Revenge benchmark: compile time, then 2-human Revenge games/s on one core (JSON lines)."""

import json
import time

import numpy as np


def main(n_games: int = 2000) -> None:
    t0 = time.perf_counter()
    from simkit.game.engine import Engine, make_spec
    eng = Engine()
    spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher")
    eng.play(np.random.default_rng(0), spec)
    print(json.dumps({"bench": "revenge_compile", "seconds": round(time.perf_counter() - t0, 2)}))
    for oop in ("rusher", "random"):
        spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop=oop)
        eng.play_many(spec, 1, 0, 50)
        t = time.perf_counter()
        eng.play_many(spec, 1, 1, n_games)
        dt = time.perf_counter() - t
        print(json.dumps({"bench": "revenge_2p_games_per_s", "oop": oop, "humans": "balanced",
                          "games": n_games, "games_per_s": round(n_games / dt, 1)}))


if __name__ == "__main__":
    main()

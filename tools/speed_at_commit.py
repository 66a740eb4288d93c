"""Games per second of the engine at any commit since 8469d6c (the API it uses is that
old), for bisecting a slowdown. Prints JSON lines: the cold compile, then best-of-three
rates of 1,500 games on one core.

    git worktree add /tmp/at_X X
    cd /tmp/at_X && PYTHONPATH=/tmp/at_X NUMBA_CACHE_DIR=$(mktemp -d) \\
        /path/to/simkit/.venv/bin/python /path/to/simkit/tools/speed_at_commit.py X

docs/engine-speed.md has the table this produced for the ENGINE_VERSION 6 -> 7 round.
"""

import json
import sys
import time

from simkit.game.engine import Engine, make_spec

# (mode, players, strategies, options) by the name tools/ab_speed.py gives each case
CASES_BY_NAME = {
    "base": ("base", 2, "economist,hunter", {}),
    "rev": ("revenge", 2, "balanced", {"difficulty": "normal", "oop": "rusher"}),
    "rev_random": ("revenge", 2, "balanced", {"difficulty": "normal", "oop": "random"}),
    "solo": ("mythos-solo", 1, "balanced", {"difficulty": "normal"}),
}


def main(label: str) -> None:
    t = time.perf_counter()
    eng = Engine()
    for k, (mode, n, strategies, kw) in enumerate(CASES_BY_NAME.values()):
        spec = make_spec(mode, n, strategies, **kw)
        eng.play_many(spec, 1, 0, 20)
        if k == 0:
            print(json.dumps({"commit": label, "compile_s": round(time.perf_counter() - t, 1)}))
        best = 0.0
        for rep in range(3):
            t0 = time.perf_counter()
            eng.play_many(spec, 5, rep, 1500)
            best = max(best, 1500 / (time.perf_counter() - t0))
        line = {"commit": label, "mode": mode, "strategies": strategies, "games_per_s": round(best)}
        print(json.dumps(line | {k: v for k, v in kw.items() if k == "oop"}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "HEAD")

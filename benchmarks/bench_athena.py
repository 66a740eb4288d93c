"""Athena turret-fight benchmarks: one JSON line per measurement.

    .venv/bin/python benchmarks/bench_athena.py [--quick]

Numba compile time is measured apart, in a fresh process with an empty numba cache
(NUMBA_CACHE_DIR pointed at a temporary folder), so it never pollutes the timings of
the solvers. Everything else is timed after a warm-up call.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simkit.athena import TurretFight, exact_odds, load_athena_pack, monte_carlo_odds  # noqa: E402

TYPICAL = TurretFight(
    weapons=(("cannon", 3), ("energy_cannon", 4)), defense=2, ammo=2, charged=1, detection=1
)
LARGE = TurretFight(
    weapons=(("cannon", 1), ("cannon", 2), ("energy_cannon", 3), ("weapon", 4)),
    defense=3,
    ammo=8,
    charged=4,
    cyborg=True,
    grenade=True,
    detection=2,
)

COLD = """
import time
t = time.perf_counter()
from simkit.athena import TurretFight, exact_odds, load_athena_pack, monte_carlo_odds
f = TurretFight(weapons=(("cannon", 3), ("energy_cannon", 4)), defense=2, ammo=2, charged=1)
d = load_athena_pack()
t0 = time.perf_counter()
exact_odds(f, d)
t1 = time.perf_counter()
monte_carlo_odds(f, d, games=1000, seed=0)
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def emit(name: str, value: float, unit: str) -> None:
    print(json.dumps({"name": name, "value": round(value, 6), "unit": unit}), flush=True)


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run(
            [sys.executable, "-c", COLD],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
    emit("athena_numba_compile_exact", float(out[0]), "s")
    emit("athena_numba_compile_mc", float(out[1]), "s")

    data = load_athena_pack()
    exact_odds(TYPICAL, data)  # warm up (loads the cache in this process)
    monte_carlo_odds(TYPICAL, data, games=1000, seed=0)

    games = 200_000 if quick else 2_000_000
    t = best_of(lambda: monte_carlo_odds(TYPICAL, data, games=games, seed=1), 1 if quick else 3)
    emit("athena_mc_throughput_typical", games / t, "fights/s")
    t = best_of(lambda: monte_carlo_odds(LARGE, data, games=games // 4, seed=1), 1 if quick else 3)
    emit("athena_mc_throughput_large", games // 4 / t, "fights/s")

    t = best_of(lambda: exact_odds(TYPICAL, data), 5)
    emit("athena_exact_solve_typical", t * 1e3, "ms")
    emit("athena_exact_states_typical", exact_odds(TYPICAL, data).states, "states")
    t = best_of(lambda: exact_odds(LARGE, data), 1 if quick else 3)
    emit("athena_exact_solve_large", t * 1e3, "ms")
    emit("athena_exact_states_large", exact_odds(LARGE, data).states, "states")


if __name__ == "__main__":
    main()

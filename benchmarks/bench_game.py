"""Full-game benchmarks: compile time, then games per second on one core.

    .venv/bin/python benchmarks/bench_game.py [--games 4000]

Prints JSON lines {"name", "value", "unit", ...}. Compile time (first game with an empty
numba cache) is reported on its own lines. Steady state is measured the way the runner
plays: Engine.play_many, one kernel call per chunk that seeds each game's chance streams
itself (no per-game Python work). The target is >= 2,000 two-player base games per
second with heuristic players; the random player is reported for comparison.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit, fresh_numba_cache  # noqa: E402

fresh_numba_cache()

import numpy as np  # noqa: E402

from simkit.game.engine import Engine, make_spec  # noqa: E402
from simkit.kernels.low import game_layout as L  # noqa: E402

HEURISTIC_PAIRS = ("economist,hunter", "defender,balanced", "balanced,economist", "hunter,defender")


def rate(
    eng: Engine,
    strategies: str,
    players: int,
    games: int,
    seed: int,
    checked: bool = False,
    mode: str = "base",
) -> tuple[float, np.ndarray]:
    spec = make_spec(mode, players, strategies)
    eng.play_many(spec, seed, 99, 20, checked=checked)  # warm caches
    best = 0.0
    rows = None
    for rep in range(3):  # best of three: shared machines are noisy
        with Timer() as t:
            rows, _ = eng.play_many(spec, seed, rep, games, checked=checked)
        best = max(best, games / t.seconds)
    return best, rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=4000)
    args = parser.parse_args()
    n = args.games

    with Timer() as t:
        eng = Engine()
    emit(
        "game_compile_containers",
        t.seconds,
        "s",
        note="data, map, rules, StructRef containers; empty cache",
    )
    spec = make_spec("base", 2, "economist,hunter")
    with Timer() as t:
        eng.play((0, 0, 0), spec)
    emit(
        "game_compile_engine",
        t.seconds,
        "s",
        note="first game: the whole jitted engine, empty numba cache",
    )
    with Timer() as t:
        eng.play((0, 0, 1), spec, log=True, checked=True)
    emit("game_second_game", t.seconds * 1e3, "ms", note="no compilation left")

    heur = []
    for k, pair in enumerate(HEURISTIC_PAIRS):
        r, rows = rate(eng, pair, 2, n // len(HEURISTIC_PAIRS), 100 + k)
        heur.append(r)
        emit(
            "game_2p_heuristic_games_per_s",
            r,
            "games/s",
            strategies=pair,
            cores=1,
            target=2000,
            actions_per_game=float(rows[:, L.S_ACTIONS].mean()),
            oo_turns=float(rows[:, L.S_OO_TURNS].mean()),
        )
    mean_heur = float(np.mean(heur))
    emit(
        "game_2p_heuristic_games_per_s_mean",
        mean_heur,
        "games/s",
        cores=1,
        target=2000,
        meets_target=mean_heur >= 2000,
    )
    learned = Path(__file__).resolve().parents[1] / "experiments/strategies/learned_base_2p.toml"
    r_learn, _ = rate(eng, f"learned:{learned}", 2, n // len(HEURISTIC_PAIRS), 104)
    emit(
        "game_2p_learned_games_per_s",
        r_learn,
        "games/s",
        strategies="learned:experiments/strategies/learned_base_2p.toml (both seats)",
        cores=1,
        target=200,
        note="issue 25: the learned player at >= 200 games/s per core (>= 100x the search)",
    )
    r_rand, rows = rate(eng, "random", 2, n, 7)
    emit(
        "game_2p_random_games_per_s",
        r_rand,
        "games/s",
        cores=1,
        actions_per_game=float(rows[:, L.S_ACTIONS].mean()),
    )
    emit(
        "game_heuristic_slowdown_vs_random",
        r_rand / mean_heur,
        "x",
        note="random games/s divided by heuristic games/s (>1: heuristics are slower)",
    )
    r_tab, _ = rate(eng, "economist,hunter:withdraw=table-value", 2, n // len(HEURISTIC_PAIRS), 100)
    emit(
        "game_2p_withdraw_table_games_per_s",
        r_tab,
        "games/s",
        strategies="economist,hunter:withdraw=table-value",
        cores=1,
        note="the hunter solves the optimal withdraw table before each of its combats",
    )
    r_chk, _ = rate(eng, "economist,hunter", 2, n // 2, 5, checked=True)
    emit(
        "game_2p_checked_games_per_s", r_chk, "games/s", note="invariants checked after every turn"
    )
    for players in (1, 3, 4):
        r, _ = rate(eng, "balanced", players, n // 4, 11)
        emit(f"game_{players}p_balanced_games_per_s", r, "games/s", cores=1)
    r, _ = rate(eng, "balanced", 1, n // 4, 13, mode="solo")
    emit("game_solo_balanced_games_per_s", r, "games/s", cores=1)
    spec = make_spec("base", 2, "economist,hunter")
    m = max(1, n // 10)
    with Timer() as t:
        eng.play_many(spec, 3, 0, m, log=True)
    emit(
        "game_2p_logged_games_per_s",
        m / t.seconds,
        "games/s",
        note="with the event log (replays, event tables)",
    )


if __name__ == "__main__":
    main()

"""Combat benchmarks: compile time, Monte Carlo throughput, exact solves, the odds table.

    .venv/bin/python benchmarks/bench_combat.py [--table-k 3]

Runs on one core (jobs=1) unless told otherwise; prints JSON lines.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit, fresh_numba_cache  # noqa: E402

fresh_numba_cache()

from simkit.combat import Combat, exact_odds, monte_carlo_odds  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from simkit.odds import odds_table  # noqa: E402

FOUR_TYPES = "infantry=2,armoured_car=1,artillery=1,airship=1"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--table-k", type=int, default=3)
    parser.add_argument("--skip-table", action="store_true")
    args = parser.parse_args()
    data = load_pack()
    fight = Combat.parse(FOUR_TYPES, "shoggoth")

    with Timer() as t:
        monte_carlo_odds(fight, data, games=1_000, seed=0)
    emit("combat_mc_compile", t.seconds, "s", note="first call with an empty numba cache")
    with Timer() as t:
        exact_odds(Combat.parse("infantry=1", "zombie"), data)
    emit("combat_exact_compile", t.seconds, "s", note="first call with an empty numba cache")

    with Timer() as t:
        monte_carlo_odds(fight, data, games=args.games, seed=1)
    emit(
        "combat_mc_throughput_four_types_vs_shoggoth",
        args.games / t.seconds,
        "combats/s",
        games=args.games,
        cores=1,
    )
    with Timer() as t:
        monte_carlo_odds(
            Combat.parse("infantry=2,artillery=1", "zombie"), data, games=args.games, seed=1
        )
    emit(
        "combat_mc_throughput_two_types_vs_zombie",
        args.games / t.seconds,
        "combats/s",
        games=args.games,
        cores=1,
    )

    for force, vs in [
        ("infantry=2", "mi_go"),
        ("infantry=2,artillery=1", "mi_go"),
        ("infantry=2,artillery=1", "shoggoth"),
    ]:
        with Timer() as t:
            odds = exact_odds(Combat.parse(force, vs), data)
        emit(
            f"combat_exact_{force.replace('=', '').replace(',', '_')}_vs_{vs}",
            t.seconds,
            "s",
            states=odds.states,
        )

    # the optimal withdraw table (no card counting): what a game solves before each combat
    from simkit.combat import combat_arrays, withdraw_table_for
    from strategies.combat import parse_allocation, parse_withdrawal

    for force, vs in [
        ("infantry=2", "zombie"),
        ("infantry=2,artillery=1", "shoggoth"),
        (FOUR_TYPES, "shoggoth"),
    ]:
        fight_t = Combat.parse(force, vs)
        st0, mx, cost = combat_arrays(fight_t, data)
        args_t = (
            fight_t,
            data,
            parse_allocation("cheapest"),
            parse_withdrawal("table-value"),
            st0,
            mx,
            cost,
        )
        solved = withdraw_table_for(*args_t)
        reps = 200
        with Timer() as t:
            for _ in range(reps):
                withdraw_table_for(*args_t)
        emit(
            f"combat_withdraw_table_{force.replace('=', '').replace(',', '_')}_vs_{vs}",
            t.seconds / reps * 1e3,
            "ms",
            states=solved.states,
            note="Python API incl. buffer allocation; games reuse buffers",
        )

    if not args.skip_table:
        with Timer() as t:
            table = odds_table(data, args.table_k, jobs=1)
        emit(
            f"odds_table_k{args.table_k}",
            t.seconds,
            "s",
            rows=len(table),
            exact_share=float((table["method"] == "exact").mean()),
            cores=1,
        )


if __name__ == "__main__":
    main()

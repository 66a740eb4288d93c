"""Combat benchmarks: compile time, Monte Carlo throughput, exact solves, the odds table.

    .venv/bin/python benchmarks/bench_combat.py [--table-k 3] [--games N] [--skip-table]

Runs on one core (jobs=1) unless told otherwise; prints JSON lines.

Monte Carlo speed is also given against its limit, measured in the same run: a minimal
numba loop (defined here, no policy, no rules but the hits) that draws the same deck with
the same generator and applies the same hits to the same Old One until it dies. Both in
card draws per CPU second of this process (time.process_time: on a shared machine wall time
mostly measures the neighbours), and their ratio (issue 28 item 6).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit, fresh_numba_cache  # noqa: E402

fresh_numba_cache()

from simkit.combat import Combat, exact_odds, monte_carlo_odds  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from simkit.odds import odds_table  # noqa: E402

FOUR_TYPES = "infantry=2,armoured_car=1,artillery=1,airship=1"


def _minimal_loop():
    import numba as nb

    @nb.njit(cache=True)
    def minimal_draws(rng, n_games, card_hits, oo_type, mask, capacity, deck):
        """Draw the deck (without replacement, a fresh deck when it runs out) and add each
        card's hits on ``mask`` to one Old One until it dies; return the cards drawn."""
        draws = 0
        full = deck.size
        for _ in range(n_games):
            n_left = full  # drawn cards sit past n_left: the deck is whole again
            damage = 0
            while damage < capacity:
                if n_left == 0:
                    n_left = full
                j = int(rng.random() * n_left)
                c = deck[j]
                n_left -= 1
                deck[j] = deck[n_left]
                deck[n_left] = c
                x = np.int64(card_hits[c, oo_type]) & mask
                while x:  # popcount
                    x &= x - 1
                    damage += 1
                draws += 1
        return draws

    return minimal_draws


def cpu_seconds(fn, *args, **kwargs):
    """(fn's result, seconds of CPU this process used for it: one thread, one core)."""
    start = time.process_time()
    out = fn(*args, **kwargs)
    return out, time.process_time() - start


def mc_against_limit(data, fight, games: int) -> None:
    """Combat Monte Carlo and the minimal loop in draws/s, one core, one run."""
    from simkit.combat import combat_arrays
    from simkit.kernels.low import combat_layout as C

    st0, mx, _ = combat_arrays(fight, data)
    mask = 0
    for s in range(C.NUM_STACKS):
        if st0[C.COUNT + s] > 0 and mx[C.HITBIT + s] >= 0:
            mask |= 1 << int(mx[C.HITBIT + s])
    oo_type, capacity = int(mx[C.OO_TYPE]), int(mx[C.OO_CAPACITY])
    deck = np.arange(data.card_hits.shape[0], dtype=np.int64)
    minimal = _minimal_loop()
    minimal(np.random.default_rng(0), 10, data.card_hits, oo_type, mask, capacity, deck)
    draws, seconds = cpu_seconds(
        minimal, np.random.default_rng(1), games, data.card_hits, oo_type, mask, capacity, deck
    )
    limit = draws / seconds
    monte_carlo_odds(fight, data, games=1_000, seed=0)
    odds, seconds = cpu_seconds(monte_carlo_odds, fight, data, games=games, seed=1)
    mc = odds.expected_cards * games / seconds
    emit("combat_minimal_loop_draws", limit / 1e6, "M draws/cpu-s", games=games, cores=1)
    emit("combat_mc_draws_four_types_vs_shoggoth", mc / 1e6, "M draws/cpu-s", games=games, cores=1)
    emit("combat_mc_share_of_limit", mc / limit, "ratio", goal=0.35)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000_000)
    parser.add_argument("--table-k", type=int, default=3)
    parser.add_argument("--skip-table", action="store_true")
    parser.add_argument(
        "--only-limit", action="store_true", help="only Monte Carlo against its limit"
    )
    args = parser.parse_args()
    data = load_pack()
    fight = Combat.parse(FOUR_TYPES, "shoggoth")
    if args.only_limit:
        mc_against_limit(data, fight, args.games)
        return

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
    mc_against_limit(data, fight, args.games)

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

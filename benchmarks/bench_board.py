"""Board benchmarks: compile time, one distance field, a full Old One movement phase, setup.

    .venv/bin/python benchmarks/bench_board.py [--reps 200000]

One core; prints JSON lines {"name", "value", "unit", ...}. Compile time (first call with
an empty numba cache) is reported on its own lines, separate from steady-state timing.
Steady state is measured two ways: inside a numba loop (what the full-game engine pays)
and per call from Python (adds the dispatch overhead, ~0.3-1 us).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit, fresh_numba_cache  # noqa: E402

fresh_numba_cache()

import numba as nb  # noqa: E402
import numpy as np  # noqa: E402

from simkit.board import load_map, load_survey_tiles, place_ports, setup_board  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from simkit.kernels.low import movement as M  # noqa: E402
from simkit.kernels.low.board import all_pairs_distances, distance_field, nearest_field  # noqa: E402
from simkit.names import OLD_ONES, TEMPLE  # noqa: E402


@nb.njit
def _fields(neighbors, target, dist, queue, reps):
    total = 0
    for _ in range(reps):
        total += distance_field(neighbors, target, dist, queue)
    return total


@nb.njit
def _table_fields(hex_dist, target, dist, reps):
    total = 0
    for _ in range(reps):
        total += nearest_field(hex_dist, target, dist)
    return total


@nb.njit
def _phases(reps, kit, cards, policy, rng, stop_at_farm, target0, farm0, mover0):
    blighted = 0
    for _ in range(reps):
        kit.hex_target[:] = target0
        kit.hex_farm[:] = farm0
        kit.mover_hex[:] = mover0
        blighted += M.movement_phase(kit, cards, policy, rng, stop_at_farm, True)
    return blighted


def midgame_state(board, rng):
    """4 Ports, 12 un-blighted farms on empty inland hexes, 10 face-up Old Ones (no Temples
    among the first 8) and 2 Temples on level-marked hexes."""
    n = board.num_hexes
    ports = place_ports(board, 4, rng)
    target = np.zeros(n, dtype=bool)
    target[ports] = True
    farm = np.zeros(n, dtype=np.int64)
    inland = np.flatnonzero(board.hex_level > 0)
    spots = rng.choice(inland, size=22, replace=False)
    farms, movers = spots[:12], spots[12:]
    farm[farms] = 1
    target[farms] = True
    kinds = [t for t in range(len(OLD_ONES)) if t != TEMPLE]
    mover_type = np.array(
        [kinds[i % len(kinds)] for i in range(8)] + [TEMPLE, TEMPLE], dtype=np.int64
    )
    return target, farm, movers.astype(np.int64), mover_type


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200_000)
    args = parser.parse_args()
    data = load_pack()
    board = load_map("eastern")
    survey = load_survey_tiles()
    n = board.num_hexes
    rng = np.random.default_rng(2026)
    target, farm, movers, mover_type = midgame_state(board, rng)
    m = movers.size
    dist = np.zeros(n, dtype=np.int32)
    port_dist = np.zeros(n, dtype=np.int32)
    queue = np.zeros(n, dtype=np.int32)

    # -- compile (empty cache) ---------------------------------------------------------
    with Timer() as t:
        distance_field(board.neighbors, target, dist, queue)
    emit("board_compile_distance_field", t.seconds, "s", note="first call, empty numba cache")
    hex_dist = all_pairs_distances(board.neighbors)  # after the compile above: it calls the search
    face_up = np.ones(m, dtype=bool)
    cards2 = np.array([0, 1], dtype=np.int64)
    tables = dict(
        hex_dist=hex_dist,
        card_moves=data.card_moves,
        card_compass=data.card_compass,
        card_rotation=data.card_rotation,
        type_moves=data.old_one_moves,
        mover_type=mover_type,
        mover_face_up=face_up,
        dist=dist,
        port_dist=port_dist,
    )

    def phase(cards, policy, stop_at_farm):
        kit = M.new_kit(board.neighbors, target.copy(), farm.copy(), movers.copy(), **tables)
        return M.movement_phase(kit, cards, policy, rng, stop_at_farm, True)

    with Timer() as t:
        phase(cards2, M.CHOOSE_COMPASS, False)
    emit("board_compile_movement_phase", t.seconds, "s", note="first call, empty numba cache")
    with Timer() as t:
        setup_board(board, survey, data, np.random.default_rng(0), num_players=4)
    emit(
        "board_compile_setup",
        t.seconds,
        "s",
        note="first call (survey + ports kernels), empty numba cache",
    )
    with Timer() as t:
        _fields(board.neighbors, target, dist, queue, 1)
        _table_fields(hex_dist, target, dist, 1)
        loop_kit = M.new_kit(board.neighbors, target.copy(), farm.copy(), movers.copy(), **tables)
        _phases(1, loop_kit, cards2, M.CHOOSE_COMPASS, rng, False, target, farm, movers)
    emit("board_compile_bench_loops", t.seconds, "s", note="the benchmark's own numba loops")

    # -- one distance field over the Eastern map -------------------------------------------
    reps = args.reps
    # by breadth-first search, and read from the all-pairs table (the engine's since 2026-12-07)
    for name, loop, arrays, where in (
        ("board_distance_field_eastern", _fields, (board.neighbors, target, dist, queue), ""),
        ("board_distance_field_eastern_table", _table_fields, (hex_dist, target, dist), ", table"),
    ):
        with Timer() as t:
            loop(*arrays, reps)
        emit(
            name,
            t.seconds / reps * 1e6,
            "us",
            hexes=n,
            targets=int(target.sum()),
            reps=reps,
            where="numba loop" + where,
            target_us=5.0,
        )
    calls = reps // 10
    start = time.perf_counter()
    for _ in range(calls):
        distance_field(board.neighbors, target, dist, queue)
    emit(
        "board_distance_field_eastern_python_call",
        (time.perf_counter() - start) / calls * 1e6,
        "us",
        reps=calls,
        where="one call from Python",
    )

    # -- a full Old One movement phase ---------------------------------------------------
    for name, cards, policy, stop in (
        ("board_movement_phase_base_2cards", cards2, M.CHOOSE_COMPASS, False),
        (
            "board_movement_phase_revenge_4cards_ports_policy",
            np.array([0, 1, 2, 3], dtype=np.int64),
            M.CHOOSE_PORTS,
            True,
        ),
    ):
        preps = max(1, reps // 10)
        args_ = (loop_kit, cards, policy, rng, stop, target, farm, movers)
        _phases(1, *args_)
        with Timer() as t:
            _phases(preps, *args_)
        circled = sum(M.movers_for_card(loop_kit, c) for c in cards)
        emit(
            name,
            t.seconds / preps * 1e6,
            "us",
            movers=m,
            cards=int(cards.size),
            moves=int(circled),
            reps=preps,
            where="numba loop (incl. resetting the state arrays)",
        )
        start = time.perf_counter()
        for _ in range(preps // 10):
            phase(cards, policy, stop)
        emit(
            name + "_python_call",
            (time.perf_counter() - start) / (preps // 10) * 1e6,
            "us",
            reps=preps // 10,
            where="one call from Python (incl. copying the state)",
        )

    # -- setup ----------------------------------------------------------------------------
    sreps = 2000
    with Timer() as t:
        for s in range(sreps):
            setup_board(board, survey, data, np.random.default_rng(s), num_players=4)
    emit(
        "board_setup_eastern_4_players",
        t.seconds / sreps * 1e6,
        "us",
        reps=sreps,
        where="setup_board from Python (survey, Old One stacks, Ports)",
    )


if __name__ == "__main__":
    main()

"""Experiment runner benchmarks: compile time, kernel vs runner throughput, 2 workers vs 1,
peak memory against the number of games, and a polars group-by over 10 million lake rows.

    .venv/bin/python benchmarks/bench_runner.py [--games 2000000] [--rows 10000000]

Prints JSON lines {"name", "value", "unit", ...}. Timings are the best of a few runs
(other processes share the machine); nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit, fresh_numba_cache  # noqa: E402

fresh_numba_cache()

from simkit.combat.mode import combat_keys, play_keys, prepare  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from simkit.modes import get_mode  # noqa: E402
from simkit.runner import parse_spec, run_experiment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FORCE, VS = "infantry=2,armoured_car=1,artillery=1,airship=1", "shoggoth"
CHUNK = 250_000


def spec(games: int, chunk: int = CHUNK, cells: int = 1, name: str = "bench"):
    forces = [FORCE, "infantry=2,artillery=1", "infantry=3", "infantry=2,armoured_car=1"][:cells]
    return parse_spec(
        {
            "experiment": {
                "name": name,
                "mode": "combat",
                "root_seed": 1,
                "chunk_size": chunk,
                "games": games,
            },
            "params": {"vs": VS},
            "grid": {"force": forces},
        },
        "bench.toml",
    )


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        with Timer() as t:
            fn()
        times.append(t.seconds)
    return min(times)


def peak_rss(games: int, chunk: int, jobs: int) -> dict[str, float]:
    """Run one experiment in a fresh process; its own and its workers' peak RSS (VmHWM, MB).

    Not getrusage's ru_maxrss: Linux carries that over fork+exec from the (large) parent.
    """
    raw = {
        "experiment": {
            "name": "rss",
            "mode": "combat",
            "root_seed": 1,
            "chunk_size": chunk,
            "games": games,
        },
        "params": {"force": FORCE, "vs": VS},
    }
    code = textwrap.dedent(f"""
        import json, shutil, tempfile
        from simkit.runner import parse_spec, run_experiment
        from simkit.runner.worker import peak_rss_mb
        out = tempfile.mkdtemp(prefix="simkit-bench-rss-")
        r = run_experiment(parse_spec({raw!r}), out=out, jobs={jobs}, quiet=True)
        shutil.rmtree(out)
        print(json.dumps({{"games": r.games_written, "self_mb": peak_rss_mb(),
                           "workers_mb": r.worker_peak_rss_mb if {jobs} > 1 else 0.0}}))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def base_overhead(games: int, data, tmp: Path) -> None:
    """The same comparison for full games (mode "base", when registered): rows are few per
    second."""
    base = get_mode("base")
    params = base.validate({"players": 2, "strategies": "balanced"})
    with Timer() as t:
        base.run_chunk(params, data, 0, 0, 10, frozenset({"summary", "seats"}))
    emit("base_mode_compile", t.seconds, "s", note="first base run_chunk with an empty numba cache")
    chunk = 1000
    n = max(games // chunk, 1)
    bare = best(
        lambda: [
            base.run_chunk(params, data, 1, k, chunk, frozenset({"summary", "seats"}))
            for k in range(n)
        ],
        repeat=2,
    )
    raw = {
        "experiment": {
            "name": "base",
            "mode": "base",
            "root_seed": 1,
            "chunk_size": chunk,
            "games": n * chunk,
            "outputs": ["summary", "seats"],
        },
        "params": {"players": 2, "strategies": "balanced"},
    }

    def run():
        import shutil

        shutil.rmtree(tmp / "base", ignore_errors=True)
        run_experiment(parse_spec(raw), out=tmp / "base", jobs=1, quiet=True)

    runner = best(run, repeat=2)
    emit("base_run_chunk_throughput", n * chunk / bare, "games/s", games=n * chunk, cores=1)
    emit(
        "base_runner_overhead_vs_run_chunk",
        100 * (runner / bare - 1),
        "%",
        games=n * chunk,
        note="summary + seats tables written; target <= 5%",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--games", type=int, default=2_000_000, help="games for the throughput runs"
    )
    parser.add_argument("--rows", type=int, default=10_000_000, help="lake rows for the group-by")
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument(
        "--base-games", type=int, default=4000, help="games for the base-mode overhead (0: skip)"
    )
    args = parser.parse_args()
    data = load_pack()
    mode = get_mode("combat")
    params = mode.validate({"force": FORCE, "vs": VS})
    tmp = Path(tempfile.mkdtemp(prefix="simkit-bench-runner-"))

    with Timer() as t:
        mode.run_chunk(params, data, 0, 0, 1000, frozenset({"summary"}))
    emit(
        "runner_combat_rows_compile",
        t.seconds,
        "s",
        note="first run_chunk with an empty numba cache",
    )

    games = args.games
    n_chunks = games // CHUNK
    prep = prepare(params, data)
    keys = [combat_keys(1, k, CHUNK) for k in range(n_chunks)]
    kernel = best(lambda: [play_keys(prep, data, k) for k in keys])
    emit(
        "combat_rows_kernel_throughput",
        games / kernel,
        "combats/s",
        games=games,
        cores=1,
        note="row kernel + column building, keys pre-drawn",
    )
    bare = best(
        lambda: [
            mode.run_chunk(params, data, 1, k, CHUNK, frozenset({"summary"}))
            for k in range(n_chunks)
        ]
    )
    emit(
        "run_chunk_throughput",
        games / bare,
        "combats/s",
        games=games,
        cores=1,
        note="rows in memory, no files",
    )

    def runner(jobs: int):
        out = tmp / f"j{jobs}"
        if out.exists():
            import shutil

            shutil.rmtree(out)
        return run_experiment(spec(games), out=out, jobs=jobs, quiet=True)

    runs: dict[int, list] = {1: [], 2: []}
    for _ in range(4):  # interleaved, best of each: other processes share the 2 cores
        for jobs in (1, 2):
            load = os.getloadavg()[0]
            with Timer() as t:
                result = runner(jobs)
            runs[jobs].append((t.seconds, result, load))
    one, r1, load1 = min(runs[1], key=lambda x: x[0])
    two, _, load2 = min(runs[2], key=lambda x: x[0])
    emit("runner_throughput_jobs1", games / one, "combats/s", games=games, chunk=CHUNK, load1=load1)
    emit(
        "runner_overhead_vs_run_chunk",
        100 * (one / bare - 1),
        "%",
        note="all the runner adds to computing the rows in memory; mostly the Parquet encode+write",
    )
    emit(
        "runner_orchestration_overhead",
        100 * (one - r1.worker_seconds) / r1.worker_seconds,
        "%",
        note="wall time beyond the chunk tasks (spec, lake scan, manifest, dispatch, progress)",
    )
    emit(
        "parquet_write_per_row",
        1e9 * (r1.worker_seconds - bare) / games,
        "ns/row",
        note="task time beyond run_chunk: building and writing the chunk's Parquet file",
    )
    emit("runner_throughput_jobs2", games / two, "combats/s", games=games, chunk=CHUNK, load1=load2)
    emit(
        "parallel_speedup_2_workers",
        one / two,
        "x",
        load1=load2,
        note="target >= 1.7 on 2 idle cores; load1 = 1-minute load average before the run",
    )

    # a lake of --rows rows, then the key-metric rate per cell
    from simkit import analysis

    lake_dir = tmp / "rows"
    with Timer() as t:
        run_experiment(spec(args.rows // 4, cells=4, name="rows"), out=lake_dir, jobs=2, quiet=True)
    emit("lake_build_10m_rows", t.seconds, "s", rows=args.rows, jobs=2)
    lake = analysis.open_lake(lake_dir)
    scan_groupby = best(
        lambda: analysis.win_rates(lake.scan(), by=["cell"], metric="destroyed"), repeat=5
    )
    emit(
        "polars_scan_groupby_10m_rows",
        1000 * scan_groupby,
        "ms",
        rows=args.rows,
        files=len(lake.files()),
        note="lazy scan of the lake's Parquet files + group-by + Wilson",
    )
    frame = lake.scan().select("cell", "force", "destroyed", "cards").collect()
    import polars as pl

    def groupby():
        frame.group_by("force").agg(pl.len(), pl.col("destroyed").sum(), pl.col("cards").mean())

    emit(
        "polars_groupby_10m_rows_in_memory", 1000 * best(groupby, repeat=5), "ms", rows=frame.height
    )
    with Timer() as t:
        lake = analysis.open_lake(lake_dir)
    emit("lake_open_and_verify", 1000 * t.seconds, "ms", files=len(lake.files()))

    if args.base_games and "base" in __import__("simkit.modes", fromlist=["available"]).available():
        base_overhead(args.base_games, data, tmp)

    if not args.skip_rss:
        for jobs in (1, 2):
            small, large = peak_rss(100_000, 100_000, jobs), peak_rss(1_000_000, 100_000, jobs)
            emit(
                f"peak_rss_100k_games_jobs{jobs}",
                small["self_mb"],
                "MB",
                workers_mb=small["workers_mb"],
                chunk=100_000,
            )
            emit(
                f"peak_rss_1m_games_jobs{jobs}",
                large["self_mb"],
                "MB",
                workers_mb=large["workers_mb"],
                chunk=100_000,
                growth_mb=large["self_mb"] - small["self_mb"],
                workers_growth_mb=large["workers_mb"] - small["workers_mb"],
            )
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

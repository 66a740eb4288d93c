"""`simkit simulate --jobs 1`: the marginal rate at which the runner adds games to a lake
(play, tables, Parquet, manifest), start-up and compilation excluded (JSON lines).

    .venv/bin/python benchmarks/bench_simulate.py [--small 2000 --large 22000]

Runs the real command twice in subprocesses (warm numba cache, one worker), with a small
and a large game count, and divides the extra games by the extra wall time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import emit  # noqa: E402


def run(mode_args: list[str], games: int, out: Path) -> float:
    cmd = [sys.executable, "-m", "simkit", "simulate", *mode_args, "--games", str(games)]
    cmd += ["--jobs", "1", "--seed", "3", "--quiet", "--out", str(out)]
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=2000)
    ap.add_argument("--large", type=int, default=22000)
    args = ap.parse_args()
    cases = {
        "base": ["--mode", "base", "--players", "2", "--strategies", "balanced"],
        "revenge": ["--mode", "revenge", "--humans", "2", "--strategies", "balanced"],
    }
    with tempfile.TemporaryDirectory(prefix="simkit-bench-simulate-") as tmp:
        for name, mode_args in cases.items():
            run(mode_args, 10, Path(tmp) / f"{name}-warm")  # compile (or load) the kernels
            small = run(mode_args, args.small, Path(tmp) / f"{name}-small")
            large = run(mode_args, args.large, Path(tmp) / f"{name}-large")
            emit(
                f"simulate_{name}_marginal_games_per_s",
                (args.large - args.small) / (large - small),
                "games/s",
                jobs=1,
                small=[args.small, round(small, 2)],
                large=[args.large, round(large, 2)],
                note="extra games / extra wall time of two `simkit simulate` runs",
            )


if __name__ == "__main__":
    main()

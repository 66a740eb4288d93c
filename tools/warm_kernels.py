"""Compile the numba kernels once, one family per core, before the test suite runs.

    .venv/bin/python tools/warm_kernels.py

On a fresh clone the cache is empty: without this, each pytest-xdist worker meets the game
engine (about three minutes to compile) and the combat solvers (about one and a half) in its
first tests and compiles them itself, the same machine code once per worker. Here the
families compile in parallel processes (GROUPS); the workers then load them from the cache.
On a warm cache it only loads them (seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
# One process each: the engine family (one big kernel, its mode and search variants), the
# combat solvers and Athena, and the combat entry points the commands reach less often
# (paired, to-target, the odds table's shared pass; each inlines the whole fight). Three
# processes on two cores: on a fresh clone (under load) the two combat groups in one process
# finished minutes after the engine, 550 s after the start.
GROUPS = (
    ("base", "revenge", "mythos-solo", "search", "oop-search"),
    ("combat", "athena"),
    ("combat-more", "athena-more"),
)


def _behind() -> None:
    """The combat groups yield to the engine group: the engine is the longest single compile
    (about 220 s of CPU), so it keeps a core to itself while the two combat groups share the
    other (about 250 s between them); at equal priority the three shared both cores and the
    engine finished last, alone (warm cache ready in 306 s on an empty cache, 2 cores)."""
    os.nice(5)


def main() -> int:
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, str(TOOLS / "kernel_entries.py"), *group],
            stdout=subprocess.DEVNULL,
            preexec_fn=None if k == 0 else _behind,
        )
        for k, group in enumerate(GROUPS)
    ]
    running, failed, took = dict(zip(GROUPS, procs, strict=True)), [], []
    while running:  # each group's time, in the order they finish
        for group, proc in list(running.items()):
            if proc.poll() is not None:
                del running[group]
                took.append(f"{group[0]} {time.perf_counter() - start:.0f} s")
                if proc.returncode != 0:
                    failed.append(group)
        time.sleep(0.2)
    if failed:
        print(f"warm_kernels: {', '.join(failed[0])} failed", file=sys.stderr)
        return 1
    total = time.perf_counter() - start
    print(f"warm_kernels: kernels ready in {total:.0f} s ({', '.join(took)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

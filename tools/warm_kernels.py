"""Compile the numba kernels once, one family per core, before the test suite runs.

    .venv/bin/python tools/warm_kernels.py

On a fresh clone the cache is empty: without this, each pytest-xdist worker meets the game
engine (about three minutes to compile) and the combat solvers (about one and a half) in its
first tests and compiles them itself, the same machine code once per worker. Here the
families compile in parallel processes (GROUPS); the workers then load them from the cache.
On a warm cache it only loads them (seconds).
"""

from __future__ import annotations

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


def main() -> int:
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, str(TOOLS / "kernel_entries.py"), *group], stdout=subprocess.DEVNULL
        )
        for group in GROUPS
    ]
    failed = [g for g, p in zip(GROUPS, procs, strict=True) if p.wait() != 0]
    if failed:
        print(f"warm_kernels: {', '.join(failed[0])} failed", file=sys.stderr)
        return 1
    print(f"warm_kernels: kernels ready in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

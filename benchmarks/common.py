"""Helpers for benchmarks: JSON lines of name, value, unit (never timed tests)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time


def fresh_numba_cache() -> None:
    """Point numba at an empty cache so the first call measures real compile time.

    Must run before numba is imported.
    """
    if "numba" in sys.modules:
        raise RuntimeError("fresh_numba_cache() must run before numba is imported")
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="simkit-bench-numba-")


def emit(name: str, value: float, unit: str, **extra) -> None:
    print(json.dumps({"name": name, "value": round(value, 6), "unit": unit, **extra}), flush=True)


class Timer:
    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start

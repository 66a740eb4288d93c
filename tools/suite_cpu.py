"""Where the test suite's CPU goes: a pytest plugin that records each test's CPU time (its
own process and the subprocesses it waited for), and a summary by file and by test.

    PYTHONPATH=tools .venv/bin/python -m pytest -n 3 --dist loadgroup -p suite_cpu
    .venv/bin/python tools/suite_cpu.py [--top N]

On 2 cores the suite's wall time follows its CPU time, and `--durations` shows wall time
only: a test waiting on a subprocess and a test compiling look alike there. Children are
counted when they end (joblib's reused workers are missed until they do). Each pytest
process writes its rows to ``$SUITE_CPU_DIR`` (default: a folder in the temp dir).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import pytest

FOLDER = Path(os.environ.get("SUITE_CPU_DIR", Path(tempfile.gettempdir()) / "simkit-suite-cpu"))
_rows: list[tuple[str, float, float, float]] = []


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, kids = _cpu()
    start = time.perf_counter()
    yield
    own2, kids2 = _cpu()
    _rows.append((item.nodeid, own2 - own, kids2 - kids, time.perf_counter() - start))


def pytest_sessionfinish(session):
    if not _rows:
        return
    FOLDER.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (FOLDER / f"cpu-{worker}.json").write_text(json.dumps(_rows))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    rows = [r for f in sorted(FOLDER.glob("cpu-*.json")) for r in json.loads(f.read_text())]
    if not rows:
        print(f"no rows in {FOLDER}: run pytest with -p suite_cpu first")
        return 2
    own = sum(r[1] for r in rows)
    kids = sum(r[2] for r in rows)
    print(f"{len(rows)} tests: {own:.0f} CPU-s in pytest, {kids:.0f} in subprocesses")
    by_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for nodeid, o, k, _ in rows:
        part = by_file[nodeid.split("::")[0]]
        part[0] += o
        part[1] += k
        part[2] += 1
    print("\nCPU-s  (own  children)  tests  file")
    for name, (o, k, n) in sorted(by_file.items(), key=lambda kv: -sum(kv[1][:2]))[: args.top]:
        print(f"{o + k:6.1f} ({o:6.1f} {k:6.1f}) {n:6.0f}  {name}")
    print("\nCPU-s  wall-s  test")
    for nodeid, o, k, wall in sorted(rows, key=lambda r: -(r[1] + r[2]))[: args.top]:
        print(f"{o + k:6.1f} {wall:6.1f}  {nodeid}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

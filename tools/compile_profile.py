"""Where the cold numba compile goes: compile one entry point on an empty cache and print
the functions by their own compile time (callees excluded), as JSON lines.

    .venv/bin/python tools/compile_profile.py ENTRY [--top N]

ENTRY: base, revenge, mythos-solo, search, combat or athena.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="simkit-compile-profile-")

from kernel_entries import run  # noqa: E402
from numba.core import event  # noqa: E402


class Recorder(event.Listener):
    """Inclusive and exclusive seconds per compiled function (compiles nest)."""

    def __init__(self):
        self.stack = []
        self.rows = {}

    def on_start(self, ev):
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        start, child = self.stack.pop()
        total = time.perf_counter() - start
        if self.stack:
            self.stack[-1][1] += total
        d = ev.data["dispatcher"]
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        r = self.rows.setdefault(name, [0.0, 0.0, 0])
        r[0] += total - child
        r[1] += total
        r[2] += 1


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("entry")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rec = Recorder()
    t = time.perf_counter()
    with event.install_listener("numba:compile", rec):
        try:
            run(args.entry)
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise
    wall = time.perf_counter() - t
    print(
        json.dumps(
            {
                "name": f"compile_{args.entry}",
                "value": round(wall, 2),
                "unit": "s",
                "functions": len(rec.rows),
                "compiles": sum(r[2] for r in rec.rows.values()),
            }
        )
    )
    for name, (own, total, n) in sorted(rec.rows.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(
            json.dumps(
                {
                    "function": name,
                    "own_s": round(own, 2),
                    "incl_s": round(total, 2),
                    "signatures": n,
                }
            )
        )


if __name__ == "__main__":
    main()

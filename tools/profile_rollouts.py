"""Profile the search's rollouts with perf: a perf map of every numba kernel, then a
steady rollout loop to attach to.

    .venv/bin/python tools/profile_rollouts.py [ROLLOUTS] &      # prints "PID <pid>"
    perf record -F 1999 -p <pid> -o rollouts.data                 # during the loop
    perf report -i rollouts.data --no-children --sort sym

numba's JIT code has no symbols perf can see; this writes /tmp/perf-<pid>.map (start,
size, name) for every function of every loaded kernel library, names shortened to their
module path (``simkit.kernels.low.board.attack_distance``). Who calls a hot runtime
function (``NRT_incref``, say) is found with ``tools/count_callers.py`` under gdb.
The loop waits ``PAUSE`` seconds (environment, default 3) after printing its PID.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import play_rollouts, rollout_position  # noqa: E402

import simkit.kernels  # noqa: E402
import strategies  # noqa: E402
from simkit.game.engine import Engine  # noqa: E402


def short_name(symbol: str) -> str:
    """``_ZN6simkit7kernels3low5board15attack_distanceB4v594...`` -> the dotted path."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        n = int(symbol[i:j])
        parts.append(symbol[j : j + n])
        i = j + n
    return ".".join(parts)


def write_perf_map(path: Path) -> int:
    """Every compiled function of every loaded kernel (and the runtime's NRT_* helpers
    linked into them) at its address; returns how many."""
    from numba.core.dispatcher import Dispatcher

    entries: dict[int, str] = {}
    for package in (simkit.kernels, strategies):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            try:
                module = importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - a module that needs more than an import
                continue
            for obj in vars(module).values():
                if not isinstance(obj, Dispatcher):
                    continue
                for cres in obj.overloads.values():
                    lib = cres.library  # loaded from the cache: the functions are in
                    modules = (getattr(lib, "_shared_module", None), lib._final_module)
                    for mod in modules:
                        for fn in mod.functions if mod is not None else ():
                            if fn.is_declaration:
                                continue
                            addr = lib.get_pointer_to_function(fn.name)
                            if addr:
                                entries[addr] = short_name(fn.name)
    addrs = sorted(entries)
    with path.open("w") as fh:
        for k, addr in enumerate(addrs):
            size = min(addrs[k + 1] - addr if k + 1 < len(addrs) else 4096, 1 << 20)
            fh.write(f"{addr:x} {size:x} {entries[addr]}\n")
    return len(addrs)


def main() -> None:
    rollouts = int(sys.argv[1]) if len(sys.argv) > 1 else 30000
    look, p, player = rollout_position(Engine())  # bench_search's rollout figure's position
    n = write_perf_map(Path(f"/tmp/perf-{os.getpid()}.map"))
    print("PID", os.getpid(), f"({n} symbols mapped)", flush=True)
    time.sleep(float(os.environ.get("PAUSE", "3")))
    t = time.perf_counter()
    played, _ = play_rollouts(look, p, player, rollouts)
    print(f"{played / (time.perf_counter() - t):.0f} rollouts/s", flush=True)


if __name__ == "__main__":
    main()

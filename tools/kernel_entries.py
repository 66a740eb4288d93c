"""The entry points whose first call compiles a family of numba kernels: one small workload
each, shared by tools/compile_profile.py (what a cold compile costs) and
tools/warm_kernels.py (compile them once before the test suite; it runs
``python tools/kernel_entries.py ENTRY ...``)."""

from __future__ import annotations

ENTRIES = ("combat", "base", "revenge", "mythos-solo", "search", "athena")

CLI_ENTRIES = {
    "combat": ["combat", "--force", "infantry=2,artillery=1", "--vs", "shoggoth"],
    "athena": ["athena", "turret", "--weapons", "cannon:3", "--ammo", "2", "--defense", "2"],
}


def run(entry: str) -> None:
    """Run ``entry``'s workload (its kernels compile, or load from the cache)."""
    import numpy as np

    if entry in CLI_ENTRIES:
        from simkit.cli import main as cli

        if cli([*CLI_ENTRIES[entry], "--json"]) != 0:
            raise SystemExit(f"{entry}: the command failed")
        return
    from simkit.game.engine import Engine, make_spec

    eng = Engine()
    if entry == "base":
        eng.play_many(make_spec("base", 2, "balanced"), 1, 0, 2)
    elif entry == "revenge":
        eng.play_many(
            make_spec("revenge", 2, "balanced", difficulty="normal", oop="rusher"), 1, 0, 2
        )
    elif entry == "mythos-solo":
        eng.play_many(make_spec("mythos-solo", 1, "balanced", difficulty="normal"), 1, 0, 2)
    elif entry == "search":
        eng.play(np.random.default_rng(1), make_spec("base", 2, "search:rollouts=1,balanced"))
    else:
        raise SystemExit(f"unknown entry point {entry}")


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        run(name)

"""The entry points whose first call compiles a family of numba kernels: one small workload
each, shared by tools/compile_profile.py (what a cold compile costs) and
tools/warm_kernels.py (compile them once before the test suite; it runs
``python tools/kernel_entries.py ENTRY ...``).

``combat-more``, ``athena-more`` and ``oop-search`` are the entry points the commands
reach less often (paired and to-target Monte Carlo, the odds table's shared pass, scripted
fights, the state count, Athena's Monte Carlo, the Old One search): the test suite calls
them, and two workers that meet one uncompiled kernel at once both compile it."""

from __future__ import annotations

ENTRIES = ("combat", "base", "revenge", "mythos-solo", "search", "athena")

CLI_ENTRIES = {
    "combat": ["combat", "--force", "infantry=2,artillery=1", "--vs", "shoggoth"],
    "athena": ["athena", "turret", "--weapons", "cannon:3", "--ammo", "2", "--defense", "2"],
    "athena-more": [
        "athena", "turret", "--weapons", "cannon:3", "--ammo", "2", "--defense", "2",
        "--method", "mc", "--games", "2000",
    ],
}  # fmt: skip


def combat_more() -> None:
    """Paired and to-target Monte Carlo, the odds table's shared pass, a scripted fight and
    the exact solver's state count."""
    from simkit.combat import Combat, exact_needs_more, paired_monte_carlo_odds, play_cards
    from simkit.datapack import load_pack
    from simkit.odds import odds_table
    from strategies.combat import parse_withdrawal

    data = load_pack()
    fight = Combat.parse("infantry=2,artillery=1", "zombie")
    paired_monte_carlo_odds(fight, data, 200, 0, parse_withdrawal("table-value"))
    play_cards(fight, data, [int(c) for c in data.card_ids[:3]])
    exact_needs_more(fight, data)
    odds_table(data, 1, old_ones=[0], jobs=1, target_ci=0.05)


def run(entry: str) -> None:
    """Run ``entry``'s workload (its kernels compile, or load from the cache)."""
    import numpy as np

    if entry == "combat-more":
        combat_more()
        return
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
    elif entry == "oop-search":
        spec = make_spec("revenge", 2, "balanced", difficulty="normal", oop="search:rollouts=1")
        eng.play(np.random.default_rng(1), spec)
    else:
        raise SystemExit(f"unknown entry point {entry}")


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        run(name)

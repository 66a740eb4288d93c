"""How big the exact (card-counting) solver's state space gets, matchup by matchup.

    .venv/bin/python benchmarks/bench_exact_states.py [--budget 2000000]

The exact method tracks the remaining deck by outcome class. In the assumed deck the hit
symbols sit independently on each card, so a mixed force sees up to ~35 classes and the
reachable compositions explode. These lines are the evidence behind the odds table's Monte
Carlo fallback (see README, "Limits of the exact method"): one JSON line per matchup with the
states needed under never-withdraw (``overflow`` when it passes the budget) and the seconds
spent, next to the 32..648 states of the no-card-counting withdraw table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Timer, emit  # noqa: E402

from simkit.combat import Combat, ExactTooLarge, combat_arrays, exact_odds, withdraw_table_for  # noqa: E402
from simkit.datapack import load_pack  # noqa: E402
from strategies.combat import parse_allocation, parse_withdrawal  # noqa: E402
from strategies.combat.withdrawal import Never  # noqa: E402

MATCHUPS = [  # the headline question first, then rows of the K=3 odds table
    ("infantry=2,artillery=1,airship=1", "shoggoth"),
    ("infantry=2,artillery=1", "shoggoth"),
    ("armoured_car=1,airship=1", "zombie"),
    ("infantry=3,armoured_train=3,airship=3", "mi_go"),
    ("infantry=3,armoured_car=1,artillery=2,armoured_train=1", "temple"),
    ("infantry=3,armoured_car=1,artillery=2,armoured_train=1", "cthulhu"),
    ("armoured_car=1,airship=1", "cthulhu,cthulhu"),
    ("infantry=1", "zombie,zombie"),
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=int, default=2_000_000)
    args = parser.parse_args()
    data = load_pack()
    exact_odds(Combat.parse("infantry=1", "zombie"), data)  # compile (or load the cache) first
    table_policy = parse_withdrawal("table-value")
    for force, vs in MATCHUPS:
        fight = Combat.parse(force, vs)
        name = f"{force.replace('=', '').replace(',', '_')}_vs_{vs.replace(',', '_')}"
        with Timer() as t:
            try:
                states, overflow = (
                    exact_odds(fight, data, withdraw=Never(), state_budget=args.budget).states,
                    False,
                )
            except ExactTooLarge:
                states, overflow = args.budget, True
        st0, mx, cost = combat_arrays(fight, data)
        table = withdraw_table_for(
            fight, data, parse_allocation("cheapest"), table_policy, st0, mx, cost
        )
        emit(
            f"exact_states_{name}",
            states,
            "states",
            overflow=overflow,
            seconds=round(t.seconds, 3),
            table_states=table.states,
            budget=args.budget,
        )


if __name__ == "__main__":
    main()

"""The optimal withdraw table (simkit.combat.table) as a rule a player can follow at the table.

A solved table stores one decision per combat state it explored, keyed by the state itself
(simkit.kernels.low.combat_table_lookup.state_keys). :func:`table_states` decodes those
keys into plain facts (units and damage per stack, sanity, damage on each Old One) and
:func:`withdraw_rule` folds them into a short grid: one row per situation of your force
(units left and damage on them) where withdrawing is ever right, one column per Sanity
level, each cell "stay", "withdraw" or a threshold on the Old One's damage.

    >>> from simkit.combat import Combat, combat_arrays, policies, withdraw_table_for
    >>> from simkit.datapack import load_pack
    >>> data = load_pack()
    >>> fight = Combat.parse("infantry=1,airship=1", "mi_go")
    >>> st, mx, cost = combat_arrays(fight, data)
    >>> alloc, wd = policies(None, "table-value")
    >>> rule = withdraw_rule(withdraw_table_for(fight, data, alloc, wd, st, mx, cost), fight)
    >>> rule["withdrawing"] > 0 and len(rule["rows"]) > 0
    True
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.hashtable import EMPTY
from simkit.names import NUM_STACKS, OLD_ONES, STACKS

_TAG_BITS = (1 << 31) - 1  # key2's low bits (combat_table_lookup.TAG_SHIFT)

DECISIONS = {
    C.STAY: "stay",
    C.WITHDRAW_AIRSHIPS: "withdraw Airships",
    C.WITHDRAW_OTHERS: "withdraw all but Airships",
    C.WITHDRAW_ALL: "withdraw",
}


def _decision(option: int, units: dict[str, int]) -> str:
    """What a withdraw option does to these units: a group that is all there is is 'withdraw'."""
    airships = units.get("airship", 0) > 0
    others = any(n for name, n in units.items() if name not in ("airship", "outpost", "port"))
    if option == C.WITHDRAW_AIRSHIPS and not others or option == C.WITHDRAW_OTHERS and not airships:
        option = C.WITHDRAW_ALL
    return DECISIONS.get(option, f"option {option}")


def table_states(solved, n_old_ones: int) -> list[dict[str, Any]]:
    """Every state a solved withdraw table holds, decoded: ``units`` and ``damage`` per stack
    (names, only stacks with units), ``sanity``, ``old_one_damage`` (one per Old One tile),
    ``jones_used`` and ``decision`` (a DECISIONS text). Empty for a table shared by many
    forces (SharedTables) or a fight decided before the first card."""
    if solved is None or getattr(solved, "shared", False):
        return []
    rows = solved.table[solved.table[:, 0] != EMPTY]
    out = []
    for k1, k2, decision, _ in rows.tolist():
        counts, damage = [0] * NUM_STACKS, [0] * NUM_STACKS
        for s in range(NUM_STACKS - 1, -1, -1):
            damage[s] = k1 & 7
            k1 >>= 3
            counts[s] = k1 & 31
            k1 >>= 5
        k2 &= _TAG_BITS
        jones = k2 & 1
        k2 >>= 1
        oo = [0] * C.MAX_OLD_ONES
        for i in range(C.MAX_OLD_ONES - 1, -1, -1):
            oo[i] = k2 & 63
            k2 >>= 6
        units = {STACKS[s]: counts[s] for s in range(NUM_STACKS) if counts[s]}
        out.append(
            {
                "units": units,
                "damage": {STACKS[s]: damage[s] for s in range(NUM_STACKS) if counts[s]},
                "sanity": k2,
                "old_one_damage": oo[:n_old_ones],
                "jones_used": bool(jones),
                "decision": _decision(int(decision), units),
            }
        )
    return out


def units_label(units: dict[str, int], damage: dict[str, int]) -> str:
    """'2 infantry (1 damage), 1 artillery'."""
    parts = []
    for name, n in units.items():
        text = f"{n} {name.replace('_', ' ')}"
        if damage.get(name):
            text += f" ({damage[name]} damage)"
        parts.append(text)
    return ", ".join(parts) or "nothing"


def _cell(decisions: dict[tuple[int, ...], str], single: bool) -> str:
    """One (force situation, sanity) cell: the decisions over the Old One damage states."""
    kinds = set(decisions.values())
    if kinds == {"stay"}:
        return "stay"
    if "stay" not in kinds and len(kinds) == 1:
        return kinds.pop()
    leave = {d for d, k in decisions.items() if k != "stay"}
    kinds_out = sorted({k for k in decisions.values() if k != "stay"})
    if len(kinds_out) == 1:
        go = kinds_out[0]
    else:  # e.g. all in some damage states, only the Airships in others
        groups = [k.removeprefix("withdraw").strip() or "all" for k in kinds_out]
        go = f"withdraw ({' or '.join(groups)})"
    total = {d: sum(d) for d in decisions}
    top = max(total[d] for d in leave)
    if all((total[d] <= top) == (d in leave) for d in decisions):
        return f"{go} if dmg \u2264 {top}"
    low = min(total[d] for d in leave)
    if all((total[d] >= low) == (d in leave) for d in decisions):
        return f"{go} if dmg \u2265 {low}"
    shown = ", ".join("/".join(map(str, d)) for d in sorted(leave))
    return f"{go} at dmg {shown}" + ("" if single else " (per Old One)")


def withdraw_rule(solved, combat) -> dict[str, Any]:
    """The table as a grid a player reads: ``columns`` (Sanity levels, highest first),
    ``rows`` (force situations where withdrawing is ever optimal, most units first; each
    ``units`` label and one ``cells`` text per column, '' where the state never occurs),
    ``states`` and ``withdrawing`` (counts of the table's states), and ``otherwise``."""
    states = table_states(solved, len(combat.old_ones))
    single = len(combat.old_ones) == 1
    grid: dict[tuple, dict[int, dict[tuple[int, ...], str]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    labels: dict[tuple, str] = {}
    for s in states:
        key = (tuple(s["units"].items()), tuple(s["damage"].items()), s["jones_used"])
        labels[key] = units_label(s["units"], s["damage"]) + (
            " (Jones used)" if s["jones_used"] else ""
        )
        grid[key][s["sanity"]][tuple(s["old_one_damage"])] = s["decision"]
    sanity = sorted({s["sanity"] for s in states}, reverse=True)
    rows = []
    for key in sorted(grid, key=lambda k: (-sum(n for _, n in k[0]), k)):
        cells = [_cell(grid[key][v], single) if v in grid[key] else "" for v in sanity]
        if any(c not in ("stay", "") for c in cells):
            rows.append({"units": labels[key], "cells": cells})
    names = " + ".join(OLD_ONES[t] for t in combat.old_ones)
    return {
        "vs": names,
        "columns": [f"Sanity {v}" for v in sanity],
        "rows": rows,
        "states": len(states),
        "withdrawing": sum(s["decision"] != "stay" for s in states),
        "otherwise": "stay" if rows else "never withdraw: fighting on is always at least as good",
        "damage_means": (
            f"dmg: damage on the {names} so far"
            if single
            else f"dmg: total damage on the {names} so far"
        ),
    }

"""Exact odds by backward induction over deck compositions (simkit.kernels.combat_exact),
the withdraw table a policy plays, and an optimal policy in words."""

from __future__ import annotations

from typing import Any

import numpy as np

from simkit.combat.parse import Combat, available_cards, combat_arrays, policies
from simkit.combat.result import CombatOdds, _lost_dict, _policy_names
from simkit.combat.states import STATE_BUDGET, _deck_classes, pass_bound
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import LOST_HIST, start_combat
from simkit.kernels.combat_exact import (
    CARDS,
    CTX_OVERFLOW,
    CTX_STATES,
    FLIP,
    GOLD,
    HIST,
    LOST,
    NV,
    OUT,
    node_value,
    terminal,
)
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.hashtable import new_table
from simkit.names import NUM_STACKS, OUTPOST, PORT, UNITS
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalTable, OptimalWithdrawal

MAX_FORCE = 12  # units per stack the exact solver accepts
MAX_SPLITS = 4096  # ways to share one card's cubes, for --allocate optimal
EXACT_PASSES = 8  # fresh decks the exact solver's buffers hold (a longer fight: use mc)


class ExactTooLarge(UserError):
    """The matchup needs more exact-solver states than the budget allows."""


def withdraw_table_for(
    combat: Combat, data: AuzData, allocate, withdraw, st0, mx, cost, seen: tuple[int, ...] = ()
):
    """The solved table an OptimalTable policy plays (simkit.combat.table), else None."""
    if not isinstance(withdraw, OptimalTable):
        return None
    from simkit.combat.table import solve_withdraw_table

    destroy_value = withdraw.destroy_value
    if destroy_value is None:
        destroy_value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    return solve_withdraw_table(
        st0, mx, cost, data, allocate, withdraw, destroy_value, available_cards(data, seen)
    )


def _table_array(solved) -> np.ndarray:
    from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE

    return EMPTY_TABLE if solved is None else solved.table


def exact_odds(
    combat: Combat,
    data: AuzData,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    objective: str | None = None,
    state_budget: int = STATE_BUDGET,
    solved_table=None,
) -> CombatOdds:
    """Exact outcome probabilities by backward induction over deck compositions.

    ``withdraw`` may be a fixed policy or OptimalWithdrawal (maximise P(destroy),
    ties to the cheaper line, or ``objective='value'``: destroy_value * P(destroy)
    minus expected Gold lost). ``allocate`` may be OptimalAllocation.
    ``solved_table``: for an OptimalTable policy, its table already solved for this very
    matchup, policy and ``seen`` (withdraw_table_for, or SharedTables), to price it
    without solving it again.
    """
    allocate, withdraw = policies(allocate, withdraw)
    st0, mx, cost = combat_arrays(combat, data)
    if max(combat.force) > MAX_FORCE:
        raise UserError(
            f"the exact method takes at most {MAX_FORCE} units per type; use --method mc"
        )
    available = available_cards(data, seen)
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1  # they fight as Infantry
    rep, full, avail, place = _deck_classes(data, force_mask, combat.old_ones, available)
    if int(np.prod((full + 1).astype(object))) >= 2**62:
        raise UserError(
            "this deck has too many distinct cards for the exact method; use --method mc"
        )
    cls_hits = (data.card_hits[rep] & force_mask).astype(np.uint8)
    alloc_id, alloc_params = allocate.lower()
    wd_id, wd_params = withdraw.lower()
    if solved_table is None or not isinstance(withdraw, OptimalTable):
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost, seen)
    wd_table = _table_array(solved_table)
    objective = objective or (
        withdraw.objective if isinstance(withdraw, OptimalWithdrawal) else "p_destroy"
    )
    destroy_value = getattr(withdraw, "destroy_value", None)
    if destroy_value is None:
        destroy_value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    ctx_i = np.array(
        [alloc_id, wd_id, 1 if objective == "value" else 0, data.port["flip_threshold"], 0, 0],
        dtype=np.int64,
    )
    ctx_f = np.array([destroy_value], dtype=np.float64)
    keys, rows = new_table(state_budget)
    values = np.empty((state_budget, NV))
    decisions = np.empty(state_budget, dtype=np.int8)
    features = np.empty((state_budget, 4), dtype=np.int16)
    st = st0.copy()
    outcome = start_combat(st, mx)
    if outcome != C.ONGOING:
        from simkit.kernels.combat import finish

        finish(st, mx, outcome)
        v = terminal(st, st0, cost, ctx_i, ctx_f)
    else:
        # a fight that outlasts EXACT_PASSES fresh decks outgrows the buffers: too large
        depth = avail.sum() + data.deck_size * min(pass_bound(st0, mx), EXACT_PASSES) + 2
        sbuf = np.zeros((depth, 3, C.STATE_SIZE), dtype=np.int64)
        vbuf = np.zeros((depth, 4, NV))
        ibuf = np.zeros((depth, 2, max(C.MAX_OLD_ONES, NUM_STACKS)), dtype=np.int64)
        cbuf = np.zeros((depth, full.size), dtype=np.int64)
        optimal_alloc = isinstance(allocate, OptimalAllocation)
        split_buf = np.zeros(
            (depth if optimal_alloc else 1, MAX_SPLITS if optimal_alloc else 3, NUM_STACKS),
            dtype=np.int64,
        )
        row = node_value(
            st,
            avail.copy(),
            full,
            place,
            st0,
            mx,
            cost,
            cls_hits,
            data.card_purple[rep].copy(),
            data.card_sanity[rep].copy(),
            data.card_airship[rep].copy(),
            alloc_params,
            wd_params,
            wd_table,
            ctx_i,
            ctx_f,
            keys,
            rows,
            values,
            decisions,
            features,
            sbuf,
            vbuf,
            ibuf,
            cbuf,
            split_buf,
        )
        v = values[row].copy() if row >= 0 else None
        if ctx_i[CTX_OVERFLOW] == 2:
            raise ExactTooLarge(
                f"a card splits its cubes more than {MAX_SPLITS} ways; use a fixed --allocate"
            )
        if ctx_i[CTX_OVERFLOW] != 0:
            raise ExactTooLarge(
                f"the exact method needs more than {state_budget:,} states for "
                f"{combat.describe()}; use --method mc"
            )
    names = _policy_names(allocate, withdraw)
    extra = (
        {"objective": objective, "destroy_value": destroy_value}
        if isinstance(withdraw, OptimalWithdrawal)
        else {}
    )
    if isinstance(withdraw, OptimalWithdrawal):
        n = int(ctx_i[CTX_STATES])
        extra["decision_nodes_withdrawing"] = int(np.count_nonzero(decisions[:n] > C.STAY))
        extra["policy_rules"] = policy_in_words(decisions[:n], features[:n])
    if solved_table is not None:
        extra.update(table_extra(solved_table, withdraw))
    return CombatOdds(
        method="exact",
        combat=combat.describe(),
        outcomes={name: float(v[OUT + o]) for o, name in enumerate(C.OUTCOME_NAMES)},
        expected_units_lost=_lost_dict(
            v[LOST : LOST + NUM_STACKS], st0[C.COUNT : C.COUNT + NUM_STACKS]
        ),
        expected_cards=float(v[CARDS]),
        expected_gold_lost=float(v[GOLD]),
        p_units_lost=[float(x) for x in v[HIST : HIST + LOST_HIST]],
        p_port_flip=float(v[FLIP]) if combat.port_strength else None,
        allocate=names[0],
        withdraw=names[1],
        seed=None,
        data_hash=data.hash,
        states=int(ctx_i[CTX_STATES]),
        extra=extra,
    )


def exact_needs_more(
    combat: Combat,
    data: AuzData,
    withdraw=None,
    state_budget: int = STATE_BUDGET,
    solved_table=None,
) -> bool | None:
    """Would :func:`exact_odds` (cheapest-first allocation, no cards seen) need more than
    ``state_budget`` states, i.e. raise ExactTooLarge? Counted by walking the solver's
    nodes without solving them (simkit.kernels.combat_exact_count), for a part of the
    price of a failed attempt. True: it would; False: it fits; None: not counted (a policy
    the count does not cover). ``solved_table``: as for exact_odds."""
    from simkit.kernels.combat_exact_count import COUNT_DEEP, COUNT_MORE, count_nodes

    allocate, withdraw = policies(None, withdraw)
    if max(combat.force) > MAX_FORCE:
        return None
    st0, mx, cost = combat_arrays(combat, data)
    available = available_cards(data, ())
    force_mask = sum(1 << u for u in range(len(UNITS)) if st0[C.COUNT + u] > 0)
    if st0[C.COUNT + OUTPOST] > 0 or st0[C.COUNT + PORT] > 0:
        force_mask |= 1  # they fight as Infantry
    rep, full, avail, place = _deck_classes(data, force_mask, combat.old_ones, available)
    if int(np.prod((full + 1).astype(object))) >= 2**62:
        return None
    alloc_id, alloc_params = allocate.lower()
    wd_id, wd_params = withdraw.lower()
    if solved_table is None or not isinstance(withdraw, OptimalTable):
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost)
    st = st0.copy()
    if start_combat(st, mx) != C.ONGOING:
        return False
    depth = avail.sum() + data.deck_size * min(pass_bound(st0, mx), EXACT_PASSES) + 2
    keys, rows = new_table(state_budget + 1)
    count = np.zeros(1, dtype=np.int64)
    found = count_nodes(
        st,
        avail.copy(),
        full,
        place,
        st0,
        mx,
        cost,
        (data.card_hits[rep] & force_mask).astype(np.uint8),
        data.card_purple[rep].copy(),
        data.card_sanity[rep].copy(),
        data.card_airship[rep].copy(),
        alloc_id,
        alloc_params,
        wd_id,
        wd_params,
        _table_array(solved_table),
        isinstance(withdraw, OptimalWithdrawal),
        keys,
        rows,
        count,
        state_budget,
        np.zeros((depth, 3, C.STATE_SIZE), dtype=np.int64),
        np.zeros((depth, 2, max(C.MAX_OLD_ONES, NUM_STACKS)), dtype=np.int64),
        np.zeros((depth, full.size), dtype=np.int64),
    )
    return found in (COUNT_MORE, COUNT_DEEP)


def table_extra(solved, withdraw) -> dict[str, Any]:
    """What a result reports about the withdraw table it played (``table_shared``: the
    state counts are those of a memo shared by many forces, simkit.combat.table.SharedTables)."""
    extra = {
        "table_states": solved.states,
        "table_objective": withdraw.objective,
        "table_states_withdrawing": (
            solved.withdrawing
            if getattr(solved, "withdrawing", None) is not None
            else int(np.count_nonzero(solved.decisions > C.STAY))
        ),
        "table_model_p_destroy": float(
            solved.value[OUT + C.WIN] + solved.value[OUT + C.WIN_AND_DEFEAT]
        ),
    }
    if getattr(solved, "shared", False):
        extra["table_shared"] = True
    return extra


def policy_in_words(decisions: np.ndarray, features: np.ndarray) -> list[str]:
    """Summarise an optimal withdraw policy by (sanity, units left) over all decision states.

    A line per situation where withdrawing is ever optimal: "always" if every such state
    withdraws, otherwise how often and what it depends on (Old One damage, cards seen).
    States are counted whether or not the optimal line reaches them; the root (the
    state before the first card, stored last) comes first.
    """
    if decisions.size and decisions[-1] > C.STAY:
        return ["withdraw before the first card: fighting this matchup cannot pay"]
    lines = []
    sanity, units, damage = features[:, 0], features[:, 1], features[:, 2]
    for s in sorted(set(sanity.tolist())):
        for u in sorted(set(units[sanity == s].tolist())):
            here = (sanity == s) & (units == u)
            leave = decisions[here] > C.STAY
            if not leave.any():
                continue
            where = f"with {s} sanity and {u} unit{'s' if u != 1 else ''} left"
            if leave.all():
                lines.append(f"{where}: always withdraw")
                continue
            stay_dmg = damage[here][~leave]
            leave_dmg = damage[here][leave]
            hint = ""
            if leave_dmg.max() < stay_dmg.min():
                hint = f" when the Old One has at most {leave_dmg.max()} damage"
            lines.append(
                f"{where}: withdraw in {leave.mean():.0%} of situations{hint}"
                f"{'' if hint else ' (it depends on the cards already seen)'}"
            )
    return lines or ["never withdraw: fighting on is always at least as good"]

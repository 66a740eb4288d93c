"""The optimal withdraw table for one matchup (simkit.kernels.combat_table).

The exact solver's optimal withdrawal counts every card; this table is the exact
optimum when each draw is treated as independent with the deck's proportions, i.e. for
a player who does not count cards. It is small enough to solve inside every game
combat, and any method (exact, Monte Carlo, the game engine) can *play* it:

    >>> from simkit.combat import Combat, exact_odds
    >>> from simkit.datapack import load_pack
    >>> odds = exact_odds(Combat.parse("infantry=2", "mi_go"), load_pack(), withdraw="table")
    >>> odds.extra["table_states"] > 0
    True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import finish, start_combat
from simkit.kernels.combat_exact import CTX_STATES, NV, OBJ_P_DESTROY, OBJ_VALUE, terminal
from simkit.kernels.combat_table import DEPTH, group_deck, solve_table
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE, new_withdraw_table
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalTable

TABLE_STATES = 400_000  # far above any force the game can field; the API says so if not
FIRST_BUDGET = 4_096


@dataclass(frozen=True)
class WithdrawTable:
    table: np.ndarray  # hash table (key1, key2, decision, row), see combat_table_lookup
    value: np.ndarray  # future-value vector of the start state (combat_exact layout)
    states: int
    decisions: np.ndarray  # option per stored state (row order)


def table_work(max_states: int, n_cards: int, cached_states: int = 0, cached_matchups: int = 0):
    """Work buffers for solve_table; with ``cached_*`` also for cached_table (the game
    engine keeps one set per workspace: one table holds many matchups' entries)."""
    from simkit.kernels.combat_table import SIG_SIZE
    from simkit.kernels.low.hashtable import new_table

    sig_keys, sig_rows = new_table(max(cached_matchups, 1))
    return dict(
        table=new_withdraw_table(max(max_states, cached_states)),
        sigs=np.zeros((cached_matchups, SIG_SIZE), dtype=np.int64),
        sig_keys=sig_keys,
        sig_rows=sig_rows,
        sig=np.zeros(SIG_SIZE, dtype=np.int64),
        cache_i=np.zeros(2, dtype=np.int64),
        slots_used=np.zeros(max_states, dtype=np.int64),
        values=np.zeros((max_states, NV)),
        sbuf=np.zeros((DEPTH, 3, C.STATE_SIZE), dtype=np.int64),
        vbuf=np.zeros((DEPTH, 3, NV)),
        ibuf=np.zeros((DEPTH, 2, max(C.MAX_OLD_ONES, C.NUM_STACKS)), dtype=np.int64),
        rep=np.zeros(n_cards, dtype=np.int64),
        prob=np.zeros(n_cards),
    )


def solve_withdraw_table(
    st0: np.ndarray,
    mx: np.ndarray,
    cost: np.ndarray,
    data: AuzData,
    allocate,
    policy: OptimalTable,
    destroy_value: float,
    available: np.ndarray | None = None,
    max_states: int = TABLE_STATES,
) -> WithdrawTable:
    """Solve the table for the combat (st0, mx); ``available`` masks cards already seen."""
    if isinstance(allocate, OptimalAllocation):
        raise UserError(
            "the withdraw table plays a fixed --allocate policy (cheapest, spread, protect:...)"
        )
    alloc_id, alloc_params = allocate.lower()
    st = st0.copy()
    outcome = start_combat(st, mx)
    ctx_i = np.array(
        [
            alloc_id,
            0,
            OBJ_VALUE if policy.objective == "value" else OBJ_P_DESTROY,
            data.port["flip_threshold"],
            0,
            0,
        ],
        dtype=np.int64,
    )
    ctx_f = np.array([destroy_value], dtype=np.float64)
    if outcome != C.ONGOING:  # decided before the first card (Bombardier Milligan)
        finish(st, mx, outcome)
        return WithdrawTable(
            EMPTY_TABLE, terminal(st, st0, cost, ctx_i, ctx_f), 0, np.zeros(0, dtype=np.int8)
        )
    n = data.card_hits.shape[0]
    weight = np.ones(n) if available is None else available.astype(np.float64)
    budget = min(FIRST_BUDGET, max_states)
    while True:  # small buffers first (most tables have tens to hundreds of states)
        w = table_work(budget, n)
        group_deck(
            st,
            mx,
            data.card_hits,
            data.card_purple,
            data.card_sanity,
            data.card_airship,
            weight,
            w["rep"],
            w["prob"],
        )
        row = solve_table(
            st,
            mx,
            cost,
            data.card_hits,
            data.card_purple,
            data.card_sanity,
            data.card_airship,
            w["rep"],
            w["prob"],
            alloc_params,
            ctx_i,
            ctx_f,
            0,
            w["table"],
            w["slots_used"],
            w["values"],
            w["sbuf"],
            w["vbuf"],
            w["ibuf"],
        )
        if row >= 0 or budget >= max_states:
            break
        budget = min(budget * 16, max_states)
    if row < 0:
        raise UserError(
            f"the withdraw table needs more than {max_states:,} states for this matchup"
        )
    states = int(ctx_i[CTX_STATES])
    decisions = w["table"][w["slots_used"][:states], 2].astype(np.int8)
    return WithdrawTable(w["table"], w["values"][row].copy(), states, decisions)

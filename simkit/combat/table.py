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
from simkit.kernels.combat_exact import (
    CTX_OVERFLOW,
    CTX_STATES,
    NV,
    OBJ_P_DESTROY,
    OBJ_VALUE,
    terminal,
)
from simkit.kernels.combat_memo import table_memo
from simkit.kernels.combat_table import DEPTH, group_deck, solve_table
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import CombatKit, combat_kit
from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE, new_withdraw_table
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import Never, OptimalTable

TABLE_STATES = 400_000  # far above any force the game can field; the API says so if not
FIRST_BUDGET = 4_096
SHARED_STATES = 4_000_000  # states one SharedTables memo may hold (~300 B each)
SHARED_FIRST = 16_384  # a memo's first buffers; they grow 4x when full


@dataclass(frozen=True)
class WithdrawTable:
    table: np.ndarray  # hash table (key1, key2, decision, row), see combat_table_lookup
    value: np.ndarray  # future-value vector of the start state (combat_exact layout)
    states: int
    decisions: np.ndarray  # option per stored state (row order)
    # True: ``table`` is a SharedTables memo's lookup (only its withdrawing states; any other
    # state is STAY), ``states`` counts the memo's states (all its forces so far),
    # ``decisions`` is empty and ``withdrawing`` counts the memo's withdrawing states
    shared: bool = False
    withdrawing: int | None = None


def table_kit(data: AuzData, mx: np.ndarray, cost: np.ndarray, allocate) -> CombatKit:
    """The CombatKit a withdraw-table solve reads: the pack's cards, the matchup and the
    (fixed) allocation; it plays no withdrawal of its own."""
    return combat_kit(
        data,
        mx,
        cost,
        np.ones(data.card_hits.shape[0], dtype=np.int64),
        allocate.lower(),
        Never().lower(),
        EMPTY_TABLE,
        data.port["flip_threshold"],
    )


def table_ctx(allocate, policy: OptimalTable, data: AuzData) -> np.ndarray:
    """A table solve's integer settings (simkit.kernels.combat_exact CTX_*)."""
    objective = OBJ_VALUE if policy.objective == "value" else OBJ_P_DESTROY
    return np.array(
        [allocate.lower()[0], 0, objective, data.port["flip_threshold"], 0, 0], dtype=np.int64
    )


def table_work(
    max_states: int,
    n_cards: int,
    ctx_i: np.ndarray,
    ctx_f: np.ndarray,
    masks: int = 1,
    table_states: int = 0,
) -> dict[str, np.ndarray]:
    """The fields of a TableMemo (simkit.kernels.combat_memo; ``table_memo(**work)``) for
    up to ``max_states`` states with card classes for ``masks`` hit masks (1: per force);
    its table holds ``table_states`` states if that is more (a cache of many matchups')."""
    return dict(
        ctx_i=ctx_i,
        ctx_f=ctx_f,
        tag=np.int64(0),
        table=new_withdraw_table(max(max_states, table_states)),
        slots_used=np.zeros(max_states, dtype=np.int64),
        values=np.zeros((max_states, NV)),
        flags=np.zeros(max_states if masks > 1 else 0, dtype=np.int8),
        reps=np.zeros((masks, n_cards), dtype=np.int64),
        probs=np.zeros((masks, n_cards)),
        n_classes=np.zeros(masks, dtype=np.int64),
        sbuf=np.zeros((DEPTH, 3, C.STATE_SIZE), dtype=np.int64),
        vbuf=np.zeros((DEPTH, 3, NV)),
        ibuf=np.zeros((DEPTH, 2, max(C.MAX_OLD_ONES, C.NUM_STACKS)), dtype=np.int64),
    )


def cache_work(n_cards: int, cached_matchups: int) -> dict[str, np.ndarray]:
    """The fields of a TableCache (simkit.kernels.combat_memo) for ``cached_matchups``
    tables (the game engine keeps one per workspace, next to a TableMemo whose table holds
    all their entries); cards drawn with equal weight."""
    from simkit.kernels.combat_table import SIG_SIZE
    from simkit.kernels.low.hashtable import new_table

    sig_keys, sig_rows = new_table(max(cached_matchups, 1))
    return dict(
        weight=np.ones(n_cards),
        sigs=np.zeros((cached_matchups, SIG_SIZE), dtype=np.int64),
        sig_keys=sig_keys,
        sig_rows=sig_rows,
        sig=np.zeros(SIG_SIZE, dtype=np.int64),
        cache_i=np.zeros(2, dtype=np.int64),
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
    st = st0.copy()
    outcome = start_combat(st, mx)
    ctx_i = table_ctx(allocate, policy, data)
    ctx_f = np.array([destroy_value], dtype=np.float64)
    if outcome != C.ONGOING:  # decided before the first card (Bombardier Milligan)
        finish(st, mx, outcome)
        return WithdrawTable(
            EMPTY_TABLE, terminal(st, st0, cost, ctx_i, ctx_f), 0, np.zeros(0, dtype=np.int8)
        )
    n = data.card_hits.shape[0]
    weight = np.ones(n) if available is None else available.astype(np.float64)
    kit = table_kit(data, mx, cost, allocate)
    budget = min(FIRST_BUDGET, max_states)
    while True:  # small buffers first (most tables have tens to hundreds of states)
        w = table_work(budget, n, ctx_i, ctx_f)
        memo = table_memo(**w)
        group_deck(st, kit, weight, memo)
        row = solve_table(st, kit, memo)
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


class SharedTables:
    """The withdraw tables of many starting forces against one matchup, from one memo.

    A table's state (stack counts and damage, sanity, Old One damage) does not remember how
    the fight started, so every force against the same Old Ones (same ``mx``, costs,
    allocation, objective, destroy value and deck) can share one memo
    (simkit.kernels.combat_table_shared): :meth:`solve` solves only the states that no
    earlier force reached. Cards are grouped by what they do to the units still fighting in
    each state (the same values as a force's own classes, up to rounding). Monte Carlo plays
    :attr:`lookup`, which holds only the withdrawing states (any other state is STAY).
    """

    def __init__(
        self,
        mx: np.ndarray,
        cost: np.ndarray,
        data: AuzData,
        allocate,
        policy: OptimalTable,
        destroy_value: float,
        available: np.ndarray | None = None,
        max_states: int = SHARED_STATES,
    ):
        if isinstance(allocate, OptimalAllocation):
            raise UserError(
                "the withdraw table plays a fixed --allocate policy (cheapest, spread, protect:...)"
            )
        self.mx = mx.copy()
        self.cost = cost.copy()
        self.max_states = max_states
        self.ctx_i = table_ctx(allocate, policy, data)
        self.ctx_f = np.array([destroy_value], dtype=np.float64)
        from simkit.kernels.combat_table_shared import MASKS, group_by_mask

        n = data.card_hits.shape[0]
        weight = np.ones(n) if available is None else available.astype(np.float64)
        self.kit = table_kit(data, self.mx, self.cost, allocate)
        self.capacity = min(SHARED_FIRST, max_states)
        self.work = table_work(self.capacity, n, self.ctx_i, self.ctx_f, masks=MASKS)
        self.memo = table_memo(**self.work)
        group_by_mask(self.kit, weight, self.memo)
        self.lookup = new_withdraw_table(64)
        self.withdrawing = 0  # entries in lookup
        self.looked = 0  # memo rows already scanned into lookup

    def _grow(self) -> None:
        """Move the memo into buffers 4x as large (the card classes and work buffers stay)."""
        from simkit.kernels.combat_table_shared import rehash

        old, n = self.work, self.states
        self.capacity = min(self.capacity * 4, self.max_states)
        masks, n_cards = old["reps"].shape
        new = table_work(self.capacity, n_cards, self.ctx_i, self.ctx_f, masks=masks)
        for name in ("reps", "probs", "n_classes", "sbuf", "vbuf", "ibuf"):
            new[name] = old[name]
        rehash(old["table"], old["slots_used"], n, new["table"], new["slots_used"])
        new["values"][:n] = old["values"][:n]
        new["flags"][:n] = old["flags"][:n]
        self.work = new
        self.memo = table_memo(**new)

    @property
    def states(self) -> int:
        return int(self.ctx_i[CTX_STATES])

    def _update_lookup(self) -> None:
        from simkit.kernels.combat_table_shared import add_withdrawing

        table, slots_used = self.work["table"], self.work["slots_used"]
        start, end = self.looked, self.states
        new = int(np.count_nonzero(table[slots_used[start:end], 2] > C.STAY))
        if 2 * (self.withdrawing + new) > self.lookup.shape[0]:  # keep it at most half full
            self.lookup = new_withdraw_table(2 * (self.withdrawing + new))
            self.withdrawing = 0
            start = 0
        self.withdrawing += add_withdrawing(table, slots_used, start, end, self.lookup)
        self.looked = end

    def solve(self, st0: np.ndarray, mx: np.ndarray) -> tuple[WithdrawTable, bool]:
        """The table of the combat starting at (st0, mx): (its WithdrawTable, whether the
        table withdraws in any state it explores, as a table solved alone would)."""
        from simkit.kernels.combat_table_shared import OVERFLOW_VALUES, solve_shared

        if not np.array_equal(mx, self.mx):
            raise ValueError("SharedTables.solve: this combat is another matchup")
        st = st0.copy()
        outcome = start_combat(st, mx)
        if outcome != C.ONGOING:  # decided before the first card (Bombardier Milligan)
            finish(st, mx, outcome)
            value = terminal(st, st0, self.cost, self.ctx_i, self.ctx_f)
            return WithdrawTable(EMPTY_TABLE, value, 0, np.zeros(0, dtype=np.int8)), False
        while True:
            row = solve_shared(st, self.kit, self.memo)
            if row >= 0:
                break
            if self.ctx_i[CTX_OVERFLOW] != OVERFLOW_VALUES or self.capacity >= self.max_states:
                raise UserError(
                    f"the shared withdraw table needs more than {self.capacity:,} states"
                )
            self._grow()
        self._update_lookup()
        solved = WithdrawTable(
            self.lookup,
            self.work["values"][row].copy(),
            self.states,
            np.zeros(0, dtype=np.int8),
            shared=True,
            withdrawing=self.withdrawing,
        )
        return solved, bool(self.work["flags"][row])

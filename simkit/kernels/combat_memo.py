"""The exact and table solvers' own containers, as numba StructRefs (one pointer each).

A solver kernel takes ``(mode, st, kit, memo)``: the state, the fight's CombatKit
(simkit.kernels.low.combat_kit: cards, matchup, policies) and one of these, which holds
what belongs to one solve: its settings (``ctx_i``, ``ctx_f``, see combat_exact.CTX_*),
the memo (hash table and stored values) and the per-depth work buffers (depth = cards
drawn so far; the solvers allocate nothing while they recurse).

ExactMemo (simkit.kernels.combat_exact), fields:

    full, place, st0     the full deck by class, composition_key's radices, the root state
    ctx_i, ctx_f         settings, overflow flag and states stored (count: states counted)
    limit                count mode: the state budget the count stops at
    keys, rows           hash table (simkit.kernels.low.hashtable) of stored nodes
    values, decisions, features   per stored node (value mode)
    sbuf, vbuf, ibuf, cbuf, split_buf   per-depth work buffers

TableMemo (simkit.kernels.combat_table), fields:

    ctx_i, ctx_f, tag    settings; which matchup's entries of ``table`` are solved
    table, slots_used    withdraw table (key1, key2, decision, row) and each row's slot
    values, flags        per stored state: future value; 1 if it or a state below withdraws
    reps, probs, n_classes   card classes per hit mask (per-force: one row, mask 0)
    sbuf, vbuf, ibuf     per-depth work buffers

TableCache: the solved tables a game keeps (combat_table.cached_table):
``weight, sigs, sig_keys, sig_rows, sig, cache_i``.
"""

from __future__ import annotations

import numba as nb

from simkit.kernels.low.jit import define_kit

EXACT_FIELDS = (
    "full",
    "place",
    "st0",
    "ctx_i",
    "ctx_f",
    "limit",
    "keys",
    "rows",
    "values",
    "decisions",
    "features",
    "sbuf",
    "vbuf",
    "ibuf",
    "cbuf",
    "split_buf",
)
TABLE_FIELDS = (
    "ctx_i",
    "ctx_f",
    "tag",
    "table",
    "slots_used",
    "values",
    "flags",
    "reps",
    "probs",
    "n_classes",
    "sbuf",
    "vbuf",
    "ibuf",
)
CACHE_FIELDS = ("weight", "sigs", "sig_keys", "sig_rows", "sig", "cache_i")


# one compiled solver for every memo: low.jit's kits type their fields without literals
ExactMemoType, ExactMemo = define_kit("ExactMemo", EXACT_FIELDS, __name__)
TableMemoType, TableMemo = define_kit("TableMemo", TABLE_FIELDS, __name__)
TableCacheType, TableCache = define_kit("TableCache", CACHE_FIELDS, __name__)


@nb.njit(cache=True)
def _exact_memo(t):
    return ExactMemo(*t)


@nb.njit(cache=True)
def _table_memo(t):
    return TableMemo(*t)


@nb.njit(cache=True)
def _table_cache(t):
    return TableCache(*t)


def exact_memo(**arrays) -> ExactMemo:
    """An ExactMemo from its fields by name (EXACT_FIELDS; the arrays are shared)."""
    return _exact_memo(tuple(arrays[name] for name in EXACT_FIELDS))


def table_memo(**arrays) -> TableMemo:
    """A TableMemo from its fields by name (TABLE_FIELDS; the arrays are shared)."""
    return _table_memo(tuple(arrays[name] for name in TABLE_FIELDS))


def table_cache(**arrays) -> TableCache:
    """A TableCache from its fields by name (CACHE_FIELDS; the arrays are shared)."""
    return _table_cache(tuple(arrays[name] for name in CACHE_FIELDS))

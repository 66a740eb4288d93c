"""A human's withdrawal rule in a game combat: thresholds, or the optimal withdraw table
(simkit.kernels.combat_table), solved from the combat's start and cached per matchup in
the workspace."""

import numpy as np

from simkit.kernels.combat import check_end, copy_into, start_combat
from simkit.kernels.combat_exact import CTX_ALLOC, CTX_FLIP_THRESHOLD, CTX_OBJECTIVE
from simkit.kernels.combat_memo import TableCache, TableMemo
from simkit.kernels.combat_table import cached_table, table_solver_kit
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.jit import kernel
from strategies.combat.withdrawal import TABLE as WD_TABLE
from strategies.combat.withdrawal import THRESHOLD as WD_THRESHOLD
from strategies.combat.withdrawal import withdraw_decision


@kernel
def withdraw_table_tag(S, X, W, p, m, st_start):
    """The optimal withdraw table (simkit.kernels.combat_table) for the combat from
    state st_start (W.cmx) against tiles W.tiles2[:m], with player p's allocation and
    objective, draws modelled on the full deck (p does not count cards): its tag in the
    workspace's table cache, solved on a miss; -1 if it outgrew the buffers."""
    st = W.wt_st
    copy_into(st, st_start)
    if start_combat(st, W.cmx) != C.ONGOING:
        return 0  # decided before the first card: no decision will be looked up
    ctx_i = W.wt_ctx_i
    ctx_i[CTX_ALLOC] = int(X.params[p, L.SP_ALLOC])
    ctx_i[CTX_OBJECTIVE] = int(X.params[p, L.SP_WD_OBJECTIVE])
    value = 0.0
    for j in range(m):
        value += S.tile_vp[W.tiles2[j]]
    W.wt_ctx_f[0] = value
    kit = table_solver_kit(
        S, W.cmx, W.mx_cost, ctx_i[CTX_ALLOC], W.alloc_params, ctx_i[CTX_FLIP_THRESHOLD]
    )
    memo = TableMemo(
        ctx_i,
        W.wt_ctx_f,
        0,
        W.wt_table,
        W.wt_slots,
        W.wt_values,
        np.zeros(0, dtype=np.int8),  # flags: a per-force table keeps none
        W.wt_rep,
        W.wt_prob,
        np.zeros(1, dtype=np.int64),  # its class count (group_deck)
        W.wt_sbuf,
        W.wt_vbuf,
        W.wt_ibuf,
    )
    cache = TableCache(W.wt_weight, W.wt_sigs, W.wt_sig_keys, W.wt_sig_rows, W.wt_sig, W.wt_cache)
    return cached_table(st, kit, memo, cache)


@kernel
def stays_in(S, X, W, p, m, st):
    """Would player p's withdrawal rule stay in the combat (W.cmx) at state st, before
    the next card? For the table: the one solved with st as the combat's start."""
    wd = int(X.params[p, L.SP_WD_ID])
    if wd == WD_TABLE:
        tag = withdraw_table_tag(S, X, W, p, m, st)
        if tag >= 0:
            if check_end(W.wt_st, W.cmx, False) != C.ONGOING:
                return True  # over before the first card: nobody retreats
            W.wd_params[0] = tag
            option = withdraw_decision(WD_TABLE, W.wd_params, W.wt_table, W.wt_st, W.cmx)
            W.wd_params[0] = X.params[p, L.SP_WD_SANITY]
            return option == C.STAY
        wd = WD_THRESHOLD  # as in the fight: the strategy's thresholds (if any) decide
    return withdraw_decision(wd, W.wd_params, W.wt_table, st, W.cmx) == C.STAY

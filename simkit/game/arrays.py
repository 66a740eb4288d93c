"""Lower a data pack, a map, the survey tiles and the game rules to the kernels' arrays
(simkit.kernels.low.game_layout Static / State / Work)."""

from __future__ import annotations

import numpy as np

from simkit.board import Board, SurveyTiles, old_one_pool
from simkit.board.setup import fresh_stacks
from simkit.datapack import AuzData
from simkit.errors import DataPackError
from simkit.game.config import GameRules
from simkit.game.readings import load_readings, reading_vector
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import all_pairs_distances

LOG_CAPACITY = 8192


def build_static(board: Board, tiles: SurveyTiles, data: AuzData, rules: GameRules) -> L.Static:
    level, kind = old_one_pool(data)
    cap = np.repeat(data.tile_capacity, data.tile_count).astype(np.int64)
    vp = np.repeat(data.tile_vp, data.tile_count).astype(np.int64)
    stacks0, size0 = fresh_stacks(level)
    cost = data.unit_cost[: L.NUM_UNITS]
    if np.any(cost != np.round(cost)):
        raise DataPackError("units.toml", "the full game needs whole-Gold unit costs")
    myth = mythos_deck(data)
    r = rules.r.copy()
    r[L.R_SANITY] = data.sanity_per_combat
    r[L.R_OUTPOST_SUPPLY] = data.unit_box_count[L.OUTPOST_STACK]
    r[L.R_READ : L.R_READ + len(L.READINGS)] = reading_vector(
        load_readings(data.path or None), dict(data.readings)
    )
    bits = np.arange(L.NUM_UNITS)
    hits = ((data.card_hits[:, :, None].astype(np.int64) >> bits) & 1).astype(
        np.float64
    )  # [card, type, unit]
    hit_rate = hits.mean(axis=0)
    harm_rate = np.stack(
        [
            data.card_purple.mean(axis=0),
            data.card_sanity.mean(axis=0),
            data.card_airship.mean(axis=0),
        ],
        axis=1,
    ).astype(np.float64)
    level_cap = np.zeros(4)
    level_vp = np.zeros(4)
    level_hit = np.zeros((4, L.NUM_UNITS))
    level_harm = np.zeros((4, 3))
    for lv in (1, 2, 3):
        at = level == lv
        if not at.any():
            continue
        level_vp[lv] = vp[at].mean()
        real = at & (kind >= 0)
        if real.any():
            level_cap[lv] = cap[real].mean()
            level_hit[lv] = hit_rate[kind[real]].mean(axis=0)
            level_harm[lv] = harm_rate[kind[real]].mean(axis=0)
    return L.Static(
        neighbors=board.neighbors.astype(np.int32),
        hex_dist=all_pairs_distances(board.neighbors.astype(np.int32)),
        hex_terrain=board.hex_terrain.astype(np.int64),
        hex_level=board.hex_level.astype(np.int64),
        hex_port=board.hex_port.astype(bool),
        hex_farms=board.hex_farms.astype(np.int64),
        hex_q=board.hex_q.astype(np.int64),
        hex_r=board.hex_r.astype(np.int64),
        survey_hex=board.survey_hexes.astype(np.int64),
        survey_resource=tiles.tile_resource.astype(np.int64),
        survey_old_one=tiles.tile_old_one.astype(np.int64),
        tile_level=level,
        tile_type=kind,
        tile_cap=cap,
        tile_vp=vp,
        stacks0=stacks0.astype(np.int64),
        stack_size0=size0.astype(np.int64),
        card_hits=data.card_hits,
        card_purple=data.card_purple,
        card_sanity=data.card_sanity,
        card_airship=data.card_airship,
        card_moves=data.card_moves,
        card_compass=data.card_compass,
        card_rotation=data.card_rotation,
        type_moves=data.old_one_moves.astype(bool),
        type_heals=data.old_one_heals.astype(bool),
        unit_cost=cost.astype(np.int64),
        unit_cost_f=data.unit_cost.astype(np.float64),
        unit_cap=data.unit_capacity.astype(np.int64),
        unit_range=data.unit_range[: L.NUM_UNITS].astype(np.int64),
        unit_supply=data.unit_box_count[: L.NUM_UNITS].astype(np.int64),
        r=r,
        illuminated=rules.illuminated.astype(bool),
        rev_level=rules.rev_level,
        rev_kind=rules.rev_kind,
        rev_benefit=rules.rev_benefit,
        rev_benefit_amount=rules.rev_benefit_amount,
        pers_effect=rules.pers_effect,
        pers_unit=rules.pers_unit,
        pers_amount=rules.pers_amount,
        pers_vp=rules.pers_vp,
        pers_one_use=rules.pers_one_use,
        hit_rate=hit_rate,
        harm_rate=harm_rate,
        level_cap=level_cap,
        level_vp=level_vp,
        level_hit=level_hit,
        level_harm=level_harm,
        unit_oop_vp=np.asarray(data.unit_oop_vp, dtype=np.int64),
        unit_oop_vp_alt=np.asarray(data.unit_oop_vp_alt, dtype=np.int64),
        port_rev=np.array(
            [
                data.port["strength_normal"],
                data.port["strength_weak"],
                data.port["flip_threshold"],
                data.port["sanity_strength_4"],
                data.port["sanity_strength_2"],
                data.port["oop_vp"],
            ],
            dtype=np.int64,
        ),
        myth_effect=myth.effect.astype(np.int64),
        myth_tp=myth.tp_cost.astype(np.int64),
        myth_combat=myth.combat.astype(np.int64),
        myth_amount=myth.amount.astype(np.int64),
        myth_level=myth.level.astype(np.int64),
    )


def mythos_deck(data: AuzData):
    """The pack's Mythos cards (mythos_cards.csv; the shipped deck if the pack has none),
    with the data's mythos.<card>.<field> overrides."""
    from pathlib import Path

    from simkit.game.mythos import FILE, load_mythos, with_values

    here = Path(data.path) if data.path else None
    deck = load_mythos(here if here is not None and (here / FILE).is_file() else None)
    return with_values(deck, data.mythos_set)


def new_state(S: L.Static, log_capacity: int = LOG_CAPACITY) -> L.State:
    n = S.neighbors.shape[0]
    nt = S.tile_level.size
    return L.State(
        g=np.zeros(L.G_SIZE, dtype=np.int64),
        pl=np.zeros((L.MAX_PLAYERS, L.P_SIZE), dtype=np.int64),
        hx=np.zeros((n, L.H_SIZE), dtype=np.int64),
        hex_farm=np.zeros(n, dtype=np.int64),
        hex_target=np.zeros(n, dtype=bool),
        hex_blocked=np.zeros(n, dtype=bool),
        hex_old_ones=np.zeros(n, dtype=bool),
        edge_owner=np.full((n, 6), -1, dtype=np.int64),
        tile_hex=np.full(nt, -1, dtype=np.int64),
        tile_up=np.zeros(nt, dtype=bool),
        tile_state=np.zeros(nt, dtype=np.int64),
        tile_dmg=np.zeros((nt, L.MAX_PLAYERS), dtype=np.int64),
        tile_cubes=np.zeros((nt, L.MAX_PLAYERS), dtype=np.int64),
        stacks=S.stacks0.copy(),
        stack_top=np.zeros(3, dtype=np.int64),
        stack_size=S.stack_size0.copy(),
        display=np.full(int(S.r[L.R_DISPLAY]), -1, dtype=np.int64),
        pers_deck=np.zeros(max(1, S.pers_effect.size), dtype=np.int64),
        rev_deck=np.zeros(max(1, 3 * int(S.r[L.R_REV_PER_LEVEL])), dtype=np.int64),
        oo_deck=np.arange(S.card_hits.shape[0], dtype=np.int64),
        port_dist=np.full((L.MAX_PLAYERS, n), -1, dtype=np.int32),
        sid=np.zeros(L.MAX_PLAYERS, dtype=np.int64),
        params=np.zeros((L.MAX_PLAYERS, L.NUM_PARAMS), dtype=np.float64),
        log=np.zeros((max(1, log_capacity), L.LOG_W), dtype=np.int64),
        mythos_deck=np.zeros(max(1, S.myth_effect.size), dtype=np.int64),
        mythos_hand=np.zeros(max(1, S.myth_effect.size), dtype=np.int64),
        oop_params=np.zeros(L.OOP_NUM_PARAMS, dtype=np.float64),
        tile_holder=np.full(nt, -1, dtype=np.int64),
        tile_last_hex=np.full(nt, -1, dtype=np.int64),
    )


def new_work(S: L.Static) -> L.Work:
    n = S.neighbors.shape[0]
    nt = S.tile_level.size
    deal_size = 1 + max(
        nt,
        S.card_hits.shape[0],
        S.pers_effect.size,
        3 * int(S.r[L.R_REV_PER_LEVEL]),
        S.rev_level.size,  # every Revelation card of a level may be dealt into the pile
        S.myth_effect.size,
    )
    big = 6 * n + 8
    return L.Work(
        dist=np.zeros(n, dtype=np.int32),
        dist2=np.zeros(n, dtype=np.int32),
        queue=np.zeros(n, dtype=np.int32),
        clear=np.zeros(n, dtype=bool),
        mask=np.zeros(n, dtype=bool),
        cand_h=np.zeros(big, dtype=np.int64),
        cand_k=np.zeros(big, dtype=np.int64),
        vals=np.zeros(big, dtype=np.float64),
        hexes=np.zeros(n, dtype=np.int64),
        farm_before=np.zeros(n, dtype=np.int64),
        hex_res=np.zeros((n, L.NUM_RES), dtype=np.int64),
        hex_tile=np.full(n, -1, dtype=np.int64),
        hex_spawn=np.full(n, -1, dtype=np.int64),
        hex_marks=np.zeros(n, dtype=np.int64),
        order=np.arange(S.survey_resource.shape[0], dtype=np.int64),
        set_aside=np.zeros(nt, dtype=np.int64),
        port_hex=np.full(L.MAX_PLAYERS, -1, dtype=np.int64),
        tiles=np.zeros(max(nt, S.rev_level.size) + 1, dtype=np.int64),
        tiles2=np.zeros(nt + 1, dtype=np.int64),
        face=np.zeros(nt, dtype=bool),
        moves=np.zeros(nt, dtype=bool),
        stopped=np.zeros(nt, dtype=bool),
        before=np.zeros(nt, dtype=np.int64),
        hex_before=np.zeros(nt, dtype=np.int64),
        cand6=np.zeros(6, dtype=np.int64),
        card1=np.zeros(1, dtype=np.int64),
        cst=np.zeros(C.STATE_SIZE, dtype=np.int64),
        cmx=np.zeros(C.MATCHUP_SIZE, dtype=np.int64),
        scratch=np.zeros(C.STATE_SIZE, dtype=np.int64),
        mx_cost=np.zeros(C.NUM_STACKS, dtype=np.float64),
        dmg=np.zeros(C.MAX_OLD_ONES, dtype=np.int64),
        dmg_before=np.zeros(C.MAX_OLD_ONES, dtype=np.int64),
        no_script=np.zeros(0, dtype=np.int64),
        alloc_params=np.zeros(1),
        wd_params=np.zeros(3),
        legal=np.zeros(L.NUM_BOXES, dtype=bool),
        oop_legal=np.zeros(4, dtype=bool),
        force=np.zeros(L.NUM_UNITS, dtype=np.int64),
        dmg_carry=np.zeros((L.MAX_PLAYERS, L.NUM_UNITS), dtype=np.int64),
        choice=np.zeros(8, dtype=np.int64),
        ctx=np.zeros(L.CTX_SIZE, dtype=np.int64),
        seat_perm=np.zeros(L.MAX_PLAYERS, dtype=np.int64),
        deal=np.zeros(deal_size, dtype=np.int64),
        deal2=np.zeros(deal_size, dtype=np.int64),
        # shared by the learned human and Old One players (never on the same call)
        learn_feats=np.zeros(max(L.LEARN_NUM_FEATURES, L.OOP_LEARN_NUM_FEATURES)),
        **withdraw_table_work(S.card_hits.shape[0]),
    )


GAME_TABLE_STATES = 20_000  # withdraw-table states per combat (a full army needs a few thousand)
GAME_TABLE_CACHED = 120_000  # states of all cached matchups' tables together
GAME_TABLE_MATCHUPS = 4_096  # matchups cached (then the cache starts again)


def withdraw_table_work(n_cards: int) -> dict[str, np.ndarray]:
    from simkit.combat.table import cache_work, table_work

    ctx_i, ctx_f = np.zeros(6, dtype=np.int64), np.zeros(1)
    w = table_work(GAME_TABLE_STATES, n_cards, ctx_i, ctx_f, table_states=GAME_TABLE_CACHED)
    c = cache_work(n_cards, GAME_TABLE_MATCHUPS)
    return dict(
        wt_table=w["table"],
        wt_slots=w["slots_used"],
        wt_values=w["values"],
        wt_sbuf=w["sbuf"],
        wt_vbuf=w["vbuf"],
        wt_ibuf=w["ibuf"],
        wt_rep=w["reps"],
        wt_prob=w["probs"],
        wt_weight=c["weight"],
        wt_ctx_i=ctx_i,
        wt_ctx_f=ctx_f,
        wt_st=np.zeros(C.STATE_SIZE, dtype=np.int64),
        wt_sigs=c["sigs"],
        wt_sig_keys=c["sig_keys"],
        wt_sig_rows=c["sig_rows"],
        wt_sig=c["sig"],
        wt_cache=c["cache_i"],
    )

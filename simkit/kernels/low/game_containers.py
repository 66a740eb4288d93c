"""The containers passed to the game kernels: Static, State and Work as named tuples of
arrays (re-exported by simkit.kernels.low.game_layout; simkit.kernels.game_state makes the
kernels' StructRef views of the same arrays, simkit.game.arrays fills them).
"""

from collections import namedtuple

# -- containers passed to the kernels (numba types them as named tuples of arrays) -----------

# Static: one per (board, data pack, rules); never written by a kernel.
Static = namedtuple(
    "Static",
    (
        "neighbors",  # int32 [n, 6]
        "hex_dist",  # int32 [n, n] steps between hexes (board.all_pairs_distances)
        "hex_terrain",  # int64 [n]
        "hex_level",  # int64 [n]
        "hex_port",  # bool  [n] port symbol
        "hex_farms",  # int64 [n] farm-kind bit mask allowed
        "hex_q",
        "hex_r",  # int64 [n]
        "survey_hex",  # int64 [s]
        "survey_resource",  # int64 [T, 7, 4]
        "survey_old_one",  # int64 [T, 7]
        "tile_level",
        "tile_type",
        "tile_cap",
        "tile_vp",  # int64 [n_tile]
        "stacks0",  # int64 [3, m] unshuffled Old One stacks (simkit.board.setup.fresh_stacks)
        "stack_size0",  # int64 [3]
        "card_hits",
        "card_purple",
        "card_sanity",
        "card_airship",
        "card_moves",
        "card_compass",
        "card_rotation",
        "type_moves",
        "type_heals",  # bool [6]
        "unit_cost",  # int64 [5] gold
        "unit_cost_f",  # float64 [7] (combat allocation: gold value per stack)
        "unit_cap",  # int64 [7] damage capacity per combat stack
        "unit_range",  # int64 [5]
        "unit_supply",  # int64 [5] units in the box (shared supply)
        "r",  # int64 [R_SIZE]
        "illuminated",  # bool [MAX_TIME]
        "rev_level",
        "rev_kind",  # int64 [n_rev]
        "rev_benefit",
        "rev_benefit_amount",  # int64 [n_rev] BENEFIT_* (-1 none), amount
        "pers_effect",
        "pers_unit",
        "pers_amount",
        "pers_vp",  # int64 [n_pers]
        "pers_one_use",  # bool [n_pers]
        # What a player may know about the Old Ones, for strategies (public: card faces are
        # seen as they are drawn; face-down tiles are known only by level):
        "hit_rate",  # float64 [6, 5] share of Old One cards on which unit u damages type t
        "harm_rate",  # float64 [6, 3] mean purple / sanity / airship damage per card by type t
        "level_cap",  # float64 [4] mean damage capacity of a face-down tile of level l (Empty = 0)
        "level_vp",  # float64 [4] mean VP of a face-down tile of level l
        "level_hit",  # float64 [4, 5] hit_rate averaged over the non-empty tiles of level l
        "level_harm",  # float64 [4, 3]
        # Revenge of the Old Ones
        "unit_oop_vp",  # int64 [7] OOP VP per eliminated unit (stacks order; Revenge rulebook)
        "unit_oop_vp_alt",  # int64 [7] (alt translation)
        # int64 [6] PR_*: strength_normal, strength_weak, flip_threshold, sanity4, sanity2, oop_vp
        "port_rev",
        "myth_effect",
        "myth_tp",
        "myth_combat",
        "myth_amount",
        "myth_level",  # int64 [n_mythos]; Engine sets the myth_* arrays per content mode
    ),
)

# State: everything a game changes; reset by game_setup.setup_game.
State = namedtuple(
    "State",
    (
        "g",
        "pl",
        "hx",
        "hex_farm",
        "hex_target",
        "hex_blocked",
        "hex_old_ones",
        "edge_owner",
        "tile_hex",
        "tile_up",
        "tile_state",
        "tile_dmg",
        "tile_cubes",
        "stacks",
        "stack_top",
        "stack_size",
        "display",
        "pers_deck",
        "rev_deck",
        "oo_deck",
        "port_dist",  # int32 [MAX_PLAYERS, n] hexes from each Port (straight over the map)
        "sid",  # int64 [MAX_PLAYERS] strategy id per seat (strategies.human.policy)
        "params",  # float64 [MAX_PLAYERS, NUM_PARAMS]
        "log",  # int64 [cap, LOG_W]
        # int64 [n_mythos] circular draw pile (top at G_MYTHOS_POS, G_MYTHOS_LEFT cards)
        "mythos_deck",
        "mythos_hand",  # int64 [n_mythos] 1 = card in the OOP's hand
        "oop_params",  # float64 [OOP_NUM_PARAMS] the Old One player's strategy
        "tile_holder",  # int64 [n_tile] seat holding tile i as a trophy (destroyed alone), -1
        # int64 [n_tile] hex tile i was destroyed in, -1 (Yog-Sothoth returns it there)
        "tile_last_hex",
    ),
)

# Work: caller-owned scratch so no kernel allocates.
Work = namedtuple(
    "Work",
    (
        "dist",
        "dist2",
        "queue",  # int32 [n]
        "clear",
        "mask",  # bool [n]
        "cand_h",
        "cand_k",  # int64 [6n]
        "vals",  # float64 [6n]
        "hexes",  # int64 [n]
        "farm_before",  # int64 [n]
        "hex_res",
        "hex_tile",
        "hex_spawn",
        "hex_marks",  # setup scratch ([n,4], [n], [n], [n])
        "order",  # int64 [T] survey order
        "set_aside",  # int64 [n_tile]
        "port_hex",  # int64 [MAX_PLAYERS]
        "tiles",  # int64 [n_tile] tile list scratch
        "tiles2",  # int64 [n_tile]
        "face",
        "moves",
        "stopped",  # bool [n_tile]
        "before",
        "hex_before",  # int64 [n_tile]
        "cand6",  # int64 [6]
        "card1",  # int64 [1]
        "cst",
        "cmx",
        "scratch",  # int64 combat buffers (combat_layout state, matchup)
        "mx_cost",  # float64 [7]
        "dmg",  # int64 [MAX_OLD_ONES]
        "dmg_before",  # int64 [MAX_OLD_ONES]
        "no_script",  # int64 [0]
        "alloc_params",
        "wd_params",  # float64 [1], [3]
        "legal",  # bool [NUM_BOXES]
        "oop_legal",  # bool [4] the Old One player's legal actions (OOP_*)
        "force",  # int64 [NUM_UNITS] attack force chosen by a strategy
        "dmg_carry",  # int64 [MAX_PLAYERS, NUM_UNITS] damage kept between one turn's fights
        "choice",  # int64 [8] multi-valued strategy answers
        "ctx",  # int64 [CTX_SIZE] per-turn facts the engine computed
        "seat_perm",  # int64 [MAX_PLAYERS]
        "deal",
        "deal2",  # int64 [max deck or tiles + 1] determinization scratch (game_search)
        "learn_feats",  # float64 [either learned player's feature count] its features
        # the optimal withdraw table (simkit.kernels.combat_table), solved per combat
        "wt_table",
        "wt_slots",
        "wt_values",  # int64 [slots, 4], int64 [states], float64 [states, NV]
        "wt_sbuf",
        "wt_vbuf",
        "wt_ibuf",  # per-depth work buffers
        "wt_rep",
        "wt_prob",  # card classes of the matchup (one memo row): int64, float64 [1, cards]
        "wt_weight",  # float64 [cards]
        "wt_ctx_i",
        "wt_ctx_f",
        "wt_st",  # solver settings; the start state
        "wt_sigs",
        "wt_sig_keys",
        "wt_sig_rows",
        "wt_sig",
        "wt_cache",  # the cache of solved tables
    ),
)

"""Layout of the full-game state and the game enums (no numba; fields declared with
simkit.kernels.low.fields).

Kernels (simkit/kernels/game_*.py) and strategies (strategies/human/) both read the
game as a handful of fixed-shape arrays; ``-1`` is the one sentinel (none / off-map).

    g[G_*]            int64 [G_SIZE]             global scalars (time track, decks, counters)
    pl[p, P_*]        int64 [MAX_PLAYERS, P_SIZE] one row per seat (seat 0 = first player)
    hx[h, H_*]        int64 [n_hex, H_SIZE]      per-hex pieces (resources, farms, ports)
    hex_farm[h]       int64 [n_hex]  0 no farm, 1 un-blighted, 2 blighted (movement kernel)
    hex_target[h]     bool  [n_hex]  a Port or an un-blighted farm (Old One movement targets)
    hex_blocked[h]    bool  [n_hex]  an Old One tile (face up or down) or, in Revenge, a Spawn
                                     tile is in the hex: a target for attacks; no railway,
                                     Farm or Outpost may go there
    hex_old_ones[h]   bool  [n_hex]  an Old One tile (face up or down) is in the hex: no path
                                     (rail network, attack route) may be traced through it
    edge_owner[h, k]  int64 [n_hex, 6] player whose track crosses side k (simkit.kernels.low.board)
    tile_hex[i]       int64 [n_tile] hex of Old One tile i, -1 not on the board
    tile_up[i]        bool  [n_tile] face up
    tile_state[i]     int64 [n_tile] TILE_* below
    tile_dmg[i, p]    int64 [n_tile, MAX_PLAYERS] damage player p has inflicted on tile i
    tile_cubes[i, p]  int64 [n_tile, MAX_PLAYERS] p's cubes lying on tile i (<= tile_dmg:
                      damage beyond the cubes in HQ is kept as "discs", base rules)
    display[j]        int64 [DISPLAY] Personality in display slot j (0 = left, next to the
                      deck; the right end is the end of the line), -1 empty
    pers_deck, rev_deck, oo_deck: card orders; pointers in g.

Revenge of the Old Ones (MODE_REVENGE) and Mythos Solo (MODE_MYTHOS_SOLO) use the G_OOP_*,
G_MYTHOS_*, P_PORT_*, P_OUTPOSTS, H_SPAWN and H_OUTPOST slots (simkit/kernels/game_oop.py).
Changing any index or enum value is an ENGINE_VERSION bump only if it changes behaviour
(the golden logs will say).
"""

# Re-exported, so L.G_SUPPLY, L.EV_MOVE, L.Static, L.READINGS ... keep working: the index
# constants the Layouts below export (one definition line each in game_constants.py,
# written by simkit.kernels.low.gen_constants), and the parts that need nothing from here
# (card enums, the containers, the event log codes, the readings).
from simkit.kernels.low.fields import Layout
from simkit.kernels.low.game_cards import *  # noqa: F403
from simkit.kernels.low.game_cards import MYTHOS_EFFECT_LAYOUT
from simkit.kernels.low.game_constants import *  # noqa: F403
from simkit.kernels.low.game_containers import *  # noqa: F403
from simkit.kernels.low.game_events import *  # noqa: F403
from simkit.kernels.low.game_readings import *  # noqa: F403
from simkit.kernels.low.game_readings import READINGS

MAX_PLAYERS = 4
# simkit.names.UNITS order: infantry, armoured_car, artillery, armoured_train, airship
NUM_UNITS = 5
NUM_OLD_ONE_TYPES = 6  # simkit.names.OLD_ONES order
NUM_FARM_KINDS = 3  # simkit.board.FARMS order: sheep, cattle, corn
NUM_RES = 4  # coal, iron, gold, phosphate (simkit.board.RESOURCES order)
COAL, IRON, GOLD, PHOSPHATE = 0, 1, 2, 3
INFANTRY, ARMOURED_CAR, ARTILLERY, ARMOURED_TRAIN, AIRSHIP = 0, 1, 2, 3, 4
ZOMBIE, MI_GO, SHOGGOTH, CTHULHU, TEMPLE, LOYALIST = 0, 1, 2, 3, 4, 5

# -- modes -----------------------------------------------------------------------------
MODE_BASE, MODE_SOLO, MODE_REVENGE, MODE_MYTHOS_SOLO = 0, 1, 2, 3
MODE_NAMES = ("base", "solo", "revenge", "mythos-solo")

# Chance in named streams: a game's seed spawns one np.random.Generator per purpose
# (simkit.core.seeds.game_streams), passed to the game kernels as the tuple ``rngs``. Every
# chance site reads its own stream, so two games with the same seed and different
# strategies share the setup (tiles, decks, seats), the Old One card order and the Mythos
# deck: common random numbers for paired comparisons and tuning.
RNG_SETUP = 0  # seats, survey tiles and Old One stacks, Revelation and Personality decks
RNG_DECK = 1  # the Old One card deck: every card drawn, in combat or for a Revelation
RNG_MOVE = 2  # the Old Ones' own turn: movement (base, solo) and the Mythos Solo deck
RNG_MYTHOS = 3  # Revenge: the Mythos deck's shuffle
RNG_OOP = 4  # Revenge: the Old One player's decisions
RNG_SEAT = 5  # + seat: each human seat's decisions
NUM_STREAMS = RNG_SEAT + MAX_PLAYERS
STREAM_NAMES = ("setup", "deck", "move", "mythos", "oop") + tuple(
    f"seat{p}" for p in range(MAX_PLAYERS)
)

# -- action boxes (player board) ---------------------------------------------------------
(
    BOX_RAIL,
    BOX_RAIL_HILLS,
    BOX_MINE,
    BOX_RECRUIT,
    BOX_MILITARY,
    BOX_TRADE,
    BOX_FARM,
    BOX_ATTACK,
    BOX_RETRIEVE,
) = range(9)
NUM_BOXES = 9
BOX_NAMES = (
    "rail",
    "rail_hills",
    "mine",
    "recruit",
    "military",
    "trade",
    "farm",
    "attack",
    "retrieve",
)

# trade sub-actions (Import/Export)
TRADE_NONE, IMPORT_COAL, IMPORT_IRON, EXPORT_COAL, EXPORT_IRON = -1, 0, 1, 2, 3

# -- global scalars g[...] ---------------------------------------------------------------
G_LAYOUT = Layout(
    "g",
    (
        ("G_NUM_PLAYERS", 1),
        ("G_MODE", 1),
        ("G_OO_TIME", 1, "purple disc space"),
        ("G_OO_ARRIVAL", 1, "stack height stamp of the purple disc (higher = on top)"),
        ("G_ARRIVALS", 1, "stamp counter"),
        ("G_AWAKE", 1, "1 once every player disc has passed the purple disc"),
        ("G_OVER", 1),
        ("G_END_REASON", 1, "END_* below"),
        ("G_END_TIME", 1, "purple disc space when the game ended"),
        ("G_PORT_LOST_BY", 1, "seat whose Port fell, -1"),
        ("G_DECK_LEFT", 1, "Old One cards left in oo_deck (simkit.kernels.low.deck)"),
        ("G_REV_POS", 1, "next Revelation card index in rev_deck"),
        ("G_REV_SIZE", 1),
        ("G_PERS_POS", 1, "next Personality in pers_deck (top of the draw pile)"),
        ("G_PERS_SIZE", 1),
        ("G_FARMS_BLIGHTED", 1),
        ("G_COMBATS", 1),
        ("G_COMBATS_WON", 1),
        ("G_PORT_COMBATS", 1),
        ("G_OO_TURNS", 1),
        ("G_ACTIONS", 1),
        ("G_ILLEGAL", 1, "strategy answers the engine refused (must stay 0)"),
        ("G_VIOLATIONS", 1, "invariant failures found by the checked build (must stay 0)"),
        ("G_LOG_ON", 1),
        ("G_LOG_N", 1),
        ("G_LOG_OVERFLOW", 1),
        ("G_CHECKED", 1),
        ("G_STEPS", 1),
        ("G_RESHUFFLES", 1, "Old One deck reshuffles"),
        ("G_DECK_DRAWN", 1, "Old One cards drawn (combat and movement; the RNG_DECK reads)"),
        ("G_REVEALED", 1, "tiles revealed (any cause)"),
        ("G_DIFFICULTY", 1, "solo difficulty index"),
        ("G_SUPPLY", NUM_UNITS, "+ unit: military units left in the shared supply"),
        ("G_KILLED", NUM_OLD_ONE_TYPES, "+ type: Old Ones destroyed"),
        ("G_OO_MOVES", 1, "tile steps taken"),
        ("G_MOVE_CARDS", 1, "movement cards drawn"),
        ("G_FIRST_VIOLATION", 1, "code of the first invariant failure (CHK_*)"),
        ("G_CASTRO_SAVES", 1),
        ("G_FORCED_BOX", 1, "action box + 1 the player turn takes (a look-ahead's choice), 0"),
        (
            "G_FORCED_FALLBACKS",
            1,
            "sub-decisions the rollout policy had no answer for, in a look-ahead's action "
            "(the engine's legal default played; not counted as illegal)",
        ),
        # Revenge (unused by the base engine)
        (
            "G_FORCED_OOP_ACTION",
            1,
            "OOP_* action + 1 the Old One player's next turn takes (a look-ahead's choice), 0",
        ),
        ("G_FORCED_MYTHOS", 1, "next OOP Mythos card (a look-ahead's): id + 2, 1 none, 0 policy's"),
        (
            "G_FORCED_PLACE",
            1,
            "next OOP Place (a look-ahead's): 1 + lv * PLACE_CODE + hex, 0 policy's",
        ),
        ("G_FORCED_REVEAL", 1, "next OOP Reveal (a look-ahead's): tile + 1, 0 policy's"),
        ("G_OOP_VP", 1),
        ("G_MYTHOS_POS", 1),
        ("G_MYTHOS_LEFT", 1, "cards in the Mythos draw pile (circular buffer mythos_deck)"),
        ("G_RULESET", 1, "RULES_* below"),
        ("G_PORT_START", 1, "Port strength at setup (0: base-game Ports, Heroic)"),
        ("G_OOP_LEFT", 3, "+ level-1: tiles left in the OOP's drawn supply of that level"),
        ("G_OOP_ACTIONS", 4, "+ OOP_* action: how often the OOP took it"),
        ("G_MYTHOS_PLAYED", 1),
        (
            "G_EXTRA_TIME",
            1,
            "Atlach-Nacha: TP the human pays at the next combat (attack or defence)",
        ),
        ("G_EXTRA_TIME_SEAT", 1, "Atlach-Nacha: the seat it was played against"),
        ("G_SPAWNS_TAKEN", 1),
        ("G_OUTPOSTS_BUILT", 1),
        ("G_OUTPOSTS_LOST", 1),
        ("G_OUTPOST_COMBATS", 1),
        ("G_PORT_FLIPS", 1),
        ("G_OOP_VP_UNITS", 1, "part of G_OOP_VP from units / outposts"),
        ("G_MYTHOS_COMBAT", 1, "Mythos cards played during a combat (part of G_MYTHOS_PLAYED)"),
        ("G_MYTHOS_FLIPPED", 1, "Mythos Solo: cards flipped on non-illuminated spaces"),
        ("G_MYTHOS_NO_EFFECT", 1, "Mythos Solo: flipped cards that did not apply"),
        (
            "G_TABLE_FALLBACKS",
            1,
            "combats whose withdraw table outgrew its buffers (thresholds used)",
        ),
        ("G_KILL_MASK", 1, "bit q: seat q had damage on an Old One the current fight destroyed"),
        ("G_STALEMATES", 1, "combats that ended in a stalemate (combat_layout STALEMATE)"),
    ),
    size_name="G_SIZE",
)

RULES_REVENGE, RULES_ALT = 0, 1
RULESET_NAMES = ("revenge", "revenge-alt")
DIFF_NORMAL, DIFF_HARD, DIFF_HEROIC = 0, 1, 2
DIFFICULTY_NAMES = ("normal", "hard", "heroic")
OOP_PLACE, OOP_REVEAL, OOP_MOVE, OOP_SUMMON = 0, 1, 2, 3
OOP_ACTION_NAMES = ("place", "reveal", "move", "summon")
NUM_OOP_ACTIONS = 4
PLACE_CODE = 4096  # G_FORCED_PLACE: 1 + level index * PLACE_CODE + hex (hexes < PLACE_CODE)

END_NONE, END_TIME, END_PORT, END_ABORT = 0, 1, 2, 3
END_NAMES = ("none", "time", "port", "abort")

# -- players pl[p, ...] ------------------------------------------------------------------
P_LAYOUT = Layout(
    "pl[p]",
    (
        ("P_ACTIVE", 1, "1 = seat in play"),
        ("P_TIME", 1),
        ("P_ARRIVAL", 1),
        ("P_PORT", 1, "hex index"),
        ("P_RES", NUM_RES, "+ COAL/IRON/GOLD/PHOSPHATE"),
        ("P_VP_TOKENS", 1),
        ("P_HQ", 1),
        ("P_BOX", NUM_BOXES, "+ box: cubes in each action box"),
        ("P_TRACKS", 1, "tracks placed"),
        ("P_FARMS", NUM_FARM_KINDS, "+ kind: farms placed"),
        ("P_UNITS", NUM_UNITS, "+ unit: in the Barracks"),
        ("P_PERS", 1, "bit mask of Personalities owned"),
        ("P_PERS_VP", 1),
        ("P_TILE_VP", 1, "VP of Old One tiles taken alone"),
        ("P_STRATEGY", 1),
        ("P_LOST", NUM_UNITS, "+ unit: units eliminated"),
        ("P_COMBATS", 1),
        ("P_COMBATS_WON", 1),
        ("P_KILLS", 1, "Old Ones destroyed alone"),
        ("P_SHARED", 1, "Old Ones destroyed together"),
        ("P_ON_TILES", 1, "cubes lying on Old One tiles"),
        ("P_ACTIONS", 1),
        ("P_GOLD_EARNED", 1),
        ("P_PORT_LOST", 1),
        ("P_ILLEGAL", 1),
        ("P_PREV_TIME", 1, "checked build: time only moves forward"),
        # Revenge
        ("P_PORT_STRENGTH", 1),
        ("P_OUTPOSTS", 1),
        ("P_SPAWNS", 1, "Revenge: Spawn tiles collected (1 VP each, also in P_VP_TOKENS)"),
        (
            "P_LAST_BUY",
            1,
            "1 + unit type of the player's latest Buy Military, 0 none (Dimensional Shambler)",
        ),
    ),
    size_name="P_SIZE",
)

# -- hexes hx[h, ...] --------------------------------------------------------------------
H_LAYOUT = Layout(
    "hx[h]",
    (
        ("H_RES", NUM_RES, "+ COAL/IRON/GOLD/PHOSPHATE tokens"),
        ("H_FARM_OWNER", 1),
        ("H_FARM_KIND", 1),
        ("H_PORT_OWNER", 1),
        ("H_SPAWN", 1, "Revenge: -1 none, 0 Normal, 1 Dangerous"),
        ("H_OUTPOST", 1, "Revenge: outpost owner, -1"),
    ),
    size_name="H_SIZE",
)

# -- Old One tiles -------------------------------------------------------------------------
TILE_STACK, TILE_BOARD, TILE_KILLED, TILE_REMOVED, TILE_ASIDE = 0, 1, 2, 3, 4
OUTPOST_STACK, PORT_STACK = 5, 6  # combat stacks (simkit.names.STACKS)
# Static.port_rev[PR_*]: the Revenge Port token (revenge.toml [port])
PR_LAYOUT = Layout(
    "port_rev",
    (
        ("PR_STRENGTH_NORMAL", 1, "Port strength, Normal difficulty"),
        ("PR_STRENGTH_WEAK", 1, "Port strength, Hard difficulty"),
        ("PR_FLIP_THRESHOLD", 1, "damage in one combat that flips the Port token"),
        ("PR_SANITY_4", 1),
        ("PR_SANITY_2", 1),
        ("PR_OOP_VP", 1),
    ),
    size_name="PR_SIZE",
)
MAX_IN_HEX = 4  # Old Ones one combat can hold (simkit.kernels.low.combat_layout)

# -- rules r[R_*] (int64, from simkit/data/auztralia/game.toml) -----------------------------
R_LAYOUT = Layout(
    "r",
    (
        ("R_OO_START", 1),
        ("R_END", 1),
        ("R_START_SPACE", MAX_PLAYERS, "+ players-1"),
        ("R_TP", NUM_BOXES, "+ box"),
        ("R_RETRIEVE_EMPTY", 1),
        ("R_RECRUIT_DRAW_GOLD", 1),
        ("R_REFRESH_GOLD", 1, "Mythos Solo: Gold to refresh the Personality display"),
        ("R_SURCHARGE", 1),
        ("R_TRADE_SUBS", 1),
        ("R_TRACKS_PER_BUILD", 1),
        ("R_MAX_INFANTRY", 1),
        ("R_FARM_GOLD", 1),
        ("R_PHOS_GOLD", 1),
        ("R_CUBES", 1),
        ("R_TRACKS", 1),
        ("R_FARMS_PER_KIND", 1),
        ("R_DISPLAY", 1),
        ("R_START_COAL", 1),
        ("R_START_IRON", 1),
        ("R_START_GOLD", 1),
        ("R_MOVE_CARDS", 1),
        ("R_REVEAL_CARDS", 1),
        ("R_FARM_VP", 1),
        ("R_PHOS_VP", 1),
        ("R_BLIGHT_VP", 1),
        ("R_UNREVEALED_MULT", 1),
        ("R_REV_PER_LEVEL", 1),
        ("R_SANITY", 1),
        # Revenge of the Old Ones (game.toml [revenge])
        ("R_OOP_TILES", 3, "+ level-1: Old One tiles the OOP draws at setup (9 / 6 / 4)"),
        ("R_REV_BLIGHT_VP", 1, "OOP VP per blighted Farm at the end"),
        ("R_OUTPOST_SUPPLY", 1, "Outpost tiles in the box, shared by all humans (units.toml)"),
        ("R_READ", 8, "+ READ_*: the option chosen for each reading (READINGS below)"),
    ),
    size_name="R_SIZE",
)

assert len(READINGS) <= R_LAYOUT["R_READ"].size  # one R_READ slot per reading
MAX_TIME = 64  # illuminated[] length; spaces past R_END are never reached by the disc

# the learned player's view of a turn (strategies.human.learned.turn_features), in order
LEARN_FEATURES = (
    "bias",
    "time",
    "old_ones_time",
    "coal",
    "iron",
    "gold",
    "phosphate",
    "tracks",
    "farm_kinds_now",
    "best_mine",
    "want_army",
    "attack_target",
    "display_wish",
    "should_retrieve",
    "units_home",
    "hq_cubes",
    # the race and the threat (added after the first files: a file without them weighs them 0)
    "own_vp",
    "old_ones_vp",
    "vp_race",
    "movers_to_port",
    "face_down_to_port",
    "farms_at_risk",
)
LEARN_NUM_FEATURES = len(LEARN_FEATURES)

# the learned Old One player's view of its turn (strategies.old_ones.learned.oop_features)
OOP_LEARN_FEATURES = tuple(
    "bias face_up_movers face_down_tiles mythos_hand place_levels old_ones_time humans_time "
    "up_to_port down_to_port weakest_port difficulty mythos_left tiles_left farms_blighted".split()
)
OOP_LEARN_NUM_FEATURES = len(OOP_LEARN_FEATURES)

# -- strategy parameters (float64 [NUM_PARAMS] per seat; see strategies/human) --------------
# SP_*: combat policy slots shared by every strategy; HP_*: heuristic player slots
# (strategies/human/features.py reads them)
PARAM_LAYOUT = Layout(
    "params[p]",
    (
        ("SP_ALLOC", 1, "strategies.combat.allocation id"),
        ("SP_ALLOC_ARG", 1),
        ("SP_WD_ID", 1, "strategies.combat.withdrawal id"),
        ("SP_WD_SANITY", 1),
        ("SP_WD_UNITS", 1),
        ("SP_WD_LOST", 1),
        ("HP_RAIL_RES", 1, "rail goal weight: resource hexes"),
        ("HP_RAIL_FARM", 1, "rail goal weight: farm sites"),
        ("HP_RAIL_OLDONE", 1, "rail goal weight: hexes next to Old One tiles (attack range)"),
        ("HP_ARMY_MIN", 1, "units to keep in the Barracks ..."),
        ("HP_ARMY_FROM", 1, "... from this space on"),
        ("HP_ATK_RATIO", 1, "attack when units can soak this many times the expected damage"),
        ("HP_ATK_RADIUS", 1, "only targets within this many hexes of the own Port (-1 any)"),
        ("HP_ATK_FACEDOWN", 1, "1: attack face-down tiles too"),
        ("HP_FARM_SAFE", 1, "farm sites: 1 far from Old Ones, 0 close to the Port"),
        ("HP_UNIT_W", NUM_UNITS, "+ unit: preference when buying"),
        ("HP_RETRIEVE_HQ", 1, "retrieve when the HQ holds at most this many cubes"),
        ("HP_MAX_SURCHARGE", 1, "most Gold paid to re-use a box"),
        ("HP_FARM_MIN", 1, "farms an action must place to be worth its time (early game)"),
        ("HP_ATK_FROM", 1, "no attacks before this space"),
        ("HP_PERS_W", 8, "+ effect (EFF_*): wish to recruit a Personality with that effect"),
        (
            "HP_THREAT_W",
            1,
            "extra garrison units per point of Old One damage capacity near the Port",
        ),
        ("HP_THREAT_RANGE", 1, "... counting awake Old Ones within this many hexes of the Port"),
        (
            "HP_OUTPOST",
            1,
            "Revenge: buy an Outpost (+2 Gold) with a unit when an Old One is within "
            "this many hexes of a site (0 never)",
        ),
        ("_HP_SPARE", 4, "free slots"),
        (
            "SP_WD_OBJECTIVE",
            1,
            "combat policy: the withdraw table's objective (0 P(destroy), 1 value)",
        ),
        (
            "HP_LEARN_W",
            NUM_BOXES * LEARN_NUM_FEATURES,
            "learned player (strategies.human.learned): weight of feature f for box b at "
            "b * LEARN_NUM_FEATURES + f",
        ),
    ),
    size_name="NUM_PARAMS",
)

# Old One player (Revenge) strategy parameters, X.oop_params[...] (strategies/old_ones)
OOP_PARAM_LAYOUT = Layout(
    "oop_params",
    (
        ("OP_KIND", 1, "0 heuristic, 1 uniformly random legal actions, 2 learned"),
        ("OP_MOVE_POLICY", 1, "simkit.kernels.low.movement CHOOSE_* id for Move actions"),
        ("OP_FACE_UP_MIN", 1, "reveal while fewer face-up movers than this"),
        ("OP_DOWN_MAX", 1, "place while fewer face-down tiles on the map than this"),
        (
            "OP_HAND_MIN",
            1,
            "summon while fewer Mythos cards in hand than this (and nothing better)",
        ),
        ("OP_PLAY_MYTHOS", 1, "probability of playing a playable Mythos card on a turn"),
        ("OP_TARGET_WEAK", 1, "1: place / reveal near the weakest Port (else anywhere, random)"),
        ("OP_FARM_BIAS", 1, "1: place near human farms and prefer blighting Mythos cards"),
        ("OP_MOVE_MIN", 1, "move only when at least this many face-up movers"),
        (
            "OP_COMBAT_MYTHOS",
            1,
            "probability of playing a playable combat Mythos card when a combat qualifies",
        ),
        ("_OP_SPARE", 2, "free slots"),
        ("OP_LEARN_W", NUM_OOP_ACTIONS * OOP_LEARN_NUM_FEATURES, "learned OOP: w[a, f], a-major"),
    ),
    size_name="OOP_NUM_PARAMS",
)

# W.ctx[...]: facts of the current turn (read by strategies, written by the engine).
# The *_SITES / RAIL / ATTACK entries are 1 if at least one exists (the engine stops at
# the first), 0 otherwise.
CTX_LAYOUT = Layout(
    "ctx",
    (
        ("CTX_PLAYER", 1),
        (
            "CTX_DIST_OK",
            1,
            "1: W.dist holds this turn's attack distances (ensure_dist); 2 + d: those within d",
        ),
        ("CTX_FALLBACK_UNIT", 1, "a unit type that can attack something (legality witness), -1"),
        ("CTX_FALLBACK_HEX", 1, "a hex it can attack"),
        ("CTX_FARM_SITES", NUM_FARM_KINDS, "+ kind: a legal farm hex now"),
        ("CTX_MINE_SITES", 1),
        ("CTX_RAIL_CHEAP", 1, "a buildable side with the 2-TP box"),
        ("CTX_RAIL_ALL", 1),
        ("CTX_ATTACK_TARGETS", 1, "a hex some unit type in the Barracks can attack"),
        # strategy memo for the current turn (reset with the rest; the engine zeroes CTX_S_DIST2
        # whenever it overwrites W.dist2)
        (
            "CTX_S_DIST2",
            1,
            "what W.dist2 holds: 0 unknown, 1 field from CTX_S_GOAL, 2 from Old Ones",
        ),
        ("CTX_S_GOAL", 1),
    ),
    size_name="CTX_SIZE",
)
DIST2_GOAL, DIST2_OLD_ONES = 1, 2

# -- summary row (one per game) -------------------------------------------------------------
# per player p: columns p{p}_{field}, at S_PLAYER0 + p * S_PLAYER_STRIDE + SUM_P_*
SUM_P_LAYOUT = Layout(
    "summary player",
    tuple(
        (f"SUM_P_{f.upper()}", 1)
        for f in (
            "strategy",
            "listed",
            "vp",
            "vp_farms",
            "vp_phosphate",
            "vp_personalities",
            "vp_tiles",
            "vp_tokens",
            "farms",
            "farms_blighted",
            "tracks",
            "gold",
            "combats",
            "combats_won",
            "units_lost",
            "kills",
            "shared_kills",
            "port_lost",
            "actions",
            "illegal",
            "time",
        )
    ),
    size_name="S_PLAYER_STRIDE",
)
_OLD_ONE_NAMES = ("zombie", "mi_go", "shoggoth", "cthulhu", "temple", "loyalist")
SUMMARY_LAYOUT = Layout(
    "summary",
    tuple(
        (f"S_{f.upper()}", 1)
        for f in (
            "num_players",
            "mode",
            "difficulty",
            "winner",
            "winners_mask",
            "old_ones_win",
            "humans_win",
            "end_reason",
            "end_time",
            "port_lost_by",
            "ports_lost",
            "farms_built",
            "farms_blighted",
            "oo_vp",
            "oo_vp_revealed",
            "oo_vp_unrevealed",
            "oo_vp_blighted",
            "best_player_vp",
            "combats",
            "combats_won",
            "port_combats",
            "oo_turns",
            "actions",
            "oo_moves",
            "move_cards",
            "revealed",
            "reshuffles",
            "castro_saves",
            "face_down_left",
            "illegal",
            "violations",
            "first_violation",
            "log_overflow",
        )
    )
    + (
        ("S_KILLED", NUM_OLD_ONE_TYPES, "+ type", tuple(f"killed_{t}" for t in _OLD_ONE_NAMES)),
        (
            "S_REMAINING",
            NUM_OLD_ONE_TYPES,
            "+ type",
            tuple(f"remaining_{t}" for t in _OLD_ONE_NAMES),
        ),
        (
            "S_PLAYER0",
            MAX_PLAYERS * SUM_P_LAYOUT.size,
            "+ p * S_PLAYER_STRIDE + SUM_P_*",
            tuple(f"p{p}_{f}" for p in range(MAX_PLAYERS) for f in SUM_P_LAYOUT.labels("SUM_P_")),
        ),
    ),
    size_name="SUMMARY_SIZE",
)
SUMMARY_COLUMNS = SUMMARY_LAYOUT.labels("S_")

# -- every index layout above, for describe_state and tests/test_layout.py -------------------
LAYOUTS = (
    G_LAYOUT,
    P_LAYOUT,
    H_LAYOUT,
    R_LAYOUT,
    PR_LAYOUT,
    PARAM_LAYOUT,
    OOP_PARAM_LAYOUT,
    CTX_LAYOUT,
    SUM_P_LAYOUT,
    SUMMARY_LAYOUT,
    MYTHOS_EFFECT_LAYOUT,
)


def describe_state(X, players: bool = True, hexes: bool = False, skip_zero: bool = True) -> str:
    """A game state (a State, or anything with ``g``, ``pl`` and ``hx``) by field name, for
    debugging and tests: the global scalars, each seated player and (``hexes``) every hex
    that holds a piece; fields that are all 0 are left out with ``skip_zero``.

        g: G_NUM_PLAYERS=2 G_MODE=0 G_OO_TIME=1 ...
        pl[0]: P_ACTIVE=1 P_TIME=3 P_RES=[2, 2, 4, 0] ...
    """

    def line(title, layout, vec, skip):
        parts = [f"{k}={v}" for k, v in layout.describe(vec, skip).items()]
        return f"{title}: " + " ".join(parts)

    out = [line("g", G_LAYOUT, X.g, skip_zero)]
    res, farm_owner = H_LAYOUT["H_RES"], H_LAYOUT["H_FARM_OWNER"].offset
    if players:
        seated = int(X.g[G_LAYOUT["G_NUM_PLAYERS"].offset])
        n = seated if seated > 0 else X.pl.shape[0]
        out += [
            line(f"pl[{p}]", P_LAYOUT, X.pl[p], skip_zero) for p in range(min(n, X.pl.shape[0]))
        ]
    if hexes:
        for h in range(X.hx.shape[0]):
            row = X.hx[h]
            if any(v > 0 for v in row[res.offset : res.stop]) or any(
                v >= 0 for v in row[farm_owner:]
            ):
                out.append(line(f"hx[{h}]", H_LAYOUT, row, False))
    return "\n".join(out)

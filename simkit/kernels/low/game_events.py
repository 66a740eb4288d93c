"""The game's event log rows, decision codes and invariant codes (re-exported by
simkit.kernels.low.game_layout).
"""

# -- event log rows log[i, :] = (kind, time, actor, a, b, c, d, e) ---------------------------
LOG_W = 8
EV_SETUP = 0  # actor seat, a port hex, b start space
EV_ACTION = 1  # actor, a box, b TP, c gold surcharge, d time after
EV_TRACK = 2  # actor, a hex, b compass side index, c other hex
EV_MINE = 3  # actor, a hex, b resource, c amount
EV_RECRUIT = 4  # actor, a personality, b slot (-1 draw pile), c returned/exchanged card
EV_BUY = 5  # actor, a unit, b count, c gold
EV_TRADE = 6  # actor, a sub-action 1, b sub-action 2
EV_FARM = 7  # actor, a hex, b kind
EV_ATTACK = 8  # actor, a hex, b force bits, c units sent, d tiles in hex
EV_FLIP = 9  # actor (-1 Old Ones), a tile, b hex, c type (-1 empty)
EV_WITHDRAW_FLIP = 10  # actor, a hex
EV_COMBAT = 11  # actor, a hex, b outcome (combat_layout), c cards, d units lost, e 1 = port defence
EV_KILL = 12  # actor (-1 shared), a tile, b type, c vp, d players bit mask
EV_RETRIEVE = 13  # actor, a cubes back, b TP
EV_OO_TURN = 14  # a space, b illuminated
EV_REVELATION = 15  # a kind, b card, c tile/hex detail
EV_MOVE = 16  # a tile, b from hex, c to hex, d card, e type
EV_BLIGHT = 17  # actor farm owner, a hex, b kind
EV_PORT_LOST = 18  # actor, a hex
EV_ASSASSINATE = 19  # a card, b card
EV_PERSONALITY = 20  # actor, a personality, b detail (tile / unit)
EV_END = 21  # a reason, b purple space
EV_ILLEGAL = 22  # actor, a decision code, b value
EV_TEMPLE_TILE = 23  # a tile, b hex, c type
EV_FARM_SAVED = 24  # actor, a hex, b tile
# actor (-1 Old Ones), a total, b farms/revealed, c phosphate/unrevealed, d tiles+tokens/blight,
# e personalities
EV_SCORE = 25
# actor target seat (-1 none), a card, b MYTHOS_* how, c hex / tile / unit detail (-1), d TP paid,
# e effect id
EV_MYTHOS = 26
# a OOP_* action, b detail (tile placed / revealed, Mythos card kept), c hex, d cards drawn
EV_OOP_ACTION = 27
EV_REVENGE = 28  # actor seat, a RV_* below, b hex (RV_CYCLE: Personality), c VP (RV_CYCLE: slot)
NUM_EVENTS = 29
RV_SPAWN_TAKEN, RV_PORT_FLIP, RV_OUTPOST_FIGHT, RV_OUTPOST_LOST, RV_CYCLE, RV_REFRESH = range(6)
# EV_MYTHOS b: how the card was used
MYTHOS_PLAYED, MYTHOS_COMBAT, MYTHOS_FLIPPED, MYTHOS_PENDING, MYTHOS_NO_EFFECT = range(5)
MYTHOS_HOW = (
    "played",
    "played in combat",
    "flipped",
    "flipped, waits for its combat",
    "flipped, no effect",
)

# decisions (EV_ILLEGAL a)
(
    DEC_ACTION,
    DEC_TRACK,
    DEC_MINE,
    DEC_RECRUIT,
    DEC_BUY,
    DEC_TRADE,
    DEC_FARM,
    DEC_ATTACK,
    DEC_REVEAL,
    DEC_FREE_UNIT,
    # the Old One player (Revenge; EV_ILLEGAL actor -1)
    DEC_OOP_TARGET,
    DEC_OOP_MYTHOS,
    DEC_OOP_ACTION,
    DEC_OOP_PLACE_LEVEL,
    DEC_OOP_SITE,
    DEC_OOP_REVEAL,
    DEC_OOP_SUMMON,
    DEC_OOP_OUTPOST_ORDER,
) = range(18)

# checked-build invariant codes (G_FIRST_VIOLATION)
CHK_NEGATIVE, CHK_CUBES, CHK_TRACKS, CHK_FARMS, CHK_SUPPLY, CHK_TIME, CHK_TILES, CHK_END = range(
    1, 9
)
CHECK_NAMES = ("ok", "negative", "cubes", "tracks", "farms", "supply", "time", "tiles", "end")

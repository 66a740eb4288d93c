"""Card and tile enums of the full game: Revelation kinds and benefits, Personality
effects, Mythos card effects (re-exported by simkit.kernels.low.game_layout).
"""

from simkit.kernels.low.fields import Layout

# -- Revelation kinds ----------------------------------------------------------------------
REV_NONE, REV_REVEAL, REV_REVEAL_SIX, REV_ASSASSINATE, REV_TEMPLES = range(5)
REV_NAMES = ("none", "reveal", "reveal_six", "assassinate", "temples")
# Revelation benefits ("apply to all players except the Old Ones"; none are public, so the
# shipped deck has none): resources by their P_RES index, then VP tokens
BENEFIT_COAL, BENEFIT_IRON, BENEFIT_GOLD, BENEFIT_VP = 0, 1, 2, 3
BENEFIT_NAMES = ("coal", "iron", "gold", "vp")

# -- Personality effects -------------------------------------------------------------------
(
    EFF_NONE,
    EFF_UNIT_CAPACITY,
    EFF_AUTO_DAMAGE,
    EFF_JONES,
    EFF_RANGE_BONUS,
    EFF_FARM_GUARD,
    EFF_REVEAL,
    EFF_FREE_UNIT,
) = range(8)
EFFECT_NAMES = (
    "none",
    "unit_capacity",
    "automatic_damage",
    "withdraw_before_resolve",
    "range_bonus",
    "farm_guard",
    "reveal_tiles",
    "free_unit",
)
MAX_PERSONALITIES = 62  # bits of P_PERS

# -- Mythos card effects (S.myth_effect; simkit.game.mythos.EFFECTS is this tuple) ----------
# MYTH_<NAME> = the index of <name> below: MYTH_PLACE_TILES_NEAR_PORT = 0 ... MYTH_TAKE_TROPHY = 14.
# "amount"/"level" are the card's (mythos_cards.csv).
MYTHOS_EFFECTS = (
    # amount tiles of `level`, face down, nearest empty Outback hex to a Port
    "place_tiles_near_port",
    "extra_time_next_combat",  # the next combat costs `amount` more TP
    "blight_farms",  # blight `amount` unblighted farms next to a face-up Old One
    # in combat (human not retreating): `amount` purple damage and `amount` Sanity lost
    "combat_damage_and_sanity",
    "move_closest_old_one",  # the Old One closest to a Port/Outpost moves `amount` hexes towards it
    "remove_rails",  # `amount` rail links of one player back to their supply
    # a random unused Old One of `level`, face up, at the closest face-up Temple
    "level3_at_temple",
    "port_combat_extra_damage",  # the next combat at a Port: +`amount` purple per card
    # the unit of a player's latest Buy Military is removed (the OOP scores it)
    "remove_recent_unit",
    "destroy_airship",  # one Airship destroyed (the OOP scores it)
    "temple_attack_extra_capacity",  # the next attacked Temple needs `amount` more damage
    "ghoul_joins_combat",  # an unused Zombie joins the combat; the human loses `amount` Infantry
    "block_action_boxes",  # `amount` cubes per human into action boxes (never Retrieve)
    # a random unused Old One of `level`, face up, on the Spawn hex nearest a Port
    "level3_near_port",
    # a player's Old One tile returns face up where it died; they get its VP as tokens
    "take_trophy",
    "blank",  # no effect: a printed card whose text is unknown (unknown = "blank")
)
MYTHOS_EFFECT_LAYOUT = Layout(
    "myth_effect ids",
    tuple((f"MYTH_{e.upper()}", 1) for e in MYTHOS_EFFECTS),
    size_name="MYTH_NUM_EFFECTS",
)

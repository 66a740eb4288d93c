"""Readings: where a rule text leaves a choice open, the options the engine implements
(re-exported by simkit.kernels.low.game_layout; the pack's readings.toml quotes the texts).
"""

# -- readings: where a rule text leaves a choice open, the options the engine implements ----
# (name, options); option 0 is the engine's historical choice. The pack's readings.toml
# quotes the text and names the default; S.r[R_READ + READ_<NAME>] holds the option index
# and the kernels compare it with <NAME>_<OPTION> (e.g. SERVITOR_PLACEMENT_TEMPLE).
READINGS = (
    ("servitor_placement", ("spawn_near_port", "temple")),
    ("yog_sothoth_tile", ("return_face_up", "removed")),
    ("atlach_nacha_payer", ("next_combat", "target")),
    ("port_loss", ("old_ones_remain", "token_destroyed")),
    ("outpost_order", ("oop_choice", "hex_order")),
    ("rails_removed", ("farthest_from_port", "nearest_port")),
    ("port_as_infantry", ("at_start", "when_units_gone")),
)
READING_NAMES = tuple(name for name, _ in READINGS)
READING_OPTIONS = dict(READINGS)
# written out so a reader (and grep) finds each one; the assert below checks them
READ_SERVITOR_PLACEMENT, READ_YOG_SOTHOTH_TILE, READ_ATLACH_NACHA_PAYER = 0, 1, 2
READ_PORT_LOSS, READ_OUTPOST_ORDER, READ_RAILS_REMOVED, READ_PORT_AS_INFANTRY = 3, 4, 5, 6
SERVITOR_PLACEMENT_SPAWN_NEAR_PORT, SERVITOR_PLACEMENT_TEMPLE = 0, 1
YOG_SOTHOTH_TILE_RETURN_FACE_UP, YOG_SOTHOTH_TILE_REMOVED = 0, 1
ATLACH_NACHA_PAYER_NEXT_COMBAT, ATLACH_NACHA_PAYER_TARGET = 0, 1
PORT_LOSS_OLD_ONES_REMAIN, PORT_LOSS_TOKEN_DESTROYED = 0, 1
OUTPOST_ORDER_OOP_CHOICE, OUTPOST_ORDER_HEX_ORDER = 0, 1
RAILS_REMOVED_FARTHEST_FROM_PORT, RAILS_REMOVED_NEAREST_PORT = 0, 1
PORT_AS_INFANTRY_AT_START, PORT_AS_INFANTRY_WHEN_UNITS_GONE = 0, 1
for _i, (_name, _options) in enumerate(READINGS):
    assert globals()[f"READ_{_name.upper()}"] == _i
    for _j, _opt in enumerate(_options):
        assert globals()[f"{_name.upper()}_{_opt.upper()}"] == _j

"""The AuZtralia board: maps, setup, railways, Old One movement, pictures.

Public API (kernels for the full-game engine live in simkit.kernels.low.board and
simkit.kernels.low.movement; see their module docstrings for array layouts):

    load_map(name_or_path, data=None) -> Board        validated map, static tables
    make_board(coords, ...) -> Board                  small maps in code (tests, tools)
    load_survey_tiles(path=None, data=None)           the 20 survey tiles
    setup_board(board, tiles, data, rng, ...)         survey: resources, Old One / Spawn tiles
    place_ports(board, num_players, rng, ports)       Setup 14, reverse player order
    legal_ports(board, port_hex)                      where the next Port may go
    empty_network / build_track / clear_hexes / attack_targets / attack_distances
    distances(neighbors, targets), move_card(...)     Old One movement on copies
    render_png(board, setup) -> bytes                 (import simkit.board.draw: matplotlib)
"""

from simkit.board.mapfile import available_maps, load_map, parse_map
from simkit.board.model import (
    AXIAL_DIRS,
    COMPASS_NAMES,
    FARMS,
    RESOURCES,
    TERRAINS,
    Board,
    axial_distance,
    make_board,
    neighbors_from_coords,
    opposite,
)
from simkit.board.movement import POLICIES, distances, move_card
from simkit.board.rails import (
    ALL_TERRAINS,
    CHEAP_BOX,
    attack_distances,
    attack_targets,
    build_track,
    clear_hexes,
    empty_network,
)
from simkit.board.setup import (
    BoardSetup,
    SurveyTiles,
    legal_ports,
    load_survey_tiles,
    old_one_pool,
    place_ports,
    setup_board,
)

__all__ = [
    "ALL_TERRAINS",
    "AXIAL_DIRS",
    "CHEAP_BOX",
    "COMPASS_NAMES",
    "FARMS",
    "POLICIES",
    "RESOURCES",
    "TERRAINS",
    "Board",
    "BoardSetup",
    "SurveyTiles",
    "attack_distances",
    "attack_targets",
    "available_maps",
    "axial_distance",
    "build_track",
    "clear_hexes",
    "distances",
    "empty_network",
    "legal_ports",
    "load_map",
    "load_survey_tiles",
    "make_board",
    "move_card",
    "neighbors_from_coords",
    "old_one_pool",
    "opposite",
    "parse_map",
    "place_ports",
    "setup_board",
]

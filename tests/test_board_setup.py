"""Setup: survey tiles (resources, Old One tiles, Revenge Spawn tiles) and Ports."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.board import (
    TERRAINS,
    SurveyTiles,
    axial_distance,
    legal_ports,
    load_map,
    load_survey_tiles,
    make_board,
    old_one_pool,
    place_ports,
    setup_board,
)
from simkit.board.fixtures import hexagon
from simkit.errors import DataPackError, UserError

N, NE, SE, S, SW, NW = 1, 2, 3, 4, 5, 6  # survey tile positions = compass numbers
COAL, IRON, GOLD, PHOSPHATE = range(4)


def tiles(*specs) -> SurveyTiles:
    """Survey tiles written out: each spec maps position -> (coal, iron, gold, phosphate,
    old_one)."""
    res = np.zeros((len(specs), 7, 4), dtype=np.int64)
    old = np.zeros((len(specs), 7), dtype=np.int64)
    for t, spec in enumerate(specs):
        for pos, (*r, o) in spec.items():
            res[t, pos] = r
            old[t, pos] = o
    return SurveyTiles(
        path="<test>",
        tile_number=np.arange(1, len(specs) + 1),
        tile_resource=res,
        tile_old_one=old,
        provenance={},
    )


OLD = (0, 0, 0, 0, 1)


@pytest.fixture(scope="module")
def by_level(pack):
    level, _ = old_one_pool(pack)
    return {lv: np.flatnonzero(level == lv).tolist() for lv in (1, 2, 3)}


def overlap_board(level_of_middle: int):
    """Three hexes north to south; survey hexes at both ends, the middle one marked."""
    return make_board([(0, 0), (0, 1), (0, 2)], survey=[0, 2], level=[1, level_of_middle, 1])


# The top survey tile marks the hex to its south, the bottom one the hex to its north.
BOTH_MARK_MIDDLE = tiles({S: OLD}, {N: OLD})


# -- Old One tiles --------------------------------------------------------------------------


def test_old_one_tile_level_matches_the_hex_mark(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[2])
    setup = setup_board(
        board,
        tiles({0: OLD}),
        pack,
        survey_draw=[0],
        stacks=[by_level[1], by_level[2], by_level[3]],
    )
    assert setup.tile_level[setup.hex_tile[0]] == 2


def test_overlap_replaces_tile_with_one_of_the_next_level_up(pack, by_level):
    setup = setup_board(
        overlap_board(1),
        BOTH_MARK_MIDDLE,
        pack,
        survey_draw=[0, 1],
        stacks=[by_level[1], by_level[2], by_level[3]],
    )
    first_level_one = by_level[1][0]
    assert setup.tile_level[setup.hex_tile[1]] == 2
    assert setup.tile_set_aside[first_level_one] and setup.tile_set_aside.sum() == 1


def test_second_overlap_upgrades_again_to_level_three(pack, by_level):
    board = make_board([(0, 0), (0, 1), (0, 2), (1, 0)], survey=[0, 2, 3], level=[1, 1, 1, 1])
    # hex 3 is SE of hex 0 (the middle hex 1 is S of 0, N of 2 and SW of 3)
    survey = tiles({S: OLD}, {N: OLD}, {SW: OLD})
    setup = setup_board(
        board, survey, pack, survey_draw=[0, 1, 2], stacks=[by_level[1], by_level[2], by_level[3]]
    )
    assert setup.tile_level[setup.hex_tile[1]] == 3 and setup.tile_set_aside.sum() == 2


def test_level_three_tile_is_not_upgraded_and_new_tile_not_placed(pack, by_level):
    setup = setup_board(
        overlap_board(3),
        BOTH_MARK_MIDDLE,
        pack,
        survey_draw=[0, 1],
        stacks=[by_level[1], by_level[2], by_level[3]],
    )
    assert setup.hex_tile[1] == by_level[3][0]
    assert setup.stack_top.tolist() == [0, 0, 1]  # only one level-3 tile left its stack
    assert not setup.tile_set_aside.any()


def test_running_out_of_a_level_takes_the_next_level_up(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[1])
    setup = setup_board(
        board, tiles({0: OLD}), pack, survey_draw=[0], stacks=[[], by_level[2], by_level[3]]
    )
    assert setup.hex_tile[0] == by_level[2][0]


def test_running_out_of_levels_one_and_two_takes_level_three(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[1])
    setup = setup_board(
        board, tiles({0: OLD}), pack, survey_draw=[0], stacks=[[], [], by_level[3][:1]]
    )
    assert setup.hex_tile[0] == by_level[3][0]


def test_no_tile_is_placed_when_every_stack_from_the_level_up_is_empty(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[2])
    setup = setup_board(board, tiles({0: OLD}), pack, survey_draw=[0], stacks=[by_level[1], [], []])
    assert setup.hex_tile[0] == -1 and setup.stack_top.tolist() == [0, 0, 0]


def test_overlap_with_no_higher_tile_left_keeps_the_existing_tile(pack, by_level):
    setup = setup_board(
        overlap_board(2),
        BOTH_MARK_MIDDLE,
        pack,
        survey_draw=[0, 1],
        stacks=[by_level[1], by_level[2][:1], []],
    )
    assert setup.hex_tile[1] == by_level[2][0] and not setup.tile_set_aside.any()


def test_old_ones_never_placed_on_hills_or_coastal_even_with_a_level_mark(pack, by_level):
    terrain = ["outback", "coastal", "hills", "outback", "coastal", "hills", "outback"]
    board = hexagon(
        1, terrain=terrain, survey=[0], level=[1] * 7
    )  # marks bypass the loader's check
    survey = tiles({p: OLD for p in range(7)})
    setup = setup_board(
        board, survey, pack, survey_draw=[0], stacks=[by_level[1], by_level[2], by_level[3]]
    )
    has_tile = setup.hex_tile >= 0
    assert has_tile.tolist() == [t == "outback" for t in terrain]


def test_hex_without_level_mark_gets_no_old_one(pack, by_level):
    board = make_board([(0, 0), (0, 1)], survey=[0], level=[1, -1])
    setup = setup_board(
        board,
        tiles({0: OLD, S: OLD}),
        pack,
        survey_draw=[0],
        stacks=[by_level[1], by_level[2], by_level[3]],
    )
    assert setup.hex_tile[0] >= 0 and setup.hex_tile[1] == -1


# -- resources -------------------------------------------------------------------------------


def test_resources_never_placed_on_coastal_hexes(pack, by_level):
    terrain = ["outback", "coastal", "hills", "outback", "coastal", "desert", "farmland"]
    board = hexagon(1, terrain=terrain, survey=[0])
    survey = tiles({p: (1, 0, 2, 0, 0) for p in range(7)})
    setup = setup_board(board, survey, pack, survey_draw=[0], stacks=[[], [], []])
    coastal = np.array([t == "coastal" for t in terrain])
    assert (setup.hex_resource[coastal] == 0).all()
    assert (setup.hex_resource[~coastal] == [1, 0, 2, 0]).all()


def test_overlapping_resources_add_up_in_one_hex(pack):
    board = overlap_board(1)
    survey = tiles({S: (2, 0, 0, 0, 0)}, {N: (1, 3, 0, 0, 0)})
    setup = setup_board(board, survey, pack, survey_draw=[0, 1], stacks=[[], [], []])
    assert setup.hex_resource[1].tolist() == [3, 3, 0, 0]


def test_resources_and_old_one_share_a_hex(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[1])
    setup = setup_board(
        board,
        tiles({0: (0, 0, 0, 1, 1)}),
        pack,
        survey_draw=[0],
        stacks=[by_level[1], by_level[2], by_level[3]],
    )
    assert setup.hex_tile[0] >= 0 and setup.hex_resource[0, PHOSPHATE] == 1


def test_survey_positions_off_the_map_place_nothing(pack, by_level):
    board = make_board([(0, 0)], survey=[0], level=[1])
    survey = tiles({p: (1, 1, 1, 1, 1) for p in range(1, 7)})
    setup = setup_board(
        board, survey, pack, survey_draw=[0], stacks=[by_level[1], by_level[2], by_level[3]]
    )
    assert setup.hex_resource.sum() == 0 and setup.hex_tile[0] == -1


def test_survey_draw_decides_which_tile_lies_where(pack):
    board = overlap_board(1)
    survey = tiles({0: (1, 0, 0, 0, 0)}, {0: (0, 0, 5, 0, 0)})
    setup = setup_board(board, survey, pack, survey_draw=[1, 0], stacks=[[], [], []])
    assert setup.hex_resource[0].tolist() == [0, 0, 5, 0] and setup.hex_resource[2].tolist() == [
        1,
        0,
        0,
        0,
    ]


# -- Revenge Spawn tiles ----------------------------------------------------------------------


def test_revenge_places_normal_spawn_tile_instead_of_old_one(pack):
    board = make_board([(0, 0)], survey=[0], level=[1])
    setup = setup_board(
        board, tiles({0: OLD}), pack, survey_draw=[0], stacks=[[], [], []], revenge=True
    )
    assert setup.hex_spawn.tolist() == [0] and setup.hex_tile.tolist() == [-1]


def test_revenge_overlap_flips_spawn_tile_to_dangerous(pack, by_level):
    setup = setup_board(
        overlap_board(1),
        BOTH_MARK_MIDDLE,
        pack,
        survey_draw=[0, 1],
        stacks=[by_level[1], by_level[2], by_level[3]],
        revenge=True,
    )
    assert setup.hex_spawn.tolist() == [-1, 1, -1] and (setup.hex_tile == -1).all()
    assert setup.stack_top.tolist() == [0, 0, 0]


def test_revenge_spawn_tiles_follow_old_one_terrain_exclusions(pack):
    board = make_board([(0, 0), (0, 1)], ["outback", "hills"], survey=[0], level=[1, 1])
    setup = setup_board(
        board, tiles({0: OLD, S: OLD}), pack, survey_draw=[0], stacks=[[], [], []], revenge=True
    )
    assert setup.hex_spawn.tolist() == [0, -1]


# -- Ports ------------------------------------------------------------------------------------


def coast(n=6, ports=(0, 2, 3, 5)):
    return make_board([(0, r) for r in range(n)], "coastal", port=list(ports))


def test_no_port_within_two_hexes_of_another():
    assert legal_ports(coast(), [0]).tolist() == [3, 5]


def test_ports_are_placed_in_reverse_player_order():
    # "first" policy: the player placing first takes the lowest-numbered legal hex
    assert place_ports(coast(), 2, ports="first").tolist() == [3, 0]


def test_port_distance_is_the_direct_route_not_along_the_coast():
    # two port hexes two apart across open sea: no land path joins them
    board = make_board([(0, 0), (0, 2)], "coastal", port=[0, 1])
    assert board.neighbors.max() == -1 and legal_ports(board, [0]).size == 0


def test_ports_only_on_hexes_with_the_port_symbol():
    assert set(legal_ports(coast(), []).tolist()) == {0, 2, 3, 5}


def test_random_ports_are_legal_and_reproducible():
    board = load_map("eastern")
    a = place_ports(board, 4, np.random.default_rng(11))
    b = place_ports(board, 4, np.random.default_rng(11))
    assert a.tolist() == b.tolist() and board.hex_port[a].all()
    for i in range(4):
        for j in range(i):
            assert (
                axial_distance(
                    board.hex_q[a[i]], board.hex_r[a[i]], board.hex_q[a[j]], board.hex_r[a[j]]
                )
                >= 3
            )


def test_explicit_illegal_port_choice_is_a_user_error():
    board = coast()
    with pytest.raises(UserError, match="player 1 cannot place a Port in hex 3"):
        place_ports(
            board, 2, ports=[3, 1]
        )  # player 2 places in hex 1 (index 0) first; hex 3 is 2 away


def test_running_out_of_port_hexes_is_a_user_error():
    with pytest.raises(UserError, match="no legal Port hex left for player 1"):
        place_ports(coast(ports=(0, 2)), 2, ports="first")


# -- the shipped map and tiles ----------------------------------------------------------------


def test_shipped_survey_tiles_are_twenty():
    assert load_survey_tiles().num_tiles == 20


def test_shipped_setup_deals_thirteen_distinct_tiles_reproducibly(pack):
    board, survey = load_map("eastern"), load_survey_tiles()
    a = setup_board(board, survey, pack, np.random.default_rng(7), num_players=4)
    b = setup_board(board, survey, pack, np.random.default_rng(7), num_players=4)
    assert np.unique(a.survey_tile).size == 13
    assert a.survey_tile.tolist() == b.survey_tile.tolist() and (a.hex_tile == b.hex_tile).all()
    assert (a.port_hex == b.port_hex).all()


def test_engine_kernel_reproduces_python_setup_from_the_same_seed(pack):
    from simkit.board.setup import fresh_stacks
    from simkit.kernels.low.board import random_survey_setup, survey_kit

    board, survey = load_map("eastern"), load_survey_tiles()
    ref = setup_board(board, survey, pack, np.random.default_rng(3))
    level, _ = old_one_pool(pack)
    stacks, size = fresh_stacks(level)
    n = board.num_hexes
    hex_resource, hex_tile = np.zeros((n, 4), dtype=np.int64), np.full(n, -1, dtype=np.int64)
    order = np.arange(survey.num_tiles, dtype=np.int64)
    kit = survey_kit(
        neighbors=board.neighbors,
        hex_terrain=board.hex_terrain,
        hex_level=board.hex_level,
        survey_hex=board.survey_hexes.astype(np.int64),
        tile_resource=survey.tile_resource,
        tile_old_one=survey.tile_old_one,
        tile_level=level,
        stacks=stacks,
        stack_top=np.zeros(3, dtype=np.int64),
        stack_size=size,
        hex_resource=hex_resource,
        hex_tile=hex_tile,
        hex_spawn=np.full(n, -1, dtype=np.int64),
        hex_marks=np.zeros(n, dtype=np.int64),
        tile_set_aside=np.zeros(level.size, dtype=np.int64),
    )
    random_survey_setup(np.random.default_rng(3), kit, order, False)
    assert (hex_tile == ref.hex_tile).all() and (hex_resource == ref.hex_resource).all()


def test_shipped_setup_differs_between_seeds(pack):
    board, survey = load_map("eastern"), load_survey_tiles()
    a = setup_board(board, survey, pack, np.random.default_rng(1))
    b = setup_board(board, survey, pack, np.random.default_rng(2))
    assert (a.hex_tile != b.hex_tile).any()


def test_shipped_setup_respects_terrain_and_level_rules(pack):
    board, survey = load_map("eastern"), load_survey_tiles()
    coastal, hills = TERRAINS.index("coastal"), TERRAINS.index("hills")
    for seed in range(5):
        s = setup_board(board, survey, pack, np.random.default_rng(seed))
        placed = s.hex_tile >= 0
        assert s.hex_resource[board.hex_terrain == coastal].sum() == 0
        assert not np.isin(board.hex_terrain[placed], [coastal, hills]).any()
        assert (s.tile_level[s.hex_tile[placed]] >= board.hex_level[placed]).all()


def test_bad_survey_tile_file_names_row_and_field(tmp_path):
    path = tmp_path / "survey_tiles.csv"
    path.write_text(
        "tile,position,coal,iron,gold,phosphate,old_one,provenance,source\n1,7,0,0,0,0,1,assumed,x\n"
    )
    with pytest.raises(DataPackError, match="row 2: field 'position'"):
        load_survey_tiles(path)


def test_more_survey_hexes_than_tiles_is_a_user_error(pack):
    with pytest.raises(UserError, match="2 survey hexes but only 1 survey tiles"):
        setup_board(overlap_board(1), tiles({}), pack, np.random.default_rng(0))


def test_setup_without_rng_for_random_draws_is_a_user_error(pack):
    with pytest.raises(UserError, match="needs an rng"):
        setup_board(overlap_board(1), BOTH_MARK_MIDDLE, pack)


def test_explicit_stack_with_wrong_level_tile_is_a_user_error(pack, by_level):
    with pytest.raises(UserError, match="stack 1"):
        setup_board(
            overlap_board(1),
            BOTH_MARK_MIDDLE,
            pack,
            survey_draw=[0, 1],
            stacks=[by_level[2], [], []],
        )

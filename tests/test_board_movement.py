"""Old One movement: distance fields, the compass tie-break, whole movement phases."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.board import distances, make_board, move_card
from simkit.board.fixtures import column, hexagon, hexagon_coords, single_hex, two_islands
from simkit.kernels.low import movement as M
from simkit.kernels.low.board import FAR, all_pairs_distances, distance_field, nearest_field
from simkit.names import OLD_ONES, SHOGGOTH, TEMPLE, ZOMBIE

CW, CCW = 1, -1


def step(board, targets, at, compass, rotation, **kw):
    """Where one mover standing on hex ``at`` goes on one card."""
    target = np.zeros(board.num_hexes, dtype=bool)
    target[list(targets)] = True
    movers, _, _ = move_card(board, target, None, [at], None, compass, rotation, **kw)
    return int(movers[0])


# -- tie-break (base rules, Movement of Old Ones 2-3) -------------------------------------
# hexagon(1): hex 0 is the centre, hex k is the neighbour in compass direction k.

# Two targets at the same distance, in compass directions 2 and 5.
TARGET_TIE = {
    (1, CW): 2,
    (1, CCW): 5,
    (2, CW): 2,
    (2, CCW): 2,
    (3, CW): 5,
    (3, CCW): 2,
    (4, CW): 5,
    (4, CCW): 2,
    (5, CW): 5,
    (5, CCW): 5,
    (6, CW): 2,
    (6, CCW): 5,
}


@pytest.mark.parametrize(("compass", "rotation"), sorted(TARGET_TIE))
def test_tie_between_equidistant_targets_follows_card_compass_and_rotation(compass, rotation):
    board = hexagon(1)
    assert step(board, [2, 5], 0, compass, rotation) == TARGET_TIE[(compass, rotation)]


# One target two steps away at (1, 1): two equal routes, through SE (compass 3) or S (4).
ROUTE_TIE = {
    (1, CW): 3,
    (1, CCW): 4,
    (2, CW): 3,
    (2, CCW): 4,
    (3, CW): 3,
    (3, CCW): 3,
    (4, CW): 4,
    (4, CCW): 4,
    (5, CW): 3,
    (5, CCW): 4,
    (6, CW): 3,
    (6, CCW): 4,
}


@pytest.mark.parametrize(("compass", "rotation"), sorted(ROUTE_TIE))
def test_tie_between_equal_routes_follows_card_compass_and_rotation(compass, rotation):
    board = hexagon(2)
    target = hexagon_coords(2).index((1, 1))
    first_step = step(board, [target], 0, compass, rotation)
    assert first_step == ROUTE_TIE[(compass, rotation)]  # hexes 3 and 4 are SE and S of the centre


def test_card_direction_outside_equal_routes_turns_to_first_route_clockwise():
    board = hexagon(1)
    # compass 4 (S) is not a route to targets NE (2) / NW (6): clockwise 4 -> 5 -> 6
    assert step(board, [2, 6], 0, 4, CW) == 6


def test_card_direction_outside_equal_routes_turns_to_first_route_anticlockwise():
    board = hexagon(1)
    # anticlockwise 4 -> 3 -> 2
    assert step(board, [2, 6], 0, 4, CCW) == 2


def test_single_shortest_route_is_taken_whatever_the_card_says():
    board = hexagon(1)
    for compass in range(1, 7):
        for rotation in (CW, CCW):
            assert step(board, [4], 0, compass, rotation) == 4


def test_nearest_target_wins_over_farther_one_in_card_direction():
    board = column(6)  # hexes 0..5 north to south
    # target 1 step north and 3 steps south; compass 4 (south) does not matter
    assert step(board, [0, 4], 1, 4, CW) == 0


# -- distance field -------------------------------------------------------------------


def test_distance_field_counts_steps_along_a_column():
    assert distances(column(5).neighbors, [0]).tolist() == [0, 1, 2, 3, 4]


def test_distance_field_without_targets_is_all_unreachable():
    assert (distances(hexagon(2).neighbors, np.zeros(19, dtype=bool)) == -1).all()


def test_distance_field_on_single_hex_target_is_zero():
    assert distances(single_hex().neighbors, [0]).tolist() == [0]


def test_distance_field_does_not_cross_between_islands():
    dist = distances(two_islands().neighbors, [0])
    assert (dist[7:] == -1).all() and (dist[:7] >= 0).all()


def brute_force_distance(coords, a, b):
    """Plain BFS over coordinates (no neighbour table) from hex a to hex b."""
    index = {c: i for i, c in enumerate(coords)}
    seen = {a: 0}
    todo = deque([a])
    while todo:
        h = todo.popleft()
        if h == b:
            return seen[h]
        q, r = coords[h]
        for dq, dr in ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)):
            m = index.get((q + dq, r + dr))
            if m is not None and m not in seen:
                seen[m] = seen[h] + 1
                todo.append(m)
    return -1


ALL_COORDS = hexagon_coords(3)


@st.composite
def small_maps(draw, min_hexes=1):
    keep = draw(st.lists(st.booleans(), min_size=len(ALL_COORDS), max_size=len(ALL_COORDS)))
    coords = [c for c, k in zip(ALL_COORDS, keep, strict=True) if k]
    if len(coords) < min_hexes:
        coords = ALL_COORDS[:min_hexes]
    targets = draw(st.lists(st.booleans(), min_size=len(coords), max_size=len(coords)))
    return coords, np.array(targets, dtype=bool)


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(small_maps())
def test_distance_field_equals_brute_force_bfs(case):
    coords, targets = case
    board = make_board(coords)
    dist = distances(board.neighbors, targets)
    for h in range(len(coords)):
        ds = [brute_force_distance(coords, t, h) for t in np.flatnonzero(targets)]
        ds = [d for d in ds if d >= 0]
        assert dist[h] == (min(ds) if ds else -1)


@FAST
@given(small_maps())
def test_the_table_field_equals_the_breadth_first_field(case):
    # the engine reads its fields from the all-pairs table (nearest_field); the numbers and
    # the count of hexes reached must be the search's, islands and no targets included
    coords, targets = case
    board = make_board(coords)
    n = len(coords)
    bfs, table = np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32)
    reached = distance_field(board.neighbors, targets, bfs, np.zeros(n, dtype=np.int32))
    hex_dist = all_pairs_distances(board.neighbors)
    assert nearest_field(hex_dist, targets, table) == reached
    assert table.tolist() == bfs.tolist()


def test_the_all_pairs_table_marks_other_islands_far():
    hex_dist = all_pairs_distances(two_islands().neighbors)
    assert hex_dist[0, 0] == 0 and (hex_dist[0, 7:] == FAR).all() and (hex_dist[0, :7] < FAR).all()


@FAST
@given(small_maps(min_hexes=2), st.data())
def test_distances_are_symmetric(case, data):
    coords, _ = case
    board = make_board(coords)
    a = data.draw(st.integers(0, len(coords) - 1))
    b = data.draw(st.integers(0, len(coords) - 1))
    assert distances(board.neighbors, [a])[b] == distances(board.neighbors, [b])[a]


@FAST
@given(small_maps(), st.integers(1, 6), st.sampled_from([CW, CCW]), st.data())
def test_step_never_increases_distance_to_nearest_target(case, compass, rotation, data):
    coords, targets = case
    board = make_board(coords)
    movers = data.draw(st.lists(st.integers(0, len(coords) - 1), min_size=1, max_size=5))
    before = distances(board.neighbors, targets)
    after_hex, _, _ = move_card(board, targets, None, movers, None, compass, rotation)
    for old, new in zip(movers, after_hex, strict=True):
        if before[old] > 0:
            assert before[new] == before[old] - 1
        else:
            assert new == old


@FAST
@given(small_maps(), st.integers(1, 6), st.sampled_from([CW, CCW]), st.data())
def test_unreachable_targets_leave_mover_in_place(case, compass, rotation, data):
    coords, targets = case
    board = make_board(coords)
    dist = distances(board.neighbors, targets)
    stranded = np.flatnonzero(dist < 0)
    if stranded.size == 0:
        targets = np.zeros(len(coords), dtype=bool)  # no targets at all: everyone is stranded
        stranded = np.arange(len(coords))
    movers = [int(data.draw(st.sampled_from(stranded.tolist())))]
    after_hex, _, _ = move_card(board, targets, None, movers, None, compass, rotation)
    assert after_hex.tolist() == movers


@FAST
@given(
    small_maps(),
    st.integers(1, 6),
    st.sampled_from([CW, CCW]),
    st.sampled_from(["random", "ports", "lowest"]),
    st.integers(0, 2**32 - 1),
    st.data(),
)
def test_revenge_choice_is_always_one_step_closer(case, compass, rotation, policy, seed, data):
    coords, targets = case
    board = make_board(coords)
    movers = data.draw(st.lists(st.integers(0, len(coords) - 1), min_size=1, max_size=5))
    before = distances(board.neighbors, targets)
    after_hex, _, _ = move_card(
        board,
        targets,
        None,
        movers,
        None,
        compass,
        rotation,
        policy=policy,
        rng=np.random.default_rng(seed),
    )
    for old, new in zip(movers, after_hex, strict=True):
        assert before[new] == (before[old] - 1 if before[old] > 0 else before[old])
        assert new == old or new in board.neighbors[old]


# -- one card: farms, ports, simultaneity -----------------------------------------------


def test_farm_entered_is_blighted_and_stops_being_a_target():
    board = column(3)
    target = np.array([True, False, False])
    farm = np.array([1, 0, 0])
    movers, farm_after, blighted = move_card(board, target, farm, [1], None, 1, CW)
    assert movers.tolist() == [0] and farm_after[0] == 2 and blighted == 1


def test_two_old_ones_entering_a_farm_together_blight_it_once():
    board = hexagon(1)
    target = np.zeros(7, dtype=bool)
    target[0] = True
    farm = np.zeros(7, dtype=np.int64)
    farm[0] = 1
    movers, farm_after, blighted = move_card(board, target, farm, [1, 4], None, 1, CW)
    assert movers.tolist() == [0, 0] and blighted == 1 and farm_after[0] == 2


def test_old_one_already_on_a_port_does_not_move():
    board = column(4)
    target = np.array([True, False, False, True])  # port at 0, farm at 3
    farm = np.array([0, 0, 0, 1])
    movers, _, _ = move_card(board, target, farm, [0], None, 4, CW)
    assert movers.tolist() == [0]


def test_mover_flag_off_means_no_move():
    board = column(3)
    movers, _, _ = move_card(board, [True, False, False], None, [2], [False], 1, CW)
    assert movers.tolist() == [2]


def test_no_targets_on_the_map_leaves_everyone_in_place():
    board = hexagon(2)
    movers, _, _ = move_card(board, np.zeros(19, dtype=bool), None, [0, 5, 11], None, 3, CCW)
    assert movers.tolist() == [0, 5, 11]


def test_single_hex_map_mover_stays():
    movers, _, _ = move_card(single_hex(), [False], None, [0], None, 1, CW)
    assert movers.tolist() == [0]


def test_removed_tile_is_ignored():
    movers, _, _ = move_card(column(3), [True, False, False], None, [-1, 2], None, 1, CW)
    assert movers.tolist() == [-1, 1]


# -- whole phases ------------------------------------------------------------------------


def phase(
    board,
    target,
    farm,
    mover_hex,
    mover_type,
    cards,
    compass,
    rotation,
    face_up=None,
    stop_at_farm=False,
    policy=M.CHOOSE_COMPASS,
    seed=0,
):
    """Run movement_phase with a small hand-made deck: card c circles every type in
    cards_moves[c]. Returns (mover_hex, hex_farm, blighted, mover_stopped)."""
    m = len(mover_hex)
    num_cards = len(compass)
    card_moves = np.zeros((num_cards, len(OLD_ONES)), dtype=bool)
    for c, types in enumerate(cards):
        card_moves[c, list(types)] = True
    mover_hex = np.array(mover_hex, dtype=np.int64)
    farm = np.array(farm, dtype=np.int64)
    target = np.array(target, dtype=bool)
    stopped = np.zeros(m, dtype=bool)
    kit = M.new_kit(
        board.neighbors,
        target,
        farm,
        mover_hex,
        card_moves=card_moves,
        card_compass=np.array(compass, dtype=np.int64),
        card_rotation=np.array(rotation, dtype=np.int64),
        type_moves=np.ones(len(OLD_ONES), dtype=bool),
        mover_type=np.array(mover_type, dtype=np.int64),
        mover_face_up=np.ones(m, dtype=bool) if face_up is None else np.array(face_up, dtype=bool),
        mover_stopped=stopped,
    )
    cards = np.arange(num_cards, dtype=np.int64)
    blighted = M.movement_phase(kit, cards, policy, np.random.default_rng(seed), stop_at_farm, True)
    return mover_hex, farm, blighted, stopped


def test_temples_never_move_even_when_circled():
    board = column(3)
    pos, _, _, _ = phase(
        board, [True, False, False], [0, 0, 0], [2], [TEMPLE], [[TEMPLE]], [1], [CW]
    )
    assert pos.tolist() == [2]


def test_face_down_tiles_do_not_move():
    board = column(3)
    pos, _, _, _ = phase(
        board,
        [True, False, False],
        [0, 0, 0],
        [2],
        [ZOMBIE],
        [[ZOMBIE]],
        [1],
        [CW],
        face_up=[False],
    )
    assert pos.tolist() == [2]


def test_only_types_circled_on_the_card_move():
    board = column(3)
    pos, _, _, _ = phase(
        board, [True, False, False], [0, 0, 0], [2, 2], [ZOMBIE, SHOGGOTH], [[SHOGGOTH]], [1], [CW]
    )
    assert pos.tolist() == [2, 1]


def test_old_one_stops_at_port_for_the_rest_of_the_phase():
    board = column(5)
    # port at 0; a farm at 4 becomes the only target if the port were ignored
    pos, _, _, stopped = phase(
        board,
        [True, False, False, False, True],
        [0, 0, 0, 0, 1],
        [1],
        [ZOMBIE],
        [[ZOMBIE], [ZOMBIE]],
        [1, 4],
        [CW, CW],
    )
    assert pos.tolist() == [0] and stopped.tolist() == [True]


def test_base_game_old_one_moves_on_after_blighting_a_farm():
    board = column(4)
    # farm at 1, port at 3: first card blights 1, second card heads for the port
    pos, farm, blighted, _ = phase(
        board,
        [False, True, False, True],
        [0, 1, 0, 0],
        [0],
        [ZOMBIE],
        [[ZOMBIE], [ZOMBIE]],
        [4, 4],
        [CW, CW],
    )
    assert blighted == 1 and farm[1] == 2 and pos.tolist() == [2]


def test_revenge_stop_at_farm_keeps_old_one_on_the_farm():
    board = column(4)
    pos, _, _, stopped = phase(
        board,
        [False, True, False, True],
        [0, 1, 0, 0],
        [0],
        [ZOMBIE],
        [[ZOMBIE], [ZOMBIE]],
        [4, 4],
        [CW, CW],
        stop_at_farm=True,
    )
    assert pos.tolist() == [1] and stopped.tolist() == [True]


def test_damage_cubes_travel_with_the_tile():
    board = column(4)
    damage = np.array([1, 3])  # the engine keeps damage per tile (index = tile)
    pos, _, _, _ = phase(
        board,
        [True, False, False, False],
        [0, 0, 0, 0],
        [3, 1],
        [ZOMBIE, TEMPLE],
        [[ZOMBIE, TEMPLE]],
        [1],
        [CW],
    )
    damage_in_hex = {int(h): int(d) for h, d in zip(pos, damage, strict=True)}
    assert damage_in_hex == {2: 1, 1: 3}  # the zombie took its cube along; the temple stayed


def test_phase_recomputes_targets_between_cards():
    board = column(5)
    # farm at 2 and port at 4; zombie at 1 reaches the farm, then turns south to the port
    pos, _, blighted, _ = phase(
        board,
        [False, False, True, False, True],
        [0, 0, 1, 0, 0],
        [1],
        [ZOMBIE],
        [[ZOMBIE]] * 3,
        [1, 1, 1],
        [CW] * 3,
    )
    assert blighted == 1 and pos.tolist() == [4]


# -- Revenge: the Old One player chooses among eligible hexes ------------------------------


def test_revenge_random_choice_only_picks_eligible_hexes():
    board = hexagon(1)
    seen = {
        step(board, [2, 5], 0, 1, CW, policy="random", rng=np.random.default_rng(s))
        for s in range(40)
    }
    assert seen == {2, 5}


def test_revenge_lowest_policy_picks_lowest_numbered_eligible_hex():
    board = hexagon(1)
    assert step(board, [3, 5], 0, 5, CW, policy="lowest", rng=np.random.default_rng(0)) == 3


def test_revenge_ports_policy_prefers_the_route_towards_a_port():
    board = hexagon(2)
    # targets: a farm NE of the centre (hex 2) and a port SW (hex 5); both 1 step away.
    # With the compass rule (compass 1, cw) the zombie would go NE; the chooser goes SW.
    target = np.zeros(19, dtype=bool)
    target[[2, 5]] = True
    farm = np.zeros(19, dtype=np.int64)
    farm[2] = 1
    base, _, _ = move_card(board, target, farm, [0], None, 1, CW)
    chosen, _, _ = move_card(
        board, target, farm, [0], None, 1, CW, policy="ports", rng=np.random.default_rng(0)
    )
    assert base.tolist() == [2] and chosen.tolist() == [5]


def test_step_candidates_lists_every_equal_route_in_compass_order():
    board = hexagon(1)
    dist = distances(board.neighbors, [2, 4, 6])
    cand = np.zeros(6, dtype=np.int64)
    count = M.step_candidates(board.neighbors, dist, 0, cand)
    assert cand[:count].tolist() == [1, 3, 5]  # direction indices of compass 2, 4, 6

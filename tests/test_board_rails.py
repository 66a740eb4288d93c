"""Railways: building legality, the clear network, attack range."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.board import (
    CHEAP_BOX,
    attack_distances,
    attack_targets,
    build_track,
    clear_hexes,
    empty_network,
    make_board,
)
from simkit.board.fixtures import column, hexagon, single_hex
from simkit.errors import UserError
from simkit.kernels.low import board as K

N, S = 0, 3  # direction indices of compass 1 (north) and 4 (south)
ME, YOU = 0, 1


def railway(board, player, port, path):
    """Tracks of ``player`` along consecutive hexes of ``path`` (built legally, in order)."""
    edges = empty_network(board)
    extend(board, edges, player, port, path)
    return edges


def extend(board, edges, player, port, path):
    for a, b in zip(path, path[1:], strict=False):
        build_track(board, edges, player, port, a, board.direction(a, b))


# -- building --------------------------------------------------------------------------


def test_first_track_must_start_at_the_port():
    board = column(4)
    with pytest.raises(UserError, match="not joined to the Port"):
        build_track(board, empty_network(board), ME, 0, 2, S)


def test_track_from_the_port_joins_both_hexes():
    board = column(3)
    edges = railway(board, ME, 0, [0, 1])
    assert edges[0, S] == ME and edges[1, N] == ME and (edges == ME).sum() == 2


def test_network_grows_contiguously_from_its_end():
    board = column(4)
    edges = railway(board, ME, 0, [0, 1, 2, 3])
    assert clear_hexes(board, edges, ME, 0).tolist() == [True] * 4


def test_only_one_track_across_a_hex_side():
    board = column(3)
    edges = railway(board, YOU, 0, [0, 1])
    with pytest.raises(UserError, match="already has a track"):
        build_track(board, edges, ME, 1, 1, N)  # my port is hex 1; the side to hex 0 is taken


def test_hexes_may_hold_track_of_several_players():
    board = column(3)
    edges = railway(board, YOU, 0, [0, 1])
    build_track(board, edges, ME, 2, 2, N)  # my port at 2, into hex 1 from the south
    assert edges[1, N] == YOU and edges[1, S] == ME


def test_cannot_build_into_a_hex_with_an_old_one_tile():
    board = column(3)
    with pytest.raises(UserError, match="Old One or Spawn"):
        build_track(board, empty_network(board), ME, 0, 0, S, old_ones=[1])


def test_cannot_build_into_a_hex_with_a_spawn_tile():
    board = column(3)
    with pytest.raises(UserError, match="Old One or Spawn"):
        build_track(board, empty_network(board), ME, 0, 0, S, spawns=[1])


def test_cannot_extend_past_an_old_one_on_the_line():
    board = column(4)
    edges = railway(board, ME, 0, [0, 1, 2])
    with pytest.raises(UserError, match="not joined to the Port"):
        build_track(board, edges, ME, 0, 2, S, old_ones=[1])


def test_two_point_box_cannot_build_into_hills():
    board = make_board([(0, 0), (0, 1)], ["coastal", "hills"])
    with pytest.raises(UserError, match="terrain"):
        build_track(board, empty_network(board), ME, 0, 0, S, terrain_mask=CHEAP_BOX)


def test_three_point_box_builds_into_hills():
    board = make_board([(0, 0), (0, 1)], ["coastal", "hills"])
    edges = empty_network(board)
    build_track(board, edges, ME, 0, 0, S)
    assert edges[0, S] == ME


def test_no_track_off_the_map():
    board = column(2)
    with pytest.raises(UserError, match="no hex on that side"):
        build_track(board, empty_network(board), ME, 0, 0, N)


# -- the clear network ----------------------------------------------------------------------


def test_old_one_on_the_line_cuts_off_everything_beyond_it():
    board = column(4)
    edges = railway(board, ME, 0, [0, 1, 2, 3])
    assert clear_hexes(board, edges, ME, 0, old_ones=[2]).tolist() == [True, True, False, False]


def test_other_players_track_is_not_my_network():
    board = column(3)
    edges = railway(board, YOU, 0, [0, 1, 2])
    assert clear_hexes(board, edges, ME, 0).tolist() == [True, False, False]


def test_old_one_on_my_port_leaves_no_clear_network():
    board = column(3)
    edges = railway(board, ME, 0, [0, 1, 2])
    assert not clear_hexes(board, edges, ME, 0, old_ones=[0]).any()


def test_route_around_an_old_one_keeps_hexes_connected():
    board = hexagon(1)  # centre 0, ring 1..6 clockwise from north
    edges = railway(board, ME, 1, [1, 0, 4])
    extend(board, edges, ME, 1, [1, 2, 3, 4])
    assert clear_hexes(board, edges, ME, 1, old_ones=[0])[4]


# -- attack range -----------------------------------------------------------------------------


def test_infantry_range_one_reaches_adjacent_hexes_only():
    board = column(6)
    edges = railway(board, ME, 0, [0, 1, 2])
    assert attack_targets(board, edges, ME, 0, [3, 4], force_range=1).tolist() == [3]


def test_armoured_car_range_two_reaches_two_hexes_off_rail():
    board = column(6)
    edges = railway(board, ME, 0, [0, 1])
    assert attack_targets(board, edges, ME, 0, [3], force_range=2).tolist() == [3]


def test_range_counts_from_the_port_without_any_track():
    board = column(4)
    assert attack_targets(board, empty_network(board), ME, 0, [1, 2], force_range=4).tolist() == [1]


def test_cannot_trace_through_an_old_one_unless_airships_only():
    board = column(6)
    edges = railway(board, ME, 0, [0, 1])
    assert attack_targets(board, edges, ME, 0, [2, 3], force_range=4).tolist() == [2]
    assert attack_targets(
        board, edges, ME, 0, [2, 3], force_range=4, airship_only=True
    ).tolist() == [2, 3]


def test_airship_range_four_is_the_limit():
    board = column(7)
    assert attack_targets(
        board, empty_network(board), ME, 0, [4, 5], 4, airship_only=True
    ).tolist() == [4]


def test_armoured_train_attacks_only_hexes_on_the_network():
    board = column(5)
    edges = railway(board, ME, 0, [0, 1, 2])
    # Old One on the line at 2 (reachable by rail from clear 1) and off the line at 3
    assert attack_targets(board, edges, ME, 0, [2], force_range=0).tolist() == [2]
    assert attack_targets(board, edges, ME, 0, [3], force_range=0).tolist() == []


def test_jump_off_hex_must_be_clear_back_to_the_port():
    board = column(6)
    edges = railway(board, ME, 0, [0, 1, 2, 3])
    # Old One at 1 blocks the line: 4 is next to the rail end (3) but 3 cannot be reached
    assert attack_targets(board, edges, ME, 0, [1, 4], force_range=1).tolist() == [1]


def test_attack_distances_are_off_rail_steps_from_the_clear_network():
    board = column(5)
    edges = railway(board, ME, 0, [0, 1])
    assert attack_distances(board, edges, ME, 0).tolist() == [0, 0, 1, 2, 3]


# -- degenerate fixtures ------------------------------------------------------------------------


def all_rails_blocked():
    """Port in the centre, my track to every ring hex, an Old One on every ring hex."""
    board = hexagon(1)
    edges = empty_network(board)
    for k in range(6):
        build_track(board, edges, ME, 0, 0, k)
    return board, edges, np.arange(1, 7)


def test_all_rails_blocked_leaves_only_the_port_clear():
    board, edges, old = all_rails_blocked()
    assert clear_hexes(board, edges, ME, 0, old_ones=old).tolist() == [True] + [False] * 6


def test_all_rails_blocked_still_lets_the_port_attack_its_neighbours():
    board, edges, old = all_rails_blocked()
    assert attack_targets(board, edges, ME, 0, old, force_range=1).tolist() == list(range(1, 7))


def test_all_rails_blocked_allows_no_new_track():
    board = hexagon(2)
    edges = empty_network(board)
    for k in range(6):
        with pytest.raises(UserError, match="Old One or Spawn"):
            build_track(board, edges, ME, 0, 0, k, old_ones=np.arange(1, 7))


def test_single_hex_port_has_nowhere_to_build():
    board = single_hex("coastal")
    edges = empty_network(board)
    for k in range(6):
        with pytest.raises(UserError, match="no hex on that side"):
            build_track(board, edges, ME, 0, 0, k)
    assert clear_hexes(board, edges, ME, 0).tolist() == [True]


def test_no_port_placed_means_no_network():
    board = column(3)
    assert not clear_hexes(board, empty_network(board), ME, -1).any()


# -- the turn's attack field in two steps (game_common.ensure_reach, then ensure_dist) ---


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(0, 6),
    share_track=st.floats(0.0, 0.9),
    share_old_ones=st.floats(0.0, 0.4),
)
def test_attack_field_within_a_depth_then_finished_is_the_whole_field(
    seed, depth, share_track, share_old_ones
):
    board = hexagon(5)
    n, nb = board.num_hexes, board.neighbors.astype(np.int32)
    rng = np.random.default_rng(seed)
    edges = np.full((n, 6), -1, dtype=np.int64)
    for h in range(n):  # each side once, both hexes, for ME or YOU
        for k in range(3):
            m = nb[h, k]
            if m >= 0 and rng.random() < share_track:
                edges[h, k] = edges[m, k + 3] = rng.integers(0, 2)
    blocked = rng.random(n) < share_old_ones
    port = int(rng.integers(0, n))
    whole = attack_distances(board, edges, ME, port, blocked)
    dist, queue, clear = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, bool)
    K.attack_distance_within(nb, edges, ME, port, blocked, depth, dist, queue, clear)
    assert dist.tolist() == np.where(whole <= depth, whole, -1).tolist()
    assert clear.tolist() == clear_hexes(board, edges, ME, port, blocked).tolist()
    K.extend_attack_distance(nb, blocked, depth, dist, queue)
    assert dist.tolist() == whole.tolist()

"""Scoring on constructed end states (base rules, End of the Game; Destroying Old Ones)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.game.engine import Engine
from simkit.game.streams import game_streams
from simkit.kernels.game_combat import add_damage, kill_tile
from simkit.kernels.game_scoring import OLD_ONES_BIT, summarize, winners
from simkit.kernels.game_setup import setup_game, setup_row
from simkit.kernels.low import game_layout as L


@pytest.fixture(scope="module")
def eng():
    return Engine()


def empty_board(eng: Engine, players: int = 2) -> None:
    """A set-up game with every Old One tile, resource and farm taken off the board."""
    setup_game(game_streams(0), eng.S, eng.X, eng.W, setup_row(players, L.MODE_BASE, 1, 2, 2, 4))
    X = eng.state
    X.tile_hex[:] = -1
    X.tile_up[:] = False
    X.tile_state[:] = L.TILE_STACK
    X.hex_blocked[:] = False
    X.hex_old_ones[:] = False
    X.hx[:, L.H_RES : L.H_RES + L.NUM_RES] = 0


def farm(eng, h, owner, blighted=False):
    X = eng.state
    X.hx[h, L.H_FARM_OWNER] = owner
    X.hx[h, L.H_FARM_KIND] = 0
    X.hex_farm[h] = 2 if blighted else 1
    X.hex_target[h] = not blighted
    X.pl[owner, L.P_FARMS] += 1


def tile(eng, kind, level=None, up=True, h=None):
    """Put a tile of Old One ``kind`` (index into OLD_ONES, -1 Empty) on the board; returns its
    id."""
    S, X = eng.arrays, eng.state
    cands = np.flatnonzero(
        (S.tile_type == kind) & (X.tile_hex < 0) & ((S.tile_level == level) if level else True)
    )
    i = int(cands[0])
    h = int(np.flatnonzero(~X.hex_blocked & (X.hx[:, L.H_PORT_OWNER] < 0))[0]) if h is None else h
    X.tile_hex[i] = h
    X.tile_up[i] = up
    X.tile_state[i] = L.TILE_BOARD
    X.hex_blocked[h] = X.hex_old_ones[h] = True
    return i


def score(eng):
    out = np.zeros(L.SUMMARY_SIZE, dtype=np.int64)
    summarize(eng.S, eng.X, eng.W, out)
    return out


def pvp(out, p, field=L.SUM_P_VP):
    return int(out[L.S_PLAYER0 + p * L.S_PLAYER_STRIDE + field])


def test_unblighted_farms_score_two_for_their_owner_blighted_ones_one_for_the_old_ones(eng):
    empty_board(eng)
    for h in (20, 21, 22):
        farm(eng, h, 0)
    farm(eng, 23, 1)
    farm(eng, 24, 1, blighted=True)
    farm(eng, 25, 0, blighted=True)
    out = score(eng)
    assert pvp(out, 0, L.SUM_P_VP_FARMS) == 6 and pvp(out, 1, L.SUM_P_VP_FARMS) == 2
    assert out[L.S_OO_VP_BLIGHTED] == 2 and out[L.S_OO_VP] == 2


def test_unrevealed_tiles_score_double_revealed_ones_face_value(eng):
    empty_board(eng)
    shog = tile(eng, L.SHOGGOTH, up=False)
    mig = tile(eng, L.MI_GO, up=True)
    S = eng.arrays
    out = score(eng)
    assert out[L.S_OO_VP_UNREVEALED] == 2 * S.tile_vp[shog]
    assert out[L.S_OO_VP_REVEALED] == S.tile_vp[mig]
    assert out[L.S_OO_VP] == 2 * S.tile_vp[shog] + S.tile_vp[mig]
    assert out[L.S_FACE_DOWN_LEFT] == 1


def test_empty_tiles_score_nothing_face_down(eng):
    empty_board(eng)
    tile(eng, -1, up=False)
    assert score(eng)[L.S_OO_VP] == 0


def test_phosphate_three_personalities_and_tiles_taken(eng):
    empty_board(eng)
    X = eng.state
    X.pl[0, L.P_RES + L.PHOSPHATE] = 2
    X.pl[0, L.P_PERS_VP] = 2
    X.pl[1, L.P_TILE_VP] = 5
    X.pl[1, L.P_VP_TOKENS] = 3
    out = score(eng)
    assert pvp(out, 0, L.SUM_P_VP_PHOSPHATE) == 6 and pvp(out, 0, L.SUM_P_VP_PERSONALITIES) == 2
    assert pvp(out, 0) == 8 and pvp(out, 1) == 8
    assert pvp(out, 1, L.SUM_P_VP_TILES) == 5 and pvp(out, 1, L.SUM_P_VP_TOKENS) == 3


def kill_with(eng, kind, damage):
    """Destroy a tile of ``kind`` that players damaged as given {seat: damage}."""
    empty_board(eng, players=4)
    i = tile(eng, kind)
    for p, d in damage.items():
        add_damage(eng.X, i, p, d)
    kill_tile(eng.S, eng.X, i)
    X = eng.state
    assert X.tile_hex[i] == -1 and X.tile_state[i] == L.TILE_KILLED
    return i, X.pl[:, L.P_VP_TOKENS].copy(), X.pl[:, L.P_TILE_VP].copy()


def test_a_lone_killer_takes_the_tile(eng):
    i, tokens, tiles = kill_with(eng, L.CTHULHU, {2: 12})
    assert tiles[2] == eng.arrays.tile_vp[i] and tokens.sum() == 0
    assert eng.state.pl[2, L.P_KILLS] == 1


def test_shared_kill_splits_equally_remainder_to_the_most_damage(eng):
    i, tokens, tiles = kill_with(
        eng, L.SHOGGOTH, {0: 4, 1: 2}
    )  # shoggoth 5 VP: 2 each + 1 to seat 0
    assert eng.arrays.tile_vp[i] == 5
    assert tokens.tolist() == [3, 2, 0, 0] and tiles.sum() == 0
    assert eng.state.pl[0, L.P_SHARED] == 1 and eng.state.pl[1, L.P_SHARED] == 1


def test_shared_kill_tied_leaders_split_the_remainder_when_it_divides(eng):
    # Cthulhu 12 VP among three: 4 each, no remainder; 12 among 5 impossible (4 seats) ->
    # use Shoggoth 5 VP among 3 (1 each, remainder 2) with two tied leaders: 1 more each.
    i, tokens, _ = kill_with(eng, L.SHOGGOTH, {0: 2, 1: 2, 3: 1})
    assert tokens.tolist() == [2, 2, 0, 1]


def test_shared_kill_remainder_lost_when_tied_leaders_cannot_split_it(eng):
    # Shoggoth 5 VP between two equal damagers: 2 each, the remainder 1 is not awarded.
    _, tokens, _ = kill_with(eng, L.SHOGGOTH, {1: 3, 2: 3})
    assert tokens.tolist() == [0, 2, 2, 0]


def test_cubes_come_from_the_hq_and_go_back_when_the_tile_dies(eng):
    empty_board(eng)
    i = tile(eng, L.SHOGGOTH)
    X = eng.state
    X.pl[0, L.P_HQ] = 2
    add_damage(eng.X, i, 0, 5)  # only 2 cubes in the HQ: the rest are "discs"
    assert X.tile_dmg[i, 0] == 5 and X.tile_cubes[i, 0] == 2 and X.pl[0, L.P_HQ] == 0
    kill_tile(eng.S, eng.X, i)
    assert X.pl[0, L.P_HQ] == 2 and X.pl[0, L.P_ON_TILES] == 0


def test_old_ones_win_ties():
    assert winners(np.array([10, 7, 0, 0, 0, 0, 0, 0]), 2, 10) == OLD_ONES_BIT
    assert winners(np.array([10, 7, 0, 0, 0, 0, 0, 0]), 2, 9) == 0b01


def test_tied_players_share_the_victory():
    assert winners(np.array([10, 10, 3, 0, 0, 0, 0, 0]), 3, 9) == 0b011


def test_summary_winner_columns_on_a_tie_with_the_old_ones(eng):
    empty_board(eng)
    farm(eng, 30, 0)  # 2 VP for seat 0
    tile(eng, L.MI_GO, up=True, h=40)  # 2 VP for the Old Ones
    out = score(eng)
    assert pvp(out, 0) == out[L.S_OO_VP] == 2
    assert out[L.S_WINNER] == -1 and out[L.S_OLD_ONES_WIN] == 1 and out[L.S_HUMANS_WIN] == 0

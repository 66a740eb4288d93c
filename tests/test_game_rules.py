"""The rules, checked two ways: properties every event log must have (re-derived here in
plain Python from the rule text: Time Track order, Time Point costs, the Gold surcharge,
the awakening, one Revelation per illuminated space, one-hex Old One steps), and
constructed positions for single rules (display shifting, assassination, Temple tiles,
attack range, Personalities, Alanza Castro, a Port with no units, a defended Port won and
lost on a scripted deck)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import hits, put_old_one, scripted_engine

from simkit.game.engine import Engine, make_spec
from simkit.game.streams import game_streams
from simkit.kernels.game_actions import turn_context
from simkit.kernels.game_old_ones import assassinate, move_with_card, resolve_ports, temple_tiles
from simkit.kernels.game_setup import setup_game, setup_row
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.board import lay_track
from simkit.kernels.low.game_common import (
    ensure_dist,
    in_range,
    take_from_display,
    unit_capacity,
    unit_reach,
)

TP = {
    L.BOX_RAIL: 2,
    L.BOX_RAIL_HILLS: 3,
    L.BOX_MINE: 1,
    L.BOX_RECRUIT: 1,
    L.BOX_MILITARY: 1,
    L.BOX_TRADE: 1,
}


@pytest.fixture(scope="module")
def eng():
    return Engine()


@pytest.fixture(scope="module")
def logs(eng):
    out = []
    for k, (n, strat) in enumerate(
        (
            (1, "random"),
            (2, "random"),
            (3, "random"),
            (4, "random"),
            (2, "economist,hunter"),
            (3, "defender,balanced,hunter"),
            (4, "balanced"),
        )
    ):
        rows, lg = eng.play_many(make_spec("base", n, strat), 77, k, 120, log=True)
        out += [(n, r, g) for r, g in zip(rows, lg, strict=True)]
    return out


def turns(log):
    """(kind, time, actor, a, b, c, d, e) rows of actions and Old One turns, with what followed."""
    idx = np.flatnonzero(np.isin(log[:, 0], (L.EV_ACTION, L.EV_OO_TURN)))
    for j, i in enumerate(idx):
        end = idx[j + 1] if j + 1 < len(idx) else len(log)
        yield log[i], log[i + 1 : end]


def test_time_track_order_lowest_space_then_top_of_the_stack(logs):
    """Replay the Time Track from the log alone and check who acted each time."""
    for n, _, log in logs:
        setup = log[log[:, 0] == L.EV_SETUP]
        time = {int(r[2]): int(r[4]) for r in setup}
        stamp = {p: n - p for p in range(n)}  # first player (seat 0) on top
        stamp["oo"], time["oo"], counter, awake = 0, 22, n, False
        for row, _ in turns(log):
            players = [p for p in range(n) if time[p] < 53]
            awake = awake or all(time[p] > 22 for p in range(n))
            discs = players + (["oo"] if awake and time["oo"] < 53 else [])
            expect = min(discs, key=lambda d: (time[d], -stamp[d]))
            counter += 1
            if row[0] == L.EV_OO_TURN:
                assert expect == "oo" and row[3] == time["oo"] + 1
                time["oo"], stamp["oo"] = int(row[3]), counter
            else:
                p = int(row[2])
                assert expect == p and row[1] == time[p] and row[6] == time[p] + row[4]
                time[p], stamp[p] = int(row[6]), counter


def test_time_point_costs(logs):
    for _, _, log in logs:
        for row, after in turns(log):
            if row[0] != L.EV_ACTION:
                continue
            box, tp = int(row[3]), int(row[4])
            if box in TP:
                assert tp == TP[box]
            elif box == L.BOX_FARM:
                farms = after[after[:, 0] == L.EV_FARM]
                assert tp == len(farms) and 1 <= tp <= 3 and len(set(farms[:, 4].tolist())) == tp
            elif box == L.BOX_ATTACK:
                bits = int(after[after[:, 0] == L.EV_ATTACK][0, 4])
                kinds = sum((bits >> u) & 1 for u in (L.INFANTRY, L.ARMOURED_CAR, L.ARTILLERY))
                assert tp == max(kinds, 1)
            else:
                assert box == L.BOX_RETRIEVE and tp in (1, 2)


def test_one_gold_per_cube_already_in_the_box_and_retrieve_empties_them(logs):
    for n, _, log in logs:
        boxes = np.zeros((n, L.NUM_BOXES), dtype=int)
        for row, _ in turns(log):
            if row[0] != L.EV_ACTION:
                continue
            p, box = int(row[2]), int(row[3])
            assert row[5] == boxes[p, box]
            if box == L.BOX_RETRIEVE:
                boxes[p] = 0
            else:
                boxes[p, box] += 1


def test_railway_two_tracks_per_build_twenty_in_all(logs):
    for n, _, log in logs:
        laid = np.zeros(n, dtype=int)
        for row, after in turns(log):
            if row[0] == L.EV_ACTION and row[3] in (L.BOX_RAIL, L.BOX_RAIL_HILLS):
                k = int((after[:, 0] == L.EV_TRACK).sum())
                assert 1 <= k <= 2
                laid[row[2]] += k
        assert (laid <= 20).all()


def test_old_ones_one_space_per_turn_revelation_on_illuminated_spaces(eng, logs):
    illuminated = set(np.flatnonzero(eng.rules.illuminated).tolist())
    for _, row, log in logs:
        spaces = [int(r[3]) for r, _ in turns(log) if r[0] == L.EV_OO_TURN]
        assert spaces == list(range(23, 23 + len(spaces)))
        for r, after in turns(log):
            if r[0] == L.EV_OO_TURN:
                assert r[4] == (r[3] in illuminated)
                assert (after[:, 0] == L.EV_REVELATION).sum() == (1 if r[3] in illuminated else 0)
                assert (after[:, 0] == L.EV_ACTION).sum() == 0
        if row[L.S_END_REASON] == L.END_TIME:
            assert spaces[-1] == 53


def test_old_ones_step_one_hex_to_a_neighbour(eng, logs):
    nb = eng.arrays.neighbors
    for _, _, log in logs:
        for r in log[log[:, 0] == L.EV_MOVE]:
            assert r[5] in nb[r[4]]


def test_lost_port_ends_the_game_at_once(logs):
    for _, row, log in logs:
        lost = np.flatnonzero(log[:, 0] == L.EV_PORT_LOST)
        if row[L.S_END_REASON] == L.END_PORT:
            assert len(lost) == 1
            rest = log[lost[0] + 1 :, 0]
            assert set(rest.tolist()) <= {L.EV_END, L.EV_SCORE}
        else:
            assert len(lost) == 0


# -- constructed positions --------------------------------------------------------------------


def fresh(eng, players=2):
    setup_game(
        game_streams(3), eng.S, eng.X, eng.W, setup_row(players, L.MODE_BASE, 1, 2, 2, 4, log_on=1)
    )
    X = eng.state
    X.tile_hex[:] = -1
    X.tile_up[:] = False
    X.tile_state[:] = L.TILE_STACK
    X.hex_blocked[:] = False
    X.hex_old_ones[:] = False
    X.hx[:, L.H_RES : L.H_RES + L.NUM_RES] = 0
    return X


def put(eng, kind, h, up=True):
    return put_old_one(eng, h, kind, up, only=(L.TILE_STACK,))


def test_taking_from_the_display_shifts_right_and_refills_on_the_left(eng):
    X = fresh(eng)
    X.display[:] = [10, 11, 12, 13, 14]
    X.pers_deck[:3] = [20, 21, 22]
    X.g[L.G_PERS_POS], X.g[L.G_PERS_SIZE] = 0, 3
    assert take_from_display(eng.X, 2) == 12
    assert X.display.tolist() == [20, 10, 11, 13, 14]


def test_assassination_removes_the_two_rightmost(eng):
    X = fresh(eng)
    X.display[:] = [10, 11, 12, 13, 14]
    X.pers_deck[:3] = [20, 21, 22]
    X.g[L.G_PERS_POS], X.g[L.G_PERS_SIZE] = 0, 3
    assassinate(eng.S, eng.X)
    assert X.display.tolist() == [21, 20, 10, 11, 12]


def test_temples_get_a_level_three_tile_lowest_hex_first(eng):
    X = fresh(eng)
    a, b = put(eng, L.TEMPLE, 60), put(eng, L.TEMPLE, 40)
    top = X.stack_top[2]
    temple_tiles(eng.S, eng.X, eng.W)
    new = [i for i in np.flatnonzero(X.tile_state != L.TILE_STACK) if i not in (a, b)]
    placed = X.stacks[2, top : top + 2]
    assert X.stack_top[2] == top + 2
    # the first tile drawn went to the lower-numbered Temple (hex 40)
    first, second = placed
    assert (X.tile_hex[first] in (40, -1)) and (X.tile_hex[second] in (60, -1))
    assert all(X.tile_up[i] or X.tile_state[i] == L.TILE_REMOVED for i in new)


def old_one_two_steps_off_the_network(eng):
    """Seat 0 alone, one track from its Port, and a Zombie two steps off that network (on a
    hex not next to it): (X, the Zombie's hex)."""
    X = fresh(eng, players=1)
    S = eng.arrays
    port = int(X.pl[0, L.P_PORT])
    nb = S.neighbors
    k = int(np.flatnonzero(nb[port] >= 0)[0])
    h1 = int(nb[port, k])
    lay_track(S.neighbors, X.edge_owner, port, k, 0)
    # an Old One two steps off the network, on a hex not next to the network
    dist = np.full(len(nb), -1)
    frontier = [port, h1]
    for h in frontier:
        dist[h] = 0
    seen = set(frontier)
    ring = []
    for h in frontier:
        for m in nb[h]:
            if m >= 0 and m not in seen:
                seen.add(m)
                ring.append(int(m))
    far = next(int(m) for h in ring for m in nb[h] if m >= 0 and m not in seen)
    put(eng, L.ZOMBIE, far)
    eng.work.ctx[L.CTX_DIST_OK] = 0
    return X, far


def test_attack_range_counts_from_the_clear_network(eng):
    X, far = old_one_two_steps_off_the_network(eng)
    ensure_dist(eng.S, eng.X, eng.W, 0)
    assert eng.work.dist[far] == 2
    assert not in_range(eng.S, eng.X, eng.W, 0, far, 1, False)
    assert in_range(eng.S, eng.X, eng.W, 0, far, 2, False)


def test_personalities_change_capacity_and_range(eng):
    X = fresh(eng)
    names = eng.rules.pers_names
    assert unit_capacity(eng.S, eng.X, 0, L.ARMOURED_CAR) == 2
    assert unit_reach(eng.S, eng.X, 0, L.INFANTRY) == 1
    X.pl[0, L.P_PERS] = (1 << names.index("alexander_proust")) | (
        1 << names.index("billy_kneebone")
    )
    assert unit_capacity(eng.S, eng.X, 0, L.ARMOURED_CAR) == 3
    assert unit_reach(eng.S, eng.X, 0, L.INFANTRY) == 2
    assert unit_reach(eng.S, eng.X, 0, L.ARMOURED_TRAIN) == 0  # rail-bound stays rail-bound
    assert unit_capacity(eng.S, eng.X, 1, L.ARMOURED_CAR) == 2


@pytest.mark.parametrize("kneebone", [False, True])
def test_billy_kneebone_lets_infantry_attack_two_hexes_off_the_network(eng, kneebone):
    # base rules, Action: Attack: Infantry have an off-rail range of one hex; Billy Kneebone
    # (KNOWN-DATA, Personality cards): +1 off-rail range. The turn's legal Attack box and its
    # fallback (unit, hex) follow.
    X, far = old_one_two_steps_off_the_network(eng)
    X.pl[0, L.P_UNITS : L.P_UNITS + L.NUM_UNITS] = 0
    X.pl[0, L.P_UNITS + L.INFANTRY] = 1
    X.pl[0, L.P_PERS] = (1 << eng.rules.pers_names.index("billy_kneebone")) if kneebone else 0
    turn_context(eng.S, eng.X, eng.W, 0)
    ctx = eng.work.ctx
    assert bool(eng.work.legal[L.BOX_ATTACK]) == kneebone
    assert ctx[L.CTX_ATTACK_TARGETS] == int(kneebone)
    if kneebone:
        assert (ctx[L.CTX_FALLBACK_UNIT], ctx[L.CTX_FALLBACK_HEX]) == (L.INFANTRY, far)


def zombie_move_onto_farm(eng, castro: bool):
    """A face-up Zombie next to seat 0's farm, a card that moves Zombies: is the farm blighted?"""
    X = fresh(eng)
    S = eng.arrays
    port0 = int(X.pl[0, L.P_PORT])
    # a farm hex two steps from every Port, and a Zombie next to it
    farm = next(
        h
        for h in range(len(S.neighbors))
        if X.hx[h, L.H_PORT_OWNER] < 0
        and all(m not in S.neighbors[h] for m in X.pl[:2, L.P_PORT])
        and h != port0
    )
    X.hx[farm, L.H_FARM_OWNER], X.hx[farm, L.H_FARM_KIND] = 0, 0
    X.hex_farm[farm], X.hex_target[farm] = 1, True
    start = next(int(m) for m in S.neighbors[farm] if m >= 0 and X.hx[m, L.H_PORT_OWNER] < 0)
    z = put(eng, L.ZOMBIE, start)
    if castro:
        X.pl[0, L.P_PERS] = 1 << eng.rules.pers_names.index("alanza_castro")
    card = int(np.flatnonzero(S.card_moves[:, L.ZOMBIE])[0])
    move_with_card(game_streams(0), eng.S, eng.X, eng.W, card, -1)
    assert X.tile_hex[z] in (farm, -1)
    return X, farm, z


def test_an_old_one_entering_a_farm_blights_it(eng):
    X, farm, z = zombie_move_onto_farm(eng, castro=False)
    assert X.hex_farm[farm] == 2 and not X.hex_target[farm] and X.g[L.G_FARMS_BLIGHTED] == 1


def test_alanza_castro_kills_a_zombie_and_saves_the_farm(eng):
    X, farm, z = zombie_move_onto_farm(eng, castro=True)
    assert X.tile_state[z] == L.TILE_KILLED and X.hex_farm[farm] == 1 and X.hex_target[farm]
    assert X.g[L.G_CASTRO_SAVES] == 1 and X.pl[0, L.P_TILE_VP] == eng.arrays.tile_vp[z]


def test_a_port_without_units_falls_and_the_game_ends(eng):
    X = fresh(eng)
    port = int(X.pl[1, L.P_PORT])
    put(eng, L.ZOMBIE, port)
    assert resolve_ports(game_streams(0), eng.S, eng.X, eng.W)
    assert X.g[L.G_OVER] == 1 and X.g[L.G_END_REASON] == L.END_PORT and X.g[L.G_PORT_LOST_BY] == 1


def _defend_port(pack, card):
    """Player 0's Port, with 2 Infantry in the Barracks, attacked by a Zombie, on a deck of
    that one card. Returns the engine, the state, the Zombie tile and resolve_ports' answer."""
    eng = scripted_engine(pack, [{L.ZOMBIE: card}])
    X = fresh(eng)
    X.g[L.G_SUPPLY + L.INFANTRY] -= 2 - X.pl[0, L.P_UNITS + L.INFANTRY]
    X.pl[0, L.P_UNITS + L.INFANTRY] = 2
    z = put(eng, L.ZOMBIE, int(X.pl[0, L.P_PORT]))
    return eng, X, z, resolve_ports(game_streams(0), eng.S, eng.X, eng.W)


def test_a_defended_port_survives_when_its_units_destroy_the_old_ones(pack):
    """Defending Your Port: everything in the Barracks fights; the Port is lost only 'if,
    after End of Combat Resolution, any Old Ones remain on your Port hex'."""
    eng, X, z, lost = _defend_port(pack, (hits(L.INFANTRY), 0, 0, 0))  # every card: a hit
    assert not lost and X.g[L.G_OVER] == 0 and X.pl[0, L.P_PORT_LOST] == 0
    assert X.tile_state[z] == L.TILE_KILLED and X.pl[0, L.P_TILE_VP] == eng.arrays.tile_vp[z]
    assert X.pl[0, L.P_UNITS + L.INFANTRY] == 2 and eng.work.cst[C.OUTCOME] == C.WIN


def test_a_port_whose_units_all_fall_is_lost_and_the_game_ends(pack):
    eng, X, z, lost = _defend_port(pack, (0, 1, 0, 0))  # every card: no hit, one purple cube
    assert lost and eng.work.cst[C.OUTCOME] == C.DEFEAT  # no withdrawing from a Port fight
    assert X.pl[0, L.P_UNITS + L.INFANTRY] == 0 and X.tile_hex[z] == X.pl[0, L.P_PORT]
    assert X.g[L.G_OVER] == 1 and X.g[L.G_END_REASON] == L.END_PORT and X.g[L.G_PORT_LOST_BY] == 0


def test_solo_starts_on_space_one_with_the_difficulty_resources(eng):

    for diff in eng.rules.solo_levels:
        spec = make_spec("solo", 1, "economist", difficulty=diff)
        row, log = eng.play((1, 0, 0), spec, log=True)
        setup = log[log[:, 0] == L.EV_SETUP]
        assert setup[0, 4] == 1 and row[L.S_MODE] == L.MODE_SOLO
        first = log[log[:, 0] == L.EV_ACTION][0]
        assert first[1] == 1
    # the resources: set up without playing
    setup_game(
        game_streams(0),
        eng.S,
        eng.X,
        eng.W,
        setup_row(1, L.MODE_SOLO, 1, *eng.rules.solo_levels["easy"], difficulty=0),
    )
    assert eng.state.pl[0, L.P_RES : L.P_RES + 3].tolist() == list(eng.rules.solo_levels["easy"])

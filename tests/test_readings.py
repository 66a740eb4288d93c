"""Readings of open rule texts as switches (readings.toml, simkit.game.readings): each
reading on a constructed position under each of its options, asserting what that reading of
the quoted text says happens; the pack file, the overrides and the command line."""

import numpy as np
import pytest
from conftest import hits, mythos_card, put_old_one, revenge_position, scripted_engine

from simkit.datapack import load_pack
from simkit.errors import UserError
from simkit.game.engine import Engine
from simkit.game.readings import load_readings, parse_readings
from simkit.game.streams import game_streams
from simkit.kernels.game_combat import add_damage, kill_tile
from simkit.kernels.game_oop import play_mythos, resolve_revenge_fights, revenge_port_defence
from simkit.kernels.low import game_layout as L
from simkit.runner.overrides import apply_overrides

ZOMBIE_ROW = L.ZOMBIE


def _engine(reading: str | None = None, option: str | None = None, data=None) -> Engine:
    data = data if data is not None else load_pack()
    if reading is not None:
        data = apply_overrides(data, {f"reading.{reading}": option})
    return Engine(data=data)


@pytest.fixture(scope="module")
def engines():
    """name -> option -> Engine playing that reading (the others at their defaults)."""
    return {name: {opt: _engine(name, opt) for opt in options} for name, options in L.READINGS}


def _setup(eng):
    X = revenge_position(eng, 3, "rusher")
    X.mythos_hand[:] = 0
    return X


def _open_hexes(X):
    ok = (
        (X.hx[:, L.H_SPAWN] < 0)
        & (X.hx[:, L.H_PORT_OWNER] < 0)
        & (X.hx[:, L.H_OUTPOST] < 0)
        & (X.hx[:, L.H_FARM_OWNER] < 0)
        & ~X.hex_blocked
    )
    return np.flatnonzero(ok)


# -- the file ---------------------------------------------------------------------------------
def test_every_reading_quotes_its_text_and_names_a_default_among_the_engines_options():
    readings = load_readings()
    assert tuple(readings) == L.READING_NAMES
    for name, r in readings.items():
        assert r.options == L.READING_OPTIONS[name] and r.default in r.options
        assert len(r.text) > 20 and r.source and r.help


def test_a_pack_reading_with_other_options_than_the_engines_is_refused(tmp_path):
    import shutil

    from simkit.datapack import DEFAULT_PACK
    from simkit.errors import DataPackError

    shutil.copytree(DEFAULT_PACK, tmp_path / "p")
    path = tmp_path / "p" / "readings.toml"
    path.write_text(path.read_text().replace('"spawn_near_port", "temple"', '"anywhere"'))
    with pytest.raises(DataPackError, match="servitor_placement.options"):
        load_readings(tmp_path / "p")


@pytest.mark.parametrize(
    "text, message",
    [
        ("servitor_placement", "NAME=OPTION"),
        ("servitor=temple", "unknown reading 'servitor'"),
        ("servitor_placement=moon", "unknown option 'moon'"),
    ],
)
def test_a_bad_reading_choice_is_one_line_naming_it(text, message):
    with pytest.raises(UserError, match=message):
        parse_readings([text])


def test_naming_a_reading_twice_is_refused():
    with pytest.raises(UserError, match="twice"):
        parse_readings(["port_loss=token_destroyed", "port_loss=old_ones_remain"])


def test_a_reading_override_reaches_the_engine_and_the_data_hash():
    base = load_pack()
    read = apply_overrides(base, {"reading.servitor_placement": "temple"})
    assert read.hash != base.hash and read.readings == (("servitor_placement", "temple"),)
    eng = Engine(data=read)
    assert eng.arrays.r[L.R_READ + L.READ_SERVITOR_PLACEMENT] == L.SERVITOR_PLACEMENT_TEMPLE
    assert Engine(data=base).arrays.r[L.R_READ + L.READ_SERVITOR_PLACEMENT] == 0


# -- Servitor of the Outer Gods: "Draw randomly from unused Level 3 Old Ones. Place it faceup."
def test_servitor_places_its_tile_per_the_reading(engines):
    """spawn_near_port: face up on the Spawn hex nearest the target's Port; temple: face up
    at the face-up Temple nearest the target's Port (as Dark Young's note says)."""
    placed = {}
    for opt, eng in engines["servitor_placement"].items():
        X = _setup(eng)
        temple_hex = int(_open_hexes(X)[-1])
        put_old_one(eng, temple_hex, L.TEMPLE)
        c = mythos_card(eng, "level3_near_port")
        before = set(np.flatnonzero(X.tile_hex >= 0))
        play_mythos(game_streams(0), eng.S, eng.X, eng.W, c, 0, L.MYTHOS_PLAYED, 2)
        (new,) = set(np.flatnonzero(X.tile_hex >= 0)) - before
        assert X.tile_up[new] and eng.arrays.tile_level[new] == 3
        placed[opt] = int(X.tile_hex[new])
        if opt == "temple":
            assert placed[opt] == temple_hex
        else:
            h = placed[opt]
            spawns = np.flatnonzero((X.hx[:, L.H_SPAWN] >= 0) & (X.port_dist[0] >= 0))
            assert X.hx[h, L.H_SPAWN] >= 0
            assert X.port_dist[0, h] == X.port_dist[0, spawns].min()
    assert placed["temple"] != placed["spawn_near_port"]


# -- Yog-Sothoth: "The player losing the Old One gains VP tokens to the same value." ------------
def test_yog_sothoth_returns_or_removes_the_trophy_per_the_reading(engines):
    for opt, eng in engines["yog_sothoth_tile"].items():
        X = _setup(eng)
        h = int(_open_hexes(X)[0])
        i = put_old_one(eng, h, L.SHOGGOTH, never=(L.TILE_KILLED,))
        X.tile_dmg[i, 1] = eng.arrays.tile_cap[i]
        kill_tile(eng.S, eng.X, i)
        vp = int(eng.arrays.tile_vp[i])
        tokens = int(X.pl[1, L.P_VP_TOKENS])
        play_mythos(game_streams(0), eng.S, eng.X, eng.W, mythos_card(eng, "take_trophy"), 0, 0, 1)
        assert X.pl[1, L.P_TILE_VP] == 0 and X.pl[1, L.P_VP_TOKENS] == tokens + vp  # both
        if opt == "return_face_up":
            assert X.tile_hex[i] == h and X.tile_up[i] and X.tile_state[i] == L.TILE_BOARD
        else:
            assert X.tile_hex[i] == -1 and X.tile_state[i] == L.TILE_ASIDE


# -- Atlach-Nacha: "You must pay 1 extra Time when the next Combat occurs." -------------------
def test_atlach_nacha_is_paid_by_the_next_fighter_or_only_by_its_target(engines):
    for opt, eng in engines["atlach_nacha_payer"].items():
        X = _setup(eng)
        play_mythos(
            game_streams(0),
            eng.S,
            eng.X,
            eng.W,
            mythos_card(eng, "extra_time_next_combat"),
            0,  # played against seat 0
            L.MYTHOS_PLAYED,
            1,
        )
        extra = int(X.g[L.G_EXTRA_TIME])
        assert extra > 0
        put_old_one(eng, int(X.pl[1, L.P_PORT]), L.ZOMBIE)  # seat 1 fights first
        t1 = int(X.pl[1, L.P_TIME])
        revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 1)
        if opt == "next_combat":
            assert X.pl[1, L.P_TIME] == t1 + extra and X.g[L.G_EXTRA_TIME] == 0
        else:
            assert X.pl[1, L.P_TIME] == t1 and X.g[L.G_EXTRA_TIME] == extra  # still owed
            put_old_one(eng, int(X.pl[0, L.P_PORT]), L.ZOMBIE)
            t0 = int(X.pl[0, L.P_TIME])
            revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
            assert X.pl[0, L.P_TIME] == t0 + extra and X.g[L.G_EXTRA_TIME] == 0


# -- Port loss: "If, after End of Combat Resolution, any Old Ones remain on your Port hex" -----
def test_a_knocked_out_token_whose_attacker_died_loses_the_port_only_under_token_destroyed(pack):
    """One card destroys the last Zombie and knocks the strength-2 token out."""
    for opt, lost_expected in (("old_ones_remain", False), ("token_destroyed", True)):
        eng = scripted_engine(
            apply_overrides(pack, {"reading.port_loss": opt}),
            [{ZOMBIE_ROW: (hits(L.INFANTRY), 2, 0, 0)}],
        )
        X = revenge_position(eng, difficulty=L.DIFF_HARD)  # the Port token at strength 2
        X.tile_hex[:] = -1
        X.hex_old_ones[:] = False
        for u in range(L.NUM_UNITS):  # the token fights alone
            X.g[L.G_SUPPLY + u] += X.pl[0, L.P_UNITS + u]
            X.pl[0, L.P_UNITS + u] = 0
        h = int(X.pl[0, L.P_PORT])
        i = put_old_one(eng, h, L.ZOMBIE)
        add_damage(eng.X, i, 1, int(eng.arrays.tile_cap[i]) - 1)
        vp0 = int(X.g[L.G_OOP_VP])
        lost = revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
        assert lost == lost_expected
        assert X.g[L.G_OOP_VP] - vp0 == (eng.arrays.port_rev[L.PR_OOP_VP] if lost else 0)


# -- Outposts: "the Old One player decides the order the combats will take place" ------------
def test_outpost_fights_go_in_the_oop_order_or_in_hex_order(engines):
    for opt, eng in engines["outpost_order"].items():
        X = revenge_position(eng, oop="rusher")
        free = np.flatnonzero(
            (X.hx[:, L.H_SPAWN] < 0) & (X.hx[:, L.H_PORT_OWNER] < 0) & ~X.hex_blocked
        )
        weak, strong = int(free[0]), int(free[1])  # the weaker one has the lower hex
        for h in (weak, strong):
            X.hx[h, L.H_OUTPOST] = 0
            X.hex_target[h] = True
        X.pl[0, L.P_OUTPOSTS] = 2
        put_old_one(eng, weak, L.ZOMBIE)
        put_old_one(eng, strong, L.SHOGGOTH)
        X.g[L.G_LOG_ON] = 1
        X.g[L.G_LOG_N] = 0
        resolve_revenge_fights(game_streams(2), eng.S, eng.X, eng.W)
        fights = [int(r[3]) for r in X.log[: X.g[L.G_LOG_N]] if r[0] == L.EV_COMBAT]
        expect = [strong, weak] if opt == "oop_choice" else [weak, strong]
        assert fights[:2] == expect


def _owned(eng, X, a, b):
    """Seat 0 owns the rail link between hexes a and b."""
    return X.edge_owner[a, int(np.flatnonzero(eng.arrays.neighbors[a] == b)[0])] == 0


# -- Cthonian / Dholes: "The rail links do not need to be adjacent to an Old One." -----------
def test_the_rails_removed_are_the_farthest_or_the_nearest_links_to_the_port(engines):
    for opt, eng in engines["rails_removed"].items():
        X = _setup(eng)
        h0 = int(X.pl[0, L.P_PORT])
        # a straight line of 3 links out of the Port: h0 - a - b - c
        line, h = [h0], h0
        for _ in range(3):
            nxt = next(
                int(m)
                for k, m in enumerate(eng.arrays.neighbors[h])
                if m >= 0 and int(m) not in line and X.port_dist[0, m] == X.port_dist[0, h] + 1
            )
            line.append(nxt)
            h = nxt
        X.edge_owner[:] = -1
        for a, b in zip(line, line[1:], strict=False):
            k = int(np.flatnonzero(eng.arrays.neighbors[a] == b)[0])
            X.edge_owner[a, k] = 0
            X.edge_owner[b, (k + 3) % 6] = 0
        X.pl[0, L.P_TRACKS] = 3
        c = next(
            c
            for c in np.flatnonzero(eng.arrays.myth_effect == L.MYTH_REMOVE_RAILS)
            if eng.arrays.myth_amount[c] == 1
        )  # Dholes: one link
        play_mythos(game_streams(0), eng.S, eng.X, eng.W, int(c), 0, L.MYTHOS_PLAYED, 1)
        links = list(zip(line, line[1:], strict=False))

        gone = {(a, b) for a, b in links if not _owned(eng, X, a, b)}
        assert X.pl[0, L.P_TRACKS] == 2 and len(gone) == 1
        assert gone == ({links[-1]} if opt == "farthest_from_port" else {links[0]})


# -- Ports: "If you have no Units when your Port is attacked, the Port fights as Infantry" ----
def test_a_port_token_fights_on_after_its_last_unit_only_under_when_units_gone(pack):
    """One Infantry (capacity 2) defends with the token, its cubes going on the cheapest
    stack first (the token last); every card hits Infantry once and brings 2 purple cubes.
    The first card kills the Infantry, the Zombie has 1 damage left. at_start: the force is
    defeated there and the Port is lost. when_units_gone: the token fights on as Infantry,
    its hit on the second card destroys the Zombie (the same card's cubes knock the token
    out) and the Port stands."""
    from simkit.kernels.low import combat_layout as C
    from strategies.combat.allocation import CHEAPEST

    for opt, lost_expected in (("at_start", True), ("when_units_gone", False)):
        eng = scripted_engine(
            apply_overrides(pack, {"reading.port_as_infantry": opt}),
            [{ZOMBIE_ROW: (hits(L.INFANTRY), 2, 0, 0)}],
        )
        X = revenge_position(eng)  # Normal: the token at strength 4
        X.tile_hex[:] = -1
        X.hex_old_ones[:] = False
        for u in range(L.NUM_UNITS):
            X.g[L.G_SUPPLY + u] += X.pl[0, L.P_UNITS + u] - (u == L.INFANTRY)
            X.pl[0, L.P_UNITS + u] = int(u == L.INFANTRY)
        X.params[0, L.SP_ALLOC] = CHEAPEST  # cubes on the Infantry first, the token last
        h = int(X.pl[0, L.P_PORT])
        i = put_old_one(eng, h, L.ZOMBIE)
        assert eng.arrays.tile_cap[i] == 2
        lost = revenge_port_defence(game_streams(0), eng.S, eng.X, eng.W, 0)
        st = eng.work.cst
        assert st[C.COUNT + L.INFANTRY] == 0  # the Infantry died either way
        assert lost == lost_expected
        if lost_expected:
            assert st[C.OUTCOME] == C.DEFEAT and st[C.COUNT + C.PORT_STACK] == 1
        else:  # the token's own Infantry hit destroyed the Zombie (and its cubes the token)
            assert st[C.OUTCOME] in (C.WIN, C.WIN_AND_DEFEAT) and X.tile_hex[i] != h

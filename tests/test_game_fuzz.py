"""Fuzzing: 100,000 games in the checked build: uniformly random legal players in the base
and solo games, and Revenge of the Old Ones (every Old One player strategy against random
and heuristic humans, both rulesets, every difficulty) and Mythos Solo games.

The kernel checks after every turn (simkit.kernels.game_loop.check_invariants): no
negative resources, cubes conserved (HQ + boxes + on Old One tiles = 20), tracks and
farms within the player's pieces and equal to what is on the board, military units
within the shared supply, time only moves forward, tiles consistent. A cheap post-pass
over the summary rows checks the rest: every game ends by one of the two end conditions.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.game.engine import Engine, make_spec
from simkit.kernels.low import game_layout as L

TOTAL = 100_000
# (mode, players, share of the games, human strategies, options): four-player games are the slowest
TABLES = (
    ("base", 1, 0.14, "random", {}),
    ("base", 2, 0.2, "random", {}),
    ("base", 3, 0.14, "random", {}),
    ("base", 4, 0.1, "random", {}),
    ("solo", 1, 0.1, "random", {}),
    ("revenge", 2, 0.06, "random", dict(oop="rusher", difficulty="normal")),
    (
        "revenge",
        3,
        0.06,
        "random,balanced,hunter",
        dict(oop="blighter", difficulty="hard", ruleset="revenge-alt"),
    ),
    ("revenge", 1, 0.04, "random", dict(oop="mythos", difficulty="heroic")),
    (
        "revenge",
        4,
        0.04,
        "economist,random,defender,random",
        dict(oop="random", difficulty="normal", ruleset="revenge-alt"),
    ),
    ("revenge", 2, 0.04, "random", dict(oop="random", difficulty="hard")),
    ("mythos-solo", 1, 0.04, "random", dict(difficulty="hard")),
    ("mythos-solo", 1, 0.04, "random", dict(difficulty="easy")),
)


pytestmark = [
    pytest.mark.slow,  # 100,000 games: `make test` runs it, `make test-fast` does not
    # every test of the file reads the same 100,000 games: one xdist worker plays them once
    pytest.mark.xdist_group("game_fuzz_rows"),
]


@pytest.fixture(scope="session")
def rows():
    """Session scope: an xdist worker may tear a module fixture down between two tests of the
    module (when its queue runs dry), and these games take a minute."""
    eng = Engine()
    parts = []
    for k, (mode, n, share, humans, opts) in enumerate(TABLES):
        spec = make_spec(mode, n, humans, **opts)
        parts.append(eng.play_many(spec, 2024, k, int(round(TOTAL * share)), checked=True)[0])
    games = np.concatenate(parts)
    games.flags.writeable = False  # shared by every test: none may change it
    return games


def col(rows, p, field):
    return rows[:, L.S_PLAYER0 + p * L.S_PLAYER_STRIDE + field]


def test_one_hundred_thousand_games(rows):
    assert rows.shape[0] == TOTAL
    share = {
        m: sum(t[2] for t in TABLES if t[0] == m)
        for m in ("base", "solo", "revenge", "mythos-solo")
    }
    for name, code in (
        ("base", L.MODE_BASE),
        ("solo", L.MODE_SOLO),
        ("revenge", L.MODE_REVENGE),
        ("mythos-solo", L.MODE_MYTHOS_SOLO),
    ):
        assert (rows[:, L.S_MODE] == code).sum() == round(TOTAL * share[name]), name


def test_no_invariant_broken_after_any_turn(rows):
    bad = rows[:, L.S_VIOLATIONS] > 0
    assert not bad.any(), (
        f"{bad.sum()} games broke {L.CHECK_NAMES[int(rows[bad, L.S_FIRST_VIOLATION][0])]}"
    )


def test_random_players_never_needed_the_engine_default(rows):
    assert rows[:, L.S_ILLEGAL].sum() == 0


def test_every_game_ends_by_time_or_a_lost_port(rows):
    reason = rows[:, L.S_END_REASON]
    assert set(np.unique(reason).tolist()) == {L.END_TIME, L.END_PORT}
    timed = reason == L.END_TIME
    assert (rows[timed, L.S_END_TIME] == 53).all() and (rows[timed, L.S_PORTS_LOST] == 0).all()
    port = reason == L.END_PORT
    assert (rows[port, L.S_PORTS_LOST] == 1).all() and (rows[port, L.S_PORT_LOST_BY] >= 0).all()
    for p in range(L.MAX_PLAYERS):
        seated = rows[:, L.S_NUM_PLAYERS] > p
        assert (col(rows, p, L.SUM_P_TIME)[timed & seated] >= 53).all()


def test_pieces_within_limits(rows):
    for p in range(L.MAX_PLAYERS):
        seated = rows[:, L.S_NUM_PLAYERS] > p
        assert (col(rows, p, L.SUM_P_TRACKS)[seated] <= 20).all()
        assert (col(rows, p, L.SUM_P_FARMS)[seated] <= 21).all()
        assert (col(rows, p, L.SUM_P_GOLD)[seated] >= 0).all()
        assert (
            col(rows, p, L.SUM_P_FARMS_BLIGHTED)[seated] <= col(rows, p, L.SUM_P_FARMS)[seated]
        ).all()
        assert (col(rows, p, L.SUM_P_VP)[~seated] == -1).all()
    base_like = rows[:, L.S_MODE] != L.MODE_REVENGE  # the purple disc starts on 22
    assert (rows[base_like, L.S_OO_TURNS] <= 53 - 22).all()
    assert (rows[~base_like, L.S_OO_TURNS] <= 53).all()  # the Old One player starts with the humans
    assert (rows[:, L.S_FARMS_BLIGHTED] <= rows[:, L.S_FARMS_BUILT]).all()


def test_vp_add_up(rows):
    for p in range(L.MAX_PLAYERS):
        seated = rows[:, L.S_NUM_PLAYERS] > p
        parts = sum(
            col(rows, p, f)
            for f in (
                L.SUM_P_VP_FARMS,
                L.SUM_P_VP_PHOSPHATE,
                L.SUM_P_VP_PERSONALITIES,
                L.SUM_P_VP_TILES,
                L.SUM_P_VP_TOKENS,
            )
        )
        assert (parts[seated] == col(rows, p, L.SUM_P_VP)[seated]).all()
    oo = rows[:, L.S_OO_VP_REVEALED] + rows[:, L.S_OO_VP_UNREVEALED] + rows[:, L.S_OO_VP_BLIGHTED]
    rev = rows[:, L.S_MODE] == L.MODE_REVENGE
    assert (oo[~rev] == rows[~rev, L.S_OO_VP]).all()
    # Revenge: Old Ones on the map (no doubling) + 3 per blighted Farm + VP tokens from eliminations
    assert (rows[rev, L.S_OO_VP_UNREVEALED] == 0).all() and (oo[rev] <= rows[rev, L.S_OO_VP]).all()
    assert (rows[rev, L.S_OO_VP_BLIGHTED] == 3 * rows[rev, L.S_FARMS_BLIGHTED]).all()


# the look-ahead players at their smallest budget, human side and Old One side
SEARCH_TABLES = (
    ("base", 2, 12, "search:rollouts=1,random", {}),
    ("revenge", 2, 12, "random", dict(oop="search:rollouts=1", difficulty="hard")),
    ("revenge", 2, 6, "balanced", dict(oop="search:rollouts=1:mythos=1", difficulty="heroic")),
    ("revenge", 3, 6, "balanced", dict(oop="search:rollouts=1:sites=1", difficulty="normal")),
    (
        "revenge",
        3,
        8,
        "search:rollouts=1:policy=economist,random,hunter",
        dict(oop="search:rollouts=1:policy=random", difficulty="normal", ruleset="revenge-alt"),
    ),
)


def test_search_players_keep_every_invariant_and_answer_legally():
    eng = Engine()
    for k, (mode, n, games, humans, opts) in enumerate(SEARCH_TABLES):
        spec = make_spec(mode, n, humans, **opts)
        rows = eng.play_many(spec, 2025, k, games, checked=True)[0]
        assert rows[:, L.S_VIOLATIONS].sum() == 0, (mode, humans, opts)
        assert rows[:, L.S_ILLEGAL].sum() == 0, (mode, humans, opts)
        assert set(rows[:, L.S_END_REASON].tolist()) <= {L.END_TIME, L.END_PORT}

"""Shared fixtures: the shipped pack and small decks cut from it."""

from __future__ import annotations

import dataclasses
import subprocess

import numpy as np
import pytest

from simkit.datapack import AuzData, load_pack
from simkit.game.streams import game_streams


def pytest_collection_modifyitems(config, items):
    """Tests marked ``long_wait`` (minutes spent mostly waiting on subprocesses) run first, so
    such a test never sits alone at the end of a parallel run while the other workers idle."""
    items.sort(key=lambda item: item.get_closest_marker("long_wait") is None)  # stable


def pytest_xdist_node_collection_finished(node, ids):
    """Under ``--dist loadgroup`` (``make test``) the tests of one ``xdist_group`` share a
    worker, so an expensive shared fixture (the fuzz file's 100,000 games) is computed once;
    xdist marks a grouped test by appending ``@group`` to its id. pytest 9.2 silently broke
    that (pytest-xdist#1386: the fixture ran on both workers). Stop rather than run the suite
    slower without a word."""
    if node.config.getvalue("dist") != "loadgroup" or any("@" in i for i in ids):
        return
    if any(i.startswith("tests/test_game_fuzz.py::") for i in ids):  # a grouped file
        pytest.exit(
            "--dist loadgroup is not grouping the tests (pytest-xdist#1386): this pytest and "
            "pytest-xdist do not work together; install the pinned dev extra (make setup)",
            returncode=4,
        )


@pytest.fixture
def small_tmpfs(tmp_path):
    """A real 1 MB file system (tmpfs) for disk-full cases; skips where none may be mounted
    (without root). Unmounted afterwards, lazily if a test left it busy."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root); the injected ENOSPC tests cover it")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.fixture(scope="session")
def pack() -> AuzData:
    return load_pack()


def small_deck(data: AuzData, cards: list[int]) -> AuzData:
    """The pack with only the given card indices in the Old One deck."""
    idx = np.asarray(cards)
    return dataclasses.replace(
        data,
        deck_size=idx.size,
        card_ids=data.card_ids[idx],
        card_hits=data.card_hits[idx],
        card_purple=data.card_purple[idx],
        card_sanity=data.card_sanity[idx],
        card_airship=data.card_airship[idx],
        card_moves=data.card_moves[idx],
        card_compass=data.card_compass[idx],
        card_rotation=data.card_rotation[idx],
    )


def custom_deck(data: AuzData, rows: list[dict[int, tuple[int, int, int, int]]]) -> AuzData:
    """A deck written out card by card: each card maps Old One type -> (hit mask, purple,
    sanity, airship)."""
    n = len(rows)
    hits = np.zeros((n, 6), dtype=np.uint8)
    purple = np.zeros((n, 6), dtype=np.int64)
    sanity = np.zeros_like(purple)
    airship = np.zeros_like(purple)
    for c, row in enumerate(rows):
        for t, (h, p, s, a) in row.items():
            hits[c, t], purple[c, t], sanity[c, t], airship[c, t] = h, p, s, a
    return dataclasses.replace(
        data,
        deck_size=n,
        card_ids=np.arange(1, n + 1),
        card_hits=hits,
        card_purple=purple,
        card_sanity=sanity,
        card_airship=airship,
        card_moves=np.zeros((n, 6), dtype=bool),
        card_compass=np.ones(n, dtype=np.int64),
        card_rotation=np.ones(n, dtype=np.int64),
    )


def scripted_engine(data: AuzData, rows, moves_zombies: bool = False):
    """An Engine whose Old One deck is the cards ``rows`` (custom_deck). A rule test writes
    the card that makes its fight go the way the rule text describes (with a one-card deck
    every draw is that card) instead of sweeping seeds until the case turns up.
    ``moves_zombies``: every card moves Zombies."""
    from simkit.game.engine import Engine
    from simkit.kernels.low import game_layout as L

    deck = custom_deck(data, rows)
    if moves_zombies:
        moves = np.zeros_like(deck.card_moves)
        moves[:, L.ZOMBIE] = True
        deck = dataclasses.replace(deck, card_moves=moves)
    return Engine(data=deck)


def hits(*units: int) -> int:
    """A card's hit mask: the unit types (L.INFANTRY, ...) whose symbol it shows."""
    return sum(1 << u for u in units)


# -- constructed game positions (one builder each, shared by the rule tests) ------------------
def revenge_position(
    eng,
    seed: int = 3,
    oop: str = "mythos",
    difficulty: int = 0,
    ruleset: int = 0,
    humans: int = 2,
    strategies: str = "balanced",
    shuffle_seats: bool = False,
    log_on: int = 0,
    checked: int = 1,
):
    """The state right after a Revenge setup on ``eng`` (humans on space 10 with 3 Coal,
    3 Iron, 6 Gold; difficulty DIFF_*, ruleset RULES_*), strategies lowered into the seats."""
    from simkit.game.engine import make_spec
    from simkit.kernels.game_setup import setup_game, setup_row
    from simkit.kernels.low import game_layout as L

    spec = make_spec("revenge", humans, strategies, oop=oop)
    X = eng.state
    X.sid[:] = 0
    for p, s in enumerate(spec.strategies):
        X.sid[p] = s.sid
        X.params[p] = s.lower()
    X.oop_params[:] = spec.oop.lower()
    setup_game(
        game_streams(seed),
        eng.S,
        eng.X,
        eng.W,
        setup_row(
            humans,
            L.MODE_REVENGE,
            10,
            3,
            3,
            6,
            shuffle_seats=shuffle_seats,
            difficulty=difficulty,
            ruleset=ruleset,
            log_on=log_on,
            checked=checked,
        ),
    )
    return X


def put_old_one(
    eng,
    h: int,
    ttype: int,
    up: bool = True,
    only: tuple[int, ...] | None = None,
    never: tuple[int, ...] = (),
) -> int:
    """Put the first off-board tile of Old One type ``ttype`` on hex ``h`` (face up unless
    ``up`` is False), blocking the hex; ``only`` / ``never`` restrict the tile states
    (TILE_*) the tile may come from. Returns the tile index."""
    from simkit.kernels.low import game_layout as L

    X = eng.state
    ok = (eng.arrays.tile_type == ttype) & (X.tile_hex < 0)
    if only is not None:
        ok &= np.isin(X.tile_state, only)
    if never:
        ok &= ~np.isin(X.tile_state, never)
    i = int(np.flatnonzero(ok)[0])
    X.tile_hex[i] = h
    X.tile_state[i] = L.TILE_BOARD
    X.tile_up[i] = up
    X.hex_blocked[h] = X.hex_old_ones[h] = True
    return i


def mythos_card(eng, effect: str) -> int:
    """The first Mythos card of the pack with that effect (simkit.game.mythos.EFFECTS)."""
    from simkit.kernels.low import game_layout as L

    return int(np.flatnonzero(eng.arrays.myth_effect == L.MYTHOS_EFFECTS.index(effect))[0])


@pytest.fixture(scope="session")
def learned_oop_file(tmp_path_factory) -> str:
    """A learned Old One player's weights file (seeded random weights), as a --oop spec."""
    import json

    from simkit.kernels.low import game_layout as L

    w = np.random.default_rng(11).normal(size=(L.NUM_OOP_ACTIONS, L.OOP_LEARN_NUM_FEATURES))
    rows = ",\n".join("  [" + ", ".join(repr(float(x)) for x in r) + "]" for r in w)
    path = tmp_path_factory.mktemp("learned_oop") / "oop.toml"
    path.write_text(
        "[learned]\nformat = 'simkit-learned-oop/1'\nbase = 'rusher'\n"
        f"features = {json.dumps(list(L.OOP_LEARN_FEATURES))}\n"
        f"actions = {json.dumps(list(L.OOP_ACTION_NAMES))}\nweights = [\n{rows}\n]\n"
    )
    return f"learned:{path}"

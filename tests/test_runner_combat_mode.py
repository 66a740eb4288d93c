"""Mode 'combat': rows against the exact solver, seeding, single-row replay, parameter checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simkit.combat import Combat, exact_odds, play_cards
from simkit.combat.mode import (
    chunk_bit_generator,
    combat_keys,
    prepare,
    replay,
    run_chunk,
)
from simkit.errors import UserError
from simkit.kernels.combat_rows import SCRIPT_PREFIX, card_order
from simkit.kernels.low import combat_layout as C
from simkit.modes import get_mode
from simkit.names import STACKS

GAMES = 100_000
OUTCOMES = C.OUTCOME_NAMES


def rows(pack, games=GAMES, root=4433, chunk=0, **params):
    mode = get_mode("combat")
    return run_chunk(mode.validate(params), pack, root, chunk, games, frozenset({"summary"}))[
        "summary"
    ]


def within_four_standard_errors(p_mc: float, p_exact: float, n: int) -> bool:
    se = math.sqrt(max(p_exact * (1 - p_exact), 1e-12) / n)
    return abs(p_mc - p_exact) <= 4 * se + 1e-9


@pytest.mark.parametrize(
    "params",
    [
        {"force": "infantry=2,artillery=1", "vs": "mi_go"},
        {"force": "infantry=1,armoured_car=1", "vs": "zombie,zombie", "allocate": "spread"},
        {"force": "artillery=1,armoured_train=1", "vs": "shoggoth", "withdraw": "sanity:1"},
        {"force": "infantry=1", "vs": "zombie", "port_strength": 4},
        # 36 cards seen: nearly every combat reshuffles
        {
            "force": "airship=1",
            "vs": "zombie",
            "seen": "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
            "21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36",
        },
    ],
)
def test_combat_rows_are_within_four_standard_errors_of_exact(pack, params):
    full = get_mode("combat").validate(params)
    fight = Combat.parse(full["force"], full["vs"], port_strength=full["port_strength"])
    seen = tuple(int(c) for c in full["seen"].split(",")) if full["seen"] else ()
    exact = exact_odds(fight, pack, allocate=full["allocate"], withdraw=full["withdraw"], seen=seen)
    r = rows(pack, **params)
    counts = np.bincount(r["outcome"], minlength=len(OUTCOMES))
    for o, name in enumerate(OUTCOMES):
        assert within_four_standard_errors(counts[o] / GAMES, exact.outcomes[name], GAMES), name
    assert within_four_standard_errors(r["destroyed"].mean(), exact.p_destroy, GAMES)
    if exact.p_port_flip is not None:
        assert within_four_standard_errors(r["port_flip"].mean(), exact.p_port_flip, GAMES)


def test_combats_longer_than_the_shuffled_prefix_resolve_as_the_scripted_resolver_does(pack):
    params = get_mode("combat").validate({"force": "airship=1", "vs": "zombie"})
    r = rows(pack, games=3000, root=11, **params)
    long = np.flatnonzero(r["cards"] > SCRIPT_PREFIX)
    assert long.size > 20
    prep = prepare(params, pack)
    keys = combat_keys(11, 0, 3000)
    for g in long[:20]:
        order = np.empty(prep.script_len, dtype=np.int64)
        card_order(
            keys[g],
            order,
            prep.start_deck,
            pack.card_hits.shape[0],
            np.empty(pack.card_hits.shape[0], np.int64),
        )
        end = play_cards(
            Combat.parse("airship=1", "zombie"), pack, [int(pack.card_ids[c]) for c in order]
        )
        assert end.cards == r["cards"][g]
        assert OUTCOMES.index(end.outcome) == r["outcome"][g]
        assert end.lost.get("airship", 0) == r["lost_airship"][g]


def test_chunk_generator_is_the_spawned_chunk_seed():
    spawned = np.random.SeedSequence(99).spawn(5)[3]
    assert np.array_equal(combat_keys(99, 3, 10), np.random.PCG64(spawned).random_raw(10))


def test_any_single_row_replays_alone_from_root_chunk_and_game(pack):
    params = get_mode("combat").validate({"force": "infantry=2,artillery=1", "vs": "shoggoth"})
    r = rows(pack, games=500, root=5, chunk=7, **params)
    for g in (0, 137, 499):
        row = replay(params, pack, 5, 7, g)
        assert row == {k: v[g].item() for k, v in r.items()}


def test_cells_with_the_same_seed_see_the_same_card_order(pack):
    # Artillery cost 3 vs 4 changes nothing when cheapest-first never reaches Artillery
    # first either way: with shared keys the rows are identical, not just similar.
    import dataclasses

    dear = dataclasses.replace(
        pack, unit_cost=np.where(np.arange(pack.unit_cost.size) == 2, 4.0, pack.unit_cost)
    )
    a = rows(pack, games=5000, force="infantry=2,armoured_car=1,artillery=1", vs="shoggoth")
    b = rows(dear, games=5000, force="infantry=2,armoured_car=1,artillery=1", vs="shoggoth")
    assert np.array_equal(a["outcome"], b["outcome"]) and np.array_equal(a["cards"], b["cards"])


def test_different_chunks_draw_different_combats(pack):
    a = rows(pack, games=2000, chunk=0, force="infantry=2", vs="shoggoth")
    b = rows(pack, games=2000, chunk=1, force="infantry=2", vs="shoggoth")
    assert not np.array_equal(a["cards"], b["cards"])


def test_summary_columns_have_small_types_and_consistent_totals(pack):
    r = rows(pack, games=2000, force="infantry=2,artillery=1,airship=1", vs="shoggoth")
    assert (
        r["outcome"].dtype == np.int8
        and r["cards"].dtype == np.int16
        and r["game_index"].dtype == np.int32
    )
    lost = sum(r[f"lost_{s}"].astype(int) for s in STACKS[:-1])
    assert np.array_equal(lost, r["units_lost"])
    assert np.array_equal(r["destroyed"], (r["outcome"] <= 1).astype(np.int8))


@pytest.mark.parametrize(
    "params,key",
    [
        ({"allocate": "optimal"}, "allocate"),
        ({"withdraw": "value"}, "withdraw"),
        ({"allocate": "cheepest"}, "allocate"),
        ({"force": "infantry=2,tank=1"}, "force"),
        ({"vs": "godzilla"}, "vs"),
        ({"port_strength": -1}, "port_strength"),
    ],
)
def test_bad_parameters_are_refused_naming_the_key(params, key):
    with pytest.raises(UserError, match=f"parameter '{key}'"):
        get_mode("combat").validate(params)


def test_chunk_bit_generator_advance_matches_drawing_in_turn():
    bg = chunk_bit_generator(1, 2)
    bg.advance(41)
    assert bg.random_raw() == combat_keys(1, 2, 42)[41]

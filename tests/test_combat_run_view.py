"""The Monte Carlo kernels' RunView (what stays fixed over a run, worked out once) plays
exactly the fights the general path plays: the stack order picks the stack choose_stack
picks, counted cube placement is placement one cube at a time, and whole runs agree, the
Monte Carlo run drawing one uniform ahead (combat_chance.Ahead), the general path with
Chance."""

import numba as nb
import numpy as np
import pytest

from simkit.combat import Combat, combat_arrays
from simkit.combat.parse import parse_old_ones
from simkit.datapack import load_pack
from simkit.kernels.combat import LOST_HIST, Chance, _simulate, place_cubes, simulate_combats
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit, view
from simkit.kernels.low.combat_table_lookup import EMPTY_TABLE
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.combat.allocation import (
    CHEAPEST,
    OPTIMAL,
    PROTECT,
    SPREAD,
    choose_stack,
    first_with_units,
    stack_order,
)

# cached, and every test of the file on one xdist worker: the reference loop below compiles
# the whole fight again (about a minute), once per run instead of once per worker
pytestmark = pytest.mark.xdist_group("combat_run_view")


def _one_at_a_time(st, mx, s, n):
    """Reference: the cubes placed one by one (the rule as written)."""
    placed = 0
    while placed < n and st[C.COUNT + s] > 0:
        st[C.DAMAGE + s] += 1
        st[C.PROGRESS] = 1
        placed += 1
        if s == C.PORT_STACK:
            st[C.PORT_HITS] += 1
        if st[C.DAMAGE + s] >= mx[C.CAPACITY + s]:
            st[C.COUNT + s] -= 1
            st[C.LOST + s] += 1
            st[C.DAMAGE + s] = 0
    return placed


def test_counted_cube_placement_is_placement_one_cube_at_a_time():
    mx = np.zeros(C.MATCHUP_SIZE, dtype=np.int64)
    checked = 0
    for s in (0, C.AIRSHIP_STACK, C.PORT_STACK):
        for cap in range(1, 5):
            mx[C.CAPACITY + s] = cap
            for count in range(4):
                for damage in range(cap if count else 1):
                    for n in range(-1, 3 * cap + 3):
                        for progress in (0, 1):
                            st = np.zeros(C.STATE_SIZE, dtype=np.int64)
                            st[C.COUNT + s], st[C.DAMAGE + s] = count, damage
                            st[C.LOST + s], st[C.PORT_HITS] = 1, 2
                            st[C.PROGRESS] = progress
                            want = st.copy()
                            assert place_cubes(st, mx, s, n) == _one_at_a_time(want, mx, s, n)
                            assert st.tolist() == want.tolist(), (s, cap, count, damage, n)
                            checked += 1
    assert checked > 1000


@pytest.mark.parametrize(
    "policy, protect",
    [(CHEAPEST, 0), (OPTIMAL, 0), (PROTECT, 0b0000101), (PROTECT, 0b1000010), (PROTECT, 127)],
)
def test_the_stack_order_picks_the_stack_choose_stack_picks(policy, protect):
    rng = np.random.default_rng(policy * 1000 + protect)
    params = np.array([float(protect)])
    for _ in range(300):
        mx = np.zeros(C.MATCHUP_SIZE, dtype=np.int64)
        mx[C.TAKES_PURPLE : C.TAKES_PURPLE + C.NUM_STACKS] = rng.integers(0, 2, C.NUM_STACKS)
        mx[C.CAPACITY : C.CAPACITY + C.NUM_STACKS] = rng.integers(1, 4, C.NUM_STACKS)
        cost = rng.choice([1.0, 2.0, 3.0], C.NUM_STACKS)  # ties: the lower stack first
        start = np.zeros(C.STATE_SIZE, dtype=np.int64)
        start[C.COUNT : C.COUNT + C.NUM_STACKS] = rng.integers(0, 3, C.NUM_STACKS)
        order = stack_order(policy, params, start, mx, cost)
        assert order >= 0
        for _ in range(10):  # later in the fight: units gone, damage on
            st = start.copy()
            st[C.COUNT : C.COUNT + C.NUM_STACKS] = rng.integers(0, st[: C.NUM_STACKS] + 1)
            st[C.DAMAGE : C.DAMAGE + C.NUM_STACKS] = rng.integers(0, 2, C.NUM_STACKS)
            assert first_with_units(order, st) == choose_stack(policy, params, st, mx, cost)


def test_spread_has_no_fixed_order():
    mx = np.ones(C.MATCHUP_SIZE, dtype=np.int64)
    st = np.ones(C.STATE_SIZE, dtype=np.int64)
    assert stack_order(SPREAD, np.zeros(1), st, mx, np.ones(C.NUM_STACKS)) == -1


@nb.njit(cache=True)
def _general(kit, rng, n, st0, outcomes, lost, hist, cards):
    """simulate_combats' loop on the plain KitView (choose_stack per cube, every slot),
    drawing with Chance (each card's uniform taken as the card is drawn)."""
    v = view(kit)
    _simulate(v, Chance(rng, v.start_deck.size), n, st0, outcomes, lost, hist, cards)


def _tallies(run, kit, st0, rng):
    out = (
        np.zeros(C.NUM_OUTCOMES, np.int64),
        np.zeros(C.NUM_STACKS, np.int64),
        np.zeros(LOST_HIST, np.int64),
        np.zeros(3, np.int64),
    )
    run(kit, rng, 3000, st0, *out)
    return [x.tolist() for x in out], kit.state.tolist()


FIGHTS = [
    ("infantry=2,armoured_car=1,artillery=1,airship=1", "shoggoth", {}),
    ("infantry=3,airship=2", "zombie,zombie", {}),
    ("armoured_car=1,airship=1", "zombie,mi_go,shoggoth", {}),
    ("infantry=2,airship=1,armoured_car=1", "mi_go", {"personalities": ("corporal_jones",)}),
    ("infantry=1", "zombie", {"port_strength": 4}),
    ("", "mi_go", {"port_strength": 2}),
]


@pytest.mark.parametrize("force, vs, kw", FIGHTS)
@pytest.mark.parametrize("allocate", ["cheapest", "spread", "protect:infantry+artillery"])
def test_a_run_on_the_run_view_is_the_run_on_the_general_path(force, vs, kw, allocate):
    data = load_pack()
    if force:
        fight = Combat.parse(force, vs, **kw)
    else:
        fight = Combat(force=(0,) * C.NUM_STACKS, old_ones=parse_old_ones(vs), **kw)
    st0, mx, cost = combat_arrays(fight, data)
    mx[C.EXTRA_PURPLE] = 1 if "zombie" in vs else 0  # Revenge Mythos: more purple cubes
    runs, after = [], []
    for run in (simulate_combats, _general):
        for withdraw in ("never", "sanity:1"):
            kit = combat_kit(
                data,
                mx.copy(),
                cost,
                np.arange(data.card_hits.shape[0]),
                parse_allocation(allocate).lower(),
                parse_withdrawal(withdraw).lower(),
                EMPTY_TABLE,
                data.port["flip_threshold"],
            )
            rng = np.random.default_rng(len(force) + len(vs))
            runs.append(_tallies(run, kit, st0, rng))
            if run is _general:
                rng.random()  # the uniform the run one draw ahead took after its last card
            after.append(rng.random())
    assert runs[:2] == runs[2:]
    assert after[:2] == after[2:]
    assert sum(runs[0][0][0]) == 3000

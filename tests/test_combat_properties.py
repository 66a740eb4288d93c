"""Property tests of the exact solver (hypothesis)."""

from __future__ import annotations

import pytest
from conftest import small_deck
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from simkit.combat import Combat, ExactTooLarge, exact_odds
from simkit.names import NUM_STACKS, NUM_UNITS, OLD_ONES
from strategies.combat.allocation import Cheapest, OptimalAllocation, Protect, Spread
from strategies.combat.withdrawal import Never, OptimalWithdrawal, Threshold

SMALL = ("zombie", "mi_go", "loyalist", "temple")
BUDGET = 60_000
SETTINGS = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

forces = st.lists(st.integers(0, 2), min_size=NUM_UNITS, max_size=NUM_UNITS).filter(
    lambda f: 0 < sum(f) <= 3
)
old_ones = st.sampled_from(SMALL)


def solve(pack, force, vs, **kw):
    """Exact odds on a 14-card cut of the shipped deck (the properties hold for any deck)."""
    budget = kw.pop("budget", BUDGET)
    pack = small_deck(pack, list(range(0, 40, 3)))
    try:
        return exact_odds(
            Combat(
                force=tuple(force) + (0,) * (NUM_STACKS - len(force)),
                old_ones=(OLD_ONES.index(vs),),
                extra_sanity=kw.pop("extra_sanity", 0),
                port_defence=kw.pop("port_defence", False),
            ),
            pack,
            state_budget=budget,
            **kw,
        )
    except ExactTooLarge:
        assume(False)


@SETTINGS
@given(
    force=forces,
    vs=old_ones,
    allocate=st.sampled_from([Cheapest(), Spread(), Protect((0,))]),
    withdraw=st.sampled_from([Never(), Threshold(sanity_at_most=1), Threshold(lost_at_least=1)]),
)
def test_outcomes_sum_to_one_under_any_fixed_policies(pack, force, vs, allocate, withdraw):
    odds = solve(pack, force, vs, allocate=allocate, withdraw=withdraw)
    assert sum(odds.outcomes.values()) == pytest.approx(1.0, abs=1e-12)
    assert all(p >= -1e-15 for p in odds.outcomes.values())


@SETTINGS
@given(force=forces, vs=old_ones, extra=st.integers(0, NUM_UNITS - 1))
def test_adding_a_unit_never_lowers_p_destroy_under_optimal_play(pack, force, vs, extra):
    base = solve(pack, force, vs, allocate=OptimalAllocation(), withdraw=OptimalWithdrawal())
    more = list(force)
    more[extra] += 1
    bigger = solve(pack, more, vs, allocate=OptimalAllocation(), withdraw=OptimalWithdrawal())
    assert bigger.p_destroy >= base.p_destroy - 1e-9, (force, more, vs)


@SETTINGS
@given(force=forces, vs=old_ones)
def test_an_extra_sanity_token_never_lowers_p_destroy_under_optimal_play(pack, force, vs):
    base = solve(pack, force, vs, allocate=OptimalAllocation(), withdraw=OptimalWithdrawal())
    saner = solve(
        pack, force, vs, allocate=OptimalAllocation(), withdraw=OptimalWithdrawal(), extra_sanity=1
    )
    assert saner.p_destroy >= base.p_destroy - 1e-9, (force, vs)


@SETTINGS
@given(force=forces, vs=old_ones)
def test_withdraw_never_equals_port_defence_odds(pack, force, vs):
    never = solve(pack, force, vs, withdraw=Never())
    port = solve(
        pack, force, vs, withdraw=OptimalWithdrawal(), port_defence=True
    )  # no withdrawal allowed
    assert port.outcomes == pytest.approx(never.outcomes, abs=1e-12)
    assert port.expected_units_lost == pytest.approx(never.expected_units_lost, abs=1e-12)


@SETTINGS
@given(force=forces, vs=old_ones)
def test_optimal_allocation_and_withdrawal_are_never_worse_than_fixed_policies(pack, force, vs):
    fixed = solve(pack, force, vs, allocate=Cheapest(), withdraw=Never())
    best = solve(pack, force, vs, allocate=OptimalAllocation(), withdraw=OptimalWithdrawal())
    assert best.p_destroy >= fixed.p_destroy - 1e-9
    value_fixed = solve(pack, force, vs, withdraw=OptimalWithdrawal("value"), allocate=Cheapest())
    never = solve(pack, force, vs, withdraw=Never(), allocate=Cheapest())
    worth = value_fixed.extra["destroy_value"]
    assert (
        worth * value_fixed.p_destroy - value_fixed.expected_gold_lost
        >= worth * never.p_destroy - never.expected_gold_lost - 1e-9
    )

"""Monte Carlo against the exact solver, and seeds as data."""

from __future__ import annotations

import math

import pytest

from simkit.combat import Combat, exact_odds, monte_carlo_odds
from strategies.combat.allocation import Spread
from strategies.combat.withdrawal import Threshold

GAMES = 200_000
GRID = [  # (force, Old Ones, options) - seeded grid covering policies, personalities and ports
    ("infantry=2,artillery=1", "mi_go", {}),
    ("infantry=1,armoured_car=1", "zombie,zombie", {}),
    ("artillery=1,armoured_train=1", "shoggoth", {"withdraw": Threshold(sanity_at_most=1)}),
    ("infantry=2,airship=1", "temple", {"allocate": Spread()}),
    ("infantry=1,artillery=1", "loyalist", {"personalities": ("milligan", "jones")}),
    ("infantry=1", "zombie", {"port_strength": 4}),
]


def within_four_standard_errors(p_mc: float, p_exact: float, n: int) -> bool:
    se = math.sqrt(max(p_exact * (1 - p_exact), 1e-12) / n)
    return abs(p_mc - p_exact) <= 4 * se + 1e-9


@pytest.mark.parametrize("force,vs,opts", GRID)
def test_monte_carlo_is_within_four_standard_errors_of_exact(pack, force, vs, opts):
    policy = {k: opts.pop(k) for k in ("withdraw", "allocate") if k in opts}
    fight = Combat.parse(force, vs, **opts)
    exact = exact_odds(fight, pack, **policy)
    mc = monte_carlo_odds(fight, pack, games=GAMES, seed=4433, **policy)
    for name, p in exact.outcomes.items():
        assert within_four_standard_errors(mc.outcomes[name], p, GAMES), name
    for k, p in enumerate(exact.p_units_lost[:4]):
        assert within_four_standard_errors(mc.p_units_lost[k], p, GAMES), f"P({k} units lost)"
    if exact.p_port_flip is not None:
        assert within_four_standard_errors(mc.p_port_flip, exact.p_port_flip, GAMES)


def test_wilson_interval_covers_the_estimate_and_narrows_with_games(pack):
    fight = Combat.parse("infantry=2", "mi_go")
    small = monte_carlo_odds(fight, pack, games=2_000, seed=1)
    large = monte_carlo_odds(fight, pack, games=200_000, seed=1)
    lo, hi = small.ci95["p_destroy"]
    assert lo <= small.p_destroy <= hi
    assert (large.ci95["p_destroy"][1] - large.ci95["p_destroy"][0]) < (hi - lo)


def test_same_seed_gives_identical_results_and_different_seeds_differ(pack):
    fight = Combat.parse("infantry=2,armoured_car=1", "mi_go")
    a = monte_carlo_odds(fight, pack, games=100_000, seed=7)
    b = monte_carlo_odds(fight, pack, games=100_000, seed=7)
    c = monte_carlo_odds(fight, pack, games=100_000, seed=8)
    assert a.to_json() == b.to_json()
    assert a.expected_cards != c.expected_cards


def test_results_do_not_depend_on_the_number_of_jobs(pack):
    fight = Combat.parse("infantry=1,artillery=1", "shoggoth")
    one = monte_carlo_odds(fight, pack, games=150_000, seed=3, jobs=1)
    two = monte_carlo_odds(fight, pack, games=150_000, seed=3, jobs=2)
    assert one.to_json() == two.to_json()

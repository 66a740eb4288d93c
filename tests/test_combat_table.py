"""The optimal withdraw table (independent draws, no card counting): solver, play, games."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from simkit.combat import Combat, exact_odds, monte_carlo_odds, withdraw_table_for
from simkit.combat.reference import ReferenceCombat
from simkit.errors import UserError
from simkit.kernels.combat_exact import OBJ, OUT
from simkit.kernels.low import combat_layout as C
from simkit.names import AIRSHIP, STACKS
from strategies.combat import parse_allocation, parse_withdrawal
from strategies.registry import parse_one

CASES = [
    ("infantry=2", "zombie"),
    ("infantry=2,artillery=1", "mi_go"),
    ("infantry=1,airship=1", "mi_go"),  # airships are vulnerable to Mi-go: leaving can pay
    ("armoured_car=1", "temple"),  # AC never hurts a Temple: a fight that cannot be won
    ("infantry=2", "zombie,zombie"),
]


def model_value(data, force: str, vs: str, objective: str) -> tuple[Fraction, Fraction]:
    """(optimal objective, P(destroy) under it) of the independent-draw model, by plain
    recursion over reference states with exact fractions; a card that changes nothing is
    a self-loop solved in closed form. Options: stay, withdraw airships / others / all."""
    fight = Combat.parse(force, vs)
    ref = ReferenceCombat(data, fight.force, fight.old_ones)
    cards = range(data.card_ids.size)
    p = Fraction(1, len(cards))
    vp = sum(int(data.old_one_vp[t]) for t in fight.old_ones)
    cost = [Fraction(c).limit_denominator() for c in data.unit_cost]

    def end_value(outcome, lost_before, lost_after):
        gold = sum((lost_after[s] - lost_before[s]) * cost[s] for s in range(len(cost)))
        destroyed = 1 if outcome in ("win", "win_and_defeat") else 0
        return (vp * destroyed - gold if objective == "value" else Fraction(destroyed)), Fraction(
            destroyed
        )

    @cache
    def value(f):
        options = [stay(f)]
        for group in ("airships", "others", "all"):
            leaving = [
                s
                for s in range(len(STACKS))
                if f.units[s] > 0
                and s < AIRSHIP + 1
                and (group == "all" or (group == "airships") == (s == AIRSHIP))
            ]
            if not leaving:
                continue
            units = tuple(0 if s in leaving else n for s, n in enumerate(f.units))
            cubes = tuple(0 if s in leaving else c for s, c in enumerate(f.cubes))
            g = replace(f, units=units, cubes=cubes)
            options.append((Fraction(0), Fraction(0)) if sum(units) == 0 else stay(g))
        return max(options, key=lambda o: o[0])

    def stay(f):
        total, destroy, p_self = Fraction(0), Fraction(0), Fraction(0)
        for c in cards:
            g, end = ref.step(f, c)
            if end is not None:
                v, d = end_value(end[0], f.lost, end[1])
            elif g == f:
                p_self += p
                continue
            else:
                v, d = value(g)
                gold = sum((g.lost[s] - f.lost[s]) * cost[s] for s in range(len(cost)))
                v -= gold if objective == "value" else 0
            total += p * v
            destroy += p * d
        if p_self == 1:
            return Fraction(0), Fraction(0)
        return total / (1 - p_self), destroy / (1 - p_self)

    return value(ref.start)


def solved(data, force, vs, text):
    combat = Combat.parse(force, vs)
    from simkit.combat import combat_arrays

    st0, mx, cost = combat_arrays(combat, data)
    return withdraw_table_for(
        combat, data, parse_allocation("cheapest"), parse_withdrawal(text), st0, mx, cost
    )


@pytest.mark.parametrize("force,vs", CASES)
@pytest.mark.parametrize("objective", ["p_destroy", "value"])
def test_table_solver_equals_plain_recursion_with_exact_fractions(pack, force, vs, objective):
    expected, p_destroy = model_value(pack, force, vs, objective)
    table = solved(pack, force, vs, "table" if objective == "p_destroy" else "table-value")
    assert table.value[OBJ] == pytest.approx(float(expected), abs=1e-9)
    if objective == "p_destroy":
        assert table.value[OUT + C.WIN] + table.value[OUT + C.WIN_AND_DEFEAT] == pytest.approx(
            float(p_destroy), abs=1e-9
        )


def test_table_outcomes_sum_to_one_and_leaving_an_airship_to_mi_go_pays(pack):
    table = solved(pack, "infantry=1,airship=1", "mi_go", "table-value")
    assert sum(table.value[OUT : OUT + C.NUM_OUTCOMES]) == pytest.approx(1.0, abs=1e-12)
    assert (table.decisions > C.STAY).any()


@pytest.mark.parametrize(
    "force,vs", [("infantry=1,airship=1", "mi_go"), ("infantry=2,artillery=1", "shoggoth")]
)
@pytest.mark.slow  # real processes / a long exact solve: make test runs it
def test_card_counting_optimum_is_never_worse_than_the_table_under_the_real_deck(pack, force, vs):
    combat = Combat.parse(force, vs)
    counting = exact_odds(combat, pack, withdraw="value")
    table = exact_odds(combat, pack, withdraw="table-value")
    never = exact_odds(combat, pack, withdraw="never")
    vp = sum(int(pack.old_one_vp[t]) for t in combat.old_ones)
    worth = {
        k: vp * o.p_destroy - o.expected_gold_lost
        for k, o in (("counting", counting), ("table", table), ("never", never))
    }
    assert worth["counting"] >= worth["table"] - 1e-9
    assert worth["counting"] >= worth["never"] - 1e-9


def test_exact_and_monte_carlo_play_the_same_table(pack):
    combat = Combat.parse("infantry=1,airship=1", "mi_go")
    exact = exact_odds(combat, pack, withdraw="table-value")
    mc = monte_carlo_odds(combat, pack, games=200_000, seed=3, withdraw="table-value")
    assert exact.outcomes["withdraw"] > 0.01  # the table does withdraw here
    for name, p in exact.outcomes.items():
        se = max((p * (1 - p) / mc.games) ** 0.5, 1e-9)
        assert abs(mc.outcomes[name] - p) <= 4 * se, name


def test_table_refuses_optimal_allocation(pack):
    combat = Combat.parse("infantry=2", "zombie")
    with pytest.raises(UserError, match="fixed --allocate"):
        exact_odds(combat, pack, allocate="optimal", withdraw="table")


def test_strategies_accept_the_table_and_refuse_card_counting():
    assert parse_one("hunter:withdraw=table-value").lower() is not None
    with pytest.raises(UserError, match="counts every card"):
        parse_one("hunter:withdraw=optimal")


@pytest.fixture(scope="module")
def engine():
    from simkit.game.engine import Engine

    return Engine()


def test_games_play_the_table_without_falling_back_and_it_withdraws(engine):
    from simkit.game.engine import make_spec
    from simkit.kernels.low import game_layout as L

    spec = make_spec("base", 2, "hunter:withdraw=table-value,hunter:withdraw=table-value")
    rows, logs = engine.play_many(
        spec, 11, 0, 200, log=True, checked=True, g_extra=[L.G_TABLE_FALLBACKS]
    )
    assert engine.extra[:, 0].sum() == 0
    assert rows[:, L.S_ILLEGAL].sum() == 0 and rows[:, L.S_VIOLATIONS].sum() == 0
    combats = np.concatenate([lg[lg[:, 0] == L.EV_COMBAT] for lg in logs])
    withdrawals = combats[
        (combats[:, 4] == C.WITHDRAW) & (combats[:, 7] == 0)
    ]  # port defence never withdraws
    assert len(withdrawals) > 0


def test_game_results_do_not_depend_on_the_table_cache(engine, monkeypatch):
    from simkit.game import arrays
    from simkit.game.engine import Engine, make_spec
    from simkit.kernels.low import game_layout as L

    spec = make_spec("base", 3, "hunter,balanced:withdraw=table-value,hunter:withdraw=table")
    rows, logs = engine.play_many(spec, 5, 0, 60, log=True)
    monkeypatch.setattr(
        arrays, "GAME_TABLE_MATCHUPS", 2
    )  # the cache starts again every few combats
    small = Engine()
    rows_small, logs_small = small.play_many(spec, 5, 0, 60, log=True)
    assert small.work.wt_cache[0] <= 2
    assert np.array_equal(rows, rows_small)
    assert all(np.array_equal(a, b) for a, b in zip(logs, logs_small, strict=True))
    assert (np.concatenate(logs)[:, 0] == L.EV_COMBAT).sum() > 20


def test_table_buffers_grow_until_the_matchup_fits_and_say_so_when_it_cannot(pack, monkeypatch):
    from simkit.combat import combat_arrays, table

    combat = Combat.parse("infantry=2,artillery=1", "shoggoth")
    st0, mx, cost = combat_arrays(combat, pack)
    args = (st0, mx, cost, pack, parse_allocation("cheapest"), parse_withdrawal("table-value"), 5.0)
    direct = table.solve_withdraw_table(*args)
    monkeypatch.setattr(table, "FIRST_BUDGET", 8)
    grown = table.solve_withdraw_table(*args)
    assert grown.states == direct.states > 8
    assert np.allclose(grown.value, direct.value)
    with pytest.raises(UserError, match="more than 20 states"):
        table.solve_withdraw_table(*args, max_states=20)

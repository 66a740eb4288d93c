"""The odds table's speed-ups change no answer: one withdraw-table memo per matchup gives every
force the table it would solve alone, the shared-card pass plays the never-withdraw column
exactly as the single-policy kernel does, and the stages stop at the precision target."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.combat import (
    Combat,
    MonteCarloRunner,
    combat_arrays,
    exact_odds,
    monte_carlo_odds,
    paired_monte_carlo_odds,
)
from simkit.combat import table as table_mod
from simkit.datapack import load_pack
from simkit.kernels.low.hashtable import EMPTY, _slot
from simkit.names import NUM_STACKS
from simkit.odds import (
    FIRST_STAGE,
    MAX_GROWTH,
    odds_table,
    shared_table_policy,
    solve_table_policy,
    stage_games,
    withdraws,
)
from strategies.combat.allocation import Cheapest
from strategies.combat.withdrawal import Never, OptimalTable, OptimalWithdrawal

TABLE = OptimalTable("value")


@pytest.fixture(scope="module")
def data():
    return load_pack()


def fight(mix, old_one, copies=1):
    return Combat(force=tuple(mix) + (0,) * (NUM_STACKS - len(mix)), old_ones=(old_one,) * copies)


def decision(table, k1, k2):
    slot = _slot(table, k1, k2)
    return 0 if table[slot, 0] == EMPTY else int(table[slot, 2])


def memo_for(data, combat):
    _, mx, cost = combat_arrays(combat, data)
    value = float(sum(data.old_one_vp[t] for t in combat.old_ones))
    return table_mod.SharedTables(mx, cost, data, Cheapest(), TABLE, value)


def test_the_shared_memo_gives_every_force_the_table_it_would_solve_alone(data):
    forces = [m for m in np.ndindex(3, 2, 2, 1, 3) if any(m)]  # 35 mixes vs Mi-go x2
    memo = memo_for(data, fight(forces[0], 1, 2))
    for mix in forces:
        combat = fight(mix, 1, 2)
        alone = solve_table_policy(combat, data)
        st0, mx, _ = combat_arrays(combat, data)
        shared, withdrawing = memo.solve(st0, mx)
        assert withdrawing == withdraws(alone)
        assert shared.value == pytest.approx(alone.value, abs=1e-12)
        used = alone.table[alone.table[:, 0] != EMPTY]
        for k1, k2, d, _ in used:  # every state of the table solved alone, the same decision
            assert decision(shared.table, k1, k2) == d
    assert memo.states < sum(solve_table_policy(fight(m, 1, 2), data).states for m in forces)


def test_a_memo_that_outgrows_its_buffers_keeps_its_states(data, monkeypatch):
    combat = fight((3, 0, 2, 0, 2), 3)
    big = memo_for(data, combat)
    monkeypatch.setattr(table_mod, "SHARED_FIRST", 16)
    small = memo_for(data, combat)
    assert small.capacity == 16
    st0, mx, _ = combat_arrays(combat, data)
    a, _ = big.solve(st0, mx)
    b, _ = small.solve(st0, mx)
    assert small.capacity > 16 and small.states == big.states
    assert np.array_equal(a.value, b.value)
    assert small.withdrawing == big.withdrawing > 0


def test_the_shared_card_pass_plays_never_withdraw_as_the_single_policy_kernel(data):
    combat = fight((2, 1, 1, 0, 1), 3)
    solved, withdrawing = shared_table_policy(combat, data)
    assert withdrawing
    never, table, forks = paired_monte_carlo_odds(combat, data, 30_000, 11, TABLE, solved)
    alone = monte_carlo_odds(combat, data, games=30_000, seed=11)
    assert never.outcomes == alone.outcomes and never.p_units_lost == alone.p_units_lost
    assert never.expected_gold_lost == alone.expected_gold_lost
    assert 0 < forks < 30_000
    # the table column is an honest estimate of its own policy: it agrees with its own run
    own = monte_carlo_odds(combat, data, games=30_000, seed=12, withdraw=TABLE, solved_table=solved)
    sd = np.sqrt(2 * own.p_destroy * (1 - own.p_destroy) / 30_000)
    assert abs(table.p_destroy - own.p_destroy) < 4 * sd
    assert table.outcomes["withdraw"] > 0 and never.outcomes["withdraw"] == 0


def test_policies_that_never_part_play_one_fight_for_both(data):
    combat = fight((3, 3, 3, 3, 0), 0)  # a force the table never pulls out
    solved, withdrawing = shared_table_policy(combat, data)
    assert not withdrawing
    never, table, forks = paired_monte_carlo_odds(combat, data, 5_000, 3, TABLE, solved)
    assert forks == 0 and never.outcomes == table.outcomes


def test_stages_start_small_grow_at_most_fourfold_and_stop_at_the_target():
    from simkit.core.stats import wilson_interval

    assert stage_games(0, 0, 0.005) == FIRST_STAGE
    more = stage_games(FIRST_STAGE, FIRST_STAGE // 2, 0.005)
    assert more == (MAX_GROWTH - 1) * FIRST_STAGE  # a coin flip needs ~38k: capped
    n, k = 30_000, 15_000
    n += stage_games(n, k, 0.005)
    lo, hi = wilson_interval(n // 2, n)
    assert (hi - lo) / 2 <= 0.005 and n < 38_416 * 1.03 + 100  # reaches it, not far past
    # no kill in 512 games: narrow enough at P = 0, not at P = 0.7% (the interval's top)
    assert wilson_interval(0, FIRST_STAGE)[1] - wilson_interval(0, FIRST_STAGE)[0] <= 0.01
    n = FIRST_STAGE + stage_games(FIRST_STAGE, 0, 0.005)
    assert FIRST_STAGE < n < 2_048 and stage_games(n, 0, 0.005) == 0


def test_stopping_on_a_lucky_start_keeps_the_intervals_95_percent():
    from simkit.core.stats import wilson_interval
    from simkit.kernels.combat_paired import stage_more
    from simkit.odds import stage_settings

    rng, stage = np.random.default_rng(7), stage_settings(0.005)
    for p in (0.01, 0.3):  # near-certain rows are where a lucky start could stop a column
        covered = 0
        for _ in range(3_000):
            k = n = 0
            while more := stage_more(k, n, stage):
                k, n = k + rng.binomial(more, p), n + more
            lo, hi = wilson_interval(k, n)
            covered += lo <= p <= hi
        assert covered / 3_000 > 0.94, p


def test_rows_stop_at_the_target_and_do_not_depend_on_jobs(data):
    a = odds_table(data, 1, [1], target_ci=0.02)
    b = odds_table(data, 1, [1], target_ci=0.02, jobs=2)
    assert a.equals(b)
    mc = a[a["method"] == "mc"]
    assert ((mc["p_destroy_hi"] - mc["p_destroy_lo"]) / 2 <= 0.02 + 1e-12).all()
    tmc = a[a["table_method"] == "mc"]
    half = (tmc["p_destroy_table_policy_hi"] - tmc["p_destroy_table_policy_lo"]) / 2
    assert (half <= 0.02 + 1e-12).all()
    easy = mc[(mc["p_destroy"] == 0) | (mc["p_destroy"] == 1)]
    assert (easy["games"] < 1_000).all()  # a sure thing stops after a stage or two


def test_an_exact_row_whose_table_never_withdraws_is_the_never_withdraw_row(data):
    t = odds_table(data, 1, [0])
    same = t[(t["method"] == "exact") & t["table_same_as_never"]]
    assert len(same)
    row = same.iloc[0]
    mix = tuple(int(row[f"n_{u}"]) for u in ("infantry", "armoured_car", "artillery"))
    mix += tuple(int(row[f"n_{u}"]) for u in ("armoured_train", "airship"))
    combat = fight(mix, 0, int(row["old_ones"]))
    assert row["table_method"] == "exact" and row["p_destroy_table_policy"] == row["p_destroy"]
    assert row["p_destroy_table_policy"] == pytest.approx(
        exact_odds(combat, data, withdraw="table-value").p_destroy, abs=1e-12
    )


def test_the_runner_plays_monte_carlo_odds_fights(data):
    combat = fight((1, 0, 2, 0, 0), 2)
    runner = MonteCarloRunner(combat, data)
    odds = runner.odds(runner.run(4_000, 5), Never(), 5)
    ref = monte_carlo_odds(combat, data, games=4_000, seed=5)
    assert odds.outcomes == ref.outcomes and odds.ci95 == ref.ci95


@pytest.mark.parametrize("wd", [Never(), TABLE, OptimalWithdrawal("value")], ids=str)
def test_the_state_count_says_exactly_when_the_exact_solver_gives_up(data, wd):
    from simkit.combat import ExactTooLarge, exact_needs_more

    seen = {True: 0, False: 0}
    for mix in [
        (1, 0, 0, 0, 0),
        (2, 1, 0, 0, 1),
        (3, 0, 3, 0, 2),
        (0, 2, 1, 1, 1),
        (3, 3, 3, 3, 3),
    ]:
        for old_one, copies in ((0, 1), (5, 2), (1, 1)):
            combat = fight(mix, old_one, copies)
            solved = shared_table_policy(combat, data)[0]
            for budget in (60, 600, 3000):
                more = exact_needs_more(combat, data, wd, budget, solved_table=solved)
                try:
                    odds = exact_odds(
                        combat, data, withdraw=wd, state_budget=budget, solved_table=solved
                    )
                    fails = False
                    assert odds.states <= budget
                except ExactTooLarge:
                    fails = True
                assert more == fails, (mix, old_one, copies, budget)
                seen[fails] += 1
    assert seen[True] and seen[False]

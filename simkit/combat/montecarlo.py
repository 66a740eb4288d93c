"""Monte Carlo odds with Wilson 95% intervals (simkit.kernels.combat.simulate_combats), in
seeded chunks so that the result never depends on --jobs."""

from __future__ import annotations

import numpy as np

from simkit.combat.exact import _table_array, table_extra, withdraw_table_for
from simkit.combat.parse import Combat, available_cards, combat_arrays, policies
from simkit.combat.result import CombatOdds, _lost_dict, _policy_names
from simkit.core.seeds import chunk_generators, chunk_sizes
from simkit.core.stats import mean_interval, wilson_interval
from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.kernels.combat import LOST_HIST, simulate_combats
from simkit.kernels.low import combat_layout as C
from simkit.kernels.low.combat_kit import combat_kit
from simkit.names import NUM_STACKS
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalWithdrawal

MC_CHUNK = 1 << 16  # games per seeded chunk: results never depend on --jobs


def _mc_chunk(rng, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table):
    outcomes = np.zeros(C.NUM_OUTCOMES, dtype=np.int64)
    lost = np.zeros(NUM_STACKS, dtype=np.int64)
    hist = np.zeros(LOST_HIST, dtype=np.int64)
    cards = np.zeros(3, dtype=np.int64)
    kit = combat_kit(data, mx, cost, start_deck, alloc, wd, wd_table, data.port["flip_threshold"])
    simulate_combats(kit, rng, n, st0, outcomes, lost, hist, cards)
    return outcomes, lost, hist, cards


def monte_carlo_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    jobs: int = 1,
    progress=None,
    solved_table=None,
) -> CombatOdds:
    """Monte Carlo estimate with Wilson 95% intervals; identical for any ``jobs``.

    ``progress``: an optional callable given the fights done after each chunk (a progress bar).
    ``solved_table``: the withdraw table of this very matchup, policy and ``seen`` (from
    :func:`withdraw_table_for`), to play it again without solving it again.
    """
    allocate, withdraw = policies(allocate, withdraw)
    if isinstance(withdraw, OptimalWithdrawal) or isinstance(allocate, OptimalAllocation):
        raise UserError(
            "optimal policies are computed by --method exact; Monte Carlo plays fixed policies"
        )
    if games <= 0:
        raise UserError(f"--games must be positive, got {games}")
    st0, mx, cost = combat_arrays(combat, data)
    start_deck = np.flatnonzero(available_cards(data, seen)).astype(np.int64)
    sizes = chunk_sizes(games, MC_CHUNK)
    rngs = chunk_generators(seed, len(sizes))
    alloc, wd = allocate.lower(), withdraw.lower()
    if solved_table is None:
        solved_table = withdraw_table_for(combat, data, allocate, withdraw, st0, mx, cost, seen)
    wd_table = _table_array(solved_table)
    if jobs == 1 or len(sizes) == 1:
        parts = []
        for r, n in zip(rngs, sizes, strict=True):
            parts.append(_mc_chunk(r, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table))
            if progress is not None:
                progress(n)
    else:
        from joblib import Parallel, delayed

        from simkit.core.watch import watched

        parts = []
        for (_, n), part in zip(
            zip(rngs, sizes, strict=True),
            Parallel(n_jobs=jobs, return_as="generator")(
                delayed(watched(_mc_chunk))(
                    r, n, st0, mx, cost, data, start_deck, alloc, wd, wd_table
                )
                for r, n in zip(rngs, sizes, strict=True)
            ),
            strict=True,
        ):
            parts.append(part)
            if progress is not None:
                progress(n)
    outcomes = sum(p[0] for p in parts)
    lost = sum(p[1] for p in parts)
    hist = sum(p[2] for p in parts)
    cards = sum(p[3] for p in parts)
    return _mc_result(
        combat,
        data,
        st0,
        cost,
        games,
        seed,
        allocate,
        withdraw,
        solved_table,
        outcomes,
        lost,
        hist,
        cards,
    )


def _mc_result(
    combat,
    data,
    st0,
    cost,
    games,
    seed,
    allocate,
    withdraw,
    solved_table,
    outcomes,
    lost,
    hist,
    cards,
) -> CombatOdds:
    """A Monte Carlo result from the kernels' tallies (simulate_combats' layout)."""
    names = _policy_names(allocate, withdraw)
    kills = int(outcomes[C.WIN] + outcomes[C.WIN_AND_DEFEAT])
    lo, hi = wilson_interval(np.append(np.asarray(outcomes, dtype=np.int64), kills), games)
    ci = {name: [float(lo[o]), float(hi[o])] for o, name in enumerate(C.OUTCOME_NAMES)}
    ci["p_destroy"] = [float(lo[-1]), float(hi[-1])]
    ci["expected_cards"] = list(mean_interval(float(cards[0]), float(cards[1]), games))
    return CombatOdds(
        method="mc",
        combat=combat.describe(),
        outcomes={name: float(outcomes[o] / games) for o, name in enumerate(C.OUTCOME_NAMES)},
        expected_units_lost=_lost_dict(lost / games, st0[C.COUNT : C.COUNT + NUM_STACKS]),
        expected_cards=float(cards[0] / games),
        expected_gold_lost=float(lost @ cost) / games,
        p_units_lost=[float(x) for x in hist / games],
        p_port_flip=float(cards[2] / games) if combat.port_strength else None,
        allocate=names[0],
        withdraw=names[1],
        seed=seed,
        data_hash=data.hash,
        games=games,
        ci95=ci,
        extra=table_extra(solved_table, withdraw) if solved_table is not None else {},
    )

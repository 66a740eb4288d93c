"""Exact where the state space fits the budget, Monte Carlo where not (:func:`auto_odds`)."""

from __future__ import annotations

from simkit.combat.exact import ExactTooLarge, exact_odds
from simkit.combat.montecarlo import monte_carlo_odds
from simkit.combat.parse import Combat, policies
from simkit.combat.result import CombatOdds
from simkit.combat.states import STATE_BUDGET, estimated_compositions
from simkit.datapack import AuzData
from strategies.combat.allocation import OptimalAllocation
from strategies.combat.withdrawal import OptimalWithdrawal

ESTIMATE_FACTOR = 20  # auto: skip exact when the estimate passes this x the state budget
PROBE_GAMES = 4_096  # auto: Monte Carlo fights behind the estimate of expected cards drawn


def auto_odds(
    combat: Combat,
    data: AuzData,
    games: int,
    seed: int,
    allocate=None,
    withdraw=None,
    seen: tuple[int, ...] = (),
    jobs: int = 1,
    state_budget: int = STATE_BUDGET,
    progress=None,
) -> CombatOdds:
    """Exact where the state space fits ``state_budget``, Monte Carlo with intervals where not.

    Before trying exact, the state space is estimated cheaply (:func:`estimated_compositions`
    from a short Monte Carlo probe): a matchup far past the budget goes straight to Monte
    Carlo instead of filling memory first. The result says which method answered and, after
    a fall-back, why (``exact_skipped``, ``exact_estimate``).
    """
    allocate, withdraw = policies(allocate, withdraw)
    if not isinstance(withdraw, OptimalWithdrawal) and not isinstance(allocate, OptimalAllocation):
        probe = monte_carlo_odds(
            combat,
            data,
            games=PROBE_GAMES,
            seed=seed,
            allocate=allocate,
            withdraw=withdraw,
            seen=seen,
        )
        estimate = estimated_compositions(combat, data, probe.expected_cards, seen)
        if estimate > ESTIMATE_FACTOR * state_budget:
            odds = monte_carlo_odds(
                combat,
                data,
                games=games,
                seed=seed,
                allocate=allocate,
                withdraw=withdraw,
                seen=seen,
                jobs=jobs,
                progress=progress,
            )
            odds.extra["exact_skipped"] = (
                f"the estimated state space ({estimate:,} deck compositions within "
                f"{int(2 * probe.expected_cards) + 1} draws) is far past --state-budget "
                f"{state_budget:,}; exact was not tried"
            )
            odds.extra["exact_estimate"] = estimate
            return odds
    try:
        return exact_odds(
            combat, data, allocate=allocate, withdraw=withdraw, seen=seen, state_budget=state_budget
        )
    except ExactTooLarge as exc:
        odds = monte_carlo_odds(
            combat,
            data,
            games=games,
            seed=seed,
            allocate=allocate,
            withdraw=withdraw,
            seen=seen,
            jobs=jobs,
            progress=progress,
        )
        odds.extra["exact_skipped"] = str(exc)
        return odds

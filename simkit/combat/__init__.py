"""Combat odds for one matchup: exact (backward induction) or Monte Carlo.

    >>> from simkit.combat import Combat, exact_odds
    >>> from simkit.datapack import load_pack
    >>> data = load_pack()
    >>> odds = exact_odds(Combat.parse("infantry=2,artillery=1", "shoggoth"), data)
    >>> round(sum(odds.outcomes.values()), 12)
    1.0

Both methods share the card-resolution kernels in simkit.kernels.combat. What lives where
(the names of parse ... play are re-exported here):

    parse       Combat, parse_force / parse_old_ones / parse_seen, policies, combat_arrays
    states      the state space's size: pass_bound, card_classes, estimated_compositions,
                STATE_BUDGET and the memory it takes
    result      CombatOdds, the answer of every method
    exact       exact_odds, exact_needs_more, ExactTooLarge, withdraw_table_for
    montecarlo  monte_carlo_odds
    paired      MonteCarloRunner (runs again and again, paired, to a target), Tallies,
                paired_monte_carlo_odds
    auto        auto_odds: exact where it fits, Monte Carlo where not
    play        play_cards: a combat on given cards
    table       the optimal withdraw table (rules: it as a rule a player follows)
    mode        the "combat" experiment mode (losses: the losses per unit type it counts)
    faces       card faces as a player reads them; reference: the slow rulebook reference
"""

from __future__ import annotations

from simkit.combat.auto import ESTIMATE_FACTOR, PROBE_GAMES, auto_odds
from simkit.combat.exact import (
    EXACT_PASSES,
    MAX_FORCE,
    MAX_SPLITS,
    ExactTooLarge,
    exact_needs_more,
    exact_odds,
    policy_in_words,
    table_extra,
    withdraw_table_for,
)
from simkit.combat.montecarlo import MC_CHUNK, monte_carlo_odds
from simkit.combat.paired import (
    PAIRED_STREAM,
    MonteCarloRunner,
    Tallies,
    paired_monte_carlo_odds,
)
from simkit.combat.parse import (
    MAX_UNITS,
    Combat,
    available_cards,
    combat_arrays,
    parse_force,
    parse_old_ones,
    parse_seen,
    policies,
)
from simkit.combat.play import CombatEnd, damage_left, play_cards
from simkit.combat.result import CombatOdds
from simkit.combat.states import (
    STATE_BUDGET,
    available_memory_bytes,
    card_classes,
    cards_fingerprint,
    compositions_within,
    estimated_compositions,
    exact_memory_bytes,
    pass_bound,
)

__all__ = [
    "ESTIMATE_FACTOR",
    "EXACT_PASSES",
    "MAX_FORCE",
    "MAX_SPLITS",
    "MAX_UNITS",
    "MC_CHUNK",
    "PAIRED_STREAM",
    "PROBE_GAMES",
    "STATE_BUDGET",
    "Combat",
    "CombatEnd",
    "CombatOdds",
    "ExactTooLarge",
    "MonteCarloRunner",
    "Tallies",
    "auto_odds",
    "available_cards",
    "available_memory_bytes",
    "card_classes",
    "cards_fingerprint",
    "combat_arrays",
    "compositions_within",
    "damage_left",
    "estimated_compositions",
    "exact_memory_bytes",
    "exact_needs_more",
    "exact_odds",
    "monte_carlo_odds",
    "paired_monte_carlo_odds",
    "parse_force",
    "parse_old_ones",
    "parse_seen",
    "pass_bound",
    "play_cards",
    "policies",
    "policy_in_words",
    "table_extra",
    "withdraw_table_for",
]

"""Last Aurora: Project Athena - odds of a convoy against an Automated Turret.

    >>> from simkit.athena import TurretFight, exact_odds, load_athena_pack
    >>> data = load_athena_pack()
    >>> fight = TurretFight(
    ...     weapons=(("cannon", 3), ("energy_cannon", 4)), defense=2, ammo=2, charged=1
    ... )
    >>> 0.0 < exact_odds(fight, data).p_destroy < 1.0
    True

Validation and lowering live here (Python); the rules are resolved by the numba
kernels in simkit.kernels.athena, shared by the exact and the Monte Carlo solver.
Game data: simkit/data/athena (every number there is assumed unless tagged otherwise).
"""

from simkit.athena.fight import (
    TurretFight,
    fire_order,
    lower,
    parse_seen,
    parse_variants,
    parse_weapons,
)
from simkit.athena.odds import (
    ExactTooLarge,
    TurretOdds,
    exact_odds,
    item_value,
    monte_carlo_odds,
    turret_defense,
    turret_odds,
)
from simkit.athena.pack import AthenaData, load_athena_pack, provenance_shares

__all__ = [
    "AthenaData",
    "ExactTooLarge",
    "TurretFight",
    "TurretOdds",
    "exact_odds",
    "fire_order",
    "item_value",
    "load_athena_pack",
    "lower",
    "monte_carlo_odds",
    "parse_seen",
    "parse_variants",
    "parse_weapons",
    "provenance_shares",
    "turret_defense",
    "turret_odds",
]

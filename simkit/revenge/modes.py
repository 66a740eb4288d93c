"""Modes "revenge" and "mythos-solo" for the experiment runner (simkit.modes contract).

revenge: whole Revenge of the Old Ones games (an Old One player against 1-4 humans).
Parameters: humans, strategies (human), oop (Old One player strategy, strategies.old_ones),
difficulty (normal: Port 4, hard: Port 2, heroic: base-game Ports), ruleset (revenge /
revenge-alt). Key metric ``old_ones_win`` (the OOP wins ties).

mythos-solo: the Revenge rules' Mythos Solo (one human, base solo game with the Revenge
Port and Outposts and a Mythos card flipped on non-illuminated spaces;
simkit/kernels/game_mythos_solo.py). Parameters: strategy, difficulty (solo.toml levels).
Key metric ``humans_win`` like the solo mode.

Game g of chunk c is addressed (root, c, g) (simkit.game.streams).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from simkit.errors import UserError
from simkit.game.modes import (
    COMMON_PARAMS,
    DEFAULT_CHUNK,
    STRATEGY_NAMES,
    ChunkRunner,
    GameMode,
    SpecShape,
    StrategyParam,
    canonical_spec,
    solo_params,
)
from simkit.game.tables import TABLES
from simkit.kernels.low import game_layout as L
from simkit.modes import Param, register
from strategies.old_ones import OOP_REGISTRY, parse_oop

# extra summary columns (int64) read from the game state after each game
EXTRA = (
    ("oop_vp_tokens", L.G_OOP_VP),
    ("oop_vp_units", L.G_OOP_VP_UNITS),
    ("port_flips", L.G_PORT_FLIPS),
    ("spawns_taken", L.G_SPAWNS_TAKEN),
    ("outposts_built", L.G_OUTPOSTS_BUILT),
    ("outposts_lost", L.G_OUTPOSTS_LOST),
    ("outpost_combats", L.G_OUTPOST_COMBATS),
    ("mythos_played", L.G_MYTHOS_PLAYED),
    ("oop_place", L.G_OOP_ACTIONS + L.OOP_PLACE),
    ("oop_reveal", L.G_OOP_ACTIONS + L.OOP_REVEAL),
    ("oop_move", L.G_OOP_ACTIONS + L.OOP_MOVE),
    ("oop_summon", L.G_OOP_ACTIONS + L.OOP_SUMMON),
    ("ruleset", L.G_RULESET),
    ("mythos_combat", L.G_MYTHOS_COMBAT),
)
# Mythos Solo: no Old One player, no Spawn tiles
EXTRA_SOLO = (
    ("port_flips", L.G_PORT_FLIPS),
    ("outposts_built", L.G_OUTPOSTS_BUILT),
    ("outposts_lost", L.G_OUTPOSTS_LOST),
    ("outpost_combats", L.G_OUTPOST_COMBATS),
    ("mythos_flipped", L.G_MYTHOS_FLIPPED),
    ("mythos_played", L.G_MYTHOS_PLAYED),
    ("mythos_combat", L.G_MYTHOS_COMBAT),
    ("mythos_no_effect", L.G_MYTHOS_NO_EFFECT),
)


@dataclass(frozen=True)
class OOPParam(Param):
    def check(self, mode: str, key: str, value: Any) -> Any:
        value = super().check(mode, key, value)
        try:
            parse_oop(value)
        except UserError as exc:
            raise UserError(f"mode '{mode}': parameter '{key}': {exc}") from None
        return canonical_spec(value)


REVENGE_SHAPE = SpecShape(
    "revenge", "humans", "strategies", ("difficulty", "shuffle_seats", "ruleset", "oop")
)
MYTHOS_SOLO_SHAPE = SpecShape("mythos-solo", 1, "strategy", ("difficulty",))
run_chunk = ChunkRunner(REVENGE_SHAPE, EXTRA)
run_solo_chunk = ChunkRunner(MYTHOS_SOLO_SHAPE, EXTRA_SOLO)


REVENGE = register(
    GameMode(
        name="revenge",
        params={
            "humans": Param(int, 2, minimum=1, maximum=L.MAX_PLAYERS, help="human players (1-4)"),
            "strategies": StrategyParam(
                str, "balanced", help="human strategies: one for all, or one per human"
            ),
            "oop": OOPParam(
                str,
                "rusher",
                help="Old One player strategy "
                f"({', '.join([*OOP_REGISTRY, 'search', 'learned:PATH'])})",
            ),
            "difficulty": Param(
                str,
                "normal",
                choices=L.DIFFICULTY_NAMES,
                help="normal (Port 4), hard (Port 2), heroic (base-game Ports)",
            ),
            "ruleset": Param(
                str,
                "revenge",
                choices=L.RULESET_NAMES,
                help="revenge rulebook or the alt translation",
            ),
            "shuffle_seats": Param(bool, True, help="random seating (first player) per game"),
            **COMMON_PARAMS,
        },
        run_chunk=run_chunk,
        key_metric="old_ones_win",
        outputs=frozenset(TABLES),
        description="Revenge of the Old Ones: an Old One player against 1-4 humans",
        extra={
            "chunk_size": DEFAULT_CHUNK,
            "strategies": STRATEGY_NAMES,
            "oop_strategies": tuple(OOP_REGISTRY),
        },
    )
)

MYTHOS_SOLO = register(
    GameMode(
        name="mythos-solo",
        params=solo_params("solo difficulty (solo.toml: starting resources)"),
        run_chunk=run_solo_chunk,
        key_metric="humans_win",
        outputs=frozenset(TABLES),
        description="Mythos Solo: one player against the Old Ones "
        "with the Revenge Port, Outposts and Mythos deck",
        extra={"chunk_size": DEFAULT_CHUNK, "strategies": STRATEGY_NAMES},
    )
)

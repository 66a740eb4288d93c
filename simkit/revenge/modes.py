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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from simkit.datapack import AuzData
from simkit.errors import UserError
from simkit.game.engine import GameSpec, make_spec
from simkit.game.modes import (
    COMMON_PARAMS,
    DEFAULT_CHUNK,
    STRATEGY_NAMES,
    StrategyParam,
    canonical_spec,
    play_chunk,
    rules_for,
)
from simkit.game.tables import TABLES
from simkit.kernels.low import game_layout as L
from simkit.modes import Mode, Param, register
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


def spec_of(params: Mapping[str, Any]) -> GameSpec:
    try:
        return make_spec(
            "revenge",
            params["humans"],
            params["strategies"],
            difficulty=params["difficulty"],
            shuffle_seats=params["shuffle_seats"],
            ruleset=params["ruleset"],
            oop=params["oop"],
            content=params.get("content", "assumed"),
            unknown=params.get("unknown", "blank"),
            world=params.get("world", 0),
        )
    except UserError as exc:
        raise UserError(f"mode 'revenge': {exc}") from None


@dataclass(frozen=True)
class RevengeMode(Mode):
    def validate(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().validate(params)
        spec_of(out)
        return out


def solo_spec_of(params: Mapping[str, Any]) -> GameSpec:
    try:
        return make_spec(
            "mythos-solo",
            1,
            params["strategy"],
            difficulty=params["difficulty"],
            content=params.get("content", "assumed"),
            unknown=params.get("unknown", "blank"),
            world=params.get("world", 0),
        )
    except UserError as exc:
        raise UserError(f"mode 'mythos-solo': {exc}") from None


@dataclass(frozen=True)
class MythosSoloMode(Mode):
    def validate(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().validate(params)
        solo_spec_of(out)
        return out


def run_chunk(
    params: Mapping[str, Any],
    data: AuzData,
    root_seed: int,
    chunk_id: int,
    n_games: int,
    outputs: frozenset,
) -> dict[str, dict[str, np.ndarray]]:
    return play_chunk(spec_of(params), params, data, root_seed, chunk_id, n_games, outputs, EXTRA)


def run_solo_chunk(
    params: Mapping[str, Any],
    data: AuzData,
    root_seed: int,
    chunk_id: int,
    n_games: int,
    outputs: frozenset,
) -> dict[str, dict[str, np.ndarray]]:
    return play_chunk(
        solo_spec_of(params), params, data, root_seed, chunk_id, n_games, outputs, EXTRA_SOLO
    )


REVENGE = register(
    RevengeMode(
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
    MythosSoloMode(
        name="mythos-solo",
        params={
            "strategy": StrategyParam(str, "balanced", help="the solo player's strategy"),
            "difficulty": Param(
                str,
                rules_for(None).solo_default,
                choices=tuple(rules_for(None).solo_levels),
                help="solo difficulty (solo.toml: starting resources)",
            ),
            **COMMON_PARAMS,
        },
        run_chunk=run_solo_chunk,
        key_metric="humans_win",
        outputs=frozenset(TABLES),
        description="Mythos Solo: one player against the Old Ones "
        "with the Revenge Port, Outposts and Mythos deck",
        extra={"chunk_size": DEFAULT_CHUNK, "strategies": STRATEGY_NAMES},
    )
)

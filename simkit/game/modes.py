"""Modes "base" and "solo": whole games for the experiment runner (simkit.modes contract).

Game ``g`` of chunk ``c`` under root seed ``r`` is played with
its address (r, c, g) (simkit.game.streams); ``simkit replay`` rebuilds it alone.
Tables: summary (one row per game, key metric ``old_ones_win`` / ``humans_win``), seats
(one row per seat), combats and moves (from the event log; slower, off by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from simkit.datapack import DEFAULT_PACK, AuzData
from simkit.errors import UserError
from simkit.game.config import GameRules, load_rules
from simkit.game.engine import Engine, GameSpec, make_spec
from simkit.game.mythos import CONTENT_MODES, UNKNOWN_MODES
from simkit.game.tables import EVENT_TABLES, TABLES, event_tables, seats_table, summary_table
from simkit.kernels.low import game_layout as L
from simkit.modes import Mode, Param, register
from strategies.human import PLAYERS
from strategies.human.learned import LEARNED_SID
from strategies.registry import parse
from strategies.search import SEARCH_SID

DEFAULT_CHUNK = 2000
# by strategy id (summary rows); the search player's seats carry its label id
STRATEGY_NAMES = tuple(cls.name for cls in sorted(PLAYERS, key=lambda c: c.sid)) + (
    "search",
    "learned",
)
assert STRATEGY_NAMES.index("search") == SEARCH_SID
assert STRATEGY_NAMES.index("learned") == LEARNED_SID
_ENGINES: dict[tuple, Engine] = {}  # least recently used first
MAX_ENGINES = 16


def rules_for(data: AuzData | None) -> GameRules:
    """game.toml & co. from the data pack's folder when it has them, else the shipped ones."""
    if data is not None and (Path(data.path) / "game.toml").is_file():
        return load_rules(data.path)
    return load_rules(DEFAULT_PACK)


def engine_for(data: AuzData | None, map_name: str = "eastern") -> Engine:
    """One Engine per (data pack values, map) in this process (workers reuse it)."""
    key = (
        data.hash if data is not None else None,
        data.path if data is not None else None,
        map_name,
    )
    if key in _ENGINES:
        _ENGINES[key] = _ENGINES.pop(key)  # most recently used last
        return _ENGINES[key]
    while len(_ENGINES) >= MAX_ENGINES:  # a worlds run has hundreds of packs: ~9 MB each
        del _ENGINES[next(iter(_ENGINES))]
    _ENGINES[key] = Engine(
        data=data,
        rules=rules_for(data),
        map_name=map_name,
        data_path=None if data is None else _pack_dir(data),
    )
    return _ENGINES[key]


def _pack_dir(data: AuzData) -> Path | None:
    p = Path(data.path)
    return p if (p / "survey_tiles.csv").is_file() else None


def canonical_spec(text: str) -> str:
    """A strategy spec as stored in rows: lower case, but a ``file:`` path as given."""
    text = text.strip()
    return text if text.startswith("file:") else text.lower()


@dataclass(frozen=True)
class StrategyParam(Param):
    def check(self, mode: str, key: str, value: Any) -> Any:
        value = super().check(mode, key, value)
        try:
            parse(value)
        except UserError as exc:
            raise UserError(f"mode '{mode}': parameter '{key}': {exc}") from None
        return ",".join(canonical_spec(t) for t in value.split(",") if t.strip())


@dataclass(frozen=True)
class SpecShape:
    """How a game mode's parameters make its GameSpec: make_spec(kind, the players, the
    strategies, the named options, and the content switches every game mode has)."""

    kind: str  # make_spec's mode, also the runner mode's name
    players: str | int  # the parameter that counts the humans, or a fixed count
    strategies: str  # the parameter naming the humans' strategies
    options: tuple[str, ...] = ()  # parameters passed to make_spec by their own names

    def spec(self, params: Mapping[str, Any]) -> GameSpec:
        n = params[self.players] if isinstance(self.players, str) else self.players
        try:
            return make_spec(
                self.kind,
                n,
                params[self.strategies],
                **{k: params[k] for k in self.options},
                content=params.get("content", "assumed"),
                unknown=params.get("unknown", "blank"),
                world=params.get("world", 0),
            )
        except UserError as exc:
            raise UserError(f"mode '{self.kind}': {exc}") from None


@dataclass(frozen=True)
class ChunkRunner:
    """A game mode's run_chunk: its games made by ``shape``, played by play_chunk with the
    mode's ``extra`` summary columns (a module-level class: workers unpickle it)."""

    shape: SpecShape
    extra: tuple[tuple[str, int], ...] = ()

    def __call__(self, params, data, root_seed, chunk_id, n_games, outputs):
        spec = self.shape.spec(params)
        return play_chunk(spec, params, data, root_seed, chunk_id, n_games, outputs, self.extra)


@dataclass(frozen=True)
class GameMode(Mode):
    """A Mode whose cells are also checked as a whole: its run_chunk's GameSpec is made from
    them (strategies per player, levels, rulesets)."""

    def validate(self, params: Mapping[str, Any]) -> dict[str, Any]:
        out = super().validate(params)
        self.run_chunk.shape.spec(out)
        return out


BASE_SHAPE = SpecShape("base", "players", "strategies", ("shuffle_seats",))
SOLO_SHAPE = SpecShape("solo", 1, "strategy", ("difficulty",))


def play_chunk(
    spec: GameSpec,
    params: Mapping[str, Any],
    data: AuzData,
    root_seed: int,
    chunk_id: int,
    n_games: int,
    outputs: frozenset,
    extra: tuple[tuple[str, int], ...] = (),
) -> dict[str, dict[str, np.ndarray]]:
    """One chunk of games of any game mode as the runner's tables; ``extra`` adds summary
    columns read from the final game state (name, game_layout G_* index); every mode has
    COMMON_EXTRA."""
    extra = COMMON_EXTRA + tuple(extra)
    eng = engine_for(data, params.get("map", "eastern"))
    want_events = any(t in outputs for t in EVENT_TABLES)
    rows, logs = eng.play_many(
        spec,
        root_seed,
        chunk_id,
        n_games,
        log=want_events,
        checked=bool(params.get("checked", False)),
        g_extra=[g for _, g in extra],
    )
    summary = summary_table(rows)
    for j, (name, _) in enumerate(extra):
        summary[name] = eng.extra[:, j].astype(np.int64)
    for name in params:  # the runner adds every parameter to each row (strings, not engine codes)
        summary.pop(name, None)
    out = {"summary": summary}
    if "seats" in outputs:
        out["seats"] = seats_table(rows, STRATEGY_NAMES)
    if want_events:
        out.update(
            event_tables(
                logs, eng.board.hex_number, which=[t for t in EVENT_TABLES if t in outputs]
            )
        )
    return out


# summary columns of every game mode read from the final game state (see play_chunk)
COMMON_EXTRA = (("stalemates", L.G_STALEMATES),)

COMMON_PARAMS = {
    "map": Param(str, "eastern", help="map name in the pack's maps/ folder"),
    "content": Param(
        str,
        "assumed",
        choices=CONTENT_MODES,
        help="what the printed Mythos cards do: assumed (as the pack gives them) or rules "
        "(only public texts; the others are blanks)",
    ),
    "unknown": Param(
        str,
        "blank",
        choices=UNKNOWN_MODES,
        help="a card whose text is unknown: blank (no effect) or prior (drawn per world)",
    ),
    "world": Param(
        int,
        0,
        minimum=0,
        maximum=2**31 - 1,
        help="the world: the prior's draw of unknown cards (spec worlds = N sets it per cell)",
    ),
    "world_source": Param(
        str,
        "none",
        help="[worlds]: what this cell's world varies ('all' the listed sources, or one)",
    ),
    "checked": Param(bool, False, help="check invariants after every turn (violations column)"),
}


def solo_params(difficulty_help: str) -> dict[str, Param]:
    """The parameters of a one-player mode (solo, mythos-solo): its strategy and level."""
    return {
        "strategy": StrategyParam(str, "balanced", help="the solo player's strategy"),
        "difficulty": Param(
            str,
            rules_for(None).solo_default,
            choices=tuple(rules_for(None).solo_levels),
            help=difficulty_help,
        ),
        **COMMON_PARAMS,
    }


BASE = register(
    GameMode(
        name="base",
        params={
            "players": Param(int, 2, minimum=1, maximum=L.MAX_PLAYERS, help="human players (1-4)"),
            "strategies": StrategyParam(
                str, "balanced", help="one strategy for all, or one per player, comma-separated"
            ),
            "shuffle_seats": Param(bool, True, help="random seating (first player) per game"),
            **COMMON_PARAMS,
        },
        run_chunk=ChunkRunner(BASE_SHAPE),
        key_metric="old_ones_win",
        outputs=frozenset(TABLES),
        description="AuZtralia base game: 1-4 players against the Old Ones",
        extra={"chunk_size": DEFAULT_CHUNK, "strategies": STRATEGY_NAMES},
    )
)

SOLO = register(
    GameMode(
        name="solo",
        params=solo_params("solo difficulty (solo.toml)"),
        run_chunk=ChunkRunner(SOLO_SHAPE),
        key_metric="humans_win",
        outputs=frozenset(TABLES),
        description="AuZtralia solo: one player against the Old Ones, difficulty levels as data",
        extra={"chunk_size": DEFAULT_CHUNK, "strategies": STRATEGY_NAMES},
    )
)

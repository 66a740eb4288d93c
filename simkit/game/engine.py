"""Play whole games: validate the setup in Python, run the jitted kernel, collect rows.

    >>> from simkit.game.engine import Engine
    >>> eng = Engine()
    >>> row, log = eng.play(np.random.default_rng(1), ["economist", "hunter"])  # doctest: +SKIP

One Engine holds the static arrays of a (data pack, map, survey tiles, rules) and the
buffers of one game, reused game after game (nothing is allocated per game inside the
kernel). A game's chance is its named streams (simkit.game.streams), seeded from its
address (root seed, chunk, game index): ``play_many`` plays a whole chunk in one kernel
call that seeds each game's streams itself, and ``play((root, chunk, game), spec)``
replays any one of them alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from simkit.board import load_map, load_survey_tiles
from simkit.core.seeds import chunk_key
from simkit.datapack import AuzData, load_pack
from simkit.errors import UserError
from simkit.game.arrays import LOG_CAPACITY, build_static, mythos_deck, new_state, new_work
from simkit.game.config import GameRules, load_rules
from simkit.game.mythos import CONTENT_MODES, UNKNOWN_MODES, played_cards
from simkit.game.streams import GameSeed, new_streams, stream_key
from simkit.kernels.game_loop import play_chunk
from simkit.kernels.game_setup import setup_game, setup_row
from simkit.kernels.game_state import to_refs
from simkit.kernels.low import game_layout as L
from simkit.kernels.low.rand import seed_game_streams
from strategies.human import HeuristicParams
from strategies.registry import parse_one, public_models
from strategies.search import SearchPlayer

MODES = ("base", "solo", "revenge", "mythos-solo")
_NO_EXTRA = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class GameSpec:
    """What a game is: mode, seats and their strategies, options."""

    mode: str = "base"
    strategies: tuple[HeuristicParams, ...] = ()
    difficulty: str | None = (
        None  # solo, mythos-solo: solo.toml levels; revenge: normal / hard / heroic
    )
    shuffle_seats: bool = True
    ruleset: str = "revenge"  # revenge only: revenge / revenge-alt
    oop: object = None  # revenge only: strategies.old_ones.OOPParams
    content: str = "assumed"  # Mythos cards: "assumed" (as the pack) or "rules" (public text)
    unknown: str = "blank"  # a card of unknown text: "blank" or "prior" (simkit.game.mythos)
    world: int = 0  # the prior's draw (unknown = "prior"); worlds also vary the data

    @property
    def players(self) -> int:
        return len(self.strategies)


def make_spec(
    mode: str,
    players: int,
    strategies: Sequence[str | HeuristicParams] | str,
    difficulty: str | None = None,
    shuffle_seats: bool = True,
    rules: GameRules | None = None,
    ruleset: str = "revenge",
    oop: str | object = "rusher",
    content: str = "assumed",
    unknown: str = "blank",
    world: int = 0,
) -> GameSpec:
    """Validate user input into a GameSpec (one strategy for all seats, or one per seat)."""
    if content not in CONTENT_MODES:
        raise UserError(
            f"unknown content '{content}' (expected one of: {', '.join(CONTENT_MODES)})"
        )
    if unknown not in UNKNOWN_MODES:
        raise UserError(
            f"unknown --unknown '{unknown}' (expected one of: {', '.join(UNKNOWN_MODES)})"
        )
    if isinstance(world, bool) or not isinstance(world, int) or not 0 <= world < 2**31:
        raise UserError(f"world must be a whole number 0..{2**31 - 1}, got {world!r}")
    if (content, unknown, world) != ("assumed", "blank", 0):
        return replace(
            make_spec(mode, players, strategies, difficulty, shuffle_seats, rules, ruleset, oop),
            content=content,
            unknown=unknown,
            world=world,
        )
    if mode == "revenge":
        from strategies.old_ones import parse_oop

        if difficulty is None:
            difficulty = "normal"
        if difficulty not in L.DIFFICULTY_NAMES:
            raise UserError(
                f"unknown difficulty '{difficulty}' "
                f"(expected one of: {', '.join(L.DIFFICULTY_NAMES)})"
            )
        if ruleset not in L.RULESET_NAMES:
            raise UserError(
                f"unknown ruleset '{ruleset}' (expected one of: {', '.join(L.RULESET_NAMES)})"
            )
        spec = make_spec("base", players, strategies, shuffle_seats=shuffle_seats, rules=rules)
        oop_p = parse_oop(oop) if isinstance(oop, str) else oop
        oop_p = public_models(oop_p)
        return GameSpec(
            mode="revenge",
            strategies=spec.strategies,
            difficulty=difficulty,
            shuffle_seats=shuffle_seats,
            ruleset=ruleset,
            oop=oop_p,
        )
    if mode not in MODES:
        raise UserError(f"unknown mode '{mode}' (expected one of: {', '.join(MODES)})")
    if mode == "mythos-solo":
        spec = make_spec("solo", players, strategies, difficulty=difficulty, rules=rules)
        return GameSpec(
            mode="mythos-solo",
            strategies=spec.strategies,
            difficulty=spec.difficulty,
            shuffle_seats=False,
        )
    if mode == "solo" and players != 1:
        raise UserError(f"solo mode has exactly 1 player, got --players {players}")
    if not 1 <= players <= L.MAX_PLAYERS:
        raise UserError(f"--players must be 1..{L.MAX_PLAYERS}, got {players}")
    if isinstance(strategies, str):
        strategies = [s for s in strategies.split(",") if s.strip()]
    parsed = [
        s if isinstance(s, (HeuristicParams, SearchPlayer)) else parse_one(s) for s in strategies
    ]
    if not parsed:
        raise UserError("--strategies names no strategy")
    if len(parsed) == 1:
        parsed = parsed * players
    if len(parsed) != players:
        raise UserError(
            f"--strategies gives {len(parsed)} strategies for {players} players "
            "(give one for all, or one per player)"
        )
    if difficulty is not None:
        if mode != "solo":
            raise UserError("--difficulty is for --mode solo")
        levels = (rules or load_rules()).solo_levels
        if difficulty not in levels:
            raise UserError(
                f"unknown difficulty '{difficulty}' (expected one of: {', '.join(levels)})"
            )
    return GameSpec(
        mode=mode, strategies=tuple(parsed), difficulty=difficulty, shuffle_seats=shuffle_seats
    )


class Engine:
    """Static arrays + reusable buffers for playing many games of one pack and map."""

    def __init__(
        self,
        data: AuzData | None = None,
        rules: GameRules | None = None,
        map_name: str | Path = "eastern",
        data_path: Path | None = None,
        log_capacity: int = LOG_CAPACITY,
    ):
        self.data = data or load_pack(data_path)
        self.rules = rules or load_rules(data_path)
        self.board = load_map(map_name, data_path)
        self.tiles = load_survey_tiles(data=data_path)
        self.arrays = build_static(self.board, self.tiles, self.data, self.rules)
        self.mythos = mythos_deck(self.data)
        self._played: dict[tuple, dict[str, np.ndarray]] = {}  # played_cards per content
        self.state = new_state(self.arrays, log_capacity)
        self.work = new_work(self.arrays)
        # the kernels' views of the same arrays (Python reads and writes self.state etc.)
        self.S, self.X, self.W = to_refs(self.arrays, self.state, self.work)
        self.row = np.zeros(L.SUMMARY_SIZE, dtype=np.int64)
        self.rngs = new_streams()  # the current game's chance streams, reseeded per game
        self.lookahead = None  # simkit.game.search rollout buffers, made on first use

    def _mode_args(self, spec: GameSpec) -> tuple[int, int, int, int, int, int, int]:
        """(mode, start space, coal, iron, gold, difficulty, ruleset) for setup_game."""
        # the content choices say what each of the printed cards does in this game
        key = (spec.content, spec.unknown, spec.world if spec.unknown == "prior" else 0)
        if key not in self._played:
            self._played[key] = played_cards(self.mythos, *key)
        for name, values in self._played[key].items():
            getattr(self.arrays, name)[:] = values
        r = self.rules
        if spec.mode in ("solo", "mythos-solo"):
            names = list(r.solo_levels)
            diff = spec.difficulty or r.solo_default
            coal, iron, gold = r.solo_levels[diff]
            mode = L.MODE_SOLO if spec.mode == "solo" else L.MODE_MYTHOS_SOLO
            return mode, r.solo_start, coal, iron, gold, names.index(diff), L.RULES_REVENGE
        start = int(r.r[L.R_START_SPACE + spec.players - 1])
        if spec.mode == "revenge":
            coal, iron, gold = r.revenge_start[spec.ruleset]  # game.toml [revenge]
            return (
                L.MODE_REVENGE,
                start,
                coal,
                iron,
                gold,
                L.DIFFICULTY_NAMES.index(spec.difficulty),
                L.RULESET_NAMES.index(spec.ruleset),
            )
        coal, iron, gold = r.start_resources("base")
        return L.MODE_BASE, start, coal, iron, gold, -1, L.RULES_REVENGE

    def set_up(self, rngs, spec: GameSpec, *, checked: bool = False) -> None:
        """Load the seats of ``spec`` and set its game up, nothing played (a position for
        tests, benchmarks and look-ahead; ``rngs`` from simkit.game.streams.game_streams)."""
        self._load_seats(spec)
        setup_game(
            rngs,
            self.S,
            self.X,
            self.W,
            self._setup_args(spec, self._mode_args(spec), checked=checked),
        )

    def _load_seats(self, spec: GameSpec) -> None:
        """Seats (in the spec's order; setup_game seats them) and the Old One player."""
        X = self.state
        X.sid[:] = 0
        X.params[:] = 0.0
        for p, s in enumerate(spec.strategies):
            X.sid[p], X.params[p] = s.sid, s.lower()
        X.oop_params[:] = spec.oop.lower() if spec.oop is not None else 0.0

    @staticmethod
    def _searches(spec: GameSpec) -> bool:
        return any(isinstance(s, SearchPlayer) for s in (*spec.strategies, spec.oop))

    @staticmethod
    def _setup_args(
        spec: GameSpec, mode_args, log: bool = False, checked: bool = False
    ) -> np.ndarray:
        """setup_game's row (simkit.kernels.game_setup.setup_row)."""
        mode, start, coal, iron, gold, diff, ruleset = mode_args
        return setup_row(
            spec.players,
            mode,
            start,
            coal,
            iron,
            gold,
            shuffle_seats=spec.shuffle_seats,
            difficulty=diff,
            ruleset=ruleset,
            log_on=log,
            checked=checked,
        )

    def _chunk(self, spec, mode_args, key, first_game, rows, gx, extra, log, checked) -> int:
        """Games first_game .. first_game + len(rows) - 1 of the chunk ``key`` into ``rows``
        (X.g[gx] into ``extra``), on the seats loaded by _load_seats; returns the last
        game's log rows. Plain games are one play_chunk call; a game with a search seat is
        driven from Python (simkit.game.search)."""
        self._load_seats(spec)  # setup_game permutes them in place: reload for every call
        X = self.state
        sid, params = X.sid.copy(), X.params.copy()
        setup = self._setup_args(spec, mode_args, log, checked)
        if not self._searches(spec):
            play_chunk(
                self.rngs, self.S, self.X, self.W, setup, sid, params, key, first_game, rows,
                gx, extra,
            )  # fmt: skip
            return int(X.g[L.G_LOG_N])
        from simkit.game.search import play_searched

        n_log = 0
        for k in range(rows.shape[0]):
            X.sid[:], X.params[:] = sid, params
            seed_game_streams(self.rngs, key, first_game + k)
            n_log = play_searched(self, self.rngs, spec, setup, rows[k])
            extra[k] = X.g[gx]
        return n_log

    def play(
        self,
        seed: GameSeed,
        spec: GameSpec | Sequence[str],
        *,
        log: bool = False,
        checked: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """One game. ``seed``: its address (root, chunk, game) as play_many numbers games,
        an int (short for (seed, 0, 0)) or a Generator (a one-off game).
        Returns (summary row [SUMMARY_SIZE] int64, log rows [n, LOG_W])."""
        if not isinstance(spec, GameSpec):
            spec = make_spec("base", len(spec), list(spec), rules=self.rules)
        key, game = stream_key(seed)
        rows, extra = self.row.reshape(1, -1), np.zeros((1, 0), dtype=np.int64)
        n_log = self._chunk(
            spec, self._mode_args(spec), key, game, rows, _NO_EXTRA, extra, log, checked
        )
        X = self.state
        return self.row.copy(), (X.log[:n_log].copy() if log else X.log[:0].copy())

    def play_many(
        self,
        spec: GameSpec,
        root_seed: int,
        chunk_id: int,
        n_games: int,
        *,
        log: bool = False,
        checked: bool = False,
        first_game: int = 0,
        g_extra: Sequence[int] = (),
    ):
        """Games first_game.. of one chunk; returns (rows [n, SUMMARY_SIZE], logs list).
        With ``g_extra`` (game_layout G_* indices) also self.extra [n, len] of those values.
        Without logs or search seats the whole chunk is one kernel call (play_chunk)."""
        rows = np.zeros((n_games, L.SUMMARY_SIZE), dtype=np.int64)
        self.extra = np.zeros((n_games, len(g_extra)), dtype=np.int64)
        gx = np.asarray(g_extra, dtype=np.int64)
        key = chunk_key(root_seed, chunk_id)
        mode_args = self._mode_args(spec)
        if not log:
            self._chunk(spec, mode_args, key, first_game, rows, gx, self.extra, log, checked)
            return rows, []
        logs = []
        for k in range(n_games):  # one game a call: each game's log is read before the next
            one = slice(k, k + 1)
            self._chunk(
                spec, mode_args, key, first_game + k, rows[one], gx, self.extra[one], log, checked
            )
            logs.append(self.state.log[: self.state.g[L.G_LOG_N]].copy())
        return rows, logs

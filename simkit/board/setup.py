"""Board setup: survey tiles (base Setup 5-6, Revenge Setup 4) and Ports (base Setup 14).

Chance is separate from resolution: :func:`setup_board` either draws the survey and the
Old One stacks from an explicit ``np.random.Generator`` (inside numba, ``rng.random()``
only) or takes them as arguments (``survey_draw``, ``stacks``) so tests and replays can
construct any draw. Placement itself is :func:`simkit.kernels.low.board.place_survey`; the
engine can run the whole random setup inside numba with
:func:`simkit.kernels.low.board.random_survey_setup` (the same draw sequence as here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.board.mapfile import read_rows
from simkit.board.model import RESOURCES, Board
from simkit.datapack import DEFAULT_PACK, PROVENANCE_TAGS, AuzData
from simkit.errors import DataPackError, UserError
from simkit.kernels.low import board as K

SURVEY_COLUMNS = ("tile", "position") + RESOURCES + ("old_one", "provenance", "source")
RULES_SURVEY_TILES = 20  # base rules, Components and Setup 5


@dataclass(frozen=True, eq=False)
class SurveyTiles:
    """The survey tiles, index t = t-th tile number in ascending order."""

    path: str
    tile_number: np.ndarray  # int64 [T] as typed in the file
    tile_resource: np.ndarray  # int64 [T, 7, 4] tokens per position (0 centre, 1..6 compass)
    tile_old_one: np.ndarray  # int64 [T, 7] 1 = Old One mark
    provenance: dict[str, int]

    @property
    def num_tiles(self) -> int:
        return int(self.tile_number.size)


def load_survey_tiles(path: str | Path | None = None, data: Path | None = None) -> SurveyTiles:
    """Read survey_tiles.csv (format: simkit/data/auztralia/maps/README.md)."""
    p = (
        Path(path)
        if path is not None
        else (Path(data) if data is not None else DEFAULT_PACK) / "survey_tiles.csv"
    )
    fname = str(p)
    header, rows = read_rows(p)
    for col in SURVEY_COLUMNS:
        if col not in header:
            raise DataPackError(fname, f"missing column '{col}'")
    col = {c: header.index(c) for c in header}
    seen: dict[tuple[int, int], int] = {}
    entries = []
    tags: dict[str, int] = {}
    for line, cells in rows:

        def num(c, lo, hi=None, cells=cells, line=line):
            text = cells[col[c]]
            try:
                v = int(text)
            except ValueError:
                raise DataPackError(
                    fname, f"expected a whole number, got {text!r}", row=line, field=c
                ) from None
            if v < lo or (hi is not None and v > hi):
                raise DataPackError(
                    fname,
                    f"expected {lo}..{hi if hi is not None else ''}, got {v}",
                    row=line,
                    field=c,
                )
            return v

        tile = num("tile", 1)
        pos = num("position", 0, K.SURVEY_POSITIONS - 1)
        if (tile, pos) in seen:
            raise DataPackError(
                fname,
                f"tile {tile} position {pos} given twice (first on row {seen[(tile, pos)]})",
                row=line,
                field="position",
            )
        seen[(tile, pos)] = line
        res = [num(r, 0, 99) for r in RESOURCES]
        old = num("old_one", 0, 1)
        tag = cells[col["provenance"]]
        if tag not in PROVENANCE_TAGS:
            raise DataPackError(
                fname,
                f"unknown provenance tag {tag!r} (expected one of: {', '.join(PROVENANCE_TAGS)})",
                row=line,
                field="provenance",
            )
        tags[tag] = tags.get(tag, 0) + len(RESOURCES) + 1
        entries.append((tile, pos, res, old))
    if not entries:
        raise DataPackError(fname, "no survey tiles")
    numbers = sorted({e[0] for e in entries})
    index = {t: i for i, t in enumerate(numbers)}
    resource = np.zeros((len(numbers), K.SURVEY_POSITIONS, K.NUM_RESOURCES), dtype=np.int64)
    old_one = np.zeros((len(numbers), K.SURVEY_POSITIONS), dtype=np.int64)
    for tile, pos, res, old in entries:
        resource[index[tile], pos] = res
        old_one[index[tile], pos] = old
    return SurveyTiles(
        path=fname,
        tile_number=np.array(numbers, dtype=np.int64),
        tile_resource=resource,
        tile_old_one=old_one,
        provenance=tags,
    )


def old_one_pool(data: AuzData) -> tuple[np.ndarray, np.ndarray]:
    """(tile_level, tile_type) of every Old One tile of the pack, one entry per physical
    tile (tile_type -1 = an Empty tile). The X/XX tiles are not in the pack (Setup 4)."""
    level = np.repeat(data.tile_level, data.tile_count).astype(np.int64)
    kind = np.repeat(data.tile_type, data.tile_count).astype(np.int64)
    return level, kind


def fresh_stacks(tile_level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unshuffled stacks: stacks[l] = tile ids of level l+1 (padded -1), and their sizes."""
    size = np.array([(tile_level == lv).sum() for lv in range(1, K.MAX_LEVEL + 1)], dtype=np.int64)
    stacks = np.full((K.MAX_LEVEL, max(1, int(size.max()))), -1, dtype=np.int64)
    for lv in range(1, K.MAX_LEVEL + 1):
        ids = np.flatnonzero(tile_level == lv)
        stacks[lv - 1, : ids.size] = ids
    return stacks, size


@dataclass(frozen=True, eq=False)
class BoardSetup:
    """A board after setup. Hex arrays are indexed like ``board``; tile ids index
    ``tile_level``/``tile_type`` (the flattened Old One pool of the data pack)."""

    board: Board
    revenge: bool
    survey_hex: np.ndarray  # int64 [s] survey hexes, in the order they were resolved
    survey_tile: np.ndarray  # int64 [s] survey tile index drawn for each
    hex_resource: np.ndarray  # int64 [n, 4] coal, iron, gold, phosphate tokens
    hex_tile: np.ndarray  # int64 [n] face-down Old One tile id, -1 none (base game)
    hex_spawn: np.ndarray  # int64 [n] -1 none, 0 Normal, 1 Dangerous (+1) (Revenge)
    hex_marks: np.ndarray  # int64 [n] survey tiles that marked the hex for an Old One
    tile_level: np.ndarray  # int64 [num_tiles]
    tile_type: np.ndarray  # int64 [num_tiles] simkit.names.OLD_ONES index, -1 Empty
    tile_set_aside: np.ndarray  # bool [num_tiles] replaced by an overlap upgrade
    stacks: np.ndarray  # int64 [3, max] Old One stacks in draw order
    stack_top: np.ndarray  # int64 [3] next tile to draw per level
    stack_size: np.ndarray  # int64 [3]
    port_hex: np.ndarray  # int64 [players] Port hex per player, -1 not placed

    def remaining(self, level: int) -> np.ndarray:
        """Tile ids still in the stack of ``level``, top first."""
        lv = level - 1
        return self.stacks[lv, self.stack_top[lv] : self.stack_size[lv]].copy()


def setup_board(
    board: Board,
    tiles: SurveyTiles,
    data: AuzData,
    rng: np.random.Generator | None = None,
    *,
    revenge: bool = False,
    survey_draw: Sequence[int] | None = None,
    stacks: Sequence[Sequence[int]] | None = None,
    num_players: int = 0,
    ports: str | Sequence[int] = "random",
) -> BoardSetup:
    """Survey the board and place resources and Old One tiles (or Revenge Spawn tiles).

    rng          np.random.Generator for every draw not given explicitly
    survey_draw  survey tile indices (0-based, ascending tile number) for the survey hexes
                 in ascending hex number; default: shuffle all tiles and deal
    stacks       three lists of tile ids (levels 1, 2, 3), top first; default: shuffled pool
    num_players, ports: also place Ports (see :func:`place_ports`)
    Survey hexes are resolved in ascending hex number (ASSUMED: the rules give no order).
    """
    survey_hex = board.survey_hexes.astype(np.int64)
    if survey_hex.size > tiles.num_tiles:
        raise UserError(
            f"map {board.name} has {survey_hex.size} survey hexes but only {tiles.num_tiles} "
            f"survey tiles ({tiles.path})"
        )
    tile_level, tile_type = old_one_pool(data)
    n = board.num_hexes
    hex_resource = np.zeros((n, K.NUM_RESOURCES), dtype=np.int64)
    hex_tile = np.full(n, -1, dtype=np.int64)
    hex_spawn = np.full(n, -1, dtype=np.int64)
    hex_marks = np.zeros(n, dtype=np.int64)
    set_aside = np.zeros(tile_level.size, dtype=np.int64)
    stack_top = np.zeros(K.MAX_LEVEL, dtype=np.int64)
    if (survey_draw is None or stacks is None) and rng is None:
        raise UserError("setup_board needs an rng for the draws not given explicitly")
    stk, size = fresh_stacks(tile_level) if stacks is None else _explicit_stacks(stacks, tile_level)
    kit = K.survey_kit(
        neighbors=board.neighbors,
        hex_terrain=board.hex_terrain,
        hex_level=board.hex_level,
        survey_hex=survey_hex,
        tile_resource=tiles.tile_resource,
        tile_old_one=tiles.tile_old_one,
        tile_level=tile_level,
        stacks=stk,
        stack_top=stack_top,
        stack_size=size,
        hex_resource=hex_resource,
        hex_tile=hex_tile,
        hex_spawn=hex_spawn,
        hex_marks=hex_marks,
        tile_set_aside=set_aside,
    )
    if survey_draw is None and stacks is None:
        order = np.arange(tiles.num_tiles, dtype=np.int64)
        K.random_survey_setup(rng, kit, order, revenge)
        draw = order[: survey_hex.size].copy()
    else:
        if survey_draw is None:
            order = np.arange(tiles.num_tiles, dtype=np.int64)
            K.shuffle_prefix(rng, order, order.size)
            draw = order[: survey_hex.size].copy()
        else:
            draw = np.array(survey_draw, dtype=np.int64).reshape(-1)
            if (
                draw.size != survey_hex.size
                or np.unique(draw).size != draw.size
                or (draw.size and (draw.min() < 0 or draw.max() >= tiles.num_tiles))
            ):
                raise UserError(
                    f"survey_draw must name {survey_hex.size} "
                    f"distinct tiles in 0..{tiles.num_tiles - 1}"
                )
        if stacks is None:
            for lv in range(K.MAX_LEVEL):
                K.shuffle_prefix(rng, stk[lv], size[lv])
        K.place_survey(kit, draw, revenge)
    port_hex = (
        place_ports(board, num_players, rng, ports) if num_players else np.zeros(0, dtype=np.int64)
    )
    return BoardSetup(
        board=board,
        revenge=revenge,
        survey_hex=survey_hex,
        survey_tile=draw,
        hex_resource=hex_resource,
        hex_tile=hex_tile,
        hex_spawn=hex_spawn,
        hex_marks=hex_marks,
        tile_level=tile_level,
        tile_type=tile_type,
        tile_set_aside=set_aside.astype(bool),
        stacks=stk,
        stack_top=stack_top,
        stack_size=size,
        port_hex=port_hex,
    )


def _explicit_stacks(stacks, tile_level) -> tuple[np.ndarray, np.ndarray]:
    if len(stacks) != K.MAX_LEVEL:
        raise UserError(f"stacks must be {K.MAX_LEVEL} lists (levels 1..3)")
    size = np.array([len(s) for s in stacks], dtype=np.int64)
    out = np.full((K.MAX_LEVEL, max(1, int(size.max()))), -1, dtype=np.int64)
    used = set()
    for lv, ids in enumerate(stacks, start=1):
        for j, t in enumerate(ids):
            if not 0 <= t < tile_level.size or tile_level[t] != lv or t in used:
                raise UserError(f"stack {lv}: tile {t} is not an unused level-{lv} tile")
            used.add(t)
            out[lv - 1, j] = t
    return out, size


# -- ports --------------------------------------------------------------------------


def legal_ports(board: Board, port_hex: np.ndarray | Sequence[int] = ()) -> np.ndarray:
    """Hex indices where a Port may be placed given the Ports already placed."""
    placed = np.array([p for p in port_hex if p >= 0] or [-1], dtype=np.int64)
    mask = np.zeros(board.num_hexes, dtype=bool)
    K.legal_port_mask(board.hex_q, board.hex_r, board.hex_port, placed, mask)
    return np.flatnonzero(mask)


def place_ports(
    board: Board,
    num_players: int,
    rng: np.random.Generator | None = None,
    ports: str | Sequence[int] = "random",
) -> np.ndarray:
    """Setup 14: in reverse player order each player puts a Port on a port-symbol hex with
    no other Port within two hexes (straight-line hex distance, not along the coast).

    ports: "random" (uniform among legal hexes, needs rng), "first" (lowest-numbered legal
    hex), or one printed hex number per player (player 0 first; placed last-player first
    and checked). Returns port_hex[player] (hex indices).
    """
    if num_players < 1:
        raise UserError(f"number of players must be at least 1, got {num_players}")
    out = np.full(num_players, -1, dtype=np.int64)
    if isinstance(ports, str):
        if ports not in ("random", "first"):
            raise UserError(
                f"unknown port policy '{ports}' (expected random, first or hex numbers)"
            )
        if ports == "random" and rng is None:
            raise UserError("random port placement needs an rng")
        policy = K.PORT_FIRST if ports == "first" else K.PORT_RANDOM
        mask = np.zeros(board.num_hexes, dtype=bool)
        stuck = K.place_ports(
            rng if rng is not None else np.random.default_rng(0),
            board.hex_q,
            board.hex_r,
            board.hex_port,
            num_players,
            policy,
            out,
            mask,
        )
        if stuck >= 0:
            raise UserError(
                f"map {board.name}: no legal Port hex left for player {stuck + 1} of {num_players} "
                f"({int(board.hex_port.sum())} port symbols, Ports must be 3+ hexes apart)"
            )
        return out
    wanted = list(ports)
    if len(wanted) != num_players:
        raise UserError(f"give one Port hex per player ({num_players}), got {len(wanted)}")
    for player in range(num_players - 1, -1, -1):
        h = board.index(int(wanted[player]))
        if h not in legal_ports(board, out):
            raise UserError(
                f"player {player + 1} cannot place a Port in hex {wanted[player]}: it needs the "
                f"Port symbol and no other Port within two hexes"
            )
        out[player] = h
    return out

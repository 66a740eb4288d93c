"""The static board: hexes as struct-of-arrays, built once per map.

Compass convention (ASSUMED: the real compass plan printed at the bottom of the map is
not in any text we have). Hexes are flat-topped; direction index k (0..5) is compass
number k+1, numbered clockwise starting from "up" (towards the top edge of the board,
where the Survey tiles' arrows point):

    compass 1 = N (up)   2 = NE   3 = SE   4 = S (down)   5 = SW   6 = NW

Axial coordinates (q, r): q counts columns to the east (right); r grows downwards within
a column, so compass 4 (down) is (0, +1) and compass 2 (NE) is (+1, -1). A user whose
printed compass plan differs only has to renumber: see simkit/data/auztralia/maps/README.md.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from simkit.errors import UserError
from simkit.kernels.low.board import COASTAL, DESERT, FARMLAND, HILLS, NUM_DIRS, OUTBACK

TERRAINS = ("coastal", "outback", "hills", "farmland", "desert")
assert TERRAINS.index("coastal") == COASTAL and TERRAINS.index("outback") == OUTBACK
assert TERRAINS.index("hills") == HILLS and TERRAINS.index("farmland") == FARMLAND
assert TERRAINS.index("desert") == DESERT
FARMS = ("sheep", "cattle", "corn")
RESOURCES = ("coal", "iron", "gold", "phosphate")
COMPASS_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
# (dq, dr) of direction index k = compass k+1
AXIAL_DIRS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))


def opposite(k: int) -> int:
    """Direction index pointing back across the same hex side."""
    return (k + 3) % NUM_DIRS


def axial_distance(q1: int, r1: int, q2: int, r2: int) -> int:
    dq, dr = q1 - q2, r1 - r2
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def pixel_center(q, r, size: float = 1.0):
    """Screen position (x right, y up) of a flat-topped hex centre."""
    x = 1.5 * size * np.asarray(q, dtype=float)
    y = -np.sqrt(3.0) * size * (np.asarray(r, dtype=float) + np.asarray(q, dtype=float) / 2.0)
    return x, y


def neighbors_from_coords(hex_q: np.ndarray, hex_r: np.ndarray) -> np.ndarray:
    """neighbors[h, k] from axial coordinates (-1 where no hex of the map lies)."""
    where = {(int(q), int(r)): i for i, (q, r) in enumerate(zip(hex_q, hex_r, strict=True))}
    out = np.full((hex_q.size, NUM_DIRS), -1, dtype=np.int32)
    for i, (q, r) in enumerate(zip(hex_q, hex_r, strict=True)):
        for k, (dq, dr) in enumerate(AXIAL_DIRS):
            out[i, k] = where.get((int(q) + dq, int(r) + dr), -1)
    return out


@dataclass(frozen=True, eq=False)
class Board:
    """One validated map. Index hexes 0..num_hexes-1 (ascending printed number)."""

    name: str
    path: str
    hex_number: np.ndarray  # int64, the printed hex numbers, strictly increasing
    hex_q: np.ndarray  # int64 axial q
    hex_r: np.ndarray  # int64 axial r
    hex_terrain: np.ndarray  # int64, TERRAINS index
    hex_port: np.ndarray  # bool, port symbol
    hex_survey: np.ndarray  # bool, survey triangle
    hex_level: np.ndarray  # int64, Old One level mark 1..3, -1 none
    hex_farms: np.ndarray  # int64 bit mask over FARMS (bit f = farm f allowed)
    neighbors: np.ndarray  # int32 [n, 6], -1 padded, direction k = compass k+1
    provenance: dict[str, int] = field(default_factory=dict)

    @property
    def num_hexes(self) -> int:
        return int(self.hex_number.size)

    @property
    def coastal_hexes(self) -> np.ndarray:
        return np.flatnonzero(self.hex_terrain == COASTAL)

    @property
    def port_hexes(self) -> np.ndarray:
        return np.flatnonzero(self.hex_port)

    @property
    def survey_hexes(self) -> np.ndarray:
        return np.flatnonzero(self.hex_survey)

    @property
    def hash(self) -> str:
        """Changes exactly when a value that can change a result changes."""
        h = hashlib.sha256()
        for a in (
            self.hex_number,
            self.hex_q,
            self.hex_r,
            self.hex_terrain,
            self.hex_port,
            self.hex_survey,
            self.hex_level,
            self.hex_farms,
            self.neighbors,
        ):
            h.update(np.ascontiguousarray(a).tobytes())
            h.update(b"|")
        return h.hexdigest()[:16]

    def index(self, number: int) -> int:
        """Hex index of a printed hex number (UserError if the map has no such hex)."""
        i = int(np.searchsorted(self.hex_number, number))
        if i >= self.hex_number.size or self.hex_number[i] != number:
            raise UserError(f"map {self.name} has no hex {number}")
        return i

    def direction(self, a: int, b: int) -> int:
        """Direction index from hex a to its neighbour b (ValueError if not adjacent)."""
        hits = np.flatnonzero(self.neighbors[a] == b)
        if hits.size == 0:
            raise ValueError(f"hexes {a} and {b} are not adjacent")
        return int(hits[0])


def make_board(
    coords,
    terrain="outback",
    *,
    name="custom",
    numbers=None,
    port=(),
    survey=(),
    level=None,
    farms=None,
    neighbors=None,
) -> Board:
    """Build a Board in code (tests, fixtures, tools): coords = [(q, r), ...].

    terrain: one name for every hex or a list; port/survey: hex indices with the symbol;
    level: list of marks (-1 none) or None (no marks); farms: list of masks or None (the
    default farms per terrain of the shipped map: see DEFAULT_FARMS); neighbors: an
    explicit table, else derived from the coordinates. Not validated beyond shapes: use
    simkit.board.validate_board for user input.
    """
    n = len(coords)
    q = np.array([c[0] for c in coords], dtype=np.int64)
    r = np.array([c[1] for c in coords], dtype=np.int64)
    names = [terrain] * n if isinstance(terrain, str) else list(terrain)
    t = np.array([TERRAINS.index(x) for x in names], dtype=np.int64)
    hp = np.zeros(n, dtype=bool)
    hp[list(port)] = True
    hs = np.zeros(n, dtype=bool)
    hs[list(survey)] = True
    lv = np.full(n, -1, dtype=np.int64) if level is None else np.array(level, dtype=np.int64)
    fm = (
        np.array([DEFAULT_FARMS[x] for x in t], dtype=np.int64)
        if farms is None
        else np.array(farms, dtype=np.int64)
    )
    nb = neighbors_from_coords(q, r) if neighbors is None else np.asarray(neighbors, dtype=np.int32)
    num = (
        np.arange(1, n + 1, dtype=np.int64)
        if numbers is None
        else np.array(numbers, dtype=np.int64)
    )
    return Board(
        name=name,
        path="<code>",
        hex_number=num,
        hex_q=q,
        hex_r=r,
        hex_terrain=t,
        hex_port=hp,
        hex_survey=hs,
        hex_level=lv,
        hex_farms=fm,
        neighbors=nb,
    )


# ASSUMED default farm per terrain (only "Sheep only on Outback" is in the rules).
DEFAULT_FARMS = {
    COASTAL: 1 << FARMS.index("corn"),
    OUTBACK: 1 << FARMS.index("sheep"),
    HILLS: 1 << FARMS.index("cattle"),
    FARMLAND: 0,
    DESERT: 0,
}

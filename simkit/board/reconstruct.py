"""Rebuild the ASSUMED Eastern map and survey tiles shipped in simkit/data/auztralia/.

The printed board and tiles are not public in text. This script makes stand-ins whose
every value is derived from real geography or from a fixed seed, never from the board:

* hexes: a flat-topped hex grid of eastern Australia east of 138 deg E (a rough
  coastline polygon typed from memory of an atlas, equirectangular projection at 27 deg S,
  hex centre-to-corner HEX_KM km); a hex is on the map when its centre is on land;
* Coastal: a hex with sea (not the map's western cut) across one of its sides;
* Hills: non-coastal hexes within HILLS_KM of a polyline along the Great Dividing Range;
* Outback: the rest. Farms: Sheep on Outback (rules), Cattle on Hills and Corn on Coastal
  (assumed);
* Port symbols: the coastal hex nearest each of PORT_TOWNS (historic colonial ports);
* Survey triangles: 13 (rules) Outback hexes spread out by farthest-point sampling;
* Old One level marks on every Outback hex: 1 within two hexes of the coast, 2 at three,
  3 farther inland (danger grows inland - assumed; gives 29/16/17 hexes);
* hex numbers: reading order, top row first, left to right.

Survey tiles: 20 (rules), positions 0 (centre) and compass 1..6, drawn from SEED with
the counts in build_survey_tiles. Run from the repository root to rewrite both files:

    .venv/bin/python -m simkit.board.reconstruct
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from simkit.board.model import AXIAL_DIRS, FARMS, TERRAINS, pixel_center

HEX_KM = 105.0
LAT0 = -27.0
KM_PER_DEG = 111.2
WEST_CUT = 138.0
SEED = 20261201
NUM_SURVEY = 13
NUM_SURVEY_TILES = 20
HILLS_KM = 150.0

# Rough coastline of eastern Australia (lon, lat), clockwise from the Gulf of Carpentaria
# at the western cut; the polygon is closed along the cut (138 E).
COAST = [
    (138.0, -16.6),
    (139.5, -17.6),
    (140.8, -17.5),
    (141.4, -16.0),
    (141.6, -13.5),
    (141.9, -12.6),
    (142.5, -10.7),
    (143.4, -12.3),
    (143.8, -14.0),
    (145.2, -15.4),
    (145.8, -16.9),
    (146.3, -18.6),
    (146.8, -19.3),
    (148.4, -20.2),
    (149.2, -21.1),
    (150.0, -22.3),
    (150.7, -23.0),
    (150.9, -23.8),
    (152.3, -24.9),
    (153.1, -26.4),
    (153.3, -27.6),
    (153.6, -28.6),
    (153.2, -30.3),
    (152.8, -31.5),
    (151.8, -32.9),
    (151.2, -33.9),
    (150.7, -35.1),
    (150.1, -36.4),
    (149.9, -37.5),
    (148.2, -37.9),
    (146.4, -39.1),
    (145.0, -38.4),
    (144.4, -38.3),
    (143.5, -38.8),
    (142.5, -38.4),
    (141.6, -38.3),
    (140.7, -38.0),
    (139.8, -37.0),
    (139.4, -35.9),
    (138.9, -35.6),
    (138.5, -35.0),
    (138.0, -34.8),
]
# Great Dividing Range and Victorian Alps, north to south (lon, lat).
RANGE = [
    (143.5, -13.5),
    (145.2, -17.0),
    (145.6, -19.5),
    (147.0, -21.5),
    (148.4, -23.5),
    (150.3, -26.2),
    (151.7, -28.6),
    (151.4, -31.2),
    (150.2, -33.3),
    (148.8, -35.5),
    (147.6, -36.8),
    (145.8, -37.4),
    (143.8, -37.4),
]
PORT_TOWNS = {  # historic ports (lon, lat)
    "Normanton": (141.1, -17.7),
    "Cooktown": (145.25, -15.5),
    "Townsville": (146.8, -19.3),
    "Rockhampton": (150.5, -23.4),
    "Brisbane": (153.1, -27.5),
    "Newcastle": (151.8, -32.9),
    "Sydney": (151.2, -33.9),
    "Melbourne": (144.9, -38.2),
    "Adelaide": (138.5, -34.9),
}
SOURCE = (
    "assumed: simkit/board/reconstruct.py (geography of eastern Australia, not the printed board)"
)


def _xy(lon, lat):
    lon, lat = np.asarray(lon, dtype=float), np.asarray(lat, dtype=float)
    return (lon * KM_PER_DEG * np.cos(np.radians(LAT0)), lat * KM_PER_DEG)


def _inside(px, py, poly_x, poly_y) -> np.ndarray:
    """Even-odd rule point-in-polygon, vectorised over points."""
    inside = np.zeros(px.shape, dtype=bool)
    n = len(poly_x)
    for i in range(n):
        x1, y1, x2, y2 = poly_x[i], poly_y[i], poly_x[(i + 1) % n], poly_y[(i + 1) % n]
        cross = (y1 > py) != (y2 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            xint = x1 + (py - y1) * (x2 - x1) / (y2 - y1)
        inside ^= cross & (px < xint)
    return inside


def _segment_distance(px, py, line_x, line_y) -> np.ndarray:
    best = np.full(px.shape, np.inf)
    for i in range(len(line_x) - 1):
        ax, ay, bx, by = line_x[i], line_y[i], line_x[i + 1], line_y[i + 1]
        t = np.clip(
            ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2),
            0,
            1,
        )
        best = np.minimum(best, np.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay))))
    return best


def build_eastern() -> list[dict]:
    cx, cy = _xy([p[0] for p in COAST], [p[1] for p in COAST])
    x0, y0 = _xy(WEST_CUT, LAT0)
    qs, rs = np.meshgrid(np.arange(-2, 20), np.arange(-30, 30), indexing="ij")
    qs, rs = qs.ravel(), rs.ravel()
    hx, hy = pixel_center(qs, rs, HEX_KM)
    hx, hy = hx + x0 + HEX_KM, hy + y0  # column q = 0 just east of the cut

    def land(x, y):
        return _inside(x, y, cx, cy) & (x > x0)

    keep = land(hx, hy)
    qs, rs, hx, hy = qs[keep], rs[keep], hx[keep], hy[keep]
    where = {(int(q), int(r)): i for i, (q, r) in enumerate(zip(qs, rs, strict=True))}
    n = qs.size
    coastal = np.zeros(n, dtype=bool)
    for dq, dr in AXIAL_DIRS:
        nx, ny = pixel_center(qs + dq, rs + dr, HEX_KM)
        nx, ny = nx + x0 + HEX_KM, ny + y0
        sea = ~land(nx, ny) & (nx > x0)
        coastal |= sea & np.array(
            [(int(q) + dq, int(r) + dr) not in where for q, r in zip(qs, rs, strict=True)]
        )
    gx, gy = _xy([p[0] for p in RANGE], [p[1] for p in RANGE])
    hills = ~coastal & (_segment_distance(hx, hy, gx, gy) <= HILLS_KM)
    terrain = np.where(coastal, 0, np.where(hills, 2, 1))

    nbr = [
        [where.get((int(q) + dq, int(r) + dr), -1) for dq, dr in AXIAL_DIRS]
        for q, r in zip(qs, rs, strict=True)
    ]
    coast_dist = _bfs(nbr, coastal)
    level = np.where(
        terrain == 1, np.where(coast_dist <= 2, 1, np.where(coast_dist == 3, 2, 3)), -1
    )

    port = np.zeros(n, dtype=bool)
    for lon, lat in PORT_TOWNS.values():
        px, py = _xy(lon, lat)
        d = np.where(coastal, np.hypot(hx - px, hy - py), np.inf)
        port[int(np.argmin(d))] = True

    outback = np.flatnonzero(terrain == 1)
    survey = np.zeros(n, dtype=bool)
    # farthest-point sampling in hex steps, starting from the outback hex farthest from the coast
    chosen = [int(outback[np.argmax(coast_dist[outback])])]
    far = _bfs(nbr, np.isin(np.arange(n), chosen))
    while len(chosen) < NUM_SURVEY:
        chosen.append(int(outback[np.argmax(far[outback])]))
        far = _bfs(nbr, np.isin(np.arange(n), chosen))
    survey[chosen] = True

    order = np.lexsort(
        (hx, -np.round(hy / (HEX_KM * np.sqrt(3) / 2)))
    )  # top row first, then left to right
    sheep, cattle, corn = (FARMS.index(f) for f in ("sheep", "cattle", "corn"))
    farm_of = {0: f"{FARMS[corn]}", 1: f"{FARMS[sheep]}", 2: f"{FARMS[cattle]}"}
    rows = []
    for number, i in enumerate(order, start=1):
        rows.append(
            dict(
                hex=number,
                q=int(qs[i]),
                r=int(rs[i]),
                terrain=TERRAINS[terrain[i]],
                port=int(port[i]),
                survey=int(survey[i]),
                level=int(level[i]) if level[i] > 0 else "",
                farms=farm_of[int(terrain[i])],
                provenance="assumed",
                source=SOURCE,
            )
        )
    return rows


def _bfs(nbr, sources) -> np.ndarray:
    n = len(nbr)
    dist = np.full(n, -1)
    queue = list(np.flatnonzero(sources))
    dist[queue] = 0
    head = 0
    while head < len(queue):
        h = queue[head]
        head += 1
        for m in nbr[h]:
            if m >= 0 and dist[m] < 0:
                dist[m] = dist[h] + 1
                queue.append(m)
    return dist


def build_survey_tiles() -> list[dict]:
    """20 tiles: 1 or 2 Old One marks (1.6 mean), 3 to 4 resource spots of 1-3 tokens;
    Phosphate on about one spot in eight. Seeded, so the file is reproducible."""
    rng = np.random.default_rng(SEED)
    rows = []
    source = (
        "assumed: simkit/board/reconstruct.py build_survey_tiles "
        "(seeded; the printed tiles are not public)"
    )
    for tile in range(1, NUM_SURVEY_TILES + 1):
        positions = rng.permutation(7)
        n_old = 2 if rng.random() < 0.6 else 1
        n_res = 3 + int(rng.random() < 0.5)
        spots: dict[int, dict] = {}
        for p in positions[:n_old]:
            spots.setdefault(int(p), {"old_one": 1})
        for p in rng.permutation(7)[:n_res]:
            kind = (
                "phosphate"
                if rng.random() < 0.125
                else ("coal", "iron", "gold")[int(rng.integers(3))]
            )
            spot = spots.setdefault(int(p), {})
            spot[kind] = spot.get(kind, 0) + (1 if kind == "phosphate" else int(rng.integers(1, 4)))
        for p in sorted(spots):
            s = spots[p]
            rows.append(
                dict(
                    tile=tile,
                    position=p,
                    coal=s.get("coal", 0),
                    iron=s.get("iron", 0),
                    gold=s.get("gold", 0),
                    phosphate=s.get("phosphate", 0),
                    old_one=s.get("old_one", 0),
                    provenance="assumed",
                    source=source,
                )
            )
    return rows


MAP_HEADER = """\
# AuZtralia Eastern map - ASSUMED reconstruction (not the printed board).
# Made by simkit/board/reconstruct.py from real geography; see maps/README.md for the
# format and how to type in your own copy of the board. Columns: hex number, axial q/r,
# terrain, port symbol, survey triangle, Old One level mark, farms allowed.
"""
TILES_HEADER = """\
# AuZtralia survey tiles - ASSUMED (the printed tiles are not public); 20 tiles (rules).
# One row per marked position: 0 = the survey hex, 1..6 = the neighbour in that compass
# direction (tile arrow to the top of the board). See maps/README.md.
"""


def to_csv(rows: list[dict], header: str) -> str:
    out = io.StringIO()
    out.write(header)
    cols = list(rows[0])
    out.write(",".join(cols) + "\n")
    for row in rows:
        out.write(",".join(_cell(row[c]) for c in cols) + "\n")
    return out.getvalue()


def _cell(v) -> str:
    s = str(v)
    return f'"{s}"' if "," in s else s


def main() -> None:
    root = Path(__file__).resolve().parent.parent / "data" / "auztralia"
    (root / "maps").mkdir(parents=True, exist_ok=True)
    (root / "maps" / "eastern.csv").write_text(
        to_csv(build_eastern(), MAP_HEADER), encoding="utf-8"
    )
    (root / "survey_tiles.csv").write_text(
        to_csv(build_survey_tiles(), TILES_HEADER), encoding="utf-8"
    )


if __name__ == "__main__":
    main()

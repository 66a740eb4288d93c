"""Named tiny maps for tests and examples, including degenerate ones.

    single_hex()        one Outback hex, no neighbours
    column(n)           n hexes in a straight north-south line (compass 1 / 4)
    hexagon(radius)     every hex within ``radius`` of (0, 0); hex 0 is the centre
    two_islands()       two 7-hex rosettes with no hex between them (unreachable targets)

Hex index order is ascending hex number, which is the order of the coordinates given.
"""

from __future__ import annotations

from simkit.board.model import AXIAL_DIRS, Board, axial_distance, make_board


def single_hex(terrain: str = "outback") -> Board:
    return make_board([(0, 0)], terrain, name="single_hex")


def column(n: int, terrain: str = "outback") -> Board:
    return make_board([(0, r) for r in range(n)], terrain, name=f"column{n}")


def hexagon_coords(radius: int, centre=(0, 0)) -> list[tuple[int, int]]:
    """Centre first, then rings outwards; each ring starts north and runs clockwise."""
    cq, cr = centre
    out = [(cq, cr)]
    for ring in range(1, radius + 1):
        # start at the hex `ring` steps north, walk the ring clockwise: SE, S, SW, NW, N, NE
        q, r = cq + AXIAL_DIRS[0][0] * ring, cr + AXIAL_DIRS[0][1] * ring
        for side in (2, 3, 4, 5, 0, 1):
            dq, dr = AXIAL_DIRS[side]
            for _ in range(ring):
                out.append((q, r))
                q, r = q + dq, r + dr
    assert all(axial_distance(q, r, cq, cr) <= radius for q, r in out)
    return out


def hexagon(radius: int, terrain: str = "outback", **kw) -> Board:
    return make_board(hexagon_coords(radius), terrain, name=f"hexagon{radius}", **kw)


def two_islands() -> Board:
    return make_board(hexagon_coords(1) + hexagon_coords(1, centre=(6, -3)), name="two_islands")

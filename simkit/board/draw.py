"""Draw a board (and optionally its setup) as a PNG, so a person can check it by eye."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Circle, RegularPolygon  # noqa: E402

from simkit.board.model import (  # noqa: E402
    AXIAL_DIRS,
    COMPASS_NAMES,
    FARMS,
    RESOURCES,
    TERRAINS,
    Board,
    pixel_center,
)
from simkit.board.setup import BoardSetup  # noqa: E402
from simkit.names import OLD_ONES  # noqa: E402

TERRAIN_COLORS = {
    "coastal": "#9fd3e6",
    "outback": "#e8b77d",
    "hills": "#9c8a6a",
    "farmland": "#b9d98b",
    "desert": "#f2e3a6",
}
PLAYER_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e")
RESOURCE_LETTERS = {"coal": "C", "iron": "I", "gold": "G", "phosphate": "P"}


def render_png(
    board: Board,
    setup: BoardSetup | None = None,
    title: str | None = None,
    reveal: bool = False,
    dpi: int = 110,
) -> bytes:
    """PNG bytes of the board. ``reveal`` prints the Old One type on face-down tiles."""
    x, y = pixel_center(board.hex_q, board.hex_r)
    width = max(6.0, (x.max() - x.min() + 2) * 0.55)
    height = max(6.0, (y.max() - y.min() + 2) * 0.55)
    fig, ax = plt.subplots(figsize=(width, height + 0.8))
    for h in range(board.num_hexes):
        terrain = TERRAINS[board.hex_terrain[h]]
        ax.add_patch(
            RegularPolygon(
                (x[h], y[h]),
                numVertices=6,
                radius=0.98,
                orientation=np.pi / 6,
                facecolor=TERRAIN_COLORS[terrain],
                edgecolor="#555555",
                linewidth=0.6,
            )
        )
        ax.text(
            x[h] - 0.55, y[h] - 0.55, str(board.hex_number[h]), fontsize=5.5, ha="left", va="bottom"
        )
        if board.hex_level[h] > 0:
            ax.text(
                x[h] + 0.55,
                y[h] - 0.55,
                f"L{board.hex_level[h]}",
                fontsize=5.5,
                ha="right",
                va="bottom",
                color="#5b2a86",
                fontweight="bold",
            )
        if board.hex_survey[h]:
            ax.plot([x[h]], [y[h] + 0.58], marker="^", color="#333333", markersize=5)
        if board.hex_port[h]:
            ax.plot([x[h] - 0.5], [y[h] + 0.25], marker="$\u2693$", color="#0b3d91", markersize=8)
        if board.hex_farms[h]:
            farms = "".join(
                f[0].upper() for i, f in enumerate(FARMS) if board.hex_farms[h] >> i & 1
            )
            ax.text(x[h] + 0.55, y[h] + 0.3, farms, fontsize=4.5, ha="right", color="#444444")
    if setup is not None:
        _draw_setup(ax, board, setup, x, y, reveal)
    _compass(ax, x.min() - 0.5, y.min() - 0.4)
    ax.set_xlim(x.min() - 1.6, x.max() + 1.6)
    ax.set_ylim(y.min() - 2.2, y.max() + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    legend = "terrain: " + ", ".join(TERRAINS[t] for t in sorted(set(board.hex_terrain.tolist())))
    legend += (
        "   ^ survey   \u2693 port symbol   L1-3 Old One level   farms S/C/c = sheep/cattle/corn"
    )
    if setup is not None:
        legend += "\nC I G P = coal iron gold phosphate   purple disc = face-down Old One (level)"
        legend += "   S/S+ = Spawn Normal/Dangerous   coloured disc = Port (player)"
    ax.set_title(title or f"{board.name} ({board.num_hexes} hexes, map {board.hash})", fontsize=9)
    ax.text((x.min() + x.max()) / 2, y.min() - 1.6, legend, ha="center", va="top", fontsize=6)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _draw_setup(ax, board, setup, x, y, reveal):
    for h in range(board.num_hexes):
        res = setup.hex_resource[h]
        if res.any():
            text = " ".join(
                f"{RESOURCE_LETTERS[RESOURCES[r]]}{res[r]}" for r in range(len(RESOURCES)) if res[r]
            )
            ax.text(x[h], y[h] - 0.3, text, fontsize=5, ha="center", va="center", color="#222222")
        t = setup.hex_tile[h]
        if t >= 0:
            ax.add_patch(
                Circle(
                    (x[h], y[h] + 0.12), 0.3, facecolor="#6a3d9a", edgecolor="black", linewidth=0.5
                )
            )
            label = str(setup.tile_level[t])
            if reveal:
                kind = setup.tile_type[t]
                label += ":" + ("empty" if kind < 0 else OLD_ONES[kind][:4])
            ax.text(x[h], y[h] + 0.12, label, fontsize=5.5, ha="center", va="center", color="white")
        if setup.hex_spawn[h] >= 0:
            ax.add_patch(
                Circle(
                    (x[h], y[h] + 0.12),
                    0.3,
                    facecolor="#3f007d" if setup.hex_spawn[h] else "#9e9ac8",
                    edgecolor="black",
                    linewidth=0.5,
                )
            )
            ax.text(
                x[h],
                y[h] + 0.12,
                "S+" if setup.hex_spawn[h] else "S",
                fontsize=5.5,
                ha="center",
                va="center",
                color="white",
            )
    for player, h in enumerate(setup.port_hex):
        if h >= 0:
            ax.add_patch(
                Circle(
                    (x[h] + 0.15, y[h] + 0.1),
                    0.33,
                    facecolor=PLAYER_COLORS[player % 4],
                    edgecolor="black",
                    linewidth=0.8,
                )
            )
            ax.text(
                x[h] + 0.15,
                y[h] + 0.1,
                str(player + 1),
                fontsize=6,
                ha="center",
                va="center",
                color="white",
            )


def _compass(ax, cx, cy):
    """The assumed compass plan: number k points in direction k."""
    ax.add_patch(
        RegularPolygon(
            (cx, cy),
            numVertices=6,
            radius=0.6,
            orientation=np.pi / 6,
            facecolor="white",
            edgecolor="black",
            linewidth=0.6,
        )
    )
    for k, (dq, dr) in enumerate(AXIAL_DIRS):
        dx, dy = pixel_center(dq, dr)
        ax.text(cx + 0.24 * dx, cy + 0.24 * dy, str(k + 1), fontsize=5.5, ha="center", va="center")
    ax.text(
        cx, cy - 0.85, "compass (assumed: 1 = " + COMPASS_NAMES[0] + ")", fontsize=5, ha="center"
    )

"""Board analytics: where Old Ones walk and where fights happen, drawn on the map."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon

from simkit import analysis
from simkit.report.html import esc, figure_html


def hex_counts(frame: pl.LazyFrame, column: str, hex_number: np.ndarray) -> np.ndarray:
    """Rows per hex; event tables name hexes by their printed number, mapped here to board order."""
    counts = frame.group_by(column).len().collect()
    index = {int(num): i for i, num in enumerate(hex_number)}
    out = np.zeros(len(hex_number))
    for h, n in zip(counts[column].to_list(), counts["len"].to_list(), strict=True):
        if h is not None and int(h) in index:
            out[index[int(h)]] = n
    return out


def heat_map(board, values: np.ndarray, title: str, label: str):
    from simkit.board.model import pixel_center

    x, y = pixel_center(board.hex_q, board.hex_r)
    fig, ax = plt.subplots(figsize=(5.5, 7.5))
    top = max(values.max(), 1e-9)
    cmap = plt.get_cmap("magma_r")
    for h in range(board.num_hexes):
        ax.add_patch(RegularPolygon((x[h], y[h]), numVertices=6, radius=0.98, orientation=np.pi / 6,
                                    facecolor=cmap(values[h] / top), edgecolor="#888888", linewidth=0.4))
        if board.hex_port[h]:
            ax.plot([x[h]], [y[h]], marker="$\u2693$", color="#1f77b4", markersize=7)
    ax.set_xlim(x.min() - 1.4, x.max() + 1.4)
    ax.set_ylim(y.min() - 1.4, y.max() + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, top))
    fig.colorbar(sm, ax=ax, shrink=0.6, label=label)
    ax.set_title(title, fontsize=9)
    return fig


def section(lake: analysis.Lake, sid: str) -> str:
    """Per-hex Old One traffic and fights per 100 games (needs the moves/combats tables)."""
    from simkit.board import load_map

    try:
        moves = lake.scan("moves")
    except analysis.LakeError:
        return ""
    summary = lake.scan()
    games = summary.select(pl.len()).collect().item()
    maps = summary.select(pl.col("map").unique()).collect()["map"].to_list() if "map" in summary.collect_schema().names() else ["eastern"]
    board = load_map(maps[0] if len(maps) == 1 else "eastern")
    per100 = 100.0 / max(games, 1)
    parts = [f'<h2 id="{sid}-board">Board analytics: {esc(lake.experiment)}</h2>',
             f'<p class="note">{games:,} games on the {esc(board.name)} map (assumed layout); anchors mark port '
             "symbols. Per-hex blight and port-loss-by-site need event fields the engine does not record yet.</p>"]
    traffic = hex_counts(moves, "to_hex", board.hex_number) * per100
    parts.append(figure_html(heat_map(board, traffic, "Old One steps into each hex", "entries per 100 games"),
                             "Where the Old Ones walk", f"fig-{sid}-traffic"))
    try:
        fights = hex_counts(lake.scan("combats"), "hex", board.hex_number) * per100
        parts.append(figure_html(heat_map(board, fights, "Combats fought in each hex", "combats per 100 games"),
                                 "Where the fighting happens", f"fig-{sid}-combats"))
    except analysis.LakeError:
        pass
    return "".join(parts)

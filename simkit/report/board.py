"""Board analytics drawn on the map: where Old Ones walk, where fights happen, which farms
are blighted, and which Port sites fall (with Wilson 95% intervals)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon

from simkit import analysis
from simkit.report.html import esc, figure_html, table_html
from simkit.report.order import error_bars, natural_sort
from simkit.views import bounds

MIN_FARMS = 30  # hexes with fewer farms placed are left unshaded on the blight map (too few to say)
TOP_HEXES = 12  # rows of the most-blighted-hexes table


def hex_counts(frame: pl.LazyFrame, column: str, hex_number: np.ndarray) -> np.ndarray:
    """Rows per hex; event tables name hexes by their printed number, mapped here to board order."""
    counts = frame.group_by(column).len().collect()
    return hex_values(counts[column].to_list(), counts["len"].to_list(), hex_number)


def hex_values(hexes, values, hex_number: np.ndarray, fill: float = 0.0) -> np.ndarray:
    """Values given by printed hex number, in board order (``fill`` where none is given)."""
    index = {int(num): i for i, num in enumerate(hex_number)}
    out = np.full(len(hex_number), fill, dtype=float)
    for h, v in zip(hexes, values, strict=True):
        if h is not None and int(h) in index:
            out[index[int(h)]] = v
    return out


def draw_map(
    ax,
    board,
    values: np.ndarray,
    title: str,
    label: str,
    cmap: str = "magma_r",
    top: float | None = None,
    label_ports: bool = False,
    number_size: float = 6.5,
) -> None:
    """One heat map on ``ax``; NaN values are drawn hatched (no data). Every hex carries its
    printed number (small, top of the hex), so a hex named in a table can be found here."""
    from simkit.board.model import pixel_center

    x, y = pixel_center(board.hex_q, board.hex_r)
    finite = values[np.isfinite(values)]
    top = top if top is not None else max(finite.max() if finite.size else 0.0, 1e-9)
    colors = plt.get_cmap(cmap)
    for h in range(board.num_hexes):
        blank = not np.isfinite(values[h])
        ax.add_patch(
            RegularPolygon(
                (x[h], y[h]),
                numVertices=6,
                radius=0.98,
                orientation=np.pi / 6,
                facecolor="white" if blank else colors(min(values[h] / top, 1.0)),
                hatch="///" if blank else None,
                edgecolor="#999999",
                linewidth=0.4,
            )
        )
        shade = 0.0 if blank else min(values[h] / top, 1.0)
        port = bool(board.hex_port[h])
        ax.text(
            x[h],
            y[h] + (0.3 if port else 0.0),
            str(int(board.hex_number[h])),
            fontsize=number_size,
            ha="center",
            va="center",
            fontweight="bold" if port and label_ports else "normal",
            color=("#0b3d91" if shade <= 0.65 else "#cfe3ff")
            if port and label_ports
            else ("white" if shade > 0.65 else "#333333"),
        )
        if port:
            ax.plot([x[h]], [y[h] - 0.38], marker="$\u2693$", color="#1f77b4", markersize=5.5)
    ax.set_xlim(x.min() - 1.4, x.max() + 1.4)
    ax.set_ylim(y.min() - 1.4, y.max() + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    sm = plt.cm.ScalarMappable(cmap=colors, norm=plt.Normalize(0, top))
    ax.figure.colorbar(sm, ax=ax, shrink=0.55, pad=0.02, label=label)
    ax.set_title(title, fontsize=10)


def heat_map(board, values: np.ndarray, title: str, label: str):
    fig, ax = plt.subplots(figsize=(5.5, 7.5))
    draw_map(ax, board, values, title, label)
    return fig


def _group(lake: analysis.Lake) -> list[str]:
    """Board tables are split by difficulty when the lake varies it, else pooled."""
    return ["difficulty"] if "difficulty" in lake.grid_keys else []


def port_section(ports: pl.LazyFrame, lake: analysis.Lake, sid: str) -> str:
    by = _group(lake)
    rates = analysis.port_loss_by_site(ports, by=by)
    sites = sorted(set(rates["hex"].to_list()))
    levels = natural_sort(rates.select(by).unique(), by)[by[0]].to_list() if by else ["all games"]
    cell = {(r[by[0]] if by else "all games", r["hex"]): r for r in rates.to_dicts()}
    headers = ["Port site (hex)"]
    for level in levels:
        headers += [f"{level}: Ports", f"{level}: share lost", f"{level}: 95% interval"]
    rows = []
    for h in sites:
        row = [str(h)]
        for level in levels:
            r = cell.get((level, h))
            row += (
                [f"{r['games']:,}", f"{r['rate']:.3f}", bounds(r["ci_low"], r["ci_high"], 3)]
                if r
                else ["0", "-", "-"]
            )
        rows.append(row)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(sites) + 1.6))
    y = np.arange(len(sites))
    step = 0.8 / max(len(levels), 1)
    for k, level in enumerate(levels):
        pts = [(i, cell[(level, h)]) for i, h in enumerate(sites) if (level, h) in cell]
        yy = np.array([i for i, _ in pts]) - 0.4 + step * (k + 0.5)
        p = np.array([r["rate"] for _, r in pts])
        err = error_bars(p, [r["ci_low"] for _, r in pts], [r["ci_high"] for _, r in pts])
        ax.errorbar(p, yy, xerr=err, fmt="o", capsize=3, markersize=4, label=str(level))
    ax.set_yticks(y, [f"hex {h}" for h in sites], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, None)
    ax.set_xlabel("share of Ports on this site that fell (95% Wilson interval)")
    ax.grid(axis="x", alpha=0.3)
    if by:
        ax.legend(
            title=by[0], fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0)
        )
    ax.set_title("Port loss by site")
    return "".join(
        [
            f'<h3 id="{sid}-ports">Port loss by site</h3>',
            '<p class="note">Each human places one Port at setup; a site\'s rate is the share of '
            "Ports placed there that fell before the end (any cause), with its Wilson 95% interval"
            + (f", by {esc(by[0])} (other grid keys pooled)" if by else "")
            + ". Sites differ in how often they are chosen, "
            "so small counts give wide intervals.</p>",
            figure_html(
                fig,
                "Share of Ports lost per site (hex numbers as "
                "printed on the map, anchors on the maps above)",
                f"fig-{sid}-port-loss-sites",
            ),
            table_html(headers, rows, f"table-{sid}-port-loss"),
        ]
    )


def blight_table(farms: pl.LazyFrame, sid: str) -> str:
    rates = analysis.blight_by_hex(farms)
    top = (
        rates.filter(pl.col("games") >= MIN_FARMS)
        .sort(["rate", "hex"], descending=[True, False])
        .head(TOP_HEXES)
    )
    return table_html(
        ["hex", "farms placed", "blighted", "share blighted", "95% interval"],
        [
            [
                str(r["hex"]),
                f"{r['games']:,}",
                f"{r['wins']:,}",
                f"{r['rate']:.3f}",
                bounds(r["ci_low"], r["ci_high"], 3),
            ]
            for r in top.to_dicts()
        ],
        f"table-{sid}-blight",
    )


def section(lake: analysis.Lake, sid: str) -> str:
    """Per-hex Old One traffic, fights and farm blight, and Port loss by site (needs the
    moves / combats / farms / ports tables: outputs in the spec)."""
    from simkit.board import load_map

    tables = {}
    for name in ("moves", "combats", "farms", "ports"):
        try:
            tables[name] = lake.scan(name)
        except analysis.LakeError:
            pass
    if not tables:
        return ""
    summary = lake.scan()
    games = summary.select(pl.len()).collect().item()
    maps = (
        summary.select(pl.col("map").unique()).collect()["map"].to_list()
        if "map" in summary.collect_schema().names()
        else ["eastern"]
    )
    board = load_map(maps[0] if len(maps) == 1 else "eastern")
    per100 = 100.0 / max(games, 1)
    missing = [n for n in ("moves", "combats", "farms", "ports") if n not in tables]
    parts = [
        f'<h2 id="{sid}-board">Board analytics: {esc(lake.name)}</h2>',
        f'<p class="note">{games:,} games on the {esc(board.name)} map (assumed layout), all cells '
        "pooled; every hex carries its printed number (Port sites in bold with an anchor), so a "
        "hex named in a table can be found on the maps."
        + (
            f" Not recorded by this run (add to the spec's outputs): {esc(', '.join(missing))}."
            if missing
            else ""
        )
        + "</p>",
    ]
    panels = []
    if "moves" in tables:
        panels.append(
            (
                hex_counts(tables["moves"], "to_hex", board.hex_number) * per100,
                "Old One steps into each hex",
                "entries per 100 games",
                "magma_r",
                None,
            )
        )
    if "combats" in tables:
        panels.append(
            (
                hex_counts(tables["combats"], "hex", board.hex_number) * per100,
                "Combats fought in each hex",
                "combats per 100 games",
                "magma_r",
                None,
            )
        )
    if "farms" in tables:
        rates = analysis.blight_by_hex(tables["farms"])
        enough = rates.filter(pl.col("games") >= MIN_FARMS)
        share = hex_values(
            enough["hex"].to_list(), enough["rate"].to_list(), board.hex_number, fill=np.nan
        )
        panels.append(
            (
                share,
                f"Farms blighted (hatched: < {MIN_FARMS} farms)",
                "share of farms placed there",
                "Greens",
                None,
            )
        )
    if panels:
        fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 8.6), squeeze=False)
        for ax, (values, title, label, cmap, top) in zip(axes[0], panels, strict=True):
            draw_map(ax, board, values, title, label, cmap=cmap, top=top, label_ports=True)
        fig.tight_layout()
        parts.append(
            figure_html(
                fig,
                "Where the Old Ones walk, where the fighting happens and which farms are blighted",
                f"fig-{sid}-board-maps",
            )
        )
    if "farms" in tables:
        parts.append(
            f'<h3 id="{sid}-blight">Most blighted farm '
            f"sites (at least {MIN_FARMS} farms placed)</h3>"
        )
        parts.append(blight_table(tables["farms"], sid))
    if "ports" in tables:
        parts.append(port_section(tables["ports"], lake, sid))
    return "".join(parts)

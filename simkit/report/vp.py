"""The report's VP section for game lakes: VP by source for each side (means with 95%
intervals) and their distributions (quantiles, box plots).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from simkit import analysis
from simkit.names import label
from simkit.report.cells import ONE_CELL, cell_label, one_cell, pm, shown_value, with_interval
from simkit.report.html import esc, figure_html, table_html
from simkit.report.order import LEVEL_ORDER, natural_sort

VP_GROUP_ORDER = (
    "difficulty",
)  # the distributions are split by this grid key when the lake varies it
QUANTILE_COLUMNS = ("q10", "q25", "q50", "q75", "q90")


def vp_groups(lake: analysis.Lake) -> list[str]:
    return [k for k in VP_GROUP_ORDER if k in lake.grid_keys]


def level_sorted(q: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Rows in play order of the group keys, each group's sources in their column order."""
    sources = {s: i for i, s in enumerate(dict.fromkeys(q["source"].to_list()))}
    rows = q.to_dicts()
    rows.sort(
        key=lambda r: (
            *(LEVEL_ORDER.get(r[k], 9) if k == "difficulty" else r[k] for k in by),
            sources[r["source"]],
        )
    )
    return pl.DataFrame(rows, schema=q.schema) if rows else q


def quantile_table(q: pl.DataFrame, by: list[str], table_id: str, unit: str = "games") -> str:
    q = level_sorted(q, by)
    return table_html(
        [
            *by,
            "source",
            unit,
            "mean [95% interval]",
            "scoring [95% interval]",
            "10%",
            "25%",
            "median",
            "75%",
            "90%",
        ],
        [
            [
                *(shown_value(k, r[k]) for k in by),
                label(r["source"]),
                f"{r['games']:,}",
                pm(r["mean"], r["mean_half_width"]),
                with_interval(r["scoring"], r["scoring_ci_low"], r["scoring_ci_high"]),
                *(f"{r[c]:.0f}" for c in QUANTILE_COLUMNS),
            ]
            for r in q.to_dicts()
        ],
        table_id,
        text_columns=tuple(range(len(by) + 1)),
    )


def box_panel(ax, q: pl.DataFrame, by: list[str], title: str) -> None:
    """Boxes drawn from the quantile table itself (box: quartiles, whiskers: 10-90%, diamond:
    mean)."""
    groups = natural_sort(q.select(by).unique(), by).to_dicts() if by else [{}]
    sources = list(dict.fromkeys(q["source"].to_list()))
    width = 0.8 / len(groups)
    colors = plt.get_cmap("tab10")
    for k, g in enumerate(groups):
        sel = q
        for key, value in g.items():
            sel = sel.filter(pl.col(key) == value)
        stats, pos = [], []
        for i, src in enumerate(sources):
            rows = sel.filter(pl.col("source") == src).to_dicts()
            if not rows:
                continue
            r = rows[0]
            stats.append(
                {
                    "med": r["q50"],
                    "q1": r["q25"],
                    "q3": r["q75"],
                    "whislo": r["q10"],
                    "whishi": r["q90"],
                    "mean": r["mean"],
                    "fliers": [],
                    "label": src,
                }
            )
            pos.append(i - 0.4 + width * (k + 0.5))
        art = ax.bxp(
            stats,
            positions=pos,
            widths=width * 0.85,
            showmeans=True,
            patch_artist=True,
            meanprops={
                "marker": "D",
                "markersize": 3,
                "markerfacecolor": "black",
                "markeredgecolor": "black",
            },
            medianprops={"color": "black"},
        )
        for box in art["boxes"]:
            box.set_facecolor(colors(k))
            box.set_alpha(0.75)
        ax.plot(
            [], [], "s", color=colors(k), label=", ".join(str(v) for v in g.values()) or "all games"
        )
    ax.set_xticks(range(len(sources)), [label(s) for s in sources], rotation=20, fontsize=8)
    ax.set_ylabel("VP per game")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title, fontsize=10)
    if by:
        ax.legend(title=by[0], fontsize=8, title_fontsize=8)


def vp_distributions(lake: analysis.Lake, sid: str) -> str:
    """Each side's VP by source as distributions (quantiles), not only means."""
    by = vp_groups(lake)
    oop = analysis.vp_quantiles(analysis.old_ones_vp_sources(lake.scan()), by=by)
    try:
        humans = analysis.vp_quantiles(analysis.human_vp_sources(lake.scan("seats")), by=by)
    except analysis.LakeError:
        humans = None
    revenge = "oop_vp_tokens" in lake.scan().collect_schema().names()
    side = "Old One player" if revenge else "Old Ones"
    fig, axes = plt.subplots(1, 2 if humans is not None else 1, figsize=(11, 4.2), squeeze=False)
    box_panel(axes[0][0], oop, by, f"{side}: VP by source (per game)")
    if humans is not None:
        box_panel(axes[0][1], humans, by, "Each human: VP by source (per seat)")
    fig.tight_layout()
    split = f" by {esc(by[0])} (other grid keys pooled)" if by else " (all cells pooled)"
    parts = [
        f'<h3 id="{sid}-vp-distributions">VP distributions by source{split}</h3>',
        '<p class="note">Boxes span the middle half of games (25%-75%), whiskers '
        "10%-90%, the line is the median and the diamond the mean; <i>scoring</i> "
        "is the share of games (seats) where the source gave any VP. "
        + (
            "The Old One player scores tiles on the map at face value, 3 per blighted farm, "
            "eliminated units and Outposts, and 10 per Port; it wins against the best human "
            "(ties to the Old Ones). "
            if revenge
            else ""
        )
        + "Quantiles are observed values (whole VP).</p>",
        figure_html(
            fig,
            f"{side} and human VP by source: quartiles, 10-90% whiskers, means",
            f"fig-{sid}-vp-distributions",
        ),
        f"<h4>{esc(side)}</h4>",
        quantile_table(oop, by, f"table-{sid}-vp-quantiles-oop"),
    ]
    if humans is not None:
        parts += [
            "<h4>Humans (each seat)</h4>",
            quantile_table(humans, by, f"table-{sid}-vp-quantiles-humans", "seats"),
        ]
    return "".join(parts)


def vp_section(lake: analysis.Lake, sid: str) -> str:
    summary = lake.scan()
    names = summary.collect_schema().names()
    if "oo_vp" not in names:
        return ""
    keys = lake.grid_keys or [ONE_CELL]
    summary = one_cell(summary, keys)
    sources = analysis.old_ones_vp_sources(summary)
    present = [
        c for c in sources.collect_schema().names() if c.startswith("vp_") and c != "vp_total"
    ]
    means = natural_sort(analysis.vp_by_source(sources.drop("vp_total"), by=keys), keys)
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(means) + 1.5))
    left = np.zeros(len(means))
    labels = [cell_label(r, keys) for r in means.to_dicts()]
    for c in present:
        vals = means[c].to_numpy()
        ax.barh(labels, vals, left=left, label=label(c))
        left += vals
    ax.invert_yaxis()
    ax.set_xlabel("mean Old One VP per game")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.tick_params(axis="y", labelsize=8)
    parts = [
        f'<h3 id="{sid}-vp">VP by source</h3>',
        figure_html(
            fig,
            "Mean Old One VP by source and cell (" + ", ".join(label(c) for c in present) + ")",
            f"fig-{sid}-oo-vp",
        ),
        '<p class="note">Mean Old One VP per game by source, each with its 95% interval.</p>',
        table_html(
            [*keys, "games", *(label(c) for c in present), "total"],
            [
                [
                    *(shown_value(k, r[k]) for k in keys),
                    f"{r['games']:,}",
                    *(pm(r[c], r[f"half_width_{c.removeprefix('vp_')}"]) for c in present),
                    pm(r["vp_total"], r["half_width_total"]),
                ]
                for r in means.to_dicts()
            ],
            f"table-{sid}-oo-vp",
            text_columns=tuple(range(len(keys))),
        ),
    ]
    try:
        seats = analysis.vp_by_source(analysis.seat_strategies(lake.scan("seats")), by=["strategy"])
    except analysis.LakeError:
        seats = None
    if seats is not None and len(seats):
        cols = [c for c in seats.columns if c.startswith("vp_")]
        parts.append(
            '<p class="note">Each human\'s mean VP per seat by source, with its 95% interval.</p>'
        )
        parts.append(
            table_html(
                ["strategy", "seats", *(label(c) for c in cols)],
                [
                    [
                        r["strategy"],
                        f"{r['games']:,}",
                        *(pm(r[c], r.get(f"half_width_{c.removeprefix('vp_')}")) for c in cols),
                    ]
                    for r in seats.sort("strategy").to_dicts()
                ],
                f"table-{sid}-human-vp",
            )
        )
    parts.append(vp_distributions(lake, sid))
    return "".join(parts)

"""Report sections for game lakes (`simkit experiment run` of the base/solo/revenge modes).

Every number comes from simkit.analysis over the lake's verified files, and every
rate is shown with its Wilson 95% interval.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from simkit import analysis
from simkit.names import label, outcome_label, value_label
from simkit.report.html import details_html, esc, figure_html, table_html
from simkit.report.order import LEVEL_ORDER, error_bars, natural_sort
from simkit.views import bounds, interval, mean_interval

END_REASONS = {0: "unfinished", 1: "time (53)", 2: "port lost", 3: "aborted"}
POOL_SPREAD_FLAG = 0.10  # flag a balance claim when strategy pools disagree by more than this


ONE_CELL = "which games"  # the row label column of a one-cell lake (no grid key varies)


def one_cell(frame, keys: list[str]):
    """A one-cell lake labelled "all games" instead of by its cell hash."""
    return frame.with_columns(pl.lit("all games").alias(ONE_CELL)) if keys == [ONE_CELL] else frame


def cell_label(row: dict, keys: list[str]) -> str:
    """'difficulty: hard, Old One player: rusher' (keys in plain words, simkit.names.label)."""
    if keys == [ONE_CELL]:
        return "all games"
    return ", ".join(f"{label(k)}: {shown_value(k, row[k])}" for k in keys) or "all games"


def pm(mean: float, half: float | None, digits: int = 2) -> str:
    """A mean with its 95% interval from the half-width: '12.34 [12.13, 12.55]'."""
    return mean_interval(mean, half, digits)


def with_interval(rate: float, low: float, high: float, digits: int = 3) -> str:
    return interval(rate, low, high, digits)


def grid_orders(lake: analysis.Lake) -> dict[str, list]:
    """Each grid key's values in the order the spec lists them (combat forces as written)."""
    grid = lake.record.get("spec", {}).get("grid", {}) or {}
    out = {}
    for k, values in grid.items():
        if isinstance(values, list):
            canon = [str(v).strip().lower() for v in values]
            out[k] = [*values, *canon]
    return out


ROW_KEYS = (
    "content",
)  # summary columns that label rows when they vary (e.g. rules vs assumed content)


def lake_keys(lake: analysis.Lake) -> list[str]:
    """The grid keys, plus any summary column of ROW_KEYS whose value varies between rows."""
    keys = list(lake.grid_keys)
    try:
        names = lake.scan().collect_schema().names()
    except analysis.LakeError:
        return keys
    for col in ROW_KEYS:
        if col in names and col not in keys:
            if lake.scan().select(pl.col(col).n_unique()).collect().item() > 1:
                keys.append(col)
    return keys


def rates_by_cell(lake: analysis.Lake, keys: list[str] | None = None) -> pl.DataFrame:
    keys = keys if keys is not None else (lake_keys(lake) or [ONE_CELL])
    scan = one_cell(lake.scan(), keys)
    return natural_sort(analysis.win_rates(scan, by=keys, metric=lake.key_metric), keys)


def headline_keys(lake: analysis.Lake) -> list[str]:
    """Difficulty x human count, the question users bring (empty when the lake does not vary
    both)."""
    keys = lake.grid_keys
    humans = "humans" if "humans" in keys else "players"
    return ["difficulty", humans] if "difficulty" in keys and humans in keys else []


def headline_tables(lake: analysis.Lake, sid: str) -> str:
    """Marginal rates: difficulty x humans (the question users bring), then each grid key alone."""
    keys = lake.grid_keys
    if len(keys) < 2:
        return ""
    groups = []
    if "difficulty" in keys and ("humans" in keys or "players" in keys):
        groups.append(["difficulty", "humans" if "humans" in keys else "players"])
    groups += [[k] for k in keys]
    parts = []
    for group in groups:
        rates = rates_by_cell(lake, group)
        name = "-".join(group)
        parts.append(
            f"<h3>{esc(label(lake.key_metric))} by {esc(' x '.join(map(label, group)))} "
            "(other grid keys pooled)</h3>"
        )
        parts.append(
            table_html(
                [*group, "games", "rate", "95% interval"],
                [
                    [
                        *(shown_value(k, r[k]) for k in group),
                        f"{r['games']:,}",
                        f"{r['rate']:.4f}",
                        bounds(r["ci_low"], r["ci_high"], 4),
                    ]
                    for r in rates.to_dicts()
                ],
                f"table-{sid}-by-{name}",
                text_columns=tuple(range(len(group))),
            )
        )
    return "".join(parts)


def outcome_section(lake: analysis.Lake, sid: str, heading: bool = True) -> str:
    keys = lake_keys(lake) or [ONE_CELL]
    rates = rates_by_cell(lake)
    metric = label(lake.key_metric)
    title = "Difficulty balance" if "difficulty" in keys else "Outcomes by cell"
    rows = rates.to_dicts()
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.5))
    y = np.arange(len(rows))
    p = np.array([r["rate"] for r in rows])
    err = error_bars(p, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows])
    ax.errorbar(p, y, xerr=err, fmt="o", capsize=3)
    ax.set_yticks(y, [cell_label(r, keys) for r in rows], fontsize=8)
    ax.set_xlabel(f"{metric} rate (95% Wilson interval)")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_title(f"{metric} by cell")
    parts = [
        f'<h2 id="{sid}">{esc(title)}: {esc(lake.name)}</h2>' if heading else "",
        f'<p class="note">Key metric <b>{esc(metric)}</b>; '
        f"{int(rates['games'].sum()):,} games.</p>",
        headline_tables(lake, sid) if heading else "",
        "<h3>Every cell</h3>",
        figure_html(fig, f"{metric} rate by cell with 95% intervals", f"fig-{sid}-rates"),
        table_html(
            [*keys, "games", "rate", "95% interval"],
            [
                [
                    *(shown_value(k, r[k]) for k in keys),
                    f"{r['games']:,}",
                    f"{r['rate']:.4f}",
                    bounds(r["ci_low"], r["ci_high"], 4),
                ]
                for r in rows
            ],
            f"table-{sid}-rates",
            text_columns=tuple(range(len(keys))),
        ),
    ]
    return "".join(parts)


def ruleset_section(lake: analysis.Lake, sid: str) -> str:
    """Each ruleset against the rulebook on the same seeds (paired differences)."""
    keys = lake.grid_keys
    if "ruleset" not in keys:
        return ""
    values = lake.scan().select(pl.col("ruleset").unique()).collect()["ruleset"].to_list()
    base = "revenge" if "revenge" in values else sorted(values)[0]
    others = [k for k in keys if k != "ruleset"]
    diffs = analysis.paired_difference(
        lake.scan(),
        {"ruleset": base},
        metric=lake.key_metric,
        within=others,
        by=[*others, "ruleset"],
    )
    diffs = natural_sort(diffs, [*others, "ruleset"])
    return "".join(
        [
            f'<h3 id="{sid}-rulesets">Ruleset comparison '
            f"(paired on shared seeds, against {esc(base)})</h3>",
            table_html(
                [
                    *others,
                    "ruleset",
                    "paired games",
                    "rate",
                    f"{base} rate",
                    "change",
                    "95% interval",
                ],
                [
                    [
                        *(shown_value(k, r[k]) for k in others),
                        r["ruleset"],
                        f"{r['games']:,}",
                        f"{r['rate']:.4f}",
                        f"{r['baseline_rate']:.4f}",
                        f"{r['diff']:+.4f}",
                        bounds(r["ci_low"], r["ci_high"], 4, signed=True),
                    ]
                    for r in diffs.to_dicts()
                ],
                f"table-{sid}-rulesets",
                text_columns=tuple(range(len(others) + 1)),
            ),
        ]
    )


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


def ending_section(lake: analysis.Lake, sid: str) -> str:
    summary = lake.scan()
    names = summary.collect_schema().names()
    if "end_reason" not in names or "end_time" not in names:
        return ""
    keys = headline_keys(lake) or lake.grid_keys or [ONE_CELL]
    summary = one_cell(summary, keys)
    counts = natural_sort(
        summary.group_by([*keys, "end_reason"]).len().collect(), [*keys, "end_reason"]
    )
    totals = summary.group_by(keys).len().rename({"len": "games"}).collect()
    joined = counts.join(totals, on=keys, how="left", maintain_order="left").to_dicts()
    rows = []
    from simkit.core.stats import wilson_interval

    for r in joined:
        lo, hi = wilson_interval(r["len"], r["games"])
        rows.append(
            [
                *(shown_value(k, r[k]) for k in keys),
                END_REASONS.get(int(r["end_reason"]), str(r["end_reason"])),
                f"{r['len']:,}",
                f"{r['len'] / r['games']:.4f}",
                bounds(lo, hi, 4),
            ]
        )
    port_times = (
        summary.filter(pl.col("end_reason") == 2)
        .select("end_time")
        .collect()["end_time"]
        .to_numpy()
    )
    fig, ax = plt.subplots(figsize=(8, 3))
    if port_times.size:
        ax.hist(port_times, bins=np.arange(port_times.min(), 55) - 0.5)
    ax.set_xlabel("Time Track space when a Port fell")
    ax.set_ylabel("games")
    ax.set_title("When Ports are lost (all cells)")
    return "".join(
        [
            f'<h3 id="{sid}-ending">How and when games end'
            + (" (other grid keys pooled)" if len(keys) < len(lake.grid_keys) else "")
            + "</h3>",
            table_html(
                [*keys, "end", "games", "share", "95% interval"],
                rows,
                f"table-{sid}-ending",
                text_columns=tuple(range(len(keys) + 1)),
            ),
            figure_html(fig, "Port-loss timing", f"fig-{sid}-port-loss"),
        ]
    )


POOL_KEYS = (
    "strategies",
    "strategy",
    "oop",
    "allocate",
    "withdraw",
)  # grid keys that name the bots playing


def pool_keys(keys: list[str]) -> list[str]:
    return [k for k in keys if k in POOL_KEYS]


def pool_spread(rates: pl.DataFrame, pools: list[str], others: list[str]) -> list[dict]:
    """Within each cell of the non-bot keys (``others``), how far apart the bot pools' rates
    are: one row per such cell with the lowest and highest pool, their rates and intervals,
    the spread, and whether the two intervals are disjoint. Largest spread first."""
    out = []
    groups = rates.group_by(others, maintain_order=True) if others else [((), rates)]
    for _, g in groups:
        if g.height < 2:
            continue
        g = g.sort("rate")
        lo, hi = g.row(0, named=True), g.row(g.height - 1, named=True)
        out.append(
            {
                "cell": {k: lo[k] for k in others},
                "low": lo,
                "high": hi,
                "spread": hi["rate"] - lo["rate"],
                "disjoint": lo["ci_high"] < hi["ci_low"],
            }
        )
    out.sort(key=lambda r: -r["spread"])
    return out


def pool_flag(lake: analysis.Lake, threshold: float = POOL_SPREAD_FLAG) -> str:
    """The "depends on which bots play" verdict: bot pools compared within each cell of the
    other grid keys (never across difficulties or human counts, which are meant to differ)."""
    keys = lake.grid_keys
    pools = pool_keys(keys)
    if not pools:
        return ""
    others = [k for k in keys if k not in pools]
    rates = analysis.win_rates(lake.scan(), by=[*others, *pools], metric=lake.key_metric)
    return pool_verdict(rates, pools, others, lake.key_metric, threshold)


def pool_verdict(
    rates: pl.DataFrame,
    pools: list[str],
    others: list[str],
    metric: str,
    threshold: float = POOL_SPREAD_FLAG,
) -> str:
    """The verdict text from rates per (others..., pools...) cell (see :func:`pool_flag`)."""
    metric = esc(label(metric))
    spreads = pool_spread(rates, pools, others)
    if not spreads:
        return ""
    worst = spreads[0]
    where = cell_label(worst["cell"], others) if others else "all games"
    lo, hi = worst["low"], worst["high"]
    text = (
        f"within {esc(where)}, {metric} is {lo['rate']:.3f} with {esc(cell_label(lo, pools))} and "
        f"{hi['rate']:.3f} with {esc(cell_label(hi, pools))}"
    )
    flagged = [r for r in spreads if r["spread"] > threshold and r["disjoint"]]
    if flagged:
        return (
            f"<b>Flag:</b> bot pools disagree by more than {threshold:.2f} (intervals apart) in "
            f"{len(flagged)} of {len(spreads)} cell(s); the largest: "
            f"{text}. A balance claim here depends on which bots play."
        )
    return (
        f"Bot pools compared within each of {len(spreads)} cell(s) differ by at most "
        f"{worst['spread']:.3f} ({text}): conclusions do not hinge on one bot."
    )


def strategy_section(lake: analysis.Lake, sid: str) -> str:
    """Per-strategy and per-seat win rates (seats table), and the bot pools compared within
    each cell of the other grid keys."""
    try:
        seats = analysis.seat_strategies(lake.scan("seats"))
    except analysis.LakeError:
        seats = None
    flag = pool_flag(lake)
    if seats is None and not flag:
        return ""
    parts = [f'<h2 id="{sid}-strategies">Strategies: {esc(lake.name)}</h2>']
    if seats is not None:
        per = analysis.per_strategy(seats, strategy="strategy", metric="win").sort("strategy")
        parts.append(
            table_html(
                ["strategy", "seats played", "wins", "win rate", "95% interval"],
                [
                    [
                        r["strategy"],
                        f"{r['games']:,}",
                        f"{r['wins']:,}",
                        f"{r['rate']:.4f}",
                        bounds(r["ci_low"], r["ci_high"], 4),
                    ]
                    for r in per.to_dicts()
                ],
                f"table-{sid}-strategies",
            )
        )
        if "seat" in seats.collect_schema().names():
            by_seat = analysis.per_seat(seats, metric="win").sort("seat")
            parts.append("<h3>Win rate by seat (player index in the game)</h3>")
            parts.append(
                table_html(
                    ["seat", "seats played", "wins", "win rate", "95% interval"],
                    [
                        [
                            str(r["seat"]),
                            f"{r['games']:,}",
                            f"{r['wins']:,}",
                            f"{r['rate']:.4f}",
                            bounds(r["ci_low"], r["ci_high"], 4),
                        ]
                        for r in by_seat.to_dicts()
                    ],
                    f"table-{sid}-seats",
                )
            )
    if flag:
        parts.append(f'<p class="note" id="{sid}-pool-flag">{flag}</p>')
    return "".join(parts)


def outcome_names() -> dict[int, str]:
    """Combat outcome codes -> names, from the kernel layout (so new outcomes show up)."""
    from simkit.kernels.low import combat_layout as C

    return dict(enumerate(C.OUTCOME_NAMES))


def outcome_legend(keys: list[str]) -> str:
    """What each combat outcome name means (simkit.names.OUTCOME_TEXT): a defeat, say, can
    leave units alive."""
    from simkit.names import OUTCOME_TEXT

    items = [
        f"<dt>{esc(OUTCOME_TEXT[k][0])}</dt><dd>{esc(OUTCOME_TEXT[k][1])}</dd>"
        for k in keys
        if k in OUTCOME_TEXT
    ]
    return f'<dl class="outcome-legend">{"".join(items)}</dl>' if items else ""


def shown_value(key: str, value: object) -> str:
    """A grid value in a table cell: forces as '3 Infantry + 1 Artillery', Old Ones by name."""
    if key == "force":
        from simkit.report.combat import force_text

        return force_text(str(value))
    return value_label(key, value)


def combat_lake_heatmap(lake: analysis.Lake, rates: pl.DataFrame, sid: str) -> str:
    """The force x Old One heatmap of P(destroy) (each force's Gold cost in its label) and
    the cheapest force of the lake reaching each target P against each Old One."""
    from simkit.report import combat

    view = combat.lake_grid(lake, rates)
    if view is None or len(view["order"]) * len(view["vs"]) < 2:
        return ""
    fig = combat.lake_heatmap(
        view, f"P(destroy) by force and Old One: {len(view['order'])} force(s), cheapest first"
    )
    rows = combat.lake_cheapest_rows(view)
    return (
        f'<h3 id="{sid}-force-heatmap">P(destroy) by force and Old One, with Gold cost</h3>'
        + figure_html(
            fig,
            "P(destroy) of each force of the grid against each Old One; Gold cost in each label",
            f"fig-{sid}-force-heatmap",
        )
        + f'<h3 id="{sid}-cheapest">Cheapest force reaching a target P(destroy)</h3>'
        + '<p class="note">Among the forces of this grid: the one of least Gold whose '
        "estimated P(destroy) reaches the target, with its 95% interval. Gold cost = each "
        "unit's cost in the lake's data pack, summed.</p>"
        + table_html(
            ["Old One", "target P(destroy)", "Gold", "cheapest force", "P(destroy)"],
            rows,
            f"table-{sid}-combat-cheapest",
            text_columns=(0, 3),
        )
    )


def combat_lake_section(lake: analysis.Lake, sid: str) -> str:
    """A combat-mode lake: P(destroy) per force x Old One (other keys labelled per row), how
    each fight ended (every outcome code present, with Wilson intervals) and Gold lost."""
    keys = lake.grid_keys or [ONE_CELL]
    scan = one_cell(lake.scan(), keys)
    have = scan.collect_schema().names()
    cols = "vs" if "vs" in keys else None
    rows_keys = [k for k in keys if k != cols]
    rates = analysis.win_rates(scan, by=keys, metric=lake.key_metric)
    orders = grid_orders(lake)
    parts = [
        f'<h2 id="{sid}">Combat grid: {esc(lake.name)}</h2>',
        f'<p class="note">One Monte Carlo fight per row; {int(rates["games"].sum()):,} fights; '
        f"P({esc(label(lake.key_metric))}) with Wilson 95% intervals.</p>",
    ]
    if cols:
        from simkit.names import OLD_ONES

        present = set(rates[cols].to_list())
        vs_order = [v for v in OLD_ONES if v in present] + sorted(present - set(OLD_ONES))
        cell = {(tuple(r[k] for k in rows_keys), r[cols]): r for r in rates.to_dicts()}
        row_ids = list(
            dict.fromkeys(
                tuple(r[k] for k in rows_keys)
                for r in natural_sort(
                    rates.select(rows_keys).unique(), rows_keys, orders
                ).to_dicts()
            )
        )
        costs = {}
        if "force" in rows_keys:
            from simkit.report.combat import force_costs

            for (f, *_), v in force_costs(lake).items():
                costs.setdefault(f, v)
        body = [
            [
                *(shown_value(k, v) for k, v in zip(rows_keys, rid, strict=True)),
                *([f"{costs[str(rid[rows_keys.index('force')])]:g}"] if costs else []),
                *(
                    with_interval(
                        cell[(rid, v)]["rate"], cell[(rid, v)]["ci_low"], cell[(rid, v)]["ci_high"]
                    )
                    if (rid, v) in cell
                    else "-"
                    for v in vs_order
                ),
            ]
            for rid in row_ids
        ]
        parts.append(
            f"<h3>P({esc(label(lake.key_metric))}) by {esc(' x '.join(map(label, rows_keys)))} "
            "and Old One</h3>"
        )
        parts.append(
            table_html(
                [*rows_keys, *(["Gold"] if costs else []), *vs_order],
                body,
                f"table-{sid}-combat-grid",
                text_columns=tuple(range(len(rows_keys))),
            )
        )
    parts.append(combat_lake_heatmap(lake, rates, sid))
    if "outcome" in have:
        names = outcome_names()
        counts = scan.group_by([*keys, "outcome"]).len().collect()
        totals = natural_sort(
            scan.group_by(keys).len().rename({"len": "games"}).collect(), keys, orders
        ).to_dicts()
        present = sorted(int(o) for o in counts["outcome"].unique().to_list())
        n = {(tuple(r[k] for k in keys), int(r["outcome"])): r["len"] for r in counts.to_dicts()}
        from simkit.core.stats import wilson_interval

        body = []
        for t in totals:
            cell = tuple(t[k] for k in keys)
            row = [*(shown_value(k, v) for k, v in zip(keys, cell, strict=True)), f"{t['games']:,}"]
            for o in present:
                c = n.get((cell, o), 0)
                lo, hi = wilson_interval(c, t["games"])
                row.append(with_interval(c / t["games"], lo, hi))
            body.append(row)
        parts.append("<h3>How each fight ended (share, 95% interval)</h3>")
        parts.append(outcome_legend([names.get(o, str(o)) for o in present]))
        parts.append(
            table_html(
                [*keys, "fights", *(outcome_label(names.get(o, str(o))) for o in present)],
                body,
                f"table-{sid}-combat-outcomes",
                text_columns=tuple(range(len(keys))),
            )
        )
    means = [c for c in ("gold_lost", "units_lost", "cards") if c in have]
    if means:
        agg = natural_sort(
            scan.group_by(keys)
            .agg(
                pl.len().alias("games"),
                *[pl.col(c).cast(pl.Float64).mean().alias(c) for c in means],
                *[pl.col(c).cast(pl.Float64).std().alias(f"sd_{c}") for c in means],
            )
            .collect(),
            keys,
            orders,
        ).to_dicts()
        z = analysis.Z95
        parts.append("<h3>Losses per fight (mean [95% interval])</h3>")
        parts.append(
            table_html(
                [*keys, "fights", *(label(c) for c in means)],
                [
                    [
                        *(shown_value(k, r[k]) for k in keys),
                        f"{r['games']:,}",
                        *(
                            pm(r[c], z * (r[f"sd_{c}"] or 0.0) / max(r["games"], 1) ** 0.5, 3)
                            for c in means
                        ),
                    ]
                    for r in agg
                ],
                f"table-{sid}-combat-losses",
                text_columns=tuple(range(len(keys))),
            )
        )
    return "".join(parts)


def identifiers(lake: analysis.Lake) -> str:
    """The lake's machine identifiers (experiment id, each cell's id under its label, the data
    pack hash) in one details line: the section above names cells in words only."""
    keys = lake.grid_keys
    items = [("experiment", str(lake.record.get("experiment_id", lake.experiment)))]
    for cell_id, rec in lake.cells.items():
        values = {**rec["params"], **rec["overrides"]}
        items.append((cell_label(values, keys) if keys else "all games", str(cell_id)))
    items.append(("data pack hash", str(lake.record.get("data_hash", "?"))))
    return details_html(items, "Identifiers (experiment, cells, data pack)")


def sections(lake: analysis.Lake, index: int) -> list[tuple[str, str]]:
    """(section id, html) for one experiment of a lake."""
    sid = f"lake{index}"
    if str(lake.record.get("mode")) == "combat":
        return [
            (
                sid,
                combat_lake_section(lake, sid)
                + outcome_section(lake, sid, heading=False)
                + identifiers(lake),
            )
        ]
    out = [
        (
            sid,
            outcome_section(lake, sid)
            + ruleset_section(lake, sid)
            + vp_section(lake, sid)
            + ending_section(lake, sid)
            + identifiers(lake),
        )
    ]
    strat = strategy_section(lake, sid)
    if strat:
        out.append((f"{sid}-strategies", strat))
    from simkit.report import board

    where = board.section(lake, sid)
    if where:
        out.append((f"{sid}-board", where))
    return out

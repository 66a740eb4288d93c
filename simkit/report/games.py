"""Report sections for game lakes (`simkit experiment run` of the base/solo/revenge modes).

Every number comes from simkit.analysis over the lake's verified files, and every
rate is shown with its Wilson 95% interval.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from simkit import analysis
from simkit.names import label

# the sections' parts in their own modules, re-exported (simkit.report.games.X keeps working)
from simkit.report.cells import (  # noqa: F401
    ONE_CELL,
    ROW_KEYS,
    cell_label,
    grid_orders,
    lake_keys,
    one_cell,
    pm,
    rates_by_cell,
    shown_value,
    with_interval,
)
from simkit.report.combat_lake import (  # noqa: F401
    combat_lake_heatmap,
    combat_lake_section,
    outcome_legend,
    outcome_names,
)
from simkit.report.html import details_html, esc, figure_html, table_html
from simkit.report.order import error_bars, natural_sort
from simkit.report.vp import (  # noqa: F401
    QUANTILE_COLUMNS,
    VP_GROUP_ORDER,
    box_panel,
    level_sorted,
    quantile_table,
    vp_distributions,
    vp_groups,
    vp_section,
)
from simkit.views import bounds

END_REASONS = {0: "unfinished", 1: "time (53)", 2: "port lost", 3: "aborted"}
POOL_SPREAD_FLAG = 0.10  # flag a balance claim when strategy pools disagree by more than this


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

"""The report's section for combat-mode lakes: P(destroy) per force x Old One, how each
fight ended, Gold lost, and the force x Old One heatmap with the cheapest forces.
"""

from __future__ import annotations

import polars as pl

from simkit import analysis
from simkit.names import label, outcome_label
from simkit.report.cells import ONE_CELL, grid_orders, one_cell, pm, shown_value, with_interval
from simkit.report.html import esc, figure_html, table_html
from simkit.report.order import natural_sort


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

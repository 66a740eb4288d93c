"""Claims that hold over plausible content: a worlds experiment (a spec's ``[worlds]``
table, simkit.runner.worlds) shown as bands.

Every world redraws the assumed values and unknown cards the spec names; every world plays
the same game seeds. Shown: each headline (the key metric per difficulty and humans) as a
band over the joint worlds (median, 10th-90th percentile), the Normal->Hard and
Hard->Heroic steps per world (paired over the same games), each claim as "holds in k of N
worlds", and how much of the band each source explains: the variance of the headline over
the worlds in which that source alone varies (``per_source``), less the chance variance of a
cell (p(1-p)/n), as a share of the sum over sources. The shares assume the sources act
additively; the joint band's variance beside the sum says how far that holds.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from simkit import analysis
from simkit.core.stats import mean_interval
from simkit.names import label
from simkit.report.html import esc, figure_html, table_html
from simkit.views import bounds, interval

LEVELS = ("normal", "hard", "heroic")
STEPS = (("normal", "hard"), ("hard", "heroic"))
THRESHOLDS = (0.0, 0.05)  # claims: "harder by more than 0 / at least 5 points"


def applies(lake: analysis.Lake) -> bool:
    return bool(lake.record.get("spec", {}).get("world_sources"))


def varies_content(lake: analysis.Lake) -> bool:
    """The worlds run also varies content (a [grid] content = ["assumed", "rules"])."""
    return "content" in lake.record.get("spec", {}).get("grid", {})


def _frame(lake: analysis.Lake) -> pl.LazyFrame:
    """The rows the bands are drawn from: content "assumed" when the run varies content
    (the rules-only cells are the content comparison's)."""
    frame = lake.scan()
    return frame.filter(pl.col("content") == "assumed") if varies_content(lake) else frame


def world_rates(lake: analysis.Lake) -> pl.DataFrame:
    """One row per (world_source, world, humans, difficulty): games, rate."""
    metric = lake.key_metric
    keys = ["world_source", "world", *[k for k in ("humans", "difficulty") if k in _cols(lake)]]
    return (
        _frame(lake)
        .group_by(keys)
        .agg(pl.len().alias("games"), pl.col(metric).cast(pl.Float64).mean().alias("rate"))
        .collect()
        .sort(keys)
    )


def _cols(lake: analysis.Lake) -> list[str]:
    return lake.scan().collect_schema().names()


def world_steps(lake: analysis.Lake) -> pl.DataFrame:
    """Per joint world and humans: each difficulty step (b - a) paired over the same games,
    with its 95% interval. Columns: world, humans, step, diff, ci_low, ci_high."""
    metric = lake.key_metric
    frame = _frame(lake).filter(pl.col("world_source") == "all")
    has_humans = "humans" in _cols(lake)
    rows = []
    wide = (
        frame.select(
            "world",
            *(["humans"] if has_humans else []),
            "chunk_id",
            "game_index",
            "difficulty",
            pl.col(metric).cast(pl.Float64),
        )
        .collect()
        .pivot(on="difficulty", values=metric)
    )
    groups = ["world", "humans"] if has_humans else ["world"]
    for key, part in wide.group_by(groups, maintain_order=True):
        for a, b in STEPS:
            if a not in part.columns or b not in part.columns:
                continue
            d = (part[b] - part[a]).drop_nulls().to_numpy()
            if d.size < 2:
                continue
            rows.append(
                {
                    "world": key[0],
                    "humans": key[1] if has_humans else None,
                    "step": f"{a}->{b}",
                    **_paired(d),
                }
            )
    return pl.DataFrame(rows)


def content_differences(lake: analysis.Lake) -> pl.DataFrame:
    """Per joint world and difficulty: rules - assumed paired over the same games, with its
    95% interval (what the invented card texts move, in that world)."""
    metric = lake.key_metric
    wide = (
        lake.scan()
        .filter(pl.col("world_source") == "all")
        .select(
            "world",
            "difficulty",
            "chunk_id",
            "game_index",
            "content",
            pl.col(metric).cast(pl.Float64),
        )
        .collect()
        .pivot(on="content", values=metric)
    )
    rows = []
    for (world, level), part in wide.group_by(["world", "difficulty"], maintain_order=True):
        d = (part["rules"] - part["assumed"]).drop_nulls().to_numpy()
        rows.append({"world": world, "difficulty": level, **_paired(d)})
    return pl.DataFrame(rows)


def content_html(lake: analysis.Lake, sid: str) -> str:
    """What rests on invented card texts, as a band over the worlds."""
    diffs = content_differences(lake)
    order = {lv: i for i, lv in enumerate(LEVELS)}
    rows = []
    for (level,), part in sorted(
        diffs.group_by(["difficulty"]), key=lambda kv: order.get(kv[0][0], 9)
    ):
        d, hi, lo = part["diff"].to_numpy(), part["ci_high"].to_numpy(), part["ci_low"].to_numpy()
        p10, med, p90 = np.percentile(d, [10, 50, 90])
        rows.append(
            [
                level,
                f"{med:+.3f}",
                bounds(p10, p90, signed=True),
                f"{int((d < 0).sum())} of {d.size}",
                f"{int((hi < 0).sum())} of {d.size}",
                f"{int((lo > 0).sum())} of {d.size}",
            ]
        )
    table = table_html(
        [
            "difficulty",
            "rules - assumed: median",
            "10th-90th percentile",
            "invented texts help the OOP in",
            "... with the paired 95% interval below 0",
            "... hurt it, interval above 0",
        ],
        rows,
        f"table-{sid}-content-band",
    )
    return (
        "<h3>What rests on invented card texts, over plausible content</h3>"
        "<p>Per world, the OOP's win rate with only the Mythos cards of public text (the others "
        "blanks; <i>rules</i>) minus the win rate with every card as the pack gives it "
        "(<i>assumed</i>), paired over the same games; both on the printed 30-card deck. A "
        "negative difference means the invented texts help the Old One player in that world. "
        "The bands above are the <i>assumed</i> cells.</p>" + table
    )


def _paired(d: np.ndarray) -> dict:
    """The mean of per-game paired differences with its 95% interval."""
    low, high = mean_interval(float(d.sum()), float((d * d).sum()), d.size)
    return {"diff": float(d.mean()), "ci_low": low, "ci_high": high}


def source_shares(rates: pl.DataFrame, sources: list[str]) -> list[dict]:
    """Per source and difficulty: the alone-band (10th-90th percentile) and the share of the
    chance-corrected variance over sources; and the joint worlds' variance."""
    out = []
    for level in LEVELS:
        part = (
            rates.filter(pl.col("difficulty") == level) if "difficulty" in rates.columns else rates
        )
        if part.height == 0:
            continue
        var = {}
        for s in sources:
            r = part.filter(pl.col("world_source") == s)
            if r.height < 2:
                continue
            x = r["rate"].to_numpy()
            noise = float(np.mean(x * (1 - x) / r["games"].to_numpy()))
            var[s] = (max(float(x.var(ddof=1)) - noise, 0.0), np.percentile(x, [10, 90]))
        joint = part.filter(pl.col("world_source") == "all")["rate"].to_numpy()
        total = sum(v for v, _ in var.values())
        for s, (v, band) in sorted(var.items(), key=lambda kv: -kv[1][0]):
            out.append(
                {
                    "difficulty": level,
                    "source": s,
                    "p10": float(band[0]),
                    "p90": float(band[1]),
                    "variance": v,
                    "share": v / total if total > 0 else float("nan"),
                    "joint_variance": float(joint.var(ddof=1)) if joint.size > 1 else float("nan"),
                    "sum_variance": total,
                }
            )
    return out


def section(lake: analysis.Lake, sid: str) -> str:
    from simkit.runner.worlds import SOURCES

    spec = lake.record.get("spec", {})
    sources = list(spec.get("world_sources", []))
    metric = label(lake.key_metric)
    rates = world_rates(lake)
    joint = rates.filter(pl.col("world_source") == "all")
    n_worlds = joint["world"].n_unique()
    games = int(joint["games"].min()) if joint.height else 0
    fixed = ", ".join(f"{label(k)}: {v}" for k, v in spec.get("params", {}).items())
    has_humans = "humans" in joint.columns
    band_rows = []
    for key, part in joint.group_by(
        ["humans", "difficulty"] if has_humans else ["difficulty"], maintain_order=True
    ):
        x = part["rate"].to_numpy()
        p10, med, p90 = np.percentile(x, [10, 50, 90])
        band_rows.append(
            [
                *key,
                f"{med:.3f}",
                bounds(p10, p90),
                bounds(x.min(), x.max()),
                str(x.size),
            ]
        )
    order = {lv: i for i, lv in enumerate(LEVELS)}
    band_rows.sort(key=lambda r: (r[0], order.get(r[1], 9)) if has_humans else order.get(r[0], 9))
    heads = (["humans"] if has_humans else []) + [
        "difficulty",
        f"{metric}: median",
        "10th-90th percentile",
        "min to max",
        "worlds",
    ]
    band_table = table_html(
        heads, band_rows, f"table-{sid}-bands", text_columns=(0, 1) if has_humans else (0,)
    )

    steps = world_steps(lake)
    claim_rows = []
    if steps.height:
        for key, part in steps.group_by(
            ["humans", "step"] if has_humans else ["step"], maintain_order=True
        ):
            d = part["diff"].to_numpy()
            lo = part["ci_low"].to_numpy()
            p10, med, p90 = np.percentile(d, [10, 50, 90])
            cells = [*key, interval(med, p10, p90, signed=True)]
            for t in THRESHOLDS:
                cells.append(f"{int((d > t).sum() if t == 0 else (d >= t).sum())} of {d.size}")
                cells.append(f"{int((lo > t).sum() if t == 0 else (lo >= t).sum())} of {d.size}")
            claim_rows.append(cells)
    claim_heads = (["humans"] if has_humans else []) + [
        "step",
        "step: median (10th-90th)",
        "harder: holds in",
        "... with its 95% interval above 0",
        "harder by 5+ points: holds in",
        "... with its interval above 5 points",
    ]
    claim_table = table_html(
        claim_heads, claim_rows, f"table-{sid}-claims", text_columns=(0, 1) if has_humans else (0,)
    )

    shares = source_shares(rates, sources)
    share_rows = [
        [
            r["difficulty"],
            r["source"],
            SOURCES.get(r["source"], ""),
            bounds(r["p10"], r["p90"]),
            f"{r['share']:.0%}" if np.isfinite(r["share"]) else "-",
        ]
        for r in shares
    ]
    share_table = (
        table_html(
            ["difficulty", "source", "what varies", "alone: 10th-90th", "share of the band"],
            share_rows,
            f"table-{sid}-shares",
            text_columns=(0, 1, 2),
        )
        if share_rows
        else "<p>No per-source worlds in this run ([worlds] per_source = 0): the shares are "
        "not measured.</p>"
    )
    check = ""
    if shares:
        first = {r["difficulty"]: r for r in shares}
        check = (
            "<p>Additivity check (variance of the headline over worlds): "
            + "; ".join(
                f"{lv}: joint {r['joint_variance']:.5f}, sum of sources {r['sum_variance']:.5f}"
                for lv, r in first.items()
            )
            + ".</p>"
        )

    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    labels, data = [], []
    for key, part in joint.group_by(
        ["humans", "difficulty"] if has_humans else ["difficulty"], maintain_order=True
    ):
        labels.append(" ".join(str(k) for k in key))
        data.append(part["rate"].to_numpy())
    idx = sorted(
        range(len(labels)),
        key=lambda i: (labels[i].split()[0], order.get(labels[i].split()[-1], 9)),
    )
    ax.boxplot([data[i] for i in idx], whis=(10, 90), showfliers=True)
    ax.set_xticks(range(1, len(idx) + 1), [labels[i] for i in idx])
    ax.set_ylabel(f"{metric} per world")
    ax.set_title(f"{n_worlds} worlds: box = quartiles, whiskers = 10th-90th percentile", fontsize=9)
    fig.tight_layout()
    figure = figure_html(
        fig, f"{metric} over {n_worlds} worlds of plausible content", f"fig-{sid}-worlds"
    )
    plt.close(fig)

    listed = "".join(f"<li><b>{esc(s)}</b>: {esc(SOURCES.get(s, ''))}</li>" for s in sources)
    return (
        f'<section id="{sid}-worlds"><h2>Claims over plausible content '
        f"({esc(lake.name)})</h2>"
        f"<p>{n_worlds} worlds, each a seeded redraw of the values nobody states, within their "
        f"stated ranges and the rules of thumb; {games:,} games per world and cell, every world on "
        f"the same seeds. Fixed: {esc(fixed)}. What varies:</p><ul>{listed}</ul>"
        f"{figure}<h3>The headline as a band</h3>{band_table}"
        "<h3>Is each level harder than the one below?</h3>"
        "<p>Per world, the step is the paired difference over the same games; a claim holds in a "
        "world when its step clears the threshold (and, stricter, when the step's 95% interval "
        "does).</p>"
        f"{claim_table}<h3>How much of the band each source explains</h3>{share_table}{check}"
        f"{content_html(lake, sid) if varies_content(lake) else ''}</section>"
    )

"""The combat odds section, from an odds table (simkit odds / simkit demo)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simkit.names import OLD_ONE_TEXT, OLD_ONES, UNITS
from simkit.odds import LOST_BINS, cheapest_mixes
from simkit.report.html import esc, figure_html, table_html
from simkit.views import force_label, gold_cost, interval

MIX_COLS = [f"n_{u}" for u in UNITS]
TARGETS = (0.5, 0.8, 0.95)
YOURS = "\u2605 "  # the mark of a user's own force (simkit report --my-force) in labels


def mix_label(row) -> str:
    """'2 Infantry + 1 Artillery' from an odds-table row."""
    return force_label([int(row[f"n_{u}"]) for u in UNITS])


def rate(p: float, lo: float, hi: float, method: str) -> str:
    """A rate with its interval (exact rows have none to show)."""
    return f"{p:.3f}" if method == "exact" else interval(p, lo, hi)


def draw_heatmap(
    grid: np.ndarray,
    row_labels: list[str],
    col_labels: list[str],
    title: str,
    marked: tuple[int, ...] = (),
    colorbar: str = "P(destroy)",
):
    """P(destroy) per row (a force) and column (an Old One) as vector cells with the value
    written in each; ``marked`` rows (the user's own forces) get a star and a frame."""
    rows, cols = grid.shape
    fig, ax = plt.subplots(figsize=(min(1.3 * cols + 4.2, 7.6), 0.3 * rows + 1.6))
    # vector cells (pcolormesh), not a raster image, so the inline SVG stays crisp in print
    im = ax.pcolormesh(
        np.arange(cols + 1) - 0.5,
        np.arange(rows + 1) - 0.5,
        np.ma.masked_invalid(grid),
        cmap="viridis",
        vmin=0,
        vmax=1,
        edgecolors="white",
        linewidth=0.3,
    )
    ax.set_ylim(rows - 0.5, -0.5)
    ax.set_xticks(range(cols), col_labels, fontsize=8)
    ax.set_yticks(
        range(rows),
        [(YOURS if i in marked else "") + t for i, t in enumerate(row_labels)],
        fontsize=7,
    )
    for i in marked:
        ax.get_yticklabels()[i].set_fontweight("bold")
        ax.add_patch(
            plt.Rectangle((-0.5, i - 0.5), cols, 1, fill=False, edgecolor="#d62728", linewidth=1.4)
        )
    for i in range(rows):
        for j in range(cols):
            if not np.isnan(grid[i, j]):
                ax.text(
                    j,
                    i,
                    f"{grid[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if grid[i, j] < 0.6 else "black",
                )
    fig.colorbar(im, ax=ax, label=colorbar)
    ax.set_title(title, fontsize=9)
    return fig


def heatmap(table: pd.DataFrame, copies: int, max_rows: int = 40, yours=None):
    """The cheapest ``max_rows`` mixes of the table against each Old One type, and first the
    user's own forces (``yours``: rows from :func:`simkit.odds.force_rows`), marked."""
    one = table[table["old_ones"] == copies]
    mixes = one.drop_duplicates(MIX_COLS).sort_values(["gold_cost", "tp_cost"]).head(max_rows)
    mine = (
        yours[yours["old_ones"] == copies].drop_duplicates(MIX_COLS)
        if yours is not None and len(yours)
        else mixes.iloc[0:0]
    )
    kinds = [k for k in OLD_ONES if k in set(one["old_one"].astype(str))]
    listed = pd.concat([mine, mixes], ignore_index=True)
    grid = np.full((len(listed), len(kinds)), np.nan)
    index: dict[tuple, list[int]] = {}
    for i, r in enumerate(listed[MIX_COLS].to_numpy()):
        index.setdefault(tuple(r), []).append(i)
    frames = [one] + ([yours[yours["old_ones"] == copies]] if len(mine) else [])
    for frame in frames:
        for _, r in frame.iterrows():
            if str(r["old_one"]) in kinds:
                for i in index.get(tuple(r[MIX_COLS]), ()):
                    grid[i, kinds.index(str(r["old_one"]))] = r["p_destroy"]
    labels = [f"{mix_label(r)}  ({r['gold_cost']:g} Gold)" for _, r in listed.iterrows()]
    foes = f"{copies} Old One{'s' if copies > 1 else ''}"
    title = f"P(destroy) against {foes}: the {len(mixes)} cheapest forces" + (
        f" and {len(mine)} of yours ({YOURS.strip()})" if len(mine) else ""
    )
    return draw_heatmap(
        grid,
        labels,
        [OLD_ONE_TEXT.get(k, k) for k in kinds],
        title,
        marked=tuple(range(len(mine))),
    )


def yours_table_rows(yours: pd.DataFrame) -> list[list[object]]:
    """The user's forces against every Old One of the table, with Gold, TP and P(destroy)."""
    rows = []
    for _, r in yours.iterrows():
        rows.append(
            [
                mix_label(r),
                f"{r['gold_cost']:g}",
                int(r["tp_cost"]),
                f"{int(r['old_ones'])} \u00d7 {OLD_ONE_TEXT.get(str(r['old_one']), r['old_one'])}",
                rate(r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], str(r["method"])),
                str(r["method"]),
            ]
        )
    return rows


def survival_curves(table: pd.DataFrame):
    """P(at least k units survive) for the cheapest mix reaching 0.8 against each Old One."""
    fig, ax = plt.subplots(figsize=(9, 4))
    picked = []
    for kind in OLD_ONES:
        best = cheapest_mixes(table, kind, 1, 0.8, top=1)
        if best.empty:
            continue
        r = best.iloc[0]
        n = int(r[MIX_COLS].sum())
        lost = np.array([r[f"p_lost_{k}"] for k in range(LOST_BINS)])
        ks = np.arange(n + 1)
        survive = [lost[: max(n - k, 0) + 1].sum() if n - k < LOST_BINS - 1 else 1.0 for k in ks]
        ax.plot(ks, survive, marker="o", label=f"{OLD_ONE_TEXT[kind]}: {mix_label(r)}")
        picked.append((kind, r))
    ax.set_xlabel("k units")
    ax.set_ylabel("P(at least k units survive)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title("Survival of the cheapest force reaching P(destroy) \u2265 0.8")
    return fig, picked


def withdraw_sentences(table: pd.DataFrame, top: int = 6) -> list[str]:
    """Where withdrawing at the right moment saves the most Gold (exact rows only)."""
    ex = table[(table["method"] == "exact") & table["p_withdraw_value_policy"].notna()].copy()
    if ex.empty:
        return []
    ex["gold_saved"] = ex["expected_gold_lost"] - ex["gold_lost_value_policy"]
    hopeless = int((ex["p_withdraw_value_policy"] > 0.999).sum())
    # mid-fight decisions only: a fight the optimum never starts is not a withdrawal decision
    ex = (
        ex[ex["p_withdraw_value_policy"].between(1e-6, 0.999)]
        .sort_values("gold_saved", ascending=False)
        .head(top)
    )
    out = []
    if hopeless:
        out.append(
            f"{hopeless} exactly solved matchup(s) are not worth starting "
            "at all (the value-optimal player withdraws before the first "
            "card); the rest are decisions taken during the fight:"
        )
    for _, r in ex.iterrows():
        foes = vs_text(r)
        out.append(
            f"{mix_label(r)} vs {foes}: the value-optimal player withdraws in "
            f"{r['p_withdraw_value_policy']:.1%} of fights, giving up "
            f"{r['p_destroy'] - r['p_destroy_value_policy']:.3f} of P(destroy) "
            f"({r['p_destroy']:.3f} -> {r['p_destroy_value_policy']:.3f}) to save "
            f"{r['gold_saved']:.2f} Gold of units on average."
        )
    return out


def policy_values(table: pd.DataFrame) -> pd.DataFrame:
    """Per row, the value (VP-as-Gold x P(destroy) - Gold lost) of never withdrawing, of
    the withdraw table (no card counting) and of the card-counting optimum (exact rows)."""
    t = table.copy()
    if "destroy_value" not in t.columns or "gold_lost_table_policy" not in t.columns:
        return t.iloc[0:0]
    t["value_never"] = t["destroy_value"] * t["p_destroy"] - t["expected_gold_lost"]
    t["value_table"] = (
        t["destroy_value"] * t["p_destroy_table_policy"] - t["gold_lost_table_policy"]
    )
    t["value_counting"] = (
        t["destroy_value"] * t["p_destroy_value_policy"] - t["gold_lost_value_policy"]
    )
    t["table_gain"] = t["value_table"] - t["value_never"]
    t["counting_gain"] = t["value_counting"] - t["value_table"]
    return t


def close_decisions(table: pd.DataFrame, top: int = 8) -> list[list[object]]:
    """Matchups where fighting on and the withdraw table are worth nearly the same: the
    table withdraws in a real share of fights (5%..95%) yet gains little over never
    withdrawing. These are the calls a player gets wrong."""
    t = policy_values(table)
    if t.empty:
        return []
    t = t[t["p_withdraw_table_policy"].between(0.05, 0.95)].copy()
    t["closeness"] = t["table_gain"].abs()
    rows = []
    for _, r in t.sort_values(["closeness", "gold_cost"]).head(top).iterrows():
        rows.append(
            [
                f"{mix_label(r)} vs {vs_text(r)}",
                rate(r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], str(r["method"])),
                rate(
                    r["p_destroy_table_policy"],
                    r["p_destroy_table_policy_lo"],
                    r["p_destroy_table_policy_hi"],
                    str(r["table_method"]),
                ),
                f"{r['p_withdraw_table_policy']:.1%}",
                f"{r['value_never']:+.2f}",
                f"{r['value_table']:+.2f}",
                f"{r['table_gain']:+.3f}",
            ]
        )
    return rows


def counting_worth(table: pd.DataFrame, top: int = 8) -> tuple[str, list[list[object]]]:
    """What card counting is worth: the card-counting optimum minus the withdraw table,
    in VP-as-Gold per fight, on the rows where both are exact."""
    t = policy_values(table)
    if t.empty:
        return "", []
    both = t[
        (t["method"] == "exact") & (t["table_method"] == "exact") & t["value_counting"].notna()
    ]
    if both.empty:
        return "", []
    gain = both["counting_gain"]
    text = (
        f"On the {len(both):,} matchups solved exactly both ways, counting every card is worth "
        f"{gain.mean():.3f} VP-as-Gold per fight on average over the withdraw "
        f"table (median {gain.median():.3f}, largest {gain.max():.3f}); it is "
        f"worth more than 0.1 in {(gain > 0.1).mean():.0%} of them."
    )
    rows = []
    for _, r in both.sort_values("counting_gain", ascending=False).head(top).iterrows():
        rows.append(
            [
                f"{mix_label(r)} vs {vs_text(r)}",
                f"{r['value_never']:+.2f}",
                f"{r['value_table']:+.2f}",
                f"{r['value_counting']:+.2f}",
                f"{r['counting_gain']:+.3f}",
                f"{r['p_withdraw_value_policy']:.1%}",
            ]
        )
    return text, rows


def cheapest_table_rows(table: pd.DataFrame) -> list[list[object]]:
    """Per Old One type and copies the table holds, and per target P: the cheapest mix."""
    rows = []
    present = set(table["old_one"].astype(str))
    held = sorted(int(c) for c in table["old_ones"].unique())
    for kind in [k for k in OLD_ONES if k in present]:
        for copies in held:
            for target in TARGETS:
                best = cheapest_mixes(table, kind, copies, target, top=1)
                if best.empty:
                    rows.append([OLD_ONE_TEXT[kind], copies, target, "none in table", "", "", ""])
                    continue
                r = best.iloc[0]
                rows.append(
                    [
                        OLD_ONE_TEXT[kind],
                        copies,
                        target,
                        mix_label(r),
                        f"{r['gold_cost']:.0f}",
                        int(r["tp_cost"]),
                        rate(
                            r["p_destroy"], r["p_destroy_lo"], r["p_destroy_hi"], str(r["method"])
                        ),
                    ]
                )
    return rows


def vs_text(r) -> str:
    """'2 \u00d7 Zombie' from an odds-table row."""
    return f"{int(r['old_ones'])} \u00d7 {OLD_ONE_TEXT.get(str(r['old_one']), r['old_one'])}"


def section(table: pd.DataFrame, sid: str = "combat-odds", yours=None) -> str:
    """The odds-table section; ``yours`` (rows of :func:`simkit.odds.force_rows`) adds the
    user's own forces to every heatmap, marked, and a table of their odds."""
    parts = [
        f'<h2 id="{sid}">Combat odds</h2>',
        f'<p class="note">{len(table):,} matchups; '
        f"{(table['method'] == 'exact').mean():.0%} solved exactly, the rest by Monte Carlo "
        "(shown with 95% Wilson intervals). Gold cost and attack TP beside every force.</p>",
    ]
    for copies in sorted(table["old_ones"].unique()):
        parts.append(
            figure_html(
                heatmap(table, int(copies), yours=yours),
                f"P(destroy) by force and Old One type, {int(copies)} of that type in the hex"
                + (" (your forces first, starred)" if yours is not None and len(yours) else ""),
                f"fig-heatmap-{int(copies)}",
            )
        )
    if yours is not None and len(yours):
        parts.append(f'<h3 id="{sid}-yours">Your forces</h3>')
        parts.append(
            table_html(
                ["your force", "Gold", "TP", "against", "P(destroy)", "method"],
                yours_table_rows(yours),
                f"table-{sid}-yours",
                text_columns=(0, 3, 5),
            )
        )
    fig, _ = survival_curves(table)
    parts.append(
        figure_html(
            fig,
            "P(at least k units survive), cheapest mix reaching 0.8 per Old One type",
            "fig-survival",
        )
    )
    parts.append("<h3>Cheapest forces reaching a target</h3>")
    parts.append(
        table_html(
            [
                "Old One",
                "copies",
                "target P(destroy)",
                "cheapest force",
                "Gold",
                "TP",
                "P(destroy)",
            ],
            cheapest_table_rows(table),
            "table-cheapest",
            text_columns=(0, 3),
        )
    )
    parts.append(f'<h3 id="{sid}-withdraw">The optimal withdraw policy</h3>')
    parts.append(
        '<p class="note">Value = VP-as-Gold x P(destroy) minus the Gold value of units lost. The '
        "<i>withdraw table</i> is the value-optimal policy of a player who does not count cards "
        "(every row, exact or Monte Carlo); the <i>card-counting optimum</i> exists only where the "
        "exact solver fits. Withdrawing never raises P(destroy), so a P(destroy)-maximiser "
        "withdraws only when destruction has become impossible.</p>"
    )
    close = close_decisions(table)
    if close:
        parts.append(
            "<h4>Close decisions: fighting on and withdrawing are worth nearly the same</h4>"
        )
        parts.append(
            table_html(
                [
                    "matchup",
                    "P(destroy), never",
                    "P(destroy), withdraw table",
                    "withdraws",
                    "value, never",
                    "value, table",
                    "table gain",
                ],
                close,
                f"table-{sid}-close",
                text_columns=(0,),
            )
        )
    text, worth = counting_worth(table)
    if worth:
        parts.append("<h4>What card counting is worth</h4>")
        parts.append(f'<p class="note" id="{sid}-counting-worth">{esc(text)}</p>')
        parts.append(
            table_html(
                [
                    "matchup",
                    "value, never",
                    "value, withdraw table",
                    "value, card counting",
                    "counting gain",
                    "counting withdraws",
                ],
                worth,
                f"table-{sid}-counting",
                text_columns=(0,),
            )
        )
    sentences = withdraw_sentences(table)
    if sentences:
        parts.append(
            "<h4>Where withdrawing mid-fight saves the "
            "most Gold (card counting, exact rows)</h4><ul>"
            + "".join(f"<li>{esc(s)}</li>" for s in sentences)
            + "</ul>"
        )
    if not (close or worth or sentences):
        parts.append('<p class="note">No matchup in this table gains from withdrawing.</p>')
    return "".join(parts)


# ---- combat lakes (simkit experiment run of mode "combat"): forces x Old Ones ----


def lake_pack(lake):
    """The data pack a lake was run with (its manifest's data folder; the shipped pack when
    it names none or the folder is gone), and a note when it could not be read."""
    from simkit.datapack import load_pack
    from simkit.errors import UserError

    data = lake.record.get("data")
    path = data.get("path") if isinstance(data, dict) else data
    try:
        pack = load_pack(path)
    except UserError:
        return load_pack(), f"the lake's data pack ({path}) could not be read: shipped costs"
    return pack, ""


def force_costs(lake) -> dict[tuple, float]:
    """Gold cost of each cell's force: its units x the unit costs of the cell's data pack
    (the lake's pack with the cell's overrides), keyed by (force, then the value of each
    other grid key but vs, as text)."""
    from simkit.combat import parse_force
    from simkit.runner.overrides import apply_overrides

    pack, _ = lake_pack(lake)
    other = [k for k in lake.grid_keys if k not in ("force", "vs")]
    out = {}
    for rec in lake.cells.values():
        values = {**rec["params"], **rec["overrides"]}
        if "force" not in values:
            continue
        data = apply_overrides(pack, rec["overrides"]) if rec.get("overrides") else pack
        key = (str(values["force"]), *(str(values.get(k)) for k in other))
        out[key] = gold_cost(parse_force(str(values["force"])), data.unit_cost)
    return out


def force_text(force: str) -> str:
    """'infantry=3,artillery=1' -> '3 Infantry + 1 Artillery'."""
    from simkit.combat import parse_force

    return force_label(parse_force(str(force))[: len(UNITS)])


def lake_grid(lake, rates) -> dict | None:
    """The force x Old One view of a combat lake's rates (polars rows with force, vs and the
    other grid keys): None unless both force and vs are in the lake. Rows are forces (with
    any other grid key), each with its Gold cost; columns are Old Ones in rulebook order."""
    keys = lake.grid_keys
    cells = list(lake.cells.values())
    if not cells or "force" not in cells[0]["params"] or "vs" not in cells[0]["params"]:
        return None
    costs = force_costs(lake)
    other = [k for k in keys if k not in ("force", "vs")]
    frame = rates.to_dicts()
    for r in frame:
        r.setdefault("force", cells[0]["params"]["force"])
        r.setdefault("vs", cells[0]["params"]["vs"])
    present = {str(r["vs"]) for r in frame}
    order = OLD_ONES + tuple(sorted(present - set(OLD_ONES)))
    vs_order = [v for v in order if v in present]
    rows = {}
    for r in frame:
        rid = (str(r["force"]), *(str(r[k]) for k in other))
        cost = costs[rid]
        rows.setdefault(rid, {"cost": cost, "cells": {}})["cells"][str(r["vs"])] = r
    row_ids = sorted(rows, key=lambda rid: (rows[rid]["cost"], rid))
    return {"other": other, "vs": vs_order, "rows": rows, "order": row_ids}


def lake_row_label(rid: tuple, other: list[str], cost: float) -> str:
    from simkit.names import label

    extra = ", ".join(f"{label(k)}: {v}" for k, v in zip(other, rid[1:], strict=True))
    return f"{force_text(rid[0])} ({cost:g} Gold)" + (f"; {extra}" if extra else "")


def lake_heatmap(view: dict, title: str):
    grid = np.array(
        [
            [
                view["rows"][rid]["cells"][v]["rate"] if v in view["rows"][rid]["cells"] else np.nan
                for v in view["vs"]
            ]
            for rid in view["order"]
        ],
        dtype=float,
    ).reshape(len(view["order"]), len(view["vs"]))
    labels = [
        lake_row_label(rid, view["other"], view["rows"][rid]["cost"]) for rid in view["order"]
    ]
    return draw_heatmap(grid, labels, [OLD_ONE_TEXT.get(v, v) for v in view["vs"]], title)


def lake_cheapest_rows(view: dict) -> list[list[object]]:
    """Per Old One and target P: the cheapest force (in Gold) of the lake whose P(destroy)
    reaches it (the estimate, as simkit.odds.cheapest_mixes), with its interval."""
    out = []
    for v in view["vs"]:
        for target in TARGETS:
            hits = [
                rid
                for rid in view["order"]
                if v in view["rows"][rid]["cells"]
                and view["rows"][rid]["cells"][v]["rate"] >= target
            ]
            name = OLD_ONE_TEXT.get(v, v)
            if not hits:
                out.append([name, f"{target:g}", "-", "none in this lake", "-"])
                continue
            best = min(
                hits,
                key=lambda rid: (view["rows"][rid]["cost"], -view["rows"][rid]["cells"][v]["rate"]),
            )
            r = view["rows"][best]["cells"][v]
            out.append(
                [
                    name,
                    f"{target:g}",
                    f"{view['rows'][best]['cost']:g}",
                    lake_row_label(best, view["other"], view["rows"][best]["cost"]).split(" (")[0]
                    + (f"; {', '.join(best[1:])}" if best[1:] else ""),
                    interval(r["rate"], r["ci_low"], r["ci_high"]),
                ]
            )
    return out

"""The combat odds section, from an odds table (simkit odds / simkit demo)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from simkit.names import OLD_ONES, UNITS
from simkit.odds import LOST_BINS, cheapest_mixes
from simkit.report.html import esc, figure_html, table_html

MIX_COLS = [f"n_{u}" for u in UNITS]
SHORT = {
    "infantry": "Inf",
    "armoured_car": "AC",
    "artillery": "Art",
    "armoured_train": "Train",
    "airship": "Air",
}
TARGETS = (0.5, 0.8, 0.95)


def mix_label(row) -> str:
    parts = [f"{int(row[f'n_{u}'])} {SHORT[u]}" for u in UNITS if row[f"n_{u}"]]
    return " + ".join(parts)


def rate(p: float, lo: float, hi: float, method: str) -> str:
    """A rate with its interval (exact rows have none to show)."""
    return f"{p:.3f}" if method == "exact" else f"{p:.3f} ({lo:.3f}-{hi:.3f})"


def heatmap(table: pd.DataFrame, copies: int, max_rows: int = 40):
    one = table[table["old_ones"] == copies]
    mixes = one.drop_duplicates(MIX_COLS).sort_values(["gold_cost", "tp_cost"]).head(max_rows)
    kinds = [k for k in OLD_ONES if k in set(one["old_one"].astype(str))]
    grid = np.full((len(mixes), len(kinds)), np.nan)
    index = {tuple(r): i for i, r in enumerate(mixes[MIX_COLS].to_numpy())}
    for _, r in one.iterrows():
        key = tuple(r[MIX_COLS])
        if key in index and str(r["old_one"]) in kinds:
            grid[index[key], kinds.index(str(r["old_one"]))] = r["p_destroy"]
    fig, ax = plt.subplots(figsize=(1.3 * len(kinds) + 3, 0.28 * len(mixes) + 1.5))
    # vector cells (pcolormesh), not a raster image, so the inline SVG stays crisp in print
    im = ax.pcolormesh(
        np.arange(len(kinds) + 1) - 0.5,
        np.arange(len(mixes) + 1) - 0.5,
        np.ma.masked_invalid(grid),
        cmap="viridis",
        vmin=0,
        vmax=1,
        edgecolors="white",
        linewidth=0.3,
    )
    ax.set_ylim(len(mixes) - 0.5, -0.5)
    ax.set_xticks(range(len(kinds)), kinds)
    ax.set_yticks(
        range(len(mixes)),
        [f"{mix_label(r)}  ({r['gold_cost']:.0f}G)" for _, r in mixes.iterrows()],
        fontsize=7,
    )
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
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
    fig.colorbar(im, ax=ax, label="P(destroy)")
    ax.set_title(
        f"P(destroy) vs {copies} Old One{'s' if copies > 1 else ''}: "
        f"the {len(mixes)} cheapest mixes"
    )
    return fig


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
        ax.plot(ks, survive, marker="o", label=f"{kind}: {mix_label(r)}")
        picked.append((kind, r))
    ax.set_xlabel("k units")
    ax.set_ylabel("P(at least k units survive)")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title("Survival of the cheapest force reaching P(destroy) >= 0.8")
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
        foes = f"{int(r['old_ones'])} x {r['old_one']}"
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
                f"{mix_label(r)} vs {int(r['old_ones'])} x {r['old_one']}",
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
                f"{mix_label(r)} vs {int(r['old_ones'])} x {r['old_one']}",
                f"{r['value_never']:+.2f}",
                f"{r['value_table']:+.2f}",
                f"{r['value_counting']:+.2f}",
                f"{r['counting_gain']:+.3f}",
                f"{r['p_withdraw_value_policy']:.1%}",
            ]
        )
    return text, rows


def cheapest_table_rows(table: pd.DataFrame) -> list[list[object]]:
    rows = []
    for kind in OLD_ONES:
        for copies in (1, 2):
            for target in TARGETS:
                best = cheapest_mixes(table, kind, copies, target, top=1)
                if best.empty:
                    rows.append([kind, copies, target, "none in table", "", "", ""])
                    continue
                r = best.iloc[0]
                rows.append(
                    [
                        kind,
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


def section(table: pd.DataFrame, sid: str = "combat-odds") -> str:
    parts = [
        f'<h2 id="{sid}">Combat odds</h2>',
        f'<p class="note">{len(table):,} matchups; '
        f"{(table['method'] == 'exact').mean():.0%} solved exactly, the rest by Monte Carlo "
        "(shown with 95% Wilson intervals). Gold cost and attack TP beside every force.</p>",
    ]
    for copies in sorted(table["old_ones"].unique()):
        parts.append(
            figure_html(
                heatmap(table, int(copies)),
                f"P(destroy) by unit mix and Old One type (x{int(copies)})",
                f"fig-heatmap-{int(copies)}",
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
    parts.append("<h3>Cheapest mixes reaching a target</h3>")
    parts.append(
        table_html(
            ["Old One", "copies", "target P(destroy)", "cheapest mix", "Gold", "TP", "P(destroy)"],
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

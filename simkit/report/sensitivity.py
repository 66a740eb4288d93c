"""Sensitivity to assumed data: how the headline rate moves when one assumed value moves.

Each sensitivity experiment (experiments/sensitivity_*.toml) varies one data override
around the shipped pack's value, or several one at a time (``design = "one_at_a_time"``:
every other key stays at the pack's value); cells share seeds, so each change is measured
as a paired difference (common random numbers) with its 95% interval.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from simkit import analysis
from simkit.names import label
from simkit.report.html import esc, figure_html, table_html
from simkit.views import bounds


def is_sensitivity(lake: analysis.Lake) -> bool:
    """Only data overrides vary: one key, or several one at a time."""
    keys = lake.grid_keys
    one_at_a_time = lake.record.get("spec", {}).get("design") == "one_at_a_time"
    return bool(keys) and all("." in k for k in keys) and (len(keys) == 1 or one_at_a_time)


def rows_for(lake: analysis.Lake) -> list[dict]:
    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    keys = lake.grid_keys
    pack = load_pack()
    base = {k: pack_value(pack, k) for k in keys}
    diffs = analysis.paired_difference(lake.scan(), base, metric=lake.key_metric, by=keys)
    spec = lake.record.get("spec", {})
    mode = spec.get("mode", "?")
    fixed = ", ".join(f"{label(k)}: {v}" for k, v in spec.get("params", {}).items())
    out = []
    for r in diffs.to_dicts():
        key = next(k for k in keys if r[k] != base[k])  # the one value this cell moved
        out.append(
            {
                "experiment": lake.name,
                "mode": mode,
                "params": fixed,
                "key": key,
                "value": r[key],
                "baseline": base[key],
                "games": r["games"],
                "rate": r["rate"],
                "baseline_rate": r["baseline_rate"],
                "diff": r["diff"],
                "ci_low": r["ci_low"],
                "ci_high": r["ci_high"],
                "metric": lake.key_metric,
            }
        )
    out.sort(
        key=lambda r: (keys.index(r["key"]), r["value"])
    )  # each key's values together, in order
    return out


def perturbed(rows: list[dict]) -> str:
    """What the band covers beyond unit values: deck faces and Old One tile values."""
    deck = any(r["key"] == "deck.assumed_seed" for r in rows)
    tiles = any(
        r["key"].startswith("old_ones.") and r["key"].endswith((".vp", ".damage_capacity"))
        for r in rows
    )
    said = []
    said.append(
        "deck faces were redrawn within the rulebook's rules of thumb (deck.assumed_seed)"
        if deck
        else "deck faces are not perturbed here (see experiments/sensitivity_deck_faces.toml)"
    )
    said.append(
        "Old One tile values (VP, damage capacity) were moved one step, within the stated bounds "
        "(experiments/sensitivity_tile_values.toml)"
        if tiles
        else "Old One tile values are not perturbed here "
        "(see experiments/sensitivity_tile_values.toml)"
    )
    text = "; ".join(said)
    return text[0].upper() + text[1:] + "."


def section(lakes: list[analysis.Lake]) -> str:
    rows = [r for lake in lakes for r in rows_for(lake)]
    if not rows:
        return ""
    metric = label(rows[0]["metric"])
    modes = {r["mode"] for r in rows}
    labels = [
        f"{r['key']} = {r['value']} (shipped {r['baseline']})"
        + (f" [{r['mode']}]" if len(modes) > 1 else "")
        for r in rows
    ]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(rows) + 1.5))
    y = np.arange(len(rows))
    d = np.array([r["diff"] for r in rows])
    err = np.array(
        [[r["diff"] - r["ci_low"] for r in rows], [r["ci_high"] - r["diff"] for r in rows]]
    )
    ax.barh(y, d, color=["#c44e52" if x > 0 else "#4c72b0" for x in d], alpha=0.6)
    ax.errorbar(d, y, xerr=err, fmt="none", ecolor="black", capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"change in {metric} rate vs the shipped value (paired, 95% interval)")
    ax.set_title("Sensitivity of the headline rate to assumed values")
    items = []
    for exp in dict.fromkeys(r["experiment"] for r in rows):
        mine = [r for r in rows if r["experiment"] == exp]
        lo = min(r["baseline_rate"] + r["ci_low"] for r in mine)
        hi = max(r["baseline_rate"] + r["ci_high"] for r in mine)
        big = max(mine, key=lambda r: abs(r["diff"]))
        items.append(
            f"<li><b>{esc(exp)}</b> ({esc(mine[0]['mode'])} mode; {esc(mine[0]['params'])}): "
            f"shipped {esc(metric)} rate {mine[0]['baseline_rate']:.3f}; one value one step away "
            f"puts it anywhere in {bounds(lo, hi)}; the largest change is {big['diff']:+.3f} "
            f"({esc(big['key'])} = {esc(big['value'])})</li>"
        )
    band = (
        "Each row moves one assumed value one step from the shipped pack, every other value as "
        f"shipped, on shared seeds (95% paired intervals):<ul>{''.join(items)}</ul>Treat balance "
        "conclusions finer than these bands as unsupported until the real "
        "values are typed in. " + esc(perturbed(rows))
    )
    return "".join(
        [
            '<h2 id="sensitivity">Sensitivity to assumed data</h2>',
            f'<div class="note" id="sensitivity-band">{band}</div>',
            figure_html(
                fig, "Paired change of the headline rate per perturbed value", "fig-sensitivity"
            ),
            table_html(
                [
                    "mode",
                    "override",
                    "value",
                    "shipped",
                    "paired games",
                    "rate",
                    "shipped rate",
                    "change",
                    "95% interval",
                    "note",
                ],
                [
                    [
                        r["mode"],
                        r["key"],
                        r["value"],
                        r["baseline"],
                        f"{r['games']:,}",
                        f"{r['rate']:.4f}",
                        f"{r['baseline_rate']:.4f}",
                        f"{r['diff']:+.4f}",
                        bounds(r["ci_low"], r["ci_high"], 4, signed=True),
                        "no game changed: unused by these strategies/mode"
                        if r["ci_low"] == r["ci_high"] == 0
                        else "",
                    ]
                    for r in rows
                ],
                "table-sensitivity",
                text_columns=(0, 1, 9),
            ),
        ]
    )

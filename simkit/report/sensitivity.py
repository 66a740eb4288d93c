"""Sensitivity to assumed data: how the headline rate moves when one assumed value moves.

Each sensitivity experiment (experiments/sensitivity_*.toml) varies one data override
around the shipped pack's value; cells share seeds, so the change is measured as a
paired difference (common random numbers) with its 95% interval.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from simkit import analysis
from simkit.report.html import esc, figure_html, table_html


def is_sensitivity(lake: analysis.Lake) -> bool:
    keys = lake.grid_keys
    return len(keys) == 1 and "." in keys[0]


def rows_for(lake: analysis.Lake) -> list[dict]:
    from simkit.datapack import load_pack
    from simkit.runner.overrides import pack_value

    key = lake.grid_keys[0]
    base = pack_value(load_pack(), key)
    diffs = analysis.paired_difference(lake.scan(), {key: base}, metric=lake.key_metric, by=[key])
    out = []
    for r in diffs.to_dicts():
        out.append({"experiment": lake.experiment, "key": key, "value": r[key], "baseline": base,
                    "games": r["games"], "rate": r["rate"], "baseline_rate": r["baseline_rate"],
                    "diff": r["diff"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "metric": lake.key_metric})
    return out


def section(lakes: list[analysis.Lake]) -> str:
    rows = [r for lake in lakes for r in rows_for(lake)]
    if not rows:
        return ""
    metric = rows[0]["metric"]
    labels = [f"{r['key']} = {r['value']} (shipped {r['baseline']})" for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(rows) + 1.5))
    y = np.arange(len(rows))
    d = np.array([r["diff"] for r in rows])
    err = np.array([[r["diff"] - r["ci_low"] for r in rows], [r["ci_high"] - r["diff"] for r in rows]])
    ax.barh(y, d, color=["#c44e52" if x > 0 else "#4c72b0" for x in d], alpha=0.6)
    ax.errorbar(d, y, xerr=err, fmt="none", ecolor="black", capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"change in {metric} rate vs the shipped value (paired, 95% interval)")
    ax.set_title("Sensitivity of the headline rate to assumed values")
    lo = min(r["baseline_rate"] + r["ci_low"] for r in rows)
    hi = max(r["baseline_rate"] + r["ci_high"] for r in rows)
    base_rates = sorted({round(r["baseline_rate"], 4) for r in rows})
    band = (f"With the shipped values the {esc(metric)} rate is {', '.join(f'{b:.3f}' for b in base_rates)} "
            f"(per experiment). Moving one assumed value one step puts it anywhere from {lo:.3f} to {hi:.3f} "
            "(95% paired intervals): treat balance conclusions finer than that band as unsupported until the "
            "real values are typed in. "
            + ("Deck faces were redrawn within the rulebook's rules of thumb (deck.assumed_seed); tile values "
               "are not perturbed." if any(r["key"] == "deck.assumed_seed" for r in rows) else
               "Deck faces and tile values are not perturbed here (see experiments/sensitivity_deck_faces.toml)."))
    return "".join([
        '<h2 id="sensitivity">Sensitivity to assumed data</h2>',
        f'<p class="note" id="sensitivity-band">{band}</p>',
        figure_html(fig, "Paired change of the headline rate per perturbed value", "fig-sensitivity"),
        table_html(["override", "value", "shipped", "paired games", "rate", "shipped rate", "change", "95% interval",
                    "note"],
                   [[r["key"], r["value"], r["baseline"], f"{r['games']:,}", f"{r['rate']:.4f}",
                     f"{r['baseline_rate']:.4f}", f"{r['diff']:+.4f}", f"{r['ci_low']:+.4f} .. {r['ci_high']:+.4f}",
                     "no game changed: unused by these strategies/mode" if r["ci_low"] == r["ci_high"] == 0 else ""]
                    for r in rows], "table-sensitivity", text_columns=(0, 8))])
